//! The fast path's process side: building the resident validator (a small Java helper, compiled
//! from the sources in `java/fastpath` with the task's own JDK), warming a task up for it (the
//! project compiled once and its test classpath resolved by Maven), and talking to one resident
//! validator JVM per task and worker over an authenticated channel.
//!
//! Every frame the helper sends carries an HMAC-SHA256 under a key made for the session and handed
//! to the helper on its standard input before any project code is loaded. Test code runs in the
//! same JVM and can write to the same descriptor, so anything that is not a frame under that key,
//! for the sequence number just asked, is discarded; a frame that fails authentication ends the
//! session and makes the candidate's verdict `Indeterminate`.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use avrlab_bench::{RegressionTests, TestName};
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::maven::{Maven, MavenError, last_error_line};
use crate::process::{ProcessError, RunSpec, run};
use crate::resident::{ReadLine, ResidentProcess};
use crate::sandbox::{Limits, Mount, SandboxKind, SandboxPolicy};
use crate::surefire::{TestCaseResult, TestStatus};

/// The helper's sources, compiled on first use (the binary carries them; nothing prebuilt).
const CONTROL_SOURCES: [(&str, &str); 5] = [
    (
        "module-info.java",
        include_str!("../../../java/fastpath/control/module-info.java"),
    ),
    (
        "avrlab/fastpath/Main.java",
        include_str!("../../../java/fastpath/control/avrlab/fastpath/Main.java"),
    ),
    (
        "avrlab/fastpath/Compile.java",
        include_str!("../../../java/fastpath/control/avrlab/fastpath/Compile.java"),
    ),
    (
        "avrlab/fastpath/Api.java",
        include_str!("../../../java/fastpath/control/avrlab/fastpath/Api.java"),
    ),
    (
        "avrlab/fastpath/system/SystemLoader.java",
        include_str!("../../../java/fastpath/control/avrlab/fastpath/system/SystemLoader.java"),
    ),
];
const RUNNER_SOURCE: (&str, &str) = (
    "avrlab/fastpath/runner/Runner.java",
    include_str!("../../../java/fastpath/runner/avrlab/fastpath/runner/Runner.java"),
);

/// What the fast path needs of a task, resolved once at warm-up.
#[derive(Debug, Clone)]
pub struct FastBuild {
    /// The project compiled from the pristine state (its `target/classes` and `target/test-classes`).
    pub project: PathBuf,
    /// The test classpath (dependencies), with the JUnit Platform launcher added.
    pub classpath: Vec<PathBuf>,
    /// The helper's compiled classes.
    pub helper: PathBuf,
    /// What the warm-up decided that Maven does differently (the vintage engine added, an old
    /// JUnit replaced), shown in every fast verdict's log.
    pub notes: Vec<String>,
}

impl FastBuild {
    /// Moves a freshly warmed build (in `staging`) to `kept`, where later runs find it.
    pub fn keep(self, staging: &Path, kept: &Path) -> Result<Self, FastPathError> {
        let parent = kept.parent().expect("a kept build lives in a folder");
        std::fs::create_dir_all(parent).map_err(io(parent))?;
        let _ = std::fs::remove_dir_all(kept);
        std::fs::rename(staging, kept).map_err(io(kept))?;
        let module = self
            .project
            .strip_prefix(staging)
            .unwrap_or(Path::new(""))
            .to_owned();
        let build = Self {
            project: kept.join(module),
            classpath: self.classpath,
            helper: self.helper,
            notes: self.notes,
        };
        let record = format!(
            "{}\n{}\n{}\n{}\n",
            build.project.display(),
            build.helper.display(),
            std::env::join_paths(&build.classpath)
                .map_err(|e| FastPathError::Start(e.to_string()))?
                .to_string_lossy(),
            build.notes.join("\t")
        );
        let file = kept.join(".avrlab-fast-build");
        std::fs::write(&file, record).map_err(io(&file))?;
        Ok(build)
    }

    /// A build kept by an earlier run, if it is complete and everything it names still exists.
    /// The helper is looked up again (it is rebuilt when its sources changed).
    pub fn load(
        kept: &Path,
        maven: &Maven,
        helper_cache: &Path,
    ) -> Result<Option<Self>, FastPathError> {
        let Ok(text) = std::fs::read_to_string(kept.join(".avrlab-fast-build")) else {
            return Ok(None);
        };
        let mut lines = text.lines();
        let (Some(project), Some(_), Some(classpath), Some(notes)) =
            (lines.next(), lines.next(), lines.next(), lines.next())
        else {
            return Ok(None);
        };
        let notes = notes
            .split('\t')
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        let project = PathBuf::from(project);
        let classpath: Vec<PathBuf> = std::env::split_paths(classpath).collect();
        let present = classpath.iter().all(|p| maven.host_path(p).exists());
        if !project.join("target/classes").is_dir() || !present {
            return Ok(None);
        }
        let helper = maven.build_helper(helper_cache, &classpath)?;
        Ok(Some(Self {
            project,
            classpath,
            helper,
            notes,
        }))
    }
}

/// Why the fast path cannot take a task (it then falls back to Maven; not an error).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unsupported(pub String);

