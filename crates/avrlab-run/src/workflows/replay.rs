//! `replay`: the generations a study published, re-validated here. The VJBench package keeps, per
//! model and variant, one JSON file per vulnerability (`Model_patches/model_output/<Model>/
//! <variant>/output-…_<BUG>.json`) with the raw `output` of each sample and, in
//! `validation_result`, the patch the authors extracted from it and the label they gave it
//! (`test_success`, `compile_success`, `uncompilable`, `test_timeout`). Each patch becomes a
//! candidate for the imported task of that vulnerability, by the rule of its model's input format:
//!
//! - CodeT5 (mask infilling) and the fine-tuned models generate the replacement of the buggy
//!   lines: the patch replaces the lines `buggy_line` of `vul_location.json` names, whatever the
//!   bug type (for an "insertion" the published inputs mask the line the fix goes beside too);
//! - PLBART, InCoder and CodeGen regenerate the whole function: the patch replaces the lines
//!   `buggy_method_with_comment` names (the comment above the method goes with it: the published
//!   inputs had none).
//!
//! The transformed variants (`rename_only`, `structure_change_only`, `rename+code_structure`; a
//! study's `rename`, `structure` and `both`) were generated from VJBench-trans's rewritten method,
//! which the package keeps beside the generations (`VJBench-trans/<BUG>/`): the method as
//! transformed, the original method it came from, the buggy lines within each variant
//! (`buggyline_location.json`) and the renames (`<BUG>_identifier_rename_dict.json`). A patch is
//! put into the transformed method by its model's rule (the buggy lines, or the whole method), the
//! renamed identifiers are renamed back, and the result replaces the original method
//! (`buggy_method_with_comment`) of the task's file, after checking that those lines are the
//! published original method (up to comments and layout). The restructuring stays: it does not
//! change what the method does, so a candidate of the restructured method is judged on the task.
//!
//! The candidates are stored as an eval run (model and format the published ones), validated like
//! any other, and the published label of every sample is kept in the run's configuration beside
//! our verdict, so that the report shows where they agree. Files, patches and tasks that cannot be
//! mapped are listed with the reason; nothing is guessed.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::path::{Path, PathBuf};

use avrlab_bench::{Benchmark, Patch, Task};
use avrlab_report::PublishedLabel;
use avrlab_store::{Correctness, Extraction, GenerationRow, ItemClass, NewCandidate, Store};
use avrlab_transform::{RenameEntry, RenameKind, RenameMap};
use avrlab_validate::{Candidate, Oracle, ProjectDigest};
use serde::Deserialize;
use sha2::{Digest, Sha256};

use avrlab_core::{Blame, Blamed, ReplaySource, RunConfig, Shard};

use crate::run::generations::{GenerationSource, Prepared, RunTarget, run_generations};
use crate::run::input::stored_form;
use crate::run::run_loop::{Progress, RunError, RunReport, RunSettings, task_cwes};
use crate::run::shard::shard_tasks;
use crate::workflows::method::correctness;

/// What a published patch of a model replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PatchShape {
    /// The buggy lines (`buggy_line`).
    BuggyLines,
    /// The whole method (`buggy_method_with_comment`).
    Method,
}

/// The models of the VJBench study whose files this importer reads: their patch shape and the
/// avrlab input format that renders the same prompt shape (`avrlab eval --format`).
const MODELS: [(&str, PatchShape, &str); 8] = [
    ("CodeT5", PatchShape::BuggyLines, "mask-codet5"),
    ("PLBART", PatchShape::Method, "mask-plbart"),
    ("InCoder", PatchShape::Method, "mask-incoder"),
    ("CodeGen", PatchShape::Method, "prefix"),
    ("fine-tuned_CodeT5", PatchShape::BuggyLines, "finetune"),
    ("fine-tuned_PLBART", PatchShape::BuggyLines, "finetune"),
    ("fine-tuned_InCoder", PatchShape::BuggyLines, "finetune"),
    ("fine-tuned_CodeGen", PatchShape::BuggyLines, "finetune"),
];

/// The patch shape and format of a published model, if this importer knows it.
pub(crate) fn model_shape(model: &str) -> Option<(PatchShape, &'static str)> {
    MODELS
        .iter()
        .find(|(name, ..)| *name == model)
        .map(|(_, shape, format)| (*shape, *format))
}

/// A variant the VJBench package publishes generations for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PublishedVariant {
    /// The methods as the projects have them.
    Original,
    /// Identifiers renamed.
    RenameOnly,
    /// Code restructured, names kept.
    StructureOnly,
    /// Both.
    Both,
}

impl PublishedVariant {
    /// The variant's folder name in `Model_patches/model_output/<Model>/`.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Original => "original",
            Self::RenameOnly => "rename_only",
            Self::StructureOnly => "structure_change_only",
            Self::Both => "rename+code_structure",
        }
    }

    /// A published folder name, or the name a study gives the variant (`avrlab transform`'s
    /// `rename`, `structure`, `both`).
    pub fn parse(name: &str) -> Option<Self> {
        Some(match name {
            "original" => Self::Original,
            "rename_only" | "rename" => Self::RenameOnly,
            "structure_change_only" | "structure" => Self::StructureOnly,
            "rename+code_structure" | "both" => Self::Both,
            _ => return None,
        })
    }

    /// The name of the transformed method's file in `VJBench-trans/<BUG>/`, after `<BUG>_`.
    fn method_file(self) -> Option<&'static str> {
        match self {
            Self::Original => None,
            Self::RenameOnly => Some("rename_only.java"),
            Self::StructureOnly => Some("code_structure_change_only.java"),
            Self::Both => Some("full_transformation.java"),
        }
    }

    fn renames(self) -> bool {
        matches!(self, Self::RenameOnly | Self::Both)
    }
}

/// Why a replay stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The model's files are not in a layout this importer reads.
    #[error(
        "model `{model}`: not a model whose published files this importer reads ({known}); Codex's files (one folder per run, a different record) are not read yet"
    )]
    UnknownModel { model: String, known: String },
    /// The variant is not one the package publishes.
    #[error(
        "variant `{0}`: not a published variant; give original, rename_only, structure_change_only or rename+code_structure (or a study's rename, structure, both)"
    )]
    Variant(String),
    /// The folder of the model and variant is not there.
    #[error(
        "no folder {expected} under {root} (give the folder that holds Model_patches/, or a git folder of the VJBench package)"
    )]
    NoFolder { root: PathBuf, expected: String },
    /// The published folder could not be read.
    #[error("read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The locations file cannot be used.
    #[error("read the vulnerability locations {path} (vul_location.json: give --locations)")]
    Locations {
        path: PathBuf,
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The git folder could not be read.
    #[error("export the published generations from the git folder {path}")]
    Export {
        path: PathBuf,
        #[source]
        source: avrlab_exec::GitError,
    },
    /// Nothing could be mapped onto a task of the benchmark.
    #[error(
        "no published file of {model}/{variant} maps onto a task of benchmark {benchmark}:\n{reasons}"
    )]
    NothingToReplay {
        model: String,
        variant: String,
        benchmark: String,
        reasons: String,
    },
    /// Validation or the store failed.
    #[error(transparent)]
    Engine(#[from] RunError),
}

