//! Git for tasks whose project lives in a repository: reading local mirrors (bare, possibly
//! shallow, possibly read-only) and checking a commit out of them, or cloning when none holds it.
//!
//! A mirror is never written to. A checkout is a new repository whose object store borrows the
//! mirror's objects through `objects/info/alternates`, so a shallow or read-only mirror works (git
//! itself refuses to open a bare repository whose empty `refs/` folder was lost in a copy) and
//! nothing is copied but the work tree.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{ExitKind, ProcessError, RunSpec, run};
use crate::sandbox::{Limits, Mount, SandboxKind, SandboxPolicy};

/// Why a git operation failed.
#[derive(Debug, thiserror::Error)]
pub enum GitError {
    /// git is not installed.
    #[error("git is not installed: apt-get install git")]
    Missing,
    /// A git command failed.
    #[error("`git {args}` failed: {stderr}")]
    Failed { args: String, stderr: String },
    /// No mirror holds the repository and it could not be cloned.
    #[error(
        "repository {repo} (commit {commit}) is not available: no mirror {expected} and cloning failed; run `avrlab mirror fetch` where the network reaches it, or put a bare clone at {expected}"
    )]
    Unavailable {
        repo: String,
        commit: String,
        expected: String,
    },
    /// The repository does not hold the commit.
    #[error(
        "repository {repo} has no commit {commit} (in {source_dir}); fetch it into the mirror (git fetch origin {commit}) or run `avrlab mirror fetch`"
    )]
    UnknownCommit {
        repo: String,
        commit: String,
        source_dir: String,
    },
    /// A commit prefix names more than one commit.
    #[error("commit prefix {commit} of {repo} is ambiguous; give more hex digits")]
    AmbiguousCommit { repo: String, commit: String },
    /// A file operation failed.
    #[error("cannot write {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The process could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
}

/// Runs git in `cwd` and returns its standard output.
fn git_output(cwd: &Path, args: &[&str]) -> Result<String, GitError> {
    let program = crate::sandbox::find_on_path("git").ok_or(GitError::Missing)?;
    let spec = RunSpec {
        program,
        args: args.iter().map(|a| (*a).to_owned()).collect(),
        cwd: cwd.to_owned(),
        env: vec![
            ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
            (
                "HOME".into(),
                std::env::temp_dir().to_string_lossy().into_owned(),
            ),
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
            // Nothing from the user's configuration changes what a checkout contains.
            ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
            ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
        ],
        // git is trusted tooling operating on data; it needs network for a clone.
        sandbox: SandboxKind::None,
        policy: SandboxPolicy::default(),
        limits: Limits {
            wall: Duration::from_secs(1800),
            ..Limits::default()
        },
        stdin: Vec::new(),
    };
    let result = run(&spec)?;
    if result.exit == ExitKind::Code(0) {
        Ok(result.stdout.text())
    } else {
        Err(GitError::Failed {
            args: args.join(" "),
            stderr: result.stderr.text().trim().to_owned(),
        })
    }
}

/// Runs a read-only git command on a local repository and returns its whole standard output.
/// The capped runner above keeps only the start and end of a long output, which would cut a large
/// source file, a long diff or a tree listing in the middle; reading a local repository needs no
/// wall-clock limit either (no network).
#[expect(
    clippy::disallowed_methods,
    reason = "this is avrlab-exec: trusted git reading a local repository, unsandboxed as git_output is"
)]
fn git_read(cwd: &Path, args: &[&str]) -> Result<String, GitError> {
    let program = crate::sandbox::find_on_path("git").ok_or(GitError::Missing)?;
    let output = std::process::Command::new(&program)
        .args(args)
        .current_dir(cwd)
        .env_clear()
        .env("PATH", "/usr/local/bin:/usr/bin:/bin")
        .env("HOME", std::env::temp_dir())
        .env("GIT_TERMINAL_PROMPT", "0")
        .env("GIT_CONFIG_NOSYSTEM", "1")
        .env("GIT_CONFIG_GLOBAL", "/dev/null")
        .stdin(std::process::Stdio::null())
        .output()
        .map_err(|source| {
            GitError::Process(ProcessError::Spawn {
                program: program.display().to_string(),
                source,
            })
        })?;
    if output.status.success() {
        Ok(String::from_utf8_lossy(&output.stdout).into_owned())
    } else {
        Err(GitError::Failed {
            args: args.join(" "),
            stderr: String::from_utf8_lossy(&output.stderr).trim().to_owned(),
        })
    }
}

