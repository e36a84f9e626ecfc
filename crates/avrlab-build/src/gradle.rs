//! The Gradle driver. The warm-up runs the project's build once with network and a Gradle home
//! of its own, then copies every artifact Gradle downloaded into avrlab's shared repository (in
//! Maven's layout, where the cache seal guards it) and records the tested module's test
//! classpath. Every later run is offline, with a fresh Gradle home in the sandbox's private
//! `/tmp` and an init script that puts the shared repository (read-only) first among the
//! project's repositories, so nothing a candidate's build writes outlives it.
//!
//! Test phases run the test task alone (`-x` the compile target: the compile step built
//! everything), selected with `--tests Class.method`, in every project of the build, each to its
//! end (failing tests do not stop the build; the reports tell them). Gradle 4 cannot exclude single methods, so
//! excluded methods run and their results are not counted (each phase log says how many); whole
//! classes are excluded by their class files. Reports are Gradle's JUnit XML, written to a fresh
//! folder outside the workspace. Gradle's test worker reports to Gradle over its own connection,
//! which code under test can reach, as with Surefire's channel under `--engine maven`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_bench::{BuildSpec, BuildSystem, BuildTargets};

use crate::build_tool::{
    BuildTool, build_files, build_fingerprint, host_file, javac_diagnostics, locate_tool, policy,
    read_marker, substitution_note, tool_env, write_marker,
};
use crate::maven::{
    BuildError, BuildSettings, CompileResult, JVM_CONTAINMENT_FLAGS, Maven, TEST_TMPDIR,
    TEST_TMPDIR_NOTE, TestRun, TestSelection, WarmUp, combined_log, test_jvm_tool_options,
    with_causes,
};
use crate::surefire::read_reports;
use avrlab_exec::Jdk;
use avrlab_exec::{ExitKind, RunSpec, run};
use avrlab_exec::{Limits, Mount, SandboxKind};

/// Where the init scripts appear in the sandbox.
const INIT_VIEW: &str = "/avrlab/gradle-init";
/// Where a test phase's reports folder appears in the sandbox.
const REPORTS_VIEW: &str = "/avrlab/gradle-reports";

/// Gradle for one task.
#[derive(Debug, Clone)]
pub struct Gradle {
    /// The JDK, the shared repository and the sandbox's toolchain (Maven's own settings).
    maven: Maven,
    targets: BuildTargets,
    module: PathBuf,
    /// Why the JDK is not the task's, when it is not (see [`substitution_note`]).
    substitution: Option<String>,
}

impl Gradle {
    pub fn for_build(settings: BuildSettings, build: &BuildSpec) -> Result<Self, BuildError> {
        let targets = build.targets.clone().unwrap_or(BuildTargets {
            compile: "testClasses".into(),
            test: "test".into(),
        });
        let maven = Maven::for_build(settings, build)?;
        Ok(Self {
            substitution: substitution_note(&maven, build.jdk),
            maven,
            targets,
            module: build.module.clone(),
        })
    }

