//! What kind of change a stored candidate is, and the word the store keeps for it.

use std::fmt;

use crate::vocabulary::UnknownWord;

/// Which localized region a replacement replaces.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ReplacementTarget {
    /// The whole method of localization entry `n`.
    Method(usize),
    /// Hunk `hunk` of localization entry `n`.
    Hunk { method: usize, hunk: usize },
}

/// The kind of a stored candidate: `unchanged`, `diff`, `replacement:method:N`,
/// `replacement:hunk:M:N` (the localization entry, then the hunk) or `malformed`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CandidateKind {
    /// No change: the task state itself (the vulnerable version).
    Unchanged,
    /// A unified diff against the task state.
    Diff,
    /// New text for a localized method or hunk.
    Replacement(ReplacementTarget),
    /// A predictions line whose `patch` is not a unified diff, kept (with
    /// `--allow-apply-failures`) so that it counts as `ApplyFailed`.
    Malformed,
}

impl CandidateKind {
    /// The kind a stored word names. Only the stored spelling is read (`replacement:method:0`,
    /// never the shorthand `method` a predictions file may use).
    pub fn parse(word: &str) -> Result<Self, UnknownWord> {
        let refuse = || {
            UnknownWord::new(
                "candidate kind",
                word,
                &[
                    "unchanged",
                    "diff",
                    "replacement:method:N",
                    "replacement:hunk:M:N",
                    "malformed",
                ],
            )
        };
        let number = |text: &str| {
            // Only plain decimal digits, as `Display` writes them (no sign, no blank).
            if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
                return Err(refuse());
            }
            text.parse::<usize>().map_err(|_| refuse())
        };
        match word.split(':').collect::<Vec<_>>().as_slice() {
            ["unchanged"] => Ok(Self::Unchanged),
            ["diff"] => Ok(Self::Diff),
            ["malformed"] => Ok(Self::Malformed),
            ["replacement", "method", m] => {
                Ok(Self::Replacement(ReplacementTarget::Method(number(m)?)))
            }
            ["replacement", "hunk", m, h] => Ok(Self::Replacement(ReplacementTarget::Hunk {
                method: number(m)?,
                hunk: number(h)?,
            })),
            _ => Err(refuse()),
        }
    }
}

impl fmt::Display for CandidateKind {
    /// The stored word.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Unchanged => f.write_str("unchanged"),
            Self::Diff => f.write_str("diff"),
            Self::Malformed => f.write_str("malformed"),
            Self::Replacement(ReplacementTarget::Method(m)) => write!(f, "replacement:method:{m}"),
            Self::Replacement(ReplacementTarget::Hunk { method, hunk }) => {
                write!(f, "replacement:hunk:{method}:{hunk}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_kind_reads_back() {
        for kind in [
            CandidateKind::Unchanged,
            CandidateKind::Diff,
            CandidateKind::Replacement(ReplacementTarget::Method(0)),
            CandidateKind::Replacement(ReplacementTarget::Method(12)),
            CandidateKind::Replacement(ReplacementTarget::Hunk { method: 0, hunk: 3 }),
            CandidateKind::Replacement(ReplacementTarget::Hunk { method: 2, hunk: 0 }),
        ] {
            assert_eq!(CandidateKind::parse(&kind.to_string()), Ok(kind));
        }
        assert_eq!(
            CandidateKind::Replacement(ReplacementTarget::Hunk { method: 1, hunk: 2 }).to_string(),
            "replacement:hunk:1:2"
        );
    }

    #[test]
    fn other_words_are_refused() {
        for word in [
            "",
            "Diff",
            "diff:",
            "method",
            "replacement",
            "replacement:method",
            "replacement:method:",
            "replacement:method:+1",
            "replacement:method:-1",
            "replacement:method: 1",
            "replacement:hunk:1",
            "replacement:hunk:1:2:3",
            "replacement:method:99999999999999999999999",
        ] {
            let error = CandidateKind::parse(word).unwrap_err();
            assert_eq!(error.what, "candidate kind", "{word}");
        }
    }
}
