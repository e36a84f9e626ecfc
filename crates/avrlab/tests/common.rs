//! What the integration tests share: running the real binary, and the machine's two cores,
//! handed out so that Maven-heavy tests never run more workers at once than there are cores (two
//! cores cannot time more runs fairly).

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::process::Output;
use std::sync::{Condvar, Mutex};

/// The cores heavy tests share: a test's runs use one worker ([`heavy_one_core`]) or the whole
/// machine ([`heavy`]).
const CORES: u32 = 2;

/// Who holds the cores: how many are taken, and the tests waiting for some (ticket, cores), in
/// the order they asked.
struct Cores {
    taken: u32,
    waiting: Vec<(u64, u32)>,
    next_ticket: u64,
}

impl Cores {
    /// Whether the waiting test `ticket` may take its cores now: they are free, and no test that
    /// asked earlier could take its own. So tests are served in the order they asked, but a core
    /// left free while a whole-machine test waits for the other one is used by a one-core test
    /// meanwhile (with more test threads than cores, `scripts/test`); the whole-machine test runs
    /// when both are free, later but on a machine that was never idle.
    fn may_take(&self, ticket: u64, cores: u32) -> bool {
        let free = CORES - self.taken;
        cores <= free
            && self
                .waiting
                .iter()
                .take_while(|(t, _)| *t != ticket)
                .all(|(_, c)| *c > free)
    }
}

static CORES_HELD: Mutex<Cores> = Mutex::new(Cores {
    taken: 0,
    waiting: Vec::new(),
    next_ticket: 0,
});
static CORES_FREED: Condvar = Condvar::new();

/// A test's hold on cores. When `$AVRLAB_HEAVY_LOG` names a file, dropping it appends how long
/// the test waited for them, how long it held them and how many: libtest's per-test time counts
/// the wait too (`scripts/test` prints the holds).
pub struct Heavy {
    cores: u32,
    waited: std::time::Duration,
    held_since: std::time::Instant,
}

impl Drop for Heavy {
    fn drop(&mut self) {
        use std::io::Write as _;
        {
            let mut held = CORES_HELD.lock().unwrap_or_else(|p| p.into_inner());
            held.taken -= self.cores;
        }
        CORES_FREED.notify_all();
        let Some(log) = std::env::var_os("AVRLAB_HEAVY_LOG") else {
            return;
        };
        let test = std::thread::current()
            .name()
            .unwrap_or("unnamed")
            .to_owned();
        let line = format!(
            "{:.1} held, {:.1} waited, {} of {CORES} cores: {test}\n",
            self.held_since.elapsed().as_secs_f64(),
            self.waited.as_secs_f64(),
            self.cores,
        );
        if let Ok(mut file) = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(log)
        {
            let _ = file.write_all(line.as_bytes());
        }
    }
}

/// Waits for `cores` free cores (see [`Cores::may_take`]).
fn take_cores(cores: u32) -> Heavy {
    let asked = std::time::Instant::now();
    let mut held = CORES_HELD.lock().unwrap_or_else(|p| p.into_inner());
    let ticket = held.next_ticket;
    held.next_ticket += 1;
    held.waiting.push((ticket, cores));
    while !held.may_take(ticket, cores) {
        held = CORES_FREED.wait(held).unwrap_or_else(|p| p.into_inner());
    }
    held.taken += cores;
    held.waiting.retain(|(t, _)| *t != ticket);
    drop(held);
    // The next in line may fit beside this one.
    CORES_FREED.notify_all();
    Heavy {
        cores,
        waited: asked.elapsed(),
        held_since: std::time::Instant::now(),
    }
}

/// The whole machine, for a Maven-heavy test that runs two workers, depends on how fast its runs
/// are beside nothing else (time limits set close), or looks at what the whole machine has
/// (processes, cgroups, the disk).
pub fn heavy() -> Heavy {
    take_cores(CORES)
}

