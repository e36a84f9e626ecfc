//! Parsing Java text with tree-sitter-java; the result always has a tree and lists its syntax errors.

use tree_sitter::{InputEdit, Node, Parser, Point, Tree};

use crate::{EditError, LineMap, TextEdit, apply_edits};

/// A source after edits: the re-parsed source and where each old line went.
#[derive(Debug, Clone)]
pub struct EditedSource {
    /// The edited text, parsed.
    pub source: JavaSource,
    /// Old line → new line.
    pub line_map: LineMap,
}

/// One syntax error: where tree-sitter had to skip or invent a token.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// 1-based line of the error's start.
    pub line: usize,
    /// 1-based column (in bytes) of the error's start.
    pub column: usize,
    /// Byte offset of the error's start.
    pub byte: usize,
    /// What went wrong, e.g. `unexpected "}"` or `missing ";"`.
    pub message: String,
}

/// A parsed Java compilation unit: the text, its tree and its syntax errors.
#[derive(Debug, Clone)]
pub struct JavaSource {
    text: String,
    tree: Tree,
    errors: Vec<SyntaxError>,
    line_starts: Vec<usize>,
}

/// Parses Java source text. Never fails: a file with syntax errors yields a tree with error nodes and a
/// non-empty [`JavaSource::errors`].
pub fn parse(text: &str) -> JavaSource {
    parse_with(text.to_owned(), None)
}

fn parse_with(text: String, old: Option<&Tree>) -> JavaSource {
    let mut parser = Parser::new();
    // The grammar is compiled into this crate, so a version mismatch is a build bug, not an input error.
    parser
        .set_language(&tree_sitter_java::LANGUAGE.into())
        .expect("tree-sitter-java grammar matches the tree-sitter runtime");
    let tree = parser
        .parse(&text, old)
        .expect("parsing without a timeout or cancellation always yields a tree");
    let line_starts = line_starts(&text);
    let mut source = JavaSource {
        text,
        tree,
        errors: Vec::new(),
        line_starts,
    };
    let mut errors = Vec::new();
    collect_errors(source.tree.root_node(), &source, &mut errors);
    source.errors = errors;
    source
}

fn collect_errors(node: Node<'_>, source: &JavaSource, out: &mut Vec<SyntaxError>) {
    if !node.has_error() {
        return;
    }
    if node.is_missing() || node.is_error() {
        let pos = node.start_position();
        let message = if node.is_missing() {
            format!("missing {:?}", node.kind())
        } else {
            let snippet: String = source.node_text(node).chars().take(30).collect();
            format!("unexpected {snippet:?}")
        };
        out.push(SyntaxError {
            line: pos.row + 1,
            column: pos.column + 1,
            byte: node.start_byte(),
            message,
        });
        if node.is_error() {
            return;
        }
    }
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        collect_errors(child, source, out);
    }
}

fn line_starts(text: &str) -> Vec<usize> {
    let mut starts = vec![0];
    starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
    starts
}

/// The tree-sitter point (0-based row, byte column) of `byte` in a text with these line starts.
fn point_at(line_starts: &[usize], byte: usize) -> Point {
    let row = line_starts.partition_point(|&s| s <= byte) - 1;
    Point::new(row, byte - line_starts[row])
}

/// The point reached from `start` after `text`.
fn advance(start: Point, text: &str) -> Point {
    match text.rfind('\n') {
        Some(last) => Point::new(
            start.row + text.matches('\n').count(),
            text.len() - last - 1,
        ),
        None => Point::new(start.row, start.column + text.len()),
    }
}

impl JavaSource {
    /// The source after `edits`, re-parsed incrementally: tree-sitter reuses every part of the old
    /// tree that the edits leave alone, so a small rewrite of a large file costs a small parse.
    /// The result is the same as [`parse`] of the edited text.
    pub fn edit(&self, edits: &[TextEdit]) -> Result<EditedSource, EditError> {
        let edited = apply_edits(&self.text, edits)?;
        let new_starts = line_starts(&edited.text);
        let mut sorted: Vec<&TextEdit> = edits.iter().collect();
        sorted.sort_by_key(|e| e.range.start);
        let mut tree = self.tree.clone();
        // Edits are told to the tree front to back, each in the coordinates of the text with the
        // earlier ones applied. Up to an edit's start that text equals the final text.
        let mut delta: isize = 0;
        for e in sorted {
            let start_byte = (e.range.start as isize + delta) as usize;
            let start_position = point_at(&new_starts, start_byte);
            let old_text = &self.text[e.range.clone()];
            tree.edit(&InputEdit {
                start_byte,
                old_end_byte: start_byte + old_text.len(),
                new_end_byte: start_byte + e.replacement.len(),
                start_position,
                old_end_position: advance(start_position, old_text),
                new_end_position: advance(start_position, &e.replacement),
            });
            delta += e.replacement.len() as isize - old_text.len() as isize;
        }
        Ok(EditedSource {
            source: parse_with(edited.text, Some(&tree)),
            line_map: edited.line_map,
        })
    }

