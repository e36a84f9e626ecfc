//! One interface to the build tools avrlab drives — Maven, Gradle and Ant — so that the oracle,
//! the baseline and the naive benchmark run are written once. Each tool compiles the project
//! offline in the sandbox and runs the selected tests, whose results come from JUnit XML reports
//! (Surefire's, Gradle's `build/test-results`, Ant's `junit` formatter), read through the same
//! hostile-file reader.

use std::path::{Path, PathBuf};

use avrlab_bench::BuildSystem;
use sha2::{Digest, Sha256};

use crate::maven::{BuildError, CompileResult, Maven, TestRun, TestSelection, WarmUp};
use avrlab_exec::ExitKind;
use avrlab_exec::Jdk;
use avrlab_exec::{Mount, SandboxKind, SandboxPolicy};

/// A build tool set up for one task: its JDK, its tested module, and how it compiles and tests.
pub trait BuildTool: Send + Sync + std::fmt::Debug {
    /// Which tool this is.
    fn system(&self) -> BuildSystem;
    /// The JDK the task builds with.
    fn jdk(&self) -> &Jdk;
    /// Why the JDK is not the one the task asks for, when it is not (every compile log says it).
    fn substitution(&self) -> Option<&str>;
    /// The Java version whose API javac compiles against, when not the JDK's own.
    fn release(&self) -> Option<u32>;
    /// The older Java runtime the tests run on, when the task needs one.
    fn test_runtime(&self) -> Option<&Jdk>;
    /// Whether something every JVM of the task takes besides the project's dependencies (JDK 8's
    /// removed APIs under a substitution) is missing: a warm-up of an earlier avrlab may not
    /// have made all of it.
    fn platform_missing(&self) -> bool;
    /// Makes what [`Self::platform_missing`] finds missing, with network, working in `scratch`;
    /// only while the repository is writable.
    fn complete_platform(&self, scratch: &Path) -> Result<(), BuildError>;
    /// What an earlier warm-up of a project with these build files left, if there was one.
    fn warmed(&self, project: &Path) -> Result<Option<WarmUp>, BuildError>;
    /// Resolves what the project needs into the shared repository (with network), on a copy of
    /// the unmodified task state, and its test classpath.
    fn warm_up(&self, project_copy: &Path) -> Result<WarmUp, BuildError>;
    /// Compiles main and test sources, offline, in the sandbox, the workspace writable.
    fn compile(&self, workspace: &Path) -> Result<CompileResult, BuildError>;
    /// Runs the selected tests, offline, in the sandbox. `reports` must be a fresh, empty folder
    /// outside the workspace. Every case returned is one the selection asked for.
    fn test(
        &self,
        workspace: &Path,
        selection: &TestSelection,
        reports: &Path,
    ) -> Result<TestRun, BuildError>;
    /// The naive way, for benchmarks: compile and run the whole suite in one command; only its
    /// exit status speaks.
    fn plain_test(&self, workspace: &Path) -> Result<ExitKind, BuildError>;
}

impl BuildTool for Maven {
    fn system(&self) -> BuildSystem {
        BuildSystem::Maven
    }
    fn jdk(&self) -> &Jdk {
        Maven::jdk(self)
    }
    fn substitution(&self) -> Option<&str> {
        Maven::substitution(self)
    }
    fn release(&self) -> Option<u32> {
        Maven::release(self)
    }
    fn test_runtime(&self) -> Option<&Jdk> {
        Maven::test_runtime(self)
    }
    fn platform_missing(&self) -> bool {
        Maven::platform_missing(self)
    }
    fn complete_platform(&self, scratch: &Path) -> Result<(), BuildError> {
        Maven::complete_platform(self, scratch)
    }
    fn warmed(&self, project: &Path) -> Result<Option<WarmUp>, BuildError> {
        Maven::warmed(self, project)
    }
    fn warm_up(&self, project_copy: &Path) -> Result<WarmUp, BuildError> {
        Maven::warm_up(self, project_copy)
    }
    fn compile(&self, workspace: &Path) -> Result<CompileResult, BuildError> {
        Maven::compile(self, workspace)
    }
    fn test(
        &self,
        workspace: &Path,
        selection: &TestSelection,
        reports: &Path,
    ) -> Result<TestRun, BuildError> {
        Maven::test(self, workspace, selection, reports)
    }
    fn plain_test(&self, workspace: &Path) -> Result<ExitKind, BuildError> {
        Maven::plain_test(self, workspace)
    }
}

