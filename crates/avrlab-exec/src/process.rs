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
    let limit = libc::rlimit {
        rlim_cur: value,
        rlim_max: value,
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
        "{confinement}; limits: wall {} s, cpu {} s per process, output {} MiB, file size {} MiB, disk {} MiB and {} files ({}); {}",
        spec.limits.wall.as_secs(),
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
            set_rlimit(libc::RLIMIT_CPU, limits.cpu.as_secs().max(1))?;
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
    let exit = supervise(
        &mut child,
        cgroup.as_deref(),
        &spec.limits,
        &disk,
        started,
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

/// Waits for `child` to end, killing its tree when it runs past its wall-clock limit or fills the
/// disk past its limit, or when `stop` names a reason to end it.
fn supervise(
    child: &mut Child,
    cgroup: Option<&Cgroup>,
    limits: &Limits,
    disk: &DiskWatch,
    started: Instant,
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
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// How a command run with [`run_attached`] ended, and what its sandbox enforced.
#[derive(Debug, Clone)]
pub(crate) struct AttachedEnd {
    pub(crate) exit: ExitKind,
    pub(crate) enforcement: String,
}

/// Runs a command whose standard streams are the given descriptors (another process reads and
/// writes them; nothing is captured here), under the spec's limits except the output cap, until it
/// ends or `cancelled` turns true (then it is killed with its tree and counts as timed out).
pub(crate) fn run_attached(
    spec: &RunSpec,
    streams: [std::os::fd::OwnedFd; 3],
    cancelled: &AtomicBool,
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
    let exit = supervise(
        &mut child,
        cgroup.as_deref(),
        &spec.limits,
        &disk,
        started,
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
