//! Candidates with known outcomes, for every demo task: the reference fix, one that does not
//! compile, one that breaks a regression test, one that tries to reach
//! the network and write outside its workspace, and for four tasks one that loops forever. Each
//! gets its expected Outcome; the sandbox holds.
//! (Hostile candidates have their own suite, `adversarial.rs`.)

use std::collections::BTreeMap;
use std::io::ErrorKind;
use std::net::TcpListener;
use std::path::Path;

use crate::common::{
    avrlab, demo_tasks, fixtures, heavy, heavy_one_core, patch_line, processes_mentioning,
    repo_root, text,
};

/// The port the escaping candidates try to reach on the host's loopback.
const ESCAPE_PORT: u16 = 47113;
/// A phase of these candidates took at most 2-4 s here (a Maven re-judgement's compile beside
/// another test on the other core), so the limit leaves room for a loaded machine; only the loops
/// reach it, and each costs it once.
const TIMEOUT_SECONDS: u64 = 15;

/// `(task, label, diff, expected outcome)` for every fixture under `dir`.
fn fixture_candidates(dir: &Path) -> Vec<(String, String, String, String)> {
    let expected: BTreeMap<String, BTreeMap<String, String>> =
        toml::from_str(&std::fs::read_to_string(dir.join("expected.toml")).unwrap()).unwrap();
    let mut out = Vec::new();
    for (task, candidates) in expected {
        for (label, outcome) in candidates {
            let diff = std::fs::read_to_string(dir.join(&task).join(format!("{label}.diff")))
                .unwrap_or_else(|e| panic!("{task}/{label}.diff: {e}"));
            out.push((task.clone(), label, diff, outcome));
        }
    }
    out
}

#[test]
fn every_candidate_gets_its_expected_outcome_and_the_sandbox_holds() {
    // One worker: no candidate has a neighbour of its own run, so a loop's Timeout is final the
    // first time (beside a neighbour it would be validated again alone), and the other core is
    // left to another test. Two workers side by side are the adversarial suite's.
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let work = dir.path().join("work");
    let store = dir.path().join("results.sqlite");
    // The adversarial fixtures have their own run (adversarial.rs).
    let mut cases = fixture_candidates(&fixtures().join("demo-candidates"));
    for task in demo_tasks() {
        let diff = std::fs::read_to_string(
            repo_root()
                .join("benchmarks/demo")
                .join(&task)
                .join("reference.diff"),
        )
        .unwrap();
        cases.push((task, "reference".into(), diff, "Plausible".into()));
    }
    let covered: std::collections::BTreeSet<&str> = cases.iter().map(|c| c.0.as_str()).collect();
    assert_eq!(
        covered.len(),
        demo_tasks().len(),
        "every demo task has candidate fixtures"
    );
    let lines: Vec<String> = cases
        .iter()
        .map(|(task, label, diff, _)| patch_line(task, label, diff))
        .collect();
    let patches = dir.path().join("candidates.jsonl");
    std::fs::write(&patches, lines.join("\n")).unwrap();

    let listener = TcpListener::bind(("127.0.0.1", ESCAPE_PORT))
        .unwrap_or_else(|e| panic!("port {ESCAPE_PORT} must be free for this test: {e}"));
    listener.set_nonblocking(true).unwrap();
    let timeout = TIMEOUT_SECONDS.to_string();
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            "demo",
            "--patches",
            patches.to_str().unwrap(),
            "--json",
            "--allow-apply-failures",
            "--timeout",
            &timeout,
            "--workers",
            "1",
            // Relative to the command's folder, as a user types it: avrlab makes it absolute
            // before the sandbox mounts it.
            "--work-dir",
            "work",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();

    let verdicts = summary["verdicts"].as_array().unwrap();
    assert_eq!(verdicts.len(), cases.len());
    let mut wrong = Vec::new();
    for (task, label, _, expected) in &cases {
        let verdict = verdicts
            .iter()
            .find(|v| v["task"] == *task && v["label"] == *label)
            .unwrap();
        if verdict["outcome"] != *expected {
            wrong.push(format!(
                "{task}/{label}: expected {expected}, got {} ({})",
                verdict["outcome"], verdict["reason"]
            ));
        }
        if expected == "Timeout" {
            // The loop is ended by its step's limit (the watchdog's kill), not by anything else.
            let reason = verdict["reason"].as_str().unwrap();
            assert!(
                reason.contains("outlived its time limit")
                    || reason.contains("did not answer in time"),
                "{task}/{label}: {reason}"
            );
        }
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));

    // Nothing a candidate started outlives its verdict.
    let left = processes_mentioning(work.to_str().unwrap());
    assert!(left.is_empty(), "processes left behind: {left:?}");

    // The escape attempts failed inside the sandbox, visibly in the stored logs, and never
    // reached the host.
    assert_eq!(
        listener.accept().map(|_| ()).unwrap_err().kind(),
        ErrorKind::WouldBlock,
        "a candidate reached the host"
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    for task in demo_tasks() {
        assert!(
            !Path::new(&format!("/var/tmp/avrlab-escape-{task}")).exists(),
            "{task} wrote outside its workspace"
        );
        let log: String = db
            .query_row(
                "SELECT group_concat(log, '\n') FROM phases WHERE candidate_id = ?1",
                [format!("{task}/escapes")],
                |r| r.get(0),
            )
            .unwrap();
        let net = log
            .lines()
            .find(|l| l.contains("AVRLAB-ESCAPE net:"))
            .unwrap_or_else(|| panic!("{task}: no network attempt in the log"));
        let write = log
            .lines()
            .find(|l| l.contains("AVRLAB-ESCAPE write:"))
            .unwrap_or_else(|| panic!("{task}: no write attempt in the log"));
        assert!(
            net.contains("Exception") || net.contains("Error"),
            "{task}: {net}"
        );
        // The host's /var is either not in the sandbox at all or read-only: both refuse the write.
        assert!(
            write.contains("NoSuchFileException") || write.contains("Read-only file system"),
            "{task}: {write}"
        );
    }
}

