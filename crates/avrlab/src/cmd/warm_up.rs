//! `avrlab warm-up`: every task of a benchmark made ready for validation, nothing validated.

use std::process::ExitCode;

use avrlab_run::engine::{Progress, warm_up_only};

use super::Failure;
use super::options::ValidationOptions;
use crate::progress::StderrProgress;

/// Arguments of `avrlab warm-up`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    let (config, _work) = args.options.engine(false)?;
    let oracle = args.options.oracle(&config)?;
    let progress = StderrProgress::new();
    let tasks: Vec<_> = benchmark.tasks.iter().collect();
    let unprepared = warm_up_only(oracle.as_ref(), &tasks, config.workers, &progress)
        .map_err(Failure::infrastructure)?;
    if let Some((task, why)) = unprepared.iter().next() {
        return Err(Failure::infrastructure(anyhow::anyhow!(
            "{} of {} tasks could not be warmed up (first: {task}: {why})",
            unprepared.len(),
            tasks.len()
        )));
    }
    progress.message(&format!(
        "{}: {} tasks warmed up for the {} engine; shards can now run without network",
        benchmark.name,
        tasks.len(),
        oracle.name()
    ));
    Ok(ExitCode::SUCCESS)
}
