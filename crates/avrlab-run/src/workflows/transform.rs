//! Transformed benchmarks: each task rewritten by `avrlab-transform` (renamed identifiers,
//! restructured code), written in the task format, and kept only once execution shows that it still
//! behaves like the original — its vulnerable state compiles and fails its PoV tests, and its
//! translated reference fix is `Plausible`.
//!
//! A rewrite that fails verification is not kept. All rules are tried at once first (one
//! verification when everything is fine); on failure the applied rules are bisected, so a bad rule
//! costs about `2 log2(rules)` verifications, and every rule that fails on its own is rolled back and
//! reported with the outcome that condemned it.

use std::collections::{BTreeMap, BTreeSet, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use avrlab_bench::{
    CheckoutError, ManifestProject, Task, TaskError, TaskManifest, apply_to_text, copy_project,
};
use avrlab_core::{Blame, Blamed};
use avrlab_transform::{
    LineRange, Localization, RenameKind, Rule, RuleOutcome, TargetMethod, TaskSources,
    TransformError, TransformOutput, Variant, split_identifier, transform_with_rules, unified_diff,
};
use avrlab_validate::{
    Candidate, MaterializeError, Oracle, Outcome, ValidateError, materialize_task,
};

/// Why a task could not be transformed (a rolled-back rule is not an error: it is in the report).
#[derive(Debug, thiserror::Error)]
pub enum TransformTaskError {
    /// The task state could not be materialized (a copy, a git checkout, a state diff).
    #[error(transparent)]
    Materialize(Box<MaterializeError>),
    /// The task state could not be copied into the transformed task.
    #[error("copy the state of task {task}")]
    Checkout {
        /// The task.
        task: String,
        /// What went wrong.
        #[source]
        source: Box<CheckoutError>,
    },
    /// A file of the task state could not be read, or a folder of the output written.
    #[error("access {}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// The error.
        #[source]
        source: std::io::Error,
    },
    /// The task has no reference fix or no localization, or its reference fix cannot be carried
    /// over (it creates or deletes a file, or changes a file that is not Java).
    #[error("transform task {task}: {reason}")]
    Unsupported {
        /// The task.
        task: String,
        /// Why.
        reason: String,
    },
    /// The transformer refused the task (unparsable Java, a method not where the task says).
    #[error("task {task}")]
    Transform {
        /// The task.
        task: String,
        /// Why.
        #[source]
        source: Box<TransformError>,
    },
    /// The written task does not load (a bug in the writer).
    #[error("load the transformed task {task}")]
    Load {
        /// The task.
        task: String,
        /// Why.
        #[source]
        source: Box<TaskError>,
    },
    /// Verification could not run (infrastructure: Maven, JDK, sandbox, disk).
    #[error("verify the transformed task {task}")]
    Validate {
        /// The task.
        task: String,
        /// Why.
        #[source]
        source: Box<ValidateError>,
    },
}

impl Blamed for TransformTaskError {
    fn blame(&self) -> Blame {
        Blame::input_if(self.is_input())
    }
}

impl TransformTaskError {
    /// Whether the error is the input's fault (a bad task) rather than the machine's.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Self::Unsupported { .. } | Self::Transform { .. } | Self::Checkout { .. }
        ) || matches!(self, Self::Materialize(e) if e.is_input())
    }
}

fn io_err(path: &Path) -> impl FnOnce(std::io::Error) -> TransformTaskError + '_ {
    move |source| TransformTaskError::Io {
        path: path.to_owned(),
        source,
    }
}

/// A task read for transformation: its state on disk and the sources the transformer reads.
#[derive(Debug)]
pub struct TaskInput {
    /// The original task.
    pub task: Task,
    /// The folder holding the task state (the project with `state` diffs applied).
    pub state: PathBuf,
    /// The state's Java files, the target method and the fixed files.
    pub sources: TaskSources,
    /// The task's other localized methods (they move with the rewrite but are not rewritten).
    pub others: Vec<TargetMethod>,
}

fn target_of(loc: &avrlab_bench::Localization) -> TargetMethod {
    let line = |l: u32| l as usize;
    TargetMethod {
        file: loc.file.clone(),
        method: Some(loc.method.clone()),
        method_lines: LineRange::new(line(loc.method_lines.0), line(loc.method_lines.1)),
        hunks: loc
            .hunks
            .iter()
            .map(|h| LineRange::new(line(h.0), line(h.1)))
            .collect(),
    }
}

