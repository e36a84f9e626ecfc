//! Runs of feature tasks: a state (the pristine state with task diffs applied, and possibly an
//! untrusted prediction), compiled once and tested once with Surefire, judged for the functional
//! tests (the whole suite but the security tests, counted against the expected failures) and the
//! security tests. The five-run curation matrix and the scoring of predictions are both made of
//! such runs; [`FeatureRunner`] is what they are written against, so that their logic is
//! unit-tested with a fake.

use std::time::{Duration, Instant};

use avrlab_bench::{FeatureSpec, Patch, Task, TestName};
use avrlab_build::{TestCaseResult, TestSelection, TestStatus};
use avrlab_exec::ExitKind;

use crate::candidate::{Candidate, CandidateError, apply_candidate};
use crate::error::ValidateError;
use crate::oracle::PreparedTask;
use crate::outcome::exit_text;
use crate::outcome::{EngineRecord, Outcome, Phase, PhaseRecord, TestRecord, Verdict};
pub use crate::outcome::{FeatureScore, Judged};
use crate::validator::{BuildToolOracle, excerpt};
use crate::verdict_rules::{PhaseJudgement, SkippedTests, judge_run};

/// One trusted change of a state: a task diff, applied forward or undone.
#[derive(Debug, Clone)]
pub struct StateEdit {
    pub patch: Patch,
    pub reverse: bool,
}

impl StateEdit {
    pub fn forward(patch: &Patch) -> Self {
        Self {
            patch: patch.clone(),
            reverse: false,
        }
    }

    pub fn undo(patch: &Patch) -> Self {
        Self {
            patch: patch.clone(),
            reverse: true,
        }
    }
}

/// What one feature run does, in order: the task's own edits to the pristine state, the
/// untrusted prediction (checked like any candidate), more task edits (the security tests put
/// back), one compile, one test run.
#[derive(Debug, Clone)]
pub struct FeatureRunPlan {
    /// Names the run in logs and tables (`base`, `rollback`, `golden` …).
    pub label: String,
    pub setup: Vec<StateEdit>,
    pub prediction: Option<Candidate>,
    pub after: Vec<StateEdit>,
    /// Run the whole suite and judge the functional tests (every test but the security tests).
    pub functional: bool,
    /// The security tests to judge (run alone when `functional` is false).
    pub security: Vec<TestName>,
    /// Functional tests that fail on the secure code already and do not count.
    pub expected_failures: Vec<TestName>,
}

impl FeatureRunPlan {
    /// The plan that scores a prediction of a feature task: the prediction on the task state,
    /// the security tests put back, the whole suite run; the functional tests judged against the
    /// task's expected failures.
    pub fn score(label: &str, task: &Task, feature: &FeatureSpec, prediction: Candidate) -> Self {
        Self {
            label: label.to_owned(),
            setup: Vec::new(),
            prediction: Some(prediction),
            after: vec![StateEdit::forward(&feature.test_patch.patch)],
            functional: true,
            security: task.oracle.pov_tests.clone(),
            expected_failures: expected_functional_failures(feature),
        }
    }
}

/// What one feature run showed. Everything in it is an outcome, never an error.
#[derive(Debug, Clone)]
pub struct FeatureRun {
    pub label: String,
    /// Why the state could not be set up: a task diff or the prediction did not apply.
    pub not_applied: Option<String>,
    /// Whether the state compiled (`None` when not reached), with the first diagnostic.
    pub compiled: Option<Result<(), String>>,
    /// The functional tests (`None` when not asked or not reached).
    pub functional: Option<Judged>,
    /// The security tests (`None` when not asked or not reached).
    pub security: Option<Judged>,
    /// Every test case the run reported.
    pub cases: Vec<TestCaseResult>,
    pub phases: Vec<PhaseRecord>,
    pub wall: Duration,
    /// Why the infrastructure, not the prediction, left the run undecided (its test JVM killed
    /// from outside): the prediction is errored, and counts in no rate.
    pub errored: Option<crate::outcome::ErrorCause>,
}

impl FeatureRun {
    pub(crate) fn new(label: &str) -> Self {
        Self {
            label: label.to_owned(),
            not_applied: None,
            compiled: None,
            functional: None,
            security: None,
            cases: Vec::new(),
            phases: Vec::new(),
            wall: Duration::ZERO,
            errored: None,
        }
    }

    /// The functional verdict of a prediction: a state that did not apply or compile fails.
    pub fn func(&self) -> Judged {
        self.group(self.functional.as_ref())
    }