    /// The source text.
    pub fn text(&self) -> &str {
        &self.text
    }

    /// The tree-sitter tree.
    pub fn tree(&self) -> &Tree {
        &self.tree
    }

    /// The root (`program`) node.
    pub fn root(&self) -> Node<'_> {
        self.tree.root_node()
    }

    /// The syntax errors, in source order; empty for a well-formed file.
    pub fn errors(&self) -> &[SyntaxError] {
        &self.errors
    }

    /// The text a node spans.
    pub fn node_text(&self, node: Node<'_>) -> &str {
        &self.text[node.byte_range()]
    }

    /// Number of lines (a trailing newline does not start a new line).
    pub fn line_count(&self) -> usize {
        if self.text.ends_with('\n') {
            self.line_starts.len() - 1
        } else {
            self.line_starts.len()
        }
    }

    /// The 1-based line holding a byte offset.
    pub fn line_of_byte(&self, byte: usize) -> usize {
        self.line_starts.partition_point(|&start| start <= byte)
    }

    /// Byte offset where a 1-based line starts (the text length for a line past the end).
    pub fn line_start(&self, line: usize) -> usize {
        self.line_starts
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or(self.text.len())
    }

    /// Byte offset just past a 1-based line's newline (the text length for the last line).
    pub fn line_end(&self, line: usize) -> usize {
        self.line_starts
            .get(line)
            .copied()
            .unwrap_or(self.text.len())
    }

    /// The leading whitespace of a 1-based line.
    pub fn indentation_of_line(&self, line: usize) -> &str {
        let start = self.line_start(line);
        let rest = &self.text[start..self.line_end(line)];
        let len = rest.len() - rest.trim_start_matches([' ', '\t']).len();
        &rest[..len]
    }

    /// 1-based first and last line of a node (the last line is the one holding its last byte).
    pub fn node_lines(&self, node: Node<'_>) -> (usize, usize) {
        let start = node.start_position().row + 1;
        let end_pos = node.end_position();
        let end = if end_pos.column == 0 && end_pos.row > node.start_position().row {
            end_pos.row
        } else {
            end_pos.row + 1
        };
        (start, end)
    }
}

/// Every node under `root` (inclusive), in document order, with its parent (`None` for `root`).
///
/// One tree cursor does the whole walk: asking a tree-sitter node for its parent re-descends from the
/// tree's root, and a cursor per node allocates, so both were the cost of whole-file walks.
pub fn preorder(root: Node<'_>) -> Preorder<'_> {
    Preorder {
        cursor: root.walk(),
        ancestors: Vec::new(),
        done: false,
    }
}

/// The iterator of [`preorder`].
pub struct Preorder<'a> {
    cursor: tree_sitter::TreeCursor<'a>,
    ancestors: Vec<Node<'a>>,
    done: bool,
}

impl std::fmt::Debug for Preorder<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Preorder")
            .field("depth", &self.ancestors.len())
            .finish_non_exhaustive()
    }
}

impl<'a> Iterator for Preorder<'a> {
    type Item = (Node<'a>, Option<Node<'a>>);

    fn next(&mut self) -> Option<Self::Item> {
        if self.done {
            return None;
        }
        let node = self.cursor.node();
        let parent = self.ancestors.last().copied();
        if self.cursor.goto_first_child() {
            self.ancestors.push(node);
        } else {
            loop {
                if self.cursor.goto_next_sibling() {
                    break;
                }
                if !self.cursor.goto_parent() {
                    self.done = true;
                    break;
                }
                self.ancestors.pop();
            }
        }
        Some((node, parent))
    }
}
