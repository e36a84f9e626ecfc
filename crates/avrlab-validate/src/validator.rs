//! The Maven oracle: each candidate is applied to a fresh workspace, compiled with `mvn
//! test-compile`, and its PoV then regression tests are run with Surefire, all sandboxed.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use avrlab_bench::{OlderApi, RegressionTests, Task, TestName, copy_project};
use avrlab_build::{
    BuildError, BuildSettings, BuildTool, TestRun, TestSelection, WarmUp, build_tool,
};
use avrlab_exec::{ExitKind, SandboxKind, remove_tree};

use crate::baseline::{self, Baseline};
use crate::cache_seal::{CacheSeal, seal_tree};
use crate::candidate::{Candidate, CandidateError, apply_candidate};
use crate::error::ValidateError;
use crate::failed_warm_up;
use crate::left_out;
use crate::materialize::materialize_task;
use crate::oracle::{Oracle, PreparedTask, RepairState};
use crate::outcome::{Engine, Outcome, Phase, PhaseRecord, TestRecord, Verdict, exit_text};
use crate::repairs::{self, RepairDecision};
use crate::verdict_rules::{
    PhaseJudgement, SkippedTests, after_rerun, failed_regression_tests, judge_rerun, judge_run,
    killed_from_outside,
};

/// Bytes of each phase log kept with a verdict.
const LOG_EXCERPT_BYTES: usize = 12 << 10;

/// How validation runs.
#[derive(Debug, Clone)]
pub struct ValidatorConfig {
    pub maven: BuildSettings,
    /// Where pristine task states and per-worker workspaces live.
    pub work_root: PathBuf,
    /// A folder of bare git mirrors for git-based tasks.
    pub mirrors: Option<PathBuf>,
    /// Keep each candidate's workspace after its verdict (for debugging).
    pub keep_workspaces: bool,
    /// Where baselines are kept across runs (keyed by the task state's content); `None` keeps
    /// them in `work_root` for this run only.
    pub baseline_cache: Option<PathBuf>,
}

/// The build-tool oracle: every candidate judged by a sandboxed build and test run of the task's
/// own build tool (Maven, Gradle or Ant; `--engine maven`).
#[derive(Debug, Clone)]
pub struct BuildToolOracle {
    pub(crate) config: ValidatorConfig,
    /// The dependency cache's fingerprint after the last warm-up, checked after each candidate.
    seal: CacheSeal,
    /// Per task id, the older-API plan made again after a failed warm-up brought the parent poms
    /// it reads (see `refresh_repairs`); it stands in for the one the task was prepared with.
    replanned: Arc<Mutex<HashMap<String, Option<OlderApi>>>>,
}

pub(crate) fn excerpt(log: &str) -> String {
    if log.len() <= LOG_EXCERPT_BYTES {
        return log.to_owned();
    }
    let mut start = log.len() - LOG_EXCERPT_BYTES;
    while !log.is_char_boundary(start) {
        start += 1;
    }
    format!("[… {start} bytes omitted …]\n{}", &log[start..])
}

impl BuildToolOracle {
    pub fn new(config: ValidatorConfig) -> Self {
        Self {
            config,
            seal: CacheSeal,
            replanned: Arc::default(),
        }
    }

    fn workspace_err(path: &Path) -> impl FnOnce(std::io::Error) -> ValidateError + '_ {
        move |source| ValidateError::Workspace {
            path: path.to_owned(),
            source,
        }
    }

    /// The stored baseline of a warmed-up task: which regression tests are excluded, and the JDK
    /// it builds with (with the substitution, when there is one).
    pub fn baseline(&self, task: &Task) -> Result<(Option<Baseline>, String), ValidateError> {
        let pristine = self.config.work_root.join("pristine").join(&task.id);
        // The task as it was prepared: what its state calls for is part of the baseline's key.
        let mut task = task.clone();
        if task.build.older_api.is_none() && pristine.is_dir() {
            task.build.older_api =
                avrlab_build::plan_older_api(&pristine, &task.build, &self.config.maven).map_err(
                    |source| ValidateError::Build {
                        task: task.id.clone(),
                        source,
                    },
                )?;
        }
        let task = &task;
        let maven = self.tool(task)?;
        let mut jdk = maven.substitution().map_or_else(
            || format!("JDK {}", maven.jdk().major),
            |_| format!("JDK {} for {}", maven.jdk().major, task.build.jdk),
        );
        if let Some(release) = maven.release() {
            jdk.push_str(&format!(" at --release {release}"));
        }
        if let Some(runtime) = maven.test_runtime() {
            jdk.push_str(&format!(", tests on {}", runtime.major));
        }
        let path = self.baseline_path(task, &pristine, maven.jdk().major)?;
        Ok((baseline::load(&path), jdk))
    }

    fn baseline_path(
        &self,
        task: &Task,
        pristine: &Path,
        jdk: u32,
    ) -> Result<PathBuf, ValidateError> {
        let root = self
            .config
            .baseline_cache
            .clone()
            .unwrap_or_else(|| self.config.work_root.join("baseline"));
        let mut task = task.clone();
        task.build = self.build_spec(&task);
        baseline::baseline_path(&root, &task, pristine, jdk).map_err(|source| {
            ValidateError::Workspace {
                path: pristine.to_owned(),
                source,
            }
        })
    }

    /// The build tool the task names (Maven, Gradle, Ant), set up for it.
    pub(crate) fn tool(&self, task: &Task) -> Result<Box<dyn BuildTool>, ValidateError> {
        build_tool(self.config.maven.clone(), &self.build_spec(task)).map_err(|source| {
            ValidateError::Build {
                task: task.id.clone(),
                source,
            }
        })
    }

    /// The task's build as it stands: with the older-API plan made again after a failed
    /// warm-up, where there is one.
    pub(crate) fn build_spec(&self, task: &Task) -> avrlab_bench::BuildSpec {
        let mut build = task.build.clone();
        if let Some(older) = self
            .replanned
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&task.id)
        {
            build.older_api = older.clone();
        }
        build
    }
}

