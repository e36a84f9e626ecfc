//! The report of a study (`avrlab study`): the offset × prompt table with intervals, the models
//! table (Table 4), fixes per CWE (Table 5) and per transformation variant (Table 6), the
//! reviewer's confusion matrix against the tests, and TOST and McNemar between configurations —
//! all computed from stored rows only.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::fmt::Write as _;

use avrlab_core::{AuditLabel, Differential, Outcome};
use avrlab_stats::{
    Interval, agresti_coull, cohen_kappa, mcnemar_exact, mean_with_margin, paired_tost, wilson,
};
use avrlab_store::{ReviewDecision, Store, StudyCellRow};
use serde::Serialize;

use crate::eval_report::{EvalReport, ReportError, build_eval_report};
use crate::render::{ReportFormat, render};

/// Why a study report could not be built.
#[derive(Debug, thiserror::Error)]
pub enum StudyReportError {
    /// The store failed, or a cell's run could not be reported.
    #[error(transparent)]
    Report(#[from] ReportError),
    /// The study does not exist.
    #[error("the store has no study `{0}`: give the name the study file has (or its --name)")]
    UnknownStudy(String),
}

impl From<avrlab_store::StoreError> for StudyReportError {
    fn from(error: avrlab_store::StoreError) -> Self {
        Self::Report(error.into())
    }
}

/// One cell of the offset × prompt table.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct GridCell {
    /// Tasks with a plausible sample, per run: mean, and the 95% t margin across runs (with
    /// two runs or more).
    pub fixed_mean: f64,
    pub fixed_margin: Option<f64>,
    pub runs: usize,
    /// Plausible samples of all samples, with the 95% Wilson interval of that share.
    pub plausible_samples: u64,
    pub samples: u64,
    pub wilson: Option<(f64, f64)>,
}

/// The offset × prompt table of one model on one benchmark variant.
#[derive(Debug, Clone, Serialize)]
pub struct OffsetGrid {
    pub benchmark: String,
    pub variant: String,
    pub model: String,
    pub tasks: usize,
    pub formats: Vec<String>,
    pub offsets: Vec<i64>,
    /// `(offset, format)` → cell.
    pub cells: BTreeMap<(i64, String), GridCell>,
}

/// Offset 0 against another offset, paired on the same prompts (task, format, run).
#[derive(Debug, Clone, Serialize)]
pub struct Comparison {
    pub benchmark: String,
    pub variant: String,
    pub model: String,
    pub offset: i64,
    pub pairs: usize,
    /// Mean of (share plausible at offset 0 − share at `offset`) over the pairs.
    pub mean_difference: f64,
    /// TOST at the study's margin and alpha; `None` with fewer than two pairs (the reason).
    pub tost: Result<TostLine, String>,
    /// Every share was 0 at both offsets (or 1 at both): equivalence at the floor (ceiling),
    /// which says nothing about the offset.
    pub degenerate: bool,
    /// McNemar on "some sample plausible": prompts fixed only at offset 0, only at `offset`.
    pub only_zero: u64,
    pub only_offset: u64,
    pub mcnemar_p: f64,
}

/// The TOST result as reported.
#[derive(Debug, Clone, Serialize)]
pub struct TostLine {
    pub p_value: f64,
    /// The (1 − 2α) interval of the mean difference.
    pub interval: (f64, f64),
    pub equivalent: bool,
}

/// The reviewer against the tests (ground truth: `Plausible` or not; `Indeterminate` verdicts
/// and candidates without a verdict are left out).
#[derive(Debug, Clone, Serialize, Default)]
pub struct ReviewerMatrix {
    pub reviewer: String,
    pub accept_plausible: u64,
    pub accept_failing: u64,
    pub reject_plausible: u64,
    pub reject_failing: u64,
    pub unparseable: u64,
    pub no_answer: u64,
    pub indeterminate: u64,
    /// accept ∧ failing / failing (decided answers only), Wilson and Agresti–Coull 95%.
    pub false_accept: Option<Rates>,
    /// reject ∧ plausible / plausible (decided answers only).
    pub false_reject: Option<Rates>,
    /// The Plausible column split by what differential testing showed; `None` when no cell has
    /// differential results (and then not serialized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differential: Option<ReviewerDifferential>,
}

/// The reviewer's decisions on Plausible candidates that differential testing compared.
#[derive(Debug, Clone, Copy, Serialize, Default, PartialEq, Eq)]
pub struct ReviewerDifferential {
    pub accept_divergent: u64,
    pub accept_no_divergence: u64,
    pub reject_divergent: u64,
    pub reject_no_divergence: u64,
}

/// An auditor against differential testing, over the study's audited candidates that it
/// compared (`Divergent` read as incorrect, `NoDivergence` as correct; `unsure` labels left out).
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct AuditorAgreement {
    pub auditor: String,
    /// Rows: the auditor's label; columns: differential testing's (correct, incorrect).
    pub table: [[u64; 2]; 2],
    /// Cohen's kappa and its 95% interval, or why there is none.
    pub kappa: Result<(f64, (f64, f64)), String>,
}

/// A rate with its two intervals.
#[derive(Debug, Clone, Copy, Serialize)]
pub struct Rates {
    pub rate: f64,
    pub wilson: (f64, f64),
    pub agresti_coull: (f64, f64),
}

/// Fixes per CWE and model (Table 5).
#[derive(Debug, Clone, Serialize)]
pub struct CweRow {
    pub cwe: String,
    pub tasks: usize,
    /// Per model (in `StudyReport::models_order`): (correct, plausible) tasks.
    pub fixed: Vec<(usize, usize)>,
}

