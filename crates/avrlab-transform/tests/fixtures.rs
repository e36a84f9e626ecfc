//! Data-driven rule fixtures: `data/<variant>/<case>/input.java` → `expected.java`.
//!
//! The target method is the one named `target`. The Java version is 8 when the case name contains
//! `java8`, else 17. Run with `UPDATE_EXPECT=1` to rewrite the expected files, then review the diff.

use std::collections::BTreeMap;
use std::path::Path;

use avrlab_transform::{LineRange, TargetMethod, TaskSources, Variant, transform_task};

fn run_case(dir: &Path, variant: Variant) -> String {
    let input = std::fs::read_to_string(dir.join("input.java")).expect("input.java");
    let source = avrlab_java::parse(&input);
    assert!(
        source.errors().is_empty(),
        "{}: input does not parse",
        dir.display()
    );
    let method = avrlab_java::find_method(
        &source,
        avrlab_java::MethodQuery {
            name: Some("target"),
            line: None,
        },
    )
    .expect("a method named `target`");
    let name = dir.file_name().unwrap().to_string_lossy().to_string();
    let task = TaskSources {
        files: BTreeMap::from([("Input.java".to_owned(), input.clone())]),
        target: TargetMethod {
            file: "Input.java".to_owned(),
            method: Some("target".to_owned()),
            method_lines: method.lines,
            hunks: vec![LineRange::new(method.lines.start, method.lines.start - 1)],
        },
        fixed_files: BTreeMap::new(),
        java_version: if name.contains("java8") { 8 } else { 17 },
    };
    let out = transform_task(&task, variant, 7).expect("transform");
    let text = out.files.values().next().expect("one file").clone();
    assert!(
        avrlab_java::parse(&text).errors().is_empty(),
        "{}: output does not parse:\n{text}",
        dir.display()
    );
    let mut report = String::new();
    for r in &out.report {
        report.push_str(&format!("// {} line {}: {:?}\n", r.rule, r.line, r.outcome));
    }
    format!("{text}{report}")
}

#[test]
fn rule_fixtures() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data");
    let update = std::env::var_os("UPDATE_EXPECT").is_some();
    let mut failures = Vec::new();
    let mut count = 0;
    let mut variants: Vec<_> = std::fs::read_dir(&root)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    variants.sort();
    for vdir in variants {
        let variant: Variant = vdir
            .file_name()
            .unwrap()
            .to_str()
            .unwrap()
            .parse()
            .expect("variant dir name");
        let mut cases: Vec<_> = std::fs::read_dir(&vdir)
            .unwrap()
            .map(|e| e.unwrap().path())
            .collect();
        cases.sort();
        for case in cases {
            count += 1;
            let actual = run_case(&case, variant);
            let expected_path = case.join("expected.java");
            if update {
                std::fs::write(&expected_path, &actual).unwrap();
                continue;
            }
            let expected = std::fs::read_to_string(&expected_path).unwrap_or_default();
            if expected != actual {
                failures.push(format!("--- {}\n{actual}", case.display()));
            }
        }
    }
    assert!(count > 0, "no fixtures found");
    assert!(
        failures.is_empty(),
        "{} of {count} fixtures differ (UPDATE_EXPECT=1 to accept):\n{}",
        failures.len(),
        failures.join("\n")
    );
}
