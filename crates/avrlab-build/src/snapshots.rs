//! Snapshot versions of other projects, replaced by their releases.
//!
//! A project's poms at an old commit often name `-SNAPSHOT` versions of other projects: a parent
//! pom (spring-data-rest's `spring-data-parent:2.0.0.BUILD-SNAPSHOT`), dependencies and plug-ins.
//! Maven Central serves no snapshots, and the vendor repositories that did purge old ones, so
//! such a build cannot start anywhere today, and a snapshot of years ago could not be had even
//! where its repository answers. The nearest stand-in that can be had is the release the snapshot
//! led to (`2.0.0.BUILD-SNAPSHOT` → `2.0.0.RELEASE`, `1.4-SNAPSHOT` → `1.4`).
//!
//! The warm-up (networked) fetches the release's pom of every such snapshot that the repository
//! does not hold ([`wanted_releases`]); writing a task state then replaces each snapshot whose
//! release the repository holds ([`release_snapshots`]), recorded in the build notes like every
//! other build-file repair. The project's own versions (any pom of the reactor) are never
//! touched, nor a snapshot the repository holds.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use crate::pom_versions::{Poms, apply_edits, holds_pom, property_name, read_project};

/// The releases a snapshot version may have led to, most likely first: Spring's
/// `X.BUILD-SNAPSHOT` became `X.RELEASE`; Maven's `X-SNAPSHOT` became `X`. Empty for a version
/// that is no snapshot.
pub(crate) fn releases_of(version: &str) -> Vec<String> {
    if let Some(base) = version.strip_suffix(".BUILD-SNAPSHOT") {
        return vec![format!("{base}.RELEASE"), base.to_owned()];
    }
    match version.strip_suffix("-SNAPSHOT") {
        Some(base) if !base.is_empty() => vec![base.to_owned()],
        _ => Vec::new(),
    }
}

/// A snapshot of another project that the project's poms name: its coordinates and the
/// property that holds its version, if it is written through one.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
struct Snapshot {
    group: String,
    artifact: String,
    version: String,
    property: Option<String>,
}

/// The snapshots of other projects that the poms name, with their versions read through the
/// properties of the poms (the first definition met, the root pom's first).
fn external_snapshots(poms: &Poms) -> BTreeSet<Snapshot> {
    let own: BTreeSet<(String, String)> = poms.iter().filter_map(|p| p.2.own.clone()).collect();
    let mut properties: BTreeMap<&str, &str> = BTreeMap::new();
    for (_, _, pom) in poms {
        for (name, (value, _)) in &pom.properties {
            properties.entry(name).or_insert(value);
        }
    }
    let mut found = BTreeSet::new();
    for (_, _, pom) in poms {
        for named in &pom.named {
            if own.contains(&(named.group.clone(), named.artifact.clone())) {
                continue;
            }
            let (version, property) = match property_name(&named.version) {
                Some(name) => match properties.get(name) {
                    Some(value) => ((*value).to_owned(), Some(name.to_owned())),
                    None => continue,
                },
                None => (named.version.clone(), None),
            };
            if !releases_of(&version).is_empty() {
                found.insert(Snapshot {
                    group: named.group.clone(),
                    artifact: named.artifact.clone(),
                    version,
                    property,
                });
            }
        }
    }
    found
}

/// The `group:artifact:version` poms a warm-up should fetch: for each snapshot of another
/// project that the poms of `project` name and `repository` does not hold, its releases (see
/// [`releases_of`]) when the repository holds none of them yet.
pub(crate) fn wanted_releases(project: &Path, repository: &Path) -> Vec<Vec<String>> {
    let poms = read_project(project);
    external_snapshots(&poms)
        .into_iter()
        .filter(|s| !holds_pom(repository, &s.group, &s.artifact, &s.version))
        .filter_map(|s| {
            let releases = releases_of(&s.version);
            let held = releases
                .iter()
                .any(|r| holds_pom(repository, &s.group, &s.artifact, r));
            (!held).then(|| {
                releases
                    .into_iter()
                    .map(|r| format!("{}:{}:{r}", s.group, s.artifact))
                    .collect()
            })
        })
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect()
}