/// Why the fast path could not be driven (infrastructure).
#[derive(Debug, thiserror::Error)]
pub enum FastPathError {
    /// Maven failed during the warm-up.
    #[error(transparent)]
    Maven(#[from] MavenError),
    /// A process could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// The helper did not compile (a bug in avrlab, or a JDK without javac).
    #[error("cannot build the fast-path helper with {javac}: {tail}")]
    HelperBuild { javac: PathBuf, tail: String },
    /// A file operation failed.
    #[error("cannot use {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The helper could not be started or told its task.
    #[error("cannot start the resident validator: {0}")]
    Start(String),
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FastPathError + '_ {
    move |source| FastPathError::Io {
        path: path.to_owned(),
        source,
    }
}

/// `…/junit-platform-engine-1.10.2.jar` → `1.10.2`.
fn artifact_version(path: &Path, artifact: &str) -> Option<String> {
    let name = path.file_name()?.to_str()?;
    let rest = name.strip_prefix(artifact)?.strip_prefix('-')?;
    let version = rest.strip_suffix(".jar")?;
    version
        .chars()
        .next()
        .is_some_and(|c| c.is_ascii_digit())
        .then(|| version.to_owned())
}

/// The JUnit Platform a project without one (JUnit 3 or 4 tests only) is run on: the release
/// line the pinned Surefire 3.2.5 resolves for its own JUnit Platform provider.
const PLATFORM: &str = "1.10.2";
/// What a JUnit 4 older than 4.12 (or a JUnit 3) is replaced by: the vintage engine refuses
/// anything before 4.12, and JUnit 4 runs JUnit 3 `TestCase` classes itself.
const JUNIT4_SUBSTITUTE: &str = "4.13.2";

/// How a project's test classpath becomes one the JUnit Platform launcher can run.
#[derive(Debug, Default, PartialEq, Eq)]
struct PlatformPlan {
    /// Artifacts to add (group, artifact, version), fetched into the shared repository.
    added: Vec<(String, String, String)>,
    /// Entries of the project's classpath left out (an old JUnit replaced by a newer one).
    dropped: Vec<PathBuf>,
    /// What was decided, for the evidence of every verdict.
    notes: Vec<String>,
}

/// `4.8.2` → (4, 8); `3.8.1` → (3, 8).
fn major_minor(version: &str) -> (u32, u32) {
    let mut parts = version
        .split(['.', '-'])
        .map(|p| p.parse::<u32>().unwrap_or(0));
    (parts.next().unwrap_or(0), parts.next().unwrap_or(0))
}

/// Decides what the launcher needs besides the project's own test classpath: the launcher of
/// the project's JUnit Platform version, or, for JUnit 3/4 projects, the platform and the vintage
/// engine (versions of one release line), with an old JUnit replaced by 4.13.2 (recorded).
fn platform_plan(classpath: &[PathBuf]) -> Result<PlatformPlan, Unsupported> {
    let version_of = |artifact: &str| {
        classpath
            .iter()
            .find_map(|p| artifact_version(p, artifact).map(|v| (p.clone(), v)))
    };
    let mut plan = PlatformPlan::default();
    let add = |plan: &mut PlatformPlan, group: &str, artifact: &str, version: &str| {
        if version_of(artifact).is_none() {
            plan.added
                .push((group.to_owned(), artifact.to_owned(), version.to_owned()));
        }
    };
    // groupId `junit`: `junit-4.12.jar` (the platform's jars have a name after `junit-`).
    let junit = version_of("junit");
    let platform = version_of("junit-platform-engine").map(|(_, v)| v);
    if platform.is_none() && junit.is_none() {
        return Err(Unsupported(
            "the project's tests use neither the JUnit Platform nor JUnit 3/4 (TestNG or \
             another framework); only those run on the fast path"
                .into(),
        ));
    }
    // Surefire picks its provider in this order: the JUnit Platform, then TestNG, then JUnit 4/3.
    // Without a platform, a project with TestNG (which brings JUnit 4 along) has its tests run by
    // the TestNG provider, which the fast path does not imitate.
    if platform.is_none()
        && let Some((_, version)) = version_of("testng")
    {
        return Err(Unsupported(format!(
            "the project's tests run on TestNG {version} (Surefire's TestNG provider); only \
             JUnit Platform and JUnit 3/4 tests run on the fast path"
        )));
    }
    // A project with the platform runs what its own engines find, like Surefire's platform
    // provider (which would not run JUnit 4 tests without the project's vintage engine either).
    let own_platform = platform.is_some();
    let platform = platform.unwrap_or_else(|| PLATFORM.to_owned());
    add(
        &mut plan,
        "org.junit.platform",
        "junit-platform-engine",
        &platform,
    );
    add(
        &mut plan,
        "org.junit.platform",
        "junit-platform-commons",
        &platform,
    );
    add(
        &mut plan,
        "org.junit.platform",
        "junit-platform-launcher",
        &platform,
    );
    add(&mut plan, "org.opentest4j", "opentest4j", "1.3.0");
    add(&mut plan, "org.apiguardian", "apiguardian-api", "1.1.2");
    let Some((jar, version)) = junit.filter(|_| !own_platform) else {
        return Ok(plan);
    };
    if major_minor(&version) < (4, 12) {
        plan.dropped.push(jar);
        plan.added
            .push(("junit".into(), "junit".into(), JUNIT4_SUBSTITUTE.to_owned()));
        add(&mut plan, "org.hamcrest", "hamcrest-core", "1.3");
        plan.notes.push(format!(
            "junit {version} replaced by {JUNIT4_SUBSTITUTE} on the fast path (the vintage \
             engine needs 4.12 or newer); Maven runs the project's own"
        ));
    }
    {
        // Platform 1.N goes with the vintage engine 5.N of the same release.
        let vintage = format!("5{}", platform.strip_prefix('1').unwrap_or(&platform));
        plan.added.push((
            "org.junit.vintage".into(),
            "junit-vintage-engine".into(),
            vintage.clone(),
        ));
        plan.notes.push(format!(
            "JUnit 3/4 tests run through the JUnit Vintage engine {vintage} (platform {platform}), \
             added for the fast path"
        ));
    }
    Ok(plan)
}

impl Maven {
    /// Prepares `project` (a copy of the pristine state that the fast path keeps) for the fast
    /// path: compiles it and its tests, resolves the test classpath, adds the JUnit Platform
    /// launcher of the project's own platform version, and builds the helper. Runs sandboxed with
    /// network, like the Maven warm-up, and never on a candidate.
    pub fn fast_warm_up(
        &self,
        project: &Path,
        helper_cache: &Path,
    ) -> Result<Result<FastBuild, Unsupported>, FastPathError> {
        if self.jdk().major < 11 {
            return Ok(Err(Unsupported(format!(
                "the resident validator needs JDK 11 or newer; this task builds with JDK {}",
                self.jdk().major
            ))));
        }
        if let Some(reactor) = self.reactor(project) {
            // The resident validator compiles changed files under the tested module only and runs
            // against a classpath resolved once; a sibling's classes live in each workspace. Every
            // candidate of such a task goes to Maven, which builds the siblings in the reactor.
            return Ok(Err(Unsupported(format!(
                "the fast path does not build sibling modules yet ({})",
                reactor.describe()
            ))));
        }
        let module = project.join(self.module());
        let classpath_file = module.join("target").join("avrlab-test-classpath.txt");
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(true),
                Mount::ReadWrite(project.to_owned()),
            ],
            network: true,
        };
        let limits = Limits {
            wall: Duration::from_secs(1800),
            ..self.settings().limits
        };
        let args = vec![
            "test-compile".to_owned(),
            "dependency:build-classpath".to_owned(),
            format!("-Dmdep.outputFile={}", classpath_file.display()),
            "-Dmdep.includeScope=test".to_owned(),
        ];
        let result = run(&self.spec(project, args, policy.clone(), limits))?;
        if !result.exit.success() {
            return Ok(Err(Unsupported(format!(
                "compiling the pristine state or resolving its test classpath failed: {}",
                last_error_line(&result)
            ))));
        }
        let text = std::fs::read_to_string(&classpath_file).map_err(io(&classpath_file))?;
        let classpath: Vec<PathBuf> = std::env::split_paths(text.trim()).collect();
        let plan = match platform_plan(&classpath) {
            Ok(plan) => plan,
            Err(unsupported) => return Ok(Err(unsupported)),
        };
        // Class paths are written as the sandbox sees the repository; files are checked on the host.
        let mut classpath: Vec<PathBuf> = classpath
            .into_iter()
            .filter(|p| !plan.dropped.iter().any(|d| p == d))
            .collect();
        for (group, artifact, version) in &plan.added {
            let jar = self.repository_view().join(format!(
                "{}/{artifact}/{version}/{artifact}-{version}.jar",
                group.replace('.', "/")
            ));
            if !self.host_path(&jar).is_file() {
                let args = vec![
                    "dependency:get".to_owned(),
                    format!("-Dartifact={group}:{artifact}:{version}"),
                    "-Dtransitive=false".to_owned(),
                ];
                let result = run(&self.spec(project, args, policy.clone(), limits))?;
                if !result.exit.success() || !self.host_path(&jar).is_file() {
                    return Ok(Err(Unsupported(format!(
                        "cannot fetch {group}:{artifact}:{version}: {}",
                        last_error_line(&result)
                    ))));
                }
            }
            classpath.push(jar);
        }
        let helper = self.build_helper(helper_cache, &classpath)?;
        Ok(Ok(FastBuild {
            project: module,
            classpath,
            helper,
            notes: plan.notes,
        }))
    }

    /// Compiles the helper with this task's JDK against its launcher, once per source text, JDK
    /// and classpath: `<cache>/<fingerprint>/{control,runner}`.
    pub(crate) fn build_helper(
        &self,
        cache: &Path,
        classpath: &[PathBuf],
    ) -> Result<PathBuf, FastPathError> {
        let mut hasher = Sha256::new();
        for (name, text) in CONTROL_SOURCES.iter().chain([&RUNNER_SOURCE]) {
            hasher.update(name.as_bytes());
            hasher.update(text.as_bytes());
        }
        hasher.update(self.jdk().home.to_string_lossy().as_bytes());
        for entry in classpath {
            hasher.update(entry.to_string_lossy().as_bytes());
        }
        let dir = cache.join(hex::encode(&hasher.finalize()[..12]));
        if dir.join("complete").is_file() {
            return Ok(dir);
        }
        // One staging folder per build, also between threads of one process (warm-ups run in
        // parallel).
        static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let staging = cache.join(format!(
            "staging-{}-{}",
            std::process::id(),
            BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&staging);
        for (name, text) in CONTROL_SOURCES {
            let path = staging.join("src/control").join(name);
            std::fs::create_dir_all(path.parent().expect("a file in a folder"))
                .map_err(io(&path))?;
            std::fs::write(&path, text).map_err(io(&path))?;
        }
        let runner_src = staging.join("src/runner").join(RUNNER_SOURCE.0);
        std::fs::create_dir_all(runner_src.parent().expect("a file in a folder"))
            .map_err(io(&runner_src))?;
        std::fs::write(&runner_src, RUNNER_SOURCE.1).map_err(io(&runner_src))?;
        let release = self.jdk().major.to_string();
        let joined = std::env::join_paths(classpath)
            .map_err(|e| FastPathError::Start(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        let control: Vec<String> = CONTROL_SOURCES
            .iter()
            .map(|(name, _)| staging.join("src/control").join(name).display().to_string())
            .collect();
        let mut control_args = vec![
            "--release".to_owned(),
            release.clone(),
            "-nowarn".to_owned(),
            "-d".to_owned(),
            staging.join("control").display().to_string(),
        ];
        control_args.extend(control);
        let runner_args = vec![
            "--release".to_owned(),
            release,
            "-nowarn".to_owned(),
            "-cp".to_owned(),
            joined,
            "-d".to_owned(),
            staging.join("runner").display().to_string(),
            runner_src.display().to_string(),
        ];
        let javac = self.jdk().home.join("bin/javac");
        for args in [control_args, runner_args] {
            let spec = RunSpec {
                program: javac.clone(),
                args,
                cwd: staging.clone(),
                env: vec![("LANG".into(), "C.UTF-8".into())],
                sandbox: self.settings().sandbox,
                policy: self.with_toolchain(SandboxPolicy {
                    mounts: vec![
                        self.repository_mount(false),
                        Mount::ReadWrite(staging.clone()),
                    ],
                    network: false,
                }),
                limits: self.settings().limits,
                stdin: Vec::new(),
            };
            let result = run(&spec)?;
            if !result.exit.success() {
                return Err(FastPathError::HelperBuild {
                    javac,
                    tail: javac_errors(&crate::maven::combined_log(&result))
                        .unwrap_or_else(|| last_error_line(&result)),
                });
            }
        }
        std::fs::write(staging.join("complete"), "").map_err(io(&staging))?;
        match std::fs::rename(&staging, &dir) {
            Ok(()) => Ok(dir),
            // Another process built the same helper first: use its copy.
            Err(_) if dir.join("complete").is_file() => {
                let _ = std::fs::remove_dir_all(&staging);
                Ok(dir)
            }
            Err(e) => Err(io(&dir)(e)),
        }
    }

    /// Starts a resident validator for `build`. `sources` is the folder under which each request's
    /// changed source files will be written (mounted read-only); `test_timeout` bounds each test
    /// (JUnit's per-test timeout) and each test phase.
    pub fn start_fast_session(
        &self,
        build: &FastBuild,
        sources: &Path,
        test_timeout: Duration,
    ) -> Result<FastSession, FastPathError> {
        let home = match self.settings().sandbox {
            SandboxKind::Bubblewrap => "/tmp".to_owned(),
            SandboxKind::None => std::env::temp_dir().to_string_lossy().into_owned(),
        };
        // Like Surefire's forked JVM: the working directory is the module, `basedir` names it,
        // and `target/` is writable in memory with the build's output mounted back read-only
        // (the helper empties what a candidate's tests wrote there before the next one).
        let target = build.project.join("target");
        let mut mounts = vec![
            self.repository_mount(false),
            Mount::ReadOnly(build.project.clone()),
            Mount::Tmpfs(target.clone()),
        ];
        for entry in std::fs::read_dir(&target).map_err(io(&target))?.flatten() {
            let plain = std::fs::symlink_metadata(entry.path())
                .map(|m| m.is_dir() || m.is_file())
                .unwrap_or(false);
            if plain {
                mounts.push(Mount::ReadOnly(entry.path()));
            }
        }
        mounts.push(Mount::ReadOnly(build.helper.clone()));
        mounts.push(Mount::ReadOnly(sources.to_owned()));
        let basedir = format!("-Dbasedir={}", build.project.display());
        let spec = RunSpec {
            program: self.jdk().home.join("bin/java"),
            args: [
                "-Djava.security.manager=allow",
                // The project on the system class path, as in Surefire's fork.
                "-Djava.system.class.loader=avrlab.fastpath.system.SystemLoader",
                &basedir,
                "-XX:+DisableAttachMechanism",
                "-XX:+UseSerialGC",
                "-XX:TieredStopAtLevel=1",
                "-Xss4m",
                "-Xmx1g",
                "--module-path",
                &build.helper.join("control").display().to_string(),
                "-m",
                "avrlab.fastpath/avrlab.fastpath.Main",
            ]
            .map(str::to_owned)
            .to_vec(),
            cwd: build.project.clone(),
            env: vec![
                ("HOME".into(), home),
                ("LANG".into(), "C.UTF-8".into()),
                (
                    "PATH".into(),
                    format!("{}/bin:/usr/bin:/bin", self.jdk().home.display()),
                ),
            ]
            .into_iter()
            .chain(self.java_launcher_env())
            .collect(),
            sandbox: self.settings().sandbox,
            policy: self.with_toolchain(SandboxPolicy {
                mounts,
                network: false,
            }),
            limits: self.settings().limits,
            stdin: Vec::new(),
        };
        let mut process = ResidentProcess::start(&spec)?;
        let mut key = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
            .map_err(io(Path::new("/dev/urandom")))?;
        let joined = std::env::join_paths(&build.classpath)
            .map_err(|e| FastPathError::Start(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        let setup = [
            "SETUP".to_owned(),
            self.jdk().major.to_string(),
            test_timeout.as_millis().to_string(),
            build.project.join("target/classes").display().to_string(),
            build
                .project
                .join("target/test-classes")
                .display()
                .to_string(),
            build.helper.join("runner").display().to_string(),
            joined,
            // What the tests may print per candidate, as for a Maven run.
            self.settings().limits.output_bytes.to_string(),
        ]
        .join("\t");
        process
            .send_line(&format!("KEY\t{}", hex::encode(key)))
            .and_then(|()| process.send_line(&setup))
            .map_err(|e| FastPathError::Start(format!("{e}; {}", process.stderr_text())))?;
        Ok(FastSession {
            process,
            key,
            seq: 0,
            served: 0,
            phase_limit: test_timeout,
        })
    }
}

/// One candidate for the resident validator.
#[derive(Clone)]
pub struct FastRequest<'a> {
    pub pov: &'a [TestName],
    pub regression: &'a RegressionTests,
    /// Tests (whole classes, or `Class#method`) that never count in the regression phase: the
    /// task's baseline exclusions.
    pub excluded: &'a [TestName],
    /// The candidate's changed source files (absolute, under the session's sources folder).
    pub sources: &'a [PathBuf],
    /// With `RegressionTests::AllOthers`: asked, once the PoV tests passed, which regression
    /// test classes to run, given the classes the candidate's files compiled to (test-impact
    /// selection). Without it, every regression test runs.
    pub scope: Option<&'a dyn Fn(&CompiledClasses) -> RegressionScope>,
}

impl std::fmt::Debug for FastRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastRequest")
            .field("pov", &self.pov)
            .field("regression", &self.regression)
            .field("excluded", &self.excluded)
            .field("sources", &self.sources)
            .field("scope", &self.scope.is_some())
            .finish()
    }
}

/// What the resident validator compiled for a candidate, as its compiler reported it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompiledClasses {
    /// Binary names (`a.B`, `a.B$1`) of every class compiled.
    pub classes: Vec<String>,
    /// Every project source was recompiled (the candidate changed an API that other classes
    /// were compiled against), so `classes` is the whole project, not what the candidate changed.
    pub recompiled_all: bool,
}

