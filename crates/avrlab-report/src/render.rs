//! Rendering a report as Markdown (for papers and terminals), CSV (for spreadsheets, written by the
//! `csv` crate so that quotes, commas and line breaks in stored names are quoted), JSON, LaTeX
//! (`booktabs`) or a self-contained HTML page.

use std::fmt::Write as _;

use crate::cutoff::{CutoffDifference, CutoffSide, CutoffSplit};
use crate::eval_report::{
    CUTOFF_HEADING, DIFFERENTIAL_HEADING, EvalReport, PROBE_HEADING, TaskCell, differential_cell,
    has_differential,
};
use crate::probe_summary::ProbeSummary;

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
    for (heading, lines) in [
        (CUTOFF_HEADING, report.cutoff_lines()),
        (PROBE_HEADING, report.probe_lines()),
    ] {
        if !lines.is_empty() {
            let _ = writeln!(out, "\n{heading}:");
            for line in lines {
                let _ = writeln!(out, "- {line}");
            }
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
    let split = report.models.iter().any(|m| m.cutoff.is_some());
    let probed = report.models.iter().any(|m| m.probe.is_some());
    let split_header: &[&str] = if split { &CUTOFF_COLUMNS } else { &[] };
    let probe_header: &[&str] = if probed { &PROBE_COLUMNS } else { &[] };
    // Writing to memory fails only on a record of the wrong length, which these are not.
    writer
        .write_record(
            header
                .iter()
                .chain(extra)
                .chain(split_header)
                .chain(probe_header),
        )
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
                .chain(counts)
                .chain(if split {
                    cutoff_cells(m.cutoff.as_ref())
                } else {
                    Vec::new()
                })
                .chain(if probed {
                    probe_cells(m.probe.as_ref())
                } else {
                    Vec::new()
                }),
            )
            .expect("csv record");
    }
    let bytes = writer.into_inner().expect("csv to memory");
    String::from_utf8(bytes).expect("csv of UTF-8 strings")
}

/// The CSV columns of the cut-off split (empty cells for a run without one).
const CUTOFF_COLUMNS: [&str; 14] = [
    "cutoff",
    "before_tasks",
    "before_plausible",
    "before_correct",
    "after_tasks",
    "after_plausible",
    "after_correct",
    "undated_tasks",
    "plausible_before_minus_after",
    "plausible_fisher_p",
    "correct_before_minus_after",
    "correct_fisher_p",
    "after_plausible_low",
    "after_plausible_high",
];

fn cutoff_cells(split: Option<&CutoffSplit>) -> Vec<String> {
    let Some(c) = split else {
        return vec![String::new(); CUTOFF_COLUMNS.len()];
    };
    let side = |s: &CutoffSide| [s.tasks, s.plausible, s.correct].map(|n| n.to_string());
    // No test (a side with too few tasks) is an empty cell, never a number.
    let test = |d: &Option<CutoffDifference>| {
        d.map_or_else(
            || [String::new(), String::new()],
            |d| [format!("{:.4}", d.difference), format!("{:.6}", d.p_value)],
        )
    };
    let interval = c.after.plausible_interval.map_or_else(
        || [String::new(), String::new()],
        |(low, high)| [format!("{low:.4}"), format!("{high:.4}")],
    );
    let mut cells = vec![c.cutoff.clone()];
    cells.extend(side(&c.before));
    cells.extend(side(&c.after));
    cells.push(c.undated.to_string());
    cells.extend(test(&c.plausible_difference));
    cells.extend(test(&c.correct_difference));
    cells.extend(interval);
    cells
}

/// The CSV columns of the memorization probe (empty cells for a run without one).
const PROBE_COLUMNS: [&str; 10] = [
    "probed_tasks",
    "memorized_tasks",
    "memorized_plausible",
    "not_memorized_plausible",
    "memorized_fisher_p",
    "mean_rename_drop",
    "probe_rate_r",
    "probe_rate_r_low",
    "probe_rate_r_high",
    "probe_rate_p",
];

fn probe_cells(probe: Option<&ProbeSummary>) -> Vec<String> {
    let Some(p) = probe else {
        return vec![String::new(); PROBE_COLUMNS.len()];
    };
    vec![
        p.probed.to_string(),
        p.memorized.to_string(),
        p.memorized_plausible.to_string(),
        p.other_plausible.to_string(),
        p.p_value.map_or_else(String::new, |v| format!("{v:.6}")),
        p.mean_rename_drop
            .map_or_else(String::new, |v| format!("{v:.4}")),
    ]
    .into_iter()
    .chain(p.correlation.map_or_else(
        || vec![String::new(); 4],
        |c| {
            vec![
                format!("{:.4}", c.r),
                format!("{:.4}", c.interval.0),
                format!("{:.4}", c.interval.1),
                format!("{:.6}", c.p_value),
            ]
        },
    ))
    .collect()
}