/// Writes the task state under `<work_root>/pristine/<task id>`, replacing an older one, with
/// the build-file repairs it needs here (see [`write_state`]), and seals it.
pub(crate) fn materialize_pristine(
    task: &Task,
    work_root: &Path,
    mirrors: Option<&Path>,
    maven: &BuildSettings,
    repairs_root: &Path,
) -> Result<PreparedTask, ValidateError> {
    let pristine = work_root.join("pristine").join(&task.id);
    let (notes, repairs) = write_state(task, &pristine, mirrors, maven, repairs_root)?;
    // Where the substitute's own API breaks the build, the task compiles against its own Java
    // version's API, and its tests may need an older runtime (recorded in every compile log).
    let mut task = task.clone();
    task.build.older_api =
        avrlab_build::plan_older_api(&pristine, &task.build, maven).map_err(|source| {
            ValidateError::Build {
                task: task.id.clone(),
                source,
            }
        })?;
    // Read-only on disk from now on: nothing that runs later (as this user) can change the state
    // every workspace of the task starts from. Sandboxed runs do not see it at all.
    seal_tree(&pristine).map_err(|source| ValidateError::Workspace {
        path: pristine.clone(),
        source,
    })?;
    Ok(PreparedTask::new(task, pristine)?
        .with_build_notes(notes)
        .with_repairs(repairs))
}

/// Writes the task state into `dir` (replacing what is there) with the build-file repairs it
/// needs here: the optional ones as decided earlier for this state (in `repairs_root`), or,
/// where no decision is recorded yet, applied and left for the first warm-up to decide (see
/// `repairs`). Returns the build notes and what deciding the pending repairs needs.
fn write_state(
    task: &Task,
    dir: &Path,
    mirrors: Option<&Path>,
    maven: &BuildSettings,
    repairs_root: &Path,
) -> Result<(Vec<String>, RepairState), ValidateError> {
    let workspace_err = |source| ValidateError::Workspace {
        path: dir.to_owned(),
        source,
    };
    let build_err = |source| ValidateError::Build {
        task: task.id.clone(),
        source,
    };
    // A state avrlab materialized and sealed itself: removed outside the sandbox.
    remove_tree(dir, SandboxKind::None)?;
    materialize_task(task, dir, mirrors)?;
    // Under a JDK substitution, language levels the substitute cannot compile are raised in the
    // build files (recorded in every compile log).
    let mut build_notes = avrlab_build::adapt_build_files(dir, task.build.jdk, &maven.repository)
        .map_err(build_err)?;
    // The optional repairs: as decided for this state, else applied and pending.
    let key = crate::fingerprint::tree_fingerprint(dir, b"state before optional repairs")
        .map_err(workspace_err)?;
    let base_poms = repairs::read_poms(dir).map_err(workspace_err)?;
    let decisions: Vec<RepairDecision> = avrlab_build::OPTIONAL_REPAIRS
        .iter()
        .filter_map(|name| {
            repairs::load_decision(&repairs::decision_path(repairs_root, &task.id, &key, name))
        })
        .collect();
    let declined: Vec<String> = decisions
        .iter()
        .filter(|d| !d.kept)
        .map(|d| d.name.clone())
        .collect();
    let applied =
        avrlab_build::apply_optional_repairs(dir, task.build.jdk, &maven.repository, &declined)
            .map_err(build_err)?;
    let mut pending = Vec::new();
    for (name, note) in applied {
        match decisions.iter().find(|d| d.name == name) {
            Some(decision) => build_notes.push(format!("{note} ({})", decision.describe())),
            None => {
                build_notes.push(note.clone());
                pending.push((name, note));
            }
        }
    }
    build_notes.extend(
        decisions
            .iter()
            .filter(|d| !d.kept)
            .map(RepairDecision::describe),
    );
    // Test sources an earlier warm-up of this state found not to compile here.
    let left_out = left_out::load(&left_out::record_path(repairs_root, &task.id, &key));
    if let Some(note) = left_out.describe() {
        left_out.remove_from(dir).map_err(workspace_err)?;
        build_notes.push(note);
    }
    Ok((
        build_notes,
        RepairState {
            key,
            base_poms,
            pending,
            declined,
        },
    ))
}

