//! Snapshots pinning the exact text every format shows the model, for both sample methods.

use avrlab_prompt::{Format, Prompt, RenderOptions, RenderedPrompt, Renderer};

use crate::samples;

/// The prompt as a readable document: each part under a header, nothing trimmed; a part that does not
/// end with a newline is followed by a `\ no newline at end` line, as in a diff.
pub fn dump(rendered: &RenderedPrompt) -> String {
    let mut out = String::new();
    let mut part = |header: &str, text: &str| {
        out.push_str(&format!("=== {header} ===\n{text}"));
        if !text.ends_with('\n') {
            out.push_str("\n\\ no newline at end\n");
        }
    };
    match &rendered.prompt {
        Prompt::Completion { prompt, suffix } => {
            part("prompt", prompt);
            if let Some(suffix) = suffix {
                part("suffix", suffix);
            }
        }
        Prompt::Chat { messages } => {
            for message in messages {
                part(
                    &format!("{:?}", message.role).to_lowercase(),
                    &message.content,
                );
            }
        }
    }
    out.push_str(&format!("=== stop ===\n{:?}\n", rendered.stop));
    out
}

#[test]
fn every_format_on_both_samples() {
    let renderer = Renderer::default();
    for (sample, method) in samples::all() {
        for format in Format::ALL {
            let rendered = renderer
                .render(&method, format, &RenderOptions::default())
                .unwrap();
            insta::assert_snapshot!(format!("{sample}__{format}"), dump(&rendered));
        }
    }
}

#[test]
fn a_user_template_replaces_the_builtin_one() {
    let mut templates = avrlab_prompt::TemplateSet::builtin();
    templates
        .override_file(
            "fim-starcoder.txt",
            "// {{file}}\n<fim_prefix>{{before}}<fim_suffix>{{after}}<fim_middle>",
        )
        .unwrap();
    let rendered = Renderer::new(templates)
        .render(
            &samples::single_hunk(),
            Format::Fim(avrlab_prompt::FimFamily::StarCoder),
            &RenderOptions::default(),
        )
        .unwrap();
    insta::assert_snapshot!("single__fim-starcoder-overridden", dump(&rendered));
}
