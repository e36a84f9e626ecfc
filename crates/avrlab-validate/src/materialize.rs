//! Materializing a task state: the one place that turns a task's project source (a folder, or a git
//! repository and commit) plus its state diffs into a folder on disk. The oracle's pristine states,
//! `avrlab bench checkout` and the transformer all go through [`materialize_task`].

use std::path::{Path, PathBuf};

use avrlab_bench::{CheckoutError, ProjectSource, Task, copy_project};
use avrlab_exec::GitError;

/// Why a task state could not be written.
#[derive(Debug, thiserror::Error)]
pub enum MaterializeError {
    /// The destination exists and is not empty; materializing never overwrites anything.
    #[error("{0} already exists and is not empty; choose a new folder")]
    DestinationExists(PathBuf),
    /// The folder project could not be copied, or a state diff does not apply.
    #[error("materialize the state of task {task}")]
    Checkout {
        task: String,
        #[source]
        source: CheckoutError,
    },
    /// The git project could not be checked out.
    #[error("check out the project of task {task}")]
    Git {
        task: String,
        #[source]
        source: GitError,
    },
    /// The git metadata of a checkout could not be removed.
    #[error("cannot remove {}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl MaterializeError {
    /// The task or the destination is at fault (a project that cannot be copied, a state diff
    /// that does not apply, an occupied destination), rather than git or the network.
    pub fn is_input(&self) -> bool {
        matches!(
            self,
            Self::DestinationExists(_)
                | Self::Checkout { .. }
                | Self::Git {
                    source: GitError::Unavailable { .. }
                        | GitError::UnknownCommit { .. }
                        | GitError::AmbiguousCommit { .. },
                    ..
                }
        )
    }
}

/// Writes the state of `task` into `dest`, which must not exist or be empty: the project (copied
/// without build output, or checked out from `mirrors` or its URL, without `.git`), then the state
/// diffs.
pub fn materialize_task(
    task: &Task,
    dest: &Path,
    mirrors: Option<&Path>,
) -> Result<(), MaterializeError> {
    if dest.exists()
        && std::fs::read_dir(dest)
            .map(|mut d| d.next().is_some())
            .unwrap_or(true)
    {
        return Err(MaterializeError::DestinationExists(dest.to_owned()));
    }
    let checkout_err = |source| MaterializeError::Checkout {
        task: task.id.clone(),
        source,
    };
    match &task.project {
        ProjectSource::Folder(folder) => copy_project(folder, dest).map_err(checkout_err)?,
        ProjectSource::Git { url, commit } => {
            let _ = std::fs::remove_dir(dest);
            avrlab_exec::checkout_git_project(url, commit, mirrors, dest).map_err(|source| {
                MaterializeError::Git {
                    task: task.id.clone(),
                    source,
                }
            })?;
            // A task state is a plain folder: workspaces copy it without `.git`, and a transformed
            // task ships it as its project.
            let git = dest.join(".git");
            if git.exists() {
                std::fs::remove_dir_all(&git)
                    .map_err(|source| MaterializeError::Io { path: git, source })?;
            }
        }
    }
    task.reach_state(dest).map_err(checkout_err)
}
