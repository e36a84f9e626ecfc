//! Task-level tests: project-wide renaming, the translated reference fix, determinism, bad input.

use std::collections::BTreeMap;

use avrlab_transform::{
    LineRange, RenameKind, TargetMethod, TaskSources, TransformError, Variant, transform_task,
};

const PARSER: &str = r#"package p;

import java.util.ArrayList;
import java.util.List;

public class Parser {
    private int limit = 10;

    public List<Record> readRecords(String text) {
        List<Record> records = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String current = lines[i].trim();
            if (current.isEmpty()) {
                continue;
            }
            records.add(new Record(current));
        }
        return records;
    }
}
"#;

const PARSER_FIXED: &str = r#"package p;

import java.util.ArrayList;
import java.util.List;

public class Parser {
    private int limit = 10;

    public List<Record> readRecords(String text) {
        List<Record> records = new ArrayList<>();
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            String current = lines[i].trim();
            if (current.isEmpty()) {
                continue;
            }
            if (records.size() >= limit) {
                throw new IllegalStateException("too many records");
            }
            records.add(new Record(current));
        }
        return records;
    }
}
"#;

const RECORD: &str = r#"package p;

public class Record {
    private final String content;

    public Record(String content) {
        this.content = content;
    }

    public String content() {
        return content;
    }
}
"#;

const TEST: &str = r#"package p;

import org.junit.Test;

public class ParserTest {
    @Test
    public void readsRecords() {
        Parser parser = new Parser();
        Record first = parser.readRecords("a\nb").get(0);
        org.junit.Assert.assertEquals("a", first.content());
    }
}
"#;

fn task() -> TaskSources {
    TaskSources {
        files: BTreeMap::from([
            ("src/main/java/p/Parser.java".to_owned(), PARSER.to_owned()),
            ("src/main/java/p/Record.java".to_owned(), RECORD.to_owned()),
            (
                "src/test/java/p/ParserTest.java".to_owned(),
                TEST.to_owned(),
            ),
        ]),
        target: TargetMethod {
            file: "src/main/java/p/Parser.java".to_owned(),
            method: Some("readRecords".to_owned()),
            method_lines: LineRange::new(9, 20),
            hunks: vec![LineRange::new(17, 16)],
        },
        fixed_files: BTreeMap::from([(
            "src/main/java/p/Parser.java".to_owned(),
            PARSER_FIXED.to_owned(),
        )]),
        java_version: 11,
    }
}

#[test]
fn both_renames_across_the_project_and_translates_the_fix() {
    let out = transform_task(&task(), Variant::Both, 42).unwrap();
    for (path, text) in out.files.iter().chain(&out.fixed_files) {
        assert!(
            avrlab_java::parse(text).errors().is_empty(),
            "{path} does not parse:\n{text}"
        );
    }
    let method = out
        .rename_map
        .entries
        .iter()
        .find(|e| e.kind == RenameKind::Method && e.original == "readRecords")
        .expect("the target method is renamed");
    let test_file = out
        .files
        .iter()
        .find(|(p, _)| p.contains("src/test/"))
        .map(|(_, t)| t)
        .unwrap();
    assert!(
        test_file.contains(&format!(".{}(", method.renamed)),
        "{test_file}"
    );
    // The class `Record` is renamed, and its file moves with it.
    let record = out
        .rename_map
        .entries
        .iter()
        .find(|e| e.kind == RenameKind::Type && e.original == "Record")
        .expect("Record is renamed");
    let moved = format!("src/main/java/p/{}.java", record.renamed);
    assert!(
        out.file_renames
            .contains(&("src/main/java/p/Record.java".to_owned(), moved.clone()))
    );
    assert!(out.files.contains_key(&moved));
    assert!(test_file.contains(&record.renamed));
    // The fix is translated: the diff adds the check, under the new names.
    assert!(
        out.reference_diff.contains("+            if ("),
        "{}",
        out.reference_diff
    );
    let restored = out.rename_map.restore(&out.reference_diff);
    assert!(restored.contains("records.size() >= limit"), "{restored}");
    // The localization points into the renamed method.
    let loc = &out.localization;
    assert_eq!(loc.method, method.renamed);
    assert!(!loc.hunks.is_empty());
    for h in &loc.hunks {
        assert!(
            loc.method_lines.contains(*h),
            "{h:?} outside {:?}",
            loc.method_lines
        );
    }
    assert!(
        out.report
            .iter()
            .any(|r| r.applied() && r.rule != avrlab_transform::Rule::Rename)
    );
}

#[test]
fn same_seed_same_output_other_seed_may_differ() {
    let a = transform_task(&task(), Variant::Both, 1).unwrap();
    let b = transform_task(&task(), Variant::Both, 1).unwrap();
    assert_eq!(a, b);
}

#[test]
fn structure_only_keeps_names_and_reference_applies() {
    let out = transform_task(&task(), Variant::Structure, 0).unwrap();
    assert!(out.rename_map.is_empty());
    assert!(out.applied_count() > 0);
    let vul = &out.files["src/main/java/p/Parser.java"];
    let fixed = &out.fixed_files["src/main/java/p/Parser.java"];
    // Every line the structure rules changed is changed in the fixed file alike: the reference diff
    // only adds the fix's three lines.
    let added = out
        .reference_diff
        .lines()
        .filter(|l| l.starts_with('+') && !l.starts_with("+++"))
        .count();
    let removed = out
        .reference_diff
        .lines()
        .filter(|l| l.starts_with('-') && !l.starts_with("---"))
        .count();
    assert_eq!((added, removed), (3, 0), "{}", out.reference_diff);
    assert_ne!(vul, PARSER);
    assert!(fixed.contains("too many records"));
}

#[test]
fn bad_input_is_a_clear_error() {
    let mut t = task();
    t.files.insert(
        t.target.file.clone(),
        "class Broken { void f( { }".to_owned(),
    );
    assert!(matches!(
        transform_task(&t, Variant::Both, 0),
        Err(TransformError::Unparsable { .. })
    ));

    let mut t = task();
    t.target.method_lines = LineRange::new(3, 3);
    let err = transform_task(&t, Variant::Both, 0).unwrap_err();
    assert!(
        matches!(err, TransformError::MethodNotFound { .. }),
        "{err}"
    );

    let mut t = task();
    t.target.file = "Missing.java".to_owned();
    assert!(matches!(
        transform_task(&t, Variant::Rename, 0),
        Err(TransformError::UnknownFile(_))
    ));
}

#[test]
fn variants_parse_from_names() {
    for name in [
        "rename",
        "structure",
        "both",
        "if-flip",
        "for-to-while",
        "switch-to-if",
        "statement-reorder",
    ] {
        let v: Variant = name.parse().unwrap();
        assert_eq!(v.to_string(), name);
    }
    assert!("loop-unroll".parse::<Variant>().is_err());
}

#[test]
fn restore_only_touches_whole_tokens() {
    let out = transform_task(&task(), Variant::Rename, 3).unwrap();
    let renamed = out.rename_map.apply("records.add(x); recordsX");
    let back = out.rename_map.restore(&renamed);
    assert_eq!(back, "records.add(x); recordsX");
}
