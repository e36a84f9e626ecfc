//! A run's results in the shape of SWE-bench's `report.json`, for tools that read that: one entry
//! per candidate with whether its patch applied, whether it resolved the task (`Plausible`), and
//! its PoV tests as `FAIL_TO_PASS` and its regression tests as `PASS_TO_PASS`, each split into
//! `success` and `failure` (failed or errored), with skipped tests apart.
//!
//! Errored candidates (the infrastructure failed their validation) are counted as SWE-bench's
//! `make_run_report` counts an instance whose evaluation left no report: in `error_instances` and
//! `error_ids`, neither resolved nor unresolved nor completed, and with no entry in `results`
//! (SWE-bench writes no per-instance report for them). The run-level counts carry SWE-bench's
//! names (`total_instances`, `completed_instances`, `resolved_instances`, `unresolved_instances`,
//! `error_instances` and their id lists, `schema_version` 2).

use std::collections::BTreeMap;

use avrlab_core::{Outcome, Phase, TestStatus};
use avrlab_store::{Store, StoreError};
use serde::Serialize;

/// The report of one run.
#[derive(Debug, Serialize)]
pub struct SweReport {
    pub run: String,
    pub candidates: usize,
    pub applied: usize,
    pub resolved: usize,
    /// SWE-bench's run report: every candidate, those that concluded, resolved, unresolved and
    /// errored.
    pub total_instances: usize,
    pub completed_instances: usize,
    pub resolved_instances: usize,
    pub unresolved_instances: usize,
    pub error_instances: usize,
    pub completed_ids: Vec<String>,
    pub resolved_ids: Vec<String>,
    pub unresolved_ids: Vec<String>,
    pub error_ids: Vec<String>,
    pub schema_version: u32,
    /// Per candidate id.
    pub results: BTreeMap<String, CandidateReport>,
}

/// One candidate's entry.
#[derive(Debug, Serialize)]
pub struct CandidateReport {
    pub task: String,
    pub label: String,
    pub outcome: Outcome,
    pub reason: String,
    pub patch_successfully_applied: bool,
    pub resolved: bool,
    pub tests_status: TestsStatus,
}

/// The tests of a candidate by phase, as SWE-bench names them.
#[derive(Debug, Default, Serialize)]
pub struct TestsStatus {
    /// The PoV tests (they fail on the vulnerable state and must pass).
    #[serde(rename = "FAIL_TO_PASS")]
    pub fail_to_pass: TestGroup,
    /// The regression tests (they pass on the reference fix and must keep passing).
    #[serde(rename = "PASS_TO_PASS")]
    pub pass_to_pass: TestGroup,
}

/// Test names (`Class#method`) by result.
#[derive(Debug, Default, Serialize)]
pub struct TestGroup {
    pub success: Vec<String>,
    pub failure: Vec<String>,
    pub skipped: Vec<String>,
}

/// Builds the report of `run_id` from the stored verdicts and test results.
pub fn swe_report(store: &Store, run_id: &str) -> Result<SweReport, StoreError> {
    let mut report = SweReport {
        run: run_id.to_owned(),
        candidates: 0,
        applied: 0,
        resolved: 0,
        total_instances: 0,
        completed_instances: 0,
        resolved_instances: 0,
        unresolved_instances: 0,
        error_instances: 0,
        completed_ids: Vec::new(),
        resolved_ids: Vec::new(),
        unresolved_ids: Vec::new(),
        error_ids: Vec::new(),
        schema_version: 2,
        results: BTreeMap::new(),
    };
    for verdict in store.verdicts(run_id)? {
        report.candidates += 1;
        report.total_instances += 1;
        if verdict.class == avrlab_store::ItemClass::Errored {
            report.error_instances += 1;
            report.error_ids.push(verdict.candidate_id);
            continue;
        }
        report.completed_instances += 1;
        report.completed_ids.push(verdict.candidate_id.clone());
        let mut tests = TestsStatus::default();
        for test in store.test_results(run_id, &verdict.candidate_id)? {
            let group = match test.phase {
                Phase::Pov => &mut tests.fail_to_pass,
                Phase::Regression => &mut tests.pass_to_pass,
                // The first regression run's statuses are the ones reported; a re-run only
                // tells a flaky failure apart (the verdict says so).
                Phase::Apply | Phase::Compile | Phase::RegressionRerun => continue,
            };
            let name = format!("{}#{}", test.class, test.method);
            match test.status {
                TestStatus::Passed => group.success.push(name),
                TestStatus::Failed | TestStatus::Errored => group.failure.push(name),
                TestStatus::Skipped => group.skipped.push(name),
            }
        }
        let applied = verdict.outcome != Outcome::ApplyFailed;
        let resolved = verdict.outcome == Outcome::Plausible;
        report.applied += usize::from(applied);
        report.resolved += usize::from(resolved);
        if resolved {
            report.resolved_instances += 1;
            report.resolved_ids.push(verdict.candidate_id.clone());
        } else {
            report.unresolved_instances += 1;
            report.unresolved_ids.push(verdict.candidate_id.clone());
        }
        report.results.insert(
            verdict.candidate_id,
            CandidateReport {
                task: verdict.task,
                label: verdict.label,
                outcome: verdict.outcome,
                reason: verdict.reason,
                patch_successfully_applied: applied,
                resolved,
                tests_status: tests,
            },
        );
    }
    Ok(report)
}
