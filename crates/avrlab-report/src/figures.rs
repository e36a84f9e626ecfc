//! The data behind the report's plots, derived from an [`EvalReport`] alone: shares of tasks with
//! their Wilson intervals, the per-CWE heat map, and the series that show the effect of FL offsets
//! and of transformed benchmarks. Kept apart from drawing so that every plotted number is tested.

use std::collections::{BTreeMap, BTreeSet};

use avrlab_stats::wilson;

use crate::eval_report::{EvalReport, ModelSummary, TaskCell};

/// A share of tasks with its 95% Wilson interval.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Share {
    pub part: usize,
    pub whole: usize,
    pub estimate: f64,
    pub lower: f64,
    pub upper: f64,
}

impl Share {
    /// `part` of `whole`; an empty whole is a share of 0 with the interval [0, 1].
    pub fn of(part: usize, whole: usize) -> Self {
        match wilson(part as u64, whole as u64, 0.95) {
            Ok(i) => Self {
                part,
                whole,
                estimate: i.estimate,
                lower: i.lower,
                upper: i.upper,
            },
            Err(_) => Self {
                part,
                whole,
                estimate: 0.0,
                lower: 0.0,
                upper: 1.0,
            },
        }
    }
}

/// Whether the report's rows come from more than one benchmark (a study's variants, say), so that
/// a row must name its benchmark to be told apart.
pub fn mixes_benchmarks(report: &EvalReport) -> bool {
    report
        .models
        .first()
        .is_some_and(|first| report.models.iter().any(|m| m.benchmark != first.benchmark))
}

/// How a model row is named in plots and tables: model, format and offset, and the benchmark when
/// the report mixes benchmarks.
pub fn row_label(report: &EvalReport, m: &ModelSummary) -> String {
    let mut label = format!("{} · {} · offset {}", m.model, m.format, m.fl_offset);
    if mixes_benchmarks(report) {
        label.push_str(" · ");
        label.push_str(&m.benchmark);
    }
    label
}

/// One bar of the "fixed vulnerabilities per model" plot.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelBar {
    pub label: String,
    pub correct: Share,
    pub plausible: Share,
}

/// Correct and plausible shares of tasks, one per model row.
pub fn model_bars(report: &EvalReport) -> Vec<ModelBar> {
    report
        .models
        .iter()
        .map(|m| ModelBar {
            label: row_label(report, m),
            correct: Share::of(m.correct_tasks, m.tasks),
            plausible: Share::of(m.plausible_tasks, m.tasks),
        })
        .collect()
}

/// One row of the per-CWE heat map: for each model row, (tasks fixed, tasks of this CWE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CweRow {
    /// `CWE-79`, or `no CWE` for tasks that name none.
    pub cwe: String,
    pub cells: Vec<(usize, usize)>,
}

/// Tasks fixed (plausible or correct) per CWE and model row. A task with two CWEs counts in both
/// rows, as the VJBench paper counts its per-CWE table.
pub fn cwe_heat_map(report: &EvalReport) -> Vec<CweRow> {
    let mut by_cwe: BTreeMap<(u32, String), Vec<&str>> = BTreeMap::new();
    for task in report.matrix.keys() {
        let ids = report.cwe.get(task).map(Vec::as_slice).unwrap_or_default();
        if ids.is_empty() {
            // Sorts after every real CWE.
            by_cwe
                .entry((u32::MAX, "no CWE".into()))
                .or_default()
                .push(task);
        }
        for id in ids {
            by_cwe
                .entry((*id, format!("CWE-{id}")))
                .or_default()
                .push(task);
        }
    }
    by_cwe
        .into_iter()
        .map(|((_, cwe), tasks)| {
            let cells = (0..report.models.len())
                .map(|column| {
                    // A task outside this run's benchmark is not part of its denominator.
                    let ran: Vec<&&str> = tasks
                        .iter()
                        .filter(|t| report.ran.get(**t).is_some_and(|r| r[column]))
                        .collect();
                    let fixed = ran
                        .iter()
                        .filter(|t| report.matrix[***t][column] != TaskCell::NotFixed)
                        .count();
                    (fixed, ran.len())
                })
                .collect();
            CweRow { cwe, cells }
        })
        .collect()
}

