//! Validation whose test JVMs are killed from outside: the candidates hit are errored (cause
//! `killed`), not judged; `--retry errored` validates them again; killed the same way twice
//! running, a candidate is taken to have done it itself and judged; and once retried undisturbed,
//! every verdict equals that of a run nobody disturbed. The killer here is the test: it sends
//! SIGKILL to every Surefire fork under the avrlab process it started, once that process says
//! its validation has begun (so that warm-ups are left alone).

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

use crate::common::{binary, heavy_one_core};

const TASK: &str = "demo-zip-slip";

/// The children of process `pid`, from each of its threads' `children` list in `/proc`.
fn children(pid: i32) -> Vec<i32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    tasks
        .flatten()
        .filter_map(|task| std::fs::read_to_string(task.path().join("children")).ok())
        .flat_map(|list| {
            list.split_whitespace()
                .filter_map(|p| p.parse().ok())
                .collect::<Vec<i32>>()
        })
        .collect()
}

/// The processes under `root` whose command line holds `marker`: Surefire's forked test JVMs
/// (`surefirebooter`), or the fast engine's candidate test JVMs (their class folder
/// `fast-classes/jvm-N` on the class path). Only `root`'s own tree is read, so the scan stays
/// quick however many processes the rest of the machine runs (a neighbouring test's fork bomb).
/// The processes a process started come before it: killed in that order, a sandbox's inner
/// process never outlives its starter as an orphan out of `root`'s tree.
fn test_jvms(root: i32, marker: &str) -> Vec<i32> {
    let mut found = Vec::new();
    let mut queue = children(root);
    while let Some(pid) = queue.pop() {
        queue.extend(children(pid));
        if std::fs::read(format!("/proc/{pid}/cmdline"))
            .is_ok_and(|cmdline| String::from_utf8_lossy(&cmdline).contains(marker))
        {
            found.push(pid);
        }
    }
    // Popped from a stack, each process was found before its descendants: reversed, they come
    // first.
    found.reverse();
    found
}

/// What a disturbed (or not) validation printed, and how many JVMs it lost.
struct Outcome {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    killed: usize,
}

/// Runs avrlab with `args`; from the first stderr line that starts with `arm_on` (never when
/// `None`), every test JVM it starts (see [`test_jvms`]) is killed with SIGKILL.
fn validate(dir: &Path, args: &[String], arm_on: Option<&'static str>) -> Outcome {
    disturbed(dir, args, arm_on, None)
}

