//! Prompts for automated vulnerability repair: the input formats of the literature (infill with
//! `BUG`/`FIXED` comments, mask tokens, prefix completion, the fine-tune comment form, fill-in-the-middle
//! tokens, chat prompts P1–P4), fault-localization offsets, and the way back from a model's raw answer
//! to a candidate method or diff.
//!
//! Pure: no I/O. Templates are data files embedded at compile time; a caller that reads a user's
//! template directory hands the texts to [`TemplateSet::override_file`].

mod cwe;
mod extract;
mod format;
mod java_scan;
mod localization;
mod method;
mod render;
mod review;
mod template;
mod template_set;

pub use cwe::cwe_info;
pub use extract::{Candidate, NoCandidate, extract};
pub use format::{ChatLevel, FimFamily, Format, MaskModel, UnknownFormat};
pub use java_scan::normalize;
pub use localization::{FlOffset, apply_fl_offset};
pub use method::{CweInfo, LineRange, MethodError, VulnerableMethod};
pub use render::{
    ChatMessage, Frame, Prompt, RenderError, RenderOptions, RenderedPrompt, Renderer, Role,
};
pub use review::{parse_review, review_prompt};
pub use template::{Template, TemplateError};
pub use template_set::{TemplateSet, TemplateSetError};
