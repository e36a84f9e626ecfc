//! The report of a validate run (a benchmark's reference check, a predictions file, a replayed
//! or feature run's verdicts), read back from the store alone: how many verdicts of each outcome,
//! the errored ones by cause (in no count), and one row per candidate. Eval runs have the richer
//! report of `eval_report`; `avrlab report` picks the one the run's mode asks for.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use avrlab_core::{ErrorCause, ItemClass, Outcome, Phase, RunMode};
use avrlab_store::{Store, StoreError};
use serde::Serialize;

use crate::eval_report::ReportError;
use crate::html::Page;
use crate::render::ReportFormat;

/// One candidate's verdict.
#[derive(Debug, Clone, Serialize)]
pub struct ValidationRow {
    pub candidate: String,
    pub task: String,
    pub label: String,
    pub outcome: Outcome,
    pub class: ItemClass,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error_cause: Option<ErrorCause>,
    pub attempt: u32,
    pub reason: String,
    pub seconds: f64,
    /// The phase that decided the verdict (the last that ran).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub decided_in: Option<Phase>,
}

impl ValidationRow {
    /// Whether the verdict says the PoV tests do not pass: they failed, or they ran past the
    /// time limit (a denial-of-service PoV on its vulnerable state computes without end, and a
    /// test that never ends never passes).
    pub fn fails_pov(&self) -> bool {
        match self.outcome {
            Outcome::PovFailing => true,
            Outcome::Timeout => self.decided_in == Some(Phase::Pov),
            _ => false,
        }
    }
}

/// The rows of run `run_id`'s verdicts, in the store's order.
pub fn verdict_rows(store: &Store, run_id: &str) -> Result<Vec<ValidationRow>, StoreError> {
    Ok(store
        .verdicts(run_id)?
        .into_iter()
        .map(|v| ValidationRow {
            candidate: v.candidate_id,
            task: v.task,
            label: v.label,
            outcome: v.outcome,
            class: v.class,
            error_cause: v.error_cause,
            attempt: v.attempt,
            reason: v.reason,
            seconds: v.wall_ms as f64 / 1000.0,
            decided_in: v.last_phase,
        })
        .collect())
}

/// Judged verdicts per outcome, and errored ones per cause (in no outcome's count).
pub fn outcome_counts(
    rows: &[ValidationRow],
) -> (BTreeMap<&'static str, usize>, BTreeMap<&'static str, usize>) {
    let mut outcomes = BTreeMap::new();
    let mut errored = BTreeMap::new();
    for v in rows {
        match v.error_cause {
            Some(cause) => *errored.entry(cause.as_str()).or_default() += 1,
            None => *outcomes.entry(v.outcome.as_str()).or_default() += 1,
        }
    }
    (outcomes, errored)
}

/// A validate run as stored.
#[derive(Debug, Clone, Serialize)]
pub struct ValidationReport {
    pub run_id: String,
    pub benchmark: String,
    pub mode: RunMode,
    /// Whether the run finished (an unfinished one is resumable and its counts partial).
    pub finished: bool,
    /// Judged verdicts per outcome; errored verdicts are in none of them.
    pub outcomes: BTreeMap<&'static str, usize>,
    /// Errored verdicts (the infrastructure failed their validation), by cause.
    pub errored: BTreeMap<&'static str, usize>,
    pub verdicts: Vec<ValidationRow>,
}

/// Reads the report of run `run_id`, whatever its mode.
pub fn build_validation_report(
    store: &Store,
    run_id: &str,
) -> Result<ValidationReport, ReportError> {
    let run = store
        .run(run_id)?
        .ok_or_else(|| ReportError::UnknownRun(run_id.to_owned()))?;
    let verdicts = verdict_rows(store, run_id)?;
    let (outcomes, errored) = outcome_counts(&verdicts);
    Ok(ValidationReport {
        run_id: run.id,
        benchmark: run.benchmark,
        mode: run.mode,
        finished: run.finished_at.is_some(),
        outcomes,
        errored,
        verdicts,
    })
}

