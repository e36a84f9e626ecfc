//! Byte-range edits: applied back to front, overlaps refused, lines mapped.

use avrlab_java::{EditError, TextEdit, apply_edits};

#[test]
fn edits_keep_everything_else_and_map_lines() {
    let text = "a\n// keep me\nb c\nd\ne\n";
    let edits = [
        TextEdit::new(0..1, "x\ny"), // line 1 grows by a line
        TextEdit::new(15..16, "C"),  // inside line 3
        TextEdit::new(17..19, ""),   // delete line 4 ("d\n")
    ];
    let out = apply_edits(text, &edits).unwrap();
    assert_eq!(out.text, "x\ny\n// keep me\nb C\ne\n");
    let map: Vec<Option<usize>> = (1..=5).map(|l| out.line_map.map(l)).collect();
    assert_eq!(map, vec![Some(1), Some(3), Some(4), Some(5), Some(5)]);
    assert!(out.line_map.is_touched(3));
    assert!(!out.line_map.is_touched(2));
}

#[test]
fn overlapping_or_out_of_bounds_edits_are_refused() {
    let text = "abcdef";
    let cases: [(Vec<TextEdit>, bool); 3] = [
        (
            vec![TextEdit::new(0..3, "x"), TextEdit::new(2..4, "y")],
            true,
        ),
        (
            vec![TextEdit::new(1..1, "x"), TextEdit::new(1..1, "y")],
            true,
        ),
        (vec![TextEdit::new(4..9, "x")], false),
    ];
    for (edits, overlap) in cases {
        let err = apply_edits(text, &edits).unwrap_err();
        assert_eq!(matches!(err, EditError::Overlap { .. }), overlap, "{err}");
    }
}
