//! Running a sharded run on a Slurm cluster: an array job of N workers, each validating its shard
//! into a store of its own (restartable: a worker resumes what its store holds), and a merge job
//! that waits for the whole array. The batch scripts are written beside the stores, readable and
//! editable; `slurm.json` there records the plan and the jobs, for `status` and `resume`.

use std::collections::{BTreeMap, HashSet};
use std::path::{Path, PathBuf};

use avrlab_core::Shard;
use avrlab_exec::{JobState, Scheduler, SlurmError};
use avrlab_store::{RunMode, Store};
use serde::{Deserialize, Serialize};

use crate::run::shard::{candidates_per_task, shard_tasks};

/// Flags that `slurm submit` sets itself in each worker's command line.
const SET_BY_SUBMIT: [&str; 4] = ["--store", "--shard", "--resume", "--resume-if-started"];

/// Why a Slurm submission was refused or failed.
#[derive(Debug, thiserror::Error)]
pub enum SlurmRunError {
    #[error(
        "avrlab slurm submit runs `validate`, `eval`, `replay` and `study` shards (for `curate`, run `curate --shard K/N` in an array job of your own: its shards share --out); got `{0}`"
    )]
    NotSharded(String),
    #[error("{0} is set by avrlab slurm submit for each shard; leave it out of the command line")]
    SetBySubmit(String),
    #[error("--shards {0}: give at least 1")]
    NoShards(u32),
    #[error(
        "{0} holds no slurm.json: give the --dir of an avrlab slurm submit (it was written there)"
    )]
    NotSubmitted(PathBuf),
    #[error("{path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error("{path} is not the slurm.json avrlab writes: {message}")]
    Malformed { path: PathBuf, message: String },
    #[error(transparent)]
    Slurm(#[from] SlurmError),
    #[error(transparent)]
    Store(#[from] avrlab_store::StoreError),
}

impl SlurmRunError {
    /// Whether the fault is in what the user gave.
    pub fn is_bad_input(&self) -> bool {
        matches!(
            self,
            Self::NotSharded(_)
                | Self::SetBySubmit(_)
                | Self::NoShards(_)
                | Self::NotSubmitted(_)
                | Self::Malformed { .. }
        )
    }
}

/// What each worker asks of Slurm.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Resources {
    pub partition: Option<String>,
    /// `--time` (e.g. `02:00:00`).
    pub time: Option<String>,
    pub cpus: Option<u32>,
    /// `--mem` (e.g. `16G`).
    pub mem: Option<String>,
    /// Further `sbatch` options, one each.
    pub sbatch_args: Vec<String>,
}

/// A sharded run to submit.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SlurmPlan {
    /// Scripts, logs and shard stores.
    pub dir: PathBuf,
    /// The store the shards are merged into.
    pub into: PathBuf,
    pub shards: u32,
    /// The avrlab binary the jobs run (on a file system the nodes share).
    pub avrlab: PathBuf,
    /// The worker's command line, without the flags submit sets; it names its run (`--run`).
    pub command: Vec<String>,
    pub run: String,
    pub resources: Resources,
}

/// The jobs submitted for a plan, newest last.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) struct Submissions {
    pub plan: Option<SlurmPlan>,
    /// (array job, shards it ran, merge job) per submission.
    pub jobs: Vec<Submitted>,
}

/// One submission: an array job of some shards and the merge job that waits for it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Submitted {
    pub array: String,
    pub shards: Vec<u32>,
    pub merge: String,
}

/// The worker's command line: `validate …` or `eval …` with a run id (`--run`), or `study …`
/// with a study id (`--name`), `default_run` when it names none; flags that submit sets for each
/// shard are refused. Returns the command line and the id.
pub(crate) fn worker_command(
    args: &[String],
    default_run: &str,
) -> Result<(Vec<String>, String), SlurmRunError> {
    let first = args.first().map(String::as_str).unwrap_or_default();
    let id_flag = match first {
        "validate" | "eval" | "replay" => "--run",
        "study" => "--name",
        _ => return Err(SlurmRunError::NotSharded(args.join(" "))),
    };
    let mut run = None;
    for (i, arg) in args.iter().enumerate() {
        let name = arg.split('=').next().unwrap_or_default();
        if SET_BY_SUBMIT.contains(&name) {
            return Err(SlurmRunError::SetBySubmit(name.to_owned()));
        }
        if name == id_flag {
            run = arg
                .split_once('=')
                .map(|(_, v)| v.to_owned())
                .or_else(|| args.get(i + 1).cloned());
        }
    }
    let mut command = args.to_vec();
    let run = match run {
        Some(run) => run,
        None => {
            command.extend([id_flag.to_owned(), default_run.to_owned()]);
            default_run.to_owned()
        }
    };
    Ok((command, run))
}

