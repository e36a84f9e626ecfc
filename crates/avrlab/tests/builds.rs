//! Tasks built with Gradle (Debian's 4.4.1, JUnit 4 from Maven Central) and with Ant (the
//! project's `junit` target): the vulnerable state fails its PoV and the reference fix is
//! Plausible, sandboxed and offline after the warm-up. The fast engine hands both to their own
//! build tool, saying why, and every phase log names the tool and what avrlab supplied.

use crate::common::{avrlab, heavy_one_core, text};

#[test]
fn gradle_and_ant_tasks_fail_their_pov_and_pass_with_the_reference_fix() {
    let _lock = heavy_one_core();
    let benchmark = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/builds");
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("store.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--benchmark",
            benchmark.to_str().unwrap(),
            "--reference",
            "--engine",
            "fast",
            "--workers",
            "1",
            "--json",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "(scripts/install-deps installs gradle and ant)\n{stdout}\n{stderr}"
    );
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let check = &summary["reference_check"];
    assert_eq!(check["passed"], true, "{stdout}");
    assert_eq!(check["vulnerable_failing_pov"], 2, "{stdout}");
    assert_eq!(check["reference_plausible"], 2, "{stdout}");

    let db = rusqlite::Connection::open(&store).unwrap();
    let rows = |sql: &str| -> Vec<(String, String)> {
        db.prepare(sql)
            .unwrap()
            .query_map([], |row| Ok((row.get(0)?, row.get(1)?)))
            .unwrap()
            .map(Result::unwrap)
            .collect()
    };
    // The fast path takes Maven builds only, and says so for each candidate; the tool that
    // judged it is the engine stored.
    let engines = rows("SELECT candidate_id, engine FROM engines ORDER BY candidate_id");
    for (candidate, engine) in &engines {
        assert_eq!(
            Some(engine.as_str()),
            candidate.split('-').next(),
            "{candidate}"
        );
    }
    let fallbacks = rows("SELECT candidate_id, fallback FROM engines ORDER BY candidate_id");
    assert_eq!(fallbacks.len(), 4, "{fallbacks:?}");
    for (candidate, fallback) in &fallbacks {
        let tool = candidate.split('-').next().unwrap();
        assert!(
            fallback.contains(&format!(
                "a {tool} build: the fast path takes Maven builds only"
            )),
            "{candidate}: {fallback}"
        );
    }
    // Every compile log names the tool, what stands in for JDK 8, and what avrlab supplied.
    for (candidate, log) in rows("SELECT candidate_id, log FROM phases WHERE phase = 'compile'") {
        assert!(
            log.contains("JDK 8 is not installed: JDK 17"),
            "{candidate}: {log}"
        );
        if candidate.starts_with("ant") {
            assert!(
                log.contains("with JUnit 4.13.2 and Hamcrest 1.3 on its library path"),
                "{log}"
            );
        } else {
            assert!(log.contains("[avrlab] Gradle "), "{log}");
        }
    }
    // The PoV failed for the vulnerable states, by the reports, and only the PoV counted there.
    let pov = rows(
        "SELECT candidate_id, status FROM test_results WHERE phase = 'pov' ORDER BY candidate_id",
    );
    assert_eq!(
        pov,
        [
            ("ant-zip-slip/reference".to_owned(), "passed".to_owned()),
            ("ant-zip-slip/vulnerable".to_owned(), "failed".to_owned()),
            ("gradle-zip-slip/reference".to_owned(), "passed".to_owned()),
            ("gradle-zip-slip/vulnerable".to_owned(), "failed".to_owned()),
        ]
    );
    // Ant ran the whole suite in the PoV phase; the log says the others were not counted.
    let (_, ant_pov) = &rows(
        "SELECT candidate_id, log FROM phases WHERE phase = 'pov' AND candidate_id = 'ant-zip-slip/reference'",
    )[0];
    assert!(
        ant_pov.contains("3 reported test case(s) outside this phase's selection are not counted"),
        "{ant_pov}"
    );
    // The reference fixes' regression phases ran every other test.
    let regression = rows(
        "SELECT candidate_id, CAST(count(*) AS TEXT) FROM test_results WHERE phase = 'regression' GROUP BY candidate_id",
    );
    let counts: Vec<(String, i64)> = regression
        .iter()
        .map(|(c, n)| (c.clone(), n.parse().unwrap()))
        .collect();
    assert_eq!(
        counts,
        [
            ("ant-zip-slip/reference".to_owned(), 4),
            ("gradle-zip-slip/reference".to_owned(), 4)
        ]
    );
}
