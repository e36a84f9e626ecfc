//! `avrlab validate`: the reference check of a benchmark, or a predictions file, to verdicts.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_core::RunConfig;
use avrlab_run::input::{MalformedPatches, read_predictions, reference_candidates};
use avrlab_run::reference_check::check_table;
use avrlab_run::run_loop::{RunRequest, VerdictRetry, execute};
use avrlab_run::summary::{render_text, summarize};
use avrlab_run::swe_report::swe_report;
use avrlab_store::{RunMode, Store};

use super::options::{DifferentialArgs, RunArgs, StoreArg, ValidationOptions};
use super::report::{output_path, write_whole};
use super::{Exit, Failure};
use crate::progress::StderrProgress;

/// Arguments of `avrlab validate`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("input").required(true).args(["reference", "patches"])))]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
    /// Validate every task's vulnerable state (must fail its PoV tests) and reference fix (must
    /// be Plausible).
    #[arg(long)]
    pub reference: bool,
    /// A predictions file: one JSON object a line with `task`, `candidate`, and `patch` (a
    /// unified diff) or `replacement` (+ optional `target`: method[:N] | hunk[:M]:N).
    #[arg(long)]
    pub patches: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub target: RunArgs,
    #[command(flatten)]
    pub differential: DifferentialArgs,
    /// Record candidates that do not apply as ApplyFailed instead of refusing the input.
    #[arg(long)]
    pub allow_apply_failures: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
    /// Also write the run's results as SWE-bench's report.json has them (per candidate: applied,
    /// resolved, the PoV tests as FAIL_TO_PASS and the regression tests as PASS_TO_PASS).
    #[arg(long, value_name = "FILE")]
    pub report_json: Option<PathBuf>,
    /// With --resume: validate again the stored verdicts of these kinds — `errored` (the
    /// infrastructure failed the validation, e.g. a test JVM killed from outside) and/or
    /// outcomes (`indeterminate`, `timeout`, …) — keeping their earlier attempts in the store.
    #[arg(long, value_delimiter = ',', value_name = "errored|OUTCOME,…", requires = "resume", value_parser = parse_retry)]
    pub retry: Vec<RetryKind>,
}

/// One kind of stored verdict `--retry` validates again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RetryKind {
    Errored,
    Outcome(avrlab_core::Outcome),
}

/// `--retry errored` or an outcome, named as stored or in lower case.
fn parse_retry(text: &str) -> Result<RetryKind, String> {
    if text.trim() == "errored" {
        return Ok(RetryKind::Errored);
    }
    avrlab_core::Outcome::ALL
        .iter()
        .find(|o| o.as_str().eq_ignore_ascii_case(text.trim()))
        .map(|o| RetryKind::Outcome(*o))
        .ok_or_else(|| {
            let names: Vec<String> = avrlab_core::Outcome::ALL
                .iter()
                .map(|o| o.as_str().to_ascii_lowercase())
                .collect();
            format!(
                "--retry {text}: name `errored` or outcomes ({})",
                names.join(", ")
            )
        })
}

fn verdict_retry(kinds: &[RetryKind]) -> VerdictRetry {
    let mut retry = VerdictRetry::default();
    for kind in kinds {
        match kind {
            RetryKind::Errored => retry.errored = true,
            RetryKind::Outcome(outcome) => retry.outcomes.push(*outcome),
        }
    }
    retry
}

impl Args {
    /// What every validation run records of its command line.
    fn run_config(&self) -> RunConfig {
        RunConfig {
            benchmark: Some(self.options.benchmark.clone()),
            tasks: self.options.tasks.clone(),
            timeout_seconds: Some(self.options.timeout),
            patches: self.patches.as_ref().map(|p| p.display().to_string()),
            shard: self.target.shard,
            ..RunConfig::default()
        }
    }
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    run_with(args, false)
}

/// `avrlab bench check`: the reference check, then one row per task.
pub fn check(args: Args) -> Result<ExitCode, Failure> {
    run_with(args, true)
}

