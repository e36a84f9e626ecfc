//! Old projects write their Java language level into the build file (`<source>1.5</source>`),
//! where no command-line property reaches it, and a newer JDK refuses levels it no longer
//! compiles (JDK 17: below 7; JDK 20 and later: below 8). When a JDK substitutes for the task's,
//! those levels are raised to the substitute's floor in the task state's build files: an explicit,
//! recorded change of the build, never of the sources. The same holds for a compiler the build
//! file names that cannot run on the substitute: plexus' `javac-with-errorprone` runs the javac
//! that error-prone bundles, which cannot read a newer JDK's module image (retrofit, VUL4J-76), so
//! the substitute's own javac (`javac`) compiles instead; error-prone's checks are lints, and
//! the classes are the same.

use std::path::Path;

/// The build-file elements that hold a language level.
const LEVEL_ELEMENTS: [&str; 11] = [
    "source",
    "target",
    "release",
    "testSource",
    "testTarget",
    "maven.compiler.source",
    "maven.compiler.target",
    "maven.compiler.release",
    "maven.compile.source",
    "maven.compile.target",
    "maven.compiler.testSource",
];

/// The major version a level names: `1.5` → 5, `11` → 11; `None` for anything else (a property
/// reference, an empty element).
fn major(level: &str) -> Option<u32> {
    let level = level.trim();
    let digits = level.strip_prefix("1.").unwrap_or(level);
    digits.parse().ok()
}

/// Raises, in one build file's text, every language level below `floor` to `level` (the
/// spelling the substitution compiles at, `1.7` or `8`). Returns the new text and one note per
/// kind of change.
pub fn raise_levels_in(text: &str, floor: u32, level: &str) -> (String, Vec<String>) {
    let mut out = text.to_owned();
    let mut notes = Vec::new();
    for element in LEVEL_ELEMENTS {
        let (open, close) = (format!("<{element}>"), format!("</{element}>"));
        let mut rebuilt = String::with_capacity(out.len());
        let mut rest = out.as_str();
        let mut raised = Vec::new();
        while let Some(at) = rest.find(&open) {
            let value_start = at + open.len();
            let Some(len) = rest[value_start..].find(&close) else {
                break;
            };
            let value = &rest[value_start..value_start + len];
            rebuilt.push_str(&rest[..value_start]);
            match major(value) {
                Some(found) if found < floor => {
                    rebuilt.push_str(level);
                    raised.push(value.trim().to_owned());
                }
                _ => rebuilt.push_str(value),
            }
            rest = &rest[value_start + len..];
        }
        rebuilt.push_str(rest);
        out = rebuilt;
        if !raised.is_empty() {
            raised.dedup();
            notes.push(format!(
                "<{element}>{}</{element}> raised to {level}",
                raised.join(", ")
            ));
        }
    }
    (out, notes)
}

/// Compilers a build file may name that a substitute JDK cannot run, and what compiles instead.
const OLD_COMPILERS: [(&str, &str); 1] = [("javac-with-errorprone", "javac")];

/// Replaces, in one build file's text, every compiler of [`OLD_COMPILERS`]; one note per kind.
pub fn replace_old_compilers_in(text: &str) -> (String, Vec<String>) {
    let mut out = text.to_owned();
    let mut notes = Vec::new();
    for (old, new) in OLD_COMPILERS {
        let element = format!("<compilerId>{old}</compilerId>");
        if out.contains(&element) {
            out = out.replace(&element, &format!("<compilerId>{new}</compilerId>"));
            notes.push(format!(
                "{element} replaced by {new} (it runs a javac of the task's era, which cannot read the substitute's module image)"
            ));
        }
    }
    (out, notes)
}

