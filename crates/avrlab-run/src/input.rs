//! Candidate inputs: the reference check of a benchmark, and predictions files (`--patches`, one
//! JSON object a line: `task`, `candidate`, and `patch` or `replacement`).

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

/// Reads a predictions file; every line is checked before anything runs.
pub fn read_patches_file(
    path: &Path,
    benchmark: &Benchmark,
) -> Result<Vec<PlannedCandidate>, InputError> {
    let bytes = std::fs::read(path).map_err(|source| InputError::Read {
        path: path.to_owned(),
        source,
    })?;
    let mut planned: Vec<PlannedCandidate> = Vec::new();
    let mut seen: HashMap<String, usize> = HashMap::new();
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
        let candidate = match (record.patch, record.replacement) {
            (Some(diff), None) => Candidate::Diff(
                Patch::parse(&diff)
                    .map_err(|e| bad(format!("the patch is not a unified diff: {e}")))?,
            ),
            (None, Some(text)) => {
                let target = parse_target(record.target.as_deref()).map_err(&bad)?;
                Candidate::Replacement { target, text }
            }
            _ => {
                return Err(bad(
                    "give exactly one of `patch` (a unified diff) and `replacement`".into(),
                ));
            }
        };
        let label = record
            .candidate
            .unwrap_or_else(|| format!("line{}", index + 1));
        let base = format!("{}/{}", task.id, label);
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
            task: task.id.clone(),
            label,
            candidate,
            origin,
        });
    }
    if planned.is_empty() {
        return Err(InputError::Empty(path.to_owned()));
    }
    Ok(planned)
}

/// How a candidate is stored: its kind's word and its text.
pub fn stored_form(candidate: &Candidate) -> (String, String) {
    let (kind, content) = match candidate {
        Candidate::Unchanged => (CandidateKind::Unchanged, String::new()),
        Candidate::Diff(patch) => (CandidateKind::Diff, patch.to_string()),
        Candidate::Replacement { target, text } => {
            (CandidateKind::Replacement(*target), text.clone())
        }
    };
    (kind.to_string(), content)
}

/// The candidate behind a stored kind and text (the inverse of [`stored_form`]); `None` for a
/// kind the store does not know or a diff that does not parse.
pub fn from_stored_form(kind: &str, content: &str) -> Option<Candidate> {
    match CandidateKind::parse(kind).ok()? {
        CandidateKind::Unchanged => Some(Candidate::Unchanged),
        CandidateKind::Diff => Patch::parse(content).ok().map(Candidate::Diff),
        CandidateKind::Replacement(target) => Some(Candidate::Replacement {
            target,
            text: content.to_owned(),
        }),
    }
}

/// The rows registered with a new run.
pub fn new_candidates(planned: &[PlannedCandidate]) -> Vec<NewCandidate> {
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
pub fn input_hash(planned: &[PlannedCandidate], tasks: &[&Task]) -> String {
    let mut hasher = Sha256::new();
    for p in planned {
        let (kind, content) = stored_form(&p.candidate);
        for part in [&p.id, &p.task, &kind, &content] {
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
        let planned = read_patches_file(&file, &benchmark).unwrap();
        assert_eq!(planned.len(), 3);
        assert!(
            matches!(&planned[0].candidate, Candidate::Diff(p) if p.files[0].new_path == "src/main/java/X.java")
        );

        let mut bytes = format!("{}\n", line("a")).into_bytes();
        bytes.extend(b"{\"task\": \"demo-zip-slip\xff\"}\n");
        std::fs::write(&file, bytes).unwrap();
        let err = read_patches_file(&file, &benchmark)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("preds.jsonl:2: the line is not UTF-8"),
            "{err}"
        );
        std::fs::write(&file, format!("{}\r\n{{\"task\": 1}}\r\n", line("a"))).unwrap();
        let err = read_patches_file(&file, &benchmark)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("preds.jsonl:2: not a candidate object"),
            "{err}"
        );
    }
}
