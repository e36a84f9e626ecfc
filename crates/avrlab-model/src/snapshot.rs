//! Snapshots of a directory's files, the git-style unified diff between two snapshots, and putting a
//! directory back as a snapshot found it — what the command model needs to turn the edits a coding
//! agent leaves in a workspace into a patch, without shelling out to git.

use std::collections::{BTreeMap, BTreeSet};
use std::io;
use std::path::Path;

use avrlab_core::{UntrustedFileError, read_untrusted_file};
use similar::TextDiff;

/// Lines of context around each hunk, as git uses by default.
const CONTEXT_LINES: usize = 3;

/// One regular file as a snapshot saw it.
#[derive(Debug, Clone, PartialEq, Eq)]
struct FileState {
    content: Vec<u8>,
    executable: bool,
}

/// The regular files and directories under a root, by `/`-separated relative path. Symbolic links
/// are not followed and not recorded; directories whose name is in the ignore list are skipped.
#[derive(Debug, Clone, Default)]
pub(crate) struct Snapshot {
    files: BTreeMap<String, FileState>,
    dirs: BTreeSet<String>,
}

impl Snapshot {
    /// Reads every file under `root`, skipping directories named in `ignore` (such as `.git`).
    pub(crate) fn take(root: &Path, ignore: &[String]) -> io::Result<Self> {
        let mut snapshot = Self::default();
        snapshot.read_dir(root, "", ignore)?;
        Ok(snapshot)
    }

    fn read_dir(&mut self, dir: &Path, prefix: &str, ignore: &[String]) -> io::Result<()> {
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if ignore.contains(&name) {
                    continue;
                }
                self.dirs.insert(relative.clone());
                self.read_dir(&entry.path(), &relative, ignore)?;
            } else if kind.is_file() {
                let content = std::fs::read(entry.path())?;
                let executable = is_executable(&entry.metadata()?);
                self.files.insert(
                    relative,
                    FileState {
                        content,
                        executable,
                    },
                );
            }
        }
        Ok(())
    }

    /// The git-style unified diff that turns `self` into `after` (empty when nothing changed), with
    /// `a/` and `b/` prefixes, `/dev/null` for created and deleted files, and a "Binary files …
    /// differ" line for content that is not UTF-8 text.
    pub(crate) fn diff_to(&self, after: &Snapshot) -> String {
        let paths: BTreeSet<&String> = self.files.keys().chain(after.files.keys()).collect();
        let mut out = String::new();
        for path in paths {
            let old = self.files.get(path);
            let new = after.files.get(path);
            if old.map(|f| &f.content) == new.map(|f| &f.content) {
                continue;
            }
            out.push_str(&format!("diff --git a/{path} b/{path}\n"));
            match (old, new) {
                (None, Some(file)) => out.push_str(&format!("new file mode {}\n", mode(file))),
                (Some(file), None) => out.push_str(&format!("deleted file mode {}\n", mode(file))),
                _ => {}
            }
            let old_text = old.map(|f| text(&f.content));
            let new_text = new.map(|f| text(&f.content));
            let (Some(old_text), Some(new_text)) =
                (old_text.unwrap_or(Some("")), new_text.unwrap_or(Some("")))
            else {
                let old_name = old.map_or("/dev/null".to_owned(), |_| format!("a/{path}"));
                let new_name = new.map_or("/dev/null".to_owned(), |_| format!("b/{path}"));
                out.push_str(&format!("Binary files {old_name} and {new_name} differ\n"));
                continue;
            };
            if old_text.is_empty() && new_text.is_empty() {
                // An empty file created or deleted: git writes the header lines only.
                continue;
            }
            let old_name = old.map_or("/dev/null".to_owned(), |_| format!("a/{path}"));
            let new_name = new.map_or("/dev/null".to_owned(), |_| format!("b/{path}"));
            let diff = TextDiff::from_lines(old_text, new_text);
            out.push_str(
                &diff
                    .unified_diff()
                    .context_radius(CONTEXT_LINES)
                    .header(&old_name, &new_name)
                    .to_string(),
            );
        }
        out
    }

    /// Writes the snapshot's directories and files under `root` (an empty folder), with their
    /// executable bits: the agent's copy of the task state.
    pub(crate) fn write_to(&self, root: &Path) -> io::Result<()> {
        for dir in &self.dirs {
            std::fs::create_dir_all(root.join(dir))?;
        }
        for (path, file) in &self.files {
            let target = root.join(path);
            if let Some(parent) = target.parent() {
                std::fs::create_dir_all(parent)?;
            }
            std::fs::write(&target, &file.content)?;
            set_executable(&target, file.executable)?;
        }
        Ok(())
    }
}

/// How much of a folder written by untrusted code a snapshot reads before giving up.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ReadLimits {
    /// Bytes of file content, all files together.
    pub(crate) bytes: u64,
    /// Files and directories.
    pub(crate) entries: u64,
    /// Directory nesting.
    pub(crate) depth: usize,
}

impl Default for ReadLimits {
    fn default() -> Self {
        Self {
            bytes: 256 << 20,
            entries: 200_000,
            depth: 64,
        }
    }
}

impl Snapshot {
    /// Reads a folder that untrusted code (an agent) wrote, trusting nothing in it: files are
    /// opened without following links and without blocking, only regular files (checked on the
    /// open handle) are read, anything else (links, FIFOs, sockets, devices) is left out, and
    /// past `limits` the read fails rather than exhausting memory.
    pub(crate) fn take_hostile(
        root: &Path,
        ignore: &[String],
        limits: &ReadLimits,
    ) -> io::Result<Self> {
        let mut snapshot = Self::default();
        let mut budget = Budget {
            bytes: limits.bytes,
            entries: limits.entries,
        };
        snapshot.read_hostile_dir(root, "", ignore, limits.depth, &mut budget)?;
        Ok(snapshot)
    }