/// The whole study report.
#[derive(Debug, Clone, Serialize)]
pub struct StudyReport {
    pub study: String,
    pub finished: bool,
    pub tost_margin: f64,
    pub alpha: f64,
    pub grids: Vec<OffsetGrid>,
    pub comparisons: Vec<Comparison>,
    /// Table 4: one row per cell at offset 0.
    pub models: EvalReport,
    /// Every cell, whatever its offset: what the HTML page's FL-offset plot is drawn from.
    pub all_cells: EvalReport,
    pub models_order: Vec<String>,
    pub per_cwe: Vec<CweRow>,
    /// Table 6: per model, per variant: (correct, plausible, tasks).
    pub variants: Vec<String>,
    pub per_variant: BTreeMap<String, Vec<(usize, usize, usize)>>,
    /// Beside Table 6: per model with a training cut-off stored with its cells, the original
    /// tasks fixed after that cut-off: (cut-off, (correct, plausible, tasks)).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub after_cutoff: BTreeMap<String, (String, (usize, usize, usize))>,
    pub reviewers: Vec<ReviewerMatrix>,
    /// Each auditor of the study's candidates against differential testing (empty without
    /// differential results or audits; then not serialized).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub auditors: Vec<AuditorAgreement>,
}

/// What one cell's run holds, per prompt (task, format, run index).
struct CellData {
    cell: StudyCellRow,
    /// (task, run index) → (samples, plausible samples, some sample correct).
    prompts: BTreeMap<(String, u32), (u64, u64, bool)>,
    cwe: BTreeMap<String, Vec<u32>>,
}

fn read_cell(store: &Store, cell: &StudyCellRow) -> Result<Option<CellData>, StudyReportError> {
    let Some(run) = store.run(&cell.run_id)? else {
        return Ok(None);
    };
    let cwe = run.config.cwe;
    let outcomes: HashMap<String, Outcome> = store
        .verdicts(&cell.run_id)?
        .into_iter()
        .map(|v| (v.candidate_id, v.outcome))
        .collect();
    let mut prompts: BTreeMap<(String, u32), (u64, u64, bool)> = BTreeMap::new();
    // An errored sample (the model was not heard) is in no denominator of the study either.
    let heard = store
        .generations(&cell.run_id)?
        .into_iter()
        .filter(|g| g.class != Some(avrlab_store::ItemClass::Errored));
    for g in heard {
        let plausible = g
            .candidate_id
            .as_ref()
            .and_then(|c| outcomes.get(c))
            .is_some_and(|o| *o == Outcome::Plausible);
        let entry = prompts.entry((g.task.clone(), g.run_index)).or_default();
        entry.0 += 1;
        entry.1 += u64::from(plausible);
        entry.2 |= plausible && g.correct.is_proven();
    }
    Ok(Some(CellData {
        cell: cell.clone(),
        prompts,
        cwe,
    }))
}

fn interval(i: Result<Interval, avrlab_stats::IntervalError>) -> Option<(f64, f64)> {
    i.ok().map(|i| (i.lower, i.upper))
}

