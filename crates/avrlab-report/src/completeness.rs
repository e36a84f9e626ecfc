//! How complete an eval run is: of the samples its plan registers, how many earned a verdict,
//! how many the model failed, how many were errored (the model was not heard: left out of every
//! score's denominator) and why, and how many were asked more than once. Every eval summary and
//! report shows it as one line, so that a score is never read without its denominator.

use std::collections::BTreeMap;

use avrlab_store::{ErrorCause, GenerationRow, ItemClass};
use serde::Serialize;

/// The counts behind a run's completeness line.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
pub struct Completeness {
    /// Samples the run's plan asks for (tasks × runs × samples per prompt), or the stored ones
    /// where the plan does not say (a shard's store, a replay).
    pub registered: usize,
    /// Samples whose candidate earned a verdict.
    pub judged: usize,
    /// Samples the model failed: no answer, nothing to judge, a diff that does not apply.
    pub model_failures: usize,
    /// Samples on which the model was not heard; by cause (its stored word), below.
    pub errored: usize,
    pub errored_by_cause: BTreeMap<&'static str, usize>,
    /// Samples whose candidate awaits its verdict (an interrupted run), and samples not asked
    /// yet (a run stopped early): both zero once a run is complete.
    pub awaiting_verdict: usize,
    pub not_asked: usize,
    /// Samples asked more than once (an errored attempt asked again).
    pub retried: usize,
}

impl Completeness {
    /// The completeness of a run whose stored samples are `generations`, its plan registering
    /// `planned` (`None` where it does not say).
    pub fn of(generations: &[GenerationRow], planned: Option<usize>) -> Self {
        let mut counts = Self {
            registered: planned.unwrap_or(0).max(generations.len()),
            ..Self::default()
        };
        counts.not_asked = counts.registered - generations.len();
        for g in generations {
            match g.class {
                Some(ItemClass::Judged) => counts.judged += 1,
                Some(ItemClass::ModelFailure) => counts.model_failures += 1,
                Some(ItemClass::Errored) => {
                    counts.errored += 1;
                    let cause = g.error_cause.map_or("unknown", ErrorCause::as_str);
                    *counts.errored_by_cause.entry(cause).or_default() += 1;
                }
                None => counts.awaiting_verdict += 1,
            }
            if g.attempt > 1 {
                counts.retried += 1;
            }
        }
        counts
    }

    /// Whether every registered sample is judged or the model's failure.
    pub fn is_complete(&self) -> bool {
        self.errored == 0 && self.awaiting_verdict == 0 && self.not_asked == 0
    }

    /// The line every summary shows:
    /// `registered 8 · judged 5 · model failures 1 · errored 2 (http-status 2) · retried 0`, with
    /// the samples awaiting a verdict or not asked yet when there are any.
    pub fn line(&self) -> String {
        let causes: Vec<String> = self
            .errored_by_cause
            .iter()
            .map(|(cause, count)| format!("{cause} {count}"))
            .collect();
        let causes = if causes.is_empty() {
            String::new()
        } else {
            format!(" ({})", causes.join(", "))
        };
        let mut line = format!(
            "registered {} · judged {} · model failures {} · errored {}{causes} · retried {}",
            self.registered, self.judged, self.model_failures, self.errored, self.retried
        );
        if self.awaiting_verdict > 0 {
            line.push_str(&format!(" · awaiting a verdict {}", self.awaiting_verdict));
        }
        if self.not_asked > 0 {
            line.push_str(&format!(" · not asked yet {}", self.not_asked));
        }
        line
    }

    /// What a report of an incomplete run says at its top, `None` for a complete one.
    pub fn warning(&self, run_id: &str) -> Option<String> {
        if self.is_complete() {
            return None;
        }
        let mut parts = Vec::new();
        if self.errored > 0 {
            parts.push(format!(
                "{} errored sample(s), left out of every score (ask them again: avrlab eval … --resume --run {run_id} --retry errored)",
                self.errored
            ));
        }
        if self.awaiting_verdict > 0 {
            parts.push(format!(
                "{} sample(s) awaiting a verdict",
                self.awaiting_verdict
            ));
        }
        if self.not_asked > 0 {
            parts.push(format!("{} sample(s) not asked yet", self.not_asked));
        }
        Some(format!(
            "run `{run_id}` is incomplete: {}",
            parts.join("; ")
        ))
    }
}

#[cfg(test)]
mod tests {
    use avrlab_store::{Correctness, Extraction};

    use super::*;

    fn sample(class: Option<ItemClass>, cause: Option<ErrorCause>, attempt: u32) -> GenerationRow {
        GenerationRow {
            id: String::new(),
            task: "t".into(),
            model: "m".into(),
            format: "chat-p1".into(),
            fl_offset: 0,
            fl_effective: 0,
            run_index: 0,
            sample: 0,
            prompt_hash: String::new(),
            raw: String::new(),
            finish_reason: String::new(),
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            latency_ms: 0,
            cached: false,
            error: None,
            extraction: Extraction::NoAnswer,
            candidate_id: None,
            correct: Correctness::Unknown,
            class,
            error_cause: cause,
            attempt,
        }
    }

    #[test]
    fn every_class_is_counted_and_shown() {
        let rows = [
            sample(Some(ItemClass::Judged), None, 1),
            sample(Some(ItemClass::Judged), None, 2),
            sample(Some(ItemClass::ModelFailure), None, 1),
            sample(Some(ItemClass::Errored), Some(ErrorCause::HttpStatus), 1),
            sample(Some(ItemClass::Errored), Some(ErrorCause::HttpStatus), 1),
            sample(Some(ItemClass::Errored), Some(ErrorCause::Timeout), 2),
            sample(None, None, 1),
        ];
        let counts = Completeness::of(&rows, Some(9));
        assert_eq!(
            counts.line(),
            "registered 9 · judged 2 · model failures 1 · errored 3 (http-status 2, timeout 1) · retried 2 · awaiting a verdict 1 · not asked yet 2"
        );
        assert!(!counts.is_complete());
        assert!(
            counts
                .warning("e")
                .unwrap()
                .starts_with("run `e` is incomplete: 3 errored")
        );
        let complete = Completeness::of(&rows[..3], None);
        assert_eq!(
            complete.line(),
            "registered 3 · judged 2 · model failures 1 · errored 0 · retried 1"
        );
        assert_eq!(complete.warning("e"), None);
    }
}
