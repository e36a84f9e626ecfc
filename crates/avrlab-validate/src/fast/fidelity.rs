//! The fidelity probe at a task state's warm-up: the probe test (`avrlab-exec` `fidelity`) runs
//! once in Surefire's fork, through the same Maven test step as `--engine maven`, and once in a
//! test JVM of the fast path started as a candidate's is; the two records are kept with the task
//! state's kept build, and every difference is either explained (a table of known differences,
//! each with its reason) or makes the fast path hand the task to Maven.

use std::path::{Path, PathBuf};

use avrlab_bench::{Task, TestName, copy_project};
use avrlab_build::{
    CANDIDATE_FOLDERS, FastBuild, Maven, PROBE_CLASS, ProbeRecord, RegressionRun, RunRequest,
    TestJvmRole, TestSelection, probe_key, probe_record,
};

use super::{FastOracle, merge_main_classes};
use crate::error::ValidateError;

/// The two records kept with a task state: `fidelity-surefire.txt`, `fidelity-fast.txt`.
const RECORDS: [&str; 2] = ["fidelity-surefire.txt", "fidelity-fast.txt"];
/// The kept records' first word; the rest of their first line is [`probe_key`], and records
/// under another key are taken again.
const PROBE_VERSION: &str = "probe";

/// One observation on which the two JVMs differ.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProbeDifference {
    pub key: String,
    pub surefire: Option<String>,
    pub fast: Option<String>,
    /// Why the difference changes nothing a test could rely on, or `None`: unexplained.
    pub explained: Option<&'static str>,
}

/// What the probe found for one task state.
#[derive(Debug, Clone, Default)]
pub struct Fidelity {
    /// Observations compared.
    pub compared: usize,
    pub differences: Vec<ProbeDifference>,
    /// The system properties of Surefire's fork that the test JVM sets too ([`learned`]).
    pub learned: Vec<(String, String)>,
}

impl Fidelity {
    /// The differences as a Markdown table (observation, Surefire's fork, the fast JVM, why),
    /// after a line with how many observations were compared; long values are cut.
    pub fn table(&self) -> String {
        let cell = |value: &Option<String>| {
            let text = value.as_deref().map_or("(absent)".to_owned(), |v| {
                let v = v.replace('|', "\\|").replace('\n', " ");
                match v.char_indices().nth(90) {
                    Some((at, _)) => format!("{}…", &v[..at]),
                    None if v.is_empty() => "(empty)".to_owned(),
                    None => v,
                }
            });
            format!("`{text}`")
        };
        let unexplained = self
            .differences
            .iter()
            .filter(|d| d.explained.is_none())
            .count();
        let mut out = format!(
            "{} observations compared, {} differ, {} unexplained\n\n",
            self.compared,
            self.differences.len(),
            unexplained
        );
        if self.differences.is_empty() {
            return out;
        }
        out.push_str("| observation | Surefire's fork | fast test JVM | why it may differ |\n");
        out.push_str("|---|---|---|---|\n");
        for d in &self.differences {
            out.push_str(&format!(
                "| {} | {} | {} | {} |\n",
                d.key,
                cell(&d.surefire),
                cell(&d.fast),
                d.explained
                    .unwrap_or("**unexplained: the task goes to Maven**")
            ));
        }
        out
    }

    /// The task's reason to go to Maven: the unexplained differences, if any.
    pub fn unexplained(&self) -> Option<String> {
        let keys: Vec<&str> = self
            .differences
            .iter()
            .filter(|d| d.explained.is_none())
            .map(|d| d.key.as_str())
            .collect();
        (!keys.is_empty()).then(|| {
            format!(
                "the fidelity probe found the fast path's test JVM unlike Surefire's fork in {}",
                keys.join(", ")
            )
        })
    }
}