/// Builds the report of study `study_id`.
pub fn build_study_report(store: &Store, study_id: &str) -> Result<StudyReport, StudyReportError> {
    let study = store
        .study(study_id)?
        .ok_or_else(|| StudyReportError::UnknownStudy(study_id.to_owned()))?;
    let plan: serde_json::Value = serde_json::from_str(&study.plan).unwrap_or_default();
    let settings = plan.get("report");
    let tost_margin = settings
        .and_then(|s| s.get("tost_margin"))
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(0.1);
    let alpha = settings
        .and_then(|s| s.get("alpha"))
        .and_then(serde_json::Value::as_f64)
        .unwrap_or(0.05);
    let cells = store.study_cells(study_id)?;
    let mut data = Vec::new();
    for cell in &cells {
        if let Some(d) = read_cell(store, cell)? {
            data.push(d);
        }
    }

    // The offset × prompt tables, one per (benchmark, variant, model).
    let mut groups: BTreeMap<(String, String, String), Vec<&CellData>> = BTreeMap::new();
    for d in &data {
        groups
            .entry((
                d.cell.benchmark.clone(),
                d.cell.variant.clone(),
                d.cell.model.clone(),
            ))
            .or_default()
            .push(d);
    }
    let mut grids = Vec::new();
    let mut comparisons = Vec::new();
    for ((benchmark, variant, model), members) in &groups {
        let mut formats: Vec<String> = Vec::new();
        let mut offsets: Vec<i64> = Vec::new();
        for d in members {
            if !formats.contains(&d.cell.format) {
                formats.push(d.cell.format.clone());
            }
            if !offsets.contains(&d.cell.fl_offset) {
                offsets.push(d.cell.fl_offset);
            }
        }
        offsets.sort_by_key(|o| (o.abs(), *o));
        let mut tasks = BTreeSet::new();
        let mut grid_cells = BTreeMap::new();
        for d in members {
            let runs: BTreeSet<u32> = d.prompts.keys().map(|(_, r)| *r).collect();
            let per_run: Vec<f64> = runs
                .iter()
                .map(|r| {
                    d.prompts
                        .iter()
                        .filter(|((_, run), (_, plausible, _))| run == r && *plausible > 0)
                        .count() as f64
                })
                .collect();
            tasks.extend(d.prompts.keys().map(|(t, _)| t.clone()));
            let samples: u64 = d.prompts.values().map(|p| p.0).sum();
            let plausible: u64 = d.prompts.values().map(|p| p.1).sum();
            let (fixed_mean, fixed_margin) = match mean_with_margin(&per_run, 0.95) {
                Ok(m) => (m.mean, Some(m.margin)),
                Err(_) => (
                    per_run.iter().sum::<f64>() / per_run.len().max(1) as f64,
                    None,
                ),
            };
            grid_cells.insert(
                (d.cell.fl_offset, d.cell.format.clone()),
                GridCell {
                    fixed_mean,
                    fixed_margin,
                    runs: per_run.len(),
                    plausible_samples: plausible,
                    samples,
                    wilson: interval(wilson(plausible, samples, 0.95)),
                },
            );
        }
        // Offset 0 against each other offset, paired on (task, format, run).
        let at = |offset: i64| -> BTreeMap<(String, String, u32), (u64, u64)> {
            members
                .iter()
                .filter(|d| d.cell.fl_offset == offset)
                .flat_map(|d| {
                    d.prompts.iter().map(|((task, run), (n, p, _))| {
                        ((task.clone(), d.cell.format.clone(), *run), (*n, *p))
                    })
                })
                .collect()
        };
        if offsets.contains(&0) {
            let zero = at(0);
            for offset in offsets.iter().filter(|o| **o != 0) {
                let other = at(*offset);
                let mut first = Vec::new();
                let mut second = Vec::new();
                let (mut only_zero, mut only_offset) = (0, 0);
                for (key, (n0, p0)) in &zero {
                    let Some((n1, p1)) = other.get(key) else {
                        continue;
                    };
                    if *n0 == 0 || *n1 == 0 {
                        continue;
                    }
                    first.push(*p0 as f64 / *n0 as f64);
                    second.push(*p1 as f64 / *n1 as f64);
                    match (*p0 > 0, *p1 > 0) {
                        (true, false) => only_zero += 1,
                        (false, true) => only_offset += 1,
                        _ => {}
                    }
                }
                let pairs = first.len();
                let mean_difference = if pairs == 0 {
                    0.0
                } else {
                    first.iter().zip(&second).map(|(a, b)| a - b).sum::<f64>() / pairs as f64
                };
                let all = |value: f64| first.iter().chain(&second).all(|s| *s == value);
                let degenerate = pairs > 0 && (all(0.0) || all(1.0));
                let tost = paired_tost(&first, &second, tost_margin, alpha)
                    .map(|t| TostLine {
                        p_value: t.p_value,
                        interval: t.interval,
                        equivalent: t.equivalent,
                    })
                    .map_err(|e| format!("cannot {e}"));
                comparisons.push(Comparison {
                    benchmark: benchmark.clone(),
                    variant: variant.clone(),
                    model: model.clone(),
                    offset: *offset,
                    pairs,
                    mean_difference,
                    tost,
                    degenerate,
                    only_zero,
                    only_offset,
                    mcnemar_p: mcnemar_exact(only_zero, only_offset).p_value,
                });
            }
        }
        grids.push(OffsetGrid {
            benchmark: benchmark.clone(),
            variant: variant.clone(),
            model: model.clone(),
            tasks: tasks.len(),
            formats,
            offsets,
            cells: grid_cells,
        });
    }

    // Table 4: the cells at offset 0 (all of them when the study has no other offset).
    let table4_runs: Vec<String> = data
        .iter()
        .filter(|d| d.cell.fl_offset == 0)
        .map(|d| d.cell.run_id.clone())
        .collect();
    let models = build_eval_report(store, &table4_runs)?;
    let all_cells = if table4_runs.len() == data.len() {
        models.clone()
    } else {
        let runs: Vec<String> = data.iter().map(|d| d.cell.run_id.clone()).collect();
        build_eval_report(store, &runs)?
    };

    // Tables 5 and 6: a task is fixed by a model when some sample of some cell of that model
    // (at offset 0) was plausible; correct when such a sample was also identical to the
    // reference fix.
    let mut models_order: Vec<String> = Vec::new();
    let mut variants: Vec<String> = Vec::new();
    for d in &data {
        if !models_order.contains(&d.cell.model) {
            models_order.push(d.cell.model.clone());
        }
        if !variants.contains(&d.cell.variant) {
            variants.push(d.cell.variant.clone());
        }
    }
    // (model, variant, task) → (plausible, correct)
    let mut fixed: BTreeMap<(String, String, String), (bool, bool)> = BTreeMap::new();
    let mut cwe_of: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for d in data.iter().filter(|d| d.cell.fl_offset == 0) {
        for ((task, _), (_, plausible, correct)) in &d.prompts {
            let entry = fixed
                .entry((d.cell.model.clone(), d.cell.variant.clone(), task.clone()))
                .or_default();
            entry.0 |= *plausible > 0;
            entry.1 |= *correct;
        }
        if d.cell.variant == "original" || variants.len() == 1 {
            cwe_of.extend(d.cwe.clone());
        }
    }
    let mut by_cwe: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (task, ids) in &cwe_of {
        if ids.is_empty() {
            by_cwe
                .entry("unknown".into())
                .or_default()
                .insert(task.clone());
        }
        for id in ids {
            by_cwe
                .entry(format!("CWE-{id}"))
                .or_default()
                .insert(task.clone());
        }
    }
    let cwe_variant = if variants.iter().any(|v| v == "original") {
        "original".to_owned()
    } else {
        variants.first().cloned().unwrap_or_default()
    };
    let per_cwe = by_cwe
        .into_iter()
        .map(|(cwe, tasks)| {
            let fixed = models_order
                .iter()
                .map(|model| {
                    let of = |want: fn(&(bool, bool)) -> bool| {
                        tasks
                            .iter()
                            .filter(|t| {
                                fixed
                                    .get(&(model.clone(), cwe_variant.clone(), (*t).clone()))
                                    .is_some_and(want)
                            })
                            .count()
                    };
                    (of(|f| f.1), of(|f| f.0))
                })
                .collect();
            CweRow {
                cwe,
                tasks: tasks.len(),
                fixed,
            }
        })
        .collect();
    let mut per_variant: BTreeMap<String, Vec<(usize, usize, usize)>> = BTreeMap::new();
    for model in &models_order {
        let row = variants
            .iter()
            .map(|variant| {
                let of_variant: Vec<&(bool, bool)> = fixed
                    .iter()
                    .filter(|((m, v, _), _)| m == model && v == variant)
                    .map(|(_, f)| f)
                    .collect();
                (
                    of_variant.iter().filter(|f| f.1).count(),
                    of_variant.iter().filter(|f| f.0).count(),
                    of_variant.len(),
                )
            })
            .collect();
        per_variant.insert(model.clone(), row);
    }

    // Beside Table 6: the original tasks each model could not have seen fixed, by the cut-off
    // stored with its cells and the task dates stored with their runs.
    let mut after_cutoff = BTreeMap::new();
    let original = if variants.iter().any(|v| v == "original") {
        "original"
    } else {
        variants.first().map_or("", String::as_str)
    };
    for model in &models_order {
        let cells: Vec<&CellData> = data
            .iter()
            .filter(|d| {
                d.cell.fl_offset == 0 && &d.cell.model == model && d.cell.variant == original
            })
            .collect();
        let mut cutoff = None;
        let mut fixed_in: BTreeMap<String, Option<avrlab_core::Month>> = BTreeMap::new();
        for d in &cells {
            if cutoff.is_none() {
                cutoff = store
                    .run(&d.cell.run_id)?
                    .and_then(|run| run.config.model_cutoff)
                    .and_then(|text| text.parse::<avrlab_core::Month>().ok());
            }
            for row in store.task_dates(&d.cell.run_id)? {
                let month = avrlab_core::fix_month(
                    row.fix_committed.as_deref(),
                    row.fix_authored.as_deref(),
                );
                fixed_in.insert(row.task, month);
            }
        }
        let Some(cutoff) = cutoff else { continue };
        let after: Vec<&(bool, bool)> = fixed
            .iter()
            .filter(|((m, v, task), _)| {
                m == model
                    && v == original
                    && fixed_in
                        .get(task)
                        .copied()
                        .flatten()
                        .is_some_and(|f| f > cutoff)
            })
            .map(|(_, f)| f)
            .collect();
        after_cutoff.insert(
            model.clone(),
            (
                cutoff.to_string(),
                (
                    after.iter().filter(|f| f.1).count(),
                    after.iter().filter(|f| f.0).count(),
                    after.len(),
                ),
            ),
        );
    }

    // The reviewer against the tests, over every candidate of every cell, the Plausible ones
    // split by differential testing's verdict where there is one; and each auditor against
    // differential testing.
    let mut reviewers: BTreeMap<String, ReviewerMatrix> = BTreeMap::new();
    let mut any_differential = false;
    let mut auditors: BTreeMap<String, [[u64; 2]; 2]> = BTreeMap::new();
    for d in &data {
        let outcomes: HashMap<String, Outcome> = store
            .verdicts(&d.cell.run_id)?
            .into_iter()
            .map(|v| (v.candidate_id, v.outcome))
            .collect();
        let differential: HashMap<String, Differential> = store
            .differentials(&d.cell.run_id)?
            .into_iter()
            .map(|r| (r.candidate_id, r.verdict))
            .collect();
        any_differential |= !differential.is_empty();
        for audit in store.audits(&d.cell.run_id)? {
            let theirs = differential
                .get(&audit.candidate_id)
                .and_then(|v| v.as_audit_label());
            let side = |label: AuditLabel| match label {
                AuditLabel::Correct => Some(0),
                AuditLabel::Incorrect => Some(1),
                AuditLabel::Unsure => None,
            };
            if let (Some(row), Some(column)) = (side(audit.label), theirs.and_then(side)) {
                auditors.entry(audit.auditor).or_default()[row][column] += 1;
            }
        }
        for review in store.reviews(&d.cell.run_id)? {
            let m = reviewers
                .entry(review.reviewer.clone())
                .or_insert_with(|| ReviewerMatrix {
                    reviewer: review.reviewer.clone(),
                    ..Default::default()
                });
            let outcome = outcomes.get(&review.candidate_id).copied();
            if outcome == Some(Outcome::Plausible) {
                let split = m.differential.get_or_insert_with(Default::default);
                match (review.decision, differential.get(&review.candidate_id)) {
                    (ReviewDecision::Accept, Some(Differential::Divergent)) => {
                        split.accept_divergent += 1;
                    }
                    (ReviewDecision::Accept, Some(Differential::NoDivergence)) => {
                        split.accept_no_divergence += 1;
                    }
                    (ReviewDecision::Reject, Some(Differential::Divergent)) => {
                        split.reject_divergent += 1;
                    }
                    (ReviewDecision::Reject, Some(Differential::NoDivergence)) => {
                        split.reject_no_divergence += 1;
                    }
                    _ => {}
                }
            }
            match (review.decision, outcome) {
                (ReviewDecision::Unparseable, _) => m.unparseable += 1,
                (ReviewDecision::NoAnswer, _) => m.no_answer += 1,
                (_, None | Some(Outcome::Indeterminate)) => m.indeterminate += 1,
                (ReviewDecision::Accept, Some(Outcome::Plausible)) => m.accept_plausible += 1,
                (ReviewDecision::Accept, Some(_)) => m.accept_failing += 1,
                (ReviewDecision::Reject, Some(Outcome::Plausible)) => m.reject_plausible += 1,
                (ReviewDecision::Reject, Some(_)) => m.reject_failing += 1,
            }
        }
    }
    let rates = |errors: u64, of: u64| -> Option<Rates> {
        (of > 0).then(|| Rates {
            rate: errors as f64 / of as f64,
            wilson: interval(wilson(errors, of, 0.95)).unwrap_or((0.0, 1.0)),
            agresti_coull: interval(agresti_coull(errors, of, 0.95)).unwrap_or((0.0, 1.0)),
        })
    };
    let reviewers = reviewers
        .into_values()
        .map(|mut m| {
            m.false_accept = rates(m.accept_failing, m.accept_failing + m.reject_failing);
            m.false_reject = rates(m.reject_plausible, m.reject_plausible + m.accept_plausible);
            if !any_differential {
                m.differential = None;
            }
            m
        })
        .collect();
    let auditors = auditors
        .into_iter()
        .map(|(auditor, table)| AuditorAgreement {
            kappa: kappa_of(&table),
            auditor,
            table,
        })
        .collect();

    Ok(StudyReport {
        study: study.id,
        finished: study.finished_at.is_some(),
        tost_margin,
        alpha,
        grids,
        comparisons,
        models,
        all_cells,
        models_order,
        per_cwe,
        variants,
        per_variant,
        after_cutoff,
        reviewers,
        auditors,
    })
}

