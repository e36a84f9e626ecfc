//! `avrlab warm-up`: every task of a benchmark made ready for validation, nothing validated.

use std::process::ExitCode;

use avrlab_run::run_loop::{Progress, warm_up_only};

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

/// `avrlab bench fidelity`: warms every task up for the fast engine and prints, per task, what
/// its fidelity probe found (the differences between Surefire's fork and the fast test JVM).
pub fn fidelity(options: ValidationOptions) -> Result<ExitCode, Failure> {
    let benchmark = options.benchmark()?;
    let (config, _work) = options.engine(false)?;
    let oracle = avrlab_validate::FastOracle::new(
        config.validator.clone(),
        super::options::fast_config(&options, config.workers),
    );
    let progress = StderrProgress::new();
    let tasks: Vec<_> = benchmark.tasks.iter().collect();
    let unprepared = warm_up_only(&oracle, &tasks, config.workers, &progress)
        .map_err(Failure::infrastructure)?;
    let mut unexplained = 0;
    let mut out = String::new();
    for task in &tasks {
        out.push_str(&format!("## {}\n\n", task.id));
        if let Some(why) = unprepared.get(&task.id) {
            out.push_str(&format!("not warmed up: {why}\n\n"));
            continue;
        }
        match oracle.fidelity(&task.id) {
            Some(Ok(found)) => {
                unexplained += usize::from(found.unexplained().is_some());
                out.push_str(&found.table());
                out.push('\n');
            }
            Some(Err(why)) => {
                unexplained += 1;
                out.push_str(&format!("the probe did not run: {why}\n\n"));
            }
            None => out.push_str(&format!(
                "no probe: {}\n\n",
                oracle
                    .unsupported(&task.id)
                    .unwrap_or_else(|| "the fast path did not warm it up".into())
            )),
        }
    }
    #[expect(clippy::print_stdout, reason = "the command's result")]
    {
        print!("{out}");
    }
    Ok(if unexplained == 0 {
        ExitCode::SUCCESS
    } else {
        ExitCode::from(3)
    })
}
