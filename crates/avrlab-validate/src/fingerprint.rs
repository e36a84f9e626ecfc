//! Content fingerprints of task states, the keys of what avrlab keeps across runs (fast-path
//! builds, baselines): the same files with the same bytes give the same key, any change a new one.

use std::path::Path;

use sha2::{Digest, Sha256};

/// A fingerprint of every regular file under `root` (paths and bytes; symbolic links are not
/// followed), after `salt`, which says what the key is for and the layout it names.
pub(crate) fn tree_fingerprint(root: &Path, salt: &[u8]) -> std::io::Result<String> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        if entry.file_type().is_file() {
            files.push(entry.path().to_owned());
        }
    }
    files.sort();
    let mut hasher = Sha256::new();
    hasher.update(salt);
    for file in files {
        let rel = file.strip_prefix(root).unwrap_or(&file);
        hasher.update(rel.to_string_lossy().as_bytes());
        hasher.update([0]);
        let bytes = std::fs::read(&file)?;
        hasher.update((bytes.len() as u64).to_le_bytes());
        hasher.update(&bytes);
    }
    Ok(hex::encode(&hasher.finalize()[..12]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_key_follows_the_content_and_the_salt() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("src")).unwrap();
        std::fs::write(dir.path().join("src/A.java"), "class A {}").unwrap();
        let first = tree_fingerprint(dir.path(), b"x").unwrap();
        assert_eq!(first, tree_fingerprint(dir.path(), b"x").unwrap());
        assert_ne!(first, tree_fingerprint(dir.path(), b"y").unwrap());
        std::fs::write(dir.path().join("src/A.java"), "class A { }").unwrap();
        assert_ne!(first, tree_fingerprint(dir.path(), b"x").unwrap());
    }
}
