//! Sharding a run: a deterministic part of the plan for each of N workers. Tasks, not candidates,
//! are split, so a task's candidates stay together and share its warm-up and JVM pool; tasks go,
//! largest first, to the shard with the fewest candidates so far (ties to the lower shard), so
//! every worker gets the same partition from the same plan.

use std::collections::{BTreeMap, BTreeSet};

use avrlab_bench::Task;
use avrlab_core::Shard;

use crate::run::input::PlannedCandidate;

/// The tasks of `shard`, given every task's number of candidates.
pub(crate) fn shard_tasks(
    candidates_per_task: &BTreeMap<String, usize>,
    shard: Shard,
) -> BTreeSet<String> {
    let mut tasks: Vec<(&String, usize)> = candidates_per_task
        .iter()
        .map(|(task, count)| (task, *count))
        .collect();
    tasks.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(b.0)));
    let mut load = vec![0usize; shard.count as usize];
    let mut mine = BTreeSet::new();
    for (task, count) in tasks {
        let (lightest, _) = load
            .iter()
            .enumerate()
            .min_by_key(|(index, load)| (**load, *index))
            .expect("a shard count is at least 1");
        load[lightest] += count;
        if lightest + 1 == shard.index as usize {
            mine.insert(task.clone());
        }
    }
    mine
}

/// How many candidates each task has, given each candidate's task.
pub(crate) fn candidates_per_task<'a>(
    tasks: impl Iterator<Item = &'a String>,
) -> BTreeMap<String, usize> {
    let mut per_task = BTreeMap::new();
    for task in tasks {
        *per_task.entry(task.clone()).or_default() += 1;
    }
    per_task
}

/// The candidates of `planned` that `shard` validates (all of them without a shard).
pub(crate) fn shard_part(
    planned: &[PlannedCandidate],
    shard: Option<Shard>,
) -> Vec<PlannedCandidate> {
    let Some(shard) = shard else {
        return planned.to_vec();
    };
    let tasks = shard_tasks(&candidates_per_task(planned.iter().map(|p| &p.task)), shard);
    planned
        .iter()
        .filter(|p| tasks.contains(&p.task))
        .cloned()
        .collect()
}

/// The tasks of `tasks` that `shard` works on when every task brings as many candidates (an
/// eval's: one prompt per task, the same samples): whole tasks, balanced by their number.
pub fn shard_of_tasks<'a>(
    tasks: impl IntoIterator<Item = &'a Task>,
    shard: Option<Shard>,
) -> Vec<&'a Task> {
    let tasks: Vec<&Task> = tasks.into_iter().collect();
    let Some(shard) = shard else {
        return tasks;
    };
    let mine = shard_tasks(&candidates_per_task(tasks.iter().map(|t| &t.id)), shard);
    tasks.into_iter().filter(|t| mine.contains(&t.id)).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn counts(pairs: &[(&str, usize)]) -> BTreeMap<String, usize> {
        pairs.iter().map(|(t, n)| ((*t).to_owned(), *n)).collect()
    }

    #[test]
    fn every_task_lands_in_exactly_one_shard_and_the_load_is_balanced() {
        let per_task = counts(&[("a", 10), ("b", 7), ("c", 5), ("d", 3), ("e", 2), ("f", 1)]);
        let parts: Vec<BTreeSet<String>> = (1..=3)
            .map(|index| shard_tasks(&per_task, Shard { index, count: 3 }))
            .collect();
        let mut seen = BTreeSet::new();
        for part in &parts {
            for task in part {
                assert!(seen.insert(task.clone()), "{task} in two shards");
            }
        }
        assert_eq!(seen.len(), per_task.len());
        let loads: Vec<usize> = parts
            .iter()
            .map(|part| part.iter().map(|t| per_task[t]).sum())
            .collect();
        // 28 candidates, largest first to the lightest: a (10) | b + e (9) | c + d + f (9).
        assert_eq!(loads, vec![10, 9, 9]);
    }

    #[test]
    fn the_partition_is_the_same_whatever_order_the_plan_lists_tasks_in() {
        let one = counts(&[("x", 2), ("y", 2), ("z", 2)]);
        let shard = Shard { index: 2, count: 2 };
        assert_eq!(shard_tasks(&one, shard), shard_tasks(&one.clone(), shard));
        // Ties go by task id: x to shard 1, y to shard 2, z to shard 1.
        assert_eq!(
            shard_tasks(&one, shard).into_iter().collect::<Vec<_>>(),
            vec!["y".to_owned()]
        );
    }

    #[test]
    fn more_shards_than_tasks_leaves_some_shards_empty() {
        let per_task = counts(&[("only", 4)]);
        assert_eq!(
            shard_tasks(&per_task, Shard { index: 1, count: 3 }).len(),
            1
        );
        assert!(shard_tasks(&per_task, Shard { index: 3, count: 3 }).is_empty());
    }
}
