//! The Maven driver: a one-time dependency warm-up with network, then offline, sandboxed compiles
//! and test runs whose results come from Surefire's XML reports.
//!
//! During a test run the project folder is mounted read-only: compiled classes, test sources and
//! build files cannot be changed by the code under test. Only a fresh reports folder (outside the
//! workspace, bound into it), Surefire's scratch folder and a fresh in-memory `target/` (around
//! the read-only build output) are writable.
//!
//! Inside the sandbox the dependency repository is mounted at [`SANDBOX_REPOSITORY`], so that the
//! user's home folder, where it usually lives, is not part of the sandbox's file system at all.
//! The test JVM that Surefire forks runs in a sandbox of its own beside Maven's (see `fork_relay`),
//! so test code cannot see Maven's process, `/tmp` or report folder. Every JVM runs with the attach
//! mechanism off and no shared performance-data file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_bench::{BuildSpec, TestName};
use sha2::{Digest, Sha256};

use crate::fork_relay::{ForkRelay, JvmTemplate, LAUNCHER_VIEW, RELAY_VIEW};
use crate::older_api::JAVAC_VIEW;
use crate::reactor::{Reactor, reactor_for, walk_poms};
use crate::surefire::{TestCaseResult, read_reports};
use avrlab_exec::{ExitKind, ProcessError, ProcessResult, RunSpec, run, run_with_activity};
use avrlab_exec::{Jdk, JdkError, find_jdk, installed_jdks};
use avrlab_exec::{Limits, Mount, SandboxKind, SandboxPolicy, find_on_path};

/// Where the dependency repository appears inside the sandbox.
const SANDBOX_REPOSITORY: &str = "/avrlab/maven-repository";

/// Flags for every JVM in the sandbox. `JAVA_TOOL_OPTIONS` carries them into the JVM that
/// Surefire forks without touching the project's own `argLine`, and a JVM reads them before any
/// test code runs, so the code under test cannot turn them off for its own JVM either.
pub(crate) const JVM_CONTAINMENT_FLAGS: &str = "-XX:+DisableAttachMechanism -XX:-UsePerfData";

/// The temporary folder of every sandboxed test JVM: a fresh in-memory folder of its own, outside
/// `/tmp`. Upstream test suites ran on machines whose `java.io.tmpdir` is rarely `/tmp` itself, and
/// some PoV tests depend on it: zt-zip's (VUL4J-79) unpacks an archive whose entry climbs to
/// `/tmp/evil.txt` into the temporary folder, which only counts as an escape when that folder is not
/// `/tmp`. It is set through `JAVA_TOOL_OPTIONS`, which the JVM reads before its command line, so a
/// project's own `-Djava.io.tmpdir` in its `argLine` still wins.
pub const TEST_TMPDIR: &str = "/avrlab/tmp";

/// The adaptations the build tools make on their command lines or in init scripts, which leave
/// the task state's files as they were (Ant's Java levels raised with `-D`, Gradle's in its init
/// script, Gradle's build-script plug-ins looked for on Maven Central first). Part of a
/// baseline's key: a baseline taken without them is not the current build's.
pub const COMMAND_LINE_ADAPTATIONS: &str = "ant-levels-1 gradle-levels-1 gradle-central-1";

/// What every sandboxed test phase's enforcement record says about the tests' temporary folder.
pub(crate) const TEST_TMPDIR_NOTE: &str = "tests' java.io.tmpdir: /avrlab/tmp, fresh and outside /tmp (a project's own -Djava.io.tmpdir wins)";

/// `JAVA_TOOL_OPTIONS` of a sandboxed test JVM: the containment flags and its temporary folder.
pub(crate) fn test_jvm_tool_options() -> String {
    format!("{JVM_CONTAINMENT_FLAGS} -Djava.io.tmpdir={TEST_TMPDIR}")
}

/// The Surefire that runs every test phase, whatever version the project's pom names. Test
/// selection needs at least 2.19 (`!` exclusions, `Class#method` filters) and 2.22 for JUnit 5;
/// versions older than 2.20 do not run on JDK 17. The pom's Surefire configuration still applies,
/// since Maven keys plug-in configuration by plug-in, not by version.
pub const SUREFIRE_GOAL: &str = "org.apache.maven.plugins:maven-surefire-plugin:3.2.5:test";

/// How every build-tool command of a run is made (Maven, Gradle or Ant: the launcher, the shared
/// dependency repository, the sandbox and the limits).
#[derive(Debug, Clone)]
pub struct BuildSettings {
    /// The `mvn` launcher.
    pub mvn: PathBuf,
    /// The local repository shared by all workers; read-only inside the sandbox.
    pub repository: PathBuf,
    pub sandbox: SandboxKind,
    /// Limits of one compile or one test run.
    pub limits: Limits,
}

/// Why the build tool (Maven, Gradle, Ant) could not be driven (infrastructure, never a verdict).
#[derive(Debug, thiserror::Error)]
pub enum BuildError {
    /// `mvn` is not installed.
    #[error(
        "Maven (mvn) is not installed: install the package `maven` (apt-get install maven) or set $AVRLAB_MVN"
    )]
    Missing,
    /// A Gradle or Ant launcher is not to be found (the whole refusal, with what to do).
    #[error("{0}")]
    ToolMissing(String),
    /// No fitting JDK.
    #[error(transparent)]
    Jdk(#[from] JdkError),
    /// A process could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// The argument file that opens an old project's JDK packages could not be made.
    #[error(transparent)]
    Access(#[from] crate::access::AccessError),
    /// Resolving the project's dependencies failed.
    #[error(
        "the warm-up build of {project} (test-compile and the tests, with network, to fill the dependency cache) failed: {tail}{}",
        log.as_ref().map_or_else(String::new, |log| format!(" (whole output: {})", log.display()))
    )]
    WarmUp {
        project: PathBuf,
        tail: String,
        /// Where its whole output was kept, beside the project copy (which is removed).
        log: Option<PathBuf>,
    },
    /// The warm-up build sat idle until it was killed: a test waiting on something that never
    /// comes, most likely.
    #[error("the warm-up build of {project} {hang}")]
    WarmUpHung {
        project: PathBuf,
        hang: crate::build_log::Hang,
    },
    /// The test JVM that Surefire asked for could not be started in its own sandbox.
    #[error("cannot start the test JVM in its own sandbox: {0}")]
    TestJvm(String),
    /// A file operation around a run failed.
    #[error("cannot prepare {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl BuildError {
    /// The task's own build is at fault (it does not build here, it needs a JDK or a build tool
    /// this machine lacks), rather than avrlab or the machine: other tasks can go on.
    pub fn is_task_failure(&self) -> bool {
        match self {
            Self::ToolMissing(_) | Self::Jdk(_) | Self::WarmUp { .. } | Self::WarmUpHung { .. } => {
                true
            }
            Self::Missing
            | Self::Process(_)
            | Self::Access(_)
            | Self::TestJvm(_)
            | Self::Io { .. } => false,
        }
    }
}

/// How many hung test classes a warm-up leaves out before it fails as hung.
const MAX_WARM_UP_HUNG_CLASSES: usize = 3;

/// Which tests a run executes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TestSelection {
    /// Exactly these tests or classes (Surefire's `-Dtest`).
    Only(Vec<TestName>),
    /// Every test the project's own Surefire includes select, except these: a name with a method
    /// excludes that method (every invocation of it: Surefire filters by method name, and
    /// `m[3]` is read as `m`), a class name the whole class. This is Surefire's `excludesFile`
    /// (`a/B.class#m` lines, which Surefire 2.19 and later read; [`SUREFIRE_GOAL`] is newer),
    /// not a `-Dtest` of negations: negations replace the pom's includes with "every class
    /// file", which loads non-test classes that test resources carry.
    AllExcept(Vec<TestName>),
}

impl TestSelection {
    /// The cases of a run this selection asked for, and how many others the tool ran (a tool
    /// that cannot select single tests runs more; those are not evidence about the selection).
    pub(crate) fn keep_selected(&self, cases: Vec<TestCaseResult>) -> (Vec<TestCaseResult>, usize) {
        let covered = |list: &[TestName], c: &TestCaseResult| {
            list.iter().any(|t| t.covers(&c.class, &c.method))
        };
        let (kept, dropped): (Vec<_>, Vec<_>) = cases.into_iter().partition(|c| match self {
            Self::Only(list) => covered(list, c),
            Self::AllExcept(list) => !covered(list, c),
        });
        (kept, dropped.len())
    }

    /// The value of Surefire's `-Dtest` (none for [`TestSelection::AllExcept`]).
    fn surefire_filter(&self) -> Option<String> {
        match self {
            Self::Only(tests) => Some(
                tests
                    .iter()
                    .map(TestName::surefire_pattern)
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            Self::AllExcept(_) => None,
        }
    }

    /// The same selection by whole classes, for a test framework that cannot select single
    /// methods: the classes of the selected methods run whole; methods excluded alone run (the
    /// caller counts only the selected cases, see [`TestSelection::keep_selected`]).
    fn by_class(&self) -> Self {
        match self {
            Self::Only(tests) => {
                let mut classes: Vec<TestName> = Vec::new();
                for test in tests {
                    if !classes.iter().any(|c| c.class == test.class) {
                        classes.push(TestName {
                            class: test.class.clone(),
                            method: None,
                        });
                    }
                }
                Self::Only(classes)
            }
            Self::AllExcept(tests) => Self::AllExcept(
                tests
                    .iter()
                    .filter(|t| t.method.is_none())
                    .cloned()
                    .collect(),
            ),
        }
    }

    /// The lines of Surefire's `excludesFile`: the class file pattern of each excluded class, or
    /// of the excluded method's class with `#method`.
    fn excluded_patterns(&self) -> Vec<String> {
        let Self::AllExcept(tests) = self else {
            return Vec::new();
        };
        let mut patterns: Vec<String> = tests
            .iter()
            .flat_map(|t| {
                let class = format!("{}.class", t.class.replace('.', "/"));
                match &t.method {
                    // JUnit 4's `Parameterized` runner names each invocation `m[0]`, `m[1]`, …,
                    // which the plain method name does not match (commons-io's
                    // `DeferredFileOutputStreamTest`, VUL4J-14): the `[*]` line excludes them.
                    Some(m) => {
                        let name = m.split('[').next().unwrap_or(m);
                        vec![format!("{class}#{name}"), format!("{class}#{name}[*]")]
                    }
                    None => vec![class],
                }
            })
            .collect();
        patterns.sort();
        patterns.dedup();
        patterns
    }
}

/// The result of `mvn test-compile`.
#[derive(Debug, Clone)]
pub struct CompileResult {
    pub exit: ExitKind,
    /// `file:[line,col] message` lines from the compiler.
    pub diagnostics: Vec<String>,
    /// What the build tool said went wrong, shortened to a line, when the build failed: the
    /// reason a failure without compiler messages is given (a missing parent pom, a plug-in).
    pub failure: Option<String>,
    pub log: String,
    pub wall: Duration,
    pub enforcement: String,
}

/// The result of one Surefire run.
#[derive(Debug, Clone)]
pub struct TestRun {
    pub exit: ExitKind,
    /// Every test case found in the run's reports.
    pub cases: Vec<TestCaseResult>,
    pub log: String,
    pub wall: Duration,
    pub enforcement: String,
    /// No process of the run was left behind.
    pub tree_gone: bool,
    /// Why the reports the run left cannot be used (a link, a FIFO, too large, too many,
    /// malformed): they were written by code under test, so this is evidence about the candidate,
    /// and the phase is undecided.
    pub unusable_reports: Option<String>,
    /// A test JVM of the run ended at its CPU time limit, as avrlab saw it end (the fork relay's
    /// record, not a line of the log).
    pub cpu_limit_reached: bool,
}

/// What a warm-up leaves: whether Maven ran (or the repository was warm already) and the tested
/// module's test classpath (host paths; dependencies first resolved by that warm-up).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WarmUp {
    pub ran: bool,
    pub classpath: Vec<PathBuf>,
}

