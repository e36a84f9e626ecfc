//! Turning dataset rows (Vul4J, VJBench) into task folders, from the fixing commit in a mirror.
//!
//! The task state follows the datasets' convention: the fixing commit, with its main-source
//! changes reverted and its test changes kept. The importer computes both diffs from the mirror,
//! so each task folder is complete on its own: `task.toml` (git URL, full commit,
//! `state.revert = ["reference.diff"]`) and `reference.diff` (main sources only). A row whose
//! repository has no mirror here is refused with the way to supply one; nothing about it is written.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use avrlab_bench::{
    BuildSpec, BuildSystem, BuildTargets, DatasetKind, DatasetRow, DeclaredRoots, HunkLine,
    JavaSource, Localization, LocationLookup, ManifestProject, MethodSpan, Patch, Provenance,
    RefusalKind, RegressionTests, RowBuild, RowRefusal, SourceRole, Task, TaskDates, TaskKind,
    TaskManifest, TestName, VulLocation, VulnerableFile, choose_localization, dataset_location,
};
use avrlab_exec::{GitError, Repository, mirror_path};

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
    /// One line per refused row, with its class, then the totals (the output of `avrlab bench
    /// import`).
    pub fn render(&self, kind: DatasetKind, out: &Path) -> String {
        let mut text = String::new();
        for r in &self.refused {
            text.push_str(&format!(
                "refused {} ({}): {}\n",
                r.dataset_id,
                r.kind.describe(),
                r.reason
            ));
        }
        let classes: Vec<String> = RefusalKind::ALL
            .iter()
            .map(|k| format!("{} {}", self.count(*k), k.describe()))
            .collect();
        text.push_str(&format!(
            "{}: {} rows turned into tasks in {}, {} refused ({})\n",
            kind.as_str(),
            self.imported.len(),
            out.display(),
            self.refused.len(),
            classes.join(", ")
        ));
        text
    }

    /// Refused rows leave the other rows usable, whatever their class; nothing imported at all
    /// is bad input.
    pub fn is_bad_input(&self) -> bool {
        self.imported.is_empty()
    }

    fn count(&self, kind: RefusalKind) -> usize {
        self.refused.iter().filter(|r| r.kind == kind).count()
    }
}

/// How to import.
#[derive(Debug, Clone)]
pub struct ImportConfig {
    /// The dataset the rows come from; `None` for a fix commit the user names (`bench new`).
    pub kind: Option<DatasetKind>,
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
            kind: refusal.kind,
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
    (RefusalKind::DatasetInconsistent, reason.into())
}

