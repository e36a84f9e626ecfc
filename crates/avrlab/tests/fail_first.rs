//! The fast path's cheaper regression runs: the classes that failed for earlier candidates of a
//! task run first, and no class runs after the first one that failed; `--keep-going` runs every
//! class in Surefire's order. The fixture task has three regression classes (AlphaTest, BetaTest,
//! GammaTest), and its PoV class runs again among them as in Maven's regression run; both
//! candidates fix the vulnerability and break BetaTest and GammaTest. Either way
//! the outcome is Maven's; only the per-test evidence differs, and the phase says what it left out.

use crate::common::{avrlab, fixtures, heavy_one_core, patch_line, text};

const TASK: &str = "demo-slugs";

/// The candidates, in the order one worker validates them.
const LABELS: [&str; 2] = ["breaks-two-classes", "breaks-them-again"];

/// Per candidate, in `LABELS` order: its outcome, its regression phase's exit and the
/// `class status` of each regression test that ran.
type Evidence = Vec<(String, String, Vec<String>)>;

fn validate(dir: &std::path::Path, extra: &[&str]) -> Evidence {
    let lines: Vec<String> = LABELS
        .iter()
        .map(|label| {
            let diff = std::fs::read_to_string(fixtures().join(format!("fail-first/{label}.diff")))
                .unwrap();
            patch_line(TASK, label, &diff)
        })
        .collect();
    let patches = dir.join("candidates.jsonl");
    std::fs::write(&patches, lines.join("\n")).unwrap();
    let store = dir.join(format!("results{}.sqlite", extra.len()));
    let benchmark = fixtures().join("fail-first");
    let mut args = vec![
        "validate",
        "--benchmark",
        benchmark.to_str().unwrap(),
        "--patches",
        patches.to_str().unwrap(),
        "--workers",
        "1",
        "--confirm-sample",
        "0",
        "--store",
        store.to_str().unwrap(),
    ];
    args.extend_from_slice(extra);
    let output = avrlab(dir, &args);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let db = rusqlite::Connection::open(&store).unwrap();
    LABELS
        .iter()
        .map(|label| {
            let id = format!("{TASK}/{label}");
            let (outcome, exit): (String, String) = db
                .query_row(
                    "SELECT v.outcome, p.exit FROM verdicts v JOIN phases p
                     USING (run_id, candidate_id)
                     WHERE v.candidate_id = ?1 AND p.phase = 'regression'",
                    [&id],
                    |r| Ok((r.get(0)?, r.get(1)?)),
                )
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            let mut query = db
                .prepare(
                    "SELECT class, status FROM test_results
                     WHERE candidate_id = ?1 AND phase = 'regression' ORDER BY rowid",
                )
                .unwrap();
            let tests = query
                .query_map([&id], |r| {
                    let class: String = r.get(0)?;
                    let status: String = r.get(1)?;
                    let short = class.rsplit('.').next().unwrap_or_default().to_owned();
                    Ok(format!("{short} {status}"))
                })
                .unwrap()
                .map(Result::unwrap)
                .collect();
            (outcome, exit, tests)
        })
        .collect()
}

#[test]
fn failing_classes_run_first_and_the_run_stops_at_the_first_failure_unless_kept_going() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();

    let stopped = validate(dir.path(), &[]);
    // The first candidate: Surefire's order, stopped after BetaTest failed.
    assert_eq!(stopped[0].0, "RegressionBroken");
    assert!(
        stopped[0]
            .1
            .contains("stopped at the first failing class, 2 more not run"),
        "{:?}",
        stopped[0]
    );
    assert_eq!(stopped[0].2, ["AlphaTest passed", "BetaTest failed"]);
    // The second: BetaTest, which failed before, runs first and decides alone.
    assert_eq!(stopped[1].0, "RegressionBroken");
    assert!(
        stopped[1]
            .1
            .contains("stopped at the first failing class, 3 more not run"),
        "{:?}",
        stopped[1]
    );
    assert_eq!(stopped[1].2, ["BetaTest failed"]);

    // Every class, in Surefire's order, for both.
    let full = validate(dir.path(), &["--keep-going"]);
    for (outcome, exit, tests) in &full {
        assert_eq!(outcome, "RegressionBroken");
        assert!(!exit.contains("stopped"), "{exit}");
        // The PoV test's class runs again with the others, as in Maven's regression run.
        assert_eq!(
            tests,
            &[
                "AlphaTest passed",
                "BetaTest failed",
                "GammaTest failed",
                "SlugsPovTest passed"
            ]
        );
    }

    // Maven runs every test (its regression phase runs the PoV class's test again) and comes to
    // the same outcome.
    let maven = validate(dir.path(), &["--engine", "maven"]);
    for (outcome, _, tests) in &maven {
        assert_eq!(outcome, "RegressionBroken");
        for test in ["AlphaTest passed", "BetaTest failed", "GammaTest failed"] {
            assert!(tests.iter().any(|t| t == test), "{tests:?}");
        }
    }
}
