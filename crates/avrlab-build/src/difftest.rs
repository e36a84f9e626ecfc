//! The differential tester's process side: building the Java helper of `java/difftest` (with the
//! task's JDK, against jqwik and JaCoCo fetched from Maven Central), and running it on three versions of a
//! project — the vulnerable state, the reference fix and a candidate. The tester's JVM runs the
//! vulnerable and the fixed version and compares; the candidate's code runs only in a JVM of its
//! own, in a second sandbox that holds neither the other versions nor the tester's answer, and the
//! two talk over a pair of named pipes. The answer is returned as bounded bytes for the caller to
//! parse, never trusted as a regular file.

use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_core::{UntrustedFileError, read_untrusted_file};
use sha2::{Digest, Sha256};

use crate::maven::{BuildError, Maven, combined_log, last_error_line};
use avrlab_exec::{ExitKind, ProcessError, RunSpec, run};
use avrlab_exec::{Limits, Mount, SandboxKind, SandboxPolicy};

/// The helper's sources, compiled on first use (the binary carries them, as `java/helpers.toml`
/// lists them; nothing prebuilt).
const SOURCES: &[crate::helpers::Source] = crate::helpers::DIFFTEST;

/// The property-based engine whose generators make the inputs (Maven Central; JDK 8 or newer).
pub const JQWIK: &str = "net.jqwik:jqwik-engine:1.9.3";

/// The coverage library that measures which changed lines the inputs reached (Maven Central;
/// 0.8.7 and later read JDK 17 class files; 0.8.16's dependencies are not all served).
pub const JACOCO: &str = "org.jacoco:org.jacoco.core:0.8.15";

/// The largest answer read from the helper; a bigger file is not an answer.
const MAX_ANSWER_BYTES: u64 = 256 << 10;

/// The largest seeds file read from a recording (200 strings of up to 400 characters, escaped).
const MAX_SEEDS_BYTES: u64 = 1 << 20;

/// The helper, built: its classes and its libraries' class path, as the sandbox sees them.
#[derive(Debug, Clone)]
pub struct DiffTester {
    classes: PathBuf,
    classpath: Vec<PathBuf>,
}

