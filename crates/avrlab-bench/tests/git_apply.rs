//! `Patch::apply_to_dir` against `git apply` on the same input: diffs that name a file in several
//! sections (one per hunk, as many generators write them), a file created in one section and
//! changed in the next, a file changed and then deleted. Each case runs in two folders made by
//! `git init` with the same files; both tools must leave the same tree, or both refuse.

use std::collections::BTreeMap;
use std::path::Path;

use avrlab_bench::Patch;

/// Runs git in `dir` with no user or system configuration; its output, or its error text.
fn git(dir: &Path, args: &[&str]) -> Result<String, String> {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test compares with the real git"
    )]
    let output = std::process::Command::new("git")
        .args(args)
        .current_dir(dir)
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .env("GIT_AUTHOR_NAME", "t")
        .env("GIT_AUTHOR_EMAIL", "t@t")
        .env("GIT_COMMITTER_NAME", "t")
        .env("GIT_COMMITTER_EMAIL", "t@t")
        .output()
        .unwrap();
    if output.status.success() {
        Ok(String::from_utf8(output.stdout).unwrap())
    } else {
        Err(String::from_utf8_lossy(&output.stderr).into_owned())
    }
}

/// A folder made by `git init` holding `files` (path → text), committed.
fn repository(files: &BTreeMap<String, String>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    git(dir.path(), &["init", "-q"]).unwrap();
    write_tree(dir.path(), files);
    git(dir.path(), &["add", "--all"]).unwrap();
    git(
        dir.path(),
        &["commit", "-q", "--allow-empty", "-m", "state"],
    )
    .unwrap();
    dir
}

fn write_tree(root: &Path, files: &BTreeMap<String, String>) {
    for (path, text) in files {
        let path = root.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

/// Every file under `root` but `.git`, path → text.
fn read_tree(root: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            if path.file_name().is_some_and(|n| n == ".git") {
                continue;
            }
            if path.is_dir() {
                folders.push(path);
            } else {
                let relative = path.strip_prefix(root).unwrap().to_string_lossy();
                files.insert(
                    relative.into_owned(),
                    std::fs::read_to_string(&path).unwrap(),
                );
            }
        }
    }
    files
}

