//! The exact text of every prompt format on two demo tasks (a single-hunk insertion and a
//! multi-hunk replacement), pinned as snapshots; and what `--fl-offset` and P1–P4 change.

use avrlab_bench::Benchmark;
use avrlab_prompt::{Format, Prompt, RenderOptions, Renderer};
use avrlab_run::method::vulnerable_method;

use crate::common::project_root;

const TASKS: [&str; 2] = ["demo-xxe-config", "demo-sql-literal"];

fn prompt_text(prompt: &Prompt) -> String {
    match prompt {
        Prompt::Completion { prompt, suffix } => match suffix {
            Some(suffix) => format!("=== prompt ===\n{prompt}\n=== suffix ===\n{suffix}"),
            None => format!("=== prompt ===\n{prompt}"),
        },
        Prompt::Chat { messages } => messages
            .iter()
            .map(|m| format!("=== {:?} ===\n{}", m.role, m.content))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

fn render(task: &str, format: Format, fl_offset: i64) -> String {
    let benchmark = Benchmark::open("demo").unwrap();
    let task = benchmark.task(task).unwrap();
    let method = vulnerable_method(task, &project_root(task)).unwrap();
    let rendered = Renderer::default()
        .render(&method, format, &RenderOptions { fl_offset })
        .unwrap();
    prompt_text(&rendered.prompt)
}

#[test]
fn every_format_on_two_demo_tasks() {
    for task in TASKS {
        for name in Format::names() {
            let format: Format = name.parse().unwrap();
            insta::assert_snapshot!(format!("{task}__{name}"), render(task, format, 0));
        }
    }
}

#[test]
fn fault_localization_offsets_move_only_the_markers() {
    for task in TASKS {
        for offset in [-2, 2] {
            let name = format!("{task}__chat-p2__offset{offset}");
            insta::assert_snapshot!(name, render(task, "chat-p2".parse().unwrap(), offset));
        }
        // P1 shows no line markers, so an offset cannot change it.
        let p1: Format = "chat-p1".parse().unwrap();
        assert_eq!(render(task, p1, 0), render(task, p1, 4));
        // A shifted prompt differs from the unshifted one only on marked lines.
        let p2: Format = "chat-p2".parse().unwrap();
        let (plain, shifted) = (render(task, p2, 0), render(task, p2, 2));
        assert_ne!(plain, shifted);
        assert_eq!(plain.lines().count(), shifted.lines().count());
    }
}

#[test]
fn chat_levels_add_markers_and_the_cwe() {
    let task = TASKS[0];
    let level = |n: u32| render(task, format!("chat-p{n}").parse().unwrap(), 0);
    let (p1, p2, p3, p4) = (level(1), level(2), level(3), level(4));
    assert!(!p1.contains("CWE-611") && !p2.contains("CWE-611"));
    assert!(p3.contains("CWE-611") && p4.contains("CWE-611"));
    assert!(p3.contains("XML External Entity"));
    assert!(p2.len() > p1.len() && p4.len() > p3.len());
}