impl Oracle for BuildToolOracle {
    fn name(&self) -> &str {
        "maven"
    }

    fn materialize(&self, task: &Task) -> Result<PreparedTask, ValidateError> {
        materialize_pristine(
            task,
            &self.config.work_root,
            self.config.mirrors.as_deref(),
            &self.config.maven,
            &self.repairs_root(),
        )
    }

    fn record_reference_failures(
        &self,
        prepared: &PreparedTask,
        failures: &[crate::ReferenceFailure],
    ) -> Result<bool, ValidateError> {
        let task = &prepared.task;
        let tool = self.tool(task)?;
        let path = self.baseline_path(task, prepared.pristine(), tool.jdk().major)?;
        let Some(mut known) = baseline::load(&path) else {
            return Ok(false);
        };
        if !known.add_reference_failures(failures, &task.oracle.pov_tests) {
            return Ok(false);
        }
        baseline::store(&path, &known).map_err(Self::workspace_err(&path))?;
        Ok(true)
    }

    /// Warms the shared dependency cache by building a copy of the pristine state once per
    /// build-file fingerprint. A warm-up that failed is said again at once for a while (see
    /// `failed_warm_up`).
    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        match prepared.task.kind {
            // A feature task is scored by whole-suite runs against its expected failures: its
            // dependencies are all it needs (no baseline, no repair to decide).
            avrlab_bench::TaskKind::Feature => return self.warm_up_dependencies(prepared),
            avrlab_bench::TaskKind::Repair => {}
        }
        let note = failed_warm_up::note_path(&self.config.work_root, &prepared.task.id);
        // The state is fingerprinted (a read of the whole tree) only where a note may be read or
        // written: after an earlier failure, or after this one.
        let key = || -> Result<String, ValidateError> {
            let state =
                crate::fingerprint::tree_fingerprint(prepared.pristine(), b"warm-up attempt")
                    .map_err(Self::workspace_err(prepared.pristine()))?;
            Ok(failed_warm_up::attempt_key(&state))
        };
        let recalled = if note.exists() {
            failed_warm_up::recall(&note, &key()?, failed_warm_up::seconds_now())
        } else {
            None
        };
        if let Some(failed) = recalled {
            let seen = failed_warm_up::seconds_now().saturating_sub(failed.at) / 60;
            return Err(ValidateError::Build {
                task: prepared.task.id.clone(),
                source: BuildError::WarmUp {
                    project: failed.project,
                    tail: format!(
                        "{} [as this avrlab build's warm-up of this task state failed {seen} min ago; it is tried again {} h after that, or now if {} is removed]",
                        failed.tail,
                        failed_warm_up::REMEMBERED_FOR.as_secs() / 3600,
                        note.display()
                    ),
                    log: failed.log,
                },
            });
        }
        let result = self.warm_up_now(prepared);
        match &result {
            Err(ValidateError::Build {
                source: BuildError::WarmUp { project, tail, log },
                ..
            }) => failed_warm_up::remember(
                &note,
                &key()?,
                &failed_warm_up::fresh(project.clone(), tail.clone(), log.clone()),
            ),
            Ok(()) => failed_warm_up::forget(&note),
            Err(_) => {}
        }
        result
    }

    fn validate(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
    ) -> Result<Verdict, ValidateError> {
        match (prepared.task.kind, &prepared.task.feature) {
            (avrlab_bench::TaskKind::Feature, Some(feature)) => {
                return self.validate_feature(prepared, feature, candidate, slot);
            }
            (avrlab_bench::TaskKind::Feature, None) => {
                // Loading refuses a feature task without its table; said, should it come.
                let mut verdict = Verdict::undecided(build_tool_engine(&prepared.task));
                verdict.reason = "a feature task without its [feature] table".into();
                return Ok(verdict);
            }
            (avrlab_bench::TaskKind::Repair, _) => {}
        }
        let started = Instant::now();
        let what = format!("a candidate of {}", prepared.task.id);
        // The room left is read before the workspace goes: a build that failed while the work
        // folder's disk was full failed for the machine, not for the candidate.
        let mut room = None;
        let verdict =
            self.in_fresh_workspace(prepared, "workspaces", slot, &what, |root, ws| {
                let verdict = self.run_pipeline(prepared, candidate, root, ws, started);
                room = avrlab_exec::available_bytes(ws);
                verdict
            })??;
        Ok(errored_if_disk_full(verdict, room))
    }
}