/// A whitespace variant of a task's reference fix that does not apply, followed in the same
/// predictions file by the reference fix itself: the variant is `ApplyFailed` and the reference
/// fix, validated on its own, `Plausible`. (When "the same candidate" meant the same text up to
/// whitespace, the reference fix was stored `ApplyFailed`, "same as" the variant.)
#[test]
fn a_reference_fix_after_a_whitespace_variant_that_does_not_apply_is_plausible() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let task = "demo-xxe-config";
    let reference = std::fs::read_to_string(
        repo_root()
            .join("benchmarks/demo")
            .join(task)
            .join("reference.diff"),
    )
    .unwrap();
    // One context line indented by two spaces less.
    let reindented = reference.replacen(
        "             factory.setNamespaceAware(true);",
        "           factory.setNamespaceAware(true);",
        1,
    );
    assert_ne!(reindented, reference);
    let patches = dir.path().join("candidates.jsonl");
    let lines = [
        patch_line(task, "reindented-reference", &reindented),
        patch_line(task, "reference", &reference),
    ];
    std::fs::write(&patches, lines.join("\n")).unwrap();
    let store = dir.path().join("results.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            "demo",
            "--patches",
            patches.to_str().unwrap(),
            "--json",
            "--allow-apply-failures",
            "--work-dir",
            "work",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let verdicts: Vec<(String, String, String)> = summary["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            let field = |name: &str| v[name].as_str().unwrap().to_owned();
            (field("label"), field("outcome"), field("reason"))
        })
        .collect();
    let outcomes: Vec<(&str, &str)> = verdicts
        .iter()
        .map(|(label, outcome, _)| (label.as_str(), outcome.as_str()))
        .collect();
    assert_eq!(
        outcomes,
        [
            ("reindented-reference", "ApplyFailed"),
            ("reference", "Plausible")
        ],
        "{verdicts:?}"
    );
    assert_eq!(summary["duplicates"], 0, "{verdicts:?}");
}
