//! A Java 8 task whose sources use `java.security.acl` (removed in JDK 14) and whose pom pins a
//! compiler plug-in older than `--release`: JDK 17 compiles it at `--release 8` through a forked
//! `javac`, its tests run on an older Java runtime (the one `scripts/install-deps` fetches), in a
//! temporary folder outside `/tmp`, with JDK 8's JAXB and SAAJ on its boot class path; the vulnerable
//! state fails its PoV, the reference fix is Plausible, and every phase record says why.

use crate::common::{avrlab, heavy_one_core, strings, text};

#[test]
fn a_removed_api_is_compiled_at_its_release_and_tested_on_an_older_runtime() {
    let _lock = heavy_one_core();
    let benchmark =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/older-api");
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
        "(scripts/install-deps fetches the Java 11 runtime this test needs)\n{stdout}\n{stderr}"
    );
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let check = &summary["reference_check"];
    assert_eq!(check["passed"], true, "{stdout}");
    assert_eq!(check["vulnerable_failing_pov"], 1, "{stdout}");
    assert_eq!(check["reference_plausible"], 1, "{stdout}");

    let column = |sql: &str| strings(&store, sql);
    // The fast path hands the task to Maven, saying why.
    let fallbacks = column("SELECT fallback FROM engines");
    assert_eq!(fallbacks.len(), 2);
    for fallback in fallbacks {
        assert!(fallback.contains("--release 8"), "{fallback}");
    }
    // Every compile log records the repair and its reason.
    let logs = column("SELECT log FROM phases WHERE phase = 'compile'");
    assert_eq!(logs.len(), 2);
    for log in logs {
        for expected in [
            "javac compiles at --release 8",
            "the sources use java.security.acl, which JDK 14 removed",
            "the tests run on Java 11",
        ] {
            assert!(log.contains(expected), "{expected} in {log}");
        }
    }
    // Every test phase records the temporary folder.
    for enforcement in column("SELECT enforcement FROM phases WHERE phase != 'compile'") {
        assert!(
            enforcement.contains("java.io.tmpdir: /avrlab/tmp"),
            "{enforcement}"
        );
    }
    // The tests saw what the repairs promise: Java 11 and a temporary folder outside /tmp.
    let environment = column(
        "SELECT status FROM test_results WHERE class = 'com.example.acl.EnvironmentTest' \
         AND candidate_id LIKE '%reference%'",
    );
    assert!(!environment.is_empty());
    assert!(environment.iter().all(|s| s == "passed"), "{environment:?}");
    // JDK 8's JAXB and SAAJ, APIs and implementations, are there for the tests (Java 11 has
    // none of them).
    let java_ee = column(
        "SELECT status FROM test_results WHERE class = 'com.example.acl.EnvironmentTest' \
         AND method IN ('jaxbWorksAsOnJava8', 'saajWorksAsOnJava8') \
         AND candidate_id LIKE '%reference%'",
    );
    assert_eq!(java_ee, ["passed", "passed"]);
}