/// Which regression tests a candidate runs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RegressionScope {
    /// Every regression test.
    All,
    /// Only these test classes (binary names), minus the excluded tests.
    Classes(Vec<String>),
}

/// One regression test class as the task state ran it alone at priming.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestClassLoads {
    /// The test class (binary name).
    pub class: String,
    /// Every test of it passed or was skipped, and it left nothing behind.
    pub clean: bool,
    /// The project classes (main and test, binary names) defined while it ran.
    pub loaded: Vec<String>,
}

/// What recording the task state's class dependence gave.
#[derive(Debug, Clone)]
pub enum Recorded {
    /// Every regression test class ran alone, in its own loader.
    Complete(Vec<TestClassLoads>),
    /// The recording stopped (a time-out, a JVM that must be replaced, a lost session): why.
    Incomplete(String),
}

/// How a test phase of the resident validator ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum PhaseEnd {
    /// The launcher returned.
    Done,
    /// The phase outlived its limit.
    TimedOut(String),
    /// The tests printed past the output limit.
    OutputLimit(String),
    /// The launcher itself failed.
    Crashed(String),
}

/// One test phase (`pov`, `regression`).
#[derive(Debug, Clone)]
pub struct FastPhase {
    pub name: String,
    pub end: PhaseEnd,
    pub wall: Duration,
    pub cases: Vec<TestCaseResult>,
    /// A test hit its per-test timeout.
    pub test_timed_out: bool,
}

