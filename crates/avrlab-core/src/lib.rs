//! The vocabulary of avrlab: the words that cross crate and store boundaries (outcomes, phases,
//! test statuses, engines, check kinds, run modes, candidate kinds …) as enums, each written with
//! `as_str` and read back with `parse`, so no crate compares spellings and an unknown word is an
//! error, never a silently different value. Beside the words: the typed configuration every run
//! stores ([`RunConfig`]), the one reader of files untrusted code wrote
//! ([`read_untrusted_file`]), and where a shared file is made before it is renamed into place
//! ([`partial_path`]). The bottom of the crate graph: it depends on no other avrlab crate.

mod blame;
mod candidate_kind;
mod month;
mod partial;
mod run_config;
mod untrusted_file;
mod vocabulary;

pub use blame::{Blame, Blamed, Stop};
pub use candidate_kind::{CandidateKind, ReplacementTarget};
pub use month::{BadMonth, Month, fix_month};
pub use partial::partial_path;
pub use run_config::{BadShard, MalformedRunConfig, ModelPrice, ReplaySource, RunConfig, Shard};
pub use untrusted_file::{RegularFile, UntrustedFileError, kind_of, read_untrusted_file};
pub use vocabulary::{
    AuditLabel, CheckKind, Correctness, Differential, Engine, ErrorCause, Extraction, ItemClass,
    Outcome, Phase, ReviewDecision, RunMode, TestGroupResult, TestStatus, UnknownWord, counted,
};