/// Maven for one task: its JDK, module and extra flags.
#[derive(Debug, Clone)]
pub struct Maven {
    settings: BuildSettings,
    jdk: Jdk,
    /// Why the JDK is not the one the task asks for, when it is not; shown in every phase log.
    substitution: Option<String>,
    /// Under a substitution for JDK 8 or older: the argument file that opens the JDK's packages
    /// to the class path, for every JVM of the task (see `access`).
    legacy_access: Option<PathBuf>,
    /// Under a substitution of JDK 11 or newer for JDK 8 or older: the jars of the Java EE APIs
    /// JDK 8 had (see `access::REMOVED_PLATFORM_APIS`), on every JVM's boot class path.
    removed_apis: Vec<PathBuf>,
    /// Where the task compiles against its own Java version's API (see `older_api`): the folder
    /// of the `javac` scripts, mounted read-only at [`JAVAC_VIEW`].
    javac_scripts: Option<PathBuf>,
    /// The Java version whose API javac compiles against then (`--release`).
    release: Option<u32>,
    /// The older Java runtime the tests run on, when the task needs one (see `older_api`).
    test_runtime: Option<Jdk>,
    module: PathBuf,
    extra_args: Vec<String>,
}

impl BuildSettings {
    /// Finds `mvn` ($AVRLAB_MVN, else PATH).
    pub fn locate_mvn() -> Result<PathBuf, BuildError> {
        match std::env::var_os("AVRLAB_MVN") {
            Some(path) if Path::new(&path).is_file() => Ok(PathBuf::from(path)),
            Some(_) => Err(BuildError::Missing),
            None => find_on_path("mvn").ok_or(BuildError::Missing),
        }
    }
}

/// Compiler error lines in a Maven log: `[ERROR] /ws/src/…/A.java:[12,5] cannot find symbol`.
/// These are shown to users; the verdict itself rests on the exit status.
pub fn compiler_diagnostics(log: &str, workspace: &Path) -> Vec<String> {
    let prefix = format!("{}/", workspace.display());
    log.lines()
        .filter_map(|l| l.strip_prefix("[ERROR] "))
        .filter(|l| l.contains(".java:["))
        .map(|l| l.replace(&prefix, ""))
        .collect()
}

/// What stands in for a task's JDK that is not installed: the language level the substitute
/// compiles the task at, and the lowest it compiles at all.
struct Substitute {
    /// The level of every module whose build file does not write one: the task's, or the lowest
    /// the substitute compiles if that is higher; as build files spell it (`1.7`, `11`).
    level: String,
    /// The lowest level the substitute compiles (7, or 8 from JDK 20 on). A level a build file
    /// writes is raised only below it: the task's own JDK compiled a written `1.7` at 7, not at
    /// its own 8 (Java 8's rules reject code that 7's accept, such as an interface inheriting two
    /// unrelated default methods: TomEE's `ListSet extends List, Set`).
    lowest: u32,
}

/// A language level as build files spell it: `1.7` below 9, `11` from 9 on.
fn level_spelling(level: u32) -> String {
    if level < 9 {
        format!("1.{level}")
    } else {
        level.to_string()
    }
}

/// The JDK a task builds with, and the substitution when it is not the task's own: the oldest
/// installed JDK newer than the task's (the closer the JDK, the fewer old plug-ins break on it);
/// a JDK older than the task's cannot stand in for it, and then the task is refused.
fn build_jdk(task_jdk: u32) -> Result<(Jdk, Option<Substitute>), BuildError> {
    match find_jdk(task_jdk) {
        Ok(jdk) => Ok((jdk, None)),
        Err(JdkError::NoMatch { .. }) => {
            let jdks = installed_jdks();
            let Some(jdk) = jdks.iter().rev().find(|j| j.major > task_jdk).cloned() else {
                return Err(find_jdk(task_jdk).unwrap_err().into());
            };
            // JDK 20 and later compile no lower than 8.
            let lowest = if jdk.major >= 20 { 8 } else { 7 };
            Ok((
                jdk,
                Some(Substitute {
                    level: level_spelling(task_jdk.max(lowest)),
                    lowest,
                }),
            ))
        }
        Err(e) => Err(e.into()),
    }
}

/// The folders of Java runtimes that avrlab itself keeps: `runtimes` beside the Maven repository
/// and in the cache folder (`$XDG_CACHE_HOME/avrlab`, else `~/.cache/avrlab`), where
/// `scripts/install-deps` unpacks them.
fn runtime_dirs(settings: &BuildSettings) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = settings
        .repository
        .parent()
        .map(|p| p.join("runtimes"))
        .into_iter()
        .collect();
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache")));
    if let Some(cache) = cache {
        let dir = cache.join("avrlab").join("runtimes");
        if !dirs.contains(&dir) {
            dirs.push(dir);
        }
    }
    dirs
}

/// Where a JDK substitutes for the task's, whether `project` (a task state being made) must be
/// compiled against the task's own Java version's API and its tests run on an older runtime, and
/// why (see `older_api`). `None` when the task's JDK is installed or nothing calls for it.
pub fn plan_older_api(
    project: &Path,
    build: &BuildSpec,
    settings: &BuildSettings,
) -> Result<Option<avrlab_bench::OlderApi>, BuildError> {
    let (jdk, Some(substitute)) = build_jdk(build.jdk)? else {
        return Ok(None);
    };
    let runtime_dirs = runtime_dirs(settings);
    let inputs = crate::older_api::PlanInputs {
        task_jdk: build.jdk,
        build_jdk: &jdk,
        floor: substitute.lowest,
        runtime_dirs: &runtime_dirs,
        repository: Some(&settings.repository),
    };
    crate::older_api::plan_older_api(project, &inputs).map_err(|source| BuildError::Io {
        path: project.to_owned(),
        source,
    })
}

/// Adapts the build files of `project` (a task state being made): JUnit 3 gives way to JUnit 4
/// (see `levels`), system properties an older pinned Surefire leaves unset stay unset, other
/// projects' snapshots give way to their releases (see `snapshots`), and where a JDK substitutes for the task's, the language levels that the
/// substitute no longer compiles are raised and compilers it cannot run replaced (the optional
/// repairs are [`apply_optional_repairs`]'s). Returns one
/// note per changed file, for the record.
pub fn adapt_build_files(
    project: &Path,
    task_jdk: u32,
    repository: &Path,
) -> Result<Vec<String>, BuildError> {
    let io = |source| BuildError::Io {
        path: project.to_owned(),
        source,
    };
    // Whatever the JDK: Surefire selects single PoV methods only with JUnit 4 or newer.
    let mut notes = crate::levels::replace_junit3(project).map_err(io)?;
    notes.extend(crate::levels::override_inherited_junit3(project, repository).map_err(io)?);
    // Whatever the JDK: avrlab's Surefire would set what the project's older one leaves unset.
    notes.extend(crate::levels::leave_empty_properties_unset(project).map_err(io)?);
    // Whatever the JDK: other projects' snapshots whose releases a warm-up fetched.
    notes.extend(crate::snapshots::release_snapshots(project, repository).map_err(io)?);
    // Whatever the JDK: jars the project installs itself are installed by the warm-up.
    notes.extend(crate::self_installs::unbind_self_installs(project).map_err(io)?);
    // Whatever the JDK: no plug-in writes a pom beside the project's own.
    notes.extend(crate::levels::skip_pom_writers(project).map_err(io)?);
    if let (jdk, Some(substitute)) = build_jdk(task_jdk)? {
        if jdk.major >= 11 && task_jdk < 11 {
            notes.extend(crate::levels::drop_removed_modules(project).map_err(io)?);
        }
        notes.extend(
            crate::levels::raise_language_levels(
                project,
                substitute.lowest,
                &level_spelling(substitute.lowest),
            )
            .map_err(io)?,
        );
    }
    Ok(notes)
}

/// The environment repairs that are kept only where they make more of the suite count (the
/// caller compares baselines with and without each): library and plug-in substitutions under a
/// substitute JDK, and, whatever the JDK, plug-ins that download from the web at build time
/// left unbound, on JDK 8 or newer plug-ins that start `apt`, and on JDK 15 or newer plug-ins
/// that run `rmic` (gone from those JDKs).
pub const OPTIONAL_REPAIRS: [&str; 7] = [
    "byte-buddy",
    "bundle-plugin",
    "nashorn",
    "lombok",
    "build-downloads",
    "apt",
    "rmic",
];

/// Applies the [`OPTIONAL_REPAIRS`] that fit the project, except those in `skip`, to its poms
/// (after [`adapt_build_files`]). Returns each applied repair's name and its notes, one line.
pub fn apply_optional_repairs(
    project: &Path,
    task_jdk: u32,
    repository: &Path,
    skip: &[String],
) -> Result<Vec<(String, String)>, BuildError> {
    let io = |source| BuildError::Io {
        path: project.to_owned(),
        source,
    };
    let (jdk, substitute) = build_jdk(task_jdk)?;
    let substituted = substitute.is_some();
    let mut applied = Vec::new();
    for name in OPTIONAL_REPAIRS {
        if skip.iter().any(|s| s == name) {
            continue;
        }
        let notes = match name {
            "build-downloads" => crate::levels::skip_build_downloads(project),
            "apt" if jdk.major >= 8 => crate::levels::skip_apt(project),
            "apt" => Ok(Vec::new()),
            "rmic" if jdk.major >= 15 => crate::levels::skip_rmic(project),
            "rmic" => Ok(Vec::new()),
            _ if !substituted => Ok(Vec::new()),
            "byte-buddy" => crate::levels::pin_byte_buddy(project, repository),
            "bundle-plugin" => crate::levels::pin_bundle_plugin(project, repository),
            "lombok" if jdk.major >= 16 => crate::lombok::pin_lombok(project, repository),
            "lombok" => Ok(Vec::new()),
            _ if jdk.major >= 15 => crate::levels::add_nashorn_to_antrun(project, repository),
            _ => Ok(Vec::new()),
        }
        .map_err(io)?;
        if !notes.is_empty() {
            applied.push((name.to_owned(), notes.join("; ")));
        }
    }
    Ok(applied)
}

