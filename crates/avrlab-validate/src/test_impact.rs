//! Class-level test-impact selection for the fast path, after the idea of Ekstazi (Gligoric,
//! Eloussi and Marinov, ISSTA 2015): a test class whose run loaded none of the classes a
//! candidate changes executed none of their code, so it behaves on the candidate as on the task
//! state and cannot tell the candidate anything. The record is taken once per task state, in its
//! priming JVM: each regression test class runs alone in a fresh class loader, which notes every
//! project class it defines. A candidate then runs only the test classes whose record names one
//! of its compiled classes, and all of them whenever anything makes that unsafe. Maven, which
//! confirms every fast `Plausible` and `RegressionBroken`, always runs the whole suite.

use std::collections::BTreeSet;
use std::path::Path;

use avrlab_build::{CompiledClasses, RegressionScope, TestClassLoads};

/// The first line of a record file; a record of another layout is not read.
const HEADER: &str = "avrlab class dependence 2";

/// The name of the record in a kept fast build's folder (which is keyed by the task state's
/// content and where the sandbox shows the repository).
pub const RECORD_FILE: &str = ".avrlab-class-dependence";

/// Which project classes each regression test class of one task state loaded.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClassDependence {
    /// What the record was taken on: the task state's fingerprint and the helper's version.
    pub state: String,
    pub test_classes: Vec<TestClassLoads>,
}

impl ClassDependence {
    /// The record at `path`, if there is one of this layout. A missing or unreadable record is
    /// `None`: it is taken again.
    pub fn load(path: &Path) -> Option<Self> {
        let text = std::fs::read_to_string(path).ok()?;
        let mut lines = text.lines();
        if lines.next()? != HEADER {
            return None;
        }
        let state = lines.next()?.strip_prefix("state\t")?.to_owned();
        let mut test_classes = Vec::new();
        let mut complete = false;
        for line in lines {
            let f: Vec<&str> = line.split('\t').collect();
            match f.as_slice() {
                ["test", class, clean, loaded] => test_classes.push(TestClassLoads {
                    class: (*class).to_owned(),
                    clean: *clean == "clean",
                    loaded: loaded
                        .split(',')
                        .filter(|c| !c.is_empty())
                        .map(str::to_owned)
                        .collect(),
                }),
                ["end", count] => complete = count.parse() == Ok(test_classes.len()),
                _ => return None,
            }
        }
        complete.then_some(Self {
            state,
            test_classes,
        })
    }

    /// Writes the record to `path` whole or not at all (a written file is renamed into place).
    pub fn save(&self, path: &Path) -> std::io::Result<()> {
        let mut text = format!("{HEADER}\nstate\t{}\n", self.state);
        for test in &self.test_classes {
            text.push_str(&format!(
                "test\t{}\t{}\t{}\n",
                test.class,
                if test.clean { "clean" } else { "unclean" },
                test.loaded.join(",")
            ));
        }
        text.push_str(&format!("end\t{}\n", self.test_classes.len()));
        let partial = avrlab_core::partial_path(path);
        std::fs::write(&partial, text)?;
        std::fs::rename(&partial, path)
    }
}

/// What a candidate changes, as the selection sees it.
#[derive(Debug, Clone)]
pub struct CandidateChange<'a> {
    /// The classes its files compiled to, as the resident validator's compiler reported them.
    pub compiled: &'a CompiledClasses,
    /// Source files it creates (the task state has no such file).
    pub new_files: &'a [String],
}

/// The regression tests a candidate runs, and why, for its verdict's log.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ImpactSelection {
    pub scope: RegressionScope,
    pub evidence: String,
}

fn run_all(why: String) -> ImpactSelection {
    ImpactSelection {
        scope: RegressionScope::All,
        evidence: format!("regression: every test class run, none left out ({why})"),
    }
}

