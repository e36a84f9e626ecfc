//! Test sources that do not compile here, left out of a task state.
//!
//! An old project's tests may use what no JDK on this machine has: JDK-internal packages that
//! JDK 8's compiler still showed, JavaFX, which Oracle's JDK 8 carried, classes removed since
//! (`sun.misc.BASE64Encoder`). One such file stops the whole test compilation, and with it every
//! test of the suite. When a warm-up fails so, and every file the compiler names is a test source
//! that declares no PoV test class, those files are left out of the task state (removed from it)
//! and the warm-up runs again, for a few rounds at most (a left-out file's users may fail in
//! turn). Their tests do not count, like the baseline's exclusions. The files are recorded per
//! task state, beside the repair decisions, each with its first compile error; the build notes
//! and `bench check`'s table name them, and every later writing of the state leaves them out
//! again. A suite is not emptied this way: past a small share of its test sources, the
//! warm-up's failure stands.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use avrlab_bench::{DeclaredRoots, SourceRole, TestName};

/// The most warm-up attempts made with more test sources left out.
pub(crate) const MAX_ROUNDS: usize = 4;

/// The most test sources left out of a suite of `test_sources` files: a twentieth, or ten.
fn most_left_out(test_sources: usize) -> usize {
    (test_sources / 20).max(10)
}

/// The test sources left out of one task state: each file (relative to the state) with the first
/// error the compiler gave for it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct LeftOut {
    pub(crate) files: Vec<(String, String)>,
}

impl LeftOut {
    /// One line for the build notes and the baseline, or `None` when nothing is left out.
    pub(crate) fn describe(&self) -> Option<String> {
        let (first, first_error) = self.files.first()?;
        let more = match self.files.len() - 1 {
            0 => String::new(),
            n => format!("; and {n} more"),
        };
        Some(format!(
            "left out {}: the test compilation fails on them here, and their tests do not count ({first}: {first_error}{more})",
            avrlab_core::counted(self.files.len(), "test source file")
        ))
    }

    /// Removes the files from `state` (a sealed one too: each folder is made writable for the
    /// removal only). A file already gone is left out already.
    pub(crate) fn remove_from(&self, state: &Path) -> std::io::Result<()> {
        for (file, _) in &self.files {
            let path = state.join(file);
            let Ok(meta) = std::fs::symlink_metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let folder = path.parent().unwrap_or(state);
            let mode = std::fs::metadata(folder)?.permissions().mode();
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode | 0o700))?;
            let removed = std::fs::remove_file(&path);
            std::fs::set_permissions(folder, std::fs::Permissions::from_mode(mode))?;
            removed?;
        }
        Ok(())
    }

    fn to_text(&self) -> String {
        self.files
            .iter()
            .map(|(file, error)| format!("{file}\t{}\n", error.replace(['\t', '\n'], " ")))
            .collect()
    }

    fn from_text(text: &str) -> Self {
        let files = text
            .lines()
            .filter_map(|line| line.split_once('\t'))
            .filter(|(file, _)| is_relative_java(file))
            .map(|(file, error)| (file.to_owned(), error.to_owned()))
            .collect();
        Self { files }
    }
}

/// A path inside a state: relative, no `..`, a Java file.
fn is_relative_java(file: &str) -> bool {
    let path = Path::new(file);
    file.ends_with(".java")
        && path.is_relative()
        && path
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)))
}

/// Where what is left out of the task state keyed `key` is recorded.
pub(crate) fn record_path(root: &Path, task: &str, key: &str) -> PathBuf {
    root.join(format!("{task}-{key}-left-out-tests.txt"))
}

/// What was recorded for the state, or nothing left out.
pub(crate) fn load(path: &Path) -> LeftOut {
    std::fs::read_to_string(path)
        .map(|text| LeftOut::from_text(&text))
        .unwrap_or_default()
}

pub(crate) fn store(path: &Path, left_out: &LeftOut) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let partial = path.with_extension("partial");
    std::fs::write(&partial, left_out.to_text())?;
    std::fs::rename(partial, path)
}

