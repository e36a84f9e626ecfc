//! `avrlab probe`: the memorization probe of a model on a benchmark's tasks; per-task scores are
//! stored and printed.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::Benchmark;
use avrlab_exec::SandboxKind;
use avrlab_run::models::{ConfigFile, build_model};
use avrlab_run::probe::{ProbeConfig, ProbeError, default_scratch, probe_task, render_scores};
use avrlab_run::run_loop::Progress;
use avrlab_store::Store;

use super::Failure;
use super::options::{ModelConfigArg, SandboxArg, StoreArg};
use crate::progress::StderrProgress;

/// Arguments of `avrlab probe`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// `demo`, or the folder of a benchmark.
    #[arg(long, default_value = "demo")]
    pub benchmark: String,
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// The model: a name from avrlab.toml's [models.*], or `local` / `baseline`.
    #[arg(long, default_value = "local")]
    pub model: String,
    #[command(flatten)]
    pub config: ModelConfigArg,
    #[command(flatten)]
    pub store: StoreArg,
    /// Lines of the fixed file, from the fix's first changed line, that the model's continuation
    /// must reproduce for the task to count as memorized.
    #[arg(long, default_value_t = 5)]
    pub lines: usize,
    /// Lines before the first changed line that the prompt holds (the nearest ones).
    #[arg(long, default_value_t = 120)]
    pub context_lines: usize,
    /// The most tokens the model may write.
    #[arg(long, default_value_t = 160)]
    pub max_tokens: u32,
    /// The seed of the rename transformation (as `avrlab transform --seed`).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// A folder of bare git mirrors (owner+repo.git) for git-based tasks; default
    /// `$AVRLAB_MIRRORS`.
    #[arg(long)]
    pub mirrors: Option<PathBuf>,
    /// How a `command` model's program is confined.
    #[arg(long, value_enum, default_value = "bwrap")]
    pub sandbox: SandboxArg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if args.lines == 0 {
        return Err(Failure::input(anyhow::anyhow!(
            "--lines must be at least 1"
        )));
    }
    let mut benchmark = Benchmark::open(&args.benchmark).map_err(Failure::input)?;
    if !args.tasks.is_empty() {
        for id in &args.tasks {
            benchmark.task(id).map_err(Failure::input)?;
        }
        benchmark.tasks.retain(|t| args.tasks.contains(&t.id));
    }
    super::refuse_feature_tasks(
        &benchmark,
        "probe",
        "; `avrlab probe` probes repair tasks, whose reference fix changes an existing file",
    )?;
    let sandbox = match args.sandbox {
        SandboxArg::Bwrap => SandboxKind::Bubblewrap,
        SandboxArg::None => SandboxKind::None,
    };
    let model_config =
        ConfigFile::load(&args.config.path)?.model(&args.model, &args.config.path)?;
    let progress = StderrProgress::new();
    progress.message(&format!("loading model `{}`", args.model));
    let model = build_model(&args.model, &model_config, &args.config.path, sandbox)?;
    let mut store = Store::open(&args.store.path)?;
    let config = ProbeConfig {
        model_name: args.model.clone(),
        lines: args.lines,
        context_lines: args.context_lines,
        max_tokens: args.max_tokens,
        rename_seed: args.seed,
        scratch: default_scratch(),
        mirrors: super::bench::mirrors_dir(args.mirrors.clone()),
    };
    let probed = probe_all(&benchmark, model.as_ref(), &config, &progress);
    let _ = std::fs::remove_dir_all(&config.scratch);
    let rows = probed.map_err(|e| {
        if e.is_input() {
            Failure::input(e)
        } else {
            Failure::infrastructure(e)
        }
    })?;
    store.record_probe_scores(&rows)?;
    if rows.iter().all(|r| r.fix_log_likelihood.is_none()) {
        progress.message(&format!(
            "model `{}` gives no log-probabilities: the probe measured exact matches only, \
             and the log-likelihood columns are empty",
            args.model
        ));
    }
    #[expect(clippy::print_stdout, reason = "the scores are the command's output")]
    {
        print!("{}", render_scores(&rows));
    }
    Ok(ExitCode::SUCCESS)
}

/// Probes every task, in order; the first failure stops the probe and nothing is stored.
fn probe_all(
    benchmark: &Benchmark,
    model: &dyn avrlab_model::Model,
    config: &ProbeConfig,
    progress: &StderrProgress,
) -> Result<Vec<avrlab_store::ProbeScoreRow>, ProbeError> {
    let mut rows = Vec::new();
    for (i, task) in benchmark.tasks.iter().enumerate() {
        progress.message(&format!(
            "probing {} ({}/{})",
            task.id,
            i + 1,
            benchmark.tasks.len()
        ));
        rows.push(probe_task(task, &benchmark.name, model, config)?);
    }
    Ok(rows)
}
