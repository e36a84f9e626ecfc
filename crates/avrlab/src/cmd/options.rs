//! Options shared by the commands that validate, resolved into the engine's configuration.

use std::path::PathBuf;
use std::time::Duration;

use avrlab_bench::Benchmark;
use avrlab_core::Engine;
use avrlab_exec::SandboxKind;
use avrlab_run::run_loop::RunSettings;
use avrlab_run::setup::{EngineSetup, unenforced_limits};
use avrlab_run::work_dir::{WorkDir, cache_dir};
use avrlab_validate::{BuildToolOracle, ConfirmPolicy, FastConfig, FastOracle, Oracle};
use clap::ValueEnum;

use super::Failure;

/// The results store, as every command that reads or writes one names it. (Each flattened
/// argument has an id of its own: two fields named `path` would otherwise be one argument.)
#[derive(Debug, Clone, clap::Args)]
pub struct StoreArg {
    /// The results store.
    #[arg(id = "store", long = "store", default_value = ".avrlab/results.sqlite")]
    pub path: PathBuf,
}

/// The model configuration file, as every command that starts a model names it.
#[derive(Debug, Clone, clap::Args)]
pub struct ModelConfigArg {
    /// The model configuration file.
    #[arg(id = "config", long = "config", default_value = "avrlab.toml")]
    pub path: PathBuf,
}

/// How untrusted code is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    /// bubblewrap: no capabilities, seccomp, no network, a minimal read-only file system, the
    /// workspace the only writable place.
    Bwrap,
    /// No sandbox at all (you are trusting every candidate).
    None,
}

/// Which oracle validates.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum EngineArg {
    /// A test JVM of its own per candidate, started ahead of need: changed files compiled by a
    /// compiler process, tests run through the JUnit Platform launcher as in Surefire's fork;
    /// Maven re-judges a sample, every flagged candidate, and a task's candidates after a
    /// disagreement.
    Fast,
    /// Maven for every candidate: compile, PoV tests, regression tests.
    Maven,
}

impl SandboxArg {
    /// The flag's value, as kept in a run's configuration.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Bwrap => "bwrap",
            Self::None => "none",
        }
    }
}

impl EngineArg {
    /// The engine this flag value selects.
    pub fn engine(self) -> Engine {
        match self {
            Self::Fast => Engine::Fast,
            Self::Maven => Engine::Maven,
        }
    }

    /// The flag's value, which is the engine's stored word.
    pub fn as_str(self) -> &'static str {
        self.engine().as_str()
    }
}

/// Validation options.
#[derive(Debug, Clone, clap::Args)]
pub struct ValidationOptions {
    /// `demo`, or the folder of a benchmark (one sub-folder with a task.toml per task).
    #[arg(long, default_value = "demo")]
    pub benchmark: String,
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Parallel workers [default: the number of cores].
    #[arg(long)]
    pub workers: Option<usize>,
    /// Seconds one build or test step may run before its process tree is killed.
    #[arg(long, default_value_t = 180)]
    pub timeout: u64,
    /// How untrusted code is confined.
    #[arg(long, value_enum, default_value = "bwrap")]
    pub sandbox: SandboxArg,
    /// The Maven repository cache shared by all workers [default: $AVRLAB_MAVEN_REPO or
    /// ~/.cache/avrlab/maven-repository].
    #[arg(long)]
    pub maven_repo: Option<PathBuf>,
    /// Where task states and workspaces are made [default: a fresh folder in the temp dir].
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    /// A folder of bare git mirrors (owner+repo.git) for git-based tasks.
    #[arg(long)]
    pub mirrors: Option<PathBuf>,
    /// Keep each candidate's workspace for inspection.
    #[arg(long)]
    pub keep_workspaces: bool,
    /// The validation engine (`throughput` takes a list to compare). Fast is the default: every
    /// candidate runs in a fresh test JVM of its own, and Maven re-judges a sample of its
    /// verdicts, every flagged one and, after a disagreement, the rest of that task's.
    #[arg(long, value_enum, value_delimiter = ',', default_value = "fast")]
    pub engine: Vec<EngineArg>,
    /// Fast engine: the share (0 to 1) of fast verdicts Maven re-judges at random.
    #[arg(long, alias = "recheck-sample", default_value_t = 0.05)]
    pub confirm_sample: f64,
    /// Fast engine: `all` also has Maven confirm every verdict in which the PoV tests passed
    /// (Plausible, RegressionBroken); `sampled` re-judges only for a reason.
    #[arg(long, value_enum, default_value = "sampled")]
    pub confirm: ConfirmArg,
    /// Fast engine: run every regression test, in Surefire's order, even after one failed (full
    /// per-test evidence). By default the classes that failed for earlier candidates of a task
    /// run first, and no class runs after the first one that failed.
    #[arg(long)]
    pub keep_going: bool,
}

