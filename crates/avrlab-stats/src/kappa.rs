//! Cohen's kappa: how far two raters (e.g. two auditors labelling the same plausible patches)
//! agree beyond what their label frequencies alone would give, with the large-sample standard
//! error of Fleiss, Cohen & Everitt (1969, "Large sample standard errors of kappa and weighted
//! kappa") and the normal interval built on it.

use crate::distribution::normal_quantile;

/// Cohen's kappa of a square agreement table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Kappa {
    /// (observed agreement − chance agreement) / (1 − chance agreement).
    pub kappa: f64,
    /// The share of items both raters labelled alike.
    pub observed: f64,
    /// The agreement expected from the raters' label frequencies alone.
    pub chance: f64,
    /// The asymptotic standard error of kappa.
    pub std_error: f64,
    /// `kappa ± z · std_error` at the requested confidence.
    pub interval: (f64, f64),
    /// How many items both raters labelled.
    pub items: u64,
}

/// Why kappa could not be computed.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum KappaError {
    /// The table is not square (rater A's categories must be rater B's).
    #[error("compute kappa from a table that is not square")]
    NotSquare,
    /// No item was rated by both.
    #[error("compute kappa from no item rated by both raters")]
    NoItems,
    /// Both raters used one and the same category for everything: chance agreement is 1 and
    /// kappa is undefined.
    #[error("compute kappa when both raters give every item the same single label")]
    Degenerate,
    /// The confidence level was not strictly between 0 and 1.
    #[error("compute a kappa interval at confidence {0}, which is not in (0, 1)")]
    BadConfidence(f64),
}

/// Cohen's kappa of `table`, where `table[a][b]` counts the items rater A labelled `a` and rater B
/// labelled `b`, with a two-sided interval at `confidence`.
pub fn cohen_kappa(table: &[Vec<u64>], confidence: f64) -> Result<Kappa, KappaError> {
    let k = table.len();
    if table.iter().any(|row| row.len() != k) {
        return Err(KappaError::NotSquare);
    }
    if !(confidence > 0.0 && confidence < 1.0) {
        return Err(KappaError::BadConfidence(confidence));
    }
    let items: u64 = table.iter().flatten().sum();
    if items == 0 {
        return Err(KappaError::NoItems);
    }
    let n = items as f64;
    let p = |i: usize, j: usize| table[i][j] as f64 / n;
    // Row shares are rater A's label frequencies, column shares rater B's.
    let row: Vec<f64> = (0..k).map(|i| (0..k).map(|j| p(i, j)).sum()).collect();
    let col: Vec<f64> = (0..k).map(|j| (0..k).map(|i| p(i, j)).sum()).collect();
    let observed: f64 = (0..k).map(|i| p(i, i)).sum();
    let chance: f64 = (0..k).map(|i| row[i] * col[i]).sum();
    if chance >= 1.0 {
        return Err(KappaError::Degenerate);
    }
    let kappa = (observed - chance) / (1.0 - chance);
    // Fleiss, Cohen & Everitt's variance: agreement cells, disagreement cells, and a correction.
    let on_diagonal: f64 = (0..k)
        .map(|i| p(i, i) * (1.0 - (row[i] + col[i]) * (1.0 - kappa)).powi(2))
        .sum();
    let off_diagonal: f64 = (0..k)
        .flat_map(|i| (0..k).filter(move |&j| j != i).map(move |j| (i, j)))
        .map(|(i, j)| p(i, j) * (col[i] + row[j]).powi(2))
        .sum::<f64>()
        * (1.0 - kappa).powi(2);
    let correction = (kappa - chance * (1.0 - kappa)).powi(2);
    let variance = (on_diagonal + off_diagonal - correction) / ((1.0 - chance).powi(2) * n);
    let std_error = variance.max(0.0).sqrt();
    let z = normal_quantile(1.0 - (1.0 - confidence) / 2.0);
    Ok(Kappa {
        kappa,
        observed,
        chance,
        std_error,
        interval: (kappa - z * std_error, kappa + z * std_error),
        items,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn perfect_and_chance_agreement() {
        let perfect = cohen_kappa(&[vec![5, 0], vec![0, 5]], 0.95).unwrap();
        assert_eq!((perfect.kappa, perfect.observed), (1.0, 1.0));
        // Independent raters with equal margins: observed = chance, kappa = 0.
        let chance = cohen_kappa(&[vec![5, 5], vec![5, 5]], 0.95).unwrap();
        assert!(chance.kappa.abs() < 1e-15, "{chance:?}");
    }

    #[test]
    fn refuses_what_has_no_kappa() {
        assert_eq!(cohen_kappa(&[vec![1, 2]], 0.95), Err(KappaError::NotSquare));
        assert_eq!(
            cohen_kappa(&[vec![0, 0], vec![0, 0]], 0.95),
            Err(KappaError::NoItems)
        );
        assert_eq!(
            cohen_kappa(&[vec![4, 0], vec![0, 0]], 0.95),
            Err(KappaError::Degenerate)
        );
    }
}
