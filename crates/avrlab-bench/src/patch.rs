//! Unified diffs: reading them (git style or plain `diff -u`), and applying them to file text.
//!
//! Hunks are placed at their stated line when the context matches there, else at the nearest line
//! where it does (as `patch` does with an offset); they never apply with mismatched context. A
//! diff may name one file in several sections (many generators write a header per hunk): the
//! sections apply in order, each to what the ones before it left, as `git apply` does.

use std::fmt;
use std::path::Path;

/// One line of a hunk.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HunkLine {
    Context(String),
    Remove(String),
    Add(String),
}

/// One `@@ -a,b +c,d @@` block.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Hunk {
    /// 1-based first line in the old file (0 for an empty old side).
    pub old_start: u32,
    pub new_start: u32,
    pub lines: Vec<HunkLine>,
}

/// The changes to one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileDiff {
    /// Project-relative path before the change (`a/` prefix removed).
    pub old_path: String,
    pub new_path: String,
    /// The file does not exist before the change (`--- /dev/null`).
    pub created: bool,
    /// The file does not exist after the change (`+++ /dev/null`).
    pub deleted: bool,
    pub hunks: Vec<Hunk>,
}

/// A multi-file unified diff.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Patch {
    /// Its sections in order; several may name the same file.
    pub files: Vec<FileDiff>,
}

/// One file as a patch leaves it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileChange {
    /// Project-relative path.
    pub path: String,
    /// Its new text, or `None` when the patch deletes it (or moves it away).
    pub text: Option<String>,
}

/// Why a diff could not be read or applied.
#[derive(Debug, thiserror::Error)]
pub enum PatchError {
    /// The diff file could not be read.
    #[error("cannot read the diff file")]
    Io(#[from] std::io::Error),
    /// The text is not a unified diff.
    #[error("line {line}: {message}")]
    Malformed { line: usize, message: String },
    /// The diff changes no file.
    #[error("the diff is empty")]
    Empty,
    /// A hunk's context or removed lines are not in the file.
    #[error("{path}: hunk {hunk} (at line {line}) does not match the file")]
    HunkMismatch {
        path: String,
        hunk: usize,
        line: u32,
    },
    /// The file to change is missing (or, for a creation, already there).
    #[error("{path}: {message}")]
    File { path: String, message: String },
}

impl Patch {
    /// Reads a diff file.
    pub fn read(path: &Path) -> Result<Self, PatchError> {
        Self::parse(&std::fs::read_to_string(path)?)
    }

    /// Reads diff text; prose before the first `---` (a commit message, `diff --git`) is skipped.
    pub fn parse(text: &str) -> Result<Self, PatchError> {
        // A byte-order mark from an editor is not part of the first line.
        let text = text.strip_prefix('\u{feff}').unwrap_or(text);
        let lines: Vec<&str> = text.lines().collect();
        let mut files = Vec::new();
        let mut i = 0;
        while i < lines.len() {
            if !(lines[i].starts_with("--- ")
                && lines.get(i + 1).is_some_and(|l| l.starts_with("+++ ")))
            {
                i += 1;
                continue;
            }
            let old = header_path(&lines[i][4..]);
            let new = header_path(&lines[i + 1][4..]);
            i += 2;
            let mut hunks = Vec::new();
            while i < lines.len() && lines[i].starts_with("@@") {
                let (hunk, next) = parse_hunk(&lines, i)?;
                hunks.push(hunk);
                i = next;
            }
            if hunks.is_empty() {
                return Err(PatchError::Malformed {
                    line: i + 1,
                    message: "a file header is not followed by a hunk".into(),
                });
            }
            let created = old.is_none();
            let deleted = new.is_none();
            let (old_path, new_path) = match (old, new) {
                (Some(o), Some(n)) => (o, n),
                (Some(o), None) => (o.clone(), o),
                (None, Some(n)) => (n.clone(), n),
                (None, None) => {
                    return Err(PatchError::Malformed {
                        line: i,
                        message: "both sides of a file header are /dev/null".into(),
                    });
                }
            };
            files.push(FileDiff {
                old_path,
                new_path,
                created,
                deleted,
                hunks,
            });
        }
        if files.is_empty() {
            return Err(PatchError::Empty);
        }
        Ok(Self { files })
    }

