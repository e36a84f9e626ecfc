//! Syntactic equivalence of two Java files: the same tree once layout, comments, the names of
//! method-local variables and parameters, braces around a single statement and parentheses around a
//! primary expression are set aside. Two files with the same [`equivalence_key`] differ only in
//! ways that cannot change what the program does (up to a local name shadowing a field of the same
//! name, which the key treats as the local).

use std::collections::HashMap;

use tree_sitter::Node;

use crate::parse::{JavaSource, parse};

/// The canonical token sequence of a Java file, or `None` when it does not parse cleanly (no key
/// is better than one of a broken tree).
pub fn equivalence_key(text: &str) -> Option<String> {
    let source = parse(text);
    if !source.errors().is_empty() {
        return None;
    }
    let mut out = Vec::new();
    emit(&source, source.root(), &HashMap::new(), &mut out);
    Some(out.join(" "))
}

/// Statements whose body may be a block or a single statement.
const BODY_HOLDERS: &[&str] = &[
    "if_statement",
    "while_statement",
    "for_statement",
    "enhanced_for_statement",
    "do_statement",
];

/// Nodes whose own variables are renamed by position: methods, constructors and lambdas.
const SCOPES: &[&str] = &[
    "method_declaration",
    "constructor_declaration",
    "lambda_expression",
    "compact_constructor_declaration",
];

fn is_comment(node: Node<'_>) -> bool {
    matches!(node.kind(), "line_comment" | "block_comment")
}

fn emit(
    source: &JavaSource,
    node: Node<'_>,
    names: &HashMap<String, String>,
    out: &mut Vec<String>,
) {
    if is_comment(node) {
        return;
    }
    if SCOPES.contains(&node.kind()) {
        let mut inner = names.clone();
        let offset = inner.len();
        for (index, name) in declared_locals(source, node).into_iter().enumerate() {
            inner
                .entry(name)
                .or_insert_with(|| format!("$v{}", offset + index));
        }
        return emit_children(source, node, &inner, out);
    }
    // `{ s; }` as the body of if/while/for/do reads as `s;`.
    if node.kind() == "block"
        && node
            .parent()
            .is_some_and(|p| BODY_HOLDERS.contains(&p.kind()))
        && let [only] = named_children(node).as_slice()
        && only.kind() != "local_variable_declaration"
    {
        return emit(source, *only, names, out);
    }
    // `(x)`, `(f())`, `("a")` read as `x`, `f()`, `"a"`.
    if node.kind() == "parenthesized_expression"
        && let [inner] = named_children(node).as_slice()
        && is_primary(*inner)
    {
        return emit(source, *inner, names, out);
    }
    if node.child_count() == 0 {
        let text = source.node_text(node);
        let renamed = (node.kind() == "identifier" && !is_member_name(node))
            .then(|| names.get(text))
            .flatten();
        out.push(renamed.cloned().unwrap_or_else(|| text.to_owned()));
        return;
    }
    emit_children(source, node, names, out);
}

fn emit_children(
    source: &JavaSource,
    node: Node<'_>,
    names: &HashMap<String, String>,
    out: &mut Vec<String>,
) {
    let mut cursor = node.walk();
    for child in node.children(&mut cursor) {
        emit(source, child, names, out);
    }
}