/// Differential testing once a run is validated: the flags `validate`, `eval`, `study` and
/// `replay` share.
#[derive(Debug, Clone, Copy, Default, clap::Args)]
pub struct DifferentialArgs {
    /// Then compare the run's plausible candidates with the reference fix on generated inputs, as
    /// `avrlab diff-test` does (on by default in studies).
    #[arg(long)]
    pub differential: bool,
    /// No differential testing (in a study).
    #[arg(long, conflicts_with = "differential")]
    pub no_differential: bool,
    /// Seconds of generated inputs per candidate, with --differential.
    #[arg(long, default_value_t = 20)]
    pub differential_budget: u64,
    /// Compare candidates proven Exact or Equivalent too (they must never diverge).
    #[arg(long)]
    pub differential_include_proven: bool,
}

impl DifferentialArgs {
    /// The tester's configuration, `None` when off (`by_default`: on unless --no-differential).
    pub fn config(self, by_default: bool) -> Option<avrlab_run::diff_test::DiffTestConfig> {
        let on = self.differential || (by_default && !self.no_differential);
        let (budget, proven) = (self.differential_budget, self.differential_include_proven);
        avrlab_run::diff_test::DiffTestConfig::when(on, budget, proven)
    }
}

/// Which fast verdicts Maven re-judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ConfirmArg {
    /// The random sample, flagged candidates, and a task's candidates after a disagreement.
    Sampled,
    /// Those, and every verdict in which the PoV tests passed.
    All,
}

/// Which run a command writes, and how it continues one: the flags `validate`, `eval` and
/// `replay` share.
#[derive(Debug, Clone, Default, clap::Args)]
pub struct RunArgs {
    /// The run id [default: <mode>-<benchmark>-<unix time>].
    #[arg(long)]
    pub run: Option<String>,
    /// Continue the run (--run, or the newest unfinished one of this mode and benchmark),
    /// doing only what it has not done yet.
    #[arg(long)]
    pub resume: bool,
    /// Continue run --run when the store has it, else start it: what a batch job that may be
    /// restarted runs (`avrlab slurm submit` writes it).
    #[arg(long, requires = "run", conflicts_with = "resume")]
    pub resume_if_started: bool,
    /// Only part K of N of the tasks (whole tasks, balanced by their candidates); every shard
    /// stores the same run in its own store, and `avrlab merge` joins them.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<avrlab_core::Shard>,
}

impl RunArgs {
    /// Whether to continue the run: `--resume`, or `--resume-if-started` and the store has it.
    pub fn resume(&self, store: &avrlab_store::Store) -> Result<bool, Failure> {
        let started = match (&self.run, self.resume_if_started) {
            (Some(run), true) => store.run(run)?.is_some(),
            _ => false,
        };
        Ok(self.resume || started)
    }
}

/// `--shard K/N`.
pub fn parse_shard(text: &str) -> Result<avrlab_core::Shard, String> {
    avrlab_core::Shard::parse(text).map_err(|e| e.to_string())
}

