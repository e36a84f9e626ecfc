//! The test JVM in a sandbox of its own. Surefire starts its test JVM as a child of Maven, so in one
//! sandbox the code under test would share Maven's pid namespace and `/tmp`: it could see Maven's
//! process, signal it, and look for ways into it. During a test run Surefire is told to start its
//! JVM through a small launcher of ours (its `jvm` parameter) that starts nothing itself: it hands
//! the request (working folder, arguments, environment) to avrlab through a folder that only
//! Maven's sandbox sees, and relays the standard streams through FIFOs. avrlab starts the real
//! `java` in a second sandbox next to Maven's, with its own pid namespace, `/tmp`, `/proc` and
//! cgroup, the same read-only view of the project, and neither the report folder nor the relay
//! folder. Surefire talks to its JVM over the relayed streams exactly as it would over pipes.
//!
//! A nested sandbox inside Maven's would be simpler, but when avrlab runs as root a nested
//! bubblewrap can neither map its user (mapping uid 0 needs a capability the outer sandbox
//! dropped) nor mount a `/proc` (the outer one is partly covered, and the kernel refuses a new
//! `/proc` where the existing one is not fully visible). The relay works the same for every user.
//!
//! Everything in the relay folder is written inside Maven's sandbox, so it is read as hostile:
//! regular files only, never a link followed, sizes capped, the working folder checked against
//! the project, and the program run is always the task's own `java`, never one named there.

use std::io::Write;
use std::os::fd::OwnedFd;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use avrlab_core::read_untrusted_file;

use avrlab_exec::Mount;
use avrlab_exec::{Activity, ExitKind, RunSpec, run_attached};

/// Where Maven's sandbox sees the relay folder (writable: the launcher makes its requests there).
pub(crate) const RELAY_VIEW: &str = "/avrlab/fork-relay";
/// Where Maven's sandbox sees the launcher's folder (read-only): `bin/java` and `release`.
pub(crate) const LAUNCHER_VIEW: &str = "/avrlab/fork-jvm";

/// The launcher Surefire starts instead of `java`. Standard input is kept on descriptor 3 because a
/// background job of a non-interactive shell reads `/dev/null`; descriptor 4 holds the input FIFO
/// open for writing from the start, so that the test JVM never reads an early end of input.
///
/// The launcher may be killed from outside while its relays run on. None of them may then keep
/// Surefire waiting: the input relay holds none of Surefire's output pipes (its error stream is
/// `/dev/null`), and the output relays start only once the request is ready, so avrlab always
/// opens (and, when the JVM ends, closes) the FIFOs they wait on.
const LAUNCHER: &str = r#"#!/bin/sh
# Surefire's test JVM, started by avrlab in a sandbox of its own (crates/avrlab-build/src/fork_relay.rs).
exec 3<&0
d=$(mktemp -d /avrlab/fork-relay/req.XXXXXXXX) || exit 125
{ printf '%s\0' "$PWD"; for a in "$@"; do printf '%s\0' "$a"; done; } > "$d/args" || exit 125
env -0 > "$d/env" || exit 125
mkfifo "$d/in" "$d/out" "$d/err" "$d/exit" || exit 125
exec 4<>"$d/in"
cat <&3 >&4 2>/dev/null & i=$!
exec 3<&- 4>&-
: > "$d/ready"
cat "$d/out" & o=$!
cat "$d/err" >&2 & e=$!
read -r code < "$d/exit"
wait $o $e
kill $i 2>/dev/null
exit "${code:-125}"
"#;

/// Caps on what a request may hold.
const MAX_REQUEST_BYTES: u64 = 4 << 20;
const MAX_ARGUMENTS: usize = 20_000;
/// Test JVMs that may run at once (not in all: a suite may fork one per test class).
const MAX_RUNNING_JVMS: usize = 64;
/// How long the launcher may take to open its end of a FIFO.
const OPEN_WAIT: Duration = Duration::from_secs(10);