/// The test sources a failed build's `log` names in its compile errors, to leave out of `state`
/// (the task state the build's `project` was copied from), with what `known` leaves out already:
/// `None` unless every file named is a test source of the state that declares no PoV test
/// class, at least one is new, and the suite keeps all but a small share of its test sources.
pub(crate) fn more_to_leave_out(
    log: &str,
    project: &Path,
    state: &Path,
    pov: &[TestName],
    known: &LeftOut,
) -> Option<LeftOut> {
    let named = avrlab_build::compile_error_files(log, project);
    if named.is_empty() {
        return None;
    }
    let roots = declared_roots(state);
    for (file, _) in &named {
        let text = std::fs::read_to_string(state.join(file)).ok()?;
        let placed = roots.place(file, &text)?;
        if placed.role != SourceRole::Test || pov.iter().any(|test| test.class == placed.class) {
            return None;
        }
    }
    let mut more = known.clone();
    let before = more.files.len();
    for (file, error) in named {
        if !more.files.iter().any(|(known, _)| *known == file) {
            more.files.push((file, error));
        }
    }
    let test_sources = test_sources(state, &roots);
    (more.files.len() > before && more.files.len() <= most_left_out(test_sources)).then_some(more)
}

/// The build files of `state` (poms and Ant files), read for their source roots.
fn declared_roots(state: &Path) -> DeclaredRoots {
    let files: Vec<(String, String)> = java_and_build_files(state)
        .into_iter()
        .filter(|rel| rel.ends_with("pom.xml") || rel.ends_with("build.xml"))
        .filter_map(|rel| Some((std::fs::read_to_string(state.join(&rel)).ok()?, rel)))
        .map(|(text, rel)| (rel, text))
        .collect();
    DeclaredRoots::read(files.iter().map(|(p, t)| (p.as_str(), t.as_str())))
}

/// How many Java files of `state` are test sources.
fn test_sources(state: &Path, roots: &DeclaredRoots) -> usize {
    java_and_build_files(state)
        .into_iter()
        .filter(|rel| rel.ends_with(".java"))
        .filter(|rel| {
            std::fs::read_to_string(state.join(rel))
                .ok()
                .and_then(|text| roots.place(rel, &text))
                .is_some_and(|placed| placed.role == SourceRole::Test)
        })
        .count()
}

