//! `avrlab replay` end to end with real Maven: a fixture in the layout of the VJBench package's
//! published generations (our own content, for the demo task `demo-zip-slip`) is mapped onto the
//! task, validated, stored as an eval run, and reported with the published labels beside ours.

use crate::common::{avrlab, fixtures, heavy_one_core, text};

#[test]
fn published_generations_are_revalidated_and_compared_with_their_labels() {
    let _heavy = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("results.sqlite");
    let generations = fixtures().join("replay");
    let locations = generations.join("vul_location.json");
    let output = avrlab(
        dir.path(),
        &[
            "replay",
            "--tasks",
            "demo-zip-slip",
            "--generations",
            generations.to_str().unwrap(),
            "--model",
            "CodeT5",
            "--locations",
            locations.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
            "--run",
            "replayed",
            "--workers",
            "1",
            // Maven, the ground truth, decides every verdict (the fast engine has its own suite).
            "--engine",
            "maven",
            // The plausible samples compared with the reference fix as part of the replay (the
            // proven ones too: with a short budget, they check that replay passes the flags on).
            "--differential",
            "--differential-budget",
            "2",
            "--differential-include-proven",
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("diff-test replayed: 2 plausible candidates: 0 Divergent"),
        "{stderr}"
    );
    // Five published samples, five candidates: the fix laid out differently is another project,
    // validated on its own. The fix and its layout twin are Plausible; the check for absolute names only, which the "publication" calls plausible, fails
    // the PoV test here.
    assert!(
        stdout.contains("| CodeT5 | mask-codet5 | 0 | 1 | 5 | 0 | 1 ("),
        "{stdout}"
    );
    assert!(
        stdout.contains(
            "replayed: our verdicts agree with the published labels on 4 of 5 samples (80.0%); plausible by both 2, by ours only 0, by the published only 1"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("- ours / published `compile_success / test_success`: 1"),
        "{stdout}"
    );
    assert!(
        stdout.contains("no task of benchmark demo is Unknown-1"),
        "{stdout}"
    );
    assert!(stderr.contains("5 candidates (5 validated now"), "{stderr}");

    // The stored run is an eval run like any other: `report` prints the same agreement.
    let report = avrlab(
        dir.path(),
        &["report", "replayed", "--store", store.to_str().unwrap()],
    );
    let (tables, stderr) = text(&report);
    assert!(report.status.success(), "{stderr}");
    assert!(
        tables.contains("agree with the published labels on 4 of 5"),
        "{tables}"
    );
}
