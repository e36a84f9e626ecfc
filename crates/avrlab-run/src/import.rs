//! Turning dataset rows (Vul4J, VJBench) into task folders, from the fixing commit in a mirror.
//!
//! The task state follows the datasets' convention: the fixing commit, with its main-source
//! changes reverted and its test changes kept. The importer computes both diffs from the mirror,
//! so each task folder is complete on its own: `task.toml` (git URL, full commit,
//! `state.revert = ["reference.diff"]`) and `reference.diff` (main sources only). A row whose
//! repository has no mirror here is refused with the way to supply one; nothing about it is written.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use avrlab_bench::{
    BuildSpec, BuildSystem, BuildTargets, DatasetKind, DatasetRow, HunkLine, Localization,
    ManifestProject, MethodSpan, Patch, Provenance, RegressionTests, RowBuild, RowRefusal, Task,
    TaskKind, TaskManifest, TestName, VulLocation, VulnerableFile, choose_localization,
    dataset_location,
};
use avrlab_exec::{GitError, Repository, mirror_path};

/// Why a row was refused: it cannot be driven here, or the row itself is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RefusalKind {
    /// A row avrlab cannot drive (a row without PoV tests, an unknown build system).
    Unsupported,
    /// The repository has no mirror here (and importing never clones).
    NoMirror,
    /// The row is wrong: a commit the repository lacks, a PoV test that does not exist.
    BadRow,
}

/// One refused row.
#[derive(Debug, Clone)]
pub struct Refused {
    pub dataset_id: String,
    pub kind: RefusalKind,
    pub reason: String,
}

/// What an import did.
#[derive(Debug, Default)]
pub struct ImportSummary {
    pub imported: Vec<String>,
    pub refused: Vec<Refused>,
}

impl ImportSummary {
    /// One line per refused row, then the totals (the output of `avrlab bench import`).
    pub fn render(&self, kind: DatasetKind, out: &Path) -> String {
        let mut text = String::new();
        for r in &self.refused {
            text.push_str(&format!("refused {}: {}\n", r.dataset_id, r.reason));
        }
        text.push_str(&format!(
            "{}: {} rows turned into tasks in {}, {} refused ({} not drivable by avrlab, {} without a mirror here, {} bad rows)\n",
            kind.as_str(),
            self.imported.len(),
            out.display(),
            self.refused.len(),
            self.count(RefusalKind::Unsupported),
            self.count(RefusalKind::NoMirror),
            self.count(RefusalKind::BadRow)
        ));
        text
    }

    /// Rows avrlab cannot drive or has no mirror for leave the other rows usable; a malformed
    /// row, or nothing imported at all, is bad input.
    pub fn is_bad_input(&self) -> bool {
        self.count(RefusalKind::BadRow) > 0 || self.imported.is_empty()
    }

    fn count(&self, kind: RefusalKind) -> usize {
        self.refused.iter().filter(|r| r.kind == kind).count()
    }
}

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportConfig {
    pub kind: DatasetKind,
    pub mirrors: PathBuf,
    pub out: PathBuf,
    /// Scratch space for git views of the mirrors.
    pub scratch: PathBuf,
    /// The records of `vul_location.json` (empty when there is none): the dataset's buggy lines,
    /// used where they fit the vulnerable file (`avrlab_bench::choose_localization`).
    pub locations: Vec<VulLocation>,
}

/// Imports `rows` into `config.out`, one folder per row, and lists what was refused.
pub fn import_rows(
    config: &ImportConfig,
    rows: &[DatasetRow],
    dataset_refusals: &[RowRefusal],
) -> std::io::Result<ImportSummary> {
    let mut summary = ImportSummary::default();
    for refusal in dataset_refusals {
        summary.refused.push(Refused {
            dataset_id: refusal.dataset_id.clone(),
            kind: if refusal.reason.contains("SpotBugs") {
                RefusalKind::Unsupported
            } else {
                RefusalKind::BadRow
            },
            reason: refusal.reason.clone(),
        });
    }
    std::fs::create_dir_all(&config.out)?;
    for row in rows {
        match import_row(config, row) {
            Ok(()) => summary.imported.push(row.task_id.clone()),
            Err((kind, reason)) => summary.refused.push(Refused {
                dataset_id: row.dataset_id.clone(),
                kind,
                reason,
            }),
        }
    }
    Ok(summary)
}

