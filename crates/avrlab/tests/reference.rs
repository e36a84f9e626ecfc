//! Every demo task is sound: its vulnerable state fails its PoV tests, its reference fix is
//! Plausible (PoV and regression tests pass), proven by running Maven for real.

use crate::common::{avrlab, demo_tasks, heavy, text};

#[test]
fn every_demo_task_fails_its_pov_when_vulnerable_and_passes_with_its_reference_fix() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            "demo",
            "--reference",
            "--json",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let tasks = demo_tasks();
    assert!(
        tasks.len() >= 10,
        "the demo benchmark has at least 10 tasks: {tasks:?}"
    );
    let check = &summary["reference_check"];
    assert_eq!(check["passed"], true, "{stdout}");
    assert_eq!(check["tasks"], tasks.len());
    assert_eq!(check["vulnerable_failing_pov"], tasks.len());
    assert_eq!(check["reference_plausible"], tasks.len());
    for verdict in summary["verdicts"].as_array().unwrap() {
        let expected = if verdict["label"] == "vulnerable" {
            "PovFailing"
        } else {
            "Plausible"
        };
        assert_eq!(verdict["outcome"], expected, "{verdict}");
    }
}

#[test]
fn the_demo_benchmark_covers_at_least_eight_cwes() {
    let output = avrlab(std::path::Path::new("."), &["bench", "list"]);
    let (stdout, _) = text(&output);
    let mut cwes: Vec<&str> = stdout
        .split_whitespace()
        .filter(|w| w.starts_with("CWE-"))
        .flat_map(|w| w.split(','))
        .collect();
    cwes.sort();
    cwes.dedup();
    assert!(cwes.len() >= 8, "{cwes:?}");
}
