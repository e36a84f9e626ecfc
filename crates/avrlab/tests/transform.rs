//! `avrlab transform`: the demo benchmark rewritten with every rule and verified by real Maven runs;
//! a rule that changes test outcomes rolled back; bad input refused with nothing written.

use std::path::Path;

use crate::common::{avrlab, demo_tasks, heavy, repo_root, text};

#[test]
fn transform_both_verifies_every_demo_task_and_the_result_passes_the_reference_check() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo-both");
    let output = avrlab(
        dir.path(),
        &[
            "transform",
            "--benchmark",
            "demo",
            "--variant",
            "both",
            "--workers",
            "2",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let tasks = demo_tasks();
    for task in &tasks {
        let folder = out.join(format!("{task}-both"));
        assert!(folder.join("task.toml").is_file(), "{task}\n{stdout}");
        // Every task was renamed and got at least one structure rule.
        let map: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(folder.join("rename-map.json")).unwrap())
                .unwrap();
        assert!(
            !map["renames"].as_array().unwrap().is_empty(),
            "{task}: {map}"
        );
        let rules: Vec<&str> = map["rules"]
            .as_array()
            .unwrap()
            .iter()
            .map(|r| r.as_str().unwrap())
            .collect();
        assert!(rules.contains(&"rename"), "{task}: {rules:?}");
        assert!(rules.iter().any(|r| *r != "rename"), "{task}: {rules:?}");
        // The kept (verified) rewrite applied renaming and at least one structure rule.
        let line = stdout
            .lines()
            .find(|l| l.trim_start().starts_with(&format!("{task} →")))
            .unwrap_or_else(|| panic!("{task} has a report line:\n{stdout}"));
        let kept = line
            .split_once("kept [")
            .and_then(|(_, rest)| rest.split_once(']'))
            .map(|(list, _)| list)
            .unwrap_or_else(|| panic!("{line}"));
        assert!(kept.contains("rename×"), "{line}");
        assert!(
            kept.split(", ").any(|r| !r.starts_with("rename×")),
            "{task}: no structure rule kept: {line}"
        );
    }
    assert!(stdout.contains("rolled back"), "{stdout}");
    assert!(
        !dir.path()
            .read_dir()
            .unwrap()
            .flatten()
            .any(|e| e.file_name().to_string_lossy().contains(".tmp-")),
        "the staging folder is gone"
    );

    let store = dir.path().join("results.sqlite");
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--reference",
            "--json",
            "--workers",
            "2",
            "--benchmark",
            out.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let summary: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let check = &summary["reference_check"];
    assert_eq!(check["passed"], true, "{stdout}");
    assert_eq!(check["tasks"], tasks.len());
    assert_eq!(check["reference_plausible"], tasks.len());
    assert_eq!(check["vulnerable_failing_pov"], tasks.len());
}

const CLIPPER: &str = "package com.example.clip;

public class Clipper {
    public static int clampIndex(int index, int length) {
        if (index < 0) {
            return 0;
        }
        int result = index;
        return result;
    }
}
";

/// The PoV test reaches the method by reflection, by its name in a string: renaming the method is
/// correct for the compiler but breaks the test, which only execution can see.
const CLIPPER_TEST: &str = "package com.example.clip;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ClipperTest {

    @Test
    void clampsAboveTheLength() throws Exception {
        Object clipped = Clipper.class.getMethod(\"clampIndex\", int.class, int.class).invoke(null, 9, 5);
        assertEquals(4, clipped);
    }

    @Test
    void clampsBelowZero() {
        assertEquals(0, Clipper.clampIndex(-3, 5));
    }
}
";

const CLIPPER_FIX: &str = "--- a/src/main/java/com/example/clip/Clipper.java
+++ b/src/main/java/com/example/clip/Clipper.java
@@ -5,6 +5,9 @@
         if (index < 0) {
             return 0;
         }
+        if (index >= length) {
+            return length - 1;
+        }
         int result = index;
         return result;
     }
";