    /// The same changes, undone: each section reversed, the last first (a later section of a file
    /// applied to what the earlier ones left, so it is undone before them).
    pub fn reversed(&self) -> Self {
        let files = self
            .files
            .iter()
            .rev()
            .map(|f| FileDiff {
                old_path: f.new_path.clone(),
                new_path: f.old_path.clone(),
                created: f.deleted,
                deleted: f.created,
                hunks: f
                    .hunks
                    .iter()
                    .map(|h| Hunk {
                        old_start: h.new_start,
                        new_start: h.old_start,
                        lines: h
                            .lines
                            .iter()
                            .map(|l| match l {
                                HunkLine::Context(s) => HunkLine::Context(s.clone()),
                                HunkLine::Remove(s) => HunkLine::Add(s.clone()),
                                HunkLine::Add(s) => HunkLine::Remove(s.clone()),
                            })
                            .collect(),
                    })
                    .collect(),
            })
            .collect();
        Self { files }
    }

    /// The files the patch changes, computed in memory. Sections apply in order, each to the
    /// text the sections before it left (as `git apply` does): a file may be changed by several
    /// sections, created by one and changed by the next, or deleted by one and created again by
    /// the next. A section that deletes or moves away a file that an earlier section wrote is
    /// refused: `git apply` removes files before it writes any, so it keeps such a file, which
    /// is not what the diff says. `read` gives a path's text before the patch, `None` when there
    /// is no such file; it is asked once per path. Each path is listed once, in the order the
    /// patch first names it.
    pub fn changes<E: From<PatchError>>(
        &self,
        mut read: impl FnMut(&str) -> Result<Option<String>, E>,
    ) -> Result<Vec<FileChange>, E> {
        // Each path's text before the patch (whether it existed) and as the sections so far
        // leave it.
        struct Tracked {
            path: String,
            existed: bool,
            text: Option<String>,
            /// A section wrote it.
            written: bool,
        }
        let mut files: Vec<Tracked> = Vec::new();
        let mut index = |files: &mut Vec<Tracked>, path: &str| -> Result<usize, E> {
            if let Some(at) = files.iter().position(|f| f.path == path) {
                return Ok(at);
            }
            let text = read(path)?;
            files.push(Tracked {
                path: path.to_owned(),
                existed: text.is_some(),
                text,
                written: false,
            });
            Ok(files.len() - 1)
        };
        let refused = |path: &str, message: &str| PatchError::File {
            path: path.to_owned(),
            message: message.to_owned(),
        };
        for section in &self.files {
            let from = index(&mut files, &section.old_path)?;
            let before = match (&files[from].text, section.created) {
                (None, true) => String::new(),
                (Some(_), true) => {
                    let why = "the diff creates it but it already exists";
                    return Err(refused(&section.old_path, why).into());
                }
                (Some(text), false) => text.clone(),
                (None, false) if files[from].existed => {
                    let why = "an earlier section of the diff deletes or moves it";
                    return Err(refused(&section.old_path, why).into());
                }
                (None, false) => return Err(refused(&section.old_path, "it does not exist").into()),
            };
            let after = apply_to_text(section, &before)?;
            let removes = section.deleted || section.old_path != section.new_path;
            if removes && files[from].written {
                let why = "an earlier section of the diff writes it and a later one deletes or \
                           moves it (git apply would keep the written file): write the diff \
                           without the earlier section";
                return Err(refused(&section.old_path, why).into());
            }
            if section.deleted {
                // `git apply` refuses a deletion that leaves lines ("removal patch leaves file
                // contents"): the diff did not know the file it deletes.
                if !after.is_empty() {
                    let why = "the diff deletes it but its hunks leave lines in it";
                    return Err(refused(&section.old_path, why).into());
                }
                files[from].text = None;
                continue;
            }
            if section.old_path != section.new_path {
                files[from].text = None;
            }
            let to = index(&mut files, &section.new_path)?;
            if to != from && files[to].text.is_some() {
                // As `git apply`: a move never overwrites a file.
                let why = "the diff moves a file onto it but it already exists";
                return Err(refused(&section.new_path, why).into());
            }
            files[to].text = Some(after);
            files[to].written = true;
        }
        Ok(files
            .into_iter()
            .filter(|f| f.existed || f.written)
            .map(|f| FileChange {
                path: f.path,
                text: f.text,
            })
            .collect())
    }

