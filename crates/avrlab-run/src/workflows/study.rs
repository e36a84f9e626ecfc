//! `study`: a matrix of evals from one file — benchmarks (and their transformed variants) ×
//! models × input formats × FL offsets × samples × runs, with an optional reviewer model. Each
//! cell is one eval run, stored as it goes under an id derived from the plan, so a study killed at
//! any point resumes cell by cell (and, inside a cell, prompt by prompt) without redoing anything
//! finished. Identical candidates are validated once across the whole study.

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use avrlab_bench::{Benchmark, Task};
use avrlab_core::{Blame, Blamed, Month, Shard};
use avrlab_exec::SandboxKind;
use avrlab_model::{Model, ModelError, Request, ResponseCache};
use avrlab_prompt::{Format, VulnerableMethod};
use avrlab_store::{Store, StoreError, StudyCellRow, StudyRow};
use avrlab_validate::{Candidate, Oracle, PreparedTask, ProjectDigest, ValidateError, Verdict};
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::run::run_loop::{Progress, RunSettings, Unprepared};
use crate::run::shard::shard_of_tasks;
use crate::workflows::eval::{EvalError, EvalRequest, EvalSpec, execute_eval};
use crate::workflows::method::vulnerable_method;
use crate::workflows::models::{ConfigFile, ModelSetupError, build_model};
use crate::workflows::review::{ReviewError, ReviewSpec, review_run};

/// The version of the study file format this build reads.
pub(crate) const STUDY_FORMAT_VERSION: u32 = 1;

/// A study file as written (`studies/*.toml`).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StudyFile {
    pub format_version: u32,
    /// The study's id in the store; its cells' run ids start with it.
    pub name: String,
    #[serde(default)]
    pub description: String,
    pub benchmarks: Vec<BenchmarkEntry>,
    pub models: Vec<ModelEntry>,
    /// Input formats for models that name none of their own.
    #[serde(default)]
    pub formats: Vec<String>,
    #[serde(default = "default_offsets")]
    pub fl_offsets: Vec<i64>,
    #[serde(default = "default_samples")]
    pub samples: u32,
    #[serde(default = "one")]
    pub runs: u32,
    #[serde(default = "default_temperature")]
    pub temperature: f32,
    #[serde(default = "default_top_p")]
    pub top_p: f32,
    #[serde(default = "default_max_tokens")]
    pub max_tokens: u32,
    #[serde(default)]
    pub seed: u64,
    pub reviewer: Option<ReviewerEntry>,
    #[serde(default)]
    pub report: ReportSettings,
    /// Run the memorization probe (`avrlab probe`) of every generator model on every original
    /// benchmark of the study, so that its report shows the probe beside each score.
    #[serde(default)]
    pub probe: bool,
}

fn default_offsets() -> Vec<i64> {
    vec![0]
}
fn default_samples() -> u32 {
    10
}
fn one() -> u32 {
    1
}
fn default_temperature() -> f32 {
    0.8
}
fn default_top_p() -> f32 {
    0.95
}
fn default_max_tokens() -> u32 {
    512
}

/// One benchmark of the study, or a transformed variant of one.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct BenchmarkEntry {
    /// `demo`, an imported benchmark's name (under `$AVRLAB_BENCHMARKS`), or a folder (relative
    /// to the study file).
    pub benchmark: String,
    /// `original`, or the transformation it was made with (`rename`, `structure`, `both`).
    #[serde(default = "original")]
    pub variant: String,
    /// Only these tasks (ids as in this benchmark).
    #[serde(default)]
    pub tasks: Vec<String>,
}

fn original() -> String {
    "original".into()
}

/// A generator model, optionally with its own input formats (a model family's formats).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelEntry {
    /// A name from avrlab.toml's `[models.*]`, or `local` / `baseline`.
    pub name: String,
    #[serde(default)]
    pub formats: Vec<String>,
    /// The model's folder in published generations (`Model_patches/model_output/<published>`),
    /// read instead of asking the model when the study runs with `--replay`.
    pub published: Option<String>,
    /// The model's training cut-off (`YYYY-MM`) for this study, instead of its `cutoff` in
    /// avrlab.toml: every cell's scores are split at it.
    pub cutoff: Option<String>,
}

/// The reviewer model.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReviewerEntry {
    pub model: String,
    #[serde(default = "default_review_tokens")]
    pub max_tokens: u32,
    /// 0 by default: the reviewer's judgement should not be a draw.
    #[serde(default)]
    pub temperature: f32,
}

fn default_review_tokens() -> u32 {
    64
}

/// How the study's statistics are reported.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct ReportSettings {
    /// TOST equivalence margin: the largest difference in the share of plausible samples per
    /// prompt that counts as "the same" (0.1 = ten percentage points).
    #[serde(default = "default_margin")]
    pub tost_margin: f64,
    /// Significance level of TOST and McNemar.
    #[serde(default = "default_alpha")]
    pub alpha: f64,
}

impl Default for ReportSettings {
    fn default() -> Self {
        Self {
            tost_margin: default_margin(),
            alpha: default_alpha(),
        }
    }
}

fn default_margin() -> f64 {
    0.1
}
fn default_alpha() -> f64 {
    0.05
}

/// Why a study file cannot be used: each message says what, where, and what to do.
#[derive(Debug, thiserror::Error)]
pub enum StudyFileError {
    /// The file could not be read.
    #[error("cannot read study file {path}: check the path")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is not valid TOML for a study.
    #[error("{path}:{line}:{column}: {message}; fix the study file (see docs/study-format.md)")]
    Syntax {
        path: PathBuf,
        line: usize,
        column: usize,
        message: String,
    },
    /// A value is not allowed.
    #[error("{path}: `{field}`: {message}")]
    Invalid {
        path: PathBuf,
        field: String,
        message: String,
    },
}