/// A one-task benchmark in `root` whose task `clip` uses the demo's build file.
fn clip_benchmark(root: &Path, clipper: &str) -> std::path::PathBuf {
    let bench = root.join("clip-bench");
    let task = bench.join("clip");
    let main = task.join("project/src/main/java/com/example/clip");
    let test = task.join("project/src/test/java/com/example/clip");
    std::fs::create_dir_all(&main).unwrap();
    std::fs::create_dir_all(&test).unwrap();
    std::fs::copy(
        repo_root().join("benchmarks/demo/demo-zip-slip/project/pom.xml"),
        task.join("project/pom.xml"),
    )
    .unwrap();
    std::fs::write(main.join("Clipper.java"), clipper).unwrap();
    std::fs::write(test.join("ClipperTest.java"), CLIPPER_TEST).unwrap();
    std::fs::write(task.join("reference.diff"), CLIPPER_FIX).unwrap();
    std::fs::write(
        task.join("task.toml"),
        r#"format_version = 1
id = "clip"
kind = "repair"
cwe = [129]
description = "Clipper.clampIndex lets an index past the end through."

[project]
path = "project"

[build]
system = "maven"
jdk = 17

[oracle]
pov_tests = ["com.example.clip.ClipperTest#clampsAboveTheLength"]
regression_tests = "all-others"

[[localization]]
file = "src/main/java/com/example/clip/Clipper.java"
method = "clampIndex"
method_lines = [4, 10]
hunks = [[8, 7]]

[reference]
patch = "reference.diff"
"#,
    )
    .unwrap();
    bench
}

#[test]
fn a_rename_that_breaks_a_reflective_test_is_rolled_back_and_the_structure_rules_are_kept() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let bench = clip_benchmark(dir.path(), CLIPPER);
    let out = dir.path().join("clip-both");
    let output = avrlab(
        dir.path(),
        &[
            "transform",
            "--benchmark",
            bench.to_str().unwrap(),
            "--variant",
            "both",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let rolled: Vec<&str> = stdout
        .lines()
        .filter(|l| l.contains("rolled back rename"))
        .collect();
    assert_eq!(rolled.len(), 1, "{stdout}");
    assert!(
        rolled[0].contains("the translated reference fix was PovFailing instead of Plausible"),
        "{stdout}"
    );
    let task = out.join("clip-both");
    let map: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(task.join("rename-map.json")).unwrap())
            .unwrap();
    assert!(map["renames"].as_array().unwrap().is_empty(), "{map}");
    assert!(!map["rules"].as_array().unwrap().is_empty(), "{map}");
    let clipper =
        std::fs::read_to_string(task.join("project/src/main/java/com/example/clip/Clipper.java"))
            .unwrap();
    assert!(clipper.contains("clampIndex"), "{clipper}");
    assert_ne!(clipper, CLIPPER, "a structure rule was kept");
    let table = stdout
        .lines()
        .find(|l| l.starts_with("rename "))
        .unwrap_or_else(|| panic!("{stdout}"));
    let columns: Vec<&str> = table.split_whitespace().collect();
    assert_eq!(
        columns[1], "0",
        "nothing of rename applied in the kept task: {table}"
    );
    assert_ne!(columns[3], "0", "rename sites rolled back: {table}");
}

#[test]
fn unparsable_java_and_an_unknown_method_are_refused_before_anything_is_written() {
    let dir = tempfile::tempdir().unwrap();
    let broken = CLIPPER.replace(
        "public static int clampIndex",
        "public static int int clampIndex",
    );
    let bench = clip_benchmark(dir.path(), &broken);
    let out = dir.path().join("out");
    let output = avrlab(
        dir.path(),
        &[
            "transform",
            "--benchmark",
            bench.to_str().unwrap(),
            "--variant",
            "both",
            "--out",
            out.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("does not parse"), "{stderr}");
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(!out.exists());
    assert_eq!(
        dir.path().read_dir().unwrap().count(),
        1,
        "only the input benchmark is left"
    );

    let bench2 = dir.path().join("second");
    std::fs::create_dir_all(&bench2).unwrap();
    let renamed = clip_benchmark(&bench2, CLIPPER);
    let toml = renamed.join("clip/task.toml");
    let text_toml = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("method = \"clampIndex\"", "method = \"clampSize\"");
    std::fs::write(&toml, text_toml).unwrap();
    let output = avrlab(
        dir.path(),
        &[
            "transform",
            "--benchmark",
            renamed.to_str().unwrap(),
            "--variant",
            "rename",
            "--dry-run",
        ],
    );
    let (stdout, stderr) = text(&output);
    assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
    assert!(stderr.contains("cannot find the target method"), "{stderr}");
    assert!(stderr.contains("clampSize"), "{stderr}");
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let bench = clip_benchmark(dir.path(), CLIPPER);
    let output = avrlab(
        dir.path(),
        &[
            "transform",
            "--benchmark",
            bench.to_str().unwrap(),
            "--variant",
            "if-flip",
            "--dry-run",
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(stdout.contains("=== clip → clip-if-flip"), "{stdout}");
    assert!(stdout.contains("+        if (!(index < 0)) {"), "{stdout}");
    assert!(stdout.contains("(dry run"), "{stdout}");
    assert_eq!(dir.path().read_dir().unwrap().count(), 1);
}
