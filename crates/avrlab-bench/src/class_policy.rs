//! Which classes a candidate may declare. A main-source class whose fully qualified name is also a
//! test class, a test-framework class or a library class comes first on the test class path
//! (`target/classes` precedes everything else) and would replace it: a candidate could then pass
//! the proof-of-vulnerability test without fixing anything. So every top-level type a candidate's
//! files declare must either already be a main type of the task state, or be new, in one of the
//! project's own packages (those that already hold main sources) or in a package below one of
//! them, and not share its name with any other type of the task state (its tests).
//!
//! Dependencies are covered too: once the warm-up has resolved the test classpath,
//! [`ClassPolicy::with_library`] reads the class names of its jars and folders in the project's own
//! packages (the only packages a new class may use), so a new class cannot take the name of a
//! library class either. JDK classes need no list: from JDK 9 on, a package of a named module of
//! the boot layer is always loaded from that module, never from the class path, so a copy on the
//! class path is ignored (and javac refuses it at `--release` 9 and later).
//!
//! The scan reads what javac reads: Unicode escapes (`\u0070ackage`) are decoded first, and
//! comments, strings, character literals and text blocks are skipped, so a declaration cannot hide
//! from it. It only needs brace depth, not a full parse, so syntax it does not know cannot fool it.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::policy::{EditPolicy, PolicyViolation};

/// What the task state declares: the rules' reference point, scanned once per task.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ClassPolicy {
    /// Packages holding at least one main source (`src/main/java`); `""` is the default package.
    own_packages: BTreeSet<String>,
    /// Fully qualified top-level types of main sources.
    main_types: BTreeSet<String>,
    /// Fully qualified top-level types of every other source (tests, other source roots).
    other_types: BTreeSet<String>,
    /// Top-level types of the test classpath's dependencies in the own packages, with the
    /// classpath entry (file name) that holds each; empty until [`Self::with_library`].
    library_types: BTreeMap<String, String>,
}

/// The package and top-level types a compilation unit declares.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeclaredTypes {
    /// The declared package; `""` for the default package.
    pub package: String,
    /// Simple names of top-level classes, interfaces, enums, records and annotation types.
    pub types: Vec<String>,
}

impl DeclaredTypes {
    fn qualified(&self, name: &str) -> String {
        if self.package.is_empty() {
            name.to_owned()
        } else {
            format!("{}.{name}", self.package)
        }
    }
}

