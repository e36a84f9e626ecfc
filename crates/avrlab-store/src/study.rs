//! Studies and reviews: a study's plan and its cells (each cell one eval run), and a reviewer
//! model's judgement of a candidate, stored beside the candidate's test verdict.

use rusqlite::{OptionalExtension, params};

use crate::store::{Store, StoreError, word};
use avrlab_core::ReviewDecision;

/// A stored study.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudyRow {
    /// The study's name (from its file).
    pub id: String,
    /// A hash of the resolved plan: a resume must find the same one.
    pub plan_hash: String,
    /// The resolved plan, as JSON.
    pub plan: String,
    pub finished_at: Option<String>,
}

/// One cell of a study: an eval run of one benchmark variant, model, format and offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StudyCellRow {
    pub run_id: String,
    pub benchmark: String,
    /// `original`, or the transformation the benchmark variant was made with.
    pub variant: String,
    pub model: String,
    pub format: String,
    pub fl_offset: i64,
}

/// A reviewer model's judgement of one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ReviewRow {
    pub candidate_id: String,
    /// The reviewer model's name.
    pub reviewer: String,
    pub decision: ReviewDecision,
    /// The reason the reviewer gave (empty when it gave none or could not be read).
    pub reason: String,
    /// The reviewer's whole answer.
    pub raw: String,
    pub latency_ms: u64,
    pub cached: bool,
    /// Why the reviewer gave no answer.
    pub error: Option<String>,
}

impl Store {
    /// Creates a study and its cells, atomically.
    pub fn create_study(
        &mut self,
        study: &StudyRow,
        cells: &[StudyCellRow],
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        tx.execute(
            "INSERT INTO studies (id, created_at, plan_hash, plan) VALUES (?1, datetime('now'), ?2, ?3)",
            params![study.id, study.plan_hash, study.plan],
        )
        .map_err(sqlite)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT INTO study_cells (study_id, seq, run_id, benchmark, variant, model, format, fl_offset)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)",
                )
                .map_err(sqlite)?;
            for (seq, cell) in cells.iter().enumerate() {
                insert
                    .execute(params![
                        study.id,
                        seq as i64,
                        cell.run_id,
                        cell.benchmark,
                        cell.variant,
                        cell.model,
                        cell.format,
                        cell.fl_offset
                    ])
                    .map_err(sqlite)?;
            }
        }
        tx.commit().map_err(sqlite)
    }

    /// The study with this id.
    pub fn study(&self, id: &str) -> Result<Option<StudyRow>, StoreError> {
        self.conn
            .query_row(
                "SELECT id, plan_hash, plan, finished_at FROM studies WHERE id = ?1",
                [id],
                |r| {
                    Ok(StudyRow {
                        id: r.get(0)?,
                        plan_hash: r.get(1)?,
                        plan: r.get(2)?,
                        finished_at: r.get(3)?,
                    })
                },
            )
            .optional()
            .map_err(self.err())
    }

    /// A study's cells, in plan order.
    pub fn study_cells(&self, study_id: &str) -> Result<Vec<StudyCellRow>, StoreError> {
        self.all_rows(
            "SELECT run_id, benchmark, variant, model, format, fl_offset FROM study_cells
                 WHERE study_id = ?1 ORDER BY seq",
            [study_id],
            |r| {
                Ok(StudyCellRow {
                    run_id: r.get(0)?,
                    benchmark: r.get(1)?,
                    variant: r.get(2)?,
                    model: r.get(3)?,
                    format: r.get(4)?,
                    fl_offset: r.get(5)?,
                })
            },
        )
    }

    /// Marks a study finished.
    pub fn finish_study(&mut self, id: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE studies SET finished_at = datetime('now') WHERE id = ?1",
                [id],
            )
            .map(drop)
            .map_err(self.err())
    }

    /// Stores one review of a candidate of `run_id` (a later review by the same reviewer
    /// replaces it).
    pub fn record_review(&mut self, run_id: &str, review: &ReviewRow) -> Result<(), StoreError> {
        self.conn
            .execute(
                "INSERT OR REPLACE INTO reviews (run_id, candidate_id, reviewer, decision, reason, raw,
                     latency_ms, cached, error, reviewed_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, datetime('now'))",
                params![
                    run_id,
                    review.candidate_id,
                    review.reviewer,
                    review.decision.as_str(),
                    review.reason,
                    review.raw,
                    review.latency_ms as i64,
                    review.cached,
                    review.error
                ],
            )
            .map(drop)
            .map_err(self.err())
    }

    /// Every review of a run's candidates, by candidate then reviewer.
    pub fn reviews(&self, run_id: &str) -> Result<Vec<ReviewRow>, StoreError> {
        self.all_rows(
            "SELECT candidate_id, reviewer, decision, reason, raw, latency_ms, cached, error
                 FROM reviews WHERE run_id = ?1 ORDER BY candidate_id, reviewer",
            [run_id],
            |r| {
                Ok(ReviewRow {
                    candidate_id: r.get(0)?,
                    reviewer: r.get(1)?,
                    decision: word(r, 2, ReviewDecision::parse)?,
                    reason: r.get(3)?,
                    raw: r.get(4)?,
                    latency_ms: r.get::<_, i64>(5)? as u64,
                    cached: r.get(6)?,
                    error: r.get(7)?,
                })
            },
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NewCandidate, NewRun, RunMode};

    #[test]
    fn studies_cells_and_reviews_read_back() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let study = StudyRow {
            id: "ih".into(),
            plan_hash: "abc".into(),
            plan: "{}".into(),
            finished_at: None,
        };
        let cell = StudyCellRow {
            run_id: "ih/demo/original/local/chat-p1/-2".into(),
            benchmark: "demo".into(),
            variant: "original".into(),
            model: "local".into(),
            format: "chat-p1".into(),
            fl_offset: -2,
        };
        store
            .create_study(&study, std::slice::from_ref(&cell))
            .unwrap();
        assert_eq!(store.study("ih").unwrap(), Some(study.clone()));
        assert_eq!(store.study_cells("ih").unwrap(), vec![cell.clone()]);
        assert!(store.create_study(&study, &[]).is_err(), "ids are unique");
        store.finish_study("ih").unwrap();
        assert!(store.study("ih").unwrap().unwrap().finished_at.is_some());

        let run = NewRun {
            id: cell.run_id.clone(),
            benchmark: "demo".into(),
            mode: RunMode::Eval,
            input_hash: "h".into(),
            config: avrlab_core::RunConfig::default(),
        };
        let candidate = NewCandidate {
            id: "c1".into(),
            task: "t".into(),
            label: "l".into(),
            kind: avrlab_core::CandidateKind::Diff,
            content: String::new(),
        };
        store.create_run(&run, &[candidate]).unwrap();
        let review = ReviewRow {
            candidate_id: "c1".into(),
            reviewer: "local".into(),
            decision: ReviewDecision::Unparseable,
            reason: String::new(),
            raw: "maybe".into(),
            latency_ms: 5,
            cached: false,
            error: None,
        };
        store.record_review(&run.id, &review).unwrap();
        assert_eq!(store.reviews(&run.id).unwrap(), vec![review.clone()]);
        let mut unknown = review;
        unknown.candidate_id = "c2".into();
        assert!(
            store.record_review(&run.id, &unknown).is_err(),
            "a review names a candidate of the run"
        );
    }
}
