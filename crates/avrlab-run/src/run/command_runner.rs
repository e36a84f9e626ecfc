//! The command model's programs (coding agents, scripts) run through `avrlab-exec`, in the same
//! bubblewrap sandbox as candidates: they are untrusted code too (an agent executes what a model
//! wrote, and may try to read the fix from the task's history or the user's files).
//!
//! A program sees the system folders, its own executable, the prompt file, the read-only paths
//! its configuration names, and its workspace (workdir mode) or nothing writable but a private
//! `/tmp` (stdin mode). Its environment is built from nothing: `PATH`, `HOME` (in the private
//! `/tmp`), `LANG`, `TMPDIR`, the variables its configuration passes by name (a provider key),
//! and avrlab's `AVRLAB_*` variables. It has network only when its configuration asks for it.

use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_exec::{
    ExitKind, Limits, Mount, RunSpec, SandboxKind, SandboxPolicy, init_state_repository,
    remove_tree, run,
};
use avrlab_model::{CommandExit, CommandOutput, CommandRunner, CommandSpec};

/// The sandbox a command model's program runs in.
#[derive(Debug, Clone)]
pub struct AgentSandbox {
    /// Bubblewrap, or none when the user turned the sandbox off for everything (`--sandbox none`).
    pub kind: SandboxKind,
    /// Share the host's network (an agent that calls a remote model needs it).
    pub network: bool,
    /// Variables passed to the program, with their values (read from avrlab's environment when
    /// the model was set up); nothing else of avrlab's environment reaches it.
    pub env: Vec<(String, String)>,
    /// Host paths the program may read (its own scripts, a model file), at their own paths.
    pub read_only: Vec<PathBuf>,
}

/// Runs command-model programs with `avrlab-exec`, in an [`AgentSandbox`].
#[derive(Debug, Clone)]
pub struct ExecRunner {
    sandbox: AgentSandbox,
}

/// The folders programs are looked up in, inside the sandbox (all under `/usr` or linked there).
const SANDBOX_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Where a program runs when it has no workspace: inside the sandbox, its private in-memory
/// `/tmp`, gone with the run.
const SCRATCH: &str = "/tmp";

impl ExecRunner {
    /// A runner for programs confined as `sandbox` says.
    pub fn new(sandbox: AgentSandbox) -> Self {
        Self { sandbox }
    }

    /// The program as a path the sandbox shows, and the mount that shows it (none for programs
    /// under `/usr`, which the sandbox shows anyway).
    fn program(&self, program: &str) -> Result<(PathBuf, Option<Mount>), String> {
        let path = if program.contains('/') {
            let cwd = std::env::current_dir()
                .map_err(|e| format!("cannot resolve {program}: no working directory ({e})"))?;
            cwd.join(program)
        } else {
            let search = std::env::var_os("PATH").unwrap_or_else(|| SANDBOX_PATH.into());
            std::env::split_paths(&search)
                .map(|dir| dir.join(program))
                .find(|p| p.is_file())
                .ok_or_else(|| format!("{program} is not on PATH"))?
        };
        let real = path
            .canonicalize()
            .map_err(|e| format!("cannot find {}: {e}", path.display()))?;
        if real.starts_with("/usr") {
            // Run it by the name it was found under (a multi-call program looks at its name);
            // the sandbox has the same links into /usr as the host.
            Ok((path, None))
        } else {
            Ok((real.clone(), Some(Mount::ReadOnly(real))))
        }
    }
}

impl CommandRunner for ExecRunner {
    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, String> {
        let (program, program_mount) = self.program(spec.program)?;
        let mut env: Vec<(String, String)> = vec![
            ("PATH".into(), SANDBOX_PATH.into()),
            ("HOME".into(), SCRATCH.into()),
            ("TMPDIR".into(), SCRATCH.into()),
            ("LANG".into(), "C.UTF-8".into()),
        ];
        env.extend(self.sandbox.env.iter().cloned());
        env.extend(spec.env.iter().cloned());
        let mut mounts = Vec::new();
        let cwd = match spec.cwd {
            Some(workspace) => {
                mounts.push(Mount::ReadWrite(workspace.to_owned()));
                workspace.to_owned()
            }
            None => PathBuf::from(SCRATCH),
        };
        mounts.extend(spec.inputs.iter().map(|p| Mount::ReadOnly(p.to_path_buf())));
        mounts.extend(self.sandbox.read_only.iter().cloned().map(Mount::ReadOnly));
        mounts.extend(program_mount);
        let result = run(&RunSpec {
            program,
            args: spec.args.to_vec(),
            cwd,
            env,
            sandbox: self.sandbox.kind,
            policy: SandboxPolicy {
                mounts,
                network: self.sandbox.network,
            },
            limits: Limits {
                wall: spec.timeout,
                // The wall clock bounds the run; each process may use the CPU all that time.
                cpu: spec.timeout.max(Duration::from_secs(1)),
                output_bytes: spec.output_limit,
                ..Limits::default()
            },
            stdin: spec.stdin.to_vec(),
        })
        .map_err(|e| error_text(&e))?;
        let exit = match result.exit {
            ExitKind::Code(code) => CommandExit::Code(code),
            ExitKind::Signal(signal) => CommandExit::Signal(signal),
            // No idle limit is set for these commands (a model may think quietly), so a command
            // killed as idle could only have been killed for its time.
            ExitKind::TimedOut | ExitKind::Idle { .. } => CommandExit::TimedOut,
            ExitKind::OutputLimit => CommandExit::OutputLimit,
            ExitKind::DiskLimit => CommandExit::DiskLimit,
        };
        Ok(CommandOutput {
            exit,
            stdout: result.stdout.text().into_bytes(),
            stderr: result.stderr.text().into_bytes(),
        })
    }

    fn init_repository(&self, dir: &Path) -> Result<(), String> {
        init_state_repository(dir, self.sandbox.kind).map_err(|e| error_text(&e))
    }

    fn remove_workspace(&self, dir: &Path) -> Result<(), String> {
        remove_tree(dir, self.sandbox.kind).map_err(|e| error_text(&e))
    }
}

/// An error and its source, as one sentence.
fn error_text(error: &dyn std::error::Error) -> String {
    let mut text = error.to_string();
    if let Some(source) = error.source() {
        text.push_str(&format!(": {source}"));
    }
    text
}