impl FastOracle {
    /// The probe's records for the task state kept in `kept` (taken now unless kept there), and
    /// their comparison.
    pub(super) fn probe_fidelity(
        &self,
        task: &Task,
        maven: &Maven,
        kept: &Path,
        build: &FastBuild,
        archive: Option<&Path>,
    ) -> Result<Result<Fidelity, String>, ValidateError> {
        let paths = RECORDS.map(|name| kept.join(name));
        let header = format!("{PROBE_VERSION} {}\n", probe_key(build));
        let read = |path: &PathBuf| {
            let text = std::fs::read_to_string(path).ok()?;
            let body = text.strip_prefix(&header)?;
            Some(parse_record(body))
        };
        let (surefire, fast) = match (read(&paths[0]), read(&paths[1])) {
            (Some(surefire), Some(fast)) => (surefire, fast),
            _ => {
                let taken = self.take_probe(task, maven, (kept, build), archive)?;
                let (surefire, fast) = match taken {
                    Ok(records) => records,
                    Err(why) => return Ok(Err(why)),
                };
                // Kept as a cache: where they cannot be written, the probe runs again next time.
                for (path, record) in paths.iter().zip([&surefire, &fast]) {
                    let _ = std::fs::write(path, format!("{header}{}", write_record(record)));
                }
                (surefire, fast)
            }
        };
        let mut found = compare(&surefire, &fast);
        found.learned = learned(&surefire);
        Ok(Ok(found))
    }

    /// Runs the probe in Surefire's fork and in a fast test JVM for `build`, kept in
    /// `kept_root`; the module folder is written as `${basedir}` in both records.
    fn take_probe(
        &self,
        task: &Task,
        maven: &Maven,
        (kept_root, build): (&Path, &FastBuild),
        archive: Option<&Path>,
    ) -> Result<Result<(ProbeRecord, ProbeRecord), String>, ValidateError> {
        let scratch = self.config.work_root.join("fidelity").join(&task.id);
        let ws_err = |path: &Path| {
            let path = path.to_owned();
            move |source| ValidateError::Workspace { path, source }
        };
        let _ = std::fs::remove_dir_all(&scratch);
        std::fs::create_dir_all(&scratch).map_err(ws_err(&scratch))?;
        let fast_err = |source| ValidateError::FastPath {
            task: task.id.clone(),
            source,
        };
        let probe = scratch.join("probe");
        std::fs::create_dir_all(&probe).map_err(ws_err(&probe))?;
        // A probe that cannot be compiled or run is the task's reason to go to Maven, not an
        // error of the run.
        if let Err(e) = maven.compile_probe(build, &probe) {
            return Ok(Err(format!("compiling the probe failed: {e}")));
        }
        let probe_classes = probe.join("classes");
        let class = TestName::parse(PROBE_CLASS).expect("the probe's name is a class name");
        // Surefire's fork: a copy of the kept build with the probe among its test classes, run
        // by the Maven test step `--engine maven` runs (its sandbox, its fork).
        let workspace = scratch.join("workspace");
        copy_project(kept_root, &workspace).map_err(|source| ValidateError::Checkout {
            task: task.id.clone(),
            source,
        })?;
        let module = workspace.join(
            build
                .project
                .strip_prefix(kept_root)
                .unwrap_or(Path::new("")),
        );
        // The copy leaves build output out: the kept build's is copied in, as the compile step
        // of `--engine maven` would have made it.
        copy_tree(&build.project.join("target"), &module.join("target"))
            .map_err(ws_err(&module))?;
        copy_tree(&probe_classes, &module.join("target/test-classes")).map_err(ws_err(&module))?;
        let reports = scratch.join("reports");
        let selection = TestSelection::Only(vec![class.clone()]);
        let run = match maven.test(&workspace, &selection, &reports) {
            Ok(run) => run,
            Err(e) => return Ok(Err(format!("Surefire's run of the probe failed: {e}"))),
        };
        let surefire = match probe_record(&run.cases) {
            Ok(record) => relative_to(record, &module),
            Err(why) => {
                let said = run
                    .log
                    .lines()
                    .rfind(|l| l.contains("[ERROR]") || l.contains("Tests run"))
                    .unwrap_or("no output");
                return Ok(Err(format!("in Surefire's fork, {why} (Maven: {said})")));
            }
        };
        // The fast path's test JVM, started and filled as a candidate's.
        let folder = self.new_class_folder("probe")?;
        for sub in CANDIDATE_FOLDERS {
            std::fs::create_dir_all(folder.0.join(sub)).map_err(ws_err(&folder.0))?;
        }
        let jvm = maven
            .start_test_jvm(
                build,
                TestJvmRole::Candidate {
                    folder: &folder.0,
                    archive,
                    learned: &learned(&surefire),
                },
                self.fast.test_timeout,
            )
            .map_err(fast_err)?;
        copy_tree(&probe_classes, &folder.0.join(CANDIDATE_FOLDERS[1]))
            .map_err(ws_err(&folder.0))?;
        for sub in CANDIDATE_FOLDERS {
            merge_main_classes(
                &build.project.join("target").join(sub),
                &folder.0.join(sub),
                None,
            )
            .map_err(ws_err(&folder.0))?;
        }
        let reply = jvm.run(&RunRequest {
            pov: std::slice::from_ref(&class),
            again: &[],
            regression: RegressionRun::Listed(&[]),
            excluded: &[],
            candidate_classes: &[],
            first: &[],
            stop_at_failure: false,
        });
        let cases: Vec<_> = reply.phases.iter().flat_map(|p| p.cases.clone()).collect();
        let fast = match probe_record(&cases) {
            Ok(record) => relative_to(record, &build.project),
            Err(why) => return Ok(Err(format!("in the fast path's test JVM, {why}"))),
        };
        let _ = std::fs::remove_dir_all(&scratch);
        Ok(Ok((surefire, fast)))
    }
}

