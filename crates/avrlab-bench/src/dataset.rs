//! Reading the published vulnerability datasets (Vul4J's CSV, VJBench's CSV and JSON) into
//! [`DatasetRow`]s, one per vulnerability, or a [`RowRefusal`] saying why a row cannot become a task.
//!
//! This module only reads the files. Turning a row into a task folder needs the repository (the
//! fix's diff, the changed methods), which the importer in the `avrlab` crate brings.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;

use crate::test_name::TestName;

/// The datasets avrlab imports.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DatasetKind {
    /// Vul4J (tuhh-softsec/vul4j): 79 vulnerabilities with PoV tests.
    Vul4j,
    /// VJBench (lin-tan/llm-vul): 42 vulnerabilities.
    Vjbench,
}

impl DatasetKind {
    /// The name on the command line and in task ids.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Vul4j => "vul4j",
            Self::Vjbench => "vjbench",
        }
    }

    /// Reads `vul4j` or `vjbench`.
    pub fn parse(text: &str) -> Option<Self> {
        match text {
            "vul4j" => Some(Self::Vul4j),
            "vjbench" => Some(Self::Vjbench),
            _ => None,
        }
    }

    /// The dataset file inside a datasets folder (`../shared/datasets` layout).
    pub fn default_file(self, datasets: &Path) -> PathBuf {
        match self {
            Self::Vul4j => datasets.join("vul4j/vul4j_dataset.csv"),
            Self::Vjbench => datasets.join("vjbench/VJBench_dataset.csv"),
        }
    }
}

/// The build system a dataset row names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RowBuild {
    /// Maven, with the module holding the PoV tests (`.` for the root).
    Maven { module: String },
    /// Gradle, from the project root.
    Gradle,
    /// Ant, with the targets the dataset's commands run (`ant compile`, `ant junit`).
    Ant { compile: String, test: String },
}

/// Where the dataset places the vulnerable code: the buggy file, its buggy lines and the method
/// that holds them (1-based, inclusive ranges).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetLocation {
    /// The dataset file and record the lines come from: `VJBench_data.json, record Jinjava-1`,
    /// `vul_location.json, record VUL4J-1007`.
    pub source: String,
    /// Relative to the repository root.
    pub file: String,
    /// The lines a fix replaces (for an insertion, the line at the insertion point: the study
    /// masks it too); empty when the dataset names the file only.
    pub buggy_lines: Vec<(u32, u32)>,
    /// The method's range as the dataset gives it (`buggy_method_with_comment` may start at the
    /// method's leading comment).
    pub method_lines: Vec<(u32, u32)>,
    /// `replace`, `insertion` or `deletion`, when given.
    pub bug_type: Option<String>,
}

/// One vulnerability of a dataset, as the dataset describes it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DatasetRow {
    /// The dataset's id: `VUL4J-41`, `Jinjava-1`.
    pub dataset_id: String,
    /// The avrlab task id: `vul4j-41`, `vjbench-jinjava-1`.
    pub task_id: String,
    /// `https://github.com/owner/repo` of the repository that holds the fixing commit.
    pub repo_url: String,
    /// The fixing commit: a full hash or an abbreviated prefix.
    pub commit: String,
    pub cve: Option<String>,
    /// Empty when the dataset does not know.
    pub cwe: Vec<u32>,
    pub cwe_name: Option<String>,
    pub build: RowBuild,
    /// The JDK the dataset asks for (Vul4J's `compliance_level`); `None` when it gives none.
    pub jdk: Option<u32>,
    /// Extra Maven flags from the dataset (Vul4J's `cmd_options`).
    pub maven_args: Vec<String>,
    /// The PoV tests; `None` when the dataset lists none (VJBench): they come from the fix's tests.
    pub pov_tests: Option<Vec<TestName>>,
    /// Where the dataset places the vulnerable method, when it says.
    pub location: Option<DatasetLocation>,
    /// Where the dataset keeps its own copy of the task, with tests the fix commit may lack:
    /// Vul4J's branch `VUL4J-n` of the repository, VJBench's `github_url_cve`. Named in a
    /// refusal when a PoV test is not at the fix commit.
    pub dataset_copy: Option<String>,
}

