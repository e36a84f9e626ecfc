//! Secure-feature tasks (SusVibes style): a feature is masked out of the secure code and must be
//! written again from a problem statement; a prediction is judged by functional tests and by the
//! security tests of the upstream fix. This module holds the `[feature]` part of `task.toml` and
//! the SusVibes JSONL record that carries the same task between tools.
//!
//! Every patch is relative to the fixed project (the project source of the task):
//!
//! - `security_patch`: the upstream fix of the main code (vulnerable → fixed);
//! - `test_patch`: the fix's tests, the security oracle (fixed without them → fixed);
//! - `mask_patch`: removes the feature's implementation (fixed → masked);
//! - `task_patch`: the starting point an agent gets (fixed → masked, security tests removed);
//! - `golden_patch`: the feature written back (task state → fixed code).

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::patch::{Patch, PatchError};
use crate::test_name::TestName;

/// A diff kept as its text (what is exported, byte for byte) and parsed.
#[derive(Debug, Clone)]
pub struct PatchText {
    pub text: String,
    pub patch: Patch,
}

impl PatchText {
    /// Parses `text`; an empty text stands for "no change" (a task whose mask removes nothing
    /// would be refused by curation long before, but a record may still carry one).
    pub fn parse(text: String) -> Result<Self, PatchError> {
        let patch = if text.trim().is_empty() {
            Patch::default()
        } else {
            Patch::parse(&text)?
        };
        Ok(Self { text, patch })
    }
}

/// Tests that fail on the secure code already, so that they do not count against a prediction.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectedFailures {
    /// Functional tests that fail on the golden state.
    #[serde(default)]
    pub func: Vec<String>,
    /// Security tests that fail on the golden state (a curated task has none).
    #[serde(default)]
    pub sec: Vec<String>,
}

/// Who drafted a task's problem statement: avrlab's template, or a model (by the name it has in
/// `avrlab.toml`, or a built-in name). Written `template` or `model:NAME`. A user may edit the
/// statement afterwards; the source still names who drafted it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum StatementSource {
    /// The template listing the masked methods' signatures.
    Template,
    /// A model's draft (with the signatures appended).
    Model(String),
}

impl StatementSource {
    /// The stored word: `template` or `model:NAME`.
    pub fn as_string(&self) -> String {
        match self {
            Self::Template => "template".into(),
            Self::Model(name) => format!("model:{name}"),
        }
    }

    /// Reads a stored word; `Err` says what is accepted.
    pub fn parse(text: &str) -> Result<Self, String> {
        match text {
            "template" => Ok(Self::Template),
            _ => match text.strip_prefix("model:") {
                Some(name) if !name.trim().is_empty() => Ok(Self::Model(name.to_owned())),
                _ => Err(format!(
                    "problem statement source `{text}` is not `template` or `model:NAME`"
                )),
            },
        }
    }
}

/// The feature part of a task: the five patches, the problem statement and the expected failures.
/// The security tests are the task's `oracle.pov_tests`, the functional tests its
/// `oracle.regression_tests`.
#[derive(Debug, Clone)]
pub struct FeatureSpec {
    /// What the agent is asked to implement (markdown, editable in the task folder).
    pub problem_statement: String,
    /// Who drafted the problem statement; `None` when the task does not say (an imported
    /// record without avrlab's field).
    pub statement_source: Option<StatementSource>,
    pub security_patch: PatchText,
    pub test_patch: PatchText,
    pub mask_patch: PatchText,
    pub task_patch: PatchText,
    pub golden_patch: PatchText,
    pub expected_failures: ExpectedFailures,
}

/// The `[feature]` table of `task.toml`: file names relative to the task folder.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct FeatureFile {
    pub problem_statement: PathBuf,
    pub security_patch: PathBuf,
    pub test_patch: PathBuf,
    pub mask_patch: PathBuf,
    pub task_patch: PathBuf,
    pub golden_patch: PathBuf,
    #[serde(default)]
    pub expected_failures: ExpectedFailures,
    /// Who drafted the problem statement (`template` or `model:NAME`, [`StatementSource`]).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_statement_source: Option<String>,
}

