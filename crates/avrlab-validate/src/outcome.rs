//! Outcomes and the evidence stored with them.

use std::time::Duration;

use avrlab_build::TestStatus;
pub use avrlab_core::{CheckKind, Engine, ErrorCause, Outcome, Phase};
use avrlab_exec::ExitKind;

/// One test's result within a phase.
#[derive(Debug, Clone, PartialEq)]
pub struct TestRecord {
    pub phase: Phase,
    pub class: String,
    pub method: String,
    pub status: TestStatus,
    pub seconds: f64,
    pub message: String,
}

/// What one phase did.
#[derive(Debug, Clone)]
pub struct PhaseRecord {
    pub phase: Phase,
    pub wall: Duration,
    /// How the phase's process ended, e.g. `exit 1`, `timed out`.
    pub exit: String,
    /// The end of its log (the whole log can be megabytes).
    pub log_excerpt: String,
    /// Which sandbox and limits applied.
    pub enforcement: String,
}

/// The fast path's verdict next to Maven's for the same candidate. Maven's is the one stored as
/// the candidate's verdict; a disagreement is kept and reported, never dropped.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CrossCheck {
    pub kind: CheckKind,
    pub fast: Outcome,
    pub fast_reason: String,
    pub maven: Outcome,
}

impl CrossCheck {
    /// Both engines gave the same outcome.
    pub fn agrees(&self) -> bool {
        self.fast == self.maven
    }
}

/// Which engine decided a verdict.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EngineRecord {
    /// The engine that decided (`None`: a stand-in oracle's, stored without an engine row).
    pub engine: Option<Engine>,
    /// Why the fast path handed the candidate to Maven, when it did.
    pub fallback: Option<String>,
    pub cross_check: Option<CrossCheck>,
    /// Why the candidate was flagged for Maven (what its code reached for at run time or adds
    /// in its diff); empty when it was not.
    pub flags: Vec<String>,
}

/// An outcome and its evidence.
#[derive(Debug, Clone)]
pub struct Verdict {
    pub outcome: Outcome,
    /// One line on why: the failing test, the first compiler error, the inconsistency found.
    pub reason: String,
    pub tests: Vec<TestRecord>,
    pub diagnostics: Vec<String>,
    pub phases: Vec<PhaseRecord>,
    pub wall: Duration,
    /// Which engine decided, and the other engine's view where it was asked too.
    pub engine: EngineRecord,
    /// Why the infrastructure, not the candidate, left this verdict undecided (the outcome is then
    /// `Indeterminate`): the item is errored, in no denominator, and `--retry errored` validates
    /// it again. `None` for a verdict the candidate earned.
    pub errored: Option<ErrorCause>,
    /// A feature task's two groups of tests (`None` for a repair task, whose groups are its
    /// phases).
    pub feature: Option<FeatureScore>,
}

impl Verdict {
    /// A verdict not yet decided by `engine`: `Indeterminate` with no evidence, which a pipeline
    /// fills in phase by phase.
    pub(crate) fn undecided(engine: Engine) -> Self {
        Self {
            outcome: Outcome::Indeterminate,
            reason: String::new(),
            tests: Vec::new(),
            diagnostics: Vec::new(),
            phases: Vec::new(),
            wall: Duration::ZERO,
            engine: EngineRecord {
                engine: Some(engine),
                ..EngineRecord::default()
            },
            errored: None,
            feature: None,
        }
    }
}

impl Verdict {
    /// The verdict of a validation the infrastructure failed for `cause` before any evidence
    /// was gathered (a write that found the disk full): errored, `Indeterminate`.
    /// No engine decided it, so none is named.
    pub fn errored(cause: ErrorCause, reason: String) -> Self {
        let mut verdict = Self::undecided(Engine::Maven);
        verdict.engine = EngineRecord::default();
        verdict.errored = Some(cause);
        verdict.reason = reason;
        verdict
    }
}

/// How a process of a phase ended, as the phase records and reasons say it.
pub(crate) fn exit_text(exit: ExitKind) -> String {
    match exit {
        ExitKind::Code(c) => format!("exit {c}"),
        ExitKind::Signal(s) => format!("signal {s}"),
        ExitKind::TimedOut => "timed out (process tree killed)".into(),
        ExitKind::OutputLimit => "output limit (process tree killed)".into(),
        ExitKind::DiskLimit => "disk limit (process tree killed)".into(),
        ExitKind::Idle { seconds } => {
            format!("hung: no CPU and no output for {seconds} s (process tree killed)")
        }
    }
}

/// How a feature prediction's two groups of tests ended: what the verdict of a feature task
/// carries beside its outcome.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureScore {
    /// The whole suite but the security tests, against the task's expected failures.
    pub functional: Judged,
    /// The task's security tests.
    pub security: Judged,
}

/// How one judged group of tests ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Judged {
    Pass,
    /// A test of the group failed (the reason names it).
    Fail(String),
    /// The evidence does not say (no test ran, a test did not run, unusable reports, a timeout).
    Undecided(String),
}

impl Judged {
    /// `pass`, `fail` or `undecided`, as printed and stored.
    pub fn as_str(&self) -> &'static str {
        match self {
            Self::Pass => "pass",
            Self::Fail(_) => "fail",
            Self::Undecided(_) => "undecided",
        }
    }

    /// The reason, empty for a pass.
    pub fn reason(&self) -> &str {
        match self {
            Self::Pass => "",
            Self::Fail(r) | Self::Undecided(r) => r,
        }
    }
}
