//! The report as one self-contained HTML page: inline CSS, inline SVG plots, and one small inline
//! script that checks the page once it is laid out. Nothing is loaded from anywhere: a
//! Content-Security-Policy allows no source at all and only the page's own style and script, by
//! their SHA-256, so even a stored string that escaped [`escape`] could not run or fetch anything.

use std::fmt::Write as _;

use base64::Engine as _;
use sha2::{Digest, Sha256};

use crate::eval_report::{EvalReport, ModelSummary, TaskCell};
use crate::figures;
use crate::svg;
use crate::svg::escape;

/// The attribute the page's own check sets on `<body>`: `passed` when every plot was laid out
/// with a non-empty box, the page has exactly the tables and plots it was written with, and its
/// one script is the only one.
pub const CHECK_ATTRIBUTE: &str = "data-avrlab-check";

const STYLE: &str = "body{font-family:sans-serif;margin:2em auto;max-width:1100px;color:#222}\
table{border-collapse:collapse;margin:1em 0;font-size:13px}\
th,td{border:1px solid #ccc;padding:3px 8px;text-align:left}\
td.n{text-align:right}th{background:#f2f2f2}\
td.correct{background:#2171b5;color:#fff}td.plausible{background:#9ecae1}\
p.note{color:#555;font-size:13px}code{font-size:12px}";

