//! The prompt formats, selectable by name: what each shows the model and how its output is read back.

use std::fmt;
use std::str::FromStr;

use serde::{Deserialize, Serialize};

/// The mask-token conventions of span-infilling models.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum MaskModel {
    /// CodeT5: `<extra_id_0>` replaces the span; the answer is the span, ended by `<extra_id_1>`.
    CodeT5,
    /// PLBART: `<mask>` replaces the span; the answer is the whole denoised method.
    Plbart,
    /// InCoder: `<|mask:0|>` replaces the span and `<|mask:1|><|mask:0|>` trails the prompt; the
    /// answer is the span, ended by `<|endofmask|>`.
    Incoder,
}

/// Families of fill-in-the-middle tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum FimFamily {
    /// StarCoder / StarCoder2: `<fim_prefix>`, `<fim_suffix>`, `<fim_middle>`.
    StarCoder,
    /// DeepSeek-Coder: `<｜fim▁begin｜>`, `<｜fim▁hole｜>`, `<｜fim▁end｜>`.
    DeepSeek,
    /// Qwen2.5-Coder: `<|fim_prefix|>`, `<|fim_suffix|>`, `<|fim_middle|>`.
    Qwen,
}

/// The chat prompt levels of the study design.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum ChatLevel {
    /// The function and general instructions.
    P1,
    /// P1 plus line-level markers of the vulnerable lines.
    P2,
    /// P1 plus the vulnerability type (CWE id, name, short description).
    P3,
    /// P1 plus both markers and vulnerability type.
    P4,
}

impl ChatLevel {
    /// Whether the prompt marks the vulnerable lines.
    pub fn shows_markers(self) -> bool {
        matches!(self, Self::P2 | Self::P4)
    }

    /// Whether the prompt names the CWE.
    pub fn shows_cwe(self) -> bool {
        matches!(self, Self::P3 | Self::P4)
    }
}

/// A prompt format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "String", try_from = "String")]
pub enum Format {
    /// `infill-comment`: buggy lines inside `/* BUG: … FIXED: */`, the model writes the fix after it
    /// (insertion mode: prompt through the comment, suffix the rest of the method).
    InfillComment,
    /// `mask-codet5`, `mask-plbart`, `mask-incoder`: the buggy lines replaced by a mask token.
    Mask(MaskModel),
    /// `prefix`: the method up to the buggy lines; the completion is cut at the method's closing brace.
    Prefix,
    /// `finetune`: `// buggy lines start:` … `// buggy lines end` … `// fixed lines:`.
    Finetune,
    /// `fim-starcoder`, `fim-deepseek`, `fim-qwen`: prefix/suffix/middle tokens.
    Fim(FimFamily),
    /// `chat-p1` … `chat-p4`.
    Chat(ChatLevel),
}

/// A format name that is not one of [`Format::ALL`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("select prompt format `{0}`; known formats: {known}", known = Format::names().join(", "))]
pub struct UnknownFormat(pub String);

impl Format {
    /// Every format, in the order the docs list them.
    pub const ALL: [Format; 13] = [
        Format::InfillComment,
        Format::Mask(MaskModel::CodeT5),
        Format::Mask(MaskModel::Plbart),
        Format::Mask(MaskModel::Incoder),
        Format::Prefix,
        Format::Finetune,
        Format::Fim(FimFamily::StarCoder),
        Format::Fim(FimFamily::DeepSeek),
        Format::Fim(FimFamily::Qwen),
        Format::Chat(ChatLevel::P1),
        Format::Chat(ChatLevel::P2),
        Format::Chat(ChatLevel::P3),
        Format::Chat(ChatLevel::P4),
    ];

