//! The built-in prompt templates (data files under `templates/`, embedded at compile time) and the
//! replacement of any of them by a user's file of the same name. This crate does no I/O: the caller
//! reads a user's template directory and hands each file's name and text to
//! [`TemplateSet::override_file`].

use crate::template::{Template, TemplateError};

/// One template file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TemplateId {
    InfillComment,
    MaskCodeT5,
    MaskPlbart,
    MaskIncoder,
    Prefix,
    Finetune,
    FimStarCoder,
    FimDeepSeek,
    FimQwen,
    ChatSystem,
    ChatUser,
    ChatMarkedLine,
    ChatMarkedInsertion,
    ChatCwe,
}

/// Each template's file name and built-in text.
const FILES: [(TemplateId, &str, &str); 14] = [
    (
        TemplateId::InfillComment,
        "infill-comment.txt",
        include_str!("../templates/infill-comment.txt"),
    ),
    (
        TemplateId::MaskCodeT5,
        "mask-codet5.txt",
        include_str!("../templates/mask-codet5.txt"),
    ),
    (
        TemplateId::MaskPlbart,
        "mask-plbart.txt",
        include_str!("../templates/mask-plbart.txt"),
    ),
    (
        TemplateId::MaskIncoder,
        "mask-incoder.txt",
        include_str!("../templates/mask-incoder.txt"),
    ),
    (
        TemplateId::Prefix,
        "prefix.txt",
        include_str!("../templates/prefix.txt"),
    ),
    (
        TemplateId::Finetune,
        "finetune.txt",
        include_str!("../templates/finetune.txt"),
    ),
    (
        TemplateId::FimStarCoder,
        "fim-starcoder.txt",
        include_str!("../templates/fim-starcoder.txt"),
    ),
    (
        TemplateId::FimDeepSeek,
        "fim-deepseek.txt",
        include_str!("../templates/fim-deepseek.txt"),
    ),
    (
        TemplateId::FimQwen,
        "fim-qwen.txt",
        include_str!("../templates/fim-qwen.txt"),
    ),
    (
        TemplateId::ChatSystem,
        "chat-system.txt",
        include_str!("../templates/chat-system.txt"),
    ),
    (
        TemplateId::ChatUser,
        "chat-user.txt",
        include_str!("../templates/chat-user.txt"),
    ),
    (
        TemplateId::ChatMarkedLine,
        "chat-marked-line.txt",
        include_str!("../templates/chat-marked-line.txt"),
    ),
    (
        TemplateId::ChatMarkedInsertion,
        "chat-marked-insertion.txt",
        include_str!("../templates/chat-marked-insertion.txt"),
    ),
    (
        TemplateId::ChatCwe,
        "chat-cwe.txt",
        include_str!("../templates/chat-cwe.txt"),
    ),
];

/// Why a user's template could not replace a built-in one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateSetError {
    /// The file name is not one of [`TemplateSet::file_names`].
    #[error("override template `{0}`: no built-in template has that name")]
    UnknownFile(String),
    /// The file does not parse.
    #[error("override template `{file}`")]
    Invalid {
        /// The file name.
        file: String,
        /// What is wrong with it.
        #[source]
        source: TemplateError,
    },
}

/// A parsed template for every format.
#[derive(Debug, Clone)]
pub struct TemplateSet {
    templates: Vec<Template>,
}

impl TemplateSet {
    /// The built-in templates.
    pub fn builtin() -> Self {
        let templates = FILES
            .iter()
            .map(|(_, name, text)| {
                Template::parse(text).unwrap_or_else(|e| panic!("built-in template {name}: {e}"))
            })
            .collect();
        Self { templates }
    }

    /// The file names a user's template directory may hold.
    pub fn file_names() -> impl Iterator<Item = &'static str> {
        FILES.iter().map(|(_, name, _)| *name)
    }

    /// The built-in text of a template file, for `avrlab` to write out as a starting point.
    pub fn builtin_text(file_name: &str) -> Option<&'static str> {
        FILES
            .iter()
            .find(|(_, name, _)| *name == file_name)
            .map(|(_, _, text)| *text)
    }

    /// Replaces the template stored in `file_name` by `text`.
    pub fn override_file(&mut self, file_name: &str, text: &str) -> Result<(), TemplateSetError> {
        let index = FILES
            .iter()
            .position(|(_, name, _)| *name == file_name)
            .ok_or_else(|| TemplateSetError::UnknownFile(file_name.to_owned()))?;
        self.templates[index] =
            Template::parse(text).map_err(|source| TemplateSetError::Invalid {
                file: file_name.to_owned(),
                source,
            })?;
        Ok(())
    }

    pub(crate) fn get(&self, id: TemplateId) -> &Template {
        // FILES lists the ids in declaration order, so the discriminant is the index (tested below).
        &self.templates[id as usize]
    }
}

impl Default for TemplateSet {
    fn default() -> Self {
        Self::builtin()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_index_their_files() {
        for (index, (id, _, _)) in FILES.iter().enumerate() {
            assert_eq!(*id as usize, index);
        }
    }

    #[test]
    fn overrides_replace_one_template_and_reject_typos() {
        let mut set = TemplateSet::builtin();
        set.override_file("prefix.txt", "// {{method_name}}\n{{before}}")
            .unwrap();
        assert_eq!(
            set.get(TemplateId::Prefix),
            &Template::parse("// {{method_name}}\n{{before}}").unwrap()
        );
        assert_eq!(
            set.override_file("prefx.txt", ""),
            Err(TemplateSetError::UnknownFile("prefx.txt".into()))
        );
        assert!(matches!(
            set.override_file("prefix.txt", "{{befor}}"),
            Err(TemplateSetError::Invalid { .. })
        ));
    }
}