fn csp_hash(source: &str) -> String {
    let digest = Sha256::digest(source.as_bytes());
    format!(
        "'sha256-{}'",
        base64::engine::general_purpose::STANDARD.encode(digest)
    )
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn cell(out: &mut String, text: &str) {
    let _ = write!(out, "<td>{}</td>", escape(text));
}

fn number(out: &mut String, text: &str) {
    let _ = write!(out, r#"<td class="n">{}</td>"#, escape(text));
}

fn summary_table(out: &mut String, report: &EvalReport) {
    out.push_str("<table id=\"summary\"><tr>");
    for header in [
        "run",
        "benchmark",
        "model",
        "format",
        "FL offset",
        "tasks",
        "samples",
        "correct",
        "plausible (95% Wilson)",
        "across runs",
        "compile rate",
        "duplicate rate",
        "pass@1",
        "pass@k",
        "no answer",
        "cost (USD)",
    ] {
        let _ = write!(out, "<th>{header}</th>");
    }
    let differential = crate::has_differential(&report.models);
    if differential {
        let _ = write!(out, "<th>{}</th>", escape(crate::DIFFERENTIAL_HEADING));
    }
    out.push_str("</tr>");
    for m in &report.models {
        out.push_str("<tr>");
        cell(out, &m.run_id);
        cell(out, &m.benchmark);
        cell(out, &m.model);
        cell(out, &m.format);
        number(out, &m.fl_offset.to_string());
        number(out, &m.tasks.to_string());
        number(out, &m.samples.to_string());
        number(out, &m.correct_tasks.to_string());
        cell(
            out,
            &format!(
                "{} ({}–{})",
                m.plausible_tasks,
                percent(m.plausible_interval.0),
                percent(m.plausible_interval.1)
            ),
        );
        cell(
            out,
            &m.plausible_across_runs.map_or_else(
                || "-".into(),
                |(mean, margin)| format!("{mean:.2} ± {margin:.2}"),
            ),
        );
        number(out, &percent(m.compile_rate));
        number(out, &percent(m.duplicate_rate));
        let optional = |x: Option<f64>| x.map_or_else(|| "-".into(), |v| format!("{v:.3}"));
        number(out, &optional(m.pass_at_1));
        number(
            out,
            &format!("{} (k={})", optional(m.pass_at_k), m.samples_per_prompt),
        );
        number(out, &m.errors.to_string());
        number(out, &m.cost.cell());
        if differential {
            number(out, &crate::differential_cell(m));
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

fn matrix_table(out: &mut String, report: &EvalReport) {
    out.push_str("<table id=\"matrix\"><tr><th>task</th><th>CWE</th>");
    for (i, m) in report.models.iter().enumerate() {
        let _ = write!(
            out,
            "<th title=\"{}\">{} {}</th>",
            escape(&figures::row_label(report, m)),
            i + 1,
            escape(&m.model)
        );
    }
    out.push_str("</tr>");
    for (task, cells) in &report.matrix {
        out.push_str("<tr>");
        cell(out, task);
        let cwe: Vec<String> = report
            .cwe
            .get(task)
            .into_iter()
            .flatten()
            .map(|id| format!("CWE-{id}"))
            .collect();
        cell(out, &cwe.join(", "));
        for (column, c) in cells.iter().enumerate() {
            let ran = report.ran.get(task).is_some_and(|r| r[column]);
            let (class, text) = match (ran, c) {
                (false, _) => ("", "n/a"),
                (true, TaskCell::Correct) => ("correct", "correct"),
                (true, TaskCell::Plausible) => ("plausible", "plausible"),
                (true, TaskCell::NotFixed) => ("", "–"),
            };
            let _ = write!(out, r#"<td class="{class}">{text}</td>"#);
        }
        out.push_str("</tr>");
    }
    out.push_str("</table>");
}

/// How many fast verdicts Maven re-judged, and every disagreement.
fn engine_notes(out: &mut String, report: &EvalReport) {
    if !report.engines.any() {
        return;
    }
    out.push_str(r#"<ul class="note">"#);
    for line in report.engines.lines() {
        let _ = write!(out, "<li>{}</li>", escape(&line));
    }
    out.push_str("</ul>");
}

/// The cut-off split and the memorization probe, where the runs have them.
fn control_notes(out: &mut String, report: &EvalReport) {
    for (heading, lines) in [
        (crate::eval_report::CUTOFF_HEADING, report.cutoff_lines()),
        (crate::eval_report::PROBE_HEADING, report.probe_lines()),
    ] {
        if lines.is_empty() {
            continue;
        }
        let _ = write!(
            out,
            r#"<p class="note">{}:</p><ul class="note">"#,
            escape(heading)
        );
        for line in lines {
            let _ = write!(out, "<li>{}</li>", escape(&line));
        }
        out.push_str("</ul>");
    }
}

fn audit_notes(out: &mut String, models: &[ModelSummary]) {
    for m in models {
        if m.audited + m.disputed > 0 || !m.to_audit.is_empty() {
            let _ = write!(
                out,
                r#"<p class="note">{}: {} plausible candidates audited by hand ({} correct), {} disputed between auditors, {} not audited yet (<code>avrlab audit RUN</code>).</p>"#,
                escape(&m.run_id),
                m.audited,
                m.audited_correct,
                m.disputed,
                m.to_audit.len()
            );
        }
    }
}

/// Renders the whole page.
pub fn render_html(report: &EvalReport) -> String {
    let mut page = Page::new("avrlab report");
    page.body.push_str("<h1>avrlab report</h1>");
    eval_sections(&mut page, report, report);
    page.finish()
}

/// A page being written: its body, and how many plots and tables it has (the page's own check
/// expects exactly those).
pub(crate) struct Page {
    title: String,
    pub(crate) body: String,
    pub(crate) figures: usize,
    pub(crate) tables: usize,
}

impl Page {
    pub(crate) fn new(title: &str) -> Self {
        Self {
            title: title.to_owned(),
            body: String::new(),
            figures: 0,
            tables: 0,
        }
    }

    /// The page: the body, its check script, and a CSP that allows only its own style and script.
    pub(crate) fn finish(self) -> String {
        let Page {
            title,
            body,
            figures,
            tables,
        } = self;
        // The page's own check, run by the browser after layout; its result is read back from
        // the DOM by the headless check in the tests.
        let script = format!(
            "(function(){{var f=document.querySelectorAll('svg[data-figure]');\
             var ok=f.length==={figures}&&document.querySelectorAll('table').length==={tables}\
             &&document.scripts.length===1;\
             for(var i=0;i<f.length;i++){{var b=f[i].getBoundingClientRect();if(!(b.width>0&&b.height>0)){{ok=false;}}}}\
             document.body.setAttribute('{CHECK_ATTRIBUTE}',ok?'passed':'failed');}})();"
        );
        let csp = format!(
            "default-src 'none'; style-src {}; script-src {}; base-uri 'none'; form-action 'none'",
            csp_hash(STYLE),
            csp_hash(&script)
        );
        let title = escape(&title);
        format!(
            "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
             <meta http-equiv=\"Content-Security-Policy\" content=\"{csp}\">\
             <title>{title}</title><style>{STYLE}</style></head>\
             <body {CHECK_ATTRIBUTE}=\"pending\">{body}<script>{script}</script></body></html>\n"
        )
    }
}

/// The sections of an eval report: its runs, the model summary with its plot, the published
/// labels, the per-CWE heat map, the offset and transformation plots and the task matrix. The
/// FL-offset plot is drawn from `offset_runs` (a study's page shows its offset-0 cells, but the
/// offsets of all of them).
pub(crate) fn eval_sections(page: &mut Page, report: &EvalReport, offset_runs: &EvalReport) {
    let body = &mut page.body;
    let mut page_figures = 0usize;
    let runs: Vec<String> = report
        .models
        .iter()
        .map(|m| format!("{} ({})", m.run_id, m.benchmark))
        .collect();
    let _ = write!(
        body,
        r#"<p class="note">Runs: {}. Every number is computed from the stored samples and verdicts; intervals are 95% Wilson score intervals of the share of tasks.</p>"#,
        escape(&runs.join(", "))
    );

    for warning in report.incomplete_warnings() {
        let _ = write!(
            body,
            r#"<p class="note"><strong>Incomplete:</strong> {}</p>"#,
            escape(&warning)
        );
    }

    body.push_str("<h2>Fixed vulnerabilities per model</h2>");
    body.push_str(&svg::model_bars(&figures::model_bars(report)));
    page_figures += 1;
    summary_table(body, report);
    let _ = write!(
        body,
        r#"<p class="note">Completeness (samples): {}</p>"#,
        escape(&report.completeness_lines().join("; "))
    );
    let _ = write!(
        body,
        r#"<p class="note">Cost: {}</p>"#,
        escape(&report.cost_lines().join("; "))
    );
    audit_notes(body, &report.models);
    engine_notes(body, report);
    control_notes(body, report);

    for m in &report.models {
        if let Some(p) = &m.published {
            let _ = write!(
                body,
                r#"<p class="note">{}</p>"#,
                escape(&p.describe(&m.run_id))
            );
            if !p.unmapped.is_empty() {
                let _ = write!(
                    body,
                    r#"<details><summary>{} published files or tasks not replayed</summary><ul>"#,
                    p.unmapped.len()
                );
                for line in &p.unmapped {
                    let _ = write!(body, "<li>{}</li>", escape(line));
                }
                body.push_str("</ul></details>");
            }
        }
    }

    body.push_str("<h2>Fixed vulnerabilities per CWE</h2>");
    let columns: Vec<String> = report
        .models
        .iter()
        .map(|m| figures::row_label(report, m))
        .collect();
    let heat = figures::cwe_heat_map(report);
    if heat.is_empty() {
        body.push_str(r#"<p class="note">No task in these runs.</p>"#);
    } else {
        body.push_str(&svg::cwe_heat_map(&heat, &columns));
        page_figures += 1;
    }

    body.push_str("<h2>Effect of the FL offset</h2>");
    let offsets = figures::offset_series(offset_runs);
    if offsets.is_empty() {
        body.push_str(r#"<p class="note">No model, format and benchmark was run at two or more FL offsets in these runs.</p>"#);
    } else {
        body.push_str(&svg::series(
            "offsets",
            "Plausible share of tasks per FL offset, with 95% Wilson intervals",
            &offsets,
        ));
        page_figures += 1;
    }

    body.push_str("<h2>Effect of transformations</h2>");
    let transformations = figures::transformation_series(report);
    if transformations.is_empty() {
        body.push_str(r#"<p class="note">No model, format and offset was run on two or more benchmarks (an original and its transformed variants) in these runs.</p>"#);
    } else {
        body.push_str(&svg::series(
            "transformations",
            "Plausible share of tasks per benchmark variant, with 95% Wilson intervals",
            &transformations,
        ));
        page_figures += 1;
    }

    // The memorization probe against the score, for each run whose tasks were probed.
    let probed: Vec<(&str, &crate::ProbeSummary)> = report
        .models
        .iter()
        .filter_map(|m| {
            m.probe
                .as_ref()
                .filter(|p| !p.points.is_empty())
                .map(|p| (m.run_id.as_str(), p))
        })
        .collect();
    if !probed.is_empty() {
        body.push_str("<h2>Memorization probe and score</h2>");
    }
    for (run, probe) in probed {
        let caption = probe.correlation.map_or_else(
            || "too few tasks or no spread for a correlation".to_owned(),
            |c| {
                format!(
                    "r = {:.2} (95% CI {:.2} to {:.2}) over {} tasks",
                    c.r, c.interval.0, c.interval.1, c.tasks
                )
            },
        );
        body.push_str(&svg::probe_scatter(run, &probe.points, &caption));
        page_figures += 1;
    }

    body.push_str("<h2>Vulnerabilities fixed, per task</h2>");
    matrix_table(body, report);

    page.figures += page_figures;
    // The summary table and the task matrix.
    page.tables += 2;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_markup_and_quotes() {
        assert_eq!(
            escape(r#"<script>alert("x&y")</script> it's"#),
            "&lt;script&gt;alert(&quot;x&amp;y&quot;)&lt;/script&gt; it&#39;s"
        );
    }

    #[test]
    fn csp_hashes_are_base64_sha256() {
        // sha256("") in base64, as browsers compute it for an empty inline script.
        assert_eq!(
            csp_hash(""),
            "'sha256-47DEQpj8HBSa+/TImW+5JCeuQeRkm5NMpJWZG3hSuFU='"
        );
    }
}
