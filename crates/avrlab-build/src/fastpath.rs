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

use avrlab_bench::TestName;
use hmac::{Hmac, Mac};
use sha2::{Digest, Sha256};

use crate::helpers::{self, Source};
use crate::maven::{BuildError, Maven, TEST_TMPDIR, last_error_line};
use crate::surefire::{TestCaseResult, TestStatus};
use avrlab_exec::{Limits, Mount, SandboxKind, SandboxPolicy};
use avrlab_exec::{ProcessError, RunSpec, run};
use avrlab_exec::{ReadLine, ResidentProcess};

/// The helper's sources, compiled on first use (the binary carries them, as `java/helpers.toml`
/// lists them; nothing prebuilt).
const CONTROL_SOURCES: &[Source] = helpers::FASTPATH_CONTROL;
const RUNNER_SOURCES: &[Source] = helpers::FASTPATH_RUNNER;
/// The class-path launcher of the test JVM (in the runner's jar), which starts the control module
/// in a module layer of its own.
const BOOT_CLASS: &str = "avrlab.fastpath.runner.Boot";

/// Tests of the helper's own that a pooled test JVM runs before its candidate arrives (the JUnit
/// engine's execution path loaded and compiled by then), each compiled into the runner where the
/// class path has the JUnit API it is written against: (source, a jar of that API starts with).
const WARM_SOURCES: [(&[Source], &str); 2] = [
    (
        helpers::FASTPATH_WARM_JUPITER,
        helpers::FASTPATH_WARM_JUPITER_REQUIRES,
    ),
    (
        helpers::FASTPATH_WARM_JUNIT4,
        helpers::FASTPATH_WARM_JUNIT4_REQUIRES,
    ),
];

/// The warm-up tests that compile against `classpath`.
fn warm_sources(classpath: &[PathBuf]) -> Vec<(&'static str, &'static str)> {
    WARM_SOURCES
        .iter()
        .filter(|(_, api)| {
            classpath.iter().any(|entry| {
                entry
                    .file_name()
                    .is_some_and(|n| n.to_string_lossy().starts_with(api))
            })
        })
        .flat_map(|(sources, _)| sources.iter().copied())
        .collect()
}

/// The helper's runner classes as a jar, in the helper's build folder.
const RUNNER_JAR: &str = "runner.jar";
/// The helper's control module as a modular jar (a class-data archive can be dumped only with
/// jars on the module and class paths).
const CONTROL_JAR: &str = "control.jar";

