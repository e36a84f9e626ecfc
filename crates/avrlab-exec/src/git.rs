//! Checking out a task whose project lives in a git repository: from a local mirror directory of
//! bare repositories when one holds it, else by cloning.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{ExitKind, ProcessError, RunSpec, run};
use crate::sandbox::{Limits, SandboxKind, SandboxPolicy};

/// Why a git checkout failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git is not installed.
    #[error("git is not installed: apt-get install git")]
    Missing,
    /// A git command failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed { args: String, stderr: String },
    /// The process could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
}

fn git(cwd: &Path, args: &[&str]) -> Result<(), GitError> {
    let program = crate::sandbox::find_on_path("git").ok_or(GitError::Missing)?;
    let spec = RunSpec {
        program,
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        cwd: cwd.to_owned(),
        env: vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            (
                "HOME".into(),
                std::env::temp_dir().to_string_lossy().into_owned(),
            ),
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
        ],
        // git is trusted tooling operating on data; it needs network for a clone.
        sandbox: SandboxKind::None,
        policy: SandboxPolicy::default(),
        limits: Limits {
            wall: Duration::from_secs(1800),
            ..Limits::default()
        },
        stdin: Vec::new(),
    };
    let result = run(&spec)?;
    if result.exit == ExitKind::Code(0) {
        Ok(())
    } else {
        Err(GitError::Failed {
            args: args.join(" "),
            stderr: result.stderr.text().trim().to_owned(),
        })
    }
}

/// The mirror of `url` in `mirrors`: `owner+repo.git` or `owner/repo.git`.
fn mirror_of(url: &str, mirrors: &Path) -> Option<PathBuf> {
    let trimmed = url.trim_end_matches('/').trim_end_matches(".git");
    let mut parts = trimmed.rsplit('/');
    let repo = parts.next()?;
    let owner = parts.next()?;
    [
        mirrors.join(format!("{owner}+{repo}.git")),
        mirrors.join(owner).join(format!("{repo}.git")),
    ]
    .into_iter()
    .find(|p| p.is_dir())
}

/// Checks `url` out at `commit` into `dest` (new), from a mirror when `mirrors` holds it.
pub fn checkout_git_project(
    url: &str,
    commit: &str,
    mirrors: Option<&Path>,
    dest: &Path,
) -> Result<(), GitError> {
    let source = mirrors
        .and_then(|m| mirror_of(url, m))
        .map_or_else(|| url.to_owned(), |p| p.to_string_lossy().into_owned());
    let parent = dest.parent().unwrap_or(Path::new("/"));
    let dest_str = dest.to_string_lossy();
    git(
        parent,
        &["clone", "--quiet", "--no-checkout", &source, &dest_str],
    )?;
    git(dest, &["checkout", "--quiet", "--detach", commit])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_mirrors_in_both_layouts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("apache+commons-text.git")).unwrap();
        std::fs::create_dir_all(dir.path().join("spring/framework.git")).unwrap();
        assert!(mirror_of("https://github.com/apache/commons-text", dir.path()).is_some());
        assert!(mirror_of("https://github.com/spring/framework.git", dir.path()).is_some());
        assert!(mirror_of("https://github.com/other/thing", dir.path()).is_none());
    }
}