fn named_children(node: Node<'_>) -> Vec<Node<'_>> {
    let mut cursor = node.walk();
    node.named_children(&mut cursor)
        .filter(|c| !is_comment(*c))
        .collect()
}

fn is_primary(node: Node<'_>) -> bool {
    node.kind().ends_with("literal")
        || matches!(
            node.kind(),
            "identifier"
                | "field_access"
                | "method_invocation"
                | "array_access"
                | "parenthesized_expression"
                | "this"
                | "true"
                | "false"
                | "null_literal"
        )
}

/// An identifier naming a member (`o.field`, `o.method()`), not a variable.
fn is_member_name(node: Node<'_>) -> bool {
    let Some(parent) = node.parent() else {
        return false;
    };
    let field = |name| {
        parent
            .child_by_field_name(name)
            .is_some_and(|n| n.id() == node.id())
    };
    match parent.kind() {
        "field_access" => field("field"),
        "method_invocation" => field("name"),
        "method_declaration" | "constructor_declaration" => field("name"),
        _ => false,
    }
}

/// The names a method, constructor or lambda declares for its own use (parameters and local
/// variables, in order of declaration), not those of nested methods, classes or lambdas.
fn declared_locals(source: &JavaSource, scope: Node<'_>) -> Vec<String> {
    let mut names = Vec::new();
    let mut stack = vec![scope];
    while let Some(node) = stack.pop() {
        if node.id() != scope.id()
            && (SCOPES.contains(&node.kind())
                || matches!(
                    node.kind(),
                    "class_body" | "interface_body" | "enum_body" | "record_declaration"
                ))
        {
            continue;
        }
        let declared = match node.kind() {
            "formal_parameter"
            | "spread_parameter"
            | "catch_formal_parameter"
            | "enhanced_for_statement"
            | "resource"
            | "variable_declarator" => node.child_by_field_name("name"),
            "inferred_parameters" | "lambda_expression" => None,
            _ => None,
        };
        if let Some(name) = declared {
            names.push(source.node_text(name).to_owned());
        }
        // A lambda's bare parameter list (`x -> …`, `(x, y) -> …`).
        if node.id() == scope.id()
            && node.kind() == "lambda_expression"
            && let Some(params) = node.child_by_field_name("parameters")
        {
            if params.kind() == "identifier" {
                names.push(source.node_text(params).to_owned());
            } else if params.kind() == "inferred_parameters" {
                for p in named_children(params) {
                    names.push(source.node_text(p).to_owned());
                }
            }
        }
        // Children pushed in reverse, so declarations are met in document order.
        let mut cursor = node.walk();
        let children: Vec<Node<'_>> = node.children(&mut cursor).collect();
        stack.extend(children.into_iter().rev());
    }
    names
}

#[cfg(test)]
mod tests {
    use super::*;

    fn same(a: &str, b: &str) -> bool {
        let (a, b) = (equivalence_key(a).unwrap(), equivalence_key(b).unwrap());
        a == b
    }

    const REFERENCE: &str = "class A {\n  int size;\n  String f(String name, int max) {\n    if (name.length() > max) {\n      throw new IllegalArgumentException(\"too long\");\n    }\n    String trimmed = name.trim();\n    return trimmed;\n  }\n}\n";

    #[test]
    fn layout_comments_local_names_braces_and_parentheses_do_not_count() {
        let candidate = "class A { int size;\n  // checks the length first\n  String f(String n, int limit) {\n    if (n.length() > (limit)) throw new IllegalArgumentException(\"too long\");\n    String t = (n.trim()); /* done */\n    return t;\n  }\n}\n";
        assert!(same(REFERENCE, candidate));
        let lambda_a = "class B { Runnable r = () -> { int x = 1; use(x); }; void g(java.util.List<String> l) { l.forEach(s -> use(s)); } }";
        let lambda_b = "class B { Runnable r = () -> { int y = 1; use(y); }; void g(java.util.List<String> m) { m.forEach(q -> use(q)); } }";
        assert!(same(lambda_a, lambda_b));
    }

    #[test]
    fn what_a_program_does_still_counts() {
        for different in [
            // Another bound.
            REFERENCE.replace("> max", ">= max"),
            // Parentheses that change the meaning are kept.
            REFERENCE.replace("name.length() > max", "(name.length() > max) == true"),
            // A field is not a local: `size` stays `size`.
            REFERENCE.replace("return trimmed;", "return trimmed + size;"),
            // Method and member names are not renamed.
            REFERENCE.replace("name.trim()", "name.strip()"),
            // Swapped parameters are different variables.
            REFERENCE.replace("name.length() > max", "max > name.length()"),
        ] {
            assert!(!same(REFERENCE, &different), "{different}");
        }
        let swapped = REFERENCE.replace("String name, int max", "int max, String name");
        assert!(!same(REFERENCE, &swapped), "parameter order matters");
    }

    #[test]
    fn a_file_that_does_not_parse_has_no_key() {
        assert!(equivalence_key("class A { void f( { }").is_none());
    }
}
