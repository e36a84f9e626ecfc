//! A run's score split at its model's training cut-off: the tasks whose fix entered the project's
//! history in or before the cut-off month (the model may have been trained on the fix) against
//! those fixed after it (it cannot have been), each with its Wilson 95% interval, and Fisher's
//! exact test of the difference. Computed from the task cells and the task dates stored with the
//! run.

use std::collections::BTreeMap;

use avrlab_core::Month;
use avrlab_stats::{fisher_exact, wilson};
use avrlab_store::TaskDatesRow;
use serde::Serialize;

use crate::task_cell::TaskCell;

/// A side with fewer tasks than this is "too few tasks to tell": with four tasks or fewer a
/// share's Wilson interval is wider than half the scale, and no difference is significant.
pub const CUTOFF_MIN_TASKS: usize = 5;

/// The tasks of one side of the cut-off and how many the model fixed.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CutoffSide {
    pub tasks: usize,
    pub plausible: usize,
    pub correct: usize,
    /// Wilson 95% interval of the plausible share; `None` without tasks.
    pub plausible_interval: Option<(f64, f64)>,
    /// Wilson 95% interval of the correct share; `None` without tasks.
    pub correct_interval: Option<(f64, f64)>,
}

/// Fisher's exact test of one score, before against after the cut-off.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct CutoffDifference {
    /// The share before minus the share after.
    pub difference: f64,
    /// The two-sided p-value.
    pub p_value: f64,
}

/// A run's scores before and after its model's cut-off.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct CutoffSplit {
    /// The cut-off month (`YYYY-MM`).
    pub cutoff: String,
    /// Tasks fixed in or before the cut-off month.
    pub before: CutoffSide,
    /// Tasks fixed after it.
    pub after: CutoffSide,
    /// Tasks with no stored fix date: on neither side.
    pub undated: usize,
    /// The plausible and correct shares' differences; `None` when a side has fewer than
    /// [`CUTOFF_MIN_TASKS`] tasks (too few tasks to tell).
    pub plausible_difference: Option<CutoffDifference>,
    pub correct_difference: Option<CutoffDifference>,
}

impl CutoffSplit {
    /// Splits the cells of one run (task → cell) at `cutoff` by the stored task dates.
    pub fn of(cells: &BTreeMap<&str, TaskCell>, dates: &[TaskDatesRow], cutoff: Month) -> Self {
        let fixed_in: BTreeMap<&str, Option<Month>> = dates
            .iter()
            .map(|d| {
                let month =
                    avrlab_core::fix_month(d.fix_committed.as_deref(), d.fix_authored.as_deref());
                (d.task.as_str(), month)
            })
            .collect();
        let mut before = Vec::new();
        let mut after = Vec::new();
        let mut undated = 0;
        for (task, cell) in cells {
            match fixed_in.get(task).copied().flatten() {
                Some(month) if month <= cutoff => before.push(*cell),
                Some(_) => after.push(*cell),
                None => undated += 1,
            }
        }
        let (before, after) = (side(&before), side(&after));
        let enough = before.tasks >= CUTOFF_MIN_TASKS && after.tasks >= CUTOFF_MIN_TASKS;
        let difference = |fixed: fn(&CutoffSide) -> usize| {
            enough.then(|| {
                let (b, a) = (fixed(&before), fixed(&after));
                let share = |part: usize, whole: usize| part as f64 / whole as f64;
                CutoffDifference {
                    difference: share(b, before.tasks) - share(a, after.tasks),
                    p_value: fisher_exact(
                        b as u64,
                        (before.tasks - b) as u64,
                        a as u64,
                        (after.tasks - a) as u64,
                    )
                    .p_value,
                }
            })
        };
        Self {
            cutoff: cutoff.to_string(),
            plausible_difference: difference(|s| s.plausible),
            correct_difference: difference(|s| s.correct),
            before,
            after,
            undated,
        }
    }