fn git(cwd: &Path, args: &[&str]) -> Result<(), GitError> {
    git_output(cwd, args).map(|_| ())
}

/// `owner/repo` of a repository URL (`https://github.com/owner/repo[.git][/]`).
pub fn repo_slug(url: &str) -> Option<(String, String)> {
    let trimmed = url.trim_end_matches('/').trim_end_matches(".git");
    let mut parts = trimmed.rsplit('/');
    let repo = parts.next().filter(|r| !r.is_empty())?;
    let owner = parts.next().filter(|o| !o.is_empty())?;
    Some((owner.to_owned(), repo.to_owned()))
}

/// The mirror folder a repository is expected at: `<mirrors>/owner+repo.git`.
pub fn mirror_path(url: &str, mirrors: &Path) -> PathBuf {
    match repo_slug(url) {
        Some((owner, repo)) => mirrors.join(format!("{owner}+{repo}.git")),
        None => mirrors.join(url),
    }
}

/// The mirror of `url` in `mirrors`: `owner+repo.git` or `owner/repo.git`.
pub fn find_mirror(url: &str, mirrors: &Path) -> Option<PathBuf> {
    let (owner, repo) = repo_slug(url)?;
    [
        mirrors.join(format!("{owner}+{repo}.git")),
        mirrors.join(owner).join(format!("{repo}.git")),
    ]
    .into_iter()
    .find(|p| p.join("objects").is_dir())
}

/// A repository opened for reading: a git folder whose objects may live in a mirror.
#[derive(Debug, Clone)]
pub struct Repository {
    /// The work tree (or scratch folder) git runs in.
    root: PathBuf,
    /// The repository's name for messages: its URL.
    url: String,
    /// Where its objects come from, for messages.
    source: String,
}

/// Makes `dest` (new) a repository that reads the objects of the bare mirror `mirror`.
fn borrow_mirror(mirror: &Path, dest: &Path) -> Result<(), GitError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| GitError::Io { path, source }
    };
    std::fs::create_dir_all(dest).map_err(io(dest))?;
    git(dest, &["init", "--quiet"])?;
    let git_dir = dest.join(".git");
    let objects = mirror
        .join("objects")
        .canonicalize()
        .map_err(io(&mirror.join("objects")))?;
    let alternates = git_dir.join("objects/info/alternates");
    std::fs::write(&alternates, format!("{}\n", objects.display())).map_err(io(&alternates))?;
    // A shallow mirror lists its boundary commits; without the list git would look for their
    // parents and fail.
    for name in ["shallow", "packed-refs"] {
        let from = mirror.join(name);
        if from.is_file() {
            std::fs::copy(&from, git_dir.join(name)).map_err(io(&from))?;
        }
    }
    Ok(())
}

impl Repository {
    /// Opens `url` for reading from its mirror in `mirrors`, in the new folder `scratch`.
    /// `Ok(None)` when `mirrors` holds no mirror of it.
    pub fn open_mirror(
        url: &str,
        mirrors: &Path,
        scratch: &Path,
    ) -> Result<Option<Self>, GitError> {
        let Some(mirror) = find_mirror(url, mirrors) else {
            return Ok(None);
        };
        borrow_mirror(&mirror, scratch)?;
        Ok(Some(Self {
            root: scratch.to_owned(),
            url: url.to_owned(),
            source: mirror.display().to_string(),
        }))
    }

