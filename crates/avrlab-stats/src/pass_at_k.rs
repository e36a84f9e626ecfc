//! The unbiased pass@k estimator of Chen et al. 2021 ("Evaluating Large Language Models Trained on
//! Code", equation 1 and the numerically stable product form of its figure 3).

/// Why a pass@k estimate could not be computed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PassAtKError {
    /// `k` was zero; pass@0 has no meaning.
    #[error("estimate pass@k with k = 0")]
    ZeroK,
    /// More samples were asked for than were drawn (`k > n`), so the estimator is undefined.
    #[error("estimate pass@{k} from only {n} samples")]
    KExceedsSamples {
        /// The number of samples drawn.
        n: u64,
        /// The `k` asked for.
        k: u64,
    },
    /// More correct samples than samples were reported.
    #[error("count {correct} correct samples out of {n}")]
    CorrectExceedsSamples {
        /// The number of samples drawn.
        n: u64,
        /// The number reported correct.
        correct: u64,
    },
}

/// The probability that at least one of `k` samples drawn without replacement from `n` generated
/// samples, `correct` of which are correct, is correct: `1 - C(n-c, k) / C(n, k)`.
///
/// Computed as `1 - Π_{i=n-c+1}^{n} (1 - k/i)`, which never forms the huge binomial coefficients.
pub fn pass_at_k(n: u64, correct: u64, k: u64) -> Result<f64, PassAtKError> {
    if k == 0 {
        return Err(PassAtKError::ZeroK);
    }
    if k > n {
        return Err(PassAtKError::KExceedsSamples { n, k });
    }
    if correct > n {
        return Err(PassAtKError::CorrectExceedsSamples { n, correct });
    }
    // Fewer than k incorrect samples: every draw of k contains a correct one.
    if n - correct < k {
        return Ok(1.0);
    }
    let k = k as f64;
    let product: f64 = ((n - correct + 1)..=n)
        .map(|i| 1.0 - k / i as f64)
        .product();
    Ok(1.0 - product)
}

/// The mean of [`pass_at_k`] over tasks, each given as `(n, correct)`; `None` for no tasks.
pub fn mean_pass_at_k(tasks: &[(u64, u64)], k: u64) -> Result<Option<f64>, PassAtKError> {
    if tasks.is_empty() {
        return Ok(None);
    }
    let mut sum = 0.0;
    for &(n, correct) in tasks {
        sum += pass_at_k(n, correct, k)?;
    }
    Ok(Some(sum / tasks.len() as f64))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Expected values are the closed form 1 - C(n-c,k)/C(n,k), worked by hand in each comment.
    #[test]
    fn matches_the_closed_form() {
        let cases: &[(u64, u64, u64, f64)] = &[
            // pass@1 is the fraction correct: 3/10.
            (10, 3, 1, 0.3),
            // 1 - C(7,5)/C(10,5) = 1 - 21/252.
            (10, 3, 5, 1.0 - 21.0 / 252.0),
            // 1 - C(190,10)/C(200,10) = 1 - Π_{i=0}^{9} (190-i)/(200-i) ≈ 0.40289.
            (
                200,
                10,
                10,
                1.0 - (0..10)
                    .map(|i| (190.0 - i as f64) / (200.0 - i as f64))
                    .product::<f64>(),
            ),
            // No correct sample: zero.
            (5, 0, 3, 0.0),
            // Only 2 incorrect samples, k = 3: every draw holds a correct one.
            (5, 3, 3, 1.0),
            (1, 1, 1, 1.0),
        ];
        for &(n, c, k, expected) in cases {
            let got = pass_at_k(n, c, k).unwrap();
            assert!(
                (got - expected).abs() < 1e-12,
                "pass@{k}(n={n}, c={c}) = {got}, expected {expected}"
            );
        }
    }

    #[test]
    fn rejects_impossible_inputs() {
        assert_eq!(pass_at_k(5, 1, 0), Err(PassAtKError::ZeroK));
        assert_eq!(
            pass_at_k(5, 1, 6),
            Err(PassAtKError::KExceedsSamples { n: 5, k: 6 })
        );
        assert_eq!(
            pass_at_k(5, 6, 1),
            Err(PassAtKError::CorrectExceedsSamples { n: 5, correct: 6 })
        );
    }

    #[test]
    fn averages_over_tasks() {
        assert_eq!(mean_pass_at_k(&[], 1), Ok(None));
        let mean = mean_pass_at_k(&[(10, 3), (10, 0), (10, 10)], 1)
            .unwrap()
            .unwrap();
        assert!((mean - (0.3 + 0.0 + 1.0) / 3.0).abs() < 1e-12);
    }
}
