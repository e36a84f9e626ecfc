//! The fidelity probe's process side: a test class of avrlab's own (`java/fastpath/probe`),
//! compiled at a task state's warm-up against its test class path, that records what a test sees
//! of its JVM (system properties, `Runtime` figures, collectors and JIT, class loaders and code
//! sources, assertions, locale, charset, time zone, working directory). It runs once in
//! Surefire's fork and once in the fast path's test JVM; `avrlab-validate` compares the two.
//! The record travels in the failure messages of the probe's tests, the one thing both engines
//! report in full for every test.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::fastpath::{FastBuild, FastPathError};
use crate::maven::{Maven, last_error_line};
use crate::surefire::TestCaseResult;
use avrlab_exec::run;

/// The probe's test class (binary name).
pub const PROBE_CLASS: &str = "avrlabprobe.AvrlabFidelityProbe";

const PROBE_SOURCE: &str = crate::helpers::FASTPATH_PROBE[0].1;

/// What decides the two records besides the task state: the probe, the helper (its Java sources
/// are hashed into `build.helper`), and the code that starts Surefire's fork and the fast test
/// JVM. Records kept under another key are taken again.
pub fn probe_key(build: &FastBuild) -> String {
    use sha2::Digest;
    let mut hasher = sha2::Sha256::new();
    for text in [
        PROBE_SOURCE,
        include_str!("fastpath.rs"),
        include_str!("maven.rs"),
        include_str!("fork_relay.rs"),
        include_str!("../../avrlab-exec/src/sandbox.rs"),
    ] {
        hasher.update(text.as_bytes());
        hasher.update([0]);
    }
    hasher.update(build.helper.to_string_lossy().as_bytes());
    hex::encode(&hasher.finalize()[..12])
}

/// What a test saw of its JVM: one value per observation (`property java.version`, `runtime
/// maxMemory`, `main class code source`, …).
pub type ProbeRecord = BTreeMap<String, String>;

impl Maven {
    /// Compiles the probe against `build`'s test class path into `out` (a fresh folder, where
    /// `avrlabprobe/AvrlabFidelityProbe.class` appears), for the project's JUnit (Jupiter when its
    /// API is on the class path, a `TestCase` for JUnit 3, else JUnit 4) and naming one of the
    /// project's main classes.
    pub fn compile_probe(&self, build: &FastBuild, out: &Path) -> Result<(), FastPathError> {
        let io = |path: &Path| {
            let path = path.to_owned();
            move |source| FastPathError::Io { path, source }
        };
        // The project's own test class path as Maven resolved it (the fast path may have
        // replaced an old JUnit, which Surefire's fork keeps).
        let resolved =
            std::fs::read_to_string(build.project.join("target/avrlab-test-classpath.txt"))
                .unwrap_or_default();
        let resolved: Vec<PathBuf> = std::env::split_paths(resolved.trim()).collect();
        let jupiter = resolved.iter().chain(&build.classpath).any(|p| {
            p.file_name()
                .is_some_and(|n| n.to_string_lossy().starts_with("junit-jupiter-api-"))
        });
        let junit3 = resolved
            .iter()
            .find_map(|p| crate::fastpath::artifact_version(p, "junit"))
            .is_some_and(|v| crate::fastpath::major_minor(&v).0 < 4);
        let (annotation, superclass) = match (jupiter, junit3) {
            (true, _) => ("@org.junit.jupiter.api.Test", ""),
            (false, false) => ("@org.junit.Test", ""),
            (false, true) => ("", "extends junit.framework.TestCase "),
        };
        let main = first_main_class(&build.project.join("target/classes")).unwrap_or_default();
        let source = PROBE_SOURCE
            .replace("@TEST@", annotation)
            .replace("@EXTENDS@", superclass)
            .replace("@MAIN@", &main);
        let file = out.join("src/avrlabprobe/AvrlabFidelityProbe.java");
        std::fs::create_dir_all(file.parent().expect("a file in a folder")).map_err(io(out))?;
        std::fs::write(&file, source).map_err(io(&file))?;
        let classes = out.join("classes");
        std::fs::create_dir_all(&classes).map_err(io(&classes))?;
        let joined = std::env::join_paths(&build.classpath)
            .map_err(|e| FastPathError::Start(e.to_string()))?
            .to_string_lossy()
            .into_owned();
        let args = vec![
            "--release".to_owned(),
            self.jdk().major.to_string(),
            "-nowarn".to_owned(),
            "-cp".to_owned(),
            joined,
            "-d".to_owned(),
            classes.display().to_string(),
            file.display().to_string(),
        ];
        let javac = self.jdk().home.join("bin/javac");
        let result = run(&self.staging_tool(javac.clone(), args, out))?;
        if !result.exit.success() {
            return Err(FastPathError::HelperBuild {
                javac,
                tail: last_error_line(&result),
            });
        }
        Ok(())
    }
}

