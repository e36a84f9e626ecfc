//! The report as LaTeX tables that paste into a paper: `booktabs` rules, numbers right-aligned,
//! every stored string escaped.

use std::fmt::Write as _;

use crate::eval_report::{EvalReport, TaskCell};

/// Escapes text for LaTeX's text mode.
pub fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str(r"\textbackslash{}"),
            '{' => out.push_str(r"\{"),
            '}' => out.push_str(r"\}"),
            '$' => out.push_str(r"\$"),
            '&' => out.push_str(r"\&"),
            '#' => out.push_str(r"\#"),
            '%' => out.push_str(r"\%"),
            '_' => out.push_str(r"\_"),
            '^' => out.push_str(r"\textasciicircum{}"),
            '~' => out.push_str(r"\textasciitilde{}"),
            '<' => out.push_str(r"\textless{}"),
            '>' => out.push_str(r"\textgreater{}"),
            _ => out.push(c),
        }
    }
    out
}

fn percent(x: f64) -> String {
    format!(r"{:.1}\%", x * 100.0)
}

/// Two `table` environments: fixed vulnerabilities per model (Table 4 of VJBench in shape) and
/// the task × model matrix (its Table 5). Needs `\usepackage{booktabs}`.
pub fn render_latex(report: &EvalReport) -> String {
    let mut out = String::new();
    out.push_str("% avrlab report; needs \\usepackage{booktabs}\n");
    for warning in report.incomplete_warnings() {
        let _ = writeln!(out, "% INCOMPLETE: {warning}");
    }
    out.push_str("\\begin{table}\n\\centering\n\\caption{Fixed vulnerabilities per model (95\\% Wilson intervals of the share of tasks).}\n");
    // The differential column only when some run has differential results.
    let differential = crate::has_differential(&report.models);
    let (spec, heading) = if differential {
        ("r", " & Differential (P $\\cdot$ N $\\cdot$ D $\\cdot$ V)")
    } else {
        ("", "")
    };
    let _ = writeln!(out, "\\begin{{tabular}}{{lllrrrrlrrr{spec}}}\n\\toprule");
    let _ = writeln!(
        out,
        "Model & Format & Benchmark & FL offset & Tasks & Samples & Correct & Plausible (95\\% CI) & Compile rate & pass@1 & Cost (USD){heading} \\\\\n\\midrule"
    );
    for m in &report.models {
        let across = m
            .plausible_across_runs
            .map(|(mean, margin)| format!("; ${mean:.1} \\pm {margin:.1}$"))
            .unwrap_or_default();
        let extra = match (differential, m.differential) {
            (false, _) => String::new(),
            (true, None) => " & --".to_owned(),
            (true, Some(d)) => format!(
                " & {} $\\cdot$ {} $\\cdot$ {} $\\cdot$ {}",
                d.plausible, d.no_divergence, d.divergent, d.divergent_on_vulnerable_inputs
            ),
        };
        let _ = writeln!(
            out,
            "{} & {} & {} & {} & {} & {} & {} & {} ({}--{}{}) & {} & {} & {}{extra} \\\\",
            escape(&m.model),
            escape(&m.format),
            escape(&m.benchmark),
            m.fl_offset,
            m.tasks,
            m.samples,
            m.correct_tasks,
            m.plausible_tasks,
            percent(m.plausible_interval.0),
            percent(m.plausible_interval.1),
            across,
            percent(m.compile_rate),
            m.pass_at_1
                .map_or_else(|| "--".into(), |v| format!("{v:.3}")),
            escape(&m.cost.cell()),
        );
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n");
    let _ = writeln!(
        out,
        "\\par\\smallskip{{\\footnotesize Samples: {}.}}",
        escape(&report.completeness_lines().join("; "))
    );
    let _ = writeln!(
        out,
        "\\par\\smallskip{{\\footnotesize Cost: {}.}}",
        escape(&report.cost_lines().join("; "))
    );
    for (heading, lines) in [
        (crate::eval_report::CUTOFF_HEADING, report.cutoff_lines()),
        (crate::eval_report::PROBE_HEADING, report.probe_lines()),
    ] {
        if !lines.is_empty() {
            let _ = writeln!(
                out,
                "\\par\\smallskip{{\\footnotesize {}: {}.}}",
                escape(heading),
                escape(&lines.join("; "))
            );
        }
    }
    if differential {
        out.push_str("\\par\\smallskip{\\footnotesize Differential: plausible candidates (P), no divergence found from the reference fix (N), divergent (D), divergent only on the vulnerability's inputs (V).}\n");
    }
    out.push_str("\\end{table}\n\n");

    out.push_str("\\begin{table}\n\\centering\n\\caption{Vulnerabilities fixed per task (C: correct, P: plausible).}\n");
    let _ = writeln!(
        out,
        "\\begin{{tabular}}{{ll{}}}\n\\toprule",
        "c".repeat(report.models.len())
    );
    let headers: Vec<String> = report.models.iter().map(|m| escape(&m.model)).collect();
    let _ = writeln!(out, "Task & CWE & {} \\\\\n\\midrule", headers.join(" & "));
    for (task, cells) in &report.matrix {
        let cwe: Vec<String> = report
            .cwe
            .get(task)
            .into_iter()
            .flatten()
            .map(|id| format!("CWE-{id}"))
            .collect();
        let cells: Vec<&str> = cells
            .iter()
            .map(|c| match c {
                TaskCell::Correct => "C",
                TaskCell::Plausible => "P",
                TaskCell::NotFixed => "--",
            })
            .collect();
        let _ = writeln!(
            out,
            "{} & {} & {} \\\\",
            escape(task),
            escape(&cwe.join(", ")),
            cells.join(" & ")
        );
    }
    out.push_str("\\bottomrule\n\\end{tabular}\n\\end{table}\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escape_covers_every_special_character() {
        assert_eq!(
            escape(r"a_b & 50% #1 $x$ {y} ~ ^ \ <t>"),
            r"a\_b \& 50\% \#1 \$x\$ \{y\} \textasciitilde{} \textasciicircum{} \textbackslash{} \textless{}t\textgreater{}"
        );
    }
}