/// Why the differential tester could not be built or run (infrastructure, never a verdict).
#[derive(Debug, thiserror::Error)]
pub enum DiffTestError {
    /// Maven could not be driven.
    #[error(transparent)]
    Maven(#[from] BuildError),
    /// A process could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// jqwik or JaCoCo could not be fetched from Maven Central.
    #[error("fetch {JQWIK} and {JACOCO} from Maven Central: {0}")]
    Fetch(String),
    /// The helper did not compile (a bug in avrlab, or a JDK without javac).
    #[error("compile the differential tester: {0}")]
    Build(String),
    /// A file operation failed.
    #[error("use {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> DiffTestError + '_ {
    move |source| DiffTestError::Io {
        path: path.to_owned(),
        source,
    }
}

/// One comparison: the three versions' module folders, what to call, and the bounds.
#[derive(Debug, Clone)]
pub struct DiffTestRequest {
    /// The tested module of the vulnerable state, of the reference fix and of the candidate.
    pub vulnerable: PathBuf,
    pub reference: PathBuf,
    pub candidate: PathBuf,
    /// The main sources' class path (dependencies), as the sandbox sees the repository.
    pub classpath: Vec<PathBuf>,
    /// `(binary class name, method name)` of every method to call (`<init>` for constructors).
    pub targets: Vec<(String, String)>,
    /// Literal values of the task's tests, which seed the generators.
    pub strings: Vec<String>,
    pub numbers: Vec<i64>,
    /// The candidate's changed lines, `(source path under src/main/java, line number)`: the
    /// helper says how many of them the inputs reached.
    pub changed_lines: Vec<(String, u32)>,
    pub seed: u64,
    /// Inputs tried per method, at most.
    pub inputs_per_method: u32,
    /// Wall time for the inputs (compiling the versions comes on top, bounded by the limits).
    pub budget: Duration,
    /// Wall time of one call before it counts as hanging.
    pub call_timeout: Duration,
    /// An empty folder the helper may write (compiled classes, scratch files, its answer).
    pub work: PathBuf,
    /// A folder with the vulnerable and the fixed version's main classes compiled before (by the
    /// task's recording, [`COMPILED_VULNERABLE`] and [`COMPILED_REFERENCE`]), mounted read-only
    /// and used instead of compiling them again; `None`: the helper compiles all three.
    pub compiled: Option<PathBuf>,
}

/// The folders, in a recording's work folder, of the main classes it compiled of the vulnerable
/// version and of the fixed one ([`DiffTestRequest::compiled`]).
pub const COMPILED_VULNERABLE: &str = "classes-vulnerable";
pub const COMPILED_REFERENCE: &str = "classes-reference";

/// How a comparison ended: the helper's exit, its answer if it left one, and its log.
#[derive(Debug)]
pub struct DiffTestRun {
    pub exit: ExitKind,
    /// The answer's bytes, or why none could be read.
    pub answer: Result<Vec<u8>, String>,
    pub log: String,
    pub wall: Duration,
}

/// One recording of the arguments the task's tests pass to the changed methods, on the reference
/// fix's version: its module folder, the tests, and the bounds.
#[derive(Debug, Clone)]
pub struct RecordRequest {
    /// The reference fix's tested module (main and test sources).
    pub module: PathBuf,
    /// The vulnerable state's module: its main sources are compiled too, into
    /// [`COMPILED_VULNERABLE`], for the comparisons to come.
    pub vulnerable: PathBuf,
    /// The module's test class path, as the sandbox sees the repository.
    pub classpath: Vec<PathBuf>,
    /// `(binary class name, method name)` of the methods whose arguments are recorded.
    pub targets: Vec<(String, String)>,
    /// `(test class, test method)` of the PoV tests, run first; an empty method is the class.
    pub pov_tests: Vec<(String, String)>,
    /// Also run the module's other tests, while the budget lasts.
    pub regression: bool,
    /// Wall time for running the tests (compiling comes on top, bounded by the limits).
    pub budget: Duration,
    /// Wall time of one test before it is left behind.
    pub call_timeout: Duration,
    /// An empty folder the helper may write.
    pub work: PathBuf,
}

impl RecordRequest {
    fn render(&self, seeds: &Path) -> String {
        let mut lines = vec![
            "record\t1".to_owned(),
            format!("budget_ms\t{}", self.budget.as_millis()),
            format!("call_ms\t{}", self.call_timeout.as_millis()),
            format!("work\t{}", escape(&self.work.to_string_lossy())),
            format!("result\t{}", escape(&seeds.to_string_lossy())),
            format!("module\t{}", escape(&self.module.to_string_lossy())),
            format!("vulnerable\t{}", escape(&self.vulnerable.to_string_lossy())),
        ];
        lines.extend(
            self.classpath
                .iter()
                .map(|p| format!("classpath\t{}", escape(&p.to_string_lossy()))),
        );
        lines.extend(
            self.targets
                .iter()
                .map(|(class, method)| format!("target\t{}\t{}", escape(class), escape(method))),
        );
        lines.extend(
            self.pov_tests
                .iter()
                .map(|(class, method)| format!("pov_test\t{}\t{}", escape(class), escape(method))),
        );
        if self.regression {
            lines.push("regression\t1".to_owned());
        }
        lines.join("\n") + "\n"
    }
}

/// Escapes a request field: tabs and line breaks would end it.
fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\0' => out.push_str("\\0"),
            c => out.push(c),
        }
    }
    out
}

