//! The reference check's table (`avrlab bench check`): for each task, whether it builds, whether
//! its vulnerable state fails its PoV tests and its reference fix is Plausible, and the baseline's
//! exclusions by cause with the share of the suite that still counts.

use avrlab_core::Outcome;

/// One task's line of `avrlab bench check`.
#[derive(Debug)]
pub(crate) struct CheckRow {
    task: String,
    builds: &'static str,
    vulnerable_fails_pov: &'static str,
    reference_plausible: &'static str,
    excluded: String,
    jdk: String,
    minutes: f64,
    note: String,
    /// The baseline's exclusions grouped by cause, and the share of the suite that counts.
    explained: Vec<String>,
}

/// What `avrlab bench check` prints after the reference check: one row per task, the baseline
/// (which tests fail on the task state, and why) from the Maven engine's.
pub fn check_table(
    benchmark: &avrlab_bench::Benchmark,
    report: &crate::run::run_loop::RunReport,
    summary: &crate::tables::summary::Summary,
    validator: &avrlab_validate::ValidatorConfig,
) -> Result<String, avrlab_validate::ValidateError> {
    let maven = avrlab_validate::BuildToolOracle::new(validator.clone());
    let mut rows = Vec::new();
    for task in &benchmark.tasks {
        if let Some(reason) = report.unprepared.get(&task.id) {
            rows.push(unprepared_row(task, reason));
            continue;
        }
        match maven.baseline(task) {
            Ok((baseline, jdk)) => rows.push(check_row(task, summary, baseline.as_ref(), jdk)),
            // The validation is over: a task whose baseline cannot even be looked up here (its
            // build tool or JDK is missing) says so in its row, and the other rows still print.
            Err(error) => {
                let jdk = format!("{} (task)", task.build.jdk);
                let mut row = check_row(task, summary, None, jdk);
                row.excluded =
                    format!("no baseline: {}", crate::run::progress::error_chain(&error));
                rows.push(row);
            }
        }
    }
    Ok(render_check_table(&rows))
}

/// The row of a task whose vulnerable state and reference fix were validated.
pub(crate) fn check_row(
    task: &avrlab_bench::Task,
    summary: &crate::tables::summary::Summary,
    baseline: Option<&avrlab_validate::Baseline>,
    jdk: String,
) -> CheckRow {
    let of = |label: &str| {
        summary
            .verdicts
            .iter()
            .find(|v| v.task == task.id && v.label == label)
    };
    let (vulnerable, reference) = (of("vulnerable"), of("reference"));
    let yes_no = |b: bool| if b { "yes" } else { "no" };
    let builds = match reference {
        Some(v) => yes_no(v.outcome != Outcome::Uncompilable),
        None => "-",
    };
    let minutes = [vulnerable, reference]
        .iter()
        .flatten()
        .map(|v| v.seconds)
        .sum::<f64>()
        / 60.0;
    let mut note = String::new();
    for (name, v) in [("vulnerable", vulnerable), ("reference", reference)] {
        let expected = match name {
            "vulnerable" => v.is_some_and(avrlab_report::ValidationRow::fails_pov),
            _ => v.is_some_and(|v| v.outcome == Outcome::Plausible),
        };
        if let Some(v) = v
            && !expected
        {
            note = format!("{name}: {} ({})", v.outcome, v.reason);
        }
    }
    CheckRow {
        task: task.id.clone(),
        builds,
        vulnerable_fails_pov: vulnerable.map_or("-", |v| yes_no(v.fails_pov())),
        reference_plausible: reference.map_or("-", |v| yes_no(v.outcome == Outcome::Plausible)),
        excluded: baseline.map_or_else(
            || "no baseline".to_owned(),
            |b| match &b.note {
                Some(n) => n.clone(),
                None => format!("{} of {}", b.excluded.len(), b.ran),
            },
        ),
        jdk,
        minutes,
        note,
        explained: baseline
            .filter(|b| b.note.is_none())
            .map(explain_baseline)
            .unwrap_or_default(),
    }
}

/// The row of a task whose warm-up failed: nothing of it was validated.
pub(crate) fn unprepared_row(task: &avrlab_bench::Task, reason: &str) -> CheckRow {
    CheckRow {
        task: task.id.clone(),
        builds: "no",
        vulnerable_fails_pov: "-",
        reference_plausible: "-",
        excluded: "no baseline".to_owned(),
        jdk: format!("{} (task)", task.build.jdk),
        minutes: 0.0,
        note: format!("warm-up failed: {reason}"),
        explained: Vec::new(),
    }
}

/// The share of the suite that counts, then one line per group of exclusions, the largest first.
fn explain_baseline(baseline: &avrlab_validate::Baseline) -> Vec<String> {
    let mut lines = vec![baseline.share()];
    // Each optional environment repair, with the baselines with and without it.
    lines.extend(baseline.repairs.iter().cloned());
    for group in baseline.groups() {
        let tests = match group.tests {
            1 => "1 test".to_owned(),
            n => format!("{n} tests"),
        };
        lines.push(match &group.cause {
            Some(cause) => format!("{tests}: {cause}"),
            None => format!("{tests}: flaky (not passing in one baseline run, passing in another)"),
        });
    }
    lines
}

/// The table of `bench check`, then each task's exclusions by cause.
pub(crate) fn render_check_table(rows: &[CheckRow]) -> String {
    let mut out = String::from(
        "\n| task | builds | vulnerable fails PoV | reference Plausible | baseline exclusions | JDK | minutes | note |\n|---|---|---|---|---|---|---|---|\n",
    );
    for r in rows {
        out.push_str(&format!(
            "| {} | {} | {} | {} | {} | {} | {:.1} | {} |\n",
            r.task,
            r.builds,
            r.vulnerable_fails_pov,
            r.reference_plausible,
            r.excluded,
            r.jdk,
            r.minutes,
            r.note.replace('|', "/")
        ));
    }
    for r in rows.iter().filter(|r| !r.explained.is_empty()) {
        out.push_str(&format!("\n{}: {}\n", r.task, r.explained[0]));
        for line in &r.explained[1..] {
            out.push_str(&format!("  {line}\n"));
        }
    }
    out
}
