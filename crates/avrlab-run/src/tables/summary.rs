//! What a finished run printed: counts per outcome, one line per candidate, and for the reference
//! check, whether every vulnerable state fails its PoV tests and every reference fix is plausible.
//! Every number comes from the store's rows.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use avrlab_core::{Outcome, RunMode};
use avrlab_report::ValidationRow;
use avrlab_store::{Store, StoreError};
use serde::Serialize;

use crate::run::run_loop::RunReport;

/// The benchmark self-check of a reference run.
#[derive(Debug, Clone, Serialize)]
pub struct ReferenceCheck {
    pub tasks: usize,
    pub vulnerable_failing_pov: usize,
    pub reference_plausible: usize,
    /// Tasks whose vulnerable state or reference fix did not behave.
    pub problems: Vec<String>,
    pub passed: bool,
}

/// A run's summary, as printed or as `--json`.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub run_id: String,
    pub benchmark: String,
    pub mode: RunMode,
    pub store: String,
    pub candidates: usize,
    pub validated_now: usize,
    pub already_decided: usize,
    pub duplicates: usize,
    pub wall_seconds: f64,
    pub workers: usize,
    /// Verdicts per outcome, by its stored name; errored verdicts are not among them.
    pub outcomes: BTreeMap<&'static str, usize>,
    /// Errored verdicts (the infrastructure failed their validation), by cause.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub errored: BTreeMap<&'static str, usize>,
    pub verdicts: Vec<ValidationRow>,
    pub reference_check: Option<ReferenceCheck>,
    /// How many fast verdicts Maven re-judged and what came of it (fast engine runs only).
    pub engines: Option<avrlab_report::EngineChecks>,
    /// Each task's flaky list: regression tests that failed on a candidate and passed when the
    /// regression phase ran again in a fresh JVM (that candidate's verdict is `Indeterminate`),
    /// with the candidates they were flaky on.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub flaky: BTreeMap<String, BTreeMap<String, Vec<String>>>,
}

/// Reads a run's verdicts back from the store and summarizes them.
pub fn summarize(
    store: &Store,
    report: &RunReport,
    benchmark: &str,
    mode: RunMode,
) -> Result<Summary, StoreError> {
    let verdicts = avrlab_report::verdict_rows(store, &report.run_id)?;
    let (outcomes, errored) = avrlab_report::outcome_counts(&verdicts);
    let reference_check =
        (mode == RunMode::Reference).then(|| reference_check(&verdicts, &report.unprepared));
    let outcome_of: std::collections::HashMap<String, Outcome> = verdicts
        .iter()
        .map(|v| (v.candidate.clone(), v.outcome))
        .collect();
    let engines = Some(avrlab_report::EngineChecks::from_rows(
        &store.engines(&report.run_id)?,
        &outcome_of,
    ))
    .filter(avrlab_report::EngineChecks::any);
    let mut flaky: BTreeMap<String, BTreeMap<String, Vec<String>>> = BTreeMap::new();
    for (task, test, candidate) in store.flaky_tests(&report.run_id)? {
        flaky
            .entry(task)
            .or_default()
            .entry(test)
            .or_default()
            .push(candidate);
    }
    Ok(Summary {
        run_id: report.run_id.clone(),
        benchmark: benchmark.into(),
        mode,
        store: store.path().display().to_string(),
        candidates: report.candidates,
        validated_now: report.validated,
        already_decided: report.already_decided,
        duplicates: report.duplicates,
        wall_seconds: report.wall.as_secs_f64(),
        workers: report.workers,
        outcomes,
        errored,
        verdicts,
        reference_check,
        engines,
        flaky,
    })
}

/// The reference check over the run's verdicts and the tasks that could not be warmed up (which
/// have none: they count as checked and failed, never as absent from a check that passed).
fn reference_check(
    verdicts: &[ValidationRow],
    unprepared: &crate::run::run_loop::Unprepared,
) -> ReferenceCheck {
    let mut tasks: BTreeMap<&str, (Option<&ValidationRow>, Option<Outcome>)> = BTreeMap::new();
    for v in verdicts {
        let entry = tasks.entry(&v.task).or_default();
        match v.label.as_str() {
            "vulnerable" => entry.0 = Some(v),
            "reference" => entry.1 = Some(v.outcome),
            _ => {}
        }
    }
    let pov = Outcome::PovFailing;
    let plausible = Outcome::Plausible;
    let mut problems = Vec::new();
    for task in unprepared.keys() {
        tasks.entry(task).or_default();
    }
    for (task, (vulnerable, reference)) in &tasks {
        if unprepared.contains_key(*task) && vulnerable.is_none() && reference.is_none() {
            problems.push(format!("{task}: not validated: its warm-up failed"));
            continue;
        }
        let errored = verdicts
            .iter()
            .filter(|v| v.task == *task && v.error_cause.is_some())
            .count();
        if errored > 0 {
            problems.push(format!(
                "{task}: {errored} verdict(s) errored (the infrastructure failed the validation): \
                 --resume --retry errored validates them again"
            ));
            continue;
        }
        if !vulnerable.is_some_and(ValidationRow::fails_pov) {
            problems.push(format!(
                "{task}: vulnerable state is {}, not {pov}",
                vulnerable.map_or("missing", |v| v.outcome.as_str())
            ));
        }
        if *reference != Some(plausible) {
            problems.push(format!(
                "{task}: reference fix is {}, not {plausible}",
                reference.map_or("missing", Outcome::as_str)
            ));
        }
    }
    ReferenceCheck {
        tasks: tasks.len(),
        vulnerable_failing_pov: tasks
            .values()
            .filter(|(v, _)| v.is_some_and(ValidationRow::fails_pov))
            .count(),
        reference_plausible: tasks
            .values()
            .filter(|(_, r)| *r == Some(plausible))
            .count(),
        passed: problems.is_empty(),
        problems,
    }
}

