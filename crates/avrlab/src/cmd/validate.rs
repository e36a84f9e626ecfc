//! `avrlab validate`: the reference check of a benchmark, or a predictions file, to verdicts.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab::engine::{EngineError, RunRequest, execute};
use avrlab::input::{read_patches_file, reference_candidates};
use avrlab::summary::{render_text, summarize};
use avrlab_core::Outcome;
use avrlab_store::{RunMode, Store, StoreError};

use super::Failure;
use super::options::ValidationOptions;
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
    /// The results store.
    #[arg(long, default_value = ".avrlab/results.sqlite")]
    pub store: PathBuf,
    /// The run id [default: <mode>-<benchmark>-<unix time>].
    #[arg(long)]
    pub run: Option<String>,
    /// Continue the run (--run, or the newest unfinished one of this mode and benchmark),
    /// validating only candidates without a verdict.
    #[arg(long)]
    pub resume: bool,
    /// Record candidates that do not apply as ApplyFailed instead of refusing the input.
    #[arg(long)]
    pub allow_apply_failures: bool,
    /// Print the summary as JSON on stdout.
    #[arg(long)]
    pub json: bool,
}

/// One task's line of `avrlab bench check`.
#[derive(Debug)]
struct CheckRow {
    task: String,
    builds: &'static str,
    vulnerable_fails_pov: &'static str,
    reference_plausible: &'static str,
    excluded: String,
    jdk: String,
    minutes: f64,
    note: String,
    /// The baseline's exclusions grouped by cause, and the share of the suite that counts.
    explained: Vec<String>,
}

fn check_row(
    task: &avrlab_bench::Task,
    summary: &avrlab::summary::Summary,
    baseline: Option<&avrlab_validate::Baseline>,
    jdk: String,
) -> CheckRow {
    let of = |label: &str| {
        summary
            .verdicts
            .iter()
            .find(|v| v.task == task.id && v.label == label)
    };
    let (vulnerable, reference) = (of("vulnerable"), of("reference"));
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let builds = match reference {
        Some(v) => yes_no(v.outcome != Outcome::Uncompilable),
        None => "-",
    };
    let minutes = [vulnerable, reference]
        .iter()
        .flatten()
        .map(|v| v.seconds)
        .sum::<f64>()
        / 60.0;
    let mut note = String::new();
    for (name, v) in [("vulnerable", vulnerable), ("reference", reference)] {
        if let Some(v) = v
            && !matches!(
                (name, v.outcome),
                ("vulnerable", Outcome::PovFailing) | ("reference", Outcome::Plausible)
            )
        {
            note = format!("{name}: {} ({})", v.outcome, v.reason);
        }
    }
    CheckRow {
        task: task.id.clone(),
        builds,
        vulnerable_fails_pov: vulnerable.map_or("-", |v| yes_no(v.outcome == Outcome::PovFailing)),
        reference_plausible: reference.map_or("-", |v| yes_no(v.outcome == Outcome::Plausible)),
        excluded: baseline.map_or_else(
            || "no baseline".to_owned(),
            |b| match &b.note {
                Some(n) => n.clone(),
                None => format!("{} of {}", b.excluded.len(), b.ran),
            },
        ),
        jdk,
        minutes,
        note,
        explained: baseline
            .filter(|b| b.note.is_none())
            .map(explain_baseline)
            .unwrap_or_default(),
    }
}

/// The row of a task whose warm-up failed: nothing of it was validated.
fn unprepared_row(task: &avrlab_bench::Task, reason: &str) -> CheckRow {
    CheckRow {
        task: task.id.clone(),
        builds: "no",
        vulnerable_fails_pov: "-",
        reference_plausible: "-",
        excluded: "no baseline".to_owned(),
        jdk: format!("{} (task)", task.build.jdk),
        minutes: 0.0,
        note: format!("warm-up failed: {reason}"),
        explained: Vec::new(),
    }
}

