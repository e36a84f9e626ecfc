//! The memorization probe beside a run's score: of the run's tasks that `avrlab probe` scored for
//! its model on its benchmark, how many the model had memorized, how many of those and of the
//! others it fixed, Fisher's exact test of the difference, the mean drop in the fix's
//! log-likelihood under renaming, and per task the probe's score against the run's plausible
//! rate, with Pearson's correlation of the two and its interval.

use std::collections::{BTreeMap, HashMap};

use avrlab_stats::{fisher_exact, pearson};
use avrlab_store::ProbeScoreRow;
use serde::Serialize;

use crate::task_cell::TaskCell;

/// A run's tasks split by the probe's verdict.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbeSummary {
    /// The run's tasks that have a probe score.
    pub probed: usize,
    /// Of those, memorized, and how many of them the run fixed (plausible).
    pub memorized: usize,
    pub memorized_plausible: usize,
    /// The probed tasks not memorized, and how many of them the run fixed.
    pub other_plausible: usize,
    /// Fisher's exact test of plausible share, memorized against not; `None` when one group is
    /// empty.
    pub p_value: Option<f64>,
    /// The mean of (log-likelihood as is − renamed) over the tasks that have both.
    pub mean_rename_drop: Option<f64>,
    /// Each probed task's score and plausible rate (the points of the report's plot), by task.
    pub points: Vec<ProbePoint>,
    /// Pearson's correlation of the points' score and rate; `None` with fewer than four points or
    /// when either has the same value throughout (then `no_correlation` says which).
    pub correlation: Option<ProbeCorrelation>,
    /// Why there is no correlation, when there is none.
    pub no_correlation: Option<String>,
}

/// One probed task: how much of the fix the probe's continuation reproduced, and how often the
/// run fixed the task.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProbePoint {
    pub task: String,
    /// The share of the fix window's tokens the continuation reproduced before it first differed
    /// (0 to 1).
    pub score: f64,
    /// The share of the task's heard samples that were Plausible.
    pub plausible_rate: f64,
}

/// Pearson's r of probe score and plausible rate over the probed tasks, its two-sided p-value
/// and 95% interval (Fisher's z).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ProbeCorrelation {
    pub tasks: usize,
    pub r: f64,
    pub p_value: f64,
    pub interval: (f64, f64),
}

impl ProbeSummary {
    /// The summary of `cells` (task → cell) and `rates` (task → share of its heard samples that
    /// were Plausible) by `scores`; `None` when no task of the run was probed.
    pub fn of(
        cells: &HashMap<String, TaskCell>,
        rates: &HashMap<String, f64>,
        scores: &[ProbeScoreRow],
    ) -> Option<Self> {
        let by_task: BTreeMap<&str, &ProbeScoreRow> =
            scores.iter().map(|s| (s.task.as_str(), s)).collect();
        let probed: Vec<(&ProbeScoreRow, bool)> = cells
            .iter()
            .filter_map(|(task, cell)| {
                by_task
                    .get(task.as_str())
                    .map(|s| (*s, *cell != TaskCell::NotFixed))
            })
            .collect();
        if probed.is_empty() {
            return None;
        }
        let memorized = probed.iter().filter(|(s, _)| s.memorized).count();
        let memorized_plausible = probed.iter().filter(|(s, p)| s.memorized && *p).count();
        let other_plausible = probed.iter().filter(|(s, p)| !s.memorized && *p).count();
        let others = probed.len() - memorized;
        let p_value = (memorized > 0 && others > 0).then(|| {
            fisher_exact(
                memorized_plausible as u64,
                (memorized - memorized_plausible) as u64,
                other_plausible as u64,
                (others - other_plausible) as u64,
            )
            .p_value
        });
        let drops: Vec<f64> = probed
            .iter()
            .filter_map(|(s, _)| {
                s.fix_log_likelihood
                    .zip(s.renamed_log_likelihood)
                    .map(|(plain, renamed)| plain - renamed)
            })
            .collect();
        let mean_rename_drop =
            (!drops.is_empty()).then(|| drops.iter().sum::<f64>() / drops.len() as f64);
        let mut points: Vec<ProbePoint> = probed
            .iter()
            .filter(|(s, _)| s.tokens_compared > 0)
            .filter_map(|(s, _)| {
                rates.get(&s.task).map(|rate| ProbePoint {
                    task: s.task.clone(),
                    score: f64::from(s.fix_tokens) / f64::from(s.tokens_compared),
                    plausible_rate: *rate,
                })
            })
            .collect();
        points.sort_by(|a, b| a.task.cmp(&b.task));
        let xs: Vec<f64> = points.iter().map(|p| p.score).collect();
        let ys: Vec<f64> = points.iter().map(|p| p.plausible_rate).collect();
        let (correlation, no_correlation) = match pearson(&xs, &ys, 0.95) {
            Ok(c) => (
                Some(ProbeCorrelation {
                    tasks: c.n,
                    r: c.r,
                    p_value: c.p_value,
                    interval: (c.lower, c.upper),
                }),
                None,
            ),
            Err(e) => (None, Some(e.to_string())),
        };
        Some(Self {
            probed: probed.len(),
            memorized,
            memorized_plausible,
            other_plausible,
            p_value,
            mean_rename_drop,
            points,
            correlation,
            no_correlation,
        })
    }

