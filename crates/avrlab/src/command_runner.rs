//! The command model's programs (coding agents, scripts) run through `avrlab-exec`, with a
//! timeout that kills their whole process tree and an output cap. They are the user's own tools,
//! not candidates: they keep the user's environment (API keys) and network, unsandboxed.

use std::path::PathBuf;

use avrlab_exec::{ExitKind, Limits, RunSpec, SandboxKind, SandboxPolicy, run};
use avrlab_model::{CommandExit, CommandOutput, CommandRunner, CommandSpec};

/// Runs command-model programs with `avrlab-exec`.
#[derive(Debug, Clone, Copy, Default)]
pub struct ExecRunner;

impl CommandRunner for ExecRunner {
    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, String> {
        let mut env: Vec<(String, String)> = std::env::vars().collect();
        env.extend(spec.env.iter().cloned());
        let cwd = spec.cwd.map_or_else(std::env::temp_dir, PathBuf::from);
        let result = run(&RunSpec {
            program: PathBuf::from(spec.program),
            args: spec.args.to_vec(),
            cwd,
            env,
            sandbox: SandboxKind::None,
            policy: SandboxPolicy::default(),
            limits: Limits {
                wall: spec.timeout,
                output_bytes: spec.output_limit,
                ..Limits::default()
            },
            stdin: spec.stdin.to_vec(),
        })
        .map_err(|e| {
            let mut text = e.to_string();
            if let Some(source) = std::error::Error::source(&e) {
                text.push_str(&format!(": {source}"));
            }
            text
        })?;
        let exit = match result.exit {
            ExitKind::Code(code) => CommandExit::Code(code),
            ExitKind::Signal(signal) => CommandExit::Signal(signal),
            ExitKind::TimedOut => CommandExit::TimedOut,
            ExitKind::OutputLimit => CommandExit::OutputLimit,
            ExitKind::DiskLimit => CommandExit::DiskLimit,
        };
        Ok(CommandOutput {
            exit,
            stdout: result.stdout.text().into_bytes(),
            stderr: result.stderr.text().into_bytes(),
        })
    }
}
