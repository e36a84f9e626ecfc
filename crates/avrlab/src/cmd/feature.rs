//! `avrlab feature import|export`: secure-feature tasks from and to SusVibes JSONL.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::{Benchmark, TaskKind, read_susvibes, write_susvibes};
use avrlab_run::susvibes::{import_records, record_of};
use clap::Subcommand;

use super::Failure;

/// Arguments of `avrlab feature`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: FeatureCommand,
}

#[derive(Debug, Subcommand)]
pub enum FeatureCommand {
    /// Write one feature task folder per record of a SusVibes JSONL file (all records or none).
    Import {
        /// The JSONL file.
        file: PathBuf,
        /// The benchmark folder to write the tasks into.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write the feature tasks of a benchmark as SusVibes JSONL.
    Export {
        /// The folder of a feature benchmark (as `avrlab curate` writes).
        #[arg(long)]
        benchmark: String,
        /// The JSONL file to write; it must not exist.
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        FeatureCommand::Import { file, out } => import(&file, &out),
        FeatureCommand::Export { benchmark, out } => export(&benchmark, &out),
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the import summary is the command's output"
)]
fn import(file: &std::path::Path, out: &std::path::Path) -> Result<ExitCode, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::input(anyhow::anyhow!("cannot read {}: {e}", file.display())))?;
    let records = read_susvibes(&text).map_err(|e| {
        Failure::input(anyhow::anyhow!(
            "{}: {e}; nothing was imported",
            file.display()
        ))
    })?;
    let ids = import_records(&records, out).map_err(|e| match e {
        avrlab_run::susvibes::SusVibesError::Io { .. } => Failure::infrastructure(e),
        other => Failure::input(anyhow::anyhow!("{other}; nothing was imported")),
    })?;
    println!(
        "imported {} feature task(s) into {}: {}",
        ids.len(),
        out.display(),
        ids.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

#[expect(
    clippy::print_stdout,
    reason = "the export summary is the command's output"
)]
fn export(benchmark: &str, out: &std::path::Path) -> Result<ExitCode, Failure> {
    if out.exists() {
        return Err(Failure::input(anyhow::anyhow!(
            "{} exists already; choose a new file",
            out.display()
        )));
    }
    let bench = Benchmark::open(benchmark).map_err(Failure::input)?;
    let features: Vec<_> = bench
        .tasks
        .iter()
        .filter(|t| t.kind == TaskKind::Feature)
        .collect();
    if features.is_empty() {
        return Err(Failure::input(anyhow::anyhow!(
            "benchmark {benchmark} has no feature task; make some with avrlab curate"
        )));
    }
    let records = features
        .iter()
        .map(|t| record_of(t))
        .collect::<Result<Vec<_>, _>>()
        .map_err(Failure::input)?;
    std::fs::write(out, write_susvibes(&records)).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!("cannot write {}: {e}", out.display()))
    })?;
    println!("wrote {} record(s) to {}", records.len(), out.display());
    Ok(ExitCode::SUCCESS)
}

/// `avrlab validate` on a benchmark of feature tasks: each prediction (or, with `--reference`,
/// each task's golden, vulnerable and empty prediction) scored for func and sec, stored, and the
/// feature report printed.
pub(super) fn validate_features(
    args: &super::validate::Args,
    benchmark: &Benchmark,
) -> Result<ExitCode, Failure> {
    use avrlab_run::feature_score::{
        ScoreRequest, feature_report, read_feature_predictions, reference_feature_candidates,
        render_feature_report, score_predictions,
    };
    use avrlab_store::{RunMode, Store};
    use avrlab_validate::MavenOracle;

    if let Some(repair) = benchmark.tasks.iter().find(|t| t.kind != TaskKind::Feature) {
        return Err(Failure::input(anyhow::anyhow!(
            "benchmark {} mixes feature and repair tasks ({} is a repair task); validate them apart",
            benchmark.name,
            repair.id
        )));
    }
    let (config, _work) = args.options.engine(args.allow_apply_failures)?;
    let oracle = MavenOracle::new(config.validator.clone());
    let (mode, planned) = match &args.patches {
        Some(path) => (
            RunMode::Patches,
            read_feature_predictions(path, benchmark).map_err(Failure::input)?,
        ),
        None => (
            RunMode::Reference,
            reference_feature_candidates(benchmark, &oracle).map_err(score_failure)?,
        ),
    };
    let mut store = Store::open(&args.store.path).map_err(super::validate::store_failure)?;
    let config_json = serde_json::json!({
        "benchmark": args.options.benchmark,
        "tasks": args.options.tasks,
        "timeout_seconds": args.options.timeout,
        "kind": "feature",
        "patches": args.patches,
    })
    .to_string();
    let request = ScoreRequest {
        benchmark,
        planned,
        run_id: args.run.clone(),
        resume: args.resume,
        mode,
        config_json,
    };
    #[expect(clippy::print_stderr, reason = "progress goes to stderr")]
    let progress = |line: &str| eprintln!("{line}");
    let run_id =
        score_predictions(&mut store, &oracle, request, &progress).map_err(score_failure)?;
    let report =
        feature_report(&store, &run_id, benchmark).map_err(super::validate::store_failure)?;
    print_report(&render_feature_report(&report));
    Ok(ExitCode::SUCCESS)
}

