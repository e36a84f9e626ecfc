//! Bad input gets one clear line on stderr, a non-zero exit, and nothing half-written.

use std::path::Path;

use crate::common::{avrlab, binary, patch_line, repo_root, text};

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap().flatten() {
        let target = to.join(entry.file_name());
        if entry.file_type().unwrap().is_dir() {
            if entry.file_name() != "target" {
                copy_dir(&entry.path(), &target);
            }
        } else {
            std::fs::copy(entry.path(), target).unwrap();
        }
    }
}

/// A one-task benchmark copied from the demo, with its task.toml edited.
fn edited_benchmark(root: &Path, edit: impl Fn(String) -> String) -> std::path::PathBuf {
    let bench = root.join("bench");
    let task = bench.join("demo-xxe-config");
    copy_dir(&repo_root().join("benchmarks/demo/demo-xxe-config"), &task);
    let manifest = task.join("task.toml");
    std::fs::write(&manifest, edit(std::fs::read_to_string(&manifest).unwrap())).unwrap();
    bench
}

/// Asserts a failure with `code` and one error line, the last on stderr (progress lines may
/// precede it), containing every `needle`; and nothing on stdout.
fn assert_one_line_error(output: &std::process::Output, code: i32, needles: &[&str]) {
    let (stdout, stderr) = text(output);
    assert_eq!(
        output.status.code(),
        Some(code),
        "stdout: {stdout}\nstderr: {stderr}"
    );
    assert!(stdout.is_empty(), "{stdout}");
    let errors: Vec<&str> = stderr.lines().filter(|l| l.starts_with("error")).collect();
    assert_eq!(errors.len(), 1, "one error line expected: {stderr}");
    assert_eq!(stderr.lines().last(), Some(errors[0]), "{stderr}");
    for needle in needles {
        assert!(
            errors[0].contains(needle),
            "`{needle}` missing from: {stderr}"
        );
    }
}

fn store_has_runs(store: &Path) -> bool {
    store.exists()
        && rusqlite::Connection::open(store)
            .unwrap()
            .query_row("SELECT count(*) FROM runs", [], |r| r.get::<_, i64>(0))
            .unwrap()
            > 0
}

#[test]
fn a_malformed_task_toml_names_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let bench = edited_benchmark(dir.path(), |t| {
        t.replacen("kind = \"repair\"", "kind = \"repair\nbroken", 1)
    });
    let output = avrlab(
        dir.path(),
        &["bench", "list", "--benchmark", bench.to_str().unwrap()],
    );
    assert_one_line_error(&output, 2, &["task.toml", "line"]);

    let bench2 = edited_benchmark(&dir.path().join("2"), |t| {
        t.replacen("format_version = 1", "format_version = 7", 1)
    });
    let output = avrlab(
        dir.path(),
        &["bench", "list", "--benchmark", bench2.to_str().unwrap()],
    );
    assert_one_line_error(&output, 2, &["format_version 7 is not supported"]);

    let bench3 = edited_benchmark(&dir.path().join("3"), |t| format!("{t}\nsurprise = true\n"));
    let output = avrlab(
        dir.path(),
        &["bench", "list", "--benchmark", bench3.to_str().unwrap()],
    );
    assert_one_line_error(&output, 2, &["unknown field `surprise`"]);

    let bench5 = edited_benchmark(&dir.path().join("5"), |t| {
        t.replacen("fix_committed = \"2026", "fix_committed = \"autumn 2026", 1)
    });
    let output = avrlab(
        dir.path(),
        &["bench", "list", "--benchmark", bench5.to_str().unwrap()],
    );
    assert_one_line_error(
        &output,
        2,
        &["dates.fix_committed `autumn 2026-11-29T17:48:13+00:00` is not a date"],
    );

    let bench4 = edited_benchmark(&dir.path().join("4"), |t| {
        t.replacen("[build]\n", "[build]\ntest_target = \"junit\"\n", 1)
    });
    let output = avrlab(
        dir.path(),
        &["bench", "list", "--benchmark", bench4.to_str().unwrap()],
    );
    assert_one_line_error(
        &output,
        2,
        &["build.compile_target and build.test_target are for Ant and Gradle builds, not maven"],
    );
}

