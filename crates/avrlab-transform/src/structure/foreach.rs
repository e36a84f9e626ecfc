//! The enhanced `for` rewritten as the basic `for` it stands for (JLS 14.14.2): an iterator loop over
//! an `Iterable`, an indexed loop over an array.

use avrlab_java::{DeclKind, Node, TextEdit};

use super::{RuleCtx, Site, descendants, reindent_rest, temp_placeholder};
use crate::Rule;

/// What an enhanced `for` runs over.
enum Source {
    Array,
    Iterable,
}

/// `for (T x : xs) body` → `for (java.util.Iterator<? extends T> it = xs.iterator(); it.hasNext();)
/// { T x = it.next(); body }`, or over an array local `for (int i = 0; i < xs.length; i++) { T x =
/// xs[i]; body }`.
///
/// The iterator's element type is written as `? extends T`, which accepts any `Iterable` whose
/// elements the loop variable can hold, as the enhanced `for` does. A `var` or primitive loop
/// variable needs `var` for the iterator (Java 10+). The rule declines when it cannot tell an array from
/// an `Iterable`.
pub(super) fn foreach_to_for(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "enhanced_for_statement" {
        return None;
    }
    let body = node.child_by_field_name("body")?;
    let value = node.child_by_field_name("value")?;
    let name = node.child_by_field_name("name")?;
    let ty = node.child_by_field_name("type")?;
    let mut edits_extent = node.start_byte()..body.start_byte() + 1;
    let outcome = (|| {
        if name.kind() != "identifier" {
            return Err("the loop variable is a pattern".to_owned());
        }
        let source = source_of(ctx, value)?;
        let ty_text = ctx.text(ty);
        // A primitive loop variable unboxes and may widen (`long w` over `Iterable<Integer>`): no
        // `Iterator<…>` type is right for every such Iterable, but `var` is.
        let is_var = ty_text == "var" || ty.kind().ends_with("_type") && is_primitive(ty_text);
        if is_var && ctx.java_version < 10 && matches!(source, Source::Iterable) {
            return Err(
                "a `var` or primitive loop variable needs a `var` iterator (Java 10+)".to_owned(),
            );
        }
        let mut cursor = node.walk();
        let modifiers = node
            .named_children(&mut cursor)
            .find(|c| c.kind() == "modifiers")
            .map(|m| format!("{} ", ctx.text(m)))
            .unwrap_or_default();
        let dims = node
            .child_by_field_name("dimensions")
            .map(|d| ctx.text(d).to_owned())
            .unwrap_or_default();
        let var_name = ctx.text(name);
        let temp = temp_placeholder(0);
        let value_text = ctx.text(value);
        let (header, element) = match source {
            Source::Iterable => {
                let iter_ty = if is_var {
                    "var".to_owned()
                } else if dims.is_empty() {
                    format!("java.util.Iterator<? extends {ty_text}>")
                } else {
                    format!("java.util.Iterator<? extends {ty_text}{dims}>")
                };
                (
                    format!("for ({iter_ty} {temp} = {value_text}.iterator(); {temp}.hasNext();)"),
                    format!("{temp}.next()"),
                )
            }
            Source::Array => (
                format!("for (int {temp} = 0; {temp} < {value_text}.length; {temp}++)"),
                format!("{value_text}[{temp}]"),
            ),
        };
        let declaration = format!("{modifiers}{ty_text} {var_name}{dims} = {element};");
        let indent = ctx.indent(node);
        let unit = ctx.unit();
        let inner = format!("{indent}{unit}");
        let mut edits = vec![TextEdit::new(
            node.start_byte()..body.start_byte(),
            format!("{header} "),
        )];
        if body.kind() == "block" {
            edits.push(TextEdit::new(
                body.start_byte() + 1..body.start_byte() + 1,
                format!("\n{inner}{declaration}"),
            ));
        } else {
            let own = ctx.indent(body);
            let stmt = reindent_rest(ctx.text(body), &own, &inner);
            edits = vec![
                TextEdit::new(node.start_byte()..body.start_byte(), format!("{header} ")),
                TextEdit::new(
                    body.byte_range(),
                    format!("{{\n{inner}{declaration}\n{inner}{stmt}\n{indent}}}"),
                ),
            ];
            edits_extent = node.byte_range();
        }
        Ok(edits)
    })();
    let hint = match source_of(ctx, value) {
        Ok(Source::Array) => "index",
        _ => "iterator",
    };
    let mut site = ctx.site(Rule::ForEachToFor, &[node], outcome)?;
    site.extent = edits_extent;
    site.temps.push(hint.to_owned());
    Some(site)
}