    /// Opens the git repository in the folder `dir` (bare, or a work tree with its `.git`) for
    /// reading, in the new folder `scratch`; `url` names it in messages and tasks.
    pub fn open_local(url: &str, dir: &Path, scratch: &Path) -> Result<Self, GitError> {
        let git_dir = if dir.join(".git").is_dir() {
            dir.join(".git")
        } else {
            dir.to_owned()
        };
        if !git_dir.join("objects").is_dir() {
            return Err(GitError::Failed {
                args: format!("open {}", dir.display()),
                stderr: "not a git repository (no objects folder)".into(),
            });
        }
        borrow_mirror(&git_dir, scratch)?;
        Ok(Self {
            root: scratch.to_owned(),
            url: url.to_owned(),
            source: dir.display().to_string(),
        })
    }

    /// The full hash of `commit` (a full hash or an abbreviated prefix).
    pub fn resolve(&self, commit: &str) -> Result<String, GitError> {
        let spec = format!("{commit}^{{commit}}");
        match git_read(&self.root, &["rev-parse", "--verify", "--quiet", &spec]) {
            Ok(out) => Ok(out.trim().to_owned()),
            Err(GitError::Failed { stderr, .. }) if stderr.contains("ambiguous") => {
                Err(GitError::AmbiguousCommit {
                    repo: self.url.clone(),
                    commit: commit.to_owned(),
                })
            }
            Err(GitError::Failed { .. }) => Err(GitError::UnknownCommit {
                repo: self.url.clone(),
                commit: commit.to_owned(),
                source_dir: self.source.clone(),
            }),
            Err(other) => Err(other),
        }
    }

    /// The parents of a (resolved) commit.
    pub fn parents(&self, commit: &str) -> Result<Vec<String>, GitError> {
        let out = git_read(&self.root, &["rev-list", "--parents", "-n", "1", commit])?;
        Ok(out.split_whitespace().skip(1).map(str::to_owned).collect())
    }

    /// A (resolved) commit's author and committer dates, as git records them (strict ISO 8601,
    /// in the writer's own time zone).
    pub fn commit_dates(&self, commit: &str) -> Result<(String, String), GitError> {
        let out = git_read(
            &self.root,
            &["show", "--no-patch", "--format=%aI%n%cI", commit],
        )?;
        let mut lines = out.lines().map(str::trim);
        match (lines.next(), lines.next()) {
            (Some(authored), Some(committed)) if !authored.is_empty() && !committed.is_empty() => {
                Ok((authored.to_owned(), committed.to_owned()))
            }
            _ => Err(GitError::Failed {
                args: format!("show --no-patch {commit}"),
                stderr: format!("no author and committer dates in `{}`", out.trim()),
            }),
        }
    }

    /// The files that differ between two commits.
    pub fn changed_files(&self, from: &str, to: &str) -> Result<Vec<String>, GitError> {
        let out = git_read(&self.root, &["diff", "--name-only", "-z", from, to])?;
        Ok(out
            .split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect())
    }

    /// The unified diff (git style, `a/` and `b/` prefixes) between two commits over `paths`.
    pub fn diff(&self, from: &str, to: &str, paths: &[String]) -> Result<String, GitError> {
        let mut args = vec![
            "diff",
            "--no-color",
            "--no-renames",
            "--no-ext-diff",
            from,
            to,
            "--",
        ];
        args.extend(paths.iter().map(String::as_str));
        git_read(&self.root, &args)
    }

    /// The text of `path` at `commit`.
    pub fn show(&self, commit: &str, path: &str) -> Result<String, GitError> {
        git_read(&self.root, &["show", &format!("{commit}:{path}")])
    }

    /// Every file of the tree of `commit`, relative to the repository root.
    pub fn files(&self, commit: &str) -> Result<Vec<String>, GitError> {
        let out = git_read(&self.root, &["ls-tree", "-r", "-z", "--name-only", commit])?;
        Ok(out
            .split('\0')
            .filter(|s| !s.is_empty())
            .map(str::to_owned)
            .collect())
    }
}

