//! The fast oracle: one resident validator JVM per task and worker compiles each candidate's
//! changed files in memory and runs the PoV, then the regression tests through the JUnit Platform
//! launcher (see `avrlab-exec`'s `fastpath`). Maven stays the ground truth: a fast `Plausible` is
//! confirmed by the Maven oracle before it is returned, a sample of other verdicts is re-checked,
//! and both views are kept in the verdict's [`EngineRecord`]. Tasks and candidates the fast path
//! cannot take go to Maven, with the reason recorded.

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use avrlab_bench::{RegressionTests, Task, TestName, copy_project};
use avrlab_exec::{
    CompiledClasses, ExitKind, FastBuild, FastPhase, FastReply, FastRequest, FastSession, Lost,
    Maven, PhaseEnd, Recorded, RegressionScope, TestRun,
};
use sha2::{Digest, Sha256};

use crate::candidate::{Candidate, CandidateError, apply_candidate, check_candidate};
use crate::oracle::{Oracle, PreparedTask};
use crate::outcome::{CheckKind, CrossCheck, Outcome, Phase, PhaseRecord, Verdict};
use crate::test_impact::{CandidateChange, ClassDependence, RECORD_FILE, select};
use crate::validator::{MavenOracle, ValidateError, ValidatorConfig, excerpt, record};
use crate::verdict_rules::{PhaseJudgement, SkippedTests, judge_run};

/// How the fast oracle runs and how much of it Maven re-checks.
#[derive(Debug, Clone)]
pub struct FastConfig {
    /// Confirm with Maven, before returning it, every fast verdict in which the PoV tests passed:
    /// `Plausible`, and `RegressionBroken`, where only the regression suite decided, in an
    /// environment the fast path imitates (a false one would hide a correct fix). The default;
    /// turning it off is for measuring the raw fast path only.
    pub confirm_pov_passes: bool,
    /// The share of other verdicts (0.0 – 1.0) also re-checked with Maven, chosen by a hash of
    /// the candidate so that a re-run picks the same ones.
    pub recheck_sample: f64,
    /// Start a fresh JVM after this many candidates even when nothing was left behind.
    pub recycle_every: usize,
    /// The per-test and per-phase time limit inside the JVM.
    pub test_timeout: Duration,
    /// Where the compiled helper is cached.
    pub helper_cache: PathBuf,
    /// How many primed JVMs a task's warm-up leaves ready: the run's worker count, so that two
    /// workers on candidates of one task do not wait for a cold JVM.
    pub primed_per_task: usize,
}

/// What the fast path needs of a task state, or why it cannot take it.
type TaskBuild = Result<FastBuild, String>;

/// How long recording a task state's class dependence may take in all (each test class has the
/// per-test-phase limit inside the JVM; this bounds a JVM that stops answering).
const RECORDING_LIMIT: Duration = Duration::from_secs(1800);

/// The fast oracle, with the Maven oracle it falls back on and is confirmed by.
pub struct FastOracle {
    maven: MavenOracle,
    config: ValidatorConfig,
    fast: FastConfig,
    /// Cross-checks switched off (`avrlab throughput` measures the raw engine this way).
    unchecked: std::sync::atomic::AtomicBool,
    /// Per task: the fingerprint of the task state it was warmed up with, and what the fast
    /// path needs, or why it cannot take the task. One task id can be warmed up with several
    /// states in one run (`transform` verifies a rename, then its rollback), and a JVM or a
    /// compiled build of one state must never serve another.
    builds: Mutex<HashMap<String, (String, TaskBuild)>>,
    /// Per worker slot: the task state (its fingerprint) its JVM serves, and the JVM.
    sessions: Mutex<HashMap<String, (String, FastSession)>>,
    /// Per task state (fingerprint): started, primed JVMs that no slot holds (started at
    /// warm-up, or handed back when a slot moved on to another task).
    spares: Mutex<HashMap<String, Vec<FastSession>>>,
    /// Per task state (fingerprint): which project classes each regression test class loads
    /// (test-impact selection), or why there is no such record.
    dependence: Mutex<HashMap<String, Result<Arc<ClassDependence>, String>>>,
    /// Numbers each candidate's source folder.
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
            maven: MavenOracle::new(config.clone()),
            config,
            fast,
            unchecked: std::sync::atomic::AtomicBool::new(false),
            builds: Mutex::new(HashMap::new()),
            sessions: Mutex::new(HashMap::new()),
            spares: Mutex::new(HashMap::new()),
            dependence: Mutex::new(HashMap::new()),
            counter: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// Switches the Maven cross-checks (confirmation and sample) off or back on. Off, a fast
    /// `Plausible` is returned unconfirmed: only for measuring the raw engine.
    pub fn set_cross_checks(&self, on: bool) {
        self.unchecked
            .store(!on, std::sync::atomic::Ordering::SeqCst);
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
        Maven::for_build(self.config.maven.clone(), &task.build).map_err(|source| {
            ValidateError::Maven {
                task: task.id.clone(),
                source,
            }
        })
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
        if self.fast.recheck_sample <= 0.0 {
            return false;
        }
        let digest = Sha256::digest(format!("{}\0{candidate:?}", task.id).as_bytes());
        let draw = u64::from_le_bytes(digest[..8].try_into().expect("8 bytes"));
        (draw as f64 / u64::MAX as f64) < self.fast.recheck_sample
    }

