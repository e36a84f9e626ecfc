//! The baseline run: which regression tests count, decided by running them on the reference fix.
//!
//! Real projects have tests that are `@Ignore`d, or that fail whatever the candidate does (a
//! network test, a test broken by a newer JDK), or that pass one run and fail the next. Like
//! SWE-bench's PASS_TO_PASS, a regression test counts only if it passes (or is skipped) on the
//! reference fix in both of two Maven runs. The others are excluded from every regression run of
//! the task one by one (a method, every invocation of a parameterized one; a class only where the
//! class itself failed, see [`Exclusion::effective`]), and recorded with their status in each run
//! and the first line of their failure in a baseline file (kept in avrlab's cache, keyed by the
//! task state's content) and in each verdict's regression log. The PoV tests are never excluded.

use std::path::{Path, PathBuf};

use avrlab_bench::{RegressionTests, Task, TestName};
use avrlab_build::{BuildTool, Hang, TestCaseResult, TestRun, TestSelection, TestStatus};
use avrlab_exec::ExitKind;

/// The first line of a baseline file, so that an older format is recomputed, never misread.
/// Format 2 added the second run (flaky tests), per-test exclusion and the failure lines; format 3
/// the tests the reference fix skips (a candidate may skip only those).
const HEADER: &str = "avrlab-baseline 3";

/// How many times the baseline runs the suite: a test that passes in one run and not in the
/// other is flaky, and cannot decide a verdict either way.
pub const BASELINE_RUNS: usize = 2;

/// The most regression tests the reference check may add to a baseline at once: a twentieth of
/// those that count, or ten. More failing on the reference fix says more of the fix than of
/// the suite, and the check's verdict stands.
fn most_failing_on_reference(counted: usize) -> usize {
    (counted / 20).max(10)
}

/// A regression test that did not pass on the reference fix in the reference check's regression
/// phase (see [`Baseline::add_reference_failures`]).
#[derive(Debug, Clone, PartialEq)]
pub struct ReferenceFailure {
    /// As the first run of the phase that did not pass it reported it.
    pub case: TestCaseResult,
    /// Its status in each run of the phase: the first, then the run in a fresh JVM where the
    /// phase ran again (`None` where a run did not report it).
    pub statuses: Vec<Option<TestStatus>>,
}

/// The longest failure line kept for a test (the rest of a long message adds nothing to a group).
const MAX_CAUSE_CHARS: usize = 200;

/// Up to this many exclusions are named one by one in [`Baseline::describe`]; more are counted.
const NAMED_IN_DESCRIPTION: usize = 6;

/// What a test's status is called in a baseline run that did not report it.
const ABSENT: &str = "absent";

/// One regression test that does not count, with why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Exclusion {
    /// As reported: `Class#method`, or `Class` where the class itself failed (its set-up, its
    /// runner) or the report's name is not a Java name (some JUnit 5 display names).
    pub test: TestName,
    /// Its status in each baseline run, in order (`passed`, `failed`, `errored`, `skipped`, or
    /// `absent` when that run did not report it; a run that timed out judges nothing).
    pub statuses: Vec<String>,
    /// The first line of its failure message in the first run it did not pass (`type: message`
    /// as Surefire reports it), or its status when the report gives no message.
    pub cause: String,
}

impl Exclusion {
    /// Passed (or was skipped) in one run and not in another.
    pub fn is_flaky(&self) -> bool {
        self.statuses.iter().any(|s| is_passing(s)) && self.statuses.iter().any(|s| !is_passing(s))
    }

    /// What the regression runs leave out for it: the method (Surefire filters by method name,
    /// so a parameterized invocation `m[3]` excludes every invocation of `m`), or the class.
    pub fn effective(&self) -> TestName {
        Self::method_of(&self.test)
    }

    /// A reported name without its invocation: the method, or the class.
    fn method_of(test: &TestName) -> TestName {
        TestName {
            class: test.class.clone(),
            method: test
                .method
                .as_deref()
                .map(|m| m.split('[').next().unwrap_or(m).to_owned()),
        }
    }
}

/// Whether a stored status word (a [`TestStatus`]'s) counts as passing.
fn is_passing(status: &str) -> bool {
    matches!(
        TestStatus::parse(status),
        Ok(TestStatus::Passed | TestStatus::Skipped)
    )
}

/// The regression tests excluded for a task, with why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    pub excluded: Vec<Exclusion>,
    /// How many regression tests (PoV tests aside) the baseline runs reported.
    pub ran: usize,
    /// How many of those still count: not covered by an exclusion.
    pub counted: usize,
    /// A note when no baseline could be taken (no reference fix; it does not compile).
    pub note: Option<String>,
    /// The counted regression tests that the reference fix skipped in a baseline run (`@Disabled`,
    /// an assumption that does not hold in the sandbox), as methods or classes: only these may be
    /// skipped on a candidate; any other skipped test aborted there, and fails the candidate
    /// (`verdict_rules::SkippedTests`). `None` when no baseline run judged the tests: then
    /// nothing is known of what the reference fix skips.
    pub skipped: Option<Vec<TestName>>,
    /// What comparing this baseline with the baseline without each optional repair decided, one
    /// line each (see `repairs`).
    pub repairs: Vec<String>,
    /// Where the reference fix did not compile: the workspace built and the build's output, to
    /// find the test sources that fail it (see `left_out`). Never stored.
    pub(crate) not_compiled: Option<(PathBuf, String)>,
}

/// `cause` with each object's identity hash (`Loader@1c9975a8`: a new one in every JVM, so
/// the same failure of six tests read as six causes) written `@…`.
fn without_identity_hashes(cause: &str) -> String {
    let mut text = String::with_capacity(cause.len());
    let mut rest = cause;
    while let Some(at) = rest.find('@') {
        text.push_str(&rest[..=at]);
        rest = &rest[at + 1..];
        let hex = rest
            .find(|c: char| !c.is_ascii_hexdigit())
            .unwrap_or(rest.len());
        let word_ends = rest[hex..]
            .chars()
            .next()
            .is_none_or(|c| !c.is_alphanumeric() && c != '_');
        if (5..=8).contains(&hex) && word_ends {
            text.push('…');
            rest = &rest[hex..];
        }
    }
    text.push_str(rest);
    text
}