/// What the relay needs to start a test JVM: the sandbox and limits of the test run, less the
/// folders only Maven may see, and the project folder every working folder must lie in.
#[derive(Debug, Clone)]
pub(crate) struct JvmTemplate {
    /// Program, environment, mounts and limits; `args`, `cwd` and the environment are replaced
    /// per request.
    pub(crate) spec: RunSpec,
    /// Variables every test JVM gets whatever Surefire passes (the containment flags).
    pub(crate) forced_env: Vec<(String, String)>,
    pub(crate) project: PathBuf,
    /// Where the test JVMs' CPU time is added up for Maven's idle watch: Maven waits on them.
    pub(crate) activity: Activity,
}

/// What the relay did during one test run, for the phase log.
#[derive(Debug, Clone, Default)]
pub(crate) struct RelayReport {
    /// Test JVMs started.
    pub(crate) jvms: usize,
    /// What the first one's sandbox enforced.
    pub(crate) enforcement: Option<String>,
    /// How each ended.
    pub(crate) exits: Vec<String>,
    /// Whether one ended at its CPU time limit (`SIGXCPU`): as the host saw it, whatever the
    /// launcher or Surefire then said.
    pub(crate) cpu_limit_reached: bool,
    /// Requests refused, with the reason (they come from inside Maven's sandbox).
    pub(crate) refused: Vec<String>,
    /// Test JVMs that could not be started: an infrastructure failure.
    pub(crate) failures: Vec<String>,
}

impl RelayReport {
    /// One line for the phase's enforcement log: how many test JVMs ran (each started one counts
    /// once, however many ran before it), how they ended, and every refused request.
    pub(crate) fn describe(&self) -> String {
        let mut line = match (&self.enforcement, self.jvms) {
            (_, 0) => "test JVMs: none started through the relay (the tests, if any ran, ran in Maven's own JVM)".to_owned(),
            (Some(enforcement), n) => format!(
                "test JVMs: {n}, each in a sandbox of its own next to Maven's (own pid namespace, /tmp and cgroup; no report or relay folder): {enforcement}; ended: {}",
                tally(&self.exits, "JVMs")
            ),
            (None, n) => format!("test JVMs: {n}"),
        };
        if !self.refused.is_empty() {
            line.push_str(&format!(
                "; {} relay requests refused: {}",
                self.refused.len(),
                tally(&self.refused, "requests")
            ));
        }
        line
    }
}