/// Finds a build tool's launcher: `$<env>` when set (it must exist), else `name` on the PATH,
/// else the one clear refusal `missing` says.
pub(crate) fn locate_tool(env: &str, name: &str, missing: &str) -> Result<PathBuf, BuildError> {
    match std::env::var_os(env) {
        Some(path) => {
            let path = PathBuf::from(path);
            if path.is_file() {
                Ok(path)
            } else {
                Err(BuildError::ToolMissing(format!(
                    "${env} names {}, which is not a file: {missing}",
                    path.display()
                )))
            }
        }
        None => avrlab_exec::find_on_path(name)
            .ok_or_else(|| BuildError::ToolMissing(missing.to_owned())),
    }
}

/// What a Gradle or Ant task's phase logs say of its JDK when it is a substitute: the build
/// files' own source and target levels apply (avrlab raises none for these tools).
pub(crate) fn substitution_note(maven: &Maven, asked: u32) -> Option<String> {
    maven.substitution()?;
    let jdk = maven.jdk();
    let access = if maven.java_launcher_env().is_empty() {
        ""
    } else {
        "; every JVM of the task gets the JDK's packages opened to the class path, as JDK 8 left them (JDK_JAVA_OPTIONS)"
    };
    Some(format!(
        "JDK {asked} is not installed: JDK {} ({}) substitutes, at the source and target levels the build files name{access}",
        jdk.major, jdk.version
    ))
}

/// javac's error lines in a Gradle or Ant log (`/ws/src/…/A.java:12: error: …`, Ant's with a
/// `[javac]` prefix), relative to the workspace.
pub(crate) fn javac_diagnostics(log: &str, workspace: &Path) -> Vec<String> {
    let prefix = format!("{}/", workspace.display());
    log.lines()
        .map(|l| l.trim_start().trim_start_matches("[javac]").trim())
        .filter(|l| l.contains(".java:") && l.contains(": error:"))
        .map(|l| l.replace(&prefix, ""))
        .collect()
}

/// The environment of a Gradle or Ant command in the sandbox: the task's JDK first on the PATH,
/// a private home, and the JVM containment flags for every JVM it starts.
pub(crate) fn tool_env(maven: &Maven, home: &str, tool_options: String) -> Vec<(String, String)> {
    let jdk = &maven.jdk().home;
    vec![
        (
            "PATH".into(),
            format!("{}/bin:/usr/local/bin:/usr/bin:/bin", jdk.display()),
        ),
        ("JAVA_HOME".into(), jdk.to_string_lossy().into_owned()),
        ("HOME".into(), home.to_owned()),
        ("LANG".into(), "C.UTF-8".into()),
        ("JAVA_TOOL_OPTIONS".into(), tool_options),
    ]
    .into_iter()
    .chain(maven.java_launcher_env())
    .collect()
}

/// A warm-up marker's name: the tool, its JDK and the content of the build files `files` (paths
/// relative to the project) found in `project`.
pub(crate) fn build_fingerprint(
    system: BuildSystem,
    jdk: u32,
    project: &Path,
    files: &[PathBuf],
) -> String {
    let mut hasher = Sha256::new();
    hasher.update(system.as_str().as_bytes());
    hasher.update(jdk.to_le_bytes());
    let mut files = files.to_vec();
    files.sort();
    for file in files {
        hasher.update(file.to_string_lossy().as_bytes());
        hasher.update(std::fs::read(project.join(&file)).unwrap_or_default());
    }
    hex::encode(&hasher.finalize()[..12])
}

/// The files under `project` (relative paths, no link followed, build output skipped) whose name
/// `keep` accepts.
pub(crate) fn build_files(project: &Path, keep: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    walkdir::WalkDir::new(project)
        .follow_links(false)
        .into_iter()
        .filter_entry(|e| {
            !matches!(
                e.file_name().to_str(),
                Some("build" | ".gradle" | "target" | ".git")
            ) || e.depth() == 0
        })
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.file_name().to_str().is_some_and(&keep))
        .filter_map(|e| e.path().strip_prefix(project).ok().map(Path::to_owned))
        .collect()
}