/// Replacements from the command line (a smaller study from the same file).
#[derive(Debug, Clone, Default)]
pub struct StudyOverrides {
    pub samples: Option<u32>,
    pub runs: Option<u32>,
    pub max_tokens: Option<u32>,
    /// Only these tasks, in every benchmark (ids without a variant suffix also match the
    /// variant's `<id>-<variant>`).
    pub tasks: Vec<String>,
    /// Only these generator models (in place of the file's).
    pub models: Vec<String>,
    /// This reviewer model (in place of the file's).
    pub reviewer: Option<String>,
    /// Only these FL offsets.
    pub fl_offsets: Vec<i64>,
    /// The study's id in the store (in place of its name).
    pub name: Option<String>,
    /// Only the benchmarks of these variants (`original`, `rename` …).
    pub variants: Vec<String>,
    /// Re-validate published generations instead of asking the generator models.
    pub replay: Option<ReplaySource>,
}

/// Published generations a study replays (`--replay`): the VJBench package's layout.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ReplaySource {
    /// A folder holding `Model_patches/`, or a git folder of the package.
    pub generations: PathBuf,
    /// `vul_location.json`.
    pub locations: PathBuf,
}

/// One cell: an eval run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Cell {
    /// Index into [`Plan::benchmarks`].
    pub benchmark: usize,
    pub model: String,
    pub format: String,
    pub fl_offset: i64,
    pub run_id: String,
    /// With `--replay`: the model's folder in the published generations.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub published: Option<String>,
}

/// One benchmark of a resolved plan.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct PlannedBenchmark {
    pub name: String,
    pub variant: String,
    pub tasks: Vec<String>,
}

/// A study resolved against the benchmarks and models: what will run.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Plan {
    pub name: String,
    pub benchmarks: Vec<PlannedBenchmark>,
    pub cells: Vec<Cell>,
    pub samples: u32,
    pub runs: u32,
    pub temperature: f32,
    pub top_p: f32,
    pub max_tokens: u32,
    pub seed: u64,
    pub reviewer: Option<ReviewerEntry>,
    pub report: ReportSettings,
    /// With `--replay`: where the published generations are.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplaySource>,
    /// What the plan leaves out and why (a model without published generations, a variant the
    /// replay cannot read).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub left_out: Vec<String>,
    /// The training cut-offs the study file gives, by model (they override avrlab.toml's).
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cutoffs: BTreeMap<String, Month>,
    /// Whether the study runs the memorization probe.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub probe: bool,
}

impl Plan {
    /// A hash of the plan and of every task's reference fix: a resume must find the same.
    pub(crate) fn hash(&self, benchmarks: &[Benchmark]) -> String {
        let mut hasher = Sha256::new();
        hasher.update(serde_json::to_string(self).expect("plans serialize"));
        for benchmark in benchmarks {
            for task in &benchmark.tasks {
                hasher.update(task.id.as_bytes());
                if let Some(reference) = &task.reference {
                    hasher.update(reference.to_string().as_bytes());
                }
            }
        }
        hex::encode(&hasher.finalize()[..16])
    }

    /// The size of the study: what it asks of the models and the oracle at most.
    pub(crate) fn size(&self) -> PlanSize {
        let tasks = |cell: &Cell| self.benchmarks[cell.benchmark].tasks.len() as u64;
        let prompts: u64 = self
            .cells
            .iter()
            .map(|c| tasks(c) * u64::from(self.runs))
            .sum();
        let generations = prompts * u64::from(self.samples);
        PlanSize {
            cells: self.cells.len(),
            prompts,
            generations,
            validations_at_most: generations,
            reviews_at_most: if self.reviewer.is_some() {
                generations
            } else {
                0
            },
        }
    }

    /// The cells' rows as stored with the study.
    pub(crate) fn cell_rows(&self) -> Vec<StudyCellRow> {
        self.cells
            .iter()
            .map(|c| StudyCellRow {
                run_id: c.run_id.clone(),
                benchmark: self.benchmarks[c.benchmark].name.clone(),
                variant: self.benchmarks[c.benchmark].variant.clone(),
                model: c.model.clone(),
                format: c.format.clone(),
                fl_offset: c.fl_offset,
            })
            .collect()
    }
}

/// How big a study is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct PlanSize {
    pub cells: usize,
    /// Prompts (task × run in every cell).
    pub prompts: u64,
    /// Model samples.
    pub generations: u64,
    /// Validations if every sample were a new candidate (identical ones are validated once).
    pub validations_at_most: u64,
    /// Reviews if every sample were a new candidate.
    pub reviews_at_most: u64,
}

/// Reads a study file.
pub fn read_study_file(path: &Path) -> Result<StudyFile, StudyFileError> {
    let text = std::fs::read_to_string(path).map_err(|source| StudyFileError::Read {
        path: path.to_owned(),
        source,
    })?;
    toml::from_str(&text).map_err(|e| {
        let (line, column) = e
            .span()
            .map(|span| {
                let before = &text[..span.start.min(text.len())];
                let line = before.matches('\n').count() + 1;
                let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
                (line, column)
            })
            .unwrap_or((1, 1));
        StudyFileError::Syntax {
            path: path.to_owned(),
            line,
            column,
            message: e.message().trim().to_owned(),
        }
    })
}

/// What resolving a plan needs to know about the models: whether a name is configured, and its
/// own input format.
pub trait ModelCatalog {
    /// The model's configured `format`, if any; `Err` with the reason and what to do when
    /// `name` is not a usable model.
    fn check(&self, name: &str) -> Result<Option<String>, String>;
}

