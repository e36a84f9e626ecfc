//! What the integration tests share: running the real binary, and one lock so that only one
//! Maven-heavy test runs at a time (two cores cannot time several runs fairly).

use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Mutex, MutexGuard};

static HEAVY: Mutex<()> = Mutex::new(());

/// Serializes tests that run Maven.
pub fn heavy() -> MutexGuard<'static, ()> {
    HEAVY
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner())
}

pub fn binary() -> &'static str {
    env!("CARGO_BIN_EXE_avrlab")
}

pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .canonicalize()
        .unwrap()
}

pub fn fixtures() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures")
}

/// Runs avrlab in `cwd` and returns its output.
pub fn avrlab(cwd: &Path, args: &[&str]) -> Output {
    #[expect(clippy::disallowed_methods, reason = "the tests run the real binary")]
    std::process::Command::new(binary())
        .args(args)
        .current_dir(cwd)
        .output()
        .unwrap()
}

pub fn text(output: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        String::from_utf8_lossy(&output.stderr).into_owned(),
    )
}

/// One JSON line of a predictions file.
pub fn patch_line(task: &str, label: &str, diff: &str) -> String {
    serde_json::json!({ "task": task, "candidate": label, "patch": diff }).to_string()
}

/// Writes `cases` (label, diff, expected outcome) of `task`, followed by the task's own reference
/// fix (expected Plausible, so that a later honest candidate shows it is unaffected), as a
/// predictions file `candidates.jsonl` in `dir`; returns its path. The reference is added to `cases`.
pub fn write_cases_with_reference(
    dir: &Path,
    task: &str,
    cases: &mut Vec<(String, String, String)>,
) -> PathBuf {
    let reference = std::fs::read_to_string(
        repo_root()
            .join("benchmarks/demo")
            .join(task)
            .join("reference.diff"),
    )
    .unwrap();
    cases.push(("reference".into(), reference, "Plausible".into()));
    let lines: Vec<String> = cases
        .iter()
        .map(|(label, diff, _)| patch_line(task, label, diff))
        .collect();
    let patches = dir.join("candidates.jsonl");
    std::fs::write(&patches, lines.join("\n")).unwrap();
    patches
}

/// The demo tasks' ids.
pub fn demo_tasks() -> Vec<String> {
    let mut ids: Vec<String> = std::fs::read_dir(repo_root().join("benchmarks/demo"))
        .unwrap()
        .flatten()
        .filter(|e| e.path().join("task.toml").is_file())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    ids
}

/// Ids of processes whose command line mentions `needle`.
pub fn processes_mentioning(needle: &str) -> Vec<String> {
    let own = std::process::id().to_string();
    std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_string_lossy()
                .chars()
                .all(|c| c.is_ascii_digit())
        })
        .filter(|e| e.file_name().to_string_lossy() != own)
        .filter(|e| {
            std::fs::read(e.path().join("cmdline"))
                .map(|c| String::from_utf8_lossy(&c).contains(needle))
                .unwrap_or(false)
        })
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect()
}

/// A demo task's project folder (demo tasks ship their vulnerable state as a folder).
pub fn project_root(task: &avrlab_bench::Task) -> PathBuf {
    match &task.project {
        avrlab_bench::ProjectSource::Folder(root) => root.clone(),
        avrlab_bench::ProjectSource::Git { .. } => panic!("demo tasks are folders"),
    }
}