/// One core, for a Maven-heavy test whose runs use one worker at a time with time limits far above
/// what they take: two such tests may run at once.
pub fn heavy_one_core() -> Heavy {
    take_cores(1)
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

/// avrlab run in `dir` with its cache (and so its baselines and repair decisions) in `dir`, and
/// the shared Maven repository.
pub fn avrlab_with_own_cache(dir: &Path, args: &[&str]) -> Output {
    let repository = std::env::var_os("AVRLAB_MAVEN_REPO").map_or_else(
        || PathBuf::from(std::env::var_os("HOME").unwrap()).join(".cache/avrlab/maven-repository"),
        PathBuf::from,
    );
    #[expect(clippy::disallowed_methods, reason = "the tests run the real binary")]
    std::process::Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("AVRLAB_MAVEN_REPO", repository)
        .output()
        .unwrap()
}

/// Runs avrlab in `cwd`, asserts that it succeeded and returns its standard output.
pub fn avrlab_ok(cwd: &Path, args: &[&str]) -> String {
    succeeded(&avrlab(cwd, args))
}

/// The standard output of a command that must have succeeded (its output in the message
/// otherwise).
pub fn succeeded(output: &Output) -> String {
    let (stdout, stderr) = text(output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    stdout
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

/// The Maven repository the tests' avrlab runs share (the default one unless the environment
/// names another).
pub fn dirs_repository() -> PathBuf {
    std::env::var_os("AVRLAB_MAVEN_REPO").map_or_else(
        || {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/root".into()))
                .join(".cache/avrlab/maven-repository")
        },
        PathBuf::from,
    )
}

/// Copies a tree of folders and regular files (a repository for another user).
/// A file that goes away while the tree is walked (Maven renames its partial downloads into
/// place) is left out.
pub fn copy_tree(from: &Path, to: &Path) {
    let gone = |e: &std::io::Error| e.kind() == std::io::ErrorKind::NotFound;
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = match entry {
            Ok(entry) => entry,
            Err(e) if e.io_error().is_some_and(gone) => continue,
            Err(e) => panic!("{e}"),
        };
        let dest = to.join(entry.path().strip_prefix(from).unwrap());
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest).unwrap();
        } else if entry.file_type().is_file() {
            match std::fs::copy(entry.path(), &dest) {
                Err(e) if !gone(&e) => panic!("{}: {e}", entry.path().display()),
                _ => {}
            }
        }
    }
}

/// Hands a tree to `uid` (folders readable and enterable by everyone).
pub fn chown_tree(root: &Path, uid: u32) {
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        let entry = entry.unwrap();
        let _ = std::os::unix::fs::lchown(entry.path(), Some(uid), Some(uid));
        if entry.file_type().is_dir() {
            let _ = std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(0o755));
        }
    }
}

/// Warms the default repository and the fast path's kept build for `task` with a reference
/// check as root, so that a copy for another user needs no network.
pub fn warm_task(task: &str) {
    let dir = tempfile::tempdir().unwrap();
    let output = avrlab(
        dir.path(),
        &[
            "validate",
            "--reference",
            "--tasks",
            task,
            "--maven-repo",
            dirs_repository().to_str().unwrap(),
            "--store",
            dir.path().join("r.sqlite").to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{output:?}");
}

/// The avrlab command, to run in `base` as `uid` (root when `None`), with `base` as its home: for
/// another user the base folder, with everything in it, is handed to that user first.
pub fn avrlab_command_as(uid: Option<u32>, base: &Path) -> std::process::Command {
    #[expect(clippy::disallowed_methods, reason = "the tests run the real binary")]
    let mut command = match uid {
        None => std::process::Command::new(binary()),
        Some(uid) => {
            chown_tree(base, uid);
            let mut c = std::process::Command::new("setpriv");
            c.args([
                format!("--reuid={uid}"),
                format!("--regid={uid}"),
                "--clear-groups".into(),
                "--".into(),
                binary().into(),
            ]);
            c.env("HOME", base);
            c
        }
    };
    command.current_dir(base);
    command
}

/// Runs avrlab in `base` as `uid` (see [`avrlab_command_as`]) and returns its output.
pub fn avrlab_as(uid: Option<u32>, base: &Path, args: &[&str]) -> Output {
    avrlab_command_as(uid, base).args(args).output().unwrap()
}

/// The first column of every row `sql` selects from the store, as text.
pub fn strings(store: &Path, sql: &str) -> Vec<String> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut stmt = db.prepare(sql).unwrap();
    stmt.query_map([], |row| row.get(0))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

/// Candidate → outcome of every verdict of run `run` in the store, by candidate id.
pub fn run_outcomes(store: &Path, run: &str) -> Vec<(String, String)> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut stmt = db
        .prepare(
            "SELECT candidate_id, outcome FROM verdicts WHERE run_id = ?1 ORDER BY candidate_id",
        )
        .unwrap();
    stmt.query_map([run], |r| Ok((r.get(0)?, r.get(1)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}