/// Distinct items in the order first seen, each with how often it occurs when more than once:
/// `exit 0 (66 JVMs), exit 1`.
fn tally(items: &[String], what: &str) -> String {
    let mut counts: Vec<(&str, usize)> = Vec::new();
    for item in items {
        match counts.iter_mut().find(|(seen, _)| *seen == item.as_str()) {
            Some((_, n)) => *n += 1,
            None => counts.push((item, 1)),
        }
    }
    counts
        .iter()
        .map(|(item, n)| match n {
            1 => (*item).to_owned(),
            n => format!("{item} ({n} {what})"),
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// A running relay: its folders and the thread that serves the launcher's requests.
pub(crate) struct ForkRelay {
    root: tempfile::TempDir,
    stop: Arc<AtomicBool>,
    server: Option<JoinHandle<RelayReport>>,
    activity: Activity,
}

impl ForkRelay {
    /// Makes the relay's folders in `beside` (Surefire's scratch folder, seen at `scratch_view` by
    /// Maven and the test JVM alike; the launcher with a copy of the JDK's `release` file, which
    /// Surefire reads to learn the JVM's version) and starts serving.
    pub(crate) fn start(
        mut template: JvmTemplate,
        jdk_home: &Path,
        beside: &Path,
        scratch_view: &Path,
    ) -> std::io::Result<Self> {
        let root = tempfile::Builder::new()
            .prefix("fork-relay-")
            .tempdir_in(beside)?;
        let requests = root.path().join("relay");
        let launcher = root.path().join("launcher");
        std::fs::create_dir(&requests)?;
        let scratch = root.path().join("scratch");
        std::fs::create_dir(&scratch)?;
        template.spec.policy.mounts.push(Mount::BindAt {
            source: scratch,
            target: scratch_view.to_owned(),
        });
        std::fs::create_dir_all(launcher.join("bin"))?;
        let script = launcher.join("bin/java");
        std::fs::write(&script, LAUNCHER)?;
        std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o555))?;
        let release = std::fs::read(jdk_home.join("release")).unwrap_or_default();
        std::fs::write(launcher.join("release"), release)?;
        let stop = Arc::new(AtomicBool::new(false));
        let activity = template.activity.clone();
        let server = {
            let stop = stop.clone();
            std::thread::spawn(move || serve(&requests, &template, &stop, MAX_RUNNING_JVMS))
        };
        Ok(Self {
            root,
            stop,
            server: Some(server),
            activity,
        })
    }

    /// The relay folder on the host.
    pub(crate) fn requests(&self) -> PathBuf {
        self.root.path().join("relay")
    }

    /// Surefire's scratch folder (its booter and argument files), which Maven writes and the test
    /// JVM reads.
    pub(crate) fn scratch(&self) -> PathBuf {
        self.root.path().join("scratch")
    }

    /// The CPU time of the test JVMs started so far, for the idle watch of the Maven run that
    /// waits on them.
    pub(crate) fn activity(&self) -> &Activity {
        &self.activity
    }

    /// The launcher's folder on the host.
    pub(crate) fn launcher(&self) -> PathBuf {
        self.root.path().join("launcher")
    }

    /// Stops serving, kills the test JVMs still running (Maven has ended) and says what happened.
    pub(crate) fn finish(mut self) -> RelayReport {
        self.stop.store(true, Ordering::SeqCst);
        self.server
            .take()
            .and_then(|server| server.join().ok())
            .unwrap_or_default()
    }
}

impl Drop for ForkRelay {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(server) = self.server.take() {
            let _ = server.join();
        }
    }
}

/// Serves requests until `stop`, then waits for the test JVMs it started (they are killed).
///
/// At most `max_running` test JVMs run at once; how many ran before does not matter (Surefire
/// forks one JVM per test class with `reuseForks=false`, so a long suite starts hundreds, one
/// after another). A request beyond the bound is answered at once, with the reason on the
/// launcher's standard error and exit status 125, so that Surefire reports a fork that failed to
/// start instead of waiting for one that never will.
fn serve(
    requests: &Path,
    template: &JvmTemplate,
    stop: &Arc<AtomicBool>,
    max_running: usize,
) -> RelayReport {
    let report = Arc::new(Mutex::new(RelayReport::default()));
    let mut seen = std::collections::BTreeSet::new();
    let mut threads: Vec<JoinHandle<()>> = Vec::new();
    // The test JVMs started and not yet ended. A JVM leaves this count before its launcher hears
    // its exit status, so the next request of a one-at-a-time Surefire always finds it free.
    let running = Arc::new(AtomicUsize::new(0));
    // Maven has ended once `stop` is set: a request still waiting has no one to talk to.
    while !stop.load(Ordering::SeqCst) {
        threads.retain(|thread| !thread.is_finished());
        for request in ready_requests(requests, &mut seen) {
            let now = running.load(Ordering::SeqCst);
            if now >= max_running {
                let why = format!(
                    "{now} test JVMs were running and at most {max_running} may run at once"
                );
                answer(&request, 125, Some(&why), stop);
                lock(&report).refused.push(why);
                continue;
            }
            running.fetch_add(1, Ordering::SeqCst);
            let (template, stop, report, running) = (
                template.clone(),
                stop.clone(),
                report.clone(),
                running.clone(),
            );
            threads.push(std::thread::spawn(move || {
                start_jvm(&request, &template, &stop, &report, &running);
            }));
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    for thread in threads {
        let _ = thread.join();
    }
    lock(&report).clone()
}

fn lock(report: &Mutex<RelayReport>) -> std::sync::MutexGuard<'_, RelayReport> {
    report.lock().unwrap_or_else(|p| p.into_inner())
}

/// The request folders that became ready since the last look.
fn ready_requests(
    requests: &Path,
    seen: &mut std::collections::BTreeSet<std::ffi::OsString>,
) -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir(requests) else {
        return Vec::new();
    };
    let mut ready = Vec::new();
    for entry in entries.flatten().take(1_000) {
        let name = entry.file_name();
        if seen.contains(&name) {
            continue;
        }
        let path = entry.path();
        let is_dir = std::fs::symlink_metadata(&path).is_ok_and(|m| m.is_dir());
        let marked = std::fs::symlink_metadata(path.join("ready")).is_ok_and(|m| m.is_file());
        if is_dir && marked {
            seen.insert(name);
            ready.push(path);
        }
    }
    ready
}