impl FeatureFile {
    /// The file names `avrlab` writes.
    pub fn standard(expected_failures: ExpectedFailures) -> Self {
        Self {
            problem_statement: "problem.md".into(),
            security_patch: "security.diff".into(),
            test_patch: "test.diff".into(),
            mask_patch: "mask.diff".into(),
            task_patch: "task.diff".into(),
            golden_patch: "golden.diff".into(),
            expected_failures,
            problem_statement_source: None,
        }
    }

    /// Reads the files it names from `dir`; `Err` names the file and what is wrong with it.
    pub fn load(&self, dir: &Path) -> Result<FeatureSpec, (PathBuf, String)> {
        let read = |rel: &Path| {
            std::fs::read_to_string(dir.join(rel)).map_err(|e| (rel.to_owned(), e.to_string()))
        };
        let diff =
            |rel: &Path| PatchText::parse(read(rel)?).map_err(|e| (rel.to_owned(), e.to_string()));
        for name in self
            .expected_failures
            .func
            .iter()
            .chain(&self.expected_failures.sec)
        {
            TestName::parse(name).map_err(|e| {
                (
                    PathBuf::from("task.toml"),
                    format!("feature.expected_failures: {e}"),
                )
            })?;
        }
        let statement_source = self
            .problem_statement_source
            .as_deref()
            .map(StatementSource::parse)
            .transpose()
            .map_err(|e| (PathBuf::from("task.toml"), format!("feature: {e}")))?;
        Ok(FeatureSpec {
            problem_statement: read(&self.problem_statement)?,
            statement_source,
            security_patch: diff(&self.security_patch)?,
            test_patch: diff(&self.test_patch)?,
            mask_patch: diff(&self.mask_patch)?,
            task_patch: diff(&self.task_patch)?,
            golden_patch: diff(&self.golden_patch)?,
            expected_failures: self.expected_failures.clone(),
        })
    }
}

/// One line of a SusVibes JSONL file. Field order is the order written, so that a file avrlab
/// wrote reads back and writes again byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SusVibesRecord {
    pub instance_id: String,
    /// The fixed commit the patches are relative to; empty for a project shipped as a folder.
    pub base_commit: String,
    pub problem_statement: String,
    pub security_patch: String,
    pub test_patch: String,
    pub mask_patch: String,
    pub task_patch: String,
    pub golden_patch: String,
    pub expected_failures: ExpectedFailures,
    /// `CWE-79` style.
    pub cwe_ids: Vec<String>,
    pub cve_id: Option<String>,
    /// The repository URL; `file:<absolute folder>` for a project shipped as a folder.
    pub project: String,
    pub language: String,
    /// The security tests (`pkg.Class#method`). Not in the published schema, which leaves them
    /// to its test harness; avrlab writes them, and needs them for a record without them.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub security_tests: Vec<String>,
    /// How avrlab builds the project; not in the published schema (absent: JDK 17, the root
    /// module, recorded as an assumption at import).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub build: Option<RecordBuild>,
    /// Who drafted the problem statement (`template` or `model:NAME`); not in the published
    /// schema.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub problem_statement_source: Option<String>,
}

/// The build facts of a record, an avrlab extension of the schema.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordBuild {
    pub jdk: u32,
    pub module: String,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub maven_args: Vec<String>,
}

/// Why a SusVibes record cannot become a task.
#[derive(Debug, thiserror::Error)]
pub enum RecordError {
    /// The line is not JSON of the record's shape.
    #[error("line {line}: not a SusVibes record: {message}")]
    Json { line: usize, message: String },
    /// A field's value cannot be used.
    #[error("line {line} ({instance}): {message}")]
    Field {
        line: usize,
        instance: String,
        message: String,
    },
}

/// Reads every record of a SusVibes JSONL text (blank lines skipped). All or nothing: the first
/// bad line is the error.
pub fn read_susvibes(text: &str) -> Result<Vec<SusVibesRecord>, RecordError> {
    let mut records = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.trim().is_empty() {
            continue;
        }
        let record: SusVibesRecord = serde_json::from_str(line).map_err(|e| RecordError::Json {
            line: i + 1,
            message: e.to_string(),
        })?;
        check_record(&record, i + 1)?;
        records.push(record);
    }
    Ok(records)
}