impl BuildToolOracle {
    /// [`Oracle::warm_up`] without the note of an earlier failure.
    fn warm_up_now(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        let mut warmed = match self.warm_up_dependencies(prepared) {
            // Repairs that depend on parent poms could not be made before the parents were in
            // the repository; a failed warm-up has brought them.
            Err(ValidateError::Build {
                source: BuildError::WarmUp { .. },
                ..
            }) if self.refresh_repairs(prepared)? => self.warm_up_dependencies(prepared),
            other => other,
        };
        // Test sources that do not compile here are left out, and the warm-up tried again.
        for _ in 0..left_out::MAX_ROUNDS {
            match &warmed {
                Err(ValidateError::Build {
                    source:
                        BuildError::WarmUp {
                            project,
                            log: Some(log),
                            ..
                        },
                    ..
                }) if self.leave_out_uncompilable_tests(
                    prepared,
                    project,
                    &std::fs::read_to_string(log).unwrap_or_default(),
                )? =>
                {
                    warmed = self.warm_up_dependencies(prepared);
                }
                _ => break,
            }
        }
        if let Err(
            failed @ ValidateError::Build {
                source: BuildError::WarmUp { .. },
                ..
            },
        ) = warmed
        {
            // The task state's tests may call what only the fix adds (jackson-modules-java8's
            // PoV test calls a method the fix introduces): its test sources do not compile, but
            // the dependencies are the same with the fix applied. The failure stands if the
            // fixed state does not build either.
            if let Some(also) = self.warm_up_on_reference(prepared)? {
                return Err(match failed {
                    ValidateError::Build {
                        task,
                        source: BuildError::WarmUp { project, tail, log },
                    } => ValidateError::Build {
                        task,
                        source: BuildError::WarmUp {
                            project,
                            tail: format!("{tail} (and with the reference fix applied: {also})"),
                            log,
                        },
                    },
                    other => other,
                });
            }
        } else {
            warmed?;
        }
        self.decide_repairs(prepared)?;
        // The baseline: which regression tests pass on the reference fix (once per task state).
        let mut baseline = self.state_baseline(&prepared.task, prepared.pristine())?;
        // A warm-up skipped (the repository was warm for these build files already) has not
        // compiled the tests: test sources that do not compile here are found here then.
        for _ in 0..left_out::MAX_ROUNDS {
            match baseline.not_compiled.take() {
                Some((project, output))
                    if self.leave_out_uncompilable_tests(prepared, &project, &output)? =>
                {
                    baseline = self.state_baseline(&prepared.task, prepared.pristine())?;
                }
                _ => break,
            }
        }
        // Decisions are kept per task state, baselines per state and build options: a baseline
        // taken after a decision made under other options (new Maven flags) carries that
        // decision too, so the check shows it whichever run made it.
        if baseline.repairs.is_empty() {
            let key = prepared.repairs().key.clone();
            let known: Vec<String> = avrlab_build::OPTIONAL_REPAIRS
                .iter()
                .filter_map(|name| {
                    repairs::load_decision(&repairs::decision_path(
                        &self.repairs_root(),
                        &prepared.task.id,
                        &key,
                        name,
                    ))
                })
                .map(|d| d.describe())
                .chain(
                    left_out::load(&left_out::record_path(
                        &self.repairs_root(),
                        &prepared.task.id,
                        &key,
                    ))
                    .describe(),
                )
                .collect();
            if !known.is_empty() {
                baseline.repairs = known;
                let tool = self.tool(&prepared.task)?;
                let at =
                    self.baseline_path(&prepared.task, prepared.pristine(), tool.jdk().major)?;
                baseline::store(&at, &baseline).map_err(Self::workspace_err(&at))?;
            }
        }
        prepared.set_baseline(baseline);
        Ok(())
    }
}

impl BuildToolOracle {
    /// Warms the dependencies on a copy of the task state with its reference fix applied, for a
    /// state whose own warm-up failed; `Some(why)` when there is no reference fix or that copy
    /// fails too. Said in the build notes, as every adaptation is.
    fn warm_up_on_reference(
        &self,
        prepared: &PreparedTask,
    ) -> Result<Option<String>, ValidateError> {
        let task = &prepared.task;
        let Some(reference) = &task.reference else {
            return Ok(Some("the task has no reference fix".into()));
        };
        let copy = self.config.work_root.join("warm-up-fixed").join(&task.id);
        let _ = remove_tree(&copy, SandboxKind::None);
        copy_project(prepared.pristine(), &copy).map_err(|source| ValidateError::Checkout {
            task: task.id.clone(),
            source,
        })?;
        if reference.apply_to_dir(&copy).is_err() {
            let _ = remove_tree(&copy, SandboxKind::None);
            return Ok(Some("the reference fix does not apply".into()));
        }
        let warmed = self.warm_dependencies_of(task, &copy);
        let _ = remove_tree(&copy, SandboxKind::None);
        let warmed = match warmed {
            Ok(warmed) => warmed,
            Err(ValidateError::Build {
                source: BuildError::WarmUp { tail, .. },
                ..
            }) => return Ok(Some(tail)),
            Err(other) => return Ok(Some(other.to_string())),
        };
        prepared.add_library(&warmed.classpath)?;
        prepared.replace_build_note(
            "",
            "warm-up: the task state does not build as it stands (its tests use what the fix adds), so its dependencies were resolved on the reference fix's state".into(),
        );
        Ok(None)
    }

    /// Resolves the task's dependencies into the shared cache (once per build-file fingerprint)
    /// by building a copy of the pristine state, sandboxed with network, then re-seals the
    /// cache. No baseline run: callers that judge whole suites themselves (feature tasks) need
    /// only this part of the warm-up.
    pub fn warm_up_dependencies(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        let warmed = self.warm_dependencies_of(&prepared.task, prepared.pristine())?;
        prepared.add_library(&warmed.classpath)?;
        Ok(())
    }

