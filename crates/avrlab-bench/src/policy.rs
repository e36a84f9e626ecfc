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
        if is_protected(path) {
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

    /// Checks every file a patch touches.
    pub fn check(&self, patch: &Patch) -> Result<(), PolicyViolation> {
        patch.files.iter().try_for_each(|file| {
            self.check_path(&file.old_path)?;
            self.check_path(&file.new_path)
        })
    }
}

/// Test sources, build descriptions and tool configuration decide how a candidate is judged.
fn is_protected(path: &str) -> bool {
    let name = path.rsplit('/').next().unwrap_or(path);
    let parts: Vec<&str> = path.split('/').collect();
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