/// The exclusions that share a cause, for `avrlab bench check`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExclusionGroup {
    /// The shared first failure line, or `None` for the flaky tests (whatever their failure).
    pub cause: Option<String>,
    pub tests: usize,
}

impl Baseline {
    /// What the regression runs leave out: methods, and classes where the class failed.
    pub fn tests(&self) -> Vec<TestName> {
        let mut tests: Vec<TestName> = Vec::new();
        for exclusion in &self.excluded {
            let name = exclusion.effective();
            if !tests.contains(&name) {
                tests.push(name);
            }
        }
        tests
    }

    /// Whether a listed regression test still counts: no exclusion covers it. A listed whole
    /// class with an excluded method does not (`-Dtest` names what runs; the class goes, as
    /// before per-test exclusion).
    pub fn keeps(&self, listed: &TestName) -> bool {
        !self.tests().iter().any(|excluded| {
            excluded.class == listed.class
                && (excluded.method.is_none()
                    || listed
                        .method
                        .as_deref()
                        .is_none_or(|m| excluded.covers(&listed.class, m)))
        })
    }

    /// The exclusions grouped by cause, the largest group first; the flaky tests are one group,
    /// the last.
    pub fn groups(&self) -> Vec<ExclusionGroup> {
        let mut groups: Vec<ExclusionGroup> = Vec::new();
        for exclusion in &self.excluded {
            let cause = (!exclusion.is_flaky()).then(|| without_identity_hashes(&exclusion.cause));
            match groups.iter_mut().find(|g| g.cause == cause) {
                Some(group) => group.tests += 1,
                None => groups.push(ExclusionGroup { cause, tests: 1 }),
            }
        }
        // The flaky group last; stable, so equal groups keep the order of their first test.
        groups.sort_by_key(|g| (g.cause.is_none(), std::cmp::Reverse(g.tests)));
        groups
    }

    /// The share of the regression suite that still counts, in words.
    pub fn share(&self) -> String {
        // Rounded to the nearest percent; an empty suite counts whole.
        let percent = (self.counted * 100 + self.ran / 2)
            .checked_div(self.ran)
            .unwrap_or(100);
        format!("counts {} of {} tests ({percent}%)", self.counted, self.ran)
    }

    /// One line for logs and tables, however many tests are excluded.
    pub fn describe(&self) -> String {
        if let Some(note) = &self.note {
            return format!("baseline: {note}");
        }
        if self.excluded.is_empty() {
            return format!(
                "baseline: all {} regression tests pass on the reference fix in both runs",
                self.ran
            );
        }
        let flaky = self.excluded.iter().filter(|e| e.is_flaky()).count();
        let failing = self.excluded.len() - flaky;
        let and_check = if self
            .excluded
            .iter()
            .any(|e| e.statuses.len() > BASELINE_RUNS)
        {
            " and the reference check"
        } else {
            ""
        };
        let named: Vec<String> = self
            .excluded
            .iter()
            .take(NAMED_IN_DESCRIPTION)
            .map(|e| {
                let how = if e.is_flaky() {
                    format!("flaky: {}", e.statuses.join(", "))
                } else {
                    e.statuses[0].clone()
                };
                let scope = match &e.test.method {
                    None => "; its class",
                    Some(m) if m.contains('[') => "; its method",
                    Some(_) => "",
                };
                format!("{} ({how}{scope})", e.test)
            })
            .collect();
        let more = match self.excluded.len().saturating_sub(NAMED_IN_DESCRIPTION) {
            0 => String::new(),
            n => format!(" and {n} more (avrlab bench check groups them by cause)"),
        };
        format!(
            "baseline: {} tests excluded ({failing} failing on the reference fix, {flaky} flaky \
             over {BASELINE_RUNS} runs{and_check}), {}; only these are left out (a class only where the class \
             itself failed, a method for an invocation m[3]): {}{more}",
            self.excluded.len(),
            self.share(),
            named.join(", ")
        )
    }

    /// Adds the regression tests that did not pass on the reference fix in the reference check's
    /// regression phase, after passing in both baseline runs (a test that fails now and then, or
    /// one that fails only when the tests the baseline left out are left out: a test that needs
    /// another's side effects). Each is excluded with the baseline's statuses and the check's,
    /// flaky like any test that passed in one run and not in another; `counted` drops by one for
    /// each. Nothing is added, and false returned, when every one is excluded already, when one is
    /// a PoV test (those are never excluded: the reference fix then breaks its own PoV), or when
    /// they are more than [`most_failing_on_reference`] (the fix, not the suite, is then the
    /// question).
    pub(crate) fn add_reference_failures(
        &mut self,
        failures: &[ReferenceFailure],
        pov: &[TestName],
    ) -> bool {
        let mut new = Vec::new();
        for failure in failures {
            let Some(test) = reported_name(&failure.case) else {
                continue;
            };
            let covered = self.tests().iter().any(|t| match &test.method {
                Some(method) => t.covers(&test.class, method),
                None => *t == test,
            });
            let is_pov = pov.iter().any(|p| match &test.method {
                Some(method) => p.covers(&test.class, method),
                None => p.class == test.class,
            });
            if is_pov {
                return false;
            }
            if covered || new.iter().any(|e: &Exclusion| e.test == test) {
                continue;
            }
            let mut statuses = vec![TestStatus::Passed.as_str().to_owned(); BASELINE_RUNS];
            statuses.extend(
                failure
                    .statuses
                    .iter()
                    .take(2)
                    .map(|status| status.map_or(ABSENT, TestStatus::as_str).to_owned()),
            );
            new.push(Exclusion {
                test,
                statuses,
                cause: first_line(&failure.case),
            });
        }
        if new.is_empty() || new.len() > most_failing_on_reference(self.counted) {
            return false;
        }
        self.counted = self.counted.saturating_sub(new.len());
        self.excluded.extend(new);
        true
    }

    fn to_text(&self) -> String {
        let mut text = format!("{HEADER}\nran {}\ncounted {}\n", self.ran, self.counted);
        if let Some(note) = &self.note {
            text.push_str(&format!("note {note}\n"));
        }
        for repair in &self.repairs {
            text.push_str(&format!("repair {repair}\n"));
        }
        // One line, present only when the runs judged the tests; names hold no tab.
        if let Some(skipped) = &self.skipped {
            let names: Vec<String> = skipped.iter().map(ToString::to_string).collect();
            text.push_str(&format!("skipped {}\n", names.join("\t")));
        }
        for e in &self.excluded {
            text.push_str(&format!(
                "excluded {} {}\t{}\n",
                e.statuses.join(","),
                e.test,
                e.cause
            ));
        }
        text
    }

