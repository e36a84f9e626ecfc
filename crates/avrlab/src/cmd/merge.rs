//! `avrlab merge`: the stores of a sharded run's workers into one store.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_run::merge::{describe_undecided, merge_shards};

use super::Failure;

/// Arguments of `avrlab merge`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The store to merge into (created when missing; replaced only when the merge is whole).
    #[arg(long, value_name = "STORE")]
    pub into: PathBuf,
    /// Merge what there is when shards are missing or unfinished, and say what is missing.
    #[arg(long)]
    pub partial: bool,
    /// The shards' stores (each written by `--shard K/N`).
    #[arg(required = true, value_name = "SHARD")]
    pub shards: Vec<PathBuf>,
}

#[expect(
    clippy::print_stdout,
    reason = "the merge's summary is the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let merged = merge_shards(&args.into, &args.shards, args.partial).map_err(|e| {
        if e.is_bad_input() {
            Failure::input(e)
        } else {
            Failure::infrastructure(e)
        }
    })?;
    for run in merged {
        let shards: Vec<String> = run.shards.iter().map(ToString::to_string).collect();
        println!(
            "run {}: shards {} merged into {}: {} candidates, {} verdicts added",
            run.run,
            shards.join(", "),
            args.into.display(),
            run.candidates,
            run.verdicts_added
        );
        if !run.missing_shards.is_empty() {
            let missing: Vec<String> = run.missing_shards.iter().map(ToString::to_string).collect();
            println!("  missing shards: {}", missing.join(", "));
        }
        if !run.undecided.is_empty() {
            println!(
                "  without a verdict (the run stays unfinished): {}",
                describe_undecided(&run.undecided)
            );
        }
    }
    Ok(ExitCode::SUCCESS)
}
