//! A deterministic, template-based repair baseline: classic fix templates (statement deletion,
//! `while`→`if`, boolean flip, null and bounds guards, path normalization, canonical files, comparison
//! tightening) applied to the marked lines, so users see where non-neural repair stands. It reads the
//! vulnerable method, not the prompt, and answers each candidate as a fenced method, which every chat
//! format's extraction takes as a whole method.

use std::time::Duration;

use avrlab_prompt::VulnerableMethod;

use crate::model::{FinishReason, Generation, Model, ModelError, Request};

/// One fix template.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FixTemplate {
    /// Delete a buggy statement.
    DeleteStatement,
    /// Turn a `while` loop into an `if` (an unbounded loop, CWE-835).
    WhileToIf,
    /// Flip the first boolean literal (`true` ↔ `false`), e.g. a security flag.
    FlipBoolean,
    /// Throw before dereferencing a receiver that may be null (CWE-476).
    NullGuard,
    /// Throw before indexing an array out of bounds (CWE-125/787).
    BoundsGuard,
    /// Append `.normalize()` to a `Path` built by `resolve`/`Paths.get`/`Path.of` (CWE-22).
    NormalizePath,
    /// Append `.getCanonicalFile()` to a `new File(…)` (CWE-22).
    CanonicalFile,
    /// Turn `<=` into `<` (an off-by-one, CWE-193).
    TightenComparison,
}

impl FixTemplate {
    /// Every template, in the order candidates are produced.
    pub const ALL: [FixTemplate; 8] = [
        FixTemplate::NormalizePath,
        FixTemplate::CanonicalFile,
        FixTemplate::NullGuard,
        FixTemplate::BoundsGuard,
        FixTemplate::WhileToIf,
        FixTemplate::TightenComparison,
        FixTemplate::FlipBoolean,
        FixTemplate::DeleteStatement,
    ];

    /// The lines replacing `line`, or `None` where the template does not apply.
    fn apply(self, line: &str) -> Option<Vec<String>> {
        let indent = &line[..line.len() - line.trim_start().len()];
        let code = line.trim();
        match self {
            Self::DeleteStatement => {
                let deletable =
                    code.ends_with(';') && !code.starts_with("return") && !code.starts_with('}');
                deletable.then(Vec::new)
            }
            Self::WhileToIf => find_word(line, "while")
                .map(|at| vec![format!("{}if{}", &line[..at], &line[at + 5..])]),
            Self::FlipBoolean => {
                let t = find_word(line, "true").map(|at| (at, "true", "false"));
                let f = find_word(line, "false").map(|at| (at, "false", "true"));
                let (at, from, to) = match (t, f) {
                    (Some(a), Some(b)) => {
                        if a.0 < b.0 {
                            a
                        } else {
                            b
                        }
                    }
                    (a, b) => a.or(b)?,
                };
                Some(vec![format!(
                    "{}{}{}",
                    &line[..at],
                    to,
                    &line[at + from.len()..]
                )])
            }
            Self::NullGuard => {
                let receiver = first_receiver(line)?;
                Some(vec![
                    format!("{indent}if ({receiver} == null) {{"),
                    format!(
                        "{indent}    throw new IllegalArgumentException(\"{receiver} must not be null\");"
                    ),
                    format!("{indent}}}"),
                    line.to_owned(),
                ])
            }
            Self::BoundsGuard => {
                let (array, index) = first_index_expression(line)?;
                Some(vec![
                    format!("{indent}if ({index} < 0 || {index} >= {array}.length) {{"),
                    format!(
                        "{indent}    throw new IndexOutOfBoundsException(\"{index} out of bounds\");"
                    ),
                    format!("{indent}}}"),
                    line.to_owned(),
                ])
            }
            Self::NormalizePath => {
                let call = [".resolve(", "Paths.get(", "Path.of("]
                    .iter()
                    .find_map(|c| line.find(c).map(|at| at + c.len() - 1))?;
                let close = closing_paren(line, call)?;
                (!line[close + 1..].starts_with(".normalize()")).then(|| {
                    vec![format!(
                        "{}.normalize(){}",
                        &line[..=close],
                        &line[close + 1..]
                    )]
                })
            }
            Self::CanonicalFile => {
                let call = line.find("new File(")? + "new File".len();
                let close = closing_paren(line, call)?;
                (!line[close + 1..].starts_with(".getCanonicalFile()")).then(|| {
                    vec![format!(
                        "{}.getCanonicalFile(){}",
                        &line[..=close],
                        &line[close + 1..]
                    )]
                })
            }
            Self::TightenComparison => line
                .find("<=")
                .map(|at| vec![format!("{}<{}", &line[..at], &line[at + 2..])]),
        }
    }
}

