//! How far a run's fast verdicts were re-judged by Maven, and what came of it: the count per
//! reason, the share on which the engines agreed (with its 95% Wilson interval), every
//! disagreement with both views, and the Plausible verdicts that a flag sent to Maven. Computed
//! from the store's `engines` rows only.

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;

use avrlab_core::{CheckKind, Engine, Outcome};
use avrlab_store::EngineRow;
use serde::Serialize;

/// A candidate on which the engines disagreed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Disagreement {
    pub candidate: String,
    /// Why Maven re-judged it.
    pub kind: CheckKind,
    pub fast: Outcome,
    pub maven: Outcome,
    /// The verdict stored (`None`: the candidate has no verdict).
    pub stored: Option<Outcome>,
}

/// The engines' record of one or more runs.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct EngineChecks {
    /// Verdicts the fast path judged (alone, or with Maven re-judging them).
    pub fast_judged: usize,
    /// Of those, the ones Maven re-judged.
    pub rejudged: usize,
    /// Re-judged verdicts per reason (by its word, so they list alphabetically).
    pub by_kind: BTreeMap<&'static str, usize>,
    /// Re-judged verdicts on which both engines gave the same outcome.
    pub agreed: usize,
    /// The share agreed, with its 95% Wilson interval (`None` when nothing was re-judged).
    pub agreement: Option<(f64, f64, f64)>,
    /// Candidates the fast path handed to Maven whole (a task or candidate it cannot take).
    pub handed_over: usize,
    pub disagreements: Vec<Disagreement>,
    /// Stored Plausible verdicts whose candidate was flagged (first in the audit queue).
    pub flagged_plausible: Vec<String>,
}

impl EngineChecks {
    /// From `(candidate id, engine row)` pairs and each candidate's stored outcome.
    pub fn from_rows(rows: &[(String, EngineRow)], outcomes: &HashMap<String, Outcome>) -> Self {
        let mut checks = Self::default();
        for (candidate, row) in rows {
            if row.fallback.is_some() {
                checks.handed_over += 1;
                continue;
            }
            let stored = outcomes.get(candidate).copied();
            if !row.flags.is_empty() && stored == Some(Outcome::Plausible) {
                checks.flagged_plausible.push(candidate.clone());
            }
            match (row.check_kind, row.fast_outcome, row.maven_outcome) {
                (Some(kind), Some(fast), Some(maven)) => {
                    checks.fast_judged += 1;
                    checks.rejudged += 1;
                    *checks.by_kind.entry(kind.as_str()).or_default() += 1;
                    if fast == maven {
                        checks.agreed += 1;
                    } else {
                        checks.disagreements.push(Disagreement {
                            candidate: candidate.clone(),
                            kind,
                            fast,
                            maven,
                            stored,
                        });
                    }
                }
                _ if row.engine == Engine::Fast => checks.fast_judged += 1,
                _ => {}
            }
        }
        checks.agreement = avrlab_stats::wilson(checks.agreed as u64, checks.rejudged as u64, 0.95)
            .ok()
            .map(|i| (i.estimate, i.lower, i.upper));
        checks
    }

    /// Whether any verdict involved the fast path.
    pub fn any(&self) -> bool {
        self.fast_judged + self.handed_over > 0
    }