/// Copies the files under `from` into `to` (folders made as needed).
fn copy_tree(from: &Path, to: &Path) -> std::io::Result<()> {
    for entry in walkdir::WalkDir::new(from) {
        let entry = entry.map_err(std::io::Error::other)?;
        let target = to.join(entry.path().strip_prefix(from).unwrap_or(entry.path()));
        if entry.file_type().is_dir() {
            std::fs::create_dir_all(&target)?;
        } else if entry.file_type().is_file() {
            std::fs::copy(entry.path(), &target)?;
        }
    }
    Ok(())
}

/// `record` with the module folder written `${basedir}` wherever it appears.
fn relative_to(record: ProbeRecord, module: &Path) -> ProbeRecord {
    // `a/./` and `a/` are `a`: the same folder, written as a JVM writes it.
    let module: PathBuf = module.components().collect();
    let module = module.display().to_string();
    record
        .into_iter()
        .map(|(key, value)| (key, value.replace(&module, "${basedir}")))
        .collect()
}

fn write_record(record: &ProbeRecord) -> String {
    record
        .iter()
        .map(|(key, value)| format!("{key}\t{}\n", hex::encode(value)))
        .collect()
}

fn parse_record(text: &str) -> ProbeRecord {
    text.lines()
        .filter_map(|line| {
            let (key, value) = line.split_once('\t')?;
            let value = String::from_utf8(hex::decode(value).ok()?).ok()?;
            Some((key.to_owned(), value))
        })
        .collect()
}

/// The differences between the two records, each with its explanation if it has one.
pub fn compare(surefire: &ProbeRecord, fast: &ProbeRecord) -> Fidelity {
    let mut keys: Vec<&String> = surefire.keys().chain(fast.keys()).collect();
    keys.sort();
    keys.dedup();
    let mut fidelity = Fidelity {
        compared: keys.len(),
        ..Fidelity::default()
    };
    for key in keys {
        let (s, f) = (surefire.get(key), fast.get(key));
        if s == f {
            continue;
        }
        fidelity.differences.push(ProbeDifference {
            key: key.clone(),
            surefire: s.cloned(),
            fast: f.cloned(),
            explained: explained(key, surefire, fast),
        });
    }
    fidelity
}

/// System properties the JVM owns (its version and vendor, the platform, encodings, the user and
/// its folders, the JDK's internals): never copied from Surefire's fork, so that a difference
/// there stays a difference. Prefixes of property names.
const JVM_OWNED: [&str; 22] = [
    "java.version",
    "java.vendor",
    "java.vm.",
    "java.runtime.",
    "java.specification.",
    "java.class.version",
    "java.home",
    "java.library.path",
    "java.io.tmpdir",
    "jdk.",
    "sun.",
    "os.",
    "file.",
    "path.separator",
    "line.separator",
    "native.encoding",
    "stdout.encoding",
    "stderr.encoding",
    "user.dir",
    "user.home",
    "user.name",
    "user.language",
];

