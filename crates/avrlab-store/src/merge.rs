//! Copying runs between stores: the shards of a sharded run (each written by one worker, in a
//! store of its own) merged into one. Merging is idempotent — a verdict already present is left
//! as it is, with its phases and tests — and refuses what would make the merged store lie: a run
//! of another plan under the same id, a candidate whose content differs, two different verdicts
//! for one candidate.

use std::path::Path;

use avrlab_core::RunConfig;
use rusqlite::{OptionalExtension, params};

use crate::store::{Store, StoreError};

/// Why a run could not be merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The run id stands for two different plans.
    #[error(
        "run `{run}` of {shard} has another plan than the run of that id already merged (input {theirs}, merged {ours}): merge only shards of one sharded run"
    )]
    OtherPlan {
        run: String,
        shard: String,
        ours: String,
        theirs: String,
    },
    /// One candidate id, two contents.
    #[error(
        "run `{run}`: candidate `{candidate}` of {shard} differs from the one already merged: merge only shards of one sharded run"
    )]
    CandidateDiffers {
        run: String,
        candidate: String,
        shard: String,
    },
    /// One study id, two plans.
    #[error(
        "study `{study}` of {shard} has another plan than the study of that id already merged: merge only shards of one sharded study"
    )]
    OtherStudy { study: String, shard: String },
    /// One candidate, two verdicts.
    #[error(
        "run `{run}`: candidate `{candidate}` is {theirs} in {shard} but {ours} in what is already merged: one of them was validated twice; keep one shard's result"
    )]
    VerdictsDiffer {
        run: String,
        candidate: String,
        shard: String,
        ours: String,
        theirs: String,
    },
}

/// What one merge added.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Merged {
    pub candidates: usize,
    pub verdicts: usize,
    pub generations: usize,
}

/// Rows that belong to a verdict: copied only with a verdict that is new to the merged store.
const WITH_VERDICT: [&str; 4] = ["phases", "test_results", "engines", "feature_scores"];

/// Rows keyed by their own primary key: copied unless already present.
const KEYED: [&str; 7] = [
    "generations",
    "generation_attempts",
    "verdict_attempts",
    "reviews",
    "audits",
    "differential",
    "task_dates",
];

impl Store {
    /// Writes a consistent copy of the store to `path`, which must not exist yet.
    pub fn copy_to(&self, path: &Path) -> Result<(), StoreError> {
        self.conn
            .execute("VACUUM INTO ?1", [path.to_string_lossy()])
            .map_err(self.err())?;
        Ok(())
    }

    /// Copies run `run_id` of the store at `shard` into this one, in one transaction. A run new
    /// to this store is registered with `config`; one already here must have the same input.
    pub fn merge_run(
        &mut self,
        shard: &Path,
        run_id: &str,
        config: &RunConfig,
    ) -> Result<Merged, MergeError> {
        let label = shard.display().to_string();
        self.conn
            .execute("ATTACH DATABASE ?1 AS shard", [shard.to_string_lossy()])
            .map_err(self.err())?;
        let merged = self.merge_attached(&label, run_id, config);
        self.conn
            .execute("DETACH DATABASE shard", [])
            .map_err(self.err())?;
        merged
    }

