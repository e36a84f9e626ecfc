//! Where a project keeps its main and test sources, read from the project itself: each Java
//! file's package declaration gives its source root, and the build files say which roots hold
//! tests (Maven's `<testSourceDirectory>`, the folders Ant's test targets compile). Older projects
//! keep their own layouts (JDOM: `core/src/java` and `test/src/java`), so `src/main/java` is only
//! the default, never an assumption.

use std::collections::BTreeMap;

use quick_xml::events::Event;
use quick_xml::{Reader, XmlVersion};

/// What a Java source file is for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum SourceRole {
    /// Compiled into the project: a candidate may change it.
    Main,
    /// A test source: never editable.
    Test,
}

/// A Java source file placed in its project.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaSource {
    /// The source root, relative to the repository root, without a trailing `/` (`.` for the
    /// root itself): the path minus the package folders and the file name.
    pub root: String,
    /// The top-level class the file is named after, with its package (`org.jdom2.input.SAXBuilder`).
    pub class: String,
    pub role: SourceRole,
}

/// The source roots the build files declare, by role, relative to the repository root.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredRoots {
    pub main: Vec<String>,
    pub test: Vec<String>,
}

impl DeclaredRoots {
    /// Reads every build file among `files` (path, text): `pom.xml` and Ant's `build.xml`.
    pub fn read<'a>(files: impl IntoIterator<Item = (&'a str, &'a str)>) -> Self {
        let mut roots = Self::default();
        for (path, text) in files {
            let (dir, name) = match path.rsplit_once('/') {
                Some((dir, name)) => (dir, name),
                None => ("", path),
            };
            match name {
                "pom.xml" => roots.add_pom(dir, text),
                "build.xml" => roots.add_ant(dir, text),
                _ => {}
            }
        }
        roots.main.sort();
        roots.main.dedup();
        roots.test.sort();
        roots.test.dedup();
        roots
    }

    fn add_pom(&mut self, dir: &str, text: &str) {
        let mut main = None;
        let mut test = None;
        for (at, value) in xml_texts(text) {
            match at.as_slice() {
                [p, b, s] if p == "project" && b == "build" && s == "sourceDirectory" => {
                    main = Some(value);
                }
                [p, b, s] if p == "project" && b == "build" && s == "testSourceDirectory" => {
                    test = Some(value);
                }
                _ => {}
            }
        }
        let main = main.unwrap_or_else(|| "src/main/java".into());
        let test = test.unwrap_or_else(|| "src/test/java".into());
        // `${basedir}/src` and `${project.basedir}/src` are the pom's own folder.
        for (value, list) in [(main, &mut self.main), (test, &mut self.test)] {
            let value = value
                .trim_start_matches("${project.basedir}")
                .trim_start_matches("${basedir}")
                .trim_start_matches('/');
            if !value.contains("${") {
                list.push(join(dir, value));
            }
        }
    }

    /// Ant: the `srcdir` of every `<javac>`, with `${property}` references resolved from the
    /// file's `<property name value|location>`; a `<javac>` in a target whose name, or whose
    /// folder, speaks of tests (`test`, `junit`) compiles tests.
    fn add_ant(&mut self, dir: &str, text: &str) {
        let mut properties: BTreeMap<String, String> = BTreeMap::new();
        let mut compiles: Vec<(String, String)> = Vec::new();
        let mut target = String::new();
        let mut reader = Reader::from_str(text);
        loop {
            let event = match reader.read_event() {
                Ok(Event::Eof) | Err(_) => break,
                Ok(event) => event,
            };
            let (Event::Start(element) | Event::Empty(element)) = event else {
                continue;
            };
            let attribute = |name: &str| {
                element
                    .attributes()
                    .flatten()
                    .find(|a| a.key.local_name().as_ref() == name)
                    .and_then(|a| {
                        a.normalized_value(XmlVersion::Implicit1_0)
                            .ok()
                            .map(|v| v.into_owned())
                    })
            };
            match element.local_name().as_ref() {
                "target" => target = attribute("name").unwrap_or_default(),
                "property" => {
                    if let (Some(name), Some(value)) = (
                        attribute("name"),
                        attribute("value").or_else(|| attribute("location")),
                    ) {
                        // Ant properties are immutable: the first definition wins.
                        properties.entry(name).or_insert(value);
                    }
                }
                "javac" => {
                    if let Some(src) = attribute("srcdir") {
                        compiles.push((target.clone(), src));
                    }
                }
                _ => {}
            }
        }
        for (target, src) in compiles {
            let Some(folder) = resolve(&src, &properties) else {
                continue;
            };
            let folder = folder.trim_start_matches("./").trim_end_matches('/');
            let testing = |text: &str| {
                let lower = text.to_ascii_lowercase();
                lower.contains("test") || lower.contains("junit")
            };
            let path = join(dir, folder);
            if testing(&target) || testing(folder) {
                self.test.push(path);
            } else {
                self.main.push(path);
            }
        }
    }

    /// Places a Java file of the repository: its root from its package, its role from the
    /// declared roots, else from the root's folders and what the file imports.
    pub fn place(&self, path: &str, text: &str) -> Option<JavaSource> {
        let stem = path.strip_suffix(".java")?;
        let (folder, name) = stem.rsplit_once('/').unwrap_or(("", stem));
        let package = package_of(text);
        let package_path = package.replace('.', "/");
        let root = if package.is_empty() {
            folder.to_owned()
        } else if folder == package_path {
            String::new()
        } else {
            folder.strip_suffix(&format!("/{package_path}"))?.to_owned()
        };
        let class = if package.is_empty() {
            name.to_owned()
        } else {
            format!("{package}.{name}")
        };
        let root = if root.is_empty() {
            ".".to_owned()
        } else {
            root
        };
        let role = if self.test.contains(&root) {
            SourceRole::Test
        } else if self.main.contains(&root) {
            SourceRole::Main
        } else if is_test_folder(&root) || imports_test_framework(text) {
            SourceRole::Test
        } else {
            SourceRole::Main
        };
        Some(JavaSource { root, class, role })
    }
}