    /// The record as lines of text, the disagreements and flagged Plausibles one per line.
    pub fn lines(&self) -> Vec<String> {
        let mut lines = Vec::new();
        let kinds: Vec<String> = self
            .by_kind
            .iter()
            .map(|(kind, n)| format!("{kind} {n}"))
            .collect();
        let mut head = format!(
            "Maven re-judged {} of {} fast verdicts",
            self.rejudged, self.fast_judged
        );
        if !kinds.is_empty() {
            let _ = write!(head, " ({})", kinds.join(", "));
        }
        if let Some((share, lower, upper)) = self.agreement {
            let _ = write!(
                head,
                "; the engines agreed on {} ({:.0}%, 95% CI {:.0}–{:.0}%)",
                self.agreed,
                share * 100.0,
                lower * 100.0,
                upper * 100.0
            );
        }
        if self.handed_over > 0 {
            let _ = write!(head, "; {} handed to Maven whole", self.handed_over);
        }
        lines.push(head);
        for d in &self.disagreements {
            lines.push(format!(
                "disagreement ({}): {}: fast {}, Maven {}, stored {}",
                d.kind,
                d.candidate,
                d.fast,
                d.maven,
                d.stored.map_or("none", Outcome::as_str)
            ));
        }
        for id in &self.flagged_plausible {
            lines.push(format!("flagged Plausible (audit first): {id}"));
        }
        lines
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A row of `engine`; with a check, the fast and Maven outcomes of it.
    fn row(
        engine: Engine,
        check: Option<(CheckKind, Outcome, Outcome)>,
        flags: &[&str],
    ) -> EngineRow {
        EngineRow {
            engine,
            fallback: None,
            check_kind: check.map(|c| c.0),
            fast_outcome: check.map(|c| c.1),
            fast_reason: None,
            maven_outcome: check.map(|c| c.2),
            flags: flags.iter().map(|f| (*f).to_owned()).collect(),
        }
    }

    #[test]
    fn counts_rejudged_verdicts_agreement_and_every_disagreement() {
        let rows = vec![
            ("t/a".to_owned(), row(Engine::Fast, None, &[])),
            (
                "t/b".to_owned(),
                row(
                    Engine::Maven,
                    Some((CheckKind::Sample, Outcome::PovFailing, Outcome::PovFailing)),
                    &[],
                ),
            ),
            (
                "t/c".to_owned(),
                row(
                    Engine::Maven,
                    Some((CheckKind::Flag, Outcome::PovFailing, Outcome::Plausible)),
                    &["the tests opened /proc/self/mem"],
                ),
            ),
            (
                "t/d".to_owned(),
                row(
                    Engine::Maven,
                    Some((
                        CheckKind::Disagreement,
                        Outcome::Plausible,
                        Outcome::Plausible,
                    )),
                    &[],
                ),
            ),
            (
                "t/e".to_owned(),
                EngineRow {
                    fallback: Some("the candidate deletes A.java".into()),
                    ..EngineRow::decided_by(Engine::Maven)
                },
            ),
        ];
        let outcomes: HashMap<String, Outcome> =
            [("t/c", Outcome::Indeterminate), ("t/d", Outcome::Plausible)]
                .into_iter()
                .map(|(a, b)| (a.to_owned(), b))
                .collect();
        let checks = EngineChecks::from_rows(&rows, &outcomes);
        assert_eq!(
            (checks.fast_judged, checks.rejudged, checks.agreed),
            (4, 3, 2)
        );
        assert_eq!(checks.handed_over, 1);
        assert_eq!(checks.disagreements.len(), 1);
        assert!(
            checks.flagged_plausible.is_empty(),
            "t/c was not stored Plausible"
        );
        let lines = checks.lines();
        assert!(
            lines[0].starts_with(
                "Maven re-judged 3 of 4 fast verdicts (disagreement 1, flag 1, sample 1); the engines agreed on 2 (67%, 95% CI"
            ),
            "{}",
            lines[0]
        );
        assert!(
            lines[0].ends_with("; 1 handed to Maven whole"),
            "{}",
            lines[0]
        );
        assert_eq!(
            lines[1],
            "disagreement (flag): t/c: fast PovFailing, Maven Plausible, stored Indeterminate"
        );
    }

    #[test]
    fn a_run_without_the_fast_path_has_nothing_to_say() {
        let rows = vec![("t/a".to_owned(), row(Engine::Maven, None, &[]))];
        let checks = EngineChecks::from_rows(&rows, &HashMap::new());
        assert!(!checks.any());
        assert_eq!(checks.agreement, None);
    }
}
