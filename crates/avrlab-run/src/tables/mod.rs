//! What a run or a benchmark prints: run summaries, the reference check's table, SWE-bench's
//! report.json, task cards, the curation tables.

pub mod curate_tables;
pub mod reference_check;
pub mod summary;
pub mod swe_report;
pub mod task_card;