impl Blamed for ReplayError {
    fn blame(&self) -> Blame {
        match self {
            Self::Engine(e) => e.blame(),
            Self::Export { .. } => Blame::Infrastructure,
            Self::UnknownModel { .. }
            | Self::Variant(_)
            | Self::NoFolder { .. }
            | Self::Read { .. }
            | Self::Locations { .. }
            | Self::NothingToReplay { .. } => Blame::Input,
        }
    }
}

impl From<avrlab_store::StoreError> for ReplayError {
    fn from(error: avrlab_store::StoreError) -> Self {
        Self::Engine(error.into())
    }
}

/// One record of `vul_location.json`.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct Location {
    pub vul_id: String,
    #[serde(rename = "CVE_id", default)]
    pub cve: Option<String>,
    /// Absent for the vulnerabilities whose fix spans several files (`single_flie` 0).
    #[serde(default)]
    pub buggy_file: Option<String>,
    /// `[[start, end]]` or `[[line]]`, 1-based, inclusive.
    #[serde(default)]
    pub buggy_line: Vec<Vec<usize>>,
    #[serde(default)]
    pub buggy_method_with_comment: Vec<Vec<usize>>,
}

/// Reads `vul_location.json`.
pub(crate) fn read_locations(path: &Path) -> Result<Vec<Location>, ReplayError> {
    let err = |source: Box<dyn std::error::Error + Send + Sync>| ReplayError::Locations {
        path: path.to_owned(),
        source,
    };
    let text = std::fs::read_to_string(path).map_err(|e| err(Box::new(e)))?;
    serde_json::from_str(&text).map_err(|e| err(Box::new(e)))
}

/// One published sample: the raw output and the patch extracted from it, with its label.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublishedSample {
    pub raw: String,
    pub patch: String,
    pub label: PublishedLabel,
}

/// One published file: a vulnerability's samples.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PublishedFile {
    /// The file name, for messages.
    pub file: String,
    /// The vulnerability id the file name ends with (`Jinjava-1`, `VUL4J-10`).
    pub bug: String,
    pub samples: Vec<PublishedSample>,
}

#[derive(Deserialize)]
struct RawFile {
    #[serde(default)]
    output: Vec<String>,
    validation_result: Vec<RawResult>,
}

#[derive(Deserialize)]
struct RawResult {
    patch: String,
    correctness: String,
}

/// Something published that is not replayed, and why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unmapped {
    pub what: String,
    pub reason: String,
}

impl std::fmt::Display for Unmapped {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.what, self.reason)
    }
}

/// Reads every file of a model's variant folder; files that cannot be read are listed.
pub(crate) fn read_published(
    folder: &Path,
) -> Result<(Vec<PublishedFile>, Vec<Unmapped>), ReplayError> {
    let read_err = |source| ReplayError::Read {
        path: folder.to_owned(),
        source,
    };
    let mut names: Vec<String> = std::fs::read_dir(folder)
        .map_err(read_err)?
        .filter_map(Result::ok)
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    let mut files = Vec::new();
    let mut unmapped = Vec::new();
    for name in names {
        let refuse = |reason: String| Unmapped {
            what: name.clone(),
            reason,
        };
        let Some(stem) = name.strip_suffix(".json") else {
            unmapped.push(refuse("not a JSON file".into()));
            continue;
        };
        // `output-<model>-<variant>_<BUG>.json`: the id is what follows the last underscore.
        let Some((_, bug)) = stem.rsplit_once('_') else {
            unmapped.push(refuse("no `_<id>` at the end of the name".into()));
            continue;
        };
        let text = match std::fs::read_to_string(folder.join(&name)) {
            Ok(text) => text,
            Err(e) => {
                unmapped.push(refuse(format!("cannot be read: {e}")));
                continue;
            }
        };
        let raw: RawFile = match serde_json::from_str(&text) {
            Ok(raw) => raw,
            Err(e) => {
                unmapped.push(refuse(format!(
                    "not a file of `output` and `validation_result`: {e}"
                )));
                continue;
            }
        };
        let mut samples = Vec::new();
        let mut bad_label = None;
        for (i, result) in raw.validation_result.into_iter().enumerate() {
            match PublishedLabel::parse(&result.correctness) {
                Ok(label) => samples.push(PublishedSample {
                    raw: raw
                        .output
                        .get(i)
                        .cloned()
                        .unwrap_or_else(|| result.patch.clone()),
                    patch: result.patch,
                    label,
                }),
                Err(e) => bad_label = Some(e),
            }
        }
        if let Some(e) = bad_label {
            unmapped.push(refuse(e.to_string()));
            continue;
        }
        files.push(PublishedFile {
            file: name.clone(),
            bug: bug.to_owned(),
            samples,
        });
    }
    Ok((files, unmapped))
}

/// The task a published id names: by the dataset id its importer recorded, else by task id.
fn task_for<'a>(benchmark: &'a Benchmark, bug: &str) -> Option<&'a Task> {
    benchmark
        .tasks
        .iter()
        .find(|t| t.provenance.as_ref().is_some_and(|p| p.dataset_id == bug))
        .or_else(|| benchmark.tasks.iter().find(|t| t.id == bug))
}

/// The location record of a vulnerability: by its id, else by the task's CVE (VJBench's ids
/// appear in `vul_location.json` under aliases such as `VUL4J-1007`). Several records for one
/// CVE that disagree are refused.
fn location_for<'a>(
    locations: &'a [Location],
    bug: &str,
    task: &Task,
) -> Result<&'a Location, String> {
    if let Some(found) = locations.iter().find(|l| l.vul_id == bug) {
        return Ok(found);
    }
    let Some(cve) = &task.cve else {
        return Err(format!(
            "no record `{bug}` in the locations file, and the task names no CVE"
        ));
    };
    let by_cve: Vec<&Location> = locations
        .iter()
        .filter(|l| l.cve.as_deref() == Some(cve.as_str()))
        .collect();
    match by_cve.as_slice() {
        [] => Err(format!("no record `{bug}` or {cve} in the locations file")),
        [one] => Ok(one),
        [first, rest @ ..] => {
            if rest
                .iter()
                .all(|l| l.buggy_file == first.buggy_file && l.buggy_line == first.buggy_line)
            {
                Ok(first)
            } else {
                Err(format!("records for {cve} in the locations file disagree"))
            }
        }
    }
}

