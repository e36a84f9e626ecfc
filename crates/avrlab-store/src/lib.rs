//! The results store: one SQLite file holding runs, their candidates, each candidate's verdict
//! and per-test results. A verdict is written in one transaction as soon as it lands, so a run
//! killed at any moment loses nothing already decided and can be resumed.

mod differential;
mod merge;
mod schema;
mod store;
mod study;

pub use avrlab_core::{
    AuditLabel, Correctness, Differential, ErrorCause, Extraction, ItemClass, ReviewDecision,
    RunMode, TestGroupResult, UnknownWord,
};
pub use differential::{ChangedLines, DifferentialRow, WitnessRow};
pub use merge::{MergeError, Merged};
pub use store::{
    AuditRow, CandidateRow, EngineRow, FeatureScoreRow, GenerationRow, NewCandidate, NewRun,
    PhaseRow, ProbeScoreRow, RunInfo, Store, StoreError, TaskDatesRow, TestRow, VerdictRow,
    VerdictSummary,
};
pub use study::{ReviewRow, StudyCellRow, StudyRow};