/// What the fast path needs of a task, resolved once at warm-up.
#[derive(Debug, Clone)]
pub struct FastBuild {
    /// The project compiled from the pristine state (its `target/classes` and `target/test-classes`).
    pub project: PathBuf,
    /// The test classpath (dependencies), with the JUnit Platform launcher added.
    pub classpath: Vec<PathBuf>,
    /// The main classpath (compile-scope dependencies), which main sources compile against.
    pub main_classpath: Vec<PathBuf>,
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
            main_classpath: self.main_classpath,
            helper: self.helper,
            notes: self.notes,
        };
        let join = |paths: &[PathBuf]| {
            std::env::join_paths(paths)
                .map(|p| p.to_string_lossy().into_owned())
                .map_err(|e| FastPathError::Start(e.to_string()))
        };
        let record = format!(
            "{}\n{}\n{}\n{}\n{}\n",
            build.project.display(),
            build.helper.display(),
            join(&build.classpath)?,
            build.notes.join("\t"),
            join(&build.main_classpath)?,
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
        let (Some(project), Some(_), Some(classpath), Some(notes), Some(main_classpath)) = (
            lines.next(),
            lines.next(),
            lines.next(),
            lines.next(),
            lines.next(),
        ) else {
            return Ok(None);
        };
        let notes = notes
            .split('\t')
            .filter(|n| !n.is_empty())
            .map(str::to_owned)
            .collect();
        let project = PathBuf::from(project);
        let classpath: Vec<PathBuf> = std::env::split_paths(classpath).collect();
        let main_classpath: Vec<PathBuf> = std::env::split_paths(main_classpath)
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        let present = classpath
            .iter()
            .chain(&main_classpath)
            .all(|p| maven.host_path(p).exists());
        if !project.join("target/classes").is_dir() || !present {
            return Ok(None);
        }
        let helper = maven.build_helper(helper_cache, &classpath)?;
        Ok(Some(Self {
            project,
            classpath,
            main_classpath,
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
    Maven(#[from] BuildError),
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

/// What the `maven-surefire-plugin` configurations of a pom set that the fast path's test JVM does
/// not imitate, in words (none: it imitates the fork as configured).
fn surefire_differences(pom: &str) -> Vec<String> {
    let mut found = Vec::new();
    for plugin in pom.split("<plugin>").skip(1) {
        let plugin = plugin.split("</plugin>").next().unwrap_or("");
        if !plugin.contains("<artifactId>maven-surefire-plugin</artifactId>") {
            continue;
        }
        let value = |element: &str| {
            plugin
                .split(&format!("<{element}>"))
                .nth(1)
                .and_then(|rest| rest.split(&format!("</{element}>")).next())
                .map(str::trim)
        };
        // A placeholder that only a coverage agent's own goal would fill is left empty by avrlab
        // (`-DargLine=`), so the fork gets nothing from it either.
        if let Some(arg_line) = value("argLine")
            && !arg_line.is_empty()
            && !arg_line.trim_start_matches("@{argLine}").trim().is_empty()
            && !arg_line.trim_start_matches("${argLine}").trim().is_empty()
        {
            found.push(format!("argLine `{arg_line}`"));
        }
        for element in [
            "systemPropertyVariables",
            "systemProperties",
            "environmentVariables",
            "workingDirectory",
            "parallel",
            "threadCount",
        ] {
            if value(element).is_some_and(|v| !v.is_empty()) {
                found.push(format!("<{element}>"));
            }
        }
        if value("enableAssertions") == Some("false") {
            found.push("<enableAssertions>false".into());
        }
        if value("forkCount").is_some_and(|v| v == "0") || value("forkMode") == Some("never") {
            found.push("no forked JVM (forkCount 0)".into());
        }
    }
    found
}

/// `…/junit-platform-engine-1.10.2.jar` → `1.10.2`.
pub(crate) fn artifact_version(path: &Path, artifact: &str) -> Option<String> {
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
pub(crate) fn major_minor(version: &str) -> (u32, u32) {
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
        if let Some(release) = self.release() {
            // The resident validator compiles at the build JDK's own level and runs its tests on
            // the build JDK: neither JDK N's API nor an older runtime. Maven takes such tasks.
            let runs_on = match self.test_runtime() {
                Some(runtime) => format!(" and its tests run on Java {}", runtime.major),
                None => String::new(),
            };
            return Ok(Err(Unsupported(format!(
                "the task compiles against JDK {release}'s API (--release {release}){runs_on}; the fast path compiles and runs on the build JDK only"
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
        // What Surefire's configuration asks of its fork that the test JVM does not imitate: such a
        // task goes to Maven whole, with the reason, rather than differ in silence. Read in the
        // tested module's pom and the project's root pom (where its parent settings live).
        let mut poms = vec![project.join("pom.xml")];
        poms.push(project.join(self.module()).join("pom.xml"));
        poms.dedup_by(|a, b| {
            a.components().eq(b
                .components()
                .filter(|c| *c != std::path::Component::CurDir))
        });
        for pom in poms {
            let text = std::fs::read_to_string(&pom).unwrap_or_default();
            if let Some(why) = surefire_differences(&text).first() {
                return Ok(Err(Unsupported(format!(
                    "{} configures Surefire's fork in a way the fast path does not imitate: {why}",
                    pom.strip_prefix(project).unwrap_or(&pom).display()
                ))));
            }
        }
        let module = project.join(self.module());
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
        // The test classpath (every scope) after compiling the state; then the main classpath,
        // the compile scope only (compile, provided and system dependencies), which main sources
        // compile against as Maven's compiler plug-in compiles them. `includeScope` is the
        // plug-in's own property (`mdep.includeScope` is not read).
        let mut resolved = Vec::new();
        for (goals, scope, file, what) in [
            (
                &["test-compile", "dependency:build-classpath"][..],
                None,
                "avrlab-test-classpath.txt",
                "compiling the pristine state or resolving its test classpath",
            ),
            (
                &["dependency:build-classpath"][..],
                Some("-DincludeScope=compile"),
                "avrlab-main-classpath.txt",
                "resolving the pristine state's main classpath",
            ),
        ] {
            let file = module.join("target").join(file);
            let mut args: Vec<String> = goals.iter().map(|g| (*g).to_owned()).collect();
            args.push(format!("-Dmdep.outputFile={}", file.display()));
            args.extend(scope.map(str::to_owned));
            let result = run(&self.spec(project, args, policy.clone(), limits))?;
            if !result.exit.success() {
                return Ok(Err(Unsupported(format!(
                    "{what} failed: {}",
                    last_error_line(&result)
                ))));
            }
            let text = std::fs::read_to_string(&file).map_err(io(&file))?;
            resolved.push(
                std::env::split_paths(text.trim())
                    .filter(|p| !p.as_os_str().is_empty())
                    .collect::<Vec<PathBuf>>(),
            );
        }
        let main_classpath = resolved.pop().expect("two class paths resolved");
        let classpath = resolved.pop().expect("two class paths resolved");
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
            main_classpath,
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
        // The layout of a build folder (which jars it holds); a new layout never reads an old one.
        hasher.update(b"helper layout 2: control.jar, runner.jar\0");
        let runner_sources: Vec<(&str, &str)> = RUNNER_SOURCES
            .iter()
            .copied()
            .chain(warm_sources(classpath))
            .collect();
        for (name, text) in CONTROL_SOURCES.iter().chain(&runner_sources) {
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
        let mut runner_files = Vec::new();
        for (name, text) in &runner_sources {
            let path = staging.join("src/runner").join(name);
            std::fs::create_dir_all(path.parent().expect("a file in a folder"))
                .map_err(io(&path))?;
            std::fs::write(&path, text).map_err(io(&path))?;
            runner_files.push(path.display().to_string());
        }
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
        let mut runner_args = vec![
            "--release".to_owned(),
            release,
            "-nowarn".to_owned(),
            "-cp".to_owned(),
            joined,
            "-d".to_owned(),
            staging.join("runner").display().to_string(),
        ];
        runner_args.extend(runner_files);
        let javac = self.jdk().home.join("bin/javac");
        // The runner and the control module go into jars: a class-data archive can be dumped
        // only with jars on the class and module paths.
        let jar_of = |file: &str, folder: &str| {
            vec![
                "--create".to_owned(),
                "--file".to_owned(),
                staging.join(file).display().to_string(),
                "-C".to_owned(),
                staging.join(folder).display().to_string(),
                ".".to_owned(),
            ]
        };
        let jar = self.jdk().home.join("bin/jar");
        for (program, args) in [
            (&javac, control_args),
            (&javac, runner_args),
            (&jar, jar_of(RUNNER_JAR, "runner")),
            (&jar, jar_of(CONTROL_JAR, "control")),
        ] {
            let spec = self.staging_tool(program.clone(), args, &staging);
            let result = run(&spec)?;
            if !result.exit.success() {
                return Err(FastPathError::HelperBuild {
                    javac: program.clone(),
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

    /// The sandboxed command of one helper JVM with `mounts` besides the toolchain, in the module
    /// folder, like Surefire's fork: `launch` says how it starts.
    fn helper_spec(
        &self,
        (helper, cwd): (&Path, &Path),
        mounts: Vec<Mount>,
        jvm_args: Vec<String>,
        launch: HelperLaunch,
    ) -> RunSpec {
        let home = match self.settings().sandbox {
            SandboxKind::Bubblewrap => "/tmp".to_owned(),
            SandboxKind::None => std::env::temp_dir().to_string_lossy().into_owned(),
        };
        // Neither flag is visible to the code a JVM runs as a system property; Maven's test JVM
        // gets the same two through `JAVA_TOOL_OPTIONS`.
        let mut args = vec![
            "-XX:+DisableAttachMechanism".to_owned(),
            // No hsperfdata file in /tmp (nothing reads it: attach is off).
            "-XX:-UsePerfData".to_owned(),
        ];
        args.extend(jvm_args);
        match launch {
            HelperLaunch::Compiler => args.extend([
                // The compiler runs no project code: it may start as fast as a JVM can.
                "-XX:+UseSerialGC".to_owned(),
                "-XX:TieredStopAtLevel=1".to_owned(),
                "--module-path".to_owned(),
                helper.join(CONTROL_JAR).display().to_string(),
                "-m".to_owned(),
                "avrlab.fastpath/avrlab.fastpath.Compiler".to_owned(),
            ]),
            // Class-path mode, as Surefire's fork: the JVM's own heap, collector and compilers,
            // no `jdk.module.main`, the JDK's default modules.
            HelperLaunch::TestJvm => args.push(BOOT_CLASS.to_owned()),
        }
        RunSpec {
            program: self.jdk().home.join("bin/java"),
            args,
            cwd: cwd.to_owned(),
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
        }
    }

    /// Starts a test JVM for `build` and hands it its set-up; it then loads JUnit and waits for
    /// its one request while the host goes on. With [`TestJvmRole::Candidate`], the candidate's
    /// folders (where the compiler will write its class files, and the host then the build's
    /// others) are the project's `target/classes` and `target/test-classes`, in Surefire's order
    /// with the dependencies; with
    /// [`TestJvmRole::Record`], the project is not on the class path at all. `test_timeout`
    /// bounds each test phase.
    pub fn start_test_jvm(
        &self,
        build: &FastBuild,
        role: TestJvmRole<'_>,
        test_timeout: Duration,
    ) -> Result<TestJvm, FastPathError> {
        // Like Surefire's forked JVM: the working directory is the module, `basedir` names it,
        // and `target/` is writable in memory with the build's output mounted back read-only;
        // the JVM ends after its candidate, and what the tests wrote goes with its sandbox.
        let target = build.project.join("target");
        let mut mounts = vec![
            self.repository_mount(false),
            Mount::ReadOnly(build.project.clone()),
            Mount::Tmpfs(target.clone()),
        ];
        // A candidate's folders (`classes/` and `test-classes/` under `folder`: where the compiler
        // writes its classes, and where the host then adds the build's others) are seen as
        // `target/classes` and `target/test-classes`: every main class of the project comes from
        // one class-path location, as on Surefire's fork, so classes of one project share their
        // code source (and so do test classes a full recompilation wrote).
        let merged = match role {
            TestJvmRole::Candidate { folder, .. } => Some(folder),
            TestJvmRole::Record { .. } => None,
        };
        for entry in std::fs::read_dir(&target).map_err(io(&target))?.flatten() {
            let plain = std::fs::symlink_metadata(entry.path())
                .map(|m| m.is_dir() || m.is_file())
                .unwrap_or(false);
            let name = entry.file_name();
            match merged {
                Some(folder) if name == "classes" || name == "test-classes" => {
                    mounts.push(Mount::ReadOnlyAt {
                        source: folder.join(&name),
                        target: entry.path(),
                    });
                }
                _ if plain => mounts.push(Mount::ReadOnly(entry.path())),
                _ => {}
            }
        }
        mounts.push(Mount::ReadOnly(build.helper.clone()));
        // Without a sandbox nothing is mounted: the candidate's folders are named on the class
        // path.
        let (main_entry, test_entry) = match (merged, self.settings().sandbox) {
            (Some(folder), SandboxKind::None) => {
                (folder.join("classes"), folder.join("test-classes"))
            }
            _ => (target.join("classes"), target.join("test-classes")),
        };
        let runner = build.helper.join(RUNNER_JAR);
        let mut jvm_args = Vec::new();
        let mut classpath = Vec::new();
        match role {
            TestJvmRole::Candidate {
                archive: Some(archive),
                ..
            } => {
                // The archive was dumped with the dependencies and the runner as its whole class
                // path, which must lead the class path here; the warm-up made sure that no
                // project class is also a dependency's, so the order changes no class found.
                mounts.push(Mount::ReadOnly(archive.to_owned()));
                jvm_args.push(format!("-XX:SharedArchiveFile={}", archive.display()));
                classpath.extend(build.classpath.iter().cloned());
                classpath.push(runner);
                classpath.push(test_entry.clone());
                classpath.push(main_entry.clone());
            }
            TestJvmRole::Candidate { archive: None, .. } => {
                // Surefire's order: test classes, main classes, then the dependencies.
                classpath.push(runner);
                classpath.push(test_entry.clone());
                classpath.push(main_entry.clone());
                classpath.extend(build.classpath.iter().cloned());
            }
            TestJvmRole::Record { dump } => {
                classpath.extend(build.classpath.iter().cloned());
                classpath.push(runner);
                if let Some(dump) = dump {
                    // This JVM ends normally, writing the archive of what it loaded from jars.
                    mounts.push(Mount::ReadWrite(dump.to_owned()));
                    jvm_args.push(format!(
                        "-XX:ArchiveClassesAtExit={}",
                        dump.join(ARCHIVE_FILE).display()
                    ));
                    jvm_args.push("-Davrlab.fastpath.exit=normal".to_owned());
                }
            }
        }
        if matches!(self.settings().sandbox, SandboxKind::Bubblewrap) {
            // The same temporary folder as Surefire's test JVM gets (see `TEST_TMPDIR`); the fast
            // path takes no project whose `argLine` could set another.
            mounts.push(Mount::Tmpfs(TEST_TMPDIR.into()));
            jvm_args.push(format!("-Djava.io.tmpdir={TEST_TMPDIR}"));
        }
        // The JVM's own notes on the archive would go to standard output.
        jvm_args.push("-Xlog:cds=off".to_owned());
        jvm_args.push("-Xlog:cds+dynamic=off".to_owned());
        let joined = std::env::join_paths(&classpath)
            .map_err(|e| FastPathError::Start(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        if self.jdk().major >= 18 {
            // From JDK 18 the guard can be installed only so (a property Surefire's fork lacks;
            // on JDK 11 to 17 the default allows it and nothing is set).
            jvm_args.push("-Djava.security.manager=allow".to_owned());
        }
        // No heap, collector or compiler flags: Surefire's fork has the JVM's defaults (the fast
        // path takes no project whose `argLine` sets any). Neither `-ea` nor `-D` flags: Surefire's
        // booter enables assertions through the class loader and sets its system properties at
        // run time, and so does the helper (`surefire_properties`), so the JVM's input arguments
        // show neither.
        jvm_args.extend(["-cp".to_owned(), joined]);
        let spec = self.helper_spec(
            (&build.helper, &build.project),
            mounts,
            jvm_args,
            HelperLaunch::TestJvm,
        );
        let setup = [
            "SETUP".to_owned(),
            test_timeout.as_millis().to_string(),
            target.join("classes").display().to_string(),
            test_entry.display().to_string(),
            // What the tests may print per phase, as each Maven test run may print.
            self.settings().limits.output_bytes.to_string(),
            // Where the candidate's classes are seen: the merged main classes.
            match role {
                TestJvmRole::Candidate { .. } => main_entry.display().to_string(),
                TestJvmRole::Record { .. } => String::new(),
            },
            // What one test class may print: its Surefire report holds its output, and Maven's
            // engine refuses a larger report as unusable.
            crate::surefire::MAX_REPORT_BYTES.to_string(),
            hex::encode({
                let basedir: PathBuf = build.project.components().collect();
                let basedir = basedir.display().to_string();
                let learned = match role {
                    TestJvmRole::Candidate { learned, .. } => learned,
                    TestJvmRole::Record { .. } => &[][..],
                };
                self.surefire_properties(build, (&test_entry, &main_entry))
                    .into_iter()
                    .chain(
                        learned
                            .iter()
                            .map(|(k, v)| (k.clone(), v.replace("${basedir}", &basedir))),
                    )
                    .map(|(k, v)| format!("{k}={}\n", v.replace('\\', "\\\\").replace('\n', "\\n")))
                    .collect::<String>()
            }),
        ]
        .join("\t");
        let channel = HelperChannel::start(&spec, &setup)?;
        Ok(TestJvm {
            channel,
            phase_limit: test_timeout,
        })
    }

    /// The system properties Surefire's booter sets in its fork for a test step of Maven's engine
    /// that the fast path's test JVM can have too (the fidelity probe compares the rest): the
    /// Maven user properties avrlab's own command line passes (`-Dmaven.repo.local`, the empty
    /// `argLine`, `trimStackTrace`, `surefire.failIfNoSpecifiedTests`, `jvm` for the relayed
    /// fork), Maven's `basedir` and `localRepository`, and the test class path in Surefire's
    /// order as `java.class.path` and `surefire.test.class.path`.
    fn surefire_properties(
        &self,
        build: &FastBuild,
        (test_classes, main_classes): (&Path, &Path),
    ) -> Vec<(String, String)> {
        let repository = self.repository_view().display().to_string();
        // The project's test class path as Maven resolved it at warm-up (without the launcher
        // and engines the fast path adds, which Surefire keeps on its provider's class path);
        // Surefire writes a separator after every entry.
        let resolved =
            std::fs::read_to_string(build.project.join("target/avrlab-test-classpath.txt"))
                .unwrap_or_default();
        let mut joined = String::new();
        for entry in [test_classes.to_owned(), main_classes.to_owned()]
            .into_iter()
            .chain(std::env::split_paths(resolved.trim()).filter(|p| !p.as_os_str().is_empty()))
        {
            joined.push_str(&entry.display().to_string());
            joined.push(':');
        }
        // `a/.` is `a`, as Maven writes the module folder.
        let basedir: PathBuf = build.project.components().collect();
        let mut properties = vec![
            ("basedir".to_owned(), basedir.display().to_string()),
            ("localRepository".to_owned(), repository.clone()),
            ("maven.repo.local".to_owned(), repository),
            ("trimStackTrace".to_owned(), "false".to_owned()),
            (
                "surefire.failIfNoSpecifiedTests".to_owned(),
                "false".to_owned(),
            ),
            ("java.class.path".to_owned(), joined.clone()),
            ("surefire.test.class.path".to_owned(), joined),
        ];
        if !crate::maven::defines_arg_line(&build.project) {
            properties.push(("argLine".to_owned(), String::new()));
        }
        if matches!(self.settings().sandbox, SandboxKind::Bubblewrap) {
            properties.push((
                "jvm".to_owned(),
                format!("{}/bin/java", crate::fork_relay::LAUNCHER_VIEW),
            ));
        }
        properties
    }

    /// Starts a compiler process for this JDK, shared by every task state that builds with it:
    /// it reads kept builds under `cache` (the fast path's cache folder, which also holds
    /// `helper`), candidates' files under `sources`, and writes class files under `outputs` (each
    /// folder may gain entries later; it sees them). It runs no project or candidate code.
    pub fn start_compiler(
        &self,
        helper: &Path,
        cache: &Path,
        sources: &Path,
        outputs: &Path,
    ) -> Result<CompilerSession, FastPathError> {
        let mounts = vec![
            self.repository_mount(false),
            Mount::ReadOnly(cache.to_owned()),
            Mount::ReadOnly(sources.to_owned()),
            Mount::ReadWrite(outputs.to_owned()),
        ];
        let spec = self.helper_spec(
            (helper, sources),
            mounts,
            vec!["-Xmx2g".to_owned()],
            HelperLaunch::Compiler,
        );
        Ok(CompilerSession {
            channel: HelperChannel::start(&spec, "SETUP")?,
            release: self.jdk().major,
        })
    }
}

/// The folders under a candidate's folder that its test JVM sees as `target/classes` and
/// `target/test-classes`; both exist before the JVM starts.
pub const CANDIDATE_FOLDERS: [&str; 2] = ["classes", "test-classes"];

/// How a helper JVM starts.
#[derive(Debug, Clone, Copy)]
enum HelperLaunch {
    /// The compiler process: the control module's `Compiler`, as a module.
    Compiler,
    /// A test JVM: the class-path launcher, which starts the control module's `Main` from a
    /// module layer of its own.
    TestJvm,
}

/// The file name of a task state's class-data archive in its folder.
pub const ARCHIVE_FILE: &str = "classes.jsa";

/// Where a test JVM's project classes come from.
#[derive(Debug, Clone, Copy)]
pub enum TestJvmRole<'a> {
    /// It will run one candidate, whose class files the compiler writes to `classes/` under
    /// `folder` (and test classes, when it recompiles them, to `test-classes/`), to which the
    /// host then adds the build's others: the two are seen as `target/classes` and
    /// `target/test-classes` (see [`CANDIDATE_FOLDERS`]). With `archive`, it starts from that
    /// class-data archive of the JDK, JUnit and the dependencies.
    Candidate {
        folder: &'a Path,
        archive: Option<&'a Path>,
        /// System properties Surefire's fork of this task state has (learned by the fidelity
        /// probe), set after [`Maven::surefire_properties`]; `${basedir}` stands for the module
        /// folder.
        learned: &'a [(String, String)],
    },
    /// It records which project classes each regression test class loads (test-impact
    /// selection), loading the project itself, one test class at a time; with `dump`, it writes
    /// the task state's class-data archive into that folder as it ends.
    Record { dump: Option<&'a Path> },
}

/// The tests one candidate runs.
#[derive(Debug, Clone)]
pub struct RunRequest<'a> {
    /// The PoV phase's tests; none (a feature task's prediction) runs the regression phase
    /// alone, as the whole suite's one run.
    pub pov: &'a [TestName],
    /// The PoV tests the regression phase runs again (their classes added to a selection of
    /// classes), as Maven's regression run has them.
    pub again: &'a [TestName],
    pub regression: RegressionRun<'a>,
    /// Tests (whole classes, or `Class#method`) that never count in the regression phase: the
    /// task's baseline exclusions.
    pub excluded: &'a [TestName],
    /// The classes the candidate's files compiled to (the guard notes what they reach for).
    pub candidate_classes: &'a [String],
    /// Regression classes (binary names) to run before the others: those that failed for
    /// earlier candidates of the task.
    pub first: &'a [String],
    /// No regression class runs after one in which a test failed (the outcome is known).
    pub stop_at_failure: bool,
}

/// Which regression tests run once the PoV tests passed (or at once, when there are none).
#[derive(Debug, Clone)]
pub enum RegressionRun<'a> {
    /// Surefire's default includes (the PoV tests among them, as in Maven's regression run),
    /// minus the excluded ones.
    AllOthers,
    /// These tests (`Class#method`, or whole classes).
    Listed(&'a [TestName]),
    /// These test classes (binary names), minus the excluded tests (test-impact selection); the
    /// classes of the tests run again are added.
    Classes(&'a [String]),
}

/// What the compiler made of a candidate's files.
#[derive(Debug, Clone, Default)]
pub struct CompileReply {
    /// The fast path cannot judge this candidate; Maven must.
    pub fallback: Option<String>,
    /// The compilation's wall time and its errors (none: it compiled).
    pub compile: Option<(Duration, Vec<String>)>,
    /// What the compilation did beyond the candidate's files (every project source recompiled
    /// because the candidate changed an API other classes were compiled against), if anything.
    pub note: Option<String>,
    /// The classes written.
    pub classes: CompiledClasses,
    /// The compiler was lost before it answered: why.
    pub lost: Option<Lost>,
}

/// What a compilation produced.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
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
    /// The recording stopped (a time-out, a lost JVM): why.
    Incomplete(String),
}

/// How a test phase of the test JVM ended.
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
    /// A test hit a timeout of its own.
    pub test_timed_out: bool,
    /// The phase stopped at a failing class: how many selected classes did not run.
    pub classes_not_run: usize,
    /// Why the helper ran every regression class instead of the selected ones, if it did.
    pub widened: Option<String>,
    /// A test class printed more than Surefire's report of it may hold on Maven's engine: why
    /// the phase's results cannot be used there, and so not here either.
    pub oversized_report: Option<String>,
}

/// What the fast path said about one candidate: the compiler's part and the test JVM's.
#[derive(Debug, Clone, Default)]
pub struct FastReply {
    /// The compilation: its wall time and its errors (none: it compiled).
    pub compile: Option<(Duration, Vec<String>)>,
    /// What the compilation did beyond the candidate's files, if anything.
    pub compile_note: Option<String>,
    pub phases: Vec<FastPhase>,
    /// What the tests printed (the end of it).
    pub log: String,
    /// The session was lost before an authenticated answer came: why.
    pub lost: Option<Lost>,
    /// Code under test called `System.exit` or `Runtime.halt` (blocked).
    pub exit_attempted: bool,
    /// Lines that looked like frames but failed authentication (ignored).
    pub forged_frames: usize,
    /// What the test JVM's guard saw the tested code reach for (reasons for Maven to re-judge).
    pub flags: Vec<String>,
    /// A thread the tests started that was still running when the last phase ended: its name.
    /// Every test had its outcome by then, so it counts only against a pass (the caller's call).
    pub left_running: Option<String>,
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

/// How the test JVM's guard writes a flag to its standard error, the moment it is raised: before
/// the code that raised it can go on, so a candidate that then forges its own answer (having read
/// the key) cannot take the flag back. Anyone may add such a line; that only sends the candidate
/// to Maven.
const FLAG_MARKER: &str = "AVRLAB-FLAG\t";

/// A helper JVM and the key its frames are authenticated with.
struct HelperChannel {
    process: ResidentProcess,
    key: [u8; 32],
    seq: u64,
    /// How the process ended, when something outside killed it before it took its key: its
    /// first request is then lost with this, as one killed before a request is.
    lost_at_start: Option<String>,
}

impl HelperChannel {
    /// Starts the process and sends it its key and set-up (before any project class is loaded).
    fn start(spec: &RunSpec, setup: &str) -> Result<Self, FastPathError> {
        let mut process = ResidentProcess::start(spec, Some(FLAG_MARKER))?;
        let mut key = [0u8; 32];
        std::fs::File::open("/dev/urandom")
            .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut key))
            .map_err(io(Path::new("/dev/urandom")))?;
        let sent = process
            .send_line(&format!("KEY\t{}", hex::encode(key)))
            .and_then(|()| process.send_line(setup));
        let mut lost_at_start = None;
        if let Err(e) = sent {
            // How it ended is read before it is killed here (it has ended already).
            let ended = process.stderr_and_end();
            process.kill();
            // Killed from outside while it started (no candidate code has run in it): the
            // candidate it was meant for is errored by its first request, not the whole task.
            // Anything else is a JVM that cannot start.
            if !avrlab_exec::ProcessEnd::of_last_line(&ended)
                .is_some_and(|end| end.killed_from_outside())
            {
                return Err(FastPathError::Start(format!("{e}; {ended}")));
            }
            lost_at_start = Some(format!("cannot send the set-up ({e}): {ended}"));
        }
        Ok(Self {
            process,
            key,
            seq: 0,
            lost_at_start,
        })
    }

    /// Sends one request (its sequence number put second) and reads lines until the
    /// authenticated answer for it comes; anything else is output of the code under test
    /// (ignored) or a forgery (counted). The process is killed when the answer is lost.
    fn request(
        &mut self,
        kind: &str,
        fields: &[String],
        deadline: Instant,
        forged: &mut usize,
    ) -> Result<String, Lost> {
        if let Some(ended) = self.lost_at_start.take() {
            return Err(Lost::Closed(ended));
        }
        self.seq += 1;
        let mut line = format!("{kind}\t{}", self.seq);
        for field in fields {
            line.push('\t');
            line.push_str(field);
        }
        if let Err(e) = self.process.send_line(&line) {
            // How it ended is read before it is killed here (it has ended already).
            let ended = self.process.stderr_and_end();
            self.process.kill();
            return Err(Lost::Closed(format!(
                "cannot send the request ({e}): {ended}"
            )));
        }
        let answer = format!("FRAME\t{}\t", self.seq);
        let lost = loop {
            match self.process.read_line(deadline) {
                ReadLine::Line(text) if text.starts_with("FRAME\t") => {
                    let Some((signed, tag)) = text.rsplit_once('\t') else {
                        *forged += 1;
                        continue;
                    };
                    let mut mac = Hmac::<Sha256>::new_from_slice(&self.key)
                        .expect("HMAC takes keys of any length");
                    mac.update(signed.as_bytes());
                    let genuine = hex::decode(tag).is_ok_and(|t| mac.verify_slice(&t).is_ok());
                    match signed.strip_prefix(&answer) {
                        Some(body) if genuine => return Ok(unhex(body)),
                        // Not authentic, or authentic but for another request (a replay).
                        _ => *forged += 1,
                    }
                }
                // Test code may write to the same descriptor: anything else is not ours.
                ReadLine::Line(_) => {}
                ReadLine::TimedOut => break Lost::TimedOut,
                ReadLine::Closed => break Lost::Closed(self.process.stderr_and_end()),
            }
        };
        self.process.kill();
        Err(lost)
    }
}

/// What one candidate asks of the compiler.
#[derive(Debug, Clone, Copy)]
pub struct CompileRequest<'a> {
    /// The candidate's files to compile (absolute paths under the sources folder).
    pub sources: &'a [PathBuf],
    /// The project's files the candidate deletes or moves away (paths in the kept build).
    pub removed: &'a [PathBuf],
    /// The project's sources the compiler plug-in does not compile (paths in the kept build).
    pub left_out: &'a [PathBuf],
}

/// A compiler process, shared by the task states of one JDK.
pub struct CompilerSession {
    channel: HelperChannel,
    /// The `--release` it compiles for (the JDK's own).
    release: u32,
}

impl std::fmt::Debug for CompilerSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("CompilerSession")
            .field("process", &self.channel.process)
            .finish_non_exhaustive()
    }
}

impl CompilerSession {
    /// Compiles a candidate's files of `build` (absolute paths under the sources folder) into
    /// `outdir` (under the outputs folder). `request.removed` (the project's files the candidate
    /// deletes or moves away) and `request.left_out` (those the compiler plug-in does not compile)
    /// are paths in the kept build that are never compiled; a removal recompiles every other
    /// source. A reply with `lost` set means the compiler is gone.
    pub fn compile(
        &mut self,
        build: &FastBuild,
        request: &CompileRequest<'_>,
        outdir: &Path,
        limit: Duration,
    ) -> CompileReply {
        let listed = |paths: &[PathBuf]| {
            paths
                .iter()
                .map(|p| p.display().to_string())
                .collect::<Vec<_>>()
                .join(",")
        };
        let join = |paths: &[PathBuf]| {
            std::env::join_paths(paths)
                .map(|p| p.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        let mut forged = 0;
        let mut reply = CompileReply::default();
        match self.channel.request(
            "COMPILE",
            &[
                self.release.to_string(),
                build.project.join("target/classes").display().to_string(),
                build.project.display().to_string(),
                join(&build.main_classpath),
                join(&build.classpath),
                listed(request.sources),
                outdir.display().to_string(),
                listed(request.removed),
                listed(request.left_out),
            ],
            Instant::now() + limit,
            &mut forged,
        ) {
            Ok(payload) => parse_compile(&payload, &mut reply),
            Err(lost) => reply.lost = Some(lost),
        }
        reply
    }
}

/// A started test JVM that serves one candidate (or one recording) and then ends.
pub struct TestJvm {
    channel: HelperChannel,
    phase_limit: Duration,
}

impl std::fmt::Debug for TestJvm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TestJvm")
            .field("process", &self.channel.process)
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

impl TestJvm {
    /// The limits and sandbox of the JVM.
    pub fn enforcement(&self) -> &str {
        &self.channel.process.enforcement
    }

    /// Whether the JVM is still running (an idle one can have died, e.g. of its memory limit).
    pub fn alive(&mut self) -> bool {
        self.channel.process.alive()
    }

    /// Runs one candidate's tests; the JVM ends with its answer.
    pub fn run(mut self, request: &RunRequest<'_>) -> FastReply {
        let started = Instant::now();
        let regression = match &request.regression {
            RegressionRun::AllOthers => "*".to_owned(),
            RegressionRun::Listed(list) => test_list(list),
            RegressionRun::Classes(classes) => classes.join(","),
        };
        let fields = [
            test_list(request.pov),
            regression,
            test_list(request.excluded),
            hex::encode(request.candidate_classes.join(",")),
            request.first.join(","),
            if request.stop_at_failure {
                "first-failure"
            } else {
                "all"
            }
            .to_owned(),
            test_list(request.again),
        ];
        // Two phases, each bounded by the helper's watchdog, and some slack for class loading.
        let deadline = started + self.phase_limit * 2 + Duration::from_secs(30);
        let mut reply = FastReply::default();
        match self
            .channel
            .request("RUN", &fields, deadline, &mut reply.forged_frames)
        {
            Ok(payload) => parse_payload(&payload, &mut reply),
            Err(lost) => reply.lost = Some(lost),
        }
        // The flags the guard wrote as they were raised count whatever the answer says.
        for line in self
            .channel
            .process
            .kill_and_collect_marked(Duration::from_secs(5))
        {
            let flag = unhex(line.strip_prefix(FLAG_MARKER).unwrap_or_default());
            if !flag.is_empty() && !reply.flags.contains(&flag) {
                reply.flags.push(flag);
            }
        }
        reply.wall = started.elapsed();
        reply
    }

    /// Runs every regression test class of the task state alone, each in a fresh class loader,
    /// and returns the project classes each one loaded: the record test-impact selection
    /// reads. `excluded` never runs (PoV tests, the baseline's classes). Needs a JVM started
    /// with [`TestJvmRole::Record`].
    pub fn record_class_loads(
        mut self,
        pov: &[TestName],
        excluded: &[TestName],
        limit: Duration,
    ) -> Recorded {
        let mut forged = 0;
        let answer = self.channel.request(
            "RECORD",
            &[test_list(pov), test_list(excluded)],
            Instant::now() + limit,
            &mut forged,
        );
        // A JVM that writes the archive ends by itself once it has answered.
        self.channel.process.wait_exit(Duration::from_secs(60));
        self.channel.process.kill();
        match answer {
            Ok(payload) => parse_record(&payload),
            Err(Lost::TimedOut) => {
                Recorded::Incomplete(format!("the recording outlived {} s", limit.as_secs()))
            }
            Err(Lost::Closed(why)) => Recorded::Incomplete(format!(
                "the JVM ended: {}",
                why.lines().last().unwrap_or("no output")
            )),
        }
    }
}

/// `FALLBACK\t<hex>`, `COMPILE\terror\t<ms>\t<hex>…`, `COMPILE\tok\t<ms>\t<hex note>`,
/// `CLASSES\t<all|some>\t<hex of a,b,c>`.
fn parse_compile(payload: &str, reply: &mut CompileReply) {
    for line in payload.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let millis =
            Duration::from_millis(f.get(2).and_then(|t| t.parse().ok()).unwrap_or_default());
        match f[0] {
            "FALLBACK" => reply.fallback = Some(unhex(f.get(1).copied().unwrap_or(""))),
            "COMPILE" if f.get(1) == Some(&"ok") => {
                reply.note = f
                    .get(3)
                    .map(|note| unhex(note))
                    .filter(|note| !note.is_empty());
                reply.compile = Some((millis, Vec::new()));
            }
            "COMPILE" => {
                let diagnostics = f.iter().skip(3).map(|d| unhex(d)).collect();
                reply.compile = Some((millis, diagnostics));
            }
            "CLASSES" => {
                reply.classes = CompiledClasses {
                    classes: unhex(f.get(2).copied().unwrap_or(""))
                        .split(',')
                        .filter(|c| !c.is_empty())
                        .map(str::to_owned)
                        .collect(),
                    // Anything but a plain "some" is taken as the unsafe case.
                    recompiled_all: f.get(1) != Some(&"some"),
                };
            }
            _ => {}
        }
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

/// A test's status as the helper writes it: a [`TestStatus`] word, or `timeout` for a test it
/// stopped at its limit (an error, and the phase's time-out); any other word is an error.
fn parse_status(text: &str) -> (TestStatus, bool) {
    match text {
        "timeout" => (TestStatus::Errored, true),
        word => (
            TestStatus::parse(word).unwrap_or(TestStatus::Errored),
            false,
        ),
    }
}

fn parse_payload(payload: &str, reply: &mut FastReply) {
    for line in payload.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        let millis = |i: usize| {
            Duration::from_millis(f.get(i).and_then(|t| t.parse().ok()).unwrap_or_default())
        };
        match f[0] {
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
            "WIDENED" if f.len() >= 3 => {
                phase_named(reply, f[1]).widened = Some(unhex(f[2]));
            }
            "REPORT" if f.len() >= 4 => {
                let phase = phase_named(reply, f[1]);
                if phase.oversized_report.is_none() {
                    phase.oversized_report = Some(format!(
                        "the tests of {} printed {} bytes, more than Surefire's report of the \
                         class may hold ({} bytes) for Maven's engine to read it",
                        unhex(f[2]),
                        f[3],
                        crate::surefire::MAX_REPORT_BYTES
                    ));
                }
            }
            "STOPPED" if f.len() >= 3 => {
                phase_named(reply, f[1]).classes_not_run = f[2].parse().unwrap_or_default();
            }
            "LOG" => reply.log = unhex(f.get(1).copied().unwrap_or("")),
            "EXIT" => reply.exit_attempted = true,
            "FLAG" => reply.flags.push(unhex(f.get(1).copied().unwrap_or(""))),
            "LEFT" => reply.left_running = Some(unhex(f.get(1).copied().unwrap_or(""))),
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
        classes_not_run: 0,
        widened: None,
        oversized_report: None,
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

    /// The words that start the lines of a helper's reply (`java/fastpath/control` writes them), each
    /// read by `parse_compile`, `parse_record` or `parse_payload`. The test below checks that the
    /// Java helper writes exactly these and that the parsers read them all.
    const REPLY_WORDS: [&str; 16] = [
        "CASE", "CLASSES", "COMPILE", "DEPS", "EXIT", "FALLBACK", "FLAG", "FOUND", "LEFT", "LOG",
        "PHASE", "RECORDED", "REPORT", "STATE", "STOPPED", "WIDENED",
    ];

    /// Reply words the host reads nothing from: `FOUND` names a test class the launcher found, and
    /// only the cases that ran count.
    const UNREAD_REPLY_WORDS: [&str; 1] = ["FOUND"];

    /// The requests the host sends (`HelperChannel::start` and `request`), each a `case` of the
    /// helpers' dispatch, and the channel's own words (`KEY` once, then each answer in a `FRAME`).
    const REQUEST_WORDS: [&str; 6] = ["COMPILE", "FRAME", "KEY", "RECORD", "RUN", "SETUP"];

    /// Every protocol word in the Java sources of `folder`: a string literal that is a word of
    /// capitals, or starts with one and a tab (`"CASE\t"`, `"EXIT\tattempted"`).
    fn java_words(folder: &str) -> std::collections::BTreeSet<String> {
        let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../java/fastpath")
            .join(folder);
        let mut words = std::collections::BTreeSet::new();
        for entry in walkdir::WalkDir::new(dir) {
            let entry = entry.unwrap();
            if entry.path().extension().is_none_or(|e| e != "java") {
                continue;
            }
            let text = std::fs::read_to_string(entry.path()).unwrap();
            for literal in text.split('"').skip(1).step_by(2) {
                let word = literal.split("\\t").next().unwrap_or(literal);
                if word.len() >= 3 && word.bytes().all(|b| b.is_ascii_uppercase()) {
                    words.insert(word.to_owned());
                }
            }
        }
        words
    }

    /// The words the host's parsers match on (`"WORD" =>` or `"WORD" if` arms) in this file.
    fn parsed_words() -> std::collections::BTreeSet<String> {
        let source = include_str!("fastpath.rs");
        let mut words = std::collections::BTreeSet::new();
        for line in source.lines() {
            let line = line.trim_start();
            if let Some(rest) = line.strip_prefix('"')
                && let Some((word, after)) = rest.split_once('"')
                && (after.starts_with(" =>") || after.starts_with(" if "))
                && word.len() >= 3
                && word.bytes().all(|b| b.is_ascii_uppercase())
            {
                words.insert(word.to_owned());
            }
        }
        words
    }

    #[test]
    fn the_helper_and_the_host_speak_the_same_protocol_words() {
        let set = |words: &[&str]| -> std::collections::BTreeSet<String> {
            words.iter().map(|w| (*w).to_owned()).collect()
        };
        let replies = set(&REPLY_WORDS);
        let requests = set(&REQUEST_WORDS);
        // What the helper writes or compares is a reply word or a request word, and it writes
        // every reply word and handles every request.
        let java = java_words("control");
        let unknown: Vec<&String> = java
            .iter()
            .filter(|w| !replies.contains(*w) && !requests.contains(*w))
            .collect();
        assert!(
            unknown.is_empty(),
            "the helper uses words the host does not know: {unknown:?}"
        );
        let unwritten: Vec<&String> = replies
            .union(&requests)
            .filter(|w| !java.contains(*w))
            .collect();
        assert!(unwritten.is_empty(), "the helper never uses: {unwritten:?}");
        // The host reads every reply word but the unread ones, and matches on no other word.
        let read: std::collections::BTreeSet<String> = replies
            .difference(&set(&UNREAD_REPLY_WORDS))
            .cloned()
            .collect();
        let parsed: std::collections::BTreeSet<String> = parsed_words()
            .into_iter()
            .filter(|w| !requests.contains(w) || replies.contains(w))
            .collect();
        assert_eq!(parsed, read);
    }

    #[test]
    fn surefire_settings_the_test_jvm_does_not_imitate_are_named() {
        let pom = |config: &str| {
            format!(
                "<project><build><plugins><plugin><groupId>org.apache.maven.plugins</groupId>\
                 <artifactId>maven-surefire-plugin</artifactId><configuration>{config}\
                 </configuration></plugin></plugins></build></project>"
            )
        };
        assert!(
            surefire_differences(&pom(
                "<includes><include>**/*Test.java</include></includes>"
            ))
            .is_empty()
        );
        assert!(surefire_differences(&pom("<argLine>${argLine}</argLine>")).is_empty());
        assert_eq!(
            surefire_differences(&pom("<argLine>-Xmx256m</argLine>")),
            ["argLine `-Xmx256m`"]
        );
        assert_eq!(
            surefire_differences(&pom(
                "<systemPropertyVariables><a>b</a></systemPropertyVariables><enableAssertions>false</enableAssertions>"
            )),
            ["<systemPropertyVariables>", "<enableAssertions>false"]
        );
        assert_eq!(
            surefire_differences(&pom("<forkCount>0</forkCount>")),
            ["no forked JVM (forkCount 0)"]
        );
        // Another plug-in's argLine is not Surefire's.
        let failsafe = "<plugin><artifactId>maven-failsafe-plugin</artifactId>\
                        <configuration><argLine>-Xmx1g</argLine></configuration></plugin>";
        assert!(surefire_differences(failsafe).is_empty());
    }

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
    fn a_compile_answer_names_the_classes_and_anything_unexpected_counts_as_all_recompiled() {
        let h = |s: &str| hex::encode(s);
        let mut reply = CompileReply::default();
        parse_compile(
            &format!("COMPILE\tok\t12\t\nCLASSES\tsome\t{}", h("a.B,a.B$1")),
            &mut reply,
        );
        assert_eq!(reply.compile, Some((Duration::from_millis(12), Vec::new())));
        assert_eq!(
            reply.classes,
            CompiledClasses {
                classes: vec!["a.B".into(), "a.B$1".into()],
                recompiled_all: false,
            }
        );
        let mut odd = CompileReply::default();
        parse_compile(&format!("CLASSES\tmany\t{}", h("a.B")), &mut odd);
        assert!(odd.classes.recompiled_all);
        let mut failed = CompileReply::default();
        parse_compile(
            &format!("COMPILE\terror\t3\t{}", h("A.java:[1,2] boom")),
            &mut failed,
        );
        assert_eq!(
            failed.compile,
            Some((
                Duration::from_millis(3),
                vec!["A.java:[1,2] boom".to_owned()]
            ))
        );
    }

    #[test]
    fn a_payload_becomes_phases_with_their_cases() {
        let mut reply = FastReply::default();
        let h = |s: &str| hex::encode(s);
        let payload = format!(
            "CASE\tpov\t{}\t{}\tfailed\t0.5\t{}\nCASE\tpov\t{}\t{}\ttimeout\t3\t\nPHASE\tpov\tdone\t40\t\nFLAG\t{}\nLEFT\t{}",
            h("a.BTest"),
            h("m"),
            h("boom"),
            h("a.BTest"),
            h("n"),
            h("guard saw"),
            h("junit-timeout-thread-1")
        );
        parse_payload(&payload, &mut reply);
        let pov = &reply.phases[0];
        assert_eq!(
            (pov.end.clone(), pov.cases.len(), pov.test_timed_out),
            (PhaseEnd::Done, 2, true)
        );
        assert_eq!(pov.cases[0].message, "boom");
        assert_eq!(reply.flags, ["guard saw"]);
        assert_eq!(
            reply.left_running.as_deref(),
            Some("junit-timeout-thread-1")
        );
    }

    #[test]
    fn a_widened_regression_phase_says_why() {
        let mut reply = FastReply::default();
        let payload = format!(
            "WIDENED\tregression\t{}\nPHASE\tregression\tdone\t5\t",
            hex::encode("none counts")
        );
        parse_payload(&payload, &mut reply);
        assert_eq!(reply.phases.len(), 1);
        assert_eq!(reply.phases[0].widened.as_deref(), Some("none counts"));
        assert_eq!(reply.phases[0].end, PhaseEnd::Done);
    }

    /// A class that printed more than a Surefire report of it may hold makes its phase's results
    /// unusable, as Maven's engine finds its report; the first such class is named.
    #[test]
    fn a_class_that_printed_past_the_report_limit_is_named() {
        let mut reply = FastReply::default();
        let payload = format!(
            "REPORT\tregression\t{}\t20971520\nREPORT\tregression\t{}\t16777217\n\
             PHASE\tregression\tdone\t5\t\nPHASE\tpov\tdone\t5\t",
            hex::encode("a.LoudTest"),
            hex::encode("a.OtherTest"),
        );
        parse_payload(&payload, &mut reply);
        let regression = reply
            .phases
            .iter()
            .find(|p| p.name == "regression")
            .unwrap();
        assert_eq!(
            regression.oversized_report.as_deref(),
            Some(
                "the tests of a.LoudTest printed 20971520 bytes, more than Surefire's report of \
                 the class may hold (16777216 bytes) for Maven's engine to read it"
            )
        );
        let pov = reply.phases.iter().find(|p| p.name == "pov").unwrap();
        assert_eq!(pov.oversized_report, None);
    }
}
