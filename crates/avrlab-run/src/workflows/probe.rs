//! The memorization probe (`avrlab probe`): could the model have seen a task's fix? For each task
//! the model is shown the fixed file up to just before the fix's first changed line, as plain text
//! to continue, and its greedy continuation is compared, line by line and token by token, with
//! the fixed file's next lines (the reference fix) and with the vulnerable file's (the control:
//! both files are the same up to that line, so one continuation serves both comparisons). A model
//! that writes the fix back word for word from the code before it has most likely seen it. Where
//! the back end gives log-probabilities, the fix window's mean token log-likelihood is measured as
//! it is and under the task's rename transformation: a memorized fix loses much more likelihood
//! under renaming than one the model infers from the code.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use avrlab_bench::{Task, apply_to_text};
use avrlab_core::{Blame, Blamed};
use avrlab_model::{GenParams, Model, ModelError, Request};
use avrlab_prompt::Prompt;
use avrlab_store::ProbeScoreRow;
use avrlab_transform::{Variant, transform_with_rules};

use crate::workflows::method::vulnerable_method;
use crate::workflows::transform::{TaskInput, TransformTaskError, read_task};

/// How the probe asks and compares.
#[derive(Debug, Clone)]
pub struct ProbeConfig {
    /// The model's name (stored with each score).
    pub model_name: String,
    /// Lines of the fixed file, from the first changed one, that the continuation is compared with.
    pub lines: usize,
    /// Lines of the file before the first changed line that the prompt holds (the nearest ones):
    /// a whole file may not fit a small model's context.
    pub context_lines: usize,
    /// The most tokens the model may write.
    pub max_tokens: u32,
    /// The seed of the rename transformation's choice of names (`avrlab transform`'s default is 1).
    pub rename_seed: u64,
    /// Where task states are made.
    pub scratch: PathBuf,
    /// Bare git mirrors for git-based tasks.
    pub mirrors: Option<PathBuf>,
}

/// Why a task could not be probed.
#[derive(Debug, thiserror::Error)]
pub enum ProbeError {
    /// The task state could not be made or read, or its fix cannot be applied to it.
    #[error(transparent)]
    Task(#[from] TransformTaskError),
    /// The fix changes nothing the probe can read.
    #[error("task {0}: its reference fix changes no line of an existing file")]
    NoChange(String),
    /// The model failed (an infrastructure failure: the probe stops).
    #[error("task {task}: the model")]
    Model {
        task: String,
        #[source]
        source: ModelError,
    },
}

impl Blamed for ProbeError {
    fn blame(&self) -> Blame {
        Blame::input_if(self.is_input())
    }
}

impl ProbeError {
    /// Whether the error is the input's (a task the probe cannot read) rather than the
    /// infrastructure's.
    pub fn is_input(&self) -> bool {
        match self {
            Self::Task(e) => e.is_input(),
            Self::NoChange(_) => true,
            Self::Model { .. } => false,
        }
    }
}

/// What the model is shown and what its continuation is compared with, in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ProbeWindow {
    /// The 1-based line of the fix's first change.
    pub line: u32,
    /// The file's text before that line (at most `context_lines` lines of it).
    pub prefix: String,
    /// The fixed file's lines from that line on (at most `lines`).
    pub fixed: Vec<String>,
    /// The vulnerable file's lines from that line on (at most `lines`).
    pub vulnerable: Vec<String>,
}

impl ProbeWindow {
    /// The window at the fix's first change at or after line `from` (1-based) of the vulnerable
    /// file (the localized method's first line: a fix's new imports say little), else at its
    /// first change; `None` when the files do not differ. The lines of the two files are aligned
    /// by a line diff, so changes above the window shift nothing.
    pub(crate) fn of(
        vulnerable: &str,
        fixed: &str,
        from: usize,
        lines: usize,
        context_lines: usize,
    ) -> Option<Self> {
        let diff = similar::TextDiff::from_lines(vulnerable, fixed);
        let changes: Vec<(usize, usize)> = diff
            .ops()
            .iter()
            .filter(|op| op.tag() != similar::DiffTag::Equal)
            .map(|op| (op.old_range().start, op.new_range().start))
            .collect();
        let (old_at, new_at) = changes
            .iter()
            .copied()
            .find(|(old, _)| *old + 1 >= from)
            .or_else(|| changes.first().copied())?;
        let old: Vec<&str> = vulnerable.split_inclusive('\n').collect();
        let new: Vec<&str> = fixed.split_inclusive('\n').collect();
        let window = |side: &[&str], at: usize| -> Vec<String> {
            side.iter()
                .skip(at)
                .take(lines)
                .map(|l| l.trim_end_matches(['\n', '\r']).to_owned())
                .collect()
        };
        Some(Self {
            line: u32::try_from(new_at + 1).unwrap_or(u32::MAX),
            prefix: new[new_at.saturating_sub(context_lines)..new_at].concat(),
            fixed: window(&new, new_at),
            vulnerable: window(&old, old_at),
        })
    }