/// Every `.java` file under `root` (build output and `.git` skipped), by `/`-separated relative path.
fn java_files(root: &Path) -> Result<BTreeMap<String, String>, TransformTaskError> {
    let mut out = BTreeMap::new();
    let mut stack = vec![PathBuf::new()];
    while let Some(rel) = stack.pop() {
        let dir = root.join(&rel);
        for entry in std::fs::read_dir(&dir).map_err(io_err(&dir))? {
            let entry = entry.map_err(io_err(&dir))?;
            let kind = entry.file_type().map_err(io_err(&entry.path()))?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let child = rel.join(&name);
            if kind.is_dir() && !matches!(name.as_str(), "target" | "build" | ".git") {
                stack.push(child);
            } else if kind.is_file() && name.ends_with(".java") {
                let path = root.join(&child);
                let text = std::fs::read_to_string(&path).map_err(io_err(&path))?;
                let key = child
                    .components()
                    .map(|c| c.as_os_str().to_string_lossy())
                    .collect::<Vec<_>>()
                    .join("/");
                out.insert(key, text);
            }
        }
    }
    Ok(out)
}

/// Materializes the task state under `scratch/<task id>` and reads its sources.
pub fn read_task(
    task: &Task,
    scratch: &Path,
    mirrors: Option<&Path>,
) -> Result<TaskInput, TransformTaskError> {
    let unsupported = |reason: String| TransformTaskError::Unsupported {
        task: task.id.clone(),
        reason,
    };
    let state = scratch.join(&task.id);
    if state.exists() {
        std::fs::remove_dir_all(&state).map_err(io_err(&state))?;
    }
    materialize_task(task, &state, mirrors)
        .map_err(|e| TransformTaskError::Materialize(Box::new(e)))?;
    let files = java_files(&state)?;
    let reference = task
        .reference
        .as_ref()
        .ok_or_else(|| unsupported("it has no reference fix to carry over".into()))?;
    let mut fixed_files = BTreeMap::new();
    for diff in &reference.files {
        if diff.created || diff.deleted || diff.old_path != diff.new_path {
            return Err(unsupported(format!(
                "its reference fix creates, deletes or moves {}; only changes to existing files \
                 can be carried over",
                diff.new_path
            )));
        }
        let base = fixed_files
            .get(&diff.old_path)
            .or_else(|| files.get(&diff.old_path))
            .ok_or_else(|| {
                unsupported(format!(
                    "its reference fix changes {}, which is not a Java file of the task state",
                    diff.old_path
                ))
            })?;
        let fixed = apply_to_text(diff, base).map_err(|e| {
            unsupported(format!(
                "its reference fix does not apply to {}: {e}",
                diff.old_path
            ))
        })?;
        fixed_files.insert(diff.old_path.clone(), fixed);
    }
    let mut locs = task.localization.iter().map(target_of);
    let target = locs
        .next()
        .ok_or_else(|| unsupported("it has no localization".into()))?;
    Ok(TaskInput {
        task: task.clone(),
        state,
        sources: TaskSources {
            files,
            target,
            fixed_files,
            java_version: task.build.jdk,
        },
        others: locs.collect(),
    })
}

/// The transformed task's id: the original's with the variant as suffix (`demo-xxe-config-both`).
pub(crate) fn transformed_id(task: &Task, variant: Variant) -> String {
    format!("{}-{variant}", task.id)
}

/// One rewrite of a task, ready to be written.
#[derive(Debug, Clone)]
pub struct Rewrite {
    /// The rules it was made with.
    pub rules: Vec<Rule>,
    /// What the transformer produced.
    pub output: TransformOutput,
    /// Every localization entry in the transformed code (the target first).
    pub localization: Vec<Localization>,
}

impl Rewrite {
    /// The rules that applied at least one site.
    pub(crate) fn applied_rules(&self) -> Vec<Rule> {
        let applied: BTreeSet<Rule> = self
            .output
            .report
            .iter()
            .filter(|r| r.applied())
            .map(|r| r.rule)
            .collect();
        self.rules
            .iter()
            .copied()
            .filter(|r| applied.contains(r))
            .collect()
    }

    /// How many sites `rule` applied at.
    pub(crate) fn applied_sites(&self, rule: Rule) -> usize {
        self.output
            .report
            .iter()
            .filter(|r| r.rule == rule && r.applied())
            .count()
    }
}