/// Starts one test JVM for a request and reports its exit status back to the launcher. `running`
/// counts this JVM until it has ended (or was never started).
fn start_jvm(
    request: &Path,
    template: &JvmTemplate,
    stop: &AtomicBool,
    report: &Mutex<RelayReport>,
    running: &AtomicUsize,
) {
    let (code, why) = match parse_request(request, template) {
        Err(why) => {
            lock(report).refused.push(why.clone());
            (125, Some(why))
        }
        Ok(spec) => match open_streams(request) {
            Err(why) => {
                lock(report).refused.push(why.clone());
                (125, Some(why))
            }
            Ok(streams) => match run_attached(&spec, streams, stop, &template.activity) {
                Ok(end) => {
                    let mut report = lock(report);
                    report.jvms += 1;
                    report.enforcement.get_or_insert(end.enforcement);
                    report.exits.push(describe_exit(end.exit));
                    let status = match end.exit {
                        ExitKind::Code(code) => code,
                        ExitKind::Signal(signal) => 128 + signal,
                        _ => 137,
                    };
                    report.cpu_limit_reached |= status == avrlab_exec::CPU_LIMIT_EXIT;
                    (status, None)
                }
                Err(error) => {
                    lock(report).failures.push(error.to_string());
                    (125, None)
                }
            },
        },
    };
    running.fetch_sub(1, Ordering::SeqCst);
    answer(request, code, why.as_deref(), stop);
}

/// Tells the launcher of `request` how its test JVM ended. When no JVM ran (`why` says why), the
/// launcher's output and error FIFOs are opened here and closed, with the reason written to its
/// standard error, so that it stops waiting for them; a JVM that ran has closed them itself.
/// When the launcher is gone (Maven ended), nobody needs to hear it.
fn answer(request: &Path, code: i32, why: Option<&str>, stop: &AtomicBool) {
    if stop.load(Ordering::SeqCst) {
        return;
    }
    let wait = Duration::from_secs(2);
    if let Some(why) = why {
        if let Ok(mut err) = open_fifo(&request.join("err"), libc::O_WRONLY, wait) {
            let _ = writeln!(err, "[avrlab] the test JVM was not started: {why}");
        }
        drop(open_fifo(&request.join("out"), libc::O_WRONLY, wait));
    }
    if let Ok(mut exit) = open_fifo(&request.join("exit"), libc::O_WRONLY, wait) {
        let _ = writeln!(exit, "{code}");
    }
}

fn describe_exit(exit: ExitKind) -> String {
    match exit {
        ExitKind::Code(code) => format!("exit {code}"),
        ExitKind::Signal(signal) => format!("signal {signal}"),
        ExitKind::TimedOut => "killed at the end of the test run or its time limit".to_owned(),
        ExitKind::OutputLimit => "output limit".to_owned(),
        ExitKind::DiskLimit => "disk limit".to_owned(),
        // Never: a relayed JVM is not watched for idleness (Maven's run is).
        ExitKind::Idle { seconds } => format!("idle for {seconds} s"),
    }
}

