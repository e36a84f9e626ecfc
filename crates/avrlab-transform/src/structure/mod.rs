//! Structure rules: each finds its sites in one method and proposes text edits, or says why not.
//!
//! A rule never edits the text itself. It returns [`Site`]s: where it could apply (anchored on the
//! nodes it rewrites, so the same site can be found again in the fixed version of the file), the edits,
//! or the reason it declines. Fresh temporaries are written as placeholders and named by the caller once
//! it knows which sites it keeps, so that the vulnerable and the fixed file get the same names.

mod control;
mod foreach;
mod statements;

use std::ops::Range;

use avrlab_java::{DeclarationTable, JavaSource, Node, TextEdit, apply_edits};

use crate::Rule;
use crate::scope::Resolution;

/// Where a site is: the kind and start of a node it rewrites.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) struct Anchor {
    pub kind: &'static str,
    pub line: usize,
    pub column: usize,
}

/// One place a rule could apply.
#[derive(Debug, Clone)]
pub(crate) struct Site {
    pub rule: Rule,
    /// Nodes the rewrite depends on; all must be found again in the fixed file.
    pub anchors: Vec<Anchor>,
    /// 1-based line of the first anchor.
    pub line: usize,
    /// Bytes the rewrite reads or writes; sites with overlapping extents never combine.
    pub extent: Range<usize>,
    /// The edits, or why the rule declines here.
    pub outcome: Result<Vec<TextEdit>, String>,
    /// Base names of the fresh temporaries the edits mention as `temp_placeholder(i)`.
    pub temps: Vec<String>,
}

/// What a rule sees.
#[derive(Debug, Clone, Copy)]
pub(crate) struct RuleCtx<'a> {
    pub src: &'a JavaSource,
    pub method: Node<'a>,
    pub java_version: u32,
    pub decls: &'a DeclarationTable,
    pub res: &'a Resolution,
}

/// The text standing for fresh temporary `i` until it is named.
pub(crate) fn temp_placeholder(i: usize) -> String {
    format!("\u{1}{i}\u{1}")
}

/// Runs one rule over the method.
pub(crate) fn find_sites(rule: Rule, ctx: &RuleCtx<'_>) -> Vec<Site> {
    let mut out = Vec::new();
    for node in descendants(ctx.method) {
        let site = match rule {
            Rule::IfFlip => control::if_flip(ctx, node),
            Rule::ForToWhile => control::for_to_while(ctx, node),
            Rule::WhileToFor => control::while_to_for(ctx, node),
            Rule::ForEachToFor => foreach::foreach_to_for(ctx, node),
            Rule::TernaryToIf => control::ternary_to_if(ctx, node),
            Rule::IfToTernary => control::if_to_ternary(ctx, node),
            Rule::SwitchToIf => control::switch_to_if(ctx, node),
            Rule::IfToSwitch => control::if_to_switch(ctx, node),
            Rule::CallChainSplit => statements::call_chain_split(ctx, node),
            Rule::CallChainMerge => statements::call_chain_merge(ctx, node),
            Rule::ArgumentExtract => statements::argument_extract(ctx, node),
            Rule::ArgumentInline => statements::argument_inline(ctx, node),
            Rule::StatementReorder => statements::statement_reorder(ctx, node),
            Rule::Rename => None,
        };
        out.extend(site);
    }
    out
}