/// The warm-up marker of `fingerprint` in the shared repository, and the classpath it records.
pub(crate) fn read_marker(maven: &Maven, fingerprint: &str) -> Result<Option<WarmUp>, BuildError> {
    let marker = marker_path(maven, fingerprint);
    if !marker.is_file() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&marker).map_err(|source| BuildError::Io {
        path: marker.clone(),
        source,
    })?;
    Ok(Some(WarmUp {
        ran: false,
        classpath: classpath_lines(&text),
    }))
}

/// Writes the warm-up marker of `fingerprint` with the test classpath (host paths).
pub(crate) fn write_marker(
    maven: &Maven,
    fingerprint: &str,
    classpath: &[PathBuf],
) -> Result<(), BuildError> {
    let marker = marker_path(maven, fingerprint);
    let io = |source| BuildError::Io {
        path: marker.clone(),
        source,
    };
    if let Some(dir) = marker.parent() {
        std::fs::create_dir_all(dir).map_err(io)?;
    }
    let text: Vec<String> = classpath.iter().map(|p| p.display().to_string()).collect();
    std::fs::write(&marker, text.join("\n")).map_err(io)
}

fn marker_path(maven: &Maven, fingerprint: &str) -> PathBuf {
    maven
        .settings()
        .repository
        .join(".avrlab-warm")
        .join(fingerprint)
}

fn classpath_lines(text: &str) -> Vec<PathBuf> {
    text.lines()
        .map(str::trim)
        .filter(|l| !l.is_empty())
        .map(PathBuf::from)
        .collect()
}

/// A file the host writes for a sandboxed command (an init script), in a folder of its own that
/// is mounted read-only at `view` when sandboxed. Returns the mount and the path the command uses.
pub(crate) fn host_file(
    maven: &Maven,
    dir: &Path,
    name: &str,
    text: &str,
    view: &str,
) -> Result<(Option<Mount>, PathBuf), BuildError> {
    let io = |source| BuildError::Io {
        path: dir.to_owned(),
        source,
    };
    std::fs::create_dir_all(dir).map_err(io)?;
    let path = dir.join(name);
    let _ = std::fs::remove_file(&path);
    std::fs::write(&path, text).map_err(io)?;
    Ok(match maven.settings().sandbox {
        SandboxKind::Bubblewrap => (
            Some(Mount::ReadOnlyAt {
                source: dir.to_owned(),
                target: view.into(),
            }),
            Path::new(view).join(name),
        ),
        SandboxKind::None => (None, path),
    })
}

/// A policy with these mounts, the repository and the toolchain.
pub(crate) fn policy(
    maven: &Maven,
    writable_repository: bool,
    mounts: Vec<Mount>,
    network: bool,
) -> SandboxPolicy {
    let mut all = vec![maven.repository_mount(writable_repository)];
    all.extend(mounts);
    maven.with_toolchain(SandboxPolicy {
        mounts: all,
        network,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surefire::TestCaseResult;
    use avrlab_bench::TestName;

    fn case(class: &str, method: &str) -> TestCaseResult {
        TestCaseResult {
            class: class.into(),
            method: method.into(),
            status: crate::surefire::TestStatus::Passed,
            seconds: 0.0,
            message: String::new(),
        }
    }

    #[test]
    fn only_the_selected_cases_count_and_the_others_are_counted() {
        let cases = vec![case("a.T", "one"), case("a.T", "two"), case("a.U", "three")];
        let pov: TestName = TestName::parse("a.T#one").unwrap();
        let (kept, others) = TestSelection::Only(vec![pov.clone()]).keep_selected(cases.clone());
        assert_eq!((kept.len(), others), (1, 2));
        let (kept, others) = TestSelection::AllExcept(vec![pov, TestName::parse("a.U").unwrap()])
            .keep_selected(cases);
        assert_eq!(
            kept.iter().map(|c| c.method.as_str()).collect::<Vec<_>>(),
            ["two"]
        );
        assert_eq!(others, 2);
    }

    #[test]
    fn javac_errors_are_read_from_gradle_and_ant_logs() {
        let log = "> Task :compileJava\n/ws/p/src/main/java/A.java:3: error: ';' expected\n    [javac] /ws/p/src/B.java:9: error: cannot find symbol\nwarning: x\n";
        assert_eq!(
            javac_diagnostics(log, Path::new("/ws/p")),
            [
                "src/main/java/A.java:3: error: ';' expected",
                "src/B.java:9: error: cannot find symbol"
            ]
        );
    }
}