/// Resolves a study file: loads its benchmarks, checks its models, formats and numbers, and
/// lists its cells. Nothing is stored.
pub fn resolve_plan(
    file: &StudyFile,
    path: &Path,
    overrides: &StudyOverrides,
    models: &dyn ModelCatalog,
) -> Result<(Plan, Vec<Benchmark>), StudyFileError> {
    let invalid = |field: &str, message: String| StudyFileError::Invalid {
        path: path.to_owned(),
        field: field.to_owned(),
        message,
    };
    if file.format_version != STUDY_FORMAT_VERSION {
        return Err(invalid(
            "format_version",
            format!(
                "{} is not a study format this avrlab reads ({STUDY_FORMAT_VERSION}); write format_version = {STUDY_FORMAT_VERSION}",
                file.format_version
            ),
        ));
    }
    let name = overrides.name.clone().unwrap_or_else(|| file.name.clone());
    if name.is_empty()
        || !name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    {
        return Err(invalid(
            "name",
            format!("`{name}` is not a usable id; use letters, digits, `-`, `_` and `.`"),
        ));
    }
    let samples = overrides.samples.unwrap_or(file.samples);
    let runs = overrides.runs.unwrap_or(file.runs);
    if samples == 0 {
        return Err(invalid("samples", "must be at least 1".into()));
    }
    if runs == 0 {
        return Err(invalid("runs", "must be at least 1".into()));
    }
    let max_tokens = overrides.max_tokens.unwrap_or(file.max_tokens);
    if max_tokens == 0 {
        return Err(invalid("max_tokens", "must be at least 1".into()));
    }
    if !(file.report.tost_margin > 0.0 && file.report.tost_margin.is_finite()) {
        return Err(invalid(
            "report.tost_margin",
            format!("{} is not a positive margin", file.report.tost_margin),
        ));
    }
    if !(file.report.alpha > 0.0 && file.report.alpha < 0.5) {
        return Err(invalid(
            "report.alpha",
            format!("{} is not between 0 and 0.5", file.report.alpha),
        ));
    }
    let offsets = if overrides.fl_offsets.is_empty() {
        file.fl_offsets.clone()
    } else {
        overrides.fl_offsets.clone()
    };
    if offsets.is_empty() {
        return Err(invalid("fl_offsets", "lists no offset; add 0".into()));
    }
    if has_duplicates(&offsets) {
        return Err(invalid("fl_offsets", "lists an offset twice".into()));
    }
    if file.benchmarks.is_empty() {
        return Err(invalid(
            "benchmarks",
            "lists no benchmark; add [[benchmarks]] benchmark = \"demo\"".into(),
        ));
    }

    let base = path.parent().unwrap_or(Path::new("."));
    let mut benchmarks = Vec::new();
    let mut planned = Vec::new();
    for variant in &overrides.variants {
        if !file.benchmarks.iter().any(|b| &b.variant == variant) {
            return Err(invalid(
                "benchmarks",
                format!("no benchmark has variant `{variant}` (given on the command line)"),
            ));
        }
    }
    let mut left_out = Vec::new();
    for (index, entry) in file.benchmarks.iter().enumerate() {
        if !overrides.variants.is_empty() && !overrides.variants.contains(&entry.variant) {
            continue;
        }
        // Published generations of a transformed variant are mapped back onto the original
        // tasks: the variant `v` of `B-v` (or of `B` itself) is replayed on the study's original `B`.
        let mut opened = entry.benchmark.clone();
        if overrides.replay.is_some() && entry.variant != "original" {
            let stripped = entry.benchmark.strip_suffix(&format!("-{}", entry.variant));
            let original = [stripped, Some(entry.benchmark.as_str())]
                .into_iter()
                .flatten()
                .find(|name| {
                    file.benchmarks
                        .iter()
                        .any(|b| b.variant == "original" && b.benchmark == *name)
                });
            let reason = match (
                crate::workflows::replay::PublishedVariant::parse(&entry.variant),
                original,
            ) {
                (Some(_), Some(name)) => {
                    opened = name.to_owned();
                    None
                }
                (None, _) => Some("the published generations have no such variant".to_owned()),
                (Some(_), None) => Some(format!(
                    "a replayed variant goes onto the original tasks of `{}`, which the study does not list",
                    stripped.unwrap_or(&entry.benchmark)
                )),
            };
            if let Some(reason) = reason {
                left_out.push(format!(
                    "benchmark {} ({}): {reason}",
                    entry.benchmark, entry.variant
                ));
                continue;
            }
        }
        let field = format!("benchmarks[{index}]");
        let mut benchmark = open_benchmark(&opened, base)
            .map_err(|message| invalid(&format!("{field}.benchmark"), message))?;
        let wanted: Vec<&String> = entry.tasks.iter().chain(&overrides.tasks).collect();
        for id in &entry.tasks {
            if !benchmark.tasks.iter().any(|t| &t.id == id) {
                return Err(invalid(
                    &format!("{field}.tasks"),
                    format!(
                        "benchmark `{}` has no task `{id}`; see `avrlab bench --benchmark {} list`",
                        entry.benchmark, entry.benchmark
                    ),
                ));
            }
        }
        let suffix = format!("-{}", entry.variant);
        if !entry.tasks.is_empty() {
            benchmark.tasks.retain(|t| entry.tasks.contains(&t.id));
        }
        if !overrides.tasks.is_empty() {
            benchmark.tasks.retain(|t| {
                overrides.tasks.iter().any(|id| {
                    t.id == *id || t.id.strip_suffix(&suffix).is_some_and(|base| base == id)
                })
            });
        }
        if benchmark.tasks.is_empty() {
            return Err(invalid(
                &field,
                format!(
                    "no task of `{}` is left to run (tasks: {}); name tasks it has",
                    entry.benchmark,
                    wanted
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            ));
        }
        if planned
            .iter()
            .any(|p: &PlannedBenchmark| p.name == benchmark.name && p.variant == entry.variant)
        {
            return Err(invalid(
                &field,
                format!(
                    "benchmark `{}` variant `{}` is listed twice",
                    entry.benchmark, entry.variant
                ),
            ));
        }
        planned.push(PlannedBenchmark {
            name: benchmark.name.clone(),
            variant: entry.variant.clone(),
            tasks: benchmark.tasks.iter().map(|t| t.id.clone()).collect(),
        });
        benchmarks.push(benchmark);
    }

    let mut model_entries = file.models.clone();
    if !overrides.models.is_empty() {
        model_entries = overrides
            .models
            .iter()
            .map(|name| {
                file.models
                    .iter()
                    .find(|m| &m.name == name)
                    .cloned()
                    .unwrap_or(ModelEntry {
                        name: name.clone(),
                        formats: Vec::new(),
                        published: None,
                        cutoff: None,
                    })
            })
            .collect();
    }
    if planned.is_empty() {
        return Err(invalid(
            "benchmarks",
            "no benchmark is left to run (see --variants and what the plan leaves out)".into(),
        ));
    }
    if model_entries.is_empty() {
        return Err(invalid(
            "models",
            "lists no model; add [[models]] name = \"local\"".into(),
        ));
    }
    let mut cells = Vec::new();
    for (index, model) in model_entries.iter().enumerate() {
        let field = format!("models[{index}]");
        // A replayed model is read from its published files, not asked: it needs no configuration.
        let configured = match (&overrides.replay, &model.published) {
            (Some(_), None) => {
                left_out.push(format!(
                    "model {}: no `published` folder name to replay",
                    model.name
                ));
                continue;
            }
            (Some(_), Some(_)) => None,
            (None, _) => models
                .check(&model.name)
                .map_err(|message| invalid(&format!("{field}.name"), message))?,
        };
        // The model's own formats, else the study's, else the one its configuration names.
        let formats = if !model.formats.is_empty() {
            &model.formats
        } else if !file.formats.is_empty() {
            &file.formats
        } else {
            &configured.into_iter().collect()
        };
        if formats.is_empty() {
            return Err(invalid(
                &format!("{field}.formats"),
                format!(
                    "model `{}` has no input format; list `formats` for it or for the study",
                    model.name
                ),
            ));
        }
        if has_duplicates(formats) {
            return Err(invalid(
                &format!("{field}.formats"),
                "lists a format twice".into(),
            ));
        }
        for format in formats {
            format
                .parse::<Format>()
                .map_err(|e| invalid(&format!("{field}.formats"), e.to_string()))?;
        }
        for (b, bench) in planned.iter().enumerate() {
            for format in formats {
                for offset in &offsets {
                    cells.push(Cell {
                        benchmark: b,
                        model: model.name.clone(),
                        format: format.clone(),
                        fl_offset: *offset,
                        run_id: format!(
                            "{name}/{}/{}/{}/{format}/{offset}",
                            bench.name, bench.variant, model.name
                        ),
                        published: overrides.replay.as_ref().and(model.published.clone()),
                    });
                }
            }
        }
    }
    let mut reviewer = file.reviewer.clone();
    if let Some(name) = &overrides.reviewer {
        let mut entry = reviewer.unwrap_or(ReviewerEntry {
            model: String::new(),
            max_tokens: default_review_tokens(),
            temperature: 0.0,
        });
        entry.model = name.clone();
        reviewer = Some(entry);
    }
    if let Some(reviewer) = &reviewer {
        models
            .check(&reviewer.model)
            .map_err(|message| invalid("reviewer.model", message))?;
    }
    let mut cutoffs = BTreeMap::new();
    for entry in &model_entries {
        if let Some(text) = &entry.cutoff {
            let month: Month = text
                .parse()
                .map_err(|e: avrlab_core::BadMonth| invalid("models.cutoff", e.to_string()))?;
            cutoffs.insert(entry.name.clone(), month);
        }
    }
    let plan = Plan {
        name,
        benchmarks: planned,
        cells,
        samples,
        runs,
        temperature: file.temperature,
        top_p: file.top_p,
        max_tokens,
        seed: file.seed,
        reviewer,
        report: file.report.clone(),
        replay: overrides.replay.clone(),
        left_out,
        cutoffs,
        probe: file.probe,
    };
    if plan.cells.is_empty() {
        return Err(invalid(
            "models",
            "no model is left to run (with --replay, models need a `published` folder name)".into(),
        ));
    }
    Ok((plan, benchmarks))
}

fn has_duplicates<T: PartialEq>(items: &[T]) -> bool {
    items
        .iter()
        .enumerate()
        .any(|(i, a)| items[..i].contains(a))
}

/// A benchmark by name (`demo`, or one under `$AVRLAB_BENCHMARKS`) or folder (relative to `base`).
fn open_benchmark(name: &str, base: &Path) -> Result<Benchmark, String> {
    let relative = base.join(name);
    let imported = std::env::var_os("AVRLAB_BENCHMARKS").map(|d| PathBuf::from(d).join(name));
    let candidate = if name == "demo" {
        name.to_owned()
    } else if Path::new(name).is_absolute() || relative.is_dir() {
        relative.to_string_lossy().into_owned()
    } else if let Some(dir) = imported.filter(|d| d.is_dir()) {
        dir.to_string_lossy().into_owned()
    } else {
        return Err(format!(
            "no benchmark `{name}` (not a folder beside the study file, nor under $AVRLAB_BENCHMARKS); \
             import it with `avrlab bench import`, or make a variant with `avrlab transform`"
        ));
    };
    let benchmark = Benchmark::open(&candidate).map_err(|e| format!("{e}"))?;
    // A study's cells are repair evals; feature tasks are scored by `avrlab eval` alone.
    match benchmark.kind("study")? {
        avrlab_bench::TaskKind::Repair => Ok(benchmark),
        avrlab_bench::TaskKind::Feature => Err(format!(
            "{} is a feature task, and a study runs repair tasks only; score feature tasks \
             with `avrlab validate` or `avrlab eval`",
            benchmark.tasks[0].id
        )),
    }
}

/// An oracle shared by a study's cells: each task folder is materialized and warmed up once, and
/// a candidate that makes the same project as one already validated in the study (same task
/// folder, same bytes in every file it changes) gets that validation's verdict instead of a
/// second run.
pub(crate) struct StudyOracle<'a> {
    inner: &'a dyn Oracle,
    materialized: Mutex<HashMap<PathBuf, PreparedTask>>,
    warmed: Mutex<std::collections::HashSet<PathBuf>>,
    verdicts: Mutex<HashMap<ProjectDigest, Verdict>>,
    reused: Mutex<usize>,
}

