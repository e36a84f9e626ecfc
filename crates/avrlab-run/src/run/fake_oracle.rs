//! A fake oracle for the unit tests of the engine, eval and transform: it materializes task
//! states for real (file work only), warms up nothing, and decides each candidate with a rule the
//! test gives, counting every call, so that orchestration is tested in milliseconds.

use std::path::PathBuf;
use std::sync::Mutex;
use std::time::Duration;

use avrlab_bench::{Benchmark, Task};
use avrlab_validate::{
    Candidate, Oracle, Outcome, PreparedTask, ValidateError, Verdict, materialize_task,
};

/// Decides a candidate of a task: an outcome, or `None` for an infrastructure failure.
pub(crate) type Rule = dyn Fn(&Task, &Candidate) -> Option<Outcome> + Sync;

/// What the fake was asked to do, in order.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Call {
    Materialize(String),
    WarmUp(String),
    Validate(String),
}

pub(crate) struct FakeOracle {
    root: tempfile::TempDir,
    rule: Box<Rule>,
    /// Tasks whose warm-up fails, as a project that does not build here would.
    unbuildable: Vec<String>,
    /// Tasks whose warm-up fails as when the harness itself is broken (no sandbox).
    harness_broken: Vec<String>,
    /// How many validations still to come back errored, as when a test JVM is killed from
    /// outside.
    killed: std::sync::atomic::AtomicUsize,
    /// Tasks whose reference fix a regression test is flaky on, until that test was recorded in
    /// the task's baseline (`record_reference_failures`), with the tests recorded so far.
    flaky_reference: Vec<String>,
    /// Tasks whose reference fix a regression test fails in both runs of the phase, until the
    /// test was recorded in the task's baseline.
    broken_reference: Vec<String>,
    recorded_failures: Mutex<Vec<(String, String)>>,
    pub calls: Mutex<Vec<Call>>,
}

impl FakeOracle {
    pub(crate) fn new(
        rule: impl Fn(&Task, &Candidate) -> Option<Outcome> + Sync + 'static,
    ) -> Self {
        Self {
            root: tempfile::tempdir().expect("a temporary folder"),
            rule: Box::new(rule),
            unbuildable: Vec::new(),
            harness_broken: Vec::new(),
            killed: std::sync::atomic::AtomicUsize::new(0),
            flaky_reference: Vec::new(),
            broken_reference: Vec::new(),
            recorded_failures: Mutex::new(Vec::new()),
            calls: Mutex::new(Vec::new()),
        }
    }

    /// A regression test of `task` fails once on its reference fix and passes when run again,
    /// until the reference check records it in the task's baseline.
    pub(crate) fn with_flaky_reference(mut self, task: &str) -> Self {
        self.flaky_reference.push(task.to_owned());
        self
    }

    /// A regression test of `task` fails on its reference fix in both runs of the phase, until
    /// the reference check records it in the task's baseline.
    pub(crate) fn with_broken_reference(mut self, task: &str) -> Self {
        self.broken_reference.push(task.to_owned());
        self
    }

    /// The tests recorded as failing on a reference fix, as `(task, Class#method)`.
    pub(crate) fn recorded_failures(&self) -> Vec<(String, String)> {
        self.recorded_failures.lock().expect("not poisoned").clone()
    }

    /// The warm-up of `task` fails.
    pub(crate) fn with_unbuildable(mut self, task: &str) -> Self {
        self.unbuildable.push(task.to_owned());
        self
    }

    /// The warm-up of `task` fails because the sandbox cannot start: the harness's failure.
    pub(crate) fn with_broken_harness(mut self, task: &str) -> Self {
        self.harness_broken.push(task.to_owned());
        self
    }

    /// The next `count` validations are errored: their test JVM killed from outside.
    pub(crate) fn with_killed(self, count: usize) -> Self {
        self.killed
            .store(count, std::sync::atomic::Ordering::SeqCst);
        self
    }