/// `dir/value`, or `value` at the repository root.
fn join(dir: &str, value: &str) -> String {
    let value = value.trim_end_matches('/');
    if dir.is_empty() || dir == "." {
        value.to_owned()
    } else {
        format!("{dir}/{value}")
    }
}

/// `${name}` references replaced from `properties`, up to a few levels deep; `None` when one
/// stays unresolved.
fn resolve(text: &str, properties: &BTreeMap<String, String>) -> Option<String> {
    let mut text = text.to_owned();
    for _ in 0..8 {
        let Some(start) = text.find("${") else {
            return Some(text);
        };
        let end = start + text[start..].find('}')?;
        let value = properties.get(&text[start + 2..end])?;
        text.replace_range(start..=end, value);
    }
    (!text.contains("${")).then_some(text)
}

/// A source root whose folders name tests: `src/test/java`, `test/src/java`, `tests/`,
/// `src/it/java`, `src/integration-test/java`.
fn is_test_folder(root: &str) -> bool {
    root.split('/').any(|part| {
        matches!(
            part,
            "test" | "tests" | "it" | "integration-test" | "testsuite" | "test-framework"
        )
    })
}

/// A file that imports JUnit or TestNG is a test, wherever it sits.
fn imports_test_framework(text: &str) -> bool {
    text.lines().any(|line| {
        let line = line.trim_start();
        line.starts_with("import") && {
            let rest = line.trim_start_matches("import").trim_start();
            let rest = rest.trim_start_matches("static").trim_start();
            rest.starts_with("org.junit")
                || rest.starts_with("junit.")
                || rest.starts_with("org.testng")
        }
    })
}

