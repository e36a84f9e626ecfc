//! The build tools avrlab drives and what it adds to them: the Maven, Gradle and Ant drivers
//! (warm-ups, compiles, test runs, their logs and Surefire reports), the fast path's helper JVMs
//! (compiler, test JVM, fidelity probe), the differential tester's helper JVM, and the repairs
//! that let old projects build on today's JDK (language levels, removed platform APIs, older
//! plug-ins, Lombok, snapshots). Every process starts through `avrlab-exec`.

mod access;
mod ant;
mod build_log;
mod build_tool;
mod difftest;
mod fastpath;
mod fidelity;
mod fork_relay;
mod gradle;
mod helpers;
mod levels;
mod lombok;
mod maven;
mod older_api;
mod pom_versions;
mod reactor;
mod self_installs;
mod snapshots;
mod surefire;
mod tools;

pub use ant::Ant;
pub use build_log::{Hang, compile_error_files};
pub use build_tool::BuildTool;
pub use difftest::{
    COMPILED_REFERENCE, COMPILED_VULNERABLE, DiffTestError, DiffTestRequest, DiffTestRun,
    DiffTester, JQWIK, RecordRequest,
};
pub use fastpath::{
    ARCHIVE_FILE, CANDIDATE_FOLDERS, CompileReply, CompileRequest, CompiledClasses,
    CompilerSession, FastBuild, FastPathError, FastPhase, FastReply, Lost, PhaseEnd, Recorded,
    RegressionRun, RegressionScope, RunRequest, TestClassLoads, TestJvm, TestJvmRole, Unsupported,
};
pub use fidelity::{PROBE_CLASS, ProbeRecord, probe_key, probe_record};
pub use gradle::{GRADLE_TEST_RUNS, Gradle};
pub use maven::{
    BuildError, BuildSettings, COMMAND_LINE_ADAPTATIONS, CompileResult, Maven, OPTIONAL_REPAIRS,
    TEST_TMPDIR, TestRun, TestSelection, WarmUp, adapt_build_files, apply_optional_repairs,
    compiler_diagnostics, plan_older_api,
};
pub use surefire::{ReportError, TestCaseResult, TestStatus, read_reports};
pub use tools::build_tool;
