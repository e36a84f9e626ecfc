//! The exact McNemar test for paired binary outcomes (e.g. model A vs model B on the same tasks):
//! under the null hypothesis the discordant pairs split as Binomial(b + c, 1/2).

/// The result of an exact McNemar test.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct McNemar {
    /// Pairs where only the first condition succeeded.
    pub only_first: u64,
    /// Pairs where only the second condition succeeded.
    pub only_second: u64,
    /// The two-sided exact p-value, `min(1, 2 · P[X ≤ min(b, c)])` with X ~ Binomial(b + c, 1/2).
    pub p_value: f64,
}

/// The exact two-sided McNemar test from the discordant counts `b` (only first) and `c` (only second).
/// With no discordant pair there is no evidence of a difference and the p-value is 1.
pub fn mcnemar_exact(only_first: u64, only_second: u64) -> McNemar {
    let n = only_first + only_second;
    let smaller = only_first.min(only_second);
    // Sum the binomial pmf in log space so that thousands of tasks do not overflow.
    let ln_half_n = -(n as f64) * std::f64::consts::LN_2;
    let mut ln_choose = 0.0; // ln C(n, 0)
    let mut tail = 0.0;
    for i in 0..=smaller {
        if i > 0 {
            ln_choose += ((n - i + 1) as f64).ln() - (i as f64).ln();
        }
        tail += (ln_choose + ln_half_n).exp();
    }
    McNemar {
        only_first,
        only_second,
        p_value: (2.0 * tail).min(1.0),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values are exact binomial sums, worked by hand:
    /// b=1, c=9: 2·(C(10,0)+C(10,1))/2^10 = 22/1024; b=0, c=5: 2/32; b=2, c=8: 2·56/1024.
    /// (R's `binom.test(1, 10)$p.value` = 0.02148438 agrees.)
    #[test]
    fn exact_p_values() {
        let cases = [
            (1, 9, 22.0 / 1024.0),
            (9, 1, 22.0 / 1024.0),
            (0, 5, 2.0 / 32.0),
            (2, 8, 2.0 * 56.0 / 1024.0),
            (3, 3, 1.0),
            (0, 0, 1.0),
        ];
        for (b, c, expected) in cases {
            let got = mcnemar_exact(b, c).p_value;
            assert!(
                (got - expected).abs() < 1e-12,
                "b={b}, c={c}: {got} vs {expected}"
            );
        }
    }

    #[test]
    fn large_counts_do_not_overflow() {
        // 600 vs 400 discordant pairs: a clear difference, p far below 1e-8 but positive.
        let p = mcnemar_exact(600, 400).p_value;
        assert!(p > 0.0 && p < 1e-8, "{p}");
    }
}