/// The 1-based inclusive line range a patch of this shape replaces.
fn replaced_lines(location: &Location, shape: PatchShape) -> Result<(usize, usize), String> {
    let (ranges, field) = match shape {
        PatchShape::BuggyLines => (&location.buggy_line, "buggy_line"),
        PatchShape::Method => (
            &location.buggy_method_with_comment,
            "buggy_method_with_comment",
        ),
    };
    match ranges.as_slice() {
        [range] => match range.as_slice() {
            [line] => Ok((*line, *line)),
            [start, end] if start <= end => Ok((*start, *end)),
            _ => Err(format!("{field} {range:?} is not a line range")),
        },
        [] => Err(format!("the locations file gives no {field}")),
        _ => Err(format!(
            "{field} has {} ranges; a published patch replaces one",
            ranges.len()
        )),
    }
}

/// `text` with lines `start..=end` (1-based, inclusive) replaced by `patch`.
fn splice_lines(
    what: &str,
    text: &str,
    (start, end): (usize, usize),
    patch: &str,
) -> Result<String, String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    if start == 0 || end > lines.len() {
        return Err(format!(
            "lines {start}–{end} are outside {what} ({} lines)",
            lines.len()
        ));
    }
    let mut new = String::with_capacity(text.len() + patch.len());
    for line in &lines[..start - 1] {
        new.push_str(line);
    }
    new.push_str(patch);
    if !patch.is_empty() && !patch.ends_with('\n') {
        new.push('\n');
    }
    for line in &lines[end..] {
        new.push_str(line);
    }
    Ok(new)
}

/// The candidate a patch becomes: `file`'s text with lines `start..=end` replaced by `patch`.
pub(crate) fn candidate_from_patch(
    file: &str,
    original: &str,
    lines: (usize, usize),
    patch: &str,
) -> Result<Candidate, String> {
    let new = splice_lines(file, original, lines, patch)?;
    if new == original {
        return Ok(Candidate::Unchanged);
    }
    let diff = avrlab_transform::unified_diff(file, file, original, &new);
    Patch::parse(&diff)
        .map(Candidate::Diff)
        .map_err(|e| format!("the patched file does not make a diff: {e}"))
}

/// A vulnerable method as VJBench-trans rewrote it for one variant.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct TransformedMethod {
    /// `<BUG>_original_method.java`: the method as the project has it, comments left out.
    pub original: String,
    /// The variant's method.
    pub method: String,
    /// The buggy lines within `method` (1-based, inclusive).
    pub buggy_lines: (usize, usize),
    /// The variant's renames (empty for `structure_change_only`).
    pub renames: RenameMap,
}

/// `buggyline_location.json`: per variant, the buggy lines within its method.
type BuggyLineLocations = BTreeMap<String, Vec<Vec<usize>>>;

/// `<BUG>_identifier_rename_dict.json`: per kind of name, original name to new name.
#[derive(Deserialize)]
struct RenameDict {
    #[serde(default)]
    method: BTreeMap<String, String>,
    #[serde(default)]
    variable: BTreeMap<String, String>,
    #[serde(default)]
    class: BTreeMap<String, String>,
}

/// Reads the variant's method of one vulnerability from `VJBench-trans/<bug>/`.
pub(crate) fn read_transformed(
    trans: &Path,
    bug: &str,
    variant: PublishedVariant,
) -> Result<TransformedMethod, String> {
    let folder = trans.join(bug);
    let read = |name: String| {
        std::fs::read_to_string(folder.join(&name))
            .map_err(|e| format!("VJBench-trans/{bug}/{name}: {e}"))
    };
    let method_file = variant
        .method_file()
        .ok_or_else(|| "the original variant has no transformed method".to_owned())?;
    let original = read(format!("{bug}_original_method.java"))?;
    let method = read(format!("{bug}_{method_file}"))?;
    let locations: BuggyLineLocations =
        serde_json::from_str(&read("buggyline_location.json".into())?)
            .map_err(|e| format!("VJBench-trans/{bug}/buggyline_location.json: {e}"))?;
    let buggy_lines = match locations.get(variant.as_str()).map(Vec::as_slice) {
        Some([range]) => match range.as_slice() {
            [line] => (*line, *line),
            [start, end] if start <= end => (*start, *end),
            _ => {
                return Err(format!(
                    "VJBench-trans/{bug}/buggyline_location.json: {} {range:?} is not a line range",
                    variant.as_str()
                ));
            }
        },
        _ => {
            return Err(format!(
                "VJBench-trans/{bug}/buggyline_location.json gives no single line range for {}",
                variant.as_str()
            ));
        }
    };
    let mut renames = RenameMap::default();
    if variant.renames() {
        let name = format!("{bug}_identifier_rename_dict.json");
        let dict: RenameDict = serde_json::from_str(&read(name.clone())?)
            .map_err(|e| format!("VJBench-trans/{bug}/{name}: {e}"))?;
        for (kind, names) in [
            (RenameKind::Method, &dict.method),
            (RenameKind::Local, &dict.variable),
            (RenameKind::Type, &dict.class),
        ] {
            for (from, to) in names {
                if from.is_empty() || to.is_empty() {
                    continue;
                }
                renames.entries.push(RenameEntry {
                    kind,
                    original: from.clone(),
                    renamed: to.clone(),
                });
            }
        }
        let mut news: Vec<&str> = renames.entries.iter().map(|e| e.renamed.as_str()).collect();
        news.sort_unstable();
        if news.windows(2).any(|w| w[0] == w[1]) {
            return Err(format!(
                "VJBench-trans/{bug}/{name}: two names are renamed to the same one; the renames cannot be undone"
            ));
        }
    }
    Ok(TransformedMethod {
        original,
        method,
        buggy_lines,
        renames,
    })
}

/// Whether lines `start..=end` of `file_text` are `method` up to comments and layout.
fn is_same_method(file_text: &str, (start, end): (usize, usize), method: &str) -> bool {
    let lines: Vec<&str> = file_text.split_inclusive('\n').collect();
    if start == 0 || end > lines.len() || start > end {
        return false;
    }
    let region: String = lines[start - 1..end].concat();
    // A member alone is not a compilation unit: both go into the same made-up class.
    let key = |member: &str| avrlab_java::equivalence_key(&format!("class T {{\n{member}\n}}\n"));
    matches!((key(&region), key(method)), (Some(a), Some(b)) if a == b)
}

/// The leading whitespace of the last line of `file_text`'s lines `start..=end` that is not
/// blank: the method's closing brace, at the method's indentation.
fn indentation_at(file_text: &str, (start, end): (usize, usize)) -> String {
    file_text
        .lines()
        .skip(start.saturating_sub(1))
        .take(end + 1 - start.max(1))
        .filter(|l| !l.trim().is_empty())
        .last()
        .map(|l| l[..l.len() - l.trim_start().len()].to_owned())
        .unwrap_or_default()
}

