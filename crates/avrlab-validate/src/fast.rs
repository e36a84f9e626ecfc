//! The fast oracle: every candidate runs in a test JVM of its own, started ahead of need from a
//! pool per task state and ended after its one candidate, so that no candidate's code ever runs
//! in a JVM where another candidate's code ran. A long-lived compiler process per task state
//! (which runs no project or candidate code) compiles each candidate's changed files into the
//! folder its test JVM sees as `target/classes`, where the build's other main classes join them
//! (one code source for every main class); the JVM then runs the PoV, then the regression
//! tests through the JUnit Platform launcher, as Surefire's fork would (see `avrlab-exec`'s
//! `fastpath`). Fast verdicts stand on their own: Maven re-judges one for a reason only — a
//! random sample, a flag raised while its code ran or in its diff, an earlier disagreement in
//! the task, or `--confirm all` — and both views are kept in the verdict's [`EngineRecord`].
//! Tasks and candidates the fast path cannot take go to Maven, with the reason recorded.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use avrlab_bench::{RegressionTests, Task, TestName, copy_project};
use avrlab_build::{
    ARCHIVE_FILE, CANDIDATE_FOLDERS, CompileRequest, CompilerSession, FastBuild, FastPhase,
    FastReply, Lost, Maven, PhaseEnd, Recorded, RegressionRun, RegressionScope, RunRequest,
    TestJvm, TestJvmRole, TestRun, TestStatus,
};
use avrlab_exec::ExitKind;
use sha2::{Digest, Sha256};

use crate::candidate::{Candidate, CandidateError, apply_candidate, check_candidate};
use crate::error::ValidateError;
use crate::oracle::{Oracle, PreparedTask};
use crate::outcome::{CheckKind, CrossCheck, Engine, Outcome, Phase, PhaseRecord, Verdict};
use crate::sources::{StateSources, top_level_classes};
use crate::test_impact::{CandidateChange, ClassDependence, RECORD_FILE, select};
use crate::validator::{BuildToolOracle, ValidatorConfig, excerpt, record};
use crate::verdict_rules::{PhaseJudgement, SkippedTests, judge_run};

mod fidelity;
mod rerun;

pub use fidelity::{Fidelity, ProbeDifference};

/// Which fast verdicts Maven re-judges.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConfirmPolicy {
    /// Only for a reason: the random sample, a flag, an earlier disagreement in the task.
    Sampled,
    /// Also every verdict in which the PoV tests passed (`Plausible`, `RegressionBroken`), as
    /// before fast verdicts stood on their own.
    All,
}

/// How the fast oracle runs and how much of it Maven re-judges.
#[derive(Debug, Clone)]
pub struct FastConfig {
    /// Which verdicts Maven re-judges besides the sample, the flagged ones and those of a task
    /// with an earlier disagreement.
    pub confirm: ConfirmPolicy,
    /// The share (0.0 – 1.0) of fast verdicts re-judged by Maven at random, chosen by a hash of
    /// the candidate so that a re-run picks the same ones.
    pub confirm_sample: f64,
    /// The per-phase time limit inside the test JVM.
    pub test_timeout: Duration,
    /// Where the compiled helper is cached.
    pub helper_cache: PathBuf,
    /// How many started test JVMs each task state keeps ready: the run's worker count, so that
    /// every worker finds one started while the last candidate ran.
    pub primed_per_task: usize,
    /// Every selected regression test runs, in Surefire's order, for full per-test evidence.
    /// Otherwise the classes that failed for earlier candidates of the task state run first and
    /// no class runs after the first one that failed: the outcome is known by then.
    pub keep_going: bool,
}

/// What the fast path needs of a task state, or why it cannot take it.
type TaskBuild = Result<FastBuild, String>;

/// How long recording a task state's class dependence may take in all (each test class has the
/// per-test-phase limit inside the JVM; this bounds a JVM that stops answering).
const RECORDING_LIMIT: Duration = Duration::from_secs(1800);

/// How many started, idle test JVMs the task states of a run keep in all.
const MAX_IDLE_JVMS: usize = 32;

/// How long one compilation may take (a full recompilation of a large project included).
const COMPILE_LIMIT: Duration = Duration::from_secs(600);

/// A started test JVM and the folder its class path begins with (the compiler writes the
/// candidate's classes there).
struct PooledJvm {
    jvm: TestJvm,
    classes: ClassFolder,
}

/// A test JVM's class folder, removed with it.
struct ClassFolder(PathBuf);

impl Drop for ClassFolder {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// What runs one task state's candidates: its compiled build, the compiler of its JDK and its
/// pool of started test JVMs.
struct StateRuntime {
    build: FastBuild,
    compiler: Arc<Mutex<Option<CompilerSession>>>,
    pool: Mutex<Vec<PooledJvm>>,
    /// The task whose state this is.
    task: String,
    /// The class-data archive its test JVMs start from, if it has one.
    archive: Option<PathBuf>,
    /// Regression classes that failed for candidates of this state, with how many times: the
    /// fail-first order.
    failing: Mutex<Vec<(String, usize)>>,
    /// Which sources the compiler plug-in compiles, and which classes they define.
    sources: StateSources,
    /// The system properties of Surefire's fork its test JVMs set too (the fidelity probe's).
    learned: Vec<(String, String)>,
}

impl StateRuntime {
    /// The classes to run first: those that failed most often, the earliest first among equals.
    fn fail_first(&self) -> Vec<String> {
        let mut failing = self
            .failing
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone();
        // A stable sort keeps the order in which classes first failed among equal counts.
        failing.sort_by_key(|(_, count)| std::cmp::Reverse(*count));
        failing.into_iter().map(|(class, _)| class).collect()
    }

    /// Notes the classes in which a regression test failed for a candidate.
    fn note_failures(&self, reply: &FastReply) {
        let Some(regression) = reply
            .phases
            .iter()
            .find(|p| p.name == Phase::Regression.as_str())
        else {
            return;
        };
        let mut failing = self.failing.lock().unwrap_or_else(|p| p.into_inner());
        let mut seen: Vec<&str> = Vec::new();
        for case in &regression.cases {
            if !matches!(case.status, TestStatus::Failed | TestStatus::Errored)
                || seen.contains(&case.class.as_str())
            {
                continue;
            }
            seen.push(&case.class);
            match failing.iter_mut().find(|(class, _)| *class == case.class) {
                Some((_, count)) => *count += 1,
                None => failing.push((case.class.clone(), 1)),
            }
        }
    }
}

/// The fast oracle, with the Maven oracle it falls back on and is re-judged by.
pub struct FastOracle {
    maven: BuildToolOracle,
    config: ValidatorConfig,
    fast: FastConfig,
    /// Cross-checks switched off (`avrlab throughput` measures the raw engine this way).
    unchecked: std::sync::atomic::AtomicBool,
    /// Per task: the fingerprint of the task state it was warmed up with, and what the fast
    /// path needs, or why it cannot take the task. One task id can be warmed up with several
    /// states in one run (`transform` verifies a rename, then its rollback), and a JVM or a
    /// compiled build of one state must never serve another.
    builds: Mutex<HashMap<String, (String, TaskBuild)>>,
    /// Per task state (fingerprint): its compiler and pool of test JVMs.
    states: Mutex<HashMap<String, Arc<StateRuntime>>>,
    /// Per task state (fingerprint): which project classes each regression test class loads
    /// (test-impact selection), or why there is no such record.
    dependence: Mutex<HashMap<String, Result<Arc<ClassDependence>, String>>>,
    /// Per task: what its warm-up's fidelity probe found, or why it could not run.
    fidelities: Mutex<HashMap<String, Result<Fidelity, String>>>,
    /// Tasks in which the engines disagreed on a candidate: their later candidates go to Maven.
    disagreed: Mutex<HashSet<String>>,
    /// Per JDK (its home and the task's level, which decides the JDK substitution's options):
    /// the one compiler process its task states share.
    compilers: Mutex<HashMap<String, Arc<Mutex<Option<CompilerSession>>>>>,
    /// Per task: how many of its candidates the engine said are still to come (test JVMs are
    /// started ahead for no more than that).
    expected: Mutex<HashMap<String, usize>>,
    /// Numbers each candidate's source folder and each test JVM's class folder.
    counter: std::sync::atomic::AtomicU64,
}

impl std::fmt::Debug for FastOracle {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastOracle")
            .field("fast", &self.fast)
            .finish_non_exhaustive()
    }
}

