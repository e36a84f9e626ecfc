//! `avrlab diff-test RUN`: each plausible candidate of a run against the reference fix, on
//! generated inputs (the workflow is `avrlab_run::diff_test`).

use std::process::ExitCode;
use std::time::Duration;

use avrlab_run::diff_test::{DiffTestConfig, DiffTestError, diff_test_run, render_lines};
use avrlab_store::Store;

use super::options::{StoreArg, ValidationOptions};
use super::{Failure, store_failure};
use crate::progress::StderrProgress;

/// Arguments of `avrlab diff-test`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The validated run whose plausible candidates to compare.
    pub run: String,
    /// Seconds of generated inputs per candidate.
    #[arg(long, default_value_t = 20)]
    pub budget: u64,
    /// The seed every input is drawn from.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Also compare candidates proven Exact or Equivalent (they must never diverge).
    #[arg(long)]
    pub include_proven: bool,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub validation: ValidationOptions,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let mut store = Store::open(&args.store.path).map_err(store_failure)?;
    let (engine, _work) = args.validation.engine(false)?;
    let config = DiffTestConfig {
        seed: args.seed,
        budget: Duration::from_secs(args.budget),
        include_proven: args.include_proven,
        ..DiffTestConfig::default()
    };
    let benchmark = args.validation.benchmark()?;
    let progress = StderrProgress::new();
    let lines = diff_test_run(&mut store, &args.run, &benchmark, &engine.validator, &config, &progress)
        .map_err(|e| match e {
            DiffTestError::Store(e) => store_failure(e),
            DiffTestError::UnknownRun(_) | DiffTestError::NotValidated(_) => Failure::input(e),
            other => Failure::infrastructure(other),
        })?;
    #[expect(clippy::print_stdout, reason = "the table is the command's output")]
    {
        print!("{}", render_lines(&args.run, &lines));
    }
    Ok(ExitCode::SUCCESS)
}
