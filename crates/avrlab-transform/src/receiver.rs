//! Receiver types: whether `x.m()`, `x.f` or `X::m` reaches a member of a project type.
//!
//! Renaming a project method renames its declarations and the calls that reach them, and only those:
//! `target.addAll(list)` on a `java.util.List` must keep its name even when the project declares an
//! `addAll` of its own. Without a type checker, the receiver's type is read from what the code
//! writes down (a local's or field's declared type, a `new`, a cast, `this`, a type name, a project
//! method's return type). When it cannot be told, the caller declines to rename the member at all.

use std::collections::BTreeSet;

use avrlab_java::{DeclKind, DeclarationTable, JavaSource, Node};

use crate::scope::Resolution;

/// Where a member access goes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Receiver {
    /// A member the project declares (on the type or one of its project supertypes).
    Project,
    /// A member of a JDK or library type (or of an array): the name must stay.
    Library,
    /// The receiver's type cannot be told from the text.
    Unknown,
}

/// What the receiver rules read in one file.
#[derive(Debug, Clone, Copy)]
pub(crate) struct FileTypes<'a> {
    pub src: &'a JavaSource,
    pub res: &'a Resolution,
    pub decls: &'a DeclarationTable,
    /// Names of the type parameters the file declares (`T` in `class Box<T>`).
    pub type_params: &'a BTreeSet<String>,
}

/// The type parameters a file declares anywhere.
pub(crate) fn type_parameters(src: &JavaSource) -> BTreeSet<String> {
    avrlab_java::preorder(src.root())
        .filter(|(n, _)| n.kind() == "type_parameter")
        .filter_map(|(n, _)| {
            let mut cursor = n.walk();
            n.named_children(&mut cursor)
                .find(|c| matches!(c.kind(), "type_identifier" | "identifier"))
                .map(|c| src.node_text(c).to_owned())
        })
        .collect()
}

/// A receiver's static type, as far as the text tells.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Ty {
    /// A project type, by simple name.
    Project(String),
    /// A JDK or library type, or an array.
    Library,
    Unknown,
}

