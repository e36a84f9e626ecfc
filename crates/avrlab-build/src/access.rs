//! What code on the class path may reach in the JDK, when a newer JDK stands in for JDK 8 or
//! older. Up to JDK 8 every public type of the JDK was accessible and deep reflection into it was
//! allowed; from JDK 17 on, the packages of the JDK's modules are closed to the class path, so
//! tests of an old project that use, say, `sun.security.util` fail on the substitute with an
//! `IllegalAccessError` that has nothing to do with the candidate. Under such a substitution every
//! JVM of the task (Maven's, the forked test JVM, the fast path's) is started with every package
//! of every system module opened to the class path (`--add-opens M/P=ALL-UNNAMED`, which at run
//! time also exports it), as JDK 8 left them. The list is read from the JDK itself, once per JDK,
//! into an argument file that `JDK_JAVA_OPTIONS` names.

use std::path::{Path, PathBuf};
use std::time::Duration;

use sha2::{Digest, Sha256};

use avrlab_exec::Jdk;
use avrlab_exec::{Limits, Mount, SandboxKind, SandboxPolicy};
use avrlab_exec::{ProcessError, RunSpec, run};

/// The argument file could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AccessError {
    /// Listing the JDK's packages could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// A file of it could not be written, or the JDK listed nothing usable.
    #[error("cannot prepare {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

/// Lists the packages of the boot layer's modules, one option per line.
const LIST_PACKAGES: &str = r#"import java.util.TreeSet;

public class ListPackages {
    public static void main(String[] args) {
        TreeSet<String> lines = new TreeSet<>();
        for (Module module : ModuleLayer.boot().modules()) {
            for (String pkg : module.getPackages()) {
                lines.add("--add-opens=" + module.getName() + "/" + pkg + "=ALL-UNNAMED");
            }
        }
        lines.forEach(System.out::println);
    }
}
"#;

/// Where the argument file opening `jdk`'s packages to the class path is kept: a folder next to
/// the Maven `repository` (mounted read-only into the sandbox), one file per JDK.
pub(crate) fn legacy_access_path(jdk: &Jdk, repository: &Path) -> PathBuf {
    let dir = repository
        .parent()
        .map_or_else(std::env::temp_dir, Path::to_owned)
        .join("jdk-access");
    let mut hasher = Sha256::new();
    hasher.update(LIST_PACKAGES.as_bytes());
    hasher.update(jdk.home.to_string_lossy().as_bytes());
    hasher.update(jdk.version.as_bytes());
    dir.join(format!("{}.args", hex::encode(&hasher.finalize()[..12])))
}

/// The Java EE APIs that JDK 8 carried and JDK 11 removed (JEP 320), which old builds and their
/// tests use without declaring them: JAF (`javax.activation`, with its implementation; XJC
/// plug-ins such as cxf-xjc-plugin and maven-jaxb2-plugin fail without it), the JAXB API
/// (TomEE's tests), and the APIs of JAX-WS, SAAJ, Web Services Metadata and Common Annotations
/// (CXF's tests). Maven Central coordinates.
pub const REMOVED_PLATFORM_APIS: [(&str, &str, &str); 6] = [
    ("com.sun.activation", "javax.activation", "1.2.0"),
    ("javax.xml.bind", "jaxb-api", "2.3.1"),
    ("javax.xml.ws", "jaxws-api", "2.3.1"),
    ("javax.xml.soap", "javax.xml.soap-api", "1.4.0"),
    ("javax.jws", "javax.jws-api", "1.1"),
    ("javax.annotation", "javax.annotation-api", "1.3.2"),
];

/// Where the jars of [`REMOVED_PLATFORM_APIS`] are kept for a substitution whose argument file
/// is `access_file`: beside it (a folder every sandbox of the task sees at its host path), so that
/// every JVM of the task can append them to its boot class path, where JDK 8 had them.
/// The last one holds JDK 8's implementations (see [`REMOVED_IMPLEMENTATIONS`]).
pub(crate) fn removed_api_jars(access_file: &Path) -> Vec<PathBuf> {
    let dir = access_file
        .parent()
        .unwrap_or(access_file)
        .join("removed-apis");
    REMOVED_PLATFORM_APIS
        .iter()
        .map(|(_, artifact, version)| dir.join(format!("{artifact}-{version}.jar")))
        .chain([dir.join(implementations_jar_name())])
        .collect()
}