/// What the resident validator said about one candidate.
#[derive(Debug, Clone, Default)]
pub struct FastReply {
    /// The fast path cannot judge this candidate; Maven must.
    pub fallback: Option<String>,
    /// The in-memory compilation: its wall time and its errors (none: it compiled).
    pub compile: Option<(Duration, Vec<String>)>,
    /// What the compilation did beyond the candidate's files (every project source recompiled
    /// because the candidate changed an API other classes were compiled against), if anything.
    pub compile_note: Option<String>,
    pub phases: Vec<FastPhase>,
    /// What the tests printed (the end of it).
    pub log: String,
    /// Why the JVM cannot serve another candidate (it has then exited).
    pub dirty: Option<String>,
    /// The session was lost before an authenticated answer came: why.
    pub lost: Option<Lost>,
    /// Code under test called `System.exit` or `Runtime.halt` (blocked).
    pub exit_attempted: bool,
    /// Lines that looked like frames but failed authentication (ignored).
    pub forged_frames: usize,
    pub wall: Duration,
}

/// Why no authenticated answer came.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Lost {
    /// Nothing came before the deadline (the JVM was killed).
    TimedOut,
    /// The JVM exited or closed its output.
    Closed(String),
}

/// A resident validator JVM serving one task for one worker.
pub struct FastSession {
    process: ResidentProcess,
    key: [u8; 32],
    seq: u64,
    /// Candidates served so far.
    pub served: usize,
    phase_limit: Duration,
}

