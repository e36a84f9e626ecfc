//! Reports of eval runs, computed only from stored rows so that every number can be traced: a
//! summary per model in the shape of VJBench's Table 4 (correct and plausible fixes, compile rate,
//! duplicate rate, pass@k with the unbiased estimator, Wilson 95% intervals, and the mean ± 95%
//! margin across runs, what the answers cost) and a task × model matrix in the shape of its Table 5; rendered as Markdown,
//! CSV, JSON, LaTeX, or one self-contained HTML page with SVG plots (`html.rs`, `svg.rs`, from the
//! numbers of `figures.rs`).

mod completeness;
mod cost;
mod cutoff;
mod engine_checks;
mod eval_report;
pub mod figures;
mod html;
mod latex;
mod probe_summary;
mod published;
mod render;
mod study_report;
mod svg;
mod task_cell;
mod validation_report;

pub use completeness::Completeness;
pub use cost::CostSummary;
pub use cutoff::{CUTOFF_MIN_TASKS, CutoffDifference, CutoffSide, CutoffSplit};
pub use engine_checks::{Disagreement, EngineChecks};
pub use eval_report::{
    DIFFERENTIAL_HEADING, DifferentialCounts, EvalReport, EvalReportOptions, ModelSummary,
    ReportError, TaskCell, build_eval_report, build_eval_report_with, differential_cell,
    has_differential,
};
pub use html::{CHECK_ATTRIBUTE, render_html};
pub use latex::{escape as escape_latex, render_latex};
pub use probe_summary::{ProbeCorrelation, ProbePoint, ProbeSummary};
pub use published::{PublishedAgreement, PublishedLabel, UnknownLabel};
pub use render::{ReportFormat, render};
pub use study_report::{
    AuditorAgreement, Comparison, CweRow, GridCell, OffsetGrid, Rates, ReviewerDifferential,
    ReviewerMatrix, StudyFormat, StudyReport, StudyReportError, TostLine, build_study_report,
    render_study,
};
pub use svg::escape as escape_html;
pub use validation_report::{
    ValidationReport, ValidationRow, build_validation_report, outcome_counts, render_validation,
    verdict_rows,
};