#[test]
fn a_patch_for_an_unknown_task_is_refused_before_anything_runs() {
    let dir = tempfile::tempdir().unwrap();
    let patches = dir.path().join("p.jsonl");
    std::fs::write(
        &patches,
        patch_line(
            "demo-no-such-task",
            "x",
            "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n",
        ),
    )
    .unwrap();
    let store = dir.path().join("r.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--patches",
            patches.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&output, 2, &["p.jsonl:1", "no task `demo-no-such-task`"]);
    assert!(!store_has_runs(&store));

    std::fs::write(&patches, "{\"task\": \"demo-xxe-config\", \"patch\": 3}\n").unwrap();
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--patches",
            patches.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&output, 2, &["p.jsonl:1", "not a candidate object"]);
}

#[test]
fn a_patch_that_does_not_apply_is_refused_and_no_run_is_stored() {
    // No hold on the cores: the input is refused before anything runs.
    let dir = tempfile::tempdir().unwrap();
    let patches = dir.path().join("p.jsonl");
    let reference =
        std::fs::read_to_string(repo_root().join("benchmarks/demo/demo-xxe-config/reference.diff"))
            .unwrap();
    // The reference fix with its context lines changed no longer matches the file.
    let stale: String = reference
        .lines()
        .map(|l| {
            if l.starts_with(' ') && l.len() > 3 {
                format!(" // changed{l}")
            } else {
                l.to_owned()
            }
        })
        .collect::<Vec<_>>()
        .join("\n");
    std::fs::write(
        &patches,
        format!("{}\n", patch_line("demo-xxe-config", "stale", &stale)),
    )
    .unwrap();
    let store = dir.path().join("r.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--patches",
            patches.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert_one_line_error(
        &output,
        2,
        &[
            "p.jsonl:1",
            "does not apply",
            "does not match the file",
            "--allow-apply-failures",
        ],
    );
    assert!(
        !store_has_runs(&store),
        "a refused input left a run in the store"
    );
}

#[test]
fn a_task_that_needs_a_missing_jdk_runs_on_a_newer_one_and_says_so() {
    let _lock = crate::common::heavy();
    let dir = tempfile::tempdir().unwrap();
    // JDK 11 is not installed on the machines this project runs on (17 and 25 are): the oldest
    // newer JDK stands in, and every compile log records the substitution.
    let bench = edited_benchmark(dir.path(), |t| t.replacen("jdk = 17", "jdk = 11", 1));
    let store = dir.path().join("r.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--reference",
            "--engine",
            "maven",
            "--benchmark",
            bench.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let db = rusqlite::Connection::open(&store).unwrap();
    let log: String = db
        .query_row(
            "SELECT log FROM phases WHERE phase = 'compile' LIMIT 1",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        log.contains("JDK 11 is not installed: JDK 17"),
        "{}",
        log.lines().next().unwrap_or("")
    );
}

#[test]
fn missing_maven_or_bubblewrap_name_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    #[expect(
        clippy::disallowed_methods,
        reason = "the test runs the real binary with a changed environment"
    )]
    let output = std::process::Command::new(binary())
        .args(["validate", "--reference"])
        .current_dir(dir.path())
        .env("AVRLAB_MVN", "/nonexistent/mvn")
        .output()
        .unwrap();
    assert_one_line_error(
        &output,
        1,
        &["Maven (mvn) is not installed", "apt-get install maven"],
    );

    #[expect(
        clippy::disallowed_methods,
        reason = "the test runs the real binary with a changed environment"
    )]
    let output = std::process::Command::new(binary())
        .args(["validate", "--reference"])
        .current_dir(dir.path())
        .env("PATH", "/nonexistent")
        .output()
        .unwrap();
    assert_one_line_error(
        &output,
        1,
        &["bubblewrap", "apt-get install bubblewrap", "--sandbox none"],
    );
}

#[test]
fn a_gradle_task_without_gradle_names_what_to_install() {
    let dir = tempfile::tempdir().unwrap();
    let benchmark = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/builds");
    #[expect(
        clippy::disallowed_methods,
        reason = "the test runs the real binary with a changed environment"
    )]
    let output = std::process::Command::new(binary())
        .args([
            "validate",
            "--reference",
            "--tasks",
            "gradle-zip-slip",
            "--benchmark",
        ])
        .arg(&benchmark)
        .current_dir(dir.path())
        .env("AVRLAB_GRADLE", "/nonexistent/gradle")
        .output()
        .unwrap();
    assert_one_line_error(
        &output,
        1,
        &[
            "$AVRLAB_GRADLE names /nonexistent/gradle, which is not a file",
            "install Debian's `gradle`",
        ],
    );
}