/// Why a row did not become a task, in the four classes every import summary counts. Only the
/// first is avrlab's to fix; the others are statements about the dataset or this machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum RefusalKind {
    /// avrlab cannot drive the row yet (a build system or layout it does not read).
    CannotDrive,
    /// The dataset is inconsistent or incomplete: its files disagree, the row names a commit the
    /// repository lacks, it lists no PoV test (SpotBugs-only rows).
    DatasetInconsistent,
    /// The PoV test is not at the fix commit: the dataset added it elsewhere (Vul4J on its own
    /// `VUL4J-n` branches, VJBench in its `VJBench/<id>` repositories).
    PovNotAtFix,
    /// The repository has no mirror here (and importing never clones).
    NoMirror,
}

impl RefusalKind {
    /// Every class, in the order summaries list them.
    pub const ALL: [Self; 4] = [
        Self::CannotDrive,
        Self::DatasetInconsistent,
        Self::PovNotAtFix,
        Self::NoMirror,
    ];

    /// The class as summaries and tables name it.
    pub fn describe(self) -> &'static str {
        match self {
            Self::CannotDrive => "avrlab cannot drive yet",
            Self::DatasetInconsistent => "dataset inconsistent or incomplete",
            Self::PovNotAtFix => "PoV test not at the fix commit",
            Self::NoMirror => "no mirror here",
        }
    }
}

/// A row that cannot become a task, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RowRefusal {
    pub dataset_id: String,
    pub kind: RefusalKind,
    pub reason: String,
}

/// Why a dataset file could not be read at all.
#[derive(Debug, thiserror::Error)]
pub enum DatasetError {
    /// The file could not be opened or read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The CSV is malformed.
    #[error("{path}: malformed CSV")]
    Csv {
        path: PathBuf,
        #[source]
        source: csv::Error,
    },
    /// The JSON is malformed.
    #[error("{path}: malformed JSON")]
    Json {
        path: PathBuf,
        #[source]
        source: serde_json::Error,
    },
}

/// What reading a dataset gives: rows to import, rows refused.
#[derive(Debug, Default)]
pub struct DatasetRows {
    pub rows: Vec<DatasetRow>,
    pub refused: Vec<RowRefusal>,
}

impl DatasetRows {
    /// Only the rows (and refusals) whose dataset id is in `ids`; all of them when `ids` is
    /// empty. `Err` names the first id that is no row of the dataset.
    pub fn select(self, ids: &[String]) -> Result<Self, String> {
        if let Some(missing) = ids.iter().find(|id| {
            !self.rows.iter().any(|r| &r.dataset_id == *id)
                && !self.refused.iter().any(|r| &r.dataset_id == *id)
        }) {
            return Err(missing.clone());
        }
        let keep = |id: &str| ids.is_empty() || ids.iter().any(|w| w == id);
        Ok(Self {
            rows: self
                .rows
                .into_iter()
                .filter(|r| keep(&r.dataset_id))
                .collect(),
            refused: self
                .refused
                .into_iter()
                .filter(|r| keep(&r.dataset_id))
                .collect(),
        })
    }
}

/// Reads a dataset file.
pub fn read_dataset(kind: DatasetKind, path: &Path) -> Result<DatasetRows, DatasetError> {
    match kind {
        DatasetKind::Vul4j => read_vul4j(path),
        DatasetKind::Vjbench => read_vjbench(path),
    }
}

#[derive(Deserialize)]
struct Vul4jRecord {
    vul_id: String,
    cve_id: String,
    cwe_id: String,
    cwe_name: String,
    human_patch: String,
    build_system: String,
    compliance_level: String,
    failing_tests: String,
    cmd_options: String,
    failing_module: String,
}

/// A task id from a dataset id: lowercase, characters outside `[a-z0-9._-]` replaced by `-`.
fn task_id(prefix: &str, dataset_id: &str) -> String {
    let lower = dataset_id.to_ascii_lowercase();
    let cleaned: String = lower
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-') {
                c
            } else {
                '-'
            }
        })
        .collect();
    if cleaned.starts_with(prefix) {
        cleaned
    } else {
        format!("{prefix}-{cleaned}")
    }
}

/// The repository URL and commit of a fix URL: `…/owner/repo/commit/<sha>[#…]`, or a compare
/// range `…/owner/repo/compare/<a>..<b>` (whose last commit is the fix).
fn parse_fix_url(url: &str) -> Option<(String, String)> {
    let url = url.trim();
    let url = url.split(['#', '?']).next()?;
    let (base, rest) = if let Some((base, rest)) = url.split_once("/commit/") {
        (base, rest)
    } else {
        let (base, range) = url.split_once("/compare/")?;
        let last = range.rsplit("..").next()?.trim_start_matches('.');
        (base, last)
    };
    let commit = rest.trim_end_matches('/');
    let is_hex = commit.len() >= 7 && commit.chars().all(|c| c.is_ascii_hexdigit());
    is_hex.then(|| {
        (
            base.trim_end_matches('/').to_owned(),
            commit.to_ascii_lowercase(),
        )
    })
}