impl ClassPolicy {
    /// Scans the `.java` files of a task state (symbolic links are not followed; `target` and
    /// `.git` folders are skipped). Main sources are those under a `src/main/java` folder and
    /// those the task's edit policy opens (a project's own layout, such as JDOM's `core/src/java`).
    pub fn scan(project: &Path, edit: &EditPolicy) -> std::io::Result<Self> {
        let mut policy = Self::default();
        let walker = walkdir::WalkDir::new(project)
            .follow_links(false)
            .into_iter()
            .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | ".git")));
        for entry in walker {
            let entry = entry.map_err(std::io::Error::other)?;
            if !entry.file_type().is_file() || entry.path().extension().is_none_or(|e| e != "java")
            {
                continue;
            }
            let relative = entry.path().strip_prefix(project).unwrap_or(entry.path());
            let text = String::from_utf8_lossy(&std::fs::read(entry.path())?).into_owned();
            let relative = relative.to_string_lossy();
            let main = is_main_source(&relative) || edit.check_path(&relative).is_ok();
            policy.add_as(&text, main);
        }
        Ok(policy)
    }

    /// Adds one file of the task state, a main source when it lies under `src/main/java`.
    pub fn add(&mut self, path: &str, text: &str) {
        self.add_as(text, is_main_source(path));
    }

    fn add_as(&mut self, text: &str, main: bool) {
        let declared = declared_types(text);
        if main {
            self.own_packages.insert(declared.package.clone());
        }
        for name in &declared.types {
            let set = if main {
                &mut self.main_types
            } else {
                &mut self.other_types
            };
            set.insert(declared.qualified(name));
        }
    }

    /// Adds the classes of the test classpath's dependencies (jars and class folders) that lie in
    /// the project's own packages. Entries that do not exist are skipped (a sibling module's
    /// classes, gone with the warm-up's copy); a jar that cannot be read is an error.
    pub fn with_library(mut self, classpath: &[PathBuf]) -> std::io::Result<Self> {
        for entry in classpath {
            let label = entry.file_name().map_or_else(
                || entry.display().to_string(),
                |n| n.to_string_lossy().into_owned(),
            );
            for class_file in class_files(entry)? {
                if let Some(name) = top_level_type(&class_file)
                    && self.may_hold_new_types(package_of(&name))
                    && !self.main_types.contains(&name)
                {
                    self.library_types
                        .entry(name)
                        .or_insert_with(|| label.clone());
                }
            }
        }
        Ok(self)
    }

    /// Whether a candidate may add a type to `package`: one of the project's own packages, or a
    /// package below one of them (`com.ctrip.framework.apollo.adminservice.filter` below
    /// `…adminservice`: Apollo-1's fix adds its first main class, beside the tests it adds). An
    /// own package of one segment (`org`) or the default package opens nothing below it, so a
    /// new class can never take a test framework's package; its name is checked against the
    /// tests' and the libraries' classes as in an own package.
    fn may_hold_new_types(&self, package: &str) -> bool {
        self.own_packages.contains(package)
            || self.own_packages.iter().any(|own| {
                own.contains('.')
                    && package
                        .strip_prefix(own.as_str())
                        .is_some_and(|rest| rest.starts_with('.'))
            })
    }

    /// How many dependency classes lie in the project's own packages.
    pub fn library_type_count(&self) -> usize {
        self.library_types.len()
    }

    /// Checks the text a candidate leaves in `path` (project-relative).
    pub fn check_source(&self, path: &str, text: &str) -> Result<(), PolicyViolation> {
        if !path.ends_with(".java") {
            return Ok(());
        }
        let declared = declared_types(text);
        for name in &declared.types {
            let qualified = declared.qualified(name);
            if self.main_types.contains(&qualified) {
                continue;
            }
            if !self.may_hold_new_types(&declared.package) {
                return Err(PolicyViolation::ForeignPackage {
                    path: path.to_owned(),
                    class: qualified,
                });
            }
            if self.other_types.contains(&qualified) {
                return Err(PolicyViolation::ShadowsClass {
                    path: path.to_owned(),
                    class: qualified,
                });
            }
            if let Some(library) = self.library_types.get(&qualified) {
                return Err(PolicyViolation::ShadowsLibraryClass {
                    path: path.to_owned(),
                    class: qualified,
                    library: library.clone(),
                });
            }
        }
        Ok(())
    }
}

/// A class file that one of `project` (class folders) and one of `libraries` (jars or folders)
/// both hold, if any: with such a class, the order of the two on a class path decides which one
/// is loaded.
pub fn shared_class_file(
    project: &[&Path],
    libraries: &[PathBuf],
) -> std::io::Result<Option<String>> {
    let mut own = std::collections::HashSet::new();
    for folder in project {
        own.extend(
            class_files(folder)?
                .into_iter()
                .filter(|f| f.ends_with(".class") && !f.ends_with("module-info.class")),
        );
    }
    for library in libraries {
        if let Some(shared) = class_files(library)?.into_iter().find(|f| own.contains(f)) {
            return Ok(Some(format!("{shared} (also in {})", library.display())));
        }
    }
    Ok(None)
}

/// The `/`-separated paths of the class files in a classpath entry (a jar or a class folder); none
/// when the entry does not exist.
fn class_files(entry: &Path) -> std::io::Result<Vec<String>> {
    let meta = match std::fs::metadata(entry) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(e),
    };
    if meta.is_dir() {
        let mut names = Vec::new();
        for file in walkdir::WalkDir::new(entry).follow_links(false) {
            let file = file.map_err(std::io::Error::other)?;
            if file.file_type().is_file()
                && let Ok(relative) = file.path().strip_prefix(entry)
            {
                names.push(relative.to_string_lossy().replace('\\', "/"));
            }
        }
        return Ok(names);
    }
    // A dependency of type `pom` (an aggregator such as `apache-jena-libs`) is on the classpath
    // Maven prints as its `.pom` file, which holds no class.
    if entry
        .extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("pom"))
    {
        return Ok(Vec::new());
    }
    let archive = zip::ZipArchive::new(std::fs::File::open(entry)?).map_err(|e| {
        std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            format!("{} is not a readable jar: {e}", entry.display()),
        )
    })?;
    archive
        .file_names()
        .map(|name| name.map(|n| n.into_owned()))
        .collect::<Result<_, _>>()
        .map_err(|e| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!("{} has an unreadable entry name: {e}", entry.display()),
            )
        })
}

