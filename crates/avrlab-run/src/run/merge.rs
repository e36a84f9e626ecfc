//! `merge`: the stores of a sharded run's workers into one store. Every check is made before
//! anything is written, and the merge is written to a copy that replaces the target only when it
//! is whole, so a refused or failed merge leaves the target as it was.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use avrlab_core::{RunConfig, Shard};
use avrlab_store::{MergeError, Store, StoreError};

/// Why the shards were not merged.
#[derive(Debug, thiserror::Error)]
pub enum MergeFailure {
    #[error("shard store {0} does not exist: give the stores the shards wrote")]
    NoSuchShard(PathBuf),
    #[error("{0} holds no run of a sharded run (--shard K/N): give the stores the shards wrote")]
    NotAShard(PathBuf),
    #[error(
        "run `{run}`: {first} and {second} are shards of different plans ({why}): merge only the shards of one sharded run"
    )]
    OtherPlans {
        run: String,
        first: PathBuf,
        second: PathBuf,
        why: String,
    },
    #[error("run `{run}`: shard {shard} is given twice ({first} and {second})")]
    TwiceGiven {
        run: String,
        shard: Shard,
        first: PathBuf,
        second: PathBuf,
    },
    #[error(
        "run `{run}`: shard(s) {missing} of {count} missing: give every shard's store, or --partial to merge what there is"
    )]
    MissingShards {
        run: String,
        missing: String,
        count: u32,
    },
    #[error(
        "run `{run}`: shard {shard} ({path}) has not finished: resume it (--resume), or --partial to merge what there is"
    )]
    Unfinished {
        run: String,
        shard: Shard,
        path: PathBuf,
    },
    #[error(
        "run `{run}`: every shard finished, yet candidates of {tasks} have no verdict: a shard was run with another plan; run those tasks' shard again"
    )]
    Undecided { run: String, tasks: String },
    #[error(
        "{first} holds run `{first_run}` and {second} run `{second_run}`, shards of the same plan under different ids: start every shard with the same --run (a shard started without one takes its plan's id)"
    )]
    DifferentIds {
        first_run: String,
        first: PathBuf,
        second_run: String,
        second: PathBuf,
    },
    #[error(transparent)]
    Merge(#[from] MergeError),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("cannot replace {path} with the merged store")]
    Replace {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl MergeFailure {
    /// Whether the fault is in what was given (the shards or the target) rather than the machine.
    pub fn is_bad_input(&self) -> bool {
        !matches!(
            self,
            Self::Store(_) | Self::Replace { .. } | Self::Merge(MergeError::Store(_))
        )
    }
}

/// What was merged for one run.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MergedRun {
    pub run: String,
    /// The shards merged, in order.
    pub shards: Vec<Shard>,
    /// Shards of the plan that were not given (only with `--partial`).
    pub missing_shards: Vec<Shard>,
    pub candidates: usize,
    pub verdicts_added: usize,
    /// Candidates still without a verdict, by task (only with `--partial`).
    pub undecided: Vec<(String, usize)>,
}

/// One run of one shard store.
struct ShardRun {
    path: PathBuf,
    shard: Shard,
    input_hash: String,
    finished: bool,
    config: RunConfig,
}

/// Merges the runs of the `shards` stores into the store at `into` (created when missing).
pub fn merge_shards(
    into: &Path,
    shards: &[PathBuf],
    partial: bool,
) -> Result<Vec<MergedRun>, MergeFailure> {
    // Read and check everything first.
    let mut runs: BTreeMap<String, Vec<ShardRun>> = BTreeMap::new();
    for path in shards {
        if !path.is_file() {
            return Err(MergeFailure::NoSuchShard(path.clone()));
        }
        let store = Store::open(path)?;
        let mut sharded = 0;
        for run in store.runs()? {
            let Some(shard) = run.config.shard else {
                continue;
            };
            sharded += 1;
            runs.entry(run.id.clone()).or_default().push(ShardRun {
                path: path.clone(),
                shard,
                input_hash: run.input_hash,
                finished: run.finished_at.is_some(),
                config: run.config,
            });
        }
        if sharded == 0 {
            return Err(MergeFailure::NotAShard(path.clone()));
        }
    }
    // Shards of one plan (one mode, benchmark and input) stored under different ids would be
    // merged as several runs, each missing shards: say what differs instead.
    let mut by_plan: BTreeMap<&str, (&str, &ShardRun)> = BTreeMap::new();
    for (run, parts) in &runs {
        for part in parts {
            if let Some((other_run, other)) = by_plan.insert(&part.input_hash, (run, part))
                && other_run != run
            {
                return Err(MergeFailure::DifferentIds {
                    first_run: other_run.to_owned(),
                    first: other.path.clone(),
                    second_run: run.clone(),
                    second: part.path.clone(),
                });
            }
        }
    }
    let mut plans = Vec::new();
    for (run, parts) in &runs {
        plans.push(check_plan(run, parts, partial)?);
    }

    // Then write a copy of the target, and put it in place once it is whole.
    let merging = into.with_file_name(format!(
        ".{}.merging-{}",
        into.file_name()
            .map_or("store".into(), |n| n.to_string_lossy()),
        std::process::id()
    ));
    let _ = std::fs::remove_file(&merging);
    let result = write_merge(into, &merging, &runs, &plans, partial);
    match result {
        Ok(merged) => {
            std::fs::rename(&merging, into).map_err(|source| MergeFailure::Replace {
                path: into.to_owned(),
                source,
            })?;
            Ok(merged)
        }
        Err(e) => {
            for path in [
                merging.clone(),
                sidecar(&merging, "-wal"),
                sidecar(&merging, "-shm"),
            ] {
                let _ = std::fs::remove_file(path);
            }
            Err(e)
        }
    }
}

fn sidecar(path: &Path, suffix: &str) -> PathBuf {
    let mut name = path.as_os_str().to_owned();
    name.push(suffix);
    PathBuf::from(name)
}

/// The shards of one run agree on the plan; none is given twice; unless `partial`, none is
/// missing or unfinished. Returns the shards missing.
fn check_plan(run: &str, parts: &[ShardRun], partial: bool) -> Result<Vec<Shard>, MergeFailure> {
    let first = &parts[0];
    let mut seen: BTreeMap<u32, &Path> = BTreeMap::new();
    for part in parts {
        let why = if part.shard.count != first.shard.count {
            Some(format!(
                "{} shards against {}",
                part.shard.count, first.shard.count
            ))
        } else if part.input_hash != first.input_hash {
            Some("their inputs differ".to_owned())
        } else {
            None
        };
        if let Some(why) = why {
            return Err(MergeFailure::OtherPlans {
                run: run.to_owned(),
                first: first.path.clone(),
                second: part.path.clone(),
                why,
            });
        }
        if let Some(other) = seen.insert(part.shard.index, &part.path) {
            return Err(MergeFailure::TwiceGiven {
                run: run.to_owned(),
                shard: part.shard,
                first: other.to_owned(),
                second: part.path.clone(),
            });
        }
        if !part.finished && !partial {
            return Err(MergeFailure::Unfinished {
                run: run.to_owned(),
                shard: part.shard,
                path: part.path.clone(),
            });
        }
    }
    let count = first.shard.count;
    let missing: Vec<Shard> = (1..=count)
        .filter(|index| !seen.contains_key(index))
        .map(|index| Shard { index, count })
        .collect();
    if !missing.is_empty() && !partial {
        return Err(MergeFailure::MissingShards {
            run: run.to_owned(),
            missing: missing
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", "),
            count,
        });
    }
    Ok(missing)
}