/// Transforms a task's sources with `rules`.
pub fn rewrite(
    input: &TaskInput,
    rules: &[Rule],
    seed: u64,
) -> Result<Rewrite, TransformTaskError> {
    let task = &input.task.id;
    let output = transform_with_rules(&input.sources, rules, seed).map_err(|source| {
        TransformTaskError::Transform {
            task: task.clone(),
            source: Box::new(source),
        }
    })?;
    let mut localization = vec![output.localization.clone()];
    for other in &input.others {
        let moved = output.relocate(&input.sources, other).ok_or_else(|| {
            TransformTaskError::Unsupported {
                task: task.clone(),
                reason: format!(
                    "its localized method at {}:{} cannot be found again after the rewrite",
                    other.file, other.method_lines.start
                ),
            }
        })?;
        localization.push(moved);
    }
    Ok(Rewrite {
        rules: rules.to_vec(),
        output,
        localization,
    })
}

/// Renames in prose: types and multi-word names only, so that an English word in the description
/// is never mistaken for a one-word local or method name.
fn rename_prose(rewrite: &Rewrite, text: &str) -> String {
    let mut map = rewrite.output.rename_map.clone();
    map.entries
        .retain(|e| e.kind == RenameKind::Type || split_identifier(&e.original).words.len() > 1);
    map.apply(text)
}

/// A transformed line range as a task file writes it.
fn line_pair(range: LineRange) -> (u32, u32) {
    let line = |n: usize| u32::try_from(n).expect("a Java file has fewer than 2^32 lines");
    (line(range.start), line(range.end))
}

/// The transformed task's manifest: the original's, under the new id, with the rewritten
/// localization, the description's renamed types, and moved files renamed in the editable globs.
fn task_manifest(input: &TaskInput, new_id: &str, rewrite: &Rewrite) -> TaskManifest {
    let task = &input.task;
    let moved = |glob: &String| {
        rewrite
            .output
            .file_renames
            .iter()
            .fold(glob.clone(), |glob, (old, new)| {
                glob.replace(old.as_str(), new)
            })
    };
    TaskManifest {
        id: new_id.to_owned(),
        kind: task.kind,
        cve: task.cve.clone(),
        cwe: task.cwe.clone(),
        description: rename_prose(rewrite, &task.description),
        project: ManifestProject::Folder(PathBuf::from("project")),
        build: task.build.clone(),
        revert: Vec::new(),
        pov_tests: task.oracle.pov_tests.clone(),
        regression_tests: task.oracle.regression_tests.clone(),
        localization: rewrite
            .localization
            .iter()
            .map(|loc| avrlab_bench::Localization {
                file: loc.file.clone(),
                method: loc.method.clone(),
                method_lines: line_pair(loc.method_lines),
                hunks: loc.hunks.iter().copied().map(line_pair).collect(),
            })
            .collect(),
        reference: Some(PathBuf::from("reference.diff")),
        editable: Some(task.policy.editable().iter().map(moved).collect()),
        provenance: None,
        // The same fix, renamed: it was made when the original's was.
        dates: task.dates.clone(),
        feature: None,
    }
}

/// The rename map file: what the transformed task's names were, so that a patch written against it
/// can be translated back (`restore`: every renamed token becomes its original).
pub(crate) fn rename_map_json(
    input: &TaskInput,
    variant: Variant,
    seed: u64,
    rewrite: &Rewrite,
) -> serde_json::Value {
    let kind = |k: RenameKind| match k {
        RenameKind::Local => "local",
        RenameKind::Method => "method",
        RenameKind::Field => "field",
        RenameKind::Type => "type",
    };
    serde_json::json!({
        "format_version": 1,
        "original_task": input.task.id,
        "variant": variant.to_string(),
        "seed": seed,
        "rules": rewrite.rules.iter().map(|r| r.name()).collect::<Vec<_>>(),
        "renames": rewrite.output.rename_map.entries.iter().map(|e| serde_json::json!({
            "kind": kind(e.kind),
            "original": e.original,
            "renamed": e.renamed,
        })).collect::<Vec<_>>(),
        "file_renames": rewrite.output.file_renames.iter().map(|(from, to)| serde_json::json!({
            "original": from,
            "renamed": to,
        })).collect::<Vec<_>>(),
    })
}

