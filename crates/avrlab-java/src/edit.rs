//! Byte-range text edits applied back to front, with a map from old lines to new lines.

use std::ops::Range;

/// Replace the bytes in `range` with `replacement` (an empty range inserts).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TextEdit {
    /// The byte range of the original text to replace.
    pub range: Range<usize>,
    /// The new text.
    pub replacement: String,
}

impl TextEdit {
    /// An edit replacing `range` with `replacement`.
    pub fn new(range: Range<usize>, replacement: impl Into<String>) -> Self {
        TextEdit {
            range,
            replacement: replacement.into(),
        }
    }
}

/// Why a set of edits could not be applied.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EditError {
    /// Two edits overlap (insertions at the same point count as overlapping too).
    #[error("apply edits: {first:?} overlaps {second:?}")]
    Overlap {
        /// The earlier range.
        first: Range<usize>,
        /// The range overlapping it.
        second: Range<usize>,
    },
    /// A range lies outside the text or splits a UTF-8 character.
    #[error("apply edits: range {range:?} is not inside the text on character boundaries")]
    OutOfBounds {
        /// The offending range.
        range: Range<usize>,
    },
}

/// The edited text and where each old line went.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EditedText {
    /// The text after the edits.
    pub text: String,
    /// Old line → new line.
    pub line_map: LineMap,
}

/// Maps 1-based lines of the old text to lines of the new text. Lines untouched by any edit map to
/// exactly one new line; a line that an edit rewrote maps to the new line where the edit's text starts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LineMap {
    /// `new_of_old[i]` is the new line of old line `i + 1`, or `None` when an edit swallowed it.
    new_of_old: Vec<Option<usize>>,
    /// Whether old line `i + 1` was touched by an edit.
    touched: Vec<bool>,
}

impl LineMap {
    /// The new line of an old line; `None` when an edit removed it or it is past the end.
    pub fn map(&self, old_line: usize) -> Option<usize> {
        self.new_of_old
            .get(old_line.checked_sub(1)?)
            .copied()
            .flatten()
    }

    /// Whether an edit touched the old line.
    pub fn is_touched(&self, old_line: usize) -> bool {
        old_line
            .checked_sub(1)
            .and_then(|i| self.touched.get(i))
            .copied()
            .unwrap_or(false)
    }

    /// The identity map of a text with `lines` lines.
    pub fn identity(lines: usize) -> Self {
        LineMap {
            new_of_old: (1..=lines).map(Some).collect(),
            touched: vec![false; lines],
        }
    }
}

/// Applies non-overlapping edits to `text`, back to front, so that every edit's range refers to the
/// original text. Bytes outside the ranges are kept exactly.
pub fn apply_edits(text: &str, edits: &[TextEdit]) -> Result<EditedText, EditError> {
    let mut sorted: Vec<&TextEdit> = edits.iter().collect();
    sorted.sort_by_key(|e| (e.range.start, e.range.end));
    for e in &sorted {
        if e.range.start > e.range.end
            || e.range.end > text.len()
            || !text.is_char_boundary(e.range.start)
            || !text.is_char_boundary(e.range.end)
        {
            return Err(EditError::OutOfBounds {
                range: e.range.clone(),
            });
        }
    }
    for pair in sorted.windows(2) {
        let (a, b) = (&pair[0].range, &pair[1].range);
        if b.start < a.end || (a.start == b.start) {
            return Err(EditError::Overlap {
                first: a.clone(),
                second: b.clone(),
            });
        }
    }
    // Built front to back: replacing ranges in place would move the tail once per edit.
    let mut out = String::with_capacity(
        text.len() + sorted.iter().map(|e| e.replacement.len()).sum::<usize>(),
    );
    let mut at = 0;
    for e in &sorted {
        out.push_str(&text[at..e.range.start]);
        out.push_str(&e.replacement);
        at = e.range.end;
    }
    out.push_str(&text[at..]);
    // Line map: an old line's start byte moves by the length change of every edit before it; a line
    // whose start lies strictly inside an edit was swallowed by it.
    let old_starts = line_starts(text);
    let new_starts = line_starts(&out);
    let old_lines = line_count(text, &old_starts);
    let mut new_of_old = Vec::with_capacity(old_lines);
    let mut touched = Vec::with_capacity(old_lines);
    for line in 1..=old_lines {
        let start = old_starts[line - 1];
        let end = old_starts.get(line).copied().unwrap_or(text.len());
        let swallowed = sorted
            .iter()
            .any(|e| e.range.start < start && start < e.range.end);
        touched.push(
            sorted
                .iter()
                .any(|e| (start <= e.range.start || start < e.range.end) && e.range.start < end),
        );
        if swallowed {
            new_of_old.push(None);
            continue;
        }
        let delta: isize = sorted
            .iter()
            .filter(|e| e.range.end <= start)
            .map(|e| e.replacement.len() as isize - e.range.len() as isize)
            .sum();
        let new_byte = (start as isize + delta) as usize;
        new_of_old.push(Some(new_starts.partition_point(|&s| s <= new_byte)));
    }
    Ok(EditedText {
        text: out,
        line_map: LineMap {
            new_of_old,
            touched,
        },
    })
}

fn line_starts(text: &str) -> Vec<usize> {
    std::iter::once(0)
        .chain(text.match_indices('\n').map(|(i, _)| i + 1))
        .collect()
}

fn line_count(text: &str, starts: &[usize]) -> usize {
    if text.ends_with('\n') || text.is_empty() {
        starts.len() - 1
    } else {
        starts.len()
    }
}
