//! `avrlab probe`: a model that has the demo's reference fixes memorized (a `command` model that
//! prints the rest of the fixed file when shown the code before the fix) is found to have every
//! task memorized; the template baseline none; the local model's log-likelihoods, as is and
//! renamed, are stored.

use std::path::Path;

use crate::common::{avrlab, demo_tasks, heavy, project_root, repo_root, text};

/// The fixture model's memory: every demo task's fixed file (the changed file with the
/// reference fix applied).
fn write_memory(memory: &Path) {
    std::fs::create_dir_all(memory).unwrap();
    for id in demo_tasks() {
        let task = avrlab_bench::Task::load(
            &repo_root()
                .join("benchmarks/demo")
                .join(&id)
                .join("task.toml"),
        )
        .unwrap();
        let diff = &task.reference.as_ref().unwrap().files[0];
        let vulnerable = std::fs::read_to_string(project_root(&task).join(&diff.old_path)).unwrap();
        let fixed = avrlab_bench::apply_to_text(diff, &vulnerable).unwrap();
        std::fs::write(memory.join(format!("{id}.java")), fixed).unwrap();
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
    // Shown the start of a file it knows, it writes the rest (a trailing `x` keeps the final
    // newlines through `$(…)`).
    let script = format!(
        "prompt=$(cat; echo x); prompt=${{prompt%x}}; for f in '{}'/*.java; do \
         known=$(cat \"$f\"; echo x); known=${{known%x}}; \
         case \"$known\" in \"$prompt\"*) printf '%s' \"${{known#\"$prompt\"}}\"; exit 0;; esac; done",
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
        // One line, few tokens, a short prompt: the local model is slow on a busy machine.
        &[
            "--tasks",
            "demo-zip-slip",
            "--lines",
            "1",
            "--max-tokens",
            "12",
            "--context-lines",
            "6",
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
