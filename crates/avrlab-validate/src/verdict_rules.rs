//! The rules that turn a test run into a decision. They trust nothing the code under test could
//! have written: reports must name exactly the tests that were asked for, and agree with the
//! build's own exit status (which the Maven process decides, not the forked test JVM's files).

use avrlab_bench::TestName;
use avrlab_build::{TestCaseResult, TestRun, TestStatus};
use avrlab_exec::{CPU_LIMIT_EXIT, ExitKind};

use crate::outcome::Outcome;

/// What a test phase showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum PhaseJudgement {
    /// Every test passed; go on.
    Passed,
    /// The phase decides the verdict.
    Decided(Outcome, String),
}

fn describe(case: &TestCaseResult) -> String {
    format!(
        "{}#{} {}: {}",
        case.class,
        case.method,
        case.status.as_str(),
        first_line(&case.message).unwrap_or_default()
    )
}

/// A report of a whole class failing before its tests ran, errored or failed: JUnit 4's
/// `initializationError`, or a case that names the class and no method (a runner such as
/// Mockito's that failed as a whole: `ConsumerAuthenticationFilterTest » Mockito`, Apollo-1).
fn class_level_failure(case: &TestCaseResult) -> bool {
    crate::baseline::names_the_class_only(case)
        && matches!(case.status, TestStatus::Failed | TestStatus::Errored)
}

/// The first line of a test's message, cut to 200 characters; `None` when it has none.
fn first_line(message: &str) -> Option<String> {
    let line = message.lines().next().unwrap_or("").trim();
    (!line.is_empty()).then(|| line.chars().take(200).collect())
}

/// Whether a failed compile failed only in files a candidate may not change (the task's tests),
/// judged from the compiler's `file:[line,col] message` lines (workspace-relative). Then the
/// candidate's own sources compiled, and the task's tests do not compile against them: a PoV
/// test that calls what only the fix adds (jackson-modules-java8) cannot pass on the
/// vulnerable state or on a candidate that does not add it, which is the PoV failing, not the
/// candidate failing to compile. Without a compiler line nothing is known, and `false`.
pub(crate) fn only_tests_fail_to_compile(
    diagnostics: &[String],
    policy: &avrlab_bench::EditPolicy,
) -> bool {
    !diagnostics.is_empty()
        && diagnostics.iter().all(|line| {
            line.split_once(":[").is_some_and(|(file, _)| {
                file.ends_with(".java") && policy.check_path(file).is_err()
            })
        })
}

/// What a skipped test means in a phase.
///
/// Surefire and the fast path's runner report a test that *aborted* (an assumption that did not
/// hold: JUnit 4's `AssumptionViolatedException`, opentest4j's `TestAbortedException`) as
/// skipped, like one that is `@Ignore`d or `@Disabled`. The code under test can throw either
/// exception, so a skip is the project's own choice only where the reference fix skipped the test
/// too; [`SkippedTests::pov`] and [`SkippedTests::regression`] say which applies, for both engines.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum SkippedTests<'a> {
    /// A skipped test did not run, so nothing is known: the phase is undecided (the PoV tests of
    /// a task without a reference fix; a feature task's security tests).
    Indeterminate,
    /// Skipped tests do not count, as long as one test passed: nothing is known of what the
    /// reference fix skips (no baseline judged its tests), or the suite is a feature task's.
    Allowed,
    /// Only tests that these names cover may be skipped (those the reference fix skipped too);
    /// any other skipped test aborted on the candidate, and counts as the phase's failure.
    AsOnReference(&'a [TestName]),
}

impl<'a> SkippedTests<'a> {
    /// The PoV phase of a repair task: a task's PoV tests pass on its reference fix (`bench
    /// check` holds it to that), so a PoV test skipped on a candidate was aborted by it.
    pub(crate) fn pov(task: &avrlab_bench::Task) -> Self {
        match task.reference {
            Some(_) => Self::AsOnReference(&[]),
            None => Self::Indeterminate,
        }
    }