/// The share of the suite that counts, then one line per group of exclusions, the largest first.
fn explain_baseline(baseline: &avrlab_validate::Baseline) -> Vec<String> {
    let mut lines = vec![baseline.share()];
    for group in baseline.groups() {
        let tests = match group.tests {
            1 => "1 test".to_owned(),
            n => format!("{n} tests"),
        };
        lines.push(match &group.cause {
            Some(cause) => format!("{tests}: {cause}"),
            None => format!("{tests}: flaky (not passing in one baseline run, passing in another)"),
        });
    }
    lines
}

fn render_check_table(rows: &[CheckRow]) -> String {
    let mut out = String::from(
        "\n| task | builds | vulnerable fails PoV | reference Plausible | baseline exclusions | JDK | minutes | note |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} | {} |\n",
            r.task,
            r.builds,
            r.vulnerable_fails_pov,
            r.reference_plausible,
            r.excluded,
            r.jdk,
            r.minutes,
            r.note.replace('|', "/")
        ));
    }
    for r in rows.iter().filter(|r| !r.explained.is_empty()) {
        out.push_str(&format!("\n{}: {}\n", r.task, r.explained[0]));
        for line in &r.explained[1..] {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}

pub(super) fn store_failure(error: StoreError) -> Failure {
    match error {
        StoreError::NotADatabase(_)
        | StoreError::NotAStore(_)
        | StoreError::Version { .. }
        | StoreError::RunExists(_)
        | StoreError::UnknownCandidate { .. } => Failure::input(error),
        other => Failure::infrastructure(other),
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
    if benchmark
        .tasks
        .iter()
        .any(|t| t.kind == avrlab_bench::TaskKind::Feature)
    {
        return super::feature::validate_features(&args, &benchmark);
    }
    let (mode, planned) = match &args.patches {
        Some(path) => (
            RunMode::Patches,
            read_patches_file(path, &benchmark).map_err(Failure::input)?,
        ),
        None => (RunMode::Reference, reference_candidates(&benchmark)),
    };
    let mut store = Store::open(&args.store).map_err(store_failure)?;
    let (config, _work) = args.options.engine(args.allow_apply_failures)?;
    let oracle = args.options.oracle(&config)?;
    let config_json = serde_json::json!({
        "benchmark": args.options.benchmark,
        "tasks": args.options.tasks,
        "timeout_seconds": args.options.timeout,
        "sandbox": args.options.sandbox.as_str(),
        "workers": config.workers,
        "patches": args.patches,
    })
    .to_string();
    let request = RunRequest {
        mode,
        benchmark: &benchmark,
        planned,
        run_id: args.run.clone(),
        resume: args.resume,
        config_json,
    };
    let progress = StderrProgress::new();
    let report =
        execute(&mut store, request, &config, oracle.as_ref(), &progress).map_err(|e| match e {
            EngineError::Store(e) => store_failure(e),
            EngineError::Validate(_) => Failure::infrastructure(e),
            other => Failure::input(other),
        })?;
    let summary = summarize(&store, &report, &benchmark.name, mode).map_err(store_failure)?;
    #[expect(clippy::print_stdout, reason = "the command's result")]
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("summaries serialize")
        );
    } else {
        print!("{}", render_text(&summary));
    }
    if table {
        let mut rows = Vec::new();
        // The baseline is the Maven engine's (`bench check` runs that engine).
        let maven = avrlab_validate::MavenOracle::new(config.validator.clone());
        for task in &benchmark.tasks {
            if let Some(reason) = report.unprepared.get(&task.id) {
                rows.push(unprepared_row(task, reason));
                continue;
            }
            let (baseline, jdk) = maven.baseline(task).map_err(Failure::infrastructure)?;
            rows.push(check_row(task, &summary, baseline.as_ref(), jdk));
        }
        #[expect(clippy::print_stdout, reason = "the command's result")]
        {
            print!("{}", render_check_table(&rows));
        }
    }
    let failed_check = summary.reference_check.as_ref().is_some_and(|c| !c.passed)
        || !report.unprepared.is_empty();
    if !table && let Some(failure) = super::unprepared_failure(&report) {
        return Err(failure);
    }
    Ok(if failed_check {
        ExitCode::from(3)
    } else {
        ExitCode::SUCCESS
    })
}