impl std::fmt::Debug for FastSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("FastSession")
            .field("process", &self.process)
            .field("served", &self.served)
            .finish_non_exhaustive()
    }
}

fn unhex(text: &str) -> String {
    hex::decode(text)
        .map(|b| String::from_utf8_lossy(&b).into_owned())
        .unwrap_or_default()
}

fn test_list(tests: &[TestName]) -> String {
    tests
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join(",")
}

impl FastSession {
    /// The limits and sandbox of the JVM.
    pub fn enforcement(&self) -> &str {
        &self.process.enforcement
    }

    /// Validates one candidate. A reply with `dirty` or `lost` set means the session is over.
    pub fn validate(&mut self, request: &FastRequest<'_>) -> FastReply {
        let started = Instant::now();
        self.seq += 1;
        self.served += 1;
        let regression = match request.regression {
            RegressionTests::AllOthers => "*".to_owned(),
            RegressionTests::Listed(list) => test_list(list),
        };
        let sources: Vec<String> = request
            .sources
            .iter()
            .map(|p| p.display().to_string())
            .collect();
        let line = [
            "VALIDATE".to_owned(),
            self.seq.to_string(),
            test_list(request.pov),
            regression,
            sources.join(","),
            test_list(request.excluded),
            if request.scope.is_some() { "ask" } else { "" }.to_owned(),
        ]
        .join("\t");
        let mut reply = FastReply::default();
        if let Err(e) = self.process.send_line(&line) {
            reply.lost = Some(Lost::Closed(format!(
                "cannot send the request ({e}): {}",
                self.process.stderr_text()
            )));
            return reply;
        }
        // Two phases, the compilation and some slack for class loading.
        let deadline = started + self.phase_limit * 2 + Duration::from_secs(30);
        let mut asked = false;
        loop {
            match self.read_frame(deadline, &mut reply.forged_frames) {
                Ok(Frame::Query(payload)) if !asked => {
                    asked = true;
                    let scope = request.scope.map_or(RegressionScope::All, |choose| {
                        choose(&parse_query(&payload))
                    });
                    let answer = match scope {
                        RegressionScope::All => format!("SCOPE\t{}\tall\t", self.seq),
                        RegressionScope::Classes(classes) => format!(
                            "SCOPE\t{}\tonly\t{}",
                            self.seq,
                            hex::encode(classes.join(","))
                        ),
                    };
                    if let Err(e) = self.process.send_line(&answer) {
                        reply.lost = Some(Lost::Closed(format!(
                            "cannot send the regression scope ({e}): {}",
                            self.process.stderr_text()
                        )));
                        break;
                    }
                }
                // A second question for one request is not the helper's.
                Ok(Frame::Query(_)) => reply.forged_frames += 1,
                Ok(Frame::Answer(payload)) => {
                    parse_payload(&payload, &mut reply);
                    break;
                }
                Err(lost) => {
                    reply.lost = Some(lost);
                    break;
                }
            }
        }
        if reply.lost.is_some() {
            self.process.kill();
        }
        reply.wall = started.elapsed();
        reply
    }
}