/// Decides which regression test classes a candidate runs on the task state `state` (its
/// fingerprint with the helper's version, as the record keeps them).
/// `record` is the task state's record, or why there is none.
pub fn select(
    record: Result<&ClassDependence, &str>,
    state: &str,
    change: &CandidateChange<'_>,
) -> ImpactSelection {
    let record = match record {
        Ok(record) => record,
        Err(why) => return run_all(format!("no class-dependence record: {why}")),
    };
    if record.state != state {
        return run_all(
            "the class-dependence record is of another task state or helper version".into(),
        );
    }
    if let Some(file) = change.new_files.first() {
        return run_all(format!(
            "the candidate adds {file}, which the record cannot know"
        ));
    }
    if change.compiled.recompiled_all {
        return run_all(
            "the candidate changes an API other classes were compiled against, so every class \
             was recompiled"
                .into(),
        );
    }
    let changed: BTreeSet<&str> = change.compiled.classes.iter().map(String::as_str).collect();
    if changed.is_empty() {
        return run_all("the compiler reported no class for the candidate's files".into());
    }
    let total = record.test_classes.len();
    if total == 0 {
        return run_all("the record names no regression test class".into());
    }
    let loads = |test: &TestClassLoads| test.loaded.iter().any(|c| changed.contains(c.as_str()));
    let selected: Vec<String> = record
        .test_classes
        .iter()
        .filter(|t| loads(t))
        .map(|t| t.class.clone())
        .collect();
    // A test class that failed or stopped early at recording may not have reached every class
    // it would load in a clean run: a changed class that no record names could be one of those.
    let named: BTreeSet<&str> = record
        .test_classes
        .iter()
        .flat_map(|t| t.loaded.iter().map(String::as_str))
        .collect();
    let unnamed = changed.iter().find(|c| !named.contains(*c));
    let unclean = record.test_classes.iter().find(|t| !t.clean);
    if let (Some(class), Some(test)) = (unnamed, unclean) {
        return run_all(format!(
            "{class} was loaded by no test class, and {} did not finish cleanly when the record \
             was taken",
            test.class
        ));
    }
    if selected.is_empty() {
        // No regression test can tell anything about the candidate; rather than a verdict that
        // rests on no regression test at all, the whole suite runs.
        return run_all(format!(
            "none of the {total} test classes loaded one of the {} changed classes",
            changed.len()
        ));
    }
    ImpactSelection {
        evidence: format!(
            "regression: {} of {total} test classes selected by class dependence ({} changed \
             classes)",
            selected.len(),
            changed.len()
        ),
        scope: RegressionScope::Classes(selected),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn test_class(class: &str, clean: bool, loaded: &[&str]) -> TestClassLoads {
        TestClassLoads {
            class: class.into(),
            clean,
            loaded: loaded.iter().map(|c| (*c).to_owned()).collect(),
        }
    }

    fn record() -> ClassDependence {
        ClassDependence {
            state: "s1".into(),
            test_classes: vec![
                test_class(
                    "a.ZipTest",
                    true,
                    &["a.Zip", "a.Zip$Entry", "a.Util", "a.ZipTest"],
                ),
                test_class("a.TarTest", true, &["a.Tar", "a.Util", "a.TarTest"]),
                test_class("a.JarTest", true, &["a.Jar", "a.Zip", "a.JarTest"]),
            ],
        }
    }

    fn compiled(classes: &[&str], recompiled_all: bool) -> CompiledClasses {
        CompiledClasses {
            classes: classes.iter().map(|c| (*c).to_owned()).collect(),
            recompiled_all,
        }
    }

    fn pick(
        record: Result<&ClassDependence, &str>,
        classes: &[&str],
        recompiled_all: bool,
        new_files: &[String],
    ) -> ImpactSelection {
        let compiled = compiled(classes, recompiled_all);
        select(
            record,
            "s1",
            &CandidateChange {
                compiled: &compiled,
                new_files,
            },
        )
    }

    #[test]
    fn only_the_test_classes_that_loaded_a_changed_class_run() {
        let record = record();
        let chosen = pick(Ok(&record), &["a.Zip", "a.Zip$Entry"], false, &[]);
        assert_eq!(
            chosen.scope,
            RegressionScope::Classes(vec!["a.ZipTest".into(), "a.JarTest".into()])
        );
        assert_eq!(
            chosen.evidence,
            "regression: 2 of 3 test classes selected by class dependence (2 changed classes)"
        );
        // A nested class counts on its own: only ZipTest loaded Zip$Entry.
        let chosen = pick(Ok(&record), &["a.Zip$Entry"], false, &[]);
        assert_eq!(
            chosen.scope,
            RegressionScope::Classes(vec!["a.ZipTest".into()])
        );
    }

    #[test]
    fn everything_runs_when_the_selection_would_be_unsafe() {
        let record = record();
        let all = |chosen: ImpactSelection, because: &str| {
            assert_eq!(chosen.scope, RegressionScope::All, "{}", chosen.evidence);
            assert!(chosen.evidence.contains(because), "{}", chosen.evidence);
        };
        all(
            pick(Err("priming timed out"), &["a.Zip"], false, &[]),
            "priming timed out",
        );
        all(
            pick(
                Ok(&record),
                &["a.Zip", "a.New"],
                false,
                &["src/main/java/a/New.java".to_owned()],
            ),
            "adds src/main/java/a/New.java",
        );
        all(pick(Ok(&record), &["a.Zip"], true, &[]), "recompiled");
        all(pick(Ok(&record), &[], false, &[]), "no class");
        let other = ClassDependence {
            state: "s0".into(),
            ..record.clone()
        };
        all(
            pick(Ok(&other), &["a.Zip"], false, &[]),
            "another task state",
        );
        let empty = ClassDependence {
            state: "s1".into(),
            test_classes: Vec::new(),
        };
        all(
            pick(Ok(&empty), &["a.Zip"], false, &[]),
            "no regression test class",
        );
        // Nothing loads the changed class: no verdict rests on zero regression tests.
        all(
            pick(Ok(&record), &["a.Orphan"], false, &[]),
            "none of the 3",
        );
    }

    #[test]
    fn an_unnamed_changed_class_runs_everything_only_when_a_record_is_unclean() {
        let mut record = record();
        // A new nested class of a changed file, next to one the records name: clean records
        // show that every test class ran to its end without it.
        let chosen = pick(Ok(&record), &["a.Tar", "a.Tar$2"], false, &[]);
        assert_eq!(
            chosen.scope,
            RegressionScope::Classes(vec!["a.TarTest".into()])
        );
        record.test_classes[2].clean = false;
        let chosen = pick(Ok(&record), &["a.Tar", "a.Tar$2"], false, &[]);
        assert_eq!(chosen.scope, RegressionScope::All);
        assert!(
            chosen
                .evidence
                .contains("a.Tar$2 was loaded by no test class")
                && chosen.evidence.contains("a.JarTest did not finish cleanly"),
            "{}",
            chosen.evidence
        );
        // Every changed class named: an unclean record elsewhere does not matter.
        let chosen = pick(Ok(&record), &["a.Tar"], false, &[]);
        assert_eq!(
            chosen.scope,
            RegressionScope::Classes(vec!["a.TarTest".into()])
        );
    }

    #[test]
    fn a_record_is_read_back_whole_or_not_at_all() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(RECORD_FILE);
        let mut record = record();
        record.test_classes[1].clean = false;
        record.save(&path).unwrap();
        assert_eq!(ClassDependence::load(&path), Some(record.clone()));
        // Cut short (a crash while writing by hand, a truncated copy): not used.
        let text = std::fs::read_to_string(&path).unwrap();
        let cut: String = text.lines().take(3).map(|l| format!("{l}\n")).collect();
        std::fs::write(&path, cut).unwrap();
        assert_eq!(ClassDependence::load(&path), None);
        std::fs::write(&path, text.replace(HEADER, "avrlab class dependence 0")).unwrap();
        assert_eq!(ClassDependence::load(&path), None);
        assert_eq!(ClassDependence::load(&dir.path().join("absent")), None);
    }
}
