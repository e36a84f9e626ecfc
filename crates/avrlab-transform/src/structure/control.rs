//! Control-flow rules: if-condition flip, `for`↔`while`, ternary↔if-else, `switch`↔if-chain.

use avrlab_java::{DeclKind, Node, TextEdit};

use super::{
    RuleCtx, Site, as_block, can_complete_normally, descendants, in_block, indent_rest,
    jump_target, jumps_to, label_of, negate, reindent_rest, temp_placeholder, unparen,
};
use crate::Rule;

/// `if (c) A else B` → `if (!c) B else A`; without an else, `if (!c) {} else A`.
pub(super) fn if_flip(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "if_statement" {
        return None;
    }
    let cond = node.child_by_field_name("condition")?;
    let cons = node.child_by_field_name("consequence")?;
    let alt = node.child_by_field_name("alternative");
    let indent = ctx.indent(node);
    let unit = ctx.unit();
    let negated = format!("({})", negate(ctx, unparen(cond)));
    let mut edits = vec![TextEdit::new(cond.byte_range(), negated)];
    match alt {
        None => {
            let block = as_block(ctx, cons, &indent, &unit);
            edits.push(TextEdit::new(
                cons.byte_range(),
                format!("{{\n{indent}}} else {block}"),
            ));
        }
        Some(alt) => {
            let alt_block = if alt.kind() == "if_statement" {
                // An else-if becomes the body of the new then-branch: brace it so that its own else
                // cannot attach to the outer if.
                let text = indent_rest(ctx.text(alt), &unit);
                format!("{{\n{indent}{unit}{text}\n{indent}}}")
            } else {
                as_block(ctx, alt, &indent, &unit)
            };
            let cons_block = as_block(ctx, cons, &indent, &unit);
            edits.push(TextEdit::new(cons.byte_range(), alt_block));
            edits.push(TextEdit::new(alt.byte_range(), cons_block));
        }
    }
    ctx.site(Rule::IfFlip, &[node], Ok(edits))
}

