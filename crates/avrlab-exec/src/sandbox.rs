//! The bubblewrap sandbox for untrusted code (candidate patches and project tests), and the
//! resource limits every spawned process runs under.
//!
//! Inside the sandbox a process has no capabilities (also when avrlab runs as root), cannot gain
//! any (no-new-privileges, no nested user namespaces), runs under the seccomp filters of
//! [`crate::seccomp`], and sees a minimal file system: `/usr` and the `/bin`, `/lib*`, `/sbin`
//! that lead into it, a short list of `/etc` entries that the JDK and Maven read, a minimal `/dev`,
//! a fresh `/proc` of its own pid namespace, a private size-limited `/tmp`, and the mounts its
//! policy names. No home folder, `/run`, `/var`, `/sys` (so no cgroupfs) or host socket is visible.
//! There is no network unless the policy asks for it (only the dependency warm-up does, and it
//! never runs a candidate).

use std::ffi::CString;
use std::io::{Seek, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

/// How untrusted code is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxKind {
    /// bubblewrap (`bwrap`): namespaces, read-only root, no network.
    Bubblewrap,
    /// No confinement at all; only for users who say so explicitly (`--sandbox none`).
    None,
}

/// One mount inside the sandbox, applied in order after the system folders and private `/tmp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mount {
    /// The path, writable.
    ReadWrite(PathBuf),
    /// The path, read-only (also used to re-expose a host path that lies under `/tmp`).
    ReadOnly(PathBuf),
    /// A host folder, writable, mounted at another path.
    BindAt { source: PathBuf, target: PathBuf },
    /// A host folder, read-only, mounted at another path.
    ReadOnlyAt { source: PathBuf, target: PathBuf },
    /// A fresh empty in-memory folder.
    Tmpfs(PathBuf),
    /// A host program, replaced at its own path by an execute-only copy. The kernel marks a
    /// process started from a file it may not read as not dumpable, and other processes of the
    /// same user then cannot open its `/proc/PID/mem` (ptrace is refused anyway). The test JVM
    /// runs in a sandbox of its own (see `fork_relay`); this keeps every JVM's memory closed to the
    /// other processes of its own sandbox as well.
    ExecuteOnly(PathBuf),
}

/// What a sandboxed command may see and do.
#[derive(Debug, Clone, Default)]
pub struct SandboxPolicy {
    pub mounts: Vec<Mount>,
    /// Share the host's network (dependency warm-up only).
    pub network: bool,
}

/// Resource limits for one command and its whole process tree.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Wall-clock time; past it the whole tree is killed.
    pub wall: Duration,
    /// CPU time of each process (RLIMIT_CPU).
    pub cpu: Duration,
    /// Memory of the whole tree (cgroup), when cgroups are available.
    pub memory_bytes: u64,
    /// Processes and threads of the whole tree (cgroup), when cgroups are available.
    pub processes: u32,
    /// Bytes of stdout plus stderr; past it the tree is killed.
    pub output_bytes: u64,
    /// Largest file any process may write (RLIMIT_FSIZE); also the size of each in-memory folder.
    pub file_size_bytes: u64,
    /// How much the free space of the file systems holding the writable mounts may shrink while
    /// the command runs, in bytes; past it the tree is killed. This bounds what a command can
    /// leave on disk, and so how long removing it takes.
    pub disk_bytes: u64,
    /// The same for files (inodes), where the file system counts them.
    pub disk_files: u64,
    /// How long the whole tree may use no CPU time and print nothing before it is taken for
    /// hung and killed ([`crate::ExitKind::Idle`]); `None`: only the wall clock bounds it.
    pub idle: Option<Duration>,
}