impl FastOracle {
    pub fn new(config: ValidatorConfig, fast: FastConfig) -> Self {
        Self {
            maven: BuildToolOracle::new(config.clone()),
            config,
            fast,
            unchecked: std::sync::atomic::AtomicBool::new(false),
            builds: Mutex::new(HashMap::new()),
            states: Mutex::new(HashMap::new()),
            dependence: Mutex::new(HashMap::new()),
            fidelities: Mutex::new(HashMap::new()),
            disagreed: Mutex::new(HashSet::new()),
            compilers: Mutex::new(HashMap::new()),
            expected: Mutex::new(HashMap::new()),
            counter: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Switches the Maven cross-checks (every reason for one) off or back on. Off, every fast
    /// verdict is returned as it is: only for measuring the raw engine.
    pub fn set_cross_checks(&self, on: bool) {
        self.unchecked
            .store(!on, std::sync::atomic::Ordering::SeqCst);
    }

    /// What the fidelity probe found for `task` at its warm-up (none: no probe ran for it).
    pub fn fidelity(&self, task: &str) -> Option<Result<Fidelity, String>> {
        self.fidelities
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(task)
            .cloned()
    }

    /// Why the fast path does not take `task` (it falls back to Maven), if it does not.
    pub fn unsupported(&self, task: &str) -> Option<String> {
        match self
            .builds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(task)
        {
            Some((_, Ok(_))) => None,
            Some((_, Err(why))) => Some(why.clone()),
            None => Some("the task was not warmed up for the fast path".into()),
        }
    }

    fn maven_for(&self, task: &Task) -> Result<Maven, ValidateError> {
        Maven::for_build(self.config.maven.clone(), &self.maven.build_spec(task)).map_err(
            |source| ValidateError::Build {
                task: task.id.clone(),
                source,
            },
        )
    }

    /// Maven's verdict on a candidate the fast path hands over, settled by [`settle_fallback`].
    fn fallback(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
        why: Fallback,
    ) -> Result<Verdict, ValidateError> {
        let verdict = self.maven.validate(prepared, candidate, slot)?;
        Ok(settle_fallback(verdict, why))
    }

    fn sampled(&self, task: &Task, candidate: &Candidate) -> bool {
        if self.fast.confirm_sample <= 0.0 {
            return false;
        }
        let digest = Sha256::digest(format!("{}\0{candidate:?}", task.id).as_bytes());
        let draw = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
        (draw as f64 / u64::MAX as f64) < self.fast.confirm_sample
    }

    /// The task state's regression selection after its baseline (taken by the Maven warm-up).
    fn selection(&self, prepared: &PreparedTask) -> Result<FastSelection, ValidateError> {
        let task = &prepared.task;
        if let Some(baseline) = prepared.baseline() {
            return Ok(FastSelection::new(task, Some(baseline)));
        }
        let (baseline, _) = self.maven.baseline(task)?;
        Ok(FastSelection::new(task, baseline.as_ref()))
    }

    fn sources_root(&self) -> PathBuf {
        self.config.work_root.join("fast-sources")
    }

    fn classes_root(&self) -> PathBuf {
        self.config.work_root.join("fast-classes")
    }

    fn fast_error(task: &Task) -> impl FnOnce(avrlab_build::FastPathError) -> ValidateError + '_ {
        move |source| ValidateError::FastPath {
            task: task.id.clone(),
            source,
        }
    }

    /// A fresh, empty folder under the class folders' root, named `{what}-{number}`.
    fn new_class_folder(&self, what: &str) -> Result<ClassFolder, ValidateError> {
        let number = self
            .counter
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let folder = self.classes_root().join(format!("{what}-{number}"));
        std::fs::create_dir_all(&folder).map_err(|source| ValidateError::Workspace {
            path: folder.clone(),
            source,
        })?;
        Ok(ClassFolder(folder))
    }

    /// Starts one test JVM for a candidate of `task`, with a fresh, empty class folder.
    fn start_jvm(&self, task: &Task, runtime: &StateRuntime) -> Result<PooledJvm, ValidateError> {
        let classes = self.new_class_folder("jvm")?;
        for sub in CANDIDATE_FOLDERS {
            let path = classes.0.join(sub);
            std::fs::create_dir_all(&path)
                .map_err(|source| ValidateError::Workspace { path, source })?;
        }
        let jvm = self
            .maven_for(task)?
            .start_test_jvm(
                &runtime.build,
                TestJvmRole::Candidate {
                    folder: &classes.0,
                    archive: runtime.archive.as_deref(),
                    learned: &runtime.learned,
                },
                self.fast.test_timeout,
            )
            .map_err(Self::fast_error(task))?;
        Ok(PooledJvm { jvm, classes })
    }

    /// Adds the build's main and test classes to the candidate's in `pooled`'s class folders,
    /// which its test JVM sees as `target/classes` and `target/test-classes` (see
    /// [`merge_main_classes`]); with `removes_files`, the main classes the candidate's full
    /// recompilation no longer has are left out.
    fn merge_into(
        &self,
        build: &FastBuild,
        pooled: &PooledJvm,
        compiled: &avrlab_build::CompileReply,
        removes_files: bool,
    ) -> Result<MergedClasses, ValidateError> {
        let recompiled = removes_files.then_some(compiled.classes.classes.as_slice());
        let mut merged = MergedClasses::default();
        for (sub, recompiled) in CANDIDATE_FOLDERS.into_iter().zip([recompiled, None]) {
            let to = pooled.classes.0.join(sub);
            let done = merge_main_classes(&build.project.join("target").join(sub), &to, recompiled)
                .map_err(|source| ValidateError::Workspace { path: to, source })?;
            merged.stale.extend(done.stale);
            merged.added += done.added;
            merged.wall += done.wall;
        }
        Ok(merged)
    }

    /// Fills the state's pool up to its size, each JVM starting while the host goes on, and
    /// ends the idle JVMs of other task states when too many are idle in all (memory).
    fn top_up(
        &self,
        state: &str,
        task: &Task,
        runtime: &StateRuntime,
    ) -> Result<(), ValidateError> {
        let per_task = self.fast.primed_per_task.max(1);
        let want = match self
            .expected
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&runtime.task)
        {
            Some(&left) => per_task.min(left),
            None => per_task,
        };
        loop {
            let have = runtime.pool.lock().unwrap_or_else(|p| p.into_inner()).len();
            if have >= want {
                break;
            }
            let started = self.start_jvm(task, runtime)?;
            runtime
                .pool
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(started);
        }
        // Idle JVMs are bounded in all (each holds some 50 MiB): past the bound, other states'
        // idle JVMs are ended.
        let bound = MAX_IDLE_JVMS.max(2 * per_task);
        let others: Vec<Arc<StateRuntime>> = self
            .states
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|(key, _)| key.as_str() != state)
            .map(|(_, runtime)| runtime.clone())
            .collect();
        let mut idle: usize = others
            .iter()
            .map(|r| r.pool.lock().unwrap_or_else(|p| p.into_inner()).len())
            .sum();
        for other in others {
            if idle <= bound {
                break;
            }
            let mut pool = other.pool.lock().unwrap_or_else(|p| p.into_inner());
            idle -= pool.len();
            pool.clear();
        }
        Ok(())
    }

    /// A started test JVM of the state (a fresh one when none is ready); the pool is refilled
    /// at once, so the next candidate's JVM starts while this one runs.
    fn take_jvm(
        &self,
        state: &str,
        task: &Task,
        runtime: &StateRuntime,
    ) -> Result<PooledJvm, ValidateError> {
        let ready = loop {
            let next = runtime.pool.lock().unwrap_or_else(|p| p.into_inner()).pop();
            match next {
                Some(mut pooled) => {
                    if pooled.jvm.alive() {
                        break Some(pooled);
                    }
                }
                None => break None,
            }
        };
        let taken = match ready {
            Some(pooled) => pooled,
            None => self.start_jvm(task, runtime)?,
        };
        if let Some(left) = self
            .expected
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get_mut(&runtime.task)
        {
            *left = left.saturating_sub(1);
        }
        self.top_up(state, task, runtime)?;
        Ok(taken)
    }

    /// Hands back a JVM that ran no code of the candidate (it did not compile, or went to
    /// Maven): its class folder is emptied first.
    fn give_back(&self, runtime: &StateRuntime, pooled: PooledJvm) {
        // Emptied in place: the JVM's sandbox holds this very folder (a bind mount), and a
        // folder made anew at the same path would never be seen by it.
        let emptied = CANDIDATE_FOLDERS.iter().try_for_each(|sub| {
            std::fs::read_dir(pooled.classes.0.join(sub)).and_then(|entries| {
                entries.flatten().try_for_each(|entry| {
                    if entry.file_type()?.is_dir() {
                        std::fs::remove_dir_all(entry.path())
                    } else {
                        std::fs::remove_file(entry.path())
                    }
                })
            })
        });
        if emptied.is_ok() {
            runtime
                .pool
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(pooled);
        }
    }

    /// The compiler shared by the task states of `task`'s JDK.
    fn compiler_for(
        &self,
        task: &Task,
    ) -> Result<Arc<Mutex<Option<CompilerSession>>>, ValidateError> {
        let maven = self.maven_for(task)?;
        let key = format!("{}|{}", maven.jdk().home.display(), task.build.jdk);
        Ok(self
            .compilers
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .entry(key)
            .or_default()
            .clone())
    }

    /// Compiles a candidate's files of `build` into `outdir` with its JDK's `compiler` (started
    /// on first use, and again after one was lost).
    fn compile(
        &self,
        task: &Task,
        (compiler, build): (&Mutex<Option<CompilerSession>>, &FastBuild),
        request: &CompileRequest<'_>,
        outdir: &Path,
    ) -> Result<avrlab_build::CompileReply, ValidateError> {
        let mut compiler = compiler.lock().unwrap_or_else(|p| p.into_inner());
        if compiler.is_none() {
            let started = self
                .maven_for(task)?
                .start_compiler(
                    &build.helper,
                    &self.fast.helper_cache,
                    &self.sources_root(),
                    &self.classes_root(),
                )
                .map_err(Self::fast_error(task))?;
            *compiler = Some(started);
        }
        let reply = compiler.as_mut().expect("started above").compile(
            build,
            request,
            outdir,
            COMPILE_LIMIT,
        );
        if reply.lost.is_some() {
            *compiler = None;
        }
        Ok(reply)
    }

    /// Whether Maven re-judges a fast verdict (a flag, an earlier disagreement in the task, the
    /// confirmation policy, the sample), and then Maven's verdict with the fast path's view.
    fn cross_check(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
        fast: Verdict,
        impact: Option<&str>,
        started: Instant,
    ) -> Result<Verdict, ValidateError> {
        let task = &prepared.task;
        let checks = !self.unchecked.load(std::sync::atomic::Ordering::SeqCst);
        let disagreed = self
            .disagreed
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .contains(&task.id);
        let pov_passed = matches!(fast.outcome, Outcome::Plausible | Outcome::RegressionBroken);
        // A flag sends the candidate to Maven whatever the fast path found: code that reached
        // for the channel's key or the guard may have spoiled a failure as well as forged a
        // pass, and the guard may have refused something (installing a security manager) that
        // Surefire's fork allows, failing an honest fix on the fast path only.
        let kind = if !checks {
            None
        } else if !fast.engine.flags.is_empty() {
            Some(CheckKind::Flag)
        } else if disagreed {
            Some(CheckKind::Disagreement)
        } else if self.fast.confirm == ConfirmPolicy::All && pov_passed {
            Some(CheckKind::Confirmation)
        } else if self.sampled(task, candidate) {
            Some(CheckKind::Sample)
        } else {
            None
        };
        let Some(kind) = kind else {
            return Ok(fast);
        };
        // Maven's verdict is the one that counts; the fast path's view is kept next to it.
        let mut maven = self
            .maven
            .validate(prepared, candidate, &format!("{slot}-maven"))?;
        maven.engine.engine = Some(Engine::Maven);
        maven.engine.flags = fast.engine.flags.clone();
        maven.engine.cross_check = Some(CrossCheck {
            kind,
            fast: fast.outcome,
            // The regression selection the fast verdict rested on stays with it.
            fast_reason: match impact {
                Some(impact) => format!("{} ({impact})", fast.reason),
                None => fast.reason,
            },
            maven: maven.outcome,
        });
        if maven.outcome != fast.outcome {
            // The engines disagree: every later candidate of this task is re-judged too.
            self.disagreed
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(task.id.clone());
        }
        maven.wall = started.elapsed();
        Ok(settle_cross_check(maven))
    }
}

