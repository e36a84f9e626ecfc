//! Resolving what a validating command was given into the engine's configuration, with the
//! start-up checks of the machine it runs on (sandbox, Maven, cgroups), each said in one line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_build::BuildSettings;
use avrlab_core::{Blame, Blamed};
use avrlab_exec::{Limits, SandboxKind, cgroup_delegation, check_sandbox};
use avrlab_validate::ValidatorConfig;

use crate::run::run_loop::RunSettings;
use crate::run::work_dir::{WorkDir, cache_dir, default_maven_repo};

/// What a validating command was given (its flags, resolved to values).
#[derive(Debug, Clone)]
pub struct EngineSetup {
    pub sandbox: SandboxKind,
    /// The Maven repository cache [default: `$AVRLAB_MAVEN_REPO` or the cache's].
    pub maven_repo: Option<PathBuf>,
    /// Where task states and workspaces are made [default: a fresh temporary folder].
    pub work_dir: Option<PathBuf>,
    /// Bare git mirrors [default: `$AVRLAB_MIRRORS`].
    pub mirrors: Option<PathBuf>,
    pub keep_workspaces: bool,
    /// Parallel workers [default: the number of cores].
    pub workers: Option<usize>,
    /// Seconds one build or test step may run.
    pub timeout: u64,
}

/// Seconds a build or test step may go with no CPU time and no output before it is taken for hung
/// and killed, unless `$AVRLAB_IDLE_TIMEOUT` says otherwise (0: never). Far above the quiet
/// stretches of an honest build (a slow test computes, a download prints its progress), far below
/// the warm-up's 30 minutes, which a test waiting on a socket used to hold a worker for.
pub(crate) const DEFAULT_IDLE_TIMEOUT: u64 = 300;

/// The idle limit of build and test steps: `$AVRLAB_IDLE_TIMEOUT` seconds (0 turns it off), else
/// [`DEFAULT_IDLE_TIMEOUT`].
fn idle_limit(setting: Option<&std::ffi::OsStr>) -> Result<Option<Duration>, SetupError> {
    let seconds = match setting {
        None => DEFAULT_IDLE_TIMEOUT,
        Some(text) => text.to_str().and_then(|t| t.trim().parse().ok()).ok_or_else(|| {
            SetupError::Input(format!(
                "$AVRLAB_IDLE_TIMEOUT must be a number of seconds (0: no idle limit), not {text:?}"
            ))
        })?,
    };
    Ok((seconds > 0).then(|| Duration::from_secs(seconds)))
}

/// Why a command cannot start.
#[derive(Debug, thiserror::Error)]
pub enum SetupError {
    /// The user's arguments are at fault (exit 2).
    #[error("{0}")]
    Input(String),
    /// The machine lacks what validation needs (exit 1).
    #[error("{0}")]
    Infrastructure(String),
}

impl Blamed for SetupError {
    fn blame(&self) -> Blame {
        match self {
            Self::Input(_) => Blame::Input,
            Self::Infrastructure(_) => Blame::Infrastructure,
        }
    }
}