/// `for (init; c; u) body` → `init; while (c) { body u; }`, with every `continue` that targets the
/// loop rewritten to run the update first.
pub(super) fn for_to_while(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "for_statement" {
        return None;
    }
    let outcome = (|| {
        let body = node.child_by_field_name("body").ok_or("no body")?;
        let mut cursor = node.walk();
        let inits: Vec<Node<'_>> = node.children_by_field_name("init", &mut cursor).collect();
        let mut cursor = node.walk();
        let updates: Vec<Node<'_>> = node.children_by_field_name("update", &mut cursor).collect();
        let cond = node
            .child_by_field_name("condition")
            .map_or("true".to_owned(), |c| ctx.text(c).to_owned());
        let update_text: String = updates
            .iter()
            .map(|u| format!("{};", ctx.text(*u)))
            .collect::<Vec<_>>()
            .join(" ");
        let labeled = node.parent().filter(|p| p.kind() == "labeled_statement");
        let outer = labeled.unwrap_or(node);
        if !(in_block(outer)
            || outer
                .parent()
                .is_some_and(|p| p.kind() == "switch_block_statement_group"))
        {
            return Err("the loop is not a statement of a block".to_owned());
        }
        let indent = ctx.indent(outer);
        let unit = ctx.unit();
        // Continues: run the update before jumping back to the condition.
        let continues = jumps_to(ctx, body, node, "continue_statement");
        let mut inner = Vec::new();
        if !updates.is_empty() {
            for c in &continues {
                inner.push(TextEdit::new(
                    c.byte_range(),
                    format!("{{ {update_text} {} }}", ctx.text(*c)),
                ));
            }
        }
        let append_update = !updates.is_empty()
            && match can_complete_normally(body) {
                Some(b) => b,
                None => {
                    return Err("cannot tell whether the loop body completes normally".to_owned());
                }
            };
        let mut body_text = ctx.rewrite_within(body, &inner)?;
        if body.kind() == "block" {
            if append_update {
                let trimmed = body_text.trim_end_matches('}').trim_end();
                let brace_line_start = body_text.rfind('\n');
                body_text = match brace_line_start {
                    Some(nl) if body_text[nl..].trim() == "}" => format!(
                        "{}\n{indent}{unit}{update_text}{}",
                        &body_text[..nl],
                        &body_text[nl..]
                    ),
                    _ => format!("{trimmed} {update_text} }}"),
                };
            }
        } else {
            let own = ctx.indent(body);
            let stmt = reindent_rest(&body_text, &own, &format!("{indent}{unit}"));
            let upd = if append_update {
                format!("\n{indent}{unit}{update_text}")
            } else {
                String::new()
            };
            body_text = format!("{{\n{indent}{unit}{stmt}{upd}\n{indent}}}");
        }
        let label = labeled
            .and_then(|l| l.named_child(0))
            .map(|l| format!("{}: ", ctx.text(l)))
            .unwrap_or_default();
        let init_text: Vec<String> = inits
            .iter()
            .map(|i| {
                let t = ctx.text(*i);
                if i.kind() == "local_variable_declaration" {
                    t.to_owned()
                } else {
                    format!("{t};")
                }
            })
            .collect();
        let declared: Vec<&str> = inits
            .iter()
            .filter(|i| i.kind() == "local_variable_declaration")
            .flat_map(|d| {
                let mut c = d.walk();
                d.children_by_field_name("declarator", &mut c)
                    .filter_map(|v| v.child_by_field_name("name"))
                    .map(|n| ctx.text(n))
                    .collect::<Vec<_>>()
            })
            .collect();
        let wrap = declared
            .iter()
            .any(|n| ctx.name_used_after(n, outer.end_byte()));
        let loop_text = format!("{label}while ({cond}) {body_text}");
        let text = if init_text.is_empty() {
            loop_text
        } else if wrap {
            // The loop variable's name is used again after the loop: keep it scoped in a block.
            let inner_indent = format!("{indent}{unit}");
            let inits = init_text.join(&format!("\n{inner_indent}"));
            format!(
                "{{\n{inner_indent}{inits}\n{inner_indent}{}\n{indent}}}",
                indent_rest(&loop_text, &unit)
            )
        } else {
            format!(
                "{}\n{indent}{loop_text}",
                init_text.join(&format!("\n{indent}"))
            )
        };
        Ok(vec![TextEdit::new(outer.byte_range(), text)])
    })();
    ctx.site(Rule::ForToWhile, &[node], outcome)
}

/// `while (c) body` → `for (; c; ) body`.
pub(super) fn while_to_for(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "while_statement" {
        return None;
    }
    let cond = node.child_by_field_name("condition")?;
    let inner = unparen(cond);
    let edits = vec![TextEdit::new(
        node.start_byte()..cond.end_byte(),
        format!("for (; {}; )", ctx.text(inner)),
    )];
    ctx.site(Rule::WhileToFor, &[node], Ok(edits))
}

/// The statement forms a ternary can be the whole right-hand side of.
enum TernaryHost {
    /// `lhs op= c ? a : b;`
    Assign { lhs: String, op: String },
    /// `return c ? a : b;`
    Return,
    /// `T x = c ? a : b;`
    Declare { decl_head: String, name: String },
}

