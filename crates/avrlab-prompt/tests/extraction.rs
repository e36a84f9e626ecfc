//! From raw answers to candidates, one table per answer shape, and Java text up to layout.

use avrlab_prompt::{
    Candidate, FimFamily, Format, MaskModel, NoCandidate, RenderOptions, Renderer, normalize,
};

use crate::samples;

/// The single-hunk sample with line 21 replaced by `fix` (already indented).
fn single_with(fix: &str) -> String {
    samples::single_hunk()
        .source
        .replace("        File target = new File(baseDir, name);\n", fix)
}

const FIX: &str = "        File target = new File(baseDir, name).getCanonicalFile();\n";

fn check(format: Format, raw: &str, expected: Result<Candidate, NoCandidate>) {
    let rendered = Renderer::default()
        .render(&samples::single_hunk(), format, &RenderOptions::default())
        .unwrap();
    assert_eq!(rendered.extract(raw), expected, "{format}: {raw:?}");
}

#[test]
fn hole_formats_rebuild_the_method() {
    let fixed = Ok(Candidate::Method(single_with(FIX)));
    let cases = [
        (
            Format::InfillComment,
            "        File target = new File(baseDir, name).getCanonicalFile();\n",
        ),
        // No indentation in the answer: the span's is added.
        (
            Format::Mask(MaskModel::CodeT5),
            "<extra_id_0> File target = new File(baseDir, name).getCanonicalFile();<extra_id_1> x",
        ),
        (
            Format::Mask(MaskModel::Incoder),
            "File target = new File(baseDir, name).getCanonicalFile();<|endofmask|>junk",
        ),
        (
            Format::Finetune,
            "File target = new File(baseDir, name).getCanonicalFile();\n// buggy lines start:\n",
        ),
        (
            Format::Fim(FimFamily::StarCoder),
            "        File target = new File(baseDir, name).getCanonicalFile();<|endoftext|>",
        ),
        (
            Format::Fim(FimFamily::Qwen),
            "\nFile target = new File(baseDir, name).getCanonicalFile();\n<|fim_pad|>",
        ),
        (
            Format::Fim(FimFamily::DeepSeek),
            "File target = new File(baseDir, name).getCanonicalFile();<｜end▁of▁sentence｜>",
        ),
    ];
    for (format, raw) in cases {
        check(format, raw, fixed.clone());
    }
    // An empty answer deletes the span: statement deletion is a candidate, not a failure.
    check(
        Format::Fim(FimFamily::StarCoder),
        "<|endoftext|>",
        Ok(Candidate::Method(single_with(""))),
    );
}

#[test]
fn plbart_answers_are_whole_methods() {
    // The method's own indentation is lost after the `<s>` sentinel; Java does not mind.
    let whole = format!("<s>{}</s>", single_with(FIX));
    check(
        Format::Mask(MaskModel::Plbart),
        &whole,
        Ok(Candidate::Method(single_with(FIX).trim_start().to_owned())),
    );
}

#[test]
fn prefix_completions_are_cut_at_the_closing_brace() {
    let rest = "        File target = new File(baseDir, name).getCanonicalFile();\n        if (!target.exists()) {\n            throw new FileNotFoundException(name);\n        }\n        return target;\n    }\n\n    public void other() { }\n";
    let expected = single_with(FIX);
    check(Format::Prefix, rest, Ok(Candidate::Method(expected)));
    check(
        Format::Prefix,
        "        return null;\n",
        Err(NoCandidate::UnclosedMethod),
    );
    check(Format::Prefix, "  \n", Err(NoCandidate::EmptyAnswer));
}

#[test]
fn chat_answers_in_every_shape() {
    let method = single_with(FIX);
    let p4 = Format::Chat(avrlab_prompt::ChatLevel::P4);
    // A fenced whole method after some prose.
    check(
        p4,
        &format!("Here is the fix:\n\n```java\n{method}```\nIt canonicalizes the path."),
        Ok(Candidate::Method(method.clone())),
    );
    // The method inside a class, with an annotation; unfenced.
    let in_class =
        format!("class Storage {{\n    @Override\n{method}\n    void other() {{}}\n}}\n");
    let annotated = format!("    @Override\n{method}");
    check(p4, &in_class, Ok(Candidate::Method(annotated)));
    // A unified diff.
    let diff = "--- a/src/main/java/com/example/Storage.java\n+++ b/src/main/java/com/example/Storage.java\n@@ -21 +21 @@\n-        File target = new File(baseDir, name);\n+        File target = new File(baseDir, name).getCanonicalFile();\n";
    check(
        p4,
        &format!("```diff\n{diff}```\n"),
        Ok(Candidate::Diff(diff.to_owned())),
    );
    // A block holding only the replacement of the marked line.
    check(
        p4,
        "```java\nFile target = new File(baseDir, name).getCanonicalFile();\n```",
        Ok(Candidate::Method(method.clone())),
    );
    // A call to the method is not its declaration.
    check(p4, "Call it as `resolve(name)`.", Err(NoCandidate::NoCode));
    check(p4, "I cannot help with that.", Err(NoCandidate::NoCode));
    check(p4, " \n", Err(NoCandidate::EmptyAnswer));
    // An answer cut by max_tokens inside its block still yields what arrived.
    check(
        p4,
        &format!("```java\n{method}"),
        Ok(Candidate::Method(method)),
    );
}

#[test]
fn java_up_to_layout_ignores_comments_and_whitespace_but_not_literals() {
    let a = normalize("void f() {\n    if (x == null) return; // guard\n}\n");
    let b = normalize("void f() { /* guard */ if(x==null)   return; }");
    let c = normalize("void f() { if (x != null) return; }");
    assert_eq!(a, b);
    assert_ne!(a, c);
    assert_ne!(
        normalize("String s = \"a  b\";"),
        normalize("String s = \"a b\";")
    );
}
