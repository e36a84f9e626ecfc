//! The Ant driver. Ant resolves nothing: a project carries its libraries, and its `junit` task
//! expects JUnit on Ant's own library path. The warm-up resolves JUnit 4.13.2 and Hamcrest 1.3
//! into the shared repository (through Maven, from a pom avrlab writes), and every run passes
//! them to Ant with `-lib`, read-only, as each phase log says.
//!
//! A project's test target runs its whole suite and its `junit` formatter writes the reports
//! where the build file says; Ant cannot select tests from outside. So each test phase runs the
//! test target, then reads every `TEST-*.xml` under the module (no link followed, stale ones
//! removed first) and counts only the cases the phase selected (the log says how many others
//! ran). The reports are written in the JVM that runs the tests, as under `--engine maven`.

use std::path::{Path, PathBuf};

use avrlab_bench::{BuildSpec, BuildSystem, BuildTargets};

use crate::build_tool::{BuildTool, javac_diagnostics, policy, substitution_note, tool_env};
use crate::maven::{
    BuildError, BuildSettings, CompileResult, JVM_CONTAINMENT_FLAGS, Maven, TEST_TMPDIR,
    TEST_TMPDIR_NOTE, TestRun, TestSelection, WarmUp, combined_log, test_jvm_tool_options,
    with_causes,
};
use crate::surefire::{TestCaseResult, read_reports};
use avrlab_exec::Jdk;
use avrlab_exec::{ExitKind, RunSpec, run};
use avrlab_exec::{Mount, SandboxKind};

/// The JUnit that Ant's `junit` task finds on Ant's library path.
const JUNIT: (&str, &str, &str) = ("junit", "junit", "4.13.2");
const HAMCREST: (&str, &str, &str) = ("org.hamcrest", "hamcrest-core", "1.3");

/// At most this many folders of a module are searched for reports.
const MAX_REPORT_DIRS: usize = 20_000;

/// Ant for one task.
#[derive(Debug, Clone)]
pub struct Ant {
    maven: Maven,
    /// A Maven for the pom that resolves JUnit (module `.`, no flags of the task's).
    junit_maven: Maven,
    targets: BuildTargets,
    module: PathBuf,
    /// Why the JDK is not the task's, when it is not (see [`substitution_note`]).
    substitution: Option<String>,
}

impl Ant {
    pub fn for_build(settings: BuildSettings, build: &BuildSpec) -> Result<Self, BuildError> {
        let targets = build.targets.clone().unwrap_or(BuildTargets {
            compile: "compile".into(),
            test: "test".into(),
        });
        let junit_build = BuildSpec {
            system: BuildSystem::Maven,
            jdk: build.jdk,
            module: PathBuf::from("."),
            extra_args: Vec::new(),
            targets: None,
            older_api: None,
        };
        let maven = Maven::for_build(settings.clone(), build)?;
        Ok(Self {
            junit_maven: Maven::for_build(settings, &junit_build)?,
            substitution: substitution_note(&maven, build.jdk),
            maven,
            targets,
            module: build.module.clone(),
        })
    }

    fn launcher() -> Result<PathBuf, BuildError> {
        crate::build_tool::locate_tool(
            "AVRLAB_ANT",
            "ant",
            "no Ant to build this task with: install Debian's `ant` and `ant-optional` (scripts/install-deps does), or set $AVRLAB_ANT to an Ant launcher",
        )
    }

