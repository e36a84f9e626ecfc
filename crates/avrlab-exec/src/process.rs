//! Running one command under limits: sandboxed or not, with its output captured up to a cap, and
//! its whole process tree killed when it runs too long or prints too much.

use std::ffi::CString;
use std::io::Read;
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, Stdio};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::cgroup::Cgroup;
use crate::sandbox::{Limits, SandboxError, SandboxKind, SandboxPolicy, confine, inherit_fds};

/// Bytes kept from the start and from the end of each stream.
const HEAD_BYTES: usize = 16 << 10;
const TAIL_BYTES: usize = 64 << 10;

/// A command to run.
#[derive(Debug, Clone)]
pub struct RunSpec {
    pub program: PathBuf,
    pub args: Vec<String>,
    pub cwd: PathBuf,
    /// The whole environment: the host's is never inherited, so nothing leaks in by accident.
    pub env: Vec<(String, String)>,
    pub sandbox: SandboxKind,
    pub policy: SandboxPolicy,
    pub limits: Limits,
    /// Bytes written to the command's standard input, which is then closed (empty: no input).
    pub stdin: Vec<u8>,
}

/// How a command ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ExitKind {
    /// It exited with this code.
    Code(i32),
    /// A signal ended it (e.g. SIGXCPU for its CPU limit, SIGKILL from the cgroup's memory limit).
    Signal(i32),
    /// It ran past its wall-clock limit and was killed with its whole tree.
    TimedOut,
    /// It printed more than its output limit and was killed with its whole tree.
    OutputLimit,
    /// It filled the disk past its disk limit and was killed with its whole tree.
    DiskLimit,
    /// Its whole tree used next to no CPU time and it printed nothing for its idle limit (this
    /// many seconds), so it was taken for hung (a test waiting on a socket that never answers)
    /// and killed with its whole tree, long before its wall-clock limit.
    Idle { seconds: u64 },
}

impl ExitKind {
    /// Exited with code 0.
    pub fn success(self) -> bool {
        self == Self::Code(0)
    }
}

/// One output stream, capped: its start and its end, and how much was dropped between.
#[derive(Debug, Clone, Default)]
pub struct CapturedOutput {
    pub head: Vec<u8>,
    pub tail: Vec<u8>,
    pub total_bytes: u64,
}

impl CapturedOutput {
    /// The kept text, with a marker where bytes were dropped.
    pub fn text(&self) -> String {
        let mut text = String::from_utf8_lossy(&self.head).into_owned();
        let dropped = self.total_bytes - (self.head.len() + self.tail.len()) as u64;
        if dropped > 0 {
            text.push_str(&format!("\n[… {dropped} bytes omitted …]\n"));
        }
        text.push_str(&String::from_utf8_lossy(&self.tail));
        text
    }
}

/// What a finished command left.
#[derive(Debug, Clone)]
pub struct ProcessResult {
    pub exit: ExitKind,
    pub stdout: CapturedOutput,
    pub stderr: CapturedOutput,
    pub wall: Duration,
    /// Which limits were enforced and how, for the stored log.
    pub enforcement: String,
    /// No process of the tree was left once the command returned.
    pub tree_gone: bool,
}

/// The command could not be run at all (an infrastructure failure, never a verdict).
#[derive(Debug, thiserror::Error)]
pub enum ProcessError {
    /// The sandbox is not available.
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// The program could not be started.
    #[error("cannot start {program}")]
    Spawn {
        program: String,
        #[source]
        source: std::io::Error,
    },
    /// Waiting for the program failed.
    #[error("lost track of {program}")]
    Wait {
        program: String,
        #[source]
        source: std::io::Error,
    },
}

