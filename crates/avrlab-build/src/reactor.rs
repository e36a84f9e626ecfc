//! Whether a task's tested module is built through Maven's reactor from the project root
//! (`-pl <module> -am`): when its pom depends on another module of the same project, which is not
//! installed in the dependency repository and must come from the reactor instead.
//!
//! Single-module tasks, and modules that need no sibling, keep being built from the module's own
//! folder, exactly as before.

use std::path::{Path, PathBuf};

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};

/// A module built through the reactor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reactor {
    /// The tested module's folder, relative to the project root, as `-pl` takes it.
    pub module: PathBuf,
    /// The project's modules (folders relative to the root) the tested module depends on.
    pub siblings: Vec<PathBuf>,
    /// Every other module folder of the project (relative), whose tests never run in a test phase.
    pub others: Vec<PathBuf>,
    /// The siblings whose test classes the tested module uses (a `test-jar` dependency, or the
    /// `tests` classifier): their `target/test-classes` stay visible, on its test class path.
    pub test_jar_siblings: Vec<PathBuf>,
    /// Modules that build a Maven plug-in which the tested module or a module it needs (through
    /// `-am`) runs in its build: CXF's `rt/databinding/sdo` runs `cxf-codegen-plugin`, a
    /// `-SNAPSHOT` of the same project that no repository serves. A build that runs lifecycle
    /// phases names them in `-pl` too, and Maven orders each before the modules that use it.
    pub plugin_modules: Vec<PathBuf>,
    /// Modules of the `-am` closure whose jar a module of the closure copies or unpacks with
    /// `maven-dependency-plugin` before `package` (TomEE's `openejb-core` copies the
    /// `openejb-javaagent` jar for its tests' `-javaagent`). A reactor build that stops before
    /// `package` has only their class folders, which the plug-in refuses (MDEP-187): builds that
    /// run lifecycle phases then make each module's jar right after its `test-compile`
    /// ([`Reactor::lifecycle_goals`]).
    pub packaged_modules: Vec<PathBuf>,
}

/// The goal that makes a module's jar, by the project's own `maven-jar-plugin` configuration.
const JAR_GOAL: &str = "org.apache.maven.plugins:maven-jar-plugin:jar";
/// The goal runs in every module of the build: a module without classes (the parent poms) makes
/// no jar (`maven-jar-plugin` 2.x reads this property; TomEE's parent asks every jar for a
/// manifest file only modules with classes have, so an empty jar would fail the build).
const SKIP_EMPTY_JARS: &str = "-Djar.skipIfEmpty=true";

impl Reactor {
    /// One line for the phase logs: why the build runs from the root.
    pub fn describe(&self) -> String {
        let names = |dirs: &[PathBuf]| -> String {
            let names: Vec<String> = dirs.iter().map(|s| s.display().to_string()).collect();
            names.join(", ")
        };
        let mut line = format!(
            "multi-module build: {} depends on {} of the same project, so Maven runs from the project root with -pl {} -am (the siblings come from the reactor, never from the repository)",
            self.module.display(),
            if self.siblings.is_empty() {
                "no module".to_owned()
            } else {
                names(&self.siblings)
            },
            self.module.display()
        );
        if !self.plugin_modules.is_empty() {
            line.push_str(&format!(
                "; builds that run lifecycle phases also name {} in -pl, which build(s) a plug-in the build runs",
                names(&self.plugin_modules)
            ));
        }
        if !self.packaged_modules.is_empty() {
            line.push_str(&format!(
                "; a module copies the jar of {} before packaging (MDEP-187), so builds that run lifecycle phases make each module's jar after its test-compile",
                names(&self.packaged_modules)
            ));
        }
        line
    }

    /// A lifecycle build's arguments with [`JAR_GOAL`] after `test-compile` when a module of the
    /// closure needs another's jar: Maven runs a build's goals module by module, so each module
    /// is jarred before the modules after it in the reactor order copy it. And where test runs
    /// make the jars ([`Self::jars_in_test_runs`]): the warm-up, with network, then resolves the
    /// jar plug-in for the offline runs after it.
    pub fn lifecycle_goals(&self, mut args: Vec<String>) -> Vec<String> {
        if self.packaged_modules.is_empty() && !self.jars_in_test_runs() {
            return args;
        }
        if let Some(at) = args.iter().position(|a| a == "test-compile") {
            args.insert(at + 1, JAR_GOAL.to_owned());
            args.push(SKIP_EMPTY_JARS.to_owned());
        }
        args
    }

