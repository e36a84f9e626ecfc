//! Where a file is made before it is renamed into place.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};

/// A name beside `target` that no other thread or process uses: where a file or a folder is made
/// before it is renamed into place, so that no reader sees half of it, and two makers of the same
/// shared file at once (the workers of one run are threads of one process) do not write into, or
/// remove, each other's.
pub fn partial_path(target: &Path) -> PathBuf {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let name = target
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .unwrap_or_default();
    target.with_file_name(format!(".{name}.partial-{}-{n}", std::process::id()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Beside the target, hidden, and never the same twice.
    #[test]
    fn each_partial_path_is_new_and_beside_its_target() {
        let target = Path::new("/cache/javac-release/internal-17.jar");
        let (first, second) = (partial_path(target), partial_path(target));
        assert_ne!(first, second);
        assert_eq!(first.parent(), target.parent());
        assert!(
            first
                .file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with(".internal-17.jar.partial-")
        );
    }
}
