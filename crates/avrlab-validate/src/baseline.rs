//! The baseline run: which regression tests count, decided by running them on the reference fix.
//!
//! Real projects have tests that are `@Ignore`d, or that fail whatever the candidate does (a
//! network test, a test broken by a newer JDK). Like SWE-bench's PASS_TO_PASS, a regression test
//! counts only if it passes (or is skipped) on the reference fix; the classes of the others are
//! excluded from every regression run of the task (Surefire excludes whole classes; see
//! `TestSelection::AllExcept`) and recorded, with their status on the fix, in a baseline file (kept in avrlab's cache, keyed by
//! the task state's content) and in each verdict's regression log. The PoV tests are never excluded.

use std::path::{Path, PathBuf};

use avrlab_bench::{BuildSystem, RegressionTests, Task, TestName};
use avrlab_exec::{ExitKind, Maven, TestSelection, TestStatus};

/// The first line of a baseline file, so that an older format is recomputed, never misread.
const HEADER: &str = "avrlab-baseline 1";

/// The regression tests excluded for a task, with why.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline {
    /// `(test, its status on the reference fix)`.
    pub excluded: Vec<(TestName, String)>,
    /// How many regression tests the baseline run reported.
    pub ran: usize,
    /// A note when no baseline could be taken (no reference fix; it does not compile).
    pub note: Option<String>,
}

impl Baseline {
    /// The excluded tests.
    pub fn tests(&self) -> Vec<TestName> {
        self.excluded.iter().map(|(t, _)| t.clone()).collect()
    }

    /// One line for logs and tables.
    pub fn describe(&self) -> String {
        if let Some(note) = &self.note {
            return format!("baseline: {note}");
        }
        if self.excluded.is_empty() {
            return format!(
                "baseline: all {} regression tests pass on the reference fix",
                self.ran
            );
        }
        let list: Vec<String> = self
            .excluded
            .iter()
            .map(|(t, s)| format!("{t} ({s})"))
            .collect();
        format!(
            "baseline: {} of {} tests fail on the reference fix; their classes are left out of the regression runs: {}",
            self.excluded.len(),
            self.ran,
            list.join(", ")
        )
    }

    fn to_text(&self) -> String {
        let mut text = format!("{HEADER}\nran {}\n", self.ran);
        if let Some(note) = &self.note {
            text.push_str(&format!("note {note}\n"));
        }
        for (test, status) in &self.excluded {
            text.push_str(&format!("excluded {status} {test}\n"));
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
                "note" => baseline.note = Some(rest.to_owned()),
                "excluded" => {
                    let (status, test) = rest.split_once(' ')?;
                    baseline
                        .excluded
                        .push((TestName::parse(test).ok()?, status.to_owned()));
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
    let system = match task.build.system {
        BuildSystem::Maven => "maven",
    };
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
    for part in parts {
        hasher.update((part.len() as u64).to_le_bytes());
        hasher.update(part.as_bytes());
    }
    let key = hex::encode(&hasher.finalize()[..12]);
    Ok(root.join(format!("{}-{key}.txt", task.id)))
}

/// Reads a stored baseline, if there is a readable one.
pub(crate) fn load(path: &Path) -> Option<Baseline> {
    Baseline::from_text(&std::fs::read_to_string(path).ok()?)
}

pub(crate) fn store(path: &Path, baseline: &Baseline) -> std::io::Result<()> {
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)?;
    }
    let tmp = path.with_extension("partial");
    std::fs::write(&tmp, baseline.to_text())?;
    std::fs::rename(tmp, path)
}

/// What happened in a baseline workspace, for [`judge_baseline`].
pub(crate) struct BaselineRun<'a> {
    pub compiled: bool,
    pub exit: ExitKind,
    pub cases: &'a [avrlab_exec::TestCaseResult],
}