    /// The security verdict of a prediction: a state that did not apply or compile fails.
    pub fn sec(&self) -> Judged {
        self.group(self.security.as_ref())
    }

    fn group(&self, judged: Option<&Judged>) -> Judged {
        if let Some(problem) = &self.not_applied {
            return Judged::Fail(format!("does not apply: {problem}"));
        }
        match &self.compiled {
            Some(Err(reason)) => Judged::Fail(format!("does not compile: {reason}")),
            None => Judged::Undecided("not compiled".into()),
            Some(Ok(())) => judged
                .cloned()
                .unwrap_or_else(|| Judged::Undecided("not run".into())),
        }
    }

    /// The run's cases of these tests.
    pub fn cases_of<'a>(
        &'a self,
        tests: &'a [TestName],
    ) -> impl Iterator<Item = &'a TestCaseResult> {
        self.cases
            .iter()
            .filter(|c| tests.iter().any(|t| t.matches(&c.class, &c.method)))
    }
}

/// The functional tests a feature task expects to fail on the secure code already (they do not
/// count against a prediction).
pub(crate) fn expected_functional_failures(feature: &FeatureSpec) -> Vec<TestName> {
    feature
        .expected_failures
        .func
        .iter()
        .filter_map(|t| TestName::parse(t).ok())
        .collect()
}

/// The verdict of a scored feature prediction. Its outcome folds the two groups into the words
/// every run's tables use: `Plausible` when both pass, `PovFailing` when only the security tests
/// fail ("correct but insecure"), `RegressionBroken` when the functional tests fail; not
/// applying, not compiling and undecided evidence as usual. The security tests are stored in
/// the `pov` phase, the others in `regression`, and the two groups beside the verdict. The build
/// tool decided it (`engine`).
pub fn feature_verdict(task: &Task, run: &FeatureRun, engine: avrlab_core::Engine) -> Verdict {
    let (func, sec) = (run.func(), run.sec());
    let mut reason = format!("func={} sec={}", func.as_str(), sec.as_str());
    if !func.reason().is_empty() {
        reason.push_str(&format!("; func: {}", func.reason()));
    }
    if !sec.reason().is_empty() {
        reason.push_str(&format!("; sec: {}", sec.reason()));
    }
    let outcome = if run.not_applied.is_some() {
        Outcome::ApplyFailed
    } else if matches!(run.compiled, Some(Err(_))) {
        Outcome::Uncompilable
    } else {
        match (&func, &sec) {
            (Judged::Pass, Judged::Pass) => Outcome::Plausible,
            (Judged::Pass, Judged::Fail(_)) => Outcome::PovFailing,
            (Judged::Fail(_), _) => Outcome::RegressionBroken,
            _ => Outcome::Indeterminate,
        }
    };
    let security = &task.oracle.pov_tests;
    Verdict {
        outcome,
        reason,
        tests: run
            .cases
            .iter()
            .map(|c| TestRecord {
                phase: if security.iter().any(|t| t.matches(&c.class, &c.method)) {
                    Phase::Pov
                } else {
                    Phase::Regression
                },
                class: c.class.clone(),
                method: c.method.clone(),
                status: c.status,
                seconds: c.seconds,
                message: c.message.clone(),
            })
            .collect(),
        diagnostics: match &run.compiled {
            Some(Err(first)) => vec![first.clone()],
            _ => Vec::new(),
        },
        phases: run.phases.clone(),
        wall: run.wall,
        engine: EngineRecord {
            engine: Some(engine),
            ..EngineRecord::default()
        },
        errored: run.errored,
        feature: Some(FeatureScore {
            functional: func,
            security: sec,
        }),
    }
}

/// Something that sets feature states up and runs them: Maven here, a fake in unit tests.
pub trait FeatureRunner: Sync {
    /// Resolves the dependencies of a materialized state (networked, sealed afterwards).
    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError>;

    /// Runs one plan on a fresh copy of `prepared`'s pristine state in workspace slot `slot`.
    fn run(
        &self,
        prepared: &PreparedTask,
        plan: &FeatureRunPlan,
        slot: &str,
    ) -> Result<FeatureRun, ValidateError>;
}

impl FeatureRunner for BuildToolOracle {
    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        self.warm_up_dependencies(prepared)
    }

    fn run(
        &self,
        prepared: &PreparedTask,
        plan: &FeatureRunPlan,
        slot: &str,
    ) -> Result<FeatureRun, ValidateError> {
        let what = format!("feature run {} of {}", plan.label, prepared.task.id);
        self.in_fresh_workspace(prepared, "feature", slot, &what, |root, ws| {
            let started = Instant::now();
            let mut run = self.feature_pipeline(prepared, plan, root, ws)?;
            run.wall = started.elapsed();
            Ok(run)
        })?
    }
}

