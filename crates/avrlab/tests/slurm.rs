//! A sharded study on a real one-node Slurm cluster (Debian's slurm-wlm, started by
//! `scripts/slurm-cluster`): `avrlab slurm submit` runs it as a 3-task array and a merge job, and
//! the merged store holds the verdicts and prints the report of the same study run whole on one
//! machine; a cancelled shard is submitted again by `avrlab slurm resume`, and nothing is lost or
//! doubled.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{avrlab, heavy, repo_root, run_outcomes, text};
use crate::shard::TASKS;

/// The demo's shard-test tasks, 2 formats, 2 offsets, the template baseline.
fn study_file() -> String {
    let tasks: Vec<String> = TASKS.split(',').map(|t| format!("\"{t}\"")).collect();
    format!(
        r#"
format_version = 1
name = "sharded"
formats = ["chat-p1", "chat-p2"]
fl_offsets = [0, 2]
samples = 1
runs = 1
temperature = 0.0

[[benchmarks]]
benchmark = "demo"
tasks = [{}]

[[models]]
name = "baseline"
"#,
        tasks.join(", ")
    )
}

/// Whether study `sharded` of the store is finished.
fn finished(store: &Path) -> bool {
    store.is_file()
        && rusqlite::Connection::open(store)
            .and_then(|db| {
                db.query_row(
                    "SELECT finished_at IS NOT NULL FROM studies WHERE id = 'sharded'",
                    [],
                    |r| r.get::<_, bool>(0),
                )
            })
            .unwrap_or(false)
}

/// Every verdict of the store's study cells, by run and candidate.
fn study_outcomes(store: &Path) -> Vec<(String, String, String)> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut stmt = db
        .prepare("SELECT run_id FROM study_cells WHERE study_id = 'sharded' ORDER BY seq")
        .unwrap();
    let runs: Vec<String> = stmt
        .query_map([], |r| r.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    runs.iter()
        .flat_map(|run| {
            run_outcomes(store, run)
                .into_iter()
                .map(move |(candidate, outcome)| (run.clone(), candidate, outcome))
        })
        .collect()
}

/// The study's tables printed from `store` (every cell done, so nothing runs).
fn report(dir: &Path, store: &Path) -> String {
    let output = avrlab(
        dir,
        &[
            "study",
            "sharded.toml",
            "--resume",
            "--workers",
            "1",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("0 cells run now, 4 already done"),
        "{stderr}"
    );
    stdout
}

#[expect(
    clippy::disallowed_methods,
    reason = "the test starts the project's cluster script"
)]
fn start_cluster() {
    let output = std::process::Command::new(repo_root().join("scripts/slurm-cluster"))
        .arg("start")
        .output()
        .unwrap();
    assert!(
        output.status.success(),
        "scripts/slurm-cluster start: {}{}",
        String::from_utf8_lossy(&output.stdout),
        String::from_utf8_lossy(&output.stderr)
    );
}

#[test]
fn a_sharded_study_runs_as_a_slurm_array_and_merges_like_the_whole_study() {
    let _lock = heavy();
    start_cluster();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("sharded.toml"), study_file()).unwrap();
    let slurm_dir = dir.path().join("slurm");
    let merged = dir.path().join("merged.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "slurm",
            "submit",
            "--shards",
            "3",
            "--into",
            merged.to_str().unwrap(),
            "--dir",
            slurm_dir.to_str().unwrap(),
            "--cpus",
            "1",
            "--",
            "study",
            "sharded.toml",
            "--name",
            "sharded",
            "--workers",
            "1",
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("run sharded: array job"), "{stdout}");
    for script in ["shards.sbatch", "merge.sbatch", "slurm.json"] {
        assert!(
            slurm_dir.join(script).is_file(),
            "{script} kept beside the stores"
        );
    }

    // Shard 3 of the first array is cancelled before it can finish, then resumed.
    let array = stdout
        .split("array job ")
        .nth(1)
        .and_then(|rest| rest.split_whitespace().next())
        .unwrap()
        .to_owned();
    #[expect(clippy::disallowed_methods, reason = "the test cancels one array task")]
    let cancelled = std::process::Command::new("scancel")
        .arg(format!("{array}_3"))
        .status()
        .unwrap();
    assert!(cancelled.success());

    let status = |dir: &Path| {
        let output = avrlab(
            dir,
            &["slurm", "status", "--dir", slurm_dir.to_str().unwrap()],
        );
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        stdout
    };
    // Wait for the first array to end: shards 1 and 2 done, shard 3 cancelled (a task cancelled
    // while pending is forgotten by Slurm; one cancelled while running says CANCELLED).
    let deadline = Instant::now() + Duration::from_secs(600);
    loop {
        let now = status(dir.path());
        if ["1/3", "2/3"]
            .iter()
            .all(|s| now.contains(&format!("shard {s}: COMPLETED")))
            && !now.contains("shard 3/3: RUNNING")
            && !now.contains("shard 3/3: PENDING")
        {
            assert!(!now.contains("shard 3/3: COMPLETED"), "{now}");
            break;
        }
        assert!(Instant::now() < deadline, "the array did not end: {now}");
        std::thread::sleep(Duration::from_secs(1));
    }
    assert!(!finished(&merged), "the merge waits for every shard");

    let output = avrlab(
        dir.path(),
        &["slurm", "resume", "--dir", slurm_dir.to_str().unwrap()],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("shards 3 submitted again"), "{stdout}");

    let deadline = Instant::now() + Duration::from_secs(600);
    while !finished(&merged) {
        assert!(
            Instant::now() < deadline,
            "no merged run within 10 minutes: {}\n{}",
            status(dir.path()),
            std::fs::read_to_string(slurm_dir.join("merge.log")).unwrap_or_default()
        );
        std::thread::sleep(Duration::from_secs(1));
    }
    let now = status(dir.path());
    assert!(now.contains("shard 3/3: COMPLETED"), "{now}");

    // The same study run whole, on one machine: the same verdicts, cell by cell, and the same
    // tables.
    let whole = dir.path().join("whole.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "study",
            "sharded.toml",
            "--workers",
            "1",
            "--store",
            whole.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{}", text(&output).1);
    let merged_outcomes = study_outcomes(&merged);
    assert_eq!(merged_outcomes.len(), 12, "{merged_outcomes:?}");
    assert_eq!(merged_outcomes, study_outcomes(&whole));
    assert_eq!(report(dir.path(), &merged), report(dir.path(), &whole));
}
