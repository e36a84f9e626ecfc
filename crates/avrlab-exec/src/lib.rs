//! Everything in avrlab that starts a process goes through this crate: the bubblewrap sandbox and
//! its resource limits, timeouts that kill whole process trees, output caps, JDK discovery, the
//! Maven driver, the differential tester's helper JVM, Surefire report parsing, git checkouts, and the headless browser that checks HTML
//! reports.

mod access;
mod ant;
mod browser;
mod build_log;
mod build_tool;
mod cgroup;
mod difftest;
mod disk;
mod fastpath;
mod fidelity;
mod fork_relay;
mod git;
mod gradle;
mod jdk;
mod levels;
mod lombok;
mod maven;
mod older_api;
mod pom_versions;
mod process;
mod reactor;
mod removal;
mod resident;
mod sandbox;
mod seccomp;
mod slurm;
mod snapshots;
mod surefire;
mod tools;

pub use ant::Ant;
pub use browser::{BrowserError, HeadlessPage, find_browser, render_headless};
pub use build_log::Hang;
pub use build_tool::BuildTool;
pub use cgroup::cgroup_delegation;
pub use difftest::{
    COMPILED_REFERENCE, COMPILED_VULNERABLE, DiffTestError, DiffTestRequest, DiffTestRun,
    DiffTester, JQWIK, RecordRequest,
};
pub use disk::available_bytes;
pub use fastpath::{
    ARCHIVE_FILE, CANDIDATE_FOLDERS, CompileReply, CompileRequest, CompiledClasses,
    CompilerSession, FastBuild, FastPathError, FastPhase, FastReply, Lost, PhaseEnd, Recorded,
    RegressionRun, RegressionScope, RunRequest, TestClassLoads, TestJvm, TestJvmRole, Unsupported,
};
pub use fidelity::{PROBE_CLASS, ProbeRecord, probe_key, probe_record};
pub use git::{
    GitError, Repository, checkout_git_project, export_folder, fetch_mirror, find_mirror,
    init_state_repository, mirror_path, repo_slug,
};
pub use gradle::{GRADLE_TEST_RUNS, Gradle};
pub use jdk::{Jdk, JdkError, find_jdk, installed_jdks, installed_runtimes};
pub use maven::{
    BuildError, BuildSettings, COMMAND_LINE_ADAPTATIONS, CompileResult, Maven, OPTIONAL_REPAIRS,
    TEST_TMPDIR, TestRun, TestSelection, WarmUp, adapt_build_files, apply_optional_repairs,
    compiler_diagnostics, plan_older_api,
};
pub use process::{
    CPU_LIMIT_EXIT, CapturedOutput, ExitKind, ProcessError, ProcessResult, RunSpec, run,
};
pub use removal::{RemovalError, remove_tree};
pub use resident::{ProcessEnd, ReadLine, ResidentProcess};
pub use sandbox::{Limits, Mount, SandboxError, SandboxKind, SandboxPolicy, check_sandbox};
pub use slurm::{JobState, Scheduler, SlurmCli, SlurmError};
pub use surefire::{ReportError, TestCaseResult, TestStatus, read_reports};
pub use tools::build_tool;
