//! Published verdicts beside ours: when a run replays the generations of a published study (the
//! VJBench package's `validation_result`), each sample keeps the label the authors gave it, and
//! the report counts where our verdict agrees with it.

use std::collections::BTreeMap;

use avrlab_core::Outcome;
use serde::Serialize;

/// The labels of VJBench's `validation_result[].correctness`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Serialize)]
pub enum PublishedLabel {
    /// Compiled, and the tests passed (a plausible patch).
    TestSuccess,
    /// Compiled, and a test failed.
    CompileSuccess,
    /// Did not compile.
    Uncompilable,
    /// The tests ran out of time.
    TestTimeout,
}

/// A word that is not a published label.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown published label `{0}` (test_success, compile_success, uncompilable, test_timeout)"
)]
pub struct UnknownLabel(pub String);

impl PublishedLabel {
    pub fn as_str(self) -> &'static str {
        match self {
            Self::TestSuccess => "test_success",
            Self::CompileSuccess => "compile_success",
            Self::Uncompilable => "uncompilable",
            Self::TestTimeout => "test_timeout",
        }
    }

    pub fn parse(word: &str) -> Result<Self, UnknownLabel> {
        match word {
            "test_success" => Ok(Self::TestSuccess),
            "compile_success" => Ok(Self::CompileSuccess),
            "uncompilable" => Ok(Self::Uncompilable),
            "test_timeout" => Ok(Self::TestTimeout),
            other => Err(UnknownLabel(other.to_owned())),
        }
    }

    /// The published label our outcome corresponds to; `None` for `Indeterminate` (the evidence
    /// supports no verdict).
    pub fn of_outcome(outcome: Outcome) -> Option<Self> {
        match outcome {
            Outcome::Plausible => Some(Self::TestSuccess),
            Outcome::PovFailing | Outcome::RegressionBroken => Some(Self::CompileSuccess),
            // VJBench counts a patch that cannot be applied as one that does not compile.
            Outcome::Uncompilable | Outcome::ApplyFailed => Some(Self::Uncompilable),
            Outcome::Timeout => Some(Self::TestTimeout),
            Outcome::Indeterminate => None,
        }
    }
}

/// Our verdicts against the published labels of one replayed run.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct PublishedAgreement {
    /// Samples with both a published label and a verdict of ours.
    pub compared: usize,
    /// Of those, where our outcome maps to the same label.
    pub agree: usize,
    /// Plausible (`test_success`) by both, by ours only, by the published only.
    pub plausible_both: usize,
    pub plausible_ours_only: usize,
    pub plausible_published_only: usize,
    /// Tasks with at least one `test_success` sample in the publication.
    pub published_plausible_tasks: usize,
    /// (our label or `indeterminate`, published label) → samples.
    pub table: BTreeMap<String, usize>,
    /// Published files or tasks that could not be replayed, with the reason.
    pub unmapped: Vec<String>,
}

impl PublishedAgreement {
    /// One sentence: how our verdicts compare with the published labels of replayed run `run`.
    pub fn describe(&self, run: &str) -> String {
        let share = if self.compared == 0 {
            "-".to_owned()
        } else {
            format!("{:.1}%", self.agree as f64 / self.compared as f64 * 100.0)
        };
        format!(
            "{run}: our verdicts agree with the published labels on {} of {} samples ({share}); plausible by both {}, by ours only {}, by the published only {}; tasks with a published plausible patch: {}",
            self.agree,
            self.compared,
            self.plausible_both,
            self.plausible_ours_only,
            self.plausible_published_only,
            self.published_plausible_tasks
        )
    }
}