impl Maven {
    /// Maven for a task's build: finds the JDK it needs.
    ///
    /// The JDK policy: the task's JDK when it is installed; otherwise the oldest installed JDK
    /// newer than it (else the newest), compiling at the task's language level
    /// (`-Dmaven.compiler.source/target`, which the compiler plug-in reads unless the pom fixes
    /// them, and `-Dmaven.compile.source/target`, which Apache Commons' parent pom binds them to;
    /// JDK 17 compiles no lower than 7), an
    /// explicit substitution that [`Maven::substitution`] reports and the phase logs record.
    pub fn for_build(settings: BuildSettings, build: &BuildSpec) -> Result<Self, BuildError> {
        let mut extra_args = build.extra_args.clone();
        let (jdk, substitute) = build_jdk(build.jdk)?;
        let legacy_access = match &substitute {
            Some(_) if build.jdk <= 8 => Some(crate::access::legacy_access_path(
                &jdk,
                &settings.repository,
            )),
            _ => None,
        };
        let removed_apis = match &legacy_access {
            Some(file) if jdk.major >= 11 => crate::access::removed_api_jars(file),
            _ => Vec::new(),
        };
        let lowest = substitute.as_ref().map(|s| s.lowest);
        let substitution = substitute.map(|Substitute { level, lowest }| {
            // The compiler plug-in's own properties, and the ones Apache Commons' parent pom
            // binds its `<source>`/`<target>` to (command-line properties override both).
            for property in [
                "maven.compiler.source",
                "maven.compiler.target",
                "maven.compile.source",
                "maven.compile.target",
            ] {
                extra_args.push(format!("-D{property}={level}"));
            }
            let access = match (&legacy_access, removed_apis.is_empty()) {
                (Some(_), true) => "; every JVM of the task gets the JDK's packages opened to the class path, as JDK 8 left them (JDK_JAVA_OPTIONS)",
                (Some(_), false) => "; every JVM of the task gets the JDK's packages opened to the class path, as JDK 8 left them, and the Java EE APIs JDK 8 carried (JAF, JAXB, JAX-WS, SAAJ, Web Services Metadata, Common Annotations: removed in JDK 11) with JDK 8's JAXB and SAAJ implementations on its boot class path (JDK_JAVA_OPTIONS)",
                (None, _) => "",
            };
            format!(
                "JDK {} is not installed: JDK {} ({}) substitutes, compiling at -source/-target {level} where the build files write no level (those they write are kept, but below {lowest}, the lowest it compiles, raised to {lowest}){access}",
                build.jdk, jdk.major, jdk.version, lowest = level_spelling(lowest)
            )
        });
        let mut javac_scripts = None;
        let mut release = None;
        let mut test_runtime = None;
        let mut substitution = substitution;
        if let (Some(older), Some(text), Some(lowest)) =
            (&build.older_api, substitution.as_mut(), lowest)
        {
            // The compiler plug-in forks this script as its `javac` (both properties exist in
            // every plug-in version, 2.0 on), so `--release` works where the plug-in predates it.
            let dir = settings
                .repository
                .parent()
                .map_or_else(std::env::temp_dir, Path::to_owned)
                .join("javac-release");
            let io = |source| BuildError::Io {
                path: dir.clone(),
                source,
            };
            let seen = |name: &str| match settings.sandbox {
                SandboxKind::Bubblewrap => Path::new(JAVAC_VIEW).join(name),
                SandboxKind::None => dir.join(name),
            };
            // A level the build writes below the release compiles against the release's API.
            let api = crate::older_api::api_jar(&dir, &jdk, older.release).map_err(io)?;
            // Release 8's API lacks the internal classes JDK 8's compiler showed: the signatures
            // of `jdk.unsupported`'s, then the compiling JDK's own.
            let extra_jars: Vec<PathBuf> = match older.release {
                8 => [
                    crate::older_api::unsupported_jar(&dir, &jdk).map_err(io)?,
                    crate::older_api::internal_jar(&dir, &jdk).map_err(io)?,
                ]
                .into_iter()
                .flatten()
                .map(|name| seen(&name))
                .collect(),
                _ => Vec::new(),
            };
            let name = crate::older_api::javac_script(
                &dir,
                &jdk.home.join("bin/javac"),
                older.release,
                lowest,
                api.as_deref().map(seen).as_deref(),
                &extra_jars,
            )
            .map_err(io)?;
            let api_note = match &api {
                Some(api) => format!(
                    " (a level a build file writes from {} up to below {} keeps it, against JDK {}'s API: -bootclasspath {})",
                    level_spelling(lowest),
                    older.release,
                    older.release,
                    seen(api).display()
                ),
                None => String::new(),
            };
            let seen = seen(&name);
            extra_args.push("-Dmaven.compiler.fork=true".to_owned());
            extra_args.push(format!("-Dmaven.compiler.executable={}", seen.display()));
            javac_scripts = Some(dir);
            release = Some(older.release);
            text.push_str(&format!(
                "; instead of -source/-target, javac compiles at --release {} (JDK {}'s API; forked through {}){api_note} because {}",
                older.release,
                older.release,
                seen.display(),
                older.reasons.join("; and ")
            ));
            match &older.test_runtime {
                Some(home) => {
                    let runtime = avrlab_exec::runtime_at(home).ok_or_else(|| BuildError::Io {
                        path: home.clone(),
                        source: std::io::Error::other("no Java runtime there any more"),
                    })?;
                    text.push_str(&format!(
                        "; the tests run on Java {} ({}, {}), which still has that API{}",
                        runtime.major,
                        runtime.version,
                        runtime.home.display(),
                        if runtime.major < 16 {
                            ", with no packages opened: up to JDK 15 code on the class path reaches the JDK's internals as on JDK 8"
                        } else {
                            ""
                        }
                    ));
                    test_runtime = Some(runtime);
                }
                None if older.reasons.iter().any(|r| r.contains("removed")) => {
                    text.push_str(&format!(
                        "; no Java runtime older than JDK {} is installed (scripts/install-deps fetches one; or list one in $AVRLAB_JDKS), so the tests run on JDK {}",
                        jdk.major, jdk.major
                    ));
                }
                None => {}
            }
        }
        Ok(Self {
            settings,
            jdk,
            substitution,
            legacy_access,
            removed_apis,
            javac_scripts,
            release,
            test_runtime,
            module: build.module.clone(),
            extra_args,
        })
    }

    /// What every `java` launcher of the task reads besides its arguments: under a substitution
    /// for JDK 8 or older, the argument file opening the JDK's packages (mounted read-only by
    /// [`Self::with_toolchain`]).
    pub(crate) fn java_launcher_env(&self) -> Vec<(String, String)> {
        self.legacy_access
            .iter()
            .map(|file| {
                let mut options = format!("@{}", file.display());
                if let Some(boot) = self.removed_apis_option() {
                    options.push(' ');
                    options.push_str(&boot);
                }
                ("JDK_JAVA_OPTIONS".to_owned(), options)
            })
            .collect()
    }

    /// The option that appends [`crate::access::REMOVED_PLATFORM_APIS`] (and JDK 8's JAXB
    /// implementation) to a JVM's boot class path, when this task's JVMs take them.
    fn removed_apis_option(&self) -> Option<String> {
        let jars = std::env::join_paths(&self.removed_apis).ok()?;
        (!self.removed_apis.is_empty())
            .then(|| format!("-Xbootclasspath/a:{}", jars.to_string_lossy()))
    }

    /// Fetches into the repository (writable now, during a warm-up) the pom of the release of
    /// each snapshot of another project that the poms of `project` name and the repository does
    /// not hold (see `snapshots`): a networked Maven run per release, in a folder of its own
    /// (no project is read). A release no repository serves is left to the build's own error;
    /// the next writing of the task state replaces the snapshots whose release is held now.
    fn fetch_snapshot_releases(&self, project: &Path) -> Result<(), BuildError> {
        let wanted = crate::snapshots::wanted_releases(project, &self.settings.repository);
        if wanted.is_empty() {
            return Ok(());
        }
        let dir = project.join(".avrlab-snapshot-releases");
        std::fs::create_dir_all(&dir).map_err(|source| BuildError::Io {
            path: dir.clone(),
            source,
        })?;
        for releases in wanted {
            for coordinates in releases {
                if self
                    .fetch_artifact(&dir, &format!("{coordinates}:pom"))?
                    .exit
                    .success()
                {
                    break;
                }
            }
        }
        Ok(())
    }

