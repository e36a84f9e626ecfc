//! The fast engine against Maven on one demo task: every candidate is judged by both (the
//! confirmation sample set to 1), and both must give the expected outcome — the demo fixtures, the
//! reference fix, and candidates aimed at the fast path (forged result frames, System.exit, a
//! thread left running, API changes that make the compiled tests stale, a look-up through the
//! system class loader). Then, with no sample at all, the candidates that a JVM shared between
//! candidates or unlike Surefire's fork judged wrong, as root and as an unprivileged user: the
//! fast path alone must give Maven's verdict, and Maven must re-judge the flagged ones.

use std::collections::BTreeMap;

use crate::common::{
    avrlab, avrlab_as, copy_tree, dirs_repository, fixtures, heavy_one_core, patch_line, text,
    warm_task, write_cases_with_reference,
};

const TASK: &str = "demo-zip-slip";

/// A stored verdict's outcome and its engine row: engine, check kind, fast and Maven outcomes,
/// fallback reason, fast reason.
type EngineRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
    Option<String>,
);

#[test]
fn fast_and_maven_agree_on_every_candidate_of_a_demo_task() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.sqlite");
    let mut cases: Vec<(String, String, String)> = Vec::new();
    for (folder, labels) in [
        (
            "demo-candidates",
            &["uncompilable", "breaks-regression", "escapes"][..],
        ),
        (
            "fast-path",
            &[
                "forges-frame",
                "exits",
                "leaves-thread",
                "renames-method",
                "adds-constant",
                "asks-the-system-loader",
            ][..],
        ),
    ] {
        let expected: BTreeMap<String, BTreeMap<String, String>> = toml::from_str(
            &std::fs::read_to_string(fixtures().join(folder).join("expected.toml")).unwrap(),
        )
        .unwrap();
        for label in labels {
            let diff = std::fs::read_to_string(
                fixtures()
                    .join(folder)
                    .join(TASK)
                    .join(format!("{label}.diff")),
            )
            .unwrap();
            cases.push((label.to_string(), diff, expected[TASK][*label].clone()));
        }
    }
    let patches = write_cases_with_reference(dir.path(), TASK, &mut cases);

    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            "demo",
            "--tasks",
            TASK,
            "--patches",
            patches.to_str().unwrap(),
            "--engine",
            "fast",
            "--confirm-sample",
            "1",
            "--workers",
            "1",
            "--timeout",
            "30",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");

    let db = rusqlite::Connection::open(&store).unwrap();
    let mut wrong = Vec::new();
    for (label, _, expected) in &cases {
        let id = format!("{TASK}/{label}");
        let (outcome, engine, kind, fast, maven, fallback, fast_reason): EngineRow = db
            .query_row(
                "SELECT v.outcome, e.engine, e.check_kind, e.fast_outcome, e.maven_outcome,
                        e.fallback, e.fast_reason
                 FROM verdicts v JOIN engines e USING (run_id, candidate_id)
                 WHERE v.candidate_id = ?1",
                [&id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                        r.get(6)?,
                    ))
                },
            )
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        // Every verdict was re-checked, so Maven decided it and the fast path's view is kept.
        assert_eq!(engine, "maven", "{id}");
        if label == "renames-method" {
            // The fast path cannot compile the tests against the new API, so Maven alone decides.
            let why = fallback.unwrap_or_default();
            assert!(
                why.contains("the API of com.example.archive.ArchiveExtractor changed"),
                "{id}: {why}"
            );
            assert_eq!(outcome, *expected, "{id}");
            continue;
        }
        assert_eq!(fallback, None, "{id}");
        // Test-impact selection: the task's one test class loads the changed class, so it is
        // selected (and a failing selected test still breaks the verdict); a changed API makes
        // every class recompiled, and then every test class runs.
        let fast_reason = fast_reason.unwrap_or_default();
        let selection = match label.as_str() {
            "reference" | "breaks-regression" => {
                Some("regression: 1 of 1 test classes selected by class dependence")
            }
            "adds-constant" => Some("every class was recompiled"),
            _ => None,
        };
        if let Some(selection) = selection {
            assert!(fast_reason.contains(selection), "{id}: {fast_reason}");
        }
        // Every verdict is in the sample; a flagged one goes to Maven as flagged whatever the
        // fast path found (forged frames on the channel fail the PoV test and are a flag).
        let flags: String = db
            .query_row(
                "SELECT flags FROM engines WHERE candidate_id = ?1",
                [&id],
                |r| r.get(0),
            )
            .unwrap();
        let must_be_flagged = matches!(
            label.as_str(),
            "escapes" | "asks-the-system-loader" | "forges-frame"
        );
        assert!(!must_be_flagged || !flags.is_empty(), "{id}: not flagged");
        // A thread left running after a run that did not pass changes nothing: not a runtime
        // flag (the diff's use of threads is one).
        assert!(
            label != "leaves-thread" || !flags.contains("still running"),
            "{id}: {flags}"
        );
        let want_kind = if flags.is_empty() { "sample" } else { "flag" };
        assert_eq!(kind.as_deref(), Some(want_kind), "{id}: {flags}");
        if fast.as_deref() != Some(expected) || maven.as_deref() != Some(expected) {
            wrong.push(format!(
                "{id}: expected {expected}, fast {fast:?}, maven {maven:?}"
            ));
        }
        assert_eq!(
            outcome,
            maven.unwrap_or_default(),
            "{id}: Maven's verdict is stored"
        );
    }
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The candidates of `fast-path/expected.toml` that a JVM shared between candidates, or one unlike
/// Surefire's fork, judged wrong, in the order they run (a pair that sets the JVM-wide serial
/// filter comes one after the other).
const FRESH_JVM_CASES: [&str; 14] = [
    "clears-thread-loader",
    "fix-leaves-thread",
    "keeps-logging-handler",
    "sets-system-properties",
    "replaces-security-manager",
    "serial-filter-a",
    "serial-filter-b",
    "uses-java-sql",
    "asserts-false",
    "test-scoped-class",
    "holds-lock",
    "reads-own-memory",
    "forges-own-frame",
    "detects-the-fast-path",
];

