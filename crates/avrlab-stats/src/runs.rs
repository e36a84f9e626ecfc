//! Mean ± margin of error across repeated runs (e.g. pass@1 over R runs of the same eval), using the
//! Student t quantile with R − 1 degrees of freedom.

use crate::distribution::student_t_quantile;

/// A sample mean with its two-sided t margin: the interval is `mean ± margin`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MeanMargin {
    /// The sample mean.
    pub mean: f64,
    /// The half-width `t_{1-α/2, n-1} · s / √n`.
    pub margin: f64,
    /// The sample standard deviation `s` (denominator n − 1).
    pub std_dev: f64,
    /// The number of runs.
    pub runs: usize,
}

/// Why a margin could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MarginError {
    /// Fewer than two runs: the spread, and so the margin, is undefined.
    #[error("compute a margin of error from {0} run(s); at least 2 are needed")]
    TooFewRuns(usize),
    /// The confidence level was not strictly between 0 and 1.
    #[error("compute a margin at confidence {0}, which is not in (0, 1)")]
    BadConfidence(f64),
}

/// The mean of `values` and its two-sided t margin at `confidence` (0.95 for the usual 95%).
pub fn mean_with_margin(values: &[f64], confidence: f64) -> Result<MeanMargin, MarginError> {
    if values.len() < 2 {
        return Err(MarginError::TooFewRuns(values.len()));
    }
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(MarginError::BadConfidence(confidence));
    }
    let n = values.len() as f64;
    let mean = values.iter().sum::<f64>() / n;
    let variance = values.iter().map(|v| (v - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let std_dev = variance.sqrt();
    let t = student_t_quantile(1.0 - (1.0 - confidence) / 2.0, n - 1.0);
    Ok(MeanMargin {
        mean,
        margin: t * std_dev / n.sqrt(),
        std_dev,
        runs: values.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Three runs 0.30, 0.40, 0.50: mean 0.4, s = 0.1, t_{0.975,2} = 4.302653 (t table), so the margin
    /// is 4.302653 · 0.1 / √3 = 0.248414 (R: t.test(c(.3,.4,.5))$conf.int gives 0.151586, 0.648414).
    #[test]
    fn three_runs() {
        let m = mean_with_margin(&[0.3, 0.4, 0.5], 0.95).unwrap();
        assert!((m.mean - 0.4).abs() < 1e-12);
        assert!((m.std_dev - 0.1).abs() < 1e-12);
        assert!((m.margin - 0.248_414).abs() < 1e-6, "{}", m.margin);
    }

    #[test]
    fn identical_runs_have_no_margin() {
        assert_eq!(mean_with_margin(&[0.5; 5], 0.95).unwrap().margin, 0.0);
    }

    #[test]
    fn needs_two_runs() {
        assert_eq!(
            mean_with_margin(&[0.5], 0.95),
            Err(MarginError::TooFewRuns(1))
        );
        assert_eq!(
            mean_with_margin(&[0.5, 0.6], 2.0),
            Err(MarginError::BadConfidence(2.0))
        );
    }
}
