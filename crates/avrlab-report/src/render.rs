//! Rendering a report as Markdown (for papers and terminals), CSV (for spreadsheets, written by the
//! `csv` crate so that quotes, commas and line breaks in stored names are quoted), JSON, LaTeX
//! (`booktabs`) or a self-contained HTML page.

use std::fmt::Write as _;

use crate::eval_report::{
    DIFFERENTIAL_HEADING, EvalReport, TaskCell, differential_cell, has_differential,
};

/// The output formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReportFormat {
    Markdown,
    Csv,
    Json,
    Latex,
    Html,
}

fn percent(x: f64) -> String {
    format!("{:.1}%", x * 100.0)
}

fn optional(x: Option<f64>) -> String {
    x.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"))
}

fn cell(c: TaskCell) -> &'static str {
    match c {
        TaskCell::Correct => "correct",
        TaskCell::Plausible => "plausible",
        TaskCell::NotFixed => "-",
    }
}

/// Renders the report.
pub fn render(report: &EvalReport, format: ReportFormat) -> String {
    match format {
        ReportFormat::Json => serde_json::to_string_pretty(report).expect("reports serialize"),
        ReportFormat::Csv => csv(report),
        ReportFormat::Markdown => markdown(report),
        ReportFormat::Latex => crate::latex::render_latex(report),
        ReportFormat::Html => crate::html::render_html(report),
    }
}

fn markdown(report: &EvalReport) -> String {
    let mut out = String::new();
    for warning in report.incomplete_warnings() {
        let _ = writeln!(out, "**Incomplete:** {warning}\n");
    }
    let _ = writeln!(out, "## Fixed vulnerabilities per model\n");
    // The differential column only when some run has differential results: older reports stay
    // as they were.
    let differential = has_differential(&report.models);
    let (heading, rule) = if differential {
        (format!(" {DIFFERENTIAL_HEADING} |"), "---:|")
    } else {
        (String::new(), "")
    };
    let _ = writeln!(
        out,
        "| benchmark | model | format | FL offset | tasks | samples | correct | plausible (95% CI) | across runs | compile rate | duplicate rate | pass@1 | pass@k | no answer | cost (USD) |{heading}"
    );
    let _ = writeln!(
        out,
        "|---|---|---|---:|---:|---:|---:|---|---|---:|---:|---:|---:|---:|---:|{rule}"
    );
    for m in &report.models {
        let across = m.plausible_across_runs.map_or_else(
            || "-".to_owned(),
            |(mean, margin)| format!("{mean:.2} ± {margin:.2}"),
        );
        let extra = if differential {
            format!(" {} |", differential_cell(m))
        } else {
            String::new()
        };
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} ({}–{}) | {} | {} | {} | {} | {} (k={}) | {} | {} |{extra}",
            m.benchmark,
            m.model,
            m.format,
            m.fl_offset,
            m.tasks,
            m.samples,
            m.correct_tasks,
            m.plausible_tasks,
            percent(m.plausible_interval.0),
            percent(m.plausible_interval.1),
            across,
            percent(m.compile_rate),
            percent(m.duplicate_rate),
            optional(m.pass_at_1),
            optional(m.pass_at_k),
            m.samples_per_prompt,
            m.errors,
            m.cost.cell(),
        );
    }
    let _ = writeln!(out, "\nCompleteness (samples):");
    for line in report.completeness_lines() {
        let _ = writeln!(out, "- {line}");
    }
    let split: Vec<_> = report
        .models
        .iter()
        .filter_map(|m| m.cutoff.as_ref().map(|c| (m, c)))
        .collect();
    if !split.is_empty() {
        let _ = writeln!(
            out,
            "\nBefore and after the model's training cut-off (tasks by the month their fix was committed):"
        );
        for (m, c) in split {
            let _ = writeln!(out, "- {}: {}", m.run_id, c.line());
        }
    }
    let probed: Vec<_> = report
        .models
        .iter()
        .filter_map(|m| m.probe.as_ref().map(|p| (m, p)))
        .collect();
    if !probed.is_empty() {
        let _ = writeln!(
            out,
            "\nMemorization probe (`avrlab probe` of the run's model on its benchmark):"
        );
        for (m, p) in probed {
            let _ = writeln!(out, "- {}: {}", m.run_id, p.line());
        }
    }
    let _ = writeln!(out, "\nCost (samples the model was heard on):");
    for line in report.cost_lines() {
        let _ = writeln!(out, "- {line}");
    }
    let _ = writeln!(out, "\n## Vulnerabilities fixed, per task\n");
    // Runs of several benchmarks (a study's variants) would give columns of the same name.
    let several = crate::figures::mixes_benchmarks(report);
    let headers: Vec<String> = report
        .models
        .iter()
        .map(|m| {
            if several {
                format!("{} ({}, {})", m.model, m.format, m.benchmark)
            } else {
                format!("{} ({})", m.model, m.format)
            }
        })
        .collect();
    let _ = writeln!(out, "| task | CWE | {} |", headers.join(" | "));
    let _ = writeln!(out, "|---|---|{}", "---|".repeat(headers.len()));
    for (task, cells) in &report.matrix {
        let cells: Vec<&str> = cells.iter().map(|c| cell(*c)).collect();
        let cwe: Vec<String> = report
            .cwe
            .get(task)
            .into_iter()
            .flatten()
            .map(|id| format!("CWE-{id}"))
            .collect();
        let _ = writeln!(
            out,
            "| {task} | {} | {} |",
            cwe.join(", "),
            cells.join(" | ")
        );
    }
    for m in report.models.iter().filter(|m| m.audited + m.disputed > 0) {
        let _ = writeln!(
            out,
            "\n{}: {} plausible candidates audited by hand ({} correct), {} disputed between auditors, {} not audited",
            m.run_id,
            m.audited,
            m.audited_correct,
            m.disputed,
            m.to_audit.len()
        );
    }
    for m in &report.models {
        if let Some(p) = &m.published {
            let _ = writeln!(out, "\n{}", p.describe(&m.run_id));
            for (pair, count) in &p.table {
                let _ = writeln!(out, "- ours / published `{pair}`: {count}");
            }
            if !p.unmapped.is_empty() {
                let _ = writeln!(out, "\nNot replayed ({}):", p.unmapped.len());
                for line in &p.unmapped {
                    let _ = writeln!(out, "- {line}");
                }
            }
        }
    }
    if report.engines.any() {
        let _ = writeln!(out, "\nEngines:");
        for line in report.engines.lines() {
            let _ = writeln!(out, "- {line}");
        }
    }
    let audit: Vec<&String> = report.models.iter().flat_map(|m| &m.to_audit).collect();
    if !audit.is_empty() {
        let _ = writeln!(
            out,
            "\nPlausible but neither identical nor equivalent to the reference fix, not audited yet (`avrlab audit RUN`):"
        );
        for id in audit {
            let _ = writeln!(out, "- {id}");
        }
    }
    out
}