    /// Applies the patch to a project folder, writing only the files it changes. All files are
    /// patched in memory first ([`Patch::changes`]), so a patch that fails leaves the folder
    /// untouched.
    pub fn apply_to_dir(&self, root: &Path) -> Result<(), PatchError> {
        let changes = self.changes(|path| match std::fs::read_to_string(root.join(path)) {
            Ok(text) => Ok(Some(text)),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(PatchError::File {
                path: path.to_owned(),
                message: format!("cannot read it ({e})"),
            }),
        })?;
        for change in changes {
            let target = root.join(&change.path);
            match change.text {
                None => std::fs::remove_file(target)?,
                Some(text) => {
                    if let Some(parent) = target.parent() {
                        std::fs::create_dir_all(parent)?;
                    }
                    std::fs::write(target, text)?;
                }
            }
        }
        Ok(())
    }
}

/// The path of a `---`/`+++` header: without its timestamp and `a/`/`b/` prefix; `None` for
/// `/dev/null`.
fn header_path(raw: &str) -> Option<String> {
    let path = raw.split('\t').next().unwrap_or(raw).trim_end();
    if path == "/dev/null" {
        return None;
    }
    let path = path
        .strip_prefix("a/")
        .or_else(|| path.strip_prefix("b/"))
        .unwrap_or(path);
    Some(path.to_owned())
}

fn parse_range(text: &str) -> Option<(u32, u32)> {
    let (start, len) = match text.split_once(',') {
        Some((s, l)) => (s.parse().ok()?, l.parse().ok()?),
        None => (text.parse().ok()?, 1),
    };
    Some((start, len))
}

fn parse_hunk(lines: &[&str], at: usize) -> Result<(Hunk, usize), PatchError> {
    let malformed = |line: usize, message: &str| PatchError::Malformed {
        line: line + 1,
        message: message.to_owned(),
    };
    let header = lines[at];
    let inner = header
        .strip_prefix("@@ -")
        .and_then(|rest| rest.split_once(" @@"))
        .map(|(ranges, _)| ranges)
        .ok_or_else(|| malformed(at, "bad hunk header"))?;
    let (old, new) = inner
        .split_once(" +")
        .ok_or_else(|| malformed(at, "bad hunk header"))?;
    let (old_start, mut old_left) =
        parse_range(old).ok_or_else(|| malformed(at, "bad old range"))?;
    let (new_start, mut new_left) =
        parse_range(new).ok_or_else(|| malformed(at, "bad new range"))?;
    let mut body = Vec::new();
    let mut i = at + 1;
    while old_left > 0 || new_left > 0 {
        let Some(&line) = lines.get(i) else {
            return Err(malformed(i, "the diff ends inside a hunk"));
        };
        // Some tools strip the single space of an empty context line.
        let tag = line.chars().next().unwrap_or(' ');
        let rest = line.get(tag.len_utf8()..).unwrap_or("");
        match tag {
            ' ' if old_left > 0 && new_left > 0 => {
                old_left -= 1;
                new_left -= 1;
                body.push(HunkLine::Context(rest.to_owned()));
            }
            '-' if old_left > 0 => {
                old_left -= 1;
                body.push(HunkLine::Remove(rest.to_owned()));
            }
            '+' if new_left > 0 => {
                new_left -= 1;
                body.push(HunkLine::Add(rest.to_owned()));
            }
            '\\' => {}
            _ => return Err(malformed(i, "a hunk's line counts do not match its body")),
        }
        i += 1;
    }
    while lines.get(i).is_some_and(|l| l.starts_with('\\')) {
        i += 1;
    }
    Ok((
        Hunk {
            old_start,
            new_start,
            lines: body,
        },
        i,
    ))
}

/// Applies one section's hunks to its file's text. Line endings of the result follow the input's
/// last line. A file with several sections takes [`Patch::changes`], which applies them in turn.
pub fn apply_to_text(file: &FileDiff, text: &str) -> Result<String, PatchError> {
    let trailing_newline = text.is_empty() || text.ends_with('\n');
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    // Lines added before a hunk shift later hunks; track it so each search starts where expected.
    let mut shift: i64 = 0;
    let mut floor = 0usize;
    for (index, hunk) in file.hunks.iter().enumerate() {
        let old: Vec<&str> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Remove(s) => Some(s.as_str()),
                HunkLine::Add(_) => None,
            })
            .collect();
        let new: Vec<String> = hunk
            .lines
            .iter()
            .filter_map(|l| match l {
                HunkLine::Context(s) | HunkLine::Add(s) => Some(s.clone()),
                HunkLine::Remove(_) => None,
            })
            .collect();
        // A hunk with an empty old side names the line after which it inserts.
        let stated = if old.is_empty() {
            hunk.old_start as i64
        } else {
            hunk.old_start as i64 - 1
        };
        let expected = (stated + shift).clamp(0, lines.len() as i64) as usize;
        let position =
            find_block(&lines, &old, expected, floor).ok_or_else(|| PatchError::HunkMismatch {
                path: file.old_path.clone(),
                hunk: index + 1,
                line: hunk.old_start,
            })?;
        let added = new.len();
        lines.splice(position..position + old.len(), new);
        shift += added as i64 - old.len() as i64 + position as i64 - expected as i64;
        floor = position + added;
    }
    let mut out = lines.join("\n");
    if trailing_newline && !lines.is_empty() {
        out.push('\n');
    }
    Ok(out)
}