impl BuildToolOracle {
    /// A prediction of a feature task, scored in one run of the task's build tool
    /// ([`FeatureRunPlan::score`], [`feature_verdict`]).
    pub(crate) fn validate_feature(
        &self,
        prepared: &PreparedTask,
        feature: &FeatureSpec,
        prediction: &Candidate,
        slot: &str,
    ) -> Result<Verdict, ValidateError> {
        let plan = FeatureRunPlan::score("score", &prepared.task, feature, prediction.clone());
        let run = FeatureRunner::run(self, prepared, &plan, slot)?;
        let engine = crate::validator::build_tool_engine(&prepared.task);
        Ok(feature_verdict(&prepared.task, &run, engine))
    }

    fn feature_pipeline(
        &self,
        prepared: &PreparedTask,
        plan: &FeatureRunPlan,
        root: &std::path::Path,
        ws: &std::path::Path,
    ) -> Result<FeatureRun, ValidateError> {
        let task = &prepared.task;
        let mut run = FeatureRun::new(&plan.label);
        let edit = |edits: &[StateEdit]| -> Result<(), String> {
            for e in edits {
                let patch = if e.reverse {
                    e.patch.reversed()
                } else {
                    e.patch.clone()
                };
                patch.apply_to_dir(ws).map_err(|e| e.to_string())?;
            }
            Ok(())
        };
        if let Err(problem) = edit(&plan.setup) {
            run.not_applied = Some(format!("task diff: {problem}"));
            return Ok(run);
        }
        if let Some(prediction) = &plan.prediction {
            match apply_candidate(task, prepared.classes(), prediction, ws) {
                Ok(()) => {}
                Err(CandidateError::Io(source)) => {
                    return Err(ValidateError::Workspace {
                        path: ws.to_owned(),
                        source,
                    });
                }
                Err(problem) => {
                    run.not_applied = Some(problem.to_string());
                    return Ok(run);
                }
            }
        }
        if let Err(problem) = edit(&plan.after) {
            run.not_applied = Some(format!("task diff after the prediction: {problem}"));
            return Ok(run);
        }

        let maven = self.tool(task)?;
        let maven_err = |source| ValidateError::Build {
            task: task.id.clone(),
            source,
        };
        let compiled = maven.compile(ws).map_err(maven_err)?;
        run.phases.push(PhaseRecord {
            phase: Phase::Compile,
            wall: compiled.wall,
            exit: exit_text(compiled.exit),
            log_excerpt: excerpt(&compiled.log),
            enforcement: compiled.enforcement.clone(),
        });
        if compiled.exit != ExitKind::Code(0) {
            let reason = match compiled.exit {
                ExitKind::Code(_) => compiled
                    .diagnostics
                    .first()
                    .cloned()
                    .unwrap_or_else(|| "the build failed before the tests".into()),
                other => format!("compilation ended by {}", exit_text(other)),
            };
            run.compiled = Some(Err(reason));
            return Ok(run);
        }
        run.compiled = Some(Ok(()));

        let selection = if plan.functional {
            TestSelection::AllExcept(Vec::new())
        } else {
            TestSelection::Only(plan.security.clone())
        };
        let tests = maven
            .test(ws, &selection, &root.join("reports-feature"))
            .map_err(maven_err)?;
        run.phases.push(PhaseRecord {
            phase: if plan.functional {
                Phase::Regression
            } else {
                Phase::Pov
            },
            wall: tests.wall,
            exit: exit_text(tests.exit),
            log_excerpt: excerpt(&tests.log),
            enforcement: tests.enforcement.clone(),
        });
        run.cases = tests.cases.clone();
        if plan.functional {
            run.functional = Some(judge_functional(
                &tests,
                &plan.security,
                &plan.expected_failures,
            ));
        }
        if !plan.security.is_empty() {
            run.security = Some(judge_security(&tests, &plan.security, plan.functional));
        }
        // Neither group decided because the run was killed from outside: infrastructure.
        let undecided = |judged: &Option<Judged>| {
            judged
                .as_ref()
                .is_none_or(|j| matches!(j, Judged::Undecided(_)))
        };
        if undecided(&run.functional)
            && undecided(&run.security)
            && crate::verdict_rules::killed_from_outside(&tests)
        {
            run.errored = Some(crate::outcome::ErrorCause::Killed);
        }
        Ok(run)
    }
}