impl DiffTestRequest {
    /// The request the candidate's JVM reads (`avrlab.difftest.Exec`): its folder and pipes, the
    /// call's limit, the literals (probes and file names), the changed lines whose coverage it
    /// counts, and which class-path entries are the helper's rather than the project's.
    fn render_candidate_jvm(&self, tester: &DiffTester, own: &Path) -> String {
        let mut lines = vec![
            format!("dir\t{}", escape(&own.to_string_lossy())),
            format!("to\t{}", escape(&own.join("to").to_string_lossy())),
            format!("from\t{}", escape(&own.join("from").to_string_lossy())),
            format!("call_ms\t{}", self.call_timeout.as_millis()),
        ];
        lines.extend(
            std::iter::once(&tester.classes)
                .chain(&tester.classpath)
                .map(|p| format!("tester\t{}", escape(&p.to_string_lossy()))),
        );
        lines.extend(
            self.strings
                .iter()
                .map(|s| format!("string\t{}", escape(s))),
        );
        lines.extend(
            self.changed_lines
                .iter()
                .map(|(path, line)| format!("changed\t{}\t{line}", escape(path))),
        );
        lines.join("\n") + "\n"
    }

    /// The request file the helper reads: one `key<TAB>value…` line each.
    fn render(&self, answer: &Path) -> String {
        let mut lines = vec![
            format!("seed\t{}", self.seed),
            format!("inputs\t{}", self.inputs_per_method),
            format!("budget_ms\t{}", self.budget.as_millis()),
            format!("call_ms\t{}", self.call_timeout.as_millis()),
            format!("work\t{}", escape(&self.work.to_string_lossy())),
            format!("result\t{}", escape(&answer.to_string_lossy())),
        ];
        for (name, path, compiled) in [
            ("vulnerable", &self.vulnerable, Some(COMPILED_VULNERABLE)),
            ("reference", &self.reference, Some(COMPILED_REFERENCE)),
            ("candidate", &self.candidate, None),
        ] {
            let mut line = format!("version\t{name}\t{}", escape(&path.to_string_lossy()));
            if let (Some(folder), Some(dir)) = (compiled, &self.compiled) {
                line.push_str(&format!(
                    "\t{}",
                    escape(&dir.join(folder).to_string_lossy())
                ));
            }
            lines.push(line);
        }
        lines.extend(
            self.classpath
                .iter()
                .map(|p| format!("classpath\t{}", escape(&p.to_string_lossy()))),
        );
        lines.extend(
            self.targets
                .iter()
                .map(|(class, method)| format!("target\t{}\t{}", escape(class), escape(method))),
        );
        lines.extend(
            self.strings
                .iter()
                .map(|s| format!("string\t{}", escape(s))),
        );
        lines.extend(self.numbers.iter().map(|n| format!("number\t{n}")));
        lines.extend(
            self.changed_lines
                .iter()
                .map(|(path, line)| format!("changed\t{}\t{line}", escape(path))),
        );
        lines.join("\n") + "\n"
    }
}

impl Maven {
    /// A host path as sandboxed commands see it (the inverse of [`Maven::host_path`]).
    pub fn sandbox_path(&self, host: &Path) -> PathBuf {
        match host.strip_prefix(&self.settings().repository) {
            Ok(rest) => self.repository_view().join(rest),
            Err(_) => host.to_owned(),
        }
    }

