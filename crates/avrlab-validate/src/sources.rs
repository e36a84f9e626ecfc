//! Which source files Maven's compiler plug-in compiles, and which classes they define: the fast
//! path compiles what the build would (a candidate's file in a folder the plug-in leaves out is not
//! compiled), and a candidate's file that defines a class another compiled source already defines
//! is javac's "duplicate class" error there as on Maven.
//!
//! The plug-in (through plexus-compiler's `SourceInclusionScanner`) scans each source root with
//! plexus-utils' `DirectoryScanner`: its `<includes>` (default `**/*.java`), its `<excludes>`, and
//! always the scanner's default excludes, the version-control and editor files below.

use std::collections::HashMap;
use std::path::Path;

use globset::{Glob, GlobBuilder, GlobSet, GlobSetBuilder};

/// plexus-utils' `AbstractScanner.DEFAULTEXCLUDES` (3.5 and 4.0; 4.0.1 adds `**/.gitignore`, which
/// no Java source matches), which Maven's compiler plug-in adds to every scan of a source root.
const DEFAULT_EXCLUDES: &[&str] = &[
    // Editors and operating systems.
    "**/*~",
    "**/#*#",
    "**/.#*",
    "**/%*%",
    "**/._*",
    "**/.DS_Store",
    // CVS, RCS, SCCS, Visual SourceSafe, MKS.
    "**/CVS",
    "**/CVS/**",
    "**/.cvsignore",
    "**/RCS",
    "**/RCS/**",
    "**/SCCS",
    "**/SCCS/**",
    "**/vssver.scc",
    "**/project.pj",
    // Subversion, GNU Arch, Bazaar, Surround, Eclipse, Mercurial, Git.
    "**/.svn",
    "**/.svn/**",
    "**/.arch-ids",
    "**/.arch-ids/**",
    "**/.bzr",
    "**/.bzr/**",
    "**/.MySCMServerInfo",
    "**/.metadata",
    "**/.metadata/**",
    "**/.hg",
    "**/.hg/**",
    "**/.git",
    "**/.git/**",
    "**/.gitignore",
    // BitKeeper, darcs.
    "**/BitKeeper",
    "**/BitKeeper/**",
    "**/ChangeSet",
    "**/ChangeSet/**",
    "**/_darcs",
    "**/_darcs/**",
    "**/.darcsrepo",
    "**/.darcsrepo/**",
    "**/-darcs-backup*",
    "**/.darcs-temp-mail",
];

/// The compiler plug-in's includes and excludes, as its configuration in the project's poms sets
/// them (Ant patterns, relative to a source root).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct SourcePatterns {
    pub(crate) includes: Vec<String>,
    pub(crate) excludes: Vec<String>,
}

impl SourcePatterns {
    /// The main sources' `<includes>`/`<excludes>` of every `maven-compiler-plugin` block of a
    /// pom (its plug-in configuration and its executions' alike: the fast path cannot tell
    /// executions apart, and projects set them alike where they set any).
    pub(crate) fn main_from_pom(pom: &str) -> Self {
        Self::from_pom(pom, "includes", "excludes")
    }

    /// The test sources' `<testIncludes>`/`<testExcludes>`, read as [`Self::main_from_pom`] reads
    /// the main sources' patterns.
    pub(crate) fn test_from_pom(pom: &str) -> Self {
        Self::from_pom(pom, "testIncludes", "testExcludes")
    }

    fn from_pom(pom: &str, includes: &str, excludes: &str) -> Self {
        let mut patterns = Self::default();
        for plugin in pom.split("<plugin>").skip(1) {
            let plugin = plugin.split("</plugin>").next().unwrap_or("");
            if !plugin.contains("<artifactId>maven-compiler-plugin</artifactId>") {
                continue;
            }
            for (list, into) in [
                (includes, &mut patterns.includes),
                (excludes, &mut patterns.excludes),
            ] {
                for block in plugin.split(&format!("<{list}>")).skip(1) {
                    let block = block.split(&format!("</{list}>")).next().unwrap_or("");
                    // Maven reads a list from its child elements, whatever their names.
                    for value in block.split('<').filter_map(|t| t.split_once('>')) {
                        let value = value.1.trim();
                        if !value.is_empty() && !into.iter().any(|v| v == value) {
                            into.push(value.to_owned());
                        }
                    }
                }
            }
        }
        patterns
    }