/// The store shard `index` writes.
pub(crate) fn shard_store(dir: &Path, index: u32) -> PathBuf {
    dir.join(format!("shard-{index}.sqlite"))
}

/// A word for the shell, in single quotes.
fn quoted(word: &str) -> String {
    format!("'{}'", word.replace('\'', r"'\''"))
}

fn command_line(words: impl IntoIterator<Item = String>) -> String {
    words
        .into_iter()
        .map(|w| quoted(&w))
        .collect::<Vec<_>>()
        .join(" ")
}

fn directives(plan: &SlurmPlan, name: &str, output: &Path) -> String {
    let mut lines = vec![
        format!("#SBATCH --job-name={name}"),
        format!("#SBATCH --output={}", output.display()),
    ];
    let r = &plan.resources;
    if let Some(p) = &r.partition {
        lines.push(format!("#SBATCH --partition={p}"));
    }
    if let Some(t) = &r.time {
        lines.push(format!("#SBATCH --time={t}"));
    }
    if let Some(c) = r.cpus {
        lines.push(format!("#SBATCH --cpus-per-task={c}"));
    }
    if let Some(m) = &r.mem {
        lines.push(format!("#SBATCH --mem={m}"));
    }
    for arg in &r.sbatch_args {
        lines.push(format!("#SBATCH {arg}"));
    }
    lines.join("\n")
}

/// The array job's script: each task validates its shard, resuming what its store holds.
pub(crate) fn array_script(plan: &SlurmPlan) -> String {
    let store = format!(
        "{}/shard-${{SLURM_ARRAY_TASK_ID}}.sqlite",
        quoted(&plan.dir.to_string_lossy())
    );
    format!(
        "#!/bin/bash\n\
         # One shard of run {run} a task: written by `avrlab slurm submit`; edit freely.\n\
         # `avrlab slurm resume --dir {dir}` submits it again for the shards that did not finish.\n\
         {directives}\n\
         #SBATCH --array=1-{n}\n\
         set -euo pipefail\n\
         exec {avrlab} {command} --store {store} --shard \"${{SLURM_ARRAY_TASK_ID}}/{n}\" --resume-if-started\n",
        run = plan.run,
        dir = plan.dir.display(),
        directives = directives(
            plan,
            &format!("avrlab-{}", plan.run),
            &plan.dir.join("shard-%a.log")
        ),
        n = plan.shards,
        avrlab = quoted(&plan.avrlab.to_string_lossy()),
        command = command_line(plan.command.iter().cloned()),
    )
}

/// The merge job's script: every shard's store into the target.
pub(crate) fn merge_script(plan: &SlurmPlan) -> String {
    let shards =
        (1..=plan.shards).map(|k| shard_store(&plan.dir, k).to_string_lossy().into_owned());
    format!(
        "#!/bin/bash\n\
         # The merge of run {run}'s shards: written by `avrlab slurm submit`; it runs once the\n\
         # array job has ended well (--dependency=afterok).\n\
         {directives}\n\
         set -euo pipefail\n\
         exec {avrlab} merge --into {into} {shards}\n",
        run = plan.run,
        directives = directives(
            plan,
            &format!("avrlab-{}-merge", plan.run),
            &plan.dir.join("merge.log")
        ),
        avrlab = quoted(&plan.avrlab.to_string_lossy()),
        into = quoted(&plan.into.to_string_lossy()),
        shards = command_line(shards),
    )
}

fn io(path: &Path) -> impl Fn(std::io::Error) -> SlurmRunError + '_ {
    move |source| SlurmRunError::Io {
        path: path.to_owned(),
        source,
    }
}