    /// One line for the report.
    pub fn line(&self) -> String {
        let others = self.probed - self.memorized;
        let test = self.p_value.map_or_else(
            || "no test (one group is empty)".to_owned(),
            |p| format!("Fisher p = {p:.3}"),
        );
        let drop = self.mean_rename_drop.map_or_else(String::new, |d| {
            format!("; mean log-likelihood drop under renaming {d:.3}")
        });
        let correlation = match (&self.correlation, &self.no_correlation) {
            (Some(c), _) => format!(
                "; probe score against plausible rate over {} tasks: r = {:.2} (95% CI {:.2} to {:.2}, p = {:.3})",
                c.tasks, c.r, c.interval.0, c.interval.1, c.p_value
            ),
            (None, Some(why)) => {
                format!("; no correlation of probe score and plausible rate ({why})")
            }
            (None, None) => String::new(),
        };
        format!(
            "{} of {} probed tasks memorized ({} of them fixed), {} of the other {others} fixed; {test}{drop}{correlation}",
            self.memorized, self.probed, self.memorized_plausible, self.other_plausible
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn score(
        task: &str,
        memorized: bool,
        plain: Option<f64>,
        renamed: Option<f64>,
    ) -> ProbeScoreRow {
        ProbeScoreRow {
            benchmark: "b".into(),
            model: "m".into(),
            task: task.into(),
            file: "A.java".into(),
            line: 1,
            lines_compared: 5,
            tokens_compared: 10,
            fix_lines: if memorized { 5 } else { 0 },
            fix_tokens: if memorized { 10 } else { 0 },
            vulnerable_lines: 0,
            vulnerable_tokens: 0,
            memorized,
            fix_log_likelihood: plain,
            renamed_log_likelihood: renamed,
            continuation: String::new(),
            note: String::new(),
        }
    }

    #[test]
    fn memorized_and_other_tasks_are_compared() {
        let cells = HashMap::from([
            ("a".to_owned(), TaskCell::Correct),
            ("b".to_owned(), TaskCell::Plausible),
            ("c".to_owned(), TaskCell::NotFixed),
            ("d".to_owned(), TaskCell::NotFixed),
            ("unprobed".to_owned(), TaskCell::Correct),
        ]);
        let scores = [
            score("a", true, Some(-0.5), Some(-2.5)),
            score("b", true, None, None),
            score("c", false, Some(-2.0), Some(-3.0)),
            score("d", false, None, None),
            score("elsewhere", true, None, None),
        ];
        let rates = HashMap::from([
            ("a".to_owned(), 0.75),
            ("b".to_owned(), 0.5),
            ("c".to_owned(), 0.0),
            ("d".to_owned(), 0.0),
        ]);
        let summary = ProbeSummary::of(&cells, &rates, &scores).unwrap();
        assert_eq!(
            (
                summary.probed,
                summary.memorized,
                summary.memorized_plausible,
                summary.other_plausible
            ),
            (4, 2, 2, 0)
        );
        // Fisher of [[2, 0], [0, 2]]: 2 / C(4, 2) = 1/3.
        assert!((summary.p_value.unwrap() - 1.0 / 3.0).abs() < 1e-12);
        assert!((summary.mean_rename_drop.unwrap() - 1.5).abs() < 1e-12);
        assert!(summary.line().starts_with("2 of 4 probed tasks memorized (2 of them fixed), 0 of the other 2 fixed; Fisher p = 0.333"), "{}", summary.line());
        // Scores 10/10, 10/10, 0/10, 0/10 against rates 0.75, 0.5, 0, 0: r = 5/sqrt(27).
        let c = summary.correlation.unwrap();
        assert_eq!(c.tasks, 4);
        assert!((c.r - 5.0 / 27f64.sqrt()).abs() < 1e-12, "{c:?}");
        assert!(
            summary.line().contains("over 4 tasks: r = 0.96"),
            "{}",
            summary.line()
        );
        assert_eq!(summary.points[0].task, "a");
        assert!(ProbeSummary::of(&cells, &rates, &[]).is_none());
        let few = ProbeSummary::of(&cells, &rates, &scores[..2]).unwrap();
        assert!(few.correlation.is_none());
        assert!(
            few.line()
                .ends_with("(2 pairs: a correlation's interval needs at least 4)"),
            "{}",
            few.line()
        );
    }
}