/// A stored verdict: outcome, engine, check kind, fast and Maven outcomes, flags.
type FreshRow = (
    String,
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
);

fn fresh_jvm_per_candidate_gives_mavens_verdicts(uid: Option<u32>) {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let base = dir.path();
    let expected: BTreeMap<String, BTreeMap<String, String>> = toml::from_str(
        &std::fs::read_to_string(fixtures().join("fast-path/expected.toml")).unwrap(),
    )
    .unwrap();
    let mut cases: Vec<(String, String, String)> = FRESH_JVM_CASES
        .iter()
        .map(|label| {
            let diff = std::fs::read_to_string(
                fixtures()
                    .join("fast-path")
                    .join(TASK)
                    .join(format!("{label}.diff")),
            )
            .unwrap();
            (label.to_string(), diff, expected[TASK][*label].clone())
        })
        .collect();
    let patches = write_cases_with_reference(base, TASK, &mut cases);
    let repository = match uid {
        None => dirs_repository(),
        Some(_) => {
            // The unprivileged user gets its own copy of a repository warmed for the task.
            warm_task(TASK);
            let copy = base.join("repository");
            copy_tree(&dirs_repository(), &copy);
            copy
        }
    };
    let store = base.join("results.sqlite");
    let output = avrlab_as(
        uid,
        base,
        &[
            "validate",
            "--benchmark",
            "demo",
            "--tasks",
            TASK,
            "--patches",
            patches.to_str().unwrap(),
            // No random sample: the fast path alone decides, but for the flagged candidates and
            // those after a disagreement.
            "--confirm-sample",
            "0",
            "--workers",
            "1",
            "--timeout",
            "30",
            "--work-dir",
            base.join("work").to_str().unwrap(),
            "--maven-repo",
            repository.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let db = rusqlite::Connection::open(&store).unwrap();
    let mut wrong = Vec::new();
    for (label, _, expected) in &cases {
        let id = format!("{TASK}/{label}");
        let (outcome, engine, kind, fast, maven, flags): FreshRow = db
            .query_row(
                "SELECT v.outcome, e.engine, e.check_kind, e.fast_outcome, e.maven_outcome, e.flags
                 FROM verdicts v JOIN engines e USING (run_id, candidate_id)
                 WHERE v.candidate_id = ?1",
                [&id],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        r.get(5)?,
                    ))
                },
            )
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        if outcome != *expected {
            wrong.push(format!(
                "{id}: expected {expected}, stored {outcome} (fast {fast:?}, maven {maven:?}, {flags})"
            ));
        }
        match label.as_str() {
            // Flagged at run time or in the diff: Maven re-judged it whatever the fast path
            // found (a thread started, the security manager replaced or looked up, the JVM's own
            // memory read, sun.misc reached for).
            "clears-thread-loader"
            | "fix-leaves-thread"
            | "replaces-security-manager"
            | "reads-own-memory"
            | "forges-own-frame"
            | "detects-the-fast-path" => {
                assert_eq!(
                    (engine.as_str(), kind.as_deref()),
                    ("maven", Some("flag")),
                    "{id}: {flags}"
                );
                assert!(!flags.is_empty(), "{id}");
            }
            // After the engines disagreed (forges-own-frame: fast Plausible, Maven PovFailing;
            // detects-the-fast-path, flagged: fast PovFailing, Maven Plausible, so
            // Indeterminate), the task's later candidates are re-judged.
            "reference" => assert_eq!(
                (engine.as_str(), kind.as_deref()),
                ("maven", Some("disagreement")),
                "{id}"
            ),
            // The fast path alone decided, unflagged.
            _ => assert_eq!(
                (engine.as_str(), kind.as_deref(), flags.as_str()),
                ("fast", None, ""),
                "{id}"
            ),
        }
    }
    // A thread left running after a pass is a runtime flag, named; one the PoV tests started is
    // flagged already when the regression tests begin in the same JVM (Maven's would not see it).
    let left_flags: String = db
        .query_row(
            "SELECT flags FROM engines WHERE candidate_id = ?1",
            [format!("{TASK}/fix-leaves-thread")],
            |r| r.get(0),
        )
        .unwrap();
    assert!(
        left_flags.contains("a thread started by the tests is still running (archive-watcher)"),
        "{left_flags}"
    );
    assert!(
        left_flags.contains(
            "a thread the PoV tests started was still running when the regression tests began (archive-watcher)"
        ),
        "{left_flags}"
    );
    // The candidate that forged its own answer is never an unflagged Plausible: its runtime
    // flags came apart from the answer, and Maven's verdict stands.
    let (forged_fast, forged_flags): (Option<String>, String) = db
        .query_row(
            "SELECT fast_outcome, flags FROM engines WHERE candidate_id = ?1",
            [format!("{TASK}/forges-own-frame")],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(
        forged_flags.contains("asked for accessClassInPackage.sun.misc"),
        "fast {forged_fast:?}: {forged_flags}"
    );
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
    // The summary says how many verdicts Maven re-judged and lists the disagreements.
    assert!(
        stdout.contains("Maven re-judged 7 of 15 fast verdicts (disagreement 1, flag 6)"),
        "{stdout}"
    );
    for disagreement in [
        "disagreement (flag): demo-zip-slip/forges-own-frame: fast Plausible, Maven PovFailing, stored PovFailing",
        "disagreement (flag): demo-zip-slip/detects-the-fast-path: fast PovFailing, Maven Plausible, stored Indeterminate",
    ] {
        assert!(stdout.contains(disagreement), "{stdout}");
    }
}