fn record_path(dir: &Path) -> PathBuf {
    dir.join("slurm.json")
}

/// Reads the record of what was submitted from `dir`.
pub(crate) fn read_submissions(dir: &Path) -> Result<Submissions, SlurmRunError> {
    let path = record_path(dir);
    if !path.is_file() {
        return Err(SlurmRunError::NotSubmitted(dir.to_owned()));
    }
    let text = std::fs::read_to_string(&path).map_err(io(&path))?;
    serde_json::from_str(&text).map_err(|e| SlurmRunError::Malformed {
        path: path.clone(),
        message: e.to_string(),
    })
}

fn write_submissions(dir: &Path, record: &Submissions) -> Result<(), SlurmRunError> {
    let path = record_path(dir);
    let partial = dir.join(".slurm.json.partial");
    let text = serde_json::to_string_pretty(record).expect("the record serializes") + "\n";
    std::fs::write(&partial, text).map_err(io(&partial))?;
    std::fs::rename(&partial, &path).map_err(io(&path))
}

/// Flags of the worker's command line whose values are paths: made absolute, since the jobs run
/// in Slurm's working folder.
const PATH_FLAGS: [&str; 6] = [
    "--benchmark",
    "--patches",
    "--work-dir",
    "--mirrors",
    "--config",
    "--report-json",
];

impl SlurmPlan {
    /// The plan of `avrlab slurm submit`: the worker's command (`args`, checked, with a run id
    /// and absolute paths), the folder (`slurm-<run>` by default) and the target, made absolute.
    pub fn new(
        args: &[String],
        shards: u32,
        dir: Option<PathBuf>,
        into: &Path,
        resources: Resources,
    ) -> Result<Self, SlurmRunError> {
        let unix = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs());
        let (mut command, run) = worker_command(args, &format!("slurm-{unix}"))?;
        let absolute = |path: &Path| std::path::absolute(path).map_err(io(path));
        for i in 1..command.len() {
            if PATH_FLAGS.contains(&command[i - 1].as_str()) && Path::new(&command[i]).exists() {
                command[i] = absolute(Path::new(&command[i]))?
                    .to_string_lossy()
                    .into_owned();
            }
        }
        let dir = dir.unwrap_or_else(|| PathBuf::from(format!("slurm-{run}")));
        let avrlab = std::env::current_exe().map_err(io(Path::new("avrlab")))?;
        Ok(Self {
            dir: absolute(&dir)?,
            into: absolute(into)?,
            shards,
            avrlab,
            command,
            run,
            resources,
        })
    }

    /// One line: what was submitted.
    pub fn describe(&self, submitted: &Submitted) -> String {
        format!(
            "run {}: array job {} ({} shards, scripts and stores in {}), merge job {} into {}\n",
            self.run,
            submitted.array,
            self.shards,
            self.dir.display(),
            submitted.merge,
            self.into.display()
        )
    }
}

/// What `avrlab slurm status` prints.
pub fn render_status(status: &RunStatus) -> String {
    let mut text = format!(
        "run {}: array job {}, merge job {} ({})\n",
        status.plan.run,
        status.latest.array,
        status.latest.merge,
        status.merge.as_deref().unwrap_or("unknown to Slurm")
    );
    for shard in &status.shards {
        let done = match shard.done {
            Some((done, all)) => format!("{done} of {all} candidates validated"),
            None => "not started".to_owned(),
        };
        text.push_str(&format!(
            "  shard {}: {}, {done}\n",
            shard.shard,
            shard.state.as_deref().unwrap_or("unknown to Slurm")
        ));
    }
    text
}

/// What `avrlab slurm resume` prints.
pub fn render_resumed(resumed: Option<&Submitted>) -> String {
    match resumed {
        Some(submitted) => {
            let shards: Vec<String> = submitted.shards.iter().map(ToString::to_string).collect();
            format!(
                "shards {} submitted again as array job {}; merge job {}\n",
                shards.join(", "),
                submitted.array,
                submitted.merge
            )
        }
        None => "every shard completed; nothing to resume\n".to_owned(),
    }
}

