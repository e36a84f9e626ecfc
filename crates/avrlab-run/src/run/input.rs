//! Candidate inputs: the reference check of a benchmark, and predictions files (`--patches`):
//! avrlab's JSONL (one object a line: `task`, `candidate`, and `patch` or `replacement`), or
//! SWE-bench-style predictions (`instance_id`, `model_name_or_path`, `model_patch`) as JSONL or
//! one JSON array.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use avrlab_bench::{Benchmark, Patch, Task};
use avrlab_core::CandidateKind;
use avrlab_store::NewCandidate;
use avrlab_validate::{Candidate, ReplacementTarget};
use serde::Deserialize;
use sha2::{Digest, Sha256};

/// A candidate bound to its task, with the id it is stored under.
#[derive(Debug, Clone)]
pub struct PlannedCandidate {
    /// `task/label`, unique within a run.
    pub id: String,
    pub task: String,
    pub label: String,
    pub candidate: Candidate,
    /// Where it came from, for messages: `file:line`.
    pub origin: String,
}

/// Why an input file cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum InputError {
    /// The file cannot be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A line is not a valid candidate.
    #[error("{origin}: {message}")]
    Line { origin: String, message: String },
    /// The file has no candidate.
    #[error("{0} holds no candidate (one JSON object a line)")]
    Empty(PathBuf),
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PatchLine {
    task: String,
    candidate: Option<String>,
    patch: Option<String>,
    replacement: Option<String>,
    /// `method` (default), `method:N`, `hunk`, `hunk:N` or `hunk:M:N`.
    target: Option<String>,
}

fn parse_target(text: Option<&str>) -> Result<ReplacementTarget, String> {
    let text = text.unwrap_or("method");
    let parts: Vec<&str> = text.split(':').collect();
    let number = |s: &str| {
        s.parse::<usize>()
            .map_err(|_| format!("`{s}` in target `{text}` is not a number"))
    };
    match parts.as_slice() {
        ["method"] => Ok(ReplacementTarget::Method(0)),
        ["method", m] => Ok(ReplacementTarget::Method(number(m)?)),
        ["hunk"] => Ok(ReplacementTarget::Hunk { method: 0, hunk: 0 }),
        ["hunk", h] => Ok(ReplacementTarget::Hunk {
            method: 0,
            hunk: number(h)?,
        }),
        ["hunk", m, h] => Ok(ReplacementTarget::Hunk {
            method: number(m)?,
            hunk: number(h)?,
        }),
        _ => Err(format!("target `{text}` is not method[:N] or hunk[:M]:N")),
    }
}

/// The reference check: each task's vulnerable state and its reference fix.
pub fn reference_candidates(benchmark: &Benchmark) -> Vec<PlannedCandidate> {
    let mut planned = Vec::new();
    for task in &benchmark.tasks {
        let origin = task.dir.join("task.toml").display().to_string();
        planned.push(PlannedCandidate {
            id: format!("{}/vulnerable", task.id),
            task: task.id.clone(),
            label: "vulnerable".into(),
            candidate: Candidate::Unchanged,
            origin: origin.clone(),
        });
        if let Some(reference) = &task.reference {
            planned.push(PlannedCandidate {
                id: format!("{}/reference", task.id),
                task: task.id.clone(),
                label: "reference".into(),
                candidate: Candidate::Diff(reference.clone()),
                origin,
            });
        }
    }
    planned
}

/// What a predictions file's `patch` that is not a unified diff becomes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MalformedPatches {
    /// The whole file is refused, naming the line (the default).
    Refuse,
    /// That candidate is kept as [`Candidate::Malformed`], so its outcome is `ApplyFailed`
    /// (`--allow-apply-failures`).
    Record,
}

/// One line of a SWE-bench-style predictions file (SusVibes writes the same).
#[derive(Deserialize)]
struct InstancePrediction {
    instance_id: String,
    model_name_or_path: String,
    #[serde(default)]
    model_patch: Option<String>,
}

/// The task an instance id names: the task of that id, the id a SusVibes instance was imported
/// under, or the task whose dataset id it is (`VUL4J-10` for an imported Vul4J task).
pub(crate) fn task_for_instance<'a>(benchmark: &'a Benchmark, instance: &str) -> Option<&'a Task> {
    let imported = crate::datasets::susvibes::task_id_of(instance);
    benchmark.tasks.iter().find(|t| {
        t.id == instance
            || t.id == imported
            || t.provenance
                .as_ref()
                .is_some_and(|p| p.dataset_id == instance)
    })
}

