//! Methods transformed per second, per variant, over every method of one large Java file.
//!
//! `AVRLAB_BENCH_JAVA=path/to/Big.java cargo bench -p avrlab-transform` measures a real file; without
//! it a generated file of 200 methods is used. Each method is transformed as the target of a
//! one-file project (the whole file is parsed, resolved and re-parsed per method, as a task would be).

use std::collections::BTreeMap;
use std::time::Instant;

use avrlab_transform::{TargetMethod, TaskSources, Variant, transform_task};

fn generated(methods: usize) -> String {
    let mut text = String::from(
        "import java.util.*;\n\npublic class Big {\n    private int total;\n    private final List<String> names = new ArrayList<>();\n\n",
    );
    for i in 0..methods {
        text.push_str(&format!(
            r#"    public int compute{i}(int[] values, String label, Map<String, Integer> counts) {{
        int sum = 0;
        for (int index = 0; index < values.length; index++) {{
            int current = values[index];
            if (current < 0) {{
                continue;
            }}
            sum += current > {i} ? current : 0;
        }}
        switch (values.length) {{
            case 0:
                label = "empty";
                break;
            case 1:
                label = "single";
                break;
            default:
                label = label.trim().toLowerCase();
        }}
        String key = label.trim();
        counts.put(key, sum);
        names.add("entry" + key);
        total += sum;
        return sum;
    }}

"#
        ));
    }
    text.push_str("}\n");
    text
}

#[expect(clippy::print_stdout, reason = "a bench reports on stdout")]
fn main() {
    let (name, text) = match std::env::var("AVRLAB_BENCH_JAVA") {
        Ok(path) => {
            let text = std::fs::read_to_string(&path).expect("read AVRLAB_BENCH_JAVA");
            (path, text)
        }
        Err(_) => (
            "generated Big.java (200 methods)".to_owned(),
            generated(200),
        ),
    };
    let source = avrlab_java::parse(&text);
    let methods: Vec<_> = avrlab_java::methods(&source)
        .into_iter()
        .filter(|m| m.body.is_some())
        .collect();
    println!(
        "{name}: {} lines, {} methods with bodies",
        source.line_count(),
        methods.len()
    );
    let variants = [
        Variant::Rename,
        Variant::Structure,
        Variant::Both,
        "if-flip".parse().expect("rule"),
        "for-to-while".parse().expect("rule"),
        "switch-to-if".parse().expect("rule"),
    ];
    for variant in variants {
        let start = Instant::now();
        let (mut ok, mut applied, mut errors) = (0usize, 0usize, 0usize);
        for m in &methods {
            let task = TaskSources {
                files: BTreeMap::from([("Big.java".to_owned(), text.clone())]),
                target: TargetMethod {
                    file: "Big.java".to_owned(),
                    method: Some(m.name.clone()),
                    method_lines: m.lines,
                    hunks: Vec::new(),
                },
                fixed_files: BTreeMap::new(),
                java_version: 17,
            };
            match transform_task(&task, variant, 1) {
                Ok(out) => {
                    ok += 1;
                    applied += out.applied_count();
                }
                Err(_) => errors += 1,
            }
        }
        let secs = start.elapsed().as_secs_f64();
        println!(
            "{variant:>14}: {:8.1} methods/s ({ok} ok, {errors} errors, {applied} rewrites applied, {secs:.2}s)",
            methods.len() as f64 / secs
        );
    }
}
