//! Rendering a vulnerable method into the exact text a model sees, for any [`Format`], and the frame
//! that turns the model's answer back into a whole method.

use serde::{Deserialize, Serialize};

use crate::format::{ChatLevel, FimFamily, Format, MaskModel};
use crate::localization::{FlOffset, apply_fl_offset};
use crate::method::{MethodError, VulnerableMethod};
use crate::template::{Rendered, Var, Vars};
use crate::template_set::{TemplateId, TemplateSet};

/// Who speaks a chat message.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Role {
    /// The system prompt.
    System,
    /// The user's request.
    User,
    /// A model's earlier answer.
    Assistant,
}

/// One chat message.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct ChatMessage {
    /// Who says it.
    pub role: Role,
    /// What is said.
    pub content: String,
}

/// What is sent to a model.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Prompt {
    /// Text for a completion endpoint; `suffix` is set for insertion mode.
    Completion {
        /// The text before the hole.
        prompt: String,
        /// The text after the hole, for APIs with a `suffix` parameter.
        suffix: Option<String>,
    },
    /// Messages for a chat endpoint.
    Chat {
        /// The conversation, system message first.
        messages: Vec<ChatMessage>,
    },
}

/// The method around the span a completion replaces: `before + replacement + after` is the new method.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Frame {
    /// The method's name, to recognise a whole method in an answer.
    pub method_name: String,
    /// The method's lines before the span, each with its newline.
    pub before: String,
    /// The span's original lines (empty for an insertion).
    pub replaced: String,
    /// The method's lines after the span, each with its newline.
    pub after: String,
    /// The indentation of the span, given to a replacement whose first line has none.
    pub indent: String,
}

/// A rendered prompt with everything needed to send it and to read its answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderedPrompt {
    /// The format it was rendered in.
    pub format: Format,
    /// The text sent.
    pub prompt: Prompt,
    /// Stop sequences for the request.
    pub stop: Vec<String>,
    /// The fault-localization offset asked for and applied.
    pub fl_offset: FlOffset,
    /// How to rebuild the method from a partial answer.
    pub frame: Frame,
}

/// How to render: the study's knobs, one struct so new ones do not change signatures.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RenderOptions {
    /// Shift the marked lines by this many lines (`--fl-offset`), clamped inside the method.
    pub fl_offset: i64,
}

/// Why a prompt could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RenderError {
    /// The method's localization is unusable.
    #[error("render prompt for `{file}`")]
    Method {
        /// The method's file.
        file: String,
        /// What is wrong.
        #[source]
        source: MethodError,
    },
}

/// Renders prompts with one parsed set of templates.
#[derive(Debug, Clone, Default)]
pub struct Renderer {
    templates: TemplateSet,
}

fn indentation(line: &str) -> &str {
    &line[..line.len() - line.trim_start().len()]
}

fn join_lines(lines: &[&str]) -> String {
    let mut text = String::with_capacity(lines.iter().map(|l| l.len() + 1).sum());
    for line in lines {
        text.push_str(line);
        text.push('\n');
    }
    text
}

/// Drops the one trailing newline an item template file may end with.
fn trim_item(text: String) -> String {
    match text.strip_suffix('\n') {
        Some(trimmed) => trimmed.to_owned(),
        None => text,
    }
}

impl Renderer {
    /// A renderer over the given templates.
    pub fn new(templates: TemplateSet) -> Self {
        Self { templates }
    }

    /// Renders `method` in `format`.
    pub fn render(
        &self,
        method: &VulnerableMethod,
        format: Format,
        options: &RenderOptions,
    ) -> Result<RenderedPrompt, RenderError> {
        let (shifted, fl_offset) =
            apply_fl_offset(method, options.fl_offset).map_err(|source| RenderError::Method {
                file: method.file.clone(),
                source,
            })?;
        let lines = shifted.lines();
        let (first, len) = shifted.collapsed_span();
        let before = join_lines(&lines[..first]);
        let replaced = join_lines(&lines[first..first + len]);
        let after = join_lines(&lines[first + len..]);
        let indent = span_indent(&lines, first, len).to_owned();
        let buggy_in_comment = replaced.replace("*/", "* /");
        let class_context = method
            .class_context
            .as_deref()
            .map(str::trim_end)
            .unwrap_or("");

        let mut vars = Vars::default();
        vars.set(Var::Before, &before)
            .set(Var::Buggy, &replaced)
            .set(Var::BuggyInComment, &buggy_in_comment)
            .set(Var::After, &after)
            .set(Var::Indent, &indent)
            .set(Var::Method, &method.source)
            .set(Var::MethodName, &method.method_name)
            .set(Var::File, &method.file)
            .set(Var::ClassContext, class_context);

        let prompt = match format {
            Format::Chat(level) => self.render_chat(&shifted, level, vars),
            _ => {
                let Rendered { prompt, suffix } = self
                    .templates
                    .get(completion_template(format))
                    .render(&vars);
                Prompt::Completion { prompt, suffix }
            }
        };
        Ok(RenderedPrompt {
            format,
            prompt,
            stop: format
                .stop_sequences()
                .iter()
                .map(|s| (*s).to_owned())
                .collect(),
            fl_offset,
            frame: Frame {
                method_name: method.method_name.clone(),
                before,
                replaced,
                after,
                indent,
            },
        })
    }

