//! Finding installed JDKs and picking one for a task's Java version.

use std::path::{Path, PathBuf};

/// An installed JDK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Jdk {
    /// Its home folder (holds `bin/javac`).
    pub home: PathBuf,
    /// The major version: 8, 11, 17, …
    pub major: u32,
    pub version: String,
}

/// No JDK fits a task.
#[derive(Debug, thiserror::Error)]
pub enum JdkError {
    /// None installed at all.
    #[error(
        "no JDK found (looked at $JAVA_HOME, $AVRLAB_JDKS and /usr/lib/jvm): install one, e.g. apt-get install openjdk-17-jdk-headless"
    )]
    NoneInstalled,
    /// None of the right version.
    #[error(
        "the task needs JDK {wanted} but only {available} installed: install JDK {wanted} or list its home in $AVRLAB_JDKS"
    )]
    NoMatch { wanted: u32, available: String },
}

/// The major version from a JDK's `release` file (`JAVA_VERSION="17.0.15"` or `"1.8.0_392"`).
fn read_release(home: &Path) -> Option<(u32, String)> {
    let text = std::fs::read_to_string(home.join("release")).ok()?;
    let version = text
        .lines()
        .find_map(|l| l.strip_prefix("JAVA_VERSION="))?
        .trim()
        .trim_matches('"')
        .to_owned();
    let mut parts = version.split(['.', '_', '-', '+']);
    let first: u32 = parts.next()?.parse().ok()?;
    let major = if first == 1 {
        parts.next()?.parse().ok()?
    } else {
        first
    };
    Some((major, version))
}

/// Every JDK (with `javac`) found in `$AVRLAB_JDKS`, `$JAVA_HOME` and `/usr/lib/jvm`, without
/// duplicates, newest first.
pub fn installed_jdks() -> Vec<Jdk> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(list) = std::env::var_os("AVRLAB_JDKS") {
        candidates.extend(std::env::split_paths(&list));
    }
    if let Some(home) = std::env::var_os("JAVA_HOME") {
        candidates.push(home.into());
    }
    if let Ok(entries) = std::fs::read_dir("/usr/lib/jvm") {
        let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
        dirs.sort();
        candidates.extend(dirs);
    }
    let mut found = homes_with(candidates, "bin/javac");
    found.sort_by_key(|j| std::cmp::Reverse(j.major));
    found
}

/// The Java homes among `candidates` that have `program` and a `release` file, each once (by its
/// canonical path), in the order given.
fn homes_with(candidates: Vec<PathBuf>, program: &str) -> Vec<Jdk> {
    let mut found: Vec<Jdk> = Vec::new();
    for dir in candidates {
        let Ok(home) = dir.canonicalize() else {
            continue;
        };
        if !home.join(program).is_file() || found.iter().any(|j| j.home == home) {
            continue;
        }
        if let Some((major, version)) = read_release(&home) {
            found.push(Jdk {
                home,
                major,
                version,
            });
        }
    }
    found
}

/// The Java runtime whose home is `home`, if it is one.
pub fn runtime_at(home: &Path) -> Option<Jdk> {
    if !home.join("bin/java").is_file() {
        return None;
    }
    let (major, version) = read_release(home)?;
    Some(Jdk {
        home: home.to_owned(),
        major,
        version,
    })
}

/// Every Java runtime (a home with `bin/java`, with or without a compiler) found in `$AVRLAB_JDKS`,
/// `/usr/lib/jvm` and the folders inside `runtime_dirs` (such as the runtimes that
/// `scripts/install-deps` unpacks), without duplicates, oldest first. Tests of an old project may
/// run on one of them while a newer JDK compiles it.
pub fn installed_runtimes(runtime_dirs: &[PathBuf]) -> Vec<Jdk> {
    let mut candidates: Vec<PathBuf> = Vec::new();
    if let Some(list) = std::env::var_os("AVRLAB_JDKS") {
        candidates.extend(std::env::split_paths(&list));
    }
    for parent in runtime_dirs
        .iter()
        .map(PathBuf::as_path)
        .chain([Path::new("/usr/lib/jvm")])
    {
        if let Ok(entries) = std::fs::read_dir(parent) {
            let mut dirs: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
            dirs.sort();
            candidates.extend(dirs);
        }
    }
    let mut found = homes_with(candidates, "bin/java");
    found.sort_by_key(|j| j.major);
    found
}

/// The JDK for a task that needs Java `wanted`: that major version exactly, since older projects
/// often do not build on newer compilers.
pub fn find_jdk(wanted: u32) -> Result<Jdk, JdkError> {
    let jdks = installed_jdks();
    if jdks.is_empty() {
        return Err(JdkError::NoneInstalled);
    }
    jdks.iter()
        .find(|j| j.major == wanted)
        .cloned()
        .ok_or_else(|| JdkError::NoMatch {
            wanted,
            available: jdks
                .iter()
                .map(|j| format!("JDK {}", j.major))
                .collect::<Vec<_>>()
                .join(", "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_release_files_of_old_and_new_jdks() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("release"),
            "IMPLEMENTOR=\"x\"\nJAVA_VERSION=\"1.8.0_392\"\n",
        )
        .unwrap();
        assert_eq!(read_release(dir.path()), Some((8, "1.8.0_392".into())));
        std::fs::write(dir.path().join("release"), "JAVA_VERSION=\"17.0.15\"\n").unwrap();
        assert_eq!(read_release(dir.path()), Some((17, "17.0.15".into())));
    }

    #[test]
    fn a_missing_version_names_what_is_installed() {
        let err = find_jdk(3).unwrap_err().to_string();
        assert!(
            err.contains("needs JDK 3") || err.contains("no JDK found"),
            "{err}"
        );
    }
}