impl std::fmt::Debug for StudyOracle<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StudyOracle")
            .field("oracle", &self.inner.name())
            .field("reused", &self.reused())
            .finish()
    }
}

impl<'a> StudyOracle<'a> {
    pub(crate) fn new(inner: &'a dyn Oracle) -> Self {
        Self {
            inner,
            materialized: Mutex::default(),
            warmed: Mutex::default(),
            verdicts: Mutex::default(),
            reused: Mutex::new(0),
        }
    }

    /// How many validations were served from an identical candidate's.
    pub(crate) fn reused(&self) -> usize {
        *self.reused.lock().expect("not poisoned")
    }
}

impl Oracle for StudyOracle<'_> {
    fn name(&self) -> &str {
        self.inner.name()
    }

    fn materialize(&self, task: &Task) -> Result<PreparedTask, ValidateError> {
        let mut materialized = self.materialized.lock().expect("not poisoned");
        if let Some(prepared) = materialized.get(&task.dir) {
            return Ok(prepared.clone());
        }
        let prepared = self.inner.materialize(task)?;
        materialized.insert(task.dir.clone(), prepared.clone());
        Ok(prepared)
    }

    fn expect_candidates(&self, task: &str, count: usize) {
        // A hint only: candidates this cache answers never reach the inner oracle.
        self.inner.expect_candidates(task, count);
    }

    fn is_warm(&self, prepared: &PreparedTask) -> bool {
        self.warmed
            .lock()
            .expect("not poisoned")
            .contains(&prepared.task.dir)
    }

    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError> {
        if self.is_warm(prepared) {
            return Ok(());
        }
        self.inner.warm_up(prepared)?;
        self.warmed
            .lock()
            .expect("not poisoned")
            .insert(prepared.task.dir.clone());
        Ok(())
    }

    fn validate(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
    ) -> Result<Verdict, ValidateError> {
        // A candidate that does not apply shares nothing: its own validation says why.
        let Some(key) = prepared.candidate_identity(candidate).project().cloned() else {
            return self.inner.validate(prepared, candidate, slot);
        };
        if let Some(verdict) = self.verdicts.lock().expect("not poisoned").get(&key) {
            *self.reused.lock().expect("not poisoned") += 1;
            let mut verdict = verdict.clone();
            verdict.diagnostics.push(
                "the same candidate was validated earlier in this study: this is that validation's evidence"
                    .into(),
            );
            return Ok(verdict);
        }
        let verdict = self.inner.validate(prepared, candidate, slot)?;
        self.verdicts
            .lock()
            .expect("not poisoned")
            .insert(key, verdict.clone());
        Ok(verdict)
    }
}