impl EngineSetup {
    /// Checks the sandbox and Maven, makes the Maven repository, and resolves the engine's
    /// configuration with its work folder (removed when dropped unless the user named it).
    pub fn resolve(
        &self,
        allow_apply_failures: bool,
    ) -> Result<(RunSettings, WorkDir), SetupError> {
        // The user's arguments first, then the machine.
        let workers = self
            .workers
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        if workers == 0 {
            return Err(SetupError::Input("--workers must be at least 1".into()));
        }
        let infrastructure = |e: &dyn std::fmt::Display| SetupError::Infrastructure(e.to_string());
        check_sandbox(self.sandbox).map_err(|e| infrastructure(&e))?;
        let mvn = BuildSettings::locate_mvn().map_err(|e| infrastructure(&e))?;
        // Absolute: the sandbox mounts these paths, and bubblewrap runs from another folder.
        let absolute = |path: &Path| std::path::absolute(path).unwrap_or_else(|_| path.to_owned());
        let repository = absolute(&self.maven_repo.clone().unwrap_or_else(default_maven_repo));
        std::fs::create_dir_all(&repository).map_err(|e| {
            SetupError::Infrastructure(format!(
                "cannot create the Maven repository {}: {e}",
                repository.display()
            ))
        })?;
        let work = match &self.work_dir {
            Some(path) => WorkDir::named(absolute(path)),
            None => WorkDir::temporary(self.sandbox),
        };
        let limits = Limits {
            wall: Duration::from_secs(self.timeout),
            idle: idle_limit(std::env::var_os("AVRLAB_IDLE_TIMEOUT").as_deref())?,
            processes: BUILD_PROCESSES,
            ..Limits::default()
        };
        let config = RunSettings {
            validator: ValidatorConfig {
                maven: BuildSettings {
                    mvn,
                    repository,
                    sandbox: self.sandbox,
                    limits,
                },
                work_root: work.path.clone(),
                mirrors: self
                    .mirrors
                    .clone()
                    .or_else(|| std::env::var_os("AVRLAB_MIRRORS").map(PathBuf::from)),
                keep_workspaces: self.keep_workspaces,
                baseline_cache: Some(cache_dir().join("baselines")),
            },
            workers,
            allow_apply_failures,
            differential: None,
        };
        Ok((config, work))
    }
}

/// Processes and threads a build and its tests may have at once. Surefire's fork under a plain
/// Maven gets the machine's limit, and a project's own tests start servers with pools of hundreds
/// of threads (CometD's cluster tests need more than 1024): a lower bound would fail tests that
/// pass under Maven. It still stops a fork bomb, and the cgroup's memory limit holds whatever
/// the count.
const BUILD_PROCESSES: u32 = 4096;

/// What the machine does not enforce, one line each (nothing when all is enforced).
pub fn unenforced_limits() -> Vec<String> {
    unenforced_without(cgroup_delegation())
        .into_iter()
        .collect()
}

/// The line for a cgroup probe's result: without cgroup delegation, memory is bounded only by
/// the JVMs' own heap caps and processes by `RLIMIT_NPROC` over all of the user's processes.
fn unenforced_without(probe: Result<String, String>) -> Option<String> {
    let why = probe.err()?;
    Some(format!(
        "no cgroup delegation here ({why}): a command's memory is bounded only by the JVM's \
         -Xmx and its processes by RLIMIT_NPROC over all of this user's processes; ask the \
         administrator for a delegated cgroup (e.g. Slurm's cgroup plugin or systemd's \
         Delegate=yes) to enforce both"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> EngineSetup {
        EngineSetup {
            sandbox: SandboxKind::None,
            maven_repo: None,
            work_dir: None,
            mirrors: None,
            keep_workspaces: false,
            workers: Some(0),
            timeout: 60,
        }
    }

    #[test]
    fn the_idle_limit_is_five_minutes_unless_set() {
        let five_minutes = Some(Duration::from_secs(DEFAULT_IDLE_TIMEOUT));
        assert_eq!(idle_limit(None).unwrap(), five_minutes);
        assert_eq!(
            idle_limit(Some("90".as_ref())).unwrap(),
            Some(Duration::from_secs(90))
        );
        assert_eq!(idle_limit(Some("0".as_ref())).unwrap(), None);
        assert!(matches!(
            idle_limit(Some("soon".as_ref())),
            Err(SetupError::Input(_))
        ));
    }

    #[test]
    fn zero_workers_is_bad_input() {
        match setup().resolve(false) {
            Err(SetupError::Input(why)) => assert_eq!(why, "--workers must be at least 1"),
            other => panic!("0 workers: {other:?}"),
        }
    }

    #[test]
    fn without_cgroups_one_line_says_what_is_not_enforced() {
        let line = unenforced_without(Err("cgroup v2 not writable (Permission denied)".into()))
            .expect("a line");
        assert!(
            line.starts_with(
                "no cgroup delegation here (cgroup v2 not writable (Permission denied)): "
            ),
            "{line}"
        );
        assert!(
            line.contains("RLIMIT_NPROC") && line.contains("-Xmx"),
            "{line}"
        );
        assert_eq!(
            unenforced_without(Ok("cgroup v1: memory 4096 MiB".into())),
            None
        );
    }
}