    /// The fixed window as text, each line ended.
    fn fixed_text(&self) -> String {
        self.fixed.iter().map(|l| format!("{l}\n")).collect()
    }
}

/// How much of a reference a continuation reproduces from its start.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Matched {
    /// Leading lines equal to the reference's (ignoring indentation and trailing blanks).
    pub lines: u32,
    /// Leading whitespace-separated tokens equal to the reference's.
    pub tokens: u32,
    /// The reference's tokens.
    pub tokens_compared: u32,
}

/// Compares `continuation` with the reference lines.
pub(crate) fn matched(continuation: &str, reference: &[String]) -> Matched {
    let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
    let lines = continuation
        .lines()
        .zip(reference)
        .take_while(|(got, want)| got.trim() == want.trim())
        .count();
    let want: Vec<&str> = reference
        .iter()
        .flat_map(|l| l.split_whitespace())
        .collect();
    let tokens = continuation
        .split_whitespace()
        .zip(&want)
        .take_while(|(got, want)| got == *want)
        .count();
    Matched {
        lines: count(lines),
        tokens: count(tokens),
        tokens_compared: count(want.len()),
    }
}

/// The file of the task's first localized method when the reference fix changes it, else the
/// first file the fix changes (not creates): its path, vulnerable and fixed.
fn changed_file(task: &Task, input: &TaskInput) -> Option<(String, String, String)> {
    let changed = |path: &String| {
        let fixed = input.sources.fixed_files.get(path)?;
        let vulnerable = input.sources.files.get(path)?;
        (vulnerable != fixed).then(|| (path.clone(), vulnerable.clone(), fixed.clone()))
    };
    task.localization
        .first()
        .and_then(|l| changed(&l.file))
        .or_else(|| input.sources.fixed_files.keys().find_map(changed))
}

/// The same as [`changed_file`], read from the task state alone.
fn changed_file_alone(task: &Task, state: &Path) -> Option<(String, String, String)> {
    let diffs = &task.reference.as_ref()?.files;
    let localized = task
        .localization
        .first()
        .and_then(|l| diffs.iter().find(|d| d.old_path == l.file));
    localized.into_iter().chain(diffs).find_map(|diff| {
        if diff.created || diff.deleted {
            return None;
        }
        let vulnerable = std::fs::read_to_string(state.join(&diff.old_path)).ok()?;
        let fixed = apply_to_text(diff, &vulnerable).ok()?;
        (vulnerable != fixed).then(|| (diff.old_path.clone(), vulnerable, fixed))
    })
}

/// The mean of a list of log-probabilities; `None` when empty.
fn mean(values: &[f64]) -> Option<f64> {
    (!values.is_empty()).then(|| values.iter().sum::<f64>() / values.len() as f64)
}

