//! Which files a candidate may change. Tests and build files are never editable: a candidate that
//! could touch them could fake its own verdict.

use globset::{Glob, GlobSet, GlobSetBuilder};

use crate::patch::Patch;

const DEFAULT_EDITABLE: &str = "src/main/java/**/*.java";

/// The editable-file globs of a task, plus the paths no policy can open.
#[derive(Debug, Clone)]
pub struct EditPolicy {
    patterns: Vec<String>,
    editable: GlobSet,
}

/// A path that a patch may not touch.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum PolicyViolation {
    /// The path leaves the project root or is absolute.
    #[error("{0} lies outside the project")]
    OutsideProject(String),
    /// The path is a test, build or tool-configuration file.
    #[error("{0} is a test or build file, which candidates may not change")]
    Protected(String),
    /// The path is not matched by the task's editable globs.
    #[error("{0} is not editable in this task (editable: {1})")]
    NotEditable(String, String),
    /// A new class outside the packages that already hold the project's main sources (it could
    /// replace a JDK, test-framework or library class on the test class path).
    #[error(
        "{path} declares {class}, a new class outside the project's own packages (it could shadow a test-framework or library class)"
    )]
    ForeignPackage { path: String, class: String },
    /// A main-source class with the name of a test class or another source's class.
    #[error("{path} declares {class}, which is a test class of the task (it would shadow it)")]
    ShadowsClass { path: String, class: String },
    /// A main-source class with the name of a class of a dependency on the test classpath.
    #[error(
        "{path} declares {class}, which is a class of the dependency {library} (it would shadow it)"
    )]
    ShadowsLibraryClass {
        path: String,
        class: String,
        library: String,
    },
}

impl EditPolicy {
    /// Builds the policy from `editable` globs, or the default (`src/main/java/**/*.java`).
    pub fn new(editable: Option<&[String]>) -> Result<Self, globset::Error> {
        let patterns = match editable {
            Some(list) => list.to_vec(),
            None => vec![DEFAULT_EDITABLE.to_owned()],
        };
        let mut builder = GlobSetBuilder::new();
        for pattern in &patterns {
            builder.add(Glob::new(pattern)?);
        }
        Ok(Self {
            editable: builder.build()?,
            patterns,
        })
    }

    /// The editable globs (the default's when the task names none).
    pub fn editable(&self) -> &[String] {
        &self.patterns
    }

    /// Checks one project-relative path.
    pub fn check_path(&self, path: &str) -> Result<(), PolicyViolation> {
        let escapes = path.starts_with('/')
            || path.contains('\\')
            || path
                .split('/')
                .any(|part| part == ".." || part.is_empty() && path.len() > 1);
        if escapes || path.is_empty() {
            return Err(PolicyViolation::OutsideProject(path.to_owned()));
        }
        if is_protected(path, self.source_root_of(path)) {
            return Err(PolicyViolation::Protected(path.to_owned()));
        }
        if !self.editable.is_match(path) {
            return Err(PolicyViolation::NotEditable(
                path.to_owned(),
                self.patterns.join(", "),
            ));
        }
        Ok(())
    }

    /// The editable source root that holds `path` (the literal folder before an editable glob's
    /// first wildcard: `core/src/java/` of `core/src/java/**/*.java`), if one does. Folders
    /// below it are packages, whatever their names.
    fn source_root_of<'a>(&self, path: &'a str) -> Option<&'a str> {
        self.patterns
            .iter()
            .filter_map(|pattern| {
                let literal = &pattern[..pattern.find(['*', '?', '[', '{']).unwrap_or(0)];
                let root = &literal[..literal.rfind('/').map_or(0, |at| at + 1)];
                (!root.is_empty() && path.starts_with(root)).then(|| &path[..root.len()])
            })
            .max_by_key(|root| root.len())
    }

    /// Checks every file a patch touches.
    pub fn check(&self, patch: &Patch) -> Result<(), PolicyViolation> {
        patch.files.iter().try_for_each(|file| {
            self.check_path(&file.old_path)?;
            self.check_path(&file.new_path)
        })
    }
}

/// Test sources, build descriptions and tool configuration decide how a candidate is judged.
/// Protection goes by a path's role, not by its words: below an editable source root (`root`),
/// folders are Java packages (Jenkins' `…/steps/build/`), so only the folders above it can be
/// test, build-output or tool folders.
fn is_protected(path: &str, root: Option<&str>) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let folders = match root {
        Some(root) => root,
        None => path,
    };
    let parts: Vec<&str> = folders.split('/').collect();
    parts.windows(2).any(|w| w == ["src", "test"])
        || parts
            .iter()
            .any(|p| matches!(*p, ".mvn" | ".gradle" | "target" | "build" | ".git"))
        || matches!(
            name,
            "pom.xml" | "build.xml" | "mvnw" | "gradlew" | "module-info.java"
        )
        || name.starts_with("build.gradle")
        || name.starts_with("settings.gradle")
        || name.ends_with(".properties") && parts.first() == Some(&"gradle")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_policy_allows_main_sources_only() {
        let policy = EditPolicy::new(None).unwrap();
        assert!(policy.check_path("src/main/java/a/B.java").is_ok());
        for (path, kind) in [
            ("src/test/java/a/BTest.java", "protected"),
            ("pom.xml", "protected"),
            ("sub/pom.xml", "protected"),
            ("build.gradle.kts", "protected"),
            ("target/surefire-reports/TEST-a.xml", "protected"),
            ("src/main/java/module-info.java", "protected"),
            ("../etc/passwd", "outside"),
            ("/etc/passwd", "outside"),
            ("src/main/java/../../../x.java", "outside"),
            ("src/main/resources/app.properties", "not editable"),
        ] {
            let err = policy.check_path(path).unwrap_err();
            let matches = match kind {
                "protected" => matches!(err, PolicyViolation::Protected(_)),
                "outside" => matches!(err, PolicyViolation::OutsideProject(_)),
                _ => matches!(err, PolicyViolation::NotEditable(..)),
            };
            assert!(matches, "{path}: {err}");
        }
    }

    /// A package named like a build folder (`build`, `target`) inside the main sources is a
    /// package; the same names above the source root stay protected.
    #[test]
    fn folders_below_a_source_root_are_packages() {
        let policy = EditPolicy::new(None).unwrap();
        let step = "src/main/java/org/jenkinsci/plugins/workflow/support/steps/build/BuildTriggerStepExecution.java";
        assert!(policy.check_path(step).is_ok());
        assert!(policy.check_path("src/main/java/a/target/B.java").is_ok());
        assert!(policy.check_path("src/main/java/module-info.java").is_err());
        let layout = EditPolicy::new(Some(&["core/src/java/**/*.java".to_owned()])).unwrap();
        assert!(
            layout
                .check_path("core/src/java/org/x/build/B.java")
                .is_ok()
        );
        assert!(matches!(
            layout.check_path("build/src/java/B.java"),
            Err(PolicyViolation::Protected(_))
        ));
        let anywhere = EditPolicy::new(Some(&["**/*.java".to_owned()])).unwrap();
        assert!(matches!(
            anywhere.check_path("target/generated/B.java"),
            Err(PolicyViolation::Protected(_))
        ));
    }

    #[test]
    fn a_policy_cannot_open_test_files() {
        let policy = EditPolicy::new(Some(&["**".to_owned()])).unwrap();
        assert!(
            policy
                .check_path("src/main/resources/app.properties")
                .is_ok()
        );
        assert!(policy.check_path("src/test/java/a/BTest.java").is_err());
        assert!(
            policy
                .check_path("module/src/test/java/a/BTest.java")
                .is_err()
        );
    }
}