fn run_with(args: Args, table: bool) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    match super::benchmark_kind(&benchmark, "validate")? {
        avrlab_bench::TaskKind::Feature => return validate_features(&args, &benchmark),
        avrlab_bench::TaskKind::Repair => {}
    }
    if let Some(path) = &args.report_json {
        output_path("--report-json", path)?;
    }
    let (mode, planned) = match &args.patches {
        Some(path) => (
            RunMode::Patches,
            read_predictions(
                path,
                &benchmark,
                if args.allow_apply_failures {
                    MalformedPatches::Record
                } else {
                    MalformedPatches::Refuse
                },
            )
            .map_err(Failure::input)?,
        ),
        None => (RunMode::Reference, reference_candidates(&benchmark)),
    };
    let mut store = Store::open(&args.store.path)?;
    let (mut config, _work) = args.options.engine(args.allow_apply_failures)?;
    config.differential = args.differential.config(false);
    let oracle = args.options.oracle(&config)?;
    let resume = args.target.resume(&store)?;
    let request = RunRequest {
        mode,
        benchmark: &benchmark,
        planned,
        run_id: args.target.run.clone(),
        resume,
        config: RunConfig {
            workers: Some(config.workers),
            sandbox: Some(args.options.sandbox.as_str().to_owned()),
            ..args.run_config()
        },
        retry: verdict_retry(&args.retry),
        plan: None,
    };
    let progress = StderrProgress::new();
    let report = execute(&mut store, request, &config, oracle.as_ref(), &progress)?;
    let summary = summarize(&store, &report, &benchmark.name, mode)?;
    // `validate` (not the check) where no task could be warmed up has nothing to show: the cause
    // is the one line it prints, as before any table (a missing Gradle, a project that does not
    // build). The check shows such tasks as rows instead.
    if !table
        && summary.verdicts.is_empty()
        && let Some(failure) = super::unprepared_failure(&report)
    {
        return Err(failure);
    }
    #[expect(clippy::print_stdout, reason = "the command's result")]
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("summaries serialize")
        );
    } else {
        print!("{}", render_text(&summary));
    }
    if let Some(path) = &args.report_json {
        let report = swe_report(&store, &report.run_id)?;
        let text = serde_json::to_string_pretty(&report).expect("reports serialize");
        write_whole("--report-json", path, &text)?;
    }
    if table {
        let text = check_table(&benchmark, &report, &summary, &config.validator)
            .map_err(Failure::infrastructure)?;
        #[expect(clippy::print_stdout, reason = "the command's result")]
        let () = print!("{text}");
    }
    let failed_check = summary.reference_check.as_ref().is_some_and(|c| !c.passed)
        || !report.unprepared.is_empty();
    if !table && let Some(failure) = super::unprepared_failure(&report) {
        return Err(failure);
    }
    Ok(if failed_check {
        Exit::CheckFailed.into()
    } else {
        ExitCode::SUCCESS
    })
}

/// `validate` on a benchmark of feature tasks: the predictions (a file, or each task's golden,
/// vulnerable and empty ones) go through the run loop as repairs do (workers, `--engine`,
/// resume, retry, shards); the feature report is printed.
fn validate_features(
    args: &Args,
    benchmark: &avrlab_bench::Benchmark,
) -> Result<ExitCode, Failure> {
    use avrlab_run::feature_score::{read_feature_predictions, reference_feature_candidates};

    let (config, _work) = args.options.engine(args.allow_apply_failures)?;
    let oracle = args.options.oracle(&config)?;
    let (mode, planned) = match &args.patches {
        Some(path) => (
            RunMode::Patches,
            read_feature_predictions(path, benchmark).map_err(Failure::input)?,
        ),
        None => (
            RunMode::Reference,
            reference_feature_candidates(benchmark, oracle.as_ref())?,
        ),
    };
    let mut store = Store::open(&args.store.path)?;
    let request = RunRequest {
        mode,
        benchmark,
        planned,
        run_id: args.target.run.clone(),
        resume: args.target.resume(&store)?,
        config: RunConfig {
            feature: true,
            workers: Some(config.workers),
            sandbox: Some(args.options.sandbox.as_str().to_owned()),
            ..args.run_config()
        },
        retry: verdict_retry(&args.retry),
        plan: None,
    };
    let progress = StderrProgress::new();
    let report = execute(&mut store, request, &config, oracle.as_ref(), &progress)?;
    super::finish_feature_run(&store, &report, benchmark, oracle.name(), &progress)
}