/// The oracle of one engine for a resolved configuration.
pub fn oracle_for(
    engine: EngineArg,
    options: &ValidationOptions,
    config: &RunSettings,
) -> Box<dyn Oracle> {
    match engine {
        EngineArg::Maven => Box::new(BuildToolOracle::new(config.validator.clone())),
        EngineArg::Fast => Box::new(FastOracle::new(
            config.validator.clone(),
            fast_config(options, config.workers),
        )),
    }
}

/// The fast engine's settings from the options.
pub fn fast_config(options: &ValidationOptions, workers: usize) -> FastConfig {
    FastConfig {
        confirm: match options.confirm {
            ConfirmArg::Sampled => ConfirmPolicy::Sampled,
            ConfirmArg::All => ConfirmPolicy::All,
        },
        confirm_sample: options.confirm_sample,
        test_timeout: Duration::from_secs(options.timeout),
        helper_cache: cache_dir().join("fastpath"),
        primed_per_task: workers.max(1),
        keep_going: options.keep_going,
    }
}

impl ValidationOptions {
    /// Loads the benchmark, restricted to `--tasks`.
    pub fn benchmark(&self) -> Result<Benchmark, Failure> {
        let mut benchmark = Benchmark::open(&self.benchmark).map_err(Failure::input)?;
        if !self.tasks.is_empty() {
            for id in &self.tasks {
                benchmark.task(id).map_err(Failure::input)?;
            }
            benchmark.tasks.retain(|t| self.tasks.contains(&t.id));
        }
        Ok(benchmark)
    }

    /// The benchmark of a command that works on repair tasks only (`transform`, `throughput`):
    /// a feature task in it is bad input, named with what to run instead.
    pub fn repair_benchmark(&self, command: &str) -> Result<Benchmark, Failure> {
        let benchmark = self.benchmark()?;
        super::refuse_feature_tasks(
            &benchmark,
            command,
            &format!(
                ", and `avrlab {command}` takes repair tasks only; score feature tasks with \
                 `avrlab validate` or `avrlab eval`"
            ),
        )?;
        Ok(benchmark)
    }

    /// The one engine of `validate`, `eval` and `transform`, and its oracle.
    pub fn oracle(&self, config: &RunSettings) -> Result<Box<dyn Oracle>, Failure> {
        match self.engine.as_slice() {
            [engine] => {
                if !(0.0..=1.0).contains(&self.confirm_sample) {
                    return Err(Failure::input(anyhow::anyhow!(
                        "--confirm-sample must be between 0 and 1, not {}",
                        self.confirm_sample
                    )));
                }
                Ok(oracle_for(*engine, self, config))
            }
            _ => Err(Failure::input(anyhow::anyhow!(
                "--engine takes one engine here (fast or maven); only `avrlab throughput` compares several"
            ))),
        }
    }

    /// Checks the machine and resolves the engine configuration; what the machine does not
    /// enforce is said on stderr, one line each.
    pub fn engine(&self, allow_apply_failures: bool) -> Result<(RunSettings, WorkDir), Failure> {
        let setup = EngineSetup {
            sandbox: match self.sandbox {
                SandboxArg::Bwrap => SandboxKind::Bubblewrap,
                SandboxArg::None => SandboxKind::None,
            },
            maven_repo: self.maven_repo.clone(),
            work_dir: self.work_dir.clone(),
            mirrors: self.mirrors.clone(),
            keep_workspaces: self.keep_workspaces,
            workers: self.workers,
            timeout: self.timeout,
        };
        let resolved = setup.resolve(allow_apply_failures)?;
        if setup.sandbox == SandboxKind::Bubblewrap {
            for line in unenforced_limits() {
                #[expect(clippy::print_stderr, reason = "start-up warnings go to stderr")]
                {
                    eprintln!("warning: {line}");
                }
            }
        }
        Ok(resolved)
    }
}