    /// Whether a test run through the reactor makes each module's jar after its `compile` phase:
    /// where the closure runs a plug-in the project builds. Maven 3.8's reactor hands another
    /// module a sibling's class folder, never a `maven-plugin`'s: the plug-in resolves from the
    /// reactor only once its module's jar was made in the same session (else Maven looks in the
    /// repository, where no `-SNAPSHOT` of the project is: CXF's `cxf-codegen-plugin`).
    pub fn jars_in_test_runs(&self) -> bool {
        !self.plugin_modules.is_empty()
    }

    /// A test run's phase arguments (`compile` or `test-compile`), with [`JAR_GOAL`] after the
    /// phase where [`Self::jars_in_test_runs`].
    pub fn test_run_goals(&self, phase: &str) -> Vec<String> {
        let mut goals = vec![phase.to_owned()];
        if self.jars_in_test_runs() {
            goals.push(JAR_GOAL.to_owned());
            goals.push(SKIP_EMPTY_JARS.to_owned());
        }
        goals
    }

    /// What `-pl` takes: the tested module, and with `lifecycle` (a build that runs lifecycle
    /// phases, whose plug-ins Maven resolves) the modules that build its plug-ins.
    pub fn projects(&self, lifecycle: bool) -> String {
        let mut projects = vec![self.module.display().to_string()];
        if lifecycle {
            projects.extend(self.plugin_modules.iter().map(|m| m.display().to_string()));
        }
        projects.join(",")
    }
}

/// The coordinates a pom declares, and the dependencies it lists.
#[derive(Debug, Default)]
struct Pom {
    group: Option<String>,
    parent_group: Option<String>,
    artifact: Option<String>,
    dependencies: Vec<Dependency>,
    /// The `<build><plugins>` it runs, as (group, artifact).
    plugins: Vec<Dependency>,
    /// The artifacts its `maven-dependency-plugin` copies or unpacks (`copy`, `unpack`) before
    /// `package`.
    copied: Vec<Dependency>,
    /// Whether its `maven-dependency-plugin` copies or unpacks its own dependencies
    /// (`copy-dependencies`, `unpack-dependencies`) before `package`.
    copies_dependencies: bool,
}

/// The phases a build that stops at `test-compile` runs (a `copy` or `unpack` bound to one of
/// them, or to none, its default `process-sources`, runs in such a build).
const UP_TO_TEST_COMPILE: &[&str] = &[
    "validate",
    "initialize",
    "generate-sources",
    "process-sources",
    "generate-resources",
    "process-resources",
    "compile",
    "process-classes",
    "generate-test-sources",
    "process-test-sources",
    "generate-test-resources",
    "process-test-resources",
    "test-compile",
];

/// What one `<plugin>` of `<build><plugins>` says about copying artifacts, while it is read.
#[derive(Debug, Default)]
struct PluginCopies {
    /// `<artifactItems>` of the plug-in's own `<configuration>`, which every execution inherits.
    shared_items: Vec<Dependency>,
    /// The artifacts of executions that copy before `package`.
    items: Vec<Dependency>,
    /// Whether an execution copying artifacts runs before `package` (the shared items count).
    copies_early: bool,
    copies_dependencies: bool,
    /// The execution being read: its phase, goals and items.
    phase: Option<String>,
    goals: Vec<String>,
    execution_items: Vec<Dependency>,
    item: Dependency,
}

impl PluginCopies {
    /// The execution just read.
    fn end_execution(&mut self) {
        let early = self
            .phase
            .as_deref()
            .is_none_or(|p| UP_TO_TEST_COMPILE.contains(&p));
        let goals = std::mem::take(&mut self.goals);
        let items = std::mem::take(&mut self.execution_items);
        self.phase = None;
        if !early {
            return;
        }
        if goals.iter().any(|g| g == "copy" || g == "unpack") {
            self.copies_early = true;
            self.items.extend(items);
        }
        if goals
            .iter()
            .any(|g| g == "copy-dependencies" || g == "unpack-dependencies")
        {
            self.copies_dependencies = true;
        }
    }
}

