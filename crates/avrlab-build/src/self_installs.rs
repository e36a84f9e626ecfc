//! Jars a project keeps in its own tree and installs into the local repository itself.
//!
//! Some projects keep dependencies that no repository serves as jars in their tree (OpenRefine's
//! `main/lib-local`) and bind `maven-install-plugin:install-file` executions to an early phase to
//! put them into the local repository. Maven resolves a module's dependencies before it runs any
//! of its plug-ins, so a plain build fails on those very jars (the project's own script runs
//! `mvn process-resources` first), and a later offline build would write into a read-only
//! repository. So the task state has those executions bound to no phase (one build note), and
//! the warm-up, whose repository is writable, runs each by its id first
//! (`install-file@install-marc4j`: an execution's configuration whatever its phase).

use std::path::{Path, PathBuf};

use crate::levels::between;

/// The `install-file` executions of one pom, by id.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct SelfInstall {
    /// The pom's folder, relative to the project.
    pub(crate) module: PathBuf,
    pub(crate) ids: Vec<String>,
}

/// Every pom of `project` that has `install-file` executions, with their ids.
pub(crate) fn self_installs(project: &Path) -> Vec<SelfInstall> {
    crate::reactor::walk_poms(project)
        .into_iter()
        .filter_map(|pom| {
            let text = std::fs::read_to_string(&pom).ok()?;
            let ids = install_file_ids(&text);
            let module = pom.parent()?.strip_prefix(project).ok()?.to_owned();
            (!ids.is_empty()).then_some(SelfInstall { module, ids })
        })
        .collect()
}

/// Binds every `install-file` execution of every pom of `project` to no phase; one note per
/// changed pom.
pub(crate) fn unbind_self_installs(project: &Path) -> std::io::Result<Vec<String>> {
    crate::levels::adapt_poms(project, |text| {
        let (text, count) = unbind_install_files(text);
        let notes = match count {
            0 => Vec::new(),
            n => vec![format!(
                "maven-install-plugin: {n} install-file execution(s) bound to no phase (they put jars the project keeps into the local repository; the warm-up runs them first, by id)"
            )],
        };
        (text, notes)
    })
}

/// The ids of the `install-file` executions of `maven-install-plugin` in one pom.
fn install_file_ids(text: &str) -> Vec<String> {
    let marker = "<artifactId>maven-install-plugin</artifactId>";
    let mut ids = Vec::new();
    let mut rest = text;
    while let Some(at) = rest.find(marker) {
        let block = &rest[at..];
        let block = &block[..block.find("</plugin>").unwrap_or(block.len())];
        for execution in block.split("<execution>").skip(1) {
            if is_install_file(execution)
                && let Some(id) = between(execution, "<id>", "</id>")
            {
                ids.push(id.trim().to_owned());
            }
        }
        rest = &rest[at + block.len()..];
    }
    ids
}

fn is_install_file(execution: &str) -> bool {
    execution.contains("<goal>install-file</goal>")
}

/// `text` with each `install-file` execution's phase `none`, and how many were bound before.
fn unbind_install_files(text: &str) -> (String, usize) {
    crate::levels::unbind_executions_where(text, "maven-install-plugin", is_install_file)
}

#[cfg(test)]
mod tests {
    use super::*;

    const POM: &str = "<project><build><plugins>\
        <plugin><artifactId>maven-jar-plugin</artifactId><executions><execution><id>jar</id>\
        <phase>package</phase><goals><goal>install-file</goal></goals></execution></executions></plugin>\
        <plugin><groupId>org.apache.maven.plugins</groupId><artifactId>maven-install-plugin</artifactId>\
        <version>2.5.2</version><executions>\
        <execution><id>install-marc4j</id><phase>process-resources</phase>\
        <configuration><file>${basedir}/lib-local/marc4j-2.4.jar</file></configuration>\
        <goals><goal>install-file</goal></goals></execution>\
        <execution><id>install-vicino</id>\
        <configuration><file>${basedir}/lib-local/vicino-1.1.jar</file></configuration>\
        <goals><goal>install-file</goal></goals></execution>\
        <execution><id>deploy</id><phase>install</phase><goals><goal>install</goal></goals></execution>\
        </executions></plugin></plugins></build></project>";

    #[test]
    fn install_file_executions_are_unbound_and_named_by_id() {
        assert_eq!(install_file_ids(POM), ["install-marc4j", "install-vicino"]);
        let (unbound, count) = unbind_install_files(POM);
        assert_eq!(count, 2);
        assert!(
            unbound.contains("<id>install-marc4j</id><phase>none</phase>"),
            "{unbound}"
        );
        assert!(
            unbound.contains("<execution><phase>none</phase><id>install-vicino</id>"),
            "{unbound}"
        );
        // The other plug-in's execution and the install plug-in's own install goal stay.
        assert!(unbound.contains("<id>jar</id><phase>package</phase>"));
        assert!(unbound.contains("<id>deploy</id><phase>install</phase>"));
        // Once unbound, nothing more to do.
        assert_eq!(unbind_install_files(&unbound), (unbound.clone(), 0));
    }

    #[test]
    fn the_poms_with_executions_are_found_by_folder() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("main")).unwrap();
        std::fs::write(dir.path().join("pom.xml"), "<project/>").unwrap();
        std::fs::write(dir.path().join("main/pom.xml"), POM).unwrap();
        let installs = self_installs(dir.path());
        assert_eq!(
            installs,
            [SelfInstall {
                module: PathBuf::from("main"),
                ids: vec!["install-marc4j".into(), "install-vicino".into()],
            }]
        );
        let notes = unbind_self_installs(dir.path()).unwrap();
        assert_eq!(notes.len(), 1, "{notes:?}");
        assert!(notes[0].contains("2 install-file execution(s) bound to no phase"));
        // The ids are still there for the warm-up.
        assert_eq!(self_installs(dir.path()), installs);
    }
}