#[test]
fn fresh_jvm_per_candidate_gives_mavens_verdicts_as_root() {
    fresh_jvm_per_candidate_gives_mavens_verdicts(None);
}

#[test]
fn fresh_jvm_per_candidate_gives_mavens_verdicts_as_an_unprivileged_user() {
    fresh_jvm_per_candidate_gives_mavens_verdicts(Some(65534));
}

/// The candidates on which the fast path once differed from Maven, by class (see
/// `fast-path/expected.toml`): what gets compiled (a copy in a folder Maven's compiler plug-in
/// leaves out, a duplicate class), what the regression phase runs (a fix that holds only once),
/// the guard (a security manager constructed, not installed; a flagged failure), files moved or
/// deleted (in `demo-form-xss` too, whose deleted class no test names, so it must also leave the
/// test JVM's main classes), output past what a Surefire report holds, and oracle tests that abort instead of
/// failing (JUnit's assumption exception, thrown by the code under test, which both runners report
/// as skipped: a test that passes on the reference fix counts as failing when skipped), and a fix
/// written as several sections for one file, applied in order as `git apply` does. The fast
/// engine alone (no random sample) and the Maven engine must each give the expected verdict.
#[test]
fn each_class_of_difference_gets_the_same_verdict_on_both_engines() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let expected: BTreeMap<String, BTreeMap<String, String>> = toml::from_str(
        &std::fs::read_to_string(fixtures().join("fast-path/expected.toml")).unwrap(),
    )
    .unwrap();
    let mut cases: Vec<(String, String, String)> = [
        "aborts-pov",
        "aborts-regression",
        "fix-in-cvs-folder",
        "fixed-copy-elsewhere",
        "adds-helper-class",
        "fixes-only-once",
        "finds-caller-with-security-manager",
        "reads-maps-and-fails",
        "moves-the-fixed-class",
        "deletes-the-class",
        "logs-every-archive",
        "floods-the-report",
        "fixes-outside-a-module",
        "fixes-with-a-large-heap",
        "fix-in-sections",
    ]
    .iter()
    .map(|label| {
        let diff = std::fs::read_to_string(
            fixtures()
                .join("fast-path")
                .join(TASK)
                .join(format!("{label}.diff")),
        )
        .unwrap();
        (label.to_string(), diff, expected[TASK][*label].clone())
    })
    .collect();
    let patches = write_cases_with_reference(dir.path(), TASK, &mut cases);
    // A second task, whose deleted class no test names: its candidates run in the same runs.
    const DELETES: &str = "demo-form-xss";
    let mut lines = std::fs::read_to_string(&patches).unwrap();
    for label in [
        "inlines-the-escaper",
        "escapes-only-if-present",
        "escapes-with-own-code-source",
    ] {
        let diff = std::fs::read_to_string(
            fixtures()
                .join("fast-path")
                .join(DELETES)
                .join(format!("{label}.diff")),
        )
        .unwrap();
        lines.push('\n');
        lines.push_str(&patch_line(DELETES, label, &diff));
        cases.push((
            format!("{DELETES}/{label}"),
            diff,
            expected[DELETES][label].clone(),
        ));
    }
    std::fs::write(&patches, lines).unwrap();
    let tasks = format!("{TASK},{DELETES}");
    let engines = [
        ("fast", &["--confirm-sample", "0"][..]),
        ("maven", &["--engine", "maven"][..]),
    ];
    for (engine, flags) in engines {
        let store = dir.path().join(format!("{engine}.sqlite"));
        let mut args = vec![
            "validate",
            "--benchmark",
            "demo",
            "--tasks",
            &tasks,
            "--patches",
            patches.to_str().unwrap(),
            "--workers",
            "1",
            "--timeout",
            "30",
            "--store",
            store.to_str().unwrap(),
        ];
        args.extend_from_slice(flags);
        let output = avrlab(dir.path(), &args);
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        let db = rusqlite::Connection::open(&store).unwrap();
        let mut wrong = Vec::new();
        for (label, _, expected) in &cases {
            let id = candidate_id(label);
            let (outcome, reason): (String, String) = db
                .query_row(
                    "SELECT outcome, reason FROM verdicts WHERE candidate_id = ?1",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            if outcome != *expected {
                wrong.push(format!("{id} on {engine}: {outcome}, {reason}"));
                continue;
            }
            let aborted = match label.as_str() {
                "aborts-pov" => Some("ArchiveExtractorTest#doesNotWriteOutsideTheDestination"),
                "aborts-regression" => Some("ArchiveExtractorTest#replacesExistingFiles"),
                _ => None,
            };
            if let Some(test) = aborted {
                assert!(
                    reason.contains(&format!("{test} aborted"))
                        && reason.contains("the reference fix does not skip it"),
                    "{id} on {engine}: {reason}"
                );
            }
            let why = match label.as_str() {
                "fixed-copy-elsewhere" => {
                    Some("src/main/java/com/example/archive/fixed/ArchiveExtractor.java")
                }
                // Maven's regression run fails the PoV test it runs again after the others.
                "fixes-only-once" => {
                    Some("ArchiveExtractorTest#doesNotWriteOutsideTheDestination failed")
                }
                "floods-the-report" => Some("the test reports cannot be used"),
                _ => None,
            };
            if let Some(why) = why {
                assert!(reason.contains(why), "{id} on {engine}: {reason}");
            }
        }
        assert!(wrong.is_empty(), "{}", wrong.join("\n"));
        if engine == "maven" {
            continue;
        }
        // The fast path's own verdicts, as the engine row keeps them: the flagged ones were
        // re-judged by Maven whatever the fast path found, and the rest the fast path decided
        // alone (but the deletion whose tests no longer compile, which Maven decides).
        for (label, _, expected) in &cases {
            let id = candidate_id(label);
            let (engine_used, kind, fast, fallback, flags): FlagRow = db
                .query_row(
                    "SELECT engine, check_kind, fast_outcome, fallback, flags FROM engines
                     WHERE candidate_id = ?1",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
                )
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            match label.as_str() {
                // The aborting ones reach for opentest4j by name.
                "aborts-pov"
                | "aborts-regression"
                | "finds-caller-with-security-manager"
                | "reads-maps-and-fails" => {
                    assert_eq!(
                        (engine_used.as_str(), kind.as_deref(), fast.as_deref()),
                        ("maven", Some("flag"), Some(expected.as_str())),
                        "{id}: {flags}"
                    );
                    // The flags say what was seen.
                    let seen = match label.as_str() {
                        "reads-maps-and-fails" => "the tests opened /proc/self/maps",
                        "finds-caller-with-security-manager" => {
                            "adds uses of the security manager: SecurityManager"
                        }
                        _ => "a string with \"opentest4j\"",
                    };
                    assert!(flags.contains(seen), "{id}: {flags}");
                }
                "deletes-the-class" => {
                    let fallback = fallback.unwrap_or_default();
                    assert!(
                        fallback.starts_with(
                            "the candidate deletes or moves \
                             src/main/java/com/example/archive/ArchiveExtractor.java, and the \
                             project's sources do not compile against it in memory"
                        ),
                        "{id}: {fallback}"
                    );
                }
                _ => assert_eq!(
                    (engine_used.as_str(), kind, fallback, flags.as_str()),
                    ("fast", None, None, ""),
                    "{id}"
                ),
            }
        }
        // The deleted class was left out of the test JVM's main classes, and the log says so.
        for label in ["inlines-the-escaper", "escapes-only-if-present"] {
            let log: String = db
                .query_row(
                    "SELECT log FROM phases WHERE candidate_id = ?1 AND phase = 'pov'",
                    [format!("{DELETES}/{label}")],
                    |r| r.get(0),
                )
                .unwrap();
            assert!(
                log.contains(
                    "the test JVM's target/classes leaves out the removed files' classes: \
                     com.example.web.HtmlEscaper"
                ),
                "{label}: {log}"
            );
        }
        // The file in the CVS folder was never compiled, and the log says why.
        let log: String = db
            .query_row(
                "SELECT group_concat(log, '\n') FROM phases WHERE candidate_id = ?1",
                [format!("{TASK}/fix-in-cvs-folder")],
                |r| r.get(0),
            )
            .unwrap();
        assert!(
            log.contains(
                "src/main/java/com/example/archive/CVS/ArchiveExtractor.java is not compiled"
            ),
            "{log}"
        );
    }
}