/// A commit the mirror lacks is this machine's gap (mirrors here are shallow copies of a few
/// commits), not the dataset's; any other git failure reading the mirror is the row's.
fn git_bad(error: GitError) -> (RefusalKind, String) {
    match error {
        GitError::UnknownCommit { .. } => (RefusalKind::NoMirror, error.to_string()),
        other => bad(other.to_string()),
    }
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

/// Maven flags that skip the plug-ins which check a build without compiling or testing it: a
/// Java-version enforcer rule, a style or licence check, a coverage agent or a signature fails a
/// build on a JDK or machine the project never knew, and says nothing about a candidate.
const VERIFICATION_SKIPS: [&str; 15] = [
    "-Denforcer.skip=true",
    "-Dcheckstyle.skip=true",
    "-Dpmd.skip=true",
    "-Dcpd.skip=true",
    "-Dfindbugs.skip=true",
    "-Dspotbugs.skip=true",
    "-Drat.skip=true",
    "-Dlicense.skip=true",
    "-Danimal.sniffer.skip=true",
    "-Djacoco.skip=true",
    "-Dgpg.skip=true",
    "-Dmaven.javadoc.skip=true",
    "-Drevapi.skip=true",
    "-Djapicmp.skip=true",
    "-Dspotless.check.skip=true",
];

/// The provenance of a task made from a fix commit the user names, with no dataset behind it.
pub(crate) const FIX_COMMIT_ORIGIN: &str = "fix commit (avrlab bench new)";

/// A fix commit the user names (`avrlab bench new`), made into a task folder in `config.out` by
/// the importers' own path: `row` carries what the user gave (PoV tests, CVE, CWEs; no build, which
/// is read from the project), and `local` the repository folder when it is not a mirror.
pub fn import_fix_commit(
    config: &ImportConfig,
    row: &DatasetRow,
    local: Option<&Path>,
) -> Result<(), Refused> {
    let scratch = config.scratch.join(&row.task_id);
    let mut row = row.clone();
    let result = open_repository(config, &row, local, &scratch).and_then(|repo| {
        row.build = detect_build(&repo, &row.commit)?;
        build_task(config, &row, &repo)
    });
    let _ = std::fs::remove_dir_all(&scratch);
    result.map_err(|(kind, reason)| Refused {
        dataset_id: row.dataset_id.clone(),
        kind,
        reason,
    })
}

/// The build system of a project at `commit`, from the build file at its root: a `pom.xml`
/// (Maven, from the root), a `build.gradle[.kts]` (Gradle) or a `build.xml` (Ant, whose test
/// target is the one named for tests: `test`, `junit`, `tests`).
fn detect_build(repo: &Repository, commit: &str) -> RowResult<RowBuild> {
    let commit = repo.resolve(commit).map_err(git_bad)?;
    let files = repo.files(&commit).map_err(git_bad)?;
    let at_root = |name: &str| files.iter().any(|f| f == name);
    if at_root("pom.xml") {
        return Ok(RowBuild::Maven { module: ".".into() });
    }
    if at_root("build.gradle") || at_root("build.gradle.kts") {
        return Ok(RowBuild::Gradle);
    }
    if at_root("build.xml") {
        let text = repo.show(&commit, "build.xml").map_err(git_bad)?;
        let targets = ant_targets(&text);
        let pick = |names: &[&str]| {
            names
                .iter()
                .find(|n| targets.iter().any(|t| t == *n))
                .map(|n| (*n).to_owned())
        };
        let test = pick(&["test", "junit", "tests", "unit-test"]).ok_or_else(|| {
            (
                RefusalKind::CannotDrive,
                format!(
                    "build.xml at {commit} has no test target avrlab recognizes (test, junit, tests, unit-test); it has {}",
                    targets.join(", ")
                ),
            )
        })?;
        let compile = pick(&["compile", "build", "jar"]).unwrap_or_else(|| test.clone());
        return Ok(RowBuild::Ant { compile, test });
    }
    Err((
        RefusalKind::CannotDrive,
        format!(
            "{commit} has no pom.xml, build.gradle or build.xml at its root: no build avrlab can drive"
        ),
    ))
}

/// The names of an Ant build file's targets, read as XML.
fn ant_targets(text: &str) -> Vec<String> {
    use quick_xml::events::Event;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut names = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) if e.local_name().as_ref() == "target" => {
                if let Some(name) = e
                    .attributes()
                    .flatten()
                    .find(|a| a.key.local_name().as_ref() == "name")
                    .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
                {
                    names.push(name.into_owned());
                }
            }
            Ok(Event::Eof) | Err(_) => return names,
            Ok(_) => {}
        }
    }
}

fn import_row(config: &ImportConfig, row: &DatasetRow) -> RowResult<()> {
    let scratch = config.scratch.join(&row.task_id);
    let result = open_repository(config, row, None, &scratch)
        .and_then(|repo| build_task(config, row, &repo));
    let _ = std::fs::remove_dir_all(&scratch);
    result
}

/// The row's repository, read in the new folder `scratch`: the folder `local` when given, else
/// its mirror in `config.mirrors` (a row without one is refused with where to put it).
fn open_repository(
    config: &ImportConfig,
    row: &DatasetRow,
    local: Option<&Path>,
    scratch: &Path,
) -> RowResult<Repository> {
    let _ = std::fs::remove_dir_all(scratch);
    if let Some(dir) = local {
        return Repository::open_local(&row.repo_url, dir, scratch).map_err(git_bad);
    }
    match Repository::open_mirror(&row.repo_url, &config.mirrors, scratch) {
        Ok(Some(repo)) => Ok(repo),
        Ok(None) => Err((
            RefusalKind::NoMirror,
            format!(
                "no mirror of {} (commit {}) here: expected {}; run `avrlab mirror fetch --benchmark {}` where GitHub is reachable, or put a bare clone there",
                row.repo_url,
                row.commit,
                mirror_path(&row.repo_url, &config.mirrors).display(),
                config.kind.map_or("<folder>", DatasetKind::as_str)
            ),
        )),
        Err(e) => Err(git_bad(e)),
    }
}

