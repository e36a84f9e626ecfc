//! The input of every prompt: one vulnerable method, where its buggy lines are, and the metadata a
//! prompt may reveal (CWE, class context). The CLI adapts `avrlab-bench`'s task model into this.

use serde::{Deserialize, Serialize};

/// A CWE as a prompt shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct CweInfo {
    /// The CWE number, e.g. 611.
    pub id: u32,
    /// The CWE's name, e.g. "Improper Restriction of XML External Entity Reference".
    pub name: String,
    /// A one- or two-sentence description.
    pub description: String,
}

/// A range of file lines the fix replaces, 1-based and inclusive; `end = start - 1` is an insertion
/// before line `start` (the `[n, n-1]` convention of `task.toml`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct LineRange {
    /// The first replaced line.
    pub start: u32,
    /// The last replaced line, `start - 1` for an insertion.
    pub end: u32,
}

impl LineRange {
    /// A range of replaced lines, or an insertion when `end + 1 == start`.
    pub fn new(start: u32, end: u32) -> Self {
        Self { start, end }
    }

    /// Whether the range replaces no line but inserts before `start`.
    pub fn is_insertion(self) -> bool {
        self.end + 1 == self.start
    }

    /// The same range moved by `offset` lines.
    pub(crate) fn shifted(self, offset: i64) -> Self {
        let move_line = |line: u32| (i64::from(line) + offset) as u32;
        Self {
            start: move_line(self.start),
            end: move_line(self.end),
        }
    }
}

/// One vulnerable method and what a prompt may say about it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct VulnerableMethod {
    /// The file that holds the method, relative to the project root.
    pub file: String,
    /// The method's simple name (for constructors, the class name).
    pub method_name: String,
    /// The method's text, from the first line of its declaration (annotations and Javadoc included if
    /// the caller wants them shown) through its closing brace.
    pub source: String,
    /// The file line on which `source` starts.
    pub method_start_line: u32,
    /// The file lines the fix changes, one range per hunk, in order.
    pub buggy_lines: Vec<LineRange>,
    /// The vulnerability types, possibly empty.
    pub cwe: Vec<CweInfo>,
    /// Optional surrounding context (fields, signatures of the class) for context-enriched prompts.
    pub class_context: Option<String>,
}

/// Why a method cannot be prompted for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MethodError {
    /// The method text is empty.
    #[error("prompt for method `{0}` whose source is empty")]
    EmptySource(String),
    /// No buggy line was given, so there is nothing to mark, mask or complete.
    #[error("prompt for method `{0}` without any buggy line")]
    NoBuggyLines(String),
    /// A hunk lies (partly) outside the method, or is reversed.
    #[error("locate hunk {start}-{end} inside method lines {method_start}-{method_end}")]
    HunkOutsideMethod {
        /// The hunk's first line.
        start: u32,
        /// The hunk's last line.
        end: u32,
        /// The method's first file line.
        method_start: u32,
        /// The method's last file line.
        method_end: u32,
    },
}

impl VulnerableMethod {
    /// The method's lines, without their line terminators.
    pub fn lines(&self) -> Vec<&str> {
        let body = self.source.strip_suffix('\n').unwrap_or(&self.source);
        body.split('\n').collect()
    }

    /// The file line of the method's last line (its closing brace).
    pub fn method_end_line(&self) -> u32 {
        self.method_start_line + self.lines().len() as u32 - 1
    }

    /// Checks that there is something to prompt for and that every hunk lies inside the method.
    pub fn validate(&self) -> Result<(), MethodError> {
        if self.source.trim().is_empty() {
            return Err(MethodError::EmptySource(self.method_name.clone()));
        }
        if self.buggy_lines.is_empty() {
            return Err(MethodError::NoBuggyLines(self.method_name.clone()));
        }
        let (method_start, method_end) = (self.method_start_line, self.method_end_line());
        for hunk in &self.buggy_lines {
            let inside = hunk.start >= method_start
                && hunk.start <= method_end
                && hunk.end <= method_end
                && hunk.end + 1 >= hunk.start;
            if !inside {
                return Err(MethodError::HunkOutsideMethod {
                    start: hunk.start,
                    end: hunk.end,
                    method_start,
                    method_end,
                });
            }
        }
        Ok(())
    }

    /// The single span, as 0-based line indices `[first, first + len)` into [`Self::lines`], that
    /// covers every hunk: formats with one hole (infill, mask, prefix, FIM, fine-tune) ask the model to
    /// rewrite everything from the first hunk's first line through the last hunk's last line.
    pub(crate) fn collapsed_span(&self) -> (usize, usize) {
        let start = self
            .buggy_lines
            .iter()
            .map(|h| h.start)
            .min()
            .unwrap_or(self.method_start_line);
        let end = self
            .buggy_lines
            .iter()
            .map(|h| h.end)
            .max()
            .unwrap_or(start - 1);
        let first = (start - self.method_start_line) as usize;
        let len = (i64::from(end) - i64::from(start) + 1).max(0) as usize;
        (first, len)
    }
}
