//! Pearson's correlation of two paired samples, with the two-sided p-value of "no correlation"
//! (Student's t with n − 2 degrees of freedom, which equals the exact distribution of r under
//! independent normal samples) and the confidence interval by Fisher's z transformation, as
//! `scipy.stats.pearsonr` and its `confidence_interval()` compute them.

use crate::distribution::{normal_quantile, student_t_cdf};

/// A correlation and what can be said of it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Correlation {
    /// Pairs.
    pub n: usize,
    /// Pearson's r.
    pub r: f64,
    /// Two-sided p-value of r = 0.
    pub p_value: f64,
    /// The interval at the confidence asked for (Fisher's z).
    pub lower: f64,
    pub upper: f64,
}

/// Why there is no correlation to report.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CorrelationError {
    /// The samples differ in length.
    #[error("{0} values against {1}: a correlation needs pairs")]
    Unpaired(usize, usize),
    /// Fisher's interval needs four pairs.
    #[error("{0} pairs: a correlation's interval needs at least 4")]
    TooFew(usize),
    /// A sample with no spread has no correlation.
    #[error("one sample has the same value throughout: it correlates with nothing")]
    Constant,
    /// A value is not finite, or the confidence is not in (0, 1).
    #[error("the values must be finite and the confidence in (0, 1)")]
    Invalid,
}

/// Pearson's r of `xs` and `ys` with its p-value and `confidence` interval.
pub fn pearson(xs: &[f64], ys: &[f64], confidence: f64) -> Result<Correlation, CorrelationError> {
    if xs.len() != ys.len() {
        return Err(CorrelationError::Unpaired(xs.len(), ys.len()));
    }
    let n = xs.len();
    if n < 4 {
        return Err(CorrelationError::TooFew(n));
    }
    if !(confidence > 0.0 && confidence < 1.0) || xs.iter().chain(ys).any(|v| !v.is_finite()) {
        return Err(CorrelationError::Invalid);
    }
    let mean = |v: &[f64]| v.iter().sum::<f64>() / n as f64;
    let (mx, my) = (mean(xs), mean(ys));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (x, y) in xs.iter().zip(ys) {
        let (dx, dy) = (x - mx, y - my);
        sxy += dx * dy;
        sxx += dx * dx;
        syy += dy * dy;
    }
    if sxx == 0.0 || syy == 0.0 {
        return Err(CorrelationError::Constant);
    }
    let r = (sxy / (sxx.sqrt() * syy.sqrt())).clamp(-1.0, 1.0);
    let df = (n - 2) as f64;
    let p_value = if r.abs() == 1.0 {
        0.0
    } else {
        let t = r * (df / (1.0 - r * r)).sqrt();
        (2.0 * student_t_cdf(-t.abs(), df)).min(1.0)
    };
    let (lower, upper) = if r.abs() == 1.0 {
        (r, r)
    } else {
        let z = r.atanh();
        let half = normal_quantile(1.0 - (1.0 - confidence) / 2.0) / ((n - 3) as f64).sqrt();
        ((z - half).tanh(), (z + half).tanh())
    };
    Ok(Correlation {
        n,
        r,
        p_value,
        lower,
        upper,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_perfect_line_and_the_refusals() {
        let c = pearson(&[1.0, 2.0, 3.0, 4.0], &[2.0, 4.0, 6.0, 8.0], 0.95).unwrap();
        for (got, want) in [(c.r, 1.0), (c.p_value, 0.0), (c.lower, 1.0), (c.upper, 1.0)] {
            assert!((got - want).abs() < 1e-9, "{c:?}");
        }
        assert_eq!(
            pearson(&[1.0, 2.0, 3.0], &[1.0, 2.0, 3.0], 0.95),
            Err(CorrelationError::TooFew(3))
        );
        assert_eq!(
            pearson(&[1.0; 5], &[1.0, 2.0, 3.0, 4.0, 5.0], 0.95),
            Err(CorrelationError::Constant)
        );
        assert_eq!(
            pearson(&[1.0; 5], &[1.0; 4], 0.95),
            Err(CorrelationError::Unpaired(5, 4))
        );
    }
}
