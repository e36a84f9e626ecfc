//! Fisher's exact test of a 2×2 table: whether two groups' success rates differ, exact for the
//! small counts a benchmark split produces (tasks fixed before and after a model's cut-off).

use crate::distribution::ln_gamma;

/// The result of a two-sided Fisher's exact test of `[[a, b], [c, d]]` (rows are groups, the
/// first column their successes).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Fisher {
    /// The sample odds ratio `a·d / (b·c)`: infinite when only `b·c` is 0, NaN when both are
    /// (as scipy reports it).
    pub odds_ratio: f64,
    /// The two-sided p-value: the probability, given the margins, of every table no more likely
    /// than the observed one.
    pub p_value: f64,
}

/// Tables whose probability is within this factor of the observed one's count as equally likely,
/// so that rounding never decides whether a tied table enters the p-value (R's `fisher.test`
/// uses the same relative tolerance).
const RELATIVE_TIE: f64 = 1.0 + 1e-7;

/// Fisher's exact two-sided test of the 2×2 table `[[a, b], [c, d]]`, as
/// `scipy.stats.fisher_exact` computes it. A table with an empty row or column carries no
/// evidence: its p-value is 1.
pub fn fisher_exact(a: u64, b: u64, c: u64, d: u64) -> Fisher {
    let odds_ratio = match (a * d, b * c) {
        (0, 0) => f64::NAN,
        (_, 0) => f64::INFINITY,
        (ad, bc) => ad as f64 / bc as f64,
    };
    let (row, other_row, column) = (a + b, c + d, a + c);
    let n = row + other_row;
    if row == 0 || other_row == 0 || column == 0 || column == n {
        return Fisher {
            odds_ratio,
            p_value: 1.0,
        };
    }
    // The top-left cell is hypergeometric given the margins; it ranges over [low, high].
    let low = column.saturating_sub(other_row);
    let high = column.min(row);
    let ln_choose = |n: u64, k: u64| {
        ln_gamma(n as f64 + 1.0) - ln_gamma(k as f64 + 1.0) - ln_gamma((n - k) as f64 + 1.0)
    };
    let ln_weights: Vec<f64> = (low..=high)
        .map(|x| ln_choose(row, x) + ln_choose(other_row, column - x))
        .collect();
    // Normalizing by the weights' own sum (not by C(n, column)) keeps the rounding of ln Γ out of
    // the probabilities' scale.
    let largest = ln_weights.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = ln_weights.iter().map(|w| (w - largest).exp()).collect();
    let total: f64 = weights.iter().sum();
    let observed = weights[(a - low) as usize];
    let as_likely: f64 = weights
        .iter()
        .filter(|&&w| w <= observed * RELATIVE_TIE)
        .sum();
    Fisher {
        odds_ratio,
        p_value: (as_likely / total).min(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Fisher's tea-tasting table: p = 34/70 · 2 / … worked by hand: the tables with 0 and 4 cups
    /// right each have 1/70, those with 1 and 3 have 16/70, 2 has 36/70; observed 3 → 34/70.
    #[test]
    fn the_tea_tasting_table() {
        let result = fisher_exact(3, 1, 1, 3);
        assert!((result.p_value - 34.0 / 70.0).abs() < 1e-12, "{result:?}");
        assert!((result.odds_ratio - 9.0).abs() < 1e-12);
        let extreme = fisher_exact(4, 0, 0, 4);
        assert!((extreme.p_value - 2.0 / 70.0).abs() < 1e-12, "{extreme:?}");
        assert!(extreme.odds_ratio.is_infinite());
    }

    #[test]
    fn empty_margins_carry_no_evidence() {
        assert_eq!(fisher_exact(0, 0, 3, 4).p_value, 1.0);
        assert_eq!(fisher_exact(0, 5, 0, 4).p_value, 1.0);
        assert!(fisher_exact(0, 5, 0, 4).odds_ratio.is_nan());
    }
}
