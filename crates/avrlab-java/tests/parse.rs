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

#[test]
fn incremental_edit_gives_the_tree_of_a_fresh_parse() {
    let text =
        "class A {\n    int count;\n\n    int f(int x) {\n        return x + count;\n    }\n}\n";
    let src = parse(text);
    let at = |needle: &str, nth: usize| text.match_indices(needle).nth(nth).unwrap().0;
    let cases: Vec<Vec<avrlab_java::TextEdit>> = vec![
        // Renames on several lines at once, growing and shrinking.
        vec![
            avrlab_java::TextEdit::new(at("count", 0)..at("count", 0) + 5, "tally"),
            avrlab_java::TextEdit::new(at("count", 1)..at("count", 1) + 5, "t"),
            avrlab_java::TextEdit::new(at("f(", 0)..at("f(", 0) + 1, "compute"),
        ],
        // A statement inserted on a new line, and one made into a syntax error.
        vec![avrlab_java::TextEdit::new(
            at("return", 0)..at("return", 0),
            "x++;\n        ",
        )],
        vec![avrlab_java::TextEdit::new(at(";", 1)..at(";", 1) + 1, "")],
    ];
    for edits in cases {
        let edited = src.edit(&edits).unwrap().source;
        let fresh = parse(edited.text());
        assert_eq!(
            edited.root().to_sexp(),
            fresh.root().to_sexp(),
            "{}",
            edited.text()
        );
        assert_eq!(edited.errors(), fresh.errors(), "{}", edited.text());
    }
}
