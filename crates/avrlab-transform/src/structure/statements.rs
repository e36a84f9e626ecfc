//! Statement-level rules: call-chain split/merge, argument extract/inline, independent-statement
//! reorder.

use std::collections::BTreeSet;

use avrlab_java::{DeclKind, Node, TextEdit};

use super::{RuleCtx, Site, descendants, in_block, temp_placeholder, unparen};
use crate::Rule;

/// The expression a statement evaluates as a whole, and whether anything with effects is evaluated
/// before it (an assignment's left side that is not a plain name).
fn statement_expression<'a>(ctx: &RuleCtx<'a>, stmt: Node<'a>) -> Option<(Node<'a>, bool)> {
    match stmt.kind() {
        "expression_statement" => {
            let e = stmt.named_child(0)?;
            if e.kind() == "assignment_expression" {
                let lhs = e.child_by_field_name("left")?;
                let plain = lhs.kind() == "identifier"
                    || (lhs.kind() == "field_access"
                        && lhs
                            .child_by_field_name("object")
                            .is_some_and(|o| o.kind() == "this"));
                Some((e.child_by_field_name("right")?, !plain))
            } else {
                Some((e, false))
            }
        }
        "return_statement" => Some((stmt.named_child(0)?, false)),
        "local_variable_declaration" => {
            let mut cursor = stmt.walk();
            let decls: Vec<Node<'_>> = stmt
                .children_by_field_name("declarator", &mut cursor)
                .collect();
            if decls.len() != 1 {
                return None;
            }
            let _ = ctx;
            Some((decls[0].child_by_field_name("value")?, false))
        }
        _ => None,
    }
}

/// Whether evaluating `node` can have no side effect (names, literals, `this`, field reads).
fn is_pure(node: Node<'_>) -> bool {
    match node.kind() {
        "identifier"
        | "this"
        | "string_literal"
        | "character_literal"
        | "true"
        | "false"
        | "null_literal"
        | "decimal_integer_literal"
        | "hex_integer_literal"
        | "decimal_floating_point_literal"
        | "class_literal" => true,
        "field_access" => node.child_by_field_name("object").is_some_and(is_pure),
        "parenthesized_expression" => node.named_child(0).is_some_and(is_pure),
        _ => false,
    }
}

/// The static type of an expression when its syntax alone tells it, for declaring a temporary.
fn syntactic_type(ctx: &RuleCtx<'_>, expr: Node<'_>) -> Option<String> {
    let text = ctx.text(expr);
    match expr.kind() {
        "string_literal" => Some("String".into()),
        "character_literal" => Some("char".into()),
        "true" | "false" => Some("boolean".into()),
        "decimal_integer_literal"
        | "hex_integer_literal"
        | "octal_integer_literal"
        | "binary_integer_literal" => Some(
            if text.ends_with(['l', 'L']) {
                "long"
            } else {
                "int"
            }
            .into(),
        ),
        "decimal_floating_point_literal" => Some(
            if text.ends_with(['f', 'F']) {
                "float"
            } else {
                "double"
            }
            .into(),
        ),
        "object_creation_expression" => {
            let ty = expr.child_by_field_name("type")?;
            let anonymous = descendants(expr).any(|n| n.kind() == "class_body");
            let diamond = ctx.text(ty).contains("<>");
            (!anonymous && !diamond).then(|| ctx.text(ty).to_owned())
        }
        "cast_expression" => expr
            .child_by_field_name("type")
            .map(|t| ctx.text(t).to_owned()),
        "binary_expression" => {
            let op = ctx.text(expr.child_by_field_name("operator")?);
            let l = expr.child_by_field_name("left")?;
            let r = expr.child_by_field_name("right")?;
            let is_string = |n: Node<'_>| syntactic_type(ctx, n).as_deref() == Some("String");
            (op == "+" && (is_string(l) || is_string(r))).then(|| "String".into())
        }
        "method_invocation" => project_return_type(ctx, expr),
        "parenthesized_expression" => syntactic_type(ctx, expr.named_child(0)?),
        _ => None,
    }
}

/// The return type of a call to a project method declared exactly once, non-generic.
fn project_return_type(ctx: &RuleCtx<'_>, call: Node<'_>) -> Option<String> {
    let name = ctx.text(call.child_by_field_name("name")?);
    let decls: Vec<_> = ctx
        .decls
        .declarations(name)
        .iter()
        .filter(|d| d.kind == DeclKind::Method)
        .collect();
    let [decl] = decls.as_slice() else {
        return None;
    };
    let ty = decl.type_text.clone()?;
    // A type variable of the declaring class (`T`, `E`) means nothing at the call site.
    let looks_like_type_variable = ty.len() <= 2 && ty.chars().all(|c| c.is_ascii_uppercase());
    (!decl.is_generic && ty != "void" && !looks_like_type_variable).then_some(ty)
}

