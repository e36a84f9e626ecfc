//! Secure-feature tasks: SusVibes JSONL in and out.

use std::path::Path;

use crate::common::{avrlab, avrlab_ok, succeeded, text};

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

/// The one Maven-running feature test: a demo task is curated through the five-run matrix (as
/// shard 2 of 2: the other task is shard 1's), and its golden, vulnerable-put-back and empty
/// predictions are scored and stored.
#[test]
fn a_demo_task_is_curated_and_its_reference_predictions_scored() {
    let _lock = crate::common::heavy();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("feature");
    let curate_shard = || {
        avrlab(
            dir.path(),
            &[
                "curate",
                "--benchmark",
                "demo",
                "--tasks",
                "demo-zip-slip,demo-path-traversal",
                "--shard",
                "2/2",
                "--out",
                out.to_str().unwrap(),
            ],
        )
    };
    let curate = curate_shard();
    let (stdout, stderr) = text(&curate);
    assert!(curate.status.success(), "{stdout}\n{stderr}");
    assert!(stderr.contains("shard 2/2: 1 task(s)"), "{stderr}");
    assert!(
        stdout.contains(
            "| demo-zip-slip | demo-zip-slip-feature | 1 | sec pass | func pass | func pass | sec fail | func fail | 0 | kept |"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("funnel: 1 candidate(s)"), "{stdout}");
    assert!(stdout.contains("; kept 1"), "{stdout}");
    assert!(!stdout.contains("demo-path-traversal"), "{stdout}");
    assert!(!out.join("demo-path-traversal-feature").exists());
    // The shard run again (a resumed array task): what it kept stays, nothing is curated twice.
    let again = curate_shard();
    let (stdout, stderr) = text(&again);
    assert!(again.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "| demo-zip-slip | demo-zip-slip-feature | 0 | – | – | – | – | – | 0 | kept (earlier) |"
        ),
        "{stdout}"
    );
    assert!(stdout.contains("; kept 1"), "{stdout}");
    let task = out.join("demo-zip-slip-feature");
    let statement = std::fs::read_to_string(task.join("problem.md")).unwrap();
    assert!(
        statement.contains("extract(InputStream zip, Path destination)"),
        "{statement}"
    );
    assert!(!out.join(".staging").exists());

    // Scored by the run loop every run goes through: two workers, the default engine (which
    // hands feature tasks to the build tool), resumable.
    let store = dir.path().join("results.sqlite");
    let validate = |extra: &[&str]| {
        let mut args = vec![
            "validate",
            "--benchmark",
            out.to_str().unwrap(),
            "--reference",
            "--workers",
            "2",
            "--run",
            "feature-check",
            "--store",
            store.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        avrlab(dir.path(), &args)
    };
    let first = validate(&[]);
    let (stdout, stderr) = text(&first);
    assert!(first.status.success(), "{stdout}\n{stderr}");
    for (candidate, outcome, groups) in [
        ("golden", "Plausible", "func=pass sec=pass"),
        ("vulnerable", "PovFailing", "func=pass sec=fail"),
        ("empty", "RegressionBroken", "func=fail sec=fail"),
    ] {
        let said = format!("demo-zip-slip-feature/{candidate}: {outcome} (");
        assert!(
            stderr
                .lines()
                .any(|line| line.contains(&said) && line.contains(groups)),
            "{said} … {groups}\n{stderr}"
        );
    }
    let report = "| CWE-22 | 3 | 2/3 = 66.7% [20.8, 93.9] | 1/3 = 33.3% [6.1, 79.2] | 1/2 = 50.0% [9.5, 90.5] | 0 |";
    assert!(stdout.contains(report), "{stdout}");
    // The fast path judged every prediction (the build tool only its sampled re-judgings).
    let line = stderr
        .lines()
        .find(|l| l.contains("(engine fast, 2 workers; verdicts by engine: "))
        .unwrap_or_else(|| panic!("no engine line: {stderr}"));
    assert!(line.contains("fast "), "{line}");
    let decided_fast: i64 = rusqlite::Connection::open(&store)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM engines WHERE engine = 'fast'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    let sampled: i64 = rusqlite::Connection::open(&store)
        .unwrap()
        .query_row(
            "SELECT count(*) FROM engines WHERE engine = 'maven' AND check_kind IS NOT NULL",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(decided_fast + sampled, 3, "{line}");
    assert!(decided_fast >= 2, "{line}");
    // Resumed where it stood: nothing is scored again, and the report is the same.
    let resumed = validate(&["--resume-if-started", "--retry", "errored"]);
    let (stdout, stderr) = text(&resumed);
    assert!(resumed.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains(report), "{stdout}");
    assert!(!stderr.contains("[1/3]"), "{stderr}");
    // The evidence: both results and every test, the security test in the `pov` phase.
    let db = rusqlite::Connection::open(&store).unwrap();
    let scores: Vec<(String, String, String)> = db
        .prepare("SELECT candidate_id, func, sec FROM feature_scores ORDER BY candidate_id")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        scores,
        [
            (
                "demo-zip-slip-feature/empty".into(),
                "fail".into(),
                "fail".into()
            ),
            (
                "demo-zip-slip-feature/golden".into(),
                "pass".into(),
                "pass".into()
            ),
            (
                "demo-zip-slip-feature/vulnerable".into(),
                "pass".into(),
                "fail".into()
            ),
        ]
    );
    let failed_pov: String = db
        .query_row(
            "SELECT status FROM test_results WHERE candidate_id = 'demo-zip-slip-feature/vulnerable' AND phase = 'pov'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(failed_pov, "failed");

    // An eval of the feature tasks, whole and in two shards: the shards register the plan's
    // run (whichever tasks each asked the model about), `merge` joins them, and `report`
    // prints the feature table of the merged run as of the whole one.
    let eval = |store: &Path, extra: &[&str]| {
        let mut args = vec![
            "eval",
            "--benchmark",
            out.to_str().unwrap(),
            "--model",
            "baseline",
            "--samples",
            "2",
            "--config",
            "/dev/null",
            "--store",
            store.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        avrlab(dir.path(), &args)
    };
    let whole = dir.path().join("whole.sqlite");
    succeeded(&eval(&whole, &["--run", "whole"]));
    let shards = [dir.path().join("s1.sqlite"), dir.path().join("s2.sqlite")];
    succeeded(&eval(&shards[0], &["--shard", "1/2"]));
    succeeded(&eval(&shards[1], &["--shard", "2/2"]));
    let merged = dir.path().join("merged.sqlite");
    let mut args = vec!["merge", "--into", merged.to_str().unwrap()];
    args.extend(shards.iter().map(|s| s.to_str().unwrap()));
    avrlab_ok(dir.path(), &args);
    let merged_run: String = rusqlite::Connection::open(&merged)
        .unwrap()
        .query_row("SELECT id FROM runs", [], |r| r.get(0))
        .unwrap();
    let table = |store: &Path, run: &str| {
        let stdout = avrlab_ok(
            dir.path(),
            &["report", run, "--store", store.to_str().unwrap()],
        );
        assert!(stdout.contains("| functional-correct |"), "{stdout}");
        stdout
            .lines()
            .filter(|l| l.starts_with('|'))
            .map(str::to_owned)
            .collect::<Vec<_>>()
    };
    let whole_table = table(&whole, "whole");
    assert!(
        whole_table.iter().any(|l| l.starts_with("| all | 2 |")),
        "{whole_table:?}"
    );
    assert_eq!(table(&merged, &merged_run), whole_table);
    // Its tables come as Markdown or JSON; another format is refused in one line.
    let json = avrlab_ok(
        dir.path(),
        &[
            "report",
            "whole",
            "--store",
            whole.to_str().unwrap(),
            "--format",
            "json",
        ],
    );
    let report: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(report["rows"][0][1]["predictions"], 2, "{json}");
    let html = avrlab(
        dir.path(),
        &[
            "report",
            "whole",
            "--store",
            whole.to_str().unwrap(),
            "--format",
            "html",
        ],
    );
    let (stdout, stderr) = text(&html);
    assert_eq!(html.status.code(), Some(2), "{stdout}\n{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("--format md or json"), "{stderr}");
    // The second shard given the first shard's store is refused before anything runs.
    let misplaced = eval(&shards[0], &["--shard", "2/2"]);
    let (stdout, stderr) = text(&misplaced);
    assert_eq!(misplaced.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("holds shard 1/2 of this plan"), "{stderr}");
}