    fn render_chat(&self, shifted: &VulnerableMethod, level: ChatLevel, vars: Vars<'_>) -> Prompt {
        let marked = if level.shows_markers() {
            self.marked_method(shifted)
        } else {
            String::new()
        };
        let cwe = if level.shows_cwe() {
            self.cwe_list(shifted)
        } else {
            String::new()
        };
        let code = if level.shows_markers() {
            marked.as_str()
        } else {
            shifted.source.as_str()
        };
        // `code` must end with a newline so that the closing fence starts its own line.
        let code = if code.ends_with('\n') {
            code.to_owned()
        } else {
            format!("{code}\n")
        };
        // Rebinding shortens the borrow of `vars` to this body, so it can point at the locals above.
        let mut vars: Vars<'_> = vars;
        vars.set(Var::Markers, if level.shows_markers() { "yes" } else { "" })
            .set(Var::Cwe, &cwe)
            .set(Var::Code, &code);
        let system = self
            .templates
            .get(TemplateId::ChatSystem)
            .render_text(&vars);
        let user = self.templates.get(TemplateId::ChatUser).render_text(&vars);
        let mut messages = Vec::with_capacity(2);
        if !system.trim().is_empty() {
            messages.push(ChatMessage {
                role: Role::System,
                content: system,
            });
        }
        messages.push(ChatMessage {
            role: Role::User,
            content: user,
        });
        Prompt::Chat { messages }
    }

    /// The method with every (shifted) hunk marked: replaced lines get the line marker, insertions a
    /// marker line of their own before the line they precede.
    fn marked_method(&self, shifted: &VulnerableMethod) -> String {
        let lines = shifted.lines();
        let line_template = self.templates.get(TemplateId::ChatMarkedLine);
        let insertion_template = self.templates.get(TemplateId::ChatMarkedInsertion);
        let mut out = String::with_capacity(shifted.source.len() * 2);
        for (index, line) in lines.iter().enumerate() {
            let file_line = shifted.method_start_line + index as u32;
            for hunk in &shifted.buggy_lines {
                if hunk.is_insertion() && hunk.start == file_line {
                    let mut vars = Vars::default();
                    let indent = span_indent(&lines, index, 0);
                    vars.set(Var::Indent, indent);
                    out.push_str(&trim_item(insertion_template.render_text(&vars)));
                    out.push('\n');
                }
            }
            let vulnerable = shifted
                .buggy_lines
                .iter()
                .any(|h| !h.is_insertion() && h.start <= file_line && file_line <= h.end);
            if vulnerable {
                let mut vars = Vars::default();
                vars.set(Var::Line, line);
                out.push_str(&trim_item(line_template.render_text(&vars)));
            } else {
                out.push_str(line);
            }
            out.push('\n');
        }
        out
    }

    fn cwe_list(&self, method: &VulnerableMethod) -> String {
        let item = self.templates.get(TemplateId::ChatCwe);
        let mut items = Vec::with_capacity(method.cwe.len());
        for cwe in &method.cwe {
            let id = cwe.id.to_string();
            let mut vars = Vars::default();
            vars.set(Var::CweId, &id)
                .set(Var::CweName, &cwe.name)
                .set(Var::CweDescription, &cwe.description);
            items.push(trim_item(item.render_text(&vars)));
        }
        items.join("\n")
    }
}

/// The indentation a replacement of lines `[first, first + len)` should get: that of the first
/// non-blank replaced line, or for an insertion that of the line it precedes — unless that line
/// closes a block, whose body is indented one level deeper, as the line above it shows.
fn span_indent<'a>(lines: &[&'a str], first: usize, len: usize) -> &'a str {
    if let Some(line) = lines[first..first + len]
        .iter()
        .find(|l| !l.trim().is_empty())
    {
        return indentation(line);
    }
    let Some(next) = lines.get(first) else {
        return "";
    };
    if next.trim_start().starts_with('}') && first > 0 {
        let above = indentation(lines[first - 1]);
        if above.len() > indentation(next).len() {
            return above;
        }
    }
    indentation(next)
}

fn completion_template(format: Format) -> TemplateId {
    match format {
        Format::InfillComment => TemplateId::InfillComment,
        Format::Mask(MaskModel::CodeT5) => TemplateId::MaskCodeT5,
        Format::Mask(MaskModel::Plbart) => TemplateId::MaskPlbart,
        Format::Mask(MaskModel::Incoder) => TemplateId::MaskIncoder,
        Format::Prefix => TemplateId::Prefix,
        Format::Finetune => TemplateId::Finetune,
        Format::Fim(FimFamily::StarCoder) => TemplateId::FimStarCoder,
        Format::Fim(FimFamily::DeepSeek) => TemplateId::FimDeepSeek,
        Format::Fim(FimFamily::Qwen) => TemplateId::FimQwen,
        Format::Chat(_) => TemplateId::ChatUser,
    }
}
