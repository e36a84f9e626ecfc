//! Identifier tables: project declarations vs. everything else.

use avrlab_java::{DeclKind, DeclarationTable, identifiers, is_reserved_word, parse};

#[test]
fn declarations_by_kind() {
    let a = parse(
        "class A implements java.io.Serializable {\n  int count;\n  @Override public String toString() { return \"\"; }\n  <T> T pick(T t) { return t; }\n  enum E { X, Y }\n  record R(int v) {}\n}\n",
    );
    let mut table = DeclarationTable::new();
    table.add_file("A.java", &a);
    let cases = [
        ("A", DeclKind::Type, true),
        ("count", DeclKind::Field, true),
        ("toString", DeclKind::Method, true),
        ("X", DeclKind::EnumConstant, true),
        ("v", DeclKind::RecordComponent, true),
        ("String", DeclKind::Type, false),
        ("length", DeclKind::Method, false),
    ];
    for (name, kind, expected) in cases {
        assert_eq!(table.declares(name, kind), expected, "{name}");
    }
    assert!(table.declarations("toString")[0].is_override);
    assert!(table.declarations("pick")[0].is_generic);
    assert!(
        table.declarations("A")[0]
            .supertypes
            .contains("Serializable")
    );
    assert!(identifiers(&a).contains("Serializable"));
    assert!(is_reserved_word("var") && is_reserved_word("null") && !is_reserved_word("count"));
}