/// Why the fast path handed a candidate to Maven, and whether the candidate could have chosen it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fallback {
    /// The fast path does not take the task (it was not warmed up for it, or cannot run its
    /// tests): every candidate of the task goes to Maven, whatever it contains.
    Task(String),
    /// Something in this candidate: it changes a file that is not Java under `src/main/java`,
    /// changes an API (or removes a file) so that the project's sources then do not compile in
    /// memory, or defines a class in a framework package. A candidate can do any of these on
    /// purpose.
    Candidate(String),
}

impl Fallback {
    fn reason(&self) -> &str {
        match self {
            Self::Task(why) | Self::Candidate(why) => why,
        }
    }
}

/// The verdict of a candidate the fast path handed to Maven, from Maven's verdict on it.
///
/// A Maven `Plausible` rests on Surefire's event stream and report files, which the forked test
/// JVM, running the candidate's code, can write itself. Where the fast path takes the task, the
/// helper's authenticated channel and a Maven run together back every `Plausible`; a candidate
/// that steers itself off the fast path would otherwise get a `Plausible` that only the forgeable
/// channel backs. So such a `Plausible` is `Indeterminate`, Maven's evidence kept (its tests and
/// phases stay in the verdict). A task the fast path does not take at all keeps Maven's verdict,
/// as under `--engine maven` (docs/known-limits.md says what remains possible there). Other outcomes
/// are kept: no other outcome is a pass, and a forged failure is the tested code's own loss.
fn settle_fallback(mut verdict: Verdict, why: Fallback) -> Verdict {
    if verdict.outcome == Outcome::Plausible
        && let Fallback::Candidate(reason) = &why
    {
        verdict.outcome = Outcome::Indeterminate;
        verdict.reason = format!(
            "Plausible by Surefire's channel alone, which the tested code can forge; the fast \
             path could not confirm it: {reason}"
        );
    }
    verdict.engine.fallback = Some(why.reason().to_owned());
    verdict
}

/// Maven's verdict on a candidate both engines judged (its `cross_check` filled in), as stored.
///
/// Maven's verdict counts, with one exception: a `Plausible` where the fast path, on its
/// authenticated channel, did not see the PoV tests pass (a sampled `PovFailing`, `Uncompilable`,
/// `Timeout` …). Such a `Plausible` rests on Surefire's channel alone, which the tested code can
/// write, and a candidate can be varied until its hash falls in the re-check sample; so it is
/// `Indeterminate`, both views kept. A fast `RegressionBroken` that Maven finds `Plausible` keeps
/// Maven's verdict: the PoV tests passed on both channels, and only the regression suite, in the
/// environment the fast path imitates, disagreed.
fn settle_cross_check(mut verdict: Verdict) -> Verdict {
    let Some(check) = &verdict.engine.cross_check else {
        return verdict;
    };
    if verdict.outcome == Outcome::Plausible
        && !matches!(check.fast, Outcome::Plausible | Outcome::RegressionBroken)
    {
        verdict.outcome = Outcome::Indeterminate;
        verdict.reason = format!(
            "Plausible by Surefire's channel alone, which the tested code can forge; the fast \
             path found {}: {}",
            check.fast, check.fast_reason
        );
    }
    verdict
}

/// The regression tests of a task as its baseline leaves them, as the Maven oracle selects them:
/// the classes of tests that fail on the reference fix never count.
#[derive(Debug, Clone)]
struct FastSelection {
    regression: RegressionTests,
    /// What the baseline leaves out: methods (every invocation of a parameterized one, as on
    /// Maven) and whole classes only where the class itself failed. The runner's `excluded`
    /// list reads both `Class#method` and `Class`; the name is older than per-test exclusion.
    dropped_classes: Vec<TestName>,
    /// The baseline: in words for the regression log, and which tests it saw skipped
    /// (`SkippedTests::regression`).
    baseline: crate::baseline::Baseline,
}

impl FastSelection {
    fn new(task: &Task, baseline: Option<&crate::baseline::Baseline>) -> Self {
        let base = baseline.cloned().unwrap_or_default();
        let regression = match &task.oracle.regression_tests {
            RegressionTests::AllOthers => RegressionTests::AllOthers,
            RegressionTests::Listed(list) => {
                RegressionTests::Listed(list.iter().filter(|t| base.keeps(t)).cloned().collect())
            }
        };
        Self {
            regression,
            dropped_classes: base.tests(),
            baseline: base,
        }
    }
}

/// Every file a candidate names (relative to the project root): the files it changes or creates,
/// and those it deletes or moves away (a moved file is named at both its paths). Which of them
/// exist afterwards is read from the applied workspace.
fn named_files(task: &Task, candidate: &Candidate) -> Vec<String> {
    let mut files: Vec<String> = Vec::new();
    let mut name = |path: &str| {
        if !files.iter().any(|f| f == path) {
            files.push(path.to_owned());
        }
    };
    match candidate {
        // A malformed patch names nothing: the check below records it as ApplyFailed.
        Candidate::Unchanged | Candidate::Malformed { .. } => {}
        Candidate::Diff(patch) => {
            for file in &patch.files {
                // A created file's old side is /dev/null, which names no file of the project.
                if !file.created {
                    name(&file.old_path);
                }
                if !file.deleted {
                    name(&file.new_path);
                }
            }
        }
        Candidate::Replacement { target, .. } => {
            let index = match *target {
                crate::candidate::ReplacementTarget::Method(m) => m,
                crate::candidate::ReplacementTarget::Hunk { method, .. } => method,
            };
            if let Some(loc) = task.localization.get(index) {
                name(&loc.file);
            }
        }
    }
    files
}

/// The main classes a candidate's test JVM sees as `target/classes`: its own and the build's.
#[derive(Debug, Default)]
struct MergedClasses {
    /// Classes of the build left out (those of the files the candidate removed).
    stale: Vec<String>,
    /// Files of the build added (linked, or copied where a link cannot be made).
    added: usize,
    /// How long it took.
    wall: Duration,
}

/// Adds the kept build's main classes (`from`) to `to`, which holds the candidate's class files,
/// so that every main class comes from one folder, as from `target/classes` on Surefire's fork: a
/// file the candidate's compilation wrote stays, the others are hard links to the build's (copies
/// where the file system will not link; the test JVM sees the folder read-only, and nothing is
/// compiled into it afterwards, so the kept build cannot be written through a link). With
/// `recompiled` (every class the candidate's full recompilation has, when it removes files), a
/// class file whose class it no longer has (a removed file's) is left out. Resources and
/// everything else are added.
fn merge_main_classes(
    from: &Path,
    to: &Path,
    recompiled: Option<&[String]>,
) -> std::io::Result<MergedClasses> {
    let started = Instant::now();
    let recompiled: Option<HashSet<&str>> =
        recompiled.map(|classes| classes.iter().map(String::as_str).collect());
    let mut merged = MergedClasses::default();
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        let relative = entry.path().strip_prefix(from).unwrap_or(entry.path());
        let target = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
            continue;
        }
        if !entry.file_type().is_file() || target.exists() {
            continue;
        }
        let text = relative.to_string_lossy();
        if let (Some(class), Some(recompiled)) = (text.strip_suffix(".class"), &recompiled) {
            let class = class.replace('/', ".");
            if !recompiled.contains(class.as_str()) {
                merged.stale.push(class);
                continue;
            }
        }
        if std::fs::hard_link(entry.path(), &target).is_err() {
            std::fs::copy(entry.path(), &target)?;
        }
        merged.added += 1;
    }
    merged.stale.sort();
    merged.wall = started.elapsed();
    Ok(merged)
}

/// A hash of every file of a task state (paths and contents), the JDK that compiles it and where
/// its JVMs see the dependency repository: a kept build records classpath entries as the sandbox
/// showed them (`/avrlab/maven-repository/…` under bubblewrap, host paths without a sandbox), so a
/// build made one way cannot serve the other.
fn state_fingerprint(root: &Path, maven: &Maven, test_diff: &[u8]) -> std::io::Result<String> {
    // The layout of a kept build; a new one never reads an old one.
    let mut salt = b"avrlab fast build 5".to_vec();
    salt.extend_from_slice(&maven.jdk().major.to_le_bytes());
    salt.extend_from_slice(maven.repository_view().as_os_str().as_encoded_bytes());
    salt.push(0);
    // A feature task's build has its test diff applied (none for a repair task's).
    if !test_diff.is_empty() {
        salt.extend_from_slice(b"test diff\0");
        salt.extend_from_slice(test_diff);
        salt.push(0);
    }
    crate::fingerprint::tree_fingerprint(root, &salt)
}