    /// One networked `dependency:get` of `artifact` (`group:artifact:version[:packaging]`,
    /// without its dependencies) into the repository (writable now, during a warm-up), run in
    /// `dir` (an empty folder: no project is read).
    fn fetch_artifact(&self, dir: &Path, artifact: &str) -> Result<ProcessResult, BuildError> {
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(true),
                Mount::ReadWrite(dir.to_owned()),
            ],
            network: true,
        };
        let args = vec![
            "dependency:get".to_owned(),
            format!("-Dartifact={artifact}"),
            "-Dtransitive=false".to_owned(),
        ];
        let mut spec = self.spec(dir, args, policy, self.settings.limits);
        spec.cwd = dir.to_owned();
        Ok(run(&spec)?)
    }

    /// Fetches the jars of [`crate::access::REMOVED_PLATFORM_APIS`] this task's JVMs take, when
    /// they are not there yet: a networked Maven run in `dir` (made empty: no project is read)
    /// puts them into the repository (writable now, during a warm-up), and they are copied beside
    /// the argument file.
    fn fetch_removed_apis(&self, dir: &Path) -> Result<(), BuildError> {
        if self.removed_apis.iter().all(|jar| jar.is_file()) {
            return Ok(());
        }
        let io = |path: &Path, source| BuildError::Io {
            path: path.to_owned(),
            source,
        };
        std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(true),
                Mount::ReadWrite(dir.to_owned()),
            ],
            network: true,
        };
        for (coordinates, jar) in crate::access::REMOVED_PLATFORM_APIS
            .iter()
            .zip(&self.removed_apis)
            .filter(|(_, jar)| !jar.is_file())
        {
            let (group, artifact, version) = *coordinates;
            let result = self.fetch_artifact(dir, &format!("{group}:{artifact}:{version}"))?;
            let fetched = crate::access::repository_jar(&self.settings.repository, *coordinates);
            if !result.exit.success() || !fetched.is_file() {
                return Err(BuildError::WarmUp {
                    project: dir.to_owned(),
                    tail: format!(
                        "cannot fetch {group}:{artifact}:{version} (JDK 8's API that the substitute JDK lacks): {}",
                        last_error_line(&result)
                    ),
                    log: None,
                });
            }
            let parent = jar.parent().unwrap_or(jar);
            std::fs::create_dir_all(parent).map_err(|e| io(parent, e))?;
            let partial = avrlab_core::partial_path(jar);
            std::fs::copy(&fetched, &partial).map_err(|e| io(&partial, e))?;
            std::fs::rename(&partial, jar).map_err(|e| io(jar, e))?;
        }
        let Some(jar) = self.removed_apis.last().filter(|jar| !jar.is_file()) else {
            return Ok(());
        };
        // JDK 8's implementations are made, once, from the reference implementations.
        let project = dir.join("jdk8-implementations");
        std::fs::create_dir_all(&project).map_err(|e| io(&project, e))?;
        let pom = project.join("pom.xml");
        std::fs::write(&pom, crate::access::implementations_pom()).map_err(|e| io(&pom, e))?;
        let args = vec!["package".to_owned()];
        let mut spec = self.spec(&project, args, policy, self.settings.limits);
        spec.cwd = project.clone();
        let result = run(&spec)?;
        let made = project.join("target/jdk8-implementations.jar");
        if !result.exit.success() || !made.is_file() {
            return Err(BuildError::WarmUp {
                project: dir.to_owned(),
                tail: format!(
                    "cannot make JDK 8's JAXB and SAAJ implementations (maven-shade-plugin): {}",
                    last_error_line(&result)
                ),
                log: None,
            });
        }
        let partial = avrlab_core::partial_path(jar);
        std::fs::copy(&made, &partial).map_err(|e| io(&partial, e))?;
        std::fs::rename(&partial, jar).map_err(|e| io(jar, e))?;
        Ok(())
    }

    /// The JDK this task builds with.
    pub fn jdk(&self) -> &Jdk {
        &self.jdk
    }

    /// The older Java runtime the tests run on, when it is not the build JDK (see `older_api`).
    pub fn test_runtime(&self) -> Option<&Jdk> {
        self.test_runtime.as_ref()
    }

    /// The Java version whose API javac compiles against, when it is not the build JDK's (see
    /// `older_api`).
    pub fn release(&self) -> Option<u32> {
        self.release
    }

    /// Why the JDK differs from the task's, when it does.
    pub fn substitution(&self) -> Option<&str> {
        self.substitution.as_deref()
    }

    /// How every command of this Maven is made.
    pub fn settings(&self) -> &BuildSettings {
        &self.settings
    }

    /// The folder of the tested module, relative to the project root.
    pub fn module(&self) -> &Path {
        &self.module
    }

    pub(crate) fn spec(
        &self,
        dir: &Path,
        args: Vec<String>,
        policy: SandboxPolicy,
        limits: Limits,
    ) -> RunSpec {
        let (home, repository) = match self.settings.sandbox {
            SandboxKind::Bubblewrap => ("/tmp".to_owned(), PathBuf::from(SANDBOX_REPOSITORY)),
            SandboxKind::None => (
                std::env::temp_dir().to_string_lossy().into_owned(),
                self.settings.repository.clone(),
            ),
        };
        let mut all = vec![
            "-B".to_owned(),
            "-ntp".to_owned(),
            format!("-Dmaven.repo.local={}", repository.display()),
        ];
        all.extend(self.extra_args.iter().cloned());
        // A task state is a tree without `.git`: the plug-ins that read the commit into the build
        // (git-commit-id's `revision`, buildnumber's `create`) would fail it, and a candidate's
        // verdict does not depend on what they write.
        all.extend(
            [
                "-Dmaven.gitcommitid.skip=true",
                "-Dmaven.buildNumber.skip=true",
            ]
            .map(str::to_owned),
        );
        // Coverage agents hook the test JVM through `${argLine}`, which their own goal sets
        // (JaCoCo's prepare-agent). Old agents crash JDK 17's JVM, and a test phase that runs
        // Surefire alone leaves the placeholder unresolved, so unless the project sets `argLine`
        // itself, it is set empty: the tests run without coverage.
        if !defines_arg_line(dir) {
            all.push("-DargLine=".to_owned());
        }
        all.extend(args);
        RunSpec {
            program: self.settings.mvn.clone(),
            args: all,
            cwd: dir.join(&self.module),
            env: vec![
                (
                    "PATH".into(),
                    format!(
                        "{}/bin:/usr/local/bin:/usr/bin:/bin",
                        self.jdk.home.display()
                    ),
                ),
                (
                    "JAVA_HOME".into(),
                    self.jdk.home.to_string_lossy().into_owned(),
                ),
                ("HOME".into(), home),
                ("LANG".into(), "C.UTF-8".into()),
                // Maven itself runs briefly: a small heap and the C1 compiler start it fastest.
                (
                    "MAVEN_OPTS".into(),
                    format!(
                        "-Xmx512m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC {JVM_CONTAINMENT_FLAGS}"
                    ),
                ),
                ("JAVA_TOOL_OPTIONS".into(), JVM_CONTAINMENT_FLAGS.into()),
            ]
            .into_iter()
            .chain(self.java_launcher_env())
            .collect(),
            sandbox: self.settings.sandbox,
            policy: self.with_toolchain(policy),
            limits,
            stdin: Vec::new(),
        }
    }

    /// How the tested module of `dir` is built: through the reactor from the project root when
    /// it depends on a sibling module (see `reactor`), else from its own folder.
    pub(crate) fn reactor(&self, dir: &Path) -> Option<Reactor> {
        reactor_for(dir, &self.module)
    }

    /// [`Self::spec`] for a Maven command on the tested module: from the project root with
    /// `-pl <module> -am` when it is built through the reactor.
    fn module_spec(
        &self,
        dir: &Path,
        args: Vec<String>,
        policy: SandboxPolicy,
        limits: Limits,
        reactor: Option<&Reactor>,
    ) -> RunSpec {
        let Some(reactor) = reactor else {
            return self.spec(dir, args, policy, limits);
        };
        // A build that runs lifecycle phases resolves the plug-ins of every module it builds;
        // a run of Surefire's goal alone resolves none of them.
        let lifecycle = args.iter().any(|a| a == "test-compile");
        let mut all = vec![
            "-pl".to_owned(),
            reactor.projects(lifecycle),
            "-am".to_owned(),
        ];
        all.extend(reactor.lifecycle_goals(args));
        let mut spec = self.spec(dir, all, policy, limits);
        spec.cwd = dir.to_owned();
        spec
    }

    /// The policy plus the JDK and Maven installations, when they live outside `/usr` (which
    /// every sandbox sees), with the `java` launcher execute-only.
    pub(crate) fn with_toolchain(&self, mut policy: SandboxPolicy) -> SandboxPolicy {
        let maven_home = self
            .settings
            .mvn
            .canonicalize()
            .ok()
            .and_then(|m| Some(m.parent()?.parent()?.to_owned()));
        for dir in [Some(self.jdk.home.clone()), maven_home]
            .into_iter()
            .flatten()
        {
            if !dir.starts_with("/usr") {
                policy.mounts.insert(0, Mount::ReadOnly(dir));
            }
        }
        if let Some(dir) = self.legacy_access.as_deref().and_then(Path::parent) {
            policy.mounts.push(Mount::ReadOnly(dir.to_owned()));
        }
        if let (Some(dir), SandboxKind::Bubblewrap) = (&self.javac_scripts, self.settings.sandbox) {
            policy.mounts.push(Mount::ReadOnlyAt {
                source: dir.clone(),
                target: JAVAC_VIEW.into(),
            });
        }
        let runtime = self.test_runtime.as_ref().map(|r| r.home.clone());
        if let Some(home) = runtime.as_ref().filter(|h| !h.starts_with("/usr")) {
            policy.mounts.push(Mount::ReadOnly(home.clone()));
        }
        // Maven's JVM and the test JVM start from these launchers; execute-only, neither can be
        // read or written through /proc by the other (see `Mount::ExecuteOnly`).
        for home in std::iter::once(self.jdk.home.clone()).chain(runtime) {
            let java = home.join("bin/java");
            if java.is_file() {
                policy.mounts.push(Mount::ExecuteOnly(java));
            }
        }
        policy
    }

    /// How the relay starts Surefire's test JVM: the task's `java` (never a program the request
    /// names), in a sandbox that sees `view` (the project, read-only, and its in-memory `target/`)
    /// with the toolchain, under the test run's limits, with the containment flags forced.
    fn test_jvm_template(&self, workspace: &Path, view: Vec<Mount>) -> JvmTemplate {
        let policy = SandboxPolicy {
            mounts: view,
            network: false,
        };
        let mut spec = self.spec(workspace, Vec::new(), policy, self.settings.limits);
        spec.program = self.test_java_home().join("bin/java");
        let mut forced_env = vec![("JAVA_TOOL_OPTIONS".to_owned(), test_jvm_tool_options())];
        match &self.test_runtime {
            // Up to JDK 15 the class path reaches the JDK's internals as on JDK 8 by default
            // (`--illegal-access=permit`); the build JDK's list of packages would name modules
            // and packages this runtime does not have.
            // From JDK 11 on it lacks JAXB and JAF as the build JDK does.
            Some(runtime) if runtime.major < 16 => {
                let boot = self
                    .removed_apis_option()
                    .filter(|_| runtime.major >= 11)
                    .unwrap_or_default();
                forced_env.push(("JDK_JAVA_OPTIONS".to_owned(), boot));
            }
            _ => forced_env.extend(self.java_launcher_env()),
        }
        JvmTemplate {
            spec,
            forced_env,
            project: workspace.to_owned(),
            activity: Default::default(),
        }
    }

    /// Surefire's `jvm` for the runs whose test JVM Surefire starts itself (the warm-up, the
    /// naive run): the older runtime when the task's tests need one (its test classes may not even
    /// load on the build JDK), else nothing.
    fn unrelayed_test_jvm(&self) -> Option<String> {
        self.test_runtime
            .as_ref()
            .map(|runtime| format!("-Djvm={}", runtime.home.join("bin/java").display()))
    }

    /// The home of the Java the tests run on: the older runtime when there is one, else the
    /// build JDK.
    fn test_java_home(&self) -> &Path {
        self.test_runtime
            .as_ref()
            .map_or(self.jdk.home.as_path(), |r| r.home.as_path())
    }

    /// Where the repository is seen by sandboxed commands.
    pub fn repository_view(&self) -> PathBuf {
        match self.settings.sandbox {
            SandboxKind::Bubblewrap => PathBuf::from(SANDBOX_REPOSITORY),
            SandboxKind::None => self.settings.repository.clone(),
        }
    }

    /// The host path of a path as sandboxed commands see it.
    pub fn host_path(&self, seen: &Path) -> PathBuf {
        match seen.strip_prefix(self.repository_view()) {
            Ok(rest) => self.settings.repository.join(rest),
            Err(_) => seen.to_owned(),
        }
    }

    /// A JDK tool (`javac`, `jar`) run in the sandbox on a helper's `staging` folder, the only
    /// writable place, with the repository read-only: how avrlab's own Java helpers are built.
    pub(crate) fn staging_tool(
        &self,
        program: PathBuf,
        args: Vec<String>,
        staging: &Path,
    ) -> RunSpec {
        RunSpec {
            program,
            args,
            cwd: staging.to_owned(),
            env: vec![("LANG".into(), "C.UTF-8".into())],
            sandbox: self.settings().sandbox,
            policy: self.with_toolchain(SandboxPolicy {
                mounts: vec![
                    self.repository_mount(false),
                    Mount::ReadWrite(staging.to_owned()),
                ],
                network: false,
            }),
            limits: self.settings().limits,
            stdin: Vec::new(),
        }
    }

    /// The repository's mount: read-only for candidates, writable for the warm-up.
    pub(crate) fn repository_mount(&self, writable: bool) -> Mount {
        let source = self.settings.repository.clone();
        match (self.settings.sandbox, writable) {
            (SandboxKind::None, _) => Mount::ReadOnly(source),
            (SandboxKind::Bubblewrap, true) => Mount::BindAt {
                source,
                target: SANDBOX_REPOSITORY.into(),
            },
            (SandboxKind::Bubblewrap, false) => Mount::ReadOnlyAt {
                source,
                target: SANDBOX_REPOSITORY.into(),
            },
        }
    }

    /// A fingerprint of the build files, so a warm repository is not warmed again.
    fn build_fingerprint(&self, project: &Path) -> String {
        let mut hasher = Sha256::new();
        hasher.update(self.jdk.major.to_le_bytes());
        // The warm-up resolves this Surefire too; a new pin needs a new warm-up.
        hasher.update(SUREFIRE_GOAL.as_bytes());
        // Markers hold the resolved test classpath since this version of the warm-up.
        hasher.update(b"warm-up with test classpath");
        // The plug-ins of goals a reactor adds to the lifecycle (its jars) are resolved by the
        // warm-up too; a warm-up from before they were added did not.
        let goals = self
            .reactor(project)
            .map(|r| r.lifecycle_goals(vec!["test-compile".to_owned()]))
            .unwrap_or_default();
        if goals.len() > 1 {
            hasher.update(goals.join(" ").as_bytes());
        }
        let mut poms: Vec<PathBuf> = walk_poms(project);
        poms.sort();
        for pom in poms {
            hasher.update(
                pom.strip_prefix(project)
                    .unwrap_or(&pom)
                    .to_string_lossy()
                    .as_bytes(),
            );
            hasher.update(std::fs::read(&pom).unwrap_or_default());
        }
        hex::encode(&hasher.finalize()[..12])
    }

    /// Why the selected methods' classes run whole, when a TestNG jar is on the tested module's
    /// test classpath (as the warm-up of these build files resolved it), which makes TestNG
    /// Surefire's provider: TestNG 5.1 (Struts 2.3) has no `org.testng.IMethodSelectorContext`,
    /// and Surefire's provider then fails the fork before any test runs (read from the jar's own
    /// entries, not its version); a newer TestNG runs JUnit test classes (Struts 2.5's JUnit 3
    /// `TestCase`s) in its JUnit mode, whole, whatever methods were selected.
    fn testng_by_class(&self, workspace: &Path) -> Option<String> {
        let warm = self.warmed_classpath(workspace)?;
        let jar = warm.iter().find(|path| {
            path.file_name()
                .and_then(|n| n.to_str())
                .is_some_and(|n| n.starts_with("testng-") && n.ends_with(".jar"))
        })?;
        let name = jar
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(jar).ok()?;
        let entry = b"org/testng/IMethodSelectorContext.class";
        Some(if bytes.windows(entry.len()).any(|w| w == entry) {
            format!(
                "{name} makes TestNG Surefire's provider, and TestNG runs JUnit test classes whole whatever methods are selected"
            )
        } else {
            format!(
                "{name} cannot select single test methods (it has no org.testng.IMethodSelectorContext, which Surefire's TestNG provider needs for that)"
            )
        })
    }

    /// The test classpath the warm-up of the workspace's build files recorded, if any.
    fn warmed_classpath(&self, project: &Path) -> Option<Vec<PathBuf>> {
        let marker = self
            .settings
            .repository
            .join(".avrlab-warm")
            .join(self.build_fingerprint(project));
        let text = std::fs::read_to_string(marker).ok()?;
        Some(self.classpath_entries(&text))
    }

    /// Whether a jar of JDK 8's removed APIs this task's JVMs take is missing.
    pub fn platform_missing(&self) -> bool {
        !self.removed_apis.iter().all(|jar| jar.is_file())
    }

    /// Fetches or makes the missing jars of JDK 8's removed APIs (a warm-up of an earlier avrlab
    /// did not make them all), working in `scratch`. The JDK access file comes first: its folder,
    /// which every JVM of the task sees, does not exist on a machine (or beside a repository)
    /// no task has used yet.
    pub fn complete_platform(&self, scratch: &Path) -> Result<(), BuildError> {
        self.make_legacy_access()?;
        self.fetch_removed_apis(scratch)
    }

    /// Makes the JDK access file of a substitution for JDK 8 or older, unless it is there.
    fn make_legacy_access(&self) -> Result<(), BuildError> {
        if let Some(file) = &self.legacy_access {
            crate::access::make_legacy_access_file(
                file,
                &self.jdk,
                self.settings.sandbox,
                self.settings.limits,
            )?;
        }
        Ok(())
    }

    /// What an earlier warm-up of a project with these build files left, if there was one: the
    /// repository is warm for it and nothing needs to run (read from `project`, unmodified). Also
    /// makes the JDK access file of a substitution for JDK 8 or older (see `access`).
    pub fn warmed(&self, project: &Path) -> Result<Option<WarmUp>, BuildError> {
        // Every warm-up passes here first: what the JVMs of the task read is made now.
        self.make_legacy_access()?;
        let marker = self
            .settings
            .repository
            .join(".avrlab-warm")
            .join(self.build_fingerprint(project));
        // The JVMs of the task need JDK 8's removed APIs, which a warm-up fetches.
        if !marker.is_file() || !self.removed_apis.iter().all(|jar| jar.is_file()) {
            return Ok(None);
        }
        let text = std::fs::read_to_string(&marker).map_err(|source| BuildError::Io {
            path: marker.clone(),
            source,
        })?;
        Ok(Some(WarmUp {
            ran: false,
            classpath: self.classpath_entries(&text),
        }))
    }

    /// Resolves every dependency and plug-in the project needs into the shared repository, by
    /// building it and running its own tests once, sandboxed but with network, and resolves the
    /// tested module's test classpath. Runs on a copy of the unmodified task state, never on a
    /// candidate, and only when the build files changed: the classpath is kept in the repository's
    /// warm-up marker, which candidates cannot write (the repository is read-only to them).
    pub fn warm_up(&self, project_copy: &Path) -> Result<WarmUp, BuildError> {
        let marker_dir = self.settings.repository.join(".avrlab-warm");
        let marker = marker_dir.join(self.build_fingerprint(project_copy));
        let io = |path: &Path, source| BuildError::Io {
            path: path.to_owned(),
            source,
        };
        if let Some(known) = self.warmed(project_copy)? {
            return Ok(known);
        }
        std::fs::create_dir_all(&marker_dir).map_err(|e| io(&marker_dir, e))?;
        self.fetch_removed_apis(&project_copy.join(".avrlab-removed-apis"))?;
        self.fetch_snapshot_releases(project_copy)?;
        let limits = Limits {
            wall: Duration::from_secs(1800),
            processes: self.settings.limits.processes.max(WARM_UP_PROCESSES),
            ..self.settings.limits
        };
        self.install_kept_jars(project_copy, limits)?;
        let classpath_file = project_copy
            .join(&self.module)
            .join("target")
            .join("avrlab-warm-up-classpath.txt");
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(true),
                Mount::ReadWrite(project_copy.to_owned()),
            ],
            network: true,
        };
        let mut args = [
            "test-compile",
            SUREFIRE_GOAL,
            "dependency:build-classpath",
            "-Dmdep.includeScope=test",
            "-Dmaven.test.failure.ignore=true",
            "-DfailIfNoTests=false",
            "-Dsurefire.failIfNoSpecifiedTests=false",
        ]
        .map(str::to_owned)
        .to_vec();
        args.push(format!("-Dmdep.outputFile={}", classpath_file.display()));
        args.extend(self.unrelayed_test_jvm());
        let reactor = self.reactor(project_copy);
        if let Some(reactor) = &reactor {
            // Through the reactor, Surefire runs in every module built: the siblings' tests
            // would run too (CometD's cluster tests exhaust the sandbox's threads, TomEE's need
            // a network). The tested module's own test classes are named in an includes file,
            // which a module without `<includes>` of its own takes instead of the defaults.
            let includes = module_test_includes(&project_copy.join(&reactor.module));
            if !includes.is_empty() {
                let file = project_copy.join(".avrlab-warm-up-included-tests.txt");
                std::fs::write(&file, includes.join("\n")).map_err(|e| io(&file, e))?;
                args.push(format!("-Dsurefire.includesFile={}", file.display()));
            }
        }
        // A test class that hangs (a socket that never answers) would fail the warm-up, whose
        // tests only need to run for Surefire's own dependencies to be resolved: it is left out
        // and the build taken again, a few times at most. The baseline finds and records it.
        let mut hung: Vec<TestName> = Vec::new();
        let result = loop {
            let mut attempt = args.clone();
            if !hung.is_empty() {
                let file = project_copy.join(".avrlab-warm-up-excluded-tests.txt");
                let patterns = TestSelection::AllExcept(hung.clone()).excluded_patterns();
                std::fs::write(&file, patterns.join("\n")).map_err(|e| io(&file, e))?;
                attempt.push(format!("-Dsurefire.excludesFile={}", file.display()));
            }
            let spec = self.module_spec(
                project_copy,
                attempt,
                policy.clone(),
                limits,
                reactor.as_ref(),
            );
            let result = run(&spec)?;
            let hung_class = crate::build_log::Hang::of(result.exit, &combined_log(&result))
                .and_then(|hang| TestName::parse(hang.last_test.as_deref()?).ok())
                .filter(|class| class.method.is_none() && !hung.contains(class));
            match hung_class {
                Some(class) if hung.len() < MAX_WARM_UP_HUNG_CLASSES => hung.push(class),
                _ => break result,
            }
        };
        if !result.exit.success() {
            return Err(warm_up_failure(
                project_copy,
                &result,
                limits,
                crate::build_log::maven_failure,
            ));
        }
        let text = std::fs::read_to_string(&classpath_file).map_err(|e| io(&classpath_file, e))?;
        let mut text = text.trim().to_owned();
        if reactor.is_some() {
            // The siblings' classes are the project's own, built in every workspace: they are not
            // a library, and this copy of the project is about to go.
            let kept: Vec<PathBuf> = std::env::split_paths(&text)
                .filter(|p| !p.starts_with(project_copy))
                .collect();
            text = std::env::join_paths(kept)
                .map(|t| t.to_string_lossy().into_owned())
                .unwrap_or_default();
        }
        std::fs::write(&marker, &text).map_err(|e| io(&marker, e))?;
        Ok(WarmUp {
            ran: true,
            classpath: self.classpath_entries(&text),
        })
    }

    /// Puts the jars the project keeps in its tree into the repository (writable during a
    /// warm-up) by running its own `install-file` executions, by id, in each pom's folder: the
    /// task state has them bound to no phase (see `self_installs`).
    fn install_kept_jars(&self, project: &Path, limits: Limits) -> Result<(), BuildError> {
        for install in crate::self_installs::self_installs(project) {
            let goals = install
                .ids
                .iter()
                .map(|id| {
                    format!("org.apache.maven.plugins:maven-install-plugin:install-file@{id}")
                })
                .collect();
            let policy = SandboxPolicy {
                mounts: vec![
                    self.repository_mount(true),
                    Mount::ReadOnly(project.to_owned()),
                ],
                network: true,
            };
            let mut spec = self.spec(project, goals, policy, limits);
            spec.cwd = project.join(&install.module);
            let result = run(&spec)?;
            if !result.exit.success() {
                return Err(warm_up_failure(
                    project,
                    &result,
                    limits,
                    crate::build_log::maven_failure,
                ));
            }
        }
        Ok(())
    }

    /// The host paths of a classpath as the sandboxed build printed it.
    fn classpath_entries(&self, text: &str) -> Vec<PathBuf> {
        std::env::split_paths(text.trim())
            .filter(|p| !p.as_os_str().is_empty())
            .map(|p| self.host_path(&p))
            .collect()
    }

    /// The naive way to validate a candidate, as Vul4J does: one Maven run that compiles the
    /// project and runs its whole test suite (`test-compile` and the pinned Surefire, since the
    /// pom's own Surefire may not run on this JDK), offline, sandboxed, the workspace writable.
    /// Only its exit status speaks; benchmarks compare against it, verdicts never rest on it.
    pub fn plain_test(&self, workspace: &Path) -> Result<ExitKind, BuildError> {
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(false),
                Mount::ReadWrite(workspace.to_owned()),
            ],
            network: false,
        };
        let mut args = ["-o", "test-compile", SUREFIRE_GOAL]
            .map(str::to_owned)
            .to_vec();
        args.extend(self.unrelayed_test_jvm());
        let reactor = self.reactor(workspace);
        let spec = self.module_spec(
            workspace,
            args,
            policy,
            self.settings.limits,
            reactor.as_ref(),
        );
        Ok(run(&spec)?.exit)
    }

    /// `mvn test-compile`, offline, in the sandbox, with the workspace writable.
    pub fn compile(&self, workspace: &Path) -> Result<CompileResult, BuildError> {
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(false),
                Mount::ReadWrite(workspace.to_owned()),
            ],
            network: false,
        };
        let args = vec!["-o".to_owned(), "test-compile".to_owned()];
        let reactor = self.reactor(workspace);
        let result = run(&self.module_spec(
            workspace,
            args,
            policy,
            self.settings.limits,
            reactor.as_ref(),
        ))?;
        let log = with_reactor_note(combined_log(&result), reactor.as_ref());
        Ok(CompileResult {
            exit: result.exit,
            diagnostics: compiler_diagnostics(&log, workspace),
            failure: (!result.exit.success()).then(|| crate::build_log::maven_failure(&log)),
            log,
            wall: result.wall,
            enforcement: result.enforcement,
        })
    }

    /// Runs the selected tests with Surefire, offline, in the sandbox, with the workspace
    /// read-only. `reports` must be a fresh, empty folder outside the workspace.
    pub fn test(
        &self,
        workspace: &Path,
        wanted: &TestSelection,
        reports: &Path,
    ) -> Result<TestRun, BuildError> {
        let selection = wanted;
        let io = |path: &Path, source| BuildError::Io {
            path: path.to_owned(),
            source,
        };
        let target = workspace.join(&self.module).join("target");
        let (report_mount, scratch) = (target.join("surefire-reports"), target.join("surefire"));
        for dir in [&report_mount, &scratch, &reports.to_path_buf()] {
            std::fs::create_dir_all(dir).map_err(|e| io(dir, e))?;
        }
        let reactor = self.reactor(workspace);
        let test_jars = reactor
            .as_ref()
            .and_then(|r| TestJarReactor::plan(workspace, r));
        // What Surefire is asked to run, and the note when it is not the selection itself.
        let by_class = self.testng_by_class(workspace);
        let requested = match &by_class {
            Some(_) => selection.by_class(),
            None => selection.clone(),
        };
        let selection = &requested;
        let mut excluded = selection.excluded_patterns();
        if let (Some(reactor), None) = (&reactor, selection.surefire_filter()) {
            // A sibling whose test classes the tested module uses keeps them visible (see
            // `hidden_sibling_tests`); Surefire's run in that sibling then finds every one of
            // them excluded, so only the tested module's tests run, as with the others.
            let visible = match &test_jars {
                Some(plan) => &plan.modules,
                None => &reactor.test_jar_siblings,
            };
            for sibling in visible {
                excluded.extend(compiled_test_classes(
                    &workspace.join(sibling).join("target/test-classes"),
                ));
            }
        }
        let mut excludes_file = None;
        if !excluded.is_empty() {
            // Written by the host after the compile step, into a path it first clears (whatever
            // the build left there, a link included), and read-only during the run.
            let file = target.join("avrlab-excluded-tests.txt");
            match std::fs::symlink_metadata(&file) {
                Ok(meta) if meta.is_dir() => {
                    std::fs::remove_dir_all(&file).map_err(|e| io(&file, e))?;
                }
                Ok(_) => std::fs::remove_file(&file).map_err(|e| io(&file, e))?,
                Err(_) => {}
            }
            let mut text = excluded.join("\n");
            text.push('\n');
            let mut out = std::fs::OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&file)
                .map_err(|e| io(&file, e))?;
            std::io::Write::write_all(&mut out, text.as_bytes()).map_err(|e| io(&file, e))?;
            excludes_file = Some(file);
        }
        // In a Maven run, tests write into `target/` (a test that touches a configuration file
        // among its classes and waits to see it change: Struts), and through the reactor the
        // phases up to `compile` run their plug-ins in every module built, some of which write
        // there whatever the skip flags say (maven-resources-plugin before 2.7 has no `skip`:
        // PDFBox's 2.6 copies `version.properties` again). So the tested module's build output,
        // and its siblings' through the reactor, is a writable copy for this run only.
        let beside = reports.parent().unwrap_or(Path::new("/tmp"));
        let copies = tempfile::Builder::new()
            .prefix("build-output")
            .tempdir_in(beside)
            .map_err(|e| io(beside, e))?;
        let writable = match (&reactor, &test_jars) {
            (_, Some(plan)) => {
                writable_build_output(workspace, &self.module, &plan.modules, true, copies.path())
            }
            (Some(reactor), None) => writable_build_output(
                workspace,
                &self.module,
                &reactor.siblings,
                false,
                copies.path(),
            ),
            (None, None) => {
                writable_build_output(workspace, &self.module, &[], false, copies.path())
            }
        }
        .map_err(|e| io(copies.path(), e))?;
        let mut view = vec![
            self.repository_mount(false),
            Mount::ReadOnly(workspace.to_owned()),
        ];
        // Real projects' tests write under `target/` (extracted archives, generated files). The
        // module's `target/` becomes a fresh in-memory folder in which every folder the build
        // left there is mounted back as its writable copy, and every file read-only; only real
        // folders and files are, never a link, so nothing outside the workspace is exposed.
        view.push(Mount::Tmpfs(target.clone()));
        for entry in std::fs::read_dir(&target)
            .map_err(|e| io(&target, e))?
            .flatten()
        {
            let name = entry.file_name();
            if matches!(name.to_str(), Some("surefire-reports" | "surefire")) {
                continue;
            }
            // A jar the build made is made again where test runs make the jars.
            let jars_made = reactor.as_ref().is_some_and(|r| r.jars_in_test_runs());
            if jars_made && name.to_str().is_some_and(|n| n.ends_with(".jar")) {
                continue;
            }
            let copied = writable
                .iter()
                .any(|m| matches!(m, Mount::BindAt { target, .. } if *target == entry.path()));
            if copied {
                continue;
            }
            let is_plain = std::fs::symlink_metadata(entry.path())
                .map(|m| m.is_dir() || m.is_file())
                .unwrap_or(false);
            if is_plain {
                view.push(Mount::ReadOnly(entry.path()));
            }
        }
        if reactor.as_ref().is_some_and(|r| r.jars_in_test_runs()) {
            // Each module's jar is made in this run (see `Reactor::jars_in_test_runs`), and the
            // plug-ins of every module built write into its `target/` (CXF's `cxf-testutils` runs
            // antrun there): every other module's `target/` the build left (the root's too) is a
            // fresh writable copy of its folders (the siblings' own copies are mounted below).
            let mut modules: Vec<PathBuf> = walk_poms(workspace)
                .iter()
                .filter_map(|pom| pom.parent().map(Path::to_owned))
                .collect();
            modules.sort();
            modules.dedup();
            for module in modules {
                let other = module.join("target");
                if other == target || !std::fs::symlink_metadata(&other).is_ok_and(|m| m.is_dir()) {
                    continue;
                }
                // A folder of the host's, not an in-memory one: the test JVM's own sandbox sees
                // the jars Maven makes there, which its class path names.
                let fresh = copies.path().join(format!("target-{}", view.len()));
                std::fs::create_dir(&fresh).map_err(|e| io(&fresh, e))?;
                view.push(Mount::BindAt {
                    source: fresh.clone(),
                    target: other.clone(),
                });
                for entry in std::fs::read_dir(&other)
                    .map_err(|e| io(&other, e))?
                    .flatten()
                {
                    // The jar and the archiver's record of it are made again here.
                    let archive = entry.file_name() == "maven-archiver";
                    let copied = writable.iter().any(
                        |m| matches!(m, Mount::BindAt { target, .. } if *target == entry.path()),
                    );
                    let is_dir = std::fs::symlink_metadata(entry.path()).is_ok_and(|m| m.is_dir());
                    if !copied && is_dir && !archive {
                        copy_plain_tree(&entry.path(), &fresh.join(entry.file_name()))
                            .map_err(|e| io(&entry.path(), e))?;
                    }
                }
            }
        }
        view.extend(writable);
        let sandboxed = matches!(self.settings.sandbox, SandboxKind::Bubblewrap);
        if sandboxed {
            view.push(Mount::Tmpfs(TEST_TMPDIR.into()));
        }
        let mut args = vec!["-o".to_owned()];
        if let Some(reactor) = &reactor {
            // Maven 3.8's reactor hands a sibling's `target/classes` to the tested module only
            // when the `compile` phase ran for it in this very session; a goal alone would make
            // Maven look for the sibling in the repository instead. So the phase runs, with the
            // compiler and resource copying skipped (the compile step built everything already,
            // and the workspace is read-only now). The siblings' test classes are hidden behind
            // empty folders: their tests never run here, only the tested module's.
            // The phases before `compile` run their plug-ins too: Apache's parent pom binds
            // maven-remote-resources-plugin, which writes its NOTICE files into every module's
            // `target/` again and fails on the read-only workspace (PDFBox); the compile step
            // wrote them already.
            // A module that takes a sibling's `test-jar` needs the `test-compile` phase instead
            // (see `TestJarReactor`).
            args.extend(reactor.test_run_goals(if test_jars.is_some() {
                "test-compile"
            } else {
                "compile"
            }));
            args.extend(
                [
                    "-Dmaven.main.skip=true",
                    "-Dmaven.resources.skip=true",
                    "-Dremoteresources.skip=true",
                ]
                .map(str::to_owned),
            );
            if test_jars.is_none() {
                view.extend(hidden_sibling_tests(workspace, reactor));
            }
        }
        args.extend(
            [
                SUREFIRE_GOAL,
                "-Dsurefire.failIfNoSpecifiedTests=false",
                "-DtrimStackTrace=false",
            ]
            .map(str::to_owned),
        );
        let mut mounts = view.clone();
        mounts.push(Mount::BindAt {
            source: reports.to_owned(),
            target: report_mount.clone(),
        });
        // Sandboxed, the test JVM runs in a sandbox of its own (see `fork_relay`): it sees the
        // same project, `target/` and Surefire scratch folder, and neither the reports nor Maven.
        let relay = match self.settings.sandbox {
            SandboxKind::Bubblewrap => {
                let template = self.test_jvm_template(workspace, view);
                let relay = ForkRelay::start(template, self.test_java_home(), beside, &scratch)
                    .map_err(|e| io(beside, e))?;
                mounts.push(Mount::BindAt {
                    source: relay.scratch(),
                    target: scratch,
                });
                mounts.push(Mount::BindAt {
                    source: relay.requests(),
                    target: RELAY_VIEW.into(),
                });
                mounts.push(Mount::ReadOnlyAt {
                    source: relay.launcher(),
                    target: LAUNCHER_VIEW.into(),
                });
                args.push(format!("-Djvm={LAUNCHER_VIEW}/bin/java"));
                Some(relay)
            }
            SandboxKind::None => {
                mounts.push(Mount::Tmpfs(scratch));
                None
            }
        };
        let policy = SandboxPolicy {
            mounts,
            network: false,
        };
        if let Some(filter) = selection.surefire_filter() {
            args.push(format!("-Dtest={filter}"));
        }
        if by_class.is_some() {
            // The classes run whole, so the methods the phase left out (the baseline's failing
            // tests) fail the build as well: their failures are no evidence about the phase's
            // own tests, whose reports decide. A crashed fork still fails the build (Surefire
            // ignores test failures only), and a failed build is then still not trusted.
            args.push("-Dmaven.test.failure.ignore=true".to_owned());
        }
        if let Some(file) = &excludes_file {
            args.push(format!("-Dsurefire.excludesFile={}", file.display()));
        }
        // Unsandboxed there are no mounts: Surefire writes into the workspace, emptied first.
        let written = match self.settings.sandbox {
            SandboxKind::Bubblewrap => reports.to_owned(),
            SandboxKind::None => {
                std::fs::remove_dir_all(&report_mount).map_err(|e| io(&report_mount, e))?;
                report_mount
            }
        };
        let mut spec = self.module_spec(
            workspace,
            args,
            policy,
            self.settings.limits,
            reactor.as_ref(),
        );
        if sandboxed {
            // Tests that a project runs in Maven's own JVM (`forkCount=0`) get the same folder.
            for (name, value) in &mut spec.env {
                if name == "JAVA_TOOL_OPTIONS" {
                    *value = test_jvm_tool_options();
                }
            }
        }
        let result = run_with_activity(&spec, relay.as_ref().map(ForkRelay::activity))?;
        let mut enforcement = result.enforcement.clone();
        let mut cpu_limit_reached = false;
        if let Some(relay) = relay {
            let relayed = relay.finish();
            cpu_limit_reached = relayed.cpu_limit_reached;
            if let Some(failure) = relayed.failures.first() {
                return Err(BuildError::TestJvm(failure.clone()));
            }
            enforcement = format!("{enforcement}; {}", relayed.describe());
        }
        // A killed run's reports are partial; none of them is trusted. Reports that cannot be
        // read were written by the code under test: evidence, not an infrastructure failure.
        let (cases, unusable_reports) = if matches!(result.exit, ExitKind::Code(_)) {
            match read_reports(&written) {
                Ok(cases) => (cases, None),
                Err(problem) => (Vec::new(), Some(with_causes(&problem))),
            }
        } else {
            (Vec::new(), None)
        };
        if sandboxed {
            enforcement = format!("{enforcement}; {TEST_TMPDIR_NOTE}");
        }
        let mut log = with_reactor_note(combined_log(&result), reactor.as_ref());
        let cases = match by_class {
            Some(why) => {
                let (cases, others) = wanted.keep_selected(cases);
                log = format!(
                    "[avrlab] {why}: the selected classes ran whole with -Dmaven.test.failure.ignore=true, and {others} reported test case(s) outside this phase's selection are not counted\n{log}"
                );
                cases
            }
            None => cases,
        };
        Ok(TestRun {
            exit: result.exit,
            cases,
            log,
            wall: result.wall,
            enforcement,
            tree_gone: result.tree_gone,
            unusable_reports,
            cpu_limit_reached,
        })
    }
}