/// The system properties of Surefire's fork the fast path's test JVM sets too, as Surefire's
/// booter sets them at run time: every property of its record but those the JVM owns and those
/// the table explains. They are what the project's build hands the fork (Maven's user
/// properties, the Surefire configuration's `systemPropertyVariables` of a parent pom the fast
/// path does not read) and Surefire's own (`basedir`, the test class path); the probe's run in
/// the fast JVM then shows whether they took effect (a time zone set too late would differ).
fn learned(surefire: &ProbeRecord) -> Vec<(String, String)> {
    surefire
        .iter()
        .filter_map(|(key, value)| {
            let name = key.strip_prefix("property ")?;
            let owned = JVM_OWNED.iter().any(|p| name.starts_with(p))
                || name.starts_with("user.") && name != "user.timezone";
            (!owned && explanation(key).is_none()).then(|| (name.to_owned(), value.clone()))
        })
        .collect()
}

/// Why a known difference changes nothing a verdict rests on, or `None`. Each entry names what
/// differs and why it must: these are the differences that remain, everything else a test can
/// see of its JVM is equal (the test JVM sets Surefire's properties itself, see `avrlab-exec`
/// `surefire_properties`).
const EXPLAINED: [(&str, &str); 4] = [
    (
        "property sun.java.command",
        "the JVM's own record of its main class: Surefire's booter jar and its arguments (a \
         file name with a time stamp, new in every fork) against the fast path's launcher",
    ),
    (
        "property surefire.real.class.path",
        "Surefire's own booter jar, which the fast path has no use for; the class path the \
         tests see (java.class.path, surefire.test.class.path) is equal",
    ),
    (
        "property test",
        "the Maven run's -Dtest: set per Maven test run (the PoV run names its tests, the \
         regression run has none), while one fast JVM runs both phases",
    ),
    (
        "jvm security manager installed",
        "the fast path's guard (it blocks System.exit during tests and flags what could reach \
         the result channel); the one difference a candidate can still test for on purpose: \
         Maven's sample and every flag re-judge such code, and a disagreement sends the task's \
         later candidates to Maven (detects-the-fast-path)",
    ),
];

/// The environment variables Maven's own launch gives Surefire's fork and the fast JVM lacks.
const MAVEN_ENVIRONMENT: [&str; 6] = [
    "CLASSPATH",
    "JAVA_HOME",
    "JAVA_TOOL_OPTIONS",
    "MAVEN_CMD_LINE_ARGS",
    "MAVEN_OPTS",
    "MAVEN_PROJECTBASEDIR",
];

/// The fast JVM's own flags for its class-data archive and quieted logging.
fn archive_flag(arg: &str) -> bool {
    arg.starts_with("-XX:SharedArchiveFile=")
        || arg == "-Xlog:cds=off"
        || arg == "-Xlog:cds+dynamic=off"
}

/// Why a known difference changes nothing a verdict rests on, or `None`.
fn explanation(key: &str) -> Option<&'static str> {
    EXPLAINED
        .iter()
        .find(|(known, _)| *known == key)
        .map(|(_, why)| *why)
}