/// The first file a feature task's test diff changes outside its module's `src/test/`, if any:
/// the fast path's kept build puts the security tests back, and compiles a prediction's main
/// files against it, which holds only while the test diff leaves the main sources alone.
fn test_diff_outside_tests(task: &Task, diff: &avrlab_bench::Patch) -> Option<String> {
    let module: PathBuf = Path::new(&task.build.module)
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    let tests = module.join("src/test");
    diff.files
        .iter()
        .flat_map(|f| {
            [
                (!f.created).then_some(&f.old_path),
                (!f.deleted).then_some(&f.new_path),
            ]
        })
        .flatten()
        .find(|path| !Path::new(path.as_str()).starts_with(&tests))
        .cloned()
}

/// What a class-dependence record must have been taken on to serve: the task state and the
/// helper that recorded it (its build folder is named by a hash of its sources, JDK and class
/// path), since what a helper records, and what passes there, changes with it.
fn record_key(state: &str, build: &FastBuild) -> String {
    let helper = build
        .helper
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    format!("{state} helper {helper}")
}

fn phase_run(phase: &FastPhase) -> TestRun {
    let exit = match (&phase.end, phase.test_timed_out) {
        (PhaseEnd::OutputLimit(_), _) => ExitKind::OutputLimit,
        (PhaseEnd::TimedOut(_), _) | (_, true) => ExitKind::TimedOut,
        _ => ExitKind::Code(0),
    };
    TestRun {
        exit,
        cases: phase.cases.clone(),
        log: String::new(),
        wall: phase.wall,
        enforcement: String::new(),
        tree_gone: true,
        // Results come over the authenticated channel, never from files the tests could write;
        // a class that printed more than Maven's engine reads of its report makes the results
        // as unusable as there.
        unusable_reports: phase.oversized_report.clone(),
        cpu_limit_reached: false,
    }
}

/// Turns the resident validator's reply into a verdict, with the same rules as Maven's runs.
fn judge_reply(
    task: &Task,
    selection: &FastSelection,
    notes: &[String],
    impact: Option<&str>,
    reply: &FastReply,
    enforcement: &str,
    started: Instant,
) -> Verdict {
    let mut verdict = Verdict::undecided(Engine::Fast);
    let finish = |mut verdict: Verdict, outcome, reason: String| {
        verdict.outcome = outcome;
        verdict.reason = reason;
        verdict.wall = started.elapsed();
        verdict
    };
    if let Some(lost) = &reply.lost {
        let (outcome, reason) = match lost {
            Lost::TimedOut => (
                Outcome::Timeout,
                "the resident validator did not answer in time (JVM killed)".to_owned(),
            ),
            Lost::Closed(stderr) => {
                // Killed from outside (not by its cgroup's memory limit): infrastructure.
                if avrlab_exec::ProcessEnd::of_last_line(stderr)
                    .is_some_and(|end| end.killed_from_outside())
                {
                    verdict.errored = Some(crate::outcome::ErrorCause::Killed);
                }
                (
                    Outcome::Indeterminate,
                    format!(
                        "the resident validator JVM ended during the candidate: {}",
                        stderr.lines().last().unwrap_or("no output")
                    ),
                )
            }
        };
        return finish(verdict, outcome, reason);
    }
    let Some((compile_wall, diagnostics)) = &reply.compile else {
        return finish(
            verdict,
            Outcome::Indeterminate,
            "the resident validator did not report the compilation".into(),
        );
    };
    verdict.phases.push(PhaseRecord {
        phase: Phase::Compile,
        wall: *compile_wall,
        exit: if diagnostics.is_empty() {
            match &reply.compile_note {
                Some(note) => format!("compiled in memory ({note})"),
                None => "compiled in memory".into(),
            }
        } else {
            format!("{} compiler errors", diagnostics.len())
        },
        log_excerpt: String::new(),
        enforcement: enforcement.to_owned(),
    });
    if let Some(first) = diagnostics.first() {
        verdict.diagnostics = diagnostics.clone();
        return finish(verdict, Outcome::Uncompilable, first.clone());
    }
    if reply.exit_attempted {
        // Maven's forked test JVM would have ended without its reports: no verdict either way.
        return finish(
            verdict,
            Outcome::Indeterminate,
            "code under test called System.exit or Runtime.halt (blocked; the JVM was replaced)"
                .into(),
        );
    }
    let pov = &task.oracle.pov_tests;
    // As on Maven, the regression phase runs the PoV tests again with the rest (in the same JVM,
    // after the PoV phase: a fix that holds only the first time it is used fails there); only
    // what the baseline leaves out does not count.
    let not_selected = &selection.dropped_classes;
    let (wanted, excluded): (&[TestName], &[TestName]) = match &selection.regression {
        RegressionTests::AllOthers => (&[], not_selected),
        RegressionTests::Listed(list) => (list, not_selected),
    };
    // As on Maven: a test skipped here but not on the reference fix aborted, and fails its phase
    // (the baseline decides which regression tests count, and which may be skipped).
    let steps = [
        (
            Phase::Pov,
            pov.as_slice(),
            &[][..],
            Outcome::PovFailing,
            SkippedTests::pov(task),
        ),
        (
            Phase::Regression,
            wanted,
            excluded,
            Outcome::RegressionBroken,
            SkippedTests::regression(&selection.baseline),
        ),
    ];
    for (phase, wanted, excluded, failure, skipped) in steps {
        // The resident validator names its phases with the stored words.
        let name = phase.as_str();
        let Some(ran) = reply.phases.iter().find(|p| p.name == name) else {
            return finish(
                verdict,
                Outcome::Indeterminate,
                format!("the resident validator did not run the {name} phase"),
            );
        };
        let run = phase_run(ran);
        record(&mut verdict, phase, &run);
        // A phase that stopped at a failing class did not run the rest of the selection; the
        // failure decides, and the tests it did not reach are not missing.
        let reached: Vec<TestName>;
        let wanted = if ran.classes_not_run > 0 {
            reached = wanted
                .iter()
                .filter(|t| ran.cases.iter().any(|c| c.class == t.class))
                .cloned()
                .collect();
            &reached[..]
        } else {
            wanted
        };
        if let Some(last) = verdict.phases.last_mut() {
            let mut header = String::new();
            for note in notes {
                header.push_str(&format!("[avrlab] {note}\n"));
            }
            if phase == Phase::Regression {
                header.push_str(&format!("[avrlab] {}\n", selection.baseline.describe()));
                if let Some(impact) = impact {
                    header.push_str(&format!("[avrlab] {impact}\n"));
                }
            }
            last.log_excerpt = format!("{header}{}", excerpt(&reply.log));
            if reply.forged_frames > 0 {
                last.log_excerpt.push_str(&format!(
                    "\n[avrlab: {} unauthenticated result frames on the channel were ignored]",
                    reply.forged_frames
                ));
            }
            last.enforcement = enforcement.to_owned();
            if ran.classes_not_run > 0 {
                last.exit = format!(
                    "{}; stopped at the first failing class, {} more not run (--keep-going runs them)",
                    last.exit, ran.classes_not_run
                );
            }
            if let PhaseEnd::Crashed(why) = &ran.end {
                last.exit = format!("launcher failed: {why}");
            }
        }
        if let PhaseEnd::Crashed(why) = &ran.end {
            return finish(
                verdict,
                Outcome::Indeterminate,
                format!("the test launcher failed in the {name} phase: {why}"),
            );
        }
        if let PhaseJudgement::Decided(outcome, reason) =
            judge_run(&run, wanted, excluded, failure, skipped)
        {
            return finish(verdict, outcome, reason);
        }
    }
    let count = verdict.tests.len();
    finish(
        verdict,
        Outcome::Plausible,
        format!("all {count} oracle tests passed"),
    )
}

/// Turns the resident validator's reply to a feature prediction (one run of the whole suite)
/// into a verdict, with the rules of the build tool's feature runs: the functional tests against
/// the task's expected failures, the security tests each run and passing.
fn judge_feature_reply(
    (task, feature): (&Task, &avrlab_bench::FeatureSpec),
    selection: &FastSelection,
    notes: &[String],
    reply: &FastReply,
    enforcement: &str,
    started: Instant,
) -> Verdict {
    let Some((compile_wall, diagnostics)) = &reply.compile else {
        return judge_reply(task, selection, notes, None, reply, enforcement, started);
    };
    if reply.lost.is_some() || reply.exit_attempted {
        // No test outcome to judge: the same verdict as a repair candidate's.
        return judge_reply(task, selection, notes, None, reply, enforcement, started);
    }
    let mut run = crate::feature::FeatureRun::new("score");
    run.phases.push(PhaseRecord {
        phase: Phase::Compile,
        wall: *compile_wall,
        exit: if diagnostics.is_empty() {
            "compiled in memory".into()
        } else {
            format!("{} compiler errors", diagnostics.len())
        },
        log_excerpt: String::new(),
        enforcement: enforcement.to_owned(),
    });
    if let Some(first) = diagnostics.first() {
        run.compiled = Some(Err(first.clone()));
    } else {
        run.compiled = Some(Ok(()));
        let security = &task.oracle.pov_tests;
        let expected = crate::feature::expected_functional_failures(feature);
        match reply
            .phases
            .iter()
            .find(|p| p.name == Phase::Regression.as_str())
        {
            Some(ran) => {
                let tests = phase_run(ran);
                let mut header = String::new();
                for note in notes {
                    header.push_str(&format!("[avrlab] {note}\n"));
                }
                run.phases.push(PhaseRecord {
                    phase: Phase::Regression,
                    wall: ran.wall,
                    exit: match &ran.end {
                        PhaseEnd::Crashed(why) => format!("launcher failed: {why}"),
                        _ => crate::outcome::exit_text(tests.exit),
                    },
                    log_excerpt: format!("{header}{}", excerpt(&reply.log)),
                    enforcement: enforcement.to_owned(),
                });
                run.cases = tests.cases.clone();
                if let PhaseEnd::Crashed(why) = &ran.end {
                    let why = format!("the test launcher failed: {why}");
                    run.functional = Some(crate::outcome::Judged::Undecided(why.clone()));
                    run.security = Some(crate::outcome::Judged::Undecided(why));
                } else {
                    run.functional = Some(crate::feature::judge_functional(
                        &tests, security, &expected,
                    ));
                    run.security = Some(crate::feature::judge_security(&tests, security, true));
                }
            }
            None => {
                let why = "the resident validator did not run the suite".to_owned();
                run.functional = Some(crate::outcome::Judged::Undecided(why.clone()));
                run.security = Some(crate::outcome::Judged::Undecided(why));
            }
        }
    }
    run.wall = started.elapsed();
    let mut verdict = crate::feature::feature_verdict(task, &run, Engine::Fast);
    verdict.diagnostics = diagnostics.clone();
    verdict
}