impl FileTypes<'_> {
    /// Where `member` (a method when `method`, else a field) accessed on the expression `object`
    /// goes.
    pub(crate) fn member_on(&self, object: Node<'_>, member: &str, method: bool) -> Receiver {
        match self.expr_type(object) {
            Ty::Project(t) => self.member_of(&t, member, method),
            Ty::Library => Receiver::Library,
            Ty::Unknown => Receiver::Unknown,
        }
    }

    /// Whether project type `ty` or one of its project supertypes declares `member`.
    fn member_of(&self, ty: &str, member: &str, method: bool) -> Receiver {
        let kind = if method {
            DeclKind::Method
        } else {
            DeclKind::Field
        };
        let mut seen = BTreeSet::new();
        let mut queue = vec![ty.to_owned()];
        while let Some(t) = queue.pop() {
            if !seen.insert(t.clone()) {
                continue;
            }
            if self.decls.declarations(member).iter().any(|d| {
                d.owner == t && (d.kind == kind || !method && d.kind == DeclKind::EnumConstant)
            }) {
                return Receiver::Project;
            }
            for d in self.decls.declarations(&t) {
                if d.kind == DeclKind::Type {
                    queue.extend(
                        supertype_names(&d.supertypes)
                            .filter(|s| self.decls.declares(s, DeclKind::Type)),
                    );
                }
            }
        }
        // No project type on the way declares it: it is inherited from a library supertype
        // (or from `Object`).
        Receiver::Library
    }

    fn type_text(&self, text: &str) -> Ty {
        let t = text.trim();
        if t.contains('[') {
            return Ty::Library;
        }
        let base = t.split('<').next().unwrap_or(t).trim();
        let simple = base.rsplit('.').next().unwrap_or(base).trim();
        if simple == "var" || self.type_params.contains(simple) || simple.is_empty() {
            Ty::Unknown
        } else if self.decls.declares(simple, DeclKind::Type) {
            Ty::Project(simple.to_owned())
        } else {
            Ty::Library
        }
    }

    /// All the declared types of `name` as a `kind` agree, or the type is unknown.
    fn declared_type(&self, name: &str, kind: DeclKind) -> Ty {
        let mut types = self
            .decls
            .declarations(name)
            .iter()
            .filter(|d| d.kind == kind)
            .map(|d| {
                d.type_text
                    .as_deref()
                    .map_or(Ty::Unknown, |t| self.type_text(t))
            });
        let Some(first) = types.next() else {
            return Ty::Unknown;
        };
        if types.all(|t| t == first) {
            first
        } else {
            Ty::Unknown
        }
    }

    fn expr_type(&self, node: Node<'_>) -> Ty {
        let text = |n: Node<'_>| self.src.node_text(n);
        match node.kind() {
            "this" => self.enclosing_type(node),
            "parenthesized_expression" => node
                .named_child(0)
                .map_or(Ty::Unknown, |n| self.expr_type(n)),
            "cast_expression" | "object_creation_expression" => {
                match node.child_by_field_name("type") {
                    // An anonymous class's members are its own as well as its supertype's.
                    _ if node.child_by_field_name("body").is_some() => Ty::Unknown,
                    Some(t) => self.type_text(text(t)),
                    None => Ty::Unknown,
                }
            }
            "string_literal"
            | "class_literal"
            | "array_creation_expression"
            | "array_initializer" => Ty::Library,
            "type_identifier" | "scoped_type_identifier" | "generic_type" => {
                self.type_text(text(node))
            }
            "identifier" => {
                let name = text(node);
                if let Some(&b) = self.res.refs.get(&node.start_byte()) {
                    return self.res.bindings[b]
                        .ty
                        .clone()
                        .map_or(Ty::Unknown, |r| self.type_text(&self.src.text()[r]));
                }
                if self.decls.declares(name, DeclKind::Field) {
                    self.declared_type(name, DeclKind::Field)
                } else if self.decls.declares(name, DeclKind::Type) {
                    // A static access through the type's name.
                    Ty::Project(name.to_owned())
                } else if name.starts_with(char::is_uppercase) {
                    // A JDK or library type's name (`Math.max`, `List.of`).
                    Ty::Library
                } else {
                    // An inherited library field, or a package name: either way nothing the
                    // project declares — but a lowercase name could be a field of a library
                    // supertype whose type is a project type.
                    Ty::Unknown
                }
            }
            "field_access" => {
                let Some(field) = node.child_by_field_name("field") else {
                    return Ty::Unknown;
                };
                let name = text(field);
                if self.decls.declares(name, DeclKind::Field) {
                    self.declared_type(name, DeclKind::Field)
                } else if self.decls.declares(name, DeclKind::Type) {
                    Ty::Project(name.to_owned())
                } else if name.starts_with(char::is_uppercase) {
                    Ty::Library
                } else {
                    Ty::Unknown
                }
            }
            "method_invocation" => {
                let Some(name) = node.child_by_field_name("name") else {
                    return Ty::Unknown;
                };
                let name = text(name);
                let declared = self
                    .decls
                    .declarations(name)
                    .iter()
                    .filter(|d| d.kind == DeclKind::Method)
                    .count();
                if declared == 0 || self.decls.declarations(name).iter().any(|d| d.is_generic) {
                    // A library method can return a project type (`list.get(0)`).
                    Ty::Unknown
                } else {
                    self.declared_type(name, DeclKind::Method)
                }
            }
            _ => Ty::Unknown,
        }
    }

    /// The type `this` stands for at `node`: the innermost class, enum, record or interface.
    fn enclosing_type(&self, node: Node<'_>) -> Ty {
        let mut cur = node.parent();
        while let Some(n) = cur {
            match n.kind() {
                "class_declaration"
                | "enum_declaration"
                | "record_declaration"
                | "interface_declaration" => {
                    return n.child_by_field_name("name").map_or(Ty::Unknown, |name| {
                        Ty::Project(self.src.node_text(name).to_owned())
                    });
                }
                // `this` inside an anonymous class.
                "object_creation_expression" if n.child_by_field_name("body").is_some() => {
                    return Ty::Unknown;
                }
                _ => {}
            }
            cur = n.parent();
        }
        Ty::Unknown
    }
}

/// The simple names in an `extends`/`implements` clause, type arguments left out.
fn supertype_names(clause: &str) -> impl Iterator<Item = String> + '_ {
    let mut depth = 0usize;
    let mut outer = String::with_capacity(clause.len());
    for c in clause.chars() {
        match c {
            '<' => depth += 1,
            '>' => depth = depth.saturating_sub(1),
            _ if depth == 0 => outer.push(if c == ',' { ' ' } else { c }),
            _ => {}
        }
    }
    outer
        .split_whitespace()
        .filter(|w| !matches!(*w, "extends" | "implements"))
        .map(|w| w.rsplit('.').next().unwrap_or(w).to_owned())
        .collect::<Vec<_>>()
        .into_iter()
}
