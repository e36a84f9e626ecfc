//! `avrlab merge`: the stores of a sharded run's workers into one store.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_run::merge::{merge_shards, render_merged};

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
    print!("{}", render_merged(&args.into, &merged));
    Ok(ExitCode::SUCCESS)
}
