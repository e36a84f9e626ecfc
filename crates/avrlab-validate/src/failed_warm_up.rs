//! Failed warm-ups, remembered for a while: a check of many real tasks is stopped and resumed
//! often, and the warm-ups that fail (a parent POM served only by a vendor repository, a plug-in
//! that needs a JDK 7 tool) are among its longest steps (CXF's failed after 572 s). The same
//! avrlab build warming the same task state up again within [`REMEMBERED_FOR`] says the same
//! failure at once, with when it was seen and how to try again; any other build of avrlab, any
//! change of the state, or removing the note, makes it try again.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use sha2::{Digest, Sha256};

/// How long a failed warm-up is remembered: long enough for the resumptions of one check, short
/// enough that a failure of the network (a transfer that broke) is tried again the same day.
pub(crate) const REMEMBERED_FOR: Duration = Duration::from_secs(12 * 3600);

/// What was remembered of a failed warm-up.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct FailedWarmUp {
    pub project: PathBuf,
    pub tail: String,
    pub log: Option<PathBuf>,
    /// Seconds since the epoch when it failed.
    pub at: u64,
}

/// Where the note of a task's failed warm-up is kept.
pub(crate) fn note_path(work_root: &Path, task: &str) -> PathBuf {
    work_root.join("warm-up").join(format!("{task}.failed"))
}

/// The key of a warm-up attempt: this avrlab build (its executable's bytes) and the task state's
/// fingerprint.
pub(crate) fn attempt_key(state_fingerprint: &str) -> String {
    static BUILD: OnceLock<String> = OnceLock::new();
    let build = BUILD.get_or_init(|| {
        std::env::current_exe()
            .and_then(std::fs::read)
            .map(|bytes| hex::encode(&Sha256::digest(&bytes)[..12]))
            // An executable that cannot be read is no build to remember failures of.
            .unwrap_or_else(|_| format!("unreadable-{}", std::process::id()))
    });
    format!("{build} {state_fingerprint}")
}

/// The seconds since the epoch now.
pub(crate) fn seconds_now() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_secs())
}

/// The failure remembered under `key` at `path`, unless it is older than [`REMEMBERED_FOR`] at
/// `now` or was another build's or state's.
pub(crate) fn recall(path: &Path, key: &str, now: u64) -> Option<FailedWarmUp> {
    // Written by avrlab outside any sandbox; still, only a plain file is read.
    if !std::fs::symlink_metadata(path).is_ok_and(|m| m.is_file()) {
        return None;
    }
    let text = std::fs::read_to_string(path).ok()?;
    let mut lines = text.splitn(5, '\n');
    let (stored_key, at, project, log) =
        (lines.next()?, lines.next()?, lines.next()?, lines.next()?);
    let at: u64 = at.parse().ok()?;
    if stored_key != key || now.saturating_sub(at) > REMEMBERED_FOR.as_secs() {
        return None;
    }
    Some(FailedWarmUp {
        project: PathBuf::from(project),
        tail: lines.next().unwrap_or_default().to_owned(),
        log: (!log.is_empty()).then(|| PathBuf::from(log)),
        at,
    })
}

/// Remembers a failed warm-up under `key`; a note that cannot be written is only a lost shortcut.
pub(crate) fn remember(path: &Path, key: &str, failure: &FailedWarmUp) {
    let text = format!(
        "{key}\n{}\n{}\n{}\n{}",
        failure.at,
        failure.project.display(),
        failure
            .log
            .as_deref()
            .map(Path::display)
            .map(|d| d.to_string())
            .unwrap_or_default(),
        failure.tail
    );
    let written = path
        .parent()
        .map_or(Ok(()), std::fs::create_dir_all)
        .and_then(|()| std::fs::write(path, text));
    drop(written);
}

/// Forgets a task's failed warm-up (it has warmed up since).
pub(crate) fn forget(path: &Path) {
    drop(std::fs::remove_file(path));
}

/// A failure as it fails now, with the time it was seen.
pub(crate) fn fresh(project: PathBuf, tail: String, log: Option<PathBuf>) -> FailedWarmUp {
    FailedWarmUp {
        project,
        tail,
        log,
        at: seconds_now(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failure_is_recalled_for_the_same_build_and_state_within_its_time_only() {
        let dir = tempfile::tempdir().unwrap();
        let path = note_path(dir.path(), "vul4j-15");
        let failure = FailedWarmUp {
            project: "/w/warm-up/vul4j-15".into(),
            tail: "Failed to execute goal …\nsecond line".into(),
            log: Some("/w/warm-up/vul4j-15.log".into()),
            at: 1_000_000,
        };
        let key = attempt_key("state-a");
        remember(&path, &key, &failure);
        assert_eq!(recall(&path, &key, 1_000_000 + 3600), Some(failure.clone()));
        assert_eq!(recall(&path, &attempt_key("state-b"), 1_000_001), None);
        assert_eq!(recall(&path, "another-build state-a", 1_000_001), None);
        let late = 1_000_000 + REMEMBERED_FOR.as_secs() + 1;
        assert_eq!(recall(&path, &key, late), None);
        forget(&path);
        assert_eq!(recall(&path, &key, 1_000_001), None);
        // A folder (or a link) where the note should be is no note.
        std::fs::create_dir_all(&path).unwrap();
        assert_eq!(recall(&path, &key, 1_000_001), None);
    }
}