    /// The names of every format.
    pub fn names() -> Vec<&'static str> {
        Self::ALL.iter().map(|f| f.name()).collect()
    }

    /// The format's name, as `--format` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Self::InfillComment => "infill-comment",
            Self::Mask(MaskModel::CodeT5) => "mask-codet5",
            Self::Mask(MaskModel::Plbart) => "mask-plbart",
            Self::Mask(MaskModel::Incoder) => "mask-incoder",
            Self::Prefix => "prefix",
            Self::Finetune => "finetune",
            Self::Fim(FimFamily::StarCoder) => "fim-starcoder",
            Self::Fim(FimFamily::DeepSeek) => "fim-deepseek",
            Self::Fim(FimFamily::Qwen) => "fim-qwen",
            Self::Chat(ChatLevel::P1) => "chat-p1",
            Self::Chat(ChatLevel::P2) => "chat-p2",
            Self::Chat(ChatLevel::P3) => "chat-p3",
            Self::Chat(ChatLevel::P4) => "chat-p4",
        }
    }

    /// Whether the format is sent to a chat endpoint (otherwise to a completion endpoint).
    pub fn is_chat(self) -> bool {
        matches!(self, Self::Chat(_))
    }

    /// Stop sequences a server should honour for this format (at most 4, the OpenAI limit). The same
    /// markers also end the answer during extraction, for servers that ignore `stop`.
    pub fn stop_sequences(self) -> &'static [&'static str] {
        match self {
            Self::InfillComment | Self::Prefix | Self::Chat(_) => &[],
            Self::Finetune => &["// buggy lines start:", "</s>"],
            Self::Mask(MaskModel::CodeT5) => &["<extra_id_1>", "</s>"],
            Self::Mask(MaskModel::Plbart) => &["</s>"],
            Self::Mask(MaskModel::Incoder) => &["<|endofmask|>", "<|mask:1|>"],
            Self::Fim(FimFamily::StarCoder) => &["<|endoftext|>", "<file_sep>", "<fim_prefix>"],
            Self::Fim(FimFamily::DeepSeek) => &["<｜end▁of▁sentence｜>", "<｜fim▁begin｜>"],
            Self::Fim(FimFamily::Qwen) => &[
                "<|endoftext|>",
                "<|fim_pad|>",
                "<|file_sep|>",
                "<|fim_prefix|>",
            ],
        }
    }

    /// Tokens a model may echo at the start of its answer, removed during extraction.
    pub(crate) fn leading_sentinels(self) -> &'static [&'static str] {
        match self {
            Self::Mask(MaskModel::CodeT5) => &["<pad>", "<s>", "<extra_id_0>"],
            Self::Mask(MaskModel::Plbart) => &["<s>", "java"],
            Self::Mask(MaskModel::Incoder) => &["<|mask:0|>"],
            Self::Fim(FimFamily::StarCoder) => &["<fim_middle>"],
            Self::Fim(FimFamily::Qwen) => &["<|fim_middle|>"],
            Self::Fim(FimFamily::DeepSeek) => &["<｜fim▁end｜>"],
            _ => &[],
        }
    }
}

impl fmt::Display for Format {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Format {
    type Err = UnknownFormat;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        // Short aliases pick the family's first member, as the study's tables name them.
        let name = match name {
            "mask" => "mask-codet5",
            "fim" => "fim-starcoder",
            "infill" => "infill-comment",
            other => other,
        };
        Self::ALL
            .into_iter()
            .find(|f| f.name() == name)
            .ok_or_else(|| UnknownFormat(name.to_owned()))
    }
}

impl From<Format> for String {
    fn from(format: Format) -> Self {
        format.name().to_owned()
    }
}

impl TryFrom<String> for Format {
    type Error = UnknownFormat;

    fn try_from(name: String) -> Result<Self, Self::Error> {
        name.parse()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for format in Format::ALL {
            assert_eq!(format.name().parse::<Format>(), Ok(format));
            assert!(format.stop_sequences().len() <= 4, "{format}");
        }
        assert_eq!("mask".parse(), Ok(Format::Mask(MaskModel::CodeT5)));
        assert!(
            "chat-p5"
                .parse::<Format>()
                .unwrap_err()
                .to_string()
                .contains("chat-p4")
        );
    }
}
