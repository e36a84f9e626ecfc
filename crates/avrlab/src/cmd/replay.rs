//! `avrlab replay`: re-validate the generations a study published (the VJBench package's
//! `Model_patches`) on imported tasks, store them as an eval run, and print its tables with the
//! published labels beside ours.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_report::{build_eval_report, render};
use avrlab_run::replay::{ReplayRequest, check_request, import_generations};
use avrlab_store::Store;

use super::Failure;
use super::bench::datasets_dir;
use super::options::{DifferentialArgs, RunArgs, StoreArg, ValidationOptions};
use super::report::FormatArg;
use crate::progress::StderrProgress;

/// Arguments of `avrlab replay`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
    /// The published generations: a folder holding `Model_patches/` (or `model_output/`), or a
    /// git folder (bare or not) of the VJBench package.
    #[arg(long)]
    pub generations: PathBuf,
    /// The published model, as its folder is named (CodeT5, PLBART, InCoder, CodeGen,
    /// fine-tuned_CodeT5, …).
    #[arg(long)]
    pub model: String,
    /// The published variant (only `original` applies to imported tasks).
    #[arg(long, default_value = "original")]
    pub variant: String,
    /// The vulnerability locations [default: $AVRLAB_DATASETS/vjbench/vul_location.json].
    #[arg(long)]
    pub locations: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub target: RunArgs,
    #[command(flatten)]
    pub differential: DifferentialArgs,
    /// How to print the tables.
    #[arg(long, value_enum, default_value = "md")]
    pub report_format: FormatArg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    if !args.generations.exists() {
        return Err(Failure::input(anyhow::anyhow!(
            "--generations {}: no such folder",
            args.generations.display()
        )));
    }
    let locations = args
        .locations
        .clone()
        .unwrap_or_else(|| datasets_dir().join("vjbench/vul_location.json"));
    let request = ReplayRequest {
        generations: args.generations.clone(),
        locations,
        model: args.model.clone(),
        variant: args.variant.clone(),
        run_id: args.target.run.clone(),
        resume: args.target.resume,
        shard: args.target.shard,
    };
    check_request(&request).map_err(Failure::input)?;
    let mut store = Store::open(&args.store.path)?;
    let request = ReplayRequest {
        resume: args.target.resume(&store)?,
        ..request
    };
    let (mut config, _work) = args.options.engine(true)?;
    config.differential = args.differential.config(false);
    let oracle = args.options.oracle(&config)?;
    let progress = StderrProgress::new();
    let report = import_generations(
        &mut store,
        &benchmark,
        &request,
        &config,
        oracle.as_ref(),
        &progress,
    )?;
    let tables = build_eval_report(&store, std::slice::from_ref(&report.run.run_id))
        .map_err(Failure::infrastructure)?;
    #[expect(clippy::print_stdout, reason = "the tables are the command's result")]
    {
        print!("{}", render(&tables, args.report_format.into()));
    }
    avrlab_run::run_loop::Progress::message(&progress, &report.summary(&args.store.path));
    match super::unprepared_failure(&report.run) {
        Some(failure) => Err(failure),
        None => Ok(ExitCode::SUCCESS),
    }
}