    pub(crate) fn calls(&self) -> Vec<Call> {
        self.calls.lock().expect("not poisoned").clone()
    }

    pub(crate) fn count(&self, wanted: fn(&Call) -> bool) -> usize {
        self.calls().iter().filter(|c| wanted(c)).count()
    }
}

/// Progress that shows nothing.
pub(crate) struct Quiet;

impl crate::run::run_loop::Progress for Quiet {
    fn message(&self, _: &str) {}
    fn start(&self, _: usize, _: usize) {}
    fn verdict(&self, _: &crate::run::input::PlannedCandidate, _: &Verdict) {}
    fn finish(&self) {}
}

/// Progress that keeps its status lines, for tests that check what a run says.
#[derive(Default)]
pub(crate) struct Messages(Mutex<Vec<String>>);

impl Messages {
    pub(crate) fn lines(&self) -> Vec<String> {
        self.0.lock().expect("not poisoned").clone()
    }
}

impl crate::run::run_loop::Progress for Messages {
    fn message(&self, text: &str) {
        self.0.lock().expect("not poisoned").push(text.to_owned());
    }
    fn start(&self, _: usize, _: usize) {}
    fn verdict(&self, _: &crate::run::input::PlannedCandidate, _: &Verdict) {}
    fn finish(&self) {}
}

/// An engine configuration whose Maven and folders do not exist: only a fake oracle can serve it.
pub(crate) fn engine_config(
    workers: usize,
    allow_apply_failures: bool,
) -> crate::run::run_loop::RunSettings {
    crate::run::run_loop::RunSettings {
        validator: avrlab_validate::ValidatorConfig {
            maven: avrlab_build::BuildSettings {
                mvn: "/nonexistent/mvn".into(),
                repository: "/nonexistent/repository".into(),
                sandbox: avrlab_exec::SandboxKind::None,
                limits: avrlab_exec::Limits::default(),
            },
            work_root: "/nonexistent/work".into(),
            mirrors: None,
            keep_workspaces: false,
            baseline_cache: None,
        },
        workers,
        allow_apply_failures,
        differential: None,
    }
}

/// The demo benchmark that ships with avrlab.
pub(crate) fn demo() -> Benchmark {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/demo");
    Benchmark::open(&path.to_string_lossy()).expect("the demo benchmark loads")
}

/// A verdict with no evidence: the fake's, never a real one.
pub(crate) fn fake_verdict(outcome: Outcome) -> Verdict {
    Verdict {
        outcome,
        reason: format!("fake oracle: {outcome}"),
        tests: Vec::new(),
        diagnostics: Vec::new(),
        phases: Vec::new(),
        wall: Duration::from_millis(1),
        // No engine is named: the fake is none of the store's engines, so its verdicts are
        // stored without an engine row.
        engine: avrlab_validate::EngineRecord::default(),
        errored: None,
        feature: None,
    }
}

/// The fake's flaky regression test: `a.FlakyTest#sometimes`.
const FLAKY_TEST: (&str, &str) = ("a.FlakyTest", "sometimes");

/// A verdict decided by [`FLAKY_TEST`]: failed in the regression phase, then passed again
/// (`Indeterminate`), or failed again when `broken` (`RegressionBroken`).
fn failing_verdict(broken: bool) -> Verdict {
    let record = |phase, status, message: &str| avrlab_validate::TestRecord {
        phase,
        class: FLAKY_TEST.0.into(),
        method: FLAKY_TEST.1.into(),
        status,
        seconds: 0.1,
        message: message.into(),
    };
    let refused = "java.net.ConnectException: Connection refused";
    let (outcome, reason, again) = if broken {
        (
            Outcome::RegressionBroken,
            format!("{}#{} errored: {refused}", FLAKY_TEST.0, FLAKY_TEST.1),
            record(
                avrlab_validate::Phase::RegressionRerun,
                avrlab_core::TestStatus::Errored,
                refused,
            ),
        )
    } else {
        (
            Outcome::Indeterminate,
            format!(
                "{}: {}#{} failed, then passed when the regression phase ran again",
                avrlab_validate::FLAKY_REASON,
                FLAKY_TEST.0,
                FLAKY_TEST.1
            ),
            record(
                avrlab_validate::Phase::RegressionRerun,
                avrlab_core::TestStatus::Passed,
                "",
            ),
        )
    };
    let mut verdict = fake_verdict(outcome);
    verdict.reason = reason;
    verdict.tests = vec![
        record(
            avrlab_validate::Phase::Regression,
            avrlab_core::TestStatus::Errored,
            refused,
        ),
        again,
    ];
    verdict
}