/// JDK 8 also carried implementations of JAXB and SAAJ, under internal package names
/// (`com.sun.xml.internal.bind`, `com.sun.xml.internal.messaging.saaj`), which the APIs fall
/// back to when the class path offers none; a project that brings its own (found through
/// `META-INF/services`) uses that instead. The same on a newer JDK: these reference
/// implementations, their packages renamed as JDK 8 named them and their service entries left
/// out, in one jar on the boot class path beside the APIs. (JAXB 2.3.9 defines its accessor
/// classes in a way JDK 11 and newer still allow; 2.3.3 does not.) JAX-WS has no implementation
/// here: the projects that use it bring theirs (CXF is one).
pub const REMOVED_IMPLEMENTATIONS: [(&str, &str, &str); 3] = [
    ("com.sun.xml.bind", "jaxb-impl", "2.3.9"),
    ("com.sun.xml.messaging.saaj", "saaj-impl", "1.5.3"),
    ("org.jvnet.mimepull", "mimepull", "1.9.15"),
];

/// The package renames from the reference implementations' names to JDK 8's.
const INTERNAL_PACKAGES: [(&str, &str); 8] = [
    ("com.sun.xml.bind", "com.sun.xml.internal.bind"),
    (
        "com.sun.xml.messaging.saaj",
        "com.sun.xml.internal.messaging.saaj",
    ),
    ("com.sun.istack", "com.sun.istack.internal"),
    ("com.sun.xml.txw2", "com.sun.xml.internal.txw2"),
    ("org.jvnet.staxex", "com.sun.xml.internal.org.jvnet.staxex"),
    (
        "org.jvnet.mimepull",
        "com.sun.xml.internal.org.jvnet.mimepull",
    ),
    (
        "com.sun.xml.fastinfoset",
        "com.sun.xml.internal.fastinfoset",
    ),
    (
        "org.jvnet.fastinfoset",
        "com.sun.xml.internal.org.jvnet.fastinfoset",
    ),
];

/// The implementations jar's file name, which changes with what goes into it.
pub(crate) fn implementations_jar_name() -> String {
    let digest = Sha256::digest(implementations_pom().as_bytes());
    format!("jdk8-implementations-{}.jar", hex::encode(&digest[..6]))
}