fn build_task(config: &ImportConfig, row: &DatasetRow, repo: &Repository) -> RowResult<()> {
    let mut notes = Vec::new();
    let commit = repo.resolve(&row.commit).map_err(git_bad)?;
    if commit != row.commit {
        notes.push(format!(
            "the dataset's commit {} resolved to {commit}",
            row.commit
        ));
    }
    let (fix_authored, fix_committed) = repo.commit_dates(&commit).map_err(git_bad)?;
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
    let layout = Layout::read(repo, &commit)?;
    let mut main: Vec<(String, JavaSource)> = Vec::new();
    let mut test_files: Vec<(String, JavaSource)> = Vec::new();
    for path in changed.iter().filter(|p| p.ends_with(".java")) {
        // A file the fix deletes is placed from the parent's copy.
        let Ok(text) = repo
            .show(&commit, path)
            .or_else(|_| repo.show(&parent, path))
        else {
            continue;
        };
        match layout.roots.place(path, &text) {
            Some(source) if source.role == SourceRole::Main => main.push((path.clone(), source)),
            Some(source) => test_files.push((path.clone(), source)),
            None => {}
        }
    }
    if main.is_empty() {
        let shown: Vec<&str> = changed.iter().take(5).map(String::as_str).collect();
        return Err((
            RefusalKind::CannotDrive,
            format!(
                "the fix {commit} changes no main Java source (it changes {}{}): a repair task needs one",
                shown.join(", "),
                if changed.len() > shown.len() {
                    ", …"
                } else {
                    ""
                }
            ),
        ));
    }
    let main_paths: Vec<String> = main.iter().map(|(p, _)| p.clone()).collect();
    let diff_text = repo.diff(&parent, &commit, &main_paths).map_err(git_bad)?;
    let reference =
        Patch::parse(&diff_text).map_err(|e| bad(format!("the fix's diff cannot be read: {e}")))?;

    let pov_tests = match &row.pov_tests {
        Some(tests) => tests.clone(),
        None => {
            notes.push(
                "the dataset lists no PoV test: the test methods the fix adds or changes are the PoV tests"
                    .into(),
            );
            derived_pov_tests(repo, &commit, &parent, &test_files)
                .map_err(|e| at_dataset_copy(e, row, "the fix adds or changes no test method"))?
        }
    };
    let located = locate_pov_tests(repo, &commit, &layout, &pov_tests, &mut notes)
        .map_err(|e| at_dataset_copy(e, row, "the fix commit lacks it"))?;
    let (module, pov_tests) = choose_module(row, &layout, &main, located, &mut notes);
    let module = module.as_str();

    let derived = localize(repo, &parent, &reference)?;
    let lookup = match config.kind {
        Some(kind) => dataset_location(kind, row, &config.locations),
        None => LocationLookup::default(),
    };
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
        .map(|(_, source)| match source.root.as_str() {
            "." => "**/*.java".to_owned(),
            root => format!("{root}/**/*.java"),
        })
        .collect();
    main_roots.sort();
    main_roots.dedup();

    let maven_args = if row.maven_args.is_empty() && matches!(row.build, RowBuild::Maven { .. }) {
        notes.push(
            "the dataset gives no Maven flags: the task skips the verification plug-ins that neither compile nor test (enforcer, checkstyle, PMD, SpotBugs, licence, signing, coverage), as Vul4J's rows do"
                .into(),
        );
        VERIFICATION_SKIPS.iter().map(|f| (*f).to_owned()).collect()
    } else {
        row.maven_args.clone()
    };
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
            extra_args: maven_args,
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
            dataset: config
                .kind
                .map_or(FIX_COMMIT_ORIGIN, DatasetKind::as_str)
                .to_owned(),
            dataset_id: row.dataset_id.clone(),
            localization: Some(choice.source),
            notes,
        }),
        // Neither Vul4J nor VJBench states when a CVE was published: that date stays empty.
        dates: TaskDates {
            fix_authored: Some(fix_authored),
            fix_committed: Some(fix_committed),
            cve_published: None,
        },
        feature: None,
    };
    write_task_folder(&config.out, &row.task_id, &manifest.to_toml(), &diff_text)
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
    let marks_tests = text.contains("@Test") || text.contains("@ParameterizedTest");
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
            // JUnit 4 and 5 mark tests; the naming rule (a public `test…()` without
            // parameters) is JUnit 3's, and holds only in a file that marks none: a helper
            // named `testInMemoryObject(byte[], File)` beside `@Test` methods is no test, nor
            // is a private or static `test…()` (Bouncy Castle's `SimpleTest` programs call
            // theirs from `performTest()`; JUnit cannot run one on its own).
            let word = |w: &str| head.split(|c: char| !c.is_alphanumeric()).any(|x| x == w);
            let is_test = head.contains("@Test")
                || head.contains("@ParameterizedTest")
                || (!marks_tests
                    && method.name.starts_with("test")
                    && head.contains(&format!("{}()", method.name))
                    && word("public")
                    && !word("static"));
            if is_test && !names.contains(&method.name) {
                names.push(method.name);
            }
        }
    }
    names
}

