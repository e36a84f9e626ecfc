//! `avrlab probe`: a model that has the demo's reference fixes memorized (a `command` model that
//! prints the rest of the fixed file when shown the code before the fix) is found to have every
//! task memorized; the template baseline none; the local model's log-likelihoods, as is and
//! renamed, are stored.

use std::path::Path;

use crate::common::{avrlab, demo_tasks, heavy, project_root, repo_root, text};

/// The fixture model's memory: for each demo task, the fixed file up to its first changed line
/// (the prompt it will be shown) and the fixed file from that line on (what it answers).
fn write_memory(memory: &Path) {
    for id in demo_tasks() {
        let task = avrlab_bench::Task::load(
            &repo_root()
                .join("benchmarks/demo")
                .join(&id)
                .join("task.toml"),
        )
        .unwrap();
        let reference = task.reference.as_ref().unwrap();
        let diff = &reference.files[0];
        let vulnerable = std::fs::read_to_string(project_root(&task).join(&diff.old_path)).unwrap();
        let fixed = avrlab_bench::apply_to_text(diff, &vulnerable).unwrap();
        let old: Vec<&str> = vulnerable.split_inclusive('\n').collect();
        let new: Vec<&str> = fixed.split_inclusive('\n').collect();
        let first = (0..new.len()).find(|&i| old.get(i) != new.get(i)).unwrap();
        let dir = memory.join(&id);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("key"), new[..first].concat()).unwrap();
        std::fs::write(dir.join("answer"), new[first..].concat()).unwrap();
    }
}

fn probe(dir: &Path, model: &str, extra: &[&str]) -> (String, String) {
    let store = dir.join("probe.sqlite");
    let mut args = vec![
        "probe",
        "--model",
        model,
        "--store",
        store.to_str().unwrap(),
    ];
    args.extend(extra);
    let output = avrlab(dir, &args);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    (stdout, stderr)
}

#[test]
fn a_model_with_the_fixes_memorized_scores_every_task_and_the_baseline_none() {
    let dir = tempfile::tempdir().unwrap();
    let memory = dir.path().join("memory");
    write_memory(&memory);
    // The prompt is compared whole (a trailing `x` keeps its final newlines through `$(…)`).
    let script = format!(
        "prompt=$(cat; echo x); for d in '{}'/*; do key=$(cat \"$d/key\"; echo x); \
         if [ \"$prompt\" = \"$key\" ]; then cat \"$d/answer\"; exit 0; fi; done",
        memory.display()
    );
    std::fs::write(
        dir.path().join("avrlab.toml"),
        format!(
            "[models.memorized]\nbackend = \"command\"\ncommand = [\"sh\", \"-c\", {script:?}]\n\
             timeout_seconds = 60\nread_only = [{:?}]\n",
            memory.display().to_string()
        ),
    )
    .unwrap();
    let count = demo_tasks().len();

    // The whole file before the fix is the prompt: the fixture model's key.
    let whole = ["--context-lines", "100000"];
    let (stdout, stderr) = probe(dir.path(), "memorized", &whole);
    assert!(
        stdout.contains(&format!("{count} of {count} tasks memorized")),
        "{stdout}"
    );
    assert_eq!(stdout.matches("| yes |").count(), count, "{stdout}");
    assert!(
        stderr.contains("model `memorized` gives no log-probabilities"),
        "{stderr}"
    );

    let (stdout, _) = probe(dir.path(), "baseline", &whole);
    assert!(
        stdout.contains(&format!("0 of {count} tasks memorized")),
        "{stdout}"
    );

    // Both are stored, per task and model.
    let db = rusqlite::Connection::open(dir.path().join("probe.sqlite")).unwrap();
    let stored: Vec<(String, i64, i64)> = db
        .prepare(
            "SELECT model, count(*), sum(memorized) FROM probe_scores GROUP BY model ORDER BY model",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap();
    let count = count as i64;
    // The control: the fix's continuation reproduces no line of the vulnerable code.
    let control: i64 = db
        .query_row(
            "SELECT sum(vulnerable_lines) FROM probe_scores WHERE model = 'memorized'",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(control, 0);
    assert_eq!(
        stored,
        [
            ("baseline".to_owned(), count, 0),
            ("memorized".to_owned(), count, count)
        ]
    );
}

#[test]
fn the_local_model_gives_the_fixs_log_likelihood_as_is_and_renamed() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let (stdout, stderr) = probe(
        dir.path(),
        "local",
        &[
            "--tasks",
            "demo-zip-slip",
            "--lines",
            "3",
            "--max-tokens",
            "40",
        ],
    );
    assert!(!stderr.contains("gives no log-probabilities"), "{stderr}");
    let db = rusqlite::Connection::open(dir.path().join("probe.sqlite")).unwrap();
    let (plain, renamed, line): (f64, f64, i64) = db
        .query_row(
            "SELECT fix_log_likelihood, renamed_log_likelihood, line FROM probe_scores
             WHERE model = 'local' AND task = 'demo-zip-slip'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    // Log-probabilities of real tokens: negative, finite, and the renamed code is other text.
    assert!(plain < 0.0 && plain.is_finite() && renamed < 0.0 && renamed.is_finite());
    assert_ne!(plain, renamed);
    assert!(
        stdout.contains(&format!("| demo-zip-slip | {line} | ")),
        "{stdout}"
    );
}