/// An authenticated frame of the helper for the request just sent.
enum Frame {
    /// A question (`QUERY`): the classes compiled, before the regression phase.
    Query(String),
    /// The answer (`FRAME`).
    Answer(String),
}

impl FastSession {
    /// Reads lines until an authenticated frame for the current request comes; anything else
    /// is test output (ignored) or a forgery (counted). The session is killed when it is lost.
    fn read_frame(&mut self, deadline: Instant, forged: &mut usize) -> Result<Frame, Lost> {
        let answer = format!("FRAME\t{}\t", self.seq);
        let query = format!("QUERY\t{}\t", self.seq);
        let lost = loop {
            match self.process.read_line(deadline) {
                ReadLine::Line(text)
                    if text.starts_with("FRAME\t") || text.starts_with("QUERY\t") =>
                {
                    let Some((signed, tag)) = text.rsplit_once('\t') else {
                        *forged += 1;
                        continue;
                    };
                    let mut mac = Hmac::<Sha256>::new_from_slice(&self.key)
                        .expect("HMAC takes keys of any length");
                    mac.update(signed.as_bytes());
                    let genuine = hex::decode(tag).is_ok_and(|t| mac.verify_slice(&t).is_ok());
                    if !genuine {
                        *forged += 1;
                    } else if let Some(body) = signed.strip_prefix(&answer) {
                        return Ok(Frame::Answer(unhex(body)));
                    } else if let Some(body) = signed.strip_prefix(&query) {
                        return Ok(Frame::Query(unhex(body)));
                    } else {
                        // Genuine, but not for this request: a replay. Ignored, and counted.
                        *forged += 1;
                    }
                }
                // Test code may write to the same descriptor: anything else is not ours.
                ReadLine::Line(_) => {}
                ReadLine::TimedOut => break Lost::TimedOut,
                ReadLine::Closed => break Lost::Closed(self.process.stderr_text()),
            }
        };
        self.process.kill();
        Err(lost)
    }

    /// Runs every regression test class of the task state alone, each in a fresh class loader,
    /// and returns the project classes each one loaded: the record test-impact selection
    /// reads. `excluded` never runs (PoV tests, the baseline's classes). The session is over
    /// when the recording is incomplete.
    pub fn record_class_loads(
        &mut self,
        pov: &[TestName],
        excluded: &[TestName],
        limit: Duration,
    ) -> Recorded {
        self.seq += 1;
        self.served += 1;
        let line = format!(
            "RECORD\t{}\t{}\t{}",
            self.seq,
            test_list(pov),
            test_list(excluded)
        );
        if let Err(e) = self.process.send_line(&line) {
            return Recorded::Incomplete(format!("cannot send the request: {e}"));
        }
        let mut forged = 0;
        let payload = match self.read_frame(Instant::now() + limit, &mut forged) {
            Ok(Frame::Answer(payload)) => payload,
            Ok(Frame::Query(_)) => {
                self.process.kill();
                return Recorded::Incomplete("the helper asked a question while recording".into());
            }
            Err(Lost::TimedOut) => {
                return Recorded::Incomplete(format!(
                    "the recording outlived {} s",
                    limit.as_secs()
                ));
            }
            Err(Lost::Closed(why)) => {
                return Recorded::Incomplete(format!(
                    "the JVM ended: {}",
                    why.lines().last().unwrap_or("no output")
                ));
            }
        };
        parse_record(&payload)
    }
}

/// `CHANGED\t<all|some>\t<hex of a,b,c>`.
fn parse_query(payload: &str) -> CompiledClasses {
    let f: Vec<&str> = payload.lines().next().unwrap_or("").split('\t').collect();
    let classes = unhex(f.get(2).copied().unwrap_or(""));
    CompiledClasses {
        classes: classes
            .split(',')
            .filter(|c| !c.is_empty())
            .map(str::to_owned)
            .collect(),
        // Anything but a plain "some" is taken as the unsafe case.
        recompiled_all: f.get(1) != Some(&"some"),
    }
}

/// `DEPS\t<hex class>\t<clean|unclean>\t<hex of a,b,c>` lines, `RECORDED\t<n>`, `STATE\t…`.
fn parse_record(payload: &str) -> Recorded {
    let mut classes = Vec::new();
    let mut recorded = None;
    for line in payload.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        match f[0] {
            "DEPS" if f.len() >= 4 => classes.push(TestClassLoads {
                class: unhex(f[1]),
                clean: f[2] == "clean",
                loaded: unhex(f[3])
                    .split(',')
                    .filter(|c| !c.is_empty())
                    .map(str::to_owned)
                    .collect(),
            }),
            "RECORDED" => recorded = f.get(1).and_then(|n| n.parse::<usize>().ok()),
            "STATE" if f.get(1) == Some(&"dirty") => {
                return Recorded::Incomplete(format!(
                    "{} (after {} test classes)",
                    unhex(f.get(2).copied().unwrap_or("")),
                    classes.len()
                ));
            }
            _ => {}
        }
    }
    match recorded {
        Some(n) if n == classes.len() => Recorded::Complete(classes),
        _ => Recorded::Incomplete(format!(
            "the helper reported {} test classes of {recorded:?}",
            classes.len()
        )),
    }
}