/// The package a Java source declares (empty for the default package). Comments before it are
/// skipped; annotations on the package (`package-info.java`) are not looked into.
pub fn package_of(text: &str) -> String {
    let mut rest = text;
    loop {
        rest = rest.trim_start();
        if let Some(after) = rest.strip_prefix("//") {
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix("/*") {
            rest = after.split_once("*/").map_or("", |(_, r)| r);
        } else if let Some(after) = rest.strip_prefix('@') {
            // A package annotation: skip to the end of its line.
            rest = after.split_once('\n').map_or("", |(_, r)| r);
        } else {
            break;
        }
    }
    rest.strip_prefix("package")
        .filter(|r| r.starts_with(char::is_whitespace))
        .and_then(|r| r.split_once(';'))
        .map(|(name, _)| name.split_whitespace().collect::<String>())
        .unwrap_or_default()
}

/// The text content of every element of an XML document, with the path of local names to it.
/// A document that is not well-formed yields what was read before the error.
fn xml_texts(text: &str) -> Vec<(Vec<String>, String)> {
    let mut reader = Reader::from_str(text);
    let mut path: Vec<String> = Vec::new();
    let mut out = Vec::new();
    loop {
        match reader.read_event() {
            Ok(Event::Start(start)) => {
                path.push(start.local_name().as_ref().to_owned());
            }
            Ok(Event::End(_)) => {
                path.pop();
            }
            Ok(Event::Text(t)) => {
                let value = t.xml_content(XmlVersion::Implicit1_0).trim().to_owned();
                if !value.is_empty() {
                    out.push((path.clone(), value));
                }
            }
            Ok(Event::Eof) | Err(_) => return out,
            Ok(_) => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_package_is_read_past_comments() {
        assert_eq!(
            package_of("/* licence\n * text */\n// more\npackage  org.jdom2.input ;\nclass A {}"),
            "org.jdom2.input"
        );
        assert_eq!(package_of("class A {}"), "");
        assert_eq!(package_of("packaged"), "");
    }

    /// JDOM's layout, from its Ant build file: `core/src/java` compiles the library,
    /// `test/src/java` (through `${junit.src}`) the tests.
    #[test]
    fn ant_build_files_declare_their_source_folders() {
        let build = r#"<project name="jdom" default="package">
          <property name="core.src" value="core/src/java"/>
          <property name="junit" value="./test"/>
          <property name="junit.src" value="${junit}/src/java"/>
          <target name="compile.core"><javac srcdir="${core.src}" destdir="build/classes"/></target>
          <target name="compile.junit"><javac srcdir="${junit.src}" destdir="build/junit"/></target>
        </project>"#;
        let roots = DeclaredRoots::read([("build.xml", build)]);
        assert_eq!(roots.main, ["core/src/java"]);
        assert_eq!(roots.test, ["test/src/java"]);
        let main = roots
            .place(
                "core/src/java/org/jdom2/input/SAXBuilder.java",
                "package org.jdom2.input;\nimport org.xml.sax.XMLReader;\n",
            )
            .unwrap();
        assert_eq!(main.root, "core/src/java");
        assert_eq!(main.class, "org.jdom2.input.SAXBuilder");
        assert_eq!(main.role, SourceRole::Main);
        let test = roots
            .place(
                "test/src/java/org/jdom2/test/cases/input/TestSAXBuilder.java",
                "package org.jdom2.test.cases.input;\n",
            )
            .unwrap();
        assert_eq!(
            (test.root.as_str(), test.role),
            ("test/src/java", SourceRole::Test)
        );
    }

    #[test]
    fn maven_poms_declare_their_source_folders_and_default_to_the_standard_ones() {
        let custom = "<project><build><sourceDirectory>src/java</sourceDirectory>\
            <testSourceDirectory>${basedir}/src/tests</testSourceDirectory></build></project>";
        let plain = "<project><artifactId>m</artifactId></project>";
        let roots = DeclaredRoots::read([("pom.xml", custom), ("core/pom.xml", plain)]);
        assert_eq!(roots.main, ["core/src/main/java", "src/java"]);
        assert_eq!(roots.test, ["core/src/test/java", "src/tests"]);
        let place = |path: &str, text: &str| roots.place(path, text).unwrap().role;
        assert_eq!(place("src/java/a/B.java", "package a;"), SourceRole::Main);
        assert_eq!(
            place("src/tests/a/BTest.java", "package a;"),
            SourceRole::Test
        );
        assert_eq!(
            place("core/src/main/java/a/B.java", "package a;"),
            SourceRole::Main
        );
        // Undeclared roots: their folders, then their imports, decide.
        assert_eq!(place("it/src/a/CIT.java", "package a;"), SourceRole::Test);
        assert_eq!(
            place(
                "extra/a/Check.java",
                "package a;\nimport static org.junit.Assert.assertTrue;\n"
            ),
            SourceRole::Test
        );
        // A package folder named like a build folder is still a package (`steps/build`).
        let build_package = roots
            .place(
                "src/main/java/org/x/steps/build/Step.java",
                "package org.x.steps.build;",
            )
            .unwrap();
        assert_eq!(build_package.root, "src/main/java");
        assert_eq!(build_package.role, SourceRole::Main);
    }

    #[test]
    fn a_file_outside_its_package_folders_is_not_placed() {
        let roots = DeclaredRoots::default();
        assert_eq!(roots.place("src/a/B.java", "package x.y;"), None);
        assert_eq!(roots.place("README.md", ""), None);
        let top = roots.place("A.java", "class A {}").unwrap();
        assert_eq!((top.root.as_str(), top.class.as_str()), (".", "A"));
    }
}