#[test]
fn a_store_that_is_not_a_database_is_refused_and_left_alone() {
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("notes.sqlite");
    let content = "these are notes, not a results store; avrlab must not touch them\n".repeat(20);
    std::fs::write(&store, &content).unwrap();
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--reference",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    assert_one_line_error(&output, 2, &["not an avrlab results store", "--store"]);
    assert_eq!(std::fs::read_to_string(&store).unwrap(), content);
}

/// `transform`, `throughput` and `study` work on repair tasks: a feature benchmark given to
/// them is one line naming the feature task and what to run instead, exit 2, nothing stored.
#[test]
fn repair_only_commands_refuse_a_feature_benchmark() {
    let dir = tempfile::tempdir().unwrap();
    let diff =
        "--- a/src/main/java/p/A.java\n+++ b/src/main/java/p/A.java\n@@ -1,1 +1,1 @@\n-a\n+b\n";
    let record = serde_json::json!({
        "instance_id": "Owner__repo-3", "base_commit": "0123456789abcdef",
        "problem_statement": "Implement it.\n", "security_patch": diff, "test_patch": diff,
        "mask_patch": diff, "task_patch": diff, "golden_patch": diff,
        "expected_failures": {"func": [], "sec": []}, "cwe_ids": ["CWE-22"], "cve_id": null,
        "project": "https://github.com/owner/repo", "language": "java",
        "security_tests": ["p.ATest#sec"]
    });
    std::fs::write(dir.path().join("in.jsonl"), format!("{record}\n")).unwrap();
    let import = avrlab(
        dir.path(),
        &["feature", "import", "in.jsonl", "--out", "features"],
    );
    assert!(import.status.success(), "{:?}", text(&import));
    std::fs::write(
        dir.path().join("study.toml"),
        "format_version = 1\nname = \"s\"\nformats = [\"chat-p1\"]\nfl_offsets = [0]\nsamples = 1\nruns = 1\n\
         [[benchmarks]]\nbenchmark = \"features\"\n[[models]]\nname = \"baseline\"\n",
    )
    .unwrap();
    let store = dir.path().join("s.sqlite");
    let store_arg = store.to_str().unwrap();
    for (args, needles) in [
        (
            vec![
                "transform",
                "--benchmark",
                "features",
                "--variant",
                "rename",
                "--out",
                "t",
            ],
            vec![
                "owner__repo-3 is a feature task",
                "`avrlab transform` takes repair tasks only",
            ],
        ),
        (
            vec!["throughput", "--benchmark", "features", "--engine", "maven"],
            vec![
                "owner__repo-3 is a feature task",
                "`avrlab throughput` takes repair tasks only",
            ],
        ),
        (
            vec!["study", "study.toml", "--store", store_arg],
            vec![
                "owner__repo-3 is a feature task",
                "a study runs repair tasks only",
            ],
        ),
    ] {
        assert_one_line_error(&avrlab(dir.path(), &args), 2, &needles);
    }
    assert!(!dir.path().join("t").exists());
    assert!(!store_has_runs(&store));

    // A feature benchmark that also holds a repair task is scored neither way.
    copy_dir(
        &repo_root().join("benchmarks/demo/demo-xxe-config"),
        &dir.path().join("features/demo-xxe-config"),
    );
    for (args, verb) in [
        (
            vec![
                "validate",
                "--benchmark",
                "features",
                "--reference",
                "--store",
                store_arg,
            ],
            "validate them apart",
        ),
        (
            vec![
                "eval",
                "--benchmark",
                "features",
                "--model",
                "baseline",
                "--store",
                store_arg,
            ],
            "evaluate them apart",
        ),
    ] {
        assert_one_line_error(
            &avrlab(dir.path(), &args),
            2,
            &[
                "mixes feature and repair tasks (demo-xxe-config is a repair task)",
                verb,
            ],
        );
    }
    assert!(!store_has_runs(&store));
}
