//! The fast engine against Maven on one demo task: every candidate is judged by both (the re-check
//! sample set to 1), and both must give the expected outcome — the demo fixtures, the reference
//! fix, and candidates aimed at the resident validator (forged result frames, System.exit, a
//! thread left running, API changes that make the compiled tests stale, a look-up through the
//! system class loader).

use std::collections::BTreeMap;

use crate::common::{avrlab, fixtures, heavy, text, write_cases_with_reference};

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
    let _lock = heavy();
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
            "--recheck-sample",
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
        // The PoV passed (Plausible, RegressionBroken): always confirmed; else sampled.
        let want_kind = if matches!(expected.as_str(), "Plausible" | "RegressionBroken") {
            "confirmation"
        } else {
            "sample"
        };
        assert_eq!(kind.as_deref(), Some(want_kind), "{id}");
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