fn parse_status(text: &str) -> (TestStatus, bool) {
    match text {
        "passed" => (TestStatus::Passed, false),
        "failed" => (TestStatus::Failed, false),
        "skipped" => (TestStatus::Skipped, false),
        "timeout" => (TestStatus::Errored, true),
        _ => (TestStatus::Errored, false),
    }
}

fn parse_payload(payload: &str, reply: &mut FastReply) {
    for line in payload.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let millis = |i: usize| {
            Duration::from_millis(f.get(i).and_then(|t| t.parse().ok()).unwrap_or_default())
        };
        match f[0] {
            "FALLBACK" => reply.fallback = Some(unhex(f.get(1).copied().unwrap_or(""))),
            "COMPILE" => {
                let diagnostics = if f.get(1) == Some(&"ok") {
                    reply.compile_note = f
                        .get(3)
                        .map(|note| unhex(note))
                        .filter(|note| !note.is_empty());
                    Vec::new()
                } else {
                    f.iter().skip(3).map(|d| unhex(d)).collect()
                };
                reply.compile = Some((millis(2), diagnostics));
            }
            "CASE" if f.len() >= 7 => {
                let (status, timed_out) = parse_status(f[4]);
                let case = TestCaseResult {
                    class: unhex(f[2]),
                    method: unhex(f[3]),
                    status,
                    seconds: f[5].parse().unwrap_or_default(),
                    message: unhex(f[6]),
                };
                let phase = phase_named(reply, f[1]);
                phase.test_timed_out |= timed_out;
                phase.cases.push(case);
            }
            "PHASE" if f.len() >= 4 => {
                let detail = unhex(f.get(4).copied().unwrap_or(""));
                let end = match f[2] {
                    "done" => PhaseEnd::Done,
                    "timeout" => PhaseEnd::TimedOut(detail),
                    "output" => PhaseEnd::OutputLimit(detail),
                    _ => PhaseEnd::Crashed(detail),
                };
                let wall = millis(3);
                let phase = phase_named(reply, f[1]);
                phase.end = end;
                phase.wall = wall;
            }
            "LOG" => reply.log = unhex(f.get(1).copied().unwrap_or("")),
            "EXIT" => reply.exit_attempted = true,
            "STATE" if f.get(1) == Some(&"dirty") => {
                reply.dirty = Some(unhex(f.get(2).copied().unwrap_or("")));
            }
            _ => {}
        }
    }
}

fn phase_named<'r>(reply: &'r mut FastReply, name: &str) -> &'r mut FastPhase {
    if let Some(i) = reply.phases.iter().position(|p| p.name == name) {
        return &mut reply.phases[i];
    }
    reply.phases.push(FastPhase {
        name: name.to_owned(),
        end: PhaseEnd::Crashed("the phase did not report its end".into()),
        wall: Duration::ZERO,
        cases: Vec::new(),
        test_timed_out: false,
    });
    reply.phases.last_mut().expect("just pushed")
}

