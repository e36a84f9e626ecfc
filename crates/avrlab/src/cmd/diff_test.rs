//! `avrlab diff-test RUN`: the run's plausible candidates against the reference fix, on generated
//! inputs (the workflow is `avrlab_run::diff_test`).

use std::process::ExitCode;

use avrlab_run::diff_test::{DiffTestConfig, diff_test_store};

use super::Failure;
use super::options::{StoreArg, ValidationOptions};

#[derive(Debug, clap::Args)]
pub struct Args {
    /// The validated run whose plausible candidates to compare.
    pub run: String,
    /// Seconds of generated inputs per candidate.
    #[arg(long, default_value_t = 20)]
    pub budget: u64,
    /// Also compare candidates proven Exact or Equivalent (they must never diverge).
    #[arg(long)]
    pub include_proven: bool,
    /// Compare only this candidate of the run (the command a witness prints).
    #[arg(long, value_name = "ID")]
    pub candidate: Option<String>,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub validation: ValidationOptions,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let (engine, _work) = args.validation.engine(false)?;
    let budget = std::time::Duration::from_secs(args.budget);
    let (include_proven, benchmark) = (args.include_proven, args.validation.benchmark()?);
    let config = DiffTestConfig {
        budget,
        include_proven,
        only: args.candidate,
        ..DiffTestConfig::default()
    };
    let progress = crate::progress::StderrProgress::new();
    let task_side = (&benchmark, &engine.validator, engine.workers);
    let table = diff_test_store(&args.store.path, &args.run, task_side, &config, &progress)
        .map_err(|e| {
            if e.is_bad_input() {
                Failure::input(e)
            } else {
                Failure::infrastructure(e)
            }
        })?;
    #[expect(clippy::print_stdout, reason = "the table is the command's output")]
    let () = print!("{table}");
    Ok(ExitCode::SUCCESS)
}
