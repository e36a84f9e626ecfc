//! Pure line diffs: unified diff text, changed-line hunks, and old→new line correspondence.

use avrlab_java::LineRange;
use similar::{DiffOp, TextDiff};

/// For each 1-based old line (index `line - 1`), the new line it is equal to, if unchanged.
pub fn line_correspondence(old: &str, new: &str) -> Vec<Option<usize>> {
    let diff = TextDiff::from_lines(old, new);
    let mut map = vec![None; diff.old_slices().len()];
    for op in diff.ops() {
        if let DiffOp::Equal {
            old_index,
            new_index,
            len,
        } = *op
        {
            for i in 0..len {
                map[old_index + i] = Some(new_index + i + 1);
            }
        }
    }
    map
}

/// Like [`line_correspondence`], but a replaced block of as many new lines as old ones also maps line
/// by line: a one-line fix changes the only line of a one-line method, and the rewrite of that
/// line's statement can still be found in both versions at the same place.
pub fn anchor_correspondence(old: &str, new: &str) -> Vec<Option<usize>> {
    let diff = TextDiff::from_lines(old, new);
    let mut map = vec![None; diff.old_slices().len()];
    for op in diff.ops() {
        match *op {
            DiffOp::Equal {
                old_index,
                new_index,
                len,
            } => {
                for i in 0..len {
                    map[old_index + i] = Some(new_index + i + 1);
                }
            }
            DiffOp::Replace {
                old_index,
                old_len,
                new_index,
                new_len,
            } if old_len == new_len => {
                for i in 0..old_len {
                    map[old_index + i] = Some(new_index + i + 1);
                }
            }
            _ => {}
        }
    }
    map
}

/// The old-file line ranges a diff changes; an insertion is `[n, n-1]` (before old line `n`).
pub fn changed_hunks(old: &str, new: &str) -> Vec<LineRange> {
    let diff = TextDiff::from_lines(old, new);
    let mut out: Vec<LineRange> = Vec::new();
    let mut pending: Option<(usize, usize)> = None; // (old start index, old end index exclusive)
    for op in diff.ops() {
        match *op {
            DiffOp::Equal { .. } => {
                if let Some((s, e)) = pending.take() {
                    out.push(LineRange::new(s + 1, e));
                }
            }
            DiffOp::Delete {
                old_index, old_len, ..
            }
            | DiffOp::Replace {
                old_index, old_len, ..
            } => {
                let (s, _) = pending.unwrap_or((old_index, old_index));
                pending = Some((s, old_index + old_len));
            }
            DiffOp::Insert { old_index, .. } => {
                let (s, e) = pending.unwrap_or((old_index, old_index));
                pending = Some((s, e.max(old_index)));
            }
        }
    }
    if let Some((s, e)) = pending {
        out.push(LineRange::new(s + 1, e));
    }
    out
}

/// A git-style unified diff (`a/` and `b/` prefixes, three lines of context); empty when equal.
pub fn unified_diff(old_path: &str, new_path: &str, old: &str, new: &str) -> String {
    if old == new {
        return String::new();
    }
    let diff = TextDiff::from_lines(old, new);
    let mut text = format!("diff --git a/{old_path} b/{new_path}\n");
    text.push_str(
        &diff
            .unified_diff()
            .context_radius(3)
            .header(&format!("a/{old_path}"), &format!("b/{new_path}"))
            .to_string(),
    );
    text
}