/// The state's Java files and build files, relative, outside build output and `.git`.
fn java_and_build_files(state: &Path) -> Vec<String> {
    walkdir::WalkDir::new(state)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | "build" | ".git")))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let rel = e.path().strip_prefix(state).ok()?.to_str()?.to_owned();
            (rel.ends_with(".java") || rel.ends_with("pom.xml") || rel.ends_with("build.xml"))
                .then_some(rel)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A project with `tests` test sources under `src/test/java/a` and one main source.
    fn project(tests: usize) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("pom.xml"), "<project/>").unwrap();
        let main = dir.path().join("src/main/java/a");
        let test = dir.path().join("src/test/java/a");
        std::fs::create_dir_all(&main).unwrap();
        std::fs::create_dir_all(&test).unwrap();
        std::fs::write(main.join("Lib.java"), "package a;\nclass Lib {}\n").unwrap();
        for i in 0..tests {
            std::fs::write(
                test.join(format!("T{i}Test.java")),
                format!("package a;\nimport org.junit.Test;\nclass T{i}Test {{}}\n"),
            )
            .unwrap();
        }
        dir
    }

    fn log(project: &Path, files: &[&str]) -> String {
        files
            .iter()
            .map(|f| {
                format!(
                    "[ERROR] {}/{f}:[3,8] error: package sun.misc.X does not exist\n",
                    project.display()
                )
            })
            .collect()
    }

    fn pov() -> Vec<TestName> {
        vec![TestName::parse("a.T0Test#pov").unwrap()]
    }

    #[test]
    fn test_sources_that_do_not_compile_are_left_out_but_never_a_pov_class_or_main_code() {
        let state = project(30);
        let copy = Path::new("/w/warm-up/t");
        let named = log(
            copy,
            &["src/test/java/a/T1Test.java", "src/test/java/a/T2Test.java"],
        );
        let more = more_to_leave_out(&named, copy, state.path(), &pov(), &LeftOut::default())
            .expect("two test sources left out");
        assert_eq!(more.files.len(), 2);
        assert_eq!(more.files[0].0, "src/test/java/a/T1Test.java");
        assert!(
            more.describe()
                .unwrap()
                .starts_with("left out 2 test source files")
        );
        // The same files again: nothing new, so no second round.
        assert_eq!(
            more_to_leave_out(&named, copy, state.path(), &pov(), &more),
            None
        );
        // A PoV test class, or a main source, is never left out: the failure stands.
        let with_pov = log(
            copy,
            &["src/test/java/a/T3Test.java", "src/test/java/a/T0Test.java"],
        );
        assert_eq!(
            more_to_leave_out(&with_pov, copy, state.path(), &pov(), &more),
            None
        );
        let main = log(copy, &["src/main/java/a/Lib.java"]);
        assert_eq!(
            more_to_leave_out(&main, copy, state.path(), &pov(), &more),
            None
        );
        // Nor a file the state does not have, nor a log that names none.
        let gone = log(copy, &["src/test/java/a/Gone.java"]);
        assert_eq!(
            more_to_leave_out(&gone, copy, state.path(), &pov(), &more),
            None
        );
        assert_eq!(
            more_to_leave_out("BUILD FAILURE", copy, state.path(), &pov(), &more),
            None
        );
    }

    #[test]
    fn a_suite_is_not_emptied() {
        // 30 test sources: up to 10 may go (a twentieth is less); 11 is too many.
        let state = project(30);
        let copy = Path::new("/w/warm-up/t");
        let files: Vec<String> = (1..=11)
            .map(|i| format!("src/test/java/a/T{i}Test.java"))
            .collect();
        let names: Vec<&str> = files.iter().map(String::as_str).collect();
        let too_many = log(copy, &names);
        assert_eq!(
            more_to_leave_out(&too_many, copy, state.path(), &pov(), &LeftOut::default()),
            None
        );
        let enough = log(copy, &names[..10]);
        assert!(
            more_to_leave_out(&enough, copy, state.path(), &pov(), &LeftOut::default()).is_some()
        );
    }

    #[test]
    fn the_record_survives_a_round_trip_and_removal_works_in_a_sealed_state() {
        let state = project(3);
        let left_out = LeftOut {
            files: vec![(
                "src/test/java/a/T1Test.java".into(),
                "T1Test.java:[3,8] error: x".into(),
            )],
        };
        let path = record_path(state.path(), "t", "k");
        store(&path, &left_out).unwrap();
        assert_eq!(load(&path), left_out);
        // A record naming a path outside the state is not read.
        std::fs::write(&path, "../../etc/passwd.java\tx\n/abs/A.java\ty\n").unwrap();
        assert_eq!(load(&path), LeftOut::default());
        std::fs::remove_file(&path).unwrap();
        crate::cache_seal::seal_tree(state.path()).unwrap();
        left_out.remove_from(state.path()).unwrap();
        let test = state.path().join("src/test/java/a");
        assert!(!test.join("T1Test.java").exists());
        assert!(test.join("T2Test.java").exists());
        let mode = std::fs::metadata(&test).unwrap().permissions().mode();
        assert_eq!(mode & 0o200, 0, "the folder is sealed again");
        // Gone already: nothing to do.
        left_out.remove_from(state.path()).unwrap();
        for entry in walkdir::WalkDir::new(state.path())
            .into_iter()
            .filter_map(Result::ok)
        {
            if entry.file_type().is_dir() {
                std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o755))
                    .unwrap();
            }
        }
    }
}
