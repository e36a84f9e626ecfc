//! Candidates: what a model or a person proposes, and how it is written into a workspace.

use std::path::Path;

use avrlab_bench::{Patch, PatchError, PolicyViolation, Task};

/// Which localized region a replacement replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ReplacementTarget {
    /// The whole method of localization entry `n`.
    Method(usize),
    /// Hunk `hunk` of localization entry `n`.
    Hunk { method: usize, hunk: usize },
}

/// A proposed change to the task state.
#[derive(Debug, Clone)]
pub enum Candidate {
    /// No change: validates the task state itself (the vulnerable version).
    Unchanged,
    /// A unified diff against the task state.
    Diff(Patch),
    /// New text for a localized method or hunk.
    Replacement {
        target: ReplacementTarget,
        text: String,
    },
}

/// Why a candidate could not be written into the workspace. Every variant but `Io` is the
/// candidate's fault and becomes `Outcome::ApplyFailed`.
#[derive(Debug, thiserror::Error)]
pub enum CandidateError {
    /// The candidate touches a file it may not change.
    #[error(transparent)]
    Policy(#[from] PolicyViolation),
    /// The diff does not apply.
    #[error(transparent)]
    DoesNotApply(PatchError),
    /// The replacement names a region the task does not localize.
    #[error("the task has no localized {0}")]
    NoSuchTarget(String),
    /// The workspace could not be written (infrastructure).
    #[error("cannot write the workspace")]
    Io(#[source] std::io::Error),
}

/// Writes a candidate into a workspace holding the task state.
pub fn apply_candidate(
    task: &Task,
    candidate: &Candidate,
    root: &Path,
) -> Result<(), CandidateError> {
    match candidate {
        Candidate::Unchanged => Ok(()),
        Candidate::Diff(patch) => {
            task.policy.check(patch)?;
            patch.apply_to_dir(root).map_err(|e| match e {
                PatchError::Io(io) => CandidateError::Io(io),
                other => CandidateError::DoesNotApply(other),
            })
        }
        Candidate::Replacement { target, text } => {
            let (index, lines) = match *target {
                ReplacementTarget::Method(m) => {
                    let loc = task
                        .localization
                        .get(m)
                        .ok_or_else(|| CandidateError::NoSuchTarget(format!("method #{m}")))?;
                    (m, loc.method_lines)
                }
                ReplacementTarget::Hunk { method, hunk } => {
                    let loc = task
                        .localization
                        .get(method)
                        .and_then(|l| l.hunks.get(hunk));
                    let lines = loc.ok_or_else(|| {
                        CandidateError::NoSuchTarget(format!("hunk #{hunk} of method #{method}"))
                    })?;
                    (method, *lines)
                }
            };
            let file = &task.localization[index].file;
            task.policy.check_path(file)?;
            let path = root.join(file);
            let before = std::fs::read_to_string(&path).map_err(CandidateError::Io)?;
            let after = replace_lines(&before, lines, text).ok_or_else(|| {
                CandidateError::NoSuchTarget(format!("lines {}-{} in {file}", lines.0, lines.1))
            })?;
            std::fs::write(&path, after).map_err(CandidateError::Io)
        }
    }
}

/// Checks, without writing anything, that a candidate would apply to the task state in `root`.
pub fn check_candidate(
    task: &Task,
    candidate: &Candidate,
    root: &Path,
) -> Result<(), CandidateError> {
    match candidate {
        Candidate::Unchanged => Ok(()),
        Candidate::Diff(patch) => {
            task.policy.check(patch)?;
            for file in &patch.files {
                let before = if file.created {
                    String::new()
                } else {
                    std::fs::read_to_string(root.join(&file.old_path)).map_err(|e| {
                        CandidateError::DoesNotApply(PatchError::File {
                            path: file.old_path.clone(),
                            message: format!("cannot read it ({e})"),
                        })
                    })?
                };
                avrlab_bench::apply_to_text(file, &before).map_err(CandidateError::DoesNotApply)?;
            }
            Ok(())
        }
        Candidate::Replacement { target, .. } => {
            let exists = match *target {
                ReplacementTarget::Method(m) => task.localization.get(m).is_some(),
                ReplacementTarget::Hunk { method, hunk } => task
                    .localization
                    .get(method)
                    .is_some_and(|l| l.hunks.get(hunk).is_some()),
            };
            if exists {
                Ok(())
            } else {
                Err(CandidateError::NoSuchTarget(format!("{target:?}")))
            }
        }
    }
}

/// Replaces 1-based inclusive lines `[start, end]` (`end = start - 1`: insert before `start`).
fn replace_lines(text: &str, (start, end): (u32, u32), replacement: &str) -> Option<String> {
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let (start, end) = (start as usize, end as usize);
    if start == 0 || end + 1 < start || end > lines.len() {
        return None;
    }
    let mut out: String = lines[..start - 1].concat();
    out.push_str(replacement);
    if !replacement.is_empty() && !replacement.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&lines[end..].concat());
    Some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replaces_inserts_and_deletes_line_ranges() {
        let text = "a\nb\nc\nd\n";
        assert_eq!(replace_lines(text, (2, 3), "X").unwrap(), "a\nX\nd\n");
        assert_eq!(
            replace_lines(text, (2, 1), "X\n").unwrap(),
            "a\nX\nb\nc\nd\n"
        );
        assert_eq!(replace_lines(text, (2, 2), "").unwrap(), "a\nc\nd\n");
        assert_eq!(replace_lines(text, (4, 4), "Z").unwrap(), "a\nb\nc\nZ\n");
        assert!(replace_lines(text, (3, 9), "Z").is_none());
        assert!(replace_lines(text, (0, 1), "Z").is_none());
    }
}