    fn from_text(text: &str) -> Option<Self> {
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let mut baseline = Baseline::default();
        for line in lines {
            let (key, rest) = line.split_once(' ')?;
            match key {
                "ran" => baseline.ran = rest.parse().ok()?,
                "counted" => baseline.counted = rest.parse().ok()?,
                "note" => baseline.note = Some(rest.to_owned()),
                "repair" => baseline.repairs.push(rest.to_owned()),
                "skipped" => {
                    let names = rest.split('\t').filter(|name| !name.is_empty());
                    baseline.skipped = Some(
                        names
                            .map(|name| TestName::parse(name).ok())
                            .collect::<Option<_>>()?,
                    );
                }
                "excluded" => {
                    let (statuses, rest) = rest.split_once(' ')?;
                    let (test, cause) = rest.split_once('\t')?;
                    let statuses: Vec<String> = statuses.split(',').map(str::to_owned).collect();
                    // The baseline's runs, and for a test the reference check found failing
                    // the runs of its regression phase after them.
                    if !(BASELINE_RUNS..=BASELINE_RUNS + 2).contains(&statuses.len()) {
                        return None;
                    }
                    baseline.excluded.push(Exclusion {
                        test: TestName::parse(test).ok()?,
                        statuses,
                        cause: cause.to_owned(),
                    });
                }
                _ => return None,
            }
        }
        Some(baseline)
    }
}

/// Where a task's baseline is kept: keyed by the content of the task state, its reference fix, its
/// oracle and the JDK, so an edited (or transformed) task gets a new baseline and an unchanged one
/// is taken once, also across runs when `root` is a lasting cache.
pub(crate) fn baseline_path(
    root: &Path,
    task: &Task,
    pristine: &Path,
    jdk: u32,
) -> std::io::Result<PathBuf> {
    use sha2::{Digest, Sha256};
    let mut hasher = Sha256::new();
    hasher.update(HEADER.as_bytes());
    hasher.update(crate::fingerprint::tree_fingerprint(pristine, b"task state")?.as_bytes());
    // The oracle and build are keyed by their words, never by a `Debug` string (which changes
    // with the code, not with the task). Every part is length-prefixed, so lists cannot run into
    // each other.
    let names = |tests: &[TestName]| tests.iter().map(ToString::to_string).collect::<Vec<_>>();
    let regression = match &task.oracle.regression_tests {
        RegressionTests::AllOthers => vec!["regression: all others".to_owned()],
        RegressionTests::Listed(tests) => {
            let mut parts = vec![format!("regression: {} listed", tests.len())];
            parts.extend(names(tests));
            parts
        }
    };
    let system = task.build.system.as_str();
    let mut parts = vec![
        task.reference
            .as_ref()
            .map(ToString::to_string)
            .unwrap_or_default(),
        format!("pov: {}", task.oracle.pov_tests.len()),
    ];
    parts.extend(names(&task.oracle.pov_tests));
    parts.extend(regression);
    parts.push(format!("build: {system}"));
    parts.push(format!("task jdk: {}", task.build.jdk));
    parts.push(task.build.module.display().to_string());
    parts.push(format!("extra args: {}", task.build.extra_args.len()));
    parts.extend(task.build.extra_args.iter().cloned());
    parts.push(jdk.to_string());
    // Baselines taken while the tests' temporary folder was `/tmp` are not this environment's.
    parts.push(format!("test tmpdir: {}", avrlab_build::TEST_TMPDIR));
    // Adaptations made on the build tool's command line leave the state's files as they were;
    // a baseline taken without them (a JDOM build that did not compile) is not this build's.
    parts.push(format!(
        "command-line adaptations: {}",
        avrlab_build::COMMAND_LINE_ADAPTATIONS
    ));
    // Only where it applies.
    if task.build.system == avrlab_bench::BuildSystem::Gradle {
        // Gradle test runs before this went no further than the first project with a failing
        // test: their baselines counted that project's tests alone.
        parts.push(format!(
            "gradle test runs: {}",
            avrlab_build::GRADLE_TEST_RUNS
        ));
    }
    if let Some(older) = &task.build.older_api {
        parts.push(format!("release: {}", older.release));
        parts.push(format!(
            "test runtime: {}",
            older
                .test_runtime
                .as_ref()
                .map(|home| home.display().to_string())
                .unwrap_or_default()
        ));
    }
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let key = hex::encode(&hasher.finalize()[..12]);
    Ok(root.join(format!("{}-{key}.txt", task.id)))
}

/// Reads a stored baseline, if there is a readable one in which tests ran (one that judged no
/// test is never kept now; earlier versions kept them, and they would hide every later run).
pub(crate) fn load(path: &Path) -> Option<Baseline> {
    Baseline::from_text(&std::fs::read_to_string(path).ok()?).filter(|b| b.ran > 0)
}

pub(crate) fn store(path: &Path, baseline: &Baseline) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, baseline.to_text())?;
    std::fs::rename(tmp, path)
}

/// One Maven run of the regression suite on the reference fix, for [`judge_baseline`].
pub(crate) struct BaselineRun<'a> {
    pub exit: ExitKind,
    pub cases: &'a [TestCaseResult],
    /// The test classes that hung this run's earlier attempts, left out of its last attempt and
    /// of every later run.
    pub hung: &'a [HungClass],
}

/// A test class that hung a baseline run: the run sat idle until it was killed, and this was the
/// last class its output named as starting. Such a class is excluded whole, like a class whose
/// set-up failed, and the run is taken again without it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct HungClass {
    pub class: TestName,
    /// `hung: no CPU and no output for N s`.
    pub cause: String,
}

/// At most this many hung classes are left out before a baseline gives up (each costs the idle
/// limit and a run of the suite).
const MAX_HUNG_CLASSES: usize = 3;

/// What a class's status is called in the baseline run it hung.
const HUNG: &str = "hung";