/// Reads a file of the request: a regular file (no link followed), at most the cap.
fn read_request_file(request: &Path, name: &str) -> Result<Vec<u8>, String> {
    read_untrusted_file(&request.join(name), MAX_REQUEST_BYTES)
        .map(|file| file.bytes)
        .map_err(|e| format!("{name}: {e}"))
}

/// The test JVM's spec for a request: the working folder (inside the project) and arguments
/// Surefire chose, its environment with the containment flags forced, the template's sandbox.
fn parse_request(request: &Path, template: &JvmTemplate) -> Result<RunSpec, String> {
    let args = read_request_file(request, "args")?;
    let mut fields = args
        .split(|b| *b == 0)
        .map(|f| String::from_utf8(f.to_vec()).map_err(|_| "an argument is not UTF-8".to_owned()));
    let cwd = PathBuf::from(fields.next().ok_or("no working folder")??);
    let inside = cwd.is_absolute()
        && cwd.starts_with(&template.project)
        && !cwd
            .components()
            .any(|c| matches!(c, std::path::Component::ParentDir));
    if !inside {
        return Err(format!(
            "working folder {} is not in the project",
            cwd.display()
        ));
    }
    let mut arguments: Vec<String> = fields.collect::<Result<_, _>>()?;
    // `printf '%s\0'` ends the list with a NUL: the last, empty field is not an argument.
    if arguments.last().is_some_and(String::is_empty) {
        arguments.pop();
    }
    if arguments.len() > MAX_ARGUMENTS {
        return Err(format!("{} arguments", arguments.len()));
    }
    let env = read_request_file(request, "env")?;
    let mut environment: Vec<(String, String)> = Vec::new();
    for entry in env.split(|b| *b == 0).filter(|e| !e.is_empty()) {
        let entry = String::from_utf8_lossy(entry);
        let Some((name, value)) = entry.split_once('=') else {
            continue;
        };
        let forced = template.forced_env.iter().any(|(n, _)| n == name);
        // The launcher's own shell variables are not Surefire's.
        if !forced && !name.is_empty() && !matches!(name, "PWD" | "OLDPWD" | "SHLVL" | "_") {
            environment.push((name.to_owned(), value.to_owned()));
        }
    }
    environment.extend(template.forced_env.iter().cloned());
    let mut spec = template.spec.clone();
    spec.args = arguments;
    spec.cwd = cwd;
    spec.env = environment;
    Ok(spec)
}

/// The test JVM's standard input, output and error: the request's FIFOs, each checked to be one.
fn open_streams(request: &Path) -> Result<[OwnedFd; 3], String> {
    let open = |name: &str, mode| {
        open_fifo(&request.join(name), mode, OPEN_WAIT)
            .map(OwnedFd::from)
            .map_err(|e| format!("{name}: {e}"))
    };
    Ok([
        open("in", libc::O_RDONLY)?,
        open("out", libc::O_WRONLY)?,
        open("err", libc::O_WRONLY)?,
    ])
}

/// Opens a FIFO without blocking (a writer waits, up to `wait`, for its reader), refusing anything
/// that is not a FIFO, then makes it blocking again.
fn open_fifo(path: &Path, mode: i32, wait: Duration) -> std::io::Result<std::fs::File> {
    let started = Instant::now();
    let file = loop {
        let opened = std::fs::OpenOptions::new()
            .read(mode == libc::O_RDONLY)
            .write(mode == libc::O_WRONLY)
            .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
            .open(path);
        match opened {
            Ok(file) => break file,
            // ENXIO: a FIFO opened for writing that nobody reads yet.
            Err(e) if e.raw_os_error() == Some(libc::ENXIO) && started.elapsed() < wait => {
                std::thread::sleep(Duration::from_millis(2));
            }
            Err(e) => return Err(e),
        }
    };
    let meta = file.metadata()?;
    if !std::os::unix::fs::FileTypeExt::is_fifo(&meta.file_type()) {
        return Err(std::io::Error::other("not a FIFO"));
    }
    let fd = std::os::fd::AsRawFd::as_raw_fd(&file);
    // SAFETY: fcntl on a descriptor this function owns; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    // SAFETY: as above.
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags & !libc::O_NONBLOCK) } < 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(file)
}