/// The verdict of a candidate that does not apply to the task state.
fn apply_failed(
    task: &Task,
    selection: &FastSelection,
    problem: &CandidateError,
    started: Instant,
) -> Verdict {
    let mut verdict = judge_reply(
        task,
        selection,
        &[],
        None,
        &FastReply::default(),
        "",
        started,
    );
    verdict.outcome = Outcome::ApplyFailed;
    verdict.reason = problem.to_string();
    verdict
}

impl Oracle for FastOracle {
    fn name(&self) -> &str {
        "fast"
    }

    fn expect_candidates(&self, task: &str, count: usize) {
        self.expected
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(task.to_owned(), count);
    }

    fn record_reference_failures(
        &self,
        prepared: &PreparedTask,
        failures: &[crate::ReferenceFailure],
    ) -> Result<bool, ValidateError> {
        // The baselines are the build tool's, shared by both engines.
        self.maven.record_reference_failures(prepared, failures)
    }

    fn materialize(&self, task: &Task) -> Result<PreparedTask, ValidateError> {
        self.maven.materialize(task)
    }

    /// Warms Maven up (it confirms and falls back), then compiles a kept copy of the pristine
    /// state and resolves its test classpath for the resident validator.
    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        self.maven.warm_up(prepared)?;
        let task = &prepared.task;
        // A feature task's kept build has its security tests put back (its test diff applied),
        // as every scored prediction's run has them.
        let (feature_tests, handed_over) = match (task.kind, &task.feature) {
            (avrlab_bench::TaskKind::Repair, _) => (None, None),
            (avrlab_bench::TaskKind::Feature, Some(feature)) => {
                match test_diff_outside_tests(task, &feature.test_patch.patch) {
                    None => (Some(&feature.test_patch), None),
                    Some(file) => (
                        None,
                        Some(format!(
                            "a feature task whose test diff changes {file}, which is not under \
                             the module's src/test: the build tool scores every prediction"
                        )),
                    ),
                }
            }
            (avrlab_bench::TaskKind::Feature, None) => (
                None,
                Some("a feature task without its [feature] table".to_owned()),
            ),
        };
        if let Some(why) = handed_over {
            self.builds
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(task.id.clone(), (String::new(), Err(why)));
            return Ok(());
        }
        if task.build.system != avrlab_bench::BuildSystem::Maven {
            // The fast path compiles and runs what Maven resolved (its classpath, its layout);
            // the task's own build tool judges every candidate, as under `--engine maven`.
            let why = format!(
                "a {} build: the fast path takes Maven builds only, so the {} driver judges every candidate",
                task.build.system.as_str(),
                task.build.system.as_str()
            );
            self.builds
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(task.id.clone(), (String::new(), Err(why)));
            return Ok(());
        }
        let maven = self.maven_for(task)?;
        let fast_err = |source| ValidateError::FastPath {
            task: task.id.clone(),
            source,
        };
        // The compiled pristine state is kept across runs, keyed by its content and JDK, like
        // Maven's warm repository: a task is compiled for the fast path once.
        let tests_text = feature_tests.map_or(&[][..], |t| t.text.as_bytes());
        let fingerprint =
            state_fingerprint(prepared.pristine(), &maven, tests_text).map_err(|source| {
                ValidateError::Workspace {
                    path: prepared.pristine().to_owned(),
                    source,
                }
            })?;
        let earlier = self
            .builds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&task.id)
            .map(|(state, _)| state.clone());
        if earlier.as_deref() == Some(fingerprint.as_str()) {
            // Warmed up earlier by this oracle, with this very task state.
            return Ok(());
        }
        if let Some(earlier) = earlier {
            // The task's state changed: the JVMs and the compiler of the old one are ended.
            self.states
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&earlier);
        }
        let kept = self.fast.helper_cache.join("states").join(&fingerprint);
        let loaded = FastBuild::load(&kept, &maven, &self.fast.helper_cache).map_err(fast_err)?;
        let built = match loaded {
            Some(build) => Ok(build),
            None => {
                let staging = self.config.work_root.join("fast").join(&task.id);
                let io = |source| ValidateError::Workspace {
                    path: staging.clone(),
                    source,
                };
                if staging.exists() {
                    std::fs::remove_dir_all(&staging).map_err(io)?;
                }
                copy_project(prepared.pristine(), &staging).map_err(|source| {
                    ValidateError::Checkout {
                        task: task.id.clone(),
                        source,
                    }
                })?;
                if let Some(tests) = feature_tests
                    && let Err(problem) = tests.patch.apply_to_dir(&staging)
                {
                    // The build tool's runs apply it too, and say so in each verdict.
                    let why = format!("the feature task's test diff does not apply: {problem}");
                    self.builds
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(task.id.clone(), (String::new(), Err(why)));
                    return Ok(());
                }
                // It downloads into the shared cache (the dependency plug-in, the launcher, the
                // vintage engine): no candidate may run meanwhile, and the cache is re-sealed after.
                let built = self
                    .maven
                    .while_cache_writable(|| maven.fast_warm_up(&staging, &self.fast.helper_cache))?
                    .map_err(fast_err)?;
                match built {
                    Ok(build) => Ok(build.keep(&staging, &kept).map_err(fast_err)?),
                    Err(unsupported) => Err(unsupported),
                }
            }
        };
        let mut build = built.map_err(|u| u.0);
        // Test JVMs start from a class-data archive of the JDK, JUnit and the dependencies,
        // dumped once per task state by the recording JVM; it needs the dependencies ahead of
        // the project on the class path, which is allowed only where no project class is also
        // a dependency's.
        let archive_dir = self.fast.helper_cache.join("archives").join(&fingerprint);
        let archive_file = archive_dir.join(ARCHIVE_FILE);
        let mut use_archive = false;
        if let Ok(build) = &mut build {
            let host_classpath: Vec<PathBuf> =
                build.classpath.iter().map(|p| maven.host_path(p)).collect();
            let target = build.project.join("target");
            let folders = [target.join("classes"), target.join("test-classes")];
            let folders: Vec<&Path> = folders.iter().map(PathBuf::as_path).collect();
            match avrlab_bench::shared_class_file(&folders, &host_classpath) {
                Ok(None) => use_archive = true,
                Ok(Some(shared)) => build.notes.push(format!(
                    "test JVMs start without a class-data archive: the project and a dependency \
                     both have {shared}, so the project must come first on the class path"
                )),
                Err(e) => build.notes.push(format!(
                    "test JVMs start without a class-data archive: the class path could not be \
                     read ({e})"
                )),
            }
        }
        if let Ok(build) = &build {
            let compiler = self.compiler_for(task)?;
            let cold = compiler.lock().unwrap_or_else(|p| p.into_inner()).is_none();
            // The JDK's compiler starts with its first task state and compiles that state's
            // unchanged localized file once, so that javac is warm before the first candidate
            // (what it writes is thrown away).
            let root = self.sources_root();
            let scratch = self.classes_root().join(format!("prime-{}", task.id));
            for folder in [&root, &scratch] {
                std::fs::create_dir_all(folder).map_err(|source| ValidateError::Workspace {
                    path: folder.to_path_buf(),
                    source,
                })?;
            }
            if let Some(loc) = task.localization.first().filter(|_| cold) {
                let copy = root.join("prime").join(&task.id).join(&loc.file);
                let from = prepared.pristine().join(&loc.file);
                let written = copy
                    .parent()
                    .map(std::fs::create_dir_all)
                    .transpose()
                    .and_then(|_| std::fs::read(&from))
                    .and_then(|bytes| std::fs::write(&copy, bytes));
                if written.is_ok() {
                    let request = CompileRequest {
                        sources: &[copy],
                        removed: &[],
                        left_out: &[],
                    };
                    self.compile(task, (&compiler, build), &request, &scratch)?;
                }
            }
            let _ = std::fs::remove_dir_all(&scratch);
            // Test-impact selection needs, once per task state, which project classes each
            // regression test class loads; the record is kept with the kept build. It is taken
            // in a JVM of its own, which then ends like every other.
            let selection = self.selection(prepared)?;
            let record_path = kept.join(RECORD_FILE);
            let dump = use_archive && !archive_file.is_file();
            let dependence = match ClassDependence::load(&record_path) {
                Some(record) if record.state == record_key(&fingerprint, build) && !dump => {
                    Ok(Arc::new(record))
                }
                _ => {
                    if dump {
                        let _ = std::fs::remove_dir_all(&archive_dir);
                        std::fs::create_dir_all(&archive_dir).map_err(|source| {
                            ValidateError::Workspace {
                                path: archive_dir.clone(),
                                source,
                            }
                        })?;
                    }
                    let role = TestJvmRole::Record {
                        dump: dump.then_some(archive_dir.as_path()),
                    };
                    let recorder = maven
                        .start_test_jvm(build, role, self.fast.test_timeout)
                        .map_err(fast_err)?;
                    match recorder.record_class_loads(
                        &task.oracle.pov_tests,
                        &selection.dropped_classes,
                        RECORDING_LIMIT,
                    ) {
                        Recorded::Complete(test_classes) => {
                            let record = ClassDependence {
                                state: record_key(&fingerprint, build),
                                test_classes,
                            };
                            record.save(&record_path).map_err(|source| {
                                ValidateError::Workspace {
                                    path: record_path.clone(),
                                    source,
                                }
                            })?;
                            Ok(Arc::new(record))
                        }
                        Recorded::Incomplete(why) => {
                            Err(format!("recording it at warm-up stopped: {why}"))
                        }
                    }
                }
            };
            self.dependence
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(fingerprint.clone(), dependence);
            // The fidelity probe: what a test sees of Surefire's fork and of this path's test
            // JVM; a difference no entry of the table explains hands the task to Maven.
            let archive = (use_archive && archive_file.is_file()).then(|| archive_file.clone());
            let fidelity = self.probe_fidelity(task, &maven, &kept, build, archive.as_deref())?;
            let (unfaithful, learned) = match &fidelity {
                Ok(found) => (found.unexplained(), found.learned.clone()),
                Err(why) => (
                    Some(format!("the fidelity probe could not run: {why}")),
                    Vec::new(),
                ),
            };
            self.fidelities
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(task.id.clone(), fidelity);
            if let Some(why) = unfaithful {
                self.builds
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .insert(task.id.clone(), (fingerprint, Err(why)));
                return Ok(());
            }
            let sources = StateSources::scan(prepared.pristine(), Path::new(&task.build.module))
                .map_err(|source| ValidateError::Workspace {
                    path: prepared.pristine().to_owned(),
                    source,
                })?;
            let runtime = Arc::new(StateRuntime {
                sources,
                build: build.clone(),
                compiler,
                pool: Mutex::new(Vec::new()),
                task: task.id.clone(),
                archive: (use_archive && archive_file.is_file()).then(|| archive_file.clone()),
                failing: Mutex::new(Vec::new()),
                learned,
            });
            // The pool's first JVMs start now, loading the JDK, JUnit and the dependencies
            // while the warm-up of other tasks goes on.
            self.states
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(fingerprint.clone(), runtime.clone());
            self.top_up(&fingerprint, task, &runtime)?;
        }
        self.builds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .insert(task.id.clone(), (fingerprint, build));
        Ok(())
    }

    fn validate(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
    ) -> Result<Verdict, ValidateError> {
        let started = Instant::now();
        let task = &prepared.task;
        let build = self
            .builds
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&task.id)
            .cloned();
        let (state, build) = match build {
            Some((state, Ok(build))) => (state, build),
            Some((_, Err(why))) => {
                return self.fallback(prepared, candidate, slot, Fallback::Task(why));
            }
            None => {
                let why = "the task was not warmed up for the fast path".to_owned();
                return self.fallback(prepared, candidate, slot, Fallback::Task(why));
            }
        };
        let files = named_files(task, candidate);
        // `module = "."` is the project root: compare without the `./`.
        let module: PathBuf = Path::new(&task.build.module)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect();
        let main_root = module.join("src/main/java");
        if let Some(other) = files
            .iter()
            .find(|f| !Path::new(f).starts_with(&main_root) || !f.ends_with(".java"))
        {
            let why = format!(
                "the candidate changes {other}, which is not a Java file under {}",
                main_root.display()
            );
            return self.fallback(prepared, candidate, slot, Fallback::Candidate(why));
        }
        // The fast workspace holds only the changed files, so the candidate is first checked
        // against the whole task state, as Maven's full copy would (a path through an existing
        // file, a link, a missing file): the same refusal, the same `ApplyFailed`.
        match check_candidate(task, prepared.classes(), candidate, prepared.pristine()) {
            Ok(()) => {}
            Err(CandidateError::Io(source)) => {
                return Err(ValidateError::Workspace {
                    path: prepared.pristine().to_owned(),
                    source,
                });
            }
            Err(problem) => {
                return Ok(apply_failed(
                    task,
                    &self.selection(prepared)?,
                    &problem,
                    started,
                ));
            }
        }
        // The named files, written where the slot's JVM can read them.
        let sources_root = self.sources_root();
        let number = self
            .counter
            .fetch_add(1, std::sync::atomic::Ordering::SeqCst);
        let workspace = sources_root.join(slot).join(number.to_string());
        let ws_err = |source| ValidateError::Workspace {
            path: workspace.clone(),
            source,
        };
        std::fs::create_dir_all(&sources_root).map_err(ws_err)?;
        if workspace.exists() {
            std::fs::remove_dir_all(&workspace).map_err(ws_err)?;
        }
        for file in &files {
            let from = prepared.pristine().join(file);
            let to = workspace.join(file);
            std::fs::create_dir_all(to.parent().expect("a file in a folder")).map_err(ws_err)?;
            if from.is_file() {
                // Contents only: the pristine state is sealed read-only, and a copy that kept
                // its mode could not be patched by a user other than root.
                std::fs::read(&from)
                    .and_then(|bytes| std::fs::write(&to, bytes))
                    .map_err(ws_err)?;
            }
        }
        std::fs::create_dir_all(&workspace).map_err(ws_err)?;
        match apply_candidate(task, prepared.classes(), candidate, &workspace) {
            Ok(()) => {}
            Err(CandidateError::Io(source)) => return Err(ws_err(source)),
            Err(problem) => {
                let _ = std::fs::remove_dir_all(&workspace);
                return Ok(apply_failed(
                    task,
                    &self.selection(prepared)?,
                    &problem,
                    started,
                ));
            }
        }
        // What the applied candidate left: the files it writes, and the project's files it
        // deleted or moved away.
        let (written, removed): (Vec<String>, Vec<String>) = files
            .iter()
            .cloned()
            .partition(|f| workspace.join(f).is_file());
        let removed: Vec<String> = removed
            .into_iter()
            .filter(|f| prepared.pristine().join(f).is_file())
            .collect();
        let new_files: Vec<String> = written
            .iter()
            .filter(|f| !prepared.pristine().join(f).is_file())
            .cloned()
            .collect();
        // What the candidate's code adds that could forge or spoil a fast answer: a reason for
        // Maven to re-judge whatever the fast path finds. A moved file is read against the
        // files the candidate removed, whose text it carries.
        let removed_text: String = removed
            .iter()
            .map(|f| std::fs::read_to_string(prepared.pristine().join(f)).unwrap_or_default())
            .collect::<Vec<_>>()
            .join("\n");
        let mut flags = Vec::new();
        for file in &written {
            let before = std::fs::read_to_string(prepared.pristine().join(file))
                .unwrap_or_else(|_| removed_text.clone());
            let after = std::fs::read_to_string(workspace.join(file)).unwrap_or_default();
            for flag in crate::flags::added_families(&before, &after) {
                if !flags.contains(&flag) {
                    flags.push(flag);
                }
            }
        }
        let selection = self.selection(prepared)?;
        let runtime = self
            .states
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&state)
            .cloned();
        let Some(runtime) = runtime else {
            let why = "the task state has no fast-path runtime in this run".to_owned();
            return self.fallback(prepared, candidate, slot, Fallback::Task(why));
        };
        // Sources as Maven's compiler plug-in selects them: a file it leaves out (a folder of
        // the scanner's default excludes such as `CVS/` or `.svn/`, the pom's excludes) is not
        // compiled, and a compiled file may not define a class another compiled source defines.
        let mut notes = build.notes.clone();
        notes.extend(runtime.sources.notes.iter().cloned());
        let (compiled_files, left_out): (Vec<String>, Vec<String>) = written
            .iter()
            .cloned()
            .partition(|f| runtime.sources.compiles(&main_root, f));
        for file in &left_out {
            notes.push(format!(
                "{file} is not compiled: Maven's compiler plug-in leaves it out (its includes, \
                 excludes and the scanner's default excludes)"
            ));
        }
        let mut duplicates = Vec::new();
        for file in &compiled_files {
            let text = std::fs::read_to_string(workspace.join(file)).unwrap_or_default();
            for class in top_level_classes(&text) {
                if let Some(other) = runtime.sources.classes.file_of(&class)
                    && other != file
                    && !files.iter().any(|f| f == other)
                {
                    duplicates.push(format!(
                        "{file}: duplicate class: {class} (also defined in {other})"
                    ));
                }
            }
        }
        if !duplicates.is_empty() {
            let _ = std::fs::remove_dir_all(&workspace);
            // javac's error on Maven: both files are compiled together.
            let reply = FastReply {
                compile: Some((started.elapsed(), duplicates)),
                ..FastReply::default()
            };
            let mut fast = judge_reply(task, &selection, &notes, None, &reply, "", started);
            fast.engine.flags = flags;
            return self.cross_check(prepared, candidate, slot, fast, None, started);
        }
        let in_kept = |file: &String| {
            build.project.join(
                Path::new(file)
                    .strip_prefix(&module)
                    .unwrap_or(Path::new(file)),
            )
        };
        let sources: Vec<PathBuf> = compiled_files.iter().map(|f| workspace.join(f)).collect();
        let removed_kept: Vec<PathBuf> = removed.iter().map(in_kept).collect();
        let left_out_kept: Vec<PathBuf> = runtime
            .sources
            .left_out
            .iter()
            .chain(&left_out)
            .map(in_kept)
            .collect();
        let pooled = self.take_jvm(&state, task, &runtime)?;
        let request = CompileRequest {
            sources: &sources,
            removed: &removed_kept,
            left_out: &left_out_kept,
        };
        let compiled = self.compile(
            task,
            (&runtime.compiler, &runtime.build),
            &request,
            &pooled.classes.0.join(CANDIDATE_FOLDERS[0]),
        );
        // The sources stay until the verdict (removed on drop, as a class folder is): a flaky
        // check compiles them again (`rerun.rs`).
        let _workspace = (!self.config.keep_workspaces).then(|| ClassFolder(workspace.clone()));
        let compiled = compiled?;
        if let Some(lost) = &compiled.lost {
            self.give_back(&runtime, pooled);
            // The compiler runs no candidate code, but a candidate's text can still exhaust
            // it; Maven decides, as for any candidate the fast path cannot compile.
            let why = match lost {
                Lost::TimedOut => "the fast path's compiler did not answer in time".to_owned(),
                Lost::Closed(stderr) => format!(
                    "the fast path's compiler ended: {}",
                    stderr.lines().last().unwrap_or("no output")
                ),
            };
            return self.fallback(prepared, candidate, slot, Fallback::Candidate(why));
        }
        if let Some(why) = compiled.fallback.clone() {
            self.give_back(&runtime, pooled);
            // Every reason the compiler gives is about this candidate's files (see `Fallback`).
            return self.fallback(prepared, candidate, slot, Fallback::Candidate(why));
        }
        // The build's other main classes join the candidate's in the folder its test JVM sees
        // as `target/classes` (one code source for all of them); a removed file's classes are
        // left out, so a look-up by name fails as it would on Maven's build of the candidate's
        // tree.
        let removes_files = !removed.is_empty();
        let mut merged = None;
        if compiled.compile.as_ref().is_some_and(|(_, d)| d.is_empty()) {
            let done = self.merge_into(&build, &pooled, &compiled, removes_files)?;
            if !done.stale.is_empty() {
                notes.push(format!(
                    "the test JVM's target/classes leaves out the removed files' classes: {}",
                    done.stale.join(", ")
                ));
            }
            merged = Some(done);
        }
        let mut compile = compiled.compile.clone();
        // Diagnostics name files as the project does (`src/main/java/…`), like Maven's.
        if let Some((_, diagnostics)) = compile.as_mut() {
            let prefix = format!("{}/", workspace.display());
            for d in diagnostics.iter_mut() {
                if let Some(rest) = d.strip_prefix(&prefix) {
                    *d = rest.to_owned();
                }
            }
        }
        let compiles = compile.as_ref().is_some_and(|(_, d)| d.is_empty());
        let mut enforcement = format!(
            "a test JVM of its own for this candidate; {}",
            pooled.jvm.enforcement()
        );
        if let Some(merged) = &merged {
            enforcement.push_str(&format!(
                "; main and test classes each from one folder, target/classes and \
                 target/test-classes: the candidate's with {} files of the build linked in {} ms",
                merged.added,
                merged.wall.as_millis()
            ));
        }
        // A feature prediction is scored by one run of the whole suite (its security tests
        // among the rest), as the build tool scores it: no PoV phase, no selection, every class
        // run whatever failed.
        let scored = match (task.kind, &task.feature) {
            (avrlab_bench::TaskKind::Feature, Some(feature)) => Some(feature),
            (avrlab_bench::TaskKind::Feature, None) | (avrlab_bench::TaskKind::Repair, _) => None,
        };
        // Test-impact selection, from the classes the candidate's files compiled to.
        let mut impact = None;
        let chosen_classes;
        let regression = match &selection.regression {
            _ if scored.is_some() => RegressionRun::AllOthers,
            RegressionTests::Listed(list) => RegressionRun::Listed(list),
            RegressionTests::AllOthers => {
                let record = self
                    .dependence
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .get(&state)
                    .cloned();
                let record = match &record {
                    Some(Ok(record)) => Ok(record.as_ref()),
                    Some(Err(why)) => Err(why.as_str()),
                    None => Err("the task state was not primed in this run"),
                };
                let chosen = select(
                    record,
                    &record_key(&state, &build),
                    &CandidateChange {
                        compiled: &compiled.classes,
                        new_files: &new_files,
                    },
                );
                impact = Some(chosen.evidence);
                match chosen.scope {
                    RegressionScope::All => RegressionRun::AllOthers,
                    RegressionScope::Classes(classes) => {
                        chosen_classes = classes;
                        RegressionRun::Classes(&chosen_classes)
                    }
                }
            }
        };
        // Maven's regression run has the PoV tests again, with the rest of their classes (a fix
        // that holds only the first time it is used fails there), unless the task lists its
        // regression tests: then Maven runs only those.
        let again: &[TestName] = match regression {
            _ if scored.is_some() => &[],
            RegressionRun::Listed(_) => &[],
            RegressionRun::AllOthers | RegressionRun::Classes(_) => &task.oracle.pov_tests,
        };
        let (pov, excluded): (&[TestName], &[TestName]) = match scored {
            Some(_) => (&[], &[]),
            None => (&task.oracle.pov_tests, &selection.dropped_classes),
        };
        let whole_suite = scored.is_some() || self.fast.keep_going;
        let mut reply = if compiles {
            let PooledJvm { jvm, classes } = pooled;
            let first = if whole_suite {
                Vec::new()
            } else {
                runtime.fail_first()
            };
            let reply = jvm.run(&RunRequest {
                pov,
                again,
                regression: regression.clone(),
                excluded,
                candidate_classes: &compiled.classes.classes,
                first: &first,
                stop_at_failure: !whole_suite,
            });
            drop(classes);
            runtime.note_failures(&reply);
            reply
        } else {
            self.give_back(&runtime, pooled);
            FastReply::default()
        };
        if let Some(widened) = reply
            .phases
            .iter()
            .find(|p| p.name == Phase::Regression.as_str())
            .and_then(|p| p.widened.as_ref())
        {
            impact = impact.map(|selected| format!("{selected}; {widened}"));
        }
        reply.compile = compile;
        reply.compile_note = compiled.note.clone();
        flags.extend(reply.flags.iter().cloned());
        if reply.forged_frames > 0 {
            flags.push(format!(
                "{} unauthenticated result frames were written to the channel",
                reply.forged_frames
            ));
        }
        if let Some(feature) = scored {
            let mut fast = judge_feature_reply(
                (task, feature),
                &selection,
                &notes,
                &reply,
                &enforcement,
                started,
            );
            fast.engine.flags = flags;
            if let Some(names) = &reply.left_running {
                weigh_thread_left(&mut fast, names);
            }
            return self.cross_check(prepared, candidate, slot, fast, None, started);
        }
        let fast = judge_reply(
            task,
            &selection,
            &notes,
            impact.as_deref(),
            &reply,
            &enforcement,
            started,
        );
        let first_run = rerun::FirstRun {
            state: &state,
            task,
            runtime: &runtime,
            selection: &selection,
            request: &request,
            removes_files,
            again,
            regression,
            reply: &reply,
        };
        let mut fast = self.settle_flaky(fast, &first_run)?;
        fast.wall = started.elapsed();
        // A re-run's flags (settle_flaky's) come after the first run's.
        flags.append(&mut fast.engine.flags);
        fast.engine.flags = flags;
        if let Some(names) = &reply.left_running {
            weigh_thread_left(&mut fast, names);
        }
        self.cross_check(prepared, candidate, slot, fast, impact.as_deref(), started)
    }
}

