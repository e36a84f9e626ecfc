//! Everything in avrlab that starts a process goes through this crate: the bubblewrap sandbox and
//! its resource limits, timeouts that kill whole process trees, output caps, resident processes
//! spoken to over pipes, JDK discovery, git checkouts, the Slurm scheduler and the headless
//! browser that checks HTML reports. The build tools it runs are `avrlab-build`'s.

mod browser;
mod cgroup;
mod disk;
mod git;
mod jdk;
mod process;
mod removal;
mod resident;
mod sandbox;
mod seccomp;
mod slurm;

pub use browser::{BrowserError, HeadlessPage, find_browser, render_headless};
pub use cgroup::cgroup_delegation;
pub use disk::available_bytes;
pub use git::{
    GitError, Repository, checkout_git_project, export_folder, fetch_mirror, find_mirror,
    init_state_repository, mirror_path, repo_slug,
};
pub use jdk::{Jdk, JdkError, find_jdk, installed_jdks, installed_runtimes, runtime_at};
pub use process::{
    Activity, AttachedEnd, CPU_LIMIT_EXIT, CapturedOutput, ExitKind, ProcessError, ProcessResult,
    RunSpec, run, run_attached, run_with_activity,
};
pub use removal::{RemovalError, remove_tree};
pub use resident::{ProcessEnd, ReadLine, ResidentProcess};
pub use sandbox::{
    Limits, Mount, SandboxError, SandboxKind, SandboxPolicy, check_sandbox, find_on_path,
};
pub use slurm::{JobState, Scheduler, SlurmCli, SlurmError};
