//! From a task to what a prompt shows: the vulnerable method, its buggy lines and its CWEs; and
//! whether a candidate equals the task's reference fix.

use std::path::Path;

use avrlab_bench::{Task, apply_to_text};
use avrlab_prompt::{LineRange, VulnerableMethod};
use avrlab_store::Correctness;
use avrlab_validate::{Candidate, ReplacementTarget};

use avrlab_prompt::cwe_info;

/// Why a task cannot be prompted for.
#[derive(Debug, thiserror::Error)]
pub enum MethodError {
    /// The task localizes no method.
    #[error("task {0} has no [[localization]] entry to prompt for")]
    NoLocalization(String),
    /// The localized file cannot be read.
    #[error("task {task}: cannot read {file}")]
    Read {
        task: String,
        file: String,
        #[source]
        source: std::io::Error,
    },
    /// The method's lines lie outside the file.
    #[error("task {task}: method lines {start}-{end} lie outside {file}")]
    Lines {
        task: String,
        file: String,
        start: u32,
        end: u32,
    },
}

/// The first localized method of a task, read from its task state in `root`. (Tasks whose fix
/// spans several methods are prompted with the first; the others stay as they are.)
pub fn vulnerable_method(task: &Task, root: &Path) -> Result<VulnerableMethod, MethodError> {
    let loc = task
        .localization
        .first()
        .ok_or_else(|| MethodError::NoLocalization(task.id.clone()))?;
    let text =
        std::fs::read_to_string(root.join(&loc.file)).map_err(|source| MethodError::Read {
            task: task.id.clone(),
            file: loc.file.clone(),
            source,
        })?;
    let lines: Vec<&str> = text.lines().collect();
    let (start, end) = loc.method_lines;
    if end as usize > lines.len() {
        return Err(MethodError::Lines {
            task: task.id.clone(),
            file: loc.file.clone(),
            start,
            end,
        });
    }
    let mut source = lines[start as usize - 1..end as usize].join("\n");
    source.push('\n');
    Ok(VulnerableMethod {
        file: loc.file.clone(),
        method_name: loc.method.clone(),
        source,
        method_start_line: start,
        buggy_lines: loc
            .hunks
            .iter()
            .map(|&(a, b)| LineRange::new(a, b))
            .collect(),
        cwe: task.cwe.iter().map(|&id| cwe_info(id)).collect(),
        class_context: None,
    })
}

/// Java text reduced to its tokens' shape: no comments, no whitespace differences.
fn layout_free(text: &str) -> String {
    avrlab_prompt::normalize(text)
}

/// Whether a candidate makes the localized file identical to the reference fix's, up to layout and
/// comments (`Exact`), or the same syntax tree up to local names, braces around one statement and
/// parentheses around a primary (`Equivalent`), or neither (`Unknown`: it may still be correct).
pub(crate) fn correctness(task: &Task, root: &Path, candidate: &Candidate) -> Correctness {
    let (Some(reference), Some(loc)) = (&task.reference, task.localization.first()) else {
        return Correctness::Unknown;
    };
    let Ok(original) = std::fs::read_to_string(root.join(&loc.file)) else {
        return Correctness::Unknown;
    };
    let Some(fixed) = reference
        .files
        .iter()
        .find(|f| f.old_path == loc.file)
        .and_then(|f| apply_to_text(f, &original).ok())
    else {
        return Correctness::Unknown;
    };
    let candidate_text = match candidate {
        Candidate::Replacement {
            target: ReplacementTarget::Method(0),
            text,
        } => {
            let lines: Vec<&str> = original.split_inclusive('\n').collect();
            let (start, end) = (loc.method_lines.0 as usize, loc.method_lines.1 as usize);
            if end > lines.len() {
                return Correctness::Unknown;
            }
            format!(
                "{}{text}\n{}",
                lines[..start - 1].concat(),
                lines[end..].concat()
            )
        }
        Candidate::Diff(patch) => match patch.files.iter().find(|f| f.old_path == loc.file) {
            Some(file) => match apply_to_text(file, &original) {
                Ok(text) => text,
                Err(_) => return Correctness::Unknown,
            },
            None => return Correctness::Unknown,
        },
        _ => return Correctness::Unknown,
    };
    // A multi-file reference fix is exact only if the candidate changes the other files alike; a
    // method-only candidate cannot, so it is never called exact then.
    if reference.files.len() > 1 {
        return Correctness::Unknown;
    }
    if layout_free(&candidate_text) == layout_free(&fixed) {
        return Correctness::Exact;
    }
    match (
        avrlab_java::equivalence_key(&candidate_text),
        avrlab_java::equivalence_key(&fixed),
    ) {
        (Some(candidate), Some(reference)) if candidate == reference => Correctness::Equivalent,
        _ => Correctness::Unknown,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reference_is_exact_a_renamed_local_is_equivalent_another_fix_is_unknown() {
        let benchmark = crate::run::fake_oracle::demo();
        let task = benchmark.task("demo-sql-literal").unwrap();
        let avrlab_bench::ProjectSource::Folder(root) = &task.project else {
            panic!("the demo task ships its project");
        };
        let reference = task.reference.as_ref().unwrap().to_string();
        let judge = |diff: &str| {
            let patch = avrlab_bench::Patch::parse(diff).unwrap();
            correctness(task, root, &Candidate::Diff(patch))
        };
        assert_eq!(judge(&reference), Correctness::Exact);
        // The same fix with another name for its local variable.
        let renamed = reference.replace("digits", "shown");
        assert_eq!(judge(&renamed), Correctness::Equivalent);
        // A different bound: still a fix perhaps, but not shown to be the reference's.
        let other = reference.replace("startsWith(\"-\")", "startsWith(\"+\")");
        assert_eq!(judge(&other), Correctness::Unknown);
    }
}