/// Copies the folder `path` of `commit` in the git folder `git_dir` (bare or not) into `dest`
/// (created), as `dest/<path>`, without touching the repository: `git archive` into a tar file,
/// unpacked by `tar` (no owners or modes from the archive).
pub fn export_folder(
    git_dir: &Path,
    commit: &str,
    path: &str,
    dest: &Path,
) -> Result<(), GitError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| GitError::Io { path, source }
    };
    std::fs::create_dir_all(dest).map_err(io(dest))?;
    let archive = dest.join(".export.tar");
    let git_dir = git_dir.canonicalize().map_err(io(git_dir))?;
    git(
        dest,
        &[
            "--git-dir",
            &git_dir.to_string_lossy(),
            "archive",
            "--format=tar",
            "-o",
            &archive.to_string_lossy(),
            commit,
            "--",
            path,
        ],
    )?;
    let tar = crate::sandbox::find_on_path("tar").ok_or(GitError::Missing)?;
    let spec = RunSpec {
        program: tar,
        args: vec![
            "-xf".into(),
            archive.to_string_lossy().into_owned(),
            "--no-same-owner".into(),
            "--no-same-permissions".into(),
        ],
        cwd: dest.to_owned(),
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        sandbox: SandboxKind::None,
        policy: SandboxPolicy::default(),
        limits: Limits::default(),
        stdin: Vec::new(),
    };
    let result = run(&spec)?;
    let _ = std::fs::remove_file(&archive);
    if result.exit.success() {
        Ok(())
    } else {
        Err(GitError::Failed {
            args: format!("archive {commit} -- {path} (unpacking)"),
            stderr: result.stderr.text().trim().to_owned(),
        })
    }
}

/// Checks `url` out at `commit` (a full hash or a prefix) into `dest` (new): from its mirror when
/// `mirrors` holds one, else by cloning. Returns the full commit hash.
pub fn checkout_git_project(
    url: &str,
    commit: &str,
    mirrors: Option<&Path>,
    dest: &Path,
) -> Result<String, GitError> {
    let mirror = mirrors.and_then(|m| find_mirror(url, m));
    let repo = match mirror {
        Some(mirror) => {
            borrow_mirror(&mirror, dest)?;
            Repository {
                root: dest.to_owned(),
                url: url.to_owned(),
                source: mirror.display().to_string(),
            }
        }
        None => {
            let parent = dest.parent().unwrap_or(Path::new("/"));
            // git runs in the parent, which a fresh work folder may not have yet.
            std::fs::create_dir_all(parent).map_err(|source| GitError::Io {
                path: parent.to_owned(),
                source,
            })?;
            let dest_str = dest.to_string_lossy();
            if git(
                parent,
                &["clone", "--quiet", "--no-checkout", url, &dest_str],
            )
            .is_err()
            {
                let _ = std::fs::remove_dir_all(dest);
                return Err(GitError::Unavailable {
                    repo: url.to_owned(),
                    commit: commit.to_owned(),
                    expected: mirrors.map_or_else(
                        || "(no --mirrors or $AVRLAB_MIRRORS given)".to_owned(),
                        |m| mirror_path(url, m).display().to_string(),
                    ),
                });
            }
            Repository {
                root: dest.to_owned(),
                url: url.to_owned(),
                source: url.to_owned(),
            }
        }
    };
    let full = repo.resolve(commit)?;
    git(dest, &["checkout", "--quiet", "--detach", &full])?;
    Ok(full)
}

