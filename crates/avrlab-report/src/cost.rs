//! What an eval run's answers cost: the dollars of every sample on which the model was heard,
//! summed where known. A sample whose cost is not known (no price, a server that sent no usage,
//! an agent that reported none) makes the total unknown — shown as "unknown", never as 0 — and
//! the known part is named beside it. Answers from the response cache were paid when first
//! asked: they count in the run's cost and not in what this run spent.

use avrlab_core::ModelPrice;
use avrlab_store::{GenerationRow, ItemClass};
use serde::Serialize;

/// The cost of a run's heard samples.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CostSummary {
    /// The total in dollars, `None` when some heard sample's cost is not known.
    pub usd: Option<f64>,
    /// The dollars of the samples whose cost is known.
    pub known_usd: f64,
    /// Heard samples whose cost is known, and those whose cost is not.
    pub known_samples: usize,
    pub unknown_samples: usize,
    /// What the run paid itself: the known cost of samples not served from the response cache.
    pub spent_usd: f64,
    /// The model's price as the run stored it, with the day it was read.
    pub price: Option<ModelPrice>,
}

impl CostSummary {
    /// The cost of `generations` (errored samples, on which the model was not heard, have none),
    /// at the stored `price`.
    pub fn of(generations: &[GenerationRow], price: Option<&ModelPrice>) -> Self {
        let mut summary = Self {
            price: price.cloned(),
            ..Self::default()
        };
        for g in generations
            .iter()
            .filter(|g| g.class != Some(ItemClass::Errored))
        {
            match g.cost_usd {
                Some(cost) => {
                    summary.known_samples += 1;
                    summary.known_usd += cost;
                    if !g.cached {
                        summary.spent_usd += cost;
                    }
                }
                None => summary.unknown_samples += 1,
            }
        }
        summary.usd = (summary.unknown_samples == 0 && summary.known_samples > 0)
            .then_some(summary.known_usd);
        summary
    }

    /// The table cell: `$0.0123`, or `unknown` (with the known part when there is one).
    pub fn cell(&self) -> String {
        match self.usd {
            Some(usd) => dollars(usd),
            None if self.known_samples == 0 => "unknown".to_owned(),
            None => format!(
                "unknown ({} for {} of {} samples)",
                dollars(self.known_usd),
                self.known_samples,
                self.known_samples + self.unknown_samples
            ),
        }
    }

    /// The line under the tables: the cost, what the run paid itself, and the price it used.
    pub fn line(&self) -> String {
        let mut line = format!("{} · spent {}", self.cell(), dollars(self.spent_usd));
        if let Some(price) = &self.price {
            line.push_str(&format!(" · price {price}"));
        }
        line
    }
}

/// Dollars with four decimals (a cheap model's sample costs a fraction of a cent).
pub(crate) fn dollars(usd: f64) -> String {
    format!("${usd:.4}")
}

#[cfg(test)]
mod tests {
    use avrlab_store::{Correctness, ErrorCause, Extraction};

    use super::*;

    fn sample(cost: Option<f64>, cached: bool, class: ItemClass) -> GenerationRow {
        GenerationRow {
            id: "s".into(),
            task: "t".into(),
            model: "m".into(),
            format: "chat-p1".into(),
            fl_offset: 0,
            fl_effective: 0,
            run_index: 0,
            sample: 0,
            prompt_hash: "h".into(),
            raw: String::new(),
            finish_reason: "stop".into(),
            tokens_in: None,
            tokens_out: None,
            cost_usd: cost,
            latency_ms: 0,
            cached,
            error: None,
            extraction: Extraction::NoCode,
            candidate_id: None,
            correct: Correctness::Unknown,
            class: Some(class),
            error_cause: (class == ItemClass::Errored).then_some(ErrorCause::HttpStatus),
            attempt: 1,
        }
    }

    #[test]
    fn a_cost_is_known_only_when_every_heard_sample_has_one() {
        let heard = ItemClass::ModelFailure;
        let known = CostSummary::of(
            &[
                sample(Some(0.25), false, heard),
                sample(Some(0.5), true, heard),
                // The model was not heard: no cost, and no unknown one either.
                sample(None, false, ItemClass::Errored),
            ],
            None,
        );
        assert_eq!(known.usd, Some(0.75));
        assert_eq!(known.spent_usd, 0.25);
        assert_eq!(known.cell(), "$0.7500");
        assert_eq!(known.line(), "$0.7500 · spent $0.2500");

        let partly = CostSummary::of(
            &[sample(Some(0.25), false, heard), sample(None, false, heard)],
            None,
        );
        assert_eq!(partly.usd, None);
        assert_eq!(partly.cell(), "unknown ($0.2500 for 1 of 2 samples)");
        let none = CostSummary::of(&[sample(None, false, heard)], None);
        assert_eq!(none.cell(), "unknown");
        assert_eq!(CostSummary::of(&[], None).cell(), "unknown");
    }
}