fn csv(report: &EvalReport) -> String {
    let mut writer = csv::Writer::from_writer(Vec::new());
    let header = [
        "run",
        "benchmark",
        "model",
        "format",
        "fl_offset",
        "tasks",
        "samples",
        "correct_tasks",
        "plausible_tasks",
        "plausible_low",
        "plausible_high",
        "compile_rate",
        "duplicate_rate",
        "pass_at_1",
        "pass_at_k",
        "k",
        "no_answer",
        "registered",
        "judged",
        "model_failures",
        "errored",
        "retried",
        "cost_usd",
        "cost_known_samples",
        "cost_unknown_samples",
        "price_read_on",
    ];
    let differential = has_differential(&report.models);
    let extra: &[&str] = if differential {
        &[
            "differential_plausible",
            "differential_no_divergence",
            "differential_divergent",
            "differential_on_vulnerable_inputs",
        ]
    } else {
        &[]
    };
    // Writing to memory fails only on a record of the wrong length, which these are not.
    writer
        .write_record(header.iter().chain(extra))
        .expect("csv header");
    for m in &report.models {
        let counts = m.differential.map_or_else(
            || vec![String::new(); 4],
            |d| {
                [
                    d.plausible,
                    d.no_divergence,
                    d.divergent,
                    d.divergent_on_vulnerable_inputs,
                ]
                .map(|n| n.to_string())
                .to_vec()
            },
        );
        let counts = if differential { counts } else { Vec::new() };
        writer
            .write_record(
                [
                    m.run_id.clone(),
                    m.benchmark.clone(),
                    m.model.clone(),
                    m.format.clone(),
                    m.fl_offset.to_string(),
                    m.tasks.to_string(),
                    m.samples.to_string(),
                    m.correct_tasks.to_string(),
                    m.plausible_tasks.to_string(),
                    format!("{:.4}", m.plausible_interval.0),
                    format!("{:.4}", m.plausible_interval.1),
                    format!("{:.4}", m.compile_rate),
                    format!("{:.4}", m.duplicate_rate),
                    optional(m.pass_at_1),
                    optional(m.pass_at_k),
                    m.samples_per_prompt.to_string(),
                    m.errors.to_string(),
                    m.completeness.registered.to_string(),
                    m.completeness.judged.to_string(),
                    m.completeness.model_failures.to_string(),
                    m.completeness.errored.to_string(),
                    m.completeness.retried.to_string(),
                    // An unknown cost is the word, never an empty cell a spreadsheet sums as 0.
                    m.cost
                        .usd
                        .map_or_else(|| "unknown".to_owned(), |usd| format!("{usd:.6}")),
                    m.cost.known_samples.to_string(),
                    m.cost.unknown_samples.to_string(),
                    m.cost
                        .price
                        .as_ref()
                        .map_or_else(String::new, |p| p.read_on.clone()),
                ]
                .into_iter()
                .chain(counts),
            )
            .expect("csv record");
    }
    let bytes = writer.into_inner().expect("csv to memory");
    String::from_utf8(bytes).expect("csv of UTF-8 strings")
}
