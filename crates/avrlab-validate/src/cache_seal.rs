//! Keeping what candidates could spoil out of their reach, and checking that it stayed so.
//!
//! - The dependency cache (the shared Maven repository) is mounted read-only for every candidate
//!   run, and a [`CacheSeal`] verifies it: a fingerprint of every entry (name, type, size,
//!   modification time, mode) is taken after each warm-up and checked after each candidate. A
//!   change is an infrastructure alarm: the run stops, and the repository is marked so that no
//!   later run trusts it until a person deletes it. Warm-ups (the only step that writes the cache)
//!   never overlap a candidate run, in this process or in any other avrlab process sharing the
//!   cache: both take a file lock in the repository (a warm-up exclusively, a candidate run
//!   shared; a turnstile lets a waiting warm-up in before new candidates), and the fingerprint
//!   is kept in the repository too, so that a warm-up by another process re-seals it for all.
//! - Pristine task states are made read-only on disk once materialized ([`seal_tree`]), and are
//!   removed with `avrlab_exec::remove_tree`, which also removes what a hostile run left unreadable.

use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};

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

/// The files in a repository that coordinate the processes sharing it; they are not part of the
/// fingerprint.
const LOCK_FILE: &str = ".avrlab-lock";
const TURNSTILE_FILE: &str = ".avrlab-turnstile";
const SEAL_FILE: &str = ".avrlab-seal";

/// Coordinates warm-ups and candidate runs on one repository, across threads and processes.
#[derive(Debug, Clone, Default)]
pub struct CacheSeal;

/// Held by a candidate run: no warm-up can change the cache meanwhile.
#[derive(Debug)]
pub struct CandidateGuard {
    _lock: std::fs::File,
}

/// Held by a warm-up: no candidate runs meanwhile.
#[derive(Debug)]
pub struct WarmUpGuard {
    _lock: std::fs::File,
    _turnstile: std::fs::File,
}

fn lock_file(repository: &Path, name: &str) -> Result<std::fs::File, CacheAlarm> {
    std::fs::create_dir_all(repository).map_err(|source| CacheAlarm::Io {
        path: repository.to_owned(),
        source,
    })?;
    let path = repository.join(name);
    std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
        .map_err(|source| CacheAlarm::Io { path, source })
}

fn locked(
    repository: &Path,
    name: &str,
    lock: fn(&std::fs::File) -> std::io::Result<()>,
) -> Result<std::fs::File, CacheAlarm> {
    let file = lock_file(repository, name)?;
    lock(&file).map_err(|source| CacheAlarm::Io {
        path: repository.join(name),
        source,
    })?;
    Ok(file)
}

impl CacheSeal {
    /// Refuses a repository that an earlier run marked as tampered with.
    pub fn check_trusted(repository: &Path) -> Result<(), CacheAlarm> {
        if repository.join(TAMPERED_MARKER).exists() {
            return Err(CacheAlarm::Marked(repository.to_owned()));
        }
        Ok(())
    }

    /// Whether the repository is as the last warm-up sealed it: a seal is there and matches. A
    /// repository copied with its seal, or changed by anything but a warm-up, is not.
    pub fn is_current(repository: &Path) -> Result<bool, CacheAlarm> {
        match std::fs::read_to_string(repository.join(SEAL_FILE)) {
            Ok(sealed) => Ok(fingerprint(repository)? == sealed),
            Err(_) => Ok(false),
        }
    }

    /// Starts a warm-up: waits until no candidate runs, here or in another process, and keeps new
    /// ones out until it is done.
    pub fn warm_up(&self, repository: &Path) -> Result<WarmUpGuard, CacheAlarm> {
        let turnstile = locked(repository, TURNSTILE_FILE, std::fs::File::lock)?;
        let lock = locked(repository, LOCK_FILE, std::fs::File::lock)?;
        Ok(WarmUpGuard {
            _lock: lock,
            _turnstile: turnstile,
        })
    }

    /// Starts a candidate run: waits until no warm-up runs, here or in another process.
    pub fn candidate(&self, repository: &Path) -> Result<CandidateGuard, CacheAlarm> {
        // Passing the turnstile first means a waiting warm-up is not starved by candidates.
        let turnstile = locked(repository, TURNSTILE_FILE, std::fs::File::lock)?;
        let lock = locked(repository, LOCK_FILE, std::fs::File::lock_shared)?;
        drop(turnstile);
        Ok(CandidateGuard { _lock: lock })
    }
}

impl WarmUpGuard {
    /// Runs `step`, which may write the repository, then seals what it left whether it succeeded
    /// or not: a failed warm-up has written the cache too (what it resolved before it failed),
    /// and nothing else wrote it meanwhile, so an unsealed change would make the next candidate,
    /// here or in another process, raise the tamper alarm.
    pub fn run<T>(self, repository: &Path, step: impl FnOnce() -> T) -> Result<T, CacheAlarm> {
        let result = step();
        self.seal(repository)?;
        Ok(result)
    }

    /// Records the repository's fingerprint, for every process, once the warm-up is done.
    pub fn seal(self, repository: &Path) -> Result<(), CacheAlarm> {
        let print = fingerprint(repository)?;
        let path = repository.join(SEAL_FILE);
        let tmp = repository.join(format!("{SEAL_FILE}.{}", std::process::id()));
        std::fs::write(&tmp, &print)
            .and_then(|()| std::fs::rename(&tmp, &path))
            .map_err(|source| CacheAlarm::Io { path, source })
    }
}