fn parse_cwe(text: &str) -> Vec<u32> {
    text.split([',', ';', ' '])
        .filter_map(|part| part.trim().strip_prefix("CWE-")?.parse().ok())
        .collect()
}

/// A CSV reader over `path`; a file that cannot be opened is a read error, not a malformed CSV.
fn csv_reader(path: &Path) -> Result<csv::Reader<std::fs::File>, DatasetError> {
    let file = std::fs::File::open(path).map_err(|source| DatasetError::Read {
        path: path.to_owned(),
        source,
    })?;
    Ok(csv::Reader::from_reader(file))
}

/// Reads Vul4J's `vul4j_dataset.csv`. SpotBugs-only rows (`VUL4J-80-S` …, no CVE, no tests) are
/// refused with that reason.
pub fn read_vul4j(path: &Path) -> Result<DatasetRows, DatasetError> {
    let mut reader = csv_reader(path)?;
    let mut out = DatasetRows::default();
    for record in reader.deserialize::<Vul4jRecord>() {
        let record = record.map_err(|source| DatasetError::Csv {
            path: path.to_owned(),
            source,
        })?;
        match vul4j_row(&record) {
            Ok(row) => out.rows.push(row),
            Err((kind, reason)) => out.refused.push(RowRefusal {
                dataset_id: record.vul_id.clone(),
                kind,
                reason,
            }),
        }
    }
    Ok(out)
}

fn vul4j_row(record: &Vul4jRecord) -> Result<DatasetRow, (RefusalKind, String)> {
    let inconsistent = |reason: String| (RefusalKind::DatasetInconsistent, reason);
    if record.failing_tests.trim().is_empty() {
        return Err(inconsistent(
            "no PoV test in the dataset (a SpotBugs-only row)".into(),
        ));
    }
    let (repo_url, commit) = parse_fix_url(&record.human_patch).ok_or_else(|| {
        inconsistent(format!(
            "human_patch `{}` is not a commit URL",
            record.human_patch
        ))
    })?;
    let build = match record.build_system.trim() {
        "Maven" => RowBuild::Maven {
            module: match record.failing_module.trim() {
                "" | "root" => ".".to_owned(),
                module => module.to_owned(),
            },
        },
        "Gradle" => RowBuild::Gradle,
        other => {
            return Err((
                RefusalKind::CannotDrive,
                format!("build system `{other}` is not known"),
            ));
        }
    };
    let jdk = match record.compliance_level.trim().parse::<u32>() {
        // Vul4J's convention: compliance levels up to 7 build with JDK 7.
        Ok(level) if level <= 7 => Some(7),
        Ok(level) => Some(level),
        Err(_) => None,
    };
    let pov_tests = record
        .failing_tests
        .split(',')
        .map(str::trim)
        .filter(|t| !t.is_empty())
        .map(|t| TestName::parse_method(t).map_err(|e| inconsistent(format!("failing_tests: {e}"))))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(DatasetRow {
        dataset_id: record.vul_id.clone(),
        task_id: task_id("vul4j", &record.vul_id),
        commit,
        cve: non_empty(&record.cve_id),
        cwe: parse_cwe(&record.cwe_id),
        cwe_name: non_empty(&record.cwe_name),
        build,
        jdk,
        maven_args: record
            .cmd_options
            .split_whitespace()
            .map(str::to_owned)
            .collect(),
        pov_tests: Some(pov_tests),
        location: None,
        dataset_copy: Some(format!("branch {} of {repo_url}", record.vul_id)),
        repo_url,
    })
}

fn non_empty(text: &str) -> Option<String> {
    let text = text.trim();
    (!text.is_empty() && text != "unknown").then(|| text.to_owned())
}

#[derive(Deserialize)]
struct VjbenchCsvRecord {
    #[serde(rename = "Vulnerability IDs")]
    id: String,
    #[serde(rename = "CVE ID")]
    cve: String,
    #[serde(rename = "CWE Type")]
    cwe: String,
    human_patch: String,
}