/// The first line of `file_text`'s lines `start..=end` that is neither blank nor part of a
/// comment: where a method named with its comment (`buggy_method_with_comment`) starts. The
/// published original method has no comment, so only the method itself is replaced.
fn code_start(file_text: &str, (start, end): (usize, usize)) -> usize {
    let mut in_block = false;
    for (index, line) in file_text
        .lines()
        .enumerate()
        .skip(start.saturating_sub(1))
        .take(end + 1 - start.max(1))
    {
        let text = line.trim();
        if in_block {
            in_block = !text.contains("*/");
            continue;
        }
        if text.is_empty() || text.starts_with("//") {
            continue;
        }
        if let Some(rest) = text.strip_prefix("/*") {
            match rest.find("*/") {
                // A comment that closes on its line with code after it starts the method.
                Some(close) if !rest[close + 2..].trim().is_empty() => return index + 1,
                Some(_) => {}
                None => in_block = true,
            }
            continue;
        }
        return index + 1;
    }
    start
}

/// The candidate a patch of a transformed variant becomes: the patch put into the transformed
/// method by its shape, the renames undone, and the result (indented as the method was) in place
/// of lines `region` of `file`, which hold the original method.
pub(crate) fn candidate_from_transformed(
    file: &str,
    original: &str,
    region: (usize, usize),
    transformed: &TransformedMethod,
    shape: PatchShape,
    patch: &str,
) -> Result<Candidate, String> {
    let patched = match shape {
        PatchShape::BuggyLines => splice_lines(
            "the transformed method",
            &transformed.method,
            transformed.buggy_lines,
            patch,
        )?,
        PatchShape::Method => patch.to_owned(),
    };
    let restored = transformed.renames.restore(&patched);
    let indent = indentation_at(original, region);
    let mut method = String::with_capacity(restored.len() + 64);
    for line in restored.trim_matches('\n').split_inclusive('\n') {
        if !line.trim().is_empty() {
            method.push_str(&indent);
        }
        method.push_str(line);
    }
    candidate_from_patch(file, original, region, &method)
}

/// One replay to run or resume.
#[derive(Debug, Clone)]
pub struct ReplayRequest {
    /// A folder holding `Model_patches/` (or `model_output/`), or a git folder of the package.
    pub generations: PathBuf,
    /// `vul_location.json`.
    pub locations: PathBuf,
    /// The published model's folder name (`CodeT5`, `fine-tuned_PLBART`, …).
    pub model: String,
    pub variant: String,
    pub run_id: Option<String>,
    pub resume: bool,
    /// Store and validate the samples of this part of the tasks only (balanced by their samples;
    /// every task is still materialized, as the run's input covers the whole plan).
    pub shard: Option<Shard>,
}

/// What a replay did.
#[derive(Debug)]
pub struct ReplayReport {
    pub run: RunReport,
    /// Published files replayed.
    pub files: usize,
    /// Samples stored.
    pub samples: usize,
    pub unmapped: Vec<Unmapped>,
}

/// The folder of the model's variant, and with a transformed variant the package's
/// `VJBench-trans` folder: exported from a git folder first when given one.
fn variant_folder(
    request: &ReplayRequest,
    variant: PublishedVariant,
    scratch: &Path,
) -> Result<(PathBuf, Option<PathBuf>), ReplayError> {
    let relative = format!("model_output/{}/{}", request.model, variant.as_str());
    let root = &request.generations;
    let is_git = root.join("objects").is_dir() && root.join("HEAD").is_file();
    let export = |inside: &str, name: &str| -> Result<PathBuf, ReplayError> {
        let dest = scratch.join(name);
        let _ = std::fs::remove_dir_all(&dest);
        avrlab_exec::export_folder(root, "HEAD", inside, &dest).map_err(|source| {
            ReplayError::Export {
                path: root.clone(),
                source,
            }
        })?;
        Ok(dest)
    };
    let trans_relative = "VJBench-trans";
    let (published_root, trans) = if is_git {
        let published = export(&format!("Model_patches/{relative}"), "published")?;
        let trans = match variant {
            PublishedVariant::Original => None,
            _ => Some(export(trans_relative, "trans")?.join(trans_relative)),
        };
        (published, trans)
    } else {
        let trans = match variant {
            PublishedVariant::Original => None,
            // Beside Model_patches/, or above the model_output/ folder given.
            _ => [
                root.join(trans_relative),
                root.parent().unwrap_or(root).join(trans_relative),
            ]
            .into_iter()
            .find(|p| p.is_dir()),
        };
        (root.clone(), trans)
    };
    let folder = [
        published_root.join("Model_patches").join(&relative),
        published_root.join(&relative),
    ]
    .into_iter()
    .find(|p| p.is_dir())
    .ok_or_else(|| ReplayError::NoFolder {
        root: request.generations.clone(),
        expected: format!("Model_patches/{relative}"),
    })?;
    if variant != PublishedVariant::Original && trans.is_none() {
        return Err(ReplayError::NoFolder {
            root: request.generations.clone(),
            expected: format!(
                "{trans_relative} (the transformed methods of the {} patches)",
                variant.as_str()
            ),
        });
    }
    Ok((folder, trans))
}

/// What a request replays, checked before anything is read or stored.
#[derive(Debug, Clone, Copy)]
pub struct CheckedRequest {
    pub shape: PatchShape,
    /// The avrlab input format of the model's prompts.
    pub format: &'static str,
    pub variant: PublishedVariant,
}

/// The patch shape, format and variant of a request, or why it cannot be replayed; checked
/// before anything is read or stored.
pub fn check_request(request: &ReplayRequest) -> Result<CheckedRequest, ReplayError> {
    let (shape, format) = model_shape(&request.model).ok_or_else(|| ReplayError::UnknownModel {
        model: request.model.clone(),
        known: MODELS.map(|(name, ..)| name).join(", "),
    })?;
    let variant = PublishedVariant::parse(&request.variant)
        .ok_or_else(|| ReplayError::Variant(request.variant.clone()))?;
    Ok(CheckedRequest {
        shape,
        format,
        variant,
    })
}

impl ReplayReport {
    /// The one line a replay ends with (`store`: where it was stored).
    pub fn summary(&self, store: &Path) -> String {
        format!(
            "run {}: {} published files, {} samples, {} candidates ({} validated now, {} resumed), {} not replayed, in {:.1} s; stages: {}; stored in {}",
            self.run.run_id,
            self.files,
            self.samples,
            self.run.candidates,
            self.run.validated,
            self.run.already_decided,
            self.unmapped.len(),
            self.run.wall.as_secs_f64(),
            crate::run::run_loop::describe_stages(&self.run.stages),
            store.display()
        )
    }
}

