//! A tiny logic-less template language for prompt files, parsed once and rendered many times.
//!
//! `{{name}}` inserts a variable; `{{#name}}…{{/name}}` keeps its body only when the variable is not
//! empty and `{{^name}}…{{/name}}` only when it is; `{{>suffix}}` marks where the prompt ends and the
//! suffix (for insertion-mode completion APIs) begins. A section tag alone on its line takes the line
//! with it, so templates read like the text they produce. Unknown variables are errors at parse time,
//! so a typo in a user's override is reported before any request is sent.

/// The variables a template may use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Var {
    /// Method lines before the buggy span.
    Before,
    /// The buggy span's lines (empty for an insertion).
    Buggy,
    /// The buggy span's lines, safe inside a `/* … */` comment.
    BuggyInComment,
    /// Method lines after the buggy span.
    After,
    /// The indentation of the buggy span's first line.
    Indent,
    /// The whole method, unmarked.
    Method,
    /// The method as the chat prompt shows it: with vulnerable-line markers when `markers` is set.
    Code,
    /// The method's name.
    MethodName,
    /// The file path.
    File,
    /// The class context, if any.
    ClassContext,
    /// Non-empty when the prompt shows line markers (P2, P4).
    Markers,
    /// The rendered CWE list, non-empty when the prompt names the vulnerability type (P3, P4).
    Cwe,
    /// In the marker templates: one source line.
    Line,
    /// In the CWE item template: the CWE number.
    CweId,
    /// In the CWE item template: the CWE name.
    CweName,
    /// In the CWE item template: the CWE description.
    CweDescription,
}

const VARS: [(&str, Var); 16] = [
    ("before", Var::Before),
    ("buggy", Var::Buggy),
    ("buggy_in_comment", Var::BuggyInComment),
    ("after", Var::After),
    ("indent", Var::Indent),
    ("method", Var::Method),
    ("code", Var::Code),
    ("method_name", Var::MethodName),
    ("file", Var::File),
    ("class_context", Var::ClassContext),
    ("markers", Var::Markers),
    ("cwe", Var::Cwe),
    ("line", Var::Line),
    ("cwe_id", Var::CweId),
    ("cwe_name", Var::CweName),
    ("cwe_description", Var::CweDescription),
];

/// Values for the variables of one rendering; unset variables are empty.
#[derive(Debug, Default, Clone)]
pub(crate) struct Vars<'a> {
    values: [&'a str; VARS.len()],
}

impl<'a> Vars<'a> {
    pub(crate) fn set(&mut self, var: Var, value: &'a str) -> &mut Self {
        self.values[var as usize] = value;
        self
    }

    fn get(&self, var: Var) -> &'a str {
        self.values[var as usize]
    }
}

/// Why a template could not be parsed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateError {
    /// A `{{` without its `}}`.
    #[error("parse template: `{{{{` at byte {0} is never closed")]
    Unclosed(usize),
    /// A variable name the template language does not know.
    #[error("parse template: unknown variable `{0}`")]
    UnknownVariable(String),
    /// `{{/x}}` without an open `{{#x}}`/`{{^x}}`, or a section left open.
    #[error("parse template: unbalanced section `{0}`")]
    UnbalancedSection(String),
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum Node {
    Text(String),
    Var(Var),
    Section {
        var: Var,
        inverted: bool,
        body: Vec<Node>,
    },
    SuffixBreak,
}

/// A parsed template.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Template {
    nodes: Vec<Node>,
}

/// The text a template produced: the prompt, and the suffix after `{{>suffix}}` if it has one.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Rendered {
    pub(crate) prompt: String,
    pub(crate) suffix: Option<String>,
}