fn reader(
    mut stream: impl Read + Send + 'static,
    counter: Arc<AtomicU64>,
) -> JoinHandle<CapturedOutput> {
    std::thread::spawn(move || {
        let mut out = CapturedOutput::default();
        let mut tail = std::collections::VecDeque::with_capacity(TAIL_BYTES);
        let mut buf = [0u8; 8192];
        loop {
            let n = match stream.read(&mut buf) {
                Ok(0) | Err(_) => break,
                Ok(n) => n,
            };
            counter.fetch_add(n as u64, Ordering::Relaxed);
            out.total_bytes += n as u64;
            let mut chunk = &buf[..n];
            if out.head.len() < HEAD_BYTES {
                let take = chunk.len().min(HEAD_BYTES - out.head.len());
                out.head.extend_from_slice(&chunk[..take]);
                chunk = &chunk[take..];
            }
            tail.extend(chunk);
            while tail.len() > TAIL_BYTES {
                tail.pop_front();
            }
        }
        out.tail = tail.into();
        out
    })
}

/// Free space of one file system at the start of a command.
#[derive(Debug)]
struct FreeSpace {
    dir: CString,
    bytes: u64,
    /// `None` where the file system does not count inodes (btrfs, some overlays).
    files: Option<u64>,
}

fn free_space(dir: &CString) -> Option<(u64, Option<u64>)> {
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: statvfs fills the struct it is given; the path is a valid C string.
    if unsafe { libc::statvfs(dir.as_ptr(), stats.as_mut_ptr()) } != 0 {
        return None;
    }
    // SAFETY: statvfs returned 0, so the struct is initialized.
    let stats = unsafe { stats.assume_init() };
    let bytes = stats.f_bavail * stats.f_frsize;
    let files = (stats.f_files > 0).then_some(stats.f_favail);
    Some((bytes, files))
}

/// Watches how much the file systems of a command's writable folders fill while it runs. The
/// measure is the whole file system's free space, so other writers count too; the limits are
/// set well above what a build writes, so this only stops a command that writes without end.
#[derive(Debug)]
pub(crate) struct DiskWatch {
    start: Vec<FreeSpace>,
}

impl DiskWatch {
    fn start(dirs: &[&std::path::Path]) -> Self {
        let mut start: Vec<FreeSpace> = Vec::new();
        for dir in dirs {
            let Ok(dir) = CString::new(dir.as_os_str().as_encoded_bytes()) else {
                continue;
            };
            if let Some((bytes, files)) = free_space(&dir) {
                start.push(FreeSpace { dir, bytes, files });
            }
        }
        Self { start }
    }

    fn exceeded(&self, limits: &Limits) -> bool {
        self.start.iter().any(|before| {
            let Some((bytes, files)) = free_space(&before.dir) else {
                return false;
            };
            let used_bytes = before.bytes.saturating_sub(bytes);
            let used_files = match (before.files, files) {
                (Some(a), Some(b)) => a.saturating_sub(b),
                _ => 0,
            };
            used_bytes > limits.disk_bytes || used_files > limits.disk_files
        })
    }
}

fn set_rlimit(resource: libc::__rlimit_resource_t, value: u64) -> std::io::Result<()> {
    set_rlimits(resource, value, value)
}

/// Seconds of CPU time a process may go on past its CPU limit before the kernel kills it: at
/// the limit itself it gets `SIGXCPU`, which ends a JVM with exit status 152 (128 + 24), so a test
/// JVM that computed until its limit (a regular expression that backtracks for ever) is told apart
/// from one killed from outside (137) by the build tool's report of its exit.
const CPU_GRACE_SECONDS: u64 = 5;

/// The exit status of a process ended by `SIGXCPU`: it used up its CPU time limit.
pub const CPU_LIMIT_EXIT: i32 = 128 + libc::SIGXCPU;

