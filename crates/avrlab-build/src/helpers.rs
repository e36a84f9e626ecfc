//! The Java helpers' sources, as their build file (`java/helpers.toml`) lists them: `build.rs`
//! embeds each listed file, so the binary carries exactly these, and the helpers' own checks,
//! which a test here compiles and runs.

/// One source of a helper: its path under the helper's root, and its text.
pub(crate) type Source = (&'static str, &'static str);

/// A program of a helper's own checks: the helper sources it uses, its own files, its main class.
#[cfg(test)]
pub(crate) struct Check {
    pub(crate) name: &'static str,
    pub(crate) uses: &'static [Source],
    pub(crate) files: &'static [Source],
    pub(crate) main: &'static str,
}

include!(concat!(env!("OUT_DIR"), "/helpers.rs"));

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use avrlab_exec::{Limits, RunSpec, SandboxKind, SandboxPolicy, run};

    use super::*;

    /// Each check of `java/helpers.toml`: the helper sources it uses, as the binary carries them,
    /// and its own files, compiled with the newest installed JDK and run; every check prints a
    /// line, and one that fails fails this (its output says which).
    #[test]
    fn the_java_helpers_pass_their_own_checks() {
        let jdk = avrlab_exec::installed_jdks()
            .pop()
            .expect("a JDK is installed");
        assert!(!CHECKS.is_empty());
        for check in CHECKS {
            let dir = tempfile::tempdir().unwrap();
            let sources = dir.path().join("src");
            let mut files = Vec::new();
            for (name, text) in check.uses.iter().chain(check.files) {
                let path = sources.join(name);
                std::fs::create_dir_all(path.parent().unwrap()).unwrap();
                std::fs::write(&path, text).unwrap();
                files.push(path.to_string_lossy().into_owned());
            }
            let classes = dir.path().join("classes");
            let tool = |program: &str, args: Vec<String>| {
                run(&RunSpec {
                    program: jdk.home.join("bin").join(program),
                    args,
                    cwd: dir.path().to_owned(),
                    env: Vec::new(),
                    sandbox: SandboxKind::None,
                    policy: SandboxPolicy {
                        mounts: Vec::new(),
                        network: false,
                    },
                    limits: Limits {
                        wall: Duration::from_secs(120),
                        ..Limits::default()
                    },
                    stdin: Vec::new(),
                })
                .unwrap()
            };
            let mut args: Vec<String> = ["-nowarn", "-encoding", "UTF-8", "-d"]
                .map(str::to_owned)
                .to_vec();
            args.push(classes.to_string_lossy().into_owned());
            args.extend(files);
            let compiled = tool("javac", args);
            assert!(
                compiled.exit.success(),
                "{}: {}",
                check.name,
                compiled.stderr.text()
            );
            let ran = tool(
                "java",
                vec![
                    "-cp".into(),
                    classes.to_string_lossy().into_owned(),
                    check.main.into(),
                ],
            );
            let out = ran.stdout.text();
            assert!(
                ran.exit.success(),
                "{}: {out}{}",
                check.name,
                ran.stderr.text()
            );
            assert!(out.ends_with("all checks hold\n"), "{}: {out}", check.name);
        }
    }
}