/// PoV tests for a dataset that lists none: the test methods (annotated `@Test`, or JUnit 3
/// `test…` methods) that the fix adds or changes in its test sources.
fn derived_pov_tests(
    repo: &Repository,
    commit: &str,
    parent: &str,
    test_files: &[(String, JavaSource)],
) -> RowResult<Vec<TestName>> {
    let mut tests = Vec::new();
    for (path, source) in test_files {
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
                if let Ok(name) = TestName::parse_method(&format!("{}#{method}", source.class))
                    && !tests.contains(&name)
                {
                    tests.push(name);
                }
            }
        }
    }
    if tests.is_empty() {
        return Err((
            RefusalKind::PovNotAtFix,
            "the dataset lists no PoV test".into(),
        ));
    }
    Ok(tests)
}

/// A refusal for a PoV test the fix commit lacks, naming where the dataset keeps its own copy
/// of the task (and so, probably, the test): Vul4J's `VUL4J-n` branch, VJBench's repository.
fn at_dataset_copy(
    (kind, reason): (RefusalKind, String),
    row: &DatasetRow,
    detail: &str,
) -> (RefusalKind, String) {
    if kind != RefusalKind::PovNotAtFix {
        return (kind, reason);
    }
    let copy = match &row.dataset_copy {
        Some(copy) => format!(
            "; the dataset keeps its own copy of the task in {copy}, which has no mirror here"
        ),
        None => String::new(),
    };
    (kind, format!("{reason} and {detail}{copy}"))
}

/// The project's tree at the fix, read once: its files, the source roots its build files
/// declare, and the folders that hold a Maven module.
struct Layout {
    files: Vec<String>,
    roots: DeclaredRoots,
    modules: BTreeSet<String>,
}

impl Layout {
    fn read(repo: &Repository, commit: &str) -> RowResult<Self> {
        let files = repo.files(commit).map_err(git_bad)?;
        let build_files: Vec<(String, String)> = files
            .iter()
            .filter(|p| matches!(p.rsplit('/').next(), Some("pom.xml" | "build.xml")))
            .filter_map(|p| repo.show(commit, p).ok().map(|text| (p.clone(), text)))
            .collect();
        let roots = DeclaredRoots::read(build_files.iter().map(|(p, t)| (p.as_str(), t.as_str())));
        let modules = files
            .iter()
            .filter_map(|p| match p.rsplit_once('/') {
                Some((dir, "pom.xml")) => Some(dir.to_owned()),
                None if p == "pom.xml" => Some(".".to_owned()),
                _ => None,
            })
            .collect();
        Ok(Self {
            files,
            roots,
            modules,
        })
    }

    /// The Maven module holding `path`: its nearest folder with a `pom.xml` (`.` for the root,
    /// and for projects without poms).
    fn module_of(&self, path: &str) -> String {
        let mut dir = path;
        while let Some((parent, _)) = dir.rsplit_once('/') {
            if self.modules.contains(parent) {
                return parent.to_owned();
            }
            dir = parent;
        }
        ".".to_owned()
    }
}