/// Writes the transformed task into `dest` (which is replaced): `task.toml`, `reference.diff`,
/// `rename-map.json` and `project/` (the task state with the rewritten files, moved files moved).
pub(crate) fn write_task(
    input: &TaskInput,
    new_id: &str,
    variant: Variant,
    seed: u64,
    rewrite: &Rewrite,
    dest: &Path,
) -> Result<(), TransformTaskError> {
    if dest.exists() {
        std::fs::remove_dir_all(dest).map_err(io_err(dest))?;
    }
    let project = dest.join("project");
    copy_project(&input.state, &project).map_err(|source| TransformTaskError::Checkout {
        task: input.task.id.clone(),
        source: Box::new(source),
    })?;
    for (old, _) in &rewrite.output.file_renames {
        let path = project.join(old);
        std::fs::remove_file(&path).map_err(io_err(&path))?;
    }
    for (path, text) in &rewrite.output.files {
        if input.sources.files.get(path) != Some(text) {
            let full = project.join(path);
            std::fs::write(&full, text).map_err(io_err(&full))?;
        }
    }
    let write = |name: &str, text: String| {
        let path = dest.join(name);
        std::fs::write(&path, text).map_err(io_err(&path))
    };
    write("task.toml", task_manifest(input, new_id, rewrite).to_toml())?;
    write("reference.diff", rewrite.output.reference_diff.clone())?;
    let map = rename_map_json(input, variant, seed, rewrite);
    write(
        "rename-map.json",
        serde_json::to_string_pretty(&map).expect("json serializes") + "\n",
    )?;
    Ok(())
}

/// What execution showed about one written rewrite.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Check {
    /// The outcome of the vulnerable state (must be `PovFailing`).
    pub vulnerable: Outcome,
    /// The outcome of the translated reference fix (must be `Plausible`); `None` when the vulnerable
    /// state already failed the check.
    pub reference: Option<Outcome>,
    /// The validator's reason for the first outcome that was not as required.
    pub reason: String,
}

impl Check {
    /// Whether the rewrite behaves like the original.
    pub(crate) fn passed(&self) -> bool {
        self.vulnerable == Outcome::PovFailing && self.reference == Some(Outcome::Plausible)
    }

    /// One line: what failed and why.
    pub(crate) fn describe(&self) -> String {
        match self.reference {
            _ if self.vulnerable != Outcome::PovFailing => format!(
                "the vulnerable state was {} instead of PovFailing ({})",
                self.vulnerable, self.reason
            ),
            Some(Outcome::Plausible) => "verified".to_owned(),
            Some(o) => format!(
                "the translated reference fix was {o} instead of Plausible ({})",
                self.reason
            ),
            None => "not checked".to_owned(),
        }
    }
}

/// Validates a written task with the oracle: its vulnerable state, then its reference fix.
pub(crate) fn verify(
    oracle: &dyn Oracle,
    task_dir: &Path,
    slot: &str,
    prepare_lock: &Mutex<()>,
) -> Result<Check, TransformTaskError> {
    let task =
        Task::load(&task_dir.join("task.toml")).map_err(|source| TransformTaskError::Load {
            task: task_dir.display().to_string(),
            source: Box::new(source),
        })?;
    let validate_err = |source| TransformTaskError::Validate {
        task: task.id.clone(),
        source: Box::new(source),
    };
    // Two first warm-ups of one build file must not fill the Maven repository at once.
    let prepared = {
        let _guard = prepare_lock
            .lock()
            .unwrap_or_else(|poisoned| poisoned.into_inner());
        oracle.prepare(&task).map_err(validate_err)?
    };
    let vulnerable = oracle
        .validate(&prepared, &Candidate::Unchanged, slot)
        .map_err(validate_err)?;
    if vulnerable.outcome != Outcome::PovFailing {
        return Ok(Check {
            vulnerable: vulnerable.outcome,
            reference: None,
            reason: vulnerable.reason,
        });
    }
    let patch = task
        .reference
        .clone()
        .ok_or_else(|| TransformTaskError::Unsupported {
            task: task.id.clone(),
            reason: "the transformed task lost its reference fix".into(),
        })?;
    let fixed = oracle
        .validate(&prepared, &Candidate::Diff(patch), slot)
        .map_err(validate_err)?;
    Ok(Check {
        vulnerable: vulnerable.outcome,
        reference: Some(fixed.outcome),
        reason: fixed.reason,
    })
}