fn set_rlimits(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) -> std::io::Result<()> {
    let limit = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: setrlimit reads a valid, initialized struct; it is async-signal-safe.
    if unsafe { libc::setrlimit(resource, &limit) } == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// A command ready to spawn: confined, limited, in its own process group, with its cgroup.
pub(crate) struct Prepared {
    pub(crate) command: std::process::Command,
    pub(crate) program: PathBuf,
    pub(crate) cgroup: Option<Arc<Cgroup>>,
    pub(crate) enforcement: String,
    pub(crate) disk: DiskWatch,
    /// Descriptors the child inherits (seccomp filters); dropped once it is spawned.
    pub(crate) inherited: Vec<std::os::fd::OwnedFd>,
}

/// Builds the command of a spec (also used for resident processes, which keep their pipes).
pub(crate) fn prepare(spec: &RunSpec) -> Result<Prepared, ProcessError> {
    let (program, args, inherited, confinement) = match spec.sandbox {
        SandboxKind::Bubblewrap => {
            let confined = confine(
                &spec.policy,
                &spec.cwd,
                &spec.limits,
                &spec.program,
                &spec.args,
            )?;
            (
                confined.program,
                confined.args,
                confined.inherited,
                confined.description,
            )
        }
        SandboxKind::None => (
            spec.program.clone(),
            spec.args.clone(),
            Vec::new(),
            "sandbox: NONE (--sandbox none): no namespaces, capabilities, seccomp or mount restrictions".to_owned(),
        ),
    };
    let cgroup = Cgroup::create(&spec.limits);
    // Without a cgroup, an unprivileged user's processes can still be capped by RLIMIT_NPROC. It
    // counts every process and thread of the user (this command's tree and everything else the
    // user runs), so it bounds a fork bomb rather than this tree alone; the kernel does not apply
    // it to root, which gets cgroups instead.
    // SAFETY: geteuid has no preconditions and cannot fail.
    let unprivileged = unsafe { libc::geteuid() } != 0;
    let user_processes = (cgroup.is_err() && unprivileged).then_some(spec.limits.processes);
    let writable = match spec.sandbox {
        SandboxKind::Bubblewrap => spec.policy.writable_sources(),
        SandboxKind::None => vec![spec.cwd.as_path()],
    };
    let disk = DiskWatch::start(&writable);
    let enforcement = format!(
        "{confinement}; limits: wall {} s{}, cpu {} s per process, output {} MiB, file size {} MiB, disk {} MiB and {} files ({}); {}",
        spec.limits.wall.as_secs(),
        spec.limits.idle.map_or_else(String::new, |idle| format!(
            ", idle {} s (no CPU time and no output)",
            idle.as_secs()
        )),
        spec.limits.cpu.as_secs(),
        spec.limits.output_bytes >> 20,
        spec.limits.file_size_bytes >> 20,
        spec.limits.disk_bytes >> 20,
        spec.limits.disk_files,
        if disk.start.is_empty() {
            "NOT watched: no writable folder could be measured".to_owned()
        } else {
            format!(
                "watched on the file system of {} folder(s), files {}",
                disk.start.len(),
                if disk.start.iter().all(|f| f.files.is_some()) {
                    "counted"
                } else {
                    "not counted by every file system"
                }
            )
        },
        match &cgroup {
            Ok(c) => c.description.clone(),
            Err(why) => match user_processes {
                Some(n) => format!(
                    "memory limit NOT enforced: {why}; processes: RLIMIT_NPROC {n}, counted over all of this user's processes and threads"
                ),
                None => format!("memory and process limits NOT enforced: {why}"),
            },
        },
    );
    let cgroup = cgroup.ok().map(Arc::new);

    #[expect(
        clippy::disallowed_methods,
        reason = "this crate is the home of process spawning"
    )]
    let mut command = std::process::Command::new(&program);
    command
        .args(&args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(if spec.stdin.is_empty() {
            Stdio::null()
        } else {
            Stdio::piped()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        // Its own process group, so that the whole tree can be signalled at once.
        .process_group(0);
    let limits = spec.limits;
    let joined = cgroup.clone();
    let inherited_fds: Vec<i32> = inherited
        .iter()
        .map(std::os::fd::AsRawFd::as_raw_fd)
        .collect();
    // SAFETY: the closure only calls async-signal-safe functions (setrlimit, open, write, close,
    // fcntl) on data prepared before the fork.
    unsafe {
        command.pre_exec(move || {
            let cpu = limits.cpu.as_secs().max(1);
            set_rlimits(libc::RLIMIT_CPU, cpu, cpu + CPU_GRACE_SECONDS)?;
            set_rlimit(libc::RLIMIT_FSIZE, limits.file_size_bytes)?;
            set_rlimit(libc::RLIMIT_CORE, 0)?;
            if let Some(processes) = user_processes {
                set_rlimit(libc::RLIMIT_NPROC, u64::from(processes))?;
            }
            if let Some(cgroup) = &joined {
                cgroup.join_current_process()?;
            }
            inherit_fds(&inherited_fds)
        });
    }
    Ok(Prepared {
        command,
        program,
        cgroup,
        enforcement,
        disk,
        inherited,
    })
}

/// Runs a command to its end, its limits, or its timeout.
pub fn run(spec: &RunSpec) -> Result<ProcessResult, ProcessError> {
    run_with_activity(spec, None)
}

/// [`run`] for a command that waits on work done elsewhere on its behalf (`elsewhere`: the test
/// JVMs the fork relay starts beside Maven), which counts as its own when telling whether it is
/// idle.
pub fn run_with_activity(
    spec: &RunSpec,
    elsewhere: Option<&Activity>,
) -> Result<ProcessResult, ProcessError> {
    let Prepared {
        mut command,
        program,
        cgroup,
        enforcement,
        disk,
        inherited,
    } = prepare(spec)?;
    let started = Instant::now();
    let mut child = command.spawn().map_err(|source| ProcessError::Spawn {
        program: program.to_string_lossy().into_owned(),
        source,
    })?;
    // The child has its copies of the seccomp descriptors; the parent's go.
    drop(inherited);
    if let Some(mut input) = child.stdin.take() {
        let bytes = spec.stdin.clone();
        // A command that never reads its input must not block the run: write from a thread.
        std::thread::spawn(move || {
            use std::io::Write;
            let _ = input.write_all(&bytes);
        });
    }
    let printed = Arc::new(AtomicU64::new(0));
    let stdout = reader(
        child.stdout.take().expect("stdout is piped"),
        printed.clone(),
    );
    let stderr = reader(
        child.stderr.take().expect("stderr is piped"),
        printed.clone(),
    );

    let wait_error = |source| ProcessError::Wait {
        program: program.to_string_lossy().into_owned(),
        source,
    };
    let mut idle = IdleWatch {
        limit: spec.limits.idle,
        elsewhere,
        report_to: None,
        printed: Some(&printed),
        state: WatchState::default(),
    };
    let exit = supervise(
        &mut child,
        cgroup.as_deref(),
        &spec.limits,
        &disk,
        started,
        &mut idle,
        || {
            (printed.load(Ordering::Relaxed) > spec.limits.output_bytes)
                .then_some(ExitKind::OutputLimit)
        },
    )
    .map_err(wait_error)?;
    let wall = started.elapsed();
    // Whatever the command left running (a daemon, a forked JVM) goes with it.
    kill_tree(&mut child, cgroup.as_deref());
    let tree_gone = cgroup.as_deref().is_none_or(Cgroup::is_empty);
    let stdout = join_reader(stdout);
    let stderr = join_reader(stderr);
    Ok(ProcessResult {
        exit,
        stdout,
        stderr,
        wall,
        enforcement,
        tree_gone,
    })
}

/// Waits for `child` to end, killing its tree when it runs past its wall-clock limit, fills the
/// disk past its limit or sits idle past its idle limit, or when `stop` names a reason to end it.
fn supervise(
    child: &mut Child,
    cgroup: Option<&Cgroup>,
    limits: &Limits,
    disk: &DiskWatch,
    started: Instant,
    idle: &mut IdleWatch<'_>,
    stop: impl Fn() -> Option<ExitKind>,
) -> std::io::Result<ExitKind> {
    let mut polls: u64 = 0;
    loop {
        if let Some(status) = child.try_wait()? {
            return Ok(
                match (
                    status.code(),
                    std::os::unix::process::ExitStatusExt::signal(&status),
                ) {
                    (Some(code), _) => ExitKind::Code(code),
                    (None, Some(signal)) => ExitKind::Signal(signal),
                    (None, None) => ExitKind::Signal(0),
                },
            );
        }
        if started.elapsed() >= limits.wall {
            kill_tree(child, cgroup);
            return Ok(ExitKind::TimedOut);
        }
        if let Some(end) = stop() {
            kill_tree(child, cgroup);
            return Ok(end);
        }
        polls += 1;
        // statvfs is cheap, but not free: every 100 ms is soon enough to stop a runaway writer.
        if polls.is_multiple_of(5) && disk.exceeded(limits) {
            kill_tree(child, cgroup);
            return Ok(ExitKind::DiskLimit);
        }
        if let Some(end) = idle.check(child.id() as i32) {
            kill_tree(child, cgroup);
            return Ok(end);
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How a command run with [`run_attached`] ended, and what its sandbox enforced.
#[derive(Debug, Clone)]
pub struct AttachedEnd {
    pub exit: ExitKind,
    pub enforcement: String,
}

/// Runs a command whose standard streams are the given descriptors (another process reads and
/// writes them; nothing is captured here), under the spec's limits except the output cap, until it
/// ends or `cancelled` turns true (then it is killed with its tree and counts as timed out).
///
/// The CPU time its tree uses is added to `activity`, so that the command waiting on it (Maven,
/// for a relayed test JVM) is not taken for idle while it works; it is never killed as idle
/// itself, since it prints to that command rather than to us.
pub fn run_attached(
    spec: &RunSpec,
    streams: [std::os::fd::OwnedFd; 3],
    cancelled: &AtomicBool,
    activity: &Activity,
) -> Result<AttachedEnd, ProcessError> {
    let Prepared {
        mut command,
        program,
        cgroup,
        enforcement,
        disk,
        inherited,
    } = prepare(spec)?;
    let [input, output, errors] = streams;
    command
        .stdin(Stdio::from(input))
        .stdout(Stdio::from(output))
        .stderr(Stdio::from(errors));
    let started = Instant::now();
    let spawned = command.spawn();
    // The child has its copies of the streams and seccomp descriptors; the parent's go, so that
    // the readers of its output see the end of it when it ends.
    drop(command);
    drop(inherited);
    let mut child = spawned.map_err(|source| ProcessError::Spawn {
        program: program.to_string_lossy().into_owned(),
        source,
    })?;
    let mut idle = IdleWatch {
        limit: None,
        elsewhere: None,
        report_to: Some(activity),
        printed: None,
        state: WatchState::default(),
    };
    let exit = supervise(
        &mut child,
        cgroup.as_deref(),
        &spec.limits,
        &disk,
        started,
        &mut idle,
        || {
            cancelled
                .load(Ordering::SeqCst)
                .then_some(ExitKind::TimedOut)
        },
    )
    .map_err(|source| ProcessError::Wait {
        program: program.to_string_lossy().into_owned(),
        source,
    })?;
    kill_tree(&mut child, cgroup.as_deref());
    Ok(AttachedEnd { exit, enforcement })
}

/// CPU time spent on a command's behalf outside its own process tree (by the test JVMs that the
/// fork relay starts beside Maven), in clock ticks: a command waiting on such a JVM is not idle
/// while the JVM works.
#[derive(Debug, Clone, Default)]
pub struct Activity(Arc<AtomicU64>);

impl Activity {
    fn ticks(&self) -> u64 {
        self.0.load(Ordering::Relaxed)
    }

    fn add(&self, ticks: u64) {
        self.0.fetch_add(ticks, Ordering::Relaxed);
    }
}

/// How often the idle watch reads `/proc`: it reads every process's `stat`, so not on every poll.
const IDLE_SAMPLE: Duration = Duration::from_secs(1);

/// Below this share of one core over the idle limit, a tree counts as using no CPU: a JVM that
/// waits on a socket still spends about 0.2% of a core on its own housekeeping (measured with
/// `Thread.sleep` on JDK 17), a build or test that works spends far more.
const IDLE_CPU_PERCENT: u64 = 1;

/// Past this many bytes read or written over the idle limit, a tree is working even on next to
/// no CPU: a slow download (Maven runs with `-ntp`, so it prints no progress) moves far more,
/// while Surefire's ping between Maven and its test JVM, every 30 s, moves a few bytes.
const IDLE_IO_BYTES: u64 = 1 << 20;

/// Tells a hung command from a slow one: hung when its process tree (with the work done on its
/// behalf elsewhere) has used next to no CPU time, moved next to no bytes, started or ended no
/// process, and printed nothing, for its whole idle limit. Also reports the tree's CPU time to
/// another command's watch (`report_to`) when the command works on that one's behalf.
struct IdleWatch<'a> {
    limit: Option<Duration>,
    elsewhere: Option<&'a Activity>,
    report_to: Option<&'a Activity>,
    /// Bytes the command printed so far, when its output is captured here.
    printed: Option<&'a AtomicU64>,
    state: WatchState,
}

#[derive(Default)]
struct WatchState {
    sampled: Option<Instant>,
    /// When the command was last seen working, and its counters then.
    mark: Option<(Instant, TreeUsage, u64)>,
    /// Ticks already added to `report_to`.
    reported: u64,
}

impl IdleWatch<'_> {
    /// Samples the tree under `root` (at most once per [`IDLE_SAMPLE`]); `Some` once it has been
    /// idle for its whole limit.
    fn check(&mut self, root: i32) -> Option<ExitKind> {
        if self.limit.is_none() && self.report_to.is_none() {
            return None;
        }
        let now = Instant::now();
        if self
            .state
            .sampled
            .is_some_and(|at| now.duration_since(at) < IDLE_SAMPLE)
        {
            return None;
        }
        self.state.sampled = Some(now);
        let mut usage = tree_usage(root);
        if let Some(report_to) = self.report_to {
            report_to.add(usage.ticks.saturating_sub(self.state.reported));
            self.state.reported = self.state.reported.max(usage.ticks);
        }
        let limit = self.limit?;
        usage.ticks += self.elsewhere.map_or(0, Activity::ticks);
        let printed = self.printed.map_or(0, |p| p.load(Ordering::Relaxed));
        let busy_ticks = limit.as_secs() * clock_ticks_per_second() * IDLE_CPU_PERCENT / 100;
        let working = match &self.state.mark {
            None => true,
            Some((_, before, printed_before)) => {
                printed != *printed_before
                    || usage.processes != before.processes
                    || usage.io_bytes.abs_diff(before.io_bytes) > IDLE_IO_BYTES
                    // Fewer ticks: a process ended without being waited for; that is a change.
                    || usage.ticks < before.ticks
                    || usage.ticks - before.ticks > busy_ticks
            }
        };
        if working {
            self.state.mark = Some((now, usage, printed));
            return None;
        }
        let (since, ..) = self.state.mark.as_ref()?;
        (now.duration_since(*since) >= limit).then_some(ExitKind::Idle {
            seconds: limit.as_secs(),
        })
    }
}

/// The CPU time of a process tree, how many processes it has and how much they read and wrote.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
struct TreeUsage {
    /// User and system time of the tree's processes and of their children they have waited for,
    /// in clock ticks.
    ticks: u64,
    processes: usize,
    /// Bytes read and written through system calls (files, pipes, sockets).
    io_bytes: u64,
}

fn clock_ticks_per_second() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    u64::try_from(ticks).unwrap_or(100).max(1)
}

/// One process as `/proc/<pid>/stat` describes it: its parent and its CPU time in ticks.
fn proc_stat(text: &str) -> Option<(i32, i32, u64)> {
    // The command name (field 2) is in parentheses and may itself hold spaces and parentheses:
    // the fields after it start after the last ')'.
    let (head, rest) = text.rsplit_once(')')?;
    let pid = head.split_whitespace().next()?.parse().ok()?;
    let fields: Vec<&str> = rest.split_whitespace().collect();
    // `rest` starts at field 3 (state); field 4 is the parent, 14–17 utime, stime, cutime, cstime.
    let ppid = fields.get(1)?.parse().ok()?;
    let ticks = fields
        .get(11..15)?
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum::<Option<u64>>()?;
    Some((pid, ppid, ticks))
}

/// The CPU time of `root` and every process below it, found by their parents in `/proc` (a
/// sandboxed tree's orphans are adopted by its own pid 1, so they stay below `root`).
fn tree_usage(root: i32) -> TreeUsage {
    let mut children: std::collections::HashMap<i32, Vec<(i32, u64)>> = Default::default();
    let mut root_ticks = None;
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<i32>().ok())
        else {
            continue;
        };
        let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/stat")) else {
            continue;
        };
        if let Some((pid, ppid, ticks)) = proc_stat(&text) {
            if pid == root {
                root_ticks = Some(ticks);
            }
            children.entry(ppid).or_default().push((pid, ticks));
        }
    }
    let Some(ticks) = root_ticks else {
        return TreeUsage::default();
    };
    let mut usage = TreeUsage {
        ticks,
        processes: 1,
        io_bytes: io_bytes(root),
    };
    let mut pending = vec![root];
    while let Some(parent) = pending.pop() {
        for &(pid, ticks) in children.get(&parent).into_iter().flatten() {
            usage.ticks += ticks;
            usage.processes += 1;
            usage.io_bytes += io_bytes(pid);
            pending.push(pid);
        }
    }
    usage
}