    /// The Gradle launcher for `project`: its wrapper's distribution when present in the Gradle
    /// home (a wrapper cannot download one here), else `$AVRLAB_GRADLE`, else `gradle` on the
    /// PATH; with where it came from, for the logs.
    fn launcher(&self, project: &Path) -> Result<(PathBuf, String), BuildError> {
        if let Some(found) = wrapper_distribution(project) {
            let note = format!(
                "Gradle from the project's wrapper distribution {}",
                found.display()
            );
            return Ok((found, note));
        }
        let wanted = wrapper_version(project);
        let missing = format!(
            "no Gradle to build this task with: install Debian's `gradle` (scripts/install-deps does), or set $AVRLAB_GRADLE to a Gradle launcher{}",
            wanted.as_deref().map_or(String::new(), |v| format!(
                " (its wrapper asks for {v}, whose distribution is not in ~/.gradle/wrapper/dists)"
            ))
        );
        let path = locate_tool("AVRLAB_GRADLE", "gradle", &missing)?;
        let note = match wanted {
            Some(v) => format!(
                "Gradle {} (the wrapper asks for {v}; its distribution is not here)",
                path.display()
            ),
            None => format!("Gradle {}", path.display()),
        };
        Ok((path, note))
    }

    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
        move |source| BuildError::Io {
            path: path.to_owned(),
            source,
        }
    }

    fn fingerprint(&self, project: &Path) -> String {
        let files = build_files(project, |name| {
            name.ends_with(".gradle")
                || name.ends_with(".gradle.kts")
                || name == "gradle.properties"
                || name == "gradle-wrapper.properties"
        });
        build_fingerprint(BuildSystem::Gradle, self.maven.jdk().major, project, &files)
    }

    /// A Gradle command on the tested module of `dir`: offline unless `network`, with the Gradle
    /// home `home` (as the command sees it), the init script and `args`.
    #[allow(clippy::too_many_arguments)]
    fn spec(
        &self,
        dir: &Path,
        launcher: &Path,
        home: &str,
        init: &Path,
        args: Vec<String>,
        mounts: Vec<Mount>,
        network: bool,
        limits: Limits,
        tool_options: String,
    ) -> RunSpec {
        let mut all = vec![
            "--no-daemon".to_owned(),
            "--console=plain".to_owned(),
            "--no-build-cache".to_owned(),
            "-g".to_owned(),
            home.to_owned(),
            "-I".to_owned(),
            init.display().to_string(),
        ];
        if !network {
            all.push("--offline".to_owned());
        }
        all.extend(args);
        let mut mounts = mounts;
        if let Some(dist) = launcher
            .parent()
            .and_then(Path::parent)
            .filter(|d| !d.starts_with("/usr"))
        {
            mounts.push(Mount::ReadOnly(dist.to_owned()));
        }
        RunSpec {
            program: launcher.to_owned(),
            args: all,
            cwd: dir.join(&self.module),
            env: tool_env(&self.maven, "/tmp", tool_options),
            sandbox: self.maven.settings().sandbox,
            policy: policy(&self.maven, false, mounts, network),
            limits,
            stdin: Vec::new(),
        }
    }

    /// The Gradle home of an offline run: fresh in the sandbox's private `/tmp`, or beside the
    /// workspace when unsandboxed.
    fn offline_home(&self, workspace: &Path) -> String {
        match self.maven.settings().sandbox {
            SandboxKind::Bubblewrap => "/tmp/gradle-home".into(),
            SandboxKind::None => workspace
                .parent()
                .unwrap_or(workspace)
                .join("gradle-home")
                .display()
                .to_string(),
        }
    }

    /// The init script of offline runs: the shared repository first among every project's (and
    /// build script's) repositories, and for test runs the excluded classes and the reports
    /// folder.
    fn offline_init(&self, test: Option<(&TestSelection, &Path)>) -> String {
        let repository = self.maven.repository_view();
        let mut text = format!(
            "// Written by avrlab: dependencies come from avrlab's repository, offline.\n\
             allprojects {{\n    buildscript.repositories {{ maven {{ url '{0}' }} }}\n    repositories {{ maven {{ url '{0}' }} }}\n{1}",
            url(&repository),
            LEVEL_FLOOR
        );
        if let Some((selection, reports)) = test {
            text.push_str("    tasks.withType(Test) {\n");
            text.push_str(&format!(
                "        reports.junitXml.destination = new File('{}')\n        reports.html.enabled = false\n",
                groovy(&reports.display().to_string())
            ));
            // Every project's test task runs to its end and the reports say what failed: a
            // failing test in one project (Bouncy Castle's `core`) must not stop the task of the
            // project that holds the PoV test (`prov`), nor a project with none of the selected
            // tests fail the build. No test run at all is still no verdict.
            text.push_str(
                "        ignoreFailures = true\n        filter.failOnNoMatchingTests = false\n",
            );
            if let TestSelection::AllExcept(tests) = selection {
                for test in tests.iter().filter(|t| t.method.is_none()) {
                    text.push_str(&format!(
                        "        exclude '{}.class'\n",
                        groovy(&test.class.replace('.', "/"))
                    ));
                }
            }
            text.push_str("    }\n");
        }
        text.push_str("}\n");
        text
    }
}