/// Submits `shards` of the plan (all of them at first) and a merge job waiting for them.
fn submit_shards(
    plan: &SlurmPlan,
    shards: &[u32],
    scheduler: &dyn Scheduler,
) -> Result<Submitted, SlurmRunError> {
    let array_path = plan.dir.join("shards.sbatch");
    let merge_path = plan.dir.join("merge.sbatch");
    let list: Vec<String> = shards.iter().map(ToString::to_string).collect();
    let array = scheduler.submit(&array_path, &[format!("--array={}", list.join(","))])?;
    let merge = scheduler.submit(&merge_path, &[format!("--dependency=afterok:{array}")])?;
    Ok(Submitted {
        array,
        shards: shards.to_vec(),
        merge,
    })
}

/// Writes the scripts and the record into the plan's folder, submits the array and the merge job.
pub fn submit(plan: &SlurmPlan, scheduler: &dyn Scheduler) -> Result<Submitted, SlurmRunError> {
    if plan.shards == 0 {
        return Err(SlurmRunError::NoShards(plan.shards));
    }
    std::fs::create_dir_all(&plan.dir).map_err(io(&plan.dir))?;
    for (name, text) in [
        ("shards.sbatch", array_script(plan)),
        ("merge.sbatch", merge_script(plan)),
    ] {
        let path = plan.dir.join(name);
        std::fs::write(&path, text).map_err(io(&path))?;
    }
    let all: Vec<u32> = (1..=plan.shards).collect();
    let submitted = submit_shards(plan, &all, scheduler)?;
    write_submissions(
        &plan.dir,
        &Submissions {
            plan: Some(plan.clone()),
            jobs: vec![submitted.clone()],
        },
    )?;
    Ok(submitted)
}

/// Where one shard stands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShardStatus {
    pub shard: Shard,
    /// Slurm's word for its latest array task, if Slurm still knows it.
    pub state: Option<String>,
    /// Candidates of the shard with a verdict, and all of them (`None` before it registered).
    pub done: Option<(usize, usize)>,
}

/// What `status` shows.
#[derive(Debug, Clone)]
pub struct RunStatus {
    pub plan: SlurmPlan,
    pub latest: Submitted,
    pub shards: Vec<ShardStatus>,
    /// The latest merge job's state, if Slurm still knows it.
    pub merge: Option<String>,
}

fn state_of(states: &[JobState], id: &str) -> Option<String> {
    states.iter().find(|s| s.id == id).map(|s| s.state.clone())
}

/// Each shard's latest Slurm state and its store's progress.
pub fn status(dir: &Path, scheduler: &dyn Scheduler) -> Result<RunStatus, SlurmRunError> {
    let record = read_submissions(dir)?;
    let (Some(plan), Some(latest)) = (record.plan.clone(), record.jobs.last().cloned()) else {
        return Err(SlurmRunError::Malformed {
            path: record_path(dir),
            message: "no submission recorded".into(),
        });
    };
    // The latest submission that ran each shard.
    let mut by_shard: BTreeMap<u32, &Submitted> = BTreeMap::new();
    for job in &record.jobs {
        for shard in &job.shards {
            by_shard.insert(*shard, job);
        }
    }
    let mut states: BTreeMap<String, Vec<JobState>> = BTreeMap::new();
    for job in by_shard.values() {
        if !states.contains_key(&job.array) {
            states.insert(job.array.clone(), scheduler.states(&job.array)?);
        }
    }
    let mut shards = Vec::new();
    for index in 1..=plan.shards {
        let shard = Shard {
            index,
            count: plan.shards,
        };
        let state = by_shard
            .get(&index)
            .and_then(|job| state_of(&states[&job.array], &format!("{}_{index}", job.array)));
        shards.push(ShardStatus {
            shard,
            state,
            done: shard_progress(&shard_store(&plan.dir, index), &plan.run, shard)?,
        });
    }
    let merge = state_of(&scheduler.states(&latest.merge)?, &latest.merge);
    Ok(RunStatus {
        plan,
        latest,
        shards,
        merge,
    })
}