    /// The regression phase: only the tests the baseline runs saw skipped on the reference fix
    /// may be skipped, when a baseline judged the tests.
    pub(crate) fn regression(baseline: &'a crate::baseline::Baseline) -> Self {
        match &baseline.skipped {
            Some(skipped) => Self::AsOnReference(skipped),
            None => Self::Allowed,
        }
    }

    /// The first case of `cases` that was skipped where this rule does not allow it: it aborted.
    fn first_aborted<'c>(&self, cases: &'c [TestCaseResult]) -> Option<&'c TestCaseResult> {
        let allowed = match self {
            Self::AsOnReference(allowed) => allowed,
            // Neither rule names a test that must not be skipped.
            Self::Indeterminate | Self::Allowed => return None,
        };
        cases.iter().find(|c| {
            c.status == TestStatus::Skipped
                && !allowed.iter().any(|t| t.covers(&c.class, &c.method))
        })
    }
}

/// Judges a test run. `wanted` lists the tests that must appear (for "all others" runs, none in
/// particular); `excluded` lists tests that must not appear; `failure` is the outcome when a test
/// fails.
pub(crate) fn judge_run(
    run: &TestRun,
    wanted: &[TestName],
    excluded: &[TestName],
    failure: Outcome,
    skipped: SkippedTests<'_>,
) -> PhaseJudgement {
    let decided = |outcome, reason: String| PhaseJudgement::Decided(outcome, reason);
    match run.exit {
        ExitKind::TimedOut => {
            return decided(
                Outcome::Timeout,
                "the test run outlived its time limit".into(),
            );
        }
        ExitKind::OutputLimit => {
            return decided(
                Outcome::Indeterminate,
                "the test run printed past its output limit".into(),
            );
        }
        ExitKind::DiskLimit => {
            return decided(
                Outcome::Indeterminate,
                "the test run wrote past its disk limit".into(),
            );
        }
        _ if cpu_limit_reached(run) => {
            return decided(
                Outcome::Timeout,
                "a test JVM used up its CPU time limit (it computed until it was stopped)".into(),
            );
        }
        ExitKind::Signal(s) => {
            return decided(
                Outcome::Indeterminate,
                format!("the test run was killed by signal {s}"),
            );
        }
        // A test that waits for ever (a deadlock, a socket that never answers) would have run
        // into the time limit; the idle watch only ends it sooner.
        ExitKind::Idle { .. } => {
            let hang = avrlab_build::Hang::of(run.exit, &run.log)
                .map_or_else(|| "hung".to_owned(), |h| h.to_string());
            return decided(Outcome::Timeout, format!("the test run {hang}"));
        }
        ExitKind::Code(_) => {}
    }
    if let Some(problem) = &run.unusable_reports {
        return decided(
            Outcome::Indeterminate,
            format!("the test reports cannot be used: {problem}"),
        );
    }
    if run.cases.is_empty() {
        return decided(Outcome::Indeterminate, "no test ran".into());
    }
    if let Some(stray) = run
        .cases
        .iter()
        .find(|c| excluded.iter().any(|t| t.covers(&c.class, &c.method)))
    {
        return decided(
            Outcome::Indeterminate,
            format!(
                "a report names {}#{}, which this run did not select",
                stray.class, stray.method
            ),
        );
    }
    // A class that failed before any of its tests ran (JUnit 4's `initializationError`: its
    // runner or rule could not start) reports itself, not the selected methods: those methods
    // errored there, and the failure below says why.
    let failed_whole =
        |c: &TestCaseResult| class_level_failure(c) && wanted.iter().any(|t| t.class == c.class);
    if !wanted.is_empty()
        && let Some(stray) = run
            .cases
            .iter()
            .find(|c| !wanted.iter().any(|t| t.covers(&c.class, &c.method)) && !failed_whole(c))
    {
        return decided(
            Outcome::Indeterminate,
            format!(
                "a report names {}#{}, which this run did not select",
                stray.class, stray.method
            ),
        );
    }
    for test in wanted {
        if !run
            .cases
            .iter()
            .any(|c| test.matches(&c.class, &c.method) || failed_whole(c) && c.class == test.class)
        {
            return decided(Outcome::Indeterminate, format!("{test} did not run"));
        }
    }
    if let Some(failed) = run
        .cases
        .iter()
        .find(|c| matches!(c.status, TestStatus::Failed | TestStatus::Errored))
    {
        return decided(failure, describe(failed));
    }
    if let Some(aborted) = skipped.first_aborted(&run.cases) {
        return decided(
            failure,
            format!(
                "{}#{} aborted (reported as skipped{}), and the reference fix does not skip it: \
                 it counts as failing",
                aborted.class,
                aborted.method,
                first_line(&aborted.message)
                    .map_or_else(String::new, |message| format!(": {message}"))
            ),
        );
    }
    match skipped {
        SkippedTests::Indeterminate => {
            if let Some(case) = run.cases.iter().find(|c| c.status == TestStatus::Skipped) {
                return decided(
                    Outcome::Indeterminate,
                    format!("{} was skipped", describe(case)),
                );
            }
        }
        SkippedTests::Allowed | SkippedTests::AsOnReference(_) => {
            if run.cases.iter().all(|c| c.status == TestStatus::Skipped) {
                return decided(
                    Outcome::Indeterminate,
                    "every test of the run was skipped: no test ran".into(),
                );
            }
        }
    }
    if !run.exit.success() {
        return decided(
            Outcome::Indeterminate,
            format!(
                "every report says passed but the build failed ({:?}): the reports are not trusted",
                run.exit
            ),
        );
    }
    PhaseJudgement::Passed
}