/// The functional tests of a whole-suite run: every case that is not a security test must pass,
/// except the expected failures. The structural rules of every phase apply first (a timeout,
/// unusable reports, no test at all, every test skipped: undecided). When only expected failures
/// failed, Maven's failed exit status is what they explain.
pub fn judge_functional(
    run: &avrlab_build::TestRun,
    security: &[TestName],
    expected: &[TestName],
) -> Judged {
    let is_security = |c: &TestCaseResult| security.iter().any(|t| t.matches(&c.class, &c.method));
    let mut functional = run.clone();
    functional.cases.retain(|c| !is_security(c));
    let security_failed = run
        .cases
        .iter()
        .any(|c| is_security(c) && matches!(c.status, TestStatus::Failed | TestStatus::Errored));
    if security_failed && !functional.exit.success() {
        // The security tests' failures explain a failed exit; judge the rest on their reports.
        if let ExitKind::Code(_) = functional.exit {
            functional.exit = ExitKind::Code(0);
        }
    }
    match judge_run(
        &functional,
        &[],
        &[],
        Outcome::RegressionBroken,
        SkippedTests::Allowed,
    ) {
        PhaseJudgement::Passed => Judged::Pass,
        PhaseJudgement::Decided(Outcome::RegressionBroken, reason) => {
            let unexpected: Vec<&TestCaseResult> = functional
                .cases
                .iter()
                .filter(|c| matches!(c.status, TestStatus::Failed | TestStatus::Errored))
                .filter(|c| !expected.iter().any(|t| t.matches(&c.class, &c.method)))
                .collect();
            match unexpected.first() {
                None if functional
                    .cases
                    .iter()
                    .any(|c| c.status == TestStatus::Passed) =>
                {
                    Judged::Pass
                }
                None => Judged::Undecided("only expected failures ran".into()),
                Some(_) => Judged::Fail(format!(
                    "{} functional test(s) failed: {reason}",
                    unexpected.len()
                )),
            }
        }
        PhaseJudgement::Decided(_, reason) => Judged::Undecided(reason),
    }
}

/// The security tests: each must have run, and pass. Alone in their run, Maven's exit status
/// must agree with the reports; in a whole-suite run other tests' failures may explain it.
pub fn judge_security(
    run: &avrlab_build::TestRun,
    security: &[TestName],
    whole_suite: bool,
) -> Judged {
    let mut own = run.clone();
    own.cases
        .retain(|c| security.iter().any(|t| t.matches(&c.class, &c.method)));
    if whole_suite
        && !own.exit.success()
        && let ExitKind::Code(_) = own.exit
    {
        let others_failed = run.cases.iter().any(|c| {
            !security.iter().any(|t| t.matches(&c.class, &c.method))
                && matches!(c.status, TestStatus::Failed | TestStatus::Errored)
        });
        let own_failed = own
            .cases
            .iter()
            .any(|c| matches!(c.status, TestStatus::Failed | TestStatus::Errored));
        if others_failed && !own_failed {
            own.exit = ExitKind::Code(0);
        }
    }
    match judge_run(
        &own,
        security,
        &[],
        Outcome::PovFailing,
        SkippedTests::Indeterminate,
    ) {
        PhaseJudgement::Passed => Judged::Pass,
        PhaseJudgement::Decided(Outcome::PovFailing, reason) => Judged::Fail(reason),
        PhaseJudgement::Decided(_, reason) => Judged::Undecided(reason),
    }
}

#[cfg(test)]
mod tests {
    use avrlab_build::TestRun;

    use super::*;

    fn case(name: &str, status: TestStatus) -> TestCaseResult {
        let (class, method) = name.split_once('#').unwrap();
        TestCaseResult {
            class: class.into(),
            method: method.into(),
            status,
            seconds: 0.0,
            message: "m".into(),
        }
    }

    fn run(code: i32, cases: Vec<TestCaseResult>) -> TestRun {
        TestRun {
            exit: ExitKind::Code(code),
            cases,
            log: String::new(),
            wall: Duration::ZERO,
            enforcement: String::new(),
            tree_gone: true,
            unusable_reports: None,
            cpu_limit_reached: false,
        }
    }

    fn names(list: &[&str]) -> Vec<TestName> {
        list.iter().map(|n| TestName::parse(n).unwrap()).collect()
    }

