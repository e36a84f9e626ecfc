//! The reference check's second look at a reference fix that regression tests failed.
//!
//! The baseline counts a regression test only if it passes on the reference fix in two whole-suite
//! runs. Two runs miss a test that fails now and then (a server socket not listening yet), and a
//! whole suite hides a test that needs another's side effects, which fails once the baseline's
//! exclusions are left out (Quartz's Derby tests need the tables an excluded test made). The
//! reference check runs the regression phase as every verdict does; where the reference fix
//! comes out `RegressionBroken`, or `Indeterminate` because a test was flaky on it, the tests that
//! did not pass there fail on the task's own fix in the verdicts' own configuration: they join
//! the baseline's exclusions, recorded with the check's statuses and their failure, and the
//! reference fix is validated again without them (a few rounds at most; the baseline refuses a
//! PoV test, and more than a small share of the suite). Only the reference check does this, after
//! its own verdicts: the baseline of a study's candidates is fixed before any of them runs.

use avrlab_build::TestCaseResult;
use avrlab_core::{Outcome, Phase, TestStatus};
use avrlab_store::{TestRow, VerdictSummary};
use avrlab_validate::{FLAKY_REASON, ReferenceFailure};

/// The reference fix's candidate label in a reference check.
const REFERENCE_LABEL: &str = "reference";

/// How many times the reference check records failures and validates a reference fix again.
pub(crate) const MAX_ROUNDS: usize = 3;

/// Whether a stored verdict is a reference fix that regression tests failed in the reference
/// check: `RegressionBroken`, or `Indeterminate` as flaky.
pub(crate) fn failed_regression_tests(verdict: &VerdictSummary) -> bool {
    verdict.label == REFERENCE_LABEL
        && (verdict.outcome == Outcome::RegressionBroken
            || (verdict.outcome == Outcome::Indeterminate
                && verdict.reason.starts_with(FLAKY_REASON)))
}

/// How the progress line names a failed test: `Class#method`, or the class where the class
/// itself failed.
pub(crate) fn test_name(failure: &ReferenceFailure) -> String {
    match failure.case.method.as_str() {
        "" => failure.case.class.clone(),
        method => format!("{}#{method}", failure.case.class),
    }
}

/// The tests that failed or errored in a run of the regression phase (the first, or the one in
/// a fresh JVM), each with its status in every run of the phase and its first failing report.
pub(crate) fn regression_failures(rows: &[TestRow]) -> Vec<ReferenceFailure> {
    let phases = [Phase::Regression, Phase::RegressionRerun];
    let ran: Vec<Phase> = phases
        .into_iter()
        .filter(|phase| rows.iter().any(|r| r.phase == *phase))
        .collect();
    let mut failures: Vec<ReferenceFailure> = Vec::new();
    for row in rows {
        let failing = matches!(row.status, TestStatus::Failed | TestStatus::Errored);
        let same = |r: &TestRow| r.class == row.class && r.method == row.method;
        if !failing
            || !phases.contains(&row.phase)
            || failures
                .iter()
                .any(|f| f.case.class == row.class && f.case.method == row.method)
        {
            continue;
        }
        let statuses = ran
            .iter()
            .map(|phase| {
                rows.iter()
                    .find(|r| r.phase == *phase && same(r))
                    .map(|r| r.status)
            })
            .collect();
        failures.push(ReferenceFailure {
            case: TestCaseResult {
                class: row.class.clone(),
                method: row.method.clone(),
                status: row.status,
                seconds: row.seconds,
                message: row.message.clone(),
            },
            statuses,
        });
    }
    failures
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(phase: Phase, method: &str, status: TestStatus) -> TestRow {
        TestRow {
            phase,
            class: "a.T".into(),
            method: method.into(),
            status,
            seconds: 0.1,
            message: format!("{method} {status}"),
        }
    }

    /// Each test that failed in either run of the phase, once, with its status in each run and
    /// the report of its first failure; the PoV phase and passing tests are not read.
    #[test]
    fn each_failing_regression_test_is_read_with_its_statuses() {
        use Phase::{Pov, Regression, RegressionRerun};
        use TestStatus::{Errored, Failed, Passed};
        let rows = [
            row(Pov, "pov", Failed),
            row(Regression, "ok", Passed),
            row(Regression, "flaky", Errored),
            row(Regression, "broken", Failed),
            row(RegressionRerun, "ok", Passed),
            row(RegressionRerun, "flaky", Passed),
            row(RegressionRerun, "broken", Failed),
            row(RegressionRerun, "later", Errored),
        ];
        let found: Vec<(String, Vec<Option<TestStatus>>, String)> = regression_failures(&rows)
            .into_iter()
            .map(|f| (f.case.method, f.statuses, f.case.message))
            .collect();
        assert_eq!(
            found,
            [
                (
                    "flaky".to_owned(),
                    vec![Some(Errored), Some(Passed)],
                    "flaky errored".to_owned()
                ),
                (
                    "broken".to_owned(),
                    vec![Some(Failed), Some(Failed)],
                    "broken failed".to_owned()
                ),
                (
                    "later".to_owned(),
                    vec![None, Some(Errored)],
                    "later errored".to_owned()
                ),
            ]
        );
    }
}