#[cfg(test)]
mod tests {
    use super::*;
    use avrlab_exec::{Limits, SandboxKind, SandboxPolicy};
    use std::os::unix::ffi::OsStringExt;

    fn template(project: &Path) -> JvmTemplate {
        JvmTemplate {
            spec: RunSpec {
                program: "/bin/true".into(),
                args: Vec::new(),
                cwd: project.to_owned(),
                env: Vec::new(),
                sandbox: SandboxKind::None,
                policy: SandboxPolicy::default(),
                limits: Limits::default(),
                stdin: Vec::new(),
            },
            forced_env: vec![(
                "JAVA_TOOL_OPTIONS".into(),
                "-XX:+DisableAttachMechanism".into(),
            )],
            project: project.to_owned(),
            activity: Activity::default(),
        }
    }

    fn request(dir: &Path, args: &[&str], env: &[&str]) -> PathBuf {
        let request = dir.join("req.1");
        std::fs::create_dir_all(&request).unwrap();
        let join = |items: &[&str]| {
            let mut bytes = Vec::new();
            for item in items {
                bytes.extend_from_slice(item.as_bytes());
                bytes.push(0);
            }
            bytes
        };
        std::fs::write(request.join("args"), join(args)).unwrap();
        std::fs::write(request.join("env"), join(env)).unwrap();
        request
    }