/// A PoV test found in the fixed tree: the file that declares its class.
struct LocatedTest {
    test: TestName,
    path: String,
}

/// Finds every PoV test's class among the fixed tree's test sources, wherever its module (the
/// fix and its tests may sit in different modules), and checks that it names the method.
fn locate_pov_tests(
    repo: &Repository,
    commit: &str,
    layout: &Layout,
    tests: &[TestName],
    notes: &mut Vec<String>,
) -> RowResult<Vec<LocatedTest>> {
    let mut located = Vec::new();
    for test in tests {
        let outer = test.class.split('$').next().unwrap_or(&test.class);
        let file = format!("{}.java", outer.replace('.', "/"));
        // The class as its source declares it; a dataset may write a package in another case
        // (Vul4J's `org.OWASP.esapi…` for ESAPI's `org.owasp.esapi…`), which no JVM would find.
        let mut found: Option<(String, String, String)> = None;
        for exact in [true, false] {
            for path in layout.files.iter().filter(|p| {
                let tail = &p[p.len().saturating_sub(file.len())..];
                let same = if exact {
                    tail == file
                } else {
                    tail.eq_ignore_ascii_case(&file)
                };
                same && (p.len() == file.len() || p.as_bytes()[p.len() - file.len() - 1] == b'/')
            }) {
                let Ok(text) = repo.show(commit, path) else {
                    continue;
                };
                if let Some(source) = layout.roots.place(path, &text)
                    && source.role == SourceRole::Test
                    && source.class.eq_ignore_ascii_case(outer)
                {
                    found = Some((path.clone(), text, source.class));
                    break;
                }
            }
            if found.is_some() {
                break;
            }
        }
        let Some((path, text, declared)) = found else {
            return Err((
                RefusalKind::PovNotAtFix,
                format!(
                    "PoV test {test} does not exist at {commit}: no test source declares {outer}"
                ),
            ));
        };
        let mut test = test.clone();
        if declared != outer {
            let note = format!(
                "the dataset writes the PoV test class {outer}; its source at the fix declares {declared}, the name the task uses"
            );
            if !notes.contains(&note) {
                notes.push(note);
            }
            test.class = format!("{declared}{}", &test.class[outer.len()..]);
        }
        let method = test.method.as_deref().unwrap_or("");
        let base = method.split(['[', '(']).next().unwrap_or(method);
        if !text.contains(&format!("{base}(")) {
            return Err((
                RefusalKind::PovNotAtFix,
                format!("PoV test {test} does not exist at {commit}: {path} has no method {base}"),
            ));
        }
        located.push(LocatedTest { test, path });
    }
    Ok(located)
}

/// The module a task builds and tests. A Maven row's own module is kept. Otherwise, the module
/// of the PoV tests, which may differ from the fix's (Elide: the fix in `elide-core`, an
/// integration test in `elide-integration-tests`; Maven's reactor builds the fix's module from
/// the workspace); when the PoV tests span several modules, the one holding most of them, and
/// the others are left out, in the notes. Gradle and Ant rows build from the root.
fn choose_module(
    row: &DatasetRow,
    layout: &Layout,
    main: &[(String, JavaSource)],
    located: Vec<LocatedTest>,
    notes: &mut Vec<String>,
) -> (String, Vec<TestName>) {
    let all: Vec<TestName> = located.iter().map(|l| l.test.clone()).collect();
    let (_, given, _) = build_of(&row.build);
    if !matches!(row.build, RowBuild::Maven { .. }) {
        return (given, all);
    }
    let mut by_module: BTreeMap<String, Vec<TestName>> = BTreeMap::new();
    for l in &located {
        by_module
            .entry(layout.module_of(&l.path))
            .or_default()
            .push(l.test.clone());
    }
    if given != "." {
        if by_module.contains_key(&given) || by_module.is_empty() {
            return (given, all);
        }
        notes.push(format!(
            "the dataset names module {given}, which holds none of its PoV tests at the fix commit"
        ));
    }
    let Some((module, tests)) = by_module
        .iter()
        .max_by_key(|(module, tests)| (tests.len(), std::cmp::Reverse((*module).clone())))
        .map(|(m, t)| (m.clone(), t.clone()))
    else {
        return (given, all);
    };
    if by_module.len() > 1 {
        let dropped: Vec<String> = by_module
            .iter()
            .filter(|(m, _)| **m != module)
            .flat_map(|(m, t)| t.iter().map(move |t| format!("{t} ({m})")))
            .collect();
        notes.push(format!(
            "the PoV tests span several modules; the task tests module {module}, which holds most of them, and leaves out {}",
            dropped.join(", ")
        ));
    }
    if module != "." && module != given {
        let fix_modules: BTreeSet<String> = main.iter().map(|(p, _)| layout.module_of(p)).collect();
        let fix_modules: Vec<&str> = fix_modules.iter().map(String::as_str).collect();
        notes.push(format!(
            "the PoV tests are in module {module} (the fix changes {}), so the task builds and tests that module",
            fix_modules.join(", ")
        ));
    }
    (module, tests)
}