/// A pom whose `package` phase writes `target/jdk8-implementations.jar`: the
/// [`REMOVED_IMPLEMENTATIONS`] (and what they bundle or need: stax-ex) with their packages
/// renamed (maven-shade-plugin), without their service entries and Maven metadata.
pub(crate) fn implementations_pom() -> String {
    let dependencies: String = REMOVED_IMPLEMENTATIONS
        .iter()
        .map(|(group, artifact, version)| {
            format!(
                "<dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version></dependency>"
            )
        })
        .collect();
    let includes: String = REMOVED_IMPLEMENTATIONS
        .iter()
        .map(|(group, artifact, _)| format!("<include>{group}:{artifact}</include>"))
        .chain(["<include>org.jvnet.staxex:stax-ex</include>".to_owned()])
        .collect();
    let relocations: String = INTERNAL_PACKAGES
        .iter()
        .map(|(from, to)| {
            format!(
                "<relocation><pattern>{from}</pattern><shadedPattern>{to}</shadedPattern></relocation>"
            )
        })
        .collect();
    format!(
        r#"<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>avrlab</groupId>
  <artifactId>jdk8-implementations</artifactId>
  <version>1</version>
  <dependencies>{dependencies}</dependencies>
  <build>
    <finalName>jdk8-implementations</finalName>
    <plugins>
      <plugin>
        <groupId>org.apache.maven.plugins</groupId>
        <artifactId>maven-shade-plugin</artifactId>
        <version>3.2.4</version>
        <executions>
          <execution>
            <phase>package</phase>
            <goals><goal>shade</goal></goals>
            <configuration>
              <artifactSet><includes>{includes}</includes></artifactSet>
              <filters><filter><artifact>*:*</artifact><excludes>
                <exclude>META-INF/services/**</exclude><exclude>META-INF/maven/**</exclude>
                <exclude>META-INF/versions/**</exclude><exclude>module-info.class</exclude>
              </excludes></filter></filters>
              <relocations>{relocations}</relocations>
              <createDependencyReducedPom>false</createDependencyReducedPom>
            </configuration>
          </execution>
        </executions>
      </plugin>
    </plugins>
  </build>
</project>
"#
    )
}

/// The path of a [`REMOVED_PLATFORM_APIS`] jar in a Maven repository.
pub(crate) fn repository_jar(
    repository: &Path,
    (group, artifact, version): (&str, &str, &str),
) -> PathBuf {
    let mut path = repository.to_owned();
    for part in group.split('.') {
        path.push(part);
    }
    path.join(artifact)
        .join(version)
        .join(format!("{artifact}-{version}.jar"))
}

/// Makes the argument file at `file` (see [`legacy_access_path`]) unless it is there: lists the
/// packages with `jdk` itself, in `sandbox` under `limits` (its wall time capped at two minutes).
pub(crate) fn make_legacy_access_file(
    file: &Path,
    jdk: &Jdk,
    sandbox: SandboxKind,
    limits: Limits,
) -> Result<(), AccessError> {
    let io = |path: &Path| {
        let path = path.to_owned();
        move |source| AccessError::Io { path, source }
    };
    if file.is_file() {
        return Ok(());
    }
    let dir = file.parent().unwrap_or(file);
    static STAGINGS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let staging = dir.join(format!(
        "staging-{}-{}",
        std::process::id(),
        STAGINGS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&staging).map_err(io(&staging))?;
    let source = staging.join("ListPackages.java");
    std::fs::write(&source, LIST_PACKAGES).map_err(io(&source))?;
    let mut mounts = vec![Mount::ReadOnly(staging.clone())];
    if !jdk.home.starts_with("/usr") {
        mounts.push(Mount::ReadOnly(jdk.home.clone()));
    }
    let spec = RunSpec {
        program: jdk.home.join("bin/java"),
        // The default boot layer: the modules a class-path application resolves (naming others
        // would make every JVM warn about unknown modules).
        args: vec![source.display().to_string()],
        cwd: staging.clone(),
        env: vec![("LANG".into(), "C.UTF-8".into())],
        sandbox,
        policy: SandboxPolicy {
            mounts,
            network: false,
        },
        limits: Limits {
            wall: Duration::from_secs(120),
            ..limits
        },
        stdin: Vec::new(),
    };
    let result = run(&spec);
    let _ = std::fs::remove_dir_all(&staging);
    let result = result?;
    let listed = result.stdout.text();
    let kept = (result.stdout.head.len() + result.stdout.tail.len()) as u64;
    let complete = result.stdout.total_bytes == kept;
    let lines: Vec<&str> = listed.lines().filter(|l| is_open_option(l)).collect();
    if !result.exit.success() || !complete || lines.is_empty() {
        return Err(AccessError::Io {
            path: jdk.home.clone(),
            source: std::io::Error::other(format!(
                "cannot list the packages of this JDK's modules: {}",
                result.stderr.text().lines().last().unwrap_or("no output")
            )),
        });
    }
    let partial = avrlab_core::partial_path(file);
    std::fs::write(&partial, lines.join("\n") + "\n").map_err(io(&partial))?;
    std::fs::rename(&partial, file).map_err(io(file))?;
    Ok(())
}

/// `--add-opens=module/package=ALL-UNNAMED`, with Java names only (the file is handed to every
/// JVM of the task).
fn is_open_option(line: &str) -> bool {
    let name = |s: &str| {
        !s.is_empty()
            && s.split('.').all(|part| {
                !part.is_empty()
                    && part
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
            })
    };
    line.strip_prefix("--add-opens=")
        .and_then(|rest| rest.strip_suffix("=ALL-UNNAMED"))
        .and_then(|rest| rest.split_once('/'))
        .is_some_and(|(module, package)| name(module) && name(package))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_well_formed_options_are_kept() {
        assert!(is_open_option(
            "--add-opens=java.base/sun.security.util=ALL-UNNAMED"
        ));
        for bad in [
            "--add-opens=java.base/sun.security.util=ALL-UNNAMED -javaagent:x.jar",
            "--add-opens=java.base/=ALL-UNNAMED",
            "-javaagent:/tmp/a.jar",
            "--add-opens=java.base/a..b=ALL-UNNAMED",
            "Picked up JAVA_TOOL_OPTIONS: -XX:+DisableAttachMechanism",
        ] {
            assert!(!is_open_option(bad), "{bad}");
        }
    }
}
