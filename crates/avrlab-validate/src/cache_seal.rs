//! Keeping what candidates could spoil out of their reach, and checking that it stayed so.
//!
//! - The dependency cache (the shared Maven repository) is mounted read-only for every candidate
//!   run, and a [`CacheSeal`] verifies it: a fingerprint of every entry (name, type, size,
//!   modification time, mode) is taken after each warm-up and checked after each candidate. A
//!   change is an infrastructure alarm: the run stops, and the repository is marked so that no
//!   later run trusts it until a person deletes it. Warm-ups (the only step that writes the cache)
//!   never overlap a candidate run.
//! - Pristine task states are made read-only on disk once materialized ([`seal_tree`]), and are
//!   removed with [`remove_sealed_tree`], which also removes what a hostile run left unreadable.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock, RwLockReadGuard, RwLockWriteGuard};

use sha2::{Digest, Sha256};

/// The file in a repository that marks it as no longer trusted.
pub const TAMPERED_MARKER: &str = ".avrlab-tampered";

/// Why the dependency cache cannot be trusted.
#[derive(Debug, thiserror::Error)]
pub enum CacheAlarm {
    /// The repository changed while candidates ran, which the read-only mount should make
    /// impossible.
    #[error(
        "the dependency cache {path} changed during a candidate run (after {candidate}); it is no longer trusted: delete it and run again"
    )]
    Changed { path: PathBuf, candidate: String },
    /// An earlier run found the repository changed.
    #[error(
        "the dependency cache {0} was marked as tampered with by an earlier run ({TAMPERED_MARKER}); delete it and run again"
    )]
    Marked(PathBuf),
    /// The repository could not be read.
    #[error("cannot read the dependency cache {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// The fingerprint of a repository, shared by every clone of an oracle.
#[derive(Debug, Clone, Default)]
pub struct CacheSeal {
    state: Arc<RwLock<Option<String>>>,
}

/// Held by a candidate run: no warm-up can change the cache meanwhile.
#[derive(Debug)]
pub struct CandidateGuard<'a>(RwLockReadGuard<'a, Option<String>>);

/// Held by a warm-up: no candidate runs meanwhile.
#[derive(Debug)]
pub struct WarmUpGuard<'a>(RwLockWriteGuard<'a, Option<String>>);

impl CacheSeal {
    /// Refuses a repository that an earlier run marked as tampered with.
    pub fn check_trusted(repository: &Path) -> Result<(), CacheAlarm> {
        if repository.join(TAMPERED_MARKER).exists() {
            return Err(CacheAlarm::Marked(repository.to_owned()));
        }
        Ok(())
    }

    /// Starts a warm-up: waits until no candidate runs.
    pub fn warm_up(&self) -> WarmUpGuard<'_> {
        WarmUpGuard(self.state.write().unwrap_or_else(|p| p.into_inner()))
    }

    /// Starts a candidate run: waits until no warm-up runs.
    pub fn candidate(&self) -> CandidateGuard<'_> {
        CandidateGuard(self.state.read().unwrap_or_else(|p| p.into_inner()))
    }
}

impl WarmUpGuard<'_> {
    /// Records the repository's fingerprint once the warm-up is done.
    pub fn seal(mut self, repository: &Path) -> Result<(), CacheAlarm> {
        *self.0 = Some(fingerprint(repository)?);
        Ok(())
    }
}

impl CandidateGuard<'_> {
    /// Checks, after a candidate ran, that the repository is as the last warm-up left it. On a
    /// change the repository is marked, so later runs refuse it too.
    pub fn verify(&self, repository: &Path, candidate: &str) -> Result<(), CacheAlarm> {
        let Some(sealed) = self.0.as_ref() else {
            return Ok(());
        };
        if fingerprint(repository)? == *sealed {
            return Ok(());
        }
        let _ = std::fs::write(
            repository.join(TAMPERED_MARKER),
            format!("changed during the validation of {candidate}\n"),
        );
        Err(CacheAlarm::Changed {
            path: repository.to_owned(),
            candidate: candidate.to_owned(),
        })
    }
}