fn write_merge(
    into: &Path,
    merging: &Path,
    runs: &BTreeMap<String, Vec<ShardRun>>,
    missing: &[Vec<Shard>],
    partial: bool,
) -> Result<Vec<MergedRun>, MergeFailure> {
    if into.exists() {
        Store::open(into)?.copy_to(merging)?;
    }
    let mut store = Store::open(merging)?;
    let mut merged = Vec::new();
    for ((run, parts), missing) in runs.iter().zip(missing) {
        let config = RunConfig {
            shard: None,
            ..parts[0].config.clone()
        };
        let mut verdicts_added = 0;
        let mut order: Vec<&ShardRun> = parts.iter().collect();
        order.sort_by_key(|p| p.shard);
        for part in &order {
            verdicts_added += store.merge_run(&part.path, run, &config)?.verdicts;
        }
        let undecided = store.undecided_by_task(run)?;
        let complete = undecided.is_empty() && missing.is_empty();
        if complete {
            store.finish_run(run)?;
        } else if !partial {
            // Every shard finished, yet candidates lack a verdict: a shard validated less than
            // its part (it was given another plan's tasks); say which.
            return Err(MergeFailure::Undecided {
                run: run.clone(),
                tasks: describe_undecided(&undecided),
            });
        }
        merged.push(MergedRun {
            run: run.clone(),
            shards: order.iter().map(|p| p.shard).collect(),
            missing_shards: missing.clone(),
            candidates: store.candidates(run)?.len(),
            verdicts_added,
            undecided,
        });
    }
    // The studies whose cells these runs are: each shard stores the whole plan; a study is
    // finished once every cell's run is.
    let mut studies = std::collections::BTreeSet::new();
    for path in runs.values().flatten().map(|part| &part.path) {
        studies.extend(store.merge_studies(path)?);
    }
    for study in &studies {
        if store.study(study)?.is_some_and(|s| s.finished_at.is_some()) {
            continue;
        }
        let mut finished = true;
        for cell in store.study_cells(study)? {
            finished &= store
                .run(&cell.run_id)?
                .is_some_and(|run| run.finished_at.is_some());
        }
        if finished {
            store.finish_study(study)?;
        }
    }
    drop(store);
    Ok(merged)
}