/// A word for naming a temporary after a call: `getConfig` → `config`.
fn temp_hint(ctx: &RuleCtx<'_>, expr: Node<'_>, fallback: &str) -> String {
    let name = match expr.kind() {
        "method_invocation" => expr.child_by_field_name("name").map(|n| ctx.text(n)),
        _ => None,
    };
    let word = name
        .map(|n| {
            let stripped = ["get", "to", "as", "create", "new"]
                .iter()
                .find_map(|p| {
                    n.strip_prefix(p)
                        .filter(|r| r.starts_with(|c: char| c.is_ascii_uppercase()))
                })
                .unwrap_or(n);
            let mut c = stripped.chars();
            c.next()
                .map(|f| f.to_ascii_lowercase().to_string() + c.as_str())
                .unwrap_or_default()
        })
        .filter(|w| !w.is_empty() && !avrlab_java::is_reserved_word(w));
    word.unwrap_or_else(|| fallback.to_owned())
}

/// `T r = a.b().c();` → `X t = a.b(); T r = t.c();`.
pub(super) fn call_chain_split(ctx: &RuleCtx<'_>, stmt: Node<'_>) -> Option<Site> {
    let (expr, lhs_effects) = statement_expression(ctx, stmt)?;
    let expr = unparen(expr);
    if expr.kind() != "method_invocation" {
        return None;
    }
    let receiver = expr.child_by_field_name("object")?;
    if receiver.kind() != "method_invocation" {
        return None;
    }
    let outcome = (|| {
        if !in_block(stmt) {
            return Err("the statement is not directly in a block".to_owned());
        }
        if lhs_effects {
            return Err("the assignment's target is evaluated before the call".to_owned());
        }
        let ty = if ctx.java_version >= 10 {
            "var".to_owned()
        } else {
            project_return_type(ctx, receiver)
                .ok_or("the receiver's type is unknown (Java < 10 has no `var`)")?
        };
        let indent = ctx.indent(stmt);
        let t = temp_placeholder(0);
        Ok(vec![
            TextEdit::new(
                stmt.start_byte()..stmt.start_byte(),
                format!("{ty} {t} = {};\n{indent}", ctx.text(receiver)),
            ),
            TextEdit::new(receiver.byte_range(), t),
        ])
    })();
    let mut site = ctx.site(Rule::CallChainSplit, &[stmt], outcome)?;
    site.temps.push(temp_hint(ctx, receiver, "value"));
    Some(site)
}

/// The statement after `stmt` in its block.
fn next_statement(stmt: Node<'_>) -> Option<Node<'_>> {
    let mut n = stmt.next_named_sibling();
    while let Some(s) = n {
        if !s.kind().ends_with("comment") {
            return Some(s);
        }
        n = s.next_named_sibling();
    }
    None
}

/// A single-declarator local declaration: (declarator, name node, value node).
fn single_local<'a>(stmt: Node<'a>) -> Option<(Node<'a>, Node<'a>, Node<'a>)> {
    if stmt.kind() != "local_variable_declaration" {
        return None;
    }
    let mut cursor = stmt.walk();
    let decls: Vec<Node<'_>> = stmt
        .children_by_field_name("declarator", &mut cursor)
        .collect();
    let [d] = decls.as_slice() else {
        return None;
    };
    if d.child_by_field_name("dimensions").is_some() {
        return None;
    }
    Some((
        *d,
        d.child_by_field_name("name")?,
        d.child_by_field_name("value")?,
    ))
}

/// Deletes a whole statement, with its line when it stands alone on it.
fn delete_statement(ctx: &RuleCtx<'_>, stmt: Node<'_>) -> TextEdit {
    let text = ctx.src.text();
    let line = stmt.start_position().row + 1;
    let line_start = ctx.src.line_start(line);
    let line_end = ctx.src.line_end(ctx.src.line_of_byte(stmt.end_byte()));
    let before_blank = text[line_start..stmt.start_byte()].trim().is_empty();
    let after_blank = text[stmt.end_byte()..line_end].trim().is_empty();
    if before_blank && after_blank {
        TextEdit::new(line_start..line_end, "")
    } else {
        TextEdit::new(stmt.byte_range(), "")
    }
}

