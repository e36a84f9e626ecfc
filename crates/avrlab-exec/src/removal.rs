//! Removing folders that untrusted code wrote into (workspaces, reports), in bounded time.
//!
//! A build can leave a tree that the standard library's `remove_dir_all` cannot remove: it keeps
//! one open descriptor per level, so a tree nested thousands of folders deep fails with "too many
//! open files", and a failed clean-up must not stop a run. Such trees are removed by `rm -rf`
//! (which walks any depth) in the sandbox, under a time limit, after `chmod -R u+rwX` has opened
//! up folders the code made unreadable (in the sandbox even root has no capability to bypass file
//! modes); how much a tree can hold at all is bounded by the disk limit of the commands that wrote
//! it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{ExitKind, ProcessError, RunSpec, run};
use crate::sandbox::{Limits, Mount, SandboxKind, SandboxPolicy};

/// How long the `rm -rf` fallback may run.
const REMOVAL_WALL: Duration = Duration::from_secs(120);

/// A folder could not be removed.
#[derive(Debug, thiserror::Error)]
pub enum RemovalError {
    /// The fallback `rm -rf` could not be run.
    #[error("cannot run rm to remove {path}")]
    Process {
        path: PathBuf,
        #[source]
        source: ProcessError,
    },
    /// `rm -rf` did not remove the whole folder in time.
    #[error("cannot remove {path}: {reason}")]
    Incomplete { path: PathBuf, reason: String },
}

/// Removes a folder and everything in it, never following links; a missing folder is fine.
/// `sandbox` confines the fallback `rm` (the tree was written by untrusted code).
pub fn remove_tree(path: &Path, sandbox: SandboxKind) -> Result<(), RemovalError> {
    match std::fs::remove_dir_all(path) {
        Ok(()) => return Ok(()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(_) => {}
    }
    let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) else {
        return Err(RemovalError::Incomplete {
            path: path.to_owned(),
            reason: "it has no parent folder".into(),
        });
    };
    let spec = RunSpec {
        program: "/bin/sh".into(),
        args: vec![
            "-c".into(),
            r#"chmod -R u+rwX -- "$1" 2>/dev/null; rm -rf --one-file-system -- "$1""#.into(),
            "sh".into(),
            path.to_string_lossy().into_owned(),
        ],
        cwd: parent.to_owned(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        sandbox,
        policy: SandboxPolicy {
            mounts: vec![Mount::ReadWrite(parent.to_owned())],
            network: false,
        },
        limits: Limits {
            wall: REMOVAL_WALL,
            ..Limits::default()
        },
        stdin: Vec::new(),
    };
    let result = run(&spec).map_err(|source| RemovalError::Process {
        path: path.to_owned(),
        source,
    })?;
    if std::fs::symlink_metadata(path).is_err() {
        return Ok(());
    }
    Err(RemovalError::Incomplete {
        path: path.to_owned(),
        reason: match result.exit {
            ExitKind::TimedOut => format!("rm -rf ran past {} s", REMOVAL_WALL.as_secs()),
            _ => format!("rm -rf left it ({})", result.stderr.text().trim()),
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tree_too_deep_for_remove_dir_all_is_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("deep");
        std::fs::create_dir(&root).unwrap();
        // Deeper than the open-file limit (1024 by default), built level by level as a build
        // could; no path to the bottom fits in PATH_MAX. At the bottom, folders that their
        // owner may not read or write.
        let build = RunSpec {
            program: "python3".into(),
            args: vec![
                "-c".into(),
                "import os\nfor _ in range(3000):\n    os.mkdir('d')\n    os.chdir('d')\nos.mkdir('locked')\nopen('locked/f', 'w').close()\nos.chmod('locked', 0)\nos.chmod('.', 0o500)".into(),
            ],
            cwd: root.clone(),
            env: vec![("PATH".into(), "/usr/bin:/bin".into())],
            sandbox: SandboxKind::None,
            policy: SandboxPolicy::default(),
            limits: Limits::default(),
            stdin: Vec::new(),
        };
        let built = run(&build).unwrap();
        assert!(built.exit.success(), "{}", built.stderr.text());
        remove_tree(&root, SandboxKind::Bubblewrap).unwrap();
        assert!(!root.exists());
        // Removing what is gone is fine.
        remove_tree(&root, SandboxKind::Bubblewrap).unwrap();
    }
}
