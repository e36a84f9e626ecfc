//! Reports of eval runs, computed only from stored rows so that every number can be traced: a
//! summary per model in the shape of VJBench's Table 4 (correct and plausible fixes, compile rate,
//! duplicate rate, pass@k with the unbiased estimator, Wilson 95% intervals, and the mean ± 95%
//! margin across runs) and a task × model matrix in the shape of its Table 5.

mod eval_report;
mod render;

pub use eval_report::{EvalReport, ModelSummary, ReportError, TaskCell, build_eval_report};
pub use render::{ReportFormat, render};
