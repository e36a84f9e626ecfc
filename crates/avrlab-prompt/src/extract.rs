//! From a model's raw answer to a candidate: a whole new method, or a unified diff. Answers come as
//! fenced code blocks, whole methods (possibly inside a class), hunk replacements (the text of the
//! masked span, rebuilt into a method with the prompt's [`Frame`]), or diffs. An answer with no usable
//! code is a result ([`NoCandidate`]) to store, not an infrastructure error.

use serde::{Deserialize, Serialize};

use crate::format::{Format, MaskModel};
use crate::java_scan::{Region, end_of_block, scan};
use crate::render::{Frame, RenderedPrompt};

/// A candidate patch.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", content = "text", rename_all = "lowercase")]
pub enum Candidate {
    /// The full new text of the vulnerable method, to replace the original method.
    Method(String),
    /// A unified diff as the model wrote it, to apply to the project.
    Diff(String),
}

/// Why an answer yields no candidate; stored like any other outcome.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize, thiserror::Error)]
pub enum NoCandidate {
    /// The answer was empty (or only whitespace / sentinel tokens).
    #[error("extract a candidate from an empty answer")]
    EmptyAnswer,
    /// The answer holds no code block, method or diff.
    #[error("extract a candidate: the answer holds no code")]
    NoCode,
    /// A prefix completion never closed the method.
    #[error("extract a candidate: the completion never closes the method")]
    UnclosedMethod,
}

impl Candidate {
    /// The candidate's text.
    pub fn text(&self) -> &str {
        match self {
            Self::Method(text) | Self::Diff(text) => text,
        }
    }
}

impl RenderedPrompt {
    /// Turns a raw answer to this prompt into a candidate.
    pub fn extract(&self, raw: &str) -> Result<Candidate, NoCandidate> {
        extract(self.format, &self.frame, raw)
    }
}

/// Turns a raw answer to a prompt of `format` into a candidate, rebuilding partial answers with
/// `frame`.
pub fn extract(format: Format, frame: &Frame, raw: &str) -> Result<Candidate, NoCandidate> {
    match format {
        Format::Chat(_) => extract_chat(frame, raw),
        Format::Prefix => {
            let completion = cut_at_stops(format, raw);
            if completion.trim().is_empty() {
                return Err(NoCandidate::EmptyAnswer);
            }
            let method = format!("{}{}", frame.before, completion);
            // Counting from the method's first line, the brace that returns to depth 0 closes it.
            let end = end_of_block(&method, 0).ok_or(NoCandidate::UnclosedMethod)?;
            Ok(Candidate::Method(format!("{}\n", &method[..end])))
        }
        Format::Mask(MaskModel::Plbart) => {
            // PLBART denoises the whole input, so its answer is normally the whole method.
            let completion = cut_at_stops(format, raw);
            match find_method(completion, &frame.method_name) {
                Some(method) => Ok(Candidate::Method(method)),
                None => Ok(Candidate::Method(reassemble(frame, completion))),
            }
        }
        _ => {
            // A hole format: the answer replaces the span. An empty answer deletes the span, which
            // is a legitimate repair (statement deletion), so it is a candidate too.
            let completion = cut_at_stops(format, raw);
            Ok(Candidate::Method(reassemble(frame, completion)))
        }
    }
}

/// The answer up to the first stop sequence, without the sentinels a model may echo first.
fn cut_at_stops(format: Format, raw: &str) -> &str {
    let mut text = raw;
    loop {
        let trimmed = text.trim_start();
        match format
            .leading_sentinels()
            .iter()
            .find(|s| trimmed.starts_with(*s))
        {
            // The space after a sentinel is a tokenizer artifact, not indentation.
            Some(sentinel) => text = trimmed[sentinel.len()..].trim_start_matches(' '),
            None => break,
        }
    }
    let end = format
        .stop_sequences()
        .iter()
        .filter_map(|stop| text.find(stop))
        .min();
    &text[..end.unwrap_or(text.len())]
}

/// `before + replacement + after`, giving the replacement the span's indentation if its first line
/// has none and a final newline if it lacks one.
fn reassemble(frame: &Frame, replacement: &str) -> String {
    // Leading blank lines are layout; trailing whitespace too.
    let replacement = replacement.trim_end();
    let replacement = replacement.trim_start_matches(['\n', '\r']);
    let mut method =
        String::with_capacity(frame.before.len() + replacement.len() + frame.after.len() + 8);
    method.push_str(&frame.before);
    if !replacement.is_empty() {
        if !replacement.starts_with([' ', '\t']) {
            method.push_str(&frame.indent);
        }
        method.push_str(replacement);
        method.push('\n');
    }
    method.push_str(&frame.after);
    method
}

