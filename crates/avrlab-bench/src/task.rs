//! The `Task` model and its on-disk form, `task.toml` (see `docs/task-format.md`).

use std::path::{Path, PathBuf};

use avrlab_core::Month;
use serde::{Deserialize, Serialize};

use crate::feature::{FeatureFile, FeatureSpec};
use crate::patch::{Patch, PatchError};
use crate::policy::EditPolicy;
use crate::test_name::{TestName, TestNameError};

/// The `format_version` this build of avrlab reads and writes.
pub const FORMAT_VERSION: u32 = 1;

/// What a benchmark task asks of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum TaskKind {
    /// Repair a vulnerable method.
    Repair,
    /// Write new code that must also be secure (SusVibes style).
    Feature,
}

/// Where the project's source comes from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ProjectSource {
    /// A folder shipped with the task (absolute after loading).
    Folder(PathBuf),
    /// A git repository at a commit, found in a mirror directory or cloned.
    Git { url: String, commit: String },
}

/// The build systems avrlab can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum BuildSystem {
    /// Apache Maven.
    Maven,
    /// Gradle: the project's wrapper when its distribution is present, else `$AVRLAB_GRADLE`,
    /// else `gradle` on the PATH.
    Gradle,
    /// Apache Ant, with the task's compile and test targets.
    Ant,
}

impl BuildSystem {
    /// The name in task files and the store.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Maven => "maven",
            Self::Gradle => "gradle",
            Self::Ant => "ant",
        }
    }

    /// The target (Ant) or task (Gradle) that compiles the main and test sources when the task
    /// file names none. Maven has none.
    pub fn default_compile_target(self) -> Option<&'static str> {
        match self {
            Self::Maven => None,
            Self::Gradle => Some("testClasses"),
            Self::Ant => Some("compile"),
        }
    }

    /// The target (Ant) or task (Gradle) that runs the tests when the task file names none.
    pub fn default_test_target(self) -> Option<&'static str> {
        match self {
            Self::Maven => None,
            Self::Gradle => Some("test"),
            Self::Ant => Some("test"),
        }
    }
}

/// How the project is built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildSpec {
    pub system: BuildSystem,
    /// The major Java version the project needs.
    pub jdk: u32,
    /// The module, relative to the project root, that holds the oracle tests.
    pub module: PathBuf,
    /// Extra build-tool flags.
    pub extra_args: Vec<String>,
    /// Ant and Gradle: the target (task) that compiles main and test sources, and the one that
    /// runs the tests (the system's defaults where the task file names none). Maven: none.
    pub targets: Option<BuildTargets>,
    /// Compiling against the task's own JDK's API on a newer JDK, and the Java runtime the tests
    /// run on: decided by avrlab when it prepares a task state on this machine (never read from
    /// or written to a task file).
    pub older_api: Option<OlderApi>,
}

/// The compile and test targets of an Ant or Gradle build.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildTargets {
    pub compile: String,
    pub test: String,
}

/// Why and how a task that a newer JDK builds is compiled against the API of its own Java version
/// (`javac --release N`) instead of the newer JDK's, and where its tests run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OlderApi {
    /// The Java version whose API the sources are compiled against (`--release`).
    pub release: u32,
    /// Why, one sentence each (every compile log records them).
    pub reasons: Vec<String>,
    /// The home of the Java runtime older than the build JDK that the tests run on, when the
    /// sources need one (they use an API the build JDK removed) and one is installed.
    pub test_runtime: Option<PathBuf>,
}

/// How to reach the task state from the project source.
#[derive(Debug, Clone, Default)]
pub struct StateSpec {
    /// Diffs applied in order.
    pub apply: Vec<Patch>,
    /// Diffs reverse-applied in order, after `apply`.
    pub revert: Vec<Patch>,
}

/// Which tests guard against regressions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegressionTests {
    /// Every test of the module except the PoV tests.
    AllOthers,
    /// These tests or classes.
    Listed(Vec<TestName>),
}

/// The tests that decide a candidate's verdict.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Oracle {
    /// Proof-of-vulnerability tests: fail on the vulnerable state, pass once fixed.
    pub pov_tests: Vec<TestName>,
    pub regression_tests: RegressionTests,
}

/// Where the vulnerability is: one entry per method that the reference fix changes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Localization {
    /// Path relative to the project root.
    pub file: String,
    pub method: String,
    /// 1-based inclusive line range of the method in the vulnerable file.
    pub method_lines: (u32, u32),
    /// 1-based inclusive line ranges the fix replaces; `(n, n - 1)` is an insertion before line n.
    pub hunks: Vec<(u32, u32)>,
}

