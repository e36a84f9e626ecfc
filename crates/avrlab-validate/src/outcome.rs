//! Outcomes and the evidence stored with them.

use std::fmt;
use std::time::Duration;

use avrlab_exec::TestStatus;

/// What validating one candidate showed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Outcome {
    /// The candidate does not apply, or touches files it may not change.
    ApplyFailed,
    /// The project does not compile with the candidate.
    Uncompilable,
    /// A proof-of-vulnerability test still fails: the vulnerability is not fixed.
    PovFailing,
    /// The PoV tests pass but a regression test fails.
    RegressionBroken,
    /// A build or test run outlived its limit and was killed.
    Timeout,
    /// Every oracle test passes.
    Plausible,
    /// The evidence does not support a verdict (no test ran, reports disagree with the build, a
    /// test was skipped, the tree was killed for its output).
    Indeterminate,
}

impl Outcome {
    /// Every outcome, in report order.
    pub const ALL: [Self; 7] = [
        Self::Plausible,
        Self::PovFailing,
        Self::RegressionBroken,
        Self::Uncompilable,
        Self::ApplyFailed,
        Self::Timeout,
        Self::Indeterminate,
    ];

    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::ApplyFailed => "ApplyFailed",
            Self::Uncompilable => "Uncompilable",
            Self::PovFailing => "PovFailing",
            Self::RegressionBroken => "RegressionBroken",
            Self::Timeout => "Timeout",
            Self::Plausible => "Plausible",
            Self::Indeterminate => "Indeterminate",
        }
    }

    /// Reads a stored name.
    pub fn parse(text: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|o| o.as_str() == text)
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A stage of validation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Apply,
    Compile,
    Pov,
    Regression,
}

impl Phase {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Apply => "apply",
            Self::Compile => "compile",
            Self::Pov => "pov",
            Self::Regression => "regression",
        }
    }
}

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

/// Why a candidate was judged by both engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    /// The fast path's PoV tests passed and `--confirm all` has Maven confirm every such verdict.
    Confirmation,
    /// The candidate fell in the random sample of verdicts Maven re-judges.
    Sample,
    /// Something the candidate's code reached for, at run time or in its diff, could forge or
    /// spoil the fast path's answer (the reasons are in [`EngineRecord::flags`]).
    Flag,
    /// The engines disagreed on an earlier candidate of the same task.
    Disagreement,
}

impl CheckKind {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Confirmation => "confirmation",
            Self::Sample => "sample",
            Self::Flag => "flag",
            Self::Disagreement => "disagreement",
        }
    }

    /// The kind of a stored name.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "confirmation" => Some(Self::Confirmation),
            "sample" => Some(Self::Sample),
            "flag" => Some(Self::Flag),
            "disagreement" => Some(Self::Disagreement),
            _ => None,
        }
    }
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
    /// `maven` or `fast`.
    pub engine: String,
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
}

impl Verdict {
    /// A verdict not yet decided by `engine`: `Indeterminate` with no evidence, which a pipeline
    /// fills in phase by phase.
    pub(crate) fn undecided(engine: &str) -> Self {
        Self {
            outcome: Outcome::Indeterminate,
            reason: String::new(),
            tests: Vec::new(),
            diagnostics: Vec::new(),
            phases: Vec::new(),
            wall: Duration::ZERO,
            engine: EngineRecord {
                engine: engine.into(),
                ..EngineRecord::default()
            },
        }
    }
}