    #[test]
    fn a_request_becomes_the_tasks_java_with_its_arguments_and_forced_flags() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let module = project.join("module");
        let request = request(
            dir.path(),
            &[module.to_str().unwrap(), "-jar", "booter.jar", ""],
            &[
                "PATH=/usr/bin",
                "JAVA_TOOL_OPTIONS=-XX:+EnableAttach",
                "PWD=/x",
            ],
        );
        let spec = parse_request(&request, &template(&project)).unwrap();
        assert_eq!(spec.program, PathBuf::from("/bin/true"));
        assert_eq!(spec.cwd, module);
        // An empty argument stays one; only the list's final NUL is not.
        assert_eq!(spec.args, ["-jar", "booter.jar", ""]);
        assert_eq!(
            spec.env,
            [
                ("PATH".to_owned(), "/usr/bin".to_owned()),
                (
                    "JAVA_TOOL_OPTIONS".to_owned(),
                    "-XX:+DisableAttachMechanism".to_owned()
                ),
            ]
        );
    }

    #[test]
    fn requests_outside_the_project_or_through_links_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let outside = request(dir.path(), &["/etc", "-version"], &[]);
        let why = parse_request(&outside, &template(&project)).unwrap_err();
        assert!(why.contains("not in the project"), "{why}");
        let climbing = project.join("../elsewhere");
        let up = request(dir.path(), &[climbing.to_str().unwrap()], &[]);
        assert!(parse_request(&up, &template(&project)).is_err());
        // The arguments file replaced by a link to a host file: never followed.
        std::fs::remove_file(up.join("args")).unwrap();
        std::os::unix::fs::symlink("/etc/passwd", up.join("args")).unwrap();
        let why = parse_request(&up, &template(&project)).unwrap_err();
        assert!(why.starts_with("args:"), "{why}");
        // A regular file where a FIFO belongs is not opened as a stream.
        std::fs::write(up.join("in"), "").unwrap();
        let why = open_streams(&up).unwrap_err();
        assert!(why.contains("not a FIFO"), "{why}");
    }

    /// A launcher as Surefire starts it, making its request in `relay`, in the project folder.
    struct Launcher {
        child: std::process::Child,
    }

    impl Launcher {
        fn start(relay: &Path, project: &Path, args: &[&str]) -> Self {
            let script = relay.with_extension("launcher.sh");
            if !script.exists() {
                let text = LAUNCHER.replace(RELAY_VIEW, relay.to_str().unwrap());
                std::fs::write(&script, text).unwrap();
            }
            #[expect(clippy::disallowed_methods, reason = "the test plays Surefire")]
            let child = std::process::Command::new("/bin/sh")
                .arg(&script)
                .args(args)
                .current_dir(project)
                .stdin(std::process::Stdio::piped())
                .stdout(std::process::Stdio::piped())
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap();
            Self { child }
        }

        /// The first line of the JVM's output (it is running).
        fn first_line(&mut self) -> String {
            let mut line = String::new();
            let out = self.child.stdout.as_mut().unwrap();
            std::io::BufRead::read_line(&mut std::io::BufReader::new(out), &mut line).unwrap();
            line
        }

        fn say(&mut self, line: &str) {
            writeln!(self.child.stdin.as_mut().unwrap(), "{line}").unwrap();
        }

        /// The launcher's exit status and standard error, failing rather than waiting forever.
        fn end(mut self) -> (i32, String) {
            drop(self.child.stdin.take());
            let deadline = Instant::now() + Duration::from_secs(20);
            loop {
                if let Some(status) = self.child.try_wait().unwrap() {
                    let mut err = String::new();
                    std::io::Read::read_to_string(self.child.stderr.as_mut().unwrap(), &mut err)
                        .unwrap();
                    return (status.code().unwrap_or(-1), err);
                }
                if Instant::now() > deadline {
                    let _ = self.child.kill();
                    panic!("the launcher was never answered");
                }
                std::thread::sleep(Duration::from_millis(10));
            }
        }
    }

    /// A relay serving `relay` for JVMs that are `/bin/sh` with the launcher's arguments.
    fn relay(
        relay: &Path,
        project: &Path,
        max_running: usize,
    ) -> (Arc<AtomicBool>, JoinHandle<RelayReport>) {
        std::fs::create_dir_all(relay).unwrap();
        std::fs::create_dir_all(project).unwrap();
        let mut template = template(project);
        template.spec.program = "/bin/sh".into();
        let stop = Arc::new(AtomicBool::new(false));
        let server = {
            let (relay, stop) = (relay.to_owned(), stop.clone());
            std::thread::spawn(move || serve(&relay, &template, &stop, max_running))
        };
        (stop, server)
    }

    #[test]
    fn the_bound_is_on_jvms_running_at_once_and_a_refused_request_is_answered_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let (requests, project) = (dir.path().join("relay"), dir.path().join("project"));
        let (stop, server) = relay(&requests, &project, 2);
        // One JVM after another, as Surefire forks one per test class: more than the bound in all.
        for code in 0..5 {
            let script = format!("exit {code}");
            let launcher = Launcher::start(&requests, &project, &["-c", &script]);
            assert_eq!(launcher.end(), (code, String::new()));
        }
        // Two running at once: a third is refused, and told so at once.
        let waiting = ["-c", "echo up; read line"];
        let mut first = Launcher::start(&requests, &project, &waiting);
        let mut second = Launcher::start(&requests, &project, &waiting);
        assert_eq!(first.first_line(), "up\n");
        assert_eq!(second.first_line(), "up\n");
        // Answered while the two running JVMs still wait for their line: the refusal does not
        // wait for a slot.
        let (code, err) = Launcher::start(&requests, &project, &["-c", "exit 0"]).end();
        assert_eq!(code, 125);
        assert_eq!(
            err,
            "[avrlab] the test JVM was not started: 2 test JVMs were running and at most 2 may run at once\n"
        );
        // Once one has ended, the next starts.
        first.say("done");
        assert_eq!(first.end(), (0, String::new()));
        let mut next = Launcher::start(&requests, &project, &waiting);
        assert_eq!(next.first_line(), "up\n");
        next.say("done");
        assert_eq!(next.end(), (0, String::new()));
        second.say("done");
        assert_eq!(second.end(), (0, String::new()));
        // A malformed request is answered too (its working folder is not in the project).
        let (code, err) = Launcher::start(&requests, dir.path(), &["-c", "exit 0"]).end();
        assert_eq!(code, 125);
        assert!(err.contains("is not in the project"), "{err}");

        stop.store(true, Ordering::SeqCst);
        let report = server.join().unwrap();
        assert_eq!(report.jvms, 8, "{report:?}");
        assert_eq!(report.refused.len(), 2, "{report:?}");
        assert!(report.failures.is_empty(), "{report:?}");
        let line = report.describe();
        assert!(line.starts_with("test JVMs: 8, "), "{line}");
        assert!(
            line.contains("ended: exit 0 (4 JVMs), exit 1, exit 2, exit 3, exit 4; "),
            "{line}"
        );
        assert!(
            line.contains("; 2 relay requests refused: 2 test JVMs were running and at most 2 may run at once, working folder "),
            "{line}"
        );
    }

    #[test]
    fn a_launcher_killed_from_outside_leaves_nothing_holding_surefires_output() {
        let dir = tempfile::tempdir().unwrap();
        let (requests, project) = (dir.path().join("relay"), dir.path().join("project"));
        let (stop, server) = relay(&requests, &project, 2);
        // The JVM runs on for a moment after its launcher is gone, then ends by itself.
        let mut launcher = Launcher::start(&requests, &project, &["-c", "echo up; sleep 0.3"]);
        assert_eq!(launcher.first_line(), "up\n");
        launcher.child.kill().unwrap();
        // Reaped without `wait`, which would close the fork's input first.
        while launcher.child.try_wait().unwrap().is_none() {
            std::thread::sleep(Duration::from_millis(5));
        }
        // Surefire keeps the fork's input open; its output and error streams must still end,
        // or Maven waits for them until the phase's time limit.
        let ends = [
            Box::new(launcher.child.stdout.take().unwrap()) as Box<dyn std::io::Read + Send>,
            Box::new(launcher.child.stderr.take().unwrap()),
        ]
        .map(|mut stream| {
            let (sender, receiver) = std::sync::mpsc::channel();
            std::thread::spawn(move || {
                let _ = std::io::copy(&mut stream, &mut std::io::sink());
                let _ = sender.send(());
            });
            receiver
        });
        for (name, end) in ["output", "error"].iter().zip(ends) {
            assert!(
                end.recv_timeout(Duration::from_secs(10)).is_ok(),
                "the fork's {name} stream stayed open after its launcher was killed"
            );
        }
        drop(launcher.child.stdin.take());
        stop.store(true, Ordering::SeqCst);
        let report = server.join().unwrap();
        assert_eq!(report.jvms, 1, "{report:?}");
    }

    #[test]
    fn a_request_still_waiting_when_maven_has_ended_starts_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let (requests, project) = (dir.path().join("relay"), dir.path().join("project"));
        std::fs::create_dir_all(&project).unwrap();
        let marker = dir.path().join("started");
        let script = format!("touch {}", marker.display());
        let waiting = request(&requests, &[project.to_str().unwrap(), "-c", &script], &[]);
        // Its FIFOs, with readers of its output as a launcher would have: it could be started.
        for fifo in ["in", "out", "err", "exit"] {
            let path = std::ffi::CString::new(waiting.join(fifo).into_os_string().into_vec());
            // SAFETY: mkfifo reads a NUL-terminated path that outlives the call.
            assert_eq!(unsafe { libc::mkfifo(path.unwrap().as_ptr(), 0o600) }, 0);
        }
        let _readers = ["out", "err"]
            .map(|fifo| open_fifo(&waiting.join(fifo), libc::O_RDONLY, Duration::ZERO).unwrap());
        std::fs::write(waiting.join("ready"), "").unwrap();
        let mut template = template(&project);
        template.spec.program = "/bin/sh".into();
        let stop = Arc::new(AtomicBool::new(true));
        // `serve` returns at all: nobody was waited for (there is no launcher to answer).
        let report = serve(&requests, &template, &stop, MAX_RUNNING_JVMS);
        // Nothing started.
        assert!(!marker.exists());
        assert_eq!(report.jvms, 0);
        assert!(report.refused.is_empty());
    }
}