impl SandboxPolicy {
    /// The host folders the command can write: what a disk limit watches.
    pub(crate) fn writable_sources(&self) -> Vec<&Path> {
        self.mounts
            .iter()
            .filter_map(|m| match m {
                Mount::ReadWrite(p) => Some(p.as_path()),
                Mount::BindAt { source, .. } => Some(source.as_path()),
                Mount::ReadOnly(_)
                | Mount::ReadOnlyAt { .. }
                | Mount::Tmpfs(_)
                | Mount::ExecuteOnly(_) => None,
            })
            .collect()
    }
}

impl Default for Limits {
    fn default() -> Self {
        Self {
            wall: Duration::from_secs(300),
            cpu: Duration::from_secs(600),
            memory_bytes: 3 << 30,
            processes: 1024,
            output_bytes: 64 << 20,
            file_size_bytes: 1 << 30,
            disk_bytes: 4 << 30,
            disk_files: 200_000,
            idle: None,
        }
    }
}

/// Why the sandbox cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// `bwrap` is not on PATH.
    #[error(
        "bubblewrap (bwrap) is not installed: install the package `bubblewrap` (apt-get install bubblewrap), or pass `--sandbox none` to run untrusted code unconfined"
    )]
    Missing,
    /// `bwrap` exists but cannot create a sandbox here.
    #[error("bubblewrap cannot create a sandbox on this machine: {0}")]
    Unusable(String),
}

pub fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Entries of `/etc` that the sandbox sees (when they exist), and nothing else of `/etc`: user and
/// group names (no shadow files), name service and host files, the dynamic linker's cache, time
/// zone, CA certificates (not `/etc/ssl/private`), the `alternatives` links that `/usr/bin/java`
/// and `/usr/bin/mvn` go through, and Maven's configuration. The JDK's `conf` links into
/// `/etc/java-*`, which are added by prefix.
const ETC_ENTRIES: [&str; 18] = [
    "passwd",
    "group",
    "nsswitch.conf",
    "hosts",
    "host.conf",
    "protocols",
    "services",
    "ld.so.cache",
    "ld.so.conf",
    "ld.so.conf.d",
    "localtime",
    "timezone",
    "ssl/certs",
    "ssl/openssl.cnf",
    "ca-certificates",
    "alternatives",
    "maven",
    "mavenrc",
];

/// Read only when the sandbox shares the host's network (the dependency warm-up).
const ETC_NETWORK_ENTRIES: [&str; 2] = ["resolv.conf", "gai.conf"];

/// The top-level folders that hold programs and libraries: on merged-/usr systems these are
/// links into `/usr`, recreated as links; otherwise they are mounted read-only.
const SYSTEM_DIRS: [&str; 6] = ["bin", "sbin", "lib", "lib32", "lib64", "libx32"];

/// A command ready to start: bubblewrap, its arguments, the seccomp programs it reads from
/// inherited descriptors, and what is enforced.
#[derive(Debug)]
pub(crate) struct Confined {
    pub(crate) program: PathBuf,
    pub(crate) args: Vec<String>,
    /// Descriptors the child must inherit (their close-on-exec flag is cleared after the fork).
    pub(crate) inherited: Vec<OwnedFd>,
    /// What is enforced, for the log.
    pub(crate) description: String,
}

/// What the probe sandbox showed of its own confinement (read from `/proc/self/status`).
#[derive(Debug, Clone)]
struct Verified {
    text: String,
}

static VERIFIED: OnceLock<Result<Verified, String>> = OnceLock::new();

/// Checks that the sandbox of this kind works and confines as it should, by running a probe in
/// it: the probe's capabilities must be empty, no-new-privileges set and the seccomp filters
/// installed. A sandbox that runs but does not confine is refused, never used.
pub fn check_sandbox(kind: SandboxKind) -> Result<(), SandboxError> {
    if kind == SandboxKind::None {
        return Ok(());
    }
    verified().map(|_| ())
}

fn verified() -> Result<Verified, SandboxError> {
    let bwrap = find_on_path("bwrap").ok_or(SandboxError::Missing)?;
    VERIFIED
        .get_or_init(|| probe(&bwrap))
        .clone()
        .map_err(|why| SandboxError::Unusable(with_namespace_hint(why)))
}