    /// [`Self::warm_up_dependencies`] for the task state in `state` (a copy of it is built).
    fn warm_dependencies_of(&self, task: &Task, state: &Path) -> Result<WarmUp, ValidateError> {
        let maven = self.tool(task)?;
        let repository = &self.config.maven.repository;
        CacheSeal::check_trusted(repository)?;
        let maven_err = |source| ValidateError::Build {
            task: task.id.clone(),
            source,
        };
        // What a later avrlab adds to every JVM of a task is made on its own, not by warming
        // every task up again.
        if maven.platform_missing() {
            let scratch = self.config.work_root.join("platform").join(&task.id);
            self.while_cache_writable(|| {
                let made = maven.complete_platform(&scratch);
                let _ = remove_tree(&scratch, self.config.maven.sandbox);
                made
            })?
            .map_err(maven_err)?;
        }
        // A repository already warm for these build files, and as its seal says, is neither
        // written nor sealed again.
        let known = maven.warmed(state).map_err(maven_err)?;
        let warmed = match known {
            Some(known) if CacheSeal::is_current(repository)? => known,
            _ => {
                // The cache is writable only now, and no candidate runs meanwhile.
                let guard = self.seal.warm_up(repository)?;
                let warm = self.config.work_root.join("warm-up").join(&task.id);
                remove_tree(&warm, self.config.maven.sandbox)?;
                copy_project(state, &warm).map_err(|source| ValidateError::Checkout {
                    task: task.id.clone(),
                    source,
                })?;
                // Sealed whether the build succeeds or not (see `WarmUpGuard::run`).
                guard
                    .run(repository, || {
                        let warmed = maven.warm_up(&warm);
                        let _ = remove_tree(&warm, self.config.maven.sandbox);
                        warmed
                    })?
                    .map_err(maven_err)?
            }
        };
        Ok(warmed)
    }

    /// Runs `step`, which may write the shared dependency cache (a networked warm-up of another
    /// engine), while no candidate runs anywhere, then re-seals the cache.
    pub(crate) fn while_cache_writable<T>(
        &self,
        step: impl FnOnce() -> T,
    ) -> Result<T, ValidateError> {
        let repository = &self.config.maven.repository;
        CacheSeal::check_trusted(repository)?;
        Ok(self.seal.warm_up(repository)?.run(repository, step)?)
    }

    /// Validates `candidate` the naive way, for benchmarks: a fresh copy of the task state, the
    /// candidate applied, one `mvn test` (see `Maven::plain_test`). `Some(passed)` from Maven's
    /// exit status, `None` when the candidate did not apply. No verdict is made from it.
    pub fn plain(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
    ) -> Result<Option<bool>, ValidateError> {
        let task = &prepared.task;
        let maven = self.tool(task)?;
        let what = format!("a plain run of {}", task.id);
        self.in_fresh_workspace(
            prepared,
            "plain",
            slot,
            &what,
            |_, ws| match apply_candidate(task, prepared.classes(), candidate, ws) {
                Ok(()) => Ok(Some(
                    maven
                        .plain_test(ws)
                        .map_err(|source| ValidateError::Build {
                            task: task.id.clone(),
                            source,
                        })?
                        .success(),
                )),
                Err(CandidateError::Io(source)) => Err(ValidateError::Workspace {
                    path: ws.to_owned(),
                    source,
                }),
                Err(_) => Ok(None),
            },
        )?
    }

    /// Runs `body` on a fresh copy of the task state in `<work_root>/<kind>/<slot>/project` while
    /// holding the cache's candidate lock, removes the copy (unless workspaces are kept), and then
    /// checks that the dependency cache is unchanged (`what` names the run in the alarm).
    pub(crate) fn in_fresh_workspace<T>(
        &self,
        prepared: &PreparedTask,
        kind: &str,
        slot: &str,
        what: &str,
        body: impl FnOnce(&Path, &Path) -> T,
    ) -> Result<T, ValidateError> {
        let root = self.config.work_root.join(kind).join(slot);
        let ws = root.join("project");
        let repository = &self.config.maven.repository;
        CacheSeal::check_trusted(repository)?;
        let guard = self.seal.candidate(repository)?;
        // Whatever the last run left here, however deep, is removed in bounded time.
        remove_tree(&root, self.config.maven.sandbox)?;
        std::fs::create_dir_all(&root).map_err(Self::workspace_err(&root))?;
        copy_project(prepared.pristine(), &ws).map_err(|source| ValidateError::Checkout {
            task: prepared.task.id.clone(),
            source,
        })?;
        let result = body(&root, &ws);
        if !self.config.keep_workspaces {
            let _ = remove_tree(&root, self.config.maven.sandbox);
        }
        // Unsandboxed (`--sandbox none`) nothing is contained, and Maven may touch the cache.
        if self.config.maven.sandbox == SandboxKind::Bubblewrap {
            guard.verify(repository, what)?;
        }
        Ok(result)
    }