/// Replaces, in the poms of `project`, each snapshot of another project that `repository` does
/// not hold by its release where the repository holds that (for a version written through a
/// property, where it holds the release of every artifact that uses the property). Returns one
/// note per changed pom.
pub fn release_snapshots(project: &Path, repository: &Path) -> std::io::Result<Vec<String>> {
    let poms = read_project(project);
    let snapshots = external_snapshots(&poms);
    // The release each replaceable snapshot takes; properties only where every use can.
    let release = |s: &Snapshot| {
        if holds_pom(repository, &s.group, &s.artifact, &s.version) {
            return None;
        }
        releases_of(&s.version)
            .into_iter()
            .find(|r| holds_pom(repository, &s.group, &s.artifact, r))
    };
    let mut literal: BTreeMap<(String, String, String), String> = BTreeMap::new();
    let mut by_property: BTreeMap<String, Option<(String, String)>> = BTreeMap::new();
    for snapshot in &snapshots {
        let found = release(snapshot);
        match &snapshot.property {
            None => {
                if let Some(found) = found {
                    let key = (
                        snapshot.group.clone(),
                        snapshot.artifact.clone(),
                        snapshot.version.clone(),
                    );
                    literal.insert(key, found);
                }
            }
            Some(name) => {
                let entry = by_property
                    .entry(name.clone())
                    .or_insert_with(|| found.clone().map(|f| (snapshot.version.clone(), f)));
                if found.is_none() {
                    *entry = None;
                }
            }
        }
    }
    let mut notes = Vec::new();
    for (path, text, pom) in &poms {
        let mut edits: Vec<((usize, usize), String, String)> = Vec::new();
        for named in &pom.named {
            let key = (
                named.group.clone(),
                named.artifact.clone(),
                named.version.clone(),
            );
            if let Some(found) = literal.get(&key) {
                edits.push((
                    named.span,
                    found.clone(),
                    format!(
                        "{}:{} {} replaced by its release {found}",
                        named.group, named.artifact, named.version
                    ),
                ));
            }
        }
        for (name, (value, span)) in &pom.properties {
            if let Some(Some((snapshot, found))) = by_property.get(name)
                && value == snapshot
            {
                edits.push((
                    *span,
                    found.clone(),
                    format!("property {name} {snapshot} replaced by its release {found}"),
                ));
            }
        }
        if edits.is_empty() {
            continue;
        }
        let changes: Vec<String> = edits.iter().map(|e| e.2.clone()).collect();
        let adapted = apply_edits(
            text,
            edits.into_iter().map(|(span, r, _)| (span, r)).collect(),
        );
        std::fs::write(path, adapted)?;
        let relative = path.strip_prefix(project).unwrap_or(path);
        notes.push(format!(
            "{}: {} (snapshots of other projects: no repository serves the old ones)",
            relative.display(),
            changes.join("; ")
        ));
    }
    Ok(notes)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ROOT: &str = r#"<project>
  <groupId>org.example.data</groupId>
  <artifactId>data-rest-parent</artifactId>
  <version>3.0.0.BUILD-SNAPSHOT</version>
  <parent>
    <groupId>org.example.build</groupId>
    <artifactId>data-parent</artifactId>
    <version>2.0.0.BUILD-SNAPSHOT</version>
  </parent>
  <properties>
    <data.commons>2.0.0.BUILD-SNAPSHOT</data.commons>
    <data.missing>9.9-SNAPSHOT</data.missing>
  </properties>
  <dependencyManagement><dependencies>
    <dependency><groupId>org.example.data</groupId><artifactId>data-commons</artifactId><version>${data.commons}</version></dependency>
    <dependency><groupId>org.example</groupId><artifactId>gone</artifactId><version>${data.missing}</version></dependency>
    <dependency><groupId>org.example.data</groupId><artifactId>data-rest-core</artifactId><version>3.0.0.BUILD-SNAPSHOT</version></dependency>
  </dependencies></dependencyManagement>
  <build><plugins><plugin><artifactId>maven-shade-plugin</artifactId><version>3.1-SNAPSHOT</version></plugin></plugins></build>
</project>"#;

    const MODULE: &str = r#"<project>
  <parent><groupId>org.example.data</groupId><artifactId>data-rest-parent</artifactId><version>3.0.0.BUILD-SNAPSHOT</version></parent>
  <artifactId>data-rest-core</artifactId>
  <dependencies><dependency><groupId>org.example</groupId><artifactId>tool</artifactId><version> 1.2-SNAPSHOT </version></dependency></dependencies>
</project>"#;

    fn project() -> (tempfile::TempDir, tempfile::TempDir) {
        let project = tempfile::tempdir().unwrap();
        std::fs::write(project.path().join("pom.xml"), ROOT).unwrap();
        std::fs::create_dir(project.path().join("core")).unwrap();
        std::fs::write(project.path().join("core/pom.xml"), MODULE).unwrap();
        (project, tempfile::tempdir().unwrap())
    }

    fn hold(repository: &Path, group: &str, artifact: &str, version: &str) {
        let dir = repository
            .join(group.replace('.', "/"))
            .join(artifact)
            .join(version);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join(format!("{artifact}-{version}.pom")), "<project/>").unwrap();
    }

    #[test]
    fn a_snapshot_is_released_as_spring_or_maven_name_it() {
        assert_eq!(
            releases_of("2.0.0.BUILD-SNAPSHOT"),
            ["2.0.0.RELEASE", "2.0.0"]
        );
        assert_eq!(releases_of("1.4-SNAPSHOT"), ["1.4"]);
        assert!(releases_of("1.4").is_empty());
        assert!(releases_of("-SNAPSHOT").is_empty());
    }

    #[test]
    fn the_warm_up_fetches_the_releases_of_other_projects_snapshots_only() {
        let (project, repository) = project();
        let wanted = wanted_releases(project.path(), repository.path());
        assert_eq!(
            wanted,
            vec![
                vec!["org.apache.maven.plugins:maven-shade-plugin:3.1".to_owned()],
                vec![
                    "org.example.build:data-parent:2.0.0.RELEASE".to_owned(),
                    "org.example.build:data-parent:2.0.0".to_owned()
                ],
                vec![
                    "org.example.data:data-commons:2.0.0.RELEASE".to_owned(),
                    "org.example.data:data-commons:2.0.0".to_owned()
                ],
                vec!["org.example:gone:9.9".to_owned()],
                vec!["org.example:tool:1.2".to_owned()],
            ]
        );
        // Held snapshots and held releases are not fetched again.
        hold(repository.path(), "org.example", "tool", "1.2-SNAPSHOT");
        hold(
            repository.path(),
            "org.example.build",
            "data-parent",
            "2.0.0.RELEASE",
        );
        let wanted = wanted_releases(project.path(), repository.path());
        assert_eq!(wanted.len(), 3, "{wanted:?}");
    }

    #[test]
    fn snapshots_whose_release_is_held_are_replaced_and_the_projects_own_versions_kept() {
        let (project, repository) = project();
        assert!(
            release_snapshots(project.path(), repository.path())
                .unwrap()
                .is_empty()
        );
        hold(
            repository.path(),
            "org.example.build",
            "data-parent",
            "2.0.0.RELEASE",
        );
        hold(
            repository.path(),
            "org.example.data",
            "data-commons",
            "2.0.0.RELEASE",
        );
        hold(repository.path(), "org.example", "tool", "1.2");
        // The release of `gone` is not held: its property keeps its snapshot.
        let notes = release_snapshots(project.path(), repository.path()).unwrap();
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert!(notes[0].starts_with("pom.xml: org.example.build:data-parent 2.0.0.BUILD-SNAPSHOT replaced by its release 2.0.0.RELEASE"), "{notes:?}");
        assert!(
            notes[0].contains(
                "property data.commons 2.0.0.BUILD-SNAPSHOT replaced by its release 2.0.0.RELEASE"
            ),
            "{notes:?}"
        );
        assert!(
            notes[1].starts_with(
                "core/pom.xml: org.example:tool 1.2-SNAPSHOT replaced by its release 1.2"
            ),
            "{notes:?}"
        );
        let root = std::fs::read_to_string(project.path().join("pom.xml")).unwrap();
        assert!(
            root.contains("<version>3.0.0.BUILD-SNAPSHOT</version>\n  <parent>"),
            "{root}"
        );
        assert!(
            root.contains(
                "<artifactId>data-parent</artifactId>\n    <version>2.0.0.RELEASE</version>"
            ),
            "{root}"
        );
        assert!(
            root.contains("<data.commons>2.0.0.RELEASE</data.commons>"),
            "{root}"
        );
        assert!(
            root.contains("<data.missing>9.9-SNAPSHOT</data.missing>"),
            "{root}"
        );
        assert!(
            root.contains(
                "<artifactId>data-rest-core</artifactId><version>3.0.0.BUILD-SNAPSHOT</version>"
            ),
            "{root}"
        );
        let module = std::fs::read_to_string(project.path().join("core/pom.xml")).unwrap();
        assert!(module.contains("<version> 1.2 </version>"), "{module}");
        assert!(
            module.contains(
                "<artifactId>data-rest-parent</artifactId><version>3.0.0.BUILD-SNAPSHOT</version>"
            ),
            "{module}"
        );
        // Done once: a second pass changes nothing.
        assert!(
            release_snapshots(project.path(), repository.path())
                .unwrap()
                .is_empty()
        );
    }
}