/// A model shared by several cells.
struct SharedModel(Arc<dyn Model>);

impl Model for SharedModel {
    fn cache_identity(&self) -> String {
        self.0.cache_identity()
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<avrlab_model::Generation>, ModelError> {
        self.0.generate(request)
    }

    fn log_likelihood(
        &self,
        prefix: &str,
        continuation: &str,
    ) -> Result<Option<Vec<f64>>, ModelError> {
        self.0.log_likelihood(prefix, continuation)
    }
}

/// Why a study stopped.
#[derive(Debug, thiserror::Error)]
pub enum StudyError {
    /// The store already holds this study with another plan, or holds it and no resume was asked.
    #[error("{0}")]
    Conflict(String),
    /// The memorization probe failed on a task.
    #[error("the memorization probe of model {model}")]
    Probe {
        model: String,
        #[source]
        source: Box<crate::workflows::probe::ProbeError>,
    },
    /// An eval cell failed.
    #[error("cell {run_id}")]
    Eval {
        run_id: String,
        #[source]
        source: Box<EvalError>,
    },
    /// Published generations could not be replayed.
    #[error("cell {run_id}")]
    Replay {
        run_id: String,
        #[source]
        source: Box<crate::workflows::replay::ReplayError>,
    },
    /// The reviewer failed.
    #[error("cell {run_id}")]
    Review {
        run_id: String,
        #[source]
        source: Box<ReviewError>,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl Blamed for StudyError {
    fn blame(&self) -> Blame {
        match self {
            Self::Conflict(_) => Blame::Input,
            Self::Probe { source, .. } => source.blame(),
            Self::Eval { source, .. } => source.blame(),
            Self::Replay { source, .. } => source.blame(),
            Self::Review { source, .. } => source.blame(),
            Self::Store(e) => e.blame(),
        }
    }
}

/// What running (or resuming) a study did.
#[derive(Debug, Clone, Default)]
pub struct StudyOutcome {
    /// Cells found finished (and reviewed) from an earlier attempt.
    pub cells_already_done: usize,
    /// Cells run or completed now.
    pub cells_run: usize,
    /// Candidates validated now by the oracle.
    pub validated: usize,
    /// Validations served from an identical candidate of the study.
    pub reused_validations: usize,
    pub reviewed: usize,
    /// Tasks that could not be warmed up, per cell: those cells stay unfinished.
    pub unprepared: BTreeMap<String, Unprepared>,
}

/// Where a study's models come from: each needed model, started once.
pub struct StudyModels {
    pub models: HashMap<String, Arc<dyn Model>>,
    /// Prompts asked at a time, per model (its `concurrency`; 1 where absent).
    pub concurrency: HashMap<String, usize>,
    /// Each model's configuration: its price, cost cap per sample and cut-off, where given.
    pub configs: HashMap<String, crate::workflows::models::ModelConfig>,
    pub cache: PathBuf,
}

impl StudyModels {
    /// Starts each model the plan asks (replayed models are read from their published files,
    /// never started; the reviewer is one more), named in `configs` or built in; `progress`
    /// hears each one loaded.
    pub fn load(
        plan: &Plan,
        configs: &ConfigFile,
        config_path: &Path,
        sandbox: SandboxKind,
        cache: PathBuf,
        progress: &dyn Progress,
    ) -> Result<Self, ModelSetupError> {
        let mut names: Vec<&str> = plan
            .cells
            .iter()
            .filter(|c| c.published.is_none())
            .map(|c| c.model.as_str())
            .collect();
        if let Some(reviewer) = &plan.reviewer {
            names.push(&reviewer.model);
        }
        names.sort_unstable();
        names.dedup();
        let mut models: HashMap<String, Arc<dyn Model>> = HashMap::new();
        let mut concurrency: HashMap<String, usize> = HashMap::new();
        let mut model_configs = HashMap::new();
        for name in names {
            progress.message(&format!("loading model `{name}`"));
            let model_config = configs.model(name, config_path)?;
            let model = build_model(name, &model_config, config_path, sandbox)?;
            models.insert(name.to_owned(), Arc::from(model));
            concurrency.insert(name.to_owned(), model_config.concurrency.unwrap_or(1));
            model_configs.insert(name.to_owned(), model_config);
        }
        Ok(Self {
            models,
            concurrency,
            configs: model_configs,
            cache,
        })
    }
}

/// The models a study may name: those of a configuration file, and the built-in ones.
#[derive(Debug)]
pub struct ConfiguredModels<'a> {
    pub configs: &'a ConfigFile,
    pub path: &'a Path,
}

impl ModelCatalog for ConfiguredModels<'_> {
    fn check(&self, name: &str) -> Result<Option<String>, String> {
        self.configs
            .model(name, self.path)
            .map(|config| config.format)
            .map_err(|e| e.to_string())
    }
}

impl std::fmt::Debug for StudyModels {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut names: Vec<&String> = self.models.keys().collect();
        names.sort();
        f.debug_struct("StudyModels")
            .field("models", &names)
            .field("cache", &self.cache)
            .finish()
    }
}