/// The summary as a terminal table.
pub fn render_text(summary: &Summary) -> String {
    let mut out = String::new();
    let width = summary
        .verdicts
        .iter()
        .map(|v| v.candidate.len())
        .max()
        .unwrap_or(9)
        .max(9);
    let _ = writeln!(
        out,
        "{:<width$}  {:<16}  {:>7}  reason",
        "candidate", "outcome", "seconds"
    );
    for v in &summary.verdicts {
        let reason: String = v.reason.chars().take(100).collect();
        let _ = writeln!(
            out,
            "{:<width$}  {:<16}  {:>7.1}  {reason}",
            v.candidate, v.outcome, v.seconds
        );
    }
    let _ = writeln!(out);
    let counts: Vec<String> = Outcome::ALL
        .iter()
        .filter_map(|o| summary.outcomes.get(o.as_str()).map(|n| format!("{o} {n}")))
        .collect();
    let _ = writeln!(
        out,
        "run {} ({}; {} validated now, {} resumed from the store, {} duplicates) in {:.1} s with {}",
        summary.run_id,
        avrlab_core::counted(summary.candidates, "candidate"),
        summary.validated_now,
        summary.already_decided,
        summary.duplicates,
        summary.wall_seconds,
        avrlab_core::counted(summary.workers, "worker")
    );
    let _ = writeln!(out, "outcomes: {}", counts.join(", "));
    if !summary.errored.is_empty() {
        let causes: Vec<String> = summary
            .errored
            .iter()
            .map(|(cause, n)| format!("{cause} {n}"))
            .collect();
        let total: usize = summary.errored.values().sum();
        let _ = writeln!(
            out,
            "errored (the infrastructure failed the validation; in no count above): {total} ({}); \
             validate them again: --resume --run {} --retry errored",
            causes.join(", "),
            summary.run_id
        );
    }
    if let Some(engines) = &summary.engines {
        let mut lines = engines.lines().into_iter();
        if let Some(first) = lines.next() {
            let _ = writeln!(out, "engines: {first}");
        }
        for line in lines {
            let _ = writeln!(out, "  {line}");
        }
    }
    for (task, tests) in &summary.flaky {
        let _ = writeln!(
            out,
            "flaky tests of {task} (failed, then passed when run again in a fresh JVM):"
        );
        for (test, candidates) in tests {
            let _ = writeln!(out, "  {test} on {}", candidates.join(", "));
        }
    }
    if let Some(check) = &summary.reference_check {
        let _ = writeln!(
            out,
            "reference check: {}/{} vulnerable states fail their PoV tests, {}/{} reference fixes are Plausible: {}",
            check.vulnerable_failing_pov,
            check.tasks,
            check.reference_plausible,
            check.tasks,
            if check.passed { "PASSED" } else { "FAILED" }
        );
        for problem in &check.problems {
            let _ = writeln!(out, "  {problem}");
        }
    }
    let _ = writeln!(out, "stored in {}", summary.store);
    out
}

#[cfg(test)]
mod tests {
    use avrlab_core::Phase;

    use super::*;

    fn verdict(task: &str, label: &str, outcome: Outcome) -> ValidationRow {
        ValidationRow {
            candidate: format!("{task}/{label}"),
            task: task.into(),
            label: label.into(),
            outcome,
            class: avrlab_store::ItemClass::of_outcome(outcome),
            error_cause: None,
            attempt: 1,
            reason: String::new(),
            seconds: 0.0,
            decided_in: None,
        }
    }

    /// A check whose every task failed its warm-up has no verdict at all: it fails, and says
    /// which tasks it could not validate, rather than passing over nothing.
    #[test]
    fn a_task_not_warmed_up_fails_the_reference_check() {
        let mut unprepared = crate::run::run_loop::Unprepared::new();
        unprepared.insert("b".into(), "the project does not build".into());
        let check = reference_check(&[], &unprepared);
        assert_eq!((check.tasks, check.passed), (1, false));
        assert_eq!(check.problems, ["b: not validated: its warm-up failed"]);

        let verdicts = [
            verdict("a", "vulnerable", Outcome::PovFailing),
            verdict("a", "reference", Outcome::Plausible),
        ];
        let check = reference_check(&verdicts, &unprepared);
        assert_eq!(
            (check.tasks, check.reference_plausible, check.passed),
            (2, 1, false)
        );
        let all_warm = reference_check(&verdicts, &crate::run::run_loop::Unprepared::new());
        assert!(all_warm.passed);
    }

    /// A vulnerable state whose PoV tests ran out of time fails its PoV (a denial-of-service
    /// PoV computes without end there); one that timed out in a later phase, after its PoV
    /// tests passed, does not.
    #[test]
    fn a_pov_that_times_out_on_the_vulnerable_state_fails_it() {
        let timed_out_in = |phase| ValidationRow {
            decided_in: Some(phase),
            ..verdict("a", "vulnerable", Outcome::Timeout)
        };
        let check = |vulnerable| {
            let verdicts = [vulnerable, verdict("a", "reference", Outcome::Plausible)];
            reference_check(&verdicts, &crate::run::run_loop::Unprepared::new())
        };
        let in_pov = check(timed_out_in(Phase::Pov));
        assert_eq!((in_pov.vulnerable_failing_pov, in_pov.passed), (1, true));
        let in_regression = check(timed_out_in(Phase::Regression));
        assert_eq!(
            (in_regression.vulnerable_failing_pov, in_regression.passed),
            (0, false)
        );
        assert_eq!(
            in_regression.problems,
            ["a: vulnerable state is Timeout, not PovFailing"]
        );
    }
}