/// A phase log, led by the line saying why Maven ran through the reactor when it did.
fn with_reactor_note(log: String, reactor: Option<&Reactor>) -> String {
    match reactor {
        Some(reactor) => format!("[avrlab] {}\n{log}", reactor.describe()),
        None => log,
    }
}

/// The test classes of the module at `module_dir` that Surefire's default includes select
/// (`Test*`, `*Test`, `*Tests`, `*TestCase`), as include patterns relative to its test source
/// root (`a/b/CTest.java`); nested modules and build output are not read. Only sources under a
/// `src/test/java` folder are named: empty for another layout, and the defaults then stand.
fn module_test_includes(module_dir: &Path) -> Vec<String> {
    let mut includes = Vec::new();
    let walk = walkdir::WalkDir::new(module_dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            e.depth() == 0
                || !(e.file_type().is_dir()
                    && (e.file_name() == "target" || e.path().join("pom.xml").is_file()))
        });
    for entry in walk.filter_map(Result::ok) {
        if !entry.file_type().is_file() {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(module_dir) else {
            continue;
        };
        let text = relative.to_string_lossy();
        let Some((_, within)) = text.split_once("src/test/java/") else {
            continue;
        };
        let Some(stem) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.strip_suffix(".java"))
        else {
            continue;
        };
        let selected = stem.starts_with("Test")
            || ["Test", "Tests", "TestCase"]
                .iter()
                .any(|suffix| stem.ends_with(suffix));
        if selected {
            includes.push(within.to_owned());
        }
    }
    includes
}

