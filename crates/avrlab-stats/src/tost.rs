//! The paired two one-sided tests (TOST) procedure for equivalence (Schuirmann 1987): are two
//! conditions measured on the same units (e.g. the same tasks under two transformations) equivalent
//! within ±margin? Equivalence is declared when both one-sided t tests reject at level α, i.e. when the
//! (1 − 2α) confidence interval of the mean difference lies inside (−margin, +margin).

use crate::distribution::{student_t_cdf, student_t_quantile};

/// The result of a paired TOST.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Tost {
    /// The mean of `first[i] − second[i]`.
    pub mean_difference: f64,
    /// Degrees of freedom, pairs − 1.
    pub df: f64,
    /// p-value of H0: difference ≤ −margin.
    pub p_lower: f64,
    /// p-value of H0: difference ≥ +margin.
    pub p_upper: f64,
    /// The TOST p-value, the larger of the two.
    pub p_value: f64,
    /// The (1 − 2α) confidence interval of the mean difference.
    pub interval: (f64, f64),
    /// Whether equivalence is declared at level α.
    pub equivalent: bool,
}

/// Why a TOST could not be run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum TostError {
    /// The two samples are not paired: their lengths differ.
    #[error("pair samples of {first} and {second} values")]
    UnpairedLengths {
        /// Length of the first sample.
        first: usize,
        /// Length of the second sample.
        second: usize,
    },
    /// Fewer than two pairs: no variance, no test.
    #[error("run an equivalence test on {0} pair(s); at least 2 are needed")]
    TooFewPairs(usize),
    /// The margin was not a positive number.
    #[error("test equivalence within margin {0}, which is not positive")]
    BadMargin(f64),
    /// α was not strictly between 0 and 0.5.
    #[error("test at alpha {0}, which is not in (0, 0.5)")]
    BadAlpha(f64),
}

/// Paired TOST of `first` against `second` with equivalence bounds ±`margin` at level `alpha`
/// (0.05 is customary, giving a 90% interval).
pub fn paired_tost(
    first: &[f64],
    second: &[f64],
    margin: f64,
    alpha: f64,
) -> Result<Tost, TostError> {
    if first.len() != second.len() {
        return Err(TostError::UnpairedLengths {
            first: first.len(),
            second: second.len(),
        });
    }
    if first.len() < 2 {
        return Err(TostError::TooFewPairs(first.len()));
    }
    if !(margin > 0.0 && margin.is_finite()) {
        return Err(TostError::BadMargin(margin));
    }
    if !(alpha > 0.0 && alpha < 0.5) {
        return Err(TostError::BadAlpha(alpha));
    }
    let differences: Vec<f64> = first.iter().zip(second).map(|(a, b)| a - b).collect();
    let n = differences.len() as f64;
    let mean = differences.iter().sum::<f64>() / n;
    let variance = differences.iter().map(|d| (d - mean).powi(2)).sum::<f64>() / (n - 1.0);
    let se = (variance / n).sqrt();
    let df = n - 1.0;
    let (p_lower, p_upper, interval) = if se == 0.0 {
        // Every pair differs by the same amount: the difference is known exactly.
        let inside_lower = if mean > -margin { 0.0 } else { 1.0 };
        let inside_upper = if mean < margin { 0.0 } else { 1.0 };
        (inside_lower, inside_upper, (mean, mean))
    } else {
        let t_crit = student_t_quantile(1.0 - alpha, df);
        (
            1.0 - student_t_cdf((mean + margin) / se, df),
            student_t_cdf((mean - margin) / se, df),
            (mean - t_crit * se, mean + t_crit * se),
        )
    };
    let p_value = p_lower.max(p_upper);
    Ok(Tost {
        mean_difference: mean,
        df,
        p_lower,
        p_upper,
        p_value,
        interval,
        equivalent: p_value < alpha,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values from scipy 1.x: with d = first − second, se = d.std(ddof=1)/√n,
    /// p_lower = t.sf((d.mean()+δ)/se, n−1) and p_upper = t.cdf((d.mean()−δ)/se, n−1)
    /// (the same numbers as R's `TOSTER::t_TOST(paired = TRUE)`).
    #[test]
    fn matches_scipy() {
        let first = [0.50, 0.40, 0.45, 0.60, 0.55, 0.35, 0.50, 0.42];
        let second = [0.40, 0.45, 0.43, 0.60, 0.52, 0.37, 0.46, 0.41];
        let result = paired_tost(&first, &second, 0.1, 0.05).unwrap();
        assert!((result.mean_difference - 0.01625).abs() < 1e-12);
        assert!(
            (result.p_lower - P_LOWER).abs() < 1e-9,
            "{}",
            result.p_lower
        );
        assert!(
            (result.p_upper - P_UPPER).abs() < 1e-9,
            "{}",
            result.p_upper
        );
        assert!(result.equivalent);
        // A margin narrower than the noise: not equivalent.
        assert!(!paired_tost(&first, &second, 0.01, 0.05).unwrap().equivalent);
    }

    const P_LOWER: f64 = 7.415_858_104_578_221e-5;
    const P_UPPER: f64 = 5.393_432_631_028_585e-4;

    #[test]
    fn constant_difference() {
        let result = paired_tost(&[1.0, 2.0, 3.0], &[1.05, 2.05, 3.05], 0.1, 0.05).unwrap();
        assert!(result.equivalent);
        let result = paired_tost(&[1.0, 2.0, 3.0], &[1.5, 2.5, 3.5], 0.1, 0.05).unwrap();
        assert!(!result.equivalent);
    }

    #[test]
    fn rejects_bad_input() {
        assert_eq!(
            paired_tost(&[1.0], &[1.0, 2.0], 0.1, 0.05),
            Err(TostError::UnpairedLengths {
                first: 1,
                second: 2
            })
        );
        assert_eq!(
            paired_tost(&[1.0], &[1.0], 0.1, 0.05),
            Err(TostError::TooFewPairs(1))
        );
        assert_eq!(
            paired_tost(&[1.0, 2.0], &[1.0, 2.0], 0.0, 0.05),
            Err(TostError::BadMargin(0.0))
        );
        assert_eq!(
            paired_tost(&[1.0, 2.0], &[1.0, 2.0], 0.1, 0.5),
            Err(TostError::BadAlpha(0.5))
        );
    }
}