/// As [`validate`], but when `fill` names a file, the disturbance is filling the disk: once
/// armed, that file grows until no byte more fits.
fn disturbed(
    dir: &Path,
    args: &[String],
    arm_on: Option<&'static str>,
    fill: Option<std::path::PathBuf>,
) -> Outcome {
    let marker = if args.iter().any(|a| a == "maven") {
        "surefirebooter"
    } else {
        "fast-classes/jvm-"
    };
    let repository = std::env::var_os("AVRLAB_MAVEN_REPO").unwrap_or_else(|| {
        Path::new(&std::env::var_os("HOME").unwrap())
            .join(".cache/avrlab/maven-repository")
            .into()
    });
    #[expect(clippy::disallowed_methods, reason = "the tests run the real binary")]
    let mut child = Command::new(binary())
        .args(args)
        .current_dir(dir)
        .env("XDG_CACHE_HOME", dir.join("cache"))
        .env("AVRLAB_MAVEN_REPO", repository)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let root = child.id() as i32;
    let (armed, done, killed) = (
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicBool::new(false)),
        Arc::new(AtomicUsize::new(0)),
    );
    let stderr = child.stderr.take().unwrap();
    let reader = {
        let armed = armed.clone();
        std::thread::spawn(move || {
            let mut text = String::new();
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                if arm_on.is_some_and(|prefix| line.starts_with(prefix)) {
                    armed.store(true, Ordering::SeqCst);
                }
                text.push_str(&line);
                text.push('\n');
            }
            text
        })
    };
    let killer = {
        let (armed, done, killed) = (armed.clone(), done.clone(), killed.clone());
        std::thread::spawn(move || {
            let mut filled = false;
            while !done.load(Ordering::SeqCst) {
                if let (Some(file), true, false) = (&fill, armed.load(Ordering::SeqCst), filled) {
                    let mut out = std::fs::File::create(file).unwrap();
                    let block = vec![0u8; 1 << 16];
                    while std::io::Write::write_all(&mut out, &block).is_ok() {}
                    let _ = std::io::Write::write_all(&mut out, &[0u8; 512]);
                    while std::io::Write::write_all(&mut out, &[0u8]).is_ok() {}
                    filled = true;
                    killed.fetch_add(1, Ordering::SeqCst);
                } else if fill.is_none() && armed.load(Ordering::SeqCst) {
                    for pid in test_jvms(root, marker) {
                        // SAFETY: kill has no memory-safety preconditions.
                        if unsafe { libc::kill(pid, libc::SIGKILL) } == 0 {
                            killed.fetch_add(1, Ordering::SeqCst);
                        }
                    }
                }
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
        })
    };
    let mut stdout = String::new();
    std::io::Read::read_to_string(child.stdout.as_mut().unwrap(), &mut stdout).unwrap();
    let status = child.wait().unwrap();
    done.store(true, Ordering::SeqCst);
    killer.join().unwrap();
    Outcome {
        stdout,
        stderr: reader.join().unwrap(),
        code: status.code(),
        killed: killed.load(Ordering::SeqCst),
    }
}

/// `(candidate, outcome, class, error cause, attempt)` of each verdict of a `--json` summary.
fn verdicts(outcome: &Outcome) -> Vec<(String, String, String, String, u64)> {
    // A reference check with a candidate not Plausible (errored, or judged otherwise) fails: 3.
    assert!(
        matches!(outcome.code, Some(0 | 3)),
        "{}\n{}",
        outcome.stdout,
        outcome.stderr
    );
    let summary: serde_json::Value = serde_json::from_str(&outcome.stdout).unwrap();
    summary["verdicts"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| {
            (
                v["candidate"].as_str().unwrap().to_owned(),
                v["outcome"].as_str().unwrap().to_owned(),
                v["class"].as_str().unwrap().to_owned(),
                v["error_cause"].as_str().unwrap_or("").to_owned(),
                v["attempt"].as_u64().unwrap(),
            )
        })
        .collect()
}

