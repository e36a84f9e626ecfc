//! Lombok releases that cannot run inside a newer JDK's compiler, replaced by one that can.
//!
//! Lombok works by reaching into javac's internals; releases before 1.18.22 fail in the javac
//! of JDK 16 and later (`Unable to make field … JavacProcessingEnvironment.discoveredProcs
//! accessible`, or with the packages opened, `ExceptionInInitializerError:
//! com.sun.tools.javac.code.TypeTags`), so no main class of the module compiles. Under a
//! substitute JDK from 16 on, [`pin_lombok`] gives the build [`LOMBOK_SUBSTITUTE`] wherever the
//! project or its parents name an older one: the versions the project's poms write, the
//! properties they or their parents write it through (set again in the root pom, which outranks
//! its parents), and the root pom's `<dependencyManagement>` for the declarations that write none.

use std::path::Path;

use crate::pom_versions::{
    Named, PomVersions, apply_edits, property_name, read_project, read_versions,
};

/// The Lombok that stands in for an older one: supports the javac of JDK 8 to 21.
pub const LOMBOK_SUBSTITUTE: &str = "1.18.30";

/// The first release that runs in JDK 16's and 17's javac.
const FIRST_FOR_JDK_17: (u32, u32, u32) = (1, 18, 22);

const GROUP: &str = "org.projectlombok";
const ARTIFACT: &str = "lombok";

/// `1.16.18` → (1, 16, 18); `None` for what is not three numbers (a suffix after the third
/// number is allowed: `1.18.4-SNAPSHOT`).
fn release(version: &str) -> Option<(u32, u32, u32)> {
    let mut parts = version.trim().splitn(3, '.');
    let major = parts.next()?.parse().ok()?;
    let minor = parts.next()?.parse().ok()?;
    let rest = parts.next()?;
    let digits: String = rest.chars().take_while(char::is_ascii_digit).collect();
    Some((major, minor, digits.parse().ok()?))
}

fn is_too_old(version: &str) -> bool {
    release(version).is_some_and(|r| r < FIRST_FOR_JDK_17)
}

/// The value of `property` in the first of `poms` that sets it.
fn property_value<'a>(poms: &[&'a PomVersions], property: &str) -> Option<&'a str> {
    poms.iter()
        .find_map(|p| p.properties.get(property).map(|(value, _)| value.as_str()))
}

fn is_lombok(named: &Named) -> bool {
    named.group == GROUP && named.artifact == ARTIFACT
}

/// The root pom's `text` with an old Lombok of its parents outranked: each of `properties` it
/// does not set itself is set to [`LOMBOK_SUBSTITUTE`], and unless it names Lombok itself, its
/// dependency management names the substitute (for the declarations that write no version).
fn outrank_in_root(mut text: String, root: &PomVersions, properties: &[String]) -> String {
    for property in properties
        .iter()
        .filter(|p| !root.properties.contains_key(*p))
    {
        let entry = format!("<{property}>{LOMBOK_SUBSTITUTE}</{property}>");
        if let Some(with) = crate::levels::insert_in_pom(&text, &["project", "properties"], &entry)
        {
            text = with;
        }
    }
    if !root.named.iter().any(is_lombok) {
        let entry = format!(
            "<dependency><groupId>{GROUP}</groupId><artifactId>{ARTIFACT}</artifactId>\
             <version>{LOMBOK_SUBSTITUTE}</version></dependency>"
        );
        if let Some(with) = crate::levels::insert_in_pom(
            &text,
            &["project", "dependencyManagement", "dependencies"],
            &entry,
        ) {
            text = with;
        }
    }
    text
}