impl CandidateGuard {
    /// Checks, after a candidate ran, that the repository is as the last warm-up left it. On a
    /// change the repository is marked, so later runs refuse it too.
    pub fn verify(&self, repository: &Path, candidate: &str) -> Result<(), CacheAlarm> {
        let path = repository.join(SEAL_FILE);
        let sealed = match std::fs::read_to_string(&path) {
            Ok(sealed) => sealed,
            // No warm-up has sealed this repository yet: nothing to compare with.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(()),
            Err(source) => return Err(CacheAlarm::Io { path, source }),
        };
        if fingerprint(repository)? == sealed {
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
        let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
        // The root itself (its time changes with the coordination files) and those files are
        // left out; every entry a change could add or remove is still in.
        let coordination = relative
            .to_str()
            .is_some_and(|r| [LOCK_FILE, TURNSTILE_FILE].contains(&r) || r.starts_with(SEAL_FILE));
        if relative.as_os_str().is_empty() || coordination {
            continue;
        }
        let meta = entry.metadata().map_err(|e| io(e.into()))?;
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_changed_repository_raises_the_alarm_and_stays_untrusted() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("org/x/1.0")).unwrap();
        std::fs::write(repo.join("org/x/1.0/x-1.0.jar"), "jar").unwrap();
        let seal = CacheSeal;
        seal.warm_up(&repo).unwrap().seal(&repo).unwrap();
        seal.candidate(&repo).unwrap().verify(&repo, "t/a").unwrap();
        // Same size, different content and time: still noticed through the mtime.
        std::thread::sleep(std::time::Duration::from_millis(20));
        std::fs::write(repo.join("org/x/1.0/x-1.0.jar"), "JAR").unwrap();
        let err = seal
            .candidate(&repo)
            .unwrap()
            .verify(&repo, "t/b")
            .unwrap_err();
        assert!(err.to_string().contains("after t/b"), "{err}");
        assert!(matches!(
            CacheSeal::check_trusted(&repo),
            Err(CacheAlarm::Marked(_))
        ));
    }

    /// A warm-up may be skipped only on a repository that is as its seal says: not on one never
    /// sealed, nor on a copy made with its seal file (the copy's times differ), nor after a change.
    #[test]
    fn only_a_repository_matching_its_seal_is_current() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("org/x/1.0")).unwrap();
        std::fs::write(repo.join("org/x/1.0/x-1.0.jar"), "jar").unwrap();
        assert!(!CacheSeal::is_current(&repo).unwrap());
        CacheSeal.warm_up(&repo).unwrap().seal(&repo).unwrap();
        assert!(CacheSeal::is_current(&repo).unwrap());
        std::thread::sleep(std::time::Duration::from_millis(20));
        let copy = dir.path().join("copy");
        std::fs::create_dir_all(copy.join("org/x/1.0")).unwrap();
        std::fs::write(copy.join("org/x/1.0/x-1.0.jar"), "jar").unwrap();
        std::fs::copy(repo.join(SEAL_FILE), copy.join(SEAL_FILE)).unwrap();
        assert!(!CacheSeal::is_current(&copy).unwrap());
        std::fs::write(repo.join("org/x/1.0/x-1.0.jar"), "JAR").unwrap();
        assert!(!CacheSeal::is_current(&repo).unwrap());
    }

    /// Two processes share one cache: the other one's warm-up re-seals it, so its downloads are
    /// no alarm here, and it waits for the candidate in flight.
    #[test]
    fn a_warm_up_by_another_sharer_is_no_alarm_and_waits_for_running_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(repo.join("org/x/1.0")).unwrap();
        let (here, other) = (CacheSeal, CacheSeal);
        here.warm_up(&repo).unwrap().seal(&repo).unwrap();
        let running = here.candidate(&repo).unwrap();
        let finished = std::sync::atomic::AtomicBool::new(false);
        std::thread::scope(|scope| {
            let warm = scope.spawn(|| {
                let guard = other.warm_up(&repo).unwrap();
                assert!(
                    finished.load(std::sync::atomic::Ordering::SeqCst),
                    "the warm-up waited for the candidate"
                );
                std::fs::write(repo.join("org/x/1.0/new.jar"), "jar").unwrap();
                guard.seal(&repo).unwrap();
            });
            std::thread::sleep(std::time::Duration::from_millis(200));
            running.verify(&repo, "t/a").unwrap();
            finished.store(true, std::sync::atomic::Ordering::SeqCst);
            drop(running);
            warm.join().unwrap();
        });
        here.candidate(&repo).unwrap().verify(&repo, "t/b").unwrap();
        CacheSeal::check_trusted(&repo).unwrap();
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
        avrlab_exec::remove_tree(&root, avrlab_exec::SandboxKind::None).unwrap();
        assert!(!root.exists());
        assert!(Path::new("/etc/passwd").exists());
    }

    #[test]
    fn a_failed_warm_up_is_sealed_too_so_no_candidate_raises_the_alarm() {
        let dir = tempfile::tempdir().unwrap();
        let repo = dir.path().join("repo");
        std::fs::create_dir_all(&repo).unwrap();
        CacheSeal.warm_up(&repo).unwrap().seal(&repo).unwrap();
        let failed: Result<(), &str> = CacheSeal
            .warm_up(&repo)
            .unwrap()
            .run(&repo, || {
                std::fs::write(repo.join("resolved-before-failing.jar"), b"jar").unwrap();
                Err("the build failed")
            })
            .unwrap();
        assert!(failed.is_err());
        assert!(CacheSeal::is_current(&repo).unwrap());
        let guard = CacheSeal.candidate(&repo).unwrap();
        guard.verify(&repo, "a candidate").unwrap();
        assert!(CacheSeal::check_trusted(&repo).is_ok());
    }
}