/// Imports the published generations of one model and variant as an eval run of `benchmark`,
/// validates them, and returns the run. The entry point `avrlab replay` and studies call.
pub fn import_generations(
    store: &mut Store,
    benchmark: &Benchmark,
    request: &ReplayRequest,
    config: &RunSettings,
    oracle: &dyn Oracle,
    progress: &dyn Progress,
) -> Result<ReplayReport, ReplayError> {
    let CheckedRequest {
        shape,
        format,
        variant,
    } = check_request(request)?;
    let locations = read_locations(&request.locations)?;
    std::fs::create_dir_all(&config.validator.work_root).map_err(|source| ReplayError::Read {
        path: config.validator.work_root.clone(),
        source,
    })?;
    let (folder, trans) = variant_folder(request, variant, &config.validator.work_root)?;
    let (files, mut unmapped) = read_published(&folder)?;

    // Which task each file is for; only those tasks are materialized.
    let mut by_task: BTreeMap<String, (&Task, &PublishedFile)> = BTreeMap::new();
    let mut no_task: Vec<&str> = Vec::new();
    for file in &files {
        match task_for(benchmark, &file.bug) {
            None => no_task.push(&file.bug),
            Some(task) => {
                if by_task.insert(task.id.clone(), (task, file)).is_some() {
                    unmapped.push(Unmapped {
                        what: file.file.clone(),
                        reason: format!("a second file for task {}", task.id),
                    });
                }
            }
        }
    }
    if !no_task.is_empty() {
        // One line for them all: a published set covers far more vulnerabilities than build here.
        unmapped.push(Unmapped {
            what: format!("{} published files", no_task.len()),
            reason: format!(
                "no task of benchmark {} is {}",
                benchmark.name,
                no_task.join(", ")
            ),
        });
    }
    for task in &benchmark.tasks {
        if !by_task.contains_key(&task.id) {
            unmapped.push(Unmapped {
                what: format!("task {}", task.id),
                reason: format!("no published file of {} for it", request.model),
            });
        }
    }
    if by_task.is_empty() {
        return Err(ReplayError::NothingToReplay {
            model: request.model.clone(),
            variant: request.variant.clone(),
            benchmark: benchmark.name.clone(),
            reasons: unmapped
                .iter()
                .take(20)
                .map(|u| format!("  {u}"))
                .collect::<Vec<_>>()
                .join("\n"),
        });
    }
    let mut source = Published {
        request,
        shape,
        format,
        variant,
        locations,
        trans,
        by_task,
        unmapped,
        rows_by_task: BTreeMap::new(),
        samples: 0,
    };
    let target = RunTarget {
        run_id: request.run_id.clone(),
        resume: request.resume,
    };
    let run = run_generations(
        store,
        benchmark,
        target,
        &mut source,
        config,
        oracle,
        progress,
    )?;
    Ok(ReplayReport {
        run,
        files: source.by_task.len(),
        samples: source.samples,
        unmapped: source.unmapped,
    })
}

/// Published generations, mapped onto the tasks of a benchmark.
struct Published<'a> {
    request: &'a ReplayRequest,
    shape: PatchShape,
    format: &'static str,
    variant: PublishedVariant,
    locations: Vec<Location>,
    /// The package's `VJBench-trans` folder, for a transformed variant.
    trans: Option<PathBuf>,
    /// The published file of each task that has one.
    by_task: BTreeMap<String, (&'a Task, &'a PublishedFile)>,
    /// What could not be replayed, one line each.
    unmapped: Vec<Unmapped>,
    /// Every sample's row and candidate, made before anything is stored.
    rows_by_task: BTreeMap<String, (Vec<NewCandidate>, Vec<GenerationRow>)>,
    /// Samples read.
    samples: usize,
}