/// A `<dependency>` of a pom, as far as reactor membership needs it.
#[derive(Debug, Default)]
struct Dependency {
    group: Option<String>,
    artifact: Option<String>,
    /// Its `<type>` is `test-jar` or its `<classifier>` `tests`: the module's test classes.
    test_jar: bool,
}

impl Pom {
    fn group(&self) -> Option<&str> {
        self.group.as_deref().or(self.parent_group.as_deref())
    }
}

/// Reads the parts of a pom that decide reactor membership; `None` for a pom that is not XML.
fn read_pom(text: &str) -> Option<Pom> {
    const PLUGIN: [&str; 4] = ["project", "build", "plugins", "plugin"];
    let mut reader = Reader::from_str(text);
    let mut path: Vec<String> = Vec::new();
    let mut pom = Pom::default();
    let mut dependency = Dependency::default();
    let mut copies = PluginCopies::default();
    loop {
        match reader.read_event().ok()? {
            Event::Start(start) => {
                path.push(start.local_name().as_ref().to_owned());
                let at: Vec<&str> = path.iter().map(String::as_str).collect();
                if at == ["project", "dependencies", "dependency"] || at == PLUGIN {
                    dependency = Dependency::default();
                    copies = PluginCopies::default();
                }
                if at.ends_with(&["artifactItems", "artifactItem"]) {
                    copies.item = Dependency::default();
                }
            }
            Event::End(_) => {
                let at: Vec<&str> = path.iter().map(String::as_str).collect();
                if at == ["project", "dependencies", "dependency"] {
                    pom.dependencies.push(std::mem::take(&mut dependency));
                }
                if at.starts_with(&PLUGIN) {
                    match &at[PLUGIN.len()..] {
                        ["executions", "execution"] => copies.end_execution(),
                        [
                            "executions",
                            "execution",
                            "configuration",
                            "artifactItems",
                            "artifactItem",
                        ] => {
                            copies
                                .execution_items
                                .push(std::mem::take(&mut copies.item));
                        }
                        ["configuration", "artifactItems", "artifactItem"] => {
                            copies.shared_items.push(std::mem::take(&mut copies.item));
                        }
                        [] => {
                            // A plug-in without a group is Maven's own, never the project's.
                            let mut plugin = std::mem::take(&mut dependency);
                            plugin
                                .group
                                .get_or_insert_with(|| "org.apache.maven.plugins".to_owned());
                            if plugin.group.as_deref() == Some("org.apache.maven.plugins")
                                && plugin.artifact.as_deref() == Some("maven-dependency-plugin")
                            {
                                let mut copies = std::mem::take(&mut copies);
                                if copies.copies_early {
                                    pom.copied.append(&mut copies.shared_items);
                                }
                                pom.copied.append(&mut copies.items);
                                pom.copies_dependencies |= copies.copies_dependencies;
                            }
                            pom.plugins.push(plugin);
                        }
                        _ => {}
                    }
                }
                path.pop();
            }
            Event::Text(text) => {
                let value = text.xml_content(XmlVersion::Implicit1_0).trim().to_owned();
                let at: Vec<&str> = path.iter().map(String::as_str).collect();
                match at.as_slice() {
                    ["project", "groupId"] => pom.group = Some(value),
                    ["project", "artifactId"] => pom.artifact = Some(value),
                    ["project", "parent", "groupId"] => pom.parent_group = Some(value),
                    ["project", "dependencies", "dependency", "groupId"] => {
                        dependency.group = Some(value);
                    }
                    ["project", "dependencies", "dependency", "artifactId"] => {
                        dependency.artifact = Some(value);
                    }
                    ["project", "build", "plugins", "plugin", "groupId"] => {
                        dependency.group = Some(value);
                    }
                    ["project", "build", "plugins", "plugin", "artifactId"] => {
                        dependency.artifact = Some(value);
                    }
                    ["project", "dependencies", "dependency", "type"] => {
                        dependency.test_jar |= value == "test-jar";
                    }
                    ["project", "dependencies", "dependency", "classifier"] => {
                        dependency.test_jar |= value == "tests";
                    }
                    [.., "executions", "execution", "phase"] if at.starts_with(&PLUGIN) => {
                        copies.phase = Some(value);
                    }
                    [.., "executions", "execution", "goals", "goal"] if at.starts_with(&PLUGIN) => {
                        copies.goals.push(value);
                    }
                    [.., "artifactItems", "artifactItem", "groupId"] if at.starts_with(&PLUGIN) => {
                        copies.item.group = Some(value);
                    }
                    [.., "artifactItems", "artifactItem", "artifactId"]
                        if at.starts_with(&PLUGIN) =>
                    {
                        copies.item.artifact = Some(value);
                    }
                    _ => {}
                }
            }
            Event::Eof => return Some(pom),
            _ => {}
        }
    }
}