/// [`explanation`], and for the observations whose difference is explained only as long as it
/// stays within bounds (the JVM's arguments, the environment), whether it does.
fn explained(key: &str, surefire: &ProbeRecord, fast: &ProbeRecord) -> Option<&'static str> {
    let words = |record: &ProbeRecord, separator: &str| -> Vec<String> {
        let mut words: Vec<String> = record
            .get(key)
            .map(|v| {
                v.split(separator)
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect()
            })
            .unwrap_or_default();
        words.sort();
        words
    };
    match key {
        "jvm input arguments" => {
            let (s, mut f) = (words(surefire, " "), words(fast, " "));
            f.retain(|a| !archive_flag(a));
            // What one side has and the other not, flags that are equal left out.
            let residue: Vec<&String> = s
                .iter()
                .filter(|a| !f.contains(a))
                .chain(f.iter().filter(|a| !s.contains(a)))
                .collect();
            // A `-Dk=v` flag's one effect is the property, compared on its own (and what the
            // JVM derives from it at start-up, the charset say, is observed too).
            let same_property = |arg: &&String| {
                arg.strip_prefix("-D")
                    .and_then(|kv| kv.split_once('='))
                    .is_some_and(|(k, v)| {
                        let key = format!("property {k}");
                        surefire.get(&key).map(String::as_str) == Some(v)
                            && fast.get(&key).map(String::as_str) == Some(v)
                    })
            };
            residue.iter().all(same_property).then_some(
                "the same flags but the fast JVM's class-data archive and quieted logging \
                 (-XX:SharedArchiveFile, -Xlog:cds=off), which change how fast classes load, \
                 not which, and -D flags whose property has the same value on both sides; the \
                 containment flags come through JAVA_TOOL_OPTIONS on Maven, so in another order",
            )
        }
        "environment variables" => {
            let (s, f) = (words(surefire, ", "), words(fast, ", "));
            let within = f.iter().all(|name| s.contains(name))
                && s.iter()
                    .filter(|name| !f.contains(name))
                    .all(|name| MAVEN_ENVIRONMENT.contains(&name.as_str()));
            within.then_some(
                "Maven's own variables, which Surefire's fork inherits (JAVA_HOME, MAVEN_OPTS, \
                 MAVEN_CMD_LINE_ARGS, MAVEN_PROJECTBASEDIR, CLASSPATH when Surefire passes the \
                 class path so, and JAVA_TOOL_OPTIONS, which carries the containment flags the \
                 fast JVM gets on its command line); names compared, every other one equal",
            )
        }
        _ => explanation(key),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(entries: &[(&str, &str)]) -> ProbeRecord {
        entries
            .iter()
            .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
            .collect()
    }

    /// Equal observations are no difference; a known one is explained; anything else, a value
    /// or an observation only one side has, is unexplained and sends the task to Maven.
    #[test]
    fn only_known_differences_are_explained() {
        let surefire = record(&[
            ("runtime maxMemory", "6320816128"),
            ("property sun.java.command", "surefirebooter.jar"),
            ("property jdk.module.main", "x"),
        ]);
        let fast = record(&[
            ("runtime maxMemory", "1037959168"),
            ("property sun.java.command", "avrlab.fastpath.runner.Boot"),
        ]);
        let found = compare(&surefire, &fast);
        assert_eq!(found.compared, 3);
        let keys: Vec<(&str, bool)> = found
            .differences
            .iter()
            .map(|d| (d.key.as_str(), d.explained.is_some()))
            .collect();
        assert_eq!(
            keys,
            [
                ("property jdk.module.main", false),
                ("property sun.java.command", true),
                ("runtime maxMemory", false),
            ]
        );
        assert_eq!(
            found.unexplained().unwrap(),
            "the fidelity probe found the fast path's test JVM unlike Surefire's fork in \
             property jdk.module.main, runtime maxMemory"
        );
        assert!(compare(&surefire, &surefire).unexplained().is_none());
    }

    /// The JVM's arguments and environment are explained only within bounds: the archive's
    /// flags, `-D` flags whose property is equal on both sides, Maven's own variables.
    #[test]
    fn arguments_and_environment_are_explained_only_within_bounds() {
        let surefire = record(&[
            (
                "jvm input arguments",
                "-XX:-UsePerfData -Dfile.encoding=UTF-8 --add-opens=a",
            ),
            ("property file.encoding", "UTF-8"),
            ("environment variables", "HOME, JAVA_HOME, MAVEN_OPTS"),
        ]);
        let fast = record(&[
            (
                "jvm input arguments",
                "--add-opens=a -XX:-UsePerfData -XX:SharedArchiveFile=/a.jsa",
            ),
            ("property file.encoding", "UTF-8"),
            ("environment variables", "HOME"),
        ]);
        assert!(compare(&surefire, &fast).unexplained().is_none());
        let mut heap = fast.clone();
        heap.insert(
            "jvm input arguments".into(),
            "--add-opens=a -XX:-UsePerfData -Xmx1g".into(),
        );
        heap.insert("environment variables".into(), "HOME, SECRET".into());
        assert_eq!(
            compare(&surefire, &heap).unexplained().unwrap(),
            "the fidelity probe found the fast path's test JVM unlike Surefire's fork in \
             environment variables, jvm input arguments"
        );
    }

    /// Kept records read back as written, line breaks and tabs in values included.
    #[test]
    fn kept_records_read_back_as_written() {
        let kept = record(&[("a b", "x\ty\nz"), ("working directory", "${basedir}")]);
        assert_eq!(parse_record(&write_record(&kept)), kept);
        let relative = relative_to(record(&[("d", "/w/m/target:/w/m")]), Path::new("/w/m/."));
        assert_eq!(relative["d"], "${basedir}/target:${basedir}");
    }
}