    /// Builds the differential tester once per source text and JDK (`<cache>/<fingerprint>`):
    /// resolves jqwik and JaCoCo with Maven (sandboxed, with network, like a warm-up), then
    /// compiles the helper against them.
    pub fn diff_tester(&self, cache: &Path) -> Result<DiffTester, DiffTestError> {
        let mut hasher = Sha256::new();
        hasher.update(JQWIK.as_bytes());
        hasher.update(JACOCO.as_bytes());
        for (name, text) in SOURCES {
            hasher.update(name.as_bytes());
            hasher.update(text.as_bytes());
        }
        hasher.update(self.jdk().home.to_string_lossy().as_bytes());
        hasher.update(self.repository_view().to_string_lossy().as_bytes());
        let dir = cache.join(hex::encode(&hasher.finalize()[..12]));
        let classpath_file = dir.join("classpath.txt");
        if dir.join("complete").is_file() {
            let text = std::fs::read_to_string(&classpath_file).map_err(io(&classpath_file))?;
            let classpath: Vec<PathBuf> = std::env::split_paths(text.trim()).collect();
            if classpath.iter().all(|p| self.host_path(p).is_file()) {
                return Ok(DiffTester {
                    classes: dir.join("classes"),
                    classpath,
                });
            }
        }
        static BUILDS: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let staging = cache.join(format!(
            "staging-{}-{}",
            std::process::id(),
            BUILDS.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&staging);
        // A project of nothing but the dependency, for Maven to resolve (in the module folder
        // Maven commands of this task run in).
        let project = staging.join("resolve");
        // (`.` dropped: `create_dir_all` refuses a path that ends in it.)
        let module: PathBuf = project.join(self.module()).components().collect();
        std::fs::create_dir_all(&module).map_err(io(&module))?;
        let dependencies: String = [JQWIK, JACOCO]
            .iter()
            .map(|coordinates| {
                let mut parts = coordinates.split(':');
                let (group, artifact, version) = (
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                    parts.next().unwrap_or_default(),
                );
                format!(
                    "    <dependency>\n      <groupId>{group}</groupId>\n      <artifactId>{artifact}</artifactId>\n      \
                     <version>{version}</version>\n    </dependency>\n"
                )
            })
            .collect();
        let pom = format!(
            "<project xmlns=\"http://maven.apache.org/POM/4.0.0\">\n  <modelVersion>4.0.0</modelVersion>\n  \
             <groupId>avrlab</groupId>\n  <artifactId>difftest-resolve</artifactId>\n  <version>1</version>\n  \
             <dependencies>\n{dependencies}  </dependencies>\n</project>\n"
        );
        let pom_path = module.join("pom.xml");
        std::fs::write(&pom_path, pom).map_err(io(&pom_path))?;
        let listed = staging.join("classpath.txt");
        let policy = SandboxPolicy {
            mounts: vec![
                self.repository_mount(true),
                Mount::ReadWrite(staging.clone()),
            ],
            network: true,
        };
        let limits = Limits {
            wall: Duration::from_secs(600),
            ..self.settings().limits
        };
        let args = vec![
            "dependency:build-classpath".to_owned(),
            format!("-Dmdep.outputFile={}", listed.display()),
        ];
        let result = run(&self.spec(&project, args, policy, limits))?;
        if !result.exit.success() {
            return Err(DiffTestError::Fetch(last_error_line(&result)));
        }
        let text = std::fs::read_to_string(&listed).map_err(io(&listed))?;
        let classpath: Vec<PathBuf> = std::env::split_paths(text.trim())
            .filter(|p| !p.as_os_str().is_empty())
            .collect();
        let mut javac_args = vec![
            "-nowarn".to_owned(),
            "-proc:none".to_owned(),
            "-encoding".to_owned(),
            "UTF-8".to_owned(),
            "-cp".to_owned(),
            join(&classpath)?,
            "-d".to_owned(),
            staging.join("classes").display().to_string(),
        ];
        for (name, text) in SOURCES {
            let path = staging.join("src").join(name);
            std::fs::create_dir_all(path.parent().expect("a file in a folder"))
                .map_err(io(&path))?;
            std::fs::write(&path, text).map_err(io(&path))?;
            javac_args.push(path.display().to_string());
        }
        let spec = self.staging_tool(self.jdk().home.join("bin/javac"), javac_args, &staging);
        let result = run(&spec)?;
        if !result.exit.success() {
            return Err(DiffTestError::Build(combined_log(&result)));
        }
        let kept = staging.join("classpath.txt");
        std::fs::write(&kept, join(&classpath)?).map_err(io(&kept))?;
        std::fs::write(staging.join("complete"), "").map_err(io(&staging))?;
        let _ = std::fs::remove_dir_all(&dir);
        match std::fs::rename(&staging, &dir) {
            Ok(()) => {}
            Err(_) if dir.join("complete").is_file() => {
                let _ = std::fs::remove_dir_all(&staging);
            }
            Err(e) => return Err(io(&dir)(e)),
        }
        Ok(DiffTester {
            classes: dir.join("classes"),
            classpath,
        })
    }

    /// Runs one comparison in two sandboxes at once. The tester's: the three versions and the
    /// repository read-only, the work folder the only writable place, no network, at most 768 MiB
    /// of heap; it runs the vulnerable and the fixed version and compares. The candidate's JVM
    /// ([`CANDIDATE_JVM`] of the work folder): the candidate's module and the repository
    /// read-only, its own folder (with the two pipes to the tester) writable, no network — it
    /// sees neither the other versions nor the tester's answer.
    pub fn diff_test(
        &self,
        tester: &DiffTester,
        request: &DiffTestRequest,
    ) -> Result<DiffTestRun, DiffTestError> {
        std::fs::create_dir_all(&request.work).map_err(io(&request.work))?;
        let answer = request.work.join("answer.json");
        let own = request.work.join(CANDIDATE_JVM);
        let classes = own.join("classes");
        std::fs::create_dir_all(&classes).map_err(io(&classes))?;
        let (to, from) = (own.join("to"), own.join("from"));
        for pipe in [&to, &from] {
            make_pipe(pipe)?;
        }
        let request_file = request.work.join("request.txt");
        let mut text = request.render(&answer);
        text.push_str(&format!(
            "remote\t{}\t{}\t{}\n",
            escape(&to.to_string_lossy()),
            escape(&from.to_string_lossy()),
            escape(&own.to_string_lossy())
        ));
        std::fs::write(&request_file, text).map_err(io(&request_file))?;
        let exec_file = own.join("request.txt");
        std::fs::write(&exec_file, request.render_candidate_jvm(tester, &own))
            .map_err(io(&exec_file))?;

        let mut classpath = vec![tester.classes.clone(), classes];
        let resources = request.candidate.join("src/main/resources");
        if resources.is_dir() {
            classpath.push(resources);
        }
        classpath.extend(request.classpath.iter().cloned());
        classpath.extend(tester.classpath.iter().cloned());
        let candidate_spec = self.tester_spec(
            TesterJvm {
                main: "avrlab.difftest.Exec",
                classpath,
                heap: "-Xmx512m",
            },
            &exec_file,
            &own,
            vec![
                Mount::ReadOnly(request.candidate.clone()),
                Mount::ReadWrite(own.clone()),
            ],
            request.budget,
        )?;
        let versions = [&request.vulnerable, &request.reference, &request.candidate];
        let mut mounts: Vec<Mount> = versions
            .iter()
            .map(|v| Mount::ReadOnly((*v).clone()))
            .collect();
        if let Some(compiled) = &request.compiled {
            mounts.push(Mount::ReadOnly(compiled.clone()));
        }
        mounts.push(Mount::ReadWrite(request.work.clone()));
        let mut classpath = vec![tester.classes.clone()];
        classpath.extend(tester.classpath.iter().cloned());
        let tester_spec = self.tester_spec(
            TesterJvm {
                main: "avrlab.difftest.Main",
                classpath,
                heap: "-Xmx768m",
            },
            &request_file,
            &request.work,
            mounts,
            request.budget,
        )?;
        // Either side ending lets the other out of a pipe it still waits on (an open, or a read).
        let (run, candidate_run) = std::thread::scope(|scope| {
            let candidate = scope.spawn(|| {
                let result = run(&candidate_spec);
                release_pipes(&to, &from);
                result
            });
            let result = run(&tester_spec);
            release_pipes(&to, &from);
            (result, candidate.join())
        });
        let mut out = self.with_answer(run?, &answer, MAX_ANSWER_BYTES);
        match candidate_run {
            Ok(Ok(candidate)) => {
                let log = combined_log(&candidate);
                if !log.trim().is_empty() {
                    out.log
                        .push_str(&format!("\nthe candidate's JVM: {}", log.trim()));
                }
            }
            Ok(Err(e)) => return Err(e.into()),
            Err(_) => {
                return Err(DiffTestError::Build(
                    "the candidate's JVM's thread panicked".into(),
                ));
            }
        }
        Ok(out)
    }

    /// Records the arguments the task's tests pass to the changed methods, in the sandbox as
    /// [`Maven::diff_test`] runs: the reference module and the repository read-only, the work
    /// folder the only writable place, no network. The answer is the seeds file's bytes
    /// (`string`/`number` lines), for the caller to parse as untrusted: the tests ran the
    /// project's code.
    pub fn diff_record(
        &self,
        tester: &DiffTester,
        request: &RecordRequest,
    ) -> Result<DiffTestRun, DiffTestError> {
        std::fs::create_dir_all(&request.work).map_err(io(&request.work))?;
        let seeds = request.work.join("seeds.txt");
        let request_file = request.work.join("record.txt");
        std::fs::write(&request_file, request.render(&seeds)).map_err(io(&request_file))?;
        let run = self.run_tester(
            tester,
            &request_file,
            &request.work,
            &[&request.module, &request.vulnerable],
            request.budget,
        )?;
        Ok(self.with_answer(run, &seeds, MAX_SEEDS_BYTES))
    }

    /// Runs the helper on a request file, with `versions` mounted read-only and `work` writable;
    /// `budget` plus two minutes of wall time (compiling and starting the JVM come on top).
    fn run_tester(
        &self,
        tester: &DiffTester,
        request_file: &Path,
        work: &Path,
        versions: &[&PathBuf],
        budget: Duration,
    ) -> Result<avrlab_exec::ProcessResult, DiffTestError> {
        let mut classpath = vec![tester.classes.clone()];
        classpath.extend(tester.classpath.iter().cloned());
        let mut mounts: Vec<Mount> = versions
            .iter()
            .map(|v| Mount::ReadOnly((*v).clone()))
            .collect();
        mounts.push(Mount::ReadWrite(work.to_owned()));
        let spec = self.tester_spec(
            TesterJvm {
                main: "avrlab.difftest.Main",
                classpath,
                heap: "-Xmx768m",
            },
            request_file,
            work,
            mounts,
            budget,
        )?;
        Ok(run(&spec)?)
    }

    /// How one of the helper's JVMs is run: in the sandbox, the repository and the helper's
    /// classes read-only besides `mounts`, no network, `budget` plus two minutes of wall time.
    fn tester_spec(
        &self,
        jvm: TesterJvm,
        request_file: &Path,
        work: &Path,
        mounts: Vec<Mount>,
        budget: Duration,
    ) -> Result<RunSpec, DiffTestError> {
        let home = match self.settings().sandbox {
            SandboxKind::Bubblewrap => "/tmp".to_owned(),
            SandboxKind::None => std::env::temp_dir().to_string_lossy().into_owned(),
        };
        let mut all = vec![self.repository_mount(false)];
        all.extend(
            jvm.classpath
                .first()
                .map(|classes| Mount::ReadOnly(classes.clone())),
        );
        all.extend(mounts);
        let limits = Limits {
            wall: budget + Duration::from_secs(120),
            memory_bytes: 1 << 30,
            ..self.settings().limits
        };
        Ok(RunSpec {
            program: self.jdk().home.join("bin/java"),
            args: vec![
                "-XX:+DisableAttachMechanism".to_owned(),
                "-XX:-UsePerfData".to_owned(),
                "-XX:+UseSerialGC".to_owned(),
                "-XX:TieredStopAtLevel=1".to_owned(),
                jvm.heap.to_owned(),
                "-Xss4m".to_owned(),
                "-cp".to_owned(),
                join(&jvm.classpath)?,
                jvm.main.to_owned(),
                request_file.display().to_string(),
            ],
            cwd: work.to_owned(),
            env: vec![
                ("HOME".into(), home),
                ("LANG".into(), "C.UTF-8".into()),
                (
                    "PATH".into(),
                    format!("{}/bin:/usr/bin:/bin", self.jdk().home.display()),
                ),
            ]
            .into_iter()
            .chain(self.java_launcher_env())
            .collect(),
            sandbox: self.settings().sandbox,
            policy: self.with_toolchain(SandboxPolicy {
                mounts: all,
                network: false,
            }),
            limits,
            stdin: Vec::new(),
        })
    }

    /// The run with the bytes of the file the helper left (at most `max` of them), or why none
    /// could be read.
    fn with_answer(
        &self,
        result: avrlab_exec::ProcessResult,
        answer: &Path,
        max: u64,
    ) -> DiffTestRun {
        let answer = match read_untrusted_file(answer, max) {
            Ok(file) => Ok(file.bytes),
            Err(UntrustedFileError::Io(e)) if e.kind() == std::io::ErrorKind::NotFound => {
                Err("the differential tester left no answer".to_owned())
            }
            Err(e) => Err(format!("the answer file cannot be read: {e}")),
        };
        DiffTestRun {
            exit: result.exit,
            answer,
            log: combined_log(&result),
            wall: result.wall,
        }
    }
}

/// The candidate's JVM's own folder in a comparison's work folder: its classes, its scratch
/// files, its request and the two pipes to the tester.
pub const CANDIDATE_JVM: &str = "candidate-jvm";

/// One of the helper's JVMs: its main class, class path and heap.
struct TesterJvm {
    main: &'static str,
    classpath: Vec<PathBuf>,
    heap: &'static str,
}

/// A named pipe between the tester and the candidate's JVM.
fn make_pipe(path: &Path) -> Result<(), DiffTestError> {
    let _ = std::fs::remove_file(path);
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes())
        .map_err(|e| DiffTestError::Build(format!("a pipe's path: {e}")))?;
    // SAFETY: mkfifo reads a NUL-terminated path that outlives the call.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(io(path)(std::io::Error::last_os_error()));
    }
    Ok(())
}

