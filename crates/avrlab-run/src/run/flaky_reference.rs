//! The reference check's second look at a reference fix that a flaky test left undecided.
//!
//! A regression test that passed in both baseline runs may still fail now and then on the
//! reference fix (a server socket not yet listening, a race): the reference check then finds it
//! failing and passing again in a fresh JVM, and the reference fix is `Indeterminate`, flaky on
//! itself. Such a test is flaky on the task's own fix by definition, so it joins the baseline's
//! flaky exclusions (recorded with its four statuses and its failure), and the reference fix is
//! validated again with it left out. Only the reference check does this, after its own
//! verdicts: the baseline of a study's candidates is fixed before any of them runs.

use std::collections::HashMap;

use avrlab_build::TestCaseResult;
use avrlab_core::{Outcome, Phase, TestStatus};
use avrlab_store::Store;
use avrlab_validate::{FLAKY_REASON, Oracle, PreparedTask};

use crate::run::run_loop::RunError;

/// The reference fix's candidate label in a reference check.
const REFERENCE_LABEL: &str = "reference";

/// The reference fixes of `run_id` that are `Indeterminate` because regression tests were flaky
/// on them, with those tests (as their first regression run reported them): recorded in the
/// baseline of each task state by `oracle`. Returns the candidates whose baseline changed, to be
/// validated again, with the tests' names for the progress line.
pub(crate) fn record_flaky_reference_tests(
    store: &Store,
    run_id: &str,
    prepared: &HashMap<String, PreparedTask>,
    oracle: &dyn Oracle,
) -> Result<Vec<(String, Vec<String>)>, RunError> {
    let mut again = Vec::new();
    for verdict in store.verdicts(run_id)? {
        if verdict.label != REFERENCE_LABEL
            || verdict.outcome != Outcome::Indeterminate
            || !verdict.reason.starts_with(FLAKY_REASON)
        {
            continue;
        }
        let Some(task) = prepared.get(&verdict.task) else {
            continue;
        };
        let rows = store.test_results(run_id, &verdict.candidate_id)?;
        let passed_again = |class: &str, method: &str| {
            rows.iter().any(|r| {
                r.phase == Phase::RegressionRerun
                    && r.status == TestStatus::Passed
                    && r.class == class
                    && r.method == method
            })
        };
        let failed: Vec<TestCaseResult> = rows
            .iter()
            .filter(|r| {
                r.phase == Phase::Regression
                    && matches!(r.status, TestStatus::Failed | TestStatus::Errored)
                    && passed_again(&r.class, &r.method)
            })
            .map(|r| TestCaseResult {
                class: r.class.clone(),
                method: r.method.clone(),
                status: r.status,
                seconds: r.seconds,
                message: r.message.clone(),
            })
            .collect();
        if failed.is_empty() || !oracle.record_flaky_on_reference(task, &failed)? {
            continue;
        }
        let names = failed
            .iter()
            .map(|f| format!("{}#{}", f.class, f.method))
            .collect();
        again.push((verdict.candidate_id, names));
    }
    Ok(again)
}
