//! Per-command control groups: a memory and a process limit for a whole process tree, a CPU share
//! of its own (so that a command with a thousand runnable processes, a fork bomb, gets no more of
//! the processors than one with a single busy thread; its fork and exit churn still slows process
//! starts machine-wide, which is why the run loop validates a `Timeout` beside another candidate
//! again alone), and a reliable way to kill every process in it. Both cgroup v2 and the v1
//! hierarchies are detected at run time (some machines still mount v1); where neither can be
//! written, commands run without them and the log says so.

use std::ffi::CString;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::sandbox::Limits;

const ROOT: &str = "/sys/fs/cgroup";

/// The cgroup directories one command runs in.
#[derive(Debug)]
pub(crate) struct Cgroup {
    dirs: Vec<PathBuf>,
    /// `cgroup.procs` of each directory, ready for the child to join between fork and exec.
    procs: Vec<CString>,
    /// What is enforced, for the log.
    pub(crate) description: String,
}

static NEXT: AtomicU64 = AtomicU64::new(0);

fn unique_name() -> String {
    format!(
        "avrlab-{}-{}",
        std::process::id(),
        NEXT.fetch_add(1, Ordering::Relaxed)
    )
}

/// Whether process `pid` is alive.
fn alive(pid: &str) -> bool {
    Path::new("/proc").join(pid).exists()
}

/// Removes the cgroups of avrlab processes that died without cleaning up (killed with SIGKILL).
fn sweep_stale(root: &Path) {
    for parent in [
        root.to_owned(),
        root.join("memory"),
        root.join("pids"),
        root.join("cpu"),
    ] {
        let Ok(entries) = std::fs::read_dir(&parent) else {
            continue;
        };
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let Some(pid) = name
                .strip_prefix("avrlab-")
                .and_then(|rest| rest.split('-').next())
            else {
                continue;
            };
            if !alive(pid) {
                let stale = Cgroup::new(vec![entry.path()], String::new());
                drop(stale);
            }
        }
    }
}

/// Whether this process can make the cgroups that bound a command's memory and processes: the
/// kind made (e.g. "cgroup v2: memory 4096 MiB, 512 processes") or why none can be. The probe's
/// cgroup is removed again.
pub fn cgroup_delegation() -> Result<String, String> {
    Cgroup::create(&Limits::default()).map(|cgroup| cgroup.description.clone())
}

static SWEPT: std::sync::Once = std::sync::Once::new();

/// How the log says that a command's processes share the CPU as one (the kernel divides the
/// processors between sibling cgroups, then within each).
const CPU_SHARE: &str = "a CPU share of its own";

/// Whether new cgroup v2 children get the `cpu` controller (their own CPU weight), turning it on
/// for the root's children where the root has it and this process may: the log's phrase.
fn cpu_controller_v2(root: &Path) -> String {
    let enabled = |file: &str| {
        std::fs::read_to_string(root.join(file))
            .is_ok_and(|text| text.split_whitespace().any(|c| c == "cpu"))
    };
    if enabled("cgroup.subtree_control") {
        return CPU_SHARE.to_owned();
    }
    if !enabled("cgroup.controllers") {
        return "no CPU share of its own (no cpu controller)".to_owned();
    }
    match std::fs::write(root.join("cgroup.subtree_control"), "+cpu") {
        Ok(()) => CPU_SHARE.to_owned(),
        Err(e) => format!("no CPU share of its own ({e})"),
    }
}

impl Cgroup {
    /// Creates the cgroup(s) for one command, or explains why none could be made.
    pub(crate) fn create(limits: &Limits) -> Result<Self, String> {
        let root = Path::new(ROOT);
        SWEPT.call_once(|| sweep_stale(root));
        let name = unique_name();
        if root.join("cgroup.controllers").is_file() {
            let dir = root.join(&name);
            let share = cpu_controller_v2(root);
            let setup = || -> std::io::Result<()> {
                std::fs::create_dir(&dir)?;
                std::fs::write(dir.join("memory.max"), limits.memory_bytes.to_string())?;
                std::fs::write(dir.join("pids.max"), limits.processes.to_string())?;
                Ok(())
            };
            return match setup() {
                Ok(()) => Ok(Self::new(
                    vec![dir],
                    format!(
                        "cgroup v2: memory {} MiB, {} processes, {share}",
                        limits.memory_bytes >> 20,
                        limits.processes
                    ),
                )),
                Err(e) => {
                    let _ = std::fs::remove_dir(&dir);
                    Err(format!("cgroup v2 not writable ({e})"))
                }
            };
        }
        let (memory, pids) = (root.join("memory"), root.join("pids"));
        if !memory.is_dir() || !pids.is_dir() {
            return Err("no cgroup memory and pids controllers mounted".into());
        }
        let dirs = vec![memory.join(&name), pids.join(&name)];
        let setup = || -> std::io::Result<()> {
            for dir in &dirs {
                std::fs::create_dir(dir)?;
            }
            std::fs::write(
                dirs[0].join("memory.limit_in_bytes"),
                limits.memory_bytes.to_string(),
            )?;
            std::fs::write(dirs[1].join("pids.max"), limits.processes.to_string())?;
            Ok(())
        };
        match setup() {
            Ok(()) => {
                let mut dirs = dirs;
                // The CPU share is best effort: without it the limits above still hold.
                let cpu = root.join("cpu").join(&name);
                let share = match std::fs::create_dir(&cpu) {
                    Ok(()) => {
                        dirs.push(cpu);
                        CPU_SHARE.to_owned()
                    }
                    Err(e) => format!("no CPU share of its own ({e})"),
                };
                Ok(Self::new(
                    dirs,
                    format!(
                        "cgroup v1: memory {} MiB, {} processes, {share}",
                        limits.memory_bytes >> 20,
                        limits.processes
                    ),
                ))
            }
            Err(e) => {
                for dir in &dirs {
                    let _ = std::fs::remove_dir(dir);
                }
                Err(format!("cgroup v1 not writable ({e})"))
            }
        }
    }