    fn start_session(
        &self,
        task: &Task,
        build: &FastBuild,
        sources_root: &Path,
    ) -> Result<FastSession, ValidateError> {
        self.maven_for(task)?
            .start_fast_session(build, sources_root, self.fast.test_timeout)
            .map_err(|source| ValidateError::FastPath {
                task: task.id.clone(),
                source,
            })
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

    /// Runs one candidate on the resident validator of `slot`, starting one when needed.
    #[expect(
        clippy::too_many_arguments,
        reason = "one candidate's run: its state, build, files, slot and both selections"
    )]
    fn run_fast(
        &self,
        state: &str,
        build: &FastBuild,
        prepared: &PreparedTask,
        sources: &[PathBuf],
        slot: &str,
        selection: &FastSelection,
        scope: Option<&dyn Fn(&CompiledClasses) -> RegressionScope>,
    ) -> Result<(FastReply, String), ValidateError> {
        let task = &prepared.task;
        let taken = {
            let mut sessions = self.sessions.lock().unwrap_or_else(|p| p.into_inner());
            match sessions.remove(slot) {
                Some((served, session)) if served == state => Some(session),
                Some((other, session)) => {
                    // The slot moves on to another task: its JVM waits for that task's next
                    // candidate.
                    self.spares
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .entry(other)
                        .or_default()
                        .push(session);
                    None
                }
                None => None,
            }
        };
        let spare = || {
            self.spares
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .get_mut(state)
                .and_then(Vec::pop)
        };
        let mut session = match taken.or_else(spare) {
            Some(session) => session,
            None => self.start_session(task, build, &self.sources_root())?,
        };
        let enforcement = format!("resident JVM; {}", session.enforcement());
        let reply = session.validate(&FastRequest {
            pov: &task.oracle.pov_tests,
            regression: &selection.regression,
            excluded: &selection.dropped_classes,
            sources,
            scope,
        });
        // A JVM that might carry a candidate's leftovers is never reused.
        if reply.dirty.is_none() && reply.lost.is_none() && session.served < self.fast.recycle_every
        {
            self.sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(slot.to_owned(), (state.to_owned(), session));
        }
        Ok((reply, enforcement))
    }
}

/// Why the fast path handed a candidate to Maven, and whether the candidate could have chosen it.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Fallback {
    /// The fast path does not take the task (it was not warmed up for it, or cannot run its
    /// tests): every candidate of the task goes to Maven, whatever it contains.
    Task(String),
    /// Something in this candidate: it deletes or moves a file, changes a file that is not Java
    /// under `src/main/java`, changes an API that the project's sources then do not compile
    /// against in memory, or defines a class in a framework package. A candidate can do any of
    /// these on purpose.
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
/// as under `--engine maven` (ARCHITECTURE.md says what remains possible there). Other outcomes
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
    dropped_classes: Vec<TestName>,
    /// The baseline, in words, for the regression log.
    describe: String,
}

impl FastSelection {
    fn new(task: &Task, baseline: Option<&crate::baseline::Baseline>) -> Self {
        let base = baseline.cloned().unwrap_or_default();
        let mut dropped_classes: Vec<TestName> = Vec::new();
        for test in base.tests() {
            let class = TestName {
                class: test.class.clone(),
                method: None,
            };
            if !dropped_classes.contains(&class) {
                dropped_classes.push(class);
            }
        }
        let regression = match &task.oracle.regression_tests {
            RegressionTests::AllOthers => RegressionTests::AllOthers,
            RegressionTests::Listed(list) => RegressionTests::Listed(
                list.iter()
                    .filter(|t| !dropped_classes.iter().any(|d| d.class == t.class))
                    .cloned()
                    .collect(),
            ),
        };
        Self {
            regression,
            dropped_classes,
            describe: base.describe(),
        }
    }
}