    /// Writes the task state again beside the pristine one, with the repairs that fit it now
    /// (a warm-up may have brought parent poms that some repairs read), and where its poms differ
    /// from the pristine state's, puts them in place with their notes. Whether they differed.
    fn refresh_repairs(&self, prepared: &PreparedTask) -> Result<bool, ValidateError> {
        let task = &prepared.task;
        let dir = self.config.work_root.join("state-again").join(&task.id);
        let (notes, repairs) = write_state(
            task,
            &dir,
            self.config.mirrors.as_deref(),
            &self.config.maven,
            &self.repairs_root(),
        )?;
        let poms = repairs::read_poms(&dir).map_err(Self::workspace_err(&dir))?;
        // What the state calls for may have changed with its parents (a language level fixed
        // in a parent pom: `--release`).
        let older = avrlab_build::plan_older_api(&dir, &task.build, &self.config.maven);
        let _ = remove_tree(&dir, SandboxKind::None);
        let older = older.map_err(|source| ValidateError::Build {
            task: task.id.clone(),
            source,
        })?;
        let replanned = older != self.build_spec(task).older_api;
        let current = repairs::read_poms(prepared.pristine()).map_err(Self::workspace_err(&dir))?;
        if poms == current && !replanned {
            return Ok(false);
        }
        repairs::write_poms(prepared.pristine(), &poms)
            .map_err(Self::workspace_err(prepared.pristine()))?;
        prepared.set_build_notes(notes);
        *prepared.repairs() = repairs;
        if replanned {
            self.replanned
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(task.id.clone(), older);
        }
        Ok(true)
    }

    /// Leaves out of the task state the test sources whose compile errors failed a build of
    /// `project` (a copy of the state; `output` its whole output), where `left_out` allows it;
    /// whether it did.
    fn leave_out_uncompilable_tests(
        &self,
        prepared: &PreparedTask,
        project: &Path,
        output: &str,
    ) -> Result<bool, ValidateError> {
        let task = &prepared.task;
        let record = left_out::record_path(&self.repairs_root(), &task.id, &prepared.repairs().key);
        let known = left_out::load(&record);
        let Some(more) = left_out::more_to_leave_out(
            output,
            project,
            prepared.pristine(),
            &task.oracle.pov_tests,
            &known,
        ) else {
            return Ok(false);
        };
        left_out::store(&record, &more).map_err(Self::workspace_err(&record))?;
        more.remove_from(prepared.pristine())
            .map_err(Self::workspace_err(prepared.pristine()))?;
        let mut notes: Vec<String> = prepared
            .build_notes()
            .into_iter()
            .filter(|note| known.describe().as_ref() != Some(note))
            .collect();
        notes.extend(more.describe());
        prepared.set_build_notes(notes);
        Ok(true)
    }

    /// Where the decisions on optional repairs are kept: beside the baselines.
    fn repairs_root(&self) -> PathBuf {
        self.config
            .baseline_cache
            .clone()
            .unwrap_or_else(|| self.config.work_root.join("baseline"))
            .join("repairs")
    }

    /// The baseline of the task state in `state`: the stored one, or taken and stored now.
    fn state_baseline(&self, task: &Task, state: &Path) -> Result<Baseline, ValidateError> {
        let tool = self.tool(task)?;
        let path = self.baseline_path(task, state, tool.jdk().major)?;
        if let Some(known) = baseline::load(&path) {
            return Ok(known);
        }
        let root = self.config.work_root.join("baseline-run").join(&task.id);
        let taken = baseline::run_baseline(task, tool.as_ref(), state, &root);
        if !self.config.keep_workspaces {
            let _ = remove_tree(&root, self.config.maven.sandbox);
        }
        let taken = taken?;
        // A baseline in which no test ran knows nothing of the suite (a build avrlab could not
        // run yet, a killed run): it serves this run but is not kept, so a later one takes it anew.
        if taken.ran > 0 {
            baseline::store(&path, &taken).map_err(Self::workspace_err(&path))?;
        }
        Ok(taken)
    }

