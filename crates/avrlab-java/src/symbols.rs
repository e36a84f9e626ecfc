//! Identifier tables: what a set of project files declares, and Java's reserved words.
//!
//! An identifier is *project-declared* only if some file given to the table declares it; everything
//! else a file mentions (`String`, `append`, `length`) comes from the JDK or a library and must be left
//! alone by rewrites.

use std::collections::{BTreeMap, BTreeSet};

use tree_sitter::Node;

use crate::JavaSource;

/// What kind of thing a declaration introduces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum DeclKind {
    /// A class, interface, enum, record or annotation type.
    Type,
    /// A method (constructors are not listed: they carry their type's name).
    Method,
    /// A field of a class, interface or enum.
    Field,
    /// An enum constant.
    EnumConstant,
    /// A record component (it is a field and an accessor method at once).
    RecordComponent,
}

/// One declaration in one project file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declaration {
    /// What it declares.
    pub kind: DeclKind,
    /// The file that declares it, as given to [`DeclarationTable::add_file`].
    pub file: String,
    /// The simple name of the innermost enclosing type (empty for a top-level type).
    pub owner: String,
    /// 1-based line of the declaration.
    pub line: usize,
    /// The declared (return or field) type as written, for methods and fields.
    pub type_text: Option<String>,
    /// Whether the declaration has its own type parameters (a generic method).
    pub is_generic: bool,
    /// Whether it carries `@Override` (so its name belongs to a supertype, maybe a library one).
    pub is_override: bool,
    /// The `extends`/`implements` clause text, for types.
    pub supertypes: String,
}

/// What a set of project files declares, by simple name.
#[derive(Debug, Clone, Default)]
pub struct DeclarationTable {
    by_name: BTreeMap<String, Vec<Declaration>>,
}

impl DeclarationTable {
    /// An empty table.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records every type, method, field, enum constant and record component `source` declares.
    pub fn add_file(&mut self, file: &str, source: &JavaSource) {
        let mut owners = Vec::new();
        self.visit(file, source, source.root(), &mut owners);
    }

    fn visit(&mut self, file: &str, src: &JavaSource, node: Node<'_>, owners: &mut Vec<String>) {
        let kind = node.kind();
        let owner = owners.last().cloned().unwrap_or_default();
        let name_of = |n: Node<'_>| {
            n.child_by_field_name("name")
                .map(|x| src.node_text(x).to_owned())
        };
        let mut pushed = false;
        match kind {
            "class_declaration"
            | "interface_declaration"
            | "enum_declaration"
            | "record_declaration"
            | "annotation_type_declaration" => {
                if let Some(name) = name_of(node) {
                    let mut supertypes = String::new();
                    for field in ["superclass", "interfaces"] {
                        if let Some(s) = node.child_by_field_name(field) {
                            supertypes.push_str(src.node_text(s));
                            supertypes.push(' ');
                        }
                    }
                    let mut cursor = node.walk();
                    for c in node.children(&mut cursor) {
                        if c.kind() == "extends_interfaces" {
                            supertypes.push_str(src.node_text(c));
                        }
                    }
                    self.push(name.clone(), DeclKind::Type, file, node, owner.clone())
                        .supertypes = supertypes.trim().to_owned();
                    if kind == "record_declaration"
                        && let Some(params) = node.child_by_field_name("parameters")
                    {
                        let mut cursor = params.walk();
                        for p in params.named_children(&mut cursor) {
                            if let Some(n) = name_of(p) {
                                self.push(n, DeclKind::RecordComponent, file, p, name.clone());
                            }
                        }
                    }
                    owners.push(name);
                    pushed = true;
                }
            }
            "method_declaration" => {
                if let Some(name) = name_of(node) {
                    let is_override = has_override(src, node);
                    let d = self.push(name, DeclKind::Method, file, node, owner);
                    d.type_text = node
                        .child_by_field_name("type")
                        .map(|t| src.node_text(t).to_owned());
                    d.is_generic = node.child_by_field_name("type_parameters").is_some();
                    d.is_override = is_override;
                }
            }
            "field_declaration" | "constant_declaration" => {
                let ty = node
                    .child_by_field_name("type")
                    .map(|t| src.node_text(t).to_owned());
                let mut cursor = node.walk();
                for declarator in node.children_by_field_name("declarator", &mut cursor) {
                    if let Some(name) = name_of(declarator) {
                        let d = self.push(name, DeclKind::Field, file, declarator, owner.clone());
                        d.type_text = ty.clone();
                    }
                }
            }
            "enum_constant" => {
                if let Some(name) = name_of(node) {
                    self.push(name, DeclKind::EnumConstant, file, node, owner);
                }
            }
            _ => {}
        }
        let mut cursor = node.walk();
        for child in node.children(&mut cursor) {
            self.visit(file, src, child, owners);
        }
        if pushed {
            owners.pop();
        }
    }

    fn push(
        &mut self,
        name: String,
        kind: DeclKind,
        file: &str,
        node: Node<'_>,
        owner: String,
    ) -> &mut Declaration {
        let list = self.by_name.entry(name).or_default();
        list.push(Declaration {
            kind,
            file: file.to_owned(),
            owner,
            line: node.start_position().row + 1,
            type_text: None,
            is_generic: false,
            is_override: false,
            supertypes: String::new(),
        });
        list.last_mut().expect("just pushed")
    }

    /// Whether any project file declares `name` (as anything).
    pub fn is_declared(&self, name: &str) -> bool {
        self.by_name.contains_key(name)
    }

    /// Whether any project file declares `name` as `kind`.
    pub fn declares(&self, name: &str, kind: DeclKind) -> bool {
        self.declarations(name).iter().any(|d| d.kind == kind)
    }

    /// All declarations of `name`, in the order the files were added.
    pub fn declarations(&self, name: &str) -> &[Declaration] {
        self.by_name.get(name).map(Vec::as_slice).unwrap_or(&[])
    }

    /// Every declared name with its declarations, sorted by name.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &[Declaration])> {
        self.by_name.iter().map(|(k, v)| (k.as_str(), v.as_slice()))
    }
}