/// Cohen's kappa of a 2 × 2 table with its 95% interval, or why there is none.
fn kappa_of(table: &[[u64; 2]; 2]) -> Result<(f64, (f64, f64)), String> {
    let rows: Vec<Vec<u64>> = table.iter().map(|r| r.to_vec()).collect();
    cohen_kappa(&rows, 0.95)
        .map(|k| (k.kappa, k.interval))
        .map_err(|e| format!("cannot {e}"))
}

fn pct(x: f64) -> String {
    format!("{:.0}%", x * 100.0)
}

fn signed(offset: i64) -> String {
    if offset > 0 {
        format!("+{offset}")
    } else {
        offset.to_string()
    }
}

/// The formats of a study report. A study's tables are of several shapes (transformations,
/// offsets, equivalence tests, reviewers), so it has no single CSV or LaTeX table: a run's are
/// `avrlab report RUN --format csv|latex`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum StudyFormat {
    Markdown,
    Json,
    Html,
}

/// Renders the study report as Markdown, JSON, or one self-contained HTML page (the study's
/// tables, then the eval report of its cells at offset 0 with its plots).
pub fn render_study(report: &StudyReport, format: StudyFormat) -> String {
    match format {
        StudyFormat::Json => serde_json::to_string_pretty(report).expect("reports serialize"),
        StudyFormat::Html => render_study_html(report),
        StudyFormat::Markdown => study_markdown(report, true),
    }
}