    fn merge_attached(
        &mut self,
        shard: &str,
        run_id: &str,
        config: &RunConfig,
    ) -> Result<Merged, MergeError> {
        let err = |source| StoreError::Sqlite {
            path: self.path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        let theirs: String = tx
            .query_row(
                "SELECT input_hash FROM shard.runs WHERE id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .map_err(err)?;
        let ours: Option<String> = tx
            .query_row(
                "SELECT input_hash FROM main.runs WHERE id = ?1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        match ours {
            Some(ours) if ours != theirs => {
                return Err(MergeError::OtherPlan {
                    run: run_id.to_owned(),
                    shard: shard.to_owned(),
                    ours,
                    theirs,
                });
            }
            Some(_) => {}
            None => {
                tx.execute(
                    "INSERT INTO main.runs (id, created_at, benchmark, mode, input_hash, config)
                     SELECT id, created_at, benchmark, mode, input_hash, ?2 FROM shard.runs
                     WHERE id = ?1",
                    params![run_id, config.to_json()],
                )
                .map_err(err)?;
            }
        }
        let differing: Option<String> = tx
            .query_row(
                "SELECT s.id FROM shard.candidates s JOIN main.candidates m
                   ON m.run_id = s.run_id AND m.id = s.id
                 WHERE s.run_id = ?1 AND (m.task <> s.task OR m.kind <> s.kind
                   OR m.content <> s.content OR m.seq <> s.seq OR m.label <> s.label)
                 LIMIT 1",
                [run_id],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        if let Some(candidate) = differing {
            return Err(MergeError::CandidateDiffers {
                run: run_id.to_owned(),
                candidate,
                shard: shard.to_owned(),
            });
        }
        let conflict: Option<(String, String, String)> = tx
            .query_row(
                "SELECT s.candidate_id, m.outcome, s.outcome FROM shard.verdicts s
                 JOIN main.verdicts m ON m.run_id = s.run_id AND m.candidate_id = s.candidate_id
                 WHERE s.run_id = ?1 AND m.outcome <> s.outcome LIMIT 1",
                [run_id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .optional()
            .map_err(err)?;
        if let Some((candidate, ours, theirs)) = conflict {
            return Err(MergeError::VerdictsDiffer {
                run: run_id.to_owned(),
                candidate,
                shard: shard.to_owned(),
                ours,
                theirs,
            });
        }
        let candidates = tx
            .execute(
                "INSERT OR IGNORE INTO main.candidates SELECT * FROM shard.candidates
                 WHERE run_id = ?1",
                [run_id],
            )
            .map_err(err)?;
        // A verdict's rows first, while "new to the merged store" can still be told.
        for table in WITH_VERDICT {
            tx.execute(
                &format!(
                    "INSERT INTO main.{table} SELECT * FROM shard.{table} t
                     WHERE t.run_id = ?1
                       AND EXISTS (SELECT 1 FROM shard.verdicts v
                                   WHERE v.run_id = t.run_id AND v.candidate_id = t.candidate_id)
                       AND NOT EXISTS (SELECT 1 FROM main.verdicts v
                                   WHERE v.run_id = t.run_id AND v.candidate_id = t.candidate_id)"
                ),
                [run_id],
            )
            .map_err(err)?;
        }
        let verdicts = tx
            .execute(
                "INSERT OR IGNORE INTO main.verdicts SELECT * FROM shard.verdicts WHERE run_id = ?1",
                [run_id],
            )
            .map_err(err)?;
        let mut generations = 0;
        for table in KEYED {
            let added = tx
                .execute(
                    &format!(
                        "INSERT OR IGNORE INTO main.{table} SELECT * FROM shard.{table}
                         WHERE run_id = ?1"
                    ),
                    [run_id],
                )
                .map_err(err)?;
            if table == "generations" {
                generations = added;
            }
        }
        tx.commit().map_err(err)?;
        Ok(Merged {
            candidates,
            verdicts,
            generations,
        })
    }

    /// Copies the studies of the store at `shard` (each shard of a sharded study stores the whole
    /// plan) into this one: a study new to this store with its cells, unfinished; one already
    /// here must have the same plan. Returns the ids of the shard's studies.
    pub fn merge_studies(&mut self, shard: &Path) -> Result<Vec<String>, MergeError> {
        let label = shard.display().to_string();
        self.conn
            .execute("ATTACH DATABASE ?1 AS shard", [shard.to_string_lossy()])
            .map_err(self.err())?;
        let merged = self.merge_attached_studies(&label);
        self.conn
            .execute("DETACH DATABASE shard", [])
            .map_err(self.err())?;
        merged
    }

    fn merge_attached_studies(&mut self, shard: &str) -> Result<Vec<String>, MergeError> {
        let err = |source| StoreError::Sqlite {
            path: self.path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(err)?;
        let other: Option<String> = tx
            .query_row(
                "SELECT s.id FROM shard.studies s JOIN main.studies m ON m.id = s.id
                 WHERE m.plan_hash <> s.plan_hash LIMIT 1",
                [],
                |r| r.get(0),
            )
            .optional()
            .map_err(err)?;
        if let Some(study) = other {
            return Err(MergeError::OtherStudy {
                study,
                shard: shard.to_owned(),
            });
        }
        tx.execute(
            "INSERT OR IGNORE INTO main.studies (id, created_at, plan_hash, plan, finished_at)
             SELECT id, created_at, plan_hash, plan, NULL FROM shard.studies",
            [],
        )
        .map_err(err)?;
        tx.execute(
            "INSERT OR IGNORE INTO main.study_cells SELECT * FROM shard.study_cells",
            [],
        )
        .map_err(err)?;
        let ids = {
            let mut select = tx
                .prepare("SELECT id FROM shard.studies ORDER BY id")
                .map_err(err)?;
            select
                .query_map([], |r| r.get(0))
                .map_err(err)?
                .collect::<Result<Vec<String>, _>>()
                .map_err(err)?
        };
        tx.commit().map_err(err)?;
        Ok(ids)
    }

    /// Candidates of `run_id` without a verdict, counted by task.
    pub fn undecided_by_task(&self, run_id: &str) -> Result<Vec<(String, usize)>, StoreError> {
        self.all_rows(
            "SELECT c.task, count(*) FROM candidates c
             LEFT JOIN verdicts v ON v.run_id = c.run_id AND v.candidate_id = c.id
             WHERE c.run_id = ?1 AND v.candidate_id IS NULL GROUP BY c.task ORDER BY c.task",
            [run_id],
            |r| Ok((r.get(0)?, r.get::<_, i64>(1)? as usize)),
        )
    }
}

#[cfg(test)]
mod tests {
    use std::path::PathBuf;

    use avrlab_core::{Outcome, Shard};

    use super::*;
    use crate::store::tests::{sample_run, verdict};

    /// A shard store of run `r1` holding verdicts for `decided` (outcome by candidate).
    fn shard(dir: &Path, name: &str, index: u32, decided: &[(&str, Outcome)]) -> PathBuf {
        let path = dir.join(name);
        let mut store = Store::open(&path).unwrap();
        let (mut run, candidates) = sample_run("r1");
        run.config.shard = Some(Shard { index, count: 2 });
        store.create_run(&run, &candidates).unwrap();
        for (candidate, outcome) in decided {
            store
                .record_verdict("r1", candidate, &verdict(*outcome))
                .unwrap();
        }
        store.finish_run("r1").unwrap();
        path
    }

    #[test]
    fn shards_merge_into_one_run_and_merging_again_changes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "1.sqlite", 1, &[("c0", Outcome::Plausible)]);
        let two = shard(
            dir.path(),
            "2.sqlite",
            2,
            &[("c1", Outcome::PovFailing), ("c2", Outcome::Uncompilable)],
        );
        let mut into = Store::open(&dir.path().join("all.sqlite")).unwrap();
        let config = RunConfig::default();
        let first = into.merge_run(&one, "r1", &config).unwrap();
        assert_eq!((first.candidates, first.verdicts), (3, 1));
        let second = into.merge_run(&two, "r1", &config).unwrap();
        assert_eq!((second.candidates, second.verdicts), (0, 2));
        assert!(into.undecided_by_task("r1").unwrap().is_empty());
        let phases = |store: &Store| {
            store
                .phase_log("r1", "c1", avrlab_core::Phase::Pov)
                .unwrap()
        };
        assert_eq!(phases(&into).as_deref(), Some("LOG"));
        assert_eq!(into.test_results("r1", "c1").unwrap().len(), 1);

        // A differential result of a shard's candidate comes along once.
        let mut with_differential = Store::open(&two).unwrap();
        let row = crate::DifferentialRow {
            candidate_id: "c1".into(),
            verdict: avrlab_core::Differential::NoDivergence,
            reason: String::new(),
            seed: 1,
            inputs: 10,
            divergent_inputs: 0,
            vulnerable_inputs: 0,
            seconds: 0.5,
            budget_seconds: 20.0,
            methods: vec!["a.B#m(java.lang.String)".into()],
            changed_lines: Some(crate::ChangedLines {
                total: 4,
                reached: 3,
            }),
            recorded_seeds: Some(2),
            // Flags, one per line, come along with it.
            flags: vec![
                "a/B.java: the call stack".into(),
                "a/B.java: class loading".into(),
            ],
            witness: None,
        };
        with_differential.record_differential("r1", &row).unwrap();
        drop(with_differential);
        into.merge_run(&two, "r1", &config).unwrap();
        assert_eq!(into.differentials("r1").unwrap(), vec![row]);

        // Again: nothing is added, no phase or test row is doubled.
        let again = into.merge_run(&two, "r1", &config).unwrap();
        assert_eq!(again, Merged::default());
        assert_eq!(into.test_results("r1", "c1").unwrap().len(), 1);
        assert_eq!(into.engines("r1").unwrap().len(), 3);
        assert_eq!(into.run("r1").unwrap().unwrap().config.shard, None);
    }

    #[test]
    fn another_plan_another_candidate_or_another_verdict_is_refused_and_nothing_added() {
        let dir = tempfile::tempdir().unwrap();
        let one = shard(dir.path(), "1.sqlite", 1, &[("c0", Outcome::Plausible)]);
        let twice = shard(dir.path(), "x.sqlite", 2, &[("c0", Outcome::PovFailing)]);
        let mut into = Store::open(&dir.path().join("all.sqlite")).unwrap();
        let config = RunConfig::default();
        into.merge_run(&one, "r1", &config).unwrap();
        let refused = into.merge_run(&twice, "r1", &config).unwrap_err();
        assert!(
            matches!(&refused, MergeError::VerdictsDiffer { candidate, .. } if candidate == "c0"),
            "{refused}"
        );

        let other = dir.path().join("other.sqlite");
        {
            let mut store = Store::open(&other).unwrap();
            let (mut run, mut candidates) = sample_run("r1");
            run.input_hash = "another plan".into();
            candidates[1].content = "--- b\n".into();
            store.create_run(&run, &candidates).unwrap();
        }
        let refused = into.merge_run(&other, "r1", &config).unwrap_err();
        assert!(matches!(refused, MergeError::OtherPlan { .. }), "{refused}");
        assert_eq!(into.verdicts("r1").unwrap().len(), 1);
    }
}
