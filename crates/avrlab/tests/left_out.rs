//! Test sources that do not compile here, left out: the fixture's `EncodedSlugsTest` uses
//! `sun.misc.BASE64Encoder` (removed in JDK 9) and `EncodedSlugsUserTest` calls it. On JDK 17
//! the test compilation fails, so no test would run. The warm-up leaves the first out, then the
//! second (which fails once the first is gone), and `bench check` passes with the rest of the
//! suite, naming both files and the first one's compile error. A second check of the same state
//! reads what was left out from the record, and says the same.

use crate::common::{avrlab_with_own_cache as avrlab, fixtures, heavy_one_core, strings, text};

const ROW: &str = "| demo-left-out | yes | yes | yes | 0 of 3 | JDK 17 |";

#[test]
fn test_sources_that_do_not_compile_here_are_left_out_and_the_rest_counts() {
    let _lock = heavy_one_core();
    let benchmark = fixtures().join("left-out");
    let benchmark = benchmark.to_str().unwrap();
    let dir = tempfile::tempdir().unwrap();
    let check = |store: &str| {
        let store = dir.path().join(store);
        let output = avrlab(
            dir.path(),
            &[
                "bench",
                "--benchmark",
                benchmark,
                "check",
                "--workers",
                "1",
                "--store",
                store.to_str().unwrap(),
            ],
        );
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        (stdout, store)
    };
    for store in ["first.sqlite", "again.sqlite"] {
        let (stdout, store) = check(store);
        assert!(stdout.contains(ROW), "{stdout}");
        assert!(
            stdout.contains(
                "left out 2 test source files: the test compilation fails on them here, and their \
                 tests do not count (src/test/java/com/example/slugs/EncodedSlugsTest.java: \
                 EncodedSlugsTest.java:[10,"
            ),
            "{stdout}"
        );
        assert!(stdout.contains("cannot find symbol"), "{stdout}");
        assert!(stdout.contains("; and 1 more)"), "{stdout}");
        // Every compile of the task says so in its log.
        let logs = strings(&store, "SELECT log FROM phases WHERE phase = 'compile'");
        assert_eq!(logs.len(), 2, "the vulnerable state and the reference fix");
        for log in logs {
            assert!(log.contains("left out 2 test source files"), "{log}");
        }
    }
    // The record names both files, with the first compile error of each.
    let records: Vec<_> = walkdir::WalkDir::new(dir.path().join("cache"))
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .ends_with("-left-out-tests.txt")
        })
        .collect();
    assert_eq!(records.len(), 1, "{records:?}");
    let record = std::fs::read_to_string(records[0].path()).unwrap();
    let files: Vec<&str> = record
        .lines()
        .filter_map(|l| l.split('\t').next())
        .collect();
    assert_eq!(
        files,
        [
            "src/test/java/com/example/slugs/EncodedSlugsTest.java",
            "src/test/java/com/example/slugs/EncodedSlugsUserTest.java"
        ]
    );
}