/// One study to run or resume, with what it runs on.
pub struct StudyRequest<'a> {
    pub plan: &'a Plan,
    pub benchmarks: &'a [Benchmark],
    pub models: &'a StudyModels,
    pub config: &'a RunSettings,
    pub oracle: &'a dyn Oracle,
    /// Continue the study stored under the plan's name.
    pub resume: bool,
    /// Run every cell on this part of each benchmark's tasks only (each cell's input is still
    /// the whole plan, so `avrlab merge` joins the shards' stores).
    pub shard: Option<Shard>,
}

impl std::fmt::Debug for StudyRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("StudyRequest")
            .field("study", &self.plan.name)
            .field("resume", &self.resume)
            .finish()
    }
}

impl StudyOutcome {
    /// The study's closing line: cells run and found done, validations (and how many an identical
    /// candidate's served), reviews, and where it is stored.
    pub fn describe(&self, study: &str, store: &Path) -> String {
        format!(
            "study {study}: {} cells run now, {} already done; {} candidates validated ({} of them by an identical candidate's earlier validation in this study), {} reviews; stored in {}",
            self.cells_run,
            self.cells_already_done,
            self.validated,
            self.reused_validations,
            self.reviewed,
            store.display()
        )
    }

    /// The cells whose tasks could not be warmed up, as one line (their candidates were not
    /// validated; `--resume` retries them), or `None` when every task was warmed up.
    pub fn unprepared_message(&self, study: &str) -> Option<String> {
        if self.unprepared.is_empty() {
            return None;
        }
        let cells: Vec<String> = self
            .unprepared
            .iter()
            .map(|(cell, tasks)| {
                let tasks: Vec<String> = tasks
                    .iter()
                    .map(|(t, why)| format!("{t} ({why})"))
                    .collect();
                format!("{cell}: {}", tasks.join("; "))
            })
            .collect();
        Some(format!(
            "study {study}: tasks could not be warmed up in {} cell(s), whose candidates were not validated: {}; \
             fix the cause and continue with --resume",
            cells.len(),
            cells.join(" | ")
        ))
    }
}

/// Runs (or resumes) a study.
pub fn execute_study(
    store: &mut Store,
    request: &StudyRequest<'_>,
    progress: &dyn Progress,
) -> Result<StudyOutcome, StudyError> {
    let StudyRequest {
        plan,
        benchmarks,
        models,
        config,
        oracle,
        resume,
        shard,
    } = *request;
    let plan_hash = plan.hash(benchmarks);
    match store.study(&plan.name)? {
        Some(existing) if !resume => {
            return Err(StudyError::Conflict(format!(
                "the store already has study `{}`: pass --resume to continue it, or --name for a new one",
                existing.id
            )));
        }
        Some(existing) if existing.plan_hash != plan_hash => {
            return Err(StudyError::Conflict(format!(
                "study `{}` was started with another plan (study file, overrides or tasks changed); \
                 resume it with the same ones, or start a new one with --name",
                existing.id
            )));
        }
        Some(_) => {}
        None if resume => {
            return Err(StudyError::Conflict(format!(
                "the store has no study `{}` to resume: start it without --resume",
                plan.name
            )));
        }
        None => {
            let study = StudyRow {
                id: plan.name.clone(),
                plan_hash,
                plan: serde_json::to_string(plan).expect("plans serialize"),
                finished_at: None,
            };
            store.create_study(&study, &plan.cell_rows())?;
        }
    }

    let oracle = StudyOracle::new(oracle);
    let mut outcome = StudyOutcome::default();
    let total = plan.cells.len();
    for (index, cell) in plan.cells.iter().enumerate() {
        let benchmark = &benchmarks[cell.benchmark];
        let existing = store.run(&cell.run_id)?;
        let finished = existing.as_ref().is_some_and(|r| r.finished_at.is_some());
        let mut worked = false;
        if !finished {
            progress.message(&format!(
                "cell {}/{total}: {} ({})",
                index + 1,
                cell.run_id,
                if existing.is_some() {
                    "resuming"
                } else {
                    "starting"
                }
            ));
            if let (Some(source), Some(published)) = (&plan.replay, &cell.published) {
                let request = crate::workflows::replay::ReplayRequest {
                    generations: source.generations.clone(),
                    locations: source.locations.clone(),
                    model: published.clone(),
                    variant: plan.benchmarks[cell.benchmark].variant.clone(),
                    run_id: Some(cell.run_id.clone()),
                    resume: existing.is_some(),
                    shard,
                };
                let report = crate::workflows::replay::import_generations(
                    store, benchmark, &request, config, &oracle, progress,
                )
                .map_err(|source| StudyError::Replay {
                    run_id: cell.run_id.clone(),
                    source: Box::new(source),
                })?;
                for unmapped in &report.unmapped {
                    progress.message(&format!(
                        "{}: not replayed: {} ({})",
                        cell.run_id, unmapped.what, unmapped.reason
                    ));
                }
                outcome.validated += report.run.validated;
                if !report.run.unprepared.is_empty() {
                    outcome
                        .unprepared
                        .insert(cell.run_id.clone(), report.run.unprepared.clone());
                }
            } else {
                let model = models.models[&cell.model].clone();
                let request = EvalRequest {
                    benchmark,
                    model: Box::new(SharedModel(model)),
                    cache: ResponseCache::new(models.cache.clone()),
                    spec: EvalSpec {
                        model_name: cell.model.clone(),
                        format: cell.format.parse().expect("checked when planned"),
                        samples: plan.samples,
                        runs: plan.runs,
                        fl_offset: cell.fl_offset,
                        temperature: plan.temperature,
                        top_p: plan.top_p,
                        max_tokens: plan.max_tokens,
                        seed: plan.seed,
                        concurrency: models.concurrency.get(&cell.model).copied().unwrap_or(1),
                        price: models
                            .configs
                            .get(&cell.model)
                            .and_then(|c| c.price.clone()),
                        max_cost_per_sample: models
                            .configs
                            .get(&cell.model)
                            .and_then(|c| c.max_cost_per_sample),
                        model_cutoff: plan
                            .cutoffs
                            .get(&cell.model)
                            .copied()
                            .or_else(|| models.configs.get(&cell.model).and_then(|c| c.cutoff)),
                    },
                    run_id: Some(cell.run_id.clone()),
                    resume: existing.is_some(),
                    shard,
                    // A study's cells go past errored samples; a resume leaves them as they are.
                    retry: None,
                    max_errors: None,
                    max_cost: None,
                };
                let report =
                    execute_eval(store, request, config, &oracle, progress).map_err(|source| {
                        StudyError::Eval {
                            run_id: cell.run_id.clone(),
                            source: Box::new(source),
                        }
                    })?;
                outcome.validated += report.validated;
                if !report.unprepared.is_empty() {
                    outcome
                        .unprepared
                        .insert(cell.run_id.clone(), report.unprepared.clone());
                }
            }
            worked = true;
        }
        if let Some(reviewer) = &plan.reviewer {
            let methods = vulnerable_methods(&oracle, &shard_of_tasks(&benchmark.tasks, shard))?;
            let model = avrlab_model::CachedModel::new(
                SharedModel(models.models[&reviewer.model].clone()),
                ResponseCache::new(models.cache.clone()),
            );
            let spec = ReviewSpec {
                reviewer: reviewer.model.clone(),
                max_tokens: reviewer.max_tokens,
                temperature: reviewer.temperature,
                seed: plan.seed,
            };
            let reviewed = review_run(store, &cell.run_id, &methods, &model, &spec, progress)
                .map_err(|source| StudyError::Review {
                    run_id: cell.run_id.clone(),
                    source: Box::new(source),
                })?;
            outcome.reviewed += reviewed;
            worked |= reviewed > 0;
        }
        if worked {
            outcome.cells_run += 1;
        } else {
            outcome.cells_already_done += 1;
        }
    }
    if plan.probe {
        probe_models(store, plan, benchmarks, models, config, progress)?;
    }
    outcome.reused_validations = oracle.reused();
    if outcome.unprepared.is_empty() {
        store.finish_study(&plan.name)?;
    }
    Ok(outcome)
}