#[cfg(test)]
mod tests {
    use super::*;

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
        // The file marks its tests, so only marked methods are tests.
        assert_eq!(changed_test_methods(new, &patch.files[0].hunks), ["added1"]);
        // Without any annotation in the file, JUnit 3's names count, parameters excluded.
        let junit3 = "class T extends TestCase {\n  public void testA() {\n    b();\n  }\n  public void testHelper(int n) {\n    c();\n  }\n}\n";
        let diff3 = "--- a/T.java\n+++ b/T.java\n@@ -1,8 +1,8 @@\n class T extends TestCase {\n   public void testA() {\n-    a();\n+    b();\n   }\n   public void testHelper(int n) {\n-    x();\n+    c();\n   }\n }\n";
        let patch = Patch::parse(diff3).unwrap();
        assert_eq!(
            changed_test_methods(junit3, &patch.files[0].hunks),
            ["testA"]
        );
    }

    /// Bouncy Castle's fix of CVE-2016-1000338 changes `DSATest.testModified()`, a private
    /// method of a `SimpleTest` program: no JUnit test, whatever its name (VJBench's BC-Java-1).
    #[test]
    fn a_private_or_static_test_named_method_is_no_junit3_test() {
        let new = "class T extends SimpleTest {\n  private void testModified() {\n    b();\n  }\n  public static void testStatic() {\n    c();\n  }\n  public void testPublic() {\n    d();\n  }\n}\n";
        let diff = "--- a/T.java\n+++ b/T.java\n@@ -1,10 +1,10 @@\n class T extends SimpleTest {\n   private void testModified() {\n-    a();\n+    b();\n   }\n   public static void testStatic() {\n-    x();\n+    c();\n   }\n   public void testPublic() {\n-    y();\n+    d();\n   }\n }\n";
        let patch = Patch::parse(diff).unwrap();
        assert_eq!(
            changed_test_methods(new, &patch.files[0].hunks),
            ["testPublic"]
        );
    }

    #[test]
    fn ant_targets_are_read_as_xml() {
        let build = r#"<project default="jar"><!-- <target name="commented"/> -->
            <target name="compile" description="a > b"/><target depends="compile" name='junit'>
            <echo/></target></project>"#;
        assert_eq!(ant_targets(build), ["compile", "junit"]);
    }

    /// commons-fileupload's fix turns a test into a helper `testInMemoryObject(byte[], File)`
    /// in a JUnit 4 class: a helper, never a PoV test.
    #[test]
    fn a_helper_named_like_a_junit3_test_in_a_junit4_class_is_no_test() {
        let new = "class T {\n  public void testInMemoryObject(byte[] b, File f) {\n    x();\n  }\n\n  @Test\n  public void testBelowThreshold() {\n    testInMemoryObject(null, null);\n  }\n}\n";
        let diff = "--- a/T.java\n+++ b/T.java\n@@ -1,10 +1,10 @@\n class T {\n-  public void old() {\n+  public void testInMemoryObject(byte[] b, File f) {\n     x();\n   }\n \n   @Test\n   public void testBelowThreshold() {\n-    old();\n+    testInMemoryObject(null, null);\n   }\n }\n";
        let patch = Patch::parse(diff).unwrap();
        assert_eq!(
            changed_test_methods(new, &patch.files[0].hunks),
            ["testBelowThreshold"]
        );
    }
}