/// `x = c ? a : b;` / `return c ? a : b;` / `T x = c ? a : b;` → if-else (nested ternaries too).
pub(super) fn ternary_to_if(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    let (host, ternary) = match node.kind() {
        "expression_statement" => {
            let expr = node.named_child(0)?;
            if expr.kind() != "assignment_expression" {
                return None;
            }
            let right = unparen(expr.child_by_field_name("right")?);
            if right.kind() != "ternary_expression" {
                return None;
            }
            let lhs = ctx.text(expr.child_by_field_name("left")?).to_owned();
            let op = ctx.text(expr.child_by_field_name("operator")?).to_owned();
            (TernaryHost::Assign { lhs, op }, right)
        }
        "return_statement" => {
            let expr = unparen(node.named_child(0)?);
            if expr.kind() != "ternary_expression" {
                return None;
            }
            (TernaryHost::Return, expr)
        }
        "local_variable_declaration" => {
            let mut cursor = node.walk();
            let decls: Vec<Node<'_>> = node
                .children_by_field_name("declarator", &mut cursor)
                .collect();
            if decls.len() != 1 {
                return None;
            }
            let value = unparen(decls[0].child_by_field_name("value")?);
            if value.kind() != "ternary_expression" {
                return None;
            }
            let name = ctx.text(decls[0].child_by_field_name("name")?).to_owned();
            let head = ctx.src.text()[node.start_byte()..decls[0].start_byte()].to_owned();
            let ty = node.child_by_field_name("type").map(|t| ctx.text(t));
            if ty == Some("var") {
                return ctx.site(
                    Rule::TernaryToIf,
                    &[node],
                    Err("a `var` declaration needs its initializer".to_owned()),
                );
            }
            let dims = decls[0]
                .child_by_field_name("dimensions")
                .map_or("", |d| ctx.text(d));
            (
                TernaryHost::Declare {
                    decl_head: format!("{head}{name}{dims};"),
                    name,
                },
                value,
            )
        }
        _ => return None,
    };
    if !(in_block(node)
        || node
            .parent()
            .is_some_and(|p| p.kind() == "switch_block_statement_group"))
    {
        return ctx.site(
            Rule::TernaryToIf,
            &[node],
            Err("the statement is not directly in a block".to_owned()),
        );
    }
    let indent = ctx.indent(node);
    let unit = ctx.unit();
    let make = |expr: &str| match &host {
        TernaryHost::Assign { lhs, op } => format!("{lhs} {op} {expr};"),
        TernaryHost::Return => format!("return {expr};"),
        TernaryHost::Declare { name, .. } => format!("{name} = {expr};"),
    };
    let chain = ternary_chain(ctx, ternary, &make, &indent, &unit);
    let text = match &host {
        TernaryHost::Declare { decl_head, .. } => format!("{decl_head}\n{indent}{chain}"),
        _ => chain,
    };
    ctx.site(
        Rule::TernaryToIf,
        &[node],
        Ok(vec![TextEdit::new(node.byte_range(), text)]),
    )
}

fn ternary_chain(
    ctx: &RuleCtx<'_>,
    ternary: Node<'_>,
    make: &dyn Fn(&str) -> String,
    indent: &str,
    unit: &str,
) -> String {
    let cond = unparen(
        ternary
            .child_by_field_name("condition")
            .expect("ternary condition"),
    );
    let cons = unparen(
        ternary
            .child_by_field_name("consequence")
            .expect("ternary consequence"),
    );
    let alt = unparen(
        ternary
            .child_by_field_name("alternative")
            .expect("ternary alternative"),
    );
    let inner = format!("{indent}{unit}");
    let branch = |n: Node<'_>| {
        if n.kind() == "ternary_expression" {
            ternary_chain(ctx, n, make, &inner, unit)
        } else {
            make(ctx.text(n))
        }
    };
    let then = branch(cons);
    let tail = if alt.kind() == "ternary_expression" {
        format!(" else {}", ternary_chain(ctx, alt, make, indent, unit))
    } else {
        format!(" else {{\n{inner}{}\n{indent}}}", make(ctx.text(alt)))
    };
    format!(
        "if ({}) {{\n{inner}{then}\n{indent}}}{tail}",
        ctx.text(cond)
    )
}