/// The files a candidate writes: (path relative to the project root, created or changed).
fn touched_files(task: &Task, candidate: &Candidate) -> Result<Vec<String>, String> {
    match candidate {
        Candidate::Unchanged => Ok(Vec::new()),
        Candidate::Diff(patch) => {
            let mut files = Vec::new();
            for file in &patch.files {
                if file.deleted || (!file.created && file.old_path != file.new_path) {
                    return Err(format!(
                        "the candidate deletes or moves {}; the fast path only compiles changed \
                         and new files",
                        file.old_path
                    ));
                }
                files.push(file.new_path.clone());
            }
            Ok(files)
        }
        Candidate::Replacement { target, .. } => {
            let index = match *target {
                crate::candidate::ReplacementTarget::Method(m) => m,
                crate::candidate::ReplacementTarget::Hunk { method, .. } => method,
            };
            Ok(task
                .localization
                .get(index)
                .map(|l| vec![l.file.clone()])
                .unwrap_or_default())
        }
    }
}

/// A hash of every file of a task state (paths and contents), the JDK that compiles it and where
/// its JVMs see the dependency repository: a kept build records classpath entries as the sandbox
/// showed them (`/avrlab/maven-repository/…` under bubblewrap, host paths without a sandbox), so a
/// build made one way cannot serve the other.
fn state_fingerprint(root: &Path, maven: &Maven) -> std::io::Result<String> {
    // The layout of a kept build; a new one never reads an old one.
    let mut salt = b"avrlab fast build 4".to_vec();
    salt.extend_from_slice(&maven.jdk().major.to_le_bytes());
    salt.extend_from_slice(maven.repository_view().as_os_str().as_encoded_bytes());
    salt.push(0);
    crate::fingerprint::tree_fingerprint(root, &salt)
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
        // Results come over the authenticated channel, never from files the tests could write.
        unusable_reports: None,
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
    let mut verdict = Verdict::undecided("fast");
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
            Lost::Closed(stderr) => (
                Outcome::Indeterminate,
                format!(
                    "the resident validator JVM ended during the candidate: {}",
                    stderr.lines().last().unwrap_or("no output")
                ),
            ),
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
    let mut not_selected: Vec<TestName> = pov.clone();
    not_selected.extend(selection.dropped_classes.iter().cloned());
    let (wanted, excluded): (&[TestName], &[TestName]) = match &selection.regression {
        RegressionTests::AllOthers => (&[], &not_selected),
        RegressionTests::Listed(list) => (list, &not_selected),
    };
    // Like Maven's: a skipped PoV test leaves the verdict undecided, a skipped regression test
    // does not (the baseline decides which regression tests count).
    let steps = [
        (
            "pov",
            Phase::Pov,
            pov.as_slice(),
            &[][..],
            Outcome::PovFailing,
            SkippedTests::Indeterminate,
        ),
        (
            "regression",
            Phase::Regression,
            wanted,
            excluded,
            Outcome::RegressionBroken,
            SkippedTests::Allowed,
        ),
    ];
    for (name, phase, wanted, excluded, failure, skipped) in steps {
        let Some(ran) = reply.phases.iter().find(|p| p.name == name) else {
            return finish(
                verdict,
                Outcome::Indeterminate,
                format!("the resident validator did not run the {name} phase"),
            );
        };
        let run = phase_run(ran);
        record(&mut verdict, phase, &run);
        if let Some(last) = verdict.phases.last_mut() {
            let mut header = String::new();
            for note in notes {
                header.push_str(&format!("[avrlab] {note}\n"));
            }
            if phase == Phase::Regression {
                header.push_str(&format!("[avrlab] {}\n", selection.describe));
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

    fn materialize(&self, task: &Task) -> Result<PreparedTask, ValidateError> {
        self.maven.materialize(task)
    }

    /// Warms Maven up (it confirms and falls back), then compiles a kept copy of the pristine
    /// state and resolves its test classpath for the resident validator.
    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        self.maven.warm_up(prepared)?;
        let task = &prepared.task;
        let maven = self.maven_for(task)?;
        let fast_err = |source| ValidateError::FastPath {
            task: task.id.clone(),
            source,
        };
        // The compiled pristine state is kept across runs, keyed by its content and JDK, like
        // Maven's warm repository: a task is compiled for the fast path once.
        let fingerprint = state_fingerprint(prepared.pristine(), &maven).map_err(|source| {
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
            // The task's state changed: the JVMs of the old one are ended.
            self.spares
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .remove(&earlier);
            self.sessions
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .retain(|_, (state, _)| *state != earlier);
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
        let build = built.map_err(|u| u.0);
        if let Ok(build) = &build {
            // The task's first JVM starts now and runs the task state's own PoV and regression
            // tests once (answer discarded), so that class loading and JIT warm-up are paid here,
            // like Maven's dependency warm-up, and not by the first candidate.
            let root = self.sources_root();
            std::fs::create_dir_all(&root).map_err(|source| ValidateError::Workspace {
                path: root.clone(),
                source,
            })?;
            let mut session = self.start_session(task, build, &root)?;
            // The unchanged localized file is compiled too, so that javac is warm as well.
            let mut sources = Vec::new();
            if let Some(loc) = task.localization.first() {
                let copy = root.join("prime").join(&task.id).join(&loc.file);
                let from = prepared.pristine().join(&loc.file);
                let written = copy
                    .parent()
                    .map(std::fs::create_dir_all)
                    .transpose()
                    .and_then(|_| std::fs::read(&from))
                    .and_then(|bytes| std::fs::write(&copy, bytes));
                if written.is_ok() {
                    sources.push(copy);
                }
            }
            let selection = self.selection(prepared)?;
            // Every primed JVM gets the same request: the task state as it is.
            let priming = FastRequest {
                pov: &task.oracle.pov_tests,
                regression: &selection.regression,
                excluded: &selection.dropped_classes,
                sources: &sources,
                scope: None,
            };
            let primed = session.validate(&priming);
            let mut usable = primed.dirty.is_none() && primed.lost.is_none();
            // Test-impact selection needs, once per task state, which project classes each
            // regression test class loads; the record is kept with the kept build.
            let record_path = kept.join(RECORD_FILE);
            let dependence = match ClassDependence::load(&record_path) {
                Some(record) if record.state == record_key(&fingerprint, build) => {
                    Ok(Arc::new(record))
                }
                _ if !usable => Err(format!(
                    "the priming JVM could not go on: {}",
                    primed.dirty.clone().unwrap_or_else(|| "it was lost".into())
                )),
                _ => match session.record_class_loads(
                    &task.oracle.pov_tests,
                    &selection.dropped_classes,
                    RECORDING_LIMIT,
                ) {
                    Recorded::Complete(test_classes) => {
                        let record = ClassDependence {
                            state: record_key(&fingerprint, build),
                            test_classes,
                        };
                        record
                            .save(&record_path)
                            .map_err(|source| ValidateError::Workspace {
                                path: record_path.clone(),
                                source,
                            })?;
                        Ok(Arc::new(record))
                    }
                    Recorded::Incomplete(why) => {
                        usable = false;
                        Err(format!("recording it at priming stopped: {why}"))
                    }
                },
            };
            self.dependence
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .insert(fingerprint.clone(), dependence);
            let mut ready = Vec::new();
            if usable {
                ready.push(session);
            }
            // One more primed JVM per further worker, primed the same way (warm-up is not a
            // candidate's time; a worker that finds none starts a cold one).
            for _ in 1..self.fast.primed_per_task {
                let mut session = self.start_session(task, build, &root)?;
                let primed = session.validate(&priming);
                if primed.dirty.is_none() && primed.lost.is_none() {
                    ready.push(session);
                }
            }
            self.spares
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .entry(fingerprint.clone())
                .or_default()
                .extend(ready);
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
        let files = match touched_files(task, candidate) {
            Ok(files) => files,
            Err(why) => {
                return self.fallback(prepared, candidate, slot, Fallback::Candidate(why));
            }
        };
        // `module = "."` is the project root: compare without the `./`.
        let main_root: PathBuf = Path::new(&task.build.module)
            .components()
            .filter(|c| !matches!(c, std::path::Component::CurDir))
            .collect::<PathBuf>()
            .join("src/main/java");
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
        // The changed files, written where the slot's JVM can read them.
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
        let mut new_files = Vec::new();
        for file in &files {
            let from = prepared.pristine().join(file);
            let to = workspace.join(file);
            std::fs::create_dir_all(to.parent().expect("a file in a folder")).map_err(ws_err)?;
            if !from.is_file() {
                new_files.push(file.clone());
            }
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
        let sources: Vec<PathBuf> = files.iter().map(|f| workspace.join(f)).collect();
        let selection = self.selection(prepared)?;
        // Test-impact selection: asked by the JVM once the PoV tests passed, with the classes
        // its compiler made of the candidate's files.
        let record = self
            .dependence
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .get(&state)
            .cloned();
        let impact: std::cell::RefCell<Option<String>> = std::cell::RefCell::new(None);
        let choose = |compiled: &CompiledClasses| {
            let record = match &record {
                Some(Ok(record)) => Ok(record.as_ref()),
                Some(Err(why)) => Err(why.as_str()),
                None => Err("the task state was not primed in this run"),
            };
            let chosen = select(
                record,
                &record_key(&state, &build),
                &CandidateChange {
                    compiled,
                    new_files: &new_files,
                },
            );
            *impact.borrow_mut() = Some(chosen.evidence);
            chosen.scope
        };
        let scope: Option<&dyn Fn(&CompiledClasses) -> RegressionScope> = match selection.regression
        {
            RegressionTests::AllOthers => Some(&choose),
            // A task that lists its regression tests runs all of them.
            RegressionTests::Listed(_) => None,
        };
        let ran = self.run_fast(&state, &build, prepared, &sources, slot, &selection, scope);
        if !self.config.keep_workspaces {
            let _ = std::fs::remove_dir_all(&workspace);
        }
        let (mut reply, enforcement) = ran?;
        // Diagnostics name files as the project does (`src/main/java/…`), like Maven's.
        if let Some((_, diagnostics)) = reply.compile.as_mut() {
            let prefix = format!("{}/", workspace.display());
            for d in diagnostics.iter_mut() {
                if let Some(rest) = d.strip_prefix(&prefix) {
                    *d = rest.to_owned();
                }
            }
        }
        if let Some(why) = reply.fallback.clone() {
            // Every reason the helper gives is about this candidate's files (see `Fallback`).
            return self.fallback(prepared, candidate, slot, Fallback::Candidate(why));
        }
        let impact = impact.into_inner();
        let fast = judge_reply(
            task,
            &selection,
            &build.notes,
            impact.as_deref(),
            &reply,
            &enforcement,
            started,
        );
        let checks = !self.unchecked.load(std::sync::atomic::Ordering::SeqCst);
        let kind = if !checks {
            None
        } else if matches!(fast.outcome, Outcome::Plausible | Outcome::RegressionBroken)
            && self.fast.confirm_pov_passes
        {
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
        maven.engine.engine = "maven".into();
        maven.engine.cross_check = Some(CrossCheck {
            kind,
            fast: fast.outcome,
            // The regression selection the fast verdict rested on stays with it.
            fast_reason: match &impact {
                Some(impact) => format!("{} ({impact})", fast.reason),
                None => fast.reason,
            },
            maven: maven.outcome,
        });
        maven.wall = started.elapsed();
        Ok(settle_cross_check(maven))
    }
}

#[cfg(test)]
mod tests {
    use avrlab_bench::{BuildSpec, BuildSystem};
    use avrlab_exec::{Limits, MavenSettings, SandboxKind};

    use super::*;

    /// Maven's verdict on a handed-over candidate, with the evidence a Maven run leaves.
    fn maven_verdict(outcome: Outcome) -> Verdict {
        let mut verdict = Verdict::undecided("maven");
        verdict.outcome = outcome;
        verdict.reason = "all 1 oracle tests passed".into();
        verdict.tests.push(crate::outcome::TestRecord {
            phase: Phase::Pov,
            class: "com.example.PovTest".into(),
            method: "blocksTheAttack".into(),
            status: avrlab_exec::TestStatus::Passed,
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
        assert_eq!(verdict.engine.engine, "maven");
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
        };
        let maven = |sandbox| {
            let settings = MavenSettings {
                mvn: "mvn".into(),
                repository: dir.path().join("repository"),
                sandbox,
                limits: Limits::default(),
            };
            Maven::for_build(settings, &build).expect("a JDK is installed")
        };
        let key = |sandbox| state_fingerprint(dir.path(), &maven(sandbox)).unwrap();
        assert_eq!(key(SandboxKind::Bubblewrap), key(SandboxKind::Bubblewrap));
        assert_ne!(key(SandboxKind::Bubblewrap), key(SandboxKind::None));
    }
}