/// The fidelity probe on the demo task whose candidates the tests above judge: every
/// difference between Surefire's fork and the fast test JVM is explained (exit 0), and what a
/// candidate could tell them apart by before (`jdk.module.main`, the heap, the collector, the
/// code sources, the class path) is no difference at all.
#[test]
fn the_fidelity_probe_finds_only_explained_differences() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let output = avrlab(
        dir.path(),
        &["bench", "--benchmark", "demo", "fidelity", "--tasks", TASK],
    );
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "{stdout}
{stderr}"
    );
    assert!(stdout.contains("differ, 0 unexplained"), "{stdout}");
    for same in [
        "property jdk.module.main",
        "runtime maxMemory",
        "jvm garbage collectors",
        "jvm JIT compiler",
        "main class code source",
        "test class code source",
        "property java.class.path",
        "assertions enabled",
        "working directory",
    ] {
        assert!(!stdout.contains(&format!("| {same} |")), "{same}: {stdout}");
    }
    assert!(stdout.contains("| property sun.java.command |"), "{stdout}");
}

/// A case's candidate id: a bare label is one of the demo task's, `task/label` another task's.
fn candidate_id(label: &str) -> String {
    if label.contains('/') {
        label.to_owned()
    } else {
        format!("{TASK}/{label}")
    }
}

/// A stored engine row: engine, check kind, fast outcome, fallback reason, flags.
type FlagRow = (
    String,
    Option<String>,
    Option<String>,
    Option<String>,
    String,
);