/// Surefire exclusion patterns (`a/b/C.class`) for every top-level class compiled into
/// `test_classes`; no link is followed (the folder is build output of candidate code).
fn compiled_test_classes(test_classes: &Path) -> Vec<String> {
    walkdir::WalkDir::new(test_classes)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .filter_map(|e| {
            let relative = e
                .path()
                .strip_prefix(test_classes)
                .ok()?
                .to_str()?
                .to_owned();
            (relative.ends_with(".class") && !relative.contains('$')).then_some(relative)
        })
        .collect()
}

/// The mounts that hide the test classes of the project's other modules from a test run through
/// the reactor: an empty folder over each one's `target/test-classes`, or over its whole `target/`
/// when that is not a plain folder (a build made it something else; the sibling then has no
/// classes either, and the candidate's own tests show it).
fn hidden_sibling_tests(workspace: &Path, reactor: &Reactor) -> Vec<Mount> {
    let mut hidden = Vec::new();
    // A sibling the tested module takes as a `test-jar` is on its test class path: hiding it
    // would make Surefire pass over every test class that needs it, silently (pac4j-oidc's tests
    // use pac4j-core's `TestsConstants`).
    for other in reactor
        .others
        .iter()
        .filter(|o| !reactor.test_jar_siblings.contains(o))
    {
        let target = workspace.join(other).join("target");
        let tests = target.join("test-classes");
        let plain_dir = |p: &Path| std::fs::symlink_metadata(p).is_ok_and(|m| m.is_dir());
        if !plain_dir(&target) {
            continue;
        }
        match std::fs::symlink_metadata(&tests) {
            Ok(meta) if meta.is_dir() => hidden.push(Mount::Tmpfs(tests)),
            Ok(_) => hidden.push(Mount::Tmpfs(target)),
            Err(_) => {}
        }
    }
    hidden
}

/// A test run through a reactor in which the tested module takes a sibling's `test-jar`: Maven
/// 3.8's reactor hands a module's test classes to another only when the `test-compile` phase ran
/// for it in the same session (else it looks in the repository, where they are not: pac4j-oidc,
/// Pac4j-1, ran no test). So the phase runs in every module the reactor builds, and no module's
/// test classes can be hidden behind an empty folder (the compiler would build them all again):
/// every other module's `target/` is a writable copy, its compiled tests up to date, and each of
/// its test classes is excluded by name, so that only the tested module's tests run.
#[derive(Debug)]
struct TestJarReactor {
    /// The project's other modules, whose build output is copied and test classes excluded.
    modules: Vec<PathBuf>,
}

impl TestJarReactor {
    /// The plan, where the tested module takes a sibling's `test-jar` and no other module has a
    /// test class of the same name as one of the tested module's (excluding it by name would
    /// leave the tested module's own out too: the test classes are hidden then, as elsewhere).
    fn plan(workspace: &Path, reactor: &Reactor) -> Option<Self> {
        if reactor.test_jar_siblings.is_empty() {
            return None;
        }
        let own: std::collections::HashSet<String> =
            compiled_test_classes(&workspace.join(&reactor.module).join("target/test-classes"))
                .into_iter()
                .collect();
        let collides = reactor.others.iter().any(|other| {
            compiled_test_classes(&workspace.join(other).join("target/test-classes"))
                .iter()
                .any(|class| own.contains(class))
        });
        (!collides).then(|| Self {
            modules: reactor.others.clone(),
        })
    }
}