enum Token<'t> {
    Text(&'t str),
    Tag { sigil: Option<char>, name: &'t str },
}

fn lookup(name: &str) -> Result<Var, TemplateError> {
    VARS.iter()
        .find(|(known, _)| *known == name)
        .map(|(_, var)| *var)
        .ok_or_else(|| TemplateError::UnknownVariable(name.to_owned()))
}

fn tokenize(text: &str) -> Result<Vec<Token<'_>>, TemplateError> {
    let mut tokens = Vec::new();
    let mut rest = 0;
    while let Some(open) = text[rest..].find("{{") {
        let open = rest + open;
        if open > rest {
            tokens.push(Token::Text(&text[rest..open]));
        }
        let close = text[open..]
            .find("}}")
            .ok_or(TemplateError::Unclosed(open))?
            + open;
        let inner = text[open + 2..close].trim();
        let sigil = inner
            .chars()
            .next()
            .filter(|c| matches!(c, '#' | '^' | '/' | '>'));
        let name = if sigil.is_some() {
            inner[1..].trim()
        } else {
            inner
        };
        tokens.push(Token::Tag { sigil, name });
        rest = close + 2;
    }
    if rest < text.len() {
        tokens.push(Token::Text(&text[rest..]));
    }
    Ok(tokens)
}

/// Removes the line of every section tag that stands alone on its line. Standalone-ness is decided on
/// the original text, then the cuts are applied, so that consecutive standalone tags each take their
/// own line.
fn strip_standalone<'t>(tokens: &mut [Token<'t>]) {
    fn text_at<'t>(tokens: &[Token<'t>], j: usize) -> Option<&'t str> {
        match tokens.get(j) {
            Some(Token::Text(t)) => Some(*t),
            _ => None,
        }
    }
    // For each text token, the byte range kept: [keep_from, keep_to).
    let mut keep: Vec<(usize, usize)> = tokens
        .iter()
        .map(|t| (0, if let Token::Text(t) = t { t.len() } else { 0 }))
        .collect();
    for i in 0..tokens.len() {
        if !matches!(
            tokens[i],
            Token::Tag {
                sigil: Some('#' | '^' | '/'),
                ..
            }
        ) {
            continue;
        }
        let before = i.checked_sub(1).map(|j| (j, text_at(tokens, j)));
        let before_ok = match before {
            None => true,
            Some((j, Some(t))) => {
                let line = t.rfind('\n').map_or(t, |nl| &t[nl + 1..]);
                line.trim().is_empty() && (t.contains('\n') || j == 0)
            }
            Some((_, None)) => false,
        };
        let after = text_at(tokens, i + 1);
        let after_ok = match (tokens.get(i + 1), after) {
            (None, _) => true,
            (Some(_), Some(t)) => t.find('\n').map_or(t, |nl| &t[..nl]).trim().is_empty(),
            (Some(_), None) => false,
        };
        if !(before_ok && after_ok) {
            continue;
        }
        if let Some((j, Some(t))) = before {
            keep[j].1 = t.rfind('\n').map_or(0, |nl| nl + 1);
        }
        if let Some(t) = after {
            keep[i + 1].0 = t.find('\n').map_or(t.len(), |nl| nl + 1);
        }
    }
    for (token, (from, to)) in tokens.iter_mut().zip(keep) {
        if let Token::Text(t) = token {
            *t = if from <= to { &t[from..to] } else { "" };
        }
    }
}

/// A section being parsed: its variable, whether it is inverted, and its name as written.
type OpenSection = (Var, bool, String);