/// A thread the tests left running when the last phase ended. Every test had its outcome by
/// then (the JVM's answer holds them), and Maven's test JVM would have the same thread: against
/// a pass it is a flag, as it may be code still at work that the guard has not seen finish;
/// against any other verdict it can change nothing, and the phase's evidence says so.
fn weigh_thread_left(verdict: &mut Verdict, names: &str) {
    if verdict.outcome == Outcome::Plausible {
        verdict.engine.flags.push(format!(
            "a thread started by the tests is still running ({names})"
        ));
    } else if let Some(last) = verdict.phases.last_mut() {
        last.log_excerpt.push_str(&format!(
            "\n[avrlab] a thread the tests started was still running when they ended ({names}); \
             not a flag: the verdict is {} and every test had its outcome",
            verdict.outcome.as_str()
        ));
    }
}

#[cfg(test)]
mod tests {
    use avrlab_bench::{BuildSpec, BuildSystem};
    use avrlab_build::BuildSettings;
    use avrlab_exec::{Limits, SandboxKind};

    use super::*;

    /// Maven's verdict on a handed-over candidate, with the evidence a Maven run leaves.
    fn maven_verdict(outcome: Outcome) -> Verdict {
        let mut verdict = Verdict::undecided(Engine::Maven);
        verdict.outcome = outcome;
        verdict.reason = "all 1 oracle tests passed".into();
        verdict.tests.push(crate::outcome::TestRecord {
            phase: Phase::Pov,
            class: "com.example.PovTest".into(),
            method: "blocksTheAttack".into(),
            status: TestStatus::Passed,
            seconds: 0.1,
            message: String::new(),
        });
        verdict.phases.push(PhaseRecord {
            phase: Phase::Pov,
            wall: Duration::from_secs(3),
            exit: "exit 0".into(),
            log_excerpt: "Tests run: 1, Failures: 0".into(),
            enforcement: "bubblewrap".into(),
        });
        verdict
    }

