//! Parsing never fails; syntax errors come with their positions.

use avrlab_java::parse;

#[test]
fn well_formed_file_has_no_errors() {
    let src = parse("class A {\n  void f() { int x = 1; }\n}\n");
    assert!(src.errors().is_empty());
    assert_eq!(src.line_count(), 3);
    assert_eq!(src.line_of_byte(10), 2);
}

#[test]
fn errors_are_listed_with_line_and_column() {
    let cases = [
        ("class A {\n  void f() { int x = ; }\n}\n", 2),
        ("class A {\n  void f() {\n    foo(;\n  }\n}\n", 3),
        ("class A { void f() { return 1 } }", 1),
    ];
    for (text, line) in cases {
        let src = parse(text);
        let first = src
            .errors()
            .first()
            .unwrap_or_else(|| panic!("no error in {text:?}"));
        assert_eq!(first.line, line, "{text:?}: {first:?}");
        assert!(first.column >= 1);
    }
}