/// Names, types, sizes, modification times and modes of every entry under `root` (links are not
/// followed; their targets are part of the fingerprint).
pub fn fingerprint(root: &Path) -> Result<String, CacheAlarm> {
    let io = |source| CacheAlarm::Io {
        path: root.to_owned(),
        source,
    };
    let mut hasher = Sha256::new();
    let walker = walkdir::WalkDir::new(root)
        .follow_links(false)
        .sort_by_file_name();
    for entry in walker {
        let entry = entry.map_err(|e| io(e.into()))?;
        let meta = entry.metadata().map_err(|e| io(e.into()))?;
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        let modified = meta
            .modified()
            .ok()
            .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
            .map_or(0, |d| d.as_nanos());
        hasher.update(relative.as_os_str().as_encoded_bytes());
        hasher.update([0]);
        let link = if meta.file_type().is_symlink() {
            std::fs::read_link(entry.path()).map_err(io)?
        } else {
            PathBuf::new()
        };
        hasher.update(link.as_os_str().as_encoded_bytes());
        hasher.update(format!(
            "\0{}\0{}\0{}\0{}\n",
            meta.is_dir(),
            meta.len(),
            modified,
            meta.permissions().mode()
        ));
    }
    Ok(hex::encode(hasher.finalize()))
}

/// Makes a tree read-only for everyone (files 0444, or 0555 when executable; folders 0555).
/// Links are left alone.
pub fn seal_tree(root: &Path) -> std::io::Result<()> {
    // Folders last, so their contents can still be changed while walking.
    for entry in walkdir::WalkDir::new(root)
        .follow_links(false)
        .contents_first(true)
    {
        let entry = entry?;
        let meta = entry.metadata()?;
        let mode = if meta.is_dir() || meta.permissions().mode() & 0o111 != 0 {
            0o555
        } else if meta.is_file() {
            0o444
        } else {
            continue;
        };
        std::fs::set_permissions(entry.path(), std::fs::Permissions::from_mode(mode))?;
    }
    Ok(())
}

/// Removes a tree even where folders were made unreadable or unwritable (by a sealed pristine
/// state, or by code under test in a writable folder). Links are removed, never followed.
pub fn remove_sealed_tree(root: &Path) -> std::io::Result<()> {
    match std::fs::symlink_metadata(root) {
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(e),
        Ok(meta) if !meta.is_dir() => return std::fs::remove_file(root),
        Ok(_) => {}
    }
    if std::fs::remove_dir_all(root).is_ok() {
        return Ok(());
    }
    // Open every folder up (pre-order, so that each can then be listed), then remove.
    let mut pending = vec![root.to_path_buf()];
    while let Some(dir) = pending.pop() {
        std::fs::set_permissions(&dir, std::fs::Permissions::from_mode(0o700))?;
        for entry in std::fs::read_dir(&dir)?.flatten() {
            if entry.file_type().is_ok_and(|t| t.is_dir()) {
                pending.push(entry.path());
            }
        }
    }
    std::fs::remove_dir_all(root)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_repository_raises_the_alarm_and_stays_untrusted() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("org/x/1.0")).unwrap();
        std::fs::write(repo.join("org/x/1.0/x-1.0.jar"), "jar").unwrap();
        let seal = CacheSeal::default();
        seal.warm_up().seal(&repo).unwrap();
        seal.candidate().verify(&repo, "t/a").unwrap();
        // Same size, different content and time: still noticed through the mtime.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(repo.join("org/x/1.0/x-1.0.jar"), "JAR").unwrap();
        let err = seal.candidate().verify(&repo, "t/b").unwrap_err();
        assert!(err.to_string().contains("after t/b"), "{err}");
        assert!(matches!(
            CacheSeal::check_trusted(&repo),
            Err(CacheAlarm::Marked(_))
        ));
    }

    #[test]
    fn sealed_and_locked_trees_are_removed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("tree");
        std::fs::create_dir_all(root.join("a/b")).unwrap();
        std::fs::write(root.join("a/b/f"), "x").unwrap();
        std::os::unix::fs::symlink("/etc", root.join("a/link")).unwrap();
        seal_tree(&root).unwrap();
        let mode = std::fs::metadata(root.join("a/b/f"))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o444);
        std::fs::set_permissions(root.join("a/b"), std::fs::Permissions::from_mode(0o0)).unwrap();
        remove_sealed_tree(&root).unwrap();
        assert!(!root.exists());
        assert!(Path::new("/etc/passwd").exists());
    }
}
