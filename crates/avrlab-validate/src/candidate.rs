//! Candidates: what a model or a person proposes, and how it is written into a workspace.

use std::collections::BTreeMap;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use avrlab_bench::{ClassPolicy, FileChange, Patch, PatchError, PolicyViolation, Task};
pub use avrlab_core::ReplacementTarget;
use sha2::{Digest, Sha256};

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
    /// A patch that is not a unified diff (`text` as given): it applies to nothing, so its
    /// outcome is `ApplyFailed` with `reason`.
    Malformed { text: String, reason: String },
}

/// Why a candidate could not be written into the workspace. Every variant but `Io` is the
/// candidate's fault and becomes `Outcome::ApplyFailed`.
#[derive(Debug, thiserror::Error)]
pub enum CandidateError {
    /// The candidate touches a file it may not change, or declares a class it may not declare.
    #[error(transparent)]
    Policy(#[from] PolicyViolation),
    /// The diff does not apply.
    #[error(transparent)]
    DoesNotApply(#[from] PatchError),
    /// The replacement names a region the task does not localize.
    #[error("the task has no localized {0}")]
    NoSuchTarget(String),
    /// The candidate's patch is not a unified diff.
    #[error("the patch is not a unified diff: {0}")]
    Malformed(String),
    /// A path of the candidate cannot be written as a plain file inside the workspace: a NUL
    /// byte, an over-long name, a path through a file or a symbolic link.
    #[error("{path}: {problem}")]
    Unwritable { path: String, problem: String },
    /// The workspace could not be written (infrastructure).
    #[error("cannot write the workspace")]
    Io(#[source] std::io::Error),
}

/// The longest file name component Linux file systems accept (NAME_MAX).
const NAME_MAX: usize = 255;
/// A bound well under PATH_MAX (4096) for project-relative paths, leaving room for the
/// workspace's own prefix.
const RELATIVE_PATH_MAX: usize = 2048;

/// Writes a candidate into a workspace holding the task state. The candidate's files are checked
/// (edit policy, declared classes, writable paths) and computed in memory before anything is
/// written.
pub fn apply_candidate(
    task: &Task,
    classes: &ClassPolicy,
    candidate: &Candidate,
    root: &Path,
) -> Result<(), CandidateError> {
    let changes = candidate_changes(task, classes, candidate, root)?;
    for change in &changes {
        let target = root.join(&change.path);
        let written = match &change.text {
            None => std::fs::remove_file(&target),
            Some(text) => target
                .parent()
                .map_or(Ok(()), std::fs::create_dir_all)
                .and_then(|()| std::fs::write(&target, text)),
        };
        written.map_err(|e| write_error(&change.path, e))?;
    }
    Ok(())
}

/// Checks, without writing anything, that a candidate would apply to the task state in `root`.
pub fn check_candidate(
    task: &Task,
    classes: &ClassPolicy,
    candidate: &Candidate,
    root: &Path,
) -> Result<(), CandidateError> {
    candidate_changes(task, classes, candidate, root).map(|_| ())
}

/// What makes two candidates "the same", so that they share one validation: the task, and the
/// exact bytes of every file the applied candidate leaves changed (or that it deletes). Two
/// candidates have the same identity exactly when they make the same project, whatever their
/// text says (context lines, hunk offsets, headers); a whitespace change anywhere, string
/// literals included, is another project. A candidate that does not apply is the same as no
/// other: its verdict is its own.
///
/// There is deliberately no `PartialEq`: only [`CandidateIdentity::project`] is a key, and a
/// `Unique` candidate has none.
#[derive(Debug, Clone)]
pub enum CandidateIdentity {
    /// The candidate applies and makes this project.
    Project(ProjectDigest),
    /// The candidate does not apply (or breaks the edit policy): it shares with nothing.
    Unique,
}

impl CandidateIdentity {
    /// The key under which candidates share a validation; `None` for a unique candidate.
    pub fn project(&self) -> Option<&ProjectDigest> {
        match self {
            Self::Project(digest) => Some(digest),
            Self::Unique => None,
        }
    }
}

/// The project a candidate makes: a sha256 (lowercase hex) over the task (its id and the folder
/// of its definition, which fix its state and tests) and the sorted paths and new bytes of the
/// files the candidate changes. It lives in memory only; it is never stored.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProjectDigest(String);

impl ProjectDigest {
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl std::fmt::Display for ProjectDigest {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// Says which project `candidate` makes of the task state in `pristine`, computed in memory with
/// the same checks and the same application as [`apply_candidate`] (nothing is written).
pub fn candidate_identity(
    task: &Task,
    classes: &ClassPolicy,
    candidate: &Candidate,
    pristine: &Path,
) -> CandidateIdentity {
    let Ok(changes) = candidate_changes(task, classes, candidate, pristine) else {
        return CandidateIdentity::Unique;
    };
    // Each path is changed once; sorted, so that the order of a diff's sections does not matter.
    let files: BTreeMap<&str, Option<&str>> = changes
        .iter()
        .map(|c| (c.path.as_str(), c.text.as_deref()))
        .collect();
    let mut hasher = Sha256::new();
    let mut field = |bytes: &[u8]| {
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    field(b"avrlab candidate identity 1");
    field(task.id.as_bytes());
    field(task.dir.as_os_str().as_bytes());
    for (path, text) in files {
        field(path.as_bytes());
        match text {
            None => field(b"deleted"),
            Some(text) => {
                field(b"file");
                field(text.as_bytes());
            }
        }
    }
    CandidateIdentity::Project(ProjectDigest(hex::encode(hasher.finalize())))
}

/// An error while writing a checked path: what a path can cause is the candidate's; the rest
/// (a full disk, a vanished workspace) is infrastructure.
fn write_error(path: &str, error: std::io::Error) -> CandidateError {
    use std::io::ErrorKind as K;
    match error.kind() {
        K::InvalidInput
        | K::InvalidFilename
        | K::NotADirectory
        | K::IsADirectory
        | K::AlreadyExists
        | K::DirectoryNotEmpty => CandidateError::Unwritable {
            path: path.to_owned(),
            problem: format!("cannot be written ({error})"),
        },
        _ => CandidateError::Io(error),
    }
}

/// Refuses a path that cannot be a plain file inside `root`: checked by name first, then on disk
/// (no component may be a symbolic link or a file; the file itself, if present, is a regular file).
fn check_writable(root: &Path, path: &str, must_exist: bool) -> Result<(), CandidateError> {
    let unwritable = |problem: String| CandidateError::Unwritable {
        path: path.escape_debug().to_string(),
        problem,
    };
    if path.contains('\0') {
        return Err(unwritable("the path holds a NUL byte".into()));
    }
    if path.len() > RELATIVE_PATH_MAX {
        return Err(unwritable(format!(
            "the path is longer than {RELATIVE_PATH_MAX} bytes"
        )));
    }
    let parts: Vec<&str> = path.split('/').collect();
    if let Some(long) = parts.iter().find(|p| p.len() > NAME_MAX) {
        return Err(unwritable(format!(
            "the name {}… is longer than {NAME_MAX} bytes",
            long.chars().take(16).collect::<String>()
        )));
    }
    if parts
        .iter()
        .any(|p| p.is_empty() || *p == "." || *p == "..")
    {
        return Err(unwritable("the path is not a plain relative path".into()));
    }
    let mut at = root.to_path_buf();
    for (index, part) in parts.iter().enumerate() {
        at.push(part);
        let last = index + 1 == parts.len();
        match std::fs::symlink_metadata(&at) {
            Ok(meta) if meta.file_type().is_symlink() => {
                return Err(unwritable(format!("{part} is a symbolic link")));
            }
            Ok(meta) if !last && !meta.is_dir() => {
                return Err(unwritable(format!("{part} is not a folder")));
            }
            Ok(meta) if last && !meta.is_file() => {
                return Err(unwritable("it is not a regular file".into()));
            }
            Ok(_) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                if must_exist {
                    return Err(CandidateError::DoesNotApply(PatchError::File {
                        path: path.to_owned(),
                        message: "it does not exist".into(),
                    }));
                }
                return Ok(());
            }
            Err(e) => return Err(unwritable(format!("cannot be examined ({e})"))),
        }
    }
    Ok(())
}

/// The files a candidate changes, with their new text, after every check.
fn candidate_changes(
    task: &Task,
    classes: &ClassPolicy,
    candidate: &Candidate,
    root: &Path,
) -> Result<Vec<FileChange>, CandidateError> {
    let read = |path: &str| {
        check_writable(root, path, true)?;
        std::fs::read_to_string(root.join(path)).map_err(|e| {
            CandidateError::DoesNotApply(PatchError::File {
                path: path.to_owned(),
                message: format!("cannot read it ({e})"),
            })
        })
    };
    let mut changes = Vec::new();
    match candidate {
        Candidate::Unchanged => {}
        Candidate::Malformed { reason, .. } => {
            return Err(CandidateError::Malformed(reason.clone()));
        }
        Candidate::Diff(patch) => {
            task.policy.check(patch)?;
            // Every path the diff names is checked before it is read: old and new, created,
            // moved or deleted.
            changes = patch.changes(|path| {
                check_writable(root, path, false)?;
                match std::fs::read_to_string(root.join(path)) {
                    Ok(text) => Ok(Some(text)),
                    Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
                    Err(e) => Err(CandidateError::DoesNotApply(PatchError::File {
                        path: path.to_owned(),
                        message: format!("cannot read it ({e})"),
                    })),
                }
            })?;
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
            let before = read(file)?;
            let after = replace_lines(&before, lines, text).ok_or_else(|| {
                CandidateError::NoSuchTarget(format!("lines {}-{} in {file}", lines.0, lines.1))
            })?;
            changes.push(FileChange {
                path: file.clone(),
                text: Some(after),
            });
        }
    }
    for change in &changes {
        if let Some(text) = &change.text {
            classes.check_source(&change.path, text)?;
        }
    }
    Ok(changes)
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

    /// The demo task `demo-xxe-config`, materialized in a fresh folder, with its class rules.
    fn demo_state() -> (tempfile::TempDir, Task, ClassPolicy) {
        let benchmark = avrlab_bench::Benchmark::open("demo").unwrap();
        let task = benchmark.task("demo-xxe-config").unwrap().clone();
        let dir = tempfile::tempdir().unwrap();
        crate::materialize_task(&task, dir.path(), None).unwrap();
        let classes = ClassPolicy::scan(dir.path(), &task.policy).unwrap();
        (dir, task, classes)
    }

    fn creating(path: &str, body: &str) -> Candidate {
        let diff = format!("--- /dev/null\n+++ b/{path}\n@@ -0,0 +1 @@\n+{body}\n");
        Candidate::Diff(Patch::parse(&diff).unwrap())
    }

    const MAIN: &str = "src/main/java/com/example/config";

    #[test]
    fn unwritable_paths_are_the_candidates_fault_and_write_nothing() {
        let (dir, task, classes) = demo_state();
        let root = dir.path();
        std::os::unix::fs::symlink("/tmp", root.join(MAIN).join("link")).unwrap();
        let long = "N".repeat(300);
        // A name no other process writes into /tmp, so that its absence means something.
        let through_link = format!("AvrlabLinkProbe{}.java", std::process::id());
        for path in [
            format!("{MAIN}/A\0B.java"),
            format!("{MAIN}/{long}.java"),
            format!("{MAIN}/{}A.java", "d/".repeat(1100)),
            format!("{MAIN}/ConfigParser.java/A.java"),
            format!("{MAIN}/link/{through_link}"),
        ] {
            let candidate = creating(&path, "package com.example.config; class Q {}");
            for result in [
                check_candidate(&task, &classes, &candidate, root),
                apply_candidate(&task, &classes, &candidate, root),
            ] {
                let err = result.unwrap_err();
                assert!(
                    matches!(err, CandidateError::Unwritable { .. }),
                    "{}: {err}",
                    path.escape_debug()
                );
            }
        }
        assert!(!Path::new("/tmp").join(&through_link).exists());
    }

    const PARSER: &str = "src/main/java/com/example/config/ConfigParser.java";

    fn diff(body: &str) -> Candidate {
        let text = format!("--- a/{PARSER}\n+++ b/{PARSER}\n{body}");
        Candidate::Diff(Patch::parse(&text).unwrap())
    }

    fn digest(identity: CandidateIdentity) -> ProjectDigest {
        identity.project().expect("the candidate applies").clone()
    }

    #[test]
    fn candidates_that_make_the_same_files_have_one_identity_whatever_their_context() {
        let (dir, task, classes) = demo_state();
        let identity = |c: &Candidate| candidate_identity(&task, &classes, c, dir.path());
        let reference = Candidate::Diff(task.reference.clone().unwrap());
        // One line of context instead of three, and a hunk header off by seven lines.
        let narrow = diff(concat!(
            "@@ -18,2 +18,4 @@\n",
            "             factory.setNamespaceAware(true);\n",
            "+            // A settings file never needs a DTD; refusing DOCTYPE also shuts out external entities.\n",
            "+            factory.setFeature(\"http://apache.org/xml/features/disallow-doctype-decl\", true);\n",
            "             DocumentBuilder builder = factory.newDocumentBuilder();\n",
        ));
        assert_eq!(digest(identity(&reference)), digest(identity(&narrow)));
        assert_eq!(
            digest(identity(&Candidate::Unchanged)),
            digest(identity(&Candidate::Unchanged))
        );
        assert_ne!(
            digest(identity(&reference)),
            digest(identity(&Candidate::Unchanged))
        );
        // The task state is only read.
        let parser = std::fs::read(dir.path().join(PARSER)).unwrap();
        let _ = identity(&reference);
        assert_eq!(std::fs::read(dir.path().join(PARSER)).unwrap(), parser);
    }

    /// A diff with one section per hunk for the same file (as many generators write them) makes
    /// the project the one-section diff makes: each section applies to what the one before left,
    /// and both hunks are written.
    #[test]
    fn sections_for_one_file_apply_one_after_another() {
        let (dir, task, classes) = demo_state();
        let identity = |c: &Candidate| candidate_identity(&task, &classes, c, dir.path());
        let first = "@@ -25,2 +25,3 @@\n             factory.setNamespaceAware(true);\n+            factory.setExpandEntityReferences(false);\n             DocumentBuilder builder = factory.newDocumentBuilder();\n";
        let second = "@@ -36,2 +37,3 @@\n                 String key = entry.getAttribute(\"key\");\n+                key = key.strip();\n                 if (key.isEmpty()) {\n";
        let header = format!("--- a/{PARSER}\n+++ b/{PARSER}\n");
        let one_section = diff(&format!("{first}{second}"));
        let two_sections =
            Candidate::Diff(Patch::parse(&format!("{header}{first}{header}{second}")).unwrap());
        assert_eq!(
            digest(identity(&one_section)),
            digest(identity(&two_sections))
        );
        let workspace = tempfile::tempdir().unwrap();
        avrlab_bench::copy_project(dir.path(), workspace.path()).unwrap();
        apply_candidate(&task, &classes, &two_sections, workspace.path()).unwrap();
        let written = std::fs::read_to_string(workspace.path().join(PARSER)).unwrap();
        assert!(written.contains("factory.setExpandEntityReferences(false);"));
        assert!(written.contains("key = key.strip();"));
    }

    #[test]
    fn whitespace_inside_a_string_literal_makes_another_project() {
        let (dir, task, classes) = demo_state();
        let identity = |c: &Candidate| candidate_identity(&task, &classes, c, dir.path());
        let adding = |literal: &str| {
            diff(&format!(
                "@@ -25,1 +25,2 @@\n             factory.setNamespaceAware(true);\n+            String s = \"{literal}\";\n"
            ))
        };
        assert_ne!(
            digest(identity(&adding("a  b"))),
            digest(identity(&adding("a b")))
        );
    }

    #[test]
    fn a_candidate_that_does_not_apply_shares_its_identity_with_nothing() {
        let (dir, task, classes) = demo_state();
        // The reference fix with one context line indented differently: it does not apply.
        let reindented = task.reference.as_ref().unwrap().to_string().replacen(
            "             factory.setNamespaceAware(true);",
            "           factory.setNamespaceAware(true);",
            1,
        );
        let candidate = Candidate::Diff(Patch::parse(&reindented).unwrap());
        assert!(check_candidate(&task, &classes, &candidate, dir.path()).is_err());
        let identity = candidate_identity(&task, &classes, &candidate, dir.path());
        assert!(
            matches!(identity, CandidateIdentity::Unique),
            "{identity:?}"
        );
        assert!(identity.project().is_none());
    }

    #[test]
    fn new_classes_must_stay_in_own_packages_and_not_shadow_tests() {
        let (dir, task, classes) = demo_state();
        let root = dir.path();
        let refused = [
            (
                format!("{MAIN}/Assertions.java"),
                "package org.junit.jupiter.api; public class Assertions {}",
            ),
            (
                format!("{MAIN}/Shadow.java"),
                "package com.example.config; class ConfigParserTest {}",
            ),
        ];
        for (path, body) in refused {
            let err = apply_candidate(&task, &classes, &creating(&path, body), root).unwrap_err();
            assert!(matches!(err, CandidateError::Policy(_)), "{path}: {err}");
            assert!(!root.join(&path).exists());
        }
        let fine = creating(
            &format!("{MAIN}/Limits.java"),
            "package com.example.config; final class Limits {}",
        );
        apply_candidate(&task, &classes, &fine, root).unwrap();
        assert!(root.join(MAIN).join("Limits.java").is_file());
    }
}
