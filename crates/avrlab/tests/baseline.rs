//! The baseline with real Maven: a regression test that fails on the reference fix is left out
//! alone (the other tests of its class still count), and a flaky one is found by the second
//! baseline run. The fixture's `SlugsTest#cachesTheLastSlug` leaves a file in `target/` and fails
//! when it finds one: flaky wherever two runs share a build folder. Sandboxed, every run gets a
//! fresh `target/`, so the baseline that finds it is taken unsandboxed (`validate --sandbox
//! none`); `bench check` then reads that baseline from the cache (keyed by the task state) and
//! explains it, and both engines' regression runs leave out exactly the two tests. The two tests of
//! `SlugsSkippedTest` are skipped on the reference fix (one disabled, one aborting on an
//! assumption), so they may be skipped on a candidate: the reference fix is still `Plausible`.

use std::path::Path;

use crate::common::{avrlab_with_own_cache as avrlab, fixtures, heavy_one_core, text};

const FLAKY: &str = "com.example.slugs.SlugsTest#cachesTheLastSlug";
const FAILING: &str = "com.example.slugs.SlugsTest#namesEmptyTitles";

/// The regression tests of classes named like `classes` (SQL `LIKE`) that a candidate's verdict
/// recorded, as `Class#method status`.
fn regression_tests(store: &Path, candidate: &str, classes: &str) -> Vec<String> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut query = db
        .prepare(
            "SELECT class, method, status FROM test_results
             WHERE candidate_id = ?1 AND phase = 'regression' AND class LIKE ?2
             ORDER BY method",
        )
        .unwrap();
    query
        .query_map([candidate, classes], |r| {
            let (class, method, status): (String, String, String) =
                (r.get(0)?, r.get(1)?, r.get(2)?);
            Ok(format!("{class}#{method} {status}"))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// `avrlab bench check` of one task with one worker (sandboxed, Maven), which must succeed: its
/// standard output and error.
fn bench_check(dir: &Path, benchmark: &Path, task: &str, store: &Path) -> (String, String) {
    let output = avrlab(
        dir,
        &[
            "bench",
            "--benchmark",
            benchmark.to_str().unwrap(),
            "check",
            "--tasks",
            task,
            "--workers",
            "1",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

fn regression_log(store: &Path, candidate: &str) -> String {
    let db = rusqlite::Connection::open(store).unwrap();
    db.query_row(
        "SELECT log FROM phases WHERE candidate_id = ?1 AND phase = 'regression'",
        [candidate],
        |r| r.get(0),
    )
    .unwrap()
}

#[test]
fn the_baseline_excludes_single_tests_and_finds_the_flaky_one() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let benchmark = fixtures().join("baseline");
    let benchmark = benchmark.to_str().unwrap();
    let counted = [
        "com.example.slugs.SlugsTest#lowerCases passed",
        "com.example.slugs.SlugsTest#numbers passed",
        "com.example.slugs.SlugsTest#shortens passed",
    ];
    let skipped = [
        "com.example.slugs.SlugsSkippedTest#keepsAccents skipped",
        "com.example.slugs.SlugsSkippedTest#needsAWindowsHost skipped",
    ];

    // Maven, unsandboxed: the baseline's two runs share the workspace's `target/`.
    let store = dir.path().join("maven.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            benchmark,
            "--tasks",
            "demo-baseline",
            "--reference",
            "--engine",
            "maven",
            "--sandbox",
            "none",
            "--workers",
            "1",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1/1 reference fixes are Plausible"),
        "{stdout}"
    );
    assert_eq!(
        regression_tests(&store, "demo-baseline/reference", "%.SlugsTest"),
        counted
    );
    assert_eq!(
        regression_tests(&store, "demo-baseline/reference", "%.SlugsSkippedTest"),
        skipped
    );
    let log = regression_log(&store, "demo-baseline/reference");
    let line = log.lines().next().unwrap();
    assert!(
        line.starts_with(
            "[avrlab] baseline: 2 tests excluded (1 failing on the reference fix, 1 flaky over 2 \
             runs), counts 5 of 7 tests (71%)"
        ),
        "{log}"
    );
    assert!(
        line.contains(&format!("{FLAKY} (flaky: passed, failed)")),
        "{line}"
    );
    assert!(line.contains(&format!("{FAILING} (failed)")), "{line}");

    // The reference check, sandboxed, with the baseline from the cache: explained per cause.
    let store = dir.path().join("check.sqlite");
    let (stdout, _) = bench_check(dir.path(), Path::new(benchmark), "demo-baseline", &store);
    assert!(
        stdout.contains("| demo-baseline | yes | yes | yes | 2 of 7 | JDK 17 |"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "demo-baseline: counts 5 of 7 tests (71%)\n  1 test: \
             org.opentest4j.AssertionFailedError: an empty title has no name ==> expected: \
             <untitled> but was: <>\n  1 test: flaky (not passing in one baseline run, passing \
             in another)\n"
        ),
        "{stdout}"
    );
    assert_eq!(
        regression_tests(&store, "demo-baseline/reference", "%.SlugsTest"),
        counted
    );

    // The fast engine leaves out the same two methods, not their class.
    let store = dir.path().join("fast.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            benchmark,
            "--tasks",
            "demo-baseline",
            "--reference",
            "--confirm-sample",
            "0",
            "--workers",
            "1",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1/1 reference fixes are Plausible"),
        "{stdout}"
    );
    assert_eq!(
        regression_tests(&store, "demo-baseline/reference", "%.SlugsTest"),
        counted
    );
    assert_eq!(
        regression_tests(&store, "demo-baseline/reference", "%.SlugsSkippedTest"),
        skipped
    );
    assert!(
        regression_log(&store, "demo-baseline/reference").contains("counts 5 of 7 tests (71%)")
    );
}

/// The fast engine's test-impact selection picks the test classes that load a changed class; in
/// `demo-excluded-dependents` the only such class (`NamesTest`, which loads `Names` while its
/// Parameterized runner is built) has no test that counts, since its one test fails on the
/// reference fix. The selected classes then run no test at all, and a verdict resting on that is
/// "no test ran": every regression class runs instead (the other class's test counts), and the
/// regression log says so.
#[test]
fn a_selection_with_no_test_that_counts_runs_every_regression_class() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let benchmark = fixtures().join("baseline");
    let store = dir.path().join("fast.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            benchmark.to_str().unwrap(),
            "--tasks",
            "demo-excluded-dependents",
            "--reference",
            "--confirm-sample",
            "0",
            "--workers",
            "1",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("1/1 reference fixes are Plausible"),
        "{stdout}"
    );
    let candidate = "demo-excluded-dependents/reference";
    let db = rusqlite::Connection::open(&store).unwrap();
    let engine: String = db
        .query_row(
            "SELECT engine FROM engines WHERE candidate_id = ?1",
            [candidate],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(engine, "fast", "decided by the fast path itself");
    // The PoV test runs again with the rest, as in Maven's regression run; it is not a test of
    // the selection that counts, so the selection still widens.
    assert_eq!(
        regression_tests(&store, candidate, "%"),
        [
            "com.example.names.NamesPovTest#aNameNeverLeavesItsFolder passed",
            "com.example.names.SizesTest#roundsDown passed"
        ]
    );
    let log = regression_log(&store, candidate);
    assert!(
        log.contains(
            "regression: 1 of 3 test classes selected by class dependence (1 changed classes); \
             none of the 1 selected test classes has a test that counts, so every regression \
             test class ran"
        ),
        "{log}"
    );
}

/// The candidate fixes the slug and changes `numbered` so that it counts its calls in the file
/// `counter` and answers wrongly on every second one (the first, the third …): `SlugsTest#numbers`
/// fails every second run. With `always`, it answers wrongly every time.
fn numbered_patch(counter: &Path, always: bool) -> String {
    let wrong = if always { "true" } else { "call % 2 == 1" };
    format!(
        "--- a/src/main/java/com/example/slugs/Slugs.java
+++ b/src/main/java/com/example/slugs/Slugs.java
@@ -8,3 +8,3 @@
     public static String slug(String title) {{
-        return title.toLowerCase().replaceAll(\"[^a-z0-9./]+\", \"-\");
+        return title.toLowerCase().replaceAll(\"[^a-z0-9]+\", \"-\");
     }}
@@ -19,3 +19,15 @@
     public static String numbered(String title, int n) {{
-        return slug(title) + \"-\" + n;
+        java.nio.file.Path calls = java.nio.file.Path.of({counter:?});
+        int call = 1;
+        try {{
+            call += Integer.parseInt(java.nio.file.Files.readString(calls).trim());
+        }} catch (java.io.IOException | NumberFormatException e) {{
+            call = 1;
+        }}
+        try {{
+            java.nio.file.Files.writeString(calls, Integer.toString(call));
+        }} catch (java.io.IOException e) {{
+            throw new java.io.UncheckedIOException(e);
+        }}
+        return slug(title) + ({wrong} ? \"_\" : \"-\") + n;
     }}
"
    )
}

/// A regression phase in which a test fails on a candidate runs again in a fresh JVM: when it then
/// passes, the candidate's verdict is `Indeterminate` (flaky on this candidate) and the test is on
/// the task's flaky list; when it fails again, `RegressionBroken` stands. On both engines. The
/// counter the candidate keeps must outlive its test JVMs, so the runs are unsandboxed.
#[test]
fn a_test_failing_every_second_run_leaves_the_candidate_indeterminate_and_is_listed() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let benchmark = fixtures().join("baseline");
    for engine in ["maven", "fast"] {
        let predictions = dir.path().join(format!("{engine}.jsonl"));
        let lines: Vec<String> = [("every-second", false), ("always", true)]
            .iter()
            .map(|(label, always)| {
                let counter = dir.path().join(format!("{engine}-{label}.count"));
                serde_json::json!({
                    "task": "demo-baseline",
                    "candidate": label,
                    "patch": numbered_patch(&counter, *always),
                })
                .to_string()
            })
            .collect();
        std::fs::write(&predictions, lines.join("\n")).unwrap();
        let store = dir.path().join(format!("{engine}.sqlite"));
        let output = avrlab(
            dir.path(),
            &[
                "validate",
                "--benchmark",
                benchmark.to_str().unwrap(),
                "--tasks",
                "demo-baseline",
                "--patches",
                predictions.to_str().unwrap(),
                "--engine",
                engine,
                "--confirm-sample",
                "0",
                "--sandbox",
                "none",
                "--workers",
                "1",
                "--store",
                store.to_str().unwrap(),
                "--json",
            ],
        );
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{engine}: {stdout}\n{stderr}");
        let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let verdicts = summary["verdicts"].as_array().unwrap();
        let verdict = |label: &str| {
            verdicts
                .iter()
                .find(|v| v["label"] == label)
                .unwrap_or_else(|| panic!("{engine}: no {label} in {stdout}"))
        };
        let flaky = verdict("every-second");
        assert_eq!(flaky["outcome"], "Indeterminate", "{engine}: {stdout}");
        assert!(
            flaky["reason"].as_str().unwrap().starts_with(
                "flaky on this candidate: com.example.slugs.SlugsTest#numbers failed, then passed when the regression phase ran again in a fresh JVM"
            ),
            "{engine}: {stdout}"
        );
        let broken = verdict("always");
        assert_eq!(broken["outcome"], "RegressionBroken", "{engine}: {stdout}");
        assert!(
            broken["reason"]
                .as_str()
                .unwrap()
                .contains("(and again in a fresh JVM: com.example.slugs.SlugsTest#numbers failed"),
            "{engine}: {stdout}"
        );
        // The task's flaky list names the test and the candidate it was flaky on.
        assert_eq!(
            summary["flaky"],
            serde_json::json!({"demo-baseline": {"com.example.slugs.SlugsTest#numbers":
                ["demo-baseline/every-second"]}}),
            "{engine}: {stdout}"
        );
        // The evidence of both runs is kept: failed, then passed when run again.
        let candidate = "demo-baseline/every-second";
        assert_eq!(
            regression_tests(&store, candidate, "%.SlugsTest")
                .iter()
                .filter(|t| t.contains("#numbers"))
                .collect::<Vec<_>>(),
            ["com.example.slugs.SlugsTest#numbers failed"]
        );
        let db = rusqlite::Connection::open(&store).unwrap();
        let rerun: Vec<String> = db
            .prepare(
                "SELECT class || '#' || method || ' ' || status FROM test_results
                 WHERE candidate_id = ?1 AND phase = 'regression-rerun'",
            )
            .unwrap()
            .query_map([candidate], |r| r.get(0))
            .unwrap()
            .map(Result::unwrap)
            .collect();
        // The whole regression phase ran again (the PoV test too, as in the first run), and this
        // time none of it failed (the task's own skips stay skipped).
        assert!(
            rerun.contains(&"com.example.slugs.SlugsTest#numbers passed".to_owned()),
            "{engine}: {rerun:?}"
        );
        assert!(
            rerun
                .iter()
                .all(|t| t.ends_with(" passed") || t.ends_with(" skipped")),
            "{engine}: {rerun:?}"
        );
    }
}

/// In `demo-order-dependent`, `SizesTest#b_needsTheTable` passes only after `a_…`, which fails on
/// the reference fix: the baseline leaves `a_…` out and counts `b_…`, which then fails whenever
/// the suite runs as verdicts run it. The reference check finds it failing on the reference fix
/// in both runs of the regression phase, records it in the baseline (the check's statuses after
/// the baseline's) and validates the reference fix again: `Plausible`, the first verdict kept as
/// an earlier attempt. A second check reads the stored baseline and needs no second look.
#[test]
fn a_test_that_needs_an_excluded_tests_side_effect_is_left_out_by_the_reference_check() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let benchmark = fixtures().join("baseline");
    let check = |store: &str| {
        let store = dir.path().join(store);
        let (stdout, stderr) = bench_check(dir.path(), &benchmark, "demo-order-dependent", &store);
        (stdout, stderr, store)
    };
    let candidate = "demo-order-dependent/reference";
    let needs = "com.example.names.SizesTest#b_needsTheTable";

    let (stdout, stderr, store) = check("first.sqlite");
    assert!(
        stderr.contains(&format!(
            "{candidate}: {needs} did not pass on the reference fix in the reference check; \
             excluded from its baseline, the reference fix is validated again"
        )),
        "{stderr}"
    );
    assert!(
        stdout.contains("| demo-order-dependent | yes | yes | yes | 2 of 3 | JDK 17 |"),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "demo-order-dependent: counts 1 of 3 tests (33%)\n  1 test: java.lang.AssertionError: \
             rounds up expected:<2> but was:<1>\n  1 test: flaky (not passing in one baseline \
             run, passing in another)\n"
        ),
        "{stdout}"
    );
    assert_eq!(
        regression_tests(&store, candidate, "%.SizesTest"),
        ["com.example.names.SizesTest#c_roundsDown passed"]
    );
    let log = regression_log(&store, candidate);
    assert!(
        log.contains(&format!("{needs} (flaky: passed, passed, failed, failed)"))
            && log.contains("flaky over 2 runs and the reference check"),
        "{log}"
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    let earlier: String = db
        .query_row(
            "SELECT outcome FROM verdict_attempts WHERE candidate_id = ?1",
            [candidate],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(earlier, "RegressionBroken");

    let (stdout, stderr, _) = check("second.sqlite");
    assert!(
        !stderr.contains("did not pass on the reference fix"),
        "{stderr}"
    );
    assert!(
        stdout.contains("| demo-order-dependent | yes | yes | yes | 2 of 3 | JDK 17 |"),
        "{stdout}"
    );
}