/// The start of `block` in `lines` nearest to `expected`, not before `floor`.
fn find_block(lines: &[String], block: &[&str], expected: usize, floor: usize) -> Option<usize> {
    let fits = |at: usize| {
        at >= floor
            && at + block.len() <= lines.len()
            && block
                .iter()
                .zip(&lines[at..])
                .all(|(want, have)| want.trim_end_matches('\r') == have.trim_end_matches('\r'))
    };
    let max = lines.len().saturating_sub(block.len());
    (0..=lines.len()).find_map(|distance| {
        let below = expected.checked_sub(distance).filter(|&at| fits(at));
        below.or_else(|| Some(expected + distance).filter(|&at| at <= max && fits(at)))
    })
}

impl fmt::Display for Patch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for file in &self.files {
            let old = if file.created {
                "/dev/null".to_owned()
            } else {
                format!("a/{}", file.old_path)
            };
            let new = if file.deleted {
                "/dev/null".to_owned()
            } else {
                format!("b/{}", file.new_path)
            };
            writeln!(f, "--- {old}\n+++ {new}")?;
            for hunk in &file.hunks {
                let old_len = hunk
                    .lines
                    .iter()
                    .filter(|l| !matches!(l, HunkLine::Add(_)))
                    .count();
                let new_len = hunk
                    .lines
                    .iter()
                    .filter(|l| !matches!(l, HunkLine::Remove(_)))
                    .count();
                writeln!(
                    f,
                    "@@ -{},{old_len} +{},{new_len} @@",
                    hunk.old_start, hunk.new_start
                )?;
                for line in &hunk.lines {
                    match line {
                        HunkLine::Context(s) => writeln!(f, " {s}")?,
                        HunkLine::Remove(s) => writeln!(f, "-{s}")?,
                        HunkLine::Add(s) => writeln!(f, "+{s}")?,
                    }
                }
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const BEFORE: &str = "a\nb\nc\nd\ne\nf\n";

    fn diff(body: &str) -> Patch {
        Patch::parse(&format!(
            "diff --git a/x b/x\nindex 1..2\n--- a/src/X.java\n+++ b/src/X.java\n{body}"
        ))
        .unwrap()
    }

    #[test]
    fn applies_replacement_insertion_and_deletion() {
        let patch = diff("@@ -2,2 +2,3 @@\n b\n-c\n+C\n+C2\n@@ -5,2 +6,1 @@\n e\n-f\n");
        assert_eq!(patch.files[0].old_path, "src/X.java");
        let after = apply_to_text(&patch.files[0], BEFORE).unwrap();
        assert_eq!(after, "a\nb\nC\nC2\nd\ne\n");
        let undone = apply_to_text(&patch.reversed().files[0], &after).unwrap();
        assert_eq!(undone, BEFORE);
    }

    #[test]
    fn finds_hunks_that_moved() {
        let patch = diff("@@ -2,2 +2,2 @@\n b\n-c\n+C\n");
        let moved = format!("x\ny\n{BEFORE}");
        assert_eq!(
            apply_to_text(&patch.files[0], &moved).unwrap(),
            "x\ny\na\nb\nC\nd\ne\nf\n"
        );
    }

    #[test]
    fn refuses_mismatched_context() {
        let patch = diff("@@ -2,2 +2,2 @@\n b\n-zzz\n+C\n");
        assert!(matches!(
            apply_to_text(&patch.files[0], BEFORE),
            Err(PatchError::HunkMismatch { hunk: 1, .. })
        ));
    }

    #[test]
    fn rejects_malformed_diffs() {
        assert!(matches!(
            Patch::parse("just prose\n"),
            Err(PatchError::Empty)
        ));
        assert!(Patch::parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n").is_err());
        assert!(Patch::parse("--- a/x\n+++ b/x\n@@ bogus @@\n").is_err());
    }

    /// Sections of one file apply in turn, and the reversed patch undoes them in turn.
    #[test]
    fn sections_of_one_file_apply_in_order_and_undo_in_reverse() {
        let patch = Patch::parse(
            "--- a/X\n+++ b/X\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\
             --- a/X\n+++ b/X\n@@ -1,3 +1,4 @@\n a\n B\n+inserted\n c\n",
        )
        .unwrap();
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("X"), BEFORE).unwrap();
        patch.apply_to_dir(dir.path()).unwrap();
        let after = std::fs::read_to_string(dir.path().join("X")).unwrap();
        assert_eq!(after, "a\nB\ninserted\nc\nd\ne\nf\n");
        patch.reversed().apply_to_dir(dir.path()).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("X")).unwrap(),
            BEFORE
        );
    }

    #[test]
    fn round_trips_through_display() {
        let patch = diff("@@ -2,2 +2,3 @@\n b\n-c\n+C\n+C2\n");
        assert_eq!(Patch::parse(&patch.to_string()).unwrap(), patch);
    }

    #[test]
    fn tolerates_stripped_empty_context_lines() {
        let patch = Patch::parse("--- a/x\n+++ b/x\n@@ -1,3 +1,3 @@\n a\n\n-c\n+C\n").unwrap();
        assert_eq!(
            apply_to_text(&patch.files[0], "a\n\nc\n").unwrap(),
            "a\n\nC\n"
        );
    }
}
