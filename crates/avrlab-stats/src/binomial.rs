//! Confidence intervals for a binomial proportion (e.g. the fraction of tasks a model fixes): the
//! Wilson score interval and the Agresti–Coull interval, both well behaved at 0 and n successes where
//! the textbook Wald interval collapses (Brown, Cai & DasGupta 2001, "Interval Estimation for a
//! Binomial Proportion").

use crate::distribution::normal_quantile;

/// A two-sided confidence interval around a point estimate.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Interval {
    /// The observed proportion `successes / trials`.
    pub estimate: f64,
    /// The lower bound, within `[0, 1]`.
    pub lower: f64,
    /// The upper bound, within `[0, 1]`.
    pub upper: f64,
}

/// Why an interval could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum IntervalError {
    /// There were no trials, so there is no proportion.
    #[error("compute an interval from zero trials")]
    ZeroTrials,
    /// More successes than trials were reported.
    #[error("compute an interval for {successes} successes out of {trials} trials")]
    SuccessesExceedTrials {
        /// The successes reported.
        successes: u64,
        /// The trials reported.
        trials: u64,
    },
    /// The confidence level was not strictly between 0 and 1.
    #[error("compute an interval at confidence {0}, which is not in (0, 1)")]
    BadConfidence(f64),
}

fn check(successes: u64, trials: u64, confidence: f64) -> Result<f64, IntervalError> {
    if trials == 0 {
        return Err(IntervalError::ZeroTrials);
    }
    if successes > trials {
        return Err(IntervalError::SuccessesExceedTrials { successes, trials });
    }
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(IntervalError::BadConfidence(confidence));
    }
    Ok(normal_quantile(1.0 - (1.0 - confidence) / 2.0))
}

/// The Wilson score interval at the given two-sided `confidence` (0.95 for the usual 95%).
pub fn wilson(successes: u64, trials: u64, confidence: f64) -> Result<Interval, IntervalError> {
    let z = check(successes, trials, confidence)?;
    let n = trials as f64;
    let p = successes as f64 / n;
    let z2 = z * z;
    let denominator = 1.0 + z2 / n;
    let centre = (p + z2 / (2.0 * n)) / denominator;
    let half = z * (p * (1.0 - p) / n + z2 / (4.0 * n * n)).sqrt() / denominator;
    Ok(Interval {
        estimate: p,
        lower: (centre - half).max(0.0),
        upper: (centre + half).min(1.0),
    })
}

/// The Agresti–Coull interval: the Wald interval around `(x + z²/2) / (n + z²)`, clamped to `[0, 1]`.
pub fn agresti_coull(
    successes: u64,
    trials: u64,
    confidence: f64,
) -> Result<Interval, IntervalError> {
    let z = check(successes, trials, confidence)?;
    let z2 = z * z;
    let n_tilde = trials as f64 + z2;
    let p_tilde = (successes as f64 + z2 / 2.0) / n_tilde;
    let half = z * (p_tilde * (1.0 - p_tilde) / n_tilde).sqrt();
    Ok(Interval {
        estimate: successes as f64 / trials as f64,
        lower: (p_tilde - half).max(0.0),
        upper: (p_tilde + half).min(1.0),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn assert_interval(got: Interval, lower: f64, upper: f64) {
        assert!(
            (got.lower - lower).abs() < 1e-6 && (got.upper - upper).abs() < 1e-6,
            "got [{}, {}], expected [{lower}, {upper}]",
            got.lower,
            got.upper
        );
    }

    /// Expected bounds are R's `prop.test(x, n, correct = FALSE)$conf.int` (the Wilson interval; 8/10
    /// gives the often-quoted [0.4901625, 0.9433178]); the others were recomputed from Wilson's formula
    /// with scipy's `norm.ppf(0.975)` and rounded to 7 decimals.
    #[test]
    fn wilson_matches_r_prop_test() {
        let cases = [
            (8, 10, 0.490_162_5, 0.943_317_8),
            (0, 10, 0.0, 0.277_532_8),
            (10, 10, 0.722_467_2, 1.0),
            (1, 2, 0.094_531_2, 0.905_468_8),
            (50, 100, 0.403_831_5, 0.596_168_5),
        ];
        for (x, n, lower, upper) in cases {
            assert_interval(wilson(x, n, 0.95).unwrap(), lower, upper);
        }
    }

    /// Expected bounds from Agresti & Coull (1998)'s definition with z = scipy `norm.ppf(0.975)`:
    /// 8/10 → ñ = 13.8415, p̃ = 0.716735, p̃ ± z·sqrt(p̃(1-p̃)/ñ), rounded to 7 decimals.
    #[test]
    fn agresti_coull_matches_its_definition() {
        assert_interval(
            agresti_coull(8, 10, 0.95).unwrap(),
            0.479_367_6,
            0.954_112_7,
        );
        // 0/10: the lower bound clamps to 0.
        assert_eq!(agresti_coull(0, 10, 0.95).unwrap().lower, 0.0);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(wilson(1, 0, 0.95), Err(IntervalError::ZeroTrials));
        assert_eq!(
            wilson(3, 2, 0.95),
            Err(IntervalError::SuccessesExceedTrials {
                successes: 3,
                trials: 2
            })
        );
        assert_eq!(
            agresti_coull(1, 2, 1.0),
            Err(IntervalError::BadConfidence(1.0))
        );
    }
}
