//! Methods transformed per second, per variant, over every method of one large Java file.
//!
//! `AVRLAB_BENCH_JAVA=path/to/Big.java cargo bench -p avrlab-transform` measures a real file; without
//! it a generated file of 200 methods is used. Each method is transformed as the target of a
//! one-file project (the whole file is parsed, resolved and re-parsed per method, as a task would be).
//!
//! `AVRLAB_BENCH_DIR=path/to/src cargo bench -p avrlab-transform` instead reports rule-by-rule counts
//! (applied / declined sites) of the `both` variant over every method of every `.java` file under the
//! folder (each file a one-file project), and the methods per second over all of them.
//!
//! `AVRLAB_BENCH_VARIANTS=rename,structure,both` limits the per-variant figures to those variants.

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

fn java_files(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
    let mut entries: Vec<_> = std::fs::read_dir(dir)
        .expect("read AVRLAB_BENCH_DIR")
        .flatten()
        .map(|e| e.path())
        .collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            java_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "java") {
            out.push(path);
        }
    }
}

#[expect(clippy::print_stdout, reason = "a bench reports on stdout")]
fn rule_report(dir: &str) {
    let mut files = Vec::new();
    java_files(std::path::Path::new(dir), &mut files);
    let mut counts: BTreeMap<avrlab_transform::Rule, (usize, usize)> = BTreeMap::new();
    let (mut methods_done, mut errors) = (0usize, 0usize);
    let start = Instant::now();
    for path in &files {
        let text = std::fs::read_to_string(path).expect("read a Java file");
        let source = avrlab_java::parse(&text);
        for m in avrlab_java::methods(&source)
            .into_iter()
            .filter(|m| m.body.is_some())
        {
            let task = TaskSources {
                files: BTreeMap::from([("F.java".to_owned(), text.clone())]),
                target: TargetMethod {
                    file: "F.java".to_owned(),
                    method: Some(m.name.clone()),
                    method_lines: m.lines,
                    hunks: Vec::new(),
                },
                fixed_files: BTreeMap::new(),
                java_version: 17,
            };
            methods_done += 1;
            match transform_task(&task, Variant::Both, 1) {
                Ok(out) => {
                    for r in &out.report {
                        let c = counts.entry(r.rule).or_default();
                        if r.applied() {
                            c.0 += 1;
                        } else {
                            c.1 += 1;
                        }
                    }
                }
                Err(_) => errors += 1,
            }
        }
    }
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{dir}: {} files, {methods_done} methods ({errors} refused), {:.1} methods/s",
        files.len(),
        methods_done as f64 / secs
    );
    println!("{:<20} {:>8} {:>8}", "rule", "applied", "declined");
    for rule in
        std::iter::once(avrlab_transform::Rule::Rename).chain(avrlab_transform::Rule::STRUCTURE)
    {
        let (a, d) = counts.get(&rule).copied().unwrap_or_default();
        println!("{:<20} {a:>8} {d:>8}", rule.name());
    }
}

#[expect(clippy::print_stdout, reason = "a bench reports on stdout")]
fn main() {
    if let Ok(dir) = std::env::var("AVRLAB_BENCH_DIR") {
        rule_report(&dir);
        return;
    }
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
    // `AVRLAB_BENCH_VARIANTS=rename,both` measures only those variants.
    let variants: Vec<Variant> = std::env::var("AVRLAB_BENCH_VARIANTS")
        .unwrap_or_else(|_| "rename,structure,both,if-flip,for-to-while,switch-to-if".to_owned())
        .split(',')
        .map(|v| {
            v.trim()
                .parse()
                .expect("AVRLAB_BENCH_VARIANTS names variants")
        })
        .collect();
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