/// Raises the language levels below `floor` in every `pom.xml` of `project` (build output and
/// version-control folders aside), and replaces the compilers the substitute cannot run. Returns
/// one note per changed file, relative to `project`.
pub fn raise_language_levels(
    project: &Path,
    floor: u32,
    level: &str,
) -> std::io::Result<Vec<String>> {
    let mut notes = Vec::new();
    let walker = walkdir::WalkDir::new(project)
        .follow_links(false)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| !matches!(e.file_name().to_str(), Some("target" | ".git")));
    for entry in walker {
        let entry = entry?;
        if !entry.file_type().is_file() || entry.file_name() != "pom.xml" {
            continue;
        }
        let text = std::fs::read_to_string(entry.path())?;
        let (raised, mut changes) = raise_levels_in(&text, floor, level);
        let (raised, replaced) = replace_old_compilers_in(&raised);
        changes.extend(replaced);
        if changes.is_empty() {
            continue;
        }
        std::fs::write(entry.path(), raised)?;
        let relative = entry.path().strip_prefix(project).unwrap_or(entry.path());
        notes.push(format!("{}: {}", relative.display(), changes.join("; ")));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn levels_below_the_floor_are_raised_and_the_rest_kept() {
        let pom = "<plugin><configuration>\n  <source>1.5</source>\n  <target>1.5</target>\n  \
                   <encoding>UTF-8</encoding>\n</configuration></plugin>\n\
                   <properties><maven.compiler.source>1.6</maven.compiler.source>\
                   <java.version>1.5</java.version></properties>\n\
                   <plugin><configuration><source>${jdk}</source><target>11</target>\
                   </configuration></plugin>";
        let (out, notes) = raise_levels_in(pom, 7, "1.7");
        assert_eq!(
            out,
            "<plugin><configuration>\n  <source>1.7</source>\n  <target>1.7</target>\n  \
             <encoding>UTF-8</encoding>\n</configuration></plugin>\n\
             <properties><maven.compiler.source>1.7</maven.compiler.source>\
             <java.version>1.5</java.version></properties>\n\
             <plugin><configuration><source>${jdk}</source><target>11</target>\
             </configuration></plugin>"
        );
        assert_eq!(
            notes,
            vec![
                "<source>1.5</source> raised to 1.7",
                "<target>1.5</target> raised to 1.7",
                "<maven.compiler.source>1.6</maven.compiler.source> raised to 1.7",
            ]
        );
        let (same, none) = raise_levels_in(&out, 7, "1.7");
        assert_eq!((same.as_str(), none.len()), (out.as_str(), 0));
    }

    /// retrofit (VUL4J-76) compiles through error-prone's bundled javac, which cannot read JDK
    /// 17's module image; the substitute's javac compiles it instead.
    #[test]
    fn an_error_prone_compiler_gives_way_to_javac() {
        let pom = "<plugin><artifactId>maven-compiler-plugin</artifactId><configuration>\
                   <compilerId>javac-with-errorprone</compilerId>\
                   <forceJavacCompilerUse>true</forceJavacCompilerUse></configuration></plugin>";
        let (out, notes) = replace_old_compilers_in(pom);
        assert_eq!(out, pom.replace("javac-with-errorprone", "javac"));
        assert_eq!(notes.len(), 1);
        assert!(
            notes[0]
                .starts_with("<compilerId>javac-with-errorprone</compilerId> replaced by javac")
        );
        let (same, none) = replace_old_compilers_in(&out);
        assert_eq!((same, none.len()), (out, 0));
    }

    #[test]
    fn every_pom_of_a_project_is_adapted_but_not_build_output() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("core/target")).unwrap();
        std::fs::write(root.join("pom.xml"), "<source>1.6</source>").unwrap();
        std::fs::write(root.join("core/pom.xml"), "<target>6</target>").unwrap();
        std::fs::write(root.join("core/target/pom.xml"), "<source>1.4</source>").unwrap();
        let notes = raise_language_levels(root, 8, "8").unwrap();
        assert_eq!(
            notes,
            vec![
                "core/pom.xml: <target>6</target> raised to 8",
                "pom.xml: <source>1.6</source> raised to 8",
            ]
        );
        assert_eq!(
            std::fs::read_to_string(root.join("core/target/pom.xml")).unwrap(),
            "<source>1.4</source>"
        );
    }
}