fn has_override(src: &JavaSource, method: Node<'_>) -> bool {
    let mut cursor = method.walk();
    method.children(&mut cursor).any(|c| {
        c.kind() == "modifiers" && {
            let mut inner = c.walk();
            c.children(&mut inner).any(|a| {
                matches!(a.kind(), "marker_annotation" | "annotation")
                    && a.child_by_field_name("name")
                        .is_some_and(|n| src.node_text(n) == "Override")
            })
        }
    })
}

/// Every identifier (including type identifiers) the file mentions, declared or used.
pub fn identifiers(source: &JavaSource) -> BTreeSet<String> {
    crate::preorder(source.root())
        .filter(|(node, _)| matches!(node.kind(), "identifier" | "type_identifier"))
        .map(|(node, _)| source.node_text(node).to_owned())
        .collect()
}

/// Every identifier-shaped token of `text` with its byte offset, comments and string literals
/// included: a text scan, far cheaper than a tree walk, for callers that want a superset (names to
/// avoid) or candidates to confirm against the tree.
pub fn identifier_tokens(text: &str) -> impl Iterator<Item = (usize, &str)> {
    let bytes = text.as_bytes();
    let is_part = |c: u8| c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80;
    let mut i = 0;
    std::iter::from_fn(move || {
        while i < bytes.len() {
            let c = bytes[i];
            if is_part(c) {
                let start = i;
                while i < bytes.len() && is_part(bytes[i]) {
                    i += 1;
                }
                // A number (`10`, `0x1F`, `1e5`) is no identifier.
                if !bytes[start].is_ascii_digit() {
                    return Some((start, &text[start..i]));
                }
            } else {
                i += 1;
            }
        }
        None
    })
}

/// Java's reserved keywords, contextual keywords that cannot name a type or variable everywhere, and
/// the literals `true`, `false` and `null`.
const RESERVED: &[&str] = &[
    "abstract",
    "assert",
    "boolean",
    "break",
    "byte",
    "case",
    "catch",
    "char",
    "class",
    "const",
    "continue",
    "default",
    "do",
    "double",
    "else",
    "enum",
    "extends",
    "final",
    "finally",
    "float",
    "for",
    "goto",
    "if",
    "implements",
    "import",
    "instanceof",
    "int",
    "interface",
    "long",
    "native",
    "new",
    "package",
    "private",
    "protected",
    "public",
    "return",
    "short",
    "static",
    "strictfp",
    "super",
    "switch",
    "synchronized",
    "this",
    "throw",
    "throws",
    "transient",
    "try",
    "void",
    "volatile",
    "while",
    "true",
    "false",
    "null",
    "var",
    "yield",
    "record",
    "sealed",
    "permits",
    "non-sealed",
    "when",
    "module",
    "open",
    "opens",
    "exports",
    "requires",
    "transitive",
    "to",
    "uses",
    "provides",
    "with",
    "_",
];

/// Whether `word` is a Java keyword, contextual keyword or literal, so never usable as a new name.
pub fn is_reserved_word(word: &str) -> bool {
    RESERVED.contains(&word)
}
