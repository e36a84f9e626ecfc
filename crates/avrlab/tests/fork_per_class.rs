//! A module whose Surefire forks a test JVM per test class (forkCount=1, reuseForks=false), as
//! commons-io does (VUL4J-14), with more test classes in one test phase than the fork relay lets
//! run at once. Every JVM is started (the bound is on JVMs running at once, not on all a phase
//! starts), so the reference fix is Plausible well within its time limit, and the phase's log
//! counts each JVM once. Before the fix the relay refused the 65th request and never answered it:
//! the phase waited for its time limit and the verdict was Timeout.

use std::path::Path;

use crate::common::{avrlab, fixtures, heavy, patch_line, text};

/// PoV test classes added to the fixture, each forked in a JVM of its own: with the fixture's own
/// `FileNamesTest`, its PoV phase starts one more than `fork_relay::MAX_RUNNING_JVMS` (64).
const CLASSES: usize = 65;

/// Copies `from` into `to`, every file and folder.
fn copy_tree(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            copy_tree(&entry.path(), &target);
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// The fixture task in `benchmark`, with `CLASSES` more PoV test classes, listed in its task.toml.
fn write_task(benchmark: &Path) -> std::path::PathBuf {
    let task = benchmark.join("demo-fork-per-class");
    copy_tree(
        &fixtures().join("fork-per-class/demo-fork-per-class"),
        &task,
    );
    let tests = task.join("project/src/test/java/com/example/forks");
    let mut pov = vec!["com.example.forks.FileNamesTest#refusesParentFolders".to_owned()];
    for n in 0..CLASSES {
        let class = format!("Parent{n:02}Test");
        std::fs::write(
            tests.join(format!("{class}.java")),
            format!(
                "package com.example.forks;\n\n\
                 import static org.junit.jupiter.api.Assertions.assertFalse;\n\n\
                 import org.junit.jupiter.api.Test;\n\n\
                 class {class} {{\n    @Test\n    void refusesParentFolders() {{\n        \
                 assertFalse(FileNames.isSafe(\"../evil{n:02}.txt\"));\n    }}\n}}\n"
            ),
        )
        .unwrap();
        pov.push(format!("com.example.forks.{class}#refusesParentFolders"));
    }
    let toml = task.join("task.toml");
    let text = std::fs::read_to_string(&toml).unwrap();
    let listed = format!("pov_tests = {pov:?}");
    let text = text.replace(
        r#"pov_tests = ["com.example.forks.FileNamesTest#refusesParentFolders"]"#,
        &listed,
    );
    assert!(text.contains(&listed));
    std::fs::write(&toml, text).unwrap();
    task
}

#[test]
fn a_phase_forking_more_jvms_than_may_run_at_once_starts_every_one() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let benchmark = dir.path().join("benchmark");
    let task = write_task(&benchmark);
    // The reference fix as the one candidate: one phase (the PoV tests) forks them all.
    let reference = std::fs::read_to_string(task.join("reference.diff")).unwrap();
    let patches = dir.path().join("candidates.jsonl");
    std::fs::write(
        &patches,
        patch_line("demo-fork-per-class", "reference", &reference),
    )
    .unwrap();
    let store = dir.path().join("store.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            benchmark.to_str().unwrap(),
            "--patches",
            patches.to_str().unwrap(),
            "--engine",
            "maven",
            "--workers",
            "1",
            // Before the fix the refused launcher waited for this limit (900 s for VUL4J-14).
            "--timeout",
            "120",
            "--json",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let verdict = &summary["verdicts"][0];
    assert_eq!(verdict["outcome"], "Plausible", "{stdout}\n{stderr}");

    let db = rusqlite::Connection::open(&store).unwrap();
    // Every PoV class ran, and passed.
    let passed: usize = db
        .query_row(
            "SELECT COUNT(DISTINCT class) FROM test_results WHERE phase = 'pov' AND status = 'passed'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    assert_eq!(passed, CLASSES + 1, "{stdout}");
    // The PoV phase's log counts one test JVM per class, each started and none refused.
    let enforcement: String = db
        .query_row(
            "SELECT enforcement FROM phases WHERE phase = 'pov'",
            [],
            |row| row.get(0),
        )
        .unwrap();
    let jvms = CLASSES + 1;
    assert!(
        enforcement.contains(&format!("test JVMs: {jvms}, each in a sandbox of its own")),
        "{enforcement}"
    );
    assert!(
        enforcement.contains(&format!("; ended: exit 0 ({jvms} JVMs)")),
        "{enforcement}"
    );
    assert!(!enforcement.contains("refused"), "{enforcement}");
}