/// Writable copies, in `copies`, of the build output of the tested module (every folder of its
/// `target/` but Surefire's own) and of the `siblings` a test run through the reactor builds
/// (every folder but their test classes, unless `sibling_tests`), as mounts over the originals:
/// tests and plug-ins write there in a Maven run. Only plain folders and files are copied, never
/// a link or anything else a build may have left there.
fn writable_build_output(
    workspace: &Path,
    tested: &Path,
    siblings: &[PathBuf],
    sibling_tests: bool,
    copies: &Path,
) -> std::io::Result<Vec<Mount>> {
    let mut mounts = Vec::new();
    for module in std::iter::once(tested).chain(siblings.iter().map(PathBuf::as_path)) {
        let target = workspace.join(module).join("target");
        if !std::fs::symlink_metadata(&target).is_ok_and(|m| m.is_dir()) {
            continue;
        }
        for entry in std::fs::read_dir(&target)?.flatten() {
            let keep_read_only = match entry.file_name().to_str() {
                Some("surefire-reports" | "surefire") | None => true,
                Some("test-classes") => module != tested && !sibling_tests,
                Some(_) => false,
            };
            if keep_read_only || !entry.file_type().is_ok_and(|t| t.is_dir()) {
                continue;
            }
            let copy = copies.join(mounts.len().to_string());
            copy_plain_tree(&entry.path(), &copy)?;
            mounts.push(Mount::BindAt {
                source: copy,
                target: entry.path(),
            });
        }
    }
    Ok(mounts)
}

/// Copies the plain folders and files under `from` to `to`, leaving out links and special files.
fn copy_plain_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    for entry in walkdir::WalkDir::new(from).follow_links(false) {
        let entry = entry.map_err(std::io::Error::other)?;
        let relative = entry
            .path()
            .strip_prefix(from)
            .expect("walkdir yields paths under its root");
        let dest = to.join(relative);
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&dest)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &dest)?;
            // Writable, as the build left it for itself, even when the source was sealed.
            let mut permissions = std::fs::metadata(&dest)?.permissions();
            permissions.set_mode(permissions.mode() | 0o200);
            std::fs::set_permissions(&dest, permissions)?;
        }
    }
    Ok(())
}

/// An error and its causes on one line, for evidence stored with a verdict.
pub(crate) fn with_causes(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    let mut cause = error.source();
    while let Some(inner) = cause {
        text.push_str(": ");
        text.push_str(&inner.to_string());
        cause = inner.source();
    }
    text
}

/// Whether a pom of the project defines the `argLine` property itself.
pub(crate) fn defines_arg_line(project: &Path) -> bool {
    walk_poms(project).iter().any(|pom| {
        let text = std::fs::read_to_string(pom).unwrap_or_default();
        text.split("<properties>")
            .skip(1)
            .filter_map(|rest| rest.split("</properties>").next())
            .any(|props| props.contains("<argLine>"))
    })
}

pub(crate) fn combined_log(result: &ProcessResult) -> String {
    let mut log = result.stdout.text();
    let stderr = result.stderr.text();
    if !stderr.trim().is_empty() {
        log.push_str("\n--- stderr ---\n");
        log.push_str(&stderr);
    }
    log
}

/// Processes and threads of a warm-up: the unmodified project's own tests, whose thread leaks
/// add up in Surefire's one reused fork (CometD's Oort tests pass 4096 and Surefire then cannot
/// start its next fork). Still sandboxed, with its memory limit.
const WARM_UP_PROCESSES: u32 = 16_384;

/// Why a warm-up build failed: hung (a typed error of its own), killed at its time limit, or the
/// cause its output names (`summary` reads the tool's output).
pub(crate) fn warm_up_failure(
    project: &Path,
    result: &ProcessResult,
    limits: Limits,
    summary: impl Fn(&str) -> String,
) -> BuildError {
    let log = combined_log(result);
    if let Some(hang) = crate::build_log::Hang::of(result.exit, &log) {
        return BuildError::WarmUpHung {
            project: project.to_owned(),
            hang,
        };
    }
    let tail = match result.exit {
        ExitKind::TimedOut => format!(
            "killed at its {} s time limit; its output last said: {}",
            limits.wall.as_secs(),
            summary(&log)
        ),
        // Killed from outside its own logic: what killed it first, then where its output
        // stopped (the cause its output names is usually absent).
        ExitKind::Signal(signal) => format!(
            "killed by signal {signal}{}; its output last said: {}",
            if signal == libc::SIGKILL {
                format!(
                    " (the sandbox's memory limit of {} MiB kills so)",
                    limits.memory_bytes >> 20
                )
            } else {
                String::new()
            },
            summary(&log)
        ),
        ExitKind::OutputLimit => format!(
            "killed at its output limit of {} MiB; its output last said: {}",
            limits.output_bytes >> 20,
            summary(&log)
        ),
        ExitKind::DiskLimit => format!(
            "killed at its disk limit of {} MiB; its output last said: {}",
            limits.disk_bytes >> 20,
            summary(&log)
        ),
        ExitKind::Code(_) | ExitKind::Idle { .. } => summary(&log),
    };
    BuildError::WarmUp {
        project: project.to_owned(),
        tail,
        log: keep_log(project, &log),
    }
}

/// Keeps the whole output of a failed warm-up beside its project copy (`<copy>.log`), which the
/// caller removes: the one line of its cause rarely says everything. `None` when it cannot be
/// written (the failure itself is still reported).
fn keep_log(project: &Path, log: &str) -> Option<PathBuf> {
    let mut path = project.as_os_str().to_owned();
    path.push(".log");
    let path = PathBuf::from(path);
    std::fs::write(&path, log).ok().map(|()| path)
}