    /// A thread left running is a flag against a pass only: after a failure (the PoV test that
    /// timed out and left JUnit's timeout thread spinning) the phase's evidence names it.
    #[test]
    fn a_thread_left_running_flags_a_pass_and_is_evidence_otherwise() {
        let mut pass = maven_verdict(Outcome::Plausible);
        weigh_thread_left(&mut pass, "spinner");
        assert_eq!(
            pass.engine.flags,
            ["a thread started by the tests is still running (spinner)"]
        );
        for outcome in Outcome::ALL
            .into_iter()
            .filter(|o| *o != Outcome::Plausible)
        {
            let mut failed = maven_verdict(outcome);
            weigh_thread_left(&mut failed, "junit-timeout-thread-1");
            assert!(failed.engine.flags.is_empty(), "{outcome:?}");
            assert!(
                failed.phases[0].log_excerpt.ends_with(&format!(
                    "(junit-timeout-thread-1); not a flag: the verdict is {} and every test had \
                     its outcome",
                    outcome.as_str()
                )),
                "{}",
                failed.phases[0].log_excerpt
            );
        }
    }

    /// A candidate that steers itself off the fast path (here: it changes a resource) would
    /// otherwise be Plausible on Surefire's channel alone, which its own code can write: it is
    /// Indeterminate, says why, and keeps Maven's evidence.
    #[test]
    fn a_plausible_after_a_fallback_the_candidate_caused_is_not_trusted() {
        let why = "the candidate changes src/main/resources/a.properties, which is not a Java \
                   file under src/main/java";
        let verdict = settle_fallback(
            maven_verdict(Outcome::Plausible),
            Fallback::Candidate(why.into()),
        );
        assert_eq!(verdict.outcome, Outcome::Indeterminate);
        assert!(
            verdict.reason.starts_with(
                "Plausible by Surefire's channel alone, which the tested code can forge; the fast \
                 path could not confirm it: the candidate changes src/main/resources/a.properties"
            ),
            "{}",
            verdict.reason
        );
        assert_eq!(verdict.engine.fallback.as_deref(), Some(why));
        assert_eq!(verdict.engine.engine, Some(Engine::Maven));
        assert_eq!(verdict.tests.len(), 1, "Maven's test results are kept");
        assert_eq!(verdict.phases.len(), 1, "Maven's phase logs are kept");
    }

