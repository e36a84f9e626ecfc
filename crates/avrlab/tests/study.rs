//! `avrlab study` end to end: a bad study file is one line and stores nothing; a tiny study on one
//! demo task (the template baseline as generator, a shell script in the sandbox as reviewer) is
//! validated on the fast engine, reported with the offset × prompt table, TOST and McNemar and the
//! reviewer's confusion matrix, and resumed without redoing anything.

use crate::common::{avrlab, heavy_one_core, text};

const STUDY: &str = r#"
format_version = 1
name = "tiny"
formats = ["chat-p2"]
fl_offsets = [0, 2]
samples = 2
runs = 2
temperature = 0.0

[[benchmarks]]
benchmark = "demo"
tasks = ["demo-zip-slip"]

[[models]]
name = "baseline"

[reviewer]
model = "judge"
"#;

/// A reviewer that accepts a candidate whose text (the last code block of its prompt) checks a
/// prefix with `startsWith`, and rejects the others.
const JUDGE: &str = r#"#!/bin/sh
prompt=$(cat)
candidate=${prompt##*The proposed}
case "$candidate" in
  *startsWith*) echo "VERDICT: ACCEPT"; echo "REASON: the entry path is checked against the target folder" ;;
  *) echo "VERDICT: REJECT"; echo "REASON: nothing bounds the entry path" ;;
esac
"#;

const CONFIG: &str = r#"
[models.judge]
backend = "command"
command = ["./judge.sh"]
mode = "stdin"
"#;

#[test]
fn a_bad_study_file_is_refused_in_one_line_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(
        dir.path().join("bad.toml"),
        STUDY.replace("fl_offsets", "fl_ofsets"),
    )
    .unwrap();
    let store = dir.path().join("results.sqlite");
    let output = avrlab(
        dir.path(),
        &["study", "bad.toml", "--store", store.to_str().unwrap()],
    );
    let (_, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stderr}");
    assert_eq!(
        stderr.trim(),
        "error: bad.toml:5:1: unknown field `fl_ofsets`, expected one of `format_version`, `name`, \
         `description`, `benchmarks`, `models`, `formats`, `fl_offsets`, `samples`, `runs`, \
         `temperature`, `top_p`, `max_tokens`, `seed`, `reviewer`, `report`, `probe`; fix the \
         study file (see docs/study-format.md)"
    );
    assert!(!store.exists(), "nothing is stored for a bad study file");
}

#[test]
fn a_tiny_study_runs_reports_and_resumes() {
    let _heavy = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("tiny.toml"), STUDY).unwrap();
    std::fs::write(dir.path().join("avrlab.toml"), CONFIG).unwrap();
    let judge = dir.path().join("judge.sh");
    std::fs::write(&judge, JUDGE).unwrap();
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&judge, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let store = dir.path().join("results.sqlite");
    let cache = dir.path().join("responses");
    let args = [
        "study",
        "tiny.toml",
        "--store",
        store.to_str().unwrap(),
        "--cache",
        cache.to_str().unwrap(),
        "--workers",
        "1",
    ];

    let dry = avrlab(dir.path(), &[&args[..], &["--dry-run"]].concat());
    let (plan, stderr) = text(&dry);
    assert!(dry.status.success(), "{stderr}");
    assert!(
        plan.contains("size: 4 prompts, 8 samples, at most 8 validations"),
        "{plan}"
    );
    assert!(!store.exists(), "a dry run stores nothing");

    let output = avrlab(dir.path(), &args);
    let (report, stderr) = text(&output);
    assert!(output.status.success(), "{report}\n{stderr}");
    for part in [
        "## FL offset × prompt: baseline on demo (original), 1 tasks",
        "| offset | chat-p2 |",
        "offset 0 vs +2: 2 pairs",
        "TOST margin ±0.10",
        "McNemar:",
        "## Reviewer `judge` against the tests",
        "false accept (of not Plausible)",
        "## Table 4: cells at FL offset 0",
        "| CWE-22 | 1 |",
    ] {
        assert!(report.contains(part), "{part:?} in\n{report}");
    }
    assert!(
        stderr.contains("2 cells run now, 0 already done"),
        "{stderr}"
    );
    // The script's answers were all read: nothing unparseable.
    assert!(
        report.contains("Not in the table: 0 unparseable answers, 0 without an answer"),
        "{report}"
    );

    // Resumed: every cell is done, nothing is generated, validated or reviewed again, and the
    // tables are the same.
    let again = avrlab(dir.path(), &[&args[..], &["--resume"]].concat());
    let (report_again, stderr) = text(&again);
    assert!(again.status.success(), "{stderr}");
    assert!(
        stderr.contains("0 cells run now, 2 already done; 0 candidates validated"),
        "{stderr}"
    );
    assert_eq!(report_again, report);
}