/// javac's own error lines (`File.java:12: error: …`) and its count line, on one line; `None`
/// when the output has none (a crash, a missing program): the caller then says what it has.
fn javac_errors(log: &str) -> Option<String> {
    let errors: Vec<&str> = log
        .lines()
        .map(str::trim)
        .filter(|l| l.contains(": error: "))
        .take(3)
        .collect();
    if errors.is_empty() {
        return None;
    }
    let errors = errors.join("; ");
    let count = log.lines().map(str::trim).find(|l| {
        l.split_once(' ')
            .is_some_and(|(n, word)| n.parse::<u32>().is_ok() && matches!(word, "error" | "errors"))
    });
    Some(match count {
        Some(count) => format!("{errors} ({count})"),
        None => errors,
    })
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_helper_that_does_not_compile_says_where_and_why() {
        let log = "Main.java:78: warning: [removal] setSecurityManager\n\
                   Main.java:272: error: unreported exception InterruptedException\n\
                   \x20       String why = threadsLeft(loader);\n1 error\n1 warning\n";
        assert_eq!(
            javac_errors(log).as_deref(),
            Some("Main.java:272: error: unreported exception InterruptedException (1 error)")
        );
        assert_eq!(javac_errors("Killed\n"), None);
    }

    use super::*;

    #[test]
    fn reads_artifact_versions_from_jar_names() {
        let jar = Path::new(
            "/r/org/junit/platform/junit-platform-engine/1.10.2/junit-platform-engine-1.10.2.jar",
        );
        assert_eq!(
            artifact_version(jar, "junit-platform-engine").as_deref(),
            Some("1.10.2")
        );
        assert_eq!(artifact_version(jar, "junit-platform"), None);
        assert_eq!(
            artifact_version(
                Path::new("x/junit-platform-engine-tests.jar"),
                "junit-platform-engine"
            ),
            None
        );
    }

    fn jars(names: &[&str]) -> Vec<PathBuf> {
        names
            .iter()
            .map(|n| PathBuf::from(format!("/r/x/{n}")))
            .collect()
    }

    fn added(plan: &PlatformPlan) -> Vec<String> {
        plan.added
            .iter()
            .map(|(_, artifact, version)| format!("{artifact}:{version}"))
            .collect()
    }

    #[test]
    fn a_junit4_project_gets_the_platform_and_the_vintage_engine_of_one_release() {
        let plan = platform_plan(&jars(&["junit-4.12.jar", "hamcrest-core-1.3.jar"])).unwrap();
        assert_eq!(
            added(&plan),
            [
                "junit-platform-engine:1.10.2",
                "junit-platform-commons:1.10.2",
                "junit-platform-launcher:1.10.2",
                "opentest4j:1.3.0",
                "apiguardian-api:1.1.2",
                "junit-vintage-engine:5.10.2"
            ]
        );
        assert!(plan.dropped.is_empty());
        assert!(
            plan.notes[0].contains("Vintage engine 5.10.2"),
            "{:?}",
            plan.notes
        );
    }

    #[test]
    fn a_junit_older_than_4_12_is_replaced_and_the_replacement_recorded() {
        for old in ["junit-4.8.2.jar", "junit-3.8.1.jar", "junit-4.11.jar"] {
            let plan = platform_plan(&jars(&[old])).unwrap();
            assert_eq!(plan.dropped, jars(&[old]));
            let added = added(&plan);
            assert!(added.contains(&"junit:4.13.2".to_owned()), "{added:?}");
            assert!(added.contains(&"hamcrest-core:1.3".to_owned()), "{added:?}");
            assert!(
                plan.notes[0].contains("replaced by 4.13.2"),
                "{:?}",
                plan.notes
            );
        }
    }

    #[test]
    fn a_platform_project_gets_only_its_own_launcher_never_vintage() {
        // Surefire's platform provider would not run JUnit 4 tests without the project's own
        // vintage engine, so neither does the fast path.
        let plan = platform_plan(&jars(&[
            "junit-platform-engine-1.9.3.jar",
            "junit-platform-commons-1.9.3.jar",
            "opentest4j-1.2.0.jar",
            "apiguardian-api-1.1.2.jar",
            "junit-4.13.2.jar",
        ]))
        .unwrap();
        assert_eq!(added(&plan), ["junit-platform-launcher:1.9.3"]);
        assert!(plan.notes.is_empty());
    }

    #[test]
    fn a_testng_project_is_not_taken_even_with_the_junit_it_brings() {
        let refused = platform_plan(&jars(&[
            "testng-6.8.7.jar",
            "junit-4.10.jar",
            "bsh-2.0b4.jar",
        ]))
        .unwrap_err();
        assert!(refused.0.contains("TestNG 6.8.7"), "{}", refused.0);
        // With a JUnit Platform, Surefire runs the platform provider, and so does the fast path.
        assert!(
            platform_plan(&jars(&[
                "testng-7.5.jar",
                "junit-platform-engine-1.9.3.jar",
                "junit-jupiter-api-5.9.3.jar",
            ]))
            .is_ok()
        );
    }

    #[test]
    fn a_project_without_junit_is_not_taken() {
        let refused = platform_plan(&jars(&["testng-7.5.jar"])).unwrap_err();
        assert!(
            refused
                .0
                .contains("neither the JUnit Platform nor JUnit 3/4"),
            "{}",
            refused.0
        );
    }

    #[test]
    fn a_recording_is_complete_only_when_every_class_reported_and_the_jvm_stayed_clean() {
        let h = |s: &str| hex::encode(s);
        let deps = format!(
            "DEPS\t{}\tclean\t{}\nDEPS\t{}\tunclean\t{}\n",
            h("a.ZipTest"),
            h("a.Zip,a.Zip$1,a.ZipTest"),
            h("a.TarTest"),
            h("")
        );
        let Recorded::Complete(classes) =
            parse_record(&format!("{deps}RECORDED\t2\nSTATE\tclean\t"))
        else {
            panic!("complete");
        };
        assert_eq!(
            classes[0],
            TestClassLoads {
                class: "a.ZipTest".into(),
                clean: true,
                loaded: vec!["a.Zip".into(), "a.Zip$1".into(), "a.ZipTest".into()],
            }
        );
        assert!(!classes[1].clean && classes[1].loaded.is_empty());
        // One class short of what discovery found, or a JVM that had to be replaced: unusable.
        assert!(matches!(
            parse_record(&format!("{deps}RECORDED\t3\nSTATE\tclean\t")),
            Recorded::Incomplete(_)
        ));
        let Recorded::Incomplete(why) = parse_record(&format!(
            "{deps}RECORDED\t2\nSTATE\tdirty\t{}",
            h("a test phase timed out")
        )) else {
            panic!("incomplete");
        };
        assert!(why.contains("a test phase timed out"), "{why}");
    }

    #[test]
    fn a_query_names_the_compiled_classes_and_anything_unexpected_counts_as_all_recompiled() {
        let h = |s: &str| hex::encode(s);
        assert_eq!(
            parse_query(&format!("CHANGED\tsome\t{}", h("a.B,a.B$1"))),
            CompiledClasses {
                classes: vec!["a.B".into(), "a.B$1".into()],
                recompiled_all: false,
            }
        );
        assert!(parse_query(&format!("CHANGED\tall\t{}", h("a.B"))).recompiled_all);
        assert!(parse_query("").recompiled_all);
    }

    #[test]
    fn a_payload_becomes_phases_with_their_cases() {
        let mut reply = FastReply::default();
        let h = |s: &str| hex::encode(s);
        let payload = format!(
            "COMPILE\tok\t12\nCASE\tpov\t{}\t{}\tfailed\t0.5\t{}\nCASE\tpov\t{}\t{}\ttimeout\t3\t\nPHASE\tpov\tdone\t40\t\nSTATE\tdirty\t{}",
            h("a.BTest"),
            h("m"),
            h("boom"),
            h("a.BTest"),
            h("n"),
            h("thread left")
        );
        parse_payload(&payload, &mut reply);
        assert_eq!(reply.compile, Some((Duration::from_millis(12), Vec::new())));
        let pov = &reply.phases[0];
        assert_eq!(
            (pov.end.clone(), pov.cases.len(), pov.test_timed_out),
            (PhaseEnd::Done, 2, true)
        );
        assert_eq!(pov.cases[0].message, "boom");
        assert_eq!(reply.dirty.as_deref(), Some("thread left"));
    }
}
