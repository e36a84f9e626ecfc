//! `--fl-offset` and the chat levels P1–P4 change exactly what they should, and nothing else.

use avrlab_prompt::{
    ChatLevel, Format, MaskModel, Prompt, RenderOptions, RenderedPrompt, Renderer, VulnerableMethod,
};

use crate::samples;

fn render(method: &VulnerableMethod, format: Format, fl_offset: i64) -> RenderedPrompt {
    Renderer::default()
        .render(method, format, &RenderOptions { fl_offset })
        .unwrap()
}

fn user_text(rendered: &RenderedPrompt) -> String {
    match &rendered.prompt {
        Prompt::Chat { messages } => messages.last().unwrap().content.clone(),
        Prompt::Completion { .. } => panic!("not a chat prompt"),
    }
}

/// The indices (within the method) of the lines carrying the line marker, and of marker lines.
fn marked_lines(text: &str) -> (Vec<usize>, Vec<usize>) {
    let code = text
        .split("```java\n")
        .last()
        .unwrap()
        .split("```")
        .next()
        .unwrap();
    let mut replaced = Vec::new();
    let mut insertions = Vec::new();
    let mut index = 0;
    for line in code.lines() {
        if line
            .trim_start()
            .starts_with("// <-- VULNERABLE: code is missing here")
        {
            insertions.push(index);
            continue; // an inserted marker line is not a method line
        }
        if line.ends_with(" // <-- VULNERABLE") {
            replaced.push(index);
        }
        index += 1;
    }
    (replaced, insertions)
}

#[test]
fn offsets_are_clamped_inside_the_method() {
    // single: lines 20–26, hunk 21 → offsets in [-1, 5].
    // multi: lines 10–19, insertion before 12 and hunk 15 → offsets in [-2, 4].
    let cases = [
        ("single", 0, 0),
        ("single", 2, 2),
        ("single", -2, -1),
        ("single", 8, 5),
        ("single", -8, -1),
        ("multi", 2, 2),
        ("multi", 4, 4),
        ("multi", 8, 4),
        ("multi", -4, -2),
        ("multi", -8, -2),
    ];
    for (sample, requested, effective) in cases {
        let method = samples::all()
            .into_iter()
            .find(|(name, _)| *name == sample)
            .unwrap()
            .1;
        for format in Format::ALL {
            let rendered = render(&method, format, requested);
            assert_eq!(rendered.fl_offset.requested, requested);
            assert_eq!(
                rendered.fl_offset.effective, effective,
                "{sample} {format} {requested}"
            );
        }
    }
}

#[test]
fn offsets_do_not_change_prompts_that_show_no_location() {
    for (_, method) in samples::all() {
        for level in [ChatLevel::P1, ChatLevel::P3] {
            let base = render(&method, Format::Chat(level), 0).prompt;
            for offset in [-8, -4, -2, 2, 4, 8] {
                assert_eq!(render(&method, Format::Chat(level), offset).prompt, base);
            }
        }
    }
}

#[test]
fn offsets_move_the_markers_by_the_effective_offset() {
    for (sample, method) in samples::all() {
        for level in [ChatLevel::P2, ChatLevel::P4] {
            let (base_replaced, base_inserted) =
                marked_lines(&user_text(&render(&method, Format::Chat(level), 0)));
            assert!(!base_replaced.is_empty(), "{sample}");
            for offset in [-8, -4, -2, 2, 4, 8] {
                let rendered = render(&method, Format::Chat(level), offset);
                let shift = |v: &Vec<usize>| -> Vec<usize> {
                    v.iter()
                        .map(|i| (*i as i64 + rendered.fl_offset.effective) as usize)
                        .collect()
                };
                let (replaced, inserted) = marked_lines(&user_text(&rendered));
                assert_eq!(
                    replaced,
                    shift(&base_replaced),
                    "{sample} {level:?} {offset}"
                );
                assert_eq!(
                    inserted,
                    shift(&base_inserted),
                    "{sample} {level:?} {offset}"
                );
            }
        }
    }
}

#[test]
fn offsets_move_the_masked_span_and_keep_the_rest() {
    for (sample, method) in samples::all() {
        let lines = method.lines();
        for offset in [-2, 2, 4] {
            let rendered = render(&method, Format::Mask(MaskModel::CodeT5), offset);
            let frame = &rendered.frame;
            let first = frame.before.lines().count();
            let expected_first = {
                let base = render(&method, Format::Mask(MaskModel::CodeT5), 0);
                (base.frame.before.lines().count() as i64 + rendered.fl_offset.effective) as usize
            };
            assert_eq!(first, expected_first, "{sample} {offset}");
            // The three parts still tile the original method exactly.
            assert_eq!(
                format!("{}{}{}", frame.before, frame.replaced, frame.after),
                method.source
            );
            assert_eq!(
                frame.replaced.lines().next(),
                lines
                    .get(first)
                    .copied()
                    .filter(|_| !frame.replaced.is_empty())
            );
        }
    }
}

/// P2 = P1 + the marker paragraph + markers; P3 = P1 + the CWE paragraph; P4 = P1 + both.
#[test]
fn chat_levels_add_exactly_their_information() {
    for (sample, method) in samples::all() {
        let text = |level| user_text(&render(&method, Format::Chat(level), 0));
        let (p1, p2, p3, p4) = (
            text(ChatLevel::P1),
            text(ChatLevel::P2),
            text(ChatLevel::P3),
            text(ChatLevel::P4),
        );
        let without_markers = |t: &str| -> String {
            let paragraph = "\nThe vulnerable lines end with `// <-- VULNERABLE`; a line `// <-- VULNERABLE: code is missing here` marks where code is missing.\n";
            assert!(t.contains(paragraph), "{sample}: marker paragraph missing");
            t.replacen(paragraph, "", 1)
                .lines()
                .filter(|l| {
                    !l.trim_start()
                        .starts_with("// <-- VULNERABLE: code is missing here")
                })
                .map(|l| l.strip_suffix(" // <-- VULNERABLE").unwrap_or(l))
                .map(|l| format!("{l}\n"))
                .collect()
        };
        let without_cwe = |t: &str| -> String {
            let mut paragraph = String::from("\nThe vulnerability is of this type:\n");
            for cwe in &method.cwe {
                paragraph.push_str(&format!(
                    "- CWE-{}: {}. {}\n",
                    cwe.id, cwe.name, cwe.description
                ));
            }
            assert!(t.contains(&paragraph), "{sample}: CWE paragraph missing");
            t.replacen(&paragraph, "", 1)
        };
        assert!(
            !p1.contains("VULNERABLE") && !p1.contains("CWE-"),
            "{sample}"
        );
        assert_eq!(without_markers(&p2), p1, "{sample}");
        assert_eq!(without_cwe(&p3), p1, "{sample}");
        assert_eq!(without_markers(&without_cwe(&p4)), p1, "{sample}");
        // The system message is the same at every level.
        let system = |level| match render(&method, Format::Chat(level), 0).prompt {
            Prompt::Chat { messages } => messages[0].content.clone(),
            Prompt::Completion { .. } => unreachable!(),
        };
        assert_eq!(system(ChatLevel::P1), system(ChatLevel::P4));
    }
}
