//! Masking for feature tasks: the methods a fix changed, their bodies replaced by a stub that
//! throws (what the model must write again), and test methods removed from a test file.

use std::collections::BTreeMap;

/// A masked method: where it is in the fixed file and its signature for the problem statement.
#[derive(Debug, Clone)]
pub struct Masked {
    /// The file, as the caller named it.
    pub file: String,
    pub name: String,
    /// The declaration up to its body, annotations left out, on one line.
    pub signature: String,
    /// Where the body was, in bytes of the unmasked text.
    pub body: std::ops::Range<usize>,
    /// An explicit constructor invocation the stub keeps as its first statement.
    pub keep_prefix: Option<String>,
    pub indent: String,
}

/// Masks `text` (a fixed main file, `rel` naming it in messages): the outermost method spanning
/// each changed line (1-based) has its body replaced by a stub that throws. Returns the masked text and what was masked.
pub fn mask_methods(
    rel: &str,
    text: &str,
    lines: &[usize],
) -> Result<(String, Vec<Masked>), String> {
    let source = crate::parse(text);
    let text_lines: Vec<&str> = text.lines().collect();
    let mut chosen: BTreeMap<usize, Masked> = BTreeMap::new();
    for &line in lines {
        let content = text_lines
            .get(line.saturating_sub(1))
            .copied()
            .unwrap_or("");
        let trimmed = content.trim();
        let outer = crate::methods_at_line(&source, line).into_iter().next();
        let Some(method) = outer else {
            if trimmed.is_empty()
                || trimmed.starts_with("import ")
                || trimmed.starts_with("//")
                || trimmed.starts_with('*')
                || trimmed.starts_with("/*")
                || line > text_lines.len()
            {
                continue;
            }
            return Err(format!(
                "{rel}:{line} is changed by the fix but lies outside every method (`{}`)",
                trimmed.chars().take(80).collect::<String>()
            ));
        };
        let Some(body) = method.body.clone() else {
            return Err(format!("{rel}:{line}: method {} has no body", method.name));
        };
        let node = method
            .node(&source)
            .ok_or_else(|| format!("{rel}:{line}: cannot find {} in the tree", method.name))?;
        // An explicit constructor invocation must stay the first statement.
        let keep_prefix = node.child_by_field_name("body").and_then(|b| {
            let mut cursor = b.walk();
            let first = b.named_children(&mut cursor).next();
            first
                .filter(|n| n.kind() == "explicit_constructor_invocation")
                .map(|n| source.node_text(n).to_owned())
        });
        let signature = text[method.bytes.start..body.start]
            .lines()
            .map(str::trim)
            .filter(|l| !l.starts_with('@'))
            .collect::<Vec<_>>()
            .join(" ");
        chosen.entry(body.start).or_insert(Masked {
            file: rel.to_owned(),
            name: method.name.clone(),
            signature: signature.trim().to_owned(),
            body,
            keep_prefix,
            indent: source.indentation_of_line(method.lines.start).to_owned(),
        });
    }
    let mut masked = text.to_owned();
    for m in chosen.values().rev() {
        let inner = format!("{}    ", m.indent);
        let prefix = m
            .keep_prefix
            .as_ref()
            .map(|p| format!("\n{inner}{p}"))
            .unwrap_or_default();
        let stub = format!(
            "{{{prefix}\n{inner}throw new UnsupportedOperationException(\"not implemented: {}\");\n{}}}",
            m.name, m.indent
        );
        masked.replace_range(m.body.clone(), &stub);
    }
    Ok((masked, chosen.into_values().collect()))
}

/// The text of a test file with the named test methods removed (whole declarations with their
/// annotations, and the line they leave empty).
pub fn without_methods(text: &str, class: &str, methods: &[&str]) -> Result<String, String> {
    let source = crate::parse(text);
    let simple = class.rsplit(['.', '$']).next().unwrap_or(class);
    let mut ranges = Vec::new();
    for method in methods {
        let found: Vec<_> = crate::methods(&source)
            .into_iter()
            .filter(|m| {
                m.name == *method
                    && !m.is_constructor
                    && m.enclosing_types.last().map(String::as_str) == Some(simple)
            })
            .collect();
        match found.as_slice() {
            [one] => ranges.push((one.lines.start, one.lines.end)),
            [] => {
                return Err(format!(
                    "security test {class}#{method} not found in its file"
                ));
            }
            _ => {
                return Err(format!(
                    "security test {class}#{method} is overloaded in its file; cannot tell which to remove"
                ));
            }
        }
    }
    let lines: Vec<&str> = text.split_inclusive('\n').collect();
    let mut keep = vec![true; lines.len()];
    for (start, end) in ranges {
        for i in start..=end {
            keep[i - 1] = false;
        }
        // The blank line that separated the method from the next member goes with it.
        if end < lines.len() && lines[end].trim().is_empty() {
            keep[end] = false;
        }
    }
    Ok(lines
        .iter()
        .zip(keep)
        .filter(|(_, k)| *k)
        .map(|(l, _)| *l)
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_mask_grows_to_the_outermost_method_and_keeps_constructor_calls() {
        let text = "class A extends B {\n    static final int N = 3;\n    A(int x) {\n        super(x);\n        this.x = x;\n    }\n    int f() {\n        Runnable r = () -> {\n            g();\n        };\n        return 1;\n    }\n}\n";
        // Line 9 is inside a lambda of f; line 5 in the constructor.
        let (masked, what) = mask_methods("A.java", text, &[5, 9]).unwrap();
        assert_eq!(what.len(), 2);
        assert!(masked.contains("    A(int x) {\n        super(x);\n        throw new UnsupportedOperationException(\"not implemented: A\");\n    }"), "{masked}");
        assert!(masked.contains("    int f() {\n        throw new UnsupportedOperationException(\"not implemented: f\");\n    }"), "{masked}");
        assert!(!masked.contains("g();"));
        // A field cannot be masked by a method: the candidate is rejected.
        let err = mask_methods("A.java", text, &[2]).unwrap_err();
        assert!(
            err.contains("A.java:2 is changed by the fix but lies outside every method"),
            "{err}"
        );
    }
}