type RowResult<T> = Result<T, (RefusalKind, String)>;

fn bad(reason: impl Into<String>) -> (RefusalKind, String) {
    (RefusalKind::BadRow, reason.into())
}

fn git_bad(error: GitError) -> (RefusalKind, String) {
    bad(error.to_string())
}

/// A main-source file: Java under a `src/main/java` folder (of the root or of a module).
fn is_main_source(path: &str) -> bool {
    path.ends_with(".java")
        && (path.starts_with("src/main/java/") || path.contains("/src/main/java/"))
}

/// A test source file: Java under a `src/test/java` folder.
fn is_test_source(path: &str) -> bool {
    path.ends_with(".java")
        && (path.starts_with("src/test/java/") || path.contains("/src/test/java/"))
}

/// The build system, module and targets of a dataset row's task.
fn build_of(build: &RowBuild) -> (BuildSystem, String, Option<BuildTargets>) {
    match build {
        RowBuild::Maven { module } => (BuildSystem::Maven, module.clone(), None),
        RowBuild::Gradle => (
            BuildSystem::Gradle,
            ".".to_owned(),
            Some(BuildTargets {
                compile: "testClasses".into(),
                test: "test".into(),
            }),
        ),
        RowBuild::Ant { compile, test } => (
            BuildSystem::Ant,
            ".".to_owned(),
            Some(BuildTargets {
                compile: compile.clone(),
                test: test.clone(),
            }),
        ),
    }
}

