//! Locating methods, constructors and hunks by name and line, with exact 1-based line ranges.

use std::ops::Range;

use tree_sitter::Node;

use crate::JavaSource;

/// A 1-based inclusive line range. `end == start - 1` is an empty range: an insertion before `start`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct LineRange {
    /// First line (1-based).
    pub start: usize,
    /// Last line (inclusive); `start - 1` for an insertion point.
    pub end: usize,
}

impl LineRange {
    /// A range from `start` to `end`, both inclusive.
    pub fn new(start: usize, end: usize) -> Self {
        LineRange { start, end }
    }

    /// Whether this is an insertion point (no line replaced).
    pub fn is_insertion(&self) -> bool {
        self.end + 1 == self.start
    }

    /// Whether `other` lies inside this range (an insertion point counts as inside when it falls
    /// between this range's first line and the line after its last).
    pub fn contains(&self, other: LineRange) -> bool {
        if other.is_insertion() {
            self.start <= other.start && other.start <= self.end + 1
        } else {
            self.start <= other.start && other.end <= self.end
        }
    }

    /// Whether the two ranges share a line. An insertion point touches the lines on both sides of it.
    pub fn touches(&self, other: LineRange) -> bool {
        let (a0, a1) = self.guarded();
        let (b0, b1) = other.guarded();
        a0 <= b1 && b0 <= a1
    }

    fn guarded(&self) -> (usize, usize) {
        if self.is_insertion() {
            (self.end.max(1), self.start)
        } else {
            (self.start, self.end)
        }
    }
}

/// A method or constructor declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MethodLocation {
    /// The declared name (a constructor's is its class's).
    pub name: String,
    /// Names of the enclosing type declarations, outermost first (empty for none).
    pub enclosing_types: Vec<String>,
    /// Lines from the first annotation or modifier to the closing brace.
    pub lines: LineRange,
    /// Byte range of the whole declaration.
    pub bytes: Range<usize>,
    /// Byte range of the body block, if it has one.
    pub body: Option<Range<usize>>,
    /// Whether this is a constructor.
    pub is_constructor: bool,
}

impl MethodLocation {
    /// The declaration's node in `source` (the source it was located in).
    pub fn node<'a>(&self, source: &'a JavaSource) -> Option<Node<'a>> {
        source
            .root()
            .descendant_for_byte_range(self.bytes.start, self.bytes.end)
            .and_then(|n| {
                let mut cur = Some(n);
                while let Some(node) = cur {
                    if node.byte_range() == self.bytes && is_method_kind(node.kind()) {
                        return Some(node);
                    }
                    cur = node.parent();
                }
                None
            })
    }
}

/// What to look for: a name, a line inside the method, or both.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MethodQuery<'a> {
    /// The method's simple name (a constructor's is its class's).
    pub name: Option<&'a str>,
    /// A 1-based line the declaration spans.
    pub line: Option<usize>,
}

/// Why a method could not be located.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LocateError {
    /// No method or constructor matches the query.
    #[error("locate method {query}: no method or constructor matches")]
    NotFound {
        /// The query, rendered for the message.
        query: String,
    },
    /// Several methods match and nothing tells them apart (give a line).
    #[error("locate method {query}: {count} methods match; give a line to choose one")]
    Ambiguous {
        /// The query, rendered for the message.
        query: String,
        /// How many matched.
        count: usize,
    },
}

pub(crate) fn is_method_kind(kind: &str) -> bool {
    matches!(
        kind,
        "method_declaration" | "constructor_declaration" | "compact_constructor_declaration"
    )
}

/// Every method and constructor in the file, in source order (nested ones after their enclosing one).
pub fn methods(source: &JavaSource) -> Vec<MethodLocation> {
    let mut out = Vec::new();
    let mut types = Vec::new();
    walk(source, source.root(), None, &mut types, &mut out);
    out
}

/// The methods and constructors whose lines span `line` (1-based), outermost first. Only the nodes on
/// the way to the line are visited, so this costs the depth of the tree, not its size.
pub fn methods_at_line(source: &JavaSource, line: usize) -> Vec<MethodLocation> {
    let mut out = Vec::new();
    let mut types = Vec::new();
    walk(source, source.root(), Some(line), &mut types, &mut out);
    out
}

fn walk(
    source: &JavaSource,
    node: Node<'_>,
    line: Option<usize>,
    types: &mut Vec<String>,
    out: &mut Vec<MethodLocation>,
) {
    if let Some(line) = line {
        let (start, end) = source.node_lines(node);
        if line < start || end < line {
            return;
        }
    }
    let kind = node.kind();
    let is_type = matches!(
        kind,
        "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration"
    );
    if is_type {
        let name = node
            .child_by_field_name("name")
            .map(|n| source.node_text(n).to_owned())
            .unwrap_or_default();
        types.push(name);
    }
    if is_method_kind(kind) {
        let name = node
            .child_by_field_name("name")
            .map(|n| source.node_text(n).to_owned())
            .unwrap_or_default();
        let (start, end) = source.node_lines(node);
        out.push(MethodLocation {
            name,
            enclosing_types: types.clone(),
            lines: LineRange::new(start, end),
            bytes: node.byte_range(),
            body: node.child_by_field_name("body").map(|b| b.byte_range()),
            is_constructor: kind != "method_declaration",
        });
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        walk(source, child, line, types, out);
    }
    if is_type {
        types.pop();
    }
}

/// Finds one method by name and/or line. With a line, the innermost declaration spanning it wins.
pub fn find_method(
    source: &JavaSource,
    query: MethodQuery<'_>,
) -> Result<MethodLocation, LocateError> {
    let render = || match (query.name, query.line) {
        (Some(n), Some(l)) => format!("`{n}` at line {l}"),
        (Some(n), None) => format!("`{n}`"),
        (None, Some(l)) => format!("at line {l}"),
        (None, None) => "(empty query)".to_owned(),
    };
    let all = match query.line {
        Some(line) => methods_at_line(source, line),
        None => methods(source),
    };
    let mut candidates: Vec<MethodLocation> = all
        .into_iter()
        .filter(|m| query.name.is_none_or(|n| m.name == n))
        .filter(|m| {
            query
                .line
                .is_none_or(|l| m.lines.start <= l && l <= m.lines.end)
        })
        .collect();
    if query.line.is_some() {
        // Innermost first: the narrowest range spanning the line.
        candidates.sort_by_key(|m| m.lines.end - m.lines.start);
        candidates.truncate(1);
    }
    match candidates.len() {
        0 => Err(LocateError::NotFound { query: render() }),
        1 => Ok(candidates.remove(0)),
        count => Err(LocateError::Ambiguous {
            query: render(),
            count,
        }),
    }
}

/// The innermost method or constructor whose lines contain a hunk, if any.
pub fn enclosing_method(source: &JavaSource, hunk: LineRange) -> Option<MethodLocation> {
    // Every method containing the hunk spans its first line (or, for an insertion, the line above).
    let line = if hunk.is_insertion() {
        hunk.start.saturating_sub(1).max(1)
    } else {
        hunk.start
    };
    methods_at_line(source, line)
        .into_iter()
        .filter(|m| m.lines.contains(hunk))
        .min_by_key(|m| m.lines.end - m.lines.start)
}