/// `X t = a.b(); T r = t.c();` (t used once) → `T r = a.b().c();`.
pub(super) fn call_chain_merge(ctx: &RuleCtx<'_>, stmt: Node<'_>) -> Option<Site> {
    let (_, name, value) = single_local(stmt)?;
    if !in_block(stmt) {
        return None;
    }
    let next = next_statement(stmt)?;
    let (expr, lhs_effects) = statement_expression(ctx, next)?;
    // Walk down the leftmost receiver chain of the next statement's expression.
    let mut cur = unparen(expr);
    let mut saw_call = false;
    while cur.kind() == "method_invocation" {
        saw_call = true;
        cur = cur.child_by_field_name("object")?;
    }
    if !saw_call || cur.kind() != "identifier" || ctx.text(cur) != ctx.text(name) {
        return None;
    }
    let outcome = (|| {
        let binding = ctx.res.binding_at(name.start_byte()).ok_or("not a local")?;
        if ctx.res.ref_count(binding) != 1 || ctx.res.binding_at(cur.start_byte()) != Some(binding)
        {
            return Err("the temporary is used more than once".to_owned());
        }
        if lhs_effects {
            return Err("the assignment's target is evaluated before the call".to_owned());
        }
        let v = unparen(value);
        if v.kind() == "object_creation_expression" && ctx.text(v).contains("<>") {
            return Err(
                "a diamond `new` would infer a different type without its declaration".to_owned(),
            );
        }
        let primary = matches!(
            v.kind(),
            "method_invocation"
                | "identifier"
                | "field_access"
                | "array_access"
                | "this"
                | "string_literal"
        );
        let text = if primary {
            ctx.text(v).to_owned()
        } else {
            format!("({})", ctx.text(v))
        };
        Ok(vec![
            delete_statement(ctx, stmt),
            TextEdit::new(cur.byte_range(), text),
        ])
    })();
    ctx.site(Rule::CallChainMerge, &[stmt, next], outcome)
}

/// `f(a, new X())` → `X t = new X(); f(a, t);` for the first argument whose type the syntax tells.
pub(super) fn argument_extract(ctx: &RuleCtx<'_>, stmt: Node<'_>) -> Option<Site> {
    let (expr, lhs_effects) = statement_expression(ctx, stmt)?;
    let expr = unparen(expr);
    if !matches!(
        expr.kind(),
        "method_invocation" | "object_creation_expression"
    ) {
        return None;
    }
    let args = expr.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let list: Vec<Node<'_>> = args
        .named_children(&mut cursor)
        .filter(|n| !n.kind().ends_with("comment"))
        .collect();
    let mut earlier_pure = expr.child_by_field_name("object").is_none_or(is_pure) && !lhs_effects;
    let mut chosen = None;
    for a in &list {
        let ty = syntactic_type(ctx, *a);
        let literal = is_pure(*a);
        if let Some(ty) = ty
            && (literal || earlier_pure)
            && a.kind() != "identifier"
        {
            chosen = Some((*a, ty));
            break;
        }
        earlier_pure &= is_pure(*a);
    }
    let Some((arg, ty)) = chosen else {
        return if list.is_empty() {
            None
        } else {
            ctx.site(
                Rule::ArgumentExtract,
                &[stmt],
                Err("no argument with a known type can move before the call".to_owned()),
            )
        };
    };
    let outcome = if in_block(stmt) {
        let indent = ctx.indent(stmt);
        let t = temp_placeholder(0);
        Ok(vec![
            TextEdit::new(
                stmt.start_byte()..stmt.start_byte(),
                format!("{ty} {t} = {};\n{indent}", ctx.text(arg)),
            ),
            TextEdit::new(arg.byte_range(), t),
        ])
    } else {
        Err("the statement is not directly in a block".to_owned())
    };
    let mut site = ctx.site(Rule::ArgumentExtract, &[stmt], outcome)?;
    site.temps.push(temp_hint(ctx, arg, "argument"));
    Some(site)
}