    fn io(path: &Path) -> impl FnOnce(std::io::Error) -> BuildError + '_ {
        move |source| BuildError::Io {
            path: path.to_owned(),
            source,
        }
    }

    /// The folder of the pom that resolves JUnit for Ant (beside the repository, written by the
    /// host with fixed content).
    fn junit_project(&self) -> Result<PathBuf, BuildError> {
        let dir = self
            .maven
            .settings()
            .repository
            .parent()
            .map_or_else(std::env::temp_dir, Path::to_owned)
            .join("ant-junit");
        std::fs::create_dir_all(&dir).map_err(Self::io(&dir))?;
        let dependency = |(group, artifact, version): (&str, &str, &str)| {
            format!(
                "    <dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version></dependency>\n"
            )
        };
        let pom = format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n  <groupId>org.avrlab</groupId>\n  <artifactId>ant-junit</artifactId>\n  <version>1</version>\n  <packaging>pom</packaging>\n  <dependencies>\n{}{}  </dependencies>\n</project>\n",
            dependency(JUNIT),
            dependency(HAMCREST)
        );
        let path = dir.join("pom.xml");
        if std::fs::read_to_string(&path).ok().as_deref() != Some(pom.as_str()) {
            std::fs::write(&path, pom).map_err(Self::io(&path))?;
        }
        Ok(dir)
    }

    /// JUnit's and Hamcrest's jars in the repository (host paths), once warmed up.
    fn junit_jars(&self) -> Result<Vec<PathBuf>, BuildError> {
        let project = self.junit_project()?;
        let Some(warm) = self.junit_maven.warmed(&project)? else {
            return Err(BuildError::WarmUp {
                project,
                tail: "JUnit for Ant is not in the repository yet: the task was not warmed up"
                    .into(),
                log: None,
            });
        };
        Ok(warm.classpath)
    }

    /// An Ant command running `target` on the tested module of `workspace` (writable), offline,
    /// with JUnit on Ant's library path.
    fn spec(
        &self,
        workspace: &Path,
        target: &str,
        extra: Vec<Mount>,
        tool_options: String,
    ) -> Result<(RunSpec, String), BuildError> {
        let launcher = Self::launcher()?;
        let jars = self.junit_jars()?;
        let mut args = vec!["-noinput".to_owned()];
        for jar in &jars {
            let seen = match jar.strip_prefix(&self.maven.settings().repository) {
                Ok(rel) => self.maven.repository_view().join(rel),
                Err(_) => jar.clone(),
            };
            args.push("-lib".to_owned());
            args.push(seen.display().to_string());
        }
        let raised = std::fs::read_to_string(workspace.join(&self.module).join("build.xml"))
            .map(|text| raised_levels(&text))
            .unwrap_or_default();
        for (name, _) in &raised {
            args.push(format!("-D{name}={LEVEL_FLOOR}"));
        }
        args.push(target.to_owned());
        let mut note = format!(
            "[avrlab] Ant {} runs `{target}` with JUnit {} and Hamcrest {} on its library path (-lib), where Ant's junit task looks for them\n",
            launcher.display(),
            JUNIT.2,
            HAMCREST.2
        );
        for (name, old) in &raised {
            note.push_str(&format!(
                "[avrlab] Ant property {name} = {old} raised to {LEVEL_FLOOR} on the command line (the JDK here compiles nothing older)\n"
            ));
        }
        let mut mounts = vec![Mount::ReadWrite(workspace.to_owned())];
        mounts.extend(extra);
        Ok((
            RunSpec {
                program: launcher,
                args,
                cwd: workspace.join(&self.module),
                env: tool_env(&self.maven, "/tmp", tool_options),
                sandbox: self.maven.settings().sandbox,
                policy: policy(&self.maven, false, mounts, false),
                limits: self.maven.settings().limits,
                stdin: Vec::new(),
            },
            note,
        ))
    }
}

