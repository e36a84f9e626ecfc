//! SusVibes JSONL records to feature task folders and back. A record carries the five patches as
//! text; a task folder keeps each in its own file, byte for byte, so that exporting what was
//! imported gives the same file.

use std::path::{Path, PathBuf};

use avrlab_bench::{
    BuildSpec, BuildSystem, FeatureFile, HunkLine, ManifestProject, Patch, ProjectSource,
    Provenance, RecordBuild, RegressionTests, SusVibesRecord, Task, TaskKind, TaskManifest,
    TestName, parse_cwe,
};
use avrlab_core::{Blame, Blamed};

/// Why records could not be imported or tasks exported.
#[derive(Debug, thiserror::Error)]
pub enum SusVibesError {
    /// A record cannot become a task (named with its instance).
    #[error("{0}")]
    Record(String),
    /// A task cannot become a record.
    #[error("task {task}: {message}")]
    Task { task: String, message: String },
    /// A file could not be written.
    #[error("cannot write {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl Blamed for SusVibesError {
    fn blame(&self) -> Blame {
        match self {
            Self::Record(_) | Self::Task { .. } => Blame::Input,
            Self::Io { .. } => Blame::Infrastructure,
        }
    }
}

/// The task id of a record: lowercase, other characters made `-`.
pub(crate) fn task_id_of(instance_id: &str) -> String {
    let id: String = instance_id
        .chars()
        .map(|c| {
            let c = c.to_ascii_lowercase();
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    id.trim_start_matches(['.', '_', '-']).to_owned()
}

/// Writes one task folder per record under `out`. Every record is checked and turned into files
/// in memory first; only then is anything written (all or nothing for bad input). A task folder
/// that exists already is refused.
pub fn import_records(
    records: &[SusVibesRecord],
    out: &Path,
) -> Result<Vec<String>, SusVibesError> {
    let mut planned = Vec::new();
    for record in records {
        let id = task_id_of(&record.instance_id);
        if id.is_empty() {
            return Err(SusVibesError::Record(format!(
                "instance_id `{}` gives no task id",
                record.instance_id
            )));
        }
        let dir = out.join(&id);
        if dir.exists() || planned.iter().any(|(d, _): &(PathBuf, _)| *d == dir) {
            return Err(SusVibesError::Record(format!(
                "{}: the task folder {} exists already (or two records share it); choose another --out",
                record.instance_id,
                dir.display()
            )));
        }
        planned.push((dir, files_of(record, &id)?));
    }
    let mut ids = Vec::new();
    for (dir, files) in planned {
        std::fs::create_dir_all(&dir).map_err(|source| SusVibesError::Io {
            path: dir.clone(),
            source,
        })?;
        for (name, text) in files {
            let path = dir.join(name);
            std::fs::write(&path, text).map_err(|source| SusVibesError::Io { path, source })?;
        }
        ids.push(dir.file_name().unwrap().to_string_lossy().into_owned());
    }
    Ok(ids)
}

fn files_of(record: &SusVibesRecord, id: &str) -> Result<Vec<(String, String)>, SusVibesError> {
    let bad = |message: String| SusVibesError::Record(format!("{}: {message}", record.instance_id));
    let mut feature = FeatureFile::standard(record.expected_failures.clone());
    feature
        .problem_statement_source
        .clone_from(&record.problem_statement_source);
    let project = match record.project.strip_prefix("file:") {
        Some(folder) => ManifestProject::Folder(PathBuf::from(folder)),
        None => ManifestProject::Git {
            url: record.project.clone(),
            commit: record.base_commit.clone(),
        },
    };
    let mut notes = Vec::new();
    let build = record.build.clone().unwrap_or_else(|| {
        notes.push("the record names no build: JDK 17 and the root module assumed".into());
        RecordBuild {
            jdk: 17,
            module: ".".into(),
            maven_args: Vec::new(),
        }
    });
    let security_tests = if record.security_tests.is_empty() {
        let test_patch =
            Patch::parse(&record.test_patch).map_err(|e| bad(format!("test_patch: {e}")))?;
        let derived = derive_security_tests(&test_patch).map_err(bad)?;
        notes.push(format!(
            "security tests derived from test_patch (the test methods it adds or changes): {}",
            derived
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        derived
    } else {
        record
            .security_tests
            .iter()
            .map(|t| TestName::parse_method(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(|e| bad(format!("security_tests: {e}")))?
    };
    let manifest = TaskManifest {
        id: id.to_owned(),
        kind: TaskKind::Feature,
        cve: record.cve_id.clone(),
        cwe: record.cwe_ids.iter().filter_map(|c| parse_cwe(c)).collect(),
        description: String::new(),
        project,
        build: BuildSpec {
            system: BuildSystem::Maven,
            jdk: build.jdk,
            module: PathBuf::from(build.module),
            extra_args: build.maven_args,
            targets: None,
            older_api: None,
        },
        revert: Vec::new(),
        pov_tests: security_tests,
        regression_tests: RegressionTests::AllOthers,
        localization: Vec::new(),
        reference: None,
        editable: None,
        provenance: Some(Provenance {
            dataset: "susvibes".into(),
            dataset_id: record.instance_id.clone(),
            localization: None,
            notes,
        }),
        // SusVibes records carry no dates.
        dates: avrlab_bench::TaskDates::default(),
        feature: Some(feature.clone()),
    };
    let name = |p: &Path| p.to_string_lossy().into_owned();
    Ok(vec![
        ("task.toml".into(), manifest.to_toml()),
        (
            name(&feature.problem_statement),
            record.problem_statement.clone(),
        ),
        (name(&feature.security_patch), record.security_patch.clone()),
        (name(&feature.test_patch), record.test_patch.clone()),
        (name(&feature.mask_patch), record.mask_patch.clone()),
        (name(&feature.task_patch), record.task_patch.clone()),
        (name(&feature.golden_patch), record.golden_patch.clone()),
    ])
}

/// The SusVibes JSONL of a benchmark's feature tasks, and how many records it holds.
pub fn export_jsonl(benchmark: &avrlab_bench::Benchmark) -> Result<(String, usize), SusVibesError> {
    let records = benchmark
        .tasks
        .iter()
        .filter(|t| match t.kind {
            TaskKind::Feature => true,
            TaskKind::Repair => false,
        })
        .map(record_of)
        .collect::<Result<Vec<_>, _>>()?;
    if records.is_empty() {
        return Err(SusVibesError::Record(format!(
            "benchmark {} has no feature task; make some with avrlab curate",
            benchmark.name
        )));
    }
    Ok((avrlab_bench::write_susvibes(&records), records.len()))
}

/// The record of a feature task. The instance id is the dataset id of a task imported from
/// SusVibes, else the task id.
pub(crate) fn record_of(task: &Task) -> Result<SusVibesRecord, SusVibesError> {
    let refuse = |message: &str| SusVibesError::Task {
        task: task.id.clone(),
        message: message.to_owned(),
    };
    let feature = match (&task.kind, &task.feature) {
        (TaskKind::Feature, Some(f)) => f,
        _ => return Err(refuse("not a feature task (curate it first)")),
    };
    let (project, base_commit) = match &task.project {
        ProjectSource::Git { url, commit } => (url.clone(), commit.clone()),
        ProjectSource::Folder(folder) => {
            let folder = folder
                .canonicalize()
                .map_err(|_| refuse("its project folder cannot be resolved"))?;
            (format!("file:{}", folder.display()), String::new())
        }
    };
    let instance_id = match &task.provenance {
        Some(p) if p.dataset == "susvibes" => p.dataset_id.clone(),
        _ => task.id.clone(),
    };
    Ok(SusVibesRecord {
        instance_id,
        base_commit,
        problem_statement: feature.problem_statement.clone(),
        security_patch: feature.security_patch.text.clone(),
        test_patch: feature.test_patch.text.clone(),
        mask_patch: feature.mask_patch.text.clone(),
        task_patch: feature.task_patch.text.clone(),
        golden_patch: feature.golden_patch.text.clone(),
        expected_failures: feature.expected_failures.clone(),
        cwe_ids: task.cwe.iter().map(|c| format!("CWE-{c}")).collect(),
        cve_id: task.cve.clone(),
        project,
        language: "java".into(),
        security_tests: task
            .oracle
            .pov_tests
            .iter()
            .map(ToString::to_string)
            .collect(),
        build: Some(RecordBuild {
            jdk: task.build.jdk,
            module: task.build.module.to_string_lossy().into_owned(),
            maven_args: task.build.extra_args.clone(),
        }),
        problem_statement_source: feature.statement_source.as_ref().map(|s| s.as_string()),
    })
}

/// The security tests of a record that does not name them: the JUnit test methods (annotated
/// `@Test…`) whose declaration lies in a hunk of `test_patch` and that the hunk adds or changes.
/// The hunk is all there is (no project at import), so a changed test whose declaration is
/// outside the hunk's context cannot be named: then the record must name its tests.
pub(crate) fn derive_security_tests(test_patch: &Patch) -> Result<Vec<TestName>, String> {
    let mut tests = Vec::new();
    for file in &test_patch.files {
        let path = &file.new_path;
        let Some(class) = path
            .split_once("src/test/java/")
            .and_then(|(_, rest)| rest.strip_suffix(".java"))
            .map(|c| c.replace('/', "."))
        else {
            continue;
        };
        for hunk in &file.hunks {
            // The hunk's new side, wrapped in a class so that its members parse.
            let mut text = String::from("class AvrlabHunk {\n");
            let mut added = Vec::new();
            for line in &hunk.lines {
                match line {
                    HunkLine::Context(l) => text.push_str(l),
                    HunkLine::Add(l) => {
                        // An added annotation line alone is how diffs show a method inserted
                        // above an existing one; it does not change that method.
                        if !l.trim_start().starts_with('@') {
                            added.push(text.matches('\n').count() + 1);
                        }
                        text.push_str(l);
                    }
                    HunkLine::Remove(_) => continue,
                }
                text.push('\n');
            }
            text.push_str("}\n");
            let source = avrlab_java::parse(&text);
            for method in avrlab_java::methods(&source) {
                let declaration = &text[method.bytes.clone()];
                let is_test = declaration
                    .split(['(', '{'])
                    .next()
                    .is_some_and(|head| head.contains("@Test"));
                let changed = added
                    .iter()
                    .any(|&l| method.lines.start <= l && l <= method.lines.end);
                if is_test && changed && !method.is_constructor {
                    let name = TestName {
                        class: class.clone(),
                        method: Some(method.name.clone()),
                    };
                    if !tests.contains(&name) {
                        tests.push(name);
                    }
                }
            }
        }
    }
    if tests.is_empty() {
        return Err(
            "security_tests is missing and no @Test method declaration is added or changed \
             within test_patch's hunks; name the tests (pkg.Class#method) in security_tests"
                .into(),
        );
    }
    Ok(tests)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn security_tests_are_the_test_methods_the_test_patch_adds_or_changes() {
        let diff = "--- a/src/test/java/com/x/ZipTest.java\n+++ b/src/test/java/com/x/ZipTest.java\n@@ -10,6 +10,15 @@\n     }\n \n     @Test\n+    void rejectsTraversal() {\n+        assertThrows(IOException.class, () -> unzip(\"../a\"));\n+    }\n+\n+    private void helper() {\n+        int x = 1;\n+    }\n+\n+    @Test\n     void extractsFiles() {\n         unzip(\"a\");\n     }\n";
        let tests = derive_security_tests(&Patch::parse(diff).unwrap()).unwrap();
        // The added test, not the helper; the annotation moved but extractsFiles is unchanged.
        assert_eq!(
            tests.iter().map(ToString::to_string).collect::<Vec<_>>(),
            ["com.x.ZipTest#rejectsTraversal"]
        );
        let none = "--- a/src/test/java/com/x/ZipTest.java\n+++ b/src/test/java/com/x/ZipTest.java\n@@ -10,3 +10,3 @@\n         int a = 1;\n-        int b = 2;\n+        int b = 3;\n         run(a, b);\n";
        let err = derive_security_tests(&Patch::parse(none).unwrap()).unwrap_err();
        assert!(err.contains("name the tests"), "{err}");
    }

    /// The statement in the task folder is the task's: once a user edits `problem.md`, the
    /// prompt every model and agent gets and the exported record carry the edit, and the
    /// recorded source (who drafted it) is kept.
    #[test]
    fn an_edited_problem_statement_is_what_eval_agents_and_export_use() {
        let dir = tempfile::tempdir().unwrap();
        let diff =
            "--- a/src/main/java/p/A.java\n+++ b/src/main/java/p/A.java\n@@ -1,1 +1,1 @@\n-a\n+b\n";
        let record = SusVibesRecord {
            instance_id: "Owner__repo-9".into(),
            base_commit: "0123456789abcdef".into(),
            problem_statement: "Drafted by the model.\n".into(),
            security_patch: diff.into(),
            test_patch: diff.into(),
            mask_patch: diff.into(),
            task_patch: diff.into(),
            golden_patch: diff.into(),
            expected_failures: Default::default(),
            cwe_ids: vec!["CWE-22".into()],
            cve_id: None,
            project: "https://github.com/owner/repo".into(),
            language: "java".into(),
            security_tests: vec!["p.ATest#sec".into()],
            build: None,
            problem_statement_source: Some("model:local".into()),
        };
        let out = dir.path().join("b");
        let ids = import_records(&[record], &out).unwrap();
        let edited = "# Edited by hand\n\nWrite `A.b` so that it returns b.\n";
        std::fs::write(out.join(&ids[0]).join("problem.md"), edited).unwrap();
        let benchmark = avrlab_bench::Benchmark::open(out.to_str().unwrap()).unwrap();
        let task = &benchmark.tasks[0];
        let feature = task.feature.as_ref().unwrap();
        assert_eq!(
            feature.statement_source,
            Some(avrlab_bench::StatementSource::Model("local".into()))
        );
        let avrlab_prompt::Prompt::Chat { messages } =
            crate::workflows::feature_score::feature_prompt(feature)
        else {
            unreachable!("a feature prompt is a chat")
        };
        assert_eq!(messages.last().unwrap().content, edited);
        let exported = record_of(task).unwrap();
        assert_eq!(exported.problem_statement, edited);
        assert_eq!(
            exported.problem_statement_source.as_deref(),
            Some("model:local")
        );
    }
}
