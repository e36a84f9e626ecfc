//! Local-variable resolution: which identifiers in a file name a local or parameter, and which one.
//!
//! Java's scoping of locals is lexical: a local is visible from its declarator to the end of the
//! enclosing block (or `for`, `catch`, `try` resource list, lambda, method). Identifiers that resolve to
//! no local name a field, a type or a package; rewrites treat those by name.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use avrlab_java::{JavaSource, Node};

/// One local variable or parameter declaration.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Binding {
    /// Its name.
    pub name: String,
    /// Byte range of the name at the declaration.
    pub decl: Range<usize>,
    /// Byte range where the name is visible.
    pub scope: Range<usize>,
    /// Byte range of the declared type, when one is written (not for lambda parameters).
    pub ty: Option<Range<usize>>,
}

/// The locals of a file and every identifier that refers to one.
#[derive(Debug, Clone, Default)]
pub struct Resolution {
    /// All bindings, in source order.
    pub bindings: Vec<Binding>,
    /// Start byte of a referring identifier → index into `bindings`.
    pub refs: HashMap<usize, usize>,
    /// Start bytes of identifiers in reference position that resolve to no local (fields, types).
    pub free: HashSet<usize>,
    /// Start bytes of the declared names of all bindings.
    pub decl_starts: HashSet<usize>,
}

impl Resolution {
    /// Indices of bindings declared inside `range`.
    pub fn bindings_in(&self, range: &Range<usize>) -> impl Iterator<Item = usize> + '_ {
        let range = range.clone();
        self.bindings
            .iter()
            .enumerate()
            .filter(move |(_, b)| range.start <= b.decl.start && b.decl.end <= range.end)
            .map(|(i, _)| i)
    }

    /// How many references binding `index` has.
    pub fn ref_count(&self, index: usize) -> usize {
        self.refs.values().filter(|&&i| i == index).count()
    }

    /// The binding an identifier starting at `byte` refers to (or declares).
    pub fn binding_at(&self, byte: usize) -> Option<usize> {
        self.refs
            .get(&byte)
            .copied()
            .or_else(|| self.bindings.iter().position(|b| b.decl.start == byte))
    }

    /// Every occurrence (declaration and references) of binding `index`.
    pub fn occurrences(&self, index: usize) -> Vec<Range<usize>> {
        let b = &self.bindings[index];
        let mut out = vec![b.decl.clone()];
        let len = b.name.len();
        out.extend(
            self.refs
                .iter()
                .filter(|&(_, &i)| i == index)
                .map(|(&start, _)| start..start + len),
        );
        out.sort_by_key(|r| r.start);
        out
    }
}

/// Resolves every local in `source`.
pub fn resolve(source: &JavaSource) -> Resolution {
    resolve_within(source, source.root())
}

/// Resolves the locals declared and used under `root` (a method: locals never leave their method,
/// so its resolution is the whole file's restricted to it, at a fraction of the cost).
pub fn resolve_within(source: &JavaSource, root: Node<'_>) -> Resolution {
    let mut res = Resolution::default();
    let mut idents = Vec::new();
    for (node, parent) in avrlab_java::preorder(root) {
        collect_declarations(source, node, &mut res.bindings);
        if node.kind() == "identifier" && parent.is_some_and(|p| is_reference(node, p)) {
            idents.push(node);
        }
    }
    res.bindings.sort_by_key(|b| b.decl.start);
    let mut by_name: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, b) in res.bindings.iter().enumerate() {
        by_name.entry(b.name.as_str()).or_default().push(i);
    }
    let decl_starts: HashMap<usize, usize> = res
        .bindings
        .iter()
        .enumerate()
        .map(|(i, b)| (b.decl.start, i))
        .collect();
    for ident in idents {
        let at = ident.start_byte();
        if decl_starts.contains_key(&at) {
            continue;
        }
        let name = source.node_text(ident);
        let found = by_name.get(name).and_then(|candidates| {
            candidates
                .iter()
                .copied()
                .filter(|&i| {
                    let b = &res.bindings[i];
                    b.scope.start <= at && at < b.scope.end
                })
                .max_by_key(|&i| res.bindings[i].scope.start)
        });
        match found {
            Some(i) => {
                res.refs.insert(at, i);
            }
            None => {
                res.free.insert(at);
            }
        }
    }
    res.decl_starts = decl_starts.into_keys().collect();
    res
}

fn push(
    out: &mut Vec<Binding>,
    source: &JavaSource,
    name: Option<Node<'_>>,
    scope: Range<usize>,
    ty: Option<Node<'_>>,
) {
    if let Some(name) = name.filter(|n| n.kind() == "identifier") {
        out.push(Binding {
            name: source.node_text(name).to_owned(),
            decl: name.byte_range(),
            scope,
            ty: ty.map(|t| t.byte_range()),
        });
    }
}

/// The first named child of `node` whose kind `accept` takes.
fn child_of_kind<'a>(node: Node<'a>, accept: impl Fn(&str) -> bool) -> Option<Node<'a>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor).find(|c| accept(c.kind()))
}

