//! Java source model for avrlab: parsing, location, identifier tables and text edits, all without I/O.
//!
//! - [`parse`] turns source text into a [`JavaSource`]: the text, its tree-sitter tree and the list of
//!   [`SyntaxError`]s. Parsing never fails; a file with errors still has a tree.
//!   [`JavaSource::edit`] applies edits and re-parses incrementally.
//! - [`methods`], [`find_method`] and [`enclosing_method`] locate methods and constructors with exact
//!   1-based inclusive line ranges ([`LineRange`]) that include annotations and modifiers.
//! - [`DeclarationTable`] records what a set of project files declares (classes, methods, fields) so
//!   that a caller can tell project identifiers from JDK or library ones; [`is_reserved_word`] knows
//!   Java's keywords and literals.
//! - [`apply_edits`] applies non-overlapping byte-range [`TextEdit`]s back to front, keeping everything
//!   outside the edited ranges (comments, formatting) byte for byte, and returns a [`LineMap`] from old
//!   to new lines.
//! - [`equivalence_key`] tells two files apart only by what can change what they do: layout,
//!   comments, local names, braces around one statement and parentheses around a primary do not count.

mod edit;
mod equivalence;
mod locate;
mod mask;
mod parse;
mod symbols;

pub use edit::{EditError, EditedText, LineMap, TextEdit, apply_edits};
pub use equivalence::equivalence_key;
pub use locate::{
    LineRange, LocateError, MethodLocation, MethodQuery, enclosing_method, find_method, methods,
    methods_at_line,
};
pub use mask::{Masked, mask_methods, without_methods};
pub use parse::{EditedSource, JavaSource, Preorder, SyntaxError, parse, preorder};
pub use symbols::{
    DeclKind, Declaration, DeclarationTable, identifier_tokens, identifiers, is_reserved_word,
};
pub use tree_sitter::{Node, Tree};
