//! How a run tells what it does: its progress as it goes, and an error with its causes on one
//! line.

use avrlab_validate::Verdict;

use crate::run::input::PlannedCandidate;

/// Receives progress as the run goes.
pub trait Progress: Sync {
    /// A line of status (preparation, warm-up).
    fn message(&self, text: &str);
    /// Validation starts: `total` candidates, `done` of them already decided.
    fn start(&self, total: usize, done: usize);
    /// A verdict was stored.
    fn verdict(&self, candidate: &PlannedCandidate, verdict: &Verdict);
    /// The run ended.
    fn finish(&self);
}

/// An error with its causes, on one line.
pub(crate) fn error_chain(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut source = error.source();
    while let Some(cause) = source {
        let cause_text = cause.to_string();
        if !text.contains(&cause_text) {
            text.push_str(": ");
            text.push_str(&cause_text);
        }
        source = cause.source();
    }
    text
}