/// Probes one task: asks `model` to continue, compares, and scores the log-likelihoods where the
/// back end gives them. `benchmark` names the benchmark in the stored row.
pub fn probe_task(
    task: &Task,
    benchmark: &str,
    model: &dyn Model,
    config: &ProbeConfig,
) -> Result<ProbeScoreRow, ProbeError> {
    let mut notes = Vec::new();
    // The transformer reads every Java file of the task state; where it cannot (a file that is
    // not UTF-8), the probe reads the changed file alone and measures no renamed likelihood.
    let (input, state) = match read_task(task, &config.scratch, config.mirrors.as_deref()) {
        Ok(input) => {
            let state = input.state.clone();
            (Ok(input), state)
        }
        Err(TransformTaskError::Io { path, source }) => {
            let state = config.scratch.join(format!("{}.plain", task.id));
            let _ = std::fs::remove_dir_all(&state);
            avrlab_validate::materialize_task(task, &state, config.mirrors.as_deref())
                .map_err(|e| TransformTaskError::Materialize(Box::new(e)))?;
            (
                Err(format!("cannot read {}: {source}", path.display())),
                state,
            )
        }
        Err(other) => return Err(other.into()),
    };
    let (file, vulnerable, fixed) = match &input {
        Ok(input) => changed_file(task, input),
        Err(_) => changed_file_alone(task, &state),
    }
    .ok_or_else(|| ProbeError::NoChange(task.id.clone()))?;
    // The localized method of that file, where the task names one, is where the probe looks.
    let from = task
        .localization
        .iter()
        .find(|l| l.file == file)
        .map_or(1, |l| l.method_lines.0 as usize);
    let window = ProbeWindow::of(
        &vulnerable,
        &fixed,
        from,
        config.lines,
        config.context_lines,
    )
    .ok_or_else(|| ProbeError::NoChange(task.id.clone()))?;
    let model_error = |source| ProbeError::Model {
        task: task.id.clone(),
        source,
    };

    let prompt = Prompt::Completion {
        prompt: window.prefix.clone(),
        suffix: None,
    };
    // Greedy decoding: the model's single most likely continuation.
    let params = GenParams {
        n: 1,
        temperature: 0.0,
        top_p: 1.0,
        max_tokens: config.max_tokens,
        stop: Vec::new(),
        seed: Some(0),
    };
    // A back end that reads the method rather than text (the template baseline) gets it.
    let method = vulnerable_method(task, &state).ok();
    let prompt_id = format!("probe/{}", task.id);
    let request = Request {
        prompt_id: &prompt_id,
        first_sample: 0,
        prompt: &prompt,
        params: &params,
        method: method.as_ref(),
        workspace: None,
    };
    let continuation = model
        .generate(&request)
        .map_err(model_error)?
        .into_iter()
        .next()
        .map(|g| g.text)
        .unwrap_or_default();
    let fix = matched(&continuation, &window.fixed);
    let control = matched(&continuation, &window.vulnerable);
    let lines_compared = u32::try_from(window.fixed.len()).unwrap_or(u32::MAX);

    let fix_log_likelihood = model
        .log_likelihood(&window.prefix, &window.fixed_text())
        .map_err(model_error)?
        .and_then(|scores| mean(&scores));
    let renamed_log_likelihood = match fix_log_likelihood {
        None => None,
        Some(_) => match input
            .as_ref()
            .map_err(Clone::clone)
            .and_then(|input| renamed_window(input, &file, config))
        {
            Ok(renamed) if renamed == window => {
                notes.push("the renaming changes nothing the probe reads".to_owned());
                None
            }
            Ok(renamed) => model
                .log_likelihood(&renamed.prefix, &renamed.fixed_text())
                .map_err(model_error)?
                .and_then(|scores| mean(&scores)),
            Err(why) => {
                notes.push(format!("not renamed: {why}"));
                None
            }
        },
    };
    Ok(ProbeScoreRow {
        benchmark: benchmark.to_owned(),
        model: config.model_name.clone(),
        task: task.id.clone(),
        file,
        line: window.line,
        lines_compared,
        tokens_compared: fix.tokens_compared,
        fix_lines: fix.lines,
        fix_tokens: fix.tokens,
        vulnerable_lines: control.lines,
        vulnerable_tokens: control.tokens,
        memorized: lines_compared > 0 && fix.lines == lines_compared,
        fix_log_likelihood,
        renamed_log_likelihood,
        continuation,
        note: notes.join("; "),
    })
}

/// The same window in the task under its rename transformation.
fn renamed_window(
    input: &TaskInput,
    file: &str,
    config: &ProbeConfig,
) -> Result<ProbeWindow, String> {
    let output = transform_with_rules(&input.sources, &Variant::Rename.rules(), config.rename_seed)
        .map_err(|e| e.to_string())?;
    let path = output.new_path(file);
    let files: BTreeMap<&str, &String> =
        output.files.iter().map(|(k, v)| (k.as_str(), v)).collect();
    let vulnerable = files
        .get(path)
        .ok_or_else(|| format!("{path} is not among the renamed files"))?;
    let fixed = output
        .fixed_files
        .get(path)
        .ok_or_else(|| format!("{path} has no renamed fixed version"))?;
    let from = if output.localization.file == path {
        output.localization.method_lines.start
    } else {
        1
    };
    ProbeWindow::of(vulnerable, fixed, from, config.lines, config.context_lines)
        .ok_or_else(|| "the renamed fix changes nothing".to_owned())
}