    /// The patterns of several poms together (the tested module's and the root's).
    pub(crate) fn merge(mut self, other: Self) -> Self {
        for (into, from) in [
            (&mut self.includes, other.includes),
            (&mut self.excludes, other.excludes),
        ] {
            for value in from {
                if !into.contains(&value) {
                    into.push(value);
                }
            }
        }
        self
    }
}

/// Which files under a source root the compiler plug-in compiles.
#[derive(Debug, Clone)]
pub(crate) struct SourceSelection {
    includes: GlobSet,
    excludes: GlobSet,
}

/// An Ant pattern as a glob: `*` and `?` stay within one path segment, `**` spans segments, and a
/// pattern ending in `/` means everything below (`DirectoryScanner`'s rule).
fn ant_glob(pattern: &str) -> Result<Glob, globset::Error> {
    let mut pattern = pattern.replace('\\', "/");
    if pattern.ends_with('/') {
        pattern.push_str("**");
    }
    GlobBuilder::new(&pattern).literal_separator(true).build()
}

impl SourceSelection {
    /// The selection for `patterns`: their includes (or `**/*.java`), minus their excludes and
    /// the default excludes. A pattern that is not a valid glob is left out, and said so.
    pub(crate) fn new(patterns: &SourcePatterns) -> (Self, Vec<String>) {
        let mut problems = Vec::new();
        let mut build = |list: &mut dyn Iterator<Item = &str>| {
            let mut set = GlobSetBuilder::new();
            for pattern in list {
                match ant_glob(pattern) {
                    Ok(glob) => {
                        set.add(glob);
                    }
                    Err(e) => problems.push(format!("the pattern `{pattern}` is left out: {e}")),
                }
            }
            set.build().unwrap_or_else(|_| GlobSet::empty())
        };
        let includes = if patterns.includes.is_empty() {
            build(&mut ["**/*.java"].into_iter())
        } else {
            build(&mut patterns.includes.iter().map(String::as_str))
        };
        let excludes = build(
            &mut DEFAULT_EXCLUDES
                .iter()
                .copied()
                .chain(patterns.excludes.iter().map(String::as_str)),
        );
        (Self { includes, excludes }, problems)
    }

    /// Whether the plug-in compiles `relative` (a path below its source root).
    pub(crate) fn selects(&self, relative: &str) -> bool {
        // The scanner still enters an excluded folder and matches each file below it on its own
        // (`**/CVS/**` is what leaves out the files in `CVS/`, not `**/CVS`).
        relative.ends_with(".java")
            && self.includes.is_match(relative)
            && !self.excludes.is_match(relative)
    }
}

/// The classes the compiled main sources of a task state define (top-level, by binary name), and
/// in which file: what a candidate's file may not define again.
#[derive(Debug, Clone, Default)]
pub(crate) struct ClassIndex {
    defined_in: HashMap<String, String>,
}

/// The binary names of the top-level classes a compilation unit defines.
pub(crate) fn top_level_classes(text: &str) -> Vec<String> {
    let declared = avrlab_bench::declared_types(text);
    declared
        .types
        .iter()
        .map(|name| {
            if declared.package.is_empty() {
                name.clone()
            } else {
                format!("{}.{name}", declared.package)
            }
        })
        .collect()
}

impl ClassIndex {
    /// Notes the classes `text` (the file at `path`) defines.
    pub(crate) fn add(&mut self, path: &str, text: &str) {
        for class in top_level_classes(text) {
            self.defined_in
                .entry(class)
                .or_insert_with(|| path.to_owned());
        }
    }