/// Candidates of `shard` with a verdict, and all of them, from its store.
fn shard_progress(
    store: &Path,
    run: &str,
    shard: Shard,
) -> Result<Option<(usize, usize)>, SlurmRunError> {
    if !store.is_file() {
        return Ok(None);
    }
    let store = Store::open(store)?;
    let Some(info) = store.run(run)? else {
        // A study's shard: the candidates its cells have generated so far, all its own.
        if store.study(run)?.is_none() {
            return Ok(None);
        }
        let (mut done, mut all) = (0, 0);
        for cell in store.study_cells(run)? {
            if store.run(&cell.run_id)?.is_some() {
                all += store.candidates(&cell.run_id)?.len();
                done += store.decided(&cell.run_id)?.len();
            }
        }
        return Ok(Some((done, all)));
    };
    let candidates = store.candidates(run)?;
    let decided: HashSet<String> = store.decided(run)?;
    if info.mode == RunMode::Eval {
        // An eval shard generates and stores its own candidates only.
        let done = candidates
            .iter()
            .filter(|c| decided.contains(&c.id))
            .count();
        return Ok(Some((done, candidates.len())));
    }
    // A validation shard stores the whole plan: its part is the partition the engine made.
    let tasks = shard_tasks(
        &candidates_per_task(candidates.iter().map(|c| &c.task)),
        shard,
    );
    let mine: Vec<_> = candidates
        .iter()
        .filter(|c| tasks.contains(&c.task))
        .collect();
    let done = mine.iter().filter(|c| decided.contains(&c.id)).count();
    Ok(Some((done, mine.len())))
}