/// Makes `dir`, a fresh copy of a task state without `.git`, a git repository of exactly one
/// commit holding that state: the workspace an agent gets. A new repository has no object or ref
/// but those of that commit (and its reflog is removed), so nothing of the task's history (the fix above all)
/// can be found in it. Author, committer and date are fixed, so one state always gets the same
/// commit id. git runs in `sandbox`, with nothing of the user's git configuration.
pub fn init_state_repository(dir: &Path, sandbox: SandboxKind) -> Result<(), GitError> {
    if crate::sandbox::find_on_path("git").is_none() {
        return Err(GitError::Missing);
    }
    let script = "set -e\n\
        git init --quiet --template= --initial-branch=task .\n\
        git add --all --force .\n\
        git commit --quiet --no-verify --no-gpg-sign --allow-empty --message 'Task state'\n\
        rm -rf .git/logs\n";
    let mut env: Vec<(String, String)> = vec![
        ("PATH".into(), "/usr/local/bin:/usr/bin:/bin".into()),
        ("HOME".into(), "/tmp".into()),
        ("GIT_TERMINAL_PROMPT".into(), "0".into()),
        ("GIT_CONFIG_NOSYSTEM".into(), "1".into()),
        ("GIT_CONFIG_GLOBAL".into(), "/dev/null".into()),
    ];
    for role in ["AUTHOR", "COMMITTER"] {
        env.push((format!("GIT_{role}_NAME"), "avrlab".into()));
        env.push((format!("GIT_{role}_EMAIL"), "avrlab@localhost".into()));
        env.push((format!("GIT_{role}_DATE"), "2000-01-01T00:00:00Z".into()));
    }
    let spec = RunSpec {
        program: "/bin/sh".into(),
        args: vec!["-c".into(), script.into()],
        cwd: dir.to_owned(),
        env,
        sandbox,
        policy: SandboxPolicy {
            mounts: vec![Mount::ReadWrite(dir.to_owned())],
            network: false,
        },
        limits: Limits {
            wall: Duration::from_secs(600),
            ..Limits::default()
        },
        stdin: Vec::new(),
    };
    let result = run(&spec)?;
    if result.exit == ExitKind::Code(0) {
        Ok(())
    } else {
        Err(GitError::Failed {
            args: "init, add and commit of the task state".into(),
            stderr: result.stderr.text().trim().to_owned(),
        })
    }
}