    fn new(dirs: Vec<PathBuf>, description: String) -> Self {
        let procs = dirs
            .iter()
            .map(|d| {
                CString::new(d.join("cgroup.procs").into_os_string().into_encoded_bytes())
                    .expect("cgroup paths have no NUL byte")
            })
            .collect();
        Self {
            dirs,
            procs,
            description,
        }
    }

    /// Moves the calling process into the cgroup. Runs between fork and exec, so it uses only
    /// async-signal-safe calls (open, write, close) on paths prepared beforehand.
    pub(crate) fn join_current_process(&self) -> std::io::Result<()> {
        for path in &self.procs {
            // SAFETY: `path` is a valid NUL-terminated string that outlives these calls; the
            // calls are async-signal-safe, as required between fork and exec.
            unsafe {
                let fd = libc::open(path.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
                if fd < 0 {
                    return Err(std::io::Error::last_os_error());
                }
                let written = libc::write(fd, b"0".as_ptr().cast(), 1);
                libc::close(fd);
                if written != 1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
        }
        Ok(())
    }

    /// How many processes the kernel's OOM killer ended in this cgroup for its memory limit
    /// (cgroup v2 `memory.events`, v1 `memory.oom_control`); `None` where it cannot be read.
    pub(crate) fn oom_kills(&self) -> Option<u64> {
        let dir = self.dirs.first()?;
        let text = std::fs::read_to_string(dir.join("memory.events"))
            .or_else(|_| std::fs::read_to_string(dir.join("memory.oom_control")))
            .ok()?;
        text.lines()
            .find_map(|line| line.strip_prefix("oom_kill "))
            .and_then(|count| count.trim().parse().ok())
    }

    fn pids(&self) -> Vec<i32> {
        self.dirs
            .iter()
            .filter_map(|d| std::fs::read_to_string(d.join("cgroup.procs")).ok())
            .flat_map(|text| {
                text.lines()
                    .filter_map(|l| l.trim().parse().ok())
                    .collect::<Vec<_>>()
            })
            .collect()
    }

    /// Kills every process in the cgroup, repeating until it is empty (a process may fork while
    /// its siblings are being killed). Forking is stopped first: the process limit drops to zero,
    /// so a fork bomb cannot outpace the kills, and cgroup v2's `cgroup.kill` is used where the
    /// kernel has it.
    pub(crate) fn kill_all(&self) {
        for dir in &self.dirs {
            let _ = std::fs::write(dir.join("pids.max"), "0");
            let _ = std::fs::write(dir.join("cgroup.kill"), "1");
        }
        for _ in 0..200 {
            let pids = self.pids();
            if pids.is_empty() {
                return;
            }
            for pid in pids {
                // SAFETY: kill has no memory-safety preconditions.
                unsafe { libc::kill(pid, libc::SIGKILL) };
            }
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
    }

    /// Whether no process is left in the cgroup.
    pub(crate) fn is_empty(&self) -> bool {
        self.pids().is_empty()
    }
}

/// How long a dropped cgroup is given to empty and be removed; a loaded machine can take seconds
/// to reap a large process tree.
const REMOVAL_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

impl Drop for Cgroup {
    #[expect(
        clippy::print_stderr,
        reason = "a drop cannot return an error, and a cgroup left behind must not go unsaid"
    )]
    fn drop(&mut self) {
        let started = std::time::Instant::now();
        let mut pause = std::time::Duration::from_millis(5);
        loop {
            self.kill_all();
            // An emptied cgroup can take a moment to be released by the kernel.
            self.dirs
                .retain(|dir| std::fs::remove_dir(dir).is_err() && dir.exists());
            if self.dirs.is_empty() {
                return;
            }
            if started.elapsed() > REMOVAL_PATIENCE {
                eprintln!(
                    "avrlab: could not remove cgroup {} after {} s; the next run removes it",
                    self.dirs[0].display(),
                    REMOVAL_PATIENCE.as_secs()
                );
                return;
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(std::time::Duration::from_millis(200));
        }
    }
}