/// The regression tests to run again in a fresh JVM, when a regression phase decided
/// `RegressionBroken` because tests failed or errored (and for nothing else: not a time-out, a
/// killed run, unusable reports or a test the candidate aborted, which a re-run would not clear).
/// Empty when there is nothing to run again.
pub(crate) fn failed_regression_tests(
    run: &TestRun,
    judgement: &PhaseJudgement,
    skipped: SkippedTests<'_>,
) -> Vec<TestName> {
    let broken = matches!(
        judgement,
        PhaseJudgement::Decided(Outcome::RegressionBroken, _)
    );
    if !broken
        || !matches!(run.exit, ExitKind::Code(_))
        || run.unusable_reports.is_some()
        || skipped.first_aborted(&run.cases).is_some()
    {
        return Vec::new();
    }
    let mut failed: Vec<TestName> = Vec::new();
    for case in &run.cases {
        if matches!(case.status, TestStatus::Failed | TestStatus::Errored)
            && let Ok(name) = TestName::parse(&format!("{}#{}", case.class, case.method))
            && !failed.contains(&name)
        {
            failed.push(name);
        }
    }
    failed
}

/// A run again of a regression phase whose tests `failed`, judged on those tests only: the
/// phase's other tests passed (or do not count) in the first run, and a run again decides only
/// whether these failures repeat.
pub(crate) fn judge_rerun(
    again: &TestRun,
    failed: &[TestName],
    skipped: SkippedTests<'_>,
) -> PhaseJudgement {
    let mut only = again.clone();
    only.cases
        .retain(|c| failed.iter().any(|t| t.covers(&c.class, &c.method)));
    judge_run(&only, failed, &[], Outcome::RegressionBroken, skipped)
}

/// The verdict once the regression phase whose tests `failed` (first failing for
/// `first_reason`) ran again, the same tests in the same order, in a fresh JVM, judged `again`
/// on those tests: every one of them passing makes them flaky on this candidate — the evidence
/// supports neither `RegressionBroken` nor `Plausible`, so the verdict is `Indeterminate`; any
/// other result keeps the first run's `RegressionBroken`. (The whole phase runs again, not the
/// failed tests alone: a fix that holds only the first time it is used fails its PoV test run
/// again in the regression phase every time, and alone that test would pass.)
pub(crate) fn after_rerun(
    failed: &[TestName],
    first_reason: &str,
    again: &PhaseJudgement,
) -> (Outcome, String) {
    match again {
        PhaseJudgement::Passed => {
            let names: Vec<String> = failed.iter().map(ToString::to_string).collect();
            (
                Outcome::Indeterminate,
                format!(
                    "{FLAKY_REASON}: {} failed, then passed when the regression phase ran again in a fresh JVM (first: {first_reason})",
                    names.join(", ")
                ),
            )
        }
        PhaseJudgement::Decided(_, why) => (
            Outcome::RegressionBroken,
            format!("{first_reason} (and again in a fresh JVM: {why})"),
        ),
    }
}

