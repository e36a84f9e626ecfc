//! A run killed with SIGKILL mid-way resumes with `--resume`: finished verdicts are neither redone
//! nor lost, and the run completes.

use std::time::{Duration, Instant};

use crate::common::{avrlab, binary, heavy_one_core, text};

fn verdict_rows(store: &std::path::Path) -> Vec<(String, String, String)> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut stmt = db
        .prepare("SELECT candidate_id, outcome, finished_at FROM verdicts ORDER BY rowid")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn a_killed_run_resumes_without_redoing_or_losing_a_verdict() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.sqlite");
    let tasks = "demo-xxe-config,demo-zip-slip,demo-path-traversal";
    let args = [
        "validate",
        "--reference",
        "--tasks",
        tasks,
        "--workers",
        "1",
        "--run",
        "killed",
        "--store",
        store.to_str().unwrap(),
    ];
    #[expect(clippy::disallowed_methods, reason = "the test kills the real binary")]
    let mut child = std::process::Command::new(binary())
        .args(args)
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    // Kill it once two verdicts are stored, while the third candidate is being validated.
    let deadline = Instant::now() + Duration::from_secs(300);
    loop {
        assert!(Instant::now() < deadline, "no verdict within 5 minutes");
        if store.exists() && verdict_rows(&store).len() >= 2 {
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let before = verdict_rows(&store);
    assert!(before.len() >= 2 && before.len() < 6, "{before:?}");

    let mut resumed_args = args.to_vec();
    resumed_args.extend(["--resume", "--json"]);
    let output = avrlab(dir.path(), &resumed_args);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(summary["already_decided"], before.len());
    assert_eq!(summary["validated_now"], 6 - before.len());
    assert_eq!(summary["reference_check"]["passed"], true, "{stdout}");

    let after = verdict_rows(&store);
    assert_eq!(after.len(), 6, "one verdict per candidate: {after:?}");
    // The verdicts from before the kill are the same rows, untouched.
    assert_eq!(&after[..before.len()], &before[..]);

    // A finished run has nothing left to resume.
    let again = avrlab(
        dir.path(),
        &[
            "validate",
            "--reference",
            "--tasks",
            tasks,
            "--resume",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert_eq!(again.status.code(), Some(2));
    assert!(
        text(&again).1.contains("no unfinished"),
        "{}",
        text(&again).1
    );
}