/// The memorization probe of each generator model on each original benchmark of the plan (a
/// transformed variant's fix is the original's, renamed or restructured: the probe of the
/// original is the one that tells). Scores already stored are kept, so a resumed study does
/// not probe again.
fn probe_models(
    store: &mut Store,
    plan: &Plan,
    benchmarks: &[Benchmark],
    models: &StudyModels,
    config: &RunSettings,
    progress: &dyn Progress,
) -> Result<(), StudyError> {
    let mut seen = Vec::new();
    for cell in plan.cells.iter().filter(|c| c.published.is_none()) {
        let planned = &plan.benchmarks[cell.benchmark];
        let key = (cell.model.clone(), planned.name.clone());
        if planned.variant != "original" || seen.contains(&key) {
            continue;
        }
        seen.push(key);
        let benchmark = &benchmarks[cell.benchmark];
        let done: Vec<String> = store
            .probe_scores(&benchmark.name, &cell.model)?
            .into_iter()
            .map(|r| r.task)
            .collect();
        let probe_config = crate::workflows::probe::ProbeConfig {
            model_name: cell.model.clone(),
            lines: 5,
            context_lines: 120,
            max_tokens: 160,
            rename_seed: 1,
            scratch: crate::workflows::probe::default_scratch(),
            mirrors: config.validator.mirrors.clone(),
        };
        let model = SharedModel(models.models[&cell.model].clone());
        let mut rows = Vec::new();
        for task in benchmark.tasks.iter().filter(|t| !done.contains(&t.id)) {
            progress.message(&format!("probing {} with {}", task.id, cell.model));
            let row =
                crate::workflows::probe::probe_task(task, &benchmark.name, &model, &probe_config)
                    .map_err(|source| StudyError::Probe {
                        model: cell.model.clone(),
                        source: Box::new(source),
                    });
            match row {
                Ok(row) => rows.push(row),
                Err(e) => {
                    let _ = std::fs::remove_dir_all(&probe_config.scratch);
                    return Err(e);
                }
            }
        }
        let _ = std::fs::remove_dir_all(&probe_config.scratch);
        store.record_probe_scores(&rows)?;
    }
    Ok(())
}

/// Each task's vulnerable method, for the reviewer's prompt (tasks that have none are skipped:
/// their eval cells hold no candidate either).
fn vulnerable_methods(
    oracle: &StudyOracle<'_>,
    tasks: &[&Task],
) -> Result<HashMap<String, VulnerableMethod>, StudyError> {
    let mut methods = HashMap::new();
    for task in tasks {
        let Ok(prepared) = oracle.materialize(task) else {
            continue;
        };
        if let Ok(method) = vulnerable_method(task, prepared.pristine()) {
            methods.insert(task.id.clone(), method);
        }
    }
    Ok(methods)
}

/// Estimated wall time of what is left of a study, from what the store has seen.
#[derive(Debug, Clone, PartialEq)]
pub struct Estimate {
    /// Seconds per generated sample, per generator model, with how many stored samples it is
    /// based on (`None`: the store has none of that model).
    pub per_sample: BTreeMap<String, Option<(f64, usize)>>,
    /// Seconds per review and how many stored reviews it is based on.
    pub per_review: Option<(f64, usize)>,
    /// Seconds per validation, with how many stored verdicts it is based on.
    pub per_validation: Option<(f64, usize)>,
    /// Cells already finished (left out of the total).
    pub finished_cells: usize,
    /// The total for the unfinished cells where every part is known.
    pub total_seconds: Option<f64>,
}