impl Oracle for FakeOracle {
    fn name(&self) -> &str {
        "fake"
    }

    fn record_reference_failures(
        &self,
        prepared: &PreparedTask,
        failures: &[avrlab_validate::ReferenceFailure],
    ) -> Result<bool, ValidateError> {
        let mut recorded = self.recorded_failures.lock().expect("not poisoned");
        let before = recorded.len();
        for failure in failures {
            let entry = (
                prepared.task.id.clone(),
                format!("{}#{}", failure.case.class, failure.case.method),
            );
            if !recorded.contains(&entry) {
                recorded.push(entry);
            }
        }
        Ok(recorded.len() > before)
    }

    fn materialize(&self, task: &Task) -> Result<PreparedTask, ValidateError> {
        self.calls
            .lock()
            .expect("not poisoned")
            .push(Call::Materialize(task.id.clone()));
        let dest = self.root.path().join(&task.id);
        if !dest.exists() {
            materialize_task(task, &dest, None)?;
        }
        PreparedTask::new(task.clone(), dest)
    }

    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        self.calls
            .lock()
            .expect("not poisoned")
            .push(Call::WarmUp(prepared.task.id.clone()));
        let id = &prepared.task.id;
        if self.unbuildable.contains(id) {
            return Err(ValidateError::Build {
                task: id.clone(),
                source: avrlab_build::BuildError::WarmUp {
                    project: prepared.pristine().to_owned(),
                    tail: "the fake project does not build".into(),
                    log: None,
                },
            });
        }
        if self.harness_broken.contains(id) {
            let unusable = avrlab_exec::SandboxError::Unusable("the fake sandbox is broken".into());
            return Err(ValidateError::Build {
                task: id.clone(),
                source: avrlab_build::BuildError::Process(unusable.into()),
            });
        }
        Ok(())
    }

    fn validate(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        _slot: &str,
    ) -> Result<Verdict, ValidateError> {
        self.calls
            .lock()
            .expect("not poisoned")
            .push(Call::Validate(prepared.task.id.clone()));
        let killed = self
            .killed
            .fetch_update(
                std::sync::atomic::Ordering::SeqCst,
                std::sync::atomic::Ordering::SeqCst,
                |left| left.checked_sub(1),
            )
            .is_ok();
        if killed {
            let mut verdict = fake_verdict(Outcome::Indeterminate);
            verdict.errored = Some(avrlab_core::ErrorCause::Killed);
            return Ok(verdict);
        }
        let id = &prepared.task.id;
        let recorded = self.recorded_failures().iter().any(|(task, _)| task == id);
        if !recorded && matches!(candidate, Candidate::Diff(_)) {
            if self.flaky_reference.contains(id) {
                return Ok(failing_verdict(false));
            }
            if self.broken_reference.contains(id) {
                return Ok(failing_verdict(true));
            }
        }
        match (self.rule)(&prepared.task, candidate) {
            Some(outcome) => Ok(fake_verdict(outcome)),
            None => Err(ValidateError::Workspace {
                path: prepared.pristine().to_owned(),
                source: std::io::Error::other("the fake oracle was told to fail"),
            }),
        }
    }
}