/// What `avrlab merge` prints.
pub fn render_merged(into: &Path, merged: &[MergedRun]) -> String {
    let mut text = String::new();
    for run in merged {
        let shards: Vec<String> = run.shards.iter().map(ToString::to_string).collect();
        text.push_str(&format!(
            "run {}: shards {} merged into {}: {} candidates, {} verdicts added\n",
            run.run,
            shards.join(", "),
            into.display(),
            run.candidates,
            run.verdicts_added
        ));
        if !run.missing_shards.is_empty() {
            let missing: Vec<String> = run.missing_shards.iter().map(ToString::to_string).collect();
            text.push_str(&format!("  missing shards: {}\n", missing.join(", ")));
        }
        if !run.undecided.is_empty() {
            text.push_str(&format!(
                "  without a verdict (the run stays unfinished): {}\n",
                describe_undecided(&run.undecided)
            ));
        }
    }
    text
}

/// `task (n), …` of the candidates without a verdict.
pub(crate) fn describe_undecided(undecided: &[(String, usize)]) -> String {
    undecided
        .iter()
        .map(|(task, n)| format!("{task} ({n})"))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use avrlab_core::Outcome;
    use avrlab_store::{NewCandidate, NewRun, RunMode, VerdictRow};

    use super::*;

    /// A shard store of run `r` (two tasks, a candidate each): shard `index` of 2 holding
    /// verdicts for `decided`, finished or not.
    fn shard(dir: &Path, index: u32, decided: &[&str], finished: bool) -> PathBuf {
        shard_named(dir, "r", index, decided, finished)
    }

    /// A shard store as [`shard`] makes it, of a run named `id`.
    fn shard_named(dir: &Path, id: &str, index: u32, decided: &[&str], finished: bool) -> PathBuf {
        let path = dir.join(format!("shard-{id}-{index}-{}.sqlite", decided.join("-")));
        let mut store = Store::open(&path).unwrap();
        let run = NewRun {
            id: id.into(),
            benchmark: "demo".into(),
            mode: RunMode::Reference,
            input_hash: "plan".into(),
            config: RunConfig {
                shard: Some(Shard { index, count: 2 }),
                ..RunConfig::default()
            },
        };
        let candidates: Vec<NewCandidate> = ["a", "b"]
            .map(|task| NewCandidate {
                id: task.into(),
                task: task.into(),
                label: task.into(),
                kind: avrlab_core::CandidateKind::Unchanged,
                content: String::new(),
            })
            .into();
        store.create_run(&run, &candidates).unwrap();
        for id in decided {
            let verdict = VerdictRow {
                error_cause: None,
                outcome: Outcome::Plausible,
                reason: String::new(),
                wall_ms: 1,
                diagnostics: Vec::new(),
                phases: Vec::new(),
                tests: Vec::new(),
                engine: None,
            };
            store.record_verdict(&run.id, id, &verdict).unwrap();
        }
        if finished {
            store.finish_run(&run.id).unwrap();
        }
        path
    }

    #[test]
    fn unfinished_twice_given_and_plain_stores_are_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let into = dir.path().join("all.sqlite");
        let (one, two) = (
            shard(dir.path(), 1, &["a"], true),
            shard(dir.path(), 2, &[], false),
        );
        let refused = merge_shards(&into, &[one.clone(), two.clone()], false).unwrap_err();
        assert!(
            matches!(refused, MergeFailure::Unfinished { .. }),
            "{refused}"
        );
        let again = shard(dir.path(), 1, &["b"], true);
        let refused = merge_shards(&into, &[one.clone(), again], false).unwrap_err();
        assert!(
            matches!(refused, MergeFailure::TwiceGiven { .. }),
            "{refused}"
        );
        let plain = dir.path().join("plain.sqlite");
        Store::open(&plain).unwrap();
        let refused = merge_shards(&into, &[plain], false).unwrap_err();
        assert!(matches!(refused, MergeFailure::NotAShard(_)), "{refused}");
        assert!(refused.is_bad_input());
        assert!(!into.exists(), "a refused merge writes nothing");

        // With --partial what there is is merged, the run stays unfinished, and the missing
        // candidates are named by task.
        let merged = merge_shards(&into, &[one, two], true).unwrap();
        assert_eq!(merged[0].undecided, vec![("b".to_owned(), 1)]);
        let store = Store::open(&into).unwrap();
        assert!(store.run("r").unwrap().unwrap().finished_at.is_none());
        assert_eq!(store.verdicts("r").unwrap().len(), 1);
    }

    #[test]
    fn finished_shards_that_leave_a_candidate_undecided_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let into = dir.path().join("all.sqlite");
        let shards = [
            shard(dir.path(), 1, &["a"], true),
            shard(dir.path(), 2, &[], true),
        ];
        let refused = merge_shards(&into, &shards, false).unwrap_err();
        assert!(
            matches!(&refused, MergeFailure::Undecided { tasks, .. } if tasks == "b (1)"),
            "{refused}"
        );
        assert!(!into.exists());
    }

    #[test]
    fn shards_of_one_plan_under_different_ids_are_refused_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let into = dir.path().join("all.sqlite");
        let shards = [
            shard_named(dir.path(), "r-1", 1, &["a"], true),
            shard_named(dir.path(), "r-2", 2, &["b"], true),
        ];
        let refused = merge_shards(&into, &shards, false).unwrap_err();
        assert!(
            matches!(&refused, MergeFailure::DifferentIds { first_run, second_run, .. }
                if first_run == "r-1" && second_run == "r-2"),
            "{refused}"
        );
        assert!(refused.is_bad_input());
        assert!(!into.exists());
    }
}