/// The study's page: its own tables (from their Markdown, with any raw HTML in it shown as text,
/// never as markup), then the plots and tables of its cells at offset 0, and the FL-offset plot of
/// all its cells.
fn render_study_html(report: &StudyReport) -> String {
    use pulldown_cmark::{Event, Options, Parser, Tag};
    let markdown = study_markdown(report, false);
    let events: Vec<Event<'_>> = Parser::new_ext(&markdown, Options::ENABLE_TABLES)
        .map(|event| match event {
            Event::Html(text) | Event::InlineHtml(text) => Event::Text(text),
            other => other,
        })
        .collect();
    let mut page = crate::html::Page::new(&format!("Study {}", report.study));
    page.tables += events
        .iter()
        .filter(|e| matches!(e, Event::Start(Tag::Table(_))))
        .count();
    pulldown_cmark::html::push_html(&mut page.body, events.into_iter());
    if !report.models.models.is_empty() {
        page.body.push_str("<h2>Table 4: cells at FL offset 0</h2>");
        crate::html::eval_sections(&mut page, &report.models, &report.all_cells);
    }
    page.finish()
}

/// The study report as Markdown; Table 4 (the eval tables of the cells at offset 0) only when
/// asked for.
fn study_markdown(report: &StudyReport, with_table_4: bool) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Study {}{}\n",
        report.study,
        if report.finished {
            ""
        } else {
            " (unfinished: resume it with --resume)"
        }
    );
    for warning in report.all_cells.incomplete_warnings() {
        let _ = writeln!(out, "**Incomplete:** {warning}\n");
    }
    let _ = writeln!(out, "Completeness of its cells (samples):");
    for line in report.all_cells.completeness_lines() {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\nCost of its cells (samples the model was heard on):");
    for line in report.all_cells.cost_lines() {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out);
    for grid in &report.grids {
        let _ = writeln!(
            out,
            "## FL offset × prompt: {} on {} ({}), {} tasks\n",
            grid.model, grid.benchmark, grid.variant, grid.tasks
        );
        let _ = writeln!(
            out,
            "Each cell: tasks fixed (some sample Plausible) per run, mean ± 95% t margin across runs; \
             then the share of Plausible samples with its 95% Wilson interval.\n"
        );
        let _ = writeln!(out, "| offset | {} |", grid.formats.join(" | "));
        let _ = writeln!(out, "|---:|{}", "---|".repeat(grid.formats.len()));
        for offset in &grid.offsets {
            let cells: Vec<String> = grid
                .formats
                .iter()
                .map(|format| match grid.cells.get(&(*offset, format.clone())) {
                    None => "not run".to_owned(),
                    Some(c) => {
                        let fixed = match c.fixed_margin {
                            Some(m) => format!("{:.2} ± {:.2}", c.fixed_mean, m),
                            None => format!("{:.2} (1 run)", c.fixed_mean),
                        };
                        let share = match c.wilson {
                            Some((lo, hi)) => format!(
                                "{}/{} [{}–{}]",
                                c.plausible_samples,
                                c.samples,
                                pct(lo),
                                pct(hi)
                            ),
                            None => "no samples".into(),
                        };
                        format!("{fixed}; {share}")
                    }
                })
                .collect();
            let _ = writeln!(out, "| {} | {} |", signed(*offset), cells.join(" | "));
        }
        out.push('\n');
    }
    if !report.comparisons.is_empty() {
        let _ = writeln!(out, "## Offset 0 against each offset\n");
        let _ = writeln!(
            out,
            "Paired on the same prompts (task, format, run). TOST: is the share of Plausible samples \
             per prompt at offset 0 equivalent to the share at the other offset within ±{:.2} \
             (alpha {})? McNemar (exact): prompts with a Plausible sample at one offset only.\n",
            report.tost_margin, report.alpha
        );
        for c in &report.comparisons {
            let tost = match &c.tost {
                Ok(t) => format!(
                    "TOST margin ±{:.2}: {} (p = {:.3}, {:.0}% CI {:+.3}…{:+.3})",
                    report.tost_margin,
                    if t.equivalent {
                        "equivalent"
                    } else {
                        "not shown equivalent"
                    },
                    t.p_value,
                    (1.0 - 2.0 * report.alpha) * 100.0,
                    t.interval.0,
                    t.interval.1
                ),
                Err(why) => format!("TOST: {why}"),
            };
            let tost = if c.degenerate {
                format!(
                    "{tost} — every share is the same bound at both offsets (nothing or everything fixed), so this says nothing about the offset"
                )
            } else {
                tost
            };
            let _ = writeln!(
                out,
                "- {} on {} ({}), offset 0 vs {}: {} pairs, mean difference {:+.3}; {tost}; \
                 McNemar: {} fixed only at 0, {} only at {}, p = {:.3}",
                c.model,
                c.benchmark,
                c.variant,
                signed(c.offset),
                c.pairs,
                c.mean_difference,
                c.only_zero,
                c.only_offset,
                signed(c.offset),
                c.mcnemar_p
            );
        }
        out.push('\n');
    }
    for m in &report.reviewers {
        let _ = writeln!(out, "## Reviewer `{}` against the tests\n", m.reviewer);
        // Differential testing's columns only when some cell has its results.
        let (heading, rule, accept, reject) = match m.differential {
            Some(d) => (
                " Plausible, Divergent | Plausible, no divergence found |",
                "---:|---:|",
                format!(" {} | {} |", d.accept_divergent, d.accept_no_divergence),
                format!(" {} | {} |", d.reject_divergent, d.reject_no_divergence),
            ),
            None => ("", "", String::new(), String::new()),
        };
        let _ = writeln!(
            out,
            "| reviewer \\ tests | Plausible | not Plausible |{heading}"
        );
        let _ = writeln!(out, "|---|---:|---:|{rule}");
        let _ = writeln!(
            out,
            "| accept | {} | {} |{accept}",
            m.accept_plausible, m.accept_failing
        );
        let _ = writeln!(
            out,
            "| reject | {} | {} |{reject}",
            m.reject_plausible, m.reject_failing
        );
        let _ = writeln!(
            out,
            "\nNot in the table: {} unparseable answers, {} without an answer, {} candidates whose \
             verdict is Indeterminate or missing.\n",
            m.unparseable, m.no_answer, m.indeterminate
        );
        for (name, rates) in [
            ("false accept (of not Plausible)", m.false_accept),
            ("false reject (of Plausible)", m.false_reject),
        ] {
            let _ = match rates {
                Some(r) => writeln!(
                    out,
                    "- {name}: {} (95% Wilson {}–{}, Agresti–Coull {}–{})",
                    pct(r.rate),
                    pct(r.wilson.0),
                    pct(r.wilson.1),
                    pct(r.agresti_coull.0),
                    pct(r.agresti_coull.1)
                ),
                None => writeln!(out, "- {name}: no decided answer on such candidates"),
            };
        }
        out.push('\n');
    }
    for a in &report.auditors {
        let _ = writeln!(
            out,
            "## Auditor `{}` against differential testing\n\nAudited candidates that differential \
             testing compared (Divergent read as incorrect, no divergence found as correct; \
             `unsure` labels left out).\n",
            a.auditor
        );
        let _ = writeln!(out, "| auditor \\ differential | correct | incorrect |");
        let _ = writeln!(out, "|---|---:|---:|");
        for (name, row) in ["correct", "incorrect"].iter().zip(&a.table) {
            let _ = writeln!(out, "| {name} | {} | {} |", row[0], row[1]);
        }
        let _ = match &a.kappa {
            Ok((kappa, (lo, hi))) => writeln!(
                out,
                "\nCohen's kappa {kappa:.3} (95% CI {lo:.3} to {hi:.3})\n"
            ),
            Err(why) => writeln!(out, "\nCohen's kappa: {why}\n"),
        };
    }
    let cells: Vec<&crate::ModelSummary> = report
        .all_cells
        .models
        .iter()
        .filter(|m| m.differential.is_some())
        .collect();
    if !cells.is_empty() {
        let _ = writeln!(
            out,
            "## Differential testing per cell\n\n| cell | model | format | FL offset | {} |\n|---|---|---|---:|---:|",
            crate::DIFFERENTIAL_HEADING
        );
        for m in cells {
            let _ = writeln!(
                out,
                "| {} | {} | {} | {} | {} |",
                m.run_id,
                m.model,
                m.format,
                signed(m.fl_offset),
                crate::differential_cell(m)
            );
        }
        out.push('\n');
    }
    if with_table_4 && !report.models.models.is_empty() {
        let _ = writeln!(out, "## Table 4: cells at FL offset 0\n");
        // The shared eval tables, one level down.
        for line in render(&report.models, ReportFormat::Markdown).lines() {
            if let Some(heading) = line.strip_prefix("## ") {
                let _ = writeln!(out, "### {heading}");
            } else {
                let _ = writeln!(out, "{line}");
            }
        }
        out.push('\n');
    }
    if !report.per_cwe.is_empty() {
        let _ = writeln!(
            out,
            "## Table 5: fixed per CWE (correct / plausible tasks, offset 0)\n"
        );
        let _ = writeln!(out, "| CWE | tasks | {} |", report.models_order.join(" | "));
        let _ = writeln!(
            out,
            "|---|---:|{}",
            "---:|".repeat(report.models_order.len())
        );
        for row in &report.per_cwe {
            let cells: Vec<String> = row
                .fixed
                .iter()
                .map(|(c, p)| format!("{c} / {p}"))
                .collect();
            let _ = writeln!(
                out,
                "| {} | {} | {} |",
                row.cwe,
                row.tasks,
                cells.join(" | ")
            );
        }
        out.push('\n');
    }
    let cutoff = !report.after_cutoff.is_empty();
    if report.variants.len() > 1 || cutoff {
        let _ = writeln!(
            out,
            "## Table 6: original and transformed variants (correct / plausible / tasks, offset 0)\n"
        );
        let mut headings = report.variants.clone();
        if cutoff {
            headings.push("original, fixed after the model's cut-off".into());
        }
        let _ = writeln!(out, "| model | {} |", headings.join(" | "));
        let _ = writeln!(out, "|---|{}", "---:|".repeat(headings.len()));
        for (model, row) in &report.per_variant {
            let mut cells: Vec<String> = row
                .iter()
                .map(|(c, p, t)| format!("{c} / {p} / {t}"))
                .collect();
            if cutoff {
                cells.push(match report.after_cutoff.get(model) {
                    Some((month, (c, p, t))) => format!("{c} / {p} / {t} (after {month})"),
                    None => "no cut-off".into(),
                });
            }
            let _ = writeln!(out, "| {model} | {} |", cells.join(" | "));
        }
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hostile_report() -> StudyReport {
        let model = "<img src=x onerror=alert(1)>".to_owned();
        StudyReport {
            study: "s<script>".into(),
            finished: true,
            tost_margin: 0.1,
            alpha: 0.05,
            grids: Vec::new(),
            comparisons: Vec::new(),
            models: EvalReport {
                models: Vec::new(),
                matrix: BTreeMap::new(),
                cwe: BTreeMap::new(),
                ran: BTreeMap::new(),
                engines: Default::default(),
            },
            all_cells: EvalReport {
                models: Vec::new(),
                matrix: BTreeMap::new(),
                cwe: BTreeMap::new(),
                ran: BTreeMap::new(),
                engines: Default::default(),
            },
            models_order: vec![model.clone()],
            per_cwe: vec![CweRow {
                cwe: "CWE-79".into(),
                tasks: 2,
                fixed: vec![(0, 1)],
            }],
            variants: vec!["original".into(), "rename".into()],
            per_variant: BTreeMap::from([(model, vec![(0, 1, 2), (0, 0, 2)])]),
            after_cutoff: BTreeMap::new(),
            reviewers: Vec::new(),
            auditors: Vec::new(),
        }
    }

    /// One cell: four plausible candidates (two divergent, two not) and one failing one, each
    /// reviewed, the plausible ones audited by `ana`.
    fn store_with_a_reviewed_cell(dir: &std::path::Path) -> Store {
        store_with_a_reviewed_cell_of(
            dir,
            r#"{"model":"m","format":"chat-p1","samples":5,"runs":1,"fl_offset":0}"#,
        )
    }

    /// The store of one study cell, whose run is registered with `config` (JSON).
    fn store_with_a_reviewed_cell_of(dir: &std::path::Path, config: &str) -> Store {
        use avrlab_store::{
            Correctness, Extraction, GenerationRow, NewCandidate, NewRun, ReviewRow, RunMode,
            StudyRow, VerdictRow,
        };
        let mut store = Store::open(&dir.join("s.sqlite")).unwrap();
        let study = StudyRow {
            id: "s".into(),
            plan_hash: "h".into(),
            plan: "{}".into(),
            finished_at: None,
        };
        let cell = StudyCellRow {
            run_id: "c0".into(),
            benchmark: "demo".into(),
            variant: "original".into(),
            model: "m".into(),
            format: "chat-p1".into(),
            fl_offset: 0,
        };
        store.create_study(&study, &[cell]).unwrap();
        let run = NewRun {
            id: "c0".into(),
            benchmark: "demo".into(),
            mode: RunMode::Eval,
            input_hash: "h".into(),
            config: avrlab_core::RunConfig::parse(config).unwrap(),
        };
        store.create_run(&run, &[]).unwrap();
        let ids = ["p1", "p2", "p3", "p4", "f1"];
        let candidates: Vec<NewCandidate> = ids
            .iter()
            .map(|id| NewCandidate {
                id: (*id).into(),
                task: "t".into(),
                label: (*id).into(),
                kind: avrlab_core::CandidateKind::Diff,
                content: (*id).into(),
            })
            .collect();
        let generations: Vec<GenerationRow> = ids
            .iter()
            .enumerate()
            .map(|(i, id)| GenerationRow {
                id: format!("t/0/{i}"),
                task: "t".into(),
                model: "m".into(),
                format: "chat-p1".into(),
                fl_offset: 0,
                fl_effective: 0,
                run_index: 0,
                sample: i as u32,
                prompt_hash: "h".into(),
                raw: String::new(),
                finish_reason: "Stop".into(),
                tokens_in: None,
                tokens_out: None,
                cost_usd: None,
                latency_ms: 0,
                cached: false,
                error: None,
                extraction: Extraction::Candidate,
                candidate_id: Some((*id).into()),
                correct: Correctness::Unknown,
                class: None,
                error_cause: None,
                attempt: 1,
            })
            .collect();
        store
            .add_generations("c0", &candidates, &generations)
            .unwrap();
        for id in ids {
            let verdict = VerdictRow {
                error_cause: None,
                outcome: if id == "f1" {
                    Outcome::PovFailing
                } else {
                    Outcome::Plausible
                },
                reason: String::new(),
                wall_ms: 1,
                diagnostics: vec![],
                phases: vec![],
                tests: vec![],
                engine: None,
            };
            store.record_verdict("c0", id, &verdict).unwrap();
        }
        for (id, decision) in [
            ("p1", ReviewDecision::Accept),
            ("p2", ReviewDecision::Accept),
            ("p3", ReviewDecision::Reject),
            ("p4", ReviewDecision::Reject),
            ("f1", ReviewDecision::Accept),
        ] {
            let review = ReviewRow {
                candidate_id: id.into(),
                reviewer: "judge".into(),
                decision,
                reason: String::new(),
                raw: String::new(),
                latency_ms: 1,
                cached: false,
                error: None,
            };
            store.record_review("c0", &review).unwrap();
        }
        let audits: Vec<avrlab_store::AuditRow> = [
            ("p1", AuditLabel::Incorrect),
            ("p2", AuditLabel::Correct),
            ("p3", AuditLabel::Incorrect),
            ("p4", AuditLabel::Incorrect),
        ]
        .into_iter()
        .map(|(id, label)| avrlab_store::AuditRow {
            candidate_id: id.into(),
            auditor: "ana".into(),
            label,
            note: String::new(),
            labelled_at: String::new(),
        })
        .collect();
        store.record_audits("c0", &audits).unwrap();
        store
    }

    #[test]
    fn table_6_shows_the_original_tasks_fixed_after_the_models_cut_off_beside_the_variants() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_a_reviewed_cell_of(
            dir.path(),
            r#"{"model":"m","format":"chat-p1","samples":5,"runs":1,"fl_offset":0,"model_cutoff":"2024-06"}"#,
        );
        let dates = avrlab_store::TaskDatesRow {
            task: "t".into(),
            fix_committed: Some("2026-11-29T17:48:13+00:00".into()),
            ..Default::default()
        };
        store.record_task_dates("c0", &[dates]).unwrap();
        let report = build_study_report(&store, "s").unwrap();
        assert_eq!(
            report.after_cutoff.get("m"),
            Some(&("2024-06".to_owned(), (0, 1, 1)))
        );
        let text = render_study(&report, StudyFormat::Markdown);
        assert!(
            text.contains("| model | original | original, fixed after the model's cut-off |\n")
                && text.contains("| m | 0 / 1 / 1 | 0 / 1 / 1 (after 2024-06) |"),
            "{text}"
        );
        // A cut-off after the fix: no original task is beyond it.
        let later = store_with_a_reviewed_cell_of(
            &dir.path().join("later"),
            r#"{"model":"m","format":"chat-p1","samples":5,"runs":1,"fl_offset":0,"model_cutoff":"2026-11"}"#,
        );
        let report = build_study_report(&later, "s").unwrap();
        assert_eq!(report.after_cutoff["m"].1, (0, 0, 0));
    }

    #[test]
    fn the_reviewer_matrix_and_the_auditors_gain_differential_testing_only_when_it_ran() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_a_reviewed_cell(dir.path());
        let before = build_study_report(&store, "s").unwrap();
        assert_eq!(before.reviewers[0].differential, None);
        assert!(before.auditors.is_empty());
        let text = render_study(&before, StudyFormat::Markdown);
        assert!(
            text.contains("| reviewer \\ tests | Plausible | not Plausible |\n"),
            "{text}"
        );
        assert!(!text.contains("ifferential"), "{text}");
        assert!(
            text.contains("Completeness of its cells (samples):\n- c0: registered 5 · judged 5 · model failures 0 · errored 0 · retried 0\n"),
            "{text}"
        );
        // A sample the model was not heard on: in no cell's denominator, and said at the top.
        let mut errored = store.generations("c0").unwrap()[0].clone();
        errored.id = "t/0/5".into();
        errored.sample = 5;
        errored.extraction = avrlab_store::Extraction::NoAnswer;
        errored.candidate_id = None;
        errored.class = Some(avrlab_store::ItemClass::Errored);
        errored.error_cause = Some(avrlab_store::ErrorCause::Timeout);
        store.add_generations("c0", &[], &[errored]).unwrap();
        let with_errored = build_study_report(&store, "s").unwrap();
        let samples = |r: &StudyReport| -> Vec<u64> {
            r.grids[0].cells.values().map(|c| c.samples).collect()
        };
        assert_eq!(samples(&with_errored), samples(&before));
        let text = render_study(&with_errored, StudyFormat::Markdown);
        assert!(
            text.contains("\n**Incomplete:** run `c0` is incomplete: 1 errored sample(s)"),
            "{text}"
        );
        assert!(text.contains("errored 1 (timeout 1)"), "{text}");

        for (id, verdict) in [
            ("p1", Differential::Divergent),
            ("p2", Differential::NoDivergence),
            ("p3", Differential::Divergent),
            ("p4", Differential::NoDivergence),
        ] {
            let row = avrlab_store::DifferentialRow {
                candidate_id: id.into(),
                verdict,
                reason: String::new(),
                seed: 1,
                inputs: 10,
                divergent_inputs: 0,
                vulnerable_inputs: 0,
                seconds: 1.0,
                budget_seconds: 20.0,
                methods: Vec::new(),
                changed_lines: None,
                recorded_seeds: None,
                flags: Vec::new(),
                witness: None,
            };
            store.record_differential("c0", &row).unwrap();
        }
        let report = build_study_report(&store, "s").unwrap();
        let m = &report.reviewers[0];
        assert_eq!(
            (m.accept_plausible, m.accept_failing, m.reject_plausible),
            (2, 1, 2)
        );
        assert_eq!(
            m.differential,
            Some(ReviewerDifferential {
                accept_divergent: 1,
                accept_no_divergence: 1,
                reject_divergent: 1,
                reject_no_divergence: 1,
            })
        );
        // ana against the tester: p1, p3 incorrect both; p2 correct both; p4 incorrect for ana
        // only. p_o = 3/4, p_e = 1/4 · 2/4 + 3/4 · 2/4 = 1/2, kappa = 0.5.
        let ana = &report.auditors[0];
        assert_eq!(ana.table, [[1, 0], [1, 2]]);
        let (kappa, _) = ana.kappa.clone().unwrap();
        assert!((kappa - 0.5).abs() < 1e-12, "{kappa}");
        let text = render_study(&report, StudyFormat::Markdown);
        for part in [
            "| reviewer \\ tests | Plausible | not Plausible | Plausible, Divergent | Plausible, no divergence found |",
            "| accept | 2 | 1 | 1 | 1 |",
            "| reject | 2 | 0 | 1 | 1 |",
            "## Auditor `ana` against differential testing",
            "| incorrect | 1 | 2 |",
            "Cohen's kappa 0.500 (95% CI",
            "## Differential testing per cell",
            "| c0 | m | chat-p1 | 0 | 4 · 2 · 2 · 0 |",
        ] {
            assert!(text.contains(part), "{part:?} in\n{text}");
        }
    }

    #[test]
    fn the_study_page_shows_stored_markup_as_text_and_checks_its_own_tables() {
        let page = render_study(&hostile_report(), StudyFormat::Html);
        assert_eq!(page.matches("<script").count(), 1, "{page}");
        assert!(!page.contains("<img"), "{page}");
        assert!(
            page.contains("&lt;img src=x onerror=alert(1)&gt;"),
            "{page}"
        );
        assert!(
            page.contains("<title>Study s&lt;script&gt;</title>"),
            "{page}"
        );
        assert!(page.contains("Table 6"), "{page}");
        // Tables 5 and 6; the page's check expects exactly the tables it has.
        assert_eq!(page.matches("<table").count(), 2, "{page}");
        assert!(
            page.contains("querySelectorAll('table').length===2"),
            "{page}"
        );
        assert!(page.contains("Content-Security-Policy"));
        // Markdown keeps Table 4's place; HTML puts the eval sections there instead.
        assert!(!study_markdown(&hostile_report(), false).contains("Table 4"));
    }
}
