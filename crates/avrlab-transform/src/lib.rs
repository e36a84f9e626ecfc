//! Semantics-preserving rewrites of Java repair tasks, so that a model cannot recall the fix it may
//! have memorized (the VJBench-trans idea, done automatically). Pure: no I/O, no processes.
//!
//! # Entry point
//!
//! ```text
//! pub fn transform_task(input: &TaskSources, variant: Variant, seed: u64)
//!     -> Result<TransformOutput, TransformError>
//! ```
//!
//! [`TaskSources`] holds the project's Java files (path → text, tests included), the [`TargetMethod`]
//! (file, method lines, fix hunks), the fixed version of the files the fix changes, and the Java version.
//! [`Variant`] is `rename`, `structure` (every structure rule), `both`, or one [`Rule`] by name
//! (`Variant::from_str("for-to-while")`). The same input and seed always give the same output.
//!
//! [`TransformOutput`] holds the transformed project files (with [`TransformOutput::file_renames`] when a
//! renamed class moves its file), the transformed fixed files, the updated [`Localization`] (method
//! lines and hunks in the transformed file), the reference fix translated onto the transformed code (a
//! unified diff), the [`RenameMap`] (whose [`RenameMap::restore`] turns a model's patch written against
//! the transformed code back into the original names), and one [`RuleReport`] per site a rule applied
//! to or declined, with its file and line.
//!
//! # How the reference fix carries over
//!
//! Structure rules find their sites in the vulnerable *and* the fixed version of the target method and
//! apply a site only when both versions have it (anchored on the same unchanged lines) and both accept
//! it; renaming applies one map to both. The translated reference is then simply
//! `diff(transformed vulnerable, transformed fixed)`, and the hunks are that diff's changed lines.
//!
//! # Safety nets
//!
//! Every output re-parses with zero syntax errors, or the rewrite is dropped and reported. Rules that
//! need a type they cannot know decline (or use `var` on Java 10+). Execution-based verification (the
//! oracle) is the caller's job.
//!
//! Per-rule entry points: [`transform_task`] with `Variant::Rule(rule)`; [`choose_name`] and the
//! synonym helpers ([`split_identifier`], [`join_identifier`]) for renaming alone.

mod diff;
mod receiver;
mod rename;
mod scope;
mod structure;
mod synonyms;
mod task;

pub use avrlab_java::LineRange;
pub use diff::{changed_hunks, line_correspondence, unified_diff};
pub use rename::{RenameEntry, RenameKind, RenameMap, choose_name};
pub use synonyms::{CaseStyle, SplitIdentifier, SynonymTable, join_identifier, split_identifier};
pub use task::{
    Localization, Rule, RuleOutcome, RuleReport, TargetMethod, TaskSources, TransformError,
    TransformOutput, Variant, transform_task, transform_with_rules,
};
