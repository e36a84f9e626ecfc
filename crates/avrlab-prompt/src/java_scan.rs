//! Just enough Java lexing for prompts: telling code from comments and literals, so that braces can be
//! counted (to cut a completion at the method's closing brace) and candidates can be normalized (to
//! compare a candidate with the reference fix up to layout). A full parse lives in `avrlab-java`; this crate stays dependency-free on purpose
//! because model output is often not a parseable compilation unit.

/// What a character of Java source belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Region {
    /// Ordinary code.
    Code,
    /// Inside `// …` or `/* … */`, delimiters included.
    Comment,
    /// Inside a string, text block or char literal, quotes included.
    Literal,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    Code,
    LineComment,
    BlockComment,
    String,
    TextBlock,
    Char,
}

/// Calls `visit(byte_offset, char, region)` for every character of `text`, in order.
pub(crate) fn scan(text: &str, mut visit: impl FnMut(usize, char, Region)) {
    let bytes = text.as_bytes();
    let mut state = State::Code;
    let mut chars = text.char_indices().peekable();
    // Characters still to be reported with the region of the token they open or close.
    let mut pending_same_region = 0usize;
    while let Some((i, c)) = chars.next() {
        if pending_same_region > 0 {
            pending_same_region -= 1;
            let region = match state {
                State::Code => Region::Code,
                State::LineComment | State::BlockComment => Region::Comment,
                _ => Region::Literal,
            };
            visit(i, c, region);
            continue;
        }
        let next = bytes.get(i + 1).copied();
        match state {
            State::Code => match (c, next) {
                ('/', Some(b'/')) => {
                    state = State::LineComment;
                    visit(i, c, Region::Comment);
                    pending_same_region = 1;
                }
                ('/', Some(b'*')) => {
                    state = State::BlockComment;
                    visit(i, c, Region::Comment);
                    pending_same_region = 1;
                }
                ('"', _) if text[i..].starts_with("\"\"\"") => {
                    state = State::TextBlock;
                    visit(i, c, Region::Literal);
                    pending_same_region = 2;
                }
                ('"', _) => {
                    state = State::String;
                    visit(i, c, Region::Literal);
                }
                ('\'', _) => {
                    state = State::Char;
                    visit(i, c, Region::Literal);
                }
                _ => visit(i, c, Region::Code),
            },
            State::LineComment => {
                if c == '\n' {
                    state = State::Code;
                    visit(i, c, Region::Code);
                } else {
                    visit(i, c, Region::Comment);
                }
            }
            State::BlockComment => {
                visit(i, c, Region::Comment);
                if c == '*' && next == Some(b'/') {
                    if let Some((j, slash)) = chars.next() {
                        visit(j, slash, Region::Comment);
                    }
                    state = State::Code;
                }
            }
            State::String | State::Char => {
                visit(i, c, Region::Literal);
                let quote = if state == State::String { '"' } else { '\'' };
                if c == '\\' {
                    if let Some((j, escaped)) = chars.next() {
                        visit(j, escaped, Region::Literal);
                    }
                } else if c == quote || c == '\n' {
                    // A newline ends an unterminated literal: model output may be broken, and one
                    // stray quote must not swallow the rest of the method.
                    state = State::Code;
                }
            }
            State::TextBlock => {
                visit(i, c, Region::Literal);
                if c == '\\' {
                    if let Some((j, escaped)) = chars.next() {
                        visit(j, escaped, Region::Literal);
                    }
                } else if text[i..].starts_with("\"\"\"") {
                    for _ in 0..2 {
                        if let Some((j, quote)) = chars.next() {
                            visit(j, quote, Region::Literal);
                        }
                    }
                    state = State::Code;
                }
            }
        }
    }
}

/// The net change of `{`/`}` nesting over `text`, counting code braces only; the tests use it to pin
/// down which braces count.
#[cfg(test)]
pub(crate) fn brace_delta(text: &str) -> i64 {
    let mut depth = 0i64;
    scan(text, |_, c, region| {
        if region == Region::Code {
            match c {
                '{' => depth += 1,
                '}' => depth -= 1,
                _ => {}
            }
        }
    });
    depth
}

/// The byte length of the shortest prefix of `text` after which the brace depth, starting from
/// `start_depth`, returns to zero — i.e. the end of the enclosing method; `None` if it never does.
pub(crate) fn end_of_block(text: &str, start_depth: i64) -> Option<usize> {
    let mut depth = start_depth;
    let mut end = None;
    scan(text, |i, c, region| {
        if end.is_none() && region == Region::Code {
            match c {
                '{' => depth += 1,
                '}' => {
                    depth -= 1;
                    if depth <= 0 {
                        end = Some(i + 1);
                    }
                }
                _ => {}
            }
        }
    });
    end
}

/// A form of `text` that ignores comments and layout: comments are dropped, whitespace in code is
/// removed except a single space where it separates two word characters (`int a` ≠ `inta`), and
/// literals are kept verbatim. Two candidates with the same key compile to the same code.
///
/// For comparing code up to layout (a candidate's method against the reference fix's); which
/// candidates share a verdict is decided on exact bytes instead (avrlab-validate's
/// `candidate_identity`), as layout is not always meaningless (text blocks, a build's checkstyle).
pub fn normalize(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut pending_space = false;
    scan(text, |_, c, region| match region {
        Region::Comment => pending_space = true,
        Region::Code if c.is_whitespace() => pending_space = true,
        _ => {
            if pending_space {
                let word = |ch: char| ch.is_alphanumeric() || ch == '_' || ch == '$';
                if out.chars().next_back().is_some_and(word) && word(c) {
                    out.push(' ');
                }
                pending_space = false;
            }
            out.push(c);
        }
    });
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn braces_in_strings_and_comments_do_not_count() {
        let cases = [
            ("{ }", 0),
            ("{ \"}\" ", 1),
            ("{ '}' ", 1),
            ("{ // }\n", 1),
            ("{ /* } */ ", 1),
            ("{ \"\"\"\n}\"\n\"\"\" ", 1),
            ("{ \"a\\\"}\" ", 1),
            ("}}", -2),
        ];
        for (text, expected) in cases {
            assert_eq!(brace_delta(text), expected, "{text:?}");
        }
    }

    #[test]
    fn finds_the_end_of_the_enclosing_block() {
        let text = "  x();\n  if (a) { y(\"}\"); }\n}\nint other() { }\n";
        let end = end_of_block(text, 1).unwrap();
        assert_eq!(&text[..end], "  x();\n  if (a) { y(\"}\"); }\n}");
        assert_eq!(end_of_block("{ x(); ", 1), None);
    }

    #[test]
    fn normalization_ignores_layout_and_comments_only() {
        let a = "if (x == null) {\n    return; // guard\n}\n";
        let b = "if(x==null){ /* guard */ return;}";
        assert_eq!(normalize(a), normalize(b));
        assert_eq!(normalize(a), "if(x==null){return;}");
        assert_ne!(normalize("int a;"), normalize("inta;"));
        assert_ne!(normalize("s = \"a b\";"), normalize("s = \"ab\";"));
    }
}
