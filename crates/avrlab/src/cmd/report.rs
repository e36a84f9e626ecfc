//! `avrlab report RUN…`: the tables of stored eval runs, one model row per run.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_report::{ReportFormat, build_eval_report, render};
use avrlab_store::Store;
use clap::ValueEnum;

use super::Failure;
use super::validate::store_failure;

/// Report formats on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Md,
    Csv,
    Json,
}

impl From<FormatArg> for ReportFormat {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Md => Self::Markdown,
            FormatArg::Csv => Self::Csv,
            FormatArg::Json => Self::Json,
        }
    }
}

/// Arguments of `avrlab report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Eval run ids (each becomes one model row).
    #[arg(required = true)]
    pub runs: Vec<String>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: FormatArg,
    /// The results store.
    #[arg(long, default_value = ".avrlab/results.sqlite")]
    pub store: PathBuf,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if !args.store.is_file() {
        return Err(Failure::input(anyhow::anyhow!(
            "no results store at {}: give --store",
            args.store.display()
        )));
    }
    let store = Store::open(&args.store).map_err(store_failure)?;
    let report = build_eval_report(&store, &args.runs).map_err(Failure::input)?;
    #[expect(clippy::print_stdout, reason = "the report is the command's output")]
    {
        print!("{}", render(&report, args.format.into()));
    }
    Ok(ExitCode::SUCCESS)
}