#[derive(Deserialize)]
struct VjbenchJsonRecord {
    /// A path, or a list of paths for fixes over several files.
    buggy_file_path: serde_json::Value,
    #[serde(default)]
    buggy_method: Vec<Vec<u32>>,
    #[serde(default)]
    buggy_line: Vec<Vec<u32>>,
    #[serde(default)]
    bug_type: String,
    #[serde(default)]
    compile_cmd: String,
    #[serde(default)]
    test_cmd: String,
    /// Some records carry the test command here (the fields are shifted).
    #[serde(default)]
    test_num: serde_json::Value,
    fix_commit: String,
    /// VJBench's own repository of the row (`https://github.com/VJBench/<id>`), which holds
    /// tests the upstream fix commit may lack.
    #[serde(default)]
    github_url_cve: String,
}

/// Reads VJBench: `VJBench_dataset.csv` and, next to it, `VJBench_data.json`, whose `fix_commit`
/// wins over the CSV's `human_patch` within one repository (the CSV names merge commits for
/// Jinjava-1 and Retrofit-1). Where the two name different repositories (Xwiki-commons-1's JSON
/// record carries Spark's commit), the row is refused with both values: no guess is safe.
pub fn read_vjbench(path: &Path) -> Result<DatasetRows, DatasetError> {
    let json_path = path.with_file_name("VJBench_data.json");
    let json_text = std::fs::read_to_string(&json_path).map_err(|source| DatasetError::Read {
        path: json_path.clone(),
        source,
    })?;
    let details: BTreeMap<String, VjbenchJsonRecord> =
        serde_json::from_str(&json_text).map_err(|source| DatasetError::Json {
            path: json_path.clone(),
            source,
        })?;
    let mut reader = csv_reader(path)?;
    let mut out = DatasetRows::default();
    for record in reader.deserialize::<VjbenchCsvRecord>() {
        let record = record.map_err(|source| DatasetError::Csv {
            path: path.to_owned(),
            source,
        })?;
        match vjbench_row(&record, details.get(record.id.trim())) {
            Ok(row) => out.rows.push(row),
            Err((kind, reason)) => out.refused.push(RowRefusal {
                dataset_id: record.id.trim().to_owned(),
                kind,
                reason,
            }),
        }
    }
    Ok(out)
}

/// The build of a VJBench row from its commands: `mvn`/`./mvnw` with `-pl module` (after an
/// optional `cd dir;`), `gradle`/`./gradlew`, or `ant`.
fn vjbench_build(commands: &[&str]) -> Result<RowBuild, String> {
    let all = commands.join(" ; ");
    if all.contains("gradle") {
        return Ok(RowBuild::Gradle);
    }
    if all.split_whitespace().any(|w| w == "ant") {
        // The word after `ant` in each command: the first such target compiles, the last tests.
        let targets: Vec<&str> = commands
            .iter()
            .filter_map(|c| {
                let words: Vec<&str> = c.split_whitespace().collect();
                let at = words.iter().position(|w| *w == "ant")?;
                words.get(at + 1).copied()
            })
            .collect();
        return Ok(RowBuild::Ant {
            compile: targets.first().copied().unwrap_or("compile").to_owned(),
            test: targets.last().copied().unwrap_or("test").to_owned(),
        });
    }
    let Some(command) = commands
        .iter()
        .find(|c| c.contains("mvn") && c.contains("test"))
        .or_else(|| commands.iter().find(|c| c.contains("mvn")))
    else {
        return Err(format!("no Maven, Gradle or Ant command in `{all}`"));
    };
    // `cd cometd-java; mvn clean test -pl cometd-java-oort`: the module is relative to the `cd`.
    let mut dir = String::new();
    let mut module = None;
    for part in command.split(';') {
        let words: Vec<&str> = part.split_whitespace().collect();
        if words.first() == Some(&"cd")
            && let Some(d) = words.get(1)
        {
            dir = (*d).trim_end_matches('/').to_owned();
        }
        if let Some(i) = words.iter().position(|w| *w == "-pl")
            && let Some(m) = words.get(i + 1)
        {
            module = Some((*m).to_owned());
        }
    }
    let module = match (dir.as_str(), module) {
        ("", None) => ".".to_owned(),
        ("", Some(m)) => m,
        (d, None) => d.to_owned(),
        (d, Some(m)) => format!("{d}/{m}"),
    };
    Ok(RowBuild::Maven { module })
}

