//! A multi-module task whose vulnerability lies in a sibling of the tested module: the tested
//! module is built through Maven's reactor (`-pl service -am`), its vulnerable state fails the PoV
//! and its reference fix (in the sibling) is Plausible, with either engine. The sibling runs a
//! Maven plug-in the project builds itself (as CXF's `cxf-codegen-plugin`), which each test run
//! resolves from the reactor.

use crate::common::{avrlab, heavy_one_core, strings, text};

#[test]
fn a_sibling_modules_fix_is_validated_through_the_reactor_with_both_engines() {
    let _lock = heavy_one_core();
    let benchmark =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/multi-module");
    let dir = tempfile::tempdir().unwrap();
    for engine in ["maven", "fast"] {
        let store = dir.path().join(format!("{engine}.sqlite"));
        let output = avrlab(
            dir.path(),
            &[
                "validate",
                "--benchmark",
                benchmark.to_str().unwrap(),
                "--reference",
                "--engine",
                engine,
                "--workers",
                "1",
                "--json",
                "--store",
                store.to_str().unwrap(),
            ],
        );
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{engine}: {stdout}\n{stderr}");
        let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
        let check = &summary["reference_check"];
        assert_eq!(check["passed"], true, "{engine}: {stdout}");
        assert_eq!(check["vulnerable_failing_pov"], 1, "{engine}: {stdout}");
        assert_eq!(check["reference_plausible"], 1, "{engine}: {stdout}");

        // Only the tested module's tests ran: never the sibling's.
        let classes: Vec<String> = strings(
            &store,
            "SELECT DISTINCT class FROM test_results ORDER BY class",
        );
        assert_eq!(classes, ["com.example.service.UploadStoreTest"], "{engine}");
        if engine == "fast" {
            // The fast path hands the whole task to Maven, saying why (a task's fallback, so the
            // reference stays Plausible).
            let fallbacks: Vec<String> = strings(&store, "SELECT fallback FROM engines");
            assert_eq!(fallbacks.len(), 2);
            for fallback in fallbacks {
                assert!(
                    fallback.contains("does not build sibling modules"),
                    "{fallback}"
                );
            }
        }
        // The phase logs record why Maven ran from the project root.
        let logs: Vec<String> = strings(&store, "SELECT log FROM phases WHERE phase = 'compile'");
        assert_eq!(logs.len(), 2, "{engine}");
        for log in logs {
            assert!(
                log.contains("Maven runs from the project root with -pl service -am"),
                "{engine}: {log}"
            );
        }
        // The codec module runs a plug-in the project builds (no repository has it): every test
        // run resolved it from the reactor, which it can only once the plug-in's jar is made.
        let runs: Vec<String> = strings(&store, "SELECT log FROM phases WHERE phase = 'pov'");
        assert_eq!(runs.len(), 2, "{engine}");
        for log in runs {
            assert!(
                log.contains("stamped by the project's own plug-in"),
                "{engine}: {log}"
            );
        }
    }
}
