//! How much room the file system of a work folder has left: the evidence that a failure was the
//! machine's full disk rather than the candidate's.

use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

/// The bytes an unprivileged process may still write on the file system holding `path`; `None`
/// where it cannot be asked.
pub fn available_bytes(path: &Path) -> Option<u64> {
    let name = CString::new(path.as_os_str().as_bytes()).ok()?;
    let mut stats = std::mem::MaybeUninit::<libc::statvfs>::uninit();
    // SAFETY: `name` is NUL-terminated and outlives the call; `stats` is written by the call
    // before it is read, and only when it succeeds.
    let stats = unsafe {
        if libc::statvfs(name.as_ptr(), stats.as_mut_ptr()) != 0 {
            return None;
        }
        stats.assume_init()
    };
    Some(stats.f_bavail.saturating_mul(stats.f_frsize))
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_real_folder_has_room_and_a_missing_one_cannot_be_asked() {
        let dir = tempfile::tempdir().unwrap();
        assert!(super::available_bytes(dir.path()).is_some_and(|b| b > 0));
        assert_eq!(super::available_bytes(&dir.path().join("missing")), None);
    }
}