/// The class that hung `run`, when it can be left out of a retry: the run was killed as idle,
/// its output names the last class it started, the selection is "every test but…", and the
/// class holds no PoV test (those are never excluded).
fn hung_class(run: &TestRun, selection: &TestSelection, pov: &[TestName]) -> Option<HungClass> {
    let hang = Hang::of(run.exit, &run.log)?;
    let class = TestName::parse(hang.last_test.as_deref()?).ok()?;
    let excludable = matches!(selection, TestSelection::AllExcept(_))
        && class.method.is_none()
        && !pov.iter().any(|p| p.class == class.class);
    excludable.then(|| HungClass {
        class,
        cause: Hang {
            last_test: None,
            ..hang
        }
        .to_string(),
    })
}

/// A class's status in a run, from its cases: the first that did not pass, else passed, else
/// skipped, else absent.
fn class_status<'c>(cases: &'c [TestCaseResult], class: &str) -> &'c str {
    let of_class = || cases.iter().filter(|c| c.class == class);
    of_class()
        .find(|c| !is_passing(c.status.as_str()))
        .or_else(|| of_class().find(|c| c.status == TestStatus::Passed))
        .or_else(|| of_class().next())
        .map_or(ABSENT, |c| c.status.as_str())
}

/// The baseline of a reference fix that does not compile, with the build's reason when it gave
/// one.
fn not_compiled(cause: Option<&str>) -> Baseline {
    let note = match cause {
        Some(cause) => format!("the reference fix does not compile ({cause}); no test is excluded"),
        None => "the reference fix does not compile; no test is excluded".to_owned(),
    };
    Baseline {
        note: Some(note),
        ..Baseline::default()
    }
}

/// Whether a reported case is its class's own (JUnit 4's `initializationError`, a set-up or
/// runner reported without a method, or under the class's name) rather than a method's.
pub(crate) fn names_the_class_only(case: &TestCaseResult) -> bool {
    let simple = case.class.rsplit(['.', '$']).next().unwrap_or(&case.class);
    case.method.is_empty()
        || case.method == "initializationError"
        || case.method == case.class
        || case.method == simple
}

/// The name a reported case is excluded under: its method, or its class where the report is the
/// class's own failure (JUnit 4's `initializationError`, a set-up reported without a method) or
/// names no Java method.
fn reported_name(case: &TestCaseResult) -> Option<TestName> {
    let class_level = names_the_class_only(case);
    let method = (!class_level)
        .then(|| TestName::parse(&format!("{}#{}", case.class, case.method)).ok())
        .flatten();
    method.or_else(|| TestName::parse(&case.class).ok())
}

/// The first line of a failure, for grouping: the first line with text, and where that is only
/// the thrown type (`org.mockito.exceptions.base.MockitoException:`, whose messages open with a
/// blank line) the type with the message's first line; the status when there is no message.
fn first_line(case: &TestCaseResult) -> String {
    let mut lines = case
        .message
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty());
    let mut line = match (lines.next(), lines.next()) {
        (None, _) => case.status.as_str().to_owned(),
        (Some(kind), Some(next)) if kind.ends_with(':') && !kind.contains(' ') => {
            format!("{kind} {next}")
        }
        (Some(first), _) => first.to_owned(),
    };
    line = line.replace('\t', " ");
    if line.chars().count() > MAX_CAUSE_CHARS {
        line = line.chars().take(MAX_CAUSE_CHARS).collect::<String>() + "…";
    }
    line
}

/// Turns the baseline runs into exclusions: a regression test that does not pass (or is
/// skipped) in every run is excluded, flaky when it passed in another; PoV tests never are.
pub(crate) fn judge_baseline(
    runs: &[BaselineRun<'_>; BASELINE_RUNS],
    pov: &[TestName],
) -> Baseline {
    if let Some((n, run)) = runs
        .iter()
        .enumerate()
        .find(|(_, r)| !matches!(r.exit, ExitKind::Code(_)))
    {
        return Baseline {
            note: Some(format!(
                "baseline run {} of {BASELINE_RUNS} ended by {}; no test is excluded",
                n + 1,
                crate::outcome::exit_text(run.exit)
            )),
            ..Baseline::default()
        };
    }
    // Each test's status per run: its first case that did not pass (a parameterized method is
    // one test, as Surefire's filter sees it), else passed, else skipped.
    struct Seen<'c> {
        name: TestName,
        statuses: Vec<Option<&'c TestCaseResult>>,
    }
    let mut seen: Vec<Seen<'_>> = Vec::new();
    let mut tests: Vec<(&str, &str)> = Vec::new();
    // Each hung class with the run it hung: it is excluded whole, below.
    let hung: Vec<(usize, &HungClass)> = runs
        .iter()
        .enumerate()
        .flat_map(|(n, run)| run.hung.iter().map(move |h| (n, h)))
        .collect();
    for (n, run) in runs.iter().enumerate() {
        for case in run.cases {
            if pov.iter().any(|p| p.covers(&case.class, &case.method)) {
                continue;
            }
            if !tests.contains(&(case.class.as_str(), case.method.as_str())) {
                tests.push((&case.class, &case.method));
            }
            if hung.iter().any(|(_, h)| h.class.class == case.class) {
                continue;
            }
            let Some(name) = reported_name(case) else {
                continue;
            };
            let index = match seen.iter().position(|s| s.name == name) {
                Some(i) => i,
                None => {
                    seen.push(Seen {
                        name,
                        statuses: vec![None; BASELINE_RUNS],
                    });
                    seen.len() - 1
                }
            };
            let slot = &mut seen[index].statuses[n];
            let worse = |old: &TestCaseResult| {
                is_passing(old.status.as_str())
                    && (!is_passing(case.status.as_str()) || case.status == TestStatus::Passed)
            };
            if slot.is_none_or(worse) {
                *slot = Some(case);
            }
        }
    }
    let mut excluded = Vec::new();
    for s in seen {
        let Some(failure) = s
            .statuses
            .iter()
            .flatten()
            .find(|c| !is_passing(c.status.as_str()))
        else {
            continue;
        };
        excluded.push(Exclusion {
            cause: first_line(failure),
            statuses: s
                .statuses
                .iter()
                .map(|c| c.map_or(ABSENT, |c| c.status.as_str()).to_owned())
                .collect(),
            test: s.name,
        });
    }
    for &(hung_in, h) in &hung {
        let statuses = (0..BASELINE_RUNS).map(|n| match n.cmp(&hung_in) {
            std::cmp::Ordering::Less => class_status(runs[n].cases, &h.class.class),
            std::cmp::Ordering::Equal => HUNG,
            std::cmp::Ordering::Greater => ABSENT,
        });
        excluded.push(Exclusion {
            test: h.class.clone(),
            statuses: statuses.map(str::to_owned).collect(),
            cause: h.cause.clone(),
        });
    }
    let mut baseline = Baseline {
        excluded,
        ran: tests.len(),
        counted: 0,
        note: None,
        skipped: None,
        repairs: Vec::new(),
        not_compiled: None,
    };
    let left_out = baseline.tests();
    let counts = |class: &str, method: &str| !left_out.iter().any(|t| t.covers(class, method));
    baseline.counted = tests
        .iter()
        .filter(|(class, method)| counts(class, method))
        .count();
    // Every skipped case of any run, by method (an invocation's name can differ between Surefire
    // and the fast path's runner) or by class where the skip is the class's own: a test the
    // reference fix skipped even once may be skipped on a candidate.
    let mut skipped: Vec<TestName> = Vec::new();
    for case in runs.iter().flat_map(|run| run.cases) {
        let counted = !pov.iter().any(|p| p.covers(&case.class, &case.method))
            && !hung.iter().any(|(_, h)| h.class.class == case.class)
            && counts(&case.class, &case.method);
        if case.status == TestStatus::Skipped && counted {
            let name = reported_name(case).map(|name| Exclusion::method_of(&name));
            if let Some(name) = name.filter(|name| !skipped.contains(name)) {
                skipped.push(name);
            }
        }
    }
    baseline.skipped = Some(skipped);
    baseline
}