/// One benchmark task, loaded and checked.
#[derive(Debug, Clone)]
pub struct Task {
    pub id: String,
    pub kind: TaskKind,
    pub cve: Option<String>,
    /// CWE ids; empty when the source of the task does not know them.
    pub cwe: Vec<u32>,
    pub description: String,
    pub project: ProjectSource,
    pub build: BuildSpec,
    pub state: StateSpec,
    pub oracle: Oracle,
    pub localization: Vec<Localization>,
    pub reference: Option<Patch>,
    pub policy: EditPolicy,
    /// Where an imported task came from.
    pub provenance: Option<Provenance>,
    /// When the reference fix was made and the vulnerability published, where known.
    pub dates: TaskDates,
    /// The patches and expected failures of a feature task (`kind = "feature"`); its state is
    /// the project with `task_patch` applied and its reference is `golden_patch`.
    pub feature: Option<FeatureSpec>,
    /// The folder that holds `task.toml`.
    pub dir: PathBuf,
}

/// Why a `task.toml` could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum TaskError {
    /// The file could not be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The TOML is malformed or does not follow the schema.
    #[error("{path}: {message}")]
    Schema { path: PathBuf, message: String },
    /// The file declares a format version this build does not read.
    #[error("{path}: format_version {found} is not supported (this avrlab reads {FORMAT_VERSION})")]
    Version { path: PathBuf, found: u32 },
    /// A value is out of its allowed range or inconsistent with another.
    #[error("{path}: {message}")]
    Invalid { path: PathBuf, message: String },
    /// A test name in the oracle is malformed.
    #[error("{path}: bad test name")]
    TestName {
        path: PathBuf,
        #[source]
        source: TestNameError,
    },
    /// A diff that the task names is missing or malformed.
    #[error("{path}: cannot read the diff {diff}")]
    Diff {
        path: PathBuf,
        diff: PathBuf,
        #[source]
        source: PatchError,
    },
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct TaskFile {
    format_version: u32,
    id: String,
    kind: TaskKind,
    #[serde(skip_serializing_if = "Option::is_none")]
    cve: Option<String>,
    cwe: Vec<u32>,
    #[serde(default)]
    description: String,
    project: ProjectFile,
    build: BuildFile,
    #[serde(default)]
    state: StateFile,
    oracle: OracleFile,
    #[serde(default)]
    localization: Vec<LocalizationFile>,
    reference: Option<ReferenceFile>,
    #[serde(default)]
    policy: PolicyFile,
    provenance: Option<Provenance>,
    #[serde(default, skip_serializing_if = "TaskDates::is_empty")]
    dates: TaskDates,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    feature: Option<FeatureFile>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ProjectFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    path: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    git: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    commit: Option<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct BuildFile {
    system: BuildSystem,
    jdk: u32,
    #[serde(default = "default_module")]
    module: PathBuf,
    #[serde(default)]
    maven_args: Vec<String>,
    /// Ant and Gradle only: the target that compiles main and test sources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    compile_target: Option<String>,
    /// Ant and Gradle only: the target that runs the tests.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    test_target: Option<String>,
}

fn default_module() -> PathBuf {
    PathBuf::from(".")
}

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
struct StateFile {
    #[serde(default)]
    apply: Vec<PathBuf>,
    #[serde(default)]
    revert: Vec<PathBuf>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct OracleFile {
    pov_tests: Vec<String>,
    regression_tests: RegressionFile,
}

#[derive(Deserialize, Serialize)]
#[serde(untagged)]
enum RegressionFile {
    Keyword(String),
    Listed(Vec<String>),
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct LocalizationFile {
    file: String,
    method: String,
    method_lines: [u32; 2],
    #[serde(default)]
    hunks: Vec<[u32; 2]>,
}

#[derive(Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
struct ReferenceFile {
    patch: PathBuf,
}

#[derive(Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
struct PolicyFile {
    #[serde(skip_serializing_if = "Option::is_none")]
    editable: Option<Vec<String>>,
}

/// Where an imported task came from: the dataset and its id for the vulnerability, and what the
/// importer decided on its own (a JDK assumed, PoV tests derived from the fix), so nothing about
/// an imported task is implicit.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct Provenance {
    /// `vul4j` or `vjbench`.
    pub dataset: String,
    /// The dataset's id of the vulnerability (`VUL4J-41`, `Jinjava-1`).
    pub dataset_id: String,
    /// Where `[[localization]]` came from: `dataset: vul_location.json, record VUL4J-10014`,
    /// or `derived from the fix diff` (the dataset gives no usable lines; the notes say why).
    /// Absent in tasks written before the importer recorded it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub localization: Option<String>,
    /// One sentence per decision the importer made.
    #[serde(default)]
    pub notes: Vec<String>,
}

/// When a task's reference fix was made and its vulnerability published (`[dates]` in
/// `task.toml`): what a model's training cut-off is compared with. Each is an ISO 8601 date or
/// date-time as its source states it, and absent where the source does not say; never guessed.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TaskDates {
    /// The fix commit's author date, from git.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_authored: Option<String>,
    /// The fix commit's committer date, from git: when the fix entered the project's history.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fix_committed: Option<String>,
    /// When the vulnerability (its CVE) was published, where the task's dataset gives it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cve_published: Option<String>,
}

impl TaskDates {
    /// Whether no date is known.
    pub fn is_empty(&self) -> bool {
        self.fix_authored.is_none() && self.fix_committed.is_none() && self.cve_published.is_none()
    }

    /// The month the fix became part of the project's history, which a cut-off is compared with:
    /// the commit date, else the author date; `None` when neither is known.
    pub fn fixed_in(&self) -> Option<Month> {
        avrlab_core::fix_month(self.fix_committed.as_deref(), self.fix_authored.as_deref())
    }

    /// Each date that is given but not an ISO 8601 date, as `(key, value)`.
    fn malformed(&self) -> Option<(&'static str, &str)> {
        [
            ("fix_authored", &self.fix_authored),
            ("fix_committed", &self.fix_committed),
            ("cve_published", &self.cve_published),
        ]
        .into_iter()
        .find_map(|(key, value)| {
            value
                .as_deref()
                .filter(|v| Month::of_date(v).is_err())
                .map(|v| (key, v))
        })
    }
}

/// Where a written task's project is.
#[derive(Debug, Clone)]
pub enum ManifestProject {
    /// A folder, relative to the task folder.
    Folder(PathBuf),
    /// A git repository at the fixed commit.
    Git { url: String, commit: String },
}

/// Everything needed to write a `task.toml`: the one writer of task files, used by the importers,
/// curation and the transformer alike (the files the manifest names are written by the caller).
#[derive(Debug, Clone)]
pub struct TaskManifest {
    pub id: String,
    pub kind: TaskKind,
    pub cve: Option<String>,
    pub cwe: Vec<u32>,
    pub description: String,
    pub project: ManifestProject,
    pub build: BuildSpec,
    /// Diffs (relative to the task folder) reverse-applied to reach the task state.
    pub revert: Vec<PathBuf>,
    /// The PoV tests (a feature task's security tests).
    pub pov_tests: Vec<TestName>,
    /// The regression tests (a feature task's functional tests).
    pub regression_tests: RegressionTests,
    pub localization: Vec<Localization>,
    /// The reference fix (relative to the task folder).
    pub reference: Option<PathBuf>,
    /// `policy.editable` globs; `None` for the default.
    pub editable: Option<Vec<String>>,
    pub provenance: Option<Provenance>,
    pub dates: TaskDates,
    pub feature: Option<FeatureFile>,
}

impl TaskManifest {
    /// The `task.toml` text.
    pub fn to_toml(&self) -> String {
        let (path, git, commit) = match &self.project {
            ManifestProject::Folder(p) => (Some(p.clone()), None, None),
            ManifestProject::Git { url, commit } => (None, Some(url.clone()), Some(commit.clone())),
        };
        let names = |tests: &[TestName]| tests.iter().map(ToString::to_string).collect();
        let file = TaskFile {
            format_version: FORMAT_VERSION,
            id: self.id.clone(),
            kind: self.kind,
            cve: self.cve.clone(),
            cwe: self.cwe.clone(),
            description: self.description.clone(),
            project: ProjectFile { path, git, commit },
            build: BuildFile {
                system: self.build.system,
                jdk: self.build.jdk,
                module: self.build.module.clone(),
                maven_args: self.build.extra_args.clone(),
                compile_target: self.build.targets.as_ref().map(|t| t.compile.clone()),
                test_target: self.build.targets.as_ref().map(|t| t.test.clone()),
            },
            state: StateFile {
                apply: Vec::new(),
                revert: self.revert.clone(),
            },
            oracle: OracleFile {
                pov_tests: names(&self.pov_tests),
                regression_tests: match &self.regression_tests {
                    RegressionTests::AllOthers => RegressionFile::Keyword("all-others".into()),
                    RegressionTests::Listed(list) => RegressionFile::Listed(names(list)),
                },
            },
            localization: self
                .localization
                .iter()
                .map(|l| LocalizationFile {
                    file: l.file.clone(),
                    method: l.method.clone(),
                    method_lines: [l.method_lines.0, l.method_lines.1],
                    hunks: l.hunks.iter().map(|&(a, b)| [a, b]).collect(),
                })
                .collect(),
            reference: self.reference.as_ref().map(|patch| ReferenceFile {
                patch: patch.clone(),
            }),
            policy: PolicyFile {
                editable: self.editable.clone(),
            },
            provenance: self.provenance.clone(),
            dates: self.dates.clone(),
            feature: self.feature.clone(),
        };
        toml::to_string(&file).expect("a task manifest always serializes")
    }
}

fn is_task_id(id: &str) -> bool {
    let mut chars = id.chars();
    matches!(chars.next(), Some(c) if c.is_ascii_lowercase() || c.is_ascii_digit())
        && chars
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || matches!(c, '.' | '_' | '-'))
}