/// A rule whose rewrites failed verification and were taken out.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RolledBack {
    /// The rule.
    pub rule: Rule,
    /// How many sites it had applied at in the first, all-rules rewrite.
    pub sites: usize,
    /// What execution showed with it.
    pub reason: String,
}

/// The end of one task's transformation.
#[derive(Debug, Clone)]
pub struct TaskResult {
    /// The original task's id.
    pub task: String,
    /// The transformed task's id.
    pub new_id: String,
    /// The verified rewrite that was kept, or `None` when no rewrite survived.
    pub kept: Option<Rewrite>,
    /// The rules taken out, with why.
    pub rolled_back: Vec<RolledBack>,
    /// How many rewrites were run through the oracle.
    pub verifications: usize,
    /// Why nothing was kept, when nothing was.
    pub omitted: Option<String>,
}

/// How to check one written rewrite (the oracle in production; anything in tests).
pub(crate) type Verifier<'a> = dyn FnMut(&Path) -> Result<Check, TransformTaskError> + 'a;

/// Transforms one task with `rules`, writes it to `dest`, verifies it, and rolls back rules until
/// what is left verifies. On return `dest` holds the kept rewrite, or does not exist.
pub(crate) fn transform_verified(
    input: &TaskInput,
    variant: Variant,
    seed: u64,
    dest: &Path,
    verify: &mut Verifier<'_>,
) -> Result<TaskResult, TransformTaskError> {
    let new_id = transformed_id(&input.task, variant);
    let mut result = TaskResult {
        task: input.task.id.clone(),
        new_id: new_id.clone(),
        kept: None,
        rolled_back: Vec::new(),
        verifications: 0,
        omitted: None,
    };
    let first = rewrite(input, &variant.rules(), seed)?;
    let applied = first.applied_rules();
    if applied.is_empty() {
        result.omitted = Some("no rule applied anywhere in the target method".into());
        return Ok(result);
    }
    let first_sites: BTreeMap<Rule, usize> = applied
        .iter()
        .map(|r| (*r, first.applied_sites(*r)))
        .collect();
    let mut search = Search {
        input,
        variant,
        seed,
        dest,
        new_id: &new_id,
        verify,
        verifications: 0,
        failures: BTreeMap::new(),
    };
    let (kept_rules, kept) = search.largest_verified(Vec::new(), None, &applied, Some(first))?;
    result.verifications = search.verifications;
    for rule in &applied {
        if !kept_rules.contains(rule) {
            result.rolled_back.push(RolledBack {
                rule: *rule,
                sites: first_sites.get(rule).copied().unwrap_or(0),
                reason: search
                    .failures
                    .get(rule)
                    .cloned()
                    .unwrap_or_else(|| "failed verification with other rules".into()),
            });
        }
    }
    match kept {
        Some(rewrite) => {
            // The last rewrite written may be a failed attempt: write the kept one back.
            write_task(input, &new_id, variant, seed, &rewrite, dest)?;
            result.kept = Some(rewrite);
        }
        None => {
            if dest.exists() {
                std::fs::remove_dir_all(dest).map_err(io_err(dest))?;
            }
            result.omitted = Some("every rule that applied failed verification".into());
        }
    }
    Ok(result)
}

struct Search<'a, 'v> {
    input: &'a TaskInput,
    variant: Variant,
    seed: u64,
    dest: &'a Path,
    new_id: &'a str,
    verify: &'a mut Verifier<'v>,
    verifications: usize,
    /// Why a rule failed when it was tried alone on top of the verified ones.
    failures: BTreeMap<Rule, String>,
}

impl Search<'_, '_> {
    fn attempt(
        &mut self,
        rules: &[Rule],
        prepared: Option<Rewrite>,
    ) -> Result<(Rewrite, Check), TransformTaskError> {
        let rewrite = match prepared {
            Some(r) => r,
            None => rewrite(self.input, rules, self.seed)?,
        };
        write_task(
            self.input,
            self.new_id,
            self.variant,
            self.seed,
            &rewrite,
            self.dest,
        )?;
        self.verifications += 1;
        let check = (self.verify)(self.dest)?;
        Ok((rewrite, check))
    }