pub(crate) fn last_error_line(result: &ProcessResult) -> String {
    crate::build_log::maven_failure(&combined_log(result))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A Maven driver for a task of `jdk` testing `module`, unsandboxed, with `repository`.
    fn unsandboxed(jdk: u32, module: &str, repository: &Path) -> Result<Maven, BuildError> {
        let build = BuildSpec {
            system: avrlab_bench::BuildSystem::Maven,
            jdk,
            module: module.into(),
            extra_args: vec![],
            targets: None,
            older_api: None,
        };
        let settings = BuildSettings {
            mvn: "mvn".into(),
            repository: repository.to_owned(),
            sandbox: SandboxKind::None,
            limits: Limits::default(),
        };
        Maven::for_build(settings, &build)
    }

    #[test]
    fn a_selection_by_class_runs_the_selected_methods_classes_and_excludes_only_classes() {
        let names = ["a.B#m", "a.B#n", "c.D"].map(|n| TestName::parse(n).unwrap());
        let only = TestSelection::Only(names.to_vec()).by_class();
        assert_eq!(only.surefire_filter().as_deref(), Some("a.B,c.D"));
        let all_except = TestSelection::AllExcept(names.to_vec()).by_class();
        assert_eq!(all_except.excluded_patterns(), ["c/D.class"]);
    }

    /// A task state has no `.git`: every Maven command skips the plug-ins that read the commit.
    #[test]
    fn every_maven_command_skips_the_plugins_that_read_the_commit() {
        let repository = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        let maven = unsandboxed(17, ".", repository.path()).unwrap();
        let spec = maven.spec(
            project.path(),
            vec!["test-compile".into()],
            SandboxPolicy::default(),
            Limits::default(),
        );
        for flag in [
            "-Dmaven.gitcommitid.skip=true",
            "-Dmaven.buildNumber.skip=true",
        ] {
            assert!(
                spec.args.iter().any(|a| a == flag),
                "{flag}: {:?}",
                spec.args
            );
        }
    }

    /// Struts 2.3's TestNG 5.1 has no `IMethodSelectorContext`; a newer TestNG has, and runs
    /// JUnit classes whole all the same. Read from the classpath the warm-up of the project's
    /// build files recorded; no warm-up, no finding.
    #[test]
    fn a_testng_on_the_warm_classpath_runs_classes_whole() {
        let repository = tempfile::tempdir().unwrap();
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("pom.xml"), "<project/>").unwrap();
        let maven = unsandboxed(17, ".", repository.path()).unwrap();
        assert_eq!(maven.testng_by_class(project.path()), None);
        let jars = repository.path().join("org/testng");
        std::fs::create_dir_all(&jars).unwrap();
        let (old, new) = (
            jars.join("testng-5.1-jdk15.jar"),
            jars.join("testng-6.8.jar"),
        );
        std::fs::write(&old, b"PK..org/testng/ITestContext.class..").unwrap();
        std::fs::write(&new, b"PK..org/testng/IMethodSelectorContext.class..").unwrap();
        let marker_dir = repository.path().join(".avrlab-warm");
        std::fs::create_dir_all(&marker_dir).unwrap();
        let marker = marker_dir.join(maven.build_fingerprint(project.path()));
        let cases = [
            (
                &old,
                "testng-5.1-jdk15.jar cannot select single test methods",
            ),
            (&new, "testng-6.8.jar makes TestNG Surefire's provider"),
        ];
        for (jar, expected) in cases {
            let classpath = std::env::join_paths([Path::new("/x/junit-4.13.2.jar"), jar]).unwrap();
            std::fs::write(&marker, classpath.to_string_lossy().as_bytes()).unwrap();
            let why = maven.testng_by_class(project.path()).unwrap();
            assert!(why.starts_with(expected), "{why}");
        }
        // JUnit alone: Surefire's JUnit providers select single methods.
        std::fs::write(&marker, "/x/junit-4.13.2.jar").unwrap();
        assert_eq!(maven.testng_by_class(project.path()), None);
    }

    /// Surefire 3.2.5 read with real Maven: `a/B.class#m` excludes every invocation of `m`;
    /// `a/B.class#m[2]` would exclude nothing, so an invocation names its method.
    #[test]
    fn exclusions_name_methods_and_classes() {
        let names = ["a.B#m[2]", "a.B#m", "a.B#n", "c.D"].map(|n| TestName::parse(n).unwrap());
        assert_eq!(
            TestSelection::AllExcept(names.to_vec()).excluded_patterns(),
            [
                "a/B.class#m",
                "a/B.class#m[*]",
                "a/B.class#n",
                "a/B.class#n[*]",
                "c/D.class"
            ]
        );
    }

    /// A warm-up killed from outside (the memory limit's SIGKILL, the output limit) says so
    /// before the last thing its output said, which is then rarely the cause.
    #[test]
    fn a_killed_warm_up_says_what_killed_it() {
        let result = |exit| ProcessResult {
            exit,
            stdout: avrlab_exec::CapturedOutput {
                head: b"[INFO] Running a.BTest\n".to_vec(),
                tail: Vec::new(),
                total_bytes: 23,
            },
            stderr: avrlab_exec::CapturedOutput::default(),
            wall: Duration::from_secs(1),
            enforcement: String::new(),
            tree_gone: true,
        };
        let limits = Limits::default();
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("task");
        let text = |exit| match warm_up_failure(&project, &result(exit), limits, |l| {
            crate::build_log::maven_failure(l)
        }) {
            BuildError::WarmUp { tail, .. } => tail,
            other => panic!("{other}"),
        };
        let killed = text(ExitKind::Signal(libc::SIGKILL));
        assert!(
            killed.starts_with("killed by signal 9 (the sandbox's memory limit of 3072 MiB"),
            "{killed}"
        );
        assert!(killed.ends_with("Running a.BTest"), "{killed}");
        let output = text(ExitKind::OutputLimit);
        assert!(
            output.starts_with("killed at its output limit of 64 MiB"),
            "{output}"
        );
        assert_eq!(text(ExitKind::Code(1)), "[INFO] Running a.BTest");
        let kept = std::fs::read_to_string(dir.path().join("task.log")).unwrap();
        assert_eq!(kept, "[INFO] Running a.BTest\n");
    }

    /// A JDK 8 task on the substitute JDK gets JDK 8's JAF, JAXB API and JAXB implementation on
    /// every JVM's boot class path, beside the argument file that opens the JDK's packages; a JDK 17 task neither.
    #[test]
    fn a_jdk_8_task_gets_the_removed_apis_on_the_boot_class_path() {
        let dir = tempfile::tempdir().unwrap();
        let maven = |jdk: u32| unsandboxed(jdk, ".", &dir.path().join("repository")).unwrap();
        let env = maven(8).java_launcher_env();
        assert_eq!(env.len(), 1, "{env:?}");
        let access = dir.path().join("jdk-access");
        let options = &env[0].1;
        assert!(
            options.starts_with(&format!("@{}/", access.display())),
            "{options}"
        );
        assert!(
            options.ends_with(&format!(
                " -Xbootclasspath/a:{0}/removed-apis/javax.activation-1.2.0.jar:{0}/removed-apis/jaxb-api-2.3.1.jar:{0}/removed-apis/jaxws-api-2.3.1.jar:{0}/removed-apis/javax.xml.soap-api-1.4.0.jar:{0}/removed-apis/javax.jws-api-1.1.jar:{0}/removed-apis/javax.annotation-api-1.3.2.jar:{0}/removed-apis/{1}",
                access.display(),
                crate::access::implementations_jar_name()
            )),
            "{options}"
        );
        assert!(maven(17).java_launcher_env().is_empty());
    }

    /// A warm-up through the reactor names the tested module's test classes only: not a
    /// nested module's, not build output, not helpers the default includes leave out.
    #[test]
    fn the_warm_up_includes_only_the_tested_modules_tests() {
        let dir = tempfile::tempdir().unwrap();
        let module = dir.path().join("oort");
        for file in [
            "pom.xml",
            "src/test/java/a/OortTest.java",
            "src/test/java/a/b/TestSeti.java",
            "src/test/java/a/OortTests.java",
            "src/test/java/a/Helper.java",
            "src/main/java/a/MainTest.java",
            "target/test-classes/a/OortTest.java",
            "nested/pom.xml",
            "nested/src/test/java/n/NestedTest.java",
        ] {
            let path = module.join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "").unwrap();
        }
        assert_eq!(
            module_test_includes(&module),
            ["a/OortTest.java", "a/OortTests.java", "a/b/TestSeti.java"]
        );
        assert!(module_test_includes(&dir.path().join("absent")).is_empty());
    }

    #[test]
    fn the_pom_walk_follows_no_link() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("pom.xml"), "<project/>").unwrap();
        let project = dir.path().join("project");
        std::fs::create_dir_all(project.join("module")).unwrap();
        std::fs::write(project.join("pom.xml"), "<project/>").unwrap();
        std::fs::write(project.join("module/pom.xml"), "<project/>").unwrap();
        // A folder and a pom that a build left as links out of the project.
        std::os::unix::fs::symlink(outside.path(), project.join("elsewhere")).unwrap();
        std::fs::create_dir(project.join("other")).unwrap();
        std::os::unix::fs::symlink(
            outside.path().join("pom.xml"),
            project.join("other/pom.xml"),
        )
        .unwrap();
        let mut found = walk_poms(&project);
        found.sort();
        assert_eq!(
            found,
            [project.join("module/pom.xml"), project.join("pom.xml")]
        );
    }

    /// No machine has JDK 6: a newer JDK stands in, every source/target property is set to its
    /// floor, and a pom's hard-coded level below the floor is raised while others stay.
    #[test]
    fn a_substituted_jdk_compiles_at_its_floor_and_raises_hard_coded_levels() {
        let maven = unsandboxed(6, ".", Path::new("/nonexistent"))
            .expect("an installed JDK stands in for 6");
        let level = if maven.jdk().major >= 20 {
            "1.8"
        } else {
            "1.7"
        };
        for property in [
            "compiler.source",
            "compiler.target",
            "compile.source",
            "compile.target",
        ] {
            let arg = format!("-Dmaven.{property}={level}");
            assert!(
                maven.extra_args.contains(&arg),
                "{arg} in {:?}",
                maven.extra_args
            );
        }
        assert!(
            maven
                .substitution()
                .is_some_and(|s| s.contains("JDK 6 is not installed"))
        );

        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("pom.xml"),
            "<source>1.5</source><target>11</target>",
        )
        .unwrap();
        let notes = adapt_build_files(dir.path(), 6, Path::new("/nonexistent")).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert_eq!(
            std::fs::read_to_string(dir.path().join("pom.xml")).unwrap(),
            format!("<source>{level}</source><target>11</target>")
        );
        // A written level the substitute still compiles stays as written, though below the
        // task's: JDK 8 compiled a pom's 1.7 at 7 (where there is no JDK 8 here).
        if find_jdk(8).is_err() {
            std::fs::write(
                dir.path().join("pom.xml"),
                "<source>1.7</source><target>1.6</target>",
            )
            .unwrap();
            adapt_build_files(dir.path(), 8, Path::new("/nonexistent")).unwrap();
            let seven = if maven.jdk().major >= 20 {
                "1.8"
            } else {
                "1.7"
            };
            assert_eq!(
                std::fs::read_to_string(dir.path().join("pom.xml")).unwrap(),
                format!("<source>{seven}</source><target>{seven}</target>")
            );
        }
        // The task's own JDK (the one running the build here) changes nothing.
        let own = maven.jdk().major;
        std::fs::write(dir.path().join("pom.xml"), "<source>1.5</source>").unwrap();
        assert!(
            adapt_build_files(dir.path(), own, Path::new("/nonexistent"))
                .unwrap()
                .is_empty()
        );
    }

    /// The tested module's build output, test classes included, and through the reactor its
    /// siblings' (but their test classes), is copied for the run (plain folders and files only)
    /// and mounted writable over the original; other modules and anything that is not a plain
    /// folder stay as they are.
    #[test]
    fn the_reactor_modules_build_output_is_a_writable_copy() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("project");
        let write = |path: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, "x").unwrap();
            std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o444)).unwrap();
        };
        write("app/target/classes/a/App.class");
        write("app/target/test-classes/a/AppTest.class");
        write("app/target/avrlab-excluded-tests.txt");
        write("lib/target/classes/version.properties");
        write("lib/target/generated-sources/a/Gen.java");
        write("tool/target/classes/t/Tool.class");
        std::os::unix::fs::symlink("/etc", root.join("lib/target/classes/etc")).unwrap();
        std::os::unix::fs::symlink("/etc", root.join("lib/target/linked")).unwrap();
        let reactor = Reactor {
            module: "app".into(),
            siblings: vec!["lib".into()],
            others: vec!["lib".into(), "tool".into()],
            test_jar_siblings: vec![],
            plugin_modules: vec![],
            packaged_modules: vec![],
        };
        let copies = dir.path().join("copies");
        let mut mounts =
            writable_build_output(&root, &reactor.module, &reactor.siblings, false, &copies)
                .unwrap();
        let mut targets: Vec<PathBuf> = mounts
            .iter()
            .map(|m| match m {
                Mount::BindAt { target, .. } => target.clone(),
                other => panic!("not a writable bind: {other:?}"),
            })
            .collect();
        targets.sort();
        assert_eq!(
            targets,
            [
                root.join("app/target/classes"),
                root.join("app/target/test-classes"),
                root.join("lib/target/classes"),
                root.join("lib/target/generated-sources"),
            ]
        );
        mounts.retain(
            |m| matches!(m, Mount::BindAt { target, .. } if target.ends_with("lib/target/classes")),
        );
        let Mount::BindAt { source, .. } = &mounts[0] else {
            unreachable!()
        };
        let copied = source.join("version.properties");
        assert_eq!(std::fs::read_to_string(&copied).unwrap(), "x");
        std::fs::write(&copied, "rewritten").unwrap();
        assert!(!source.join("etc").exists(), "a link is never copied");
    }

    /// A tested module that takes a sibling's `test-jar` runs the `test-compile` phase through the
    /// reactor, with every other module's test classes copied and excluded by name; not when a
    /// sibling has a test class of the tested module's name, nor without a `test-jar`.
    #[test]
    fn a_test_jar_reactor_compiles_tests_and_excludes_the_other_modules_by_name() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, "x").unwrap();
        };
        write("oidc/target/test-classes/o/TokenTests.class");
        write("core/target/test-classes/c/TestsConstants.class");
        write("cas/target/test-classes/c/CasTests.class");
        write("cas/target/test-classes/c/CasTests$Inner.class");
        let reactor = Reactor {
            module: "oidc".into(),
            siblings: vec!["cas".into(), "core".into()],
            others: vec!["cas".into(), "core".into()],
            test_jar_siblings: vec!["core".into()],
            plugin_modules: vec![],
            packaged_modules: vec![],
        };
        let plan = TestJarReactor::plan(root, &reactor).expect("a test-jar sibling");
        assert_eq!(plan.modules, reactor.others);
        let copies = dir.path().join("copies");
        let mounts =
            writable_build_output(root, &reactor.module, &plan.modules, true, &copies).unwrap();
        assert!(
            mounts.iter().any(
                |m| matches!(m, Mount::BindAt { target, .. } if target.ends_with("cas/target/test-classes"))
            ),
            "{mounts:?}"
        );
        assert_eq!(
            compiled_test_classes(&root.join("cas/target/test-classes")),
            ["c/CasTests.class"]
        );
        let plain = Reactor {
            test_jar_siblings: vec![],
            ..reactor.clone()
        };
        assert!(TestJarReactor::plan(root, &plain).is_none());
        write("cas/target/test-classes/o/TokenTests.class");
        assert!(
            TestJarReactor::plan(root, &reactor).is_none(),
            "a sibling's test class of the tested module's name would exclude the tested module's own"
        );
    }

    /// A module that needs a sibling runs from the project root with `-pl <module> -am`; one that
    /// needs none keeps its own folder. The siblings' test classes are hidden from the test run
    /// (their whole `target/` when the test classes are not a plain folder).
    #[test]
    fn a_module_with_a_sibling_runs_from_the_root_and_hides_the_siblings_tests() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        let write = |path: &str, text: &str| {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        };
        write(
            "pom.xml",
            "<project><groupId>g</groupId><artifactId>root</artifactId></project>",
        );
        write(
            "lib/pom.xml",
            "<project><parent><groupId>g</groupId></parent><artifactId>lib</artifactId></project>",
        );
        write(
            "tool/pom.xml",
            "<project><parent><groupId>g</groupId></parent><artifactId>tool</artifactId></project>",
        );
        write(
            "app/pom.xml",
            "<project><parent><groupId>g</groupId></parent><artifactId>app</artifactId>\
             <dependencies><dependency><groupId>g</groupId><artifactId>lib</artifactId>\
             </dependency></dependencies></project>",
        );
        std::fs::create_dir_all(root.join("lib/target/test-classes")).unwrap();
        write("tool/target/test-classes", "not a folder");
        let maven = |module: &str| unsandboxed(17, module, Path::new("/nonexistent")).unwrap();
        let policy = SandboxPolicy {
            mounts: vec![],
            network: false,
        };
        let app = maven("app");
        let reactor = app.reactor(root).expect("app depends on lib");
        let spec = app.module_spec(
            root,
            vec!["-o".into()],
            policy.clone(),
            Limits::default(),
            Some(&reactor),
        );
        assert_eq!(spec.cwd, root);
        let at = spec.args.iter().position(|a| a == "-pl").unwrap();
        assert_eq!(spec.args[at..at + 4], ["-pl", "app", "-am", "-o"]);
        let hidden = hidden_sibling_tests(root, &reactor);
        assert_eq!(
            hidden,
            [
                Mount::Tmpfs(root.join("lib/target/test-classes")),
                Mount::Tmpfs(root.join("tool/target")),
            ]
        );

        // Taken as a test-jar, lib's test classes stay on app's class path, each one excluded
        // from the run instead (inner classes go with their class).
        write(
            "app/pom.xml",
            "<project><parent><groupId>g</groupId></parent><artifactId>app</artifactId>\
             <dependencies><dependency><groupId>g</groupId><artifactId>lib</artifactId>\
             <type>test-jar</type></dependency></dependencies></project>",
        );
        write("lib/target/test-classes/a/LibTest.class", "");
        write("lib/target/test-classes/a/LibTest$Inner.class", "");
        let reactor = app.reactor(root).expect("app depends on lib");
        assert_eq!(
            hidden_sibling_tests(root, &reactor),
            [Mount::Tmpfs(root.join("tool/target"))]
        );
        assert_eq!(
            compiled_test_classes(&root.join("lib/target/test-classes")),
            ["a/LibTest.class"]
        );

        let lib = maven("lib");
        assert_eq!(lib.reactor(root), None);
        let spec = lib.module_spec(root, vec!["-o".into()], policy, Limits::default(), None);
        assert_eq!(spec.cwd, root.join("lib"));
        assert!(!spec.args.iter().any(|a| a == "-pl"));
    }
}
