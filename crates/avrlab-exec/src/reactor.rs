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
}

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
        line
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
    let mut reader = Reader::from_str(text);
    let mut path: Vec<String> = Vec::new();
    let mut pom = Pom::default();
    let mut dependency = Dependency::default();
    loop {
        match reader.read_event().ok()? {
            Event::Start(start) => {
                path.push(start.local_name().as_ref().to_owned());
                if path == ["project", "dependencies", "dependency"]
                    || path == ["project", "build", "plugins", "plugin"]
                {
                    dependency = Dependency::default();
                }
            }
            Event::End(_) => {
                if path == ["project", "dependencies", "dependency"] {
                    pom.dependencies.push(std::mem::take(&mut dependency));
                }
                if path == ["project", "build", "plugins", "plugin"] {
                    // A plug-in without a group is Maven's own, never the project's.
                    let mut plugin = std::mem::take(&mut dependency);
                    plugin
                        .group
                        .get_or_insert_with(|| "org.apache.maven.plugins".to_owned());
                    pom.plugins.push(plugin);
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

    #[test]
    fn a_project_without_a_root_pom_is_not_a_reactor() {
        let dir = project(&[("lib/pom.xml", LIB), ("app/pom.xml", &app("g", "lib"))]);
        assert_eq!(reactor_for(dir.path(), Path::new("app")), None);
    }
}