    /// Decides each optional repair the task state carries with no decision yet: the baseline
    /// with it against the baseline of a copy without it (dependencies resolved for that copy
    /// first). Kept where more tests count with it; otherwise the state's poms become the ones
    /// without it. The decision is recorded for the state, in its build notes and its baseline.
    fn decide_repairs(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        let (key, base_poms, pending) = {
            let repairs = prepared.repairs();
            (
                repairs.key.clone(),
                repairs.base_poms.clone(),
                repairs.pending.clone(),
            )
        };
        let task = &prepared.task;
        for (name, note) in pending {
            let with = self.state_baseline(task, prepared.pristine())?;
            let mut skip = prepared.repairs().declined.clone();
            skip.push(name.clone());
            let root = self.config.work_root.join("repair-check").join(&task.id);
            let variant = root.join("project");
            remove_tree(&root, self.config.maven.sandbox)?;
            copy_project(prepared.pristine(), &variant).map_err(|source| {
                ValidateError::Checkout {
                    task: task.id.clone(),
                    source,
                }
            })?;
            repairs::write_poms(&variant, &base_poms).map_err(Self::workspace_err(&variant))?;
            avrlab_build::apply_optional_repairs(
                &variant,
                task.build.jdk,
                &self.config.maven.repository,
                &skip,
            )
            .map_err(|source| ValidateError::Build {
                task: task.id.clone(),
                source,
            })?;
            let without = match self.warm_dependencies_of(task, &variant) {
                Ok(_) => {
                    let tool = self.tool(task)?;
                    let taken = baseline::run_baseline(
                        task,
                        tool.as_ref(),
                        &variant,
                        &root.join("baseline"),
                    )?;
                    taken.note.is_none().then_some(taken)
                }
                Err(ValidateError::Build {
                    source: BuildError::WarmUp { .. },
                    ..
                }) => None,
                Err(other) => return Err(other),
            };
            let decision = RepairDecision::decide(&name, &with, without.as_ref());
            let path = repairs::decision_path(&self.repairs_root(), &task.id, &key, &name);
            repairs::store_decision(&path, &decision).map_err(Self::workspace_err(&path))?;
            let jdk = self.tool(task)?.jdk().major;
            if decision.kept {
                let mut kept = with;
                kept.repairs.push(decision.describe());
                let at = self.baseline_path(task, prepared.pristine(), jdk)?;
                baseline::store(&at, &kept).map_err(Self::workspace_err(&at))?;
                prepared.replace_build_note(&note, format!("{note} ({})", decision.describe()));
            } else {
                let poms = repairs::read_poms(&variant).map_err(Self::workspace_err(&variant))?;
                repairs::write_poms(prepared.pristine(), &poms)
                    .map_err(Self::workspace_err(prepared.pristine()))?;
                prepared.repairs().declined.push(name.clone());
                if let Some(mut declined) = without {
                    // The decisions taken on this state before this one, then this one.
                    declined.repairs = with.repairs.clone();
                    declined.repairs.push(decision.describe());
                    let at = self.baseline_path(task, prepared.pristine(), jdk)?;
                    baseline::store(&at, &declined).map_err(Self::workspace_err(&at))?;
                }
                prepared.replace_build_note(&note, decision.describe());
            }
            if !self.config.keep_workspaces {
                let _ = remove_tree(&root, self.config.maven.sandbox);
            }
        }
        prepared.repairs().pending.clear();
        Ok(())
    }

    fn run_pipeline(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        root: &Path,
        ws: &Path,
        started: Instant,
    ) -> Result<Verdict, ValidateError> {
        let task = &prepared.task;
        let maven = self.tool(task)?;
        let maven_err = |source| ValidateError::Build {
            task: task.id.clone(),
            source,
        };
        let mut verdict = Verdict::undecided(build_tool_engine(task));
        let finish = |mut verdict: Verdict, outcome, reason: String| {
            verdict.outcome = outcome;
            verdict.reason = reason;
            verdict.wall = started.elapsed();
            Ok(verdict)
        };

        match apply_candidate(task, prepared.classes(), candidate, ws) {
            Ok(()) => {}
            Err(CandidateError::Io(source)) => {
                return Err(ValidateError::Workspace {
                    path: ws.to_owned(),
                    source,
                });
            }
            Err(problem) => return finish(verdict, Outcome::ApplyFailed, problem.to_string()),
        }

        let compiled = maven.compile(ws).map_err(maven_err)?;
        let mut jdk_note = maven.substitution().map_or_else(
            || format!("[avrlab] JDK {}\n", maven.jdk().major),
            |s| format!("[avrlab] {s}\n"),
        );
        for note in prepared.build_notes() {
            jdk_note.push_str(&format!("[avrlab] build file adapted: {note}\n"));
        }
        verdict.phases.push(PhaseRecord {
            phase: Phase::Compile,
            wall: compiled.wall,
            exit: exit_text(compiled.exit),
            log_excerpt: format!("{jdk_note}{}", excerpt(&compiled.log)),
            enforcement: compiled.enforcement.clone(),
        });
        verdict.diagnostics = compiled.diagnostics.clone();
        match compiled.exit {
            ExitKind::Code(0) => {}
            ExitKind::TimedOut => {
                return finish(
                    verdict,
                    Outcome::Timeout,
                    "compilation outlived its time limit".into(),
                );
            }
            ExitKind::Code(_)
                if crate::verdict_rules::only_tests_fail_to_compile(
                    &compiled.diagnostics,
                    &task.policy,
                ) =>
            {
                return finish(
                    verdict,
                    Outcome::PovFailing,
                    format!(
                        "the candidate's sources compile, but the task's tests do not compile against them, so its PoV tests cannot pass: {}",
                        compiled.diagnostics[0]
                    ),
                );
            }
            ExitKind::Code(_) => {
                // A compiler message names the candidate's mistake; without one, what the build
                // tool said (a pom or plug-in problem) is the next best reason.
                let reason = compiled
                    .diagnostics
                    .first()
                    .or(compiled.failure.as_ref())
                    .cloned()
                    .unwrap_or_else(|| "the build failed before the tests".into());
                return finish(verdict, Outcome::Uncompilable, reason);
            }
            other => {
                return finish(
                    verdict,
                    Outcome::Indeterminate,
                    format!("compilation ended by {}", exit_text(other)),
                );
            }
        }

        let pov = &task.oracle.pov_tests;
        let run = maven
            .test(
                ws,
                &TestSelection::Only(pov.clone()),
                &root.join("reports-pov"),
            )
            .map_err(maven_err)?;
        record(&mut verdict, Phase::Pov, &run);
        if let PhaseJudgement::Decided(outcome, reason) =
            judge_run(&run, pov, &[], Outcome::PovFailing, SkippedTests::pov(task))
        {
            return finish(verdict, outcome, reason).map(|v| errored_if_killed(v, &run));
        }

        // Tests that do not pass on the reference fix never count (see `baseline`).
        let base = match prepared.baseline() {
            Some(known) => known.clone(),
            None => self.baseline(task)?.0.unwrap_or_default(),
        };
        // Single tests are excluded (a method, or a class where the class itself failed; see
        // `baseline`); reports must name none of them. The PoV tests run again with the others:
        // they passed a moment ago.
        let dropped = base.tests();
        let listed: Vec<TestName>;
        let (selection, wanted): (TestSelection, &[TestName]) = match &task.oracle.regression_tests
        {
            RegressionTests::AllOthers => (TestSelection::AllExcept(dropped.clone()), &[]),
            RegressionTests::Listed(list) => {
                listed = list.iter().filter(|t| base.keeps(t)).cloned().collect();
                (TestSelection::Only(listed.clone()), &listed)
            }
        };
        let mut run = maven
            .test(ws, &selection, &root.join("reports-regression"))
            .map_err(maven_err)?;
        run.log = format!("[avrlab] {}\n{}", base.describe(), run.log);
        record(&mut verdict, Phase::Regression, &run);
        let skipped = SkippedTests::regression(&base);
        let judgement = judge_run(&run, wanted, &dropped, Outcome::RegressionBroken, skipped);
        // When tests failed, the phase runs again in a fresh JVM (Surefire forks a new one): a
        // failure that does not repeat is flaky on this candidate, not its verdict.
        let failed = failed_regression_tests(&run, &judgement, skipped);
        if let (PhaseJudgement::Decided(_, reason), false) = (&judgement, failed.is_empty()) {
            let again = maven
                .test(ws, &selection, &root.join("reports-regression-rerun"))
                .map_err(maven_err)?;
            record(&mut verdict, Phase::RegressionRerun, &again);
            let rejudged = judge_rerun(&again, &failed, skipped);
            let (outcome, reason) = after_rerun(&failed, reason, &rejudged);
            return finish(verdict, outcome, reason).map(|v| errored_if_killed(v, &again));
        }
        if let PhaseJudgement::Decided(outcome, reason) = judgement {
            return finish(verdict, outcome, reason).map(|v| errored_if_killed(v, &run));
        }
        let count = verdict.tests.len();
        finish(
            verdict,
            Outcome::Plausible,
            format!("all {count} oracle tests passed"),
        )
    }
}