/// The real diff git writes from `before` to `after` (several hunks per file where the changes
/// are apart).
fn git_diff(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> String {
    let dir = repository(before);
    for path in before.keys() {
        std::fs::remove_file(dir.path().join(path)).unwrap();
    }
    write_tree(dir.path(), after);
    git(dir.path(), &["add", "--all"]).unwrap();
    git(dir.path(), &["diff", "--cached", "--no-renames"]).unwrap()
}

/// How a split diff numbers each hunk's old side.
#[derive(Debug, Clone, Copy)]
enum Numbering {
    /// As in the whole diff: lines of the file before any section applied.
    Original,
    /// Where the hunk is once the sections before it applied (its new start), as a generator
    /// that writes one section after another does.
    Running,
}

/// Splits a git diff into one `---`/`+++` section per hunk, dropping git's `diff --git` and
/// `index` lines.
fn split_per_hunk(diff: &str, numbering: Numbering) -> String {
    let mut out = String::new();
    let mut header = String::new();
    for line in diff.lines() {
        if line.starts_with("diff --git") {
            header.clear();
        } else if line.starts_with("--- ") {
            header = format!("{line}\n");
        } else if line.starts_with("+++ ") {
            header.push_str(line);
            header.push('\n');
        } else if let Some(ranges) = line.strip_prefix("@@ -") {
            out.push_str(&header);
            let (old, rest) = ranges.split_once(' ').unwrap();
            let new_start = rest
                .trim_start_matches('+')
                .split([',', ' '])
                .next()
                .unwrap();
            let line = match numbering {
                Numbering::Original => line.to_owned(),
                Numbering::Running => {
                    let old_len = old.split_once(',').map_or("", |(_, len)| len);
                    let old = match old_len {
                        "" => new_start.to_owned(),
                        len => format!("{new_start},{len}"),
                    };
                    format!("@@ -{old} {rest}")
                }
            };
            out.push_str(&line);
            out.push('\n');
        } else if header.ends_with('\n') && !line.starts_with("index ") {
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

/// A tree of files (path → text) as a tool left it, or why the tool refused the diff.
type Applied = Result<BTreeMap<String, String>, String>;

/// Applies `diff` with `git apply` and with avrlab to two copies of `files`: the trees they
/// leave, or their refusals.
fn both(files: &BTreeMap<String, String>, diff: &str) -> (Applied, Applied) {
    let with_git = repository(files);
    std::fs::write(with_git.path().join(".git/input.diff"), diff).unwrap();
    let by_git =
        git(with_git.path(), &["apply", ".git/input.diff"]).map(|_| read_tree(with_git.path()));
    let with_avrlab = repository(files);
    let by_avrlab = Patch::parse(diff)
        .and_then(|patch| patch.apply_to_dir(with_avrlab.path()))
        .map(|()| read_tree(with_avrlab.path()))
        .map_err(|e| e.to_string());
    (by_git, by_avrlab)
}

/// A file of `n` numbered lines.
fn numbered(name: &str, n: usize) -> String {
    (1..=n).map(|i| format!("{name} line {i}\n")).collect()
}

/// Edits a text at seeded places far enough apart for git to write separate hunks: replaces,
/// inserts and deletes lines (a small linear congruential generator keeps the cases fixed).
fn edited(text: &str, seed: u64) -> String {
    let mut state = seed
        .wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407);
    let mut next = |bound: u64| {
        state = state
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (state >> 33) % bound
    };
    let mut out = Vec::new();
    let mut quiet = 0;
    for (i, line) in text.lines().enumerate() {
        if quiet > 0 {
            quiet -= 1;
            out.push(line.to_owned());
            continue;
        }
        match next(12) {
            0 => out.push(format!("{line} changed")),
            1 => {
                out.push(line.to_owned());
                out.push(format!("inserted after {i}"));
                out.push(format!("inserted again after {i}"));
            }
            2 => {}
            _ => {
                out.push(line.to_owned());
                continue;
            }
        }
        quiet = 8;
    }
    out.iter().map(|l| format!("{l}\n")).collect()
}

/// Real multi-hunk diffs of two files, split into one section per hunk, numbered either way:
/// avrlab leaves what `git apply` leaves, and what the whole diff leaves.
#[test]
fn sections_per_hunk_apply_in_order_as_git_apply_does() {
    let mut multi_section = 0;
    for seed in 0..12 {
        let before: BTreeMap<String, String> = [
            ("src/A.java".to_owned(), numbered("A", 90)),
            ("src/b/B.java".to_owned(), numbered("B", 60)),
        ]
        .into();
        let after: BTreeMap<String, String> = before
            .iter()
            .map(|(path, text)| (path.clone(), edited(text, seed * 2 + path.len() as u64)))
            .collect();
        let whole = git_diff(&before, &after);
        for numbering in [Numbering::Original, Numbering::Running] {
            let split = split_per_hunk(&whole, numbering);
            let sections = split.lines().filter(|l| l.starts_with("+++ ")).count();
            let files = whole.lines().filter(|l| l.starts_with("+++ ")).count();
            if sections > files {
                multi_section += 1;
            }
            let (by_git, by_avrlab) = both(&before, &split);
            assert_eq!(
                by_avrlab.as_ref().ok(),
                Some(&after),
                "seed {seed}, {numbering:?}:\n{split}\ngit: {by_git:?}"
            );
            assert_eq!(by_git, by_avrlab, "seed {seed}, {numbering:?}:\n{split}");
        }
    }
    // The cases name files in several sections, which is what they are for.
    assert!(multi_section >= 20, "{multi_section}");
}

/// A file created in one section and changed in the next, or deleted and created again, as `git
/// apply` does; a deletion whose hunk leaves lines, and a change after a deletion, refused by
/// both. A file written by one section and deleted by a later one `git apply` keeps (it removes
/// files before it writes any), which is not what such a diff says: avrlab refuses it.
#[test]
fn sections_that_create_change_and_delete_a_file_as_git_apply_does() {
    let files: BTreeMap<String, String> =
        [("src/Old.java".to_owned(), "one\ntwo\nthree\n".to_owned())].into();
    let created = "--- /dev/null\n+++ b/src/New.java\n@@ -0,0 +1,2 @@\n+alpha\n+beta\n";
    let changed =
        "--- a/src/Old.java\n+++ b/src/Old.java\n@@ -1,3 +1,3 @@\n one\n-two\n+TWO\n three\n";
    let deleted = "--- a/src/Old.java\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-one\n-two\n-three\n";
    // (name, diff, what git apply does, what avrlab does): applies or not.
    let cases = [
        (
            "created, then changed",
            format!(
                "{created}--- a/src/New.java\n+++ b/src/New.java\n@@ -1,2 +1,3 @@\n alpha\n+gamma\n beta\n"
            ),
            true,
            true,
        ),
        (
            "deleted, then created again",
            format!("{deleted}--- /dev/null\n+++ b/src/Old.java\n@@ -0,0 +1 @@\n+reborn\n"),
            true,
            true,
        ),
        (
            "deleted with lines left",
            "--- a/src/Old.java\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-one\n-two\n".to_owned(),
            false,
            false,
        ),
        (
            "changed after it was deleted",
            format!("{deleted}{changed}"),
            false,
            false,
        ),
        (
            "changed, then deleted",
            format!(
                "{changed}--- a/src/Old.java\n+++ /dev/null\n@@ -1,3 +0,0 @@\n-one\n-TWO\n-three\n"
            ),
            true,
            false,
        ),
        (
            "created, then deleted",
            format!("{created}--- a/src/New.java\n+++ /dev/null\n@@ -1,2 +0,0 @@\n-alpha\n-beta\n"),
            true,
            false,
        ),
    ];
    for (name, diff, git_applies, avrlab_applies) in cases {
        let (by_git, by_avrlab) = both(&files, &diff);
        assert_eq!(by_git.is_ok(), git_applies, "{name}: git {by_git:?}");
        assert_eq!(
            by_avrlab.is_ok(),
            avrlab_applies,
            "{name}: avrlab {by_avrlab:?}"
        );
        if git_applies && avrlab_applies {
            assert_eq!(by_git, by_avrlab, "{name}");
        }
        if git_applies && !avrlab_applies {
            // git keeps the file the later section deletes; avrlab says why it refuses.
            let kept = by_git.unwrap();
            assert!(kept.contains_key("src/Old.java") || kept.contains_key("src/New.java"));
            let refusal = by_avrlab.unwrap_err();
            assert!(
                refusal.contains("an earlier section of the diff writes it"),
                "{name}: {refusal}"
            );
        }
    }
}