/// Runs the baseline in `root` (a fresh folder): the pristine state with the reference fix
/// applied, compiled once, and every regression test but the PoV tests run [`BASELINE_RUNS`]
/// times.
pub(crate) fn run_baseline(
    task: &Task,
    maven: &dyn BuildTool,
    pristine: &Path,
    root: &Path,
) -> Result<Baseline, crate::error::ValidateError> {
    use crate::error::ValidateError;
    let Some(reference) = &task.reference else {
        return Ok(Baseline {
            note: Some("the task has no reference fix; no test is excluded".into()),
            ..Baseline::default()
        });
    };
    let ws = root.join("project");
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root).map_err(|source| ValidateError::Workspace {
        path: root.to_owned(),
        source,
    })?;
    avrlab_bench::copy_project(pristine, &ws).map_err(|source| ValidateError::Checkout {
        task: task.id.clone(),
        source,
    })?;
    let maven_err = |source| ValidateError::Build {
        task: task.id.clone(),
        source,
    };
    if reference.apply_to_dir(&ws).is_err() {
        return Ok(Baseline {
            note: Some("the reference fix does not apply; no test is excluded".into()),
            ..Baseline::default()
        });
    }
    let compiled = maven.compile(&ws).map_err(maven_err)?;
    if !compiled.exit.success() {
        let cause = compiled.diagnostics.first().or(compiled.failure.as_ref());
        return Ok(Baseline {
            not_compiled: Some((ws.clone(), compiled.log)),
            ..not_compiled(cause.map(String::as_str))
        });
    }
    let selection = match &task.oracle.regression_tests {
        RegressionTests::AllOthers => TestSelection::AllExcept(Vec::new()),
        RegressionTests::Listed(list) => TestSelection::Only(list.clone()),
    };
    // The runs share the workspace, as candidates' runs never do: the workspace is read-only to
    // the tests, so whatever one run leaves behind is outside it (what makes a test flaky).
    let mut runs = Vec::with_capacity(BASELINE_RUNS);
    // The classes that hung a run, per run: each is left out of that run's retry and of every
    // later run.
    let mut hung: Vec<Vec<HungClass>> = vec![Vec::new(); BASELINE_RUNS];
    for n in 1..=BASELINE_RUNS {
        let mut attempt = 1;
        let run = loop {
            let left_out: Vec<TestName> = hung.iter().flatten().map(|h| h.class.clone()).collect();
            let selection = match &selection {
                TestSelection::AllExcept(excluded) => {
                    TestSelection::AllExcept([excluded.clone(), left_out].concat())
                }
                only @ TestSelection::Only(_) => only.clone(),
            };
            let reports = match attempt {
                1 => root.join(format!("reports-{n}")),
                _ => root.join(format!("reports-{n}-{attempt}")),
            };
            let run = maven.test(&ws, &selection, &reports).map_err(maven_err)?;
            let total: usize = hung.iter().map(Vec::len).sum();
            match hung_class(&run, &selection, &task.oracle.pov_tests) {
                Some(class) if total < MAX_HUNG_CLASSES => {
                    hung[n - 1].push(class);
                    attempt += 1;
                }
                _ => break run,
            }
        };
        if let Some(problem) = &run.unusable_reports {
            return Ok(Baseline {
                note: Some(format!(
                    "the reports of baseline run {n} are unusable ({problem}); no test is excluded"
                )),
                ..Baseline::default()
            });
        }
        runs.push(run);
    }
    let [first, second] = [0, 1].map(|n| BaselineRun {
        exit: runs[n].exit,
        cases: &runs[n].cases,
        hung: &hung[n],
    });
    Ok(judge_baseline(&[first, second], &task.oracle.pov_tests))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn case(class: &str, method: &str, status: TestStatus, message: &str) -> TestCaseResult {
        TestCaseResult {
            class: class.into(),
            method: method.into(),
            status,
            seconds: 0.0,
            message: message.into(),
        }
    }

    fn ok(class: &str, method: &str) -> TestCaseResult {
        case(class, method, TestStatus::Passed, "")
    }

    fn judge(first: &[TestCaseResult], second: &[TestCaseResult], pov: &[TestName]) -> Baseline {
        let run = |cases| BaselineRun {
            exit: ExitKind::Code(1),
            cases,
            hung: &[],
        };
        judge_baseline(&[run(first), run(second)], pov)
    }

    /// Baselines outlive runs, so their key is the task state's content: an edited state (or a
    /// transformed one under the same id) gets its own, an unchanged copy finds the same one.
    #[test]
    fn the_baseline_key_follows_the_task_states_content() {
        let benchmark = avrlab_bench::Benchmark::open("demo").unwrap();
        let task = benchmark.task("demo-zip-slip").unwrap();
        let dir = tempfile::tempdir().unwrap();
        let (one, two) = (dir.path().join("one"), dir.path().join("two"));
        for state in [&one, &two] {
            std::fs::create_dir_all(state.join("src")).unwrap();
            std::fs::write(state.join("src/A.java"), "class A {}").unwrap();
        }
        let root = dir.path().join("baselines");
        let key = |state: &Path, jdk| baseline_path(&root, task, state, jdk).unwrap();
        assert_eq!(key(&one, 17), key(&two, 17));
        assert_ne!(key(&one, 17), key(&one, 21));
        std::fs::write(two.join("src/A.java"), "class A { int renamed; }").unwrap();
        assert_ne!(key(&one, 17), key(&two, 17));
    }

    /// Failing in both runs excludes a test; failing in one only makes it flaky (excluded too);
    /// passing or skipped in both keeps it. Names are per test, so the rest of a class counts.
    #[test]
    fn tests_not_passing_in_both_runs_are_excluded_and_round_trip() {
        let mockito = "org.mockito.exceptions.base.MockitoException: \nMockito cannot mock this \
                       class: class a.Q.\nMore lines";
        let first = [
            ok("a.T", "ok"),
            case("a.T", "ignored", TestStatus::Skipped, "off"),
            case(
                "a.T",
                "broken",
                TestStatus::Failed,
                "org.opentest4j.AssertionFailedError: no",
            ),
            case("a.T", "sometimes", TestStatus::Errored, ""),
            ok("a.P", "m"),
            case(
                "a.P",
                "m",
                TestStatus::Errored,
                "java.lang.IllegalStateException: third",
            ),
            case("a.J5", "shows a display name", TestStatus::Failed, "x"),
            case("a.M", "initializationError", TestStatus::Errored, mockito),
            case("a.T", "pov", TestStatus::Failed, "the PoV"),
        ];
        let second = [
            ok("a.T", "ok"),
            case("a.T", "ignored", TestStatus::Skipped, "off"),
            case(
                "a.T",
                "broken",
                TestStatus::Failed,
                "org.opentest4j.AssertionFailedError: no",
            ),
            ok("a.T", "sometimes"),
            ok("a.T", "late"),
            ok("a.P", "m"),
            case(
                "a.P",
                "m",
                TestStatus::Errored,
                "java.lang.IllegalStateException: third",
            ),
            case("a.J5", "shows a display name", TestStatus::Failed, "x"),
            case("a.M", "initializationError", TestStatus::Errored, mockito),
            case("a.T", "pov", TestStatus::Failed, "the PoV"),
        ];
        let pov = [TestName::parse("a.T#pov").unwrap()];
        let baseline = judge(&first, &second, &pov);
        let rows: Vec<String> = baseline
            .excluded
            .iter()
            .map(|e| {
                format!(
                    "{} {} {} | {}",
                    e.test,
                    e.statuses.join(","),
                    e.is_flaky(),
                    e.cause
                )
            })
            .collect();
        assert_eq!(
            rows,
            [
                "a.T#broken failed,failed false | org.opentest4j.AssertionFailedError: no",
                "a.T#sometimes errored,passed true | errored",
                "a.P#m errored,errored false | java.lang.IllegalStateException: third",
                "a.J5 failed,failed false | x",
                "a.M errored,errored false | org.mockito.exceptions.base.MockitoException: Mockito \
                 cannot mock this class: class a.Q.",
            ]
        );
        // a.T#ok, ignored, late; the three excluded methods; a.J5's and a.M's cases; not the PoV.
        assert_eq!(baseline.ran, 8);
        assert_eq!(baseline.counted, 3);
        assert_eq!(baseline.share(), "counts 3 of 8 tests (38%)");
        let names: Vec<String> = baseline.tests().iter().map(ToString::to_string).collect();
        assert_eq!(
            names,
            ["a.T#broken", "a.T#sometimes", "a.P#m", "a.J5", "a.M"]
        );
        assert_eq!(
            Baseline::from_text(&baseline.to_text()),
            Some(baseline.clone())
        );
        let groups = baseline.groups();
        let groups: Vec<(Option<&str>, usize)> = groups
            .iter()
            .map(|g| (g.cause.as_deref(), g.tests))
            .collect();
        assert_eq!(groups.len(), 5, "{groups:?}");
        assert_eq!(groups[4], (None, 1), "{groups:?}");
        let line = baseline.describe();
        assert!(!line.contains('\n'));
        assert!(
            line.starts_with(
                "baseline: 5 tests excluded (4 failing on the reference fix, 1 flaky over 2 runs), \
                 counts 3 of 8 tests (38%); only these are left out"
            ),
            "{line}"
        );
        assert!(
            line.contains("a.T#sometimes (flaky: errored, passed)"),
            "{line}"
        );
    }

    /// The tests the reference fix skipped in either run are kept by method (an invocation's
    /// name differs between runners) or class, so that a candidate may skip those and no other;
    /// skipped PoV tests, excluded tests and tests of a hung class are not among them.
    #[test]
    fn the_tests_the_reference_fix_skips_are_kept() {
        let first = [
            ok("a.T", "ok"),
            case("a.T", "ignored", TestStatus::Skipped, "off"),
            case("a.T", "late", TestStatus::Skipped, "assumption"),
            case("a.P", "p[1]", TestStatus::Passed, ""),
            case("a.P", "p[2]", TestStatus::Skipped, ""),
            case("a.D", "a.D", TestStatus::Skipped, "class disabled"),
            case("a.T", "flips", TestStatus::Skipped, ""),
            case("a.T", "pov", TestStatus::Skipped, "the PoV"),
        ];
        let second = [
            ok("a.T", "ok"),
            case("a.T", "ignored", TestStatus::Skipped, "off"),
            ok("a.T", "late"),
            case("a.P", "p[1]", TestStatus::Passed, ""),
            case("a.P", "p[2]", TestStatus::Skipped, ""),
            case("a.D", "a.D", TestStatus::Skipped, "class disabled"),
            case("a.T", "flips", TestStatus::Failed, "boom"),
            case("a.T", "pov", TestStatus::Skipped, "the PoV"),
        ];
        let baseline = judge(&first, &second, &[TestName::parse("a.T#pov").unwrap()]);
        let skipped: Vec<String> = baseline
            .skipped
            .iter()
            .flatten()
            .map(ToString::to_string)
            .collect();
        assert_eq!(skipped, ["a.T#ignored", "a.T#late", "a.P#p", "a.D"]);
        assert_eq!(
            Baseline::from_text(&baseline.to_text()),
            Some(baseline.clone())
        );
        // A baseline that judged no test knows nothing of skips, and keeps knowing nothing.
        let untaken = not_compiled(None);
        assert_eq!(untaken.skipped, None);
        assert_eq!(
            Baseline::from_text(&untaken.to_text()),
            Some(untaken.clone())
        );
        // A baseline that saw no skip says so (an empty list, not nothing known).
        let none_skipped = judge(&[ok("a.T", "ok")], &[ok("a.T", "ok")], &[]);
        assert_eq!(none_skipped.skipped, Some(Vec::new()));
        assert_eq!(
            Baseline::from_text(&none_skipped.to_text()),
            Some(none_skipped)
        );
        // Kept on disk, a baseline that judged no test is taken again; one that did is read back.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("b.txt");
        store(&path, &untaken).unwrap();
        assert_eq!(load(&path), None);
        store(&path, &baseline).unwrap();
        assert_eq!(load(&path), Some(baseline));
        // A format-2 file (no record of skips) is taken again, never read as "none skipped".
        assert_eq!(
            Baseline::from_text("avrlab-baseline 2\nran 1\ncounted 1\n"),
            None
        );
    }

    /// The same failure in several JVMs names other identity hashes: one group.
    #[test]
    fn causes_that_differ_in_identity_hashes_only_are_one_group() {
        let failing = |test: &str, cause: &str| Exclusion {
            test: TestName::parse(test).unwrap(),
            statuses: vec!["errored".into(), "errored".into()],
            cause: cause.into(),
        };
        let loader = |hash: &str| {
            format!(
                "java.lang.IllegalAccessError: class X loaded by org.powermock.core.classloader.MockClassLoader @{hash} cannot access Y"
            )
        };
        let baseline = Baseline {
            excluded: vec![
                failing("a.T#one", &loader("1c9975a8")),
                failing("a.T#two", &loader("20afd96f")),
                failing("a.T#three", "mail to root@localhost failed"),
                failing("a.T#four", "expected @deadbeefcafe"),
            ],
            ..Baseline::default()
        };
        let groups = baseline.groups();
        assert_eq!(groups.len(), 3, "{groups:?}");
        assert_eq!(groups[0].tests, 2);
        assert!(
            groups[0]
                .cause
                .as_deref()
                .unwrap()
                .contains("MockClassLoader @… cannot")
        );
        assert_eq!(
            groups[1].cause.as_deref(),
            Some("mail to root@localhost failed")
        );
        assert_eq!(groups[2].cause.as_deref(), Some("expected @deadbeefcafe"));
    }

    /// An invocation `m[3]` leaves out its method (Surefire filters by method name); a listed
    /// test goes when an exclusion covers it.
    #[test]
    fn an_invocation_excludes_its_method() {
        let baseline = Baseline {
            excluded: vec![Exclusion {
                test: TestName::parse("a.P#m[3]").unwrap(),
                statuses: vec!["failed".into(), "failed".into()],
                cause: "boom".into(),
            }],
            ran: 4,
            counted: 1,
            note: None,
            skipped: Some(vec![TestName::parse("a.P#off").unwrap()]),
            repairs: vec!["repair byte-buddy: kept: the baseline counts 1 of 4 regression tests with it, 0 of 4 without".into()],
            not_compiled: None,
        };
        assert_eq!(baseline.tests(), [TestName::parse("a.P#m").unwrap()]);
        // The repair decision is kept with the baseline.
        assert_eq!(
            Baseline::from_text(&baseline.to_text()),
            Some(baseline.clone())
        );
        for (listed, kept) in [
            ("a.P#m[1]", false),
            ("a.P#m", false),
            ("a.P", false),
            ("a.P#n", true),
        ] {
            assert_eq!(
                baseline.keeps(&TestName::parse(listed).unwrap()),
                kept,
                "{listed}"
            );
        }
        assert!(
            baseline
                .describe()
                .contains("a.P#m[3] (failed; its method)")
        );
    }

    /// A long list is counted, not named: the regression log's line stays readable.
    #[test]
    fn a_long_baseline_is_summarized_by_count() {
        let cases: Vec<TestCaseResult> = (0..40)
            .map(|i| {
                case(
                    "a.T",
                    &format!("t{i}"),
                    TestStatus::Errored,
                    "java.lang.Error: same",
                )
            })
            .collect();
        let baseline = judge(&cases, &cases, &[]);
        let line = baseline.describe();
        assert!(line.contains("and 34 more"), "{line}");
        assert!(line.len() < 400, "{line}");
        assert_eq!(
            baseline.groups(),
            [ExclusionGroup {
                cause: Some("java.lang.Error: same".into()),
                tests: 40
            }]
        );
    }

    /// Tests that did not pass on the reference fix in the reference check join the exclusions,
    /// with the baseline's two statuses and the check's, once each; a PoV test among them adds
    /// nothing, nor do more than a twentieth of the suite; the file keeps them.
    #[test]
    fn tests_failing_in_the_reference_check_are_excluded_once_and_kept() {
        let mut baseline = judge(
            &[ok("a.T", "x"), ok("a.T", "y"), ok("a.P", "pov")],
            &[ok("a.T", "x"), ok("a.T", "y"), ok("a.P", "pov")],
            &[TestName::parse("a.P#pov").unwrap()],
        );
        assert_eq!(baseline.counted, 2);
        let pov = [TestName::parse("a.P#pov").unwrap()];
        let failure = |class: &str, method: &str, statuses: &[&str]| ReferenceFailure {
            case: case(
                class,
                method,
                TestStatus::Errored,
                "java.net.ConnectException: refused",
            ),
            statuses: statuses
                .iter()
                .map(|s| Some(TestStatus::parse(s).unwrap()))
                .collect(),
        };
        let with_pov = [
            failure("a.T", "y", &["errored", "passed"]),
            failure("a.P", "pov", &["failed", "failed"]),
        ];
        assert!(
            !baseline.add_reference_failures(&with_pov, &pov),
            "a PoV test"
        );
        assert_eq!(baseline.counted, 2);
        let flaky = [failure("a.T", "y", &["errored", "passed"])];
        assert!(baseline.add_reference_failures(&flaky, &pov));
        assert!(!baseline.add_reference_failures(&flaky, &pov), "once");
        assert_eq!(baseline.counted, 1);
        assert_eq!(baseline.tests(), [TestName::parse("a.T#y").unwrap()]);
        let exclusion = &baseline.excluded[0];
        assert!(exclusion.is_flaky());
        assert_eq!(
            exclusion.statuses,
            ["passed", "passed", "errored", "passed"]
        );
        assert_eq!(exclusion.cause, "java.net.ConnectException: refused");
        assert!(
            baseline
                .describe()
                .contains("1 flaky over 2 runs and the reference check"),
            "{}",
            baseline.describe()
        );
        assert_eq!(
            Baseline::from_text(&baseline.to_text()),
            Some(baseline.clone())
        );
        // A class that failed in both runs of the phase (its set-up), named without a method.
        let class = [failure("a.U", "", &["errored", "errored"])];
        assert!(baseline.add_reference_failures(&class, &pov));
        assert_eq!(baseline.tests()[1], TestName::parse("a.U").unwrap());
        // Eleven at once in a suite of one counted test: more than ten.
        let many: Vec<ReferenceFailure> = (0..11)
            .map(|i| failure("a.V", &format!("m{i}"), &["failed", "failed"]))
            .collect();
        assert!(!baseline.add_reference_failures(&many, &pov));
    }

    /// A file of the first format is not read as this one: the baseline is taken again.
    #[test]
    fn an_older_baseline_file_is_not_misread() {
        assert_eq!(
            Baseline::from_text("avrlab-baseline 1\nran 3\nexcluded failed a.T#x\n"),
            None
        );
    }

    fn hung(class: &str) -> HungClass {
        HungClass {
            class: TestName::parse(class).unwrap(),
            cause: "hung: no CPU and no output for 300 s".into(),
        }
    }

    /// A class that hung a run is excluded whole, with its status in each run, and its methods'
    /// own results from an earlier run are not excluded a second time.
    #[test]
    fn a_class_that_hung_a_run_is_excluded_whole() {
        let (passing, hanging) = ([ok("a.T", "x")], [hung("a.H")]);
        let run = |cases, hung| BaselineRun {
            exit: ExitKind::Code(0),
            cases,
            hung,
        };
        let first_run = judge_baseline(&[run(&passing, &hanging), run(&passing, &[])], &[]);
        assert_eq!(
            first_run.excluded,
            vec![Exclusion {
                test: TestName::parse("a.H").unwrap(),
                statuses: vec!["hung".into(), "absent".into()],
                cause: "hung: no CPU and no output for 300 s".into(),
            }]
        );
        assert_eq!((first_run.ran, first_run.counted), (1, 1));
        assert_eq!(first_run.tests(), [TestName::parse("a.H").unwrap()]);

        let ran_then_hung = [
            ok("a.T", "x"),
            ok("a.H", "m"),
            case(
                "a.H",
                "n",
                TestStatus::Failed,
                "java.lang.AssertionError: no",
            ),
        ];
        let second_run = judge_baseline(&[run(&ran_then_hung, &[]), run(&passing, &hanging)], &[]);
        let statuses: Vec<_> = second_run.excluded.iter().map(|e| &e.statuses).collect();
        assert_eq!(statuses, [&vec!["failed".to_owned(), "hung".to_owned()]]);
        assert_eq!((second_run.ran, second_run.counted), (3, 1));
    }

    #[test]
    fn only_a_named_class_without_pov_tests_is_left_out_of_a_retry() {
        let run = |exit, log: &str| TestRun {
            exit,
            cases: Vec::new(),
            log: log.into(),
            wall: std::time::Duration::ZERO,
            enforcement: String::new(),
            tree_gone: true,
            unusable_reports: None,
            cpu_limit_reached: false,
        };
        let idle = ExitKind::Idle { seconds: 300 };
        let all = TestSelection::AllExcept(Vec::new());
        let pov = [TestName::parse("a.P#pov").unwrap()];
        assert_eq!(
            hung_class(&run(idle, "[INFO] Running a.H\n"), &all, &pov),
            Some(hung("a.H"))
        );
        assert_eq!(
            hung_class(&run(idle, "[INFO] Running a.P\n"), &all, &pov),
            None
        );
        assert_eq!(
            hung_class(&run(idle, "[INFO] Scanning\n"), &all, &pov),
            None
        );
        let listed = TestSelection::Only(vec![TestName::parse("a.H").unwrap()]);
        assert_eq!(
            hung_class(&run(idle, "[INFO] Running a.H\n"), &listed, &pov),
            None
        );
        let finished = run(ExitKind::Code(1), "[INFO] Running a.H\n");
        assert_eq!(hung_class(&finished, &all, &pov), None);
    }

    #[test]
    fn nothing_is_excluded_when_the_fix_does_not_build_or_a_run_is_killed() {
        let baseline = not_compiled(None);
        assert!(baseline.excluded.is_empty());
        assert!(baseline.describe().contains("does not compile"));
        let missing = "Non-resolvable parent POM for a:b:1.0: Could not find artifact a:p:pom:1.0";
        assert!(not_compiled(Some(missing)).describe().contains(missing));
        let cases = [case("a.T", "x", TestStatus::Failed, "")];
        let killed = judge_baseline(
            &[
                BaselineRun {
                    exit: ExitKind::Code(1),
                    cases: &cases,
                    hung: &[],
                },
                BaselineRun {
                    exit: ExitKind::TimedOut,
                    cases: &[],
                    hung: &[],
                },
            ],
            &[],
        );
        assert!(killed.excluded.is_empty());
        assert!(
            killed.describe().contains("baseline run 2 of 2 ended by"),
            "{}",
            killed.describe()
        );
    }
}