/// Reads a predictions file, avrlab's or SWE-bench's (told apart by `instance_id`); every line
/// is checked before anything runs. In SWE-bench's form an empty `model_patch` is the empty
/// prediction (the task state as it is), and the model's name is the candidate's label.
pub fn read_predictions(
    path: &Path,
    benchmark: &Benchmark,
    malformed: MalformedPatches,
) -> Result<Vec<PlannedCandidate>, InputError> {
    let bytes = std::fs::read(path).map_err(|source| InputError::Read {
        path: path.to_owned(),
        source,
    })?;
    let records = if bytes
        .windows(b"\"instance_id\"".len())
        .any(|w| w == b"\"instance_id\"")
    {
        instance_records(path, &bytes, benchmark)?
    } else {
        avrlab_records(path, &bytes, benchmark)?
    };
    let mut planned: Vec<PlannedCandidate> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
    for record in records {
        let candidate = match record.change {
            Change::Unchanged => Candidate::Unchanged,
            Change::Diff(text) => match (Patch::parse(&text), malformed) {
                (Ok(patch), _) => Candidate::Diff(patch),
                (Err(e), MalformedPatches::Refuse) => {
                    return Err(InputError::Line {
                        origin: record.origin,
                        message: format!(
                            "the patch is not a unified diff: {e} (pass --allow-apply-failures to record it as ApplyFailed)"
                        ),
                    });
                }
                (Err(e), MalformedPatches::Record) => Candidate::Malformed {
                    text,
                    reason: format!("{}: {e}", record.origin),
                },
            },
            Change::Replacement(target, text) => Candidate::Replacement { target, text },
        };
        let base = format!("{}/{}", record.task, record.label);
        // Two candidates may share a label; ids stay unique and stable across re-reads.
        let count = seen.entry(base.clone()).or_insert(0);
        *count += 1;
        let id = if *count == 1 {
            base
        } else {
            format!("{base}#{count}")
        };
        planned.push(PlannedCandidate {
            id,
            task: record.task,
            label: record.label,
            candidate,
            origin: record.origin,
        });
    }
    if planned.is_empty() {
        return Err(InputError::Empty(path.to_owned()));
    }
    Ok(planned)
}

/// What one predictions line asks for, before its patch is parsed.
enum Change {
    Unchanged,
    Diff(String),
    Replacement(ReplacementTarget, String),
}

/// One predictions line, checked: its task exists.
struct Record {
    origin: String,
    task: String,
    label: String,
    change: Change,
}

/// The lines of avrlab's JSONL.
fn avrlab_records(
    path: &Path,
    bytes: &[u8],
    benchmark: &Benchmark,
) -> Result<Vec<Record>, InputError> {
    let mut records = Vec::new();
    // Line by line: a byte-order mark (at the start of the file or of any line, as files joined
    // from several editors have) and a CR before the LF are tolerated on each line alone.
    for (index, raw) in bytes.split(|b| *b == b'\n').enumerate() {
        let origin = format!("{}:{}", path.display(), index + 1);
        let bad = |message: String| InputError::Line {
            origin: origin.clone(),
            message,
        };
        let line = std::str::from_utf8(raw).map_err(|e| {
            bad(format!(
                "the line is not UTF-8 text ({e}); save the file as UTF-8"
            ))
        })?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let line = line.strip_prefix('\u{feff}').unwrap_or(line);
        if line.trim().is_empty() {
            continue;
        }
        let record: PatchLine =
            serde_json::from_str(line).map_err(|e| bad(format!("not a candidate object: {e}")))?;
        let task = benchmark
            .task(&record.task)
            .map_err(|e| bad(e.to_string()))?;
        let change = match (record.patch, record.replacement) {
            (Some(diff), None) => Change::Diff(diff),
            (None, Some(text)) => {
                Change::Replacement(parse_target(record.target.as_deref()).map_err(&bad)?, text)
            }
            _ => {
                return Err(bad(
                    "give exactly one of `patch` (a unified diff) and `replacement`".into(),
                ));
            }
        };
        records.push(Record {
            task: task.id.clone(),
            label: record
                .candidate
                .unwrap_or_else(|| format!("line{}", index + 1)),
            change,
            origin,
        });
    }
    Ok(records)
}

/// The predictions of a SWE-bench-style file: JSONL, or one JSON array.
fn instance_records(
    path: &Path,
    bytes: &[u8],
    benchmark: &Benchmark,
) -> Result<Vec<Record>, InputError> {
    let bad = |origin: String, message: String| InputError::Line { origin, message };
    let text = std::str::from_utf8(bytes).map_err(|e| {
        bad(
            path.display().to_string(),
            format!("the file is not UTF-8 text ({e}); save it as UTF-8"),
        )
    })?;
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let lines: Vec<(String, InstancePrediction)> = if text.trim_start().starts_with('[') {
        serde_json::from_str::<Vec<InstancePrediction>>(text)
            .map_err(|e| {
                bad(
                    path.display().to_string(),
                    format!("not SWE-bench-style predictions: {e}"),
                )
            })?
            .into_iter()
            .enumerate()
            .map(|(i, r)| (format!("{}[{i}]", path.display()), r))
            .collect()
    } else {
        let mut out = Vec::new();
        for (i, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let origin = format!("{}:{}", path.display(), i + 1);
            let record = serde_json::from_str(line).map_err(|e| {
                bad(
                    origin.clone(),
                    format!("not a SWE-bench-style prediction: {e}"),
                )
            })?;
            out.push((origin, record));
        }
        out
    };
    let mut records = Vec::new();
    for (origin, line) in lines {
        let task = task_for_instance(benchmark, &line.instance_id).ok_or_else(|| {
            bad(
                origin.clone(),
                format!(
                    "no task of the benchmark is instance `{}`",
                    line.instance_id
                ),
            )
        })?;
        let change = match line.model_patch {
            Some(patch) if !patch.trim().is_empty() => Change::Diff(patch),
            _ => Change::Unchanged,
        };
        records.push(Record {
            origin,
            task: task.id.clone(),
            label: line.model_name_or_path,
            change,
        });
    }
    Ok(records)
}