impl RuleCtx<'_> {
    pub fn text(&self, node: Node<'_>) -> &str {
        self.src.node_text(node)
    }

    pub fn anchor(&self, node: Node<'_>) -> Anchor {
        let pos = node.start_position();
        Anchor {
            kind: node.kind(),
            line: pos.row + 1,
            column: pos.column + 1,
        }
    }

    pub fn site(
        &self,
        rule: Rule,
        anchors: &[Node<'_>],
        outcome: Result<Vec<TextEdit>, String>,
    ) -> Option<Site> {
        let first = anchors.first()?;
        let start = anchors.iter().map(|n| n.start_byte()).min()?;
        let end = anchors.iter().map(|n| n.end_byte()).max()?;
        Some(Site {
            rule,
            anchors: anchors.iter().map(|n| self.anchor(*n)).collect(),
            line: first.start_position().row + 1,
            extent: start..end,
            outcome,
            temps: Vec::new(),
        })
    }

    /// The indentation of the line a node starts on.
    pub fn indent(&self, node: Node<'_>) -> String {
        self.src
            .indentation_of_line(node.start_position().row + 1)
            .to_owned()
    }

    /// One level of indentation, as the method body uses it (four spaces when it cannot tell).
    pub fn unit(&self) -> String {
        let method_indent = self.indent(self.method);
        let body = self.method.child_by_field_name("body");
        let first = body.and_then(|b| b.named_child(0));
        match first {
            Some(stmt) if stmt.start_position().row != self.method.start_position().row => {
                let inner = self.indent(stmt);
                inner
                    .strip_prefix(&method_indent)
                    .filter(|u| !u.is_empty())
                    .unwrap_or("    ")
                    .to_owned()
            }
            _ => "    ".to_owned(),
        }
    }

    /// The text of `node` with `edits` (absolute byte ranges inside it) applied.
    pub fn rewrite_within(&self, node: Node<'_>, edits: &[TextEdit]) -> Result<String, String> {
        let base = node.start_byte();
        let local: Vec<TextEdit> = edits
            .iter()
            .map(|e| {
                TextEdit::new(
                    e.range.start - base..e.range.end - base,
                    e.replacement.clone(),
                )
            })
            .collect();
        apply_edits(self.text(node), &local)
            .map(|e| e.text)
            .map_err(|e| e.to_string())
    }

    /// Whether the method contains a comment inside `node` (rules that drop text decline then).
    pub fn has_comment(&self, node: Node<'_>) -> bool {
        descendants(node).any(|n| matches!(n.kind(), "line_comment" | "block_comment"))
    }

    /// Whether an identifier named `name` occurs in the method after byte `after`.
    pub fn name_used_after(&self, name: &str, after: usize) -> bool {
        descendants(self.method)
            .any(|n| n.kind() == "identifier" && n.start_byte() >= after && self.text(n) == name)
    }
}

/// All nodes under (and including) `node`, in document order.
pub(crate) fn descendants<'a>(node: Node<'a>) -> impl Iterator<Item = Node<'a>> {
    avrlab_java::preorder(node).map(|(n, _)| n)
}

/// Adds `extra` indentation to every line of `text` after the first.
pub(crate) fn indent_rest(text: &str, extra: &str) -> String {
    let mut out = String::with_capacity(text.len() + extra.len() * 4);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            if !line.trim().is_empty() {
                out.push_str(extra);
            }
        }
        out.push_str(line);
    }
    out
}

/// Replaces the indentation prefix `from` with `to` on every line of `text` after the first (lines
/// indented less than `from` keep their own indentation).
pub(crate) fn reindent_rest(text: &str, from: &str, to: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
            match line.strip_prefix(from) {
                Some(rest) if !line.trim().is_empty() => {
                    out.push_str(to);
                    out.push_str(rest);
                }
                _ => out.push_str(line),
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// Whether a statement can complete normally (JLS 14.22), or `None` when this simple analysis cannot
/// tell (loops, `try`, `switch`, labels).
pub(crate) fn can_complete_normally(node: Node<'_>) -> Option<bool> {
    match node.kind() {
        "return_statement" | "throw_statement" | "break_statement" | "continue_statement"
        | "yield_statement" => Some(false),
        "expression_statement"
        | "local_variable_declaration"
        | ";"
        | "empty_statement"
        | "assert_statement" => Some(true),
        "block" => {
            let mut cursor = node.walk();
            let stmts: Vec<Node<'_>> = node
                .named_children(&mut cursor)
                .filter(|n| !n.kind().ends_with("comment"))
                .collect();
            match stmts.last() {
                None => Some(true),
                Some(last) => {
                    // Every earlier statement must complete too, or the last is unreachable.
                    for s in &stmts[..stmts.len() - 1] {
                        if can_complete_normally(*s)? {
                            continue;
                        }
                        return Some(false);
                    }
                    can_complete_normally(*last)
                }
            }
        }
        // A loop whose condition is not the constant `true` exits when it turns false; a `break`
        // inside only makes it complete normally more often.
        "while_statement" | "for_statement" => {
            let cond = node.child_by_field_name("condition").map(unparen);
            match cond {
                Some(c) if c.kind() != "true" => Some(true),
                _ => None,
            }
        }
        "enhanced_for_statement" => Some(true),
        "if_statement" => match node.child_by_field_name("alternative") {
            None => Some(true),
            Some(alt) => {
                let cons = can_complete_normally(node.child_by_field_name("consequence")?)?;
                let alt = can_complete_normally(alt)?;
                Some(cons || alt)
            }
        },
        _ => None,
    }
}

/// The loop or switch an unlabeled `break`/`continue` at `node` targets (`None` when it leaves a lambda
/// or class body first, which cannot compile).
pub(crate) fn jump_target<'a>(node: Node<'a>, is_continue: bool) -> Option<Node<'a>> {
    let mut cur = node.parent();
    while let Some(n) = cur {
        match n.kind() {
            "for_statement" | "enhanced_for_statement" | "while_statement" | "do_statement" => {
                return Some(n);
            }
            "switch_expression" if !is_continue => return Some(n),
            "lambda_expression"
            | "class_body"
            | "method_declaration"
            | "constructor_declaration" => return None,
            _ => {}
        }
        cur = n.parent();
    }
    None
}