    fn read_hostile_dir(
        &mut self,
        dir: &Path,
        prefix: &str,
        ignore: &[String],
        depth_left: usize,
        budget: &mut Budget,
    ) -> io::Result<()> {
        if depth_left == 0 {
            return Err(io::Error::other(format!(
                "folders nested deeper than the limit at {prefix}"
            )));
        }
        for entry in std::fs::read_dir(dir)? {
            let entry = entry?;
            budget.entries = budget.entries.checked_sub(1).ok_or_else(|| {
                io::Error::other("more files and folders than the limit".to_owned())
            })?;
            let name = entry.file_name().to_string_lossy().into_owned();
            let relative = if prefix.is_empty() {
                name.clone()
            } else {
                format!("{prefix}/{name}")
            };
            // The entry's own type (lstat): a link to a folder is a link, never followed.
            let kind = entry.file_type()?;
            if kind.is_dir() {
                if ignore.contains(&name) {
                    continue;
                }
                self.dirs.insert(relative.clone());
                self.read_hostile_dir(&entry.path(), &relative, ignore, depth_left - 1, budget)?;
            } else if kind.is_file()
                && let Some(state) = read_regular(&entry.path(), budget)?
            {
                self.files.insert(relative, state);
            }
        }
        Ok(())
    }
}

/// What a hostile read may still take.
struct Budget {
    bytes: u64,
    entries: u64,
}

/// Reads one file that is expected to be regular: `None` if, once opened, it is not (it was
/// swapped for a FIFO or device between the listing and the open).
fn read_regular(path: &Path, budget: &mut Budget) -> io::Result<Option<FileState>> {
    let file = match read_untrusted_file(path, budget.bytes) {
        Ok(file) => file,
        Err(UntrustedFileError::NotRegular(_)) => return Ok(None),
        Err(UntrustedFileError::TooLarge(_)) => {
            return Err(io::Error::other(format!(
                "more file content than the limit (at {})",
                path.display()
            )));
        }
        Err(UntrustedFileError::Io(e)) => return Err(e),
    };
    budget.bytes -= file.bytes.len() as u64;
    Ok(Some(FileState {
        executable: is_executable(&file.metadata),
        content: file.bytes,
    }))
}

/// The content as text, if it is UTF-8 without NUL bytes (git's test for binary is the NUL).
fn text(content: &[u8]) -> Option<&str> {
    if content.contains(&0) {
        return None;
    }
    std::str::from_utf8(content).ok()
}

fn mode(file: &FileState) -> &'static str {
    if file.executable { "100755" } else { "100644" }
}

#[cfg(unix)]
fn is_executable(metadata: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::PermissionsExt;
    metadata.permissions().mode() & 0o111 != 0
}

#[cfg(not(unix))]
fn is_executable(_: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn set_executable(path: &Path, executable: bool) -> io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let mut permissions = std::fs::metadata(path)?.permissions();
    let mode = permissions.mode();
    let wanted = if executable {
        mode | 0o111
    } else {
        mode & !0o111
    };
    if wanted != mode {
        permissions.set_mode(wanted);
        std::fs::set_permissions(path, permissions)?;
    }
    Ok(())
}

#[cfg(not(unix))]
fn set_executable(_: &Path, _: bool) -> io::Result<()> {
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn snapshot(files: &[(&str, &str)]) -> Snapshot {
        let mut snapshot = Snapshot::default();
        for (path, content) in files {
            snapshot.files.insert(
                (*path).to_owned(),
                FileState {
                    content: content.as_bytes().to_vec(),
                    executable: false,
                },
            );
        }
        snapshot
    }

    #[test]
    fn diff_reads_like_git() {
        let before = snapshot(&[
            ("src/A.java", "class A {\n    int x = 1;\n}\n"),
            ("gone.txt", "bye\n"),
            ("same.txt", "same\n"),
        ]);
        let after = snapshot(&[
            ("src/A.java", "class A {\n    int x = 2;\n}\n"),
            ("new.txt", "hello\n"),
            ("same.txt", "same\n"),
        ]);
        let expected = "\
diff --git a/gone.txt b/gone.txt
deleted file mode 100644
--- a/gone.txt
+++ /dev/null
@@ -1 +0,0 @@
-bye
diff --git a/new.txt b/new.txt
new file mode 100644
--- /dev/null
+++ b/new.txt
@@ -0,0 +1 @@
+hello
diff --git a/src/A.java b/src/A.java
--- a/src/A.java
+++ b/src/A.java
@@ -1,3 +1,3 @@
 class A {
-    int x = 1;
+    int x = 2;
 }
";
        assert_eq!(before.diff_to(&after), expected);
        assert_eq!(before.diff_to(&before), "");
    }

    #[test]
    fn binary_and_empty_files_get_header_lines_only() {
        let before = snapshot(&[("blob.bin", "a\0b")]);
        let after = snapshot(&[("blob.bin", "a\0c"), ("empty", "")]);
        assert_eq!(
            before.diff_to(&after),
            "diff --git a/blob.bin b/blob.bin\nBinary files a/blob.bin and b/blob.bin differ\n\
             diff --git a/empty b/empty\nnew file mode 100644\n"
        );
    }
}