impl GenerationSource for Published<'_> {
    type Error = ReplayError;

    fn tasks(&self) -> Vec<&Task> {
        self.by_task.values().map(|(t, _)| *t).collect()
    }

    fn plan(&mut self, prepared: &Prepared) -> Result<(String, RunConfig), ReplayError> {
        let Self {
            request,
            shape,
            format,
            variant,
            locations,
            trans,
            by_task,
            unmapped,
            rows_by_task,
            ..
        } = self;
        let (request, shape, format, variant) = (*request, *shape, *format, *variant);
        // Every sample's row and candidate, before anything is stored.
        let sample_id =
            |task: &str, sample: usize| format!("{task}/{format}/0/0/{}/{sample}", request.model);
        let mut labels = BTreeMap::new();
        let mut hasher = Sha256::new();
        hasher.update(format!(
            "replay\0{}\0{}\0{format}",
            request.model, request.variant
        ));
        let mut samples_per_prompt = 0usize;
        for (task_id, (task, file)) in by_task.iter() {
            let root = prepared[task_id].pristine();
            let bug = file.bug.as_str();
            let mapped = location_for(locations, &file.bug, task).and_then(|location| {
                let file = location.buggy_file.clone().ok_or_else(|| {
                    format!(
                        "the locations file gives no buggy_file for {} (a fix across several files)",
                        location.vul_id
                    )
                })?;
                let original = std::fs::read_to_string(root.join(&file))
                    .map_err(|e| format!("{file} in the task state: {e}"))?;
                let Some(trans) = &trans else {
                    let lines = replaced_lines(location, shape)?;
                    return Ok((file, lines, original, None));
                };
                // A transformed method takes the place of the original method (its comment stays).
                let (start, end) = replaced_lines(location, PatchShape::Method)?;
                let region = (code_start(&original, (start, end)), end);
                // VJBench-trans names its folders as the generation files name the vulnerability.
                let transformed = read_transformed(trans, bug, variant)?;
                if !is_same_method(&original, region, &transformed.original) {
                    return Err(format!(
                        "lines {}–{} of {file} in the task state are not the published original method (VJBench-trans/{bug}/{bug}_original_method.java), up to comments and layout",
                        region.0, region.1
                    ));
                }
                Ok((file, region, original, Some(transformed)))
            });
            let (path, lines, original, transformed) = match mapped {
                Ok(found) => found,
                Err(reason) => {
                    unmapped.push(Unmapped {
                        what: file.file.clone(),
                        reason,
                    });
                    continue;
                }
            };
            samples_per_prompt = samples_per_prompt.max(file.samples.len());
            let mut seen: HashMap<ProjectDigest, String> = HashMap::new();
            let (candidates, rows) = rows_by_task.entry(task_id.clone()).or_default();
            for (sample, published) in file.samples.iter().enumerate() {
                let id = sample_id(task_id, sample);
                hasher.update(format!(
                    "\0{id}\0{}\0{}",
                    published.patch,
                    published.label.as_str()
                ));
                let mut row = GenerationRow {
                    id: id.clone(),
                    task: task_id.clone(),
                    model: request.model.clone(),
                    format: format.into(),
                    fl_offset: 0,
                    fl_effective: 0,
                    run_index: 0,
                    sample: sample as u32,
                    prompt_hash: String::new(),
                    raw: published.raw.clone(),
                    finish_reason: "published".into(),
                    tokens_in: None,
                    tokens_out: None,
                    cost_usd: None,
                    latency_ms: 0,
                    cached: true,
                    error: None,
                    extraction: Extraction::NoAnswer,
                    candidate_id: None,
                    correct: Correctness::Unknown,
                    class: None,
                    error_cause: None,
                    attempt: 1,
                };
                labels.insert(id.clone(), published.label.as_str().to_owned());
                let candidate = match &transformed {
                    None => candidate_from_patch(&path, &original, lines, &published.patch),
                    Some(method) => candidate_from_transformed(
                        &path,
                        &original,
                        lines,
                        method,
                        shape,
                        &published.patch,
                    ),
                };
                match candidate {
                    Err(reason) => {
                        row.error = Some(reason.clone());
                        unmapped.push(Unmapped {
                            what: format!("{} sample {sample}", file.file),
                            reason,
                        });
                    }
                    Ok(candidate) => {
                        row.correct = correctness(task, root, &candidate);
                        let (kind, content) = stored_form(&candidate);
                        // As eval does: candidates that make the same project are validated once;
                        // one that does not apply is a candidate of its own.
                        let identity = prepared[task_id].candidate_identity(&candidate);
                        let first = identity.project().and_then(|p| seen.get(p));
                        if let Some(first) = first {
                            row.extraction = Extraction::Duplicate;
                            row.candidate_id = Some(first.clone());
                        } else {
                            if let Some(project) = identity.project() {
                                seen.insert(project.clone(), id.clone());
                            }
                            candidates.push(NewCandidate {
                                id: id.clone(),
                                task: task_id.clone(),
                                label: format!("{}/{sample}", request.model),
                                kind,
                                content,
                            });
                            row.extraction = Extraction::Candidate;
                            row.candidate_id = Some(id.clone());
                        }
                    }
                }
                // A published patch that maps onto no candidate counts against the model, as
                // it did before samples had classes; one with a candidate awaits its verdict.
                if row.candidate_id.is_none() {
                    row.class = Some(ItemClass::ModelFailure);
                }
                rows.push(row);
            }
        }
        let hash = hex::encode(&hasher.finalize()[..16]);
        let config = RunConfig {
            model: Some(request.model.clone()),
            format: Some(format.to_owned()),
            samples: Some(samples_per_prompt as u32),
            runs: Some(1),
            replay: Some(ReplaySource {
                generations: request.generations.display().to_string(),
                variant: variant.as_str().to_owned(),
                locations: request.locations.display().to_string(),
            }),
            cwe: task_cwes(by_task.values().map(|(t, _)| *t)),
            published: labels,
            unmapped: unmapped.iter().map(ToString::to_string).collect(),
            shard: request.shard,
            ..RunConfig::default()
        };
        Ok((hash, config))
    }

    fn stage(&self) -> &'static str {
        "map and store"
    }

    fn store_generations(
        &mut self,
        store: &mut Store,
        run_id: &str,
        _: &Prepared,
        _: &dyn Progress,
    ) -> Result<(), ReplayError> {
        let stored: HashSet<String> = store
            .generations(run_id)?
            .into_iter()
            .map(|g| g.id)
            .collect();
        let mine = self.request.shard.map(|shard| {
            let per_task = self
                .rows_by_task
                .iter()
                .map(|(task, (_, rows))| (task.clone(), rows.len()))
                .collect();
            shard_tasks(&per_task, shard)
        });
        for (task, (candidates, rows)) in &self.rows_by_task {
            if mine.as_ref().is_some_and(|mine| !mine.contains(task)) {
                continue;
            }
            self.samples += rows.len();
            // A resumed replay stored each task's samples in one transaction, or none of them.
            if rows.iter().all(|r| stored.contains(&r.id)) {
                continue;
            }
            store.add_generations(run_id, candidates, rows)?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use avrlab_report::build_eval_report;
    use avrlab_validate::Outcome;

    use super::*;
    use crate::run::fake_oracle::{FakeOracle, Quiet, demo, engine_config};

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../avrlab/tests/fixtures/replay")
    }

    fn request(model: &str, run: &str) -> ReplayRequest {
        ReplayRequest {
            generations: fixture(),
            locations: fixture().join("vul_location.json"),
            model: model.into(),
            variant: "original".into(),
            run_id: Some(run.into()),
            resume: false,
            shard: None,
        }
    }

    /// Decides as the demo task's tests would: the containment check fixes it, the unchanged
    /// state and a stripped `..` do not, an unclosed call does not compile.
    fn oracle() -> FakeOracle {
        FakeOracle::new(|_, candidate| {
            Some(match candidate {
                Candidate::Diff(patch) => {
                    let text = patch.to_string();
                    if text.contains("startsWith(root)") {
                        Outcome::Plausible
                    } else if text.contains("getName()\n") {
                        Outcome::Uncompilable
                    } else {
                        Outcome::PovFailing
                    }
                }
                _ => Outcome::PovFailing,
            })
        })
    }

    /// Replays `request` on the demo benchmark into a fresh store, with the fake oracle above.
    fn replayed(request: &ReplayRequest) -> (tempfile::TempDir, Store, ReplayReport) {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mut config = engine_config(1, true);
        config.validator.work_root = dir.path().join("work");
        let report =
            import_generations(&mut store, &demo(), request, &config, &oracle(), &Quiet).unwrap();
        (dir, store, report)
    }

    #[test]
    fn buggy_line_patches_become_candidates_with_published_labels_beside_our_verdicts() {
        let (_dir, store, report) = replayed(&request("CodeT5", "r"));
        assert_eq!((report.files, report.samples), (1, 5));
        let rows = store.generations("r").unwrap();
        let extractions: Vec<Extraction> = rows.iter().map(|g| g.extraction).collect();
        // The second sample lays the fix out differently: another project, so a candidate of
        // its own.
        assert_eq!(extractions, [Extraction::Candidate; 5]);
        assert_eq!(rows[0].id, "demo-zip-slip/mask-codet5/0/0/CodeT5/0");
        assert_eq!(rows[0].format, "mask-codet5");
        assert!(
            rows[0].raw.starts_with("<pad><s>Path target"),
            "{}",
            rows[0].raw
        );
        assert_eq!(rows[1].candidate_id.as_deref(), Some(rows[1].id.as_str()));
        // Line 26 is replaced by the patch, nothing else changes.
        let candidates = store.candidates("r").unwrap();
        let first = &candidates[0].content;
        assert!(
            first.contains("-                Path target = root.resolve(entry.getName());\n")
                && first.contains("+if (!target.normalize().startsWith(root)) {\n")
                && first.contains("+Path target = root.resolve(entry.getName());\n"),
            "{first}"
        );
        assert_eq!(first.matches("\n-").count(), 1, "{first}");
        // The unchanged line, indented differently, is a change too.
        assert_eq!(candidates[2].kind, avrlab_core::CandidateKind::Diff);
        assert!(
            candidates[2]
                .content
                .contains("\n+Path target = root.resolve(entry.getName());\n")
        );

        let unmapped: Vec<String> = report.unmapped.iter().map(ToString::to_string).collect();
        assert!(
            unmapped.contains(&"1 published files: no task of benchmark demo is Unknown-1".into()),
            "{unmapped:#?}"
        );
        assert!(
            unmapped
                .iter()
                .any(|u| u.starts_with("output-fixture-original_Broken-1.json: not a file of")),
            "{unmapped:#?}"
        );
        assert!(
            unmapped.contains(&"task demo-sql-literal: no published file of CodeT5 for it".into())
        );

        let tables = build_eval_report(&store, &["r".into()]).unwrap();
        let m = &tables.models[0];
        assert_eq!(
            (m.model.as_str(), m.format.as_str()),
            ("CodeT5", "mask-codet5")
        );
        assert_eq!(
            (m.tasks, m.plausible_tasks, m.samples_per_prompt),
            (1, 1, 5)
        );
        let agreement = m
            .published
            .as_ref()
            .expect("a replay keeps the published labels");
        // Samples 0 and 1 plausible by both; 2 and 3 agree; 4 is plausible only as published.
        assert_eq!((agreement.compared, agreement.agree), (5, 4));
        assert_eq!(
            (
                agreement.plausible_both,
                agreement.plausible_ours_only,
                agreement.plausible_published_only,
                agreement.published_plausible_tasks
            ),
            (2, 0, 1, 1)
        );
        assert_eq!(agreement.table["compile_success / test_success"], 1);
        let markdown = avrlab_report::render(&tables, avrlab_report::ReportFormat::Markdown);
        assert!(
            markdown.contains(
                "r: our verdicts agree with the published labels on 4 of 5 samples (80.0%)"
            ),
            "{markdown}"
        );
    }

    #[test]
    fn whole_method_patches_replace_the_method_and_its_comment() {
        let (_dir, store, report) = replayed(&request("PLBART", "p"));
        assert_eq!(report.samples, 1);
        let candidate = &store.candidates("p").unwrap()[0].content;
        // Lines 16–37: the Javadoc and the method go, the one-line method comes in.
        assert!(candidate.contains("-    /**\n"), "{candidate}");
        assert!(
            candidate.contains("-    public List<Path> extract("),
            "{candidate}"
        );
        assert!(
            candidate.contains("+public List<Path> extract("),
            "{candidate}"
        );
        assert!(
            !candidate.contains("-}\n"),
            "the class's closing brace stays: {candidate}"
        );
        assert_eq!(store.verdicts("p").unwrap()[0].outcome, Outcome::Plausible);
    }

    #[test]
    fn bad_requests_are_refused_before_anything_runs() {
        let benchmark = demo();
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mut config = engine_config(1, true);
        config.validator.work_root = dir.path().join("work");
        let oracle = oracle();
        let run = |store: &mut Store, request: &ReplayRequest| {
            import_generations(store, &benchmark, request, &config, &oracle, &Quiet)
        };
        let mut codex = request("Codex", "a");
        assert!(matches!(
            run(&mut store, &codex),
            Err(ReplayError::UnknownModel { .. })
        ));
        codex.model = "CodeT5".into();
        codex.variant = "renamed".into();
        assert!(matches!(
            run(&mut store, &codex),
            Err(ReplayError::Variant(_))
        ));
        let mut missing = request("InCoder", "b");
        assert!(matches!(
            run(&mut store, &missing),
            Err(ReplayError::NoFolder { .. })
        ));
        missing.model = "CodeT5".into();
        missing.locations = dir.path().join("nope.json");
        assert!(matches!(
            run(&mut store, &missing),
            Err(ReplayError::Locations { .. })
        ));
        assert!(
            store.runs().unwrap().is_empty(),
            "nothing stored for a refused request"
        );
        assert!(oracle.calls().is_empty());
    }

    #[test]
    fn a_patch_replaces_exactly_the_named_lines() {
        let original = "a\nb\nc\nd\n";
        let Candidate::Diff(patch) = candidate_from_patch("F.java", original, (2, 3), "x").unwrap()
        else {
            panic!("a diff")
        };
        let text = patch.to_string();
        assert!(text.contains("-b\n-c\n+x\n"), "{text}");
        // An empty patch deletes the lines; the same lines again are no change at all.
        let Candidate::Diff(deleted) =
            candidate_from_patch("F.java", original, (2, 2), "").unwrap()
        else {
            panic!("a diff")
        };
        assert!(deleted.to_string().contains("-b\n"));
        assert!(matches!(
            candidate_from_patch("F.java", original, (2, 2), "b"),
            Ok(Candidate::Unchanged)
        ));
        assert!(candidate_from_patch("F.java", original, (4, 5), "x").is_err());
        assert!(candidate_from_patch("F.java", original, (0, 1), "x").is_err());
    }

    fn variant_request(model: &str, variant: &str, run: &str) -> ReplayRequest {
        ReplayRequest {
            variant: variant.into(),
            ..request(model, run)
        }
    }

    #[test]
    fn transformed_patches_are_renamed_back_into_the_original_method() {
        // The study's name of the variant reads the published folder `rename_only`.
        let (_dir, store, report) = replayed(&variant_request("CodeT5", "rename", "t"));
        assert_eq!((report.files, report.samples), (1, 3));
        let rows = store.generations("t").unwrap();
        assert!(rows.iter().all(|g| g.extraction == Extraction::Candidate));
        let candidates = store.candidates("t").unwrap();
        // The renamed line put back unchanged differs from the task's own only in its layout.
        let unchanged = &candidates[1].content;
        let changed = |sign: &str, header: &str| {
            unchanged
                .lines()
                .filter(|l| l.starts_with(sign) && !l.starts_with(header))
                .count()
        };
        assert_eq!(
            (changed("-", "---"), changed("+", "+++")),
            (1, 1),
            "{unchanged}"
        );
        assert!(
            unchanged.contains("-                Path target = root.resolve(entry.getName());\n")
                && unchanged.contains("+    Path target = root.resolve(entry.getName());\n"),
            "{unchanged}"
        );
        let fix = &candidates[0].content;
        assert!(
            fix.contains("+    if (!target.normalize().startsWith(root)) {\n"),
            "renamed back: {fix}"
        );
        for renamed in ["unpack", "base", "produced", "dest"] {
            assert!(
                !fix.lines()
                    .any(|l| l.starts_with('+') && l.contains(&format!("{renamed}."))),
                "{renamed} is renamed back: {fix}"
            );
        }
        assert!(
            !fix.contains("-    /**"),
            "the method's comment stays: {fix}"
        );
        let verdicts: Vec<Outcome> = store
            .verdicts("t")
            .unwrap()
            .into_iter()
            .map(|v| v.outcome)
            .collect();
        assert_eq!(
            verdicts,
            [
                Outcome::Plausible,
                Outcome::PovFailing,
                Outcome::Uncompilable
            ]
        );
    }

    #[test]
    fn a_restructured_whole_method_replaces_the_original_one() {
        let (_dir, store, _report) =
            replayed(&variant_request("PLBART", "rename+code_structure", "b"));
        let candidate = &store.candidates("b").unwrap()[0].content;
        assert!(!candidate.contains("unpack"), "{candidate}");
        assert!(
            candidate.contains("+            while (entry != null) {\n"),
            "{candidate}"
        );
        assert_eq!(store.verdicts("b").unwrap()[0].outcome, Outcome::Plausible);
    }

    #[test]
    fn two_replays_started_in_the_same_second_get_their_own_runs() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mut config = engine_config(1, true);
        config.validator.work_root = dir.path().join("work");
        let fresh = ReplayRequest {
            run_id: None,
            ..request("CodeT5", "unused")
        };
        let mut ids = Vec::new();
        for _ in 0..2 {
            let report =
                import_generations(&mut store, &demo(), &fresh, &config, &oracle(), &Quiet)
                    .unwrap();
            ids.push(report.run.run_id);
        }
        assert_ne!(ids[0], ids[1]);
        assert_eq!(store.generations(&ids[1]).unwrap().len(), 5);
    }

    #[test]
    fn transformed_variants_without_their_methods_are_refused_or_listed() {
        let dir = tempfile::tempdir().unwrap();
        // Generations without the package's VJBench-trans folder: refused before anything runs.
        let published = dir
            .path()
            .join("published/Model_patches/model_output/CodeT5/rename_only");
        std::fs::create_dir_all(&published).unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let mut config = engine_config(1, true);
        config.validator.work_root = dir.path().join("work");
        let no_trans = ReplayRequest {
            generations: dir.path().join("published"),
            ..variant_request("CodeT5", "rename", "n")
        };
        let error = import_generations(&mut store, &demo(), &no_trans, &config, &oracle(), &Quiet)
            .unwrap_err();
        assert!(error.to_string().contains("VJBench-trans"), "{error}");
        assert!(store.runs().unwrap().is_empty());

        // A vulnerability whose folder lacks a file, or whose renames cannot be undone, is
        // named with the reason.
        let trans = dir.path().join("trans");
        let bug = trans.join("B-1");
        std::fs::create_dir_all(&bug).unwrap();
        let missing = read_transformed(&trans, "B-1", PublishedVariant::RenameOnly).unwrap_err();
        assert!(missing.contains("B-1_original_method.java"), "{missing}");
        for (name, text) in [
            ("B-1_original_method.java", "int f(int a) { return a; }\n"),
            ("B-1_rename_only.java", "int g(int b) { return b; }\n"),
            ("buggyline_location.json", r#"{"rename_only": [[1, 1]]}"#),
            (
                "B-1_identifier_rename_dict.json",
                r#"{"method": {"f": "g"}, "variable": {"a": "g"}}"#,
            ),
        ] {
            std::fs::write(bug.join(name), text).unwrap();
        }
        let ambiguous = read_transformed(&trans, "B-1", PublishedVariant::RenameOnly).unwrap_err();
        assert!(ambiguous.contains("cannot be undone"), "{ambiguous}");
        std::fs::write(
            bug.join("buggyline_location.json"),
            r#"{"original": [[1, 1]]}"#,
        )
        .unwrap();
        std::fs::write(
            bug.join("B-1_code_structure_change_only.java"),
            "int f(int a) { return a; }\n",
        )
        .unwrap();
        let no_lines =
            read_transformed(&trans, "B-1", PublishedVariant::StructureOnly).unwrap_err();
        assert!(
            no_lines.contains("no single line range for structure_change_only"),
            "{no_lines}"
        );
    }

    #[test]
    fn a_method_is_matched_up_to_comments_and_layout_and_starts_after_its_comment() {
        let file = "class A {\n    /**\n     * Doc.\n     */\n    int f(int x) {\n        // why\n        return x + 1;\n    }\n}\n";
        assert_eq!(code_start(file, (2, 8)), 5);
        assert!(is_same_method(
            file,
            (2, 8),
            "int f(int x) {\n  return x+1;\n}"
        ));
        assert!(is_same_method(
            file,
            (5, 8),
            "int f(int x) { return x + 1; }"
        ));
        assert!(!is_same_method(
            file,
            (5, 8),
            "int f(int x) { return x + 2; }"
        ));
        assert!(!is_same_method(
            file,
            (5, 9),
            "int f(int x) { return x + 1; }"
        ));
        assert_eq!(indentation_at(file, (5, 8)), "    ");
        assert_eq!(code_start("  /* a */ int x;\n", (1, 1)), 1);
    }

    #[test]
    fn published_variants_read_both_spellings() {
        for (name, variant) in [
            ("rename", PublishedVariant::RenameOnly),
            ("structure_change_only", PublishedVariant::StructureOnly),
            ("both", PublishedVariant::Both),
            ("original", PublishedVariant::Original),
        ] {
            let parsed = PublishedVariant::parse(name).unwrap();
            assert_eq!(parsed, variant);
            assert_eq!(PublishedVariant::parse(parsed.as_str()), Some(parsed));
        }
        assert_eq!(PublishedVariant::parse("structure_change"), None);
    }

    #[test]
    fn published_labels_are_a_closed_vocabulary() {
        for label in [
            PublishedLabel::TestSuccess,
            PublishedLabel::CompileSuccess,
            PublishedLabel::Uncompilable,
            PublishedLabel::TestTimeout,
        ] {
            assert_eq!(PublishedLabel::parse(label.as_str()), Ok(label));
        }
        assert!(PublishedLabel::parse("plausible").is_err());
        assert_eq!(PublishedLabel::of_outcome(Outcome::Indeterminate), None);
        assert_eq!(
            PublishedLabel::of_outcome(Outcome::RegressionBroken),
            Some(PublishedLabel::CompileSuccess)
        );
    }

    #[test]
    fn replay_shards_store_their_tasks_and_merge_into_the_whole_run() {
        let dir = tempfile::tempdir().unwrap();
        let (_whole_dir, whole, _) = replayed(&request("CodeT5", "r"));
        let mut shards = Vec::new();
        for index in 1..=2 {
            let path = dir.path().join(format!("shard-{index}.sqlite"));
            let mut store = Store::open(&path).unwrap();
            let mut config = engine_config(1, true);
            config.validator.work_root = dir.path().join(format!("work-{index}"));
            let shard = ReplayRequest {
                shard: Some(Shard { index, count: 2 }),
                ..request("CodeT5", "r")
            };
            import_generations(&mut store, &demo(), &shard, &config, &oracle(), &Quiet).unwrap();
            shards.push(path);
        }
        // The fixture's one task lands in one shard; the other stores the same run, empty.
        let counts: Vec<usize> = shards
            .iter()
            .map(|p| Store::open(p).unwrap().candidates("r").unwrap().len())
            .collect();
        assert!(
            counts.contains(&0) && counts.iter().sum::<usize>() > 0,
            "{counts:?}"
        );
        let merged = dir.path().join("merged.sqlite");
        crate::run::merge::merge_shards(&merged, &shards, false).unwrap();
        let merged = Store::open(&merged).unwrap();
        let outcomes = |store: &Store| {
            let mut v: Vec<(String, Outcome)> = store
                .verdicts("r")
                .unwrap()
                .into_iter()
                .map(|v| (v.candidate_id, v.outcome))
                .collect();
            v.sort();
            v
        };
        assert_eq!(outcomes(&merged), outcomes(&whole));
        assert_eq!(
            merged.run("r").unwrap().unwrap().config.published,
            whole.run("r").unwrap().unwrap().config.published
        );
    }
}