#[test]
fn killed_test_jvms_are_errored_and_a_retry_ends_as_an_undisturbed_run() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("r.sqlite");
    let store = store.to_str().unwrap();
    let args = |run: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "validate",
            "--benchmark",
            "demo",
            "--tasks",
            TASK,
            "--reference",
            "--engine",
            "maven",
            "--workers",
            "1",
            "--store",
            store,
            "--run",
            run,
            "--json",
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect()
    };

    // Nobody disturbs this one.
    let undisturbed = verdicts(&validate(dir.path(), &args("calm", &[]), None));
    let judged = |id: &str, outcome: &str| {
        (
            id.to_owned(),
            outcome.to_owned(),
            "judged".to_owned(),
            String::new(),
            1,
        )
    };
    let vulnerable = format!("{TASK}/vulnerable");
    let reference = format!("{TASK}/reference");
    assert_eq!(
        undisturbed,
        [
            judged(&vulnerable, "PovFailing"),
            judged(&reference, "Plausible")
        ]
    );

    // Once the first verdict is in, every test JVM is killed: the second candidate is errored.
    let report_json = dir.path().join("report.json");
    let disturbed = validate(
        dir.path(),
        &args("stormy", &["--report-json", report_json.to_str().unwrap()]),
        Some("[1/"),
    );
    assert!(disturbed.killed > 0, "{}", disturbed.stderr);
    let stormy = verdicts(&disturbed);
    assert_eq!(stormy[0], undisturbed[0]);
    let (id, outcome, class, cause, attempt) = &stormy[1];
    let log = {
        let db = rusqlite::Connection::open(store).unwrap();
        db.prepare(
            "SELECT phase || ': ' || exit || char(10) || log FROM phases
             WHERE run_id = 'stormy' AND candidate_id = ?1",
        )
        .unwrap()
        .query_map([reference.as_str()], |r| r.get::<_, String>(0))
        .unwrap()
        .map(Result::unwrap)
        .collect::<Vec<_>>()
        .join("\n")
    };
    assert_eq!(
        (
            id,
            outcome.as_str(),
            class.as_str(),
            cause.as_str(),
            *attempt
        ),
        (&reference, "Indeterminate", "errored", "killed", 1),
        "{log}"
    );

    // SWE-bench's report.json counts it as SWE-bench counts an instance whose evaluation left
    // no report: an error, neither resolved nor unresolved, with no entry of its own.
    let swe: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&report_json).unwrap()).unwrap();
    assert_eq!(
        (
            &swe["total_instances"],
            &swe["completed_instances"],
            &swe["error_instances"],
            &swe["resolved_instances"],
            &swe["unresolved_instances"]
        ),
        (&2.into(), &1.into(), &1.into(), &0.into(), &1.into()),
        "{swe}"
    );
    assert_eq!(swe["error_ids"], serde_json::json!([reference]), "{swe}");
    assert!(swe["results"].get(&reference).is_none(), "{swe}");
    assert!(swe["results"].get(&vulnerable).is_some(), "{swe}");

    // Retried while the killing goes on: killed the same way twice running, the candidate is
    // taken to have done it itself, and judged.
    let again = validate(
        dir.path(),
        &args("stormy", &["--resume", "--retry", "errored"]),
        Some("resuming:"),
    );
    assert!(again.killed > 0, "{}", again.stderr);
    let stormy = verdicts(&again);
    let (_, outcome, class, cause, attempt) = &stormy[1];
    assert_eq!(
        (outcome.as_str(), class.as_str(), cause.as_str(), *attempt),
        ("Indeterminate", "judged", "", 2),
        "{}",
        again.stdout
    );

    // Retried with nobody killing: the verdicts of the undisturbed run, the candidate's third
    // attempt, and both earlier attempts kept with their evidence.
    let calm = verdicts(&validate(
        dir.path(),
        &args("stormy", &["--resume", "--retry", "indeterminate,timeout"]),
        None,
    ));
    assert_eq!(calm[0], undisturbed[0]);
    assert_eq!(
        calm[1],
        (
            reference.clone(),
            "Plausible".into(),
            "judged".into(),
            String::new(),
            3
        )
    );
    let db = rusqlite::Connection::open(store).unwrap();
    let attempts: Vec<(u32, String, String, bool)> = db
        .prepare(
            "SELECT attempt, class, coalesce(error_cause, ''), json_array_length(phases) > 0
             FROM verdict_attempts WHERE run_id = 'stormy' AND candidate_id = ?1 ORDER BY attempt",
        )
        .unwrap()
        .query_map([&reference], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
        })
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(
        attempts,
        [
            (1, "errored".into(), "killed".into(), true),
            (2, "judged".into(), String::new(), true)
        ]
    );
}