/// A group of model rows that differ in one setting only: the points of a line or bar group.
#[derive(Debug, Clone, PartialEq)]
pub struct Series {
    /// What the rows share (model, format, …).
    pub label: String,
    /// The setting that varies (an offset, a benchmark) and the plausible share there.
    pub points: Vec<(String, Share)>,
}

/// Groups of rows with the same model, format and benchmark and at least two FL offsets, ordered by
/// offset: the effect of imperfect fault localization.
pub fn offset_series(report: &EvalReport) -> Vec<Series> {
    group(
        report,
        |m| format!("{} · {} · {}", m.model, m.format, m.benchmark),
        |m| (m.fl_offset, m.fl_offset.to_string()),
    )
}

/// Groups of rows with the same model, format and offset on at least two benchmarks that are an
/// original and its transformed variants: the effect of transformations. A variant's tasks are the
/// original's, under the same id or with the variant as a suffix (`demo-xxe-config-both`, as
/// `avrlab transform` names them); rows on unrelated benchmarks (Vul4J and VJBench) are no series.
pub fn transformation_series(report: &EvalReport) -> Vec<Series> {
    let tasks_of = |column: usize| -> BTreeSet<&str> {
        report
            .ran
            .iter()
            .filter(|(_, ran)| ran[column])
            .map(|(task, _)| task.as_str())
            .collect()
    };
    let mut groups: BTreeMap<String, Vec<usize>> = BTreeMap::new();
    for (column, m) in report.models.iter().enumerate() {
        groups
            .entry(format!(
                "{} · {} · offset {}",
                m.model, m.format, m.fl_offset
            ))
            .or_default()
            .push(column);
    }
    let mut out = Vec::new();
    for (label, columns) in groups {
        // The original is the row with the shortest benchmark name (`avrlab transform` writes
        // `<name>-<variant>` unless told otherwise), then the shortest task ids.
        let Some(&base) = columns.iter().min_by_key(|c| {
            let tasks = tasks_of(**c);
            let id_length = tasks.iter().map(|t| t.len()).sum::<usize>() / tasks.len().max(1);
            (report.models[**c].benchmark.len(), id_length)
        }) else {
            continue;
        };
        let originals = tasks_of(base);
        let mut points: BTreeMap<(bool, String), Share> = BTreeMap::new();
        for &column in &columns {
            let variant_of_base = tasks_of(column).iter().any(|t| {
                originals
                    .iter()
                    .any(|o| t == o || t.strip_prefix(o).is_some_and(|rest| rest.starts_with('-')))
            });
            if variant_of_base {
                let m = &report.models[column];
                points.insert(
                    (column != base, m.benchmark.clone()),
                    Share::of(m.plausible_tasks, m.tasks),
                );
            }
        }
        let benchmarks: BTreeSet<&String> = points.keys().map(|(_, b)| b).collect();
        if benchmarks.len() > 1 {
            out.push(Series {
                label,
                points: points.into_iter().map(|((_, b), s)| (b, s)).collect(),
            });
        }
    }
    out
}

fn group(
    report: &EvalReport,
    key: impl Fn(&ModelSummary) -> String,
    x: impl Fn(&ModelSummary) -> (i64, String),
) -> Vec<Series> {
    let mut groups: BTreeMap<String, BTreeMap<(i64, String), Share>> = BTreeMap::new();
    for m in &report.models {
        groups
            .entry(key(m))
            .or_default()
            .insert(x(m), Share::of(m.plausible_tasks, m.tasks));
    }
    groups
        .into_iter()
        .filter(|(_, points)| points.len() > 1)
        .map(|(label, points)| Series {
            label,
            points: points.into_iter().map(|((_, x), s)| (x, s)).collect(),
        })
        .collect()
}
