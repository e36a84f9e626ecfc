//! Where a run keeps its files: the work folder of one avrlab process (task states, workspaces),
//! removed when the run ends unless the user named it, and the cache folder shared by runs.

use std::path::{Path, PathBuf};

use avrlab_exec::{SandboxKind, remove_tree};

/// The prefix of a work folder that avrlab makes itself; the process id follows it.
const WORK_PREFIX: &str = "avrlab-work-";

/// The cache folder shared by runs: `$XDG_CACHE_HOME/avrlab`, else `~/.cache/avrlab`.
pub fn cache_dir() -> PathBuf {
    std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .unwrap_or_else(|| {
            PathBuf::from(std::env::var_os("HOME").unwrap_or_else(|| "/tmp".into())).join(".cache")
        })
        .join("avrlab")
}

/// The Maven repository runs share: `$AVRLAB_MAVEN_REPO`, else the cache's `maven-repository`.
pub(crate) fn default_maven_repo() -> PathBuf {
    if let Some(repo) = std::env::var_os("AVRLAB_MAVEN_REPO") {
        return repo.into();
    }
    cache_dir().join("maven-repository")
}

/// The work folder, removed when dropped unless the user named it. Task states in it are sealed
/// read-only, so removal opens them up first (as any user, not only root).
#[derive(Debug)]
pub struct WorkDir {
    pub path: PathBuf,
    remove: bool,
    /// Confines the removal of what sandboxed builds wrote in it.
    sandbox: SandboxKind,
}

impl WorkDir {
    /// The user's folder, kept after the run.
    pub(crate) fn named(path: PathBuf) -> Self {
        Self {
            path,
            remove: false,
            sandbox: SandboxKind::None,
        }
    }

    /// A folder of this process under the temporary folder, removed after the run; folders of
    /// avrlab processes that were killed before they could clean up are removed first. Removal
    /// falls back to `rm` in `sandbox` (see [`remove_tree`]).
    pub(crate) fn temporary(sandbox: SandboxKind) -> Self {
        sweep_stale_work_dirs(&std::env::temp_dir(), sandbox);
        Self {
            path: std::env::temp_dir().join(format!("{WORK_PREFIX}{}", std::process::id())),
            remove: true,
            sandbox,
        }
    }
}

impl Drop for WorkDir {
    fn drop(&mut self) {
        if self.remove {
            let _ = remove_tree(&self.path, self.sandbox);
        }
    }
}

/// Removes work folders of avrlab processes that no longer run.
fn sweep_stale_work_dirs(temp: &Path, sandbox: SandboxKind) {
    let Ok(entries) = std::fs::read_dir(temp) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if let Some(pid) = name.strip_prefix(WORK_PREFIX)
            && !Path::new("/proc").join(pid).exists()
        {
            let _ = remove_tree(&entry.path(), sandbox);
        }
    }
}

#[cfg(test)]
mod tests {
    use std::os::unix::fs::PermissionsExt;

    use super::*;

    #[test]
    fn a_temporary_work_folder_is_removed_with_its_sealed_states() {
        let work = WorkDir::temporary(SandboxKind::None);
        let sealed = work.path.join("states/t/src");
        std::fs::create_dir_all(&sealed).unwrap();
        std::fs::write(sealed.join("A.java"), "class A {}").unwrap();
        for dir in [sealed.as_path(), sealed.parent().unwrap()] {
            std::fs::set_permissions(dir, std::fs::Permissions::from_mode(0o555)).unwrap();
        }
        let path = work.path.clone();
        drop(work);
        assert!(!path.exists());
    }

    /// The test above, run by the test binary as `nobody` when the tests run as root: without
    /// root's bypass of permissions, a sealed (0555) state can only go if removal opens it first.
    #[test]
    #[expect(
        clippy::disallowed_methods,
        reason = "the test binary re-runs itself as another user; no untrusted code runs"
    )]
    fn an_unprivileged_user_removes_its_sealed_work_folder_too() {
        use std::os::unix::fs::MetadataExt;
        use std::os::unix::process::CommandExt;
        // /proc/self belongs to the process's effective user.
        if std::fs::metadata("/proc/self").unwrap().uid() != 0 {
            a_temporary_work_folder_is_removed_with_its_sealed_states();
            return;
        }
        // The test's name as libtest knows it: its module path without the crate's name.
        let module = module_path!().split_once("::").map_or("", |(_, path)| path);
        let name = format!("{module}::a_temporary_work_folder_is_removed_with_its_sealed_states");
        let output = std::process::Command::new(std::env::current_exe().unwrap())
            .args(["--exact", &name, "--test-threads=1"])
            .env("TMPDIR", "/tmp")
            .current_dir("/")
            .uid(65534)
            .gid(65534)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&output.stdout);
        assert!(
            output.status.success() && stdout.contains("1 passed"),
            "as nobody: {stdout}{}",
            String::from_utf8_lossy(&output.stderr)
        );
    }

    #[test]
    fn a_named_work_folder_is_kept() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("mine");
        std::fs::create_dir_all(&path).unwrap();
        drop(WorkDir::named(path.clone()));
        assert!(path.is_dir());
    }
}