/// The fast engine (the default): a candidate whose test JVM is killed while it runs is errored
/// (the JVM ended by SIGKILL, its cgroup counting no OOM kill), and `--retry errored` with nobody
/// killing gives the verdict of the undisturbed run.
#[test]
fn a_fast_test_jvm_killed_from_outside_is_errored_and_retried() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("f.sqlite");
    let store = store.to_str().unwrap();
    let args = |run: &str, extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "validate",
            "--benchmark",
            "demo",
            "--tasks",
            TASK,
            "--reference",
            "--confirm-sample",
            "0",
            "--workers",
            "1",
            "--store",
            store,
            "--run",
            run,
            "--json",
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect()
    };
    // Armed once the task is warm: from then on every candidate test JVM dies, those started
    // ahead and idle in the pool too, so both candidates are hit however slowly this test's own
    // threads are scheduled beside the rest of the suite.
    let disturbed = validate(dir.path(), &args("fast", &[]), Some("warmed up"));
    assert!(disturbed.killed > 0, "{}", disturbed.stderr);
    for (candidate, outcome, class, cause, _) in verdicts(&disturbed) {
        assert_eq!(
            (outcome.as_str(), class.as_str(), cause.as_str()),
            ("Indeterminate", "errored", "killed"),
            "{candidate}: {}",
            disturbed.stdout
        );
    }
    let calm = verdicts(&validate(
        dir.path(),
        &args("fast", &["--resume", "--retry", "errored"]),
        None,
    ));
    assert_eq!(
        calm,
        [
            (
                format!("{TASK}/vulnerable"),
                "PovFailing".into(),
                "judged".into(),
                String::new(),
                2
            ),
            (
                format!("{TASK}/reference"),
                "Plausible".into(),
                "judged".into(),
                String::new(),
                2
            )
        ]
    );
}

/// A tmpfs mounted for one test, unmounted when the test ends (however it ends).
struct Tmpfs(std::path::PathBuf);

impl Tmpfs {
    fn mount(at: &Path, size: &str) -> Self {
        std::fs::create_dir_all(at).unwrap();
        #[expect(
            clippy::disallowed_methods,
            reason = "the test mounts its own small disk"
        )]
        let status = Command::new("mount")
            .args(["-t", "tmpfs", "-o", &format!("size={size}"), "tmpfs"])
            .arg(at)
            .status()
            .unwrap();
        assert!(
            status.success(),
            "mounting a tmpfs needs root (CI runs as root)"
        );
        Self(at.to_owned())
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        #[expect(
            clippy::disallowed_methods,
            reason = "the test unmounts its own small disk"
        )]
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

/// Maven's work folder on a small disk that fills up once the first verdict is in: the second
/// candidate's validation finds no room, and is errored (`disk-full`), not judged; once room is
/// made, `--retry errored` gives it the verdict of the undisturbed run.
#[test]
fn a_full_disk_leaves_the_candidate_errored_and_a_retry_with_room_judges_it() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let disk = Tmpfs::mount(&dir.path().join("disk"), "64m");
    let work = disk.0.join("work");
    let filler = disk.0.join("filler");
    let store = dir.path().join("d.sqlite");
    let store = store.to_str().unwrap();
    let args = |extra: &[&str]| -> Vec<String> {
        let mut args = vec![
            "validate",
            "--benchmark",
            "demo",
            "--tasks",
            TASK,
            "--reference",
            "--engine",
            "maven",
            "--workers",
            "1",
            "--work-dir",
            work.to_str().unwrap(),
            "--store",
            store,
            "--run",
            "full",
            "--json",
        ];
        args.extend_from_slice(extra);
        args.into_iter().map(str::to_owned).collect()
    };
    let full = disturbed(dir.path(), &args(&[]), Some("[1/"), Some(filler.clone()));
    assert!(full.killed > 0, "{}", full.stderr);
    let verdicts_now = verdicts(&full);
    assert_eq!(verdicts_now[0].1, "PovFailing", "{}", full.stdout);
    let (_, outcome, class, cause, _) = &verdicts_now[1];
    assert_eq!(
        (outcome.as_str(), class.as_str(), cause.as_str()),
        ("Indeterminate", "errored", "disk-full"),
        "{}",
        full.stdout
    );
    std::fs::remove_file(&filler).unwrap();
    let retried = verdicts(&validate(
        dir.path(),
        &args(&["--resume", "--retry", "errored"]),
        None,
    ));
    assert_eq!(
        retried[1],
        (
            format!("{TASK}/reference"),
            "Plausible".into(),
            "judged".into(),
            String::new(),
            2
        )
    );
}