    /// The file that defines `class`, if one does.
    pub(crate) fn file_of(&self, class: &str) -> Option<&str> {
        self.defined_in.get(class).map(String::as_str)
    }
}

/// What the fast path knows of a task state's sources: which the compiler plug-in leaves out, and
/// which classes the compiled main sources define.
#[derive(Debug, Clone)]
pub(crate) struct StateSources {
    pub(crate) selection: SourceSelection,
    /// `.java` files (project-relative) under the main and test source roots that the plug-in
    /// does not compile.
    pub(crate) left_out: Vec<String>,
    pub(crate) classes: ClassIndex,
    /// Notes for the verdict's log (patterns read, patterns left out).
    pub(crate) notes: Vec<String>,
}

impl StateSources {
    /// Reads the task state in `root` (its tested module under `module`, `.` for the root): the
    /// compiler plug-in's patterns from the module's and the root's pom, then every `.java` file
    /// under the module's `src/main/java` and `src/test/java`.
    pub(crate) fn scan(root: &Path, module: &Path) -> std::io::Result<Self> {
        let read = |pom: &Path| std::fs::read_to_string(pom).unwrap_or_default();
        let mut poms = vec![read(&root.join("pom.xml"))];
        if module != Path::new(".") && !module.as_os_str().is_empty() {
            poms.push(read(&root.join(module).join("pom.xml")));
        }
        let patterns = |of: fn(&str) -> SourcePatterns| {
            poms.iter()
                .map(|pom| of(pom))
                .fold(SourcePatterns::default(), SourcePatterns::merge)
        };
        let mut notes = Vec::new();
        let mut selections = Vec::new();
        for (which, patterns) in [
            ("main", patterns(SourcePatterns::main_from_pom)),
            ("test", patterns(SourcePatterns::test_from_pom)),
        ] {
            let (selection, problems) = SourceSelection::new(&patterns);
            if patterns != SourcePatterns::default() {
                notes.push(format!(
                    "{which} sources as the compiler plug-in's pom configuration selects them: \
                     includes {:?}, excludes {:?}, and the scanner's default excludes",
                    patterns.includes, patterns.excludes
                ));
            }
            notes.extend(problems);
            selections.push(selection);
        }
        let test_selection = selections.pop().expect("two selections");
        let selection = selections.pop().expect("two selections");
        let mut left_out = Vec::new();
        let mut classes = ClassIndex::default();
        for (source_root, main) in [("src/main/java", true), ("src/test/java", false)] {
            let dir = root.join(module).join(source_root);
            if !dir.is_dir() {
                continue;
            }
            for entry in walkdir::WalkDir::new(&dir).follow_links(false) {
                let entry = entry.map_err(std::io::Error::other)?;
                if !entry.file_type().is_file() {
                    continue;
                }
                let below = entry.path().strip_prefix(&dir).unwrap_or(entry.path());
                let below = below.to_string_lossy();
                if !below.ends_with(".java") {
                    continue;
                }
                let relative = entry.path().strip_prefix(root).unwrap_or(entry.path());
                let relative = relative.to_string_lossy().into_owned();
                let selects = if main {
                    selection.selects(&below)
                } else {
                    test_selection.selects(&below)
                };
                if !selects {
                    left_out.push(relative);
                    continue;
                }
                if main {
                    let text = String::from_utf8_lossy(&std::fs::read(entry.path())?).into_owned();
                    classes.add(&relative, &text);
                }
            }
        }
        left_out.sort();
        Ok(Self {
            selection,
            left_out,
            classes,
            notes,
        })
    }

