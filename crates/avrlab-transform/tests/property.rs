//! Property: whatever the rule, seed and method, every output re-parses without syntax errors.

use std::collections::BTreeMap;

use avrlab_transform::{Rule, TargetMethod, TaskSources, Variant, transform_task};
use proptest::prelude::*;

/// A random statement from a small grammar of the constructs the rules rewrite.
fn statement(depth: u32) -> BoxedStrategy<String> {
    let leaf = prop_oneof![
        Just("x = x + 1;".to_owned()),
        Just("y = x > 2 ? x : y;".to_owned()),
        Just("sb.append(\"k\");".to_owned()),
        Just("int t = s.trim().length();".to_owned()),
        Just("x += t;".to_owned()),
        Just("if (x > 5) return y;".to_owned()),
        Just("String u = s.toLowerCase(); y += u.length();".to_owned()),
    ];
    if depth == 0 {
        return leaf.boxed();
    }
    let inner = || prop::collection::vec(statement(depth - 1), 1..3).prop_map(|v| v.join("\n"));
    prop_oneof![
        leaf,
        inner().prop_map(|b| format!(
            "for (int i = 0; i < 3; i++) {{\n{b}\nif (i == 1) continue;\n}}"
        )),
        (inner(), inner()).prop_map(|(a, b)| format!("if (x == y) {{\n{a}\n}} else {{\n{b}\n}}")),
        inner().prop_map(|b| format!("while (x < 10) {{\nx++;\n{b}\n}}")),
        (inner(), inner()).prop_map(|(a, b)| format!(
            "switch (x) {{\ncase 1:\n{a}\nbreak;\ncase 2:\n{b}\nbreak;\ndefault:\ny = 0;\n}}"
        )),
        inner().prop_map(|b| format!("{{\nint z = x;\n{b}\n}}")),
    ]
    .boxed()
}

fn variant() -> impl Strategy<Value = Variant> {
    prop_oneof![
        Just(Variant::Rename),
        Just(Variant::Structure),
        Just(Variant::Both),
        prop::sample::select(Rule::STRUCTURE.to_vec()).prop_map(Variant::Rule),
    ]
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

    #[test]
    fn outputs_reparse(body in prop::collection::vec(statement(2), 1..4), variant in variant(), seed in 0u64..1000) {
        let text = format!(
            "class Gen {{\n    int counter;\n    int target(int x, String s, StringBuilder sb) {{\n        int y = 0;\n{}\n        return x + y + counter;\n    }}\n}}\n",
            body.join("\n")
        );
        prop_assume!(avrlab_java::parse(&text).errors().is_empty());
        let source = avrlab_java::parse(&text);
        let method = avrlab_java::find_method(&source, avrlab_java::MethodQuery { name: Some("target"), line: None }).unwrap();
        let task = TaskSources {
            files: BTreeMap::from([("Gen.java".to_owned(), text.clone())]),
            target: TargetMethod { file: "Gen.java".to_owned(), method: None, method_lines: method.lines, hunks: vec![] },
            fixed_files: BTreeMap::new(),
            java_version: 17,
        };
        let out = transform_task(&task, variant, seed).unwrap();
        for text in out.files.values() {
            prop_assert!(avrlab_java::parse(text).errors().is_empty(), "does not parse:\n{}", text);
        }
    }
}
