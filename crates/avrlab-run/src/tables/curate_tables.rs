//! The tables of `avrlab curate`: the funnel (which gate rejected each candidate feature task)
//! and the re-check of a curated benchmark (the matrix again and its three reference predictions).

use std::fmt::Write as _;

use avrlab_validate::{FeatureRun, Judged};

use crate::workflows::curate::{CheckRow, FunnelRow, Gate};

/// The first line of a reason, fit for a table cell.
fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").replace('|', "/");
    line.chars().take(140).collect()
}

/// What one run of the matrix showed, in a cell.
fn run_cell(runs: &[FeatureRun], label: &str) -> String {
    match runs.iter().find(|r| r.label == label) {
        None => "–".into(),
        Some(run) => {
            let func = run.functional.as_ref().map(|_| run.func());
            let sec = run.security.as_ref().map(|_| run.sec());
            match (func, sec) {
                (Some(f), None) => format!("func {}", f.as_str()),
                (None, Some(s)) => format!("sec {}", s.as_str()),
                (Some(f), Some(s)) => format!("func {} sec {}", f.as_str(), s.as_str()),
                (None, None) => match (&run.not_applied, &run.compiled) {
                    (Some(_), _) => "not applied".into(),
                    (_, Some(Err(_))) => "no compile".into(),
                    _ => "?".into(),
                },
            }
        }
    }
}

const LABELS: [&str; 5] = [
    "base",
    "base-without-security",
    "rollback",
    "rollback-with-security",
    "masked",
];

/// The funnel: one row per candidate task, then how many passed each gate.
pub fn funnel_table(rows: &[FunnelRow]) -> String {
    let mut out = String::from(
        "| repair task | feature task | masked methods | base | base w/o sec | rollback | rollback + sec | masked | expected func failures | result | problem statement |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let result = row.rejected.as_ref().map_or_else(
            || {
                if row.kept_earlier {
                    "kept (earlier)"
                } else {
                    "kept"
                }
                .to_owned()
            },
            |(g, r)| format!("rejected at {}: {}", g.as_str(), one_line(r)),
        );
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.source,
            row.task,
            row.masked_methods,
            run_cell(&row.runs, LABELS[0]),
            run_cell(&row.runs, LABELS[1]),
            run_cell(&row.runs, LABELS[2]),
            run_cell(&row.runs, LABELS[3]),
            run_cell(&row.runs, LABELS[4]),
            row.expected_func,
            result,
            if row.statement.is_empty() {
                "–".to_owned()
            } else {
                one_line(&row.statement)
            }
        );
    }
    let mut remaining = rows.len();
    let _ = write!(out, "\nfunnel: {remaining} candidate(s)");
    for gate in Gate::ALL {
        let rejected = rows
            .iter()
            .filter(|r| r.rejected.as_ref().is_some_and(|(g, _)| *g == gate))
            .count();
        remaining -= rejected;
        let _ = write!(out, " → {} {remaining}", gate.as_str());
    }
    let _ = writeln!(out, "; kept {remaining}");
    out
}

fn score_cell(rows: &[FeatureRun], label: &str) -> (String, Option<(Judged, Judged)>) {
    match rows.iter().find(|r| r.label == label) {
        None => ("–".into(), None),
        Some(run) => {
            let (f, s) = (run.func(), run.sec());
            (
                format!("func={} sec={}", f.as_str(), s.as_str()),
                Some((f, s)),
            )
        }
    }
}

/// The re-check: the matrix per task, the three reference predictions, and whether each is
/// as it must be (golden func=pass sec=pass, vulnerable func=pass sec=fail, empty func=fail).
pub fn check_table(rows: &[(String, Result<CheckRow, String>)]) -> (String, bool) {
    let mut out = String::from(
        "| feature task | base | base w/o sec | rollback | rollback + sec | masked | golden | vulnerable put back | empty | check |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut all_pass = true;
    for (id, row) in rows {
        let row = match row {
            Ok(row) => row,
            Err(reason) => {
                all_pass = false;
                let _ = writeln!(
                    out,
                    "| {id} | | | | | | | | | FAILED: {} |",
                    one_line(reason)
                );
                continue;
            }
        };
        let (golden, g) = score_cell(&row.scores, "golden");
        let (vulnerable, v) = score_cell(&row.scores, "vulnerable");
        let (empty, e) = score_cell(&row.scores, "empty");
        let mut problems = Vec::new();
        if let Some((gate, reason)) = &row.matrix.rejected {
            problems.push(format!("gate {}: {}", gate.as_str(), one_line(reason)));
        }
        if !matches!(g, Some((Judged::Pass, Judged::Pass))) {
            problems.push("golden is not func=pass sec=pass".into());
        }
        if !matches!(v, Some((Judged::Pass, Judged::Fail(_)))) {
            problems.push("vulnerable is not func=pass sec=fail".into());
        }
        if !matches!(e, Some((Judged::Fail(_), _))) {
            problems.push("empty is not func=fail".into());
        }
        let verdict = if problems.is_empty() {
            "passed".to_owned()
        } else {
            all_pass = false;
            format!("FAILED: {}", problems.join("; "))
        };
        let runs = &row.matrix.runs;
        let _ = writeln!(
            out,
            "| {id} | {} | {} | {} | {} | {} | {golden} | {vulnerable} | {empty} | {verdict} |",
            run_cell(runs, LABELS[0]),
            run_cell(runs, LABELS[1]),
            run_cell(runs, LABELS[2]),
            run_cell(runs, LABELS[3]),
            run_cell(runs, LABELS[4]),
        );
    }
    let _ = writeln!(
        out,
        "\nfeature check: {} task(s): {}",
        rows.len(),
        if all_pass { "PASSED" } else { "FAILED" }
    );
    (out, all_pass)
}