/// The single statement of a branch (a statement, or a block holding exactly one).
fn single_statement(node: Node<'_>) -> Option<Node<'_>> {
    if node.kind() == "block" {
        let mut cursor = node.walk();
        let stmts: Vec<Node<'_>> = node.named_children(&mut cursor).collect();
        (stmts.len() == 1).then(|| stmts[0])
    } else {
        Some(node)
    }
}

/// `if (c) x = a; else x = b;` → `x = c ? a : b;`, and the same for `return`.
pub(super) fn if_to_ternary(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "if_statement" {
        return None;
    }
    let alt = node.child_by_field_name("alternative")?;
    let cons = single_statement(node.child_by_field_name("consequence")?)?;
    let alt = single_statement(alt)?;
    let cond = unparen(node.child_by_field_name("condition")?);
    let cond_text = if matches!(
        cond.kind(),
        "assignment_expression" | "ternary_expression" | "lambda_expression"
    ) {
        format!("({})", ctx.text(cond))
    } else {
        ctx.text(cond).to_owned()
    };
    let operand = |n: Node<'_>| {
        if matches!(n.kind(), "assignment_expression" | "lambda_expression") {
            format!("({})", ctx.text(n))
        } else {
            ctx.text(n).to_owned()
        }
    };
    let text = match (cons.kind(), alt.kind()) {
        ("return_statement", "return_statement") => {
            let a = cons.named_child(0)?;
            let b = alt.named_child(0)?;
            format!("return {cond_text} ? {} : {};", operand(a), operand(b))
        }
        ("expression_statement", "expression_statement") => {
            let a = cons.named_child(0)?;
            let b = alt.named_child(0)?;
            if a.kind() != "assignment_expression" || b.kind() != "assignment_expression" {
                return None;
            }
            let same = |f: &str| {
                a.child_by_field_name(f).map(|n| ctx.text(n))
                    == b.child_by_field_name(f).map(|n| ctx.text(n))
            };
            if !same("left") || !same("operator") {
                return None;
            }
            let lhs = a.child_by_field_name("left")?;
            if !matches!(lhs.kind(), "identifier" | "field_access") {
                return ctx.site(
                    Rule::IfToTernary,
                    &[node],
                    Err("the assigned place is not a plain variable or field".to_owned()),
                );
            }
            format!(
                "{} {} {cond_text} ? {} : {};",
                ctx.text(lhs),
                ctx.text(a.child_by_field_name("operator")?),
                operand(a.child_by_field_name("right")?),
                operand(b.child_by_field_name("right")?)
            )
        }
        _ => return None,
    };
    if ctx.has_comment(node) {
        return ctx.site(
            Rule::IfToTernary,
            &[node],
            Err("a comment inside the if would be lost".to_owned()),
        );
    }
    ctx.site(
        Rule::IfToTernary,
        &[node],
        Ok(vec![TextEdit::new(node.byte_range(), text)]),
    )
}

/// How a switch's labels compare against the scrutinee.
#[derive(Clone, Copy, PartialEq, Eq)]
enum LabelKind {
    Int,
    Char,
    Str,
    Enum,
}

/// Old-style and arrow `switch` statements → if / else-if chains.
pub(super) fn switch_to_if(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "switch_expression" {
        return None;
    }
    let outcome = switch_to_if_edits(ctx, node);
    let mut site = ctx.site(Rule::SwitchToIf, &[node], outcome.map(|(e, _)| e));
    if let Some(site) = site.as_mut()
        && site.outcome.is_ok()
        && site.outcome.as_ref().is_ok_and(|e| {
            e.iter()
                .any(|x| x.replacement.contains(&temp_placeholder(0)))
        })
    {
        site.temps.push("selector".to_owned());
    }
    site
}

struct Branch {
    /// Conditions to `||` together; empty for `default`.
    labels: Vec<String>,
    is_default: bool,
    /// Statement text, already re-indented for the if body (empty for none).
    body: String,
}