/// Whether a type is one of Java's primitive types.
fn is_primitive(ty: &str) -> bool {
    matches!(
        ty,
        "int" | "long" | "short" | "byte" | "char" | "boolean" | "float" | "double"
    )
}

/// Whether the loop runs over an array or an `Iterable`, from the declared type of what it runs over.
fn source_of(ctx: &RuleCtx<'_>, value: Node<'_>) -> Result<Source, String> {
    let unknown = || {
        Err(format!(
            "cannot tell whether `{}` is an array or an Iterable",
            ctx.text(value)
        ))
    };
    let by_text = |t: &str| -> Result<Source, String> {
        let t = t.trim();
        if t == "var" || t.is_empty() {
            unknown()
        } else if t.contains('[') {
            Ok(Source::Array)
        } else {
            Ok(Source::Iterable)
        }
    };
    let by_decls = |name: &str, kind: DeclKind| -> Result<Source, String> {
        let texts: Vec<&str> = ctx
            .decls
            .declarations(name)
            .iter()
            .filter(|d| d.kind == kind && !d.is_generic)
            .map(|d| d.type_text.as_deref().unwrap_or(""))
            .collect();
        let arrays = texts.iter().filter(|t| t.contains('[')).count();
        match texts.first() {
            Some(first) if arrays == 0 || arrays == texts.len() => by_text(first),
            _ => unknown(),
        }
    };
    match value.kind() {
        "identifier" => {
            if let Some(&b) = ctx.res.refs.get(&value.start_byte()) {
                let binding = &ctx.res.bindings[b];
                let Some(ty) = binding.ty.clone() else {
                    return unknown();
                };
                let source = by_text(&ctx.src.text()[ty])?;
                // An indexed loop reads the variable on every turn: it must not change in the body.
                if matches!(source, Source::Array) && assigned_in(ctx, value, &binding.name) {
                    return Err(format!("`{}` is assigned inside the loop", binding.name));
                }
                return Ok(source);
            }
            match by_decls(ctx.text(value), DeclKind::Field)? {
                // A field could change under the loop (a call in the body): only Iterables.
                Source::Array => Err("the loop runs over an array field".to_owned()),
                Source::Iterable => Ok(Source::Iterable),
            }
        }
        "field_access" => {
            let field = value.child_by_field_name("field").ok_or("no field")?;
            match by_decls(ctx.text(field), DeclKind::Field)? {
                Source::Array => Err("the loop runs over an array field".to_owned()),
                Source::Iterable => Ok(Source::Iterable),
            }
        }
        "method_invocation" => {
            // Only the class's own methods: `text.split(",")` is a library call with an array
            // result even when the project declares a `split` of its own.
            if value
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() != "this")
            {
                return unknown();
            }
            let name = value.child_by_field_name("name").ok_or("no name")?;
            match by_decls(ctx.text(name), DeclKind::Method)? {
                Source::Array => Err("the loop runs over an array a call returns".to_owned()),
                Source::Iterable => Ok(Source::Iterable),
            }
        }
        _ => unknown(),
    }
}

/// Whether `name` is assigned (or incremented) anywhere inside the loop around `value`.
fn assigned_in(ctx: &RuleCtx<'_>, value: Node<'_>, name: &str) -> bool {
    let Some(l) = value.parent() else {
        return true;
    };
    descendants(l).any(|n| match n.kind() {
        "assignment_expression" => n
            .child_by_field_name("left")
            .is_some_and(|left| ctx.text(left) == name),
        "update_expression" => {
            let mut cursor = n.walk();
            n.named_children(&mut cursor)
                .any(|c| c.kind() == "identifier" && ctx.text(c) == name)
        }
        _ => false,
    })
}