/// How test runs go, for the baseline's key: every project's test task to its end (failing tests
/// and projects without the selected tests do not stop the build).
pub const GRADLE_TEST_RUNS: &str = "every project to its end";

/// Init-script lines that raise a Java level below 8 (`sourceCompatibility = 1.5`, Bouncy
/// Castle) to 8: the JDK here compiles nothing older, as the Maven driver's level repairs do for
/// poms. Every compile runs with them, so the warm-up and candidates agree.
const LEVEL_FLOOR: &str = "    afterEvaluate {\n        tasks.withType(JavaCompile) { t ->\n            if (JavaVersion.toVersion(t.sourceCompatibility) < JavaVersion.VERSION_1_8) { t.sourceCompatibility = '1.8' }\n            if (JavaVersion.toVersion(t.targetCompatibility) < JavaVersion.VERSION_1_8) { t.targetCompatibility = '1.8' }\n        }\n    }\n";

/// A path as a `file:` URL for an init script.
fn url(path: &Path) -> String {
    format!("file://{}", groovy(&path.display().to_string()))
}

/// A string inside single quotes of a Groovy script.
fn groovy(text: &str) -> String {
    text.replace('\\', "\\\\").replace('\'', "\\'")
}

/// The Gradle version the project's wrapper asks for (`gradle-4.10.3-bin.zip` → `4.10.3`).
fn wrapper_version(project: &Path) -> Option<String> {
    let name = wrapper_distribution_name(project)?;
    let version = name.strip_prefix("gradle-")?;
    Some(
        version
            .trim_end_matches("-bin")
            .trim_end_matches("-all")
            .to_owned(),
    )
}

/// `gradle-4.10.3-bin` from the wrapper's `distributionUrl`.
fn wrapper_distribution_name(project: &Path) -> Option<String> {
    let text =
        std::fs::read_to_string(project.join("gradle/wrapper/gradle-wrapper.properties")).ok()?;
    let url = text
        .lines()
        .find_map(|l| l.trim().strip_prefix("distributionUrl="))?;
    let file = url.rsplit('/').next()?.trim();
    file.strip_suffix(".zip").map(str::to_owned)
}

/// The launcher of the wrapper's distribution, where the wrapper unpacked one before
/// (`$GRADLE_USER_HOME` or `~/.gradle`, `wrapper/dists/<name>/<hash>/gradle-<v>/bin/gradle`).
fn wrapper_distribution(project: &Path) -> Option<PathBuf> {
    let name = wrapper_distribution_name(project)?;
    let version = wrapper_version(project)?;
    let home = std::env::var_os("GRADLE_USER_HOME")
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".gradle")))?;
    let dists = home.join("wrapper/dists").join(name);
    let mut hashes: Vec<PathBuf> = std::fs::read_dir(&dists)
        .ok()?
        .flatten()
        .map(|e| e.path())
        .collect();
    hashes.sort();
    hashes
        .into_iter()
        .map(|h| h.join(format!("gradle-{version}/bin/gradle")))
        .find(|l| l.is_file())
}