/// The fully qualified top-level type a class file holds (`a/b/C$D.class` → `a.b.C`), looking
/// through multi-release folders; none for other files and `module-info`/`package-info`.
fn top_level_type(class_file: &str) -> Option<String> {
    let mut path = class_file.strip_suffix(".class")?;
    if let Some(rest) = path.strip_prefix("META-INF/versions/") {
        path = rest.split_once('/')?.1;
    }
    let (package, simple) = path.rsplit_once('/').unwrap_or(("", path));
    let simple = simple.split('$').next().unwrap_or(simple);
    if simple.is_empty() || simple.contains('-') || package.starts_with("META-INF") {
        return None;
    }
    Some(if package.is_empty() {
        simple.to_owned()
    } else {
        format!("{}.{simple}", package.replace('/', "."))
    })
}

fn package_of(qualified: &str) -> &str {
    qualified
        .rsplit_once('.')
        .map_or("", |(package, _)| package)
}

fn is_main_source(path: &str) -> bool {
    let parts: Vec<&str> = path.split('/').collect();
    parts.windows(3).any(|w| w == ["src", "main", "java"])
}

/// Decodes Java Unicode escapes (JLS 3.3): `\uXXXX` (any number of `u`s) where the backslash is
/// not itself escaped. Malformed escapes are left as they are (javac rejects them anyway).
pub fn decode_unicode_escapes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    let mut backslashes = 0usize;
    while i < chars.len() {
        let c = chars[i];
        if c == '\\' && backslashes.is_multiple_of(2) && chars.get(i + 1) == Some(&'u') {
            let mut j = i + 1;
            while chars.get(j) == Some(&'u') {
                j += 1;
            }
            let hex: String = chars.iter().skip(j).take(4).collect();
            if hex.len() == 4
                && let Ok(code) = u32::from_str_radix(&hex, 16)
            {
                // Surrogate halves cannot be chars; they never spell a keyword or a name.
                out.push(char::from_u32(code).unwrap_or('\u{fffd}'));
                i = j + 4;
                backslashes = 0;
                continue;
            }
        }
        backslashes = if c == '\\' { backslashes + 1 } else { 0 };
        out.push(c);
        i += 1;
    }
    out
}

/// A token that matters for declarations.
#[derive(Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    Punct(char),
}

/// Words and punctuation, without comments, literals and white space.
fn tokens(text: &str) -> Vec<Token> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if c == '/' && next == Some('/') {
            while i < chars.len() && chars[i] != '\n' && chars[i] != '\r' {
                i += 1;
            }
        } else if c == '/' && next == Some('*') {
            i += 2;
            while i < chars.len() && !(chars[i] == '*' && chars.get(i + 1) == Some(&'/')) {
                i += 1;
            }
            i += 2;
        } else if c == '"' && next == Some('"') && chars.get(i + 2) == Some(&'"') {
            // A text block: ends at the next unescaped `"""`.
            i += 3;
            while i < chars.len() {
                if chars[i] == '\\' {
                    i += 2;
                } else if chars[i..].starts_with(&['"', '"', '"']) {
                    i += 3;
                    break;
                } else {
                    i += 1;
                }
            }
            out.push(Token::Punct('"'));
        } else if c == '"' || c == '\'' {
            i += 1;
            while i < chars.len() && chars[i] != c && chars[i] != '\n' {
                i += if chars[i] == '\\' { 2 } else { 1 };
            }
            i += 1;
            out.push(Token::Punct(c));
        } else if c.is_alphanumeric() || c == '_' || c == '$' {
            let start = i;
            while i < chars.len()
                && (chars[i].is_alphanumeric() || chars[i] == '_' || chars[i] == '$')
            {
                i += 1;
            }
            out.push(Token::Word(chars[start..i].iter().collect()));
        } else {
            if !c.is_whitespace() {
                out.push(Token::Punct(c));
            }
            i += 1;
        }
    }
    out
}

