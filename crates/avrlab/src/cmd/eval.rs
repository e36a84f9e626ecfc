//! `avrlab eval`: generate with a model, extract, validate, store, and print the tables.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_model::ResponseCache;
use avrlab_prompt::Format;
use avrlab_report::{build_eval_report, render};
use avrlab_run::eval::{ErrorLimit, EvalRequest, EvalSpec, Retry, execute_eval};
use avrlab_run::models::{ConfigFile, build_model};
use avrlab_run::run_loop::VerdictRetry;
use avrlab_store::Store;

use super::Failure;
use super::options::{DifferentialArgs, ModelConfigArg, RunArgs, StoreArg, ValidationOptions};
use super::report::FormatArg;
use crate::progress::StderrProgress;

/// Arguments of `avrlab eval`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
    /// The model: a name from avrlab.toml's [models.*], or `local` / `baseline`.
    #[arg(long, default_value = "local")]
    pub model: String,
    /// The input format (infill-comment, mask-codet5, prefix, finetune, fim-starcoder, chat-p1 … chat-p4, …)
    /// [default: the model's `format`, else chat-p1].
    #[arg(long)]
    pub format: Option<String>,
    /// Samples per prompt (k).
    #[arg(long, default_value_t = 10)]
    pub samples: u32,
    /// Independent runs (seeds seed, seed+1, …), for the mean ± margin across runs.
    #[arg(long, default_value_t = 1)]
    pub runs: u32,
    /// Shift the marked vulnerable lines by n (the study uses ±2, ±4, ±8).
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub fl_offset: i64,
    #[arg(long, default_value_t = 0.8)]
    pub temperature: f32,
    #[arg(long, default_value_t = 0.95)]
    pub top_p: f32,
    #[arg(long, default_value_t = 512)]
    pub max_tokens: u32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub config: ModelConfigArg,
    /// The model's training cut-off month (YYYY-MM), stored with the run: the report splits
    /// every score into tasks fixed in or before it and after it [default: the model's `cutoff`
    /// in avrlab.toml].
    #[arg(long, value_name = "YYYY-MM")]
    pub model_cutoff: Option<avrlab_core::Month>,
    /// The response cache [default: ~/.cache/avrlab/responses].
    #[arg(long)]
    pub cache: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
    #[command(flatten)]
    pub target: RunArgs,
    #[command(flatten)]
    pub differential: DifferentialArgs,
    /// With --resume --run RUN: ask again the samples stored as errored (the model was not
    /// heard), keeping their earlier attempts in the store. (A run whose only gaps are errored
    /// samples is finished, so it is named rather than found as the newest unfinished one.)
    #[arg(long, value_enum, requires_all = ["resume", "run"])]
    pub retry: Option<RetryArg>,
    /// Stop, resumable (exit 4), once more samples are errored than N, or than P% of the
    /// samples this eval is to ask.
    #[arg(long, value_name = "N|P%", value_parser = parse_max_errors)]
    pub max_errors: Option<ErrorLimit>,
    /// Stop asking, resumable (exit 5), once this run's samples cost USD dollars or more (the
    /// model needs a `price` in avrlab.toml, or must report its cost); the cost spent is printed.
    /// Resume with a higher budget to go on.
    #[arg(long, value_name = "USD", value_parser = parse_dollars)]
    pub max_cost: Option<f64>,
    /// How to print the tables.
    #[arg(long, value_enum, default_value = "md")]
    pub report_format: FormatArg,
}

/// What `--retry` asks again.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
pub enum RetryArg {
    /// The samples stored as errored.
    Errored,
}

impl From<RetryArg> for Retry {
    fn from(arg: RetryArg) -> Self {
        match arg {
            RetryArg::Errored => Retry::Errored,
        }
    }
}

/// `--max-errors N|P%`.
fn parse_max_errors(text: &str) -> Result<ErrorLimit, String> {
    ErrorLimit::parse(text).map_err(|e| e.to_string())
}

/// `--max-cost USD`: a number of dollars above 0.
fn parse_dollars(text: &str) -> Result<f64, String> {
    match text.trim().trim_start_matches('$').parse::<f64>() {
        Ok(dollars) if dollars.is_finite() && dollars > 0.0 => Ok(dollars),
        _ => Err(format!(
            "--max-cost {text}: give a number of dollars above 0 (2.50)"
        )),
    }
}