/// Whether a test run that gave no verdict ended because its JVM was killed from outside: the
/// build tool, or the sandbox around it, ended by SIGKILL or SIGTERM (bubblewrap reports 137 or
/// 143), or Surefire said its fork ended with exit code 137 or 143. The run's reports decide
/// whenever there are any, so this is asked only of a run judged `Indeterminate`; a candidate
/// that kills its own JVM (or prints Surefire's line and crashes) is errored once, and judged
/// when it happens again on the retry (`avrlab-run`'s engine). The memory limit's SIGKILL looks
/// the same on this path (no cgroup counter is read for a build tool's run), and takes the same
/// retry to be judged.
pub(crate) fn killed_from_outside(run: &TestRun) -> bool {
    test_jvm_ended_by(run, |code| matches!(code, 137 | 143))
}

/// Whether a test run ended because a test JVM used up its CPU time limit (`SIGXCPU`, exit
/// status [`CPU_LIMIT_EXIT`]): a test that computes without end (a regular expression that
/// backtracks for ever, a loop that never meets its condition) is stopped there when the wall
/// clock has not stopped it first. That is the run outliving its time limit, as a `Timeout`,
/// not a JVM killed from outside.
pub(crate) fn cpu_limit_reached(run: &TestRun) -> bool {
    run.cpu_limit_reached || test_jvm_ended_by(run, |code| code == CPU_LIMIT_EXIT)
}

/// Whether the build tool, or the JVM of its tests, ended with an exit status that `status`
/// picks (a signal `s` as `128 + s`): the tool's own status, or the status its own line gives the
/// test JVM. Those lines are Surefire's `[ERROR] Process Exit Code: 137` (after any colour reset)
/// and Gradle's `Process 'Gradle Test Executor 1' finished with non-zero exit value 137`.
fn test_jvm_ended_by(run: &TestRun, status: impl Fn(i32) -> bool) -> bool {
    match run.exit {
        ExitKind::Signal(signal) => status(128 + signal),
        ExitKind::Code(code) if status(code) => true,
        ExitKind::Code(0) => false,
        ExitKind::Code(_) => run.log.lines().any(|line| {
            let surefire = line
                .split_once("[ERROR] Process Exit Code: ")
                .map(|(_, code)| code);
            let gradle = || {
                let (_, executor) = line.split_once("Process 'Gradle Test Executor ")?;
                let (_, code) = executor.split_once("' finished with non-zero exit value ")?;
                Some(code)
            };
            surefire
                .or_else(gradle)
                .and_then(|code| code.trim().parse().ok())
                .is_some_and(&status)
        }),
        ExitKind::TimedOut
        | ExitKind::OutputLimit
        | ExitKind::DiskLimit
        | ExitKind::Idle { .. } => false,
    }
}

/// How the reason of a verdict left undecided by a flaky test starts.
pub const FLAKY_REASON: &str = "flaky on this candidate";

#[cfg(test)]
mod tests {
    #[test]
    fn compile_errors_only_in_test_sources_are_told_apart() {
        let policy =
            avrlab_bench::EditPolicy::new(Some(&["datetime/src/main/java/**/*.java".to_owned()]))
                .unwrap();
        let test =
            "datetime/src/test/java/a/InstantTest.java:[40,31] cannot find symbol".to_owned();
        let main = "datetime/src/main/java/a/DecimalUtils.java:[12,5] ';' expected".to_owned();
        assert!(only_tests_fail_to_compile(
            std::slice::from_ref(&test),
            &policy
        ));
        assert!(!only_tests_fail_to_compile(&[test, main], &policy));
        assert!(!only_tests_fail_to_compile(&[], &policy));
        assert!(!only_tests_fail_to_compile(
            &["BUILD FAILURE".to_owned()],
            &policy
        ));
    }

    use std::time::Duration;

    use super::*;