/// How a candidate is stored: its kind and its text.
pub(crate) fn stored_form(candidate: &Candidate) -> (CandidateKind, String) {
    let (kind, content) = match candidate {
        Candidate::Unchanged => (CandidateKind::Unchanged, String::new()),
        Candidate::Diff(patch) => (CandidateKind::Diff, patch.to_string()),
        Candidate::Replacement { target, text } => {
            (CandidateKind::Replacement(*target), text.clone())
        }
        Candidate::Malformed { text, .. } => (CandidateKind::Malformed, text.clone()),
    };
    (kind, content)
}

/// The candidate behind a stored kind and text (the inverse of [`stored_form`]); `None` for a
/// diff that does not parse.
pub(crate) fn from_stored_form(kind: CandidateKind, content: &str) -> Option<Candidate> {
    match kind {
        CandidateKind::Unchanged => Some(Candidate::Unchanged),
        CandidateKind::Diff => Patch::parse(content).ok().map(Candidate::Diff),
        CandidateKind::Replacement(target) => Some(Candidate::Replacement {
            target,
            text: content.to_owned(),
        }),
        CandidateKind::Malformed => Some(Candidate::Malformed {
            text: content.to_owned(),
            reason: Patch::parse(content)
                .err()
                .map_or_else(|| "not a unified diff".to_owned(), |e| e.to_string()),
        }),
    }
}

/// The rows registered with a new run.
pub(crate) fn new_candidates(planned: &[PlannedCandidate]) -> Vec<NewCandidate> {
    planned
        .iter()
        .map(|p| {
            let (kind, content) = stored_form(&p.candidate);
            NewCandidate {
                id: p.id.clone(),
                task: p.task.clone(),
                label: p.label.clone(),
                kind,
                content,
            }
        })
        .collect()
}

/// A fingerprint of a run's input: its candidates and the tasks they run against.
pub(crate) fn input_hash(planned: &[PlannedCandidate], tasks: &[&Task]) -> String {
    let mut hasher = Sha256::new();
    for p in planned {
        let (kind, content) = stored_form(&p.candidate);
        for part in [&p.id, &p.task, &kind.to_string(), &content] {
            hasher.update(part.as_bytes());
            hasher.update([0]);
        }
    }
    for task in tasks {
        hasher.update(task.id.as_bytes());
        if let Some(reference) = &task.reference {
            hasher.update(reference.to_string().as_bytes());
        }
    }
    hex::encode(&hasher.finalize()[..16])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_replacement_targets() {
        assert_eq!(parse_target(None).unwrap(), ReplacementTarget::Method(0));
        assert_eq!(
            parse_target(Some("hunk:2")).unwrap(),
            ReplacementTarget::Hunk { method: 0, hunk: 2 }
        );
        assert_eq!(
            parse_target(Some("hunk:1:2")).unwrap(),
            ReplacementTarget::Hunk { method: 1, hunk: 2 }
        );
        assert!(parse_target(Some("line:3")).is_err());
        assert!(parse_target(Some("hunk:x")).is_err());
    }

    #[test]
    fn byte_order_marks_and_crlf_are_handled_line_by_line() {
        let benchmark = Benchmark::open("demo").unwrap();
        let diff = "\u{feff}--- a/src/main/java/X.java\r\n+++ b/src/main/java/X.java\r\n@@ -1 +1 @@\r\n-a\r\n+b\r\n";
        let line = |label: &str| {
            serde_json::json!({"task": "demo-zip-slip", "candidate": label, "patch": diff})
                .to_string()
        };
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("preds.jsonl");
        let text = format!(
            "\u{feff}{}\r\n\u{feff}{}\r\n\r\n{}\n",
            line("a"),
            line("b"),
            line("c")
        );
        std::fs::write(&file, text).unwrap();
        let planned = read_predictions(&file, &benchmark, MalformedPatches::Refuse).unwrap();
        assert_eq!(planned.len(), 3);
        assert!(
            matches!(&planned[0].candidate, Candidate::Diff(p) if p.files[0].new_path == "src/main/java/X.java")
        );

        let mut bytes = format!("{}\n", line("a")).into_bytes();
        bytes.extend(b"{\"task\": \"demo-zip-slip\xff\"}\n");
        std::fs::write(&file, bytes).unwrap();
        let err = read_predictions(&file, &benchmark, MalformedPatches::Refuse)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("preds.jsonl:2: the line is not UTF-8"),
            "{err}"
        );
        std::fs::write(&file, format!("{}\r\n{{\"task\": 1}}\r\n", line("a"))).unwrap();
        let err = read_predictions(&file, &benchmark, MalformedPatches::Refuse)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("preds.jsonl:2: not a candidate object"),
            "{err}"
        );
    }
}