fn collect_declarations(source: &JavaSource, node: Node<'_>, out: &mut Vec<Binding>) {
    let parent_range = |n: Node<'_>| n.parent().map_or(n.byte_range(), |p| p.byte_range());
    match node.kind() {
        "formal_parameter" => {
            // formal_parameter → formal_parameters → method / constructor / lambda.
            let scope = node.parent().map_or(node.byte_range(), parent_range);
            let ty = node.child_by_field_name("type");
            push(out, source, node.child_by_field_name("name"), scope, ty);
        }
        "spread_parameter" => {
            // `T... xs` is an array of `T`; no member of a project type is reached through it.
            let scope = node.parent().map_or(node.byte_range(), parent_range);
            let mut cursor = node.walk();
            for c in node.named_children(&mut cursor) {
                if c.kind() == "variable_declarator" {
                    push(
                        out,
                        source,
                        c.child_by_field_name("name"),
                        scope.clone(),
                        None,
                    );
                }
            }
        }
        "local_variable_declaration" => {
            let end = node.parent().map_or(node.end_byte(), |p| {
                if p.kind() == "switch_block_statement_group" {
                    p.parent().map_or(p.end_byte(), |b| b.end_byte())
                } else {
                    p.end_byte()
                }
            });
            let ty = node.child_by_field_name("type");
            let mut cursor = node.walk();
            for d in node.children_by_field_name("declarator", &mut cursor) {
                // `int a, b[]`: a declarator with dimensions has another type than the one written.
                let own_ty = ty.filter(|_| d.child_by_field_name("dimensions").is_none());
                push(
                    out,
                    source,
                    d.child_by_field_name("name"),
                    d.start_byte()..end,
                    own_ty,
                );
            }
        }
        "catch_formal_parameter" => {
            // A multi-catch parameter's type is a union: its members are not one type's.
            let ty = child_of_kind(node, |k| k == "catch_type")
                .filter(|t| t.named_child_count() == 1)
                .and_then(|t| t.named_child(0));
            push(
                out,
                source,
                node.child_by_field_name("name"),
                parent_range(node),
                ty,
            );
        }
        "resource" => {
            // resource → resource_specification → try_with_resources_statement.
            let scope = node
                .parent()
                .and_then(|p| p.parent())
                .map_or(node.byte_range(), |t| node.start_byte()..t.end_byte());
            let ty = node.child_by_field_name("type");
            push(out, source, node.child_by_field_name("name"), scope, ty);
        }
        "enhanced_for_statement" => {
            push(
                out,
                source,
                node.child_by_field_name("name"),
                node.byte_range(),
                node.child_by_field_name("type"),
            );
        }
        "lambda_expression" => {
            if let Some(params) = node.child_by_field_name("parameters") {
                match params.kind() {
                    "identifier" => push(out, source, Some(params), node.byte_range(), None),
                    "inferred_parameters" => {
                        let mut cursor = params.walk();
                        for p in params.named_children(&mut cursor) {
                            push(out, source, Some(p), node.byte_range(), None);
                        }
                    }
                    _ => {}
                }
            }
        }
        "type_pattern" | "record_pattern_component" => {
            // Pattern variables (`o instanceof Foo f`): visible in the enclosing statement.
            let mut scope_node = node;
            while let Some(p) = scope_node.parent() {
                scope_node = p;
                if p.kind().ends_with("statement") || p.kind() == "local_variable_declaration" {
                    break;
                }
            }
            let mut cursor = node.walk();
            let name = node
                .named_children(&mut cursor)
                .filter(|c| c.kind() == "identifier")
                .last();
            let scope = match scope_node.parent() {
                // A pattern in an `if` condition can stay visible after the `if` (flow scoping).
                Some(block) if scope_node.kind() == "if_statement" => {
                    scope_node.start_byte()..block.end_byte()
                }
                _ => scope_node.byte_range(),
            };
            let ty = child_of_kind(node, |k| k != "identifier" && k != "modifiers");
            push(out, source, name, scope, ty);
        }
        _ => {}
    }
}

/// Whether an `identifier` stands where a variable could be meant (not a member name after a dot, a
/// label, a declaration's own name, an annotation or a package part).
fn is_reference(node: Node<'_>, parent: Node<'_>) -> bool {
    let is_field = |f: &str| parent.child_by_field_name(f) == Some(node);
    match parent.kind() {
        "method_invocation" => !is_field("name"),
        "field_access" => !is_field("field"),
        "method_reference" => parent.named_child(0) == Some(node),
        "labeled_statement" | "break_statement" | "continue_statement" => false,
        "scoped_identifier"
        | "scoped_type_identifier"
        | "package_declaration"
        | "import_declaration" => false,
        "annotation" | "marker_annotation" | "element_value_pair" => false,
        "method_declaration"
        | "class_declaration"
        | "interface_declaration"
        | "enum_declaration"
        | "record_declaration"
        | "constructor_declaration"
        | "annotation_type_declaration"
        | "annotation_type_element_declaration"
        | "enum_constant"
        | "compact_constructor_declaration" => false,
        _ => true,
    }
}