/// Copies what a Gradle home downloaded (`caches/modules-2/files-2.1/<group>/<name>/<version>/
/// <hash>/<file>`) into a repository in Maven's layout, leaving files already there alone.
/// Returns how many were copied.
fn export_downloads(home: &Path, repository: &Path) -> std::io::Result<usize> {
    let files = home.join("caches/modules-2/files-2.1");
    let mut copied = 0;
    for entry in walkdir::WalkDir::new(&files)
        .min_depth(5)
        .max_depth(5)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
    {
        let Some(target) = repository_path(&files, entry.path(), repository) else {
            continue;
        };
        if target.exists() {
            continue;
        }
        if let Some(dir) = target.parent() {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::copy(entry.path(), &target)?;
        copied += 1;
    }
    Ok(copied)
}

/// Where a file of Gradle's download cache lives in a repository of Maven's layout.
fn repository_path(files: &Path, file: &Path, repository: &Path) -> Option<PathBuf> {
    let rel = file.strip_prefix(files).ok()?;
    let parts: Vec<&str> = rel.iter().filter_map(|p| p.to_str()).collect();
    let [group, name, version, _hash, file_name] = parts.as_slice() else {
        return None;
    };
    if [group, name, version, file_name]
        .iter()
        .any(|p| p.is_empty() || p.starts_with('.'))
    {
        return None;
    }
    let mut path = repository.to_owned();
    for part in group.split('.') {
        path.push(part);
    }
    Some(path.join(name).join(version).join(file_name))
}

impl BuildTool for Gradle {
    fn system(&self) -> BuildSystem {
        BuildSystem::Gradle
    }
    fn jdk(&self) -> &Jdk {
        self.maven.jdk()
    }
    fn substitution(&self) -> Option<&str> {
        self.substitution.as_deref()
    }
    fn release(&self) -> Option<u32> {
        self.maven.release()
    }
    fn test_runtime(&self) -> Option<&Jdk> {
        self.maven.test_runtime()
    }

    fn platform_missing(&self) -> bool {
        self.maven.platform_missing()
    }

    fn complete_platform(&self, scratch: &Path) -> Result<(), BuildError> {
        self.maven.complete_platform(scratch)
    }

    fn warmed(&self, project: &Path) -> Result<Option<WarmUp>, BuildError> {
        read_marker(&self.maven, &self.fingerprint(project))
    }

    fn warm_up(&self, project_copy: &Path) -> Result<WarmUp, BuildError> {
        if let Some(known) = self.warmed(project_copy)? {
            return Ok(known);
        }
        let (launcher, _) = self.launcher(project_copy)?;
        let beside = project_copy.parent().unwrap_or(project_copy);
        let name = project_copy
            .file_name()
            .map_or("project".into(), |n| n.to_string_lossy().into_owned());
        let home = beside.join(format!("{name}.gradle-home"));
        let _ = std::fs::remove_dir_all(&home);
        std::fs::create_dir_all(&home).map_err(Self::io(&home))?;
        let classpath_file = home.join("avrlab-test-classpath.txt");
        let init_text = format!(
            "// Written by avrlab for the warm-up: tests may fail, and the tested project's test\n\
             // classpath is written out. Maven Central comes first among the build script's\n\
             // repositories (it is added before the build script adds its own): plug-ins a build\n\
             // names from a portal this machine may not reach\n\
             // (plugins.gradle.org) are often on Central too.\n\
             allprojects {{ p ->\n    buildscript.repositories {{ maven {{ url 'https://repo1.maven.org/maven2/' }} }}\n    tasks.withType(Test) {{ ignoreFailures = true }}\n{LEVEL_FLOOR}    afterEvaluate {{\n        if (p.projectDir == gradle.startParameter.currentDir && p.configurations.findByName('testRuntimeClasspath') != null) {{\n            p.tasks.create('avrlabClasspath') {{\n                doLast {{ new File('{}').text = p.configurations.testRuntimeClasspath.files.join('\\n') }}\n            }}\n        }}\n    }}\n}}\n",
            groovy(&classpath_file.display().to_string())
        );
        let init = home.join("avrlab-warm-up.gradle");
        std::fs::write(&init, init_text).map_err(Self::io(&init))?;
        let limits = Limits {
            wall: Duration::from_secs(1800),
            ..self.maven.settings().limits
        };
        let args = vec![
            self.targets.compile.clone(),
            self.targets.test.clone(),
            "avrlabClasspath".to_owned(),
        ];
        let spec = self.spec(
            project_copy,
            &launcher,
            &home.display().to_string(),
            &init,
            args,
            vec![
                Mount::ReadWrite(project_copy.to_owned()),
                Mount::ReadWrite(home.clone()),
            ],
            true,
            limits,
            JVM_CONTAINMENT_FLAGS.to_owned(),
        );
        let result = run(&spec)?;
        if !result.exit.success() {
            return Err(crate::maven::warm_up_failure(
                project_copy,
                &result,
                limits,
                crate::build_log::gradle_failure,
            ));
        }
        let repository = self.maven.settings().repository.clone();
        export_downloads(&home, &repository).map_err(Self::io(&repository))?;
        let text = std::fs::read_to_string(&classpath_file).map_err(Self::io(&classpath_file))?;
        let files = home.join("caches/modules-2/files-2.1");
        let classpath: Vec<PathBuf> = text
            .lines()
            .filter_map(|l| repository_path(&files, Path::new(l.trim()), &repository))
            .collect();
        write_marker(&self.maven, &self.fingerprint(project_copy), &classpath)?;
        let _ = std::fs::remove_dir_all(&home);
        Ok(WarmUp {
            ran: true,
            classpath,
        })
    }

    fn compile(&self, workspace: &Path) -> Result<CompileResult, BuildError> {
        let (launcher, note) = self.launcher(workspace)?;
        let root = workspace.parent().unwrap_or(workspace);
        let (init_mount, init) = host_file(
            &self.maven,
            &root.join("gradle-init"),
            "offline.gradle",
            &self.offline_init(None),
            INIT_VIEW,
        )?;
        let mut mounts = vec![Mount::ReadWrite(workspace.to_owned())];
        mounts.extend(init_mount);
        let spec = self.spec(
            workspace,
            &launcher,
            &self.offline_home(workspace),
            &init,
            vec![self.targets.compile.clone()],
            mounts,
            false,
            self.maven.settings().limits,
            JVM_CONTAINMENT_FLAGS.to_owned(),
        );
        let result = run(&spec)?;
        let log = format!("[avrlab] {note}\n{}", combined_log(&result));
        Ok(CompileResult {
            exit: result.exit,
            diagnostics: javac_diagnostics(&log, workspace),
            failure: (!result.exit.success()).then(|| crate::build_log::gradle_failure(&log)),
            log,
            wall: result.wall,
            enforcement: result.enforcement,
        })
    }

    fn test(
        &self,
        workspace: &Path,
        selection: &TestSelection,
        reports: &Path,
    ) -> Result<TestRun, BuildError> {
        let (launcher, note) = self.launcher(workspace)?;
        std::fs::create_dir_all(reports).map_err(Self::io(reports))?;
        let sandboxed = self.maven.settings().sandbox == SandboxKind::Bubblewrap;
        let seen_reports = if sandboxed {
            PathBuf::from(REPORTS_VIEW)
        } else {
            reports.to_owned()
        };
        let root = workspace.parent().unwrap_or(workspace);
        let (init_mount, init) = host_file(
            &self.maven,
            &root.join("gradle-init"),
            "test.gradle",
            &self.offline_init(Some((selection, &seen_reports))),
            INIT_VIEW,
        )?;
        let mut mounts = vec![Mount::ReadWrite(workspace.to_owned())];
        mounts.extend(init_mount);
        if sandboxed {
            mounts.push(Mount::BindAt {
                source: reports.to_owned(),
                target: REPORTS_VIEW.into(),
            });
            mounts.push(Mount::Tmpfs(TEST_TMPDIR.into()));
        }
        // The compile step built everything; the workspace's classes are used as they are.
        let mut args = vec![self.targets.test.clone()];
        for built in [self.targets.compile.as_str(), "classes"] {
            args.extend(["-x".to_owned(), built.to_owned()]);
        }
        if let TestSelection::Only(tests) = selection {
            for test in tests {
                args.push("--tests".to_owned());
                args.push(match &test.method {
                    Some(m) => format!("{}.{}", test.class, m),
                    None => test.class.clone(),
                });
            }
        }
        let tool_options = if sandboxed {
            test_jvm_tool_options()
        } else {
            JVM_CONTAINMENT_FLAGS.to_owned()
        };
        let spec = self.spec(
            workspace,
            &launcher,
            &self.offline_home(workspace),
            &init,
            args,
            mounts,
            false,
            self.maven.settings().limits,
            tool_options,
        );
        let result = run(&spec)?;
        let (cases, unusable_reports) = if matches!(result.exit, ExitKind::Code(_)) {
            match read_reports(reports) {
                Ok(cases) => (cases, None),
                Err(problem) => (Vec::new(), Some(with_causes(&problem))),
            }
        } else {
            (Vec::new(), None)
        };
        let (cases, others) = selection.keep_selected(cases);
        let mut log = format!("[avrlab] {note}\n");
        if others > 0 {
            log.push_str(&format!(
                "[avrlab] {others} reported test case(s) outside this phase's selection are not counted (Gradle before 5 cannot exclude single test methods)\n"
            ));
        }
        log.push_str(&combined_log(&result));
        let mut enforcement = result.enforcement.clone();
        if sandboxed {
            enforcement = format!("{enforcement}; {TEST_TMPDIR_NOTE}");
        }
        Ok(TestRun {
            exit: result.exit,
            cases,
            log,
            wall: result.wall,
            enforcement,
            tree_gone: result.tree_gone,
            unusable_reports,
            cpu_limit_reached: false,
        })
    }

    fn plain_test(&self, workspace: &Path) -> Result<ExitKind, BuildError> {
        let (launcher, _) = self.launcher(workspace)?;
        let root = workspace.parent().unwrap_or(workspace);
        let (init_mount, init) = host_file(
            &self.maven,
            &root.join("gradle-init"),
            "offline.gradle",
            &self.offline_init(None),
            INIT_VIEW,
        )?;
        let mut mounts = vec![Mount::ReadWrite(workspace.to_owned())];
        mounts.extend(init_mount);
        let spec = self.spec(
            workspace,
            &launcher,
            &self.offline_home(workspace),
            &init,
            vec![self.targets.test.clone()],
            mounts,
            false,
            self.maven.settings().limits,
            JVM_CONTAINMENT_FLAGS.to_owned(),
        );
        Ok(run(&spec)?.exit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn downloads_land_in_the_repository_in_mavens_layout() {
        let home = tempfile::tempdir().unwrap();
        let repo = tempfile::tempdir().unwrap();
        let dir = home
            .path()
            .join("caches/modules-2/files-2.1/org.hamcrest/hamcrest-core/1.3/42ab");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("hamcrest-core-1.3.jar"), "jar").unwrap();
        std::fs::write(dir.join(".hidden"), "x").unwrap();
        assert_eq!(export_downloads(home.path(), repo.path()).unwrap(), 1);
        let jar = repo
            .path()
            .join("org/hamcrest/hamcrest-core/1.3/hamcrest-core-1.3.jar");
        assert_eq!(std::fs::read_to_string(&jar).unwrap(), "jar");
        // A second export leaves it alone.
        assert_eq!(export_downloads(home.path(), repo.path()).unwrap(), 0);
    }

    #[test]
    fn the_wrapper_names_the_version_it_wants() {
        let project = tempfile::tempdir().unwrap();
        let dir = project.path().join("gradle/wrapper");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("gradle-wrapper.properties"),
            "distributionBase=GRADLE_USER_HOME\ndistributionUrl=https\\://services.gradle.org/distributions/gradle-6.8.3-all.zip\n",
        )
        .unwrap();
        assert_eq!(wrapper_version(project.path()).as_deref(), Some("6.8.3"));
        assert_eq!(
            wrapper_distribution_name(project.path()).as_deref(),
            Some("gradle-6.8.3-all")
        );
    }
}