fn score_failure(error: avrlab_run::feature_score::ScoreError) -> Failure {
    use avrlab_run::feature_score::ScoreError;
    match error {
        ScoreError::Input(_) => Failure::input(error),
        ScoreError::Store(s) => super::validate::store_failure(s),
        ScoreError::Validate(_) => Failure::infrastructure(error),
    }
}

#[expect(clippy::print_stdout, reason = "the report is the command's output")]
fn print_report(text: &str) {
    print!("{text}");
}

/// `avrlab eval` on a benchmark of feature tasks: the model (typically a command agent in
/// workdir mode) gets each task's problem statement and the task state, its diff is the
/// prediction, and the predictions are scored and stored as `validate` does.
pub(super) fn eval_features(
    args: &super::eval::Args,
    benchmark: &Benchmark,
) -> Result<ExitCode, Failure> {
    use avrlab_run::feature_score::{
        ScoreRequest, feature_report, generate_feature_predictions, render_feature_report,
        score_predictions,
    };
    use avrlab_run::models::{ConfigFile, build_model};
    use avrlab_store::{RunMode, Store};
    use avrlab_validate::{MavenOracle, Oracle as _};

    if let Some(repair) = benchmark.tasks.iter().find(|t| t.kind != TaskKind::Feature) {
        return Err(Failure::input(anyhow::anyhow!(
            "benchmark {} mixes feature and repair tasks ({} is a repair task); evaluate them apart",
            benchmark.name,
            repair.id
        )));
    }
    if args.samples == 0 {
        return Err(Failure::input(anyhow::anyhow!(
            "--samples must be at least 1"
        )));
    }
    let configs = ConfigFile::load(&args.config.path).map_err(Failure::input)?;
    let model_config = configs
        .model(&args.model, &args.config.path)
        .map_err(Failure::input)?;
    let (config, _work) = args.options.engine(true)?;
    let oracle = MavenOracle::new(config.validator.clone());
    let model = build_model(
        &args.model,
        &model_config,
        &args.config.path,
        config.validator.maven.sandbox,
    )
    .map_err(Failure::from)?;
    let tasks: Vec<_> = benchmark.tasks.iter().collect();
    let mut states = std::collections::HashMap::new();
    for task in &tasks {
        states.insert(
            task.id.clone(),
            oracle.materialize(task).map_err(Failure::infrastructure)?,
        );
    }
    #[expect(clippy::print_stderr, reason = "progress goes to stderr")]
    let progress = |line: &str| eprintln!("{line}");
    let params = avrlab_model::GenParams {
        n: args.samples,
        temperature: args.temperature,
        top_p: args.top_p,
        max_tokens: args.max_tokens,
        stop: Vec::new(),
        seed: Some(args.seed),
    };
    let planned = generate_feature_predictions(
        model.as_ref(),
        &args.model,
        args.samples,
        &params,
        &tasks,
        &states,
        &progress,
    );
    let mut store = Store::open(&args.store.path).map_err(super::validate::store_failure)?;
    let config_json = serde_json::json!({
        "benchmark": args.options.benchmark,
        "kind": "feature",
        "model": args.model,
        "samples": args.samples,
    })
    .to_string();
    let request = ScoreRequest {
        benchmark,
        planned,
        run_id: args.run.clone(),
        resume: args.resume,
        mode: RunMode::Eval,
        config_json,
    };
    let run_id =
        score_predictions(&mut store, &oracle, request, &progress).map_err(score_failure)?;
    let report =
        feature_report(&store, &run_id, benchmark).map_err(super::validate::store_failure)?;
    print_report(&render_feature_report(&report));
    Ok(ExitCode::SUCCESS)
}