fn switch_to_if_edits(ctx: &RuleCtx<'_>, node: Node<'_>) -> Result<(Vec<TextEdit>, ()), String> {
    let statement_position = in_block(node)
        || node
            .parent()
            .is_some_and(|p| p.kind() == "switch_block_statement_group");
    if !statement_position {
        return Err("the switch is not a statement of a block".to_owned());
    }
    let cond = node
        .child_by_field_name("condition")
        .ok_or("no condition")?;
    let body = node.child_by_field_name("body").ok_or("no body")?;
    let scrutinee = unparen(cond);
    let indent = ctx.indent(node);
    let unit = ctx.unit();
    let inner = format!("{indent}{unit}");
    let mut cursor = body.walk();
    let groups: Vec<Node<'_>> = body
        .named_children(&mut cursor)
        .filter(|n| !n.kind().ends_with("comment"))
        .collect();
    if groups.is_empty() {
        return Err("an empty switch".to_owned());
    }
    // Every break that leaves the switch from inside it, except a group's last statement, would
    // leave the enclosing loop after the rewrite.
    let breaks = jumps_to(ctx, body, node, "break_statement");
    let mut branches: Vec<Branch> = Vec::new();
    let mut pending_labels: Vec<Node<'_>> = Vec::new();
    let mut label_kind: Option<LabelKind> = None;
    let mut declared_by_group: Vec<(usize, Vec<String>)> = Vec::new();
    for (gi, group) in groups.iter().enumerate() {
        let mut c = group.walk();
        let children: Vec<Node<'_>> = group
            .named_children(&mut c)
            .filter(|n| !n.kind().ends_with("comment"))
            .collect();
        let labels: Vec<Node<'_>> = children
            .iter()
            .copied()
            .filter(|n| n.kind() == "switch_label")
            .collect();
        let stmts: Vec<Node<'_>> = children
            .iter()
            .copied()
            .filter(|n| n.kind() != "switch_label")
            .collect();
        pending_labels.extend(labels);
        let (body_text, stmt_nodes) = if group.kind() == "switch_rule" {
            let b = *stmts.last().ok_or("a switch rule without a body")?;
            let text = match b.kind() {
                "block" => reindent_rest(ctx.text(b), &ctx.indent(*group), &indent),
                _ => format!("{{\n{inner}{}\n{indent}}}", ctx.text(b)),
            };
            (text, vec![b])
        } else {
            if stmts.is_empty() {
                if gi + 1 == groups.len() {
                    // Trailing labels with nothing after them: an empty branch.
                } else {
                    continue; // stacked labels: they join the next group's branch
                }
            }
            let mut kept = stmts.clone();
            if let Some(last) = kept.last() {
                let is_plain_break =
                    last.kind() == "break_statement" && last.named_child(0).is_none();
                if is_plain_break {
                    kept.pop();
                } else if gi + 1 < groups.len() {
                    match can_complete_normally(*last) {
                        Some(false) => {}
                        Some(true) => return Err("a case falls through into the next".to_owned()),
                        None => return Err("cannot tell whether a case falls through".to_owned()),
                    }
                }
            }
            let text = match (kept.first(), kept.last()) {
                (Some(first), Some(last)) => {
                    let raw = &ctx.src.text()[first.start_byte()..last.end_byte()];
                    let own = ctx.indent(*first);
                    format!(
                        "{{\n{inner}{}\n{indent}}}",
                        reindent_rest(raw, &own, &inner)
                    )
                }
                _ => format!("{{\n{indent}}}"),
            };
            (text, kept)
        };
        for b in &breaks {
            let is_last_of_group =
                group.kind() != "switch_rule" && stmts.last().is_some_and(|l| l.id() == b.id());
            let inside = stmt_nodes
                .iter()
                .any(|s| s.start_byte() <= b.start_byte() && b.end_byte() <= s.end_byte());
            if inside && !is_last_of_group {
                return Err("a `break` inside a case leaves the switch early".to_owned());
            }
        }
        let mut declared = Vec::new();
        for s in &stmt_nodes {
            if s.kind() == "local_variable_declaration" {
                let mut c = s.walk();
                for d in s.children_by_field_name("declarator", &mut c) {
                    if let Some(n) = d.child_by_field_name("name") {
                        declared.push(ctx.text(n).to_owned());
                    }
                }
            }
        }
        declared_by_group.push((gi, declared));
        let mut branch = Branch {
            labels: Vec::new(),
            is_default: false,
            body: body_text,
        };
        for label in pending_labels.drain(..) {
            let mut c = label.walk();
            let exprs: Vec<Node<'_>> = label.named_children(&mut c).collect();
            if exprs.is_empty() {
                branch.is_default = true;
                continue;
            }
            for e in exprs {
                let kind = match e.kind() {
                    "decimal_integer_literal"
                    | "hex_integer_literal"
                    | "octal_integer_literal"
                    | "binary_integer_literal" => LabelKind::Int,
                    "unary_expression"
                        if e.named_child(0)
                            .is_some_and(|o| o.kind().ends_with("integer_literal")) =>
                    {
                        LabelKind::Int
                    }
                    "character_literal" => LabelKind::Char,
                    "string_literal" => LabelKind::Str,
                    "identifier" if ctx.decls.declares(ctx.text(e), DeclKind::EnumConstant) => {
                        LabelKind::Enum
                    }
                    _ => {
                        return Err(format!(
                            "a case label `{}` this rule cannot compare",
                            ctx.text(e)
                        ));
                    }
                };
                if label_kind.is_some_and(|k| k != kind) {
                    return Err("case labels of mixed kinds".to_owned());
                }
                label_kind = Some(kind);
                branch.labels.push(ctx.text(e).to_owned());
            }
        }
        branches.push(branch);
    }
    // A local declared at a group's top level is in scope in the later groups too.
    for (gi, names) in &declared_by_group {
        for other in groups.iter().skip(gi + 1) {
            if names
                .iter()
                .any(|n| descendants(*other).any(|x| x.kind() == "identifier" && ctx.text(x) == n))
            {
                return Err("a local declared in one case is used in another".to_owned());
            }
        }
    }
    let kind = label_kind.ok_or("a switch with only a default")?;
    let enum_type = if kind == LabelKind::Enum {
        let constant = branches
            .iter()
            .flat_map(|b| b.labels.first())
            .next()
            .ok_or("no labels")?;
        let owners: Vec<&str> = ctx
            .decls
            .declarations(constant)
            .iter()
            .filter(|d| d.kind == DeclKind::EnumConstant)
            .map(|d| d.owner.as_str())
            .collect();
        match owners.as_slice() {
            [one] => Some(qualified_type(ctx, one)),
            _ => return Err(format!("cannot tell which enum declares `{constant}`")),
        }
    } else {
        None
    };
    let simple = matches!(scrutinee.kind(), "identifier")
        || (scrutinee.kind() == "field_access"
            && scrutinee
                .child_by_field_name("object")
                .is_some_and(|o| o.kind() == "this"));
    let mut prefix = String::new();
    let subject = if simple {
        ctx.text(scrutinee).to_owned()
    } else {
        let ty = if ctx.java_version >= 10 {
            "var".to_owned()
        } else {
            match kind {
                LabelKind::Int => "int".to_owned(),
                LabelKind::Char => "char".to_owned(),
                LabelKind::Str => "String".to_owned(),
                LabelKind::Enum => enum_type.clone().unwrap_or_default(),
            }
        };
        let t = temp_placeholder(0);
        prefix = format!("final {ty} {t} = {};\n{indent}", ctx.text(scrutinee));
        t
    };
    let compare = |label: &str| match kind {
        LabelKind::Int | LabelKind::Char => format!("{subject} == {label}"),
        LabelKind::Str => format!("{subject}.equals({label})"),
        LabelKind::Enum => format!(
            "{subject}.equals({}.{label})",
            enum_type.as_deref().unwrap_or_default()
        ),
    };
    let mut chain = String::new();
    let mut default_body = None;
    for b in &branches {
        if b.is_default {
            default_body = Some(b.body.clone());
            continue;
        }
        let conds: Vec<String> = b.labels.iter().map(|l| compare(l)).collect();
        if !chain.is_empty() {
            chain.push_str(" else ");
        }
        chain.push_str(&format!("if ({}) {}", conds.join(" || "), b.body));
    }
    if chain.is_empty() {
        return Err("a switch with only a default".to_owned());
    }
    if let Some(d) = default_body {
        chain.push_str(&format!(" else {d}"));
    }
    if label_of(ctx, node).is_some() {
        return Err("a labeled switch".to_owned());
    }
    Ok((
        vec![TextEdit::new(node.byte_range(), format!("{prefix}{chain}"))],
        (),
    ))
}