    /// The largest set `base ∪ S` (S ⊆ `candidates`) found by bisection that verifies, with its
    /// rewrite (`base_rewrite`: the verified rewrite of `base`, `None` for no rules).
    fn largest_verified(
        &mut self,
        base: Vec<Rule>,
        base_rewrite: Option<Rewrite>,
        candidates: &[Rule],
        prepared: Option<Rewrite>,
    ) -> Result<(Vec<Rule>, Option<Rewrite>), TransformTaskError> {
        if candidates.is_empty() {
            return Ok((base, base_rewrite));
        }
        let mut trial: Vec<Rule> = base.iter().chain(candidates).copied().collect();
        trial.sort();
        let (rewrite, check) = self.attempt(&trial, prepared)?;
        if check.passed() {
            return Ok((trial, Some(rewrite)));
        }
        if let [rule] = candidates {
            self.failures.insert(*rule, check.describe());
            return Ok((base, base_rewrite));
        }
        let (left, right) = candidates.split_at(candidates.len() / 2);
        let (base, base_rewrite) = self.largest_verified(base, base_rewrite, left, None)?;
        self.largest_verified(base, base_rewrite, right, None)
    }
}

/// Per-rule totals over a benchmark.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct RuleCounts {
    /// Sites where the rule's rewrite is in a kept task.
    pub applied: usize,
    /// Sites where the rule declined (or its rewrite was dropped by the transformer).
    pub declined: usize,
    /// Sites whose rewrite failed verification and was taken out.
    pub rolled_back: usize,
}

/// Adds up the rule reports of every task.
pub(crate) fn rule_counts(results: &[TaskResult]) -> BTreeMap<Rule, RuleCounts> {
    let mut counts: BTreeMap<Rule, RuleCounts> = BTreeMap::new();
    for r in results {
        if let Some(kept) = &r.kept {
            for report in &kept.output.report {
                let c = counts.entry(report.rule).or_default();
                match report.outcome {
                    RuleOutcome::Applied { .. } => c.applied += 1,
                    RuleOutcome::Declined { .. } => c.declined += 1,
                }
            }
        }
        for rb in &r.rolled_back {
            counts.entry(rb.rule).or_default().rolled_back += rb.sites;
        }
    }
    counts
}

/// Transforms and verifies every task on `workers` threads, each with its own workspace slot;
/// `progress` hears each verification. The first failure stops the rest and is returned.
pub fn transform_all(
    inputs: &[TaskInput],
    variant: Variant,
    seed: u64,
    oracle: &dyn Oracle,
    workers: usize,
    staging: &Path,
    progress: &(dyn Fn(&str) + Sync),
) -> Result<Vec<TaskResult>, TransformTaskError> {
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..inputs.len()).collect());
    let results: Mutex<BTreeMap<usize, Result<TaskResult, TransformTaskError>>> =
        Mutex::new(BTreeMap::new());
    let prepare_lock = Mutex::new(());
    std::thread::scope(|scope| {
        for worker in 0..workers.clamp(1, inputs.len().max(1)) {
            let (queue, results, prepare_lock) = (&queue, &results, &prepare_lock);
            scope.spawn(move || {
                let slot = format!("transform-{worker}");
                loop {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
                    let Some(index) = next else { break };
                    let input = &inputs[index];
                    let dest = staging.join(transformed_id(&input.task, variant));
                    let mut check = |dir: &Path| -> Result<Check, TransformTaskError> {
                        let check = verify(oracle, dir, &slot, prepare_lock)?;
                        progress(&format!("  {}: {}", input.task.id, check.describe()));
                        Ok(check)
                    };
                    let result = transform_verified(input, variant, seed, &dest, &mut check);
                    let failed = result.is_err();
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(index, result);
                    if failed {
                        // One failure aborts the command: leave the queue to drain.
                        queue.lock().unwrap_or_else(|p| p.into_inner()).clear();
                    }
                }
            });
        }
    });
    let mut done = Vec::new();
    for (_, result) in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
        done.push(result?);
    }
    Ok(done)
}

/// The dry run of `avrlab transform`: each task's diff and the report, nothing verified.
pub fn dry_run_text(
    inputs: &[TaskInput],
    variant: Variant,
    seed: u64,
) -> Result<String, TransformTaskError> {
    let mut results = Vec::new();
    let mut text = String::new();
    for input in inputs {
        let rw = rewrite(input, &variant.rules(), seed)?;
        let new_id = transformed_id(&input.task, variant);
        let _ = writeln!(text, "=== {} → {new_id}", input.task.id);
        let renamed: BTreeMap<&str, &str> = rw
            .output
            .file_renames
            .iter()
            .map(|(old, new)| (old.as_str(), new.as_str()))
            .collect();
        for (path, old) in &input.sources.files {
            let new_path = renamed.get(path.as_str()).copied().unwrap_or(path);
            if let Some(new) = rw.output.files.get(new_path) {
                text.push_str(&unified_diff(path, new_path, old, new));
            }
        }
        results.push(TaskResult {
            task: input.task.id.clone(),
            new_id,
            kept: Some(rw),
            rolled_back: Vec::new(),
            verifications: 0,
            omitted: None,
        });
    }
    text.push_str(&render_report(&results, variant));
    text.push_str("(dry run: nothing verified, nothing written)\n");
    Ok(text)
}