/// Where the poms of `project` or its parents in `repository` name a Lombok older than 1.18.22,
/// replaces it by [`LOMBOK_SUBSTITUTE`] (see the module's documentation). Returns one note per
/// changed pom.
pub fn pin_lombok(project: &Path, repository: &Path) -> std::io::Result<Vec<String>> {
    let poms = read_project(project);
    let Some((root_path, root_text, _)) = poms.first() else {
        return Ok(Vec::new());
    };
    if root_path != &project.join("pom.xml") {
        return Ok(Vec::new());
    }
    let ancestors: Vec<PomVersions> = crate::older_api::ancestor_poms(root_text, repository)
        .iter()
        .filter_map(|(_, text)| read_versions(text))
        .collect();
    let everyone: Vec<&PomVersions> = poms.iter().map(|p| &p.2).chain(&ancestors).collect();
    let uses = everyone
        .iter()
        .flat_map(|p| &p.named)
        .filter(|n| is_lombok(n));
    // The old versions as written: literal ones, and the properties that hold old ones.
    let mut old_versions: Vec<String> = Vec::new();
    let mut old_properties: Vec<String> = Vec::new();
    for named in uses {
        match property_name(&named.version) {
            Some(property) => {
                if let Some(value) = property_value(&everyone, property)
                    && is_too_old(value)
                    && !old_properties.iter().any(|p| p == property)
                {
                    old_properties.push(property.to_owned());
                    old_versions.push(value.to_owned());
                }
            }
            None if is_too_old(&named.version) => old_versions.push(named.version.clone()),
            None => {}
        }
    }
    if old_versions.is_empty() {
        return Ok(Vec::new());
    }
    let old = old_versions.join(", ");
    let mut notes = Vec::new();
    for (index, (path, text, pom)) in poms.iter().enumerate() {
        let mut edits: Vec<((usize, usize), String)> = pom
            .named
            .iter()
            .filter(|n| is_lombok(n) && is_too_old(&n.version))
            .map(|n| (n.span, LOMBOK_SUBSTITUTE.to_owned()))
            .collect();
        if index == 0 {
            edits.extend(
                old_properties
                    .iter()
                    .filter_map(|p| pom.properties.get(p))
                    .map(|(_, span)| (*span, LOMBOK_SUBSTITUTE.to_owned())),
            );
        }
        let mut adapted = apply_edits(text, edits);
        if index == 0 {
            adapted = outrank_in_root(adapted, pom, &old_properties);
        }
        if adapted == *text {
            continue;
        }
        std::fs::write(path, adapted)?;
        let relative = path.strip_prefix(project).unwrap_or(path);
        notes.push(format!(
            "{}: org.projectlombok:lombok {old} replaced by {LOMBOK_SUBSTITUTE} (releases \
             before 1.18.22 fail inside the substitute JDK's javac)",
            relative.display()
        ));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn write(dir: &Path, path: &str, text: &str) {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }

    #[test]
    fn releases_before_1_18_22_are_too_old() {
        assert!(is_too_old("1.16.18"));
        assert!(is_too_old("1.18.4-SNAPSHOT"));
        assert!(!is_too_old("1.18.22"));
        assert!(!is_too_old("1.18.30"));
        assert!(!is_too_old("${lombok}"));
    }

    #[test]
    fn a_parents_old_lombok_is_outranked_in_the_root_pom_and_a_written_one_replaced() {
        let project = tempfile::tempdir().unwrap();
        let repository = tempfile::tempdir().unwrap();
        write(
            repository.path(),
            "org/example/build/parent/2.0/parent-2.0.pom",
            "<project><groupId>org.example.build</groupId><artifactId>parent</artifactId>\
             <version>2.0</version><properties><lombok>1.16.18</lombok></properties>\
             <dependencies><dependency><groupId>org.projectlombok</groupId>\
             <artifactId>lombok</artifactId><version>${lombok}</version></dependency>\
             </dependencies></project>",
        );
        write(
            project.path(),
            "pom.xml",
            "<project><parent><groupId>org.example.build</groupId><artifactId>parent</artifactId>\
             <version>2.0</version></parent><artifactId>app</artifactId>\
             <modules><module>core</module></modules></project>",
        );
        write(
            project.path(),
            "core/pom.xml",
            "<project><artifactId>core</artifactId><build><plugins><plugin>\
             <artifactId>maven-compiler-plugin</artifactId><configuration><annotationProcessorPaths>\
             <path><groupId>org.projectlombok</groupId><artifactId>lombok</artifactId>\
             <version>1.16.20</version></path></annotationProcessorPaths></configuration>\
             </plugin></plugins></build></project>",
        );
        let notes = pin_lombok(project.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(
            notes[0].starts_with(
                "pom.xml: org.projectlombok:lombok 1.16.20, 1.16.18 replaced by 1.18.30"
            ),
            "{notes:?}"
        );
        let root = std::fs::read_to_string(project.path().join("pom.xml")).unwrap();
        assert!(
            root.contains("<properties><lombok>1.18.30</lombok>"),
            "{root}"
        );
        assert!(
            root.contains("<dependencyManagement><dependencies><dependency><groupId>org.projectlombok</groupId><artifactId>lombok</artifactId><version>1.18.30</version>"),
            "{root}"
        );
        let core = std::fs::read_to_string(project.path().join("core/pom.xml")).unwrap();
        assert!(
            core.contains(
                "<artifactId>lombok</artifactId>\
             <version>1.18.30</version></path>"
            ),
            "{core}"
        );
        // Once is enough: the poms name no old Lombok now, whatever the parent says.
        assert!(
            pin_lombok(project.path(), repository.path())
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_project_without_an_old_lombok_is_left_alone() {
        let project = tempfile::tempdir().unwrap();
        write(
            project.path(),
            "pom.xml",
            "<project><artifactId>app</artifactId><dependencies><dependency>\
             <groupId>org.projectlombok</groupId><artifactId>lombok</artifactId>\
             <version>1.18.24</version></dependency></dependencies></project>",
        );
        let repository = tempfile::tempdir().unwrap();
        assert!(
            pin_lombok(project.path(), repository.path())
                .unwrap()
                .is_empty()
        );
    }
}