/// The bytes a process has read and written through system calls, files and sockets alike
/// (`rchar` and `wchar` of `/proc/<pid>/io`, its waited-for children's included); 0 where the
/// file cannot be read.
fn io_bytes(pid: i32) -> u64 {
    let Ok(text) = std::fs::read_to_string(format!("/proc/{pid}/io")) else {
        return 0;
    };
    text.lines()
        .filter_map(|line| {
            let (name, value) = line.split_once(':')?;
            matches!(name, "rchar" | "wchar")
                .then(|| value.trim().parse::<u64>().ok())
                .flatten()
        })
        .sum()
}

pub(crate) fn kill_tree(child: &mut Child, cgroup: Option<&Cgroup>) {
    let group = child.id() as i32;
    // SAFETY: kill has no memory-safety preconditions; a negative pid names the process group.
    unsafe { libc::kill(-group, libc::SIGKILL) };
    if let Some(cgroup) = cgroup {
        cgroup.kill_all();
    }
    let _ = child.wait();
}

/// A reader ends when every writer of its pipe is gone; a process that escaped the kill could keep
/// it open, so give up after a while rather than hang.
fn join_reader(handle: JoinHandle<CapturedOutput>) -> CapturedOutput {
    let deadline = Instant::now() + Duration::from_secs(5);
    while !handle.is_finished() && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    if handle.is_finished() {
        handle.join().unwrap_or_default()
    } else {
        CapturedOutput::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stat_line_is_read_past_a_command_name_with_spaces_and_parentheses() {
        let line = "4242 (java (main) x) S 4241 4242 4242 0 -1 4194560 100 0 0 0 \
                    120 30 7 3 20 0 25 0 1000 0 0";
        assert_eq!(proc_stat(line), Some((4242, 4241, 120 + 30 + 7 + 3)));
        assert_eq!(proc_stat("4242 (cut"), None);
    }

    /// A process that computes past its CPU limit gets `SIGXCPU` first (what a JVM's exit status
    /// 152 tells), not the `SIGKILL` a kill from outside would be.
    #[test]
    fn a_process_at_its_cpu_limit_gets_sigxcpu() {
        let spec = RunSpec {
            program: "/bin/sh".into(),
            args: vec!["-c".into(), "while :; do :; done".into()],
            cwd: std::env::temp_dir(),
            env: Vec::new(),
            sandbox: SandboxKind::None,
            policy: SandboxPolicy {
                mounts: Vec::new(),
                network: false,
            },
            limits: Limits {
                wall: Duration::from_secs(30),
                cpu: Duration::from_secs(1),
                ..Limits::default()
            },
            stdin: Vec::new(),
        };
        let result = run(&spec).unwrap();
        assert_eq!(result.exit, ExitKind::Signal(CPU_LIMIT_EXIT - 128));
    }

    #[test]
    fn the_tree_of_this_process_holds_at_least_itself() {
        let usage = tree_usage(std::process::id() as i32);
        assert!(usage.processes >= 1, "{usage:?}");
        // This test binary has at least read its own arguments and libraries.
        assert!(usage.io_bytes > 0, "{usage:?}");
        assert_eq!(tree_usage(-1).processes, 0);
    }
}