fn is_word(c: char) -> bool {
    c.is_alphanumeric() || c == '_' || c == '$'
}

/// The byte offset of `word` standing alone (not part of a longer identifier).
fn find_word(line: &str, word: &str) -> Option<usize> {
    line.match_indices(word)
        .map(|(at, _)| at)
        .find(|&at| !line[..at].ends_with(is_word) && !line[at + word.len()..].starts_with(is_word))
}

/// The index of the `)` matching the `(` at `open`.
fn closing_paren(line: &str, open: usize) -> Option<usize> {
    let mut depth = 0;
    for (i, c) in line[open..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(open + i);
                }
            }
            _ => {}
        }
    }
    None
}

/// The identifiers of `line` with their byte offsets, outside string literals.
fn identifiers(line: &str) -> Vec<(usize, &str)> {
    let mut found = Vec::new();
    let mut in_string = false;
    let mut start = None;
    for (i, c) in line
        .char_indices()
        .chain(std::iter::once((line.len(), ' ')))
    {
        if c == '"' {
            in_string = !in_string;
        }
        match (start, is_word(c) && !in_string) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                found.push((s, &line[s..i]));
                start = None;
            }
            _ => {}
        }
    }
    found
}

/// The first local-looking identifier dereferenced with `.`: lowercase initial (not a class), not a
/// keyword, and not itself a member (`a.b.c` yields `a`).
fn first_receiver(line: &str) -> Option<&str> {
    identifiers(line).into_iter().find_map(|(at, name)| {
        let follows_dot = line[..at].trim_end().ends_with('.');
        let dereferenced = line[at + name.len()..].starts_with('.');
        let local = name.starts_with(|c: char| c.is_lowercase())
            && !matches!(name, "this" | "super" | "new" | "return" | "throw");
        (dereferenced && !follows_dot && local).then_some(name)
    })
}

/// The first `array[index]` with a non-empty, simple index expression.
fn first_index_expression(line: &str) -> Option<(&str, &str)> {
    identifiers(line).into_iter().find_map(|(at, name)| {
        let rest = &line[at + name.len()..];
        let inner = rest.strip_prefix('[')?;
        let close = inner.find(']')?;
        let index = inner[..close].trim();
        let simple = !index.is_empty() && index.chars().all(|c| is_word(c) || " +-*".contains(c));
        (simple && !line[..at].trim_end().ends_with("new")).then_some((name, index))
    })
}

/// The candidate methods of every template on every marked line, in a fixed order, without
/// duplicates. Replaced lines are edited; for an insertion, the line it precedes is.
pub fn baseline_candidates(method: &VulnerableMethod) -> Vec<(FixTemplate, String)> {
    let lines = method.lines();
    let mut targets: Vec<usize> = Vec::new();
    for hunk in &method.buggy_lines {
        let first = hunk.start.saturating_sub(method.method_start_line) as usize;
        let last = if hunk.is_insertion() {
            first
        } else {
            (hunk.end - method.method_start_line) as usize
        };
        for index in first..=last.min(lines.len().saturating_sub(1)) {
            if !targets.contains(&index) {
                targets.push(index);
            }
        }
    }
    let mut candidates: Vec<(FixTemplate, String)> = Vec::new();
    for template in FixTemplate::ALL {
        for &index in &targets {
            let Some(replacement) = template.apply(lines[index]) else {
                continue;
            };
            let mut text = String::with_capacity(method.source.len() + 128);
            for (i, line) in lines.iter().enumerate() {
                if i == index {
                    for new_line in &replacement {
                        text.push_str(new_line);
                        text.push('\n');
                    }
                } else {
                    text.push_str(line);
                    text.push('\n');
                }
            }
            if text != method.source && !candidates.iter().any(|(_, known)| *known == text) {
                candidates.push((template, text));
            }
        }
    }
    candidates
}