/// The response cache: the cache folder's `responses`.
pub(crate) fn default_cache() -> PathBuf {
    avrlab_run::work_dir::cache_dir().join("responses")
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    match super::benchmark_kind(&benchmark, "evaluate")? {
        avrlab_bench::TaskKind::Feature => return eval_features(&args, &benchmark),
        avrlab_bench::TaskKind::Repair => {}
    }
    let configs = ConfigFile::load(&args.config.path).map_err(Failure::input)?;
    let model_config = configs
        .model(&args.model, &args.config.path)
        .map_err(Failure::input)?;
    let format_name = args
        .format
        .clone()
        .or_else(|| model_config.format.clone())
        .unwrap_or_else(|| "chat-p1".into());
    let format: Format = format_name.parse().map_err(|e| {
        Failure::input(anyhow::anyhow!(
            "{e}; formats: {}",
            Format::names().join(", ")
        ))
    })?;
    if args.samples == 0 || args.runs == 0 {
        return Err(Failure::input(anyhow::anyhow!(
            "--samples and --runs must be at least 1"
        )));
    }
    // Only a model with a price, or an agent that reports its cost, can be held to a budget.
    if args.max_cost.is_some()
        && model_config.price.is_none()
        && model_config.backend != avrlab_run::models::Backend::Command
    {
        return Err(Failure::input(anyhow::anyhow!(
            "--max-cost: model `{}` has no price in {}; add [models.{}.price] \
             (input_usd_per_million, output_usd_per_million, read_on)",
            args.model,
            args.config.path.display(),
            args.model
        )));
    }
    let mut store = Store::open(&args.store.path)?;
    let (mut config, _work) = args.options.engine(true)?;
    config.differential = args.differential.config(false);
    let oracle = args.options.oracle(&config)?;
    let progress = StderrProgress::new();
    progress_message(&progress, &format!("loading model `{}`", args.model));
    let model = build_model(
        &args.model,
        &model_config,
        &args.config.path,
        config.validator.maven.sandbox,
    )
    .map_err(Failure::from)?;
    let spec = EvalSpec {
        model_name: args.model.clone(),
        format,
        samples: args.samples,
        runs: args.runs,
        fl_offset: args.fl_offset,
        temperature: args.temperature,
        top_p: args.top_p,
        max_tokens: args.max_tokens,
        seed: args.seed,
        // The model's own setting: an HTTP server takes several requests at once, the
        // in-process model one.
        concurrency: model_config.concurrency.unwrap_or(1).max(1),
        price: model_config.price.clone(),
        max_cost_per_sample: model_config.max_cost_per_sample,
        model_cutoff: args.model_cutoff.or(model_config.cutoff),
    };
    let cache = ResponseCache::new(args.cache.clone().unwrap_or_else(default_cache));
    let request = EvalRequest {
        benchmark: &benchmark,
        model,
        cache,
        spec,
        run_id: args.target.run.clone(),
        resume: args.target.resume(&store)?,
        shard: args.target.shard,
        retry: args.retry.map(Retry::from),
        max_errors: args.max_errors,
        max_cost: args.max_cost,
    };
    let report = execute_eval(&mut store, request, &config, oracle.as_ref(), &progress)?;
    let tables_started = std::time::Instant::now();
    let tables = build_eval_report(&store, std::slice::from_ref(&report.run_id))
        .map_err(Failure::infrastructure)?;
    #[expect(clippy::print_stdout, reason = "the tables are the command's result")]
    {
        print!("{}", render(&tables, args.report_format.into()));
    }
    let mut stages = report.stages.clone();
    stages.push(("tables", tables_started.elapsed()));
    progress_message(
        &progress,
        &format!(
            "stages ({} engine): {}",
            oracle.name(),
            avrlab_run::run_loop::describe_stages(&stages)
        ),
    );
    progress_message(&progress, &report.describe(&args.store.path));
    for line in tables.completeness_lines() {
        progress_message(&progress, &format!("samples of run {line}"));
    }
    for line in tables.cost_lines() {
        progress_message(&progress, &format!("cost of run {line}"));
    }
    for warning in tables.incomplete_warnings() {
        progress_message(&progress, &warning);
    }
    match super::unprepared_failure(&report) {
        Some(failure) => Err(failure),
        None => Ok(ExitCode::SUCCESS),
    }
}

fn progress_message(progress: &StderrProgress, text: &str) {
    avrlab_run::run_loop::Progress::message(progress, text);
}

/// `avrlab eval` on a benchmark of feature tasks (the library's `eval_feature_tasks`).
fn eval_features(args: &Args, benchmark: &avrlab_bench::Benchmark) -> Result<ExitCode, Failure> {
    use avrlab_run::feature_score::{FeatureEval, eval_feature_tasks};

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
    let oracle = args.options.oracle(&config)?;
    let model = build_model(
        &args.model,
        &model_config,
        &args.config.path,
        config.validator.maven.sandbox,
    )
    .map_err(Failure::from)?;
    let progress = StderrProgress::new();
    let mut store = Store::open(&args.store.path)?;
    let eval = FeatureEval {
        benchmark,
        benchmark_arg: args.options.benchmark.clone(),
        model: model.as_ref(),
        model_name: &args.model,
        params: avrlab_model::GenParams {
            n: args.samples,
            temperature: args.temperature,
            top_p: args.top_p,
            max_tokens: args.max_tokens,
            stop: Vec::new(),
            seed: Some(args.seed),
        },
        run_id: args.target.run.clone(),
        resume: args.target.resume(&store)?,
        retry: match args.retry {
            // The samples a feature eval could not get are scored as empty predictions, so
            // what is errored is a validation.
            Some(RetryArg::Errored) => VerdictRetry {
                errored: true,
                outcomes: Vec::new(),
            },
            None => VerdictRetry::default(),
        },
        shard: args.target.shard,
    };
    let report = eval_feature_tasks(&mut store, eval, &config, oracle.as_ref(), &progress)?;
    super::finish_feature_run(&store, &report, benchmark, oracle.name(), &progress)
}