/// Submits again the shards whose latest array task did not complete (failed, cancelled,
/// preempted, timed out, or forgotten by Slurm before its store was whole), with a new merge job
/// waiting for them; the merge job left waiting for the old array is cancelled. Returns `None`
/// when every shard completed.
pub fn resume(dir: &Path, scheduler: &dyn Scheduler) -> Result<Option<Submitted>, SlurmRunError> {
    let status = status(dir, scheduler)?;
    let again: Vec<u32> = status
        .shards
        .iter()
        .filter(|s| {
            let running = matches!(
                s.state.as_deref(),
                Some("PENDING" | "RUNNING" | "CONFIGURING" | "COMPLETING" | "REQUEUED")
            );
            let complete = s.state.as_deref() == Some("COMPLETED")
                || s.done.is_some_and(|(done, all)| done == all);
            !running && !complete
        })
        .map(|s| s.shard.index)
        .collect();
    if again.is_empty() {
        return Ok(None);
    }
    let _ = scheduler.cancel(&status.latest.merge);
    let submitted = submit_shards(&status.plan, &again, scheduler)?;
    let mut record = read_submissions(dir)?;
    record.jobs.push(submitted.clone());
    write_submissions(dir, &record)?;
    Ok(Some(submitted))
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;

    /// A cluster that records what it was asked and answers states from a table.
    #[derive(Default)]
    struct FakeCluster {
        submitted: RefCell<Vec<(PathBuf, Vec<String>)>>,
        cancelled: RefCell<Vec<String>>,
        states: BTreeMap<String, Vec<JobState>>,
    }

    impl Scheduler for FakeCluster {
        fn submit(&self, script: &Path, options: &[String]) -> Result<String, SlurmError> {
            let mut submitted = self.submitted.borrow_mut();
            submitted.push((script.to_owned(), options.to_vec()));
            Ok((100 + submitted.len()).to_string())
        }
        fn cancel(&self, job: &str) -> Result<(), SlurmError> {
            self.cancelled.borrow_mut().push(job.to_owned());
            Ok(())
        }
        fn states(&self, job: &str) -> Result<Vec<JobState>, SlurmError> {
            Ok(self.states.get(job).cloned().unwrap_or_default())
        }
    }

    fn plan(dir: &Path) -> SlurmPlan {
        SlurmPlan {
            dir: dir.to_owned(),
            into: dir.join("all.sqlite"),
            shards: 3,
            avrlab: "/opt/avrlab".into(),
            command: vec![
                "validate".into(),
                "--reference".into(),
                "--run".into(),
                "r".into(),
            ],
            run: "r".into(),
            resources: Resources {
                partition: Some("short".into()),
                sbatch_args: vec!["--account=lab".into()],
                ..Resources::default()
            },
        }
    }

    #[test]
    fn the_worker_command_names_its_run_and_leaves_the_shard_flags_to_submit() {
        let words = |s: &str| s.split(' ').map(str::to_owned).collect::<Vec<_>>();
        let (command, run) = worker_command(&words("validate --reference"), "slurm-1").unwrap();
        assert_eq!(run, "slurm-1");
        assert_eq!(command, words("validate --reference --run slurm-1"));
        let (_, run) = worker_command(&words("validate --run=mine --reference"), "x").unwrap();
        assert_eq!(run, "mine");
        assert!(matches!(
            worker_command(&words("validate --store s.sqlite"), "x"),
            Err(SlurmRunError::SetBySubmit(flag)) if flag == "--store"
        ));
        // An eval names its run too; a study is named by --name.
        let (command, _) = worker_command(&words("eval --model m"), "x").unwrap();
        assert_eq!(command, words("eval --model m --run x"));
        let (command, run) = worker_command(&words("study s.toml"), "x").unwrap();
        assert_eq!(
            (command, run.as_str()),
            (words("study s.toml --name x"), "x")
        );
        let (_, run) = worker_command(&words("study s.toml --name tiny"), "x").unwrap();
        assert_eq!(run, "tiny");
        assert!(matches!(
            worker_command(&words("curate --out x"), "x"),
            Err(SlurmRunError::NotSharded(_))
        ));
    }

    #[test]
    fn submit_writes_both_scripts_and_chains_the_merge_after_the_array() {
        let dir = tempfile::tempdir().unwrap();
        let cluster = FakeCluster::default();
        let submitted = submit(&plan(dir.path()), &cluster).unwrap();
        assert_eq!(
            (submitted.array.as_str(), submitted.merge.as_str()),
            ("101", "102")
        );
        let asked = cluster.submitted.borrow();
        assert_eq!(asked[0].1, vec!["--array=1,2,3".to_owned()]);
        assert_eq!(asked[1].1, vec!["--dependency=afterok:101".to_owned()]);
        let array = std::fs::read_to_string(dir.path().join("shards.sbatch")).unwrap();
        assert!(
            array.contains("#SBATCH --partition=short\n#SBATCH --account=lab"),
            "{array}"
        );
        assert!(
            array.contains("exec '/opt/avrlab' 'validate' '--reference' '--run' 'r' --store "),
            "{array}"
        );
        assert!(array.contains("--shard \"${SLURM_ARRAY_TASK_ID}/3\" --resume-if-started"));
        let merge = std::fs::read_to_string(dir.path().join("merge.sbatch")).unwrap();
        assert!(merge.contains("merge --into"), "{merge}");
        assert!(merge.contains("shard-3.sqlite'"), "{merge}");
        assert_eq!(read_submissions(dir.path()).unwrap().jobs, vec![submitted]);
    }

    #[test]
    fn resume_submits_only_the_shards_that_did_not_complete() {
        let dir = tempfile::tempdir().unwrap();
        let mut cluster = FakeCluster::default();
        submit(&plan(dir.path()), &cluster).unwrap();
        let state = |id: &str, state: &str| JobState {
            id: id.into(),
            state: state.into(),
        };
        cluster.states.insert(
            "101".into(),
            vec![
                state("101_1", "COMPLETED"),
                state("101_2", "CANCELLED"),
                state("101_3", "RUNNING"),
            ],
        );
        let again = resume(dir.path(), &cluster).unwrap().unwrap();
        assert_eq!(again.shards, vec![2]);
        assert_eq!(cluster.cancelled.borrow().as_slice(), ["102".to_owned()]);
        assert_eq!(
            cluster.submitted.borrow()[2].1,
            vec!["--array=2".to_owned()]
        );
        // Shard 2's new task is what status reads now.
        cluster
            .states
            .insert("103".into(), vec![state("103_2", "COMPLETED")]);
        let status = status(dir.path(), &cluster).unwrap();
        let words: Vec<_> = status.shards.iter().map(|s| s.state.clone()).collect();
        assert_eq!(
            words,
            vec![
                Some("COMPLETED".into()),
                Some("COMPLETED".into()),
                Some("RUNNING".into())
            ]
        );
    }
}
