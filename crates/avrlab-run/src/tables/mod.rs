//! What a run or a benchmark prints: run summaries, the reference check's table, SWE-bench's
//! report.json, task cards, the curation tables.

pub(crate) mod curate_tables;
pub(crate) mod reference_check;
pub(crate) mod summary;
pub(crate) mod swe_report;
pub(crate) mod task_card;