/// The report in `format`.
pub fn render_validation(report: &ValidationReport, format: ReportFormat) -> String {
    match format {
        ReportFormat::Markdown => markdown(report),
        ReportFormat::Csv => csv(report),
        ReportFormat::Json => {
            serde_json::to_string_pretty(report).expect("reports serialize") + "\n"
        }
        ReportFormat::Latex => latex(report),
        ReportFormat::Html => html(report),
    }
}

/// The line under the title: which run, of what, and whether it finished.
fn heading(report: &ValidationReport) -> String {
    format!(
        "run {} ({} of benchmark {}){}",
        report.run_id,
        report.mode.as_str(),
        report.benchmark,
        if report.finished {
            ""
        } else {
            "; not finished: the counts are partial"
        }
    )
}

/// `Plausible 3, PovFailing 1; errored: killed 1`.
fn counts(report: &ValidationReport) -> String {
    let join = |counts: &BTreeMap<&str, usize>| {
        counts
            .iter()
            .map(|(word, n)| format!("{word} {n}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut line = join(&report.outcomes);
    if line.is_empty() {
        line.push_str("no verdict");
    }
    if !report.errored.is_empty() {
        let _ = write!(line, "; errored (in no count): {}", join(&report.errored));
    }
    line
}

/// A row's outcome as its cell says it: errored ones name their cause.
fn outcome_cell(row: &ValidationRow) -> String {
    match row.error_cause {
        Some(cause) => format!("errored ({})", cause.as_str()),
        None => row.outcome.as_str().to_owned(),
    }
}

fn markdown(report: &ValidationReport) -> String {
    let mut out = format!(
        "## Verdicts\n\n{}\n\n{}\n\n| candidate | outcome | seconds | reason |\n|---|---|---:|---|\n",
        heading(report),
        counts(report)
    );
    let cell = |text: &str| text.replace('|', "\\|").replace('\n', " ");
    for row in &report.verdicts {
        let _ = writeln!(
            out,
            "| {} | {} | {:.1} | {} |",
            cell(&row.candidate),
            outcome_cell(row),
            row.seconds,
            cell(&row.reason)
        );
    }
    out
}

fn csv(report: &ValidationReport) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = [
        "run",
        "candidate",
        "task",
        "label",
        "outcome",
        "class",
        "error_cause",
        "attempt",
        "seconds",
        "reason",
    ];
    let _ = writer.write_record(header);
    for row in &report.verdicts {
        let _ = writer.write_record([
            report.run_id.as_str(),
            &row.candidate,
            &row.task,
            &row.label,
            row.outcome.as_str(),
            row.class.as_str(),
            row.error_cause.map_or("", ErrorCause::as_str),
            &row.attempt.to_string(),
            &format!("{:.3}", row.seconds),
            &row.reason,
        ]);
    }
    String::from_utf8(writer.into_inner().unwrap_or_default()).unwrap_or_default()
}

fn latex(report: &ValidationReport) -> String {
    use crate::latex::escape;
    let mut out = format!(
        "% {}\n% {}\n\\begin{{tabular}}{{llr}}\n\\toprule\nCandidate & Outcome & Seconds \\\\\n\\midrule\n",
        heading(report),
        counts(report)
    );
    for row in &report.verdicts {
        let _ = writeln!(
            out,
            "{} & {} & {:.1} \\\\",
            escape(&row.candidate),
            escape(&outcome_cell(row)),
            row.seconds
        );
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    out
}

fn html(report: &ValidationReport) -> String {
    use crate::svg::escape;
    let mut page = Page::new("avrlab report");
    let body = &mut page.body;
    let _ = write!(
        body,
        "<h1>avrlab report</h1><p class=\"note\">{}</p><p>{}</p>",
        escape(&heading(report)),
        escape(&counts(report))
    );
    body.push_str(
        "<table><tr><th>candidate</th><th>outcome</th><th>seconds</th><th>reason</th></tr>",
    );
    for row in &report.verdicts {
        let class = match (row.error_cause, row.outcome) {
            (None, Outcome::Plausible) => " class=\"plausible\"",
            _ => "",
        };
        let _ = write!(
            body,
            "<tr><td>{}</td><td{class}>{}</td><td class=\"n\">{:.1}</td><td>{}</td></tr>",
            escape(&row.candidate),
            escape(&outcome_cell(row)),
            row.seconds,
            escape(&row.reason)
        );
    }
    body.push_str("</table>");
    page.tables += 1;
    page.finish()
}

#[cfg(test)]
mod tests {
    use avrlab_store::{NewCandidate, NewRun, VerdictRow};

    use super::*;

    fn store_with_a_reference_run() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let candidates: Vec<NewCandidate> = ["vulnerable", "reference"]
            .iter()
            .map(|label| NewCandidate {
                id: format!("t/{label}"),
                task: "t".into(),
                label: (*label).into(),
                kind: avrlab_core::CandidateKind::Unchanged,
                content: String::new(),
            })
            .collect();
        let run = NewRun {
            id: "ref".into(),
            benchmark: "demo".into(),
            mode: RunMode::Reference,
            input_hash: "h".into(),
            config: avrlab_core::RunConfig::default(),
        };
        store.create_run(&run, &candidates).unwrap();
        for (id, outcome, cause, reason) in [
            (
                "t/vulnerable",
                Outcome::PovFailing,
                None,
                "p.T#pov failed | <b>",
            ),
            (
                "t/reference",
                Outcome::Indeterminate,
                Some(ErrorCause::Killed),
                "killed from outside",
            ),
        ] {
            let verdict = VerdictRow {
                error_cause: cause,
                outcome,
                reason: reason.into(),
                wall_ms: 1500,
                diagnostics: Vec::new(),
                phases: Vec::new(),
                tests: Vec::new(),
                engine: None,
            };
            store.record_verdict("ref", id, &verdict).unwrap();
        }
        (dir, store)
    }

    #[test]
    fn a_validate_run_is_reported_in_every_format_with_errored_verdicts_apart() {
        let (_dir, store) = store_with_a_reference_run();
        let report = build_validation_report(&store, "ref").unwrap();
        assert_eq!(report.outcomes, BTreeMap::from([("PovFailing", 1)]));
        assert_eq!(report.errored, BTreeMap::from([("killed", 1)]));
        let markdown = render_validation(&report, ReportFormat::Markdown);
        assert!(
            markdown.contains("PovFailing 1; errored (in no count): killed 1"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| t/vulnerable | PovFailing | 1.5 | p.T#pov failed \\| <b> |"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| t/reference | errored (killed) |"),
            "{markdown}"
        );
        let csv = render_validation(&report, ReportFormat::Csv);
        assert_eq!(csv.lines().count(), 3, "{csv}");
        assert!(csv.contains("ref,t/reference,t,reference,Indeterminate,errored,killed,1,1.500,"));
        let json: serde_json::Value =
            serde_json::from_str(&render_validation(&report, ReportFormat::Json)).unwrap();
        assert_eq!(json["verdicts"][1]["error_cause"], "killed");
        let latex = render_validation(&report, ReportFormat::Latex);
        assert!(
            latex.contains("t/vulnerable & PovFailing & 1.5 \\\\"),
            "{latex}"
        );
        let html = render_validation(&report, ReportFormat::Html);
        assert!(html.contains("p.T#pov failed | &lt;b&gt;"), "{html}");
        assert!(!html.contains("<b>"), "{html}");
        assert!(matches!(
            build_validation_report(&store, "none"),
            Err(ReportError::UnknownRun(_))
        ));
    }
}