/// Decides how `module` of `project` is built: `None` (from the module's folder) unless the
/// module is not the root, the root has a pom, and the module's pom depends on the artifact of
/// another pom of the project (same artifact id, and the same group id or one written as the
/// project's own).
pub fn reactor_for(project: &Path, module: &Path) -> Option<Reactor> {
    let module: PathBuf = module
        .components()
        .filter(|c| !matches!(c, std::path::Component::CurDir))
        .collect();
    if module.as_os_str().is_empty() || !project.join("pom.xml").is_file() {
        return None;
    }
    let mut modules: Vec<(PathBuf, Pom)> = Vec::new();
    for pom_path in walk_poms(project) {
        let Some(dir) = pom_path
            .parent()
            .and_then(|d| d.strip_prefix(project).ok())
            .map(Path::to_owned)
        else {
            continue;
        };
        let Some(pom) = std::fs::read_to_string(&pom_path)
            .ok()
            .and_then(|t| read_pom(&t))
        else {
            continue;
        };
        modules.push((dir, pom));
    }
    let (_, tested_pom) = modules.iter().find(|(dir, _)| *dir == module)?;
    let tested = tested_pom.group();
    // A dependency's group written as the project's own (or left out) is the tested module's.
    let own_group = |group: &Option<String>| -> Option<String> {
        match group.as_deref() {
            Some("${project.groupId}" | "${project.parent.groupId}") | None => {
                tested.map(str::to_owned)
            }
            Some(other) => Some(other.to_owned()),
        }
    };
    let names = |d: &Dependency, pom: &Pom| {
        d.artifact.is_some()
            && d.artifact == pom.artifact
            && own_group(&d.group).as_deref() == pom.group()
    };
    let on = |pom: &Pom, test_jar_only: bool| {
        tested_pom
            .dependencies
            .iter()
            .any(|d| names(d, pom) && (d.test_jar || !test_jar_only))
    };
    let mut siblings: Vec<PathBuf> = modules
        .iter()
        .filter(|(dir, pom)| *dir != module && on(pom, false))
        .map(|(dir, _)| dir.clone())
        .collect();
    siblings.sort();
    // What `-am` builds: the tested module and every module it needs, transitively; then the
    // modules that build a plug-in one of those runs (a plug-in of another group, or Maven's
    // own, is never a module of the project).
    let mut built: Vec<&Pom> = vec![tested_pom];
    let mut next = 0;
    while let Some(pom) = built.get(next).copied() {
        next += 1;
        for (_, other) in &modules {
            if !built.iter().any(|b| std::ptr::eq(*b, other))
                && pom.dependencies.iter().any(|d| names(d, other))
            {
                built.push(other);
            }
        }
    }
    let mut plugin_modules: Vec<PathBuf> = modules
        .iter()
        .filter(|(dir, pom)| {
            *dir != module
                && built
                    .iter()
                    .any(|b| b.plugins.iter().any(|plugin| names(plugin, pom)))
        })
        .map(|(dir, _)| dir.clone())
        .collect();
    plugin_modules.sort();
    // Modules of the closure whose jar a module of the closure copies before `package`.
    let copied = |pom: &Pom| {
        built.iter().any(|b| {
            b.copied.iter().any(|item| names(item, pom))
                || (b.copies_dependencies && b.dependencies.iter().any(|d| names(d, pom)))
        })
    };
    let mut packaged_modules: Vec<PathBuf> = modules
        .iter()
        .filter(|(dir, pom)| {
            *dir != module && built.iter().any(|b| std::ptr::eq(*b, pom)) && copied(pom)
        })
        .map(|(dir, _)| dir.clone())
        .collect();
    packaged_modules.sort();
    if siblings.is_empty() && plugin_modules.is_empty() {
        return None;
    }
    let mut test_jar_siblings: Vec<PathBuf> = modules
        .iter()
        .filter(|(dir, pom)| *dir != module && on(pom, true))
        .map(|(dir, _)| dir.clone())
        .collect();
    test_jar_siblings.sort();
    let mut others: Vec<PathBuf> = modules
        .into_iter()
        .map(|(dir, _)| dir)
        .filter(|dir| *dir != module)
        .collect();
    others.sort();
    Some(Reactor {
        module,
        siblings,
        others,
        test_jar_siblings,
        plugin_modules,
        packaged_modules,
    })
}