fn import_row(config: &ImportConfig, row: &DatasetRow) -> RowResult<()> {
    let (_, module, _) = build_of(&row.build);
    let scratch = config.scratch.join(&row.task_id);
    let _ = std::fs::remove_dir_all(&scratch);
    let repo = match Repository::open_mirror(&row.repo_url, &config.mirrors, &scratch) {
        Ok(Some(repo)) => repo,
        Ok(None) => {
            return Err((
                RefusalKind::NoMirror,
                format!(
                    "no mirror of {} (commit {}) here: expected {}; run `avrlab mirror fetch --benchmark {}` where GitHub is reachable, or put a bare clone there",
                    row.repo_url,
                    row.commit,
                    mirror_path(&row.repo_url, &config.mirrors).display(),
                    config.kind.as_str()
                ),
            ));
        }
        Err(e) => return Err(git_bad(e)),
    };
    let result = build_task(config, row, &repo, &module);
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

fn build_task(
    config: &ImportConfig,
    row: &DatasetRow,
    repo: &Repository,
    module: &str,
) -> RowResult<()> {
    let mut notes = Vec::new();
    let commit = repo.resolve(&row.commit).map_err(git_bad)?;
    if commit != row.commit {
        notes.push(format!(
            "the dataset's commit {} resolved to {commit}",
            row.commit
        ));
    }
    let parents = repo.parents(&commit).map_err(git_bad)?;
    let parent = parents
        .first()
        .cloned()
        .ok_or_else(|| bad(format!("commit {commit} has no parent in the mirror")))?;
    if parents.len() > 1 {
        notes.push(format!(
            "{commit} is a merge; its first parent {parent} is the base"
        ));
    }
    let changed = repo.changed_files(&parent, &commit).map_err(git_bad)?;
    let main: Vec<String> = changed
        .iter()
        .filter(|p| is_main_source(p))
        .cloned()
        .collect();
    if main.is_empty() {
        return Err(bad(format!(
            "the fix {commit} changes no main source file (src/main/java)"
        )));
    }
    let module = infer_module(module, &main, &mut notes);
    let module = module.as_str();
    let diff_text = repo.diff(&parent, &commit, &main).map_err(git_bad)?;
    let reference =
        Patch::parse(&diff_text).map_err(|e| bad(format!("the fix's diff cannot be read: {e}")))?;

    let pov_tests = match &row.pov_tests {
        Some(tests) => tests.clone(),
        None => {
            notes.push(
                "the dataset lists no PoV test: the test methods the fix adds or changes are the PoV tests"
                    .into(),
            );
            derived_pov_tests(repo, &commit, &parent, &changed)?
        }
    };
    check_pov_tests_exist(repo, &commit, module, &pov_tests)?;

    let derived = localize(repo, &parent, &reference)?;
    let lookup = dataset_location(config.kind, row, &config.locations);
    notes.extend(lookup.notes);
    let choice = match &lookup.location {
        Some(location) => {
            // The dataset names the file from the repository root, as the fix's diff does; a
            // file the fix does not change cannot be the vulnerable one.
            let path = reference
                .files
                .iter()
                .find(|f| !f.created && f.old_path == location.file)
                .map(|f| f.old_path.clone());
            let facts = match &path {
                Some(path) => Some(vulnerable_file(repo, &parent, path)?),
                None => None,
            };
            let file = facts
                .as_ref()
                .zip(path.as_deref())
                .map(|((count, methods), path)| VulnerableFile {
                    path,
                    line_count: *count,
                    methods,
                });
            choose_localization(Some(location), file.as_ref(), derived, &mut notes)
        }
        None => choose_localization(None, None, derived, &mut notes),
    };
    let localization = choice.localization;
    let jdk = match row.jdk {
        Some(jdk) => jdk,
        None => {
            notes.push("the dataset gives no JDK: 8, the one its study used".into());
            8
        }
    };
    let mut main_roots: Vec<String> = main
        .iter()
        .filter_map(|p| {
            let at = p.find("src/main/java/")?;
            Some(format!("{}src/main/java/**/*.java", &p[..at]))
        })
        .collect();
    main_roots.sort();
    main_roots.dedup();

    let description = match (&row.cve, &row.cwe_name) {
        (Some(cve), Some(name)) => format!("{cve} in {}: {name}.", row.repo_url),
        (Some(cve), None) => format!("{cve} in {}.", row.repo_url),
        (None, _) => format!("A vulnerability in {} fixed by {commit}.", row.repo_url),
    };
    let manifest = TaskManifest {
        id: row.task_id.clone(),
        kind: TaskKind::Repair,
        cve: row.cve.clone(),
        cwe: row.cwe.clone(),
        description,
        project: ManifestProject::Git {
            url: row.repo_url.clone(),
            commit: commit.clone(),
        },
        build: BuildSpec {
            system: build_of(&row.build).0,
            jdk,
            module: PathBuf::from(module),
            extra_args: row.maven_args.clone(),
            targets: build_of(&row.build).2,
            older_api: None,
        },
        revert: vec![PathBuf::from("reference.diff")],
        pov_tests,
        regression_tests: RegressionTests::AllOthers,
        localization,
        reference: Some(PathBuf::from("reference.diff")),
        editable: (main_roots != ["src/main/java/**/*.java"]).then_some(main_roots),
        provenance: Some(Provenance {
            dataset: config.kind.as_str().to_owned(),
            dataset_id: row.dataset_id.clone(),
            localization: Some(choice.source),
            notes,
        }),
        feature: None,
    };
    write_task_folder(&config.out, &row.task_id, &manifest.to_toml(), &diff_text)
}

/// The module of a row whose dataset names none (`.`) but whose fix changes the main sources of
/// exactly one module of a multi-module build (`datetime/src/main/java/…` → `datetime`): the PoV
/// tests live beside them. A dataset's own module is kept as given.
fn infer_module(module: &str, main_sources: &[String], notes: &mut Vec<String>) -> String {
    if module != "." {
        return module.to_owned();
    }
    let in_modules = main_sources.iter().all(|p| p.contains("/src/main/java/"));
    let mut modules: Vec<&str> = main_sources
        .iter()
        .filter_map(|p| p.find("/src/main/java/").map(|at| &p[..at]))
        .collect();
    modules.sort_unstable();
    modules.dedup();
    match modules.as_slice() {
        [only] if in_modules => {
            notes.push(format!(
                "the dataset names no module; the fix changes the main sources of module {only}, so the task builds and tests that module"
            ));
            (*only).to_owned()
        }
        _ => module.to_owned(),
    }
}

/// Writes the folder under a temporary name, checks that it loads, then moves it into place, so
/// a refused row leaves nothing behind.
fn write_task_folder(out: &Path, id: &str, toml: &str, diff: &str) -> RowResult<()> {
    let tmp = out.join(format!(".{id}.partial"));
    let io = |e: std::io::Error| bad(format!("cannot write {}: {e}", tmp.display()));
    let _ = std::fs::remove_dir_all(&tmp);
    std::fs::create_dir_all(&tmp).map_err(io)?;
    std::fs::write(tmp.join("task.toml"), toml).map_err(io)?;
    std::fs::write(tmp.join("reference.diff"), diff).map_err(io)?;
    if let Err(e) = Task::load(&tmp.join("task.toml")) {
        let _ = std::fs::remove_dir_all(&tmp);
        return Err(bad(format!("the written task does not load: {e}")));
    }
    let dest = out.join(id);
    let _ = std::fs::remove_dir_all(&dest);
    std::fs::rename(&tmp, &dest).map_err(io)
}

/// The class name of a test source: the path after `src/test/java/`, dots for slashes.
fn class_of(path: &str) -> Option<String> {
    let at = path.find("src/test/java/")?;
    let rel = path[at + "src/test/java/".len()..].strip_suffix(".java")?;
    Some(rel.replace('/', "."))
}

/// The line ranges of a file diff on one side: runs of removed (old side) or added (new side)
/// lines, and insertion points (`(n, n - 1)`) where the other side only adds.
fn changed_ranges(hunks: &[avrlab_bench::Hunk], old_side: bool) -> Vec<(u32, u32)> {
    let mut ranges = Vec::new();
    for hunk in hunks {
        let mut line = if old_side {
            hunk.old_start
        } else {
            hunk.new_start
        };
        let mut run: Option<(u32, u32)> = None;
        let mut touched = false;
        let flush = |run: &mut Option<(u32, u32)>,
                     touched: &mut bool,
                     line: u32,
                     ranges: &mut Vec<(u32, u32)>| {
            if let Some(r) = run.take() {
                ranges.push(r);
            } else if *touched {
                ranges.push((line, line.saturating_sub(1)));
            }
            *touched = false;
        };
        for l in &hunk.lines {
            let (mine, other) = match (l, old_side) {
                (HunkLine::Remove(_), true) | (HunkLine::Add(_), false) => (true, false),
                (HunkLine::Add(_), true) | (HunkLine::Remove(_), false) => (false, true),
                _ => (false, false),
            };
            if mine {
                run = Some(match run {
                    Some((a, _)) => (a, line),
                    None => (line, line),
                });
                line += 1;
            } else if other {
                touched = true;
            } else {
                flush(&mut run, &mut touched, line, &mut ranges);
                line += 1;
            }
        }
        flush(&mut run, &mut touched, line, &mut ranges);
    }
    ranges
}

/// `[[localization]]` from the reference fix: each changed range of the vulnerable file (the
/// parent's, since only main sources are reverted), grouped by the method that encloses it.
fn localize(repo: &Repository, parent: &str, reference: &Patch) -> RowResult<Vec<Localization>> {
    let mut found: BTreeMap<(String, u32), Localization> = BTreeMap::new();
    for file in &reference.files {
        if file.created {
            continue;
        }
        let text = repo.show(parent, &file.old_path).map_err(git_bad)?;
        let source = avrlab_java::parse(&text);
        for (a, b) in changed_ranges(&file.hunks, true) {
            let range = avrlab_java::LineRange::new(a as usize, b as usize);
            let Some(method) = avrlab_java::enclosing_method(&source, range) else {
                continue;
            };
            let (start, end) = (method.lines.start as u32, method.lines.end as u32);
            found
                .entry((file.old_path.clone(), start))
                .or_insert_with(|| Localization {
                    file: file.old_path.clone(),
                    method: method.name.clone(),
                    method_lines: (start, end),
                    hunks: Vec::new(),
                })
                .hunks
                .push((a, b));
        }
    }
    Ok(found.into_values().collect())
}

/// The line count and the methods of a file of the vulnerable tree (the parent's, as in `localize`).
fn vulnerable_file(
    repo: &Repository,
    parent: &str,
    path: &str,
) -> RowResult<(u32, Vec<MethodSpan>)> {
    let text = repo.show(parent, path).map_err(git_bad)?;
    let source = avrlab_java::parse(&text);
    let methods = avrlab_java::methods(&source)
        .into_iter()
        .map(|m| MethodSpan {
            name: m.name,
            lines: (m.lines.start as u32, m.lines.end as u32),
        })
        .collect();
    let count = u32::try_from(text.lines().count()).unwrap_or(u32::MAX);
    Ok((count, methods))
}

/// The test methods (annotated `@Test` or `@ParameterizedTest`, or JUnit 3 `test…` methods) of
/// `text`, the new side of a test file, that `hunks` add or change, in the order found. Lines
/// added or changed count for every method they reach (one hunk may add several test methods, as
/// jackson-databind's fix of #1737 does); lines only removed count for the method they were
/// removed from, never for its neighbours.
fn changed_test_methods(text: &str, hunks: &[avrlab_bench::Hunk]) -> Vec<String> {
    let source = avrlab_java::parse(text);
    let all_methods = avrlab_java::methods(&source);
    let mut names: Vec<String> = Vec::new();
    for (a, b) in changed_ranges(hunks, false) {
        let range = avrlab_java::LineRange::new(a as usize, b as usize);
        let touched: Vec<avrlab_java::MethodLocation> = if range.is_insertion() {
            avrlab_java::enclosing_method(&source, range)
                .into_iter()
                .collect()
        } else {
            all_methods
                .iter()
                .filter(|m| m.lines.touches(range))
                .cloned()
                .collect()
        };
        for method in touched {
            let head = &text
                [method.bytes.start..method.body.as_ref().map_or(method.bytes.end, |b| b.start)];
            let is_test = head.contains("@Test")
                || head.contains("@ParameterizedTest")
                || method.name.starts_with("test");
            if is_test && !names.contains(&method.name) {
                names.push(method.name);
            }
        }
    }
    names
}

/// PoV tests for a dataset that lists none: the test methods (annotated `@Test`, or JUnit 3
/// `test…` methods) that the fix adds or changes.
fn derived_pov_tests(
    repo: &Repository,
    commit: &str,
    parent: &str,
    changed: &[String],
) -> RowResult<Vec<TestName>> {
    let mut tests = Vec::new();
    for path in changed.iter().filter(|p| is_test_source(p)) {
        let Some(class) = class_of(path) else {
            continue;
        };
        let diff = repo
            .diff(parent, commit, std::slice::from_ref(path))
            .map_err(git_bad)?;
        let Ok(patch) = Patch::parse(&diff) else {
            continue;
        };
        let Ok(text) = repo.show(commit, path) else {
            continue;
        };
        for file in &patch.files {
            for method in changed_test_methods(&text, &file.hunks) {
                if let Ok(name) = TestName::parse_method(&format!("{class}#{method}"))
                    && !tests.contains(&name)
                {
                    tests.push(name);
                }
            }
        }
    }
    if tests.is_empty() {
        return Err(bad(
            "the dataset lists no PoV test and the fix adds or changes no test method",
        ));
    }
    Ok(tests)
}

/// Every PoV test's class must exist in the fixed tree's test sources and name the method.
fn check_pov_tests_exist(
    repo: &Repository,
    commit: &str,
    module: &str,
    tests: &[TestName],
) -> RowResult<()> {
    for test in tests {
        let outer = test.class.split('$').next().unwrap_or(&test.class);
        let rel = format!("src/test/java/{}.java", outer.replace('.', "/"));
        let path = if module == "." {
            rel
        } else {
            format!("{module}/{rel}")
        };
        let text = repo.show(commit, &path).map_err(|_| {
            bad(format!(
                "PoV test {test} does not exist: no {path} at {commit}"
            ))
        })?;
        let method = test.method.as_deref().unwrap_or("");
        let base = method.split(['[', '(']).next().unwrap_or(method);
        if !text.contains(&format!("{base}(")) {
            return Err(bad(format!(
                "PoV test {test} does not exist: {path} at {commit} has no method {base}"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_row_without_module_takes_the_one_module_its_fix_changes() {
        let mut notes = Vec::new();
        let one = ["datetime/src/main/java/a/B.java".to_owned()];
        assert_eq!(infer_module(".", &one, &mut notes), "datetime");
        assert_eq!(notes.len(), 1, "the inference is recorded");
        let two = [
            "datetime/src/main/java/a/B.java".to_owned(),
            "joda/src/main/java/a/C.java".to_owned(),
        ];
        assert_eq!(infer_module(".", &two, &mut notes), ".");
        let mixed = [
            "src/main/java/a/B.java".to_owned(),
            "m/src/main/java/a/C.java".to_owned(),
        ];
        assert_eq!(infer_module(".", &mixed, &mut notes), ".");
        let root = ["src/main/java/a/B.java".to_owned()];
        assert_eq!(infer_module(".", &root, &mut notes), ".");
        assert_eq!(infer_module("core", &one, &mut notes), "core");
        assert_eq!(notes.len(), 1);
    }

    #[test]
    fn changed_ranges_mark_replacements_and_insertions() {
        let patch = Patch::parse(
            "--- a/A.java\n+++ b/A.java\n@@ -1,6 +1,6 @@\n a\n-b\n+B\n c\n+new\n d\n e\n-f\n",
        )
        .unwrap();
        let hunks = &patch.files[0].hunks;
        assert_eq!(changed_ranges(hunks, true), [(2, 2), (4, 3), (6, 6)]);
        assert_eq!(changed_ranges(hunks, false), [(2, 2), (4, 4), (7, 6)]);
    }

    /// A hunk that adds two test methods at once yields both (before, a range spanning several
    /// methods yielded none), and not the helper it adds; a changed line inside one yields it.
    #[test]
    fn every_test_method_a_hunk_adds_or_changes_is_found() {
        let new = "class T {\n  public void testOld() {\n    b();\n  }\n\n  public void testKept() {\n    k();\n  }\n\n  @Test\n  public void added1() {\n    x();\n  }\n\n  public void testAdded2() {\n    y();\n  }\n\n  private void helper() {\n  }\n}\n";
        let diff = "--- a/T.java\n+++ b/T.java\n\
            @@ -2,4 +2,3 @@\n   public void testOld() {\n-    a();\n-    gone();\n+    b();\n   }\n\
            @@ -9,2 +8,14 @@\n   }\n+\n+  @Test\n+  public void added1() {\n+    x();\n+  }\n+\n\
            +  public void testAdded2() {\n+    y();\n+  }\n+\n+  private void helper() {\n+  }\n }\n";
        let patch = Patch::parse(diff).unwrap();
        assert_eq!(
            changed_test_methods(new, &patch.files[0].hunks),
            ["testOld", "added1", "testAdded2"]
        );
    }

    #[test]
    fn sorts_main_and_test_sources() {
        assert!(is_main_source("src/main/java/a/B.java"));
        assert!(is_main_source("core/src/main/java/a/B.java"));
        assert!(!is_main_source("src/test/java/a/BTest.java"));
        assert!(!is_main_source("src/main/resources/x.properties"));
        assert!(is_test_source("m/src/test/java/a/BTest.java"));
        assert_eq!(
            class_of("m/src/test/java/a/BTest.java").as_deref(),
            Some("a.BTest")
        );
    }
}