/// The binary name of the first top-level main class (in path order) under `classes`.
fn first_main_class(classes: &Path) -> Option<String> {
    let mut found: Vec<PathBuf> = walkdir::WalkDir::new(classes)
        .into_iter()
        .flatten()
        .filter(|e| e.file_type().is_file())
        .map(|e| e.path().to_owned())
        .filter(|p| {
            p.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                n.ends_with(".class")
                    && !n.contains('$')
                    && n != "module-info.class"
                    && n != "package-info.class"
            })
        })
        .collect();
    found.sort();
    let first = found.first()?;
    let relative = first
        .strip_prefix(classes)
        .ok()?
        .to_string_lossy()
        .into_owned();
    Some(relative.strip_suffix(".class")?.replace('/', "."))
}

/// The probe's record from the failure messages of its tests (as either engine reports them),
/// or why it cannot be read.
pub fn probe_record(cases: &[TestCaseResult]) -> Result<ProbeRecord, String> {
    let mut parts: BTreeMap<usize, String> = BTreeMap::new();
    let mut total = None;
    for case in cases.iter().filter(|c| c.class == PROBE_CLASS) {
        let Some((_, rest)) = case.message.split_once("AVRLAB-PROBE ") else {
            continue;
        };
        let mut fields = rest.trim().splitn(3, ' ');
        let (Some(index), Some(count)) = (fields.next(), fields.next()) else {
            continue;
        };
        let (Ok(index), Ok(count)) = (index.parse::<usize>(), count.parse::<usize>()) else {
            continue;
        };
        total = Some(count);
        parts.insert(index, fields.next().unwrap_or("").trim().to_owned());
    }
    let Some(total) = total else {
        return Err(format!(
            "the probe's tests reported no record ({} of its tests ran)",
            cases.iter().filter(|c| c.class == PROBE_CLASS).count()
        ));
    };
    if (0..total).any(|i| !parts.contains_key(&i)) {
        return Err(format!(
            "the probe's record has {total} parts, and {} of them arrived",
            parts.len()
        ));
    }
    let hex: String = (0..total).map(|i| parts[&i].as_str()).collect();
    let packed = hex::decode(&hex).map_err(|e| format!("the probe's record is not hex: {e}"))?;
    let mut text = String::new();
    std::io::Read::read_to_string(&mut flate2::read::ZlibDecoder::new(&packed[..]), &mut text)
        .map_err(|e| format!("the probe's record does not inflate: {e}"))?;
    let mut record = ProbeRecord::new();
    for line in text.lines() {
        if let Some((key, value)) = line.split_once('=') {
            record.insert(key.to_owned(), unescape(value));
        }
    }
    Ok(record)
}

/// A value as the probe wrote it: `\n` a line break, `\\` a backslash.
fn unescape(value: &str) -> String {
    let mut out = String::with_capacity(value.len());
    let mut chars = value.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('n') => out.push('\n'),
            Some(other) => out.push(other),
            None => out.push('\\'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::surefire::TestStatus;

    fn case(method: &str, message: &str) -> TestCaseResult {
        TestCaseResult {
            class: PROBE_CLASS.to_owned(),
            method: method.to_owned(),
            status: TestStatus::Failed,
            seconds: 0.0,
            message: message.to_owned(),
        }
    }

    /// Parts arrive in any order, with whatever prefix the engine puts before the message.
    #[test]
    fn a_record_is_read_from_the_parts_in_any_order() {
        let mut packed = flate2::write::ZlibEncoder::new(Vec::new(), flate2::Compression::best());
        std::io::Write::write_all(&mut packed, b"property a=1\\\\n2\nworking directory=/w\n")
            .unwrap();
        let hex = hex::encode(packed.finish().unwrap());
        let (first, second) = hex.split_at(10);
        let cases = [
            case(
                "part01",
                &format!("java.lang.AssertionError: AVRLAB-PROBE 1 2 {second}"),
            ),
            case("part00", &format!("AVRLAB-PROBE 0 2 {first}")),
            case("part02", "java.lang.AssertionError: AVRLAB-PROBE 2 2 "),
        ];
        let record = probe_record(&cases).unwrap();
        assert_eq!(record["property a"], "1\\n2");
        assert_eq!(record["working directory"], "/w");
        assert!(probe_record(&cases[..1]).unwrap_err().contains("2 parts"));
        assert!(probe_record(&[]).is_err());
    }
}