/// The per-task lines and the rule-by-rule table.
pub fn render_report(results: &[TaskResult], variant: Variant) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "transform `{variant}`: {} task(s)", results.len());
    for r in results {
        match &r.kept {
            Some(kept) => {
                let rules: Vec<String> = kept
                    .applied_rules()
                    .iter()
                    .map(|rule| format!("{rule}×{}", kept.applied_sites(*rule)))
                    .collect();
                let _ = writeln!(
                    t,
                    "  {} → {}: kept [{}], {} rename(s), {} verification(s)",
                    r.task,
                    r.new_id,
                    rules.join(", "),
                    kept.output.rename_map.entries.len(),
                    r.verifications
                );
            }
            None => {
                let _ = writeln!(
                    t,
                    "  {}: OMITTED, {}",
                    r.task,
                    r.omitted.as_deref().unwrap_or("nothing kept")
                );
            }
        }
        for rb in &r.rolled_back {
            let _ = writeln!(
                t,
                "      rolled back {} ({} site(s)): {}",
                rb.rule, rb.sites, rb.reason
            );
        }
    }
    let counts = rule_counts(results);
    let _ = writeln!(
        t,
        "{:<20} {:>8} {:>8} {:>12}",
        "rule", "applied", "declined", "rolled back"
    );
    for rule in std::iter::once(Rule::Rename).chain(Rule::STRUCTURE) {
        let c = counts.get(&rule).copied().unwrap_or_default();
        let _ = writeln!(
            t,
            "{:<20} {:>8} {:>8} {:>12}",
            rule.name(),
            c.applied,
            c.declined,
            c.rolled_back
        );
    }
    t
}

#[cfg(test)]
mod oracle_tests {
    use std::sync::Mutex;

    use super::*;
    use crate::run::fake_oracle::{Call, FakeOracle, demo};

    fn fixed_when_changed(_: &Task, candidate: &Candidate) -> Option<Outcome> {
        Some(match candidate {
            Candidate::Unchanged => Outcome::PovFailing,
            _ => Outcome::Plausible,
        })
    }

    #[test]
    fn a_rewrite_the_oracle_verifies_is_written_and_kept() {
        let benchmark = demo();
        let task = benchmark.task("demo-zip-slip").unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let input = read_task(task, &scratch.path().join("states"), None).unwrap();
        let oracle = FakeOracle::new(fixed_when_changed);
        let lock = Mutex::new(());
        let dest = scratch.path().join("out").join("t");
        let mut check = |dir: &Path| verify(&oracle, dir, "w", &lock);
        let result = transform_verified(&input, Variant::Rename, 7, &dest, &mut check).unwrap();
        assert!(result.kept.is_some(), "{:?}", result.omitted);
        assert_eq!(result.verifications, 1);
        assert!(Task::load(&dest.join("task.toml")).is_ok());
        // One preparation and two validations (vulnerable state, translated reference fix).
        assert_eq!(oracle.count(|c| matches!(c, Call::Validate(_))), 2);
    }

    #[test]
    fn a_vulnerable_state_that_passes_condemns_the_rewrite_without_checking_the_fix() {
        let benchmark = demo();
        let task = benchmark.task("demo-zip-slip").unwrap();
        let scratch = tempfile::tempdir().unwrap();
        let input = read_task(task, &scratch.path().join("states"), None).unwrap();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible));
        let lock = Mutex::new(());
        let dest = scratch.path().join("out").join("t");
        let mut check = |dir: &Path| verify(&oracle, dir, "w", &lock);
        let result = transform_verified(&input, Variant::Rename, 7, &dest, &mut check).unwrap();
        assert!(result.kept.is_none());
        assert!(!dest.exists());
        let validations = oracle.count(|c| matches!(c, Call::Validate(_)));
        assert_eq!(validations, result.verifications, "one per verification");
    }
}