impl Task {
    /// Loads and checks the `task.toml` at `path`.
    pub fn load(path: &Path) -> Result<Self, TaskError> {
        let text = std::fs::read_to_string(path).map_err(|source| TaskError::Read {
            path: path.to_owned(),
            source,
        })?;
        let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
        Self::from_toml(&text, path, &dir)
    }

    /// Reads a task from `task.toml` text; `path` names it in errors and `dir` resolves its paths.
    pub fn from_toml(text: &str, path: &Path, dir: &Path) -> Result<Self, TaskError> {
        let invalid = |message: String| TaskError::Invalid {
            path: path.to_owned(),
            message,
        };
        // Check the version before the schema, so that a newer file gets the version message
        // rather than a confusing complaint about a field this build does not know.
        let table: toml::Table = toml::from_str(text).map_err(|e| TaskError::Schema {
            path: path.to_owned(),
            message: one_line(&e, text),
        })?;
        match table
            .get("format_version")
            .and_then(toml::Value::as_integer)
        {
            Some(v) if v == i64::from(FORMAT_VERSION) => {}
            Some(v) => {
                return Err(TaskError::Version {
                    path: path.to_owned(),
                    found: u32::try_from(v).unwrap_or(u32::MAX),
                });
            }
            None => return Err(invalid("missing integer key `format_version`".into())),
        }
        let file: TaskFile = toml::from_str(text).map_err(|e| TaskError::Schema {
            path: path.to_owned(),
            message: one_line(&e, text),
        })?;
        debug_assert_eq!(file.format_version, FORMAT_VERSION);

        if !is_task_id(&file.id) {
            return Err(invalid(format!(
                "task id `{}` must match [a-z0-9][a-z0-9._-]*",
                file.id
            )));
        }

        let project = match (file.project.path, file.project.git, file.project.commit) {
            (Some(folder), None, None) => {
                let folder = dir.join(folder);
                if !folder.is_dir() {
                    return Err(invalid(format!(
                        "project folder {} does not exist",
                        folder.display()
                    )));
                }
                ProjectSource::Folder(folder)
            }
            (None, Some(url), Some(commit)) => {
                if commit.len() < 7 || !commit.chars().all(|c| c.is_ascii_hexdigit()) {
                    return Err(invalid(format!(
                        "project.commit `{commit}` is not a commit hash"
                    )));
                }
                ProjectSource::Git { url, commit }
            }
            _ => {
                return Err(invalid(
                    "[project] needs either `path`, or both `git` and `commit`".into(),
                ));
            }
        };

        if !(7..=25).contains(&file.build.jdk) {
            return Err(invalid(format!(
                "build.jdk {} is not a Java version",
                file.build.jdk
            )));
        }
        let system = file.build.system;
        let targets = match (
            system.default_compile_target(),
            system.default_test_target(),
        ) {
            (Some(compile), Some(test)) => Some(BuildTargets {
                compile: file.build.compile_target.unwrap_or_else(|| compile.into()),
                test: file.build.test_target.unwrap_or_else(|| test.into()),
            }),
            _ if file.build.compile_target.is_some() || file.build.test_target.is_some() => {
                return Err(invalid(format!(
                    "build.compile_target and build.test_target are for Ant and Gradle builds, not {}: remove them",
                    system.as_str()
                )));
            }
            _ => None,
        };
        let build = BuildSpec {
            system,
            jdk: file.build.jdk,
            module: file.build.module,
            extra_args: file.build.maven_args,
            targets,
            older_api: None,
        };

        let read_diff = |rel: &Path| {
            Patch::read(&dir.join(rel)).map_err(|source| TaskError::Diff {
                path: path.to_owned(),
                diff: rel.to_owned(),
                source,
            })
        };
        let feature = match (file.kind, &file.feature) {
            (TaskKind::Feature, Some(table)) => {
                if !file.state.apply.is_empty()
                    || !file.state.revert.is_empty()
                    || file.reference.is_some()
                {
                    return Err(invalid(
                        "a feature task's state and reference come from [feature] \
                         (task_patch, golden_patch); remove [state] and [reference]"
                            .into(),
                    ));
                }
                Some(table.load(dir).map_err(|(rel, message)| {
                    invalid(format!("feature file {}: {message}", rel.display()))
                })?)
            }
            (TaskKind::Feature, None) => {
                return Err(invalid(
                    "kind = \"feature\" needs a [feature] table (see docs/task-format.md)".into(),
                ));
            }
            (TaskKind::Repair, Some(_)) => {
                return Err(invalid("a [feature] table needs kind = \"feature\"".into()));
            }
            (TaskKind::Repair, None) => None,
        };
        let mut state = StateSpec {
            apply: file
                .state
                .apply
                .iter()
                .map(|p| read_diff(p))
                .collect::<Result<_, _>>()?,
            revert: file
                .state
                .revert
                .iter()
                .map(|p| read_diff(p))
                .collect::<Result<_, _>>()?,
        };
        let mut reference = file.reference.map(|r| read_diff(&r.patch)).transpose()?;
        if let Some(spec) = &feature {
            state.apply.push(spec.task_patch.patch.clone());
            reference = Some(spec.golden_patch.patch.clone());
        }

        let test_name_error = |source| TaskError::TestName {
            path: path.to_owned(),
            source,
        };
        if file.oracle.pov_tests.is_empty() {
            return Err(invalid(
                "oracle.pov_tests must name at least one test".into(),
            ));
        }
        let pov_tests = file
            .oracle
            .pov_tests
            .iter()
            .map(|t| TestName::parse_method(t))
            .collect::<Result<Vec<_>, _>>()
            .map_err(test_name_error)?;
        let regression_tests = match file.oracle.regression_tests {
            RegressionFile::Keyword(k) if k == "all-others" => RegressionTests::AllOthers,
            RegressionFile::Keyword(k) => {
                return Err(invalid(format!(
                    "oracle.regression_tests is `{k}`; write \"all-others\" or a list of tests"
                )));
            }
            RegressionFile::Listed(list) => RegressionTests::Listed(
                list.iter()
                    .map(|t| TestName::parse(t))
                    .collect::<Result<_, _>>()
                    .map_err(test_name_error)?,
            ),
        };

        let mut localization = Vec::new();
        for loc in file.localization {
            let [start, end] = loc.method_lines;
            if start == 0 || end < start {
                return Err(invalid(format!(
                    "localization of {}: method_lines [{start}, {end}] is not a line range",
                    loc.method
                )));
            }
            for [a, b] in &loc.hunks {
                let (a, b) = (*a, *b);
                if a < start || b > end || b + 1 < a {
                    return Err(invalid(format!(
                        "localization of {}: hunk [{a}, {b}] lies outside method_lines [{start}, {end}]",
                        loc.method
                    )));
                }
            }
            localization.push(Localization {
                file: loc.file,
                method: loc.method,
                method_lines: (start, end),
                hunks: loc.hunks.into_iter().map(|[a, b]| (a, b)).collect(),
            });
        }

        if let Some((key, value)) = file.dates.malformed() {
            return Err(invalid(format!(
                "dates.{key} `{value}` is not a date: write YYYY-MM-DD or an RFC 3339 date-time"
            )));
        }

        let policy = EditPolicy::new(file.policy.editable.as_deref())
            .map_err(|e| invalid(format!("policy.editable: {e}")))?;

        let task = Task {
            id: file.id,
            kind: file.kind,
            cve: file.cve,
            cwe: file.cwe,
            description: file.description.trim().to_owned(),
            project,
            build,
            state,
            oracle: Oracle {
                pov_tests,
                regression_tests,
            },
            localization,
            reference,
            policy,
            provenance: file.provenance,
            dates: file.dates,
            feature,
            dir: dir.to_owned(),
        };
        if let Some(reference) = &task.reference {
            task.policy
                .check(reference)
                .map_err(|v| invalid(format!("the reference fix breaks the edit policy: {v}")))?;
        }
        Ok(task)
    }
}

/// TOML errors span several lines with a caret diagram; users get one line.
fn one_line(error: &toml::de::Error, text: &str) -> String {
    let message = error.message().trim();
    match error.span() {
        Some(span) => {
            let line = text
                .get(..span.start)
                .map_or(0, |before| before.matches('\n').count())
                + 1;
            format!("line {line}: {message}")
        }
        None => message.to_owned(),
    }
}