/// Clones `url` as a bare mirror into `<mirrors>/owner+repo.git` (which must not exist).
pub fn fetch_mirror(url: &str, mirrors: &Path) -> Result<PathBuf, GitError> {
    let dest = mirror_path(url, mirrors);
    std::fs::create_dir_all(mirrors).map_err(|source| GitError::Io {
        path: mirrors.to_owned(),
        source,
    })?;
    let dest_str = dest.to_string_lossy().into_owned();
    git(mirrors, &["clone", "--quiet", "--bare", url, &dest_str])?;
    Ok(dest)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_mirrors_in_both_layouts() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("apache+commons-text.git/objects")).unwrap();
        std::fs::create_dir_all(dir.path().join("spring/framework.git/objects")).unwrap();
        assert!(find_mirror("https://github.com/apache/commons-text", dir.path()).is_some());
        assert!(find_mirror("https://github.com/spring/framework.git", dir.path()).is_some());
        assert!(find_mirror("https://github.com/other/thing", dir.path()).is_none());
        assert_eq!(
            mirror_path("https://github.com/other/thing/", dir.path()),
            dir.path().join("other+thing.git")
        );
    }

    /// A file, a diff and a tree listing far longer than the runner's output cap are read
    /// whole (a 300 KiB source file was cut in the middle before).
    #[test]
    fn large_files_and_listings_are_read_whole() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let g = |args: &[&str]| git_output(&work, args).unwrap();
        g(&["init", "--quiet"]);
        g(&["config", "user.email", "t@example.com"]);
        g(&["config", "user.name", "t"]);
        let big: String = (0..20_000).map(|i| format!("line {i}\n")).collect();
        std::fs::write(work.join("Big.java"), &big).unwrap();
        for i in 0..3000 {
            std::fs::write(work.join(format!("file-with-a-long-name-{i:05}.txt")), "x").unwrap();
        }
        g(&["add", "."]);
        g(&["commit", "--quiet", "-m", "c"]);
        let repo = Repository {
            root: work.clone(),
            url: "local".into(),
            source: work.display().to_string(),
        };
        let head = repo.resolve("HEAD").unwrap();
        assert_eq!(repo.show(&head, "Big.java").unwrap(), big);
        assert_eq!(repo.files(&head).unwrap().len(), 3001);
    }

    /// One folder of a bare repository is copied out, and nothing else of it.
    #[test]
    fn exports_one_folder_of_a_bare_repository() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(work.join("Model_patches/a")).unwrap();
        std::fs::write(work.join("Model_patches/a/x.json"), "{}\n").unwrap();
        std::fs::write(work.join("other.txt"), "no\n").unwrap();
        let g = |cwd: &Path, args: &[&str]| git_output(cwd, args).unwrap();
        g(&work, &["init", "--quiet"]);
        g(&work, &["config", "user.email", "t@example.com"]);
        g(&work, &["config", "user.name", "t"]);
        g(&work, &["add", "."]);
        g(&work, &["commit", "--quiet", "-m", "c"]);
        let bare = dir.path().join("bare.git");
        g(
            dir.path(),
            &["clone", "--quiet", "--bare", "work", "bare.git"],
        );
        let out = dir.path().join("out");
        export_folder(&bare, "HEAD", "Model_patches/a", &out).unwrap();
        assert_eq!(
            std::fs::read_to_string(out.join("Model_patches/a/x.json")).unwrap(),
            "{}\n"
        );
        assert!(!out.join("other.txt").exists());
        assert!(!out.join(".export.tar").exists());
        assert!(export_folder(&bare, "HEAD", "Missing", &dir.path().join("out2")).is_err());
    }

    /// A shallow, read-only bare mirror without a `refs/` folder (as a copy leaves it) still
    /// checks out, and abbreviated commits resolve as prefixes.
    #[test]
    fn checks_out_of_a_shallow_mirror_without_refs() {
        let dir = tempfile::tempdir().unwrap();
        let work = dir.path().join("work");
        std::fs::create_dir_all(&work).unwrap();
        let g = |args: &[&str]| git_output(&work, args).unwrap();
        g(&["init", "--quiet"]);
        g(&["config", "user.email", "t@example.com"]);
        g(&["config", "user.name", "t"]);
        for (n, text) in ["one", "two", "three"].iter().enumerate() {
            std::fs::write(work.join("f.txt"), text).unwrap();
            g(&["add", "f.txt"]);
            g(&["commit", "--quiet", "-m", &format!("c{n}")]);
        }
        let head = g(&["rev-parse", "HEAD"]).trim().to_owned();
        let mirrors = dir.path().join("mirrors");
        std::fs::create_dir_all(&mirrors).unwrap();
        let bare = mirrors.join("o+r.git");
        let url = format!("file://{}", work.display());
        git_output(
            dir.path(),
            &[
                "clone",
                "--quiet",
                "--bare",
                "--depth",
                "2",
                &url,
                &bare.to_string_lossy(),
            ],
        )
        .unwrap();
        std::fs::remove_dir_all(bare.join("refs")).unwrap();

        let dest = dir.path().join("checkout");
        let full =
            checkout_git_project("https://h/o/r", &head[..10], Some(&mirrors), &dest).unwrap();
        assert_eq!(full, head);
        assert_eq!(
            std::fs::read_to_string(dest.join("f.txt")).unwrap(),
            "three"
        );

        let repo = Repository::open_mirror("https://h/o/r", &mirrors, &dir.path().join("s"))
            .unwrap()
            .unwrap();
        let parents = repo.parents(&head).unwrap();
        assert_eq!(parents.len(), 1);
        assert_eq!(repo.changed_files(&parents[0], &head).unwrap(), ["f.txt"]);
        assert_eq!(repo.show(&parents[0], "f.txt").unwrap(), "two");
        let err = repo.resolve("0123456789abcdef").unwrap_err().to_string();
        assert!(err.contains("has no commit 0123456789abcdef"), "{err}");
    }
}