/// Estimates how long the unfinished cells of a study take from the latencies, review times and
/// validation times already stored (answers served from the response cache are left out).
pub fn estimate(store: &Store, plan: &Plan) -> Result<Estimate, StoreError> {
    let mut per_model: BTreeMap<String, (f64, usize)> = BTreeMap::new();
    let mut review = (0.0, 0usize);
    let mut validation = (0.0, 0usize);
    let reviewer = plan.reviewer.as_ref().map(|r| r.model.as_str());
    for run in store.runs()?.iter().rev().take(200) {
        if run.mode != avrlab_store::RunMode::Eval {
            continue;
        }
        let samples = f64::from(run.config.samples_per_prompt());
        for g in store.generations(&run.id)? {
            if !g.cached && g.error.is_none() && g.latency_ms > 0 {
                let entry = per_model.entry(g.model.clone()).or_default();
                // A request's latency is shared by its samples, generated one after another.
                entry.0 += g.latency_ms as f64 / 1000.0 / samples;
                entry.1 += 1;
            }
        }
        for r in store.reviews(&run.id)? {
            if Some(r.reviewer.as_str()) == reviewer && !r.cached && r.latency_ms > 0 {
                review.0 += r.latency_ms as f64 / 1000.0;
                review.1 += 1;
            }
        }
        for v in store.verdicts(&run.id)? {
            validation.0 += v.wall_ms as f64 / 1000.0;
            validation.1 += 1;
        }
    }
    let mean = |(sum, n): (f64, usize)| (n > 0).then(|| (sum / n as f64, n));
    let mut needed: Vec<&str> = plan.cells.iter().map(|c| c.model.as_str()).collect();
    needed.sort_unstable();
    needed.dedup();
    let per_sample: BTreeMap<String, Option<(f64, usize)>> = needed
        .iter()
        .map(|m| ((*m).to_owned(), per_model.get(*m).copied().and_then(mean)))
        .collect();
    let per_review = mean(review);
    let per_validation = mean(validation);
    let mut finished_cells = 0;
    let mut total = Some(0.0);
    for cell in &plan.cells {
        if store
            .run(&cell.run_id)?
            .is_some_and(|r| r.finished_at.is_some())
        {
            finished_cells += 1;
            continue;
        }
        let samples = plan.benchmarks[cell.benchmark].tasks.len() as f64
            * f64::from(plan.runs * plan.samples);
        let reviews = if reviewer.is_some() {
            per_review.map(|(s, _)| s * samples)
        } else {
            Some(0.0)
        };
        total = match (total, per_sample[&cell.model], reviews, per_validation) {
            (Some(t), Some((g, _)), Some(r), Some((v, _))) => {
                Some(t + g * samples + r + v * samples)
            }
            _ => None,
        };
    }
    Ok(Estimate {
        per_sample,
        per_review,
        per_validation,
        finished_cells,
        total_seconds: total,
    })
}

#[cfg(test)]
mod tests;

/// The plan as printed before a study runs: its matrix, its size and the estimated time.
pub fn describe_plan(plan: &Plan, estimate: Option<&Estimate>) -> String {
    use std::fmt::Write as _;
    let size = plan.size();
    let mut out = String::new();
    let _ = writeln!(out, "study {}: {} cells", plan.name, size.cells);
    for b in &plan.benchmarks {
        let _ = writeln!(
            out,
            "  benchmark {} ({}): {} tasks",
            b.name,
            b.variant,
            b.tasks.len()
        );
    }
    let mut models: Vec<(&str, Vec<&str>)> = Vec::new();
    let mut offsets: Vec<i64> = Vec::new();
    for cell in &plan.cells {
        match models.iter_mut().find(|(m, _)| *m == cell.model) {
            Some((_, formats)) if !formats.contains(&cell.format.as_str()) => {
                formats.push(&cell.format)
            }
            Some(_) => {}
            None => models.push((&cell.model, vec![&cell.format])),
        }
        if !offsets.contains(&cell.fl_offset) {
            offsets.push(cell.fl_offset);
        }
    }
    for (model, formats) in &models {
        let _ = writeln!(out, "  model {model}: formats {}", formats.join(", "));
    }
    let offsets: Vec<String> = offsets.iter().map(ToString::to_string).collect();
    let _ = writeln!(
        out,
        "  FL offsets {}; {} samples per prompt, {} runs; temperature {}, max {} tokens",
        offsets.join(", "),
        plan.samples,
        plan.runs,
        plan.temperature,
        plan.max_tokens
    );
    if let Some(source) = &plan.replay {
        let _ = writeln!(
            out,
            "  replaying the published generations in {} (locations {}) instead of asking the models",
            source.generations.display(),
            source.locations.display()
        );
    }
    for line in &plan.left_out {
        let _ = writeln!(out, "  left out: {line}");
    }
    if let Some(reviewer) = &plan.reviewer {
        let _ = writeln!(
            out,
            "  reviewer {} (max {} tokens, temperature {})",
            reviewer.model, reviewer.max_tokens, reviewer.temperature
        );
    }
    let _ = writeln!(
        out,
        "size: {} prompts, {} samples, at most {} validations (identical candidates are validated once) and {} reviews",
        size.prompts, size.generations, size.validations_at_most, size.reviews_at_most
    );
    if let Some(estimate) = estimate {
        for (model, known) in &estimate.per_sample {
            let _ = match known {
                Some((seconds, n)) => writeln!(
                    out,
                    "  {model}: {seconds:.1} s per sample (mean of {n} stored samples)"
                ),
                None => writeln!(
                    out,
                    "  {model}: no stored samples of this model to estimate from"
                ),
            };
        }
        if let Some((seconds, n)) = estimate.per_review {
            let _ = writeln!(
                out,
                "  review: {seconds:.1} s per candidate (mean of {n} stored reviews)"
            );
        }
        if let Some((seconds, n)) = estimate.per_validation {
            let _ = writeln!(
                out,
                "  validation: {seconds:.1} s per candidate (mean of {n} stored verdicts)"
            );
        }
        let _ = match estimate.total_seconds {
            Some(total) => writeln!(
                out,
                "estimated time: at most {:.0} min for the {} unfinished cells (less where the response cache or identical candidates serve)",
                total / 60.0,
                size.cells - estimate.finished_cells
            ),
            None => writeln!(
                out,
                "estimated time: unknown (the store has not yet seen every model, the reviewer and a validation to estimate from)"
            ),
        };
    }
    out
}