/// The engine a verdict of the task's own build tool is stored under: the tool's name.
pub(crate) fn build_tool_engine(task: &Task) -> Engine {
    match task.build.system {
        avrlab_bench::BuildSystem::Maven => Engine::Maven,
        avrlab_bench::BuildSystem::Gradle => Engine::Gradle,
        avrlab_bench::BuildSystem::Ant => Engine::Ant,
    }
}

/// Below this many bytes left, a work folder's disk counts as full.
const DISK_FULL_BYTES: u64 = 1 << 20;

/// `verdict`, errored when it is not `Plausible` and its workspace's file system had no room
/// left (`room` bytes) when it was decided: every write of the build could have failed for that.
fn errored_if_disk_full(mut verdict: Verdict, room: Option<u64>) -> Verdict {
    if verdict.outcome != Outcome::Plausible
        && verdict.errored.is_none()
        && room.is_some_and(|bytes| bytes < DISK_FULL_BYTES)
    {
        verdict.errored = Some(crate::outcome::ErrorCause::DiskFull);
        verdict.reason = format!(
            "the work folder's disk was full ({} bytes left): {}",
            room.unwrap_or(0),
            verdict.reason
        );
        verdict.outcome = Outcome::Indeterminate;
    }
    verdict
}

/// `verdict`, errored when it is `Indeterminate` because its test JVM was killed from outside
/// (`verdict_rules::killed_from_outside`).
fn errored_if_killed(mut verdict: Verdict, run: &TestRun) -> Verdict {
    if verdict.outcome == Outcome::Indeterminate && killed_from_outside(run) {
        verdict.errored = Some(crate::outcome::ErrorCause::Killed);
        verdict.reason = format!("killed from outside: {}", verdict.reason);
    }
    verdict
}

pub(crate) fn record(verdict: &mut Verdict, phase: Phase, run: &TestRun) {
    verdict.phases.push(PhaseRecord {
        phase,
        wall: run.wall,
        exit: exit_text(run.exit),
        log_excerpt: excerpt(&run.log),
        enforcement: run.enforcement.clone(),
    });
    verdict.tests.extend(run.cases.iter().map(|c| TestRecord {
        phase,
        class: c.class.clone(),
        method: c.method.clone(),
        status: c.status,
        seconds: c.seconds,
        message: c.message.clone(),
    }));
}