/// Lets whoever still waits on the pipes out: a side blocked opening one gets its partner (which
/// leaves at once), a side reading one gets the end of it.
fn release_pipes(to: &Path, from: &Path) {
    use std::os::unix::fs::OpenOptionsExt;
    for (path, write) in [(to, false), (to, true), (from, false), (from, true)] {
        let _ = std::fs::OpenOptions::new()
            .read(!write)
            .write(write)
            .custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW)
            .open(path);
    }
}

fn join(paths: &[PathBuf]) -> Result<String, DiffTestError> {
    std::env::join_paths(paths)
        .map(|p| p.to_string_lossy().into_owned())
        .map_err(|e| DiffTestError::Build(e.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_fields_keep_tabs_and_line_breaks_inside_one_line() {
        let request = DiffTestRequest {
            vulnerable: "/v".into(),
            reference: "/r".into(),
            candidate: "/c".into(),
            classpath: vec![],
            targets: vec![("a.B".into(), "m".into())],
            strings: vec!["x\ty\r\nz\\".into()],
            numbers: vec![-3],
            changed_lines: vec![("a/B.java".into(), 12)],
            seed: 7,
            inputs_per_method: 10,
            budget: Duration::from_secs(2),
            call_timeout: Duration::from_millis(500),
            work: "/w".into(),
            compiled: None,
        };
        let text = request.render(Path::new("/w/answer.json"));
        assert!(text.contains("version\tvulnerable\t/v\n"), "{text}");
        assert!(text.contains("string\tx\\ty\\r\\nz\\\\\n"), "{text}");
        assert!(text.contains("target\ta.B\tm\n"));
        assert!(text.contains("number\t-3\n"));
        assert!(text.contains("budget_ms\t2000\n"));
        assert!(text.contains("changed\ta/B.java\t12\n"));
        // The versions compiled before come as their classes' folders; the candidate never does.
        let compiled = DiffTestRequest {
            compiled: Some("/rec".into()),
            ..request
        }
        .render(Path::new("/w/answer.json"));
        assert!(
            compiled.contains("version\tvulnerable\t/v\t/rec/classes-vulnerable\n"),
            "{compiled}"
        );
        assert!(compiled.contains("version\treference\t/r\t/rec/classes-reference\n"));
        assert!(compiled.contains("version\tcandidate\t/c\n"));
    }
}