/// `T v = e; f(…, v, …);` (v used once, `T` the type `e` has anyway) → `f(…, e, …);`.
pub(super) fn argument_inline(ctx: &RuleCtx<'_>, stmt: Node<'_>) -> Option<Site> {
    let (_, name, value) = single_local(stmt)?;
    if !in_block(stmt) {
        return None;
    }
    let next = next_statement(stmt)?;
    let (expr, lhs_effects) = statement_expression(ctx, next)?;
    let expr = unparen(expr);
    if !matches!(
        expr.kind(),
        "method_invocation" | "object_creation_expression"
    ) {
        return None;
    }
    let args = expr.child_by_field_name("arguments")?;
    let mut cursor = args.walk();
    let list: Vec<Node<'_>> = args.named_children(&mut cursor).collect();
    let pos = list
        .iter()
        .position(|a| a.kind() == "identifier" && ctx.text(*a) == ctx.text(name))?;
    let arg = list[pos];
    let outcome = (|| {
        let binding = ctx.res.binding_at(name.start_byte()).ok_or("not a local")?;
        if ctx.res.ref_count(binding) != 1 || ctx.res.binding_at(arg.start_byte()) != Some(binding)
        {
            return Err("the variable is used more than once".to_owned());
        }
        let declared = stmt
            .child_by_field_name("type")
            .map(|t| ctx.text(t))
            .unwrap_or_default();
        let natural = syntactic_type(ctx, unparen(value));
        if natural.as_deref() != Some(declared) {
            return Err(
                "the initializer's own type may differ from the declared one (overloads)"
                    .to_owned(),
            );
        }
        let earlier_pure = !lhs_effects
            && expr.child_by_field_name("object").is_none_or(is_pure)
            && list[..pos].iter().all(|a| is_pure(*a));
        if !earlier_pure && !is_pure(value) {
            return Err("the initializer would run after other effects".to_owned());
        }
        Ok(vec![
            delete_statement(ctx, stmt),
            TextEdit::new(arg.byte_range(), ctx.text(value)),
        ])
    })();
    ctx.site(Rule::ArgumentInline, &[stmt, next], outcome)
}

/// What a simple statement reads, writes and does.
#[derive(Default)]
struct Effects {
    reads: BTreeSet<String>,
    writes: BTreeSet<String>,
    calls: bool,
    heap_reads: bool,
    heap_writes: bool,
}

fn effects(ctx: &RuleCtx<'_>, stmt: Node<'_>) -> Option<Effects> {
    if !matches!(
        stmt.kind(),
        "expression_statement" | "local_variable_declaration"
    ) {
        return None;
    }
    let mut fx = Effects::default();
    for n in descendants(stmt) {
        match n.kind() {
            "method_invocation"
            | "object_creation_expression"
            | "lambda_expression"
            | "method_reference"
            | "switch_expression"
            | "array_creation_expression" => fx.calls = true,
            "field_access" | "array_access" => fx.heap_reads = true,
            "identifier" => {
                let name = ctx.text(n).to_owned();
                let is_local = ctx.res.binding_at(n.start_byte()).is_some();
                if !is_local && ctx.res.free.contains(&n.start_byte()) {
                    fx.heap_reads = true;
                }
                fx.reads.insert(name);
            }
            "assignment_expression" | "update_expression" => {
                let target = if n.kind() == "assignment_expression" {
                    n.child_by_field_name("left")?
                } else {
                    n.named_child(0)?
                };
                let target = unparen(target);
                if target.kind() == "identifier"
                    && ctx.res.binding_at(target.start_byte()).is_some()
                {
                    fx.writes.insert(ctx.text(target).to_owned());
                } else {
                    fx.heap_writes = true;
                }
            }
            "variable_declarator" => {
                if let Some(name) = n.child_by_field_name("name") {
                    fx.writes.insert(ctx.text(name).to_owned());
                }
            }
            _ => {}
        }
    }
    Some(fx)
}

/// Swaps two adjacent statements with no data or control dependence and not both with effects.
pub(super) fn statement_reorder(ctx: &RuleCtx<'_>, first: Node<'_>) -> Option<Site> {
    if !in_block(first) {
        return None;
    }
    let second = next_statement(first)?;
    let a = effects(ctx, first)?;
    let b = effects(ctx, second)?;
    let outcome = (|| {
        if a.writes
            .iter()
            .any(|w| b.reads.contains(w) || b.writes.contains(w))
            || b.writes.iter().any(|w| a.reads.contains(w))
        {
            return Err("the statements share a variable one of them writes".to_owned());
        }
        if a.calls && b.calls {
            return Err("both statements call methods".to_owned());
        }
        let touches_heap = |x: &Effects| x.heap_reads || x.heap_writes;
        if (a.calls && touches_heap(&b)) || (b.calls && touches_heap(&a)) {
            return Err("a call could affect the other statement's fields or arrays".to_owned());
        }
        if (a.heap_writes && touches_heap(&b)) || (b.heap_writes && touches_heap(&a)) {
            return Err("both statements touch fields or arrays and one writes".to_owned());
        }
        if ctx.has_comment(first) || ctx.has_comment(second) {
            return Err("a comment inside a statement".to_owned());
        }
        Ok(vec![
            TextEdit::new(first.byte_range(), ctx.text(second)),
            TextEdit::new(second.byte_range(), ctx.text(first)),
        ])
    })();
    ctx.site(Rule::StatementReorder, &[first, second], outcome)
}
