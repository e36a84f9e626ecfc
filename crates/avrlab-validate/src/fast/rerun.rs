//! The fast path's flaky check: when regression tests failed on a candidate, its regression phase
//! runs again, the same tests in the same order, in a fresh test JVM of the task state, with the
//! candidate's files compiled into it anew (no JVM ever runs a second candidate, and this one's
//! first JVM is gone). A failure that does not
//! repeat leaves the verdict `Indeterminate` (`verdict_rules::after_rerun`), as on Maven.

use avrlab_bench::{Task, TestName};
use avrlab_build::{CompileRequest, FastReply, RegressionRun, RunRequest};

use super::{FastOracle, FastSelection, StateRuntime, phase_run};
use crate::error::ValidateError;
use crate::outcome::{Outcome, Phase, Verdict};
use crate::validator::record;
use crate::verdict_rules::{
    PhaseJudgement, SkippedTests, after_rerun, failed_regression_tests, judge_rerun,
};

/// What the first run of a candidate left for its flaky check.
pub(super) struct FirstRun<'a> {
    pub(super) state: &'a str,
    pub(super) task: &'a Task,
    pub(super) runtime: &'a StateRuntime,
    pub(super) selection: &'a FastSelection,
    /// What the candidate's first run compiled: its changed files, still on disk, and the files
    /// it removes or the build leaves out.
    pub(super) request: &'a CompileRequest<'a>,
    /// The candidate removes files: their classes are left out of its main classes.
    pub(super) removes_files: bool,
    /// Its regression phase: the PoV tests run again, and the regression tests.
    pub(super) again: &'a [TestName],
    pub(super) regression: RegressionRun<'a>,
    pub(super) reply: &'a FastReply,
}

impl FastOracle {
    /// `verdict` once the regression tests that broke it ran again in a fresh JVM: unchanged
    /// unless the regression phase decided it `RegressionBroken` through failing tests.
    pub(super) fn settle_flaky(
        &self,
        mut verdict: Verdict,
        first: &FirstRun<'_>,
    ) -> Result<Verdict, ValidateError> {
        let Some(ran) = first
            .reply
            .phases
            .iter()
            .find(|p| p.name == Phase::Regression.as_str())
        else {
            return Ok(verdict);
        };
        let run = phase_run(ran);
        let skipped = SkippedTests::regression(&first.selection.baseline);
        let judgement = match verdict.outcome {
            Outcome::RegressionBroken => {
                PhaseJudgement::Decided(verdict.outcome, verdict.reason.clone())
            }
            Outcome::Plausible
            | Outcome::PovFailing
            | Outcome::Uncompilable
            | Outcome::ApplyFailed
            | Outcome::Timeout
            | Outcome::Indeterminate => return Ok(verdict),
        };
        let failed = failed_regression_tests(&run, &judgement, skipped);
        if failed.is_empty() {
            return Ok(verdict);
        }
        let pooled = self.take_jvm(first.state, first.task, first.runtime)?;
        let compiled = self.compile(
            first.task,
            (&first.runtime.compiler, &first.runtime.build),
            first.request,
            &pooled.classes.0.join(avrlab_build::CANDIDATE_FOLDERS[0]),
        )?;
        if compiled.lost.is_some()
            || compiled.fallback.is_some()
            || compiled.compile.as_ref().is_none_or(|(_, d)| !d.is_empty())
        {
            // It compiled a moment ago; a compiler lost now says nothing of the test, and the
            // first run's verdict stands.
            self.give_back(first.runtime, pooled);
            return Ok(verdict);
        }
        // As the first run's: the build's main classes join the candidate's.
        self.merge_into(
            &first.runtime.build,
            &pooled,
            &compiled,
            first.removes_files,
        )?;
        let super::PooledJvm { jvm, classes } = pooled;
        let reply = jvm.run(&RunRequest {
            pov: &first.task.oracle.pov_tests,
            // The same regression phase as the first run's.
            again: first.again,
            regression: first.regression.clone(),
            excluded: &first.selection.dropped_classes,
            candidate_classes: &compiled.classes.classes,
            first: &[],
            stop_at_failure: false,
        });
        drop(classes);
        // What the guard saw in the re-run counts as in the first run.
        verdict.engine.flags.extend(reply.flags.iter().cloned());
        let again = reply
            .phases
            .iter()
            .find(|p| p.name == Phase::Regression.as_str())
            .filter(|_| reply.lost.is_none() && !reply.exit_attempted);
        let rejudged = match again {
            Some(again) => {
                let again = phase_run(again);
                record(&mut verdict, Phase::RegressionRerun, &again);
                judge_rerun(&again, &failed, skipped)
            }
            None => PhaseJudgement::Decided(
                Outcome::RegressionBroken,
                "the fresh JVM did not run the regression phase".into(),
            ),
        };
        let (outcome, reason) = after_rerun(&failed, &verdict.reason, &rejudged);
        verdict.outcome = outcome;
        verdict.reason = reason;
        if let Some(names) = &reply.left_running {
            super::weigh_thread_left(&mut verdict, names);
        }
        Ok(verdict)
    }
}