/// A refusal to make user namespaces, with what the administrator must allow: Ubuntu 24.04
/// restricts unprivileged user namespaces to programs with an AppArmor profile that grants
/// `userns`; other kernels switch them off by sysctl.
fn with_namespace_hint(why: String) -> String {
    let refused = [
        "namespace",
        "uid map",
        "Operation not permitted",
        "Permission denied",
    ]
    .iter()
    .any(|sign| why.contains(sign));
    if !refused {
        return why;
    }
    format!(
        "{why} (user namespaces are refused to this user: the administrator must allow them for bwrap, \
         e.g. an AppArmor profile for /usr/bin/bwrap with `userns,` on Ubuntu 24.04, or \
         `sysctl kernel.unprivileged_userns_clone=1` / `user.max_user_namespaces` > 0 elsewhere; \
         or pass `--sandbox none` to run untrusted code unconfined)"
    )
}

fn probe(bwrap: &Path) -> Result<Verified, String> {
    let confined = confine_with(
        bwrap,
        &SandboxPolicy::default(),
        Path::new("/"),
        &Limits::default(),
        Path::new("cat"),
        &["/proc/self/status".to_owned()],
    )
    .map_err(|e| e.to_string())?;
    let fds: Vec<i32> = confined.inherited.iter().map(AsRawFd::as_raw_fd).collect();
    #[expect(
        clippy::disallowed_methods,
        reason = "this crate is the home of process spawning"
    )]
    let mut command = std::process::Command::new(&confined.program);
    command
        .args(&confined.args)
        .env_clear()
        .env("PATH", "/usr/bin:/bin");
    // SAFETY: fcntl is async-signal-safe and the descriptors stay open until the child execs.
    unsafe {
        use std::os::unix::process::CommandExt;
        command.pre_exec(move || inherit_fds(&fds));
    }
    let output = command.output().map_err(|e| e.to_string())?;
    drop(confined.inherited);
    if !output.status.success() {
        return Err(String::from_utf8_lossy(&output.stderr).trim().to_owned());
    }
    let status = String::from_utf8_lossy(&output.stdout);
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name)?.strip_prefix(':'))
            .map(|v| v.trim().to_owned())
            .unwrap_or_default()
    };
    let (eff, prm, bnd, amb) = (
        field("CapEff"),
        field("CapPrm"),
        field("CapBnd"),
        field("CapAmb"),
    );
    let (nnp, mode, filters) = (
        field("NoNewPrivs"),
        field("Seccomp"),
        field("Seccomp_filters"),
    );
    let no_caps = [&eff, &prm, &bnd, &amb]
        .iter()
        .all(|v| !v.is_empty() && v.chars().all(|c| c == '0'));
    if !no_caps {
        return Err(format!(
            "the sandbox kept capabilities (CapEff {eff}, CapBnd {bnd}): bubblewrap is too old for --cap-drop ALL?"
        ));
    }
    if nnp != "1" {
        return Err(format!(
            "no-new-privileges is not set in the sandbox (NoNewPrivs {nnp:?})"
        ));
    }
    let expected = crate::seccomp::filters().map_or(0, |f| f.programs.len());
    let installed: usize = filters.parse().unwrap_or(0);
    if expected > 0 && (mode != "2" || installed < expected) {
        return Err(format!(
            "the seccomp filters are not installed in the sandbox (Seccomp {mode:?}, {filters:?} filters, {expected} expected)"
        ));
    }
    Ok(Verified {
        text: format!(
            "checked in a probe sandbox: CapEff {eff}, CapBnd {bnd}, NoNewPrivs {nnp}, seccomp mode {mode} with {installed} filters"
        ),
    })
}