    /// Whether the compiler plug-in compiles `relative` (project-relative, under the module's
    /// `src/main/java`, which is `main_root`).
    pub(crate) fn compiles(&self, main_root: &Path, relative: &str) -> bool {
        Path::new(relative)
            .strip_prefix(main_root)
            .is_ok_and(|below| self.selection.selects(&below.to_string_lossy()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn default_selection() -> SourceSelection {
        SourceSelection::new(&SourcePatterns::default()).0
    }

    /// Files in version-control folders, and editor back-ups, are left out as Maven leaves them
    /// out; ordinary sources are compiled, whatever their folder.
    #[test]
    fn the_scanners_default_excludes_leave_out_version_control_folders() {
        let selection = default_selection();
        for compiled in [
            "com/example/A.java",
            "A.java",
            "com/example/fixed/A.java",
            "com/cvs/A.java",
            "com/example/svn/A.java",
        ] {
            assert!(selection.selects(compiled), "{compiled}");
        }
        for left_out in [
            "com/example/CVS/A.java",
            "CVS/A.java",
            "com/example/.svn/A.java",
            "com/example/.svn/text-base/A.java",
            "com/.git/example/A.java",
            "com/example/.hg/A.java",
            "com/example/_darcs/A.java",
            "com/example/SCCS/A.java",
            "com/example/.#A.java",
            "com/example/._A.java",
            "com/example/A.txt",
        ] {
            assert!(!selection.selects(left_out), "{left_out}");
        }
    }

    /// The plug-in's own includes replace the default; its excludes add to the defaults; the test
    /// sources have patterns of their own.
    #[test]
    fn a_poms_includes_and_excludes_are_read_and_applied() {
        let pom = "<project><build><plugins><plugin>\
                   <artifactId>maven-surefire-plugin</artifactId>\
                   <configuration><excludes><exclude>**/Skip*.java</exclude></excludes></configuration>\
                   </plugin><plugin>\
                   <groupId>org.apache.maven.plugins</groupId>\
                   <artifactId>maven-compiler-plugin</artifactId>\
                   <configuration>\
                   <includes><include>com/example/**</include></includes>\
                   <excludes> <exclude>**/legacy/</exclude> <old>**/*Old.java</old></excludes>\
                   <testExcludes><testExclude>**/Slow*.java</testExclude></testExcludes>\
                   </configuration></plugin></plugins></build></project>";
        let patterns = SourcePatterns::main_from_pom(pom);
        assert_eq!(
            patterns,
            SourcePatterns {
                includes: vec!["com/example/**".into()],
                excludes: vec!["**/legacy/".into(), "**/*Old.java".into()],
            }
        );
        let (selection, problems) = SourceSelection::new(&patterns);
        assert!(problems.is_empty(), "{problems:?}");
        assert!(selection.selects("com/example/A.java"));
        assert!(!selection.selects("org/other/A.java"), "not included");
        assert!(!selection.selects("com/example/legacy/A.java"));
        assert!(!selection.selects("com/example/AOld.java"));
        assert!(!selection.selects("com/example/CVS/A.java"));
        assert_eq!(
            SourcePatterns::test_from_pom(pom),
            SourcePatterns {
                includes: vec![],
                excludes: vec!["**/Slow*.java".into()],
            }
        );
    }

    /// A class is indexed under its binary name, Unicode escapes decoded as javac decodes them.
    #[test]
    fn the_index_names_the_file_of_each_top_level_class() {
        let mut index = ClassIndex::default();
        index.add(
            "src/main/java/com/example/A.java",
            "package com.example;\n/** a */ public final class A { static class Inner {} }\n\
             class Helper {}",
        );
        assert_eq!(
            index.file_of("com.example.A"),
            Some("src/main/java/com/example/A.java")
        );
        assert_eq!(
            index.file_of("com.example.Helper"),
            Some("src/main/java/com/example/A.java")
        );
        assert_eq!(index.file_of("com.example.Inner"), None);
        assert_eq!(
            top_level_classes("package com.example;\nclass \\u0041 {}"),
            ["com.example.A"]
        );
    }
}