/// The repository's name without its owner, which may have been renamed (Apollo-1: ctripcorp
/// in the CSV, apolloconfig in the fix URL).
fn repo_name(url: &str) -> String {
    url.trim_end_matches('/')
        .rsplit('/')
        .next()
        .unwrap_or(url)
        .to_ascii_lowercase()
}

fn vjbench_row(
    record: &VjbenchCsvRecord,
    details: Option<&VjbenchJsonRecord>,
) -> Result<DatasetRow, (RefusalKind, String)> {
    let id = record.id.trim();
    let inconsistent = |reason: String| (RefusalKind::DatasetInconsistent, reason);
    let details = details.ok_or_else(|| inconsistent("no record in VJBench_data.json".into()))?;
    let from_json = parse_fix_url(&details.fix_commit);
    let from_csv = parse_fix_url(&record.human_patch);
    if let (Some((json_repo, json_commit)), Some((csv_repo, csv_commit))) = (&from_json, &from_csv)
        && repo_name(json_repo) != repo_name(csv_repo)
    {
        return Err(inconsistent(format!(
            "the dataset's files disagree: VJBench_dataset.csv names {csv_repo} commit {csv_commit}, VJBench_data.json names {json_repo} commit {json_commit}"
        )));
    }
    let (repo_url, commit) = from_json.or(from_csv).ok_or_else(|| {
        inconsistent(format!(
            "fix_commit `{}` is not a commit URL",
            details.fix_commit
        ))
    })?;
    let shifted = details.test_num.as_str().unwrap_or("");
    let build = vjbench_build(&[&details.compile_cmd, &details.test_cmd, shifted])
        .map_err(|reason| (RefusalKind::CannotDrive, reason))?;
    Ok(DatasetRow {
        dataset_id: id.to_owned(),
        task_id: task_id("vjbench", id),
        // The fix URL, not `Project URL`: the commit lives in the repository the fix URL names
        // (Apollo-1's owner was renamed from ctripcorp to apolloconfig).
        repo_url,
        commit,
        cve: non_empty(&record.cve),
        cwe: parse_cwe(&record.cwe),
        cwe_name: None,
        build,
        // VJBench gives no JDK; its study built the projects with JDK 8.
        jdk: None,
        maven_args: Vec::new(),
        pov_tests: None,
        location: match &details.buggy_file_path {
            serde_json::Value::String(file) if !file.is_empty() => Some(DatasetLocation {
                source: format!("VJBench_data.json, record {id}"),
                file: file.clone(),
                buggy_lines: line_ranges(&details.buggy_line),
                method_lines: line_ranges(&details.buggy_method),
                bug_type: non_empty(&details.bug_type),
            }),
            _ => None,
        },
        dataset_copy: non_empty(&details.github_url_cve),
    })
}