impl Template {
    /// Parses template text.
    pub fn parse(text: &str) -> Result<Self, TemplateError> {
        let mut tokens = tokenize(text)?;
        strip_standalone(&mut tokens);
        // A stack of open sections with the nodes collected so far; the root has no section.
        let mut stack: Vec<(Option<OpenSection>, Vec<Node>)> = vec![(None, Vec::new())];
        for token in tokens {
            let current = &mut stack.last_mut().expect("the root frame is never popped").1;
            match token {
                Token::Text("") => {}
                Token::Text(t) => current.push(Node::Text(t.to_owned())),
                Token::Tag { sigil: None, name } => current.push(Node::Var(lookup(name)?)),
                Token::Tag {
                    sigil: Some('>'),
                    name: "suffix",
                } => {
                    current.push(Node::SuffixBreak);
                }
                Token::Tag {
                    sigil: Some('>'),
                    name,
                } => {
                    return Err(TemplateError::UnknownVariable(format!(">{name}")));
                }
                Token::Tag {
                    sigil: Some(sigil @ ('#' | '^')),
                    name,
                } => {
                    stack.push((
                        Some((lookup(name)?, sigil == '^', name.to_owned())),
                        Vec::new(),
                    ));
                }
                Token::Tag {
                    sigil: Some(_),
                    name,
                } => {
                    let (open, body) = stack.pop().expect("the root frame is never popped");
                    match open {
                        Some((var, inverted, open_name)) if open_name == name => {
                            let parent = &mut stack.last_mut().expect("root below").1;
                            parent.push(Node::Section {
                                var,
                                inverted,
                                body,
                            });
                        }
                        _ => return Err(TemplateError::UnbalancedSection(name.to_owned())),
                    }
                }
            }
        }
        let (open, nodes) = stack.pop().expect("the root frame is never popped");
        if let Some((_, _, name)) = open {
            return Err(TemplateError::UnbalancedSection(name));
        }
        Ok(Self { nodes })
    }

    pub(crate) fn render(&self, vars: &Vars<'_>) -> Rendered {
        let mut rendered = Rendered::default();
        render_nodes(&self.nodes, vars, &mut rendered);
        rendered
    }

    /// Renders a template that has no suffix break into a plain string.
    pub(crate) fn render_text(&self, vars: &Vars<'_>) -> String {
        let rendered = self.render(vars);
        match rendered.suffix {
            Some(suffix) => rendered.prompt + &suffix,
            None => rendered.prompt,
        }
    }
}

fn render_nodes(nodes: &[Node], vars: &Vars<'_>, out: &mut Rendered) {
    for node in nodes {
        let target = out.suffix.as_mut().unwrap_or(&mut out.prompt);
        match node {
            Node::Text(t) => target.push_str(t),
            Node::Var(var) => target.push_str(vars.get(*var)),
            Node::Section {
                var,
                inverted,
                body,
            } => {
                if vars.get(*var).is_empty() == *inverted {
                    render_nodes(body, vars, out);
                }
            }
            Node::SuffixBreak => {
                out.suffix.get_or_insert_with(String::new);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render(template: &str, vars: &Vars<'_>) -> Rendered {
        Template::parse(template).unwrap().render(vars)
    }

    #[test]
    fn variables_sections_and_suffix() {
        let mut vars = Vars::default();
        vars.set(Var::Method, "m()").set(Var::Cwe, "CWE-22");
        let cases = [
            ("a {{method}} b", "a m() b", None),
            (
                "{{#cwe}}[{{cwe}}]{{/cwe}}{{#markers}}X{{/markers}}",
                "[CWE-22]",
                None,
            ),
            ("{{^markers}}none{{/markers}}", "none", None),
            (
                "x\n{{#cwe}}\nshown\n{{/cwe}}\n{{#markers}}\nhidden\n{{/markers}}\ny\n",
                "x\nshown\ny\n",
                None,
            ),
            ("pre{{>suffix}}post", "pre", Some("post")),
        ];
        for (template, prompt, suffix) in cases {
            let got = render(template, &vars);
            assert_eq!(got.prompt, prompt, "{template:?}");
            assert_eq!(got.suffix.as_deref(), suffix, "{template:?}");
        }
    }

    #[test]
    fn bad_templates_are_rejected() {
        assert_eq!(
            Template::parse("{{methd}}"),
            Err(TemplateError::UnknownVariable("methd".into()))
        );
        assert_eq!(
            Template::parse("a {{method"),
            Err(TemplateError::Unclosed(2))
        );
        assert_eq!(
            Template::parse("{{#cwe}}x"),
            Err(TemplateError::UnbalancedSection("cwe".into()))
        );
        assert_eq!(
            Template::parse("{{#cwe}}x{{/markers}}"),
            Err(TemplateError::UnbalancedSection("markers".into()))
        );
    }
}
