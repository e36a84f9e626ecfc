//! The file work of materializing a task: copying a project folder and reaching the task state
//! with its state diffs. (`avrlab-validate::materialize_task` puts them together with git.)

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

use crate::patch::PatchError;
use crate::task::Task;

/// Why a workspace could not be prepared.
#[derive(Debug, thiserror::Error)]
pub enum CheckoutError {
    /// Copying failed.
    #[error("cannot copy {from} to {to}")]
    Copy {
        from: PathBuf,
        to: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A state diff does not apply to the project.
    #[error("task {task}: a state diff does not apply")]
    State {
        task: String,
        #[source]
        source: PatchError,
    },
}

/// Copies a project tree, skipping build output (`target/`, `build/`, `.git/`) and refusing
/// symbolic links that leave the tree.
pub fn copy_project(from: &Path, to: &Path) -> Result<(), CheckoutError> {
    let copy_err = |source| CheckoutError::Copy {
        from: from.to_owned(),
        to: to.to_owned(),
        source,
    };
    let walker = walkdir::WalkDir::new(from)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0 || !matches!(e.file_name().to_str(), Some("target" | "build" | ".git"))
        });
    for entry in walker {
        let entry = entry.map_err(|e| copy_err(e.into()))?;
        let rel = entry
            .path()
            .strip_prefix(from)
            .expect("walkdir yields paths under its root");
        let dest = to.join(rel);
        let kind = entry.file_type();
        if kind.is_dir() {
            std::fs::create_dir_all(&dest).map_err(copy_err)?;
        } else if kind.is_file() {
            std::fs::copy(entry.path(), &dest).map_err(copy_err)?;
            // The copy is a working copy: writable by its owner even when the source is sealed.
            let mut permissions = std::fs::metadata(&dest).map_err(copy_err)?.permissions();
            permissions.set_mode(permissions.mode() | 0o200);
            std::fs::set_permissions(&dest, permissions).map_err(copy_err)?;
        } else if kind.is_symlink() {
            let target = std::fs::read_link(entry.path()).map_err(copy_err)?;
            if target.is_absolute() || target.components().any(|c| c.as_os_str() == "..") {
                return Err(copy_err(std::io::Error::other(format!(
                    "{} is a link that leaves the project",
                    entry.path().display()
                ))));
            }
            std::os::unix::fs::symlink(target, &dest).map_err(copy_err)?;
        }
    }
    Ok(())
}

impl Task {
    /// Applies `state.apply` then reverse-applies `state.revert` in a checked-out project.
    pub fn reach_state(&self, root: &Path) -> Result<(), CheckoutError> {
        let state_err = |source| CheckoutError::State {
            task: self.id.clone(),
            source,
        };
        for patch in &self.state.apply {
            patch.apply_to_dir(root).map_err(state_err)?;
        }
        for patch in &self.state.revert {
            patch.reversed().apply_to_dir(root).map_err(state_err)?;
        }
        Ok(())
    }
}