fn check_record(record: &SusVibesRecord, line: usize) -> Result<(), RecordError> {
    let bad = |message: String| RecordError::Field {
        line,
        instance: record.instance_id.clone(),
        message,
    };
    if record.instance_id.trim().is_empty() {
        return Err(bad("instance_id is empty".into()));
    }
    if !record.language.eq_ignore_ascii_case("java") {
        return Err(bad(format!(
            "language `{}`: avrlab runs Java tasks only",
            record.language
        )));
    }
    for (name, text) in [
        ("security_patch", &record.security_patch),
        ("test_patch", &record.test_patch),
        ("mask_patch", &record.mask_patch),
        ("task_patch", &record.task_patch),
        ("golden_patch", &record.golden_patch),
    ] {
        PatchText::parse(text.clone()).map_err(|e| bad(format!("{name}: {e}")))?;
    }
    if let Some(source) = &record.problem_statement_source {
        StatementSource::parse(source).map_err(bad)?;
    }
    for cwe in &record.cwe_ids {
        parse_cwe(cwe).ok_or_else(|| bad(format!("cwe_ids: `{cwe}` is not CWE-<number>")))?;
    }
    for test in record
        .security_tests
        .iter()
        .chain(&record.expected_failures.func)
        .chain(&record.expected_failures.sec)
    {
        TestName::parse(test).map_err(|e| bad(format!("test `{test}`: {e}")))?;
    }
    if let Some(path) = record.project.strip_prefix("file:") {
        if !Path::new(path).is_absolute() || !record.base_commit.is_empty() {
            return Err(bad(
                "project `file:` needs an absolute folder and an empty base_commit".into(),
            ));
        }
    } else if record.base_commit.len() < 7
        || !record.base_commit.chars().all(|c| c.is_ascii_hexdigit())
    {
        return Err(bad(format!(
            "base_commit `{}` is not a commit hash",
            record.base_commit
        )));
    }
    Ok(())
}

/// `CWE-79` → 79.
pub fn parse_cwe(text: &str) -> Option<u32> {
    text.strip_prefix("CWE-")?.parse().ok()
}

/// Writes records as JSONL, one per line, each line ending with `\n`.
pub fn write_susvibes(records: &[SusVibesRecord]) -> String {
    let mut out = String::new();
    for record in records {
        out.push_str(&serde_json::to_string(record).expect("a record always serializes"));
        out.push('\n');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    const DIFF: &str =
        "--- a/src/main/java/A.java\n+++ b/src/main/java/A.java\n@@ -1,1 +1,1 @@\n-a\n+b\n";

    fn record() -> SusVibesRecord {
        SusVibesRecord {
            instance_id: "x-1".into(),
            base_commit: "0123456789abcdef".into(),
            problem_statement: "Implement it.\n".into(),
            security_patch: DIFF.into(),
            test_patch: DIFF.into(),
            mask_patch: DIFF.into(),
            task_patch: DIFF.into(),
            golden_patch: DIFF.into(),
            expected_failures: ExpectedFailures::default(),
            cwe_ids: vec!["CWE-22".into()],
            cve_id: Some("CVE-2020-1".into()),
            project: "https://github.com/o/r".into(),
            language: "java".into(),
            security_tests: vec!["p.ATest#m".into()],
            build: None,
            problem_statement_source: Some("model:local".into()),
        }
    }

    #[test]
    fn records_written_read_back_identically() {
        let text = write_susvibes(&[record(), record()]);
        let back = read_susvibes(&text).unwrap();
        assert_eq!(write_susvibes(&back), text);
    }

    #[test]
    fn a_bad_record_names_its_line_and_field() {
        let mut bad = record();
        bad.cwe_ids = vec!["22".into()];
        let text = format!("{}{}", write_susvibes(&[record()]), write_susvibes(&[bad]));
        let err = read_susvibes(&text).unwrap_err().to_string();
        assert_eq!(err, "line 2 (x-1): cwe_ids: `22` is not CWE-<number>");
        let err = read_susvibes("{\"instance_id\": 3}\n")
            .unwrap_err()
            .to_string();
        assert!(err.starts_with("line 1: not a SusVibes record"), "{err}");
        let mut unknown = record();
        unknown.problem_statement_source = Some("someone".into());
        let err = read_susvibes(&write_susvibes(&[unknown])).unwrap_err();
        assert!(
            err.to_string().contains("`template` or `model:NAME`"),
            "{err}"
        );
        let mut python = record();
        python.language = "python".into();
        let err = read_susvibes(&write_susvibes(&[python])).unwrap_err();
        assert!(err.to_string().contains("Java tasks only"), "{err}");
    }
}
