//! Options shared by the commands that validate, resolved into the engine's configuration.

use std::path::PathBuf;
use std::time::Duration;

use avrlab::engine::EngineConfig;
use avrlab_bench::Benchmark;
use avrlab_exec::{Limits, MavenSettings, SandboxKind, check_sandbox};
use avrlab_validate::ValidatorConfig;
use clap::ValueEnum;

use super::Failure;

/// How untrusted code is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum SandboxArg {
    /// bubblewrap: no capabilities, seccomp, no network, a minimal read-only file system, the
    /// workspace the only writable place.
    Bwrap,
    /// No sandbox at all (you are trusting every candidate).
    None,
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
}

fn default_maven_repo() -> PathBuf {
    if let Some(repo) = std::env::var_os("AVRLAB_MAVEN_REPO") {
        return repo.into();
    }
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into())).join(".cache")
        });
    cache.join("avrlab/maven-repository")
}

/// The work folder, removed when dropped unless the user named it.
#[derive(Debug)]
pub struct WorkDir {
    pub path: PathBuf,
    remove: bool,
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

/// Removes work folders of avrlab processes that were killed before they could clean up.
fn sweep_stale_work_dirs() {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_prefix("avrlab-work-")
            && !std::path::Path::new("/proc").join(pid).exists()
        {
            let _ = std::fs::remove_dir_all(entry.path());
        }
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

    /// Checks the tools and resolves the engine configuration.
    pub fn engine(&self, allow_apply_failures: bool) -> Result<(EngineConfig, WorkDir), Failure> {
        let sandbox = match self.sandbox {
            SandboxArg::Bwrap => SandboxKind::Bubblewrap,
            SandboxArg::None => SandboxKind::None,
        };
        check_sandbox(sandbox).map_err(Failure::infrastructure)?;
        let mvn = MavenSettings::locate_mvn().map_err(Failure::infrastructure)?;
        let repository = self.maven_repo.clone().unwrap_or_else(default_maven_repo);
        std::fs::create_dir_all(&repository).map_err(|e| {
            Failure::infrastructure(anyhow::anyhow!(
                "cannot create the Maven repository {}: {e}",
                repository.display()
            ))
        })?;
        sweep_stale_work_dirs();
        let work = match &self.work_dir {
            Some(path) => WorkDir {
                path: path.clone(),
                remove: false,
            },
            None => WorkDir {
                path: std::env::temp_dir().join(format!("avrlab-work-{}", std::process::id())),
                remove: true,
            },
        };
        let workers = self
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if workers == 0 {
            return Err(Failure::input(anyhow::anyhow!(
                "--workers must be at least 1"
            )));
        }
        let limits = Limits {
            wall: Duration::from_secs(self.timeout),
            ..Limits::default()
        };
        let config = EngineConfig {
            validator: ValidatorConfig {
                maven: MavenSettings {
                    mvn,
                    repository,
                    sandbox,
                    limits,
                },
                work_root: work.path.clone(),
                mirrors: self.mirrors.clone(),
                keep_workspaces: self.keep_workspaces,
            },
            workers,
            allow_apply_failures,
        };
        Ok((config, work))
    }
}