/// The name to use for a project type from inside the target method (qualified by its owner when
/// nested).
fn qualified_type(ctx: &RuleCtx<'_>, name: &str) -> String {
    let owner = ctx
        .decls
        .declarations(name)
        .iter()
        .find(|d| d.kind == DeclKind::Type)
        .map(|d| d.owner.clone())
        .unwrap_or_default();
    if owner.is_empty() {
        name.to_owned()
    } else {
        format!("{owner}.{name}")
    }
}

/// `if (x == 1) A else if (x == 2) B else C` → `switch (x) { case 1: … }` for int/char/String locals.
pub(super) fn if_to_switch(ctx: &RuleCtx<'_>, node: Node<'_>) -> Option<Site> {
    if node.kind() != "if_statement" {
        return None;
    }
    // Only the head of a chain.
    if node.parent().is_some_and(|p| p.kind() == "if_statement") {
        return None;
    }
    let mut arms: Vec<(Vec<String>, Node<'_>)> = Vec::new();
    let mut subject: Option<String> = None;
    let mut is_string = false;
    let mut cur = node;
    let mut default = None;
    loop {
        let cond = unparen(cur.child_by_field_name("condition")?);
        let mut labels = Vec::new();
        collect_switch_labels(ctx, cond, &mut labels, &mut subject, &mut is_string)?;
        arms.push((labels, cur.child_by_field_name("consequence")?));
        match cur.child_by_field_name("alternative") {
            Some(a) if a.kind() == "if_statement" => cur = a,
            Some(a) => {
                default = Some(a);
                break;
            }
            None => break,
        }
    }
    if arms.len() < 2 {
        return None;
    }
    let subject = subject?;
    let outcome = (|| {
        // The subject must be a local or parameter of a type `switch` accepts.
        let ident = descendants(node)
            .find(|n| n.kind() == "identifier" && ctx.text(*n) == subject)
            .ok_or("no subject")?;
        let binding = ctx
            .res
            .binding_at(ident.start_byte())
            .ok_or("the compared name is not a local or parameter")?;
        let decl = ctx.res.bindings[binding].decl.clone();
        let decl_node = ctx
            .src
            .root()
            .descendant_for_byte_range(decl.start, decl.end)
            .and_then(|n| n.parent())
            .ok_or("no declaration")?;
        let ty_node = decl_node
            .child_by_field_name("type")
            .or_else(|| {
                decl_node
                    .parent()
                    .and_then(|p| p.child_by_field_name("type"))
            })
            .ok_or("cannot tell the compared variable's type")?;
        let ty = ctx.text(ty_node);
        let ok = if is_string {
            ty == "String"
        } else {
            matches!(
                ty,
                "int" | "char" | "short" | "byte" | "Integer" | "Character"
            )
        };
        if !ok {
            return Err(format!("`switch` cannot take a `{ty}` compared this way"));
        }
        let mut seen = std::collections::BTreeSet::new();
        for (labels, _) in &arms {
            for l in labels {
                if !seen.insert(l.clone()) {
                    return Err("a value is tested twice".to_owned());
                }
            }
        }
        let indent = ctx.indent(node);
        let unit = ctx.unit();
        let case_indent = format!("{indent}{unit}");
        let body_indent = format!("{case_indent}{unit}");
        let mut text = format!("switch ({subject}) {{\n");
        let mut all: Vec<(Option<Vec<String>>, Node<'_>)> =
            arms.iter().map(|(l, b)| (Some(l.clone()), *b)).collect();
        if let Some(d) = default {
            all.push((None, d));
        }
        for (labels, body) in all {
            if !jumps_to_outside_breaks(ctx, body).is_empty() {
                return Err("a `break` in a branch would leave the switch instead".to_owned());
            }
            let completes = can_complete_normally(body)
                .ok_or("cannot tell whether a branch completes normally")?;
            let head = match labels {
                Some(ls) => ls
                    .iter()
                    .map(|l| format!("case {l}:"))
                    .collect::<Vec<_>>()
                    .join(" "),
                None => "default:".to_owned(),
            };
            let stmts = match body.kind() {
                "block" => {
                    let raw = ctx.text(body);
                    let inner = raw[1..raw.len() - 1].trim_matches(|c| c == ' ' || c == '\t');
                    let inner = inner.trim_end().trim_start_matches('\n');
                    let first_indent = inner.len() - inner.trim_start().len();
                    let own = &inner[..first_indent];
                    reindent_rest(&format!("\n{}", inner), own, &body_indent)
                }
                _ => format!("\n{body_indent}{}", ctx.text(body)),
            };
            let brk = if completes {
                format!("\n{body_indent}break;")
            } else {
                String::new()
            };
            text.push_str(&format!(
                "{case_indent}{head} {{{stmts}{brk}\n{case_indent}}}\n"
            ));
        }
        text.push_str(&format!("{indent}}}"));
        Ok(vec![TextEdit::new(node.byte_range(), text)])
    })();
    ctx.site(Rule::IfToSwitch, &[node], outcome)
}

/// Unlabeled breaks under `node` that leave a loop enclosing `node` (they would leave the new switch).
fn jumps_to_outside_breaks<'a>(_ctx: &RuleCtx<'a>, node: Node<'a>) -> Vec<Node<'a>> {
    descendants(node)
        .filter(|n| n.kind() == "break_statement" && n.named_child(0).is_none())
        .filter(|n| {
            jump_target(*n, false).is_none_or(|t| {
                !(node.start_byte() <= t.start_byte() && t.end_byte() <= node.end_byte())
            })
        })
        .collect()
}

fn collect_switch_labels(
    ctx: &RuleCtx<'_>,
    cond: Node<'_>,
    labels: &mut Vec<String>,
    subject: &mut Option<String>,
    is_string: &mut bool,
) -> Option<()> {
    let cond = unparen(cond);
    let mut set_subject = |s: &str, string: bool| -> Option<()> {
        match subject {
            Some(prev) if prev != s || *is_string != string => None,
            _ => {
                *subject = Some(s.to_owned());
                *is_string = string;
                Some(())
            }
        }
    };
    match cond.kind() {
        "binary_expression" => {
            let op = ctx.text(cond.child_by_field_name("operator")?);
            let l = cond.child_by_field_name("left")?;
            let r = cond.child_by_field_name("right")?;
            match op {
                "||" => {
                    collect_switch_labels(ctx, l, labels, subject, is_string)?;
                    collect_switch_labels(ctx, r, labels, subject, is_string)
                }
                "==" => {
                    let is_lit = |n: Node<'_>| {
                        matches!(
                            n.kind(),
                            "decimal_integer_literal" | "hex_integer_literal" | "character_literal"
                        )
                    };
                    let (var, lit) = if l.kind() == "identifier" && is_lit(r) {
                        (l, r)
                    } else if r.kind() == "identifier" && is_lit(l) {
                        (r, l)
                    } else {
                        return None;
                    };
                    set_subject(ctx.text(var), false)?;
                    labels.push(ctx.text(lit).to_owned());
                    Some(())
                }
                _ => None,
            }
        }
        "method_invocation" => {
            // x.equals("lit"): the NullPointerException on a null x happens in both forms.
            let object = cond.child_by_field_name("object")?;
            let name = ctx.text(cond.child_by_field_name("name")?);
            let args = cond.child_by_field_name("arguments")?;
            if name != "equals" || object.kind() != "identifier" || args.named_child_count() != 1 {
                return None;
            }
            let arg = args.named_child(0)?;
            if arg.kind() != "string_literal" {
                return None;
            }
            set_subject(ctx.text(object), true)?;
            labels.push(ctx.text(arg).to_owned());
            Some(())
        }
        _ => None,
    }
}