/// Turns a baseline run into exclusions. A test reported as not passing is excluded by name; a
/// name that is not a valid test name (some JUnit 5 display names) excludes its class.
pub(crate) fn judge_baseline(run: &BaselineRun<'_>, pov: &[TestName]) -> Baseline {
    if !run.compiled {
        return Baseline {
            note: Some("the reference fix does not compile; no test is excluded".into()),
            ..Baseline::default()
        };
    }
    if !matches!(run.exit, ExitKind::Code(_)) {
        return Baseline {
            note: Some(format!(
                "the baseline run ended by {:?}; no test is excluded",
                run.exit
            )),
            ..Baseline::default()
        };
    }
    let mut excluded: Vec<(TestName, String)> = Vec::new();
    for case in run.cases {
        // Skipped tests never count against a candidate, so they need no exclusion; PoV tests
        // are never excluded (a fix that fails them is not Plausible anyway).
        if matches!(case.status, TestStatus::Passed | TestStatus::Skipped)
            || pov.iter().any(|p| p.covers(&case.class, &case.method))
        {
            continue;
        }
        let name = TestName::parse(&format!("{}#{}", case.class, case.method))
            .or_else(|_| TestName::parse(&case.class));
        if let Ok(name) = name
            && !excluded.iter().any(|(t, _)| *t == name)
        {
            excluded.push((name, case.status.as_str().to_owned()));
        }
    }
    Baseline {
        excluded,
        ran: run.cases.len(),
        note: None,
    }
}

/// Runs the baseline in `root` (a fresh folder): the pristine state with the reference fix
/// applied, compiled, and every regression test but the PoV tests run.
pub(crate) fn run_baseline(
    task: &Task,
    maven: &Maven,
    pristine: &Path,
    root: &Path,
) -> Result<Baseline, crate::validator::ValidateError> {
    use crate::validator::ValidateError;
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
    let maven_err = |source| ValidateError::Maven {
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
        return Ok(judge_baseline(
            &BaselineRun {
                compiled: false,
                exit: compiled.exit,
                cases: &[],
            },
            &task.oracle.pov_tests,
        ));
    }
    let selection = match &task.oracle.regression_tests {
        RegressionTests::AllOthers => TestSelection::AllExcept(Vec::new()),
        RegressionTests::Listed(list) => TestSelection::Only(list.clone()),
    };
    let run = maven
        .test(&ws, &selection, &root.join("reports"))
        .map_err(maven_err)?;
    if let Some(problem) = &run.unusable_reports {
        return Ok(Baseline {
            note: Some(format!(
                "the baseline run's reports are unusable ({problem}); no test is excluded"
            )),
            ..Baseline::default()
        });
    }
    Ok(judge_baseline(
        &BaselineRun {
            compiled: true,
            exit: run.exit,
            cases: &run.cases,
        },
        &task.oracle.pov_tests,
    ))
}

#[cfg(test)]
mod tests {
    use avrlab_exec::TestCaseResult;

    use super::*;

    fn case(class: &str, method: &str, status: TestStatus) -> TestCaseResult {
        TestCaseResult {
            class: class.into(),
            method: method.into(),
            status,
            seconds: 0.0,
            message: String::new(),
        }
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

    #[test]
    fn tests_not_passing_on_the_fix_are_excluded_and_round_trip() {
        let cases = [
            case("a.T", "ok", TestStatus::Passed),
            case("a.T", "ignored", TestStatus::Skipped),
            case("a.T", "broken", TestStatus::Failed),
            case("a.P", "m[3]", TestStatus::Errored),
            case("a.J5", "shows a display name", TestStatus::Failed),
        ];
        let pov = [TestName::parse("a.T#pov").unwrap()];
        let mut cases = cases.to_vec();
        cases.push(case("a.T", "pov", TestStatus::Failed));
        let baseline = judge_baseline(
            &BaselineRun {
                compiled: true,
                exit: ExitKind::Code(1),
                cases: &cases,
            },
            &pov,
        );
        let names: Vec<String> = baseline.tests().iter().map(ToString::to_string).collect();
        assert_eq!(names, ["a.T#broken", "a.P#m[3]", "a.J5"]);
        assert_eq!(baseline.ran, 6);
        assert_eq!(Baseline::from_text(&baseline.to_text()), Some(baseline));
    }

    #[test]
    fn nothing_is_excluded_when_the_fix_does_not_build() {
        let baseline = judge_baseline(
            &BaselineRun {
                compiled: false,
                exit: ExitKind::Code(1),
                cases: &[],
            },
            &[],
        );
        assert!(baseline.excluded.is_empty());
        assert!(baseline.describe().contains("does not compile"));
    }
}