/// The package and top-level type names of a compilation unit, as javac would see them.
pub fn declared_types(text: &str) -> DeclaredTypes {
    let tokens = tokens(&decode_unicode_escapes(text));
    let mut declared = DeclaredTypes::default();
    let mut depth = 0usize;
    let mut parens = 0usize;
    let mut i = 0;
    while i < tokens.len() {
        match &tokens[i] {
            Token::Punct('{') => depth += 1,
            Token::Punct('}') => depth = depth.saturating_sub(1),
            Token::Punct('(') => parens += 1,
            Token::Punct(')') => parens = parens.saturating_sub(1),
            Token::Word(word) if depth == 0 && parens == 0 => {
                let after_dot = i > 0 && tokens[i - 1] == Token::Punct('.');
                let next_word = match tokens.get(i + 1) {
                    Some(Token::Word(name)) => Some(name.clone()),
                    _ => None,
                };
                match (word.as_str(), next_word) {
                    ("package", Some(_)) if !after_dot => {
                        let mut name = String::new();
                        let mut j = i + 1;
                        while let Some(token) = tokens.get(j) {
                            match token {
                                Token::Word(part) => name.push_str(part),
                                Token::Punct('.') => name.push('.'),
                                _ => break,
                            }
                            j += 1;
                        }
                        declared.package = name;
                        i = j;
                        continue;
                    }
                    ("class" | "interface" | "enum" | "record", Some(name)) if !after_dot => {
                        declared.types.push(name);
                        i += 2;
                        continue;
                    }
                    _ => {}
                }
            }
            _ => {}
        }
        i += 1;
    }
    declared
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy() -> ClassPolicy {
        let mut policy = ClassPolicy::default();
        policy.add(
            "src/main/java/com/example/A.java",
            "package com.example;\npublic class A {}\nclass Helper {}\n",
        );
        policy.add(
            "src/test/java/com/example/ATest.java",
            "package com.example;\nclass ATest { @Test void t() {} }\n",
        );
        policy.add(
            "src/test/java/com/example/util/Fixtures.java",
            "package com.example.util;\npublic final class Fixtures {}\n",
        );
        policy
    }

    #[test]
    fn finds_packages_and_top_level_types_as_javac_does() {
        let text = "/* package fake; class Fake {} */ // class Fake2\n\
            @Deprecated(since = \"1\") \\u0070ackage org.\\uuu006aunit ;\n\
            import static java.util.Map.Entry;\n\
            @interface Marker { String value() default \"class X\"; }\n\
            public record Point(int x, int y) { class Inner {} }\n\
            enum E { A { class InA {} } }\n\
            final class Last { Object o = Last.class; String s = \"\"\"\n class Y {}\"\"\"; }\n";
        let declared = declared_types(text);
        assert_eq!(declared.package, "org.junit");
        assert_eq!(declared.types, ["Marker", "Point", "E", "Last"]);
        assert_eq!(declared_types("class A {}").package, "");
    }

    #[test]
    fn candidates_may_add_types_only_in_own_packages_and_never_shadow_tests() {
        let policy = policy();
        let ok = "package com.example;\npublic class A {}\nclass Helper {}\nclass NewOne {}\n";
        assert!(
            policy
                .check_source("src/main/java/com/example/A.java", ok)
                .is_ok()
        );
        assert!(policy.check_source("README.md", "class X {}").is_ok());
        // A package below an own one, new or holding tests only (Apollo-1's fix adds one).
        for (path, text) in [
            (
                "src/main/java/com/example/filter/AuthFilter.java",
                "package com.example.filter;\npublic class AuthFilter {}\n",
            ),
            (
                "src/main/java/com/example/util/Other.java",
                "package com.example.util;\npublic class Other {}\n",
            ),
        ] {
            assert!(policy.check_source(path, text).is_ok(), "{text}");
        }
        for (text, shadow) in [
            (
                "package org.junit.jupiter.api;\npublic class Assertions {}",
                false,
            ),
            ("package com.example.util;\npublic class Fixtures {}", true),
            ("package com;\npublic class Above {}", false),
            ("public class Default {}", false),
            ("package com.example;\nclass ATest {}", true),
            ("package com.example;\nclass A {}\nclass ATest {}", true),
            ("\\u0070ackage org.junit; class Assert {}", false),
        ] {
            let err = policy
                .check_source("src/main/java/com/example/A.java", text)
                .unwrap_err();
            let matches = if shadow {
                matches!(err, PolicyViolation::ShadowsClass { .. })
            } else {
                matches!(err, PolicyViolation::ForeignPackage { .. })
            };
            assert!(matches, "{text}: {err}");
        }
    }

    #[test]
    fn new_classes_may_not_take_the_name_of_a_dependency_class() {
        let dir = tempfile::tempdir().unwrap();
        let jar = dir.path().join("lib-1.0.jar");
        let mut writer = zip::ZipWriter::new(std::fs::File::create(&jar).unwrap());
        let stored = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Stored);
        for name in [
            "META-INF/MANIFEST.MF",
            "com/example/Shared.class",
            "com/example/Shared$Inner.class",
            "META-INF/versions/11/com/example/Versioned.class",
            "com/example/package-info.class",
            "com/example/A.class",
            "com/example/filter/Chain.class",
            "org/other/Elsewhere.class",
            "module-info.class",
        ] {
            writer.start_file(name, stored).unwrap();
        }
        writer.finish().unwrap();
        let classes = dir.path().join("sibling/target/classes/com/example");
        std::fs::create_dir_all(&classes).unwrap();
        std::fs::write(classes.join("FromFolder.class"), b"").unwrap();
        // An aggregator dependency's pom, as dependency:build-classpath prints it (OpenRefine).
        let pom = dir.path().join("apache-jena-libs-3.6.0.pom");
        std::fs::write(&pom, "<project/>").unwrap();
        let classpath = [
            jar,
            dir.path().join("sibling/target/classes"),
            dir.path().join("gone.jar"),
            pom,
        ];
        let policy = policy().with_library(&classpath).unwrap();
        // Only own packages and new ones below them are kept, and the project's own main types
        // are not library types.
        assert_eq!(policy.library_type_count(), 4);
        for (class, library) in [
            ("Shared", "lib-1.0.jar"),
            ("Versioned", "lib-1.0.jar"),
            ("FromFolder", "classes"),
            ("filter.Chain", "lib-1.0.jar"),
        ] {
            let (package, class) = match class.split_once('.') {
                Some((below, class)) => (format!("com.example.{below}"), class),
                None => ("com.example".to_owned(), class),
            };
            let text = format!("package {package};\nclass {class} {{}}");
            let err = policy
                .check_source("src/main/java/com/example/New.java", &text)
                .unwrap_err();
            assert!(
                matches!(&err, PolicyViolation::ShadowsLibraryClass { library: l, .. } if l == library),
                "{class}: {err}"
            );
        }
        let edit = "package com.example;\npublic class A {}\nclass Fresh {}";
        assert!(
            policy
                .check_source("src/main/java/com/example/A.java", edit)
                .is_ok()
        );
        let broken = dir.path().join("broken.jar");
        std::fs::write(&broken, b"not a zip").unwrap();
        assert!(ClassPolicy::default().with_library(&[broken]).is_err());
    }

    #[test]
    fn scans_a_task_state_without_following_links() {
        let dir = tempfile::tempdir().unwrap();
        let main = dir.path().join("src/main/java/com/example");
        std::fs::create_dir_all(&main).unwrap();
        std::fs::write(main.join("A.java"), "package com.example; class A {}").unwrap();
        let target = dir.path().join("target/classes");
        std::fs::create_dir_all(&target).unwrap();
        std::fs::write(target.join("B.java"), "package elsewhere; class B {}").unwrap();
        let policy = ClassPolicy::scan(dir.path(), &EditPolicy::new(None).unwrap()).unwrap();
        assert!(policy.own_packages.contains("com.example"));
        assert!(!policy.own_packages.contains("elsewhere"));
    }

    /// A project's own layout (JDOM's `core/src/java`): its editable sources are main sources,
    /// so a fix there is in the project's own packages; its tests stay other types.
    #[test]
    fn the_edit_policy_names_main_sources_of_other_layouts() {
        let dir = tempfile::tempdir().unwrap();
        let core = dir.path().join("core/src/java/org/jdom2/input");
        std::fs::create_dir_all(&core).unwrap();
        std::fs::write(
            core.join("SAXBuilder.java"),
            "package org.jdom2.input; public class SAXBuilder {}",
        )
        .unwrap();
        let test = dir.path().join("test/src/java/org/jdom2/input");
        std::fs::create_dir_all(&test).unwrap();
        std::fs::write(
            test.join("Helper.java"),
            "package org.jdom2.input; class Helper {}",
        )
        .unwrap();
        let edit = EditPolicy::new(Some(&["core/src/java/**/*.java".to_owned()])).unwrap();
        let policy = ClassPolicy::scan(dir.path(), &edit).unwrap();
        let fixed = "package org.jdom2.input; public class SAXBuilder { int fixed; }";
        assert!(
            policy
                .check_source("core/src/java/org/jdom2/input/SAXBuilder.java", fixed)
                .is_ok()
        );
        let shadow = "package org.jdom2.input; class Helper {}";
        assert!(matches!(
            policy.check_source("core/src/java/org/jdom2/input/Helper.java", shadow),
            Err(PolicyViolation::ShadowsClass { .. })
        ));
    }
}
