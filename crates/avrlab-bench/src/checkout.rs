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

/// Whether a relative link at `link` (relative to the project root) to `target` resolves inside
/// the project, judged on the path alone (no link is followed): `a/b -> ../c` is `c`, inside;
/// `a -> ../../x` leaves. Absolute targets always leave.
fn stays_inside(link: &Path, target: &Path) -> bool {
    if target.is_absolute() {
        return false;
    }
    let mut depth: usize = link.parent().map_or(0, |p| p.components().count());
    for part in target.components() {
        match part {
            std::path::Component::ParentDir => match depth.checked_sub(1) {
                Some(d) => depth = d,
                None => return false,
            },
            std::path::Component::Normal(_) => depth += 1,
            std::path::Component::CurDir => {}
            _ => return false,
        }
    }
    true
}

/// Copies a project tree, skipping build output (`target/`, `build/`, `.git/`) and refusing
/// symbolic links that leave the tree (relative links that stay inside it, even through `../`,
/// are kept).
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
            if !stays_inside(rel, &target) {
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_links_inside_the_project_are_kept_and_others_refused() {
        let cases = [
            ("src/test/resources/a/link", "../b/file", true),
            ("src/link", "../../outside", false),
            ("link", "../x", false),
            ("a/link", "/etc/passwd", false),
            ("a/link", "./b/../c", true),
            ("a/b/link", "../../../x", false),
        ];
        for (link, target, inside) in cases {
            assert_eq!(
                stays_inside(Path::new(link), Path::new(target)),
                inside,
                "{link} -> {target}"
            );
        }
    }

    #[test]
    fn copies_an_inside_link_and_refuses_an_escaping_one() {
        let dir = tempfile::tempdir().unwrap();
        let from = dir.path().join("p");
        std::fs::create_dir_all(from.join("a")).unwrap();
        std::fs::create_dir_all(from.join("b")).unwrap();
        std::fs::write(from.join("b/file"), "x").unwrap();
        std::os::unix::fs::symlink("../b/file", from.join("a/link")).unwrap();
        copy_project(&from, &dir.path().join("copy")).unwrap();
        assert_eq!(
            std::fs::read_to_string(dir.path().join("copy/a/link")).unwrap(),
            "x"
        );
        std::os::unix::fs::symlink("../../secret", from.join("a/escape")).unwrap();
        let err = copy_project(&from, &dir.path().join("copy2")).unwrap_err();
        assert!(
            format!("{:?}", err).contains("leaves the project"),
            "{err:?}"
        );
    }
}