/// The template baseline as a [`Model`].
#[derive(Debug, Clone, Copy, Default)]
pub struct BaselineModel;

impl Model for BaselineModel {
    fn cache_identity(&self) -> String {
        "baseline|templates-v1".to_owned()
    }

    /// Candidates `first_sample ..` (at most n), each answered as a fenced Java method; fewer when
    /// the templates run out.
    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let method = request
            .method
            .ok_or(ModelError::MethodRequired("the template baseline"))?;
        Ok(baseline_candidates(method)
            .into_iter()
            .skip(request.first_sample as usize)
            .take(request.params.n as usize)
            .map(|(_, text)| Generation {
                text: format!("```java\n{text}```\n"),
                finish_reason: FinishReason::Stop,
                tokens_in: None,
                tokens_out: None,
                cost_usd: None,
                latency: Duration::ZERO,
                cached: false,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Each template on a line it fits, and one it does not: `(template, line, expected lines)`.
    #[test]
    fn templates_rewrite_the_line() {
        let cases: &[(FixTemplate, &str, Option<&[&str]>)] = &[
            (FixTemplate::DeleteStatement, "    a.run();", Some(&[])),
            (FixTemplate::DeleteStatement, "    return a;", None),
            (
                FixTemplate::WhileToIf,
                "    while (i < n) {",
                Some(&["    if (i < n) {"]),
            ),
            (FixTemplate::WhileToIf, "    awhile(x);", None),
            (
                FixTemplate::FlipBoolean,
                "    f.setX(true, false);",
                Some(&["    f.setX(false, false);"]),
            ),
            (
                FixTemplate::NullGuard,
                "    String s = user.getName().trim();",
                Some(&[
                    "    if (user == null) {",
                    "        throw new IllegalArgumentException(\"user must not be null\");",
                    "    }",
                    "    String s = user.getName().trim();",
                ]),
            ),
            (FixTemplate::NullGuard, "    Foo.bar();", None),
            (
                FixTemplate::BoundsGuard,
                "    x = buf[i + 1];",
                Some(&[
                    "    if (i + 1 < 0 || i + 1 >= buf.length) {",
                    "        throw new IndexOutOfBoundsException(\"i + 1 out of bounds\");",
                    "    }",
                    "    x = buf[i + 1];",
                ]),
            ),
            (FixTemplate::BoundsGuard, "    int[] a = new int[n];", None),
            (
                FixTemplate::NormalizePath,
                "    Path p = root.resolve(f(name));",
                Some(&["    Path p = root.resolve(f(name)).normalize();"]),
            ),
            (
                FixTemplate::NormalizePath,
                "    Path p = root.resolve(name).normalize();",
                None,
            ),
            (
                FixTemplate::CanonicalFile,
                "    File f = new File(dir, name);",
                Some(&["    File f = new File(dir, name).getCanonicalFile();"]),
            ),
            (
                FixTemplate::TightenComparison,
                "    for (i = 0; i <= n; i++) {",
                Some(&["    for (i = 0; i < n; i++) {"]),
            ),
        ];
        for (template, line, expected) in cases {
            let got = template.apply(line);
            let expected =
                expected.map(|lines| lines.iter().map(|l| (*l).to_owned()).collect::<Vec<_>>());
            assert_eq!(got, expected, "{template:?} on {line:?}");
        }
    }
}