/// The label naming `stmt`, if `stmt` is the body of a labeled statement.
pub(crate) fn label_of<'a>(ctx: &RuleCtx<'a>, stmt: Node<'a>) -> Option<&'a str> {
    let parent = stmt.parent()?;
    if parent.kind() != "labeled_statement" {
        return None;
    }
    let label = parent.named_child(0)?;
    Some(ctx.src.node_text(label))
}

/// `break`/`continue` statements under `within` that jump to `target` (labeled or not).
pub(crate) fn jumps_to<'a>(
    ctx: &RuleCtx<'a>,
    within: Node<'a>,
    target: Node<'a>,
    kind: &str,
) -> Vec<Node<'a>> {
    let label = label_of(ctx, target);
    descendants(within)
        .filter(|n| n.kind() == kind)
        .filter(
            |n| match n.named_child(0).filter(|c| c.kind() == "identifier") {
                Some(l) => Some(ctx.text(l)) == label,
                None => jump_target(*n, kind == "continue_statement") == Some(target),
            },
        )
        .collect()
}

/// Whether `node` is a statement directly inside a block (so statements can be inserted before it).
pub(crate) fn in_block(node: Node<'_>) -> bool {
    node.parent().is_some_and(|p| p.kind() == "block")
}

/// Negates a condition (the inner expression of an `if`'s parentheses), simplifying `!x`, `==`, `!=`.
pub(crate) fn negate(ctx: &RuleCtx<'_>, expr: Node<'_>) -> String {
    match expr.kind() {
        "unary_expression"
            if expr.child_by_field_name("operator").map(|o| o.kind()) == Some("!") =>
        {
            let operand = expr
                .child_by_field_name("operand")
                .expect("unary has an operand");
            if operand.kind() == "parenthesized_expression" {
                operand
                    .named_child(0)
                    .map_or_else(|| ctx.text(operand).to_owned(), |i| ctx.text(i).to_owned())
            } else {
                ctx.text(operand).to_owned()
            }
        }
        "binary_expression" => {
            let op = expr.child_by_field_name("operator").map(|o| o.kind());
            let flipped = match op {
                Some("==") => Some("!="),
                Some("!=") => Some("=="),
                _ => None,
            };
            match flipped {
                Some(new_op) => {
                    let l = expr.child_by_field_name("left").expect("binary has left");
                    let r = expr.child_by_field_name("right").expect("binary has right");
                    let between = &ctx.src.text()[l.end_byte()..r.start_byte()];
                    format!(
                        "{}{}{}",
                        ctx.text(l),
                        between.replacen(op.unwrap_or_default(), new_op, 1),
                        ctx.text(r)
                    )
                }
                None => format!("!({})", ctx.text(expr)),
            }
        }
        "identifier"
        | "method_invocation"
        | "field_access"
        | "parenthesized_expression"
        | "true"
        | "false" => format!("!{}", ctx.text(expr)),
        _ => format!("!({})", ctx.text(expr)),
    }
}

/// The expression inside a `parenthesized_expression`.
pub(crate) fn unparen(node: Node<'_>) -> Node<'_> {
    let mut n = node;
    while n.kind() == "parenthesized_expression" {
        match n.named_child(0) {
            Some(inner) => n = inner,
            None => break,
        }
    }
    n
}

/// The statement's text wrapped as a block at indentation `indent`, unless it already is one.
pub(crate) fn as_block(ctx: &RuleCtx<'_>, stmt: Node<'_>, indent: &str, unit: &str) -> String {
    if stmt.kind() == "block" {
        ctx.text(stmt).to_owned()
    } else {
        let own = ctx.indent(stmt);
        let body = reindent_rest(ctx.text(stmt), &own, &format!("{indent}{unit}"));
        format!("{{\n{indent}{unit}{body}\n{indent}}}")
    }
}