/// The folders under `module` holding `TEST-*.xml` files, and those files (no link followed).
fn report_files(module: &Path) -> Result<(Vec<PathBuf>, Vec<PathBuf>), String> {
    let mut dirs = Vec::new();
    let mut files = Vec::new();
    for (seen, entry) in walkdir::WalkDir::new(module)
        .follow_links(false)
        .into_iter()
        .filter_map(Result::ok)
        .enumerate()
    {
        if seen > MAX_REPORT_DIRS * 10 {
            return Err(format!(
                "more than {} entries under {}",
                MAX_REPORT_DIRS * 10,
                module.display()
            ));
        }
        let is_report = entry
            .file_name()
            .to_str()
            .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"));
        if is_report && !entry.file_type().is_dir() {
            files.push(entry.path().to_owned());
            if let Some(dir) = entry.path().parent()
                && !dirs.iter().any(|d: &PathBuf| d == dir)
            {
                dirs.push(dir.to_owned());
            }
        }
    }
    Ok((dirs, files))
}

impl BuildTool for Ant {
    fn system(&self) -> BuildSystem {
        BuildSystem::Ant
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

    /// Ant resolves nothing of the project's: the warm-up is JUnit's, whatever the build files.
    fn platform_missing(&self) -> bool {
        self.junit_maven.platform_missing()
    }

    fn complete_platform(&self, scratch: &Path) -> Result<(), BuildError> {
        self.junit_maven.complete_platform(scratch)
    }

    fn warmed(&self, _project: &Path) -> Result<Option<WarmUp>, BuildError> {
        let junit = self.junit_project()?;
        self.junit_maven.warmed(&junit)
    }

    fn warm_up(&self, _project_copy: &Path) -> Result<WarmUp, BuildError> {
        Self::launcher()?;
        let junit = self.junit_project()?;
        self.junit_maven.warm_up(&junit)
    }

    fn compile(&self, workspace: &Path) -> Result<CompileResult, BuildError> {
        let (spec, note) = self.spec(
            workspace,
            &self.targets.compile,
            Vec::new(),
            JVM_CONTAINMENT_FLAGS.to_owned(),
        )?;
        let result = run(&spec)?;
        let log = format!("{note}{}", combined_log(&result));
        Ok(CompileResult {
            exit: result.exit,
            diagnostics: javac_diagnostics(&log, workspace),
            failure: (!result.exit.success()).then(|| crate::build_log::ant_failure(&log)),
            log,
            wall: result.wall,
            enforcement: result.enforcement,
        })
    }

    fn test(
        &self,
        workspace: &Path,
        selection: &TestSelection,
        _reports: &Path,
    ) -> Result<TestRun, BuildError> {
        let module = workspace.join(&self.module);
        // Reports an earlier phase left are not this run's.
        let (_, stale) = report_files(&module).map_err(|e| BuildError::Io {
            path: module.clone(),
            source: std::io::Error::other(e),
        })?;
        for file in stale {
            std::fs::remove_file(&file).map_err(Self::io(&file))?;
        }
        let sandboxed = self.maven.settings().sandbox == SandboxKind::Bubblewrap;
        let (extra, options) = if sandboxed {
            (
                vec![Mount::Tmpfs(TEST_TMPDIR.into())],
                test_jvm_tool_options(),
            )
        } else {
            (Vec::new(), JVM_CONTAINMENT_FLAGS.to_owned())
        };
        let (spec, note) = self.spec(workspace, &self.targets.test, extra, options)?;
        let result = run(&spec)?;
        let mut unusable_reports = None;
        let mut cases: Vec<TestCaseResult> = Vec::new();
        if matches!(result.exit, ExitKind::Code(_)) {
            match report_files(&module) {
                Ok((dirs, _)) => {
                    for dir in dirs {
                        match read_reports(&dir) {
                            Ok(found) => cases.extend(found),
                            Err(problem) => {
                                unusable_reports = Some(with_causes(&problem));
                                cases.clear();
                                break;
                            }
                        }
                    }
                }
                Err(problem) => unusable_reports = Some(problem),
            }
        }
        let (cases, others) = selection.keep_selected(cases);
        let mut log = note;
        log.push_str(&format!(
            "[avrlab] Ant cannot select tests: `{}` ran the project's suite; {others} reported test case(s) outside this phase's selection are not counted\n",
            self.targets.test
        ));
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
        let (spec, _) = self.spec(
            workspace,
            &self.targets.test,
            Vec::new(),
            JVM_CONTAINMENT_FLAGS.to_owned(),
        )?;
        Ok(run(&spec)?.exit)
    }
}

/// The Java level an Ant build's `javac` is raised to when it names an older one.
const LEVEL_FLOOR: &str = "1.8";

/// The properties an Ant build file's `<javac source|target="${name}">` read whose value in the
/// file (`<property name value>`) is a Java level below 8 (JDOM: `compile.source = 1.5`), with
/// that value. A property set on the command line wins over the file's, so raising it needs no
/// edit of the build file.
fn raised_levels(build_xml: &str) -> Vec<(String, String)> {
    use quick_xml::events::Event;
    let mut properties: Vec<(String, String)> = Vec::new();
    let mut read: Vec<String> = Vec::new();
    let mut reader = quick_xml::Reader::from_str(build_xml);
    loop {
        let element = match reader.read_event() {
            Ok(Event::Start(e) | Event::Empty(e)) => e,
            Ok(Event::Eof) | Err(_) => break,
            Ok(_) => continue,
        };
        let attribute = |name: &str| {
            element
                .attributes()
                .flatten()
                .find(|a| a.key.local_name().as_ref() == name)
                .and_then(|a| a.normalized_value(quick_xml::XmlVersion::Implicit1_0).ok())
                .map(|v| v.into_owned())
        };
        match element.local_name().as_ref() {
            "property" => {
                if let (Some(name), Some(value)) = (attribute("name"), attribute("value"))
                    && !properties.iter().any(|(n, _)| *n == name)
                {
                    properties.push((name, value));
                }
            }
            "javac" => {
                for which in ["source", "target"] {
                    if let Some(name) = attribute(which)
                        .and_then(|v| v.strip_prefix("${")?.strip_suffix('}').map(str::to_owned))
                        && !read.contains(&name)
                    {
                        read.push(name);
                    }
                }
            }
            _ => {}
        }
    }
    properties
        .into_iter()
        .filter(|(name, value)| {
            read.contains(name) && crate::levels::major(value).is_some_and(|m| m < 8)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// JDOM's build file: `javac` reads `${compile.source}` and `${compile.target}`, both 1.5.
    #[test]
    fn levels_below_8_that_javac_reads_from_properties_are_raised() {
        let build = r#"<project><property name="compile.target" value="1.5"/>
            <property name="compile.source" value="1.5"/><property name="other" value="1.4"/>
            <property name="new.enough" value="11"/>
            <target name="c"><javac srcdir="s" source="${compile.source}" target="${compile.target}"/>
            <javac srcdir="t" source="${new.enough}"/></target></project>"#;
        assert_eq!(
            raised_levels(build),
            [
                ("compile.target".to_owned(), "1.5".to_owned()),
                ("compile.source".to_owned(), "1.5".to_owned())
            ]
        );
        assert!(raised_levels("<project><javac srcdir=\"s\"/></project>").is_empty());
    }

    #[test]
    fn reports_are_found_where_the_build_put_them_and_links_are_not_followed() {
        let module = tempfile::tempdir().unwrap();
        let reports = module.path().join("build/test-reports");
        std::fs::create_dir_all(&reports).unwrap();
        std::fs::write(reports.join("TEST-a.T.xml"), "<testsuite/>").unwrap();
        std::fs::write(reports.join("notes.txt"), "x").unwrap();
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("TEST-b.U.xml"), "<testsuite/>").unwrap();
        std::os::unix::fs::symlink(elsewhere.path(), module.path().join("linked")).unwrap();
        let (dirs, files) = report_files(module.path()).unwrap();
        assert_eq!(dirs, std::slice::from_ref(&reports));
        assert_eq!(files, [reports.join("TEST-a.T.xml")]);
    }
}