/// Line ranges as the datasets write them: `[[a, b]]`, `[[n]]` for one line, `[[]]` for none.
/// Anything else (a reversed or zero range) is dropped, and the caller sees fewer ranges.
pub(crate) fn line_ranges(raw: &[Vec<u32>]) -> Vec<(u32, u32)> {
    raw.iter()
        .filter_map(|r| match r.as_slice() {
            [n] if *n >= 1 => Some((*n, *n)),
            [a, b] if *a >= 1 && a <= b => Some((*a, *b)),
            _ => None,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn datasets() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets")
    }

    #[test]
    fn a_missing_dataset_file_is_a_read_error_not_a_malformed_one() {
        let missing = Path::new("/nonexistent/vul4j_dataset.csv");
        let error = read_vul4j(missing).unwrap_err();
        assert!(matches!(error, DatasetError::Read { .. }), "{error}");
        let error = read_vjbench(missing).unwrap_err();
        assert!(matches!(error, DatasetError::Read { .. }), "{error}");
    }

    #[test]
    fn reads_fix_urls_of_every_shape() {
        let cases = [
            (
                "https://github.com/a/b/commit/0123abcd0123abcd",
                Some(("https://github.com/a/b", "0123abcd0123abcd")),
            ),
            (
                "https://github.com/a/b/compare/a2d0ecdc..6315241719be",
                Some(("https://github.com/a/b", "6315241719be")),
            ),
            (
                "https://github.com/a/b/commit/9bfb3dba7c13#diff-66aeL2331",
                Some(("https://github.com/a/b", "9bfb3dba7c13")),
            ),
            ("https://github.com/a/b/pull/12", None),
            ("https://github.com/a/b/commit/xyz", None),
        ];
        for (url, expected) in cases {
            let got = parse_fix_url(url);
            let expected = expected.map(|(r, c)| (r.to_owned(), c.to_owned()));
            assert_eq!(got, expected, "{url}");
        }
    }

    #[test]
    fn reads_vjbench_builds_from_their_commands() {
        let cases: [(&[&str], RowBuild); 5] = [
            (
                &["mvn clean compile", "mvn clean test"],
                RowBuild::Maven { module: ".".into() },
            ),
            (
                &[
                    "mvn clean compile",
                    "cd cometd-java; mvn clean test -pl cometd-java-oort",
                ],
                RowBuild::Maven {
                    module: "cometd-java/cometd-java-oort".into(),
                },
            ),
            (
                &["./gradlew clean build -x test", "./gradlew test"],
                RowBuild::Gradle,
            ),
            (
                &["ant compile", "ant junit"],
                RowBuild::Ant {
                    compile: "compile".into(),
                    test: "junit".into(),
                },
            ),
            // Shifted fields: the test command sits in `test_num`.
            (
                &["", "./mvnw clean compile", "./mvnw clean test -pl core"],
                RowBuild::Maven {
                    module: "core".into(),
                },
            ),
        ];
        for (commands, expected) in cases {
            assert_eq!(vjbench_build(commands).unwrap(), expected, "{commands:?}");
        }
    }

    /// The real files: every row is either a row or a refusal with a reason, never dropped.
    #[test]
    fn every_row_of_the_real_datasets_is_accounted_for() {
        let vul4j = read_vul4j(&DatasetKind::Vul4j.default_file(&datasets())).unwrap();
        assert_eq!(vul4j.rows.len() + vul4j.refused.len(), 140);
        assert_eq!(vul4j.rows.len(), 79, "{:?}", vul4j.refused.first());
        let row = vul4j
            .rows
            .iter()
            .find(|r| r.dataset_id == "VUL4J-41")
            .unwrap();
        assert_eq!(row.task_id, "vul4j-41");
        assert_eq!(
            row.repo_url,
            "https://github.com/codehaus-plexus/plexus-archiver"
        );
        assert_eq!(row.cwe, [22]);
        assert_eq!(row.jdk, Some(8));
        // Abbreviated commits are kept as prefixes, resolved against the repository later.
        let short = vul4j
            .rows
            .iter()
            .find(|r| r.dataset_id == "VUL4J-15")
            .unwrap();
        assert_eq!(short.commit.len(), 8);
        // Parameterized invocations are test names too.
        let esapi = vul4j
            .rows
            .iter()
            .find(|r| r.dataset_id == "VUL4J-44")
            .unwrap();
        assert_eq!(esapi.pov_tests.as_ref().unwrap().len(), 15);

        let vjbench = read_vjbench(&DatasetKind::Vjbench.default_file(&datasets())).unwrap();
        assert_eq!(vjbench.rows.len() + vjbench.refused.len(), 42);
        let jinjava = vjbench
            .rows
            .iter()
            .find(|r| r.dataset_id == "Jinjava-1")
            .unwrap();
        // The JSON's fix commit, not the CSV's merge commit.
        assert_eq!(jinjava.commit, "4f28830ef9883e2c4e2a92a0d37b93c8620de2f7");
        assert!(jinjava.cwe.is_empty());
        // The JSON record carries Spark's commit while the CSV names xwiki-commons: refused with
        // both values, never imported from the other project.
        let xwiki = vjbench
            .refused
            .iter()
            .find(|r| r.dataset_id == "Xwiki-commons-1")
            .expect("Xwiki-commons-1 is refused");
        assert_eq!(xwiki.kind, RefusalKind::DatasetInconsistent);
        assert!(
            xwiki.reason.contains("xwiki/xwiki-commons commit 947e8921")
                && xwiki.reason.contains("perwendel/spark commit efcb46c7"),
            "{}",
            xwiki.reason
        );
        let ratpack = vjbench
            .rows
            .iter()
            .find(|r| r.dataset_id == "Ratpack-1")
            .unwrap();
        assert_eq!(
            ratpack.dataset_copy.as_deref(),
            Some("https://github.com/VJBench/Ratpack-1")
        );
        let cometd = vjbench
            .rows
            .iter()
            .find(|r| r.dataset_id == "CometD-1")
            .unwrap();
        assert_eq!(
            cometd.build,
            RowBuild::Maven {
                module: "cometd-java/cometd-java-oort".into()
            }
        );
    }
}
