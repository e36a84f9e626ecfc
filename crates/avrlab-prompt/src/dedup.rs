//! Duplicate detection among candidates: each distinct candidate (up to whitespace and comments) is
//! validated once, duplicates share its verdict, and the duplicate rate is reported.

use std::collections::HashMap;

use crate::extract::Candidate;

/// Whether a candidate was seen before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Seen {
    /// The first candidate with its key: validate it. Holds its index among distinct candidates.
    New(usize),
    /// A duplicate of the distinct candidate with this index: reuse its verdict.
    DuplicateOf(usize),
}

/// Tracks distinct candidates by [`Candidate::dedup_key`].
#[derive(Debug, Default, Clone)]
pub struct Deduplicator {
    distinct: HashMap<String, usize>,
    total: usize,
}

impl Deduplicator {
    /// An empty tracker.
    pub fn new() -> Self {
        Self::default()
    }

    /// Records a candidate and says whether it is new.
    pub fn observe(&mut self, candidate: &Candidate) -> Seen {
        self.total += 1;
        let next = self.distinct.len();
        match self.distinct.entry(candidate.dedup_key()) {
            std::collections::hash_map::Entry::Occupied(first) => Seen::DuplicateOf(*first.get()),
            std::collections::hash_map::Entry::Vacant(slot) => {
                slot.insert(next);
                Seen::New(next)
            }
        }
    }

    /// Candidates observed.
    pub fn total(&self) -> usize {
        self.total
    }

    /// Distinct candidates observed.
    pub fn distinct(&self) -> usize {
        self.distinct.len()
    }

    /// The fraction of observed candidates that were duplicates (0 when none were observed).
    pub fn duplicate_rate(&self) -> f64 {
        if self.total == 0 {
            0.0
        } else {
            (self.total - self.distinct.len()) as f64 / self.total as f64
        }
    }
}
