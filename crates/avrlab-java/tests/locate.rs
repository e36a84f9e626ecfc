//! Method and hunk location with exact 1-based line ranges.

use avrlab_java::{
    LineRange, LocateError, MethodQuery, enclosing_method, find_method, methods, parse,
};

const TEXT: &str = "package p;\n\npublic class A {\n    /** doc */\n    @Override\n    public String toString() {\n        return \"a\";\n    }\n\n    A() {}\n\n    void f(int x) {\n        Runnable r = new Runnable() {\n            public void run() {\n                f(1);\n            }\n        };\n    }\n\n    void f() {}\n}\n";

#[test]
fn method_lines_include_annotations_but_not_javadoc() {
    let m = find_method(
        &parse(TEXT),
        MethodQuery {
            name: Some("toString"),
            line: None,
        },
    )
    .unwrap();
    assert_eq!(m.lines, LineRange::new(5, 8));
    assert_eq!(m.enclosing_types, vec!["A".to_owned()]);
}

#[test]
fn queries_by_name_line_or_both() {
    let src = parse(TEXT);
    type Case<'a> = (Option<&'a str>, Option<usize>, Result<LineRange, ()>);
    let cases: [Case<'_>; 6] = [
        (Some("A"), None, Ok(LineRange::new(10, 10))),
        (None, Some(15), Ok(LineRange::new(14, 16))),
        (Some("f"), Some(13), Ok(LineRange::new(12, 18))),
        (Some("f"), Some(20), Ok(LineRange::new(20, 20))),
        (Some("f"), None, Err(())),
        (Some("g"), None, Err(())),
    ];
    for (name, line, expected) in cases {
        let got = find_method(&src, MethodQuery { name, line })
            .map(|m| m.lines)
            .map_err(|_| ());
        assert_eq!(got, expected, "{name:?} {line:?}");
    }
    assert!(matches!(
        find_method(
            &src,
            MethodQuery {
                name: Some("f"),
                line: None
            }
        ),
        Err(LocateError::Ambiguous { count: 2, .. })
    ));
    assert_eq!(methods(&src).len(), 5);
}

#[test]
fn hunks_find_their_innermost_method() {
    let src = parse(TEXT);
    assert_eq!(
        enclosing_method(&src, LineRange::new(15, 15)).unwrap().name,
        "run"
    );
    assert_eq!(
        enclosing_method(&src, LineRange::new(13, 12)).unwrap().name,
        "f"
    );
    assert!(enclosing_method(&src, LineRange::new(1, 1)).is_none());
    assert!(LineRange::new(5, 8).touches(LineRange::new(9, 8)));
    assert!(!LineRange::new(5, 8).touches(LineRange::new(11, 10)));
}