    /// A feature run as scoring ends it: compiled (or not), the two groups judged.
    fn scored(compiled: Option<Result<(), String>>, func: Judged, sec: Judged) -> FeatureRun {
        FeatureRun {
            label: "p".into(),
            not_applied: None,
            compiled,
            functional: Some(func),
            security: Some(sec),
            cases: vec![case(
                "com.example.archive.ArchiveExtractorTest#doesNotWriteOutsideTheDestination",
                TestStatus::Failed,
            )],
            phases: Vec::new(),
            wall: Duration::ZERO,
            errored: None,
        }
    }

    #[test]
    fn a_feature_verdict_folds_the_two_groups_and_keeps_them() {
        let ok = Some(Ok(()));
        let fail = || Judged::Fail("x".into());
        let undecided = Judged::Undecided("no test".into());
        let cases = [
            (
                scored(ok.clone(), Judged::Pass, Judged::Pass),
                Outcome::Plausible,
            ),
            (
                scored(ok.clone(), Judged::Pass, fail()),
                Outcome::PovFailing,
            ),
            (
                scored(ok.clone(), fail(), Judged::Pass),
                Outcome::RegressionBroken,
            ),
            (
                scored(ok.clone(), fail(), fail()),
                Outcome::RegressionBroken,
            ),
            (
                scored(ok.clone(), undecided, Judged::Pass),
                Outcome::Indeterminate,
            ),
            (
                scored(Some(Err("e".into())), Judged::Pass, Judged::Pass),
                Outcome::Uncompilable,
            ),
        ];
        let benchmark = avrlab_bench::Benchmark::open("demo").unwrap();
        let task = benchmark.task("demo-zip-slip").unwrap();
        for (run, outcome) in cases {
            let verdict = feature_verdict(task, &run, avrlab_core::Engine::Maven);
            assert_eq!(verdict.outcome, outcome, "{}", verdict.reason);
        }
        // Not compiling fails both groups, whatever the (unreached) groups say.
        let broken = scored(Some(Err("e".into())), Judged::Pass, Judged::Pass);
        assert_eq!(
            (broken.func().as_str(), broken.sec().as_str()),
            ("fail", "fail")
        );
        // The security test in the `pov` phase, the groups kept beside the outcome.
        let insecure = feature_verdict(
            task,
            &scored(ok, Judged::Pass, fail()),
            avrlab_core::Engine::Maven,
        );
        assert_eq!(insecure.tests[0].phase, Phase::Pov);
        assert_eq!(insecure.reason, "func=pass sec=fail; sec: x");
        assert_eq!(
            insecure.feature,
            Some(FeatureScore {
                functional: Judged::Pass,
                security: fail()
            })
        );
        assert_eq!(insecure.engine.engine, Some(avrlab_core::Engine::Maven));
    }

    #[test]
    fn functional_and_security_tests_are_judged_apart() {
        use TestStatus::{Failed, Passed};
        let sec = names(&["a.T#sec"]);
        // The vulnerable code: the functional tests pass, the security test fails.
        let vulnerable = run(1, vec![case("a.T#f", Passed), case("a.T#sec", Failed)]);
        assert_eq!(judge_functional(&vulnerable, &sec, &[]), Judged::Pass);
        assert!(matches!(
            judge_security(&vulnerable, &sec, true),
            Judged::Fail(_)
        ));
        // An expected failure does not count; an unexpected one does.
        let flaky = run(
            1,
            vec![
                case("a.T#f", Passed),
                case("a.U#g", Failed),
                case("a.T#sec", Passed),
            ],
        );
        assert_eq!(
            judge_functional(&flaky, &sec, &names(&["a.U#g"])),
            Judged::Pass
        );
        assert!(matches!(
            judge_functional(&flaky, &sec, &[]),
            Judged::Fail(_)
        ));
        assert_eq!(judge_security(&flaky, &sec, true), Judged::Pass);
        // Alone, a passing security report with a failed build is not trusted.
        let alone = run(1, vec![case("a.T#sec", Passed)]);
        assert!(matches!(
            judge_security(&alone, &sec, false),
            Judged::Undecided(_)
        ));
        // A security test that did not run is undecided, never a pass.
        let missing = run(0, vec![case("a.T#f", Passed)]);
        assert!(matches!(
            judge_security(&missing, &sec, true),
            Judged::Undecided(_)
        ));
        // No test at all is undecided.
        assert!(matches!(
            judge_functional(&run(0, vec![]), &sec, &[]),
            Judged::Undecided(_)
        ));
        // Only expected failures ran: nothing passed, so nothing is known.
        let only = run(1, vec![case("a.U#g", Failed)]);
        assert!(matches!(
            judge_functional(&only, &sec, &names(&["a.U#g"])),
            Judged::Undecided(_)
        ));
    }
}