    /// One line: each side's tasks and scores, and the test of the difference or why there is
    /// none.
    pub fn line(&self) -> String {
        let side = |name: &str, s: &CutoffSide| match s.plausible_interval {
            Some((low, high)) => format!(
                "{name}: {} tasks, {} plausible ({:.0}–{:.0}%), {} correct",
                s.tasks,
                s.plausible,
                low * 100.0,
                high * 100.0,
                s.correct
            ),
            None => format!("{name}: no tasks"),
        };
        let test = match (&self.plausible_difference, &self.correct_difference) {
            (Some(p), Some(c)) => format!(
                "plausible {:+.0} points (Fisher p = {:.3}), correct {:+.0} points (p = {:.3})",
                p.difference * 100.0,
                p.p_value,
                c.difference * 100.0,
                c.p_value
            ),
            _ => format!("too few tasks to tell (each side needs {CUTOFF_MIN_TASKS} or more)"),
        };
        let undated = if self.undated > 0 {
            format!(
                "; {} tasks without a fix date, on neither side",
                self.undated
            )
        } else {
            String::new()
        };
        format!(
            "cut-off {}: {}; {}; {test}{undated}",
            self.cutoff,
            side("fixed before or in that month", &self.before),
            side("after", &self.after)
        )
    }
}

fn side(cells: &[TaskCell]) -> CutoffSide {
    let tasks = cells.len();
    let plausible = cells.iter().filter(|c| **c != TaskCell::NotFixed).count();
    let correct = cells.iter().filter(|c| **c == TaskCell::Correct).count();
    let interval = |fixed: usize| {
        wilson(fixed as u64, tasks as u64, 0.95)
            .ok()
            .map(|i| (i.lower, i.upper))
    };
    CutoffSide {
        tasks,
        plausible,
        correct,
        plausible_interval: interval(plausible),
        correct_interval: interval(correct),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn dated(task: &str, committed: Option<&str>) -> TaskDatesRow {
        TaskDatesRow {
            task: task.into(),
            fix_committed: committed.map(str::to_owned),
            ..TaskDatesRow::default()
        }
    }

    #[test]
    fn tasks_split_at_the_cutoff_month_and_small_sides_are_not_tested() {
        let names: Vec<String> = (0..12).map(|i| format!("t{i}")).collect();
        let mut cells = BTreeMap::new();
        let mut dates = Vec::new();
        for (i, name) in names.iter().enumerate() {
            // Six tasks fixed up to the cut-off month (all fixed by the model), six after it
            // (one fixed), one undated.
            let (date, cell) = if i < 6 {
                (
                    format!("2023-{:02}-30T23:00:00-05:00", 5 + i),
                    TaskCell::Correct,
                )
            } else if i < 11 {
                (format!("2024-0{}-01", i - 5), TaskCell::NotFixed)
            } else {
                (String::new(), TaskCell::Plausible)
            };
            cells.insert(name.as_str(), cell);
            dates.push(dated(name, (!date.is_empty()).then_some(date.as_str())));
        }
        cells.insert("t-extra", TaskCell::Plausible);
        dates.push(dated("t-extra", Some("2024-06-02")));
        let split = CutoffSplit::of(&cells, &dates, "2023-10".parse().unwrap());
        assert_eq!(
            (split.before.tasks, split.after.tasks, split.undated),
            (6, 6, 1)
        );
        assert_eq!((split.before.correct, split.after.plausible), (6, 1));
        let test = split.plausible_difference.unwrap();
        // Fisher of [[6, 0], [1, 5]]: (C(6,6)C(6,1) + C(6,1)C(6,6)) / C(12,7) = 12/792.
        assert!((test.p_value - 12.0 / 792.0).abs() < 1e-12, "{test:?}");
        assert!(
            split.line().contains("Fisher p = 0.015"),
            "{}",
            split.line()
        );

        let early = CutoffSplit::of(&cells, &dates, "2023-06".parse().unwrap());
        assert_eq!(early.before.tasks, 2);
        assert!(early.plausible_difference.is_none());
        assert!(
            early.line().contains("too few tasks to tell"),
            "{}",
            early.line()
        );
    }
}
