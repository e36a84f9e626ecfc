//! Predictions the way users have them: SWE-bench-style files (`instance_id`,
//! `model_name_or_path`, `model_patch`), a patch that is not a diff, and SWE-bench's report.json.

use crate::common::{avrlab, repo_root, text};

const TASK: &str = "demo-xxe-config";

#[test]
fn swe_bench_predictions_validate_and_the_report_json_says_what_each_did() {
    let _lock = crate::common::heavy();
    let dir = tempfile::tempdir().unwrap();
    let reference =
        std::fs::read_to_string(repo_root().join(format!("benchmarks/demo/{TASK}/reference.diff")))
            .unwrap();
    let line = |model: &str, patch: &str| {
        serde_json::json!({"instance_id": TASK, "model_name_or_path": model, "model_patch": patch})
            .to_string()
    };
    let predictions = dir.path().join("preds.jsonl");
    std::fs::write(
        &predictions,
        [
            line("fixer", &reference),
            line("silent", ""),
            line("rambler", "I would validate the input first."),
        ]
        .join("\n"),
    )
    .unwrap();
    let store = dir.path().join("r.sqlite");
    let report_path = dir.path().join("report.json");
    let validate = |extra: &[&str]| {
        let mut args = vec![
            "validate",
            "--patches",
            predictions.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
            "--tasks",
            TASK,
            "--report-json",
            report_path.to_str().unwrap(),
        ];
        args.extend_from_slice(extra);
        avrlab(dir.path(), &args)
    };

    // Without --allow-apply-failures the file is refused at the line that is no diff.
    let refused = validate(&[]);
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("preds.jsonl:3: the patch is not a unified diff")
            && stderr.contains("--allow-apply-failures"),
        "{stderr}"
    );
    assert!(
        !report_path.exists(),
        "nothing is written for refused input"
    );

    // A report.json in a folder that does not exist is refused before anything runs.
    let missing = dir.path().join("no-such-folder/report.json");
    let refused = avrlab(
        dir.path(),
        &[
            "validate",
            "--patches",
            predictions.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
            "--allow-apply-failures",
            "--report-json",
            missing.to_str().unwrap(),
        ],
    );
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--report-json") && stderr.contains("does not exist"),
        "{stderr}"
    );
    assert!(
        !store.exists(),
        "no run is stored for a refused command line"
    );

    let output = validate(&["--allow-apply-failures", "--run", "swe"]);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let report: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_path).unwrap()).unwrap();
    assert_eq!(report["run"], "swe");
    assert_eq!(report["candidates"], 3);
    assert_eq!(report["applied"], 2);
    assert_eq!(report["resolved"], 1);
    assert_eq!(
        report["resolved_ids"],
        serde_json::json!([format!("{TASK}/fixer")])
    );

    let entry = |model: &str| report["results"][format!("{TASK}/{model}")].clone();
    let fixer = entry("fixer");
    assert_eq!(fixer["outcome"], "Plausible", "{fixer}");
    assert_eq!(fixer["patch_successfully_applied"], true);
    assert_eq!(
        fixer["tests_status"]["FAIL_TO_PASS"]["failure"],
        serde_json::json!([])
    );
    assert!(
        !fixer["tests_status"]["FAIL_TO_PASS"]["success"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{fixer}"
    );
    assert!(
        !fixer["tests_status"]["PASS_TO_PASS"]["success"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{fixer}"
    );

    // The empty patch is the task state as it is: the vulnerability stays.
    let silent = entry("silent");
    assert_eq!(silent["outcome"], "PovFailing", "{silent}");
    assert_eq!(silent["resolved"], false);
    assert!(
        !silent["tests_status"]["FAIL_TO_PASS"]["failure"]
            .as_array()
            .unwrap()
            .is_empty(),
        "{silent}"
    );

    // The prose is that candidate's ApplyFailed, with the line it came from.
    let rambler = entry("rambler");
    assert_eq!(rambler["outcome"], "ApplyFailed", "{rambler}");
    assert_eq!(rambler["patch_successfully_applied"], false);
    assert!(
        rambler["reason"]
            .as_str()
            .unwrap()
            .contains("preds.jsonl:3"),
        "{rambler}"
    );
}