    /// Only a pass is withheld: every other outcome of Maven stands after a candidate's fallback
    /// (a forged failure is the tested code's own loss), with the reason for the fallback kept.
    #[test]
    fn other_outcomes_after_a_candidate_fallback_keep_mavens_verdict() {
        for outcome in Outcome::ALL
            .into_iter()
            .filter(|o| *o != Outcome::Plausible)
        {
            let verdict = settle_fallback(
                maven_verdict(outcome),
                Fallback::Candidate("the candidate deletes or moves A.java".into()),
            );
            assert_eq!(verdict.outcome, outcome);
            assert_eq!(verdict.reason, "all 1 oracle tests passed");
            assert_eq!(
                verdict.engine.fallback.as_deref(),
                Some("the candidate deletes or moves A.java")
            );
        }
    }

    /// A task the fast path does not take at all keeps Maven's verdict, Plausible included: no
    /// candidate chose that route (as under `--engine maven`).
    #[test]
    fn a_task_fallback_keeps_mavens_plausible() {
        let verdict = settle_fallback(
            maven_verdict(Outcome::Plausible),
            Fallback::Task("the project has no JUnit Platform or JUnit 4".into()),
        );
        assert_eq!(verdict.outcome, Outcome::Plausible);
        assert_eq!(verdict.reason, "all 1 oracle tests passed");
        assert_eq!(
            verdict.engine.fallback.as_deref(),
            Some("the project has no JUnit Platform or JUnit 4")
        );
    }

    /// Maven's verdict after a re-check, with the fast path's view next to it.
    fn checked(kind: CheckKind, fast: Outcome, maven: Outcome) -> Verdict {
        let mut verdict = maven_verdict(maven);
        verdict.engine.cross_check = Some(CrossCheck {
            kind,
            fast,
            fast_reason: "the PoV test failed".into(),
            maven,
        });
        verdict
    }

    /// A sampled candidate whose PoV test failed on the authenticated channel, but which Maven
    /// finds Plausible, is not Plausible: only Surefire's channel, which the candidate's code can
    /// write, says so. Both views stay in the cross-check.
    #[test]
    fn a_maven_plausible_the_fast_path_did_not_see_is_not_trusted() {
        for fast in [
            Outcome::PovFailing,
            Outcome::Uncompilable,
            Outcome::Timeout,
            Outcome::Indeterminate,
        ] {
            let verdict = settle_cross_check(checked(CheckKind::Sample, fast, Outcome::Plausible));
            assert_eq!(verdict.outcome, Outcome::Indeterminate, "fast {fast}");
            assert_eq!(
                verdict.reason,
                format!(
                    "Plausible by Surefire's channel alone, which the tested code can forge; the \
                     fast path found {fast}: the PoV test failed"
                )
            );
            let check = verdict.engine.cross_check.expect("kept");
            assert_eq!((check.fast, check.maven), (fast, Outcome::Plausible));
        }
    }

    /// Where the fast path saw the PoV tests pass, Maven's verdict is the one stored, whichever it
    /// is; and a Maven verdict other than Plausible always stands.
    #[test]
    fn mavens_verdict_stands_where_the_fast_path_saw_the_pov_pass_or_maven_found_no_pass() {
        for fast in [Outcome::Plausible, Outcome::RegressionBroken] {
            for maven in Outcome::ALL {
                let verdict = settle_cross_check(checked(CheckKind::Confirmation, fast, maven));
                assert_eq!(verdict.outcome, maven, "fast {fast}, maven {maven}");
                assert_eq!(verdict.reason, "all 1 oracle tests passed");
            }
        }
        for maven in Outcome::ALL
            .into_iter()
            .filter(|o| *o != Outcome::Plausible)
        {
            let verdict =
                settle_cross_check(checked(CheckKind::Sample, Outcome::PovFailing, maven));
            assert_eq!(verdict.outcome, maven);
        }
    }

    /// The build's main classes join the candidate's: the candidate's own files stay, a removed
    /// file's classes are left out, resources and folders are added.
    #[test]
    fn merged_main_classes_keep_the_candidates_and_leave_out_only_the_removed() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("classes");
        let to = dir.path().join("candidate");
        for (root, file, text) in [
            (&from, "a/Kept.class", "k"),
            (&from, "a/Kept$1.class", "k1"),
            (&from, "a/Changed.class", "old"),
            (&from, "a/Gone.class", "g"),
            (&from, "a/Gone$Inner.class", "gi"),
            (&from, "a/messages.properties", "m"),
            (&from, "META-INF/services/a.Service", "a.Gone"),
            (&to, "a/Changed.class", "new"),
            (&to, "b/New.class", "n"),
        ] {
            let path = root.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let classes = [
            "a.Kept".to_owned(),
            "a.Kept$1".to_owned(),
            "a.Changed".to_owned(),
            "b.New".to_owned(),
        ];
        let merged = merge_main_classes(&from, &to, Some(&classes)).unwrap();
        assert_eq!(merged.stale, ["a.Gone", "a.Gone$Inner"]);
        assert_eq!(merged.added, 4);
        let read = |file: &str| std::fs::read_to_string(to.join(file)).unwrap();
        assert_eq!(read("a/Kept$1.class"), "k1");
        assert_eq!(read("a/Changed.class"), "new");
        assert_eq!(read("b/New.class"), "n");
        assert!(to.join("a/messages.properties").is_file());
        assert!(to.join("META-INF/services/a.Service").is_file());
        assert!(!to.join("a/Gone.class").exists());
        assert!(!to.join("a/Gone$Inner.class").exists());
        // Without removed files, every class of the build is added; the build is unchanged.
        let plain = dir.path().join("plain");
        std::fs::create_dir_all(plain.join("a")).unwrap();
        std::fs::write(plain.join("a/Changed.class"), "new").unwrap();
        let merged = merge_main_classes(&from, &plain, None).unwrap();
        assert!(merged.stale.is_empty());
        assert_eq!(merged.added, 6);
        assert_eq!(
            std::fs::read_to_string(from.join("a/Changed.class")).unwrap(),
            "old"
        );
    }

    /// A feature task's test diff that reaches outside the module's `src/test` is named (the
    /// task then goes to the build tool); one inside it is not.
    #[test]
    fn a_feature_test_diff_must_stay_under_the_modules_test_sources() {
        let diff = |path: &str| {
            avrlab_bench::Patch::parse(&format!(
                "--- a/{path}\n+++ b/{path}\n@@ -1 +1 @@\n-a\n+b\n"
            ))
            .unwrap()
        };
        let benchmark = avrlab_bench::Benchmark::open("demo").unwrap();
        let mut task = benchmark.task("demo-zip-slip").unwrap().clone();
        task.build.module = ".".into();
        assert_eq!(
            test_diff_outside_tests(&task, &diff("src/test/java/p/ATest.java")),
            None
        );
        assert_eq!(
            test_diff_outside_tests(&task, &diff("src/main/java/p/A.java")).as_deref(),
            Some("src/main/java/p/A.java")
        );
        task.build.module = "core".into();
        assert_eq!(
            test_diff_outside_tests(&task, &diff("core/src/test/java/p/ATest.java")),
            None
        );
        assert!(test_diff_outside_tests(&task, &diff("src/test/java/p/ATest.java")).is_some());
    }

    /// A kept build records its classpath as the sandbox showed the repository; one made without
    /// a sandbox (host paths) must never be loaded by a sandboxed run, nor the other way round.
    #[test]
    fn kept_builds_are_keyed_by_where_the_repository_is_seen() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pom.xml"), "<project/>").unwrap();
        let build = BuildSpec {
            system: BuildSystem::Maven,
            jdk: 17,
            module: ".".into(),
            extra_args: vec![],
            targets: None,
            older_api: None,
        };
        let maven = |sandbox| {
            let settings = BuildSettings {
                mvn: "mvn".into(),
                repository: dir.path().join("repository"),
                sandbox,
                limits: Limits::default(),
            };
            Maven::for_build(settings, &build).expect("a JDK is installed")
        };
        let key = |sandbox| state_fingerprint(dir.path(), &maven(sandbox), b"").unwrap();
        assert_eq!(key(SandboxKind::Bubblewrap), key(SandboxKind::Bubblewrap));
        assert_ne!(key(SandboxKind::Bubblewrap), key(SandboxKind::None));
    }
}