/// Clears close-on-exec on descriptors a child must inherit. Runs between fork and exec.
pub(crate) fn inherit_fds(fds: &[i32]) -> std::io::Result<()> {
    for &fd in fds {
        // SAFETY: fcntl on a descriptor number has no memory-safety preconditions.
        if unsafe { libc::fcntl(fd, libc::F_SETFD, 0) } < 0 {
            return Err(std::io::Error::last_os_error());
        }
    }
    Ok(())
}

/// Wraps a command in the sandbox: checks (once per process) that the sandbox confines, then
/// builds bubblewrap's arguments for this policy.
pub(crate) fn confine(
    policy: &SandboxPolicy,
    cwd: &Path,
    limits: &Limits,
    program: &Path,
    args: &[String],
) -> Result<Confined, SandboxError> {
    let bwrap = find_on_path("bwrap").ok_or(SandboxError::Missing)?;
    let verified = verified()?;
    let mut confined = confine_with(&bwrap, policy, cwd, limits, program, args)?;
    confined.description = format!("{}; {}", confined.description, verified.text);
    Ok(confined)
}

/// An in-memory file holding `bytes` (a seccomp program, a program to copy), for bubblewrap to
/// read from an inherited descriptor.
fn memory_fd(bytes: &[u8]) -> std::io::Result<OwnedFd> {
    let name = CString::new("avrlab-data").expect("no NUL byte");
    // SAFETY: memfd_create reads a valid NUL-terminated name; the result is checked.
    let fd = unsafe { libc::memfd_create(name.as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: `fd` was just created and is owned by nothing else.
    let mut file = std::fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    file.write_all(bytes)?;
    file.rewind()?;
    Ok(file.into())
}

fn confine_with(
    bwrap: &Path,
    policy: &SandboxPolicy,
    cwd: &Path,
    limits: &Limits,
    program: &Path,
    args: &[String],
) -> Result<Confined, SandboxError> {
    let path = |p: &Path| p.to_string_lossy().into_owned();
    let mut out: Vec<String> = [
        "--unshare-all",
        "--unshare-user",
        // No user namespace can be made inside (seccomp refuses it too).
        "--disable-userns",
        // bubblewrap keeps every capability for root unless told; nobody keeps any.
        "--cap-drop",
        "ALL",
        "--die-with-parent",
        "--new-session",
    ]
    .map(str::to_owned)
    .to_vec();
    if policy.network {
        out.push("--share-net".into());
    }
    out.extend(["--ro-bind", "/usr", "/usr"].map(str::to_owned));
    let mut system = vec!["/usr".to_owned()];
    for name in SYSTEM_DIRS {
        let host = Path::new("/").join(name);
        let Ok(meta) = std::fs::symlink_metadata(&host) else {
            continue;
        };
        if meta.file_type().is_symlink() {
            let target = std::fs::read_link(&host).map_err(|e| {
                SandboxError::Unusable(format!("cannot read the link {}: {e}", host.display()))
            })?;
            out.extend(["--symlink".into(), path(&target), path(&host)]);
            system.push(format!("/{name} -> {}", target.display()));
        } else if meta.is_dir() {
            out.extend(["--ro-bind".into(), path(&host), path(&host)]);
            system.push(format!("/{name}"));
        }
    }
    let tmp_bytes = limits.file_size_bytes.max(1 << 20);
    out.extend(
        [
            "--dev",
            "/dev",
            "--proc",
            "/proc",
            "--size",
            &tmp_bytes.to_string(),
            "--tmpfs",
            "/tmp",
            "--perms",
            "0755",
            "--dir",
            "/etc",
        ]
        .map(str::to_owned),
    );
    let mut etc: Vec<String> = ETC_ENTRIES.iter().map(|e| (*e).to_owned()).collect();
    if policy.network {
        etc.extend(ETC_NETWORK_ENTRIES.iter().map(|e| (*e).to_owned()));
    }
    if let Ok(entries) = std::fs::read_dir("/etc") {
        let mut java: Vec<String> = entries
            .flatten()
            .filter_map(|e| e.file_name().to_str().map(str::to_owned))
            .filter(|n| n.starts_with("java-") || n == "java")
            .collect();
        java.sort();
        etc.extend(java);
    }
    let mut shown_etc = Vec::new();
    for entry in etc {
        let host = Path::new("/etc").join(&entry);
        if std::fs::metadata(&host).is_ok() {
            out.extend(["--ro-bind".into(), path(&host), path(&host)]);
            shown_etc.push(entry);
        }
    }
    let mut shown_mounts = Vec::new();
    let mut inherited = Vec::new();
    for mount in &policy.mounts {
        match mount {
            Mount::ReadWrite(p) => {
                out.extend(["--bind".into(), path(p), path(p)]);
                shown_mounts.push(format!("rw {}", p.display()));
            }
            Mount::ReadOnly(p) => {
                out.extend(["--ro-bind".into(), path(p), path(p)]);
                shown_mounts.push(format!("ro {}", p.display()));
            }
            Mount::BindAt { source, target } => {
                out.extend(["--bind".into(), path(source), path(target)]);
                shown_mounts.push(format!("rw {}", target.display()));
            }
            Mount::ReadOnlyAt { source, target } => {
                out.extend(["--ro-bind".into(), path(source), path(target)]);
                shown_mounts.push(format!("ro {}", target.display()));
            }
            Mount::Tmpfs(p) => {
                out.extend([
                    "--size".into(),
                    tmp_bytes.to_string(),
                    "--tmpfs".into(),
                    path(p),
                ]);
                shown_mounts.push(format!("tmpfs {} ({} MiB)", p.display(), tmp_bytes >> 20));
            }
            Mount::ExecuteOnly(p) => {
                let copy = std::fs::read(p)
                    .and_then(|bytes| memory_fd(&bytes))
                    .map_err(|e| {
                        SandboxError::Unusable(format!("cannot copy {}: {e}", p.display()))
                    })?;
                out.extend([
                    "--perms".into(),
                    "0111".into(),
                    "--ro-bind-data".into(),
                    copy.as_raw_fd().to_string(),
                    path(p),
                ]);
                inherited.push(copy);
                shown_mounts.push(format!("execute-only {}", p.display()));
            }
        }
    }
    // Everything not mounted writable above is read-only, the sandbox's own root included.
    out.extend(["--remount-ro".into(), "/".into()]);
    let seccomp = crate::seccomp::filters();
    if let Some(filters) = &seccomp {
        for program in &filters.programs {
            let fd = memory_fd(&program.bytes).map_err(|e| {
                SandboxError::Unusable(format!("cannot pass the seccomp filter: {e}"))
            })?;
            out.extend(["--add-seccomp-fd".into(), fd.as_raw_fd().to_string()]);
            inherited.push(fd);
        }
    }
    out.extend(["--chdir".into(), path(cwd), "--".into(), path(program)]);
    out.extend(args.iter().cloned());
    let description = format!(
        "sandbox: bubblewrap; capabilities: all dropped, no-new-privileges, no user namespaces inside; {}; network: {}; file system: {} read-only, /etc only {}, minimal /dev, own /proc, no /sys, private /tmp ({} MiB), {}, everything else read-only",
        seccomp.map_or_else(
            || "seccomp: NONE (no filter for this architecture)".to_owned(),
            |f| f.description
        ),
        if policy.network {
            "the host's (dependency warm-up)"
        } else {
            "none (own network namespace)"
        },
        system.join(", "),
        shown_etc.join(" "),
        tmp_bytes >> 20,
        if shown_mounts.is_empty() {
            "no other mount".to_owned()
        } else {
            shown_mounts.join(", ")
        },
    );
    Ok(Confined {
        program: bwrap.to_owned(),
        args: out,
        inherited,
        description,
    })
}