/// Every `pom.xml` of a project, outside build output (`target`), sources and `.git`. The
/// workspace was written by a build of candidate code: no link is followed, so the walk stays
/// inside the project.
pub(crate) fn walk_poms(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .min_depth(1)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| {
            !(e.depth() > 0
                && e.file_type().is_dir()
                && matches!(e.file_name().to_str(), Some("target" | "src" | ".git")))
        })
        .flatten()
        .filter(|e| e.file_type().is_file() && e.file_name() == "pom.xml")
        .map(walkdir::DirEntry::into_path)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(files: &[(&str, &str)]) -> tempfile::TempDir {
        let dir = tempfile::tempdir().unwrap();
        for (path, text) in files {
            let path = dir.path().join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        dir
    }

    const ROOT: &str = "<project><groupId>g</groupId><artifactId>root</artifactId>\
        <modules><module>lib</module><module>app</module></modules></project>";
    const LIB: &str = "<project><parent><groupId>g</groupId><artifactId>root</artifactId></parent>\
        <artifactId>lib</artifactId><dependencies><dependency><groupId>junit</groupId>\
        <artifactId>junit</artifactId></dependency></dependencies></project>";

    fn app(group: &str, artifact: &str) -> String {
        format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\"><parent><groupId>g</groupId>\
             <artifactId>root</artifactId></parent><artifactId>app</artifactId>\
             <dependencyManagement><dependencies><dependency><groupId>g</groupId>\
             <artifactId>root</artifactId></dependency></dependencies></dependencyManagement>\
             <dependencies><dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId>\
             </dependency></dependencies></project>"
        )
    }

    /// Each case: the tested module's dependency (group, artifact), the module named by the task,
    /// and the siblings expected to come from the reactor (none: built from the module's folder).
    #[test]
    fn a_module_goes_through_the_reactor_only_when_it_needs_a_sibling() {
        let cases: &[(&str, &str, &str, Option<&[&str]>)] = &[
            ("g", "lib", "app", Some(&["lib"])),
            ("${project.groupId}", "lib", "./app", Some(&["lib"])),
            // Another group's artifact of the same name is not the sibling.
            ("other", "lib", "app", None),
            ("junit", "junit", "app", None),
            // The root is a single build: no reactor.
            ("g", "lib", ".", None),
            // A module that is not in the project.
            ("g", "lib", "missing", None),
            // lib depends on no sibling (a managed dependency is not a dependency).
            ("g", "lib", "lib", None),
        ];
        for (group, artifact, module, expected) in cases {
            let dir = project(&[
                ("pom.xml", ROOT),
                ("lib/pom.xml", LIB),
                ("app/pom.xml", &app(group, artifact)),
            ]);
            let reactor = reactor_for(dir.path(), Path::new(module));
            let siblings: Option<Vec<String>> = reactor
                .as_ref()
                .map(|r| r.siblings.iter().map(|s| s.display().to_string()).collect());
            let expected: Option<Vec<String>> =
                expected.map(|e| e.iter().map(|s| (*s).to_owned()).collect());
            assert_eq!(siblings, expected, "{group}:{artifact} in {module}");
            if let Some(reactor) = reactor {
                assert_eq!(reactor.module, Path::new("app"));
                assert_eq!(reactor.others, [PathBuf::from(""), PathBuf::from("lib")]);
                assert!(reactor.describe().contains("-pl app -am"));
            }
        }
    }

    /// A sibling taken as a test-jar (pac4j-oidc on pac4j-core) is told apart: its test classes
    /// are on the tested module's class path.
    #[test]
    fn a_test_jar_sibling_is_named() {
        for extra in ["<type>test-jar</type>", "<classifier>tests</classifier>"] {
            let app = app("g", "lib").replace(
                "<artifactId>lib</artifactId></dependency>",
                &format!("<artifactId>lib</artifactId>{extra}</dependency>"),
            );
            assert!(app.contains(extra), "{app}");
            let dir = project(&[
                ("pom.xml", ROOT),
                ("lib/pom.xml", LIB),
                ("app/pom.xml", &app),
            ]);
            let reactor = reactor_for(dir.path(), Path::new("app")).unwrap();
            assert_eq!(reactor.test_jar_siblings, [PathBuf::from("lib")]);
        }
        let dir = project(&[
            ("pom.xml", ROOT),
            ("lib/pom.xml", LIB),
            ("app/pom.xml", &app("g", "lib")),
        ]);
        let reactor = reactor_for(dir.path(), Path::new("app")).unwrap();
        assert!(reactor.test_jar_siblings.is_empty());
    }

    /// A module the tested module needs through another (app → lib → codegen-user) runs a plug-in
    /// that the project builds itself: that plug-in's module is named for lifecycle builds, and
    /// a plug-in of another group is not.
    #[test]
    fn a_plugin_the_project_builds_for_a_needed_module_comes_from_the_reactor() {
        let plugin = "<project><parent><groupId>g</groupId><artifactId>root</artifactId></parent>\
            <artifactId>codegen-plugin</artifactId><packaging>maven-plugin</packaging></project>";
        let user = "<project><parent><groupId>g</groupId><artifactId>root</artifactId></parent>\
            <artifactId>user</artifactId><build><plugins><plugin><groupId>g</groupId>\
            <artifactId>codegen-plugin</artifactId></plugin><plugin>\
            <artifactId>maven-compiler-plugin</artifactId></plugin></plugins></build></project>";
        let lib = LIB.replace(
            "<artifactId>junit</artifactId></dependency>",
            "<artifactId>junit</artifactId></dependency><dependency><groupId>g</groupId>\
             <artifactId>user</artifactId></dependency>",
        );
        let dir = project(&[
            ("pom.xml", ROOT),
            ("lib/pom.xml", &lib),
            ("app/pom.xml", &app("g", "lib")),
            ("user/pom.xml", user),
            ("plugins/codegen/pom.xml", plugin),
        ]);
        let reactor = reactor_for(dir.path(), Path::new("app")).unwrap();
        assert_eq!(reactor.plugin_modules, [PathBuf::from("plugins/codegen")]);
        assert_eq!(reactor.projects(true), "app,plugins/codegen");
        assert_eq!(reactor.projects(false), "app");
        assert!(reactor.describe().contains("also name plugins/codegen"));
        // Its test runs jar each module after `compile`, so the plug-in resolves in the reactor.
        assert_eq!(
            reactor.test_run_goals("compile"),
            ["compile", JAR_GOAL, SKIP_EMPTY_JARS]
        );
        // The same plug-in of another group is not the project's.
        let foreign = user.replace(
            "<groupId>g</groupId>\
            <artifactId>codegen",
            "<groupId>x</groupId><artifactId>codegen",
        );
        let dir = project(&[
            ("pom.xml", ROOT),
            ("lib/pom.xml", &lib),
            ("app/pom.xml", &app("g", "lib")),
            ("user/pom.xml", &foreign),
            ("plugins/codegen/pom.xml", plugin),
        ]);
        let reactor = reactor_for(dir.path(), Path::new("app")).unwrap();
        assert!(reactor.plugin_modules.is_empty(), "{foreign}");
        assert_eq!(reactor.test_run_goals("compile"), ["compile"]);
        // A plug-in named without a group is Maven's, even where the project has a module of
        // that name (Maven's own plug-ins are built so).
        let grouped = user.replace(
            "<groupId>g</groupId>\
            <artifactId>codegen",
            "<artifactId>codegen",
        );
        let dir = project(&[
            ("pom.xml", ROOT),
            ("lib/pom.xml", &lib),
            ("app/pom.xml", &app("g", "lib")),
            ("user/pom.xml", &grouped),
            ("plugins/codegen/pom.xml", plugin),
        ]);
        let reactor = reactor_for(dir.path(), Path::new("app")).unwrap();
        assert!(reactor.plugin_modules.is_empty(), "{grouped}");
    }

    /// app needs lib and agent; app's `maven-dependency-plugin` copies agent's jar (TomEE's
    /// openejb-core and its javaagent). Each case: app's `<build>` and the modules whose jar a
    /// lifecycle build must make.
    #[test]
    fn a_module_whose_jar_is_copied_before_packaging_is_jarred_in_lifecycle_builds() {
        let agent = "<project><parent><groupId>g</groupId><artifactId>root</artifactId></parent>\
            <artifactId>agent</artifactId></project>";
        let item = "<artifactItems><artifactItem><groupId>${project.groupId}</groupId>\
            <artifactId>agent</artifactId></artifactItem></artifactItems>";
        let plugin = |body: &str| {
            format!(
                "<build><plugins><plugin><artifactId>maven-surefire-plugin</artifactId></plugin>\
                 <plugin><groupId>org.apache.maven.plugins</groupId>\
                 <artifactId>maven-dependency-plugin</artifactId>{body}</plugin></plugins></build>"
            )
        };
        let execution = |phase: &str, goal: &str, configuration: &str| {
            format!(
                "<executions><execution><id>copy</id>{phase}<goals><goal>{goal}</goal></goals>\
                 {configuration}</execution></executions>"
            )
        };
        let in_execution = format!("<configuration>{item}</configuration>");
        let cases: Vec<(String, &[&str])> = vec![
            // The default phase of copy, and phases up to test-compile.
            (plugin(&execution("", "copy", &in_execution)), &["agent"]),
            (
                plugin(&execution(
                    "<phase>process-resources</phase>",
                    "unpack",
                    &in_execution,
                )),
                &["agent"],
            ),
            // Items in the plug-in's own configuration, which the execution inherits.
            (
                plugin(&format!(
                    "<configuration>{item}</configuration>{}",
                    execution("<phase>generate-resources</phase>", "copy", "")
                )),
                &["agent"],
            ),
            // Copying the module's own dependencies copies both modules it needs.
            (
                plugin(&execution(
                    "<phase>test-compile</phase>",
                    "copy-dependencies",
                    "",
                )),
                &["agent", "lib"],
            ),
            // At package or later, a build that stops at test-compile never copies.
            (
                plugin(&execution("<phase>package</phase>", "copy", &in_execution)),
                &[],
            ),
            (
                plugin(&execution("<phase>test</phase>", "copy", &in_execution)),
                &[],
            ),
            // Another goal, or another plug-in, copies nothing.
            (plugin(&execution("", "tree", &in_execution)), &[]),
            (
                plugin(&execution("", "copy", &in_execution))
                    .replace("maven-dependency-plugin", "other-plugin"),
                &[],
            ),
        ];
        for (build, expected) in cases {
            let app = app("g", "lib").replace(
                "</dependency></dependencies></project>",
                &format!(
                    "</dependency><dependency><groupId>g</groupId><artifactId>agent</artifactId>\
                     </dependency></dependencies>{build}</project>"
                ),
            );
            let dir = project(&[
                ("pom.xml", ROOT),
                ("lib/pom.xml", LIB),
                ("agent/pom.xml", agent),
                ("app/pom.xml", &app),
            ]);
            let reactor = reactor_for(dir.path(), Path::new("app")).unwrap();
            let expected: Vec<PathBuf> = expected.iter().map(PathBuf::from).collect();
            assert_eq!(reactor.packaged_modules, expected, "{build}");
            let args = reactor.lifecycle_goals(vec!["-o".into(), "test-compile".into()]);
            if expected.is_empty() {
                assert_eq!(args, ["-o", "test-compile"]);
            } else {
                assert_eq!(args, ["-o", "test-compile", JAR_GOAL, SKIP_EMPTY_JARS]);
                assert!(reactor.describe().contains("copies the jar of agent"));
                // A build of Surefire's goal alone resolves nothing it would copy.
                assert_eq!(
                    reactor.lifecycle_goals(vec!["x:y:test".into()]),
                    ["x:y:test"]
                );
            }
        }
    }

    #[test]
    fn a_project_without_a_root_pom_is_not_a_reactor() {
        let dir = project(&[("lib/pom.xml", LIB), ("app/pom.xml", &app("g", "lib"))]);
        assert_eq!(reactor_for(dir.path(), Path::new("app")), None);
    }
}