/// The fenced code blocks of a Markdown answer, in order.
fn fenced_blocks(raw: &str) -> Vec<String> {
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in raw.lines() {
        if line.trim_start().starts_with("```") {
            match current.take() {
                Some(block) => blocks.push(block),
                None => current = Some(String::new()),
            }
        } else if let Some(block) = current.as_mut() {
            block.push_str(line);
            block.push('\n');
        }
    }
    // An answer cut by max_tokens leaves its last block open; keep what arrived.
    if let Some(block) = current {
        blocks.push(block);
    }
    blocks
}

fn is_diff(text: &str) -> bool {
    let mut has_hunk = false;
    let mut has_header = false;
    for line in text.lines() {
        has_hunk |= line.starts_with("@@ ");
        has_header |=
            line.starts_with("--- ") || line.starts_with("+++ ") || line.starts_with("diff --git");
    }
    has_hunk && has_header
}

/// The declaration of `name` in `text`, from its annotations through its closing brace, if `text`
/// holds one (alone, or inside a class).
fn find_method(text: &str, name: &str) -> Option<String> {
    let mut code_only = String::with_capacity(text.len());
    scan(text, |_, c, region| {
        code_only.push(if region == Region::Code || c == '\n' {
            c
        } else {
            ' '
        })
    });
    let mut offset = 0;
    let mut previous_lines: Vec<usize> = Vec::new();
    for line in code_only.split_inclusive('\n') {
        let start = offset;
        offset += line.len();
        if is_declaration_of(line, name) {
            // Take the annotations right above the declaration with it.
            let mut decl_start = start;
            for &line_start in previous_lines.iter().rev() {
                if code_only[line_start..decl_start]
                    .trim_start()
                    .starts_with('@')
                {
                    decl_start = line_start;
                } else {
                    break;
                }
            }
            let end = end_of_block(&text[start..], 0)? + start;
            let method = &text[decl_start..end];
            return Some(format!("{}\n", method.trim_start_matches(['\n', '\r'])));
        }
        previous_lines.push(start);
    }
    None
}

/// Whether `line` (code only) declares a method or constructor called `name`: the name is followed by
/// `(`, and what precedes it is declaration-like (types and modifiers, no `=`, `.`, `return`, `new`).
fn is_declaration_of(line: &str, name: &str) -> bool {
    let Some(at) = line
        .find(&format!("{name}("))
        .or_else(|| line.find(&format!("{name} (")))
    else {
        return false;
    };
    let head = line[..at].trim();
    if head.is_empty() {
        // `name(` alone at the start of a line is a call, unless it is a constructor's body…
        return false;
    }
    let word_boundary =
        !line[..at].ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$');
    word_boundary
        && !head.contains(['=', '.', '(', ';', '"', '!', '&', '|', '+'])
        && !head
            .split_whitespace()
            .any(|w| matches!(w, "return" | "new" | "throw" | "if" | "while"))
}

fn extract_chat(frame: &Frame, raw: &str) -> Result<Candidate, NoCandidate> {
    if raw.trim().is_empty() {
        return Err(NoCandidate::EmptyAnswer);
    }
    let blocks = fenced_blocks(raw);
    if let Some(diff) = blocks.iter().find(|b| is_diff(b)) {
        return Ok(Candidate::Diff(diff.clone()));
    }
    for block in &blocks {
        if let Some(method) = find_method(block, &frame.method_name) {
            return Ok(Candidate::Method(method));
        }
    }
    if blocks.is_empty() {
        // No fences: the answer may be bare code or a bare diff.
        if is_diff(raw) {
            return Ok(Candidate::Diff(raw.to_owned()));
        }
        if let Some(method) = find_method(raw, &frame.method_name) {
            return Ok(Candidate::Method(method));
        }
        return Err(NoCandidate::NoCode);
    }
    // A block that is neither a diff nor the method replaces the marked lines.
    match blocks.iter().find(|b| !b.trim().is_empty()) {
        Some(hunk) => Ok(Candidate::Method(reassemble(frame, hunk))),
        None => Err(NoCandidate::NoCode),
    }
}
