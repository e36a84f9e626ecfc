//! The bubblewrap sandbox for untrusted code (candidate patches and project tests), and the
//! resource limits every spawned process runs under.
//!
//! Inside the sandbox the whole file system is read-only, `/tmp` is private, nothing but the
//! mounts a policy names is writable, and there is no network unless the policy asks for it (only
//! the dependency warm-up does, and it never runs a candidate).

use std::path::{Path, PathBuf};
use std::time::Duration;

/// How untrusted code is confined.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SandboxKind {
    /// bubblewrap (`bwrap`): namespaces, read-only root, no network.
    Bubblewrap,
    /// No confinement at all; only for users who say so explicitly (`--sandbox none`).
    None,
}

/// One mount inside the sandbox, applied in order after the read-only root and private `/tmp`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mount {
    /// The path, writable.
    ReadWrite(PathBuf),
    /// The path, read-only (also used to re-expose a host path that lies under `/tmp`).
    ReadOnly(PathBuf),
    /// A host folder, writable, mounted at another path.
    BindAt { source: PathBuf, target: PathBuf },
    /// A fresh empty in-memory folder.
    Tmpfs(PathBuf),
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
    /// Largest file any process may write (RLIMIT_FSIZE).
    pub file_size_bytes: u64,
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

pub(crate) fn find_on_path(program: &str) -> Option<PathBuf> {
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
}

/// Checks that the sandbox of this kind works, by running `true` in it.
pub fn check_sandbox(kind: SandboxKind) -> Result<(), SandboxError> {
    if kind == SandboxKind::None {
        return Ok(());
    }
    let bwrap = find_on_path("bwrap").ok_or(SandboxError::Missing)?;
    let mut args = bwrap_args(&SandboxPolicy::default(), Path::new("/"));
    args.push("true".into());
    #[expect(
        clippy::disallowed_methods,
        reason = "this crate is the home of process spawning"
    )]
    let output = std::process::Command::new(bwrap)
        .args(args)
        .output()
        .map_err(|e| SandboxError::Unusable(e.to_string()))?;
    if output.status.success() {
        Ok(())
    } else {
        Err(SandboxError::Unusable(
            String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        ))
    }
}

/// The `bwrap` arguments (before the command) for a policy and working directory.
pub(crate) fn bwrap_args(policy: &SandboxPolicy, cwd: &Path) -> Vec<String> {
    let mut args: Vec<String> = [
        "--ro-bind",
        "/",
        "/",
        "--dev",
        "/dev",
        "--proc",
        "/proc",
        "--tmpfs",
        "/tmp",
        "--unshare-all",
        "--die-with-parent",
        "--new-session",
    ]
    .map(str::to_owned)
    .to_vec();
    if policy.network {
        args.push("--share-net".into());
    }
    let path = |p: &Path| p.to_string_lossy().into_owned();
    for mount in &policy.mounts {
        match mount {
            Mount::ReadWrite(p) => args.extend(["--bind".into(), path(p), path(p)]),
            Mount::ReadOnly(p) => args.extend(["--ro-bind".into(), path(p), path(p)]),
            Mount::BindAt { source, target } => {
                args.extend(["--bind".into(), path(source), path(target)]);
            }
            Mount::Tmpfs(p) => args.extend(["--tmpfs".into(), path(p)]),
        }
    }
    args.extend(["--chdir".into(), path(cwd), "--".into()]);
    args
}