/// The per-task table of probe scores, and a summary line.
pub fn render_scores(rows: &[ProbeScoreRow]) -> String {
    use std::fmt::Write as _;
    let mut out = String::new();
    let _ = writeln!(
        out,
        "| task | line | fix lines | vulnerable lines | fix tokens | vulnerable tokens | memorized | mean log-likelihood | renamed | drop |"
    );
    let _ = writeln!(out, "|---|---:|---:|---:|---:|---:|---|---:|---:|---:|");
    let number = |v: Option<f64>| v.map_or_else(|| "-".to_owned(), |v| format!("{v:.3}"));
    for row in rows {
        let drop = row
            .fix_log_likelihood
            .zip(row.renamed_log_likelihood)
            .map(|(plain, renamed)| plain - renamed);
        let _ = writeln!(
            out,
            "| {} | {} | {}/{} | {} | {}/{} | {} | {} | {} | {} | {} |",
            row.task,
            row.line,
            row.fix_lines,
            row.lines_compared,
            row.vulnerable_lines,
            row.fix_tokens,
            row.tokens_compared,
            row.vulnerable_tokens,
            if row.memorized { "yes" } else { "no" },
            number(row.fix_log_likelihood),
            number(row.renamed_log_likelihood),
            number(drop),
        );
    }
    let memorized = rows.iter().filter(|r| r.memorized).count();
    let _ = writeln!(
        out,
        "\n{memorized} of {} tasks memorized (the continuation reproduced every compared line of the fix)",
        rows.len()
    );
    for row in rows.iter().filter(|r| !r.note.is_empty()) {
        let _ = writeln!(out, "- {}: {}", row.task, row.note);
    }
    out
}

/// A fresh folder in the temp dir for a probe's task states: its own for each call, so that two
/// probes of one process never share one.
pub fn default_scratch() -> PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    std::env::temp_dir().join(format!("avrlab-probe-{}-{call}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_window_starts_at_the_first_changed_line() {
        let vulnerable = "a\nb\nc\nd\n";
        let fixed = "a\nb\nguard\nc\nd\n";
        let window = ProbeWindow::of(vulnerable, fixed, 1, 2, 1).unwrap();
        assert_eq!(window.line, 3);
        assert_eq!(window.prefix, "b\n");
        assert_eq!(window.fixed, ["guard", "c"]);
        assert_eq!(window.vulnerable, ["c", "d"]);
        assert!(ProbeWindow::of(fixed, fixed, 1, 2, 1).is_none());
        // A new import above the method shifts its lines; the window is the method's change.
        let vulnerable = "import a;\n\nclass C {\n  void m() {\n    run();\n  }\n}\n";
        let fixed =
            "import a;\nimport b;\n\nclass C {\n  void m() {\n    check();\n    run();\n  }\n}\n";
        let window = ProbeWindow::of(vulnerable, fixed, 4, 2, 100).unwrap();
        assert_eq!(window.line, 6);
        assert_eq!(window.fixed, ["    check();", "    run();"]);
        assert_eq!(window.vulnerable, ["    run();", "  }"]);
        assert!(window.prefix.ends_with("void m() {\n") && window.prefix.contains("import b;"));
        assert_eq!(
            ProbeWindow::of(vulnerable, fixed, 1, 2, 100).unwrap().line,
            2
        );
    }

    #[test]
    fn matches_count_from_the_start() {
        let reference = vec!["  if (x) {".to_owned(), "    return;".to_owned()];
        let both = matched("if (x) {\n return;\n}\n", &reference);
        assert_eq!((both.lines, both.tokens, both.tokens_compared), (2, 4, 4));
        let first = matched("if (x) {\n throw e;\n", &reference);
        assert_eq!((first.lines, first.tokens), (1, 3));
        let none = matched("```java\nif (x) {\n", &reference);
        assert_eq!((none.lines, none.tokens), (0, 0));
    }
}
