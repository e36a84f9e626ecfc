//! Pure statistics for avrlab reports: the unbiased pass@k estimator, binomial confidence intervals,
//! mean ± t margins across runs, the paired TOST equivalence test, the exact McNemar test,
//! Fisher's exact test of two groups' rates, Cohen's kappa between two raters and Pearson's
//! correlation with its Fisher-z interval.
//!
//! Everything here is a function of numbers; nothing reads files or the store, so any statistic in a
//! report can be recomputed from stored per-task, per-sample outcomes.

mod binomial;
mod correlation;
mod distribution;
mod fisher;
mod kappa;
mod mcnemar;
mod pass_at_k;
mod runs;
mod tost;

pub use binomial::{Interval, IntervalError, agresti_coull, wilson};
pub use correlation::{Correlation, CorrelationError, pearson};
pub use distribution::{normal_cdf, normal_quantile, student_t_cdf, student_t_quantile};
pub use fisher::{Fisher, fisher_exact};
pub use kappa::{Kappa, KappaError, cohen_kappa};
pub use mcnemar::{McNemar, mcnemar_exact};
pub use pass_at_k::{PassAtKError, mean_pass_at_k, pass_at_k};
pub use runs::{MarginError, MeanMargin, mean_with_margin};
pub use tost::{Tost, TostError, paired_tost};
