//! `avrlab study FILE.toml`: plan a study, print its size, run every cell (resumably), and print
//! the study's tables.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_report::{StudyFormat, build_study_report, render_study};
use avrlab_run::models::ConfigFile;
use avrlab_run::study::{
    ConfiguredModels, ReplaySource, StudyModels, StudyOverrides, StudyRequest, describe_plan,
    estimate, execute_study, read_study_file, resolve_plan,
};
use avrlab_store::Store;
use clap::ValueEnum;

use super::Failure;
use super::options::{DifferentialArgs, ModelConfigArg, StoreArg, ValidationOptions};
use crate::progress::StderrProgress;

/// How to print the study's tables.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum StudyFormatArg {
    Md,
    Json,
    /// One self-contained page: the study's tables, then its cells' plots and tables.
    Html,
}

/// Arguments of `avrlab study`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The study file (see docs/study-format.md and studies/).
    pub file: PathBuf,
    /// Continue the study stored under its name: finished cells are kept, the others resumed.
    #[arg(long)]
    pub resume: bool,
    /// Continue the study when the store has it, else start it (what a restarted batch job runs).
    #[arg(long, conflicts_with = "resume")]
    pub resume_if_started: bool,
    /// Run every cell on part K of N of each benchmark's tasks; every shard stores the whole
    /// plan's study in its own store, and `avrlab merge` joins them.
    #[arg(long, value_name = "K/N", value_parser = super::options::parse_shard)]
    pub shard: Option<avrlab_core::Shard>,
    /// Print the plan, its size and estimated time, and stop (nothing is stored or run).
    #[arg(long)]
    pub dry_run: bool,
    /// Samples per prompt (in place of the file's).
    #[arg(long)]
    pub samples: Option<u32>,
    /// Runs (in place of the file's).
    #[arg(long)]
    pub runs: Option<u32>,
    /// Most tokens per sample (in place of the file's).
    #[arg(long)]
    pub max_tokens: Option<u32>,
    /// Only these generator models (comma-separated; in place of the file's).
    #[arg(long = "model", value_delimiter = ',')]
    pub models: Vec<String>,
    /// This reviewer model (in place of the file's).
    #[arg(long)]
    pub reviewer: Option<String>,
    /// Only these FL offsets (comma-separated).
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub fl_offsets: Vec<i64>,
    /// The study's id in the store [default: its `name`].
    #[arg(long)]
    pub name: Option<String>,
    /// Only the benchmarks of these variants (comma-separated: original, rename, structure, both).
    #[arg(long, value_delimiter = ',')]
    pub variants: Vec<String>,
    /// Re-validate published generations (a folder holding the VJBench package's
    /// `Model_patches/`, or a git folder of the package) instead of asking the models: each model
    /// with a `published` folder name in the study file is read from there, on original tasks.
    #[arg(long)]
    pub replay: Option<PathBuf>,
    /// With --replay: `vul_location.json` [default: the datasets folder's vjbench/vul_location.json].
    #[arg(long)]
    pub locations: Option<PathBuf>,
    #[command(flatten)]
    pub options: ValidationOptions,
    #[command(flatten)]
    pub differential: DifferentialArgs,
    #[command(flatten)]
    pub config: ModelConfigArg,
    /// The response cache [default: ~/.cache/avrlab/responses].
    #[arg(long)]
    pub cache: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
    /// How to print the tables.
    #[arg(long, value_enum, default_value = "md")]
    pub report_format: StudyFormatArg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if args.options.benchmark != "demo" {
        return Err(Failure::input(anyhow::anyhow!(
            "--benchmark does not apply to a study: its file names the benchmarks"
        )));
    }
    // Everything about the input is checked before anything is stored or started.
    let file = read_study_file(&args.file).map_err(Failure::input)?;
    let configs = ConfigFile::load(&args.config.path).map_err(Failure::input)?;
    let overrides = StudyOverrides {
        samples: args.samples,
        runs: args.runs,
        max_tokens: args.max_tokens,
        tasks: args.options.tasks.clone(),
        models: args.models.clone(),
        reviewer: args.reviewer.clone(),
        fl_offsets: args.fl_offsets.clone(),
        name: args.name.clone(),
        variants: args.variants.clone(),
        replay: match &args.replay {
            None => None,
            Some(generations) if !generations.exists() => {
                return Err(Failure::input(anyhow::anyhow!(
                    "--replay {}: no such folder; give the folder of the published generations",
                    generations.display()
                )));
            }
            Some(generations) => Some(ReplaySource {
                generations: generations.clone(),
                locations: args.locations.clone().unwrap_or_else(|| {
                    super::bench::datasets_dir().join("vjbench/vul_location.json")
                }),
            }),
        },
    };
    let catalog = ConfiguredModels {
        configs: &configs,
        path: &args.config.path,
    };
    let (plan, benchmarks) =
        resolve_plan(&file, &args.file, &overrides, &catalog).map_err(Failure::input)?;
    let progress = StderrProgress::new();

    if args.dry_run {
        // The store is read for the estimate only if it exists; a dry run creates nothing.
        let estimated = if args.store.path.is_file() {
            let store = Store::open(&args.store.path)?;
            Some(estimate(&store, &plan)?)
        } else {
            None
        };
        #[expect(clippy::print_stdout, reason = "the plan is the dry run's result")]
        {
            print!("{}", describe_plan(&plan, estimated.as_ref()));
            if estimated.is_none() {
                println!(
                    "estimated time: unknown (no results store at {} yet)",
                    args.store.path.display()
                );
            }
        }
        return Ok(ExitCode::SUCCESS);
    }

    let mut store = Store::open(&args.store.path)?;
    let estimated = estimate(&store, &plan)?;
    for line in describe_plan(&plan, Some(&estimated)).lines() {
        avrlab_run::run_loop::Progress::message(&progress, line);
    }
    let (mut config, _work) = args.options.engine(true)?;
    // On by default: each cell's plausible candidates of tasks with a reference fix.
    config.differential = args.differential.config(true);
    let oracle = args.options.oracle(&config)?;

    let cache = args
        .cache
        .clone()
        .unwrap_or_else(super::eval::default_cache);
    let models = StudyModels::load(
        &plan,
        &configs,
        &args.config.path,
        config.validator.maven.sandbox,
        cache,
        &progress,
    )?;
    let request = StudyRequest {
        plan: &plan,
        benchmarks: &benchmarks,
        models: &models,
        config: &config,
        oracle: oracle.as_ref(),
        resume: args.resume || (args.resume_if_started && store.study(&plan.name)?.is_some()),
        shard: args.shard,
    };
    let outcome = execute_study(&mut store, &request, &progress)?;
    let closing = outcome.describe(&plan.name, &args.store.path);
    avrlab_run::run_loop::Progress::message(&progress, &closing);
    let report = build_study_report(&store, &plan.name).map_err(Failure::infrastructure)?;
    let format = match args.report_format {
        StudyFormatArg::Md => StudyFormat::Markdown,
        StudyFormatArg::Json => StudyFormat::Json,
        StudyFormatArg::Html => StudyFormat::Html,
    };
    #[expect(clippy::print_stdout, reason = "the tables are the command's result")]
    {
        print!("{}", render_study(&report, format));
    }
    match outcome.unprepared_message(&plan.name) {
        None => Ok(ExitCode::SUCCESS),
        Some(why) => Err(Failure::infrastructure(anyhow::anyhow!(why))),
    }
}