    fn case(class: &str, method: &str, status: TestStatus) -> TestCaseResult {
        TestCaseResult {
            class: class.into(),
            method: method.into(),
            status,
            seconds: 0.1,
            message: "boom\nat x".into(),
        }
    }

    fn run(exit: ExitKind, cases: Vec<TestCaseResult>) -> TestRun {
        TestRun {
            exit,
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

    #[test]
    fn decides_each_case() {
        let pov = names(&["a.T#pov"]);
        let cases: [(TestRun, Option<Outcome>); 9] = [
            (
                run(
                    ExitKind::Code(0),
                    vec![case("a.T", "pov", TestStatus::Passed)],
                ),
                None,
            ),
            (
                run(
                    ExitKind::Code(1),
                    vec![case("a.T", "pov", TestStatus::Failed)],
                ),
                Some(Outcome::PovFailing),
            ),
            (
                run(
                    ExitKind::Code(1),
                    vec![case("a.T", "pov", TestStatus::Errored)],
                ),
                Some(Outcome::PovFailing),
            ),
            (run(ExitKind::TimedOut, vec![]), Some(Outcome::Timeout)),
            (run(ExitKind::Code(0), vec![]), Some(Outcome::Indeterminate)),
            // A passing report while the build failed: a forged or partial report.
            (
                run(
                    ExitKind::Code(1),
                    vec![case("a.T", "pov", TestStatus::Passed)],
                ),
                Some(Outcome::Indeterminate),
            ),
            // A report for a test that was not selected.
            (
                run(
                    ExitKind::Code(0),
                    vec![
                        case("a.T", "pov", TestStatus::Passed),
                        case("a.U", "x", TestStatus::Passed),
                    ],
                ),
                Some(Outcome::Indeterminate),
            ),
            (
                run(
                    ExitKind::Code(0),
                    vec![case("a.T", "pov", TestStatus::Skipped)],
                ),
                Some(Outcome::Indeterminate),
            ),
            (
                run(ExitKind::OutputLimit, vec![]),
                Some(Outcome::Indeterminate),
            ),
        ];
        for (index, (test_run, expected)) in cases.into_iter().enumerate() {
            let judged = judge_run(
                &test_run,
                &pov,
                &[],
                Outcome::PovFailing,
                SkippedTests::Indeterminate,
            );
            let got = match judged {
                PhaseJudgement::Passed => None,
                PhaseJudgement::Decided(o, _) => Some(o),
            };
            assert_eq!(got, expected, "case {index}");
        }
    }

    /// A test run killed as hung is a timeout, and its reason names the test class that hung.
    #[test]
    fn a_hung_test_run_is_a_timeout_naming_its_last_test() {
        let mut test_run = run(ExitKind::Idle { seconds: 300 }, vec![]);
        test_run.log = "[INFO] Running a.T\n".into();
        let judged = judge_run(
            &test_run,
            &names(&["a.T#pov"]),
            &[],
            Outcome::PovFailing,
            SkippedTests::Indeterminate,
        );
        assert_eq!(
            judged,
            PhaseJudgement::Decided(
                Outcome::Timeout,
                "the test run hung: no CPU and no output for 300 s (last test started: a.T)".into()
            )
        );
    }

    #[test]
    fn unusable_reports_are_indeterminate_even_when_the_build_passed() {
        let mut test_run = run(ExitKind::Code(0), vec![]);
        test_run.unusable_reports =
            Some("TEST-x.xml is a symbolic link, not a regular file".into());
        let judged = judge_run(
            &test_run,
            &names(&["a.T#pov"]),
            &[],
            Outcome::PovFailing,
            SkippedTests::Indeterminate,
        );
        assert_eq!(
            judged,
            PhaseJudgement::Decided(
                Outcome::Indeterminate,
                "the test reports cannot be used: TEST-x.xml is a symbolic link, not a regular file"
                    .into()
            )
        );
    }

    #[test]
    fn a_selected_test_that_did_not_run_is_indeterminate() {
        let wanted = names(&["a.T#pov", "a.T#pov2"]);
        let judged = judge_run(
            &run(
                ExitKind::Code(0),
                vec![case("a.T", "pov", TestStatus::Passed)],
            ),
            &wanted,
            &[],
            Outcome::PovFailing,
            SkippedTests::Indeterminate,
        );
        assert_eq!(
            judged,
            PhaseJudgement::Decided(Outcome::Indeterminate, "a.T#pov2 did not run".into())
        );
    }

    /// A PoV class whose runner cannot start (PowerMock's Objenesis on a newer JDK, Jooby-1)
    /// reports `initializationError` instead of the selected methods: they errored, the PoV fails,
    /// and the reason is the class's failure. Another class's report is still a stray.
    #[test]
    fn a_selected_class_that_fails_whole_fails_its_tests() {
        let pov = names(&["a.T#pov"]);
        let mut failed = case("a.T", "initializationError", TestStatus::Errored);
        failed.message = "org.objenesis.ObjenesisException: InvocationTargetException".into();
        let judged = judge_run(
            &run(ExitKind::Code(1), vec![failed.clone()]),
            &pov,
            &[],
            Outcome::PovFailing,
            SkippedTests::AsOnReference(&[]),
        );
        let PhaseJudgement::Decided(Outcome::PovFailing, why) = judged else {
            panic!("{judged:?}");
        };
        assert!(
            why.contains("a.T#initializationError errored: org.objenesis"),
            "{why}"
        );
        // A runner that failed as a whole reports the class without a method.
        let mut runner = failed.clone();
        runner.method = String::new();
        let judged = judge_run(
            &run(ExitKind::Code(1), vec![runner]),
            &pov,
            &[],
            Outcome::PovFailing,
            SkippedTests::AsOnReference(&[]),
        );
        assert!(
            matches!(judged, PhaseJudgement::Decided(Outcome::PovFailing, _)),
            "{judged:?}"
        );
        let mut other = failed;
        other.class = "a.U".into();
        let judged = judge_run(
            &run(ExitKind::Code(1), vec![other]),
            &pov,
            &[],
            Outcome::PovFailing,
            SkippedTests::AsOnReference(&[]),
        );
        let PhaseJudgement::Decided(Outcome::Indeterminate, why) = judged else {
            panic!("{judged:?}");
        };
        assert!(why.contains("which this run did not select"), "{why}");
    }

    #[test]
    fn regression_runs_must_not_report_pov_tests() {
        let pov = names(&["a.T#pov"]);
        let cases = vec![
            case("a.T", "pov", TestStatus::Passed),
            case("a.T", "other", TestStatus::Passed),
        ];
        let judged = judge_run(
            &run(ExitKind::Code(0), cases),
            &[],
            &pov,
            Outcome::RegressionBroken,
            SkippedTests::Allowed,
        );
        assert!(matches!(
            judged,
            PhaseJudgement::Decided(Outcome::Indeterminate, _)
        ));
        let cases = vec![case("a.T", "other", TestStatus::Failed)];
        let judged = judge_run(
            &run(ExitKind::Code(1), cases),
            &[],
            &pov,
            Outcome::RegressionBroken,
            SkippedTests::Allowed,
        );
        assert!(matches!(
            judged,
            PhaseJudgement::Decided(Outcome::RegressionBroken, _)
        ));
    }

    /// A test that passed on the reference fix and is skipped on a candidate aborted there (the
    /// code under test threw JUnit's assumption exception): it fails its phase, as a PoV or a
    /// regression test, on both engines. Only what the reference fix skips may be skipped.
    #[test]
    fn a_test_skipped_on_the_candidate_but_not_on_the_reference_fails_its_phase() {
        let on_reference = names(&["a.T#ignored", "a.P#p", "a.D"]);
        let may_skip = SkippedTests::AsOnReference(&on_reference);
        let aborted = |method: &str| {
            let mut case = case("a.T", method, TestStatus::Skipped);
            case.message = "org.opentest4j.TestAbortedException: not today".into();
            case
        };
        // (cases, wanted, rule, failure) → outcome, or None when the phase passed.
        type Case<'a> = (
            Vec<TestCaseResult>,
            &'a [&'a str],
            SkippedTests<'a>,
            Outcome,
            Option<Outcome>,
        );
        let cases: Vec<Case<'_>> = vec![
            // The PoV test aborted: it passes on the reference fix, so it failed.
            (
                vec![aborted("pov")],
                &["a.T#pov"],
                SkippedTests::AsOnReference(&[]),
                Outcome::PovFailing,
                Some(Outcome::PovFailing),
            ),
            // A regression test aborted that the reference fix runs.
            (
                vec![case("a.T", "ok", TestStatus::Passed), aborted("other")],
                &[],
                may_skip,
                Outcome::RegressionBroken,
                Some(Outcome::RegressionBroken),
            ),
            // Skipped where the reference fix skips it too: by method, any invocation, or class.
            (
                vec![
                    case("a.T", "ok", TestStatus::Passed),
                    case("a.T", "ignored", TestStatus::Skipped),
                ],
                &[],
                may_skip,
                Outcome::RegressionBroken,
                None,
            ),
            (
                vec![
                    case("a.T", "ok", TestStatus::Passed),
                    case("a.P", "p(String)[2]", TestStatus::Skipped),
                    case("a.D", "any", TestStatus::Skipped),
                ],
                &[],
                may_skip,
                Outcome::RegressionBroken,
                None,
            ),
            // Only skips the reference fix makes too: no test ran, nothing is known.
            (
                vec![case("a.T", "ignored", TestStatus::Skipped)],
                &[],
                may_skip,
                Outcome::RegressionBroken,
                Some(Outcome::Indeterminate),
            ),
            // No baseline judged the tests: skips do not count, as before.
            (
                vec![case("a.T", "ok", TestStatus::Passed), aborted("other")],
                &[],
                SkippedTests::Allowed,
                Outcome::RegressionBroken,
                None,
            ),
            // A task without a reference fix: a skipped PoV test leaves the verdict undecided.
            (
                vec![aborted("pov")],
                &["a.T#pov"],
                SkippedTests::Indeterminate,
                Outcome::PovFailing,
                Some(Outcome::Indeterminate),
            ),
        ];
        for (index, (cases, wanted, skipped, failure, expected)) in cases.into_iter().enumerate() {
            let judged = judge_run(
                &run(ExitKind::Code(0), cases),
                &names(wanted),
                &[],
                failure,
                skipped,
            );
            let got = match &judged {
                PhaseJudgement::Passed => None,
                PhaseJudgement::Decided(o, _) => Some(*o),
            };
            assert_eq!(got, expected, "case {index}: {judged:?}");
        }
        // The evidence says what happened, with the exception's message.
        let judged = judge_run(
            &run(ExitKind::Code(0), vec![aborted("pov")]),
            &names(&["a.T#pov"]),
            &[],
            Outcome::PovFailing,
            SkippedTests::AsOnReference(&[]),
        );
        assert_eq!(
            judged,
            PhaseJudgement::Decided(
                Outcome::PovFailing,
                "a.T#pov aborted (reported as skipped: org.opentest4j.TestAbortedException: not \
                 today), and the reference fix does not skip it: it counts as failing"
                    .into()
            )
        );
    }

    /// Which rule each phase of a repair task gets, from the task and its baseline.
    #[test]
    fn each_phase_gets_its_skip_rule_from_the_task_and_baseline() {
        let benchmark = avrlab_bench::Benchmark::open("demo").unwrap();
        let mut task = benchmark.task("demo-zip-slip").unwrap().clone();
        assert_eq!(SkippedTests::pov(&task), SkippedTests::AsOnReference(&[]));
        task.reference = None;
        assert_eq!(SkippedTests::pov(&task), SkippedTests::Indeterminate);
        let mut baseline = crate::baseline::Baseline::default();
        assert_eq!(SkippedTests::regression(&baseline), SkippedTests::Allowed);
        baseline.skipped = Some(names(&["a.T#ignored"]));
        assert_eq!(
            SkippedTests::regression(&baseline),
            SkippedTests::AsOnReference(&names(&["a.T#ignored"]))
        );
    }

    #[test]
    fn skipped_regression_tests_do_not_count_but_skipped_pov_tests_do() {
        let cases = vec![
            case("a.T", "other", TestStatus::Passed),
            case("a.T", "ignored", TestStatus::Skipped),
        ];
        let judged = judge_run(
            &run(ExitKind::Code(0), cases.clone()),
            &[],
            &[],
            Outcome::RegressionBroken,
            SkippedTests::Allowed,
        );
        assert_eq!(judged, PhaseJudgement::Passed);
        let judged = judge_run(
            &run(
                ExitKind::Code(0),
                vec![case("a.T", "ignored", TestStatus::Skipped)],
            ),
            &[],
            &[],
            Outcome::RegressionBroken,
            SkippedTests::Allowed,
        );
        assert!(matches!(
            judged,
            PhaseJudgement::Decided(Outcome::Indeterminate, _)
        ));
        let judged = judge_run(
            &run(ExitKind::Code(0), cases),
            &names(&["a.T#other", "a.T#ignored"]),
            &[],
            Outcome::PovFailing,
            SkippedTests::Indeterminate,
        );
        assert!(matches!(
            judged,
            PhaseJudgement::Decided(Outcome::Indeterminate, _)
        ));
    }

    #[test]
    fn a_run_killed_from_outside_is_told_by_its_exit_or_surefires_line() {
        let killed = |exit, log: &str| {
            let mut r = run(exit, Vec::new());
            r.log = log.into();
            killed_from_outside(&r)
        };
        assert!(killed(ExitKind::Signal(9), ""));
        assert!(killed(ExitKind::Code(137), ""));
        assert!(killed(
            ExitKind::Code(1),
            "\u{1b}[0m[ERROR] Process Exit Code: 137\n"
        ));
        assert!(!killed(ExitKind::Code(1), "[ERROR] Process Exit Code: 1\n"));
        assert!(!killed(ExitKind::Code(1), "Process Exit Code: 137\n"));
        assert!(!killed(ExitKind::Signal(11), ""));
        assert!(!killed(ExitKind::TimedOut, ""));
        assert!(!killed(ExitKind::Code(0), "[ERROR] Process Exit Code: 137"));
        assert!(killed(
            ExitKind::Code(1),
            "Process 'Gradle Test Executor 3' finished with non-zero exit value 143\n"
        ));
        assert!(!killed(
            ExitKind::Code(1),
            "[ERROR] Process Exit Code: 152\n"
        ));
    }

    /// A test JVM stopped at its CPU limit (SIGXCPU: 152) makes the run a `Timeout`, whether the
    /// build tool itself was stopped or said so of its fork; a JVM killed from outside does not.
    #[test]
    fn a_test_jvm_stopped_at_its_cpu_limit_is_a_timeout() {
        let judge = |r: &TestRun| match judge_run(
            r,
            &[],
            &[],
            Outcome::PovFailing,
            SkippedTests::Indeterminate,
        ) {
            PhaseJudgement::Decided(outcome, _) => Some(outcome),
            PhaseJudgement::Passed => None,
        };
        let judged = |exit, log: &str| {
            let mut r = run(exit, Vec::new());
            r.log = log.into();
            judge(&r)
        };
        let timeout = Some(Outcome::Timeout);
        assert_eq!(judged(ExitKind::Signal(24), ""), timeout);
        assert_eq!(judged(ExitKind::Code(152), ""), timeout);
        let surefire = "\u{1b}[0m[ERROR] Process Exit Code: 152\n[ERROR] Crashed tests:\n";
        assert_eq!(judged(ExitKind::Code(1), surefire), timeout);
        let gradle = "Process 'Gradle Test Executor 1' finished with non-zero exit value 152\n";
        assert_eq!(judged(ExitKind::Code(1), gradle), timeout);
        let killed = "[ERROR] Process Exit Code: 137\n";
        assert_eq!(
            judged(ExitKind::Code(1), killed),
            Some(Outcome::Indeterminate)
        );
        // The fork relay saw its test JVM end at the limit, whatever Surefire then printed (under
        // load its launcher once reported 125 for a JVM the relay saw end with 152).
        let mut relayed = run(ExitKind::Code(1), Vec::new());
        relayed.log = "[ERROR] Process Exit Code: 125\n".into();
        relayed.cpu_limit_reached = true;
        assert_eq!(judge(&relayed), timeout);
    }
}
