//! Secure-feature tasks: SusVibes JSONL in and out.

use crate::common::{avrlab, text};

const DIFF: &str = "--- a/src/main/java/p/A.java\n+++ b/src/main/java/p/A.java\n@@ -1,3 +1,3 @@\n class A {\n-  int a;\n+  int b;\n }\n";

fn record(id: &str, project: &str, commit: &str) -> String {
    serde_json::json!({
        "instance_id": id,
        "base_commit": commit,
        "problem_statement": "Implement `A.b`: \"quoted\", unicode é, tabs\t.\n",
        "security_patch": DIFF,
        "test_patch": DIFF.replace("main", "test"),
        "mask_patch": DIFF,
        "task_patch": DIFF,
        "golden_patch": DIFF,
        "expected_failures": {"func": ["p.OtherTest#flaky"], "sec": []},
        "cwe_ids": ["CWE-22", "CWE-79"],
        "cve_id": "CVE-2021-1234",
        "project": project,
        "language": "java",
        "security_tests": ["p.ATest#rejectsTraversal"]
    })
    .to_string()
}

/// A JSONL written by avrlab imports and exports again byte for byte, for a git project and for
/// a folder project; a published-style record without avrlab's build field is accepted.
#[test]
fn susvibes_jsonl_written_by_avrlab_round_trips_unchanged() {
    let dir = tempfile::tempdir().unwrap();
    let folder = dir.path().join("proj");
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.canonicalize().unwrap();
    let input = format!(
        "{}\n{}\n",
        record(
            "Owner__repo-17",
            "https://github.com/owner/repo",
            "0123456789abcdef0123456789abcdef01234567"
        ),
        record("local-1", &format!("file:{}", folder.display()), "")
    );
    std::fs::write(dir.path().join("in.jsonl"), &input).unwrap();
    let step = |args: &[&str]| {
        let out = avrlab(dir.path(), args);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{args:?}: {stdout}{stderr}");
    };
    step(&["feature", "import", "in.jsonl", "--out", "b1"]);
    step(&[
        "feature",
        "export",
        "--benchmark",
        "b1",
        "--out",
        "first.jsonl",
    ]);
    step(&["feature", "import", "first.jsonl", "--out", "b2"]);
    step(&[
        "feature",
        "export",
        "--benchmark",
        "b2",
        "--out",
        "second.jsonl",
    ]);
    let first = std::fs::read(dir.path().join("first.jsonl")).unwrap();
    let second = std::fs::read(dir.path().join("second.jsonl")).unwrap();
    assert_eq!(first, second);
    // Everything of the hand-written records survived (the export adds avrlab's build field).
    let first = String::from_utf8(first).unwrap();
    assert_eq!(first.lines().count(), 2);
    let line: serde_json::Value = first
        .lines()
        .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
        .find(|v| v["instance_id"] == "Owner__repo-17")
        .unwrap();
    assert_eq!(line["instance_id"], "Owner__repo-17");
    assert_eq!(
        line["problem_statement"],
        "Implement `A.b`: \"quoted\", unicode é, tabs\t.\n"
    );
    assert_eq!(line["expected_failures"]["func"][0], "p.OtherTest#flaky");
    assert_eq!(line["build"]["jdk"], 17);
}

/// A bad record is one line naming the line and the field, exit 2, and nothing is written.
#[test]
fn a_bad_susvibes_record_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let good = record("ok-1", "https://github.com/o/r", "0123456789abcdef");
    let bad = record("bad-2", "https://github.com/o/r", "not-a-commit");
    std::fs::write(dir.path().join("in.jsonl"), format!("{good}\n{bad}\n")).unwrap();
    let out = avrlab(dir.path(), &["feature", "import", "in.jsonl", "--out", "b"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(
        stderr.contains("line 2 (bad-2): base_commit `not-a-commit` is not a commit hash"),
        "{stderr}"
    );
    assert!(!dir.path().join("b").exists());
}
