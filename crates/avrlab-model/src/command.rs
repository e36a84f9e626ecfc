//! The `command` model, the door for coding agents: a user's command reads the prompt on stdin and
//! its stdout is the generation; or, in workdir mode, it runs in a fresh copy of the task's state
//! and the unified diff of what it changed there is the generation.
//!
//! Processes are spawned only by `avrlab-exec`, which this crate must not depend on; so the command
//! model runs its program through a [`CommandRunner`] that the caller provides (the CLI passes one
//! backed by `avrlab-exec`, which runs the program in the candidates' sandbox with a cleared
//! environment, a timeout and a process-tree kill).

use std::fmt;
use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, Instant};

use avrlab_prompt::Prompt;

use crate::cost::ReportedUsage;
use crate::model::{FinishReason, Generation, Model, ModelError, Request};
use crate::snapshot::{ReadLimits, Snapshot};

/// Bytes of the command's standard error kept in an error message.
const STDERR_IN_ERROR: usize = 2000;

/// One run that a [`CommandRunner`] is asked for.
#[derive(Debug, Clone, Copy)]
pub struct CommandSpec<'a> {
    /// The program, as the user named it.
    pub program: &'a str,
    /// Its arguments.
    pub args: &'a [String],
    /// What to write to its standard input (then closed).
    pub stdin: &'a [u8],
    /// The workspace to run it in, the only host folder it may write; `None` for a scratch
    /// folder of the runner's choice that does not outlive the run.
    pub cwd: Option<&'a Path>,
    /// Host files the program may read (the prompt file), at their own paths.
    pub inputs: &'a [&'a Path],
    /// Variables to set in its environment, beside the runner's own.
    pub env: &'a [(String, String)],
    /// Past this wall-clock time the runner kills the program with its whole process tree.
    pub timeout: Duration,
    /// Past this many bytes of stdout plus stderr the runner kills the program with its tree.
    pub output_limit: u64,
}

/// How a run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CommandExit {
    /// The program exited with this code.
    Code(i32),
    /// A signal ended it.
    Signal(i32),
    /// It ran past its timeout and was killed with its process tree.
    TimedOut,
    /// It printed more than its output limit and was killed with its process tree.
    OutputLimit,
    /// It filled the disk past its limit and was killed with its process tree.
    DiskLimit,
}

impl fmt::Display for CommandExit {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Self::Code(code) => write!(f, "code {code}"),
            Self::Signal(signal) => write!(f, "signal {signal}"),
            Self::TimedOut => f.write_str("a timeout"),
            Self::OutputLimit => f.write_str("the output limit"),
            Self::DiskLimit => f.write_str("the disk limit"),
        }
    }
}

/// What a run left.
#[derive(Debug, Clone)]
pub struct CommandOutput {
    /// How it ended.
    pub exit: CommandExit,
    /// Its standard output, from the start (up to the output limit).
    pub stdout: Vec<u8>,
    /// Its standard error (the runner may keep only part of it).
    pub stderr: Vec<u8>,
}

/// Runs programs for the command model; the CLI implements it with `avrlab-exec`.
pub trait CommandRunner: Send + Sync {
    /// Runs `spec` to its end, its timeout or its output limit. `Err` means the program could not be
    /// run at all (not found, sandbox unavailable), with a sentence saying why.
    fn run(&self, spec: &CommandSpec<'_>) -> Result<CommandOutput, String>;

    /// Turns `dir`, a fresh copy of a task state, into a git repository of one commit holding
    /// exactly that state (no other ref, object or reflog entry), so that an agent that reads the
    /// history finds nothing of the task's later commits.
    fn init_repository(&self, dir: &Path) -> Result<(), String>;

    /// Removes `dir`, a workspace that the program wrote (so possibly made unreadable or
    /// unreasonably deep).
    fn remove_workspace(&self, dir: &Path) -> Result<(), String>;
}

/// Where the command works and what its generation is.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandMode {
    /// The prompt on stdin; the generation is stdout.
    Stdin,
    /// The prompt on stdin too, but the command runs in a fresh copy of the request's workspace
    /// ([`Request::workspace`], the task state), made a one-commit git repository, and the
    /// generation is the unified diff of the files it changed there. Every sample gets its own
    /// copy, removed afterwards; the caller's workspace is only read.
    Workdir {
        /// Directory names not snapshotted, wherever they are (build outputs, `.git`).
        ignore: Vec<String>,
    },
}

impl CommandMode {
    /// Workdir mode ignoring `.git` directories only.
    pub fn workdir() -> Self {
        Self::Workdir {
            ignore: vec![".git".to_owned()],
        }
    }
}

/// A command model's configuration.
#[derive(Debug, Clone)]
pub struct CommandModelConfig {
    /// The program to run.
    pub program: String,
    /// Its arguments.
    pub args: Vec<String>,
    /// Stdin/stdout or workdir/diff.
    pub mode: CommandMode,
    /// The wall-clock limit of one run.
    pub timeout: Duration,
    /// The most bytes of stdout plus stderr one run may print.
    pub output_limit: u64,
    /// What one sample may cost (`max_cost_per_sample`), handed to the program in
    /// `AVRLAB_MAX_COST_USD` so that it can hold itself to it.
    pub max_cost_usd: Option<f64>,
}

impl CommandModelConfig {
    /// `program args…` in stdin mode, with a 10-minute timeout and a 16 MiB output limit.
    pub fn new(program: impl Into<String>, args: Vec<String>) -> Self {
        Self {
            program: program.into(),
            args,
            mode: CommandMode::Stdin,
            timeout: Duration::from_secs(600),
            output_limit: 16 << 20,
            max_cost_usd: None,
        }
    }
}

/// A user's command as a model. Each sample is one run; the program sees the prompt on stdin and in
/// the file named by `AVRLAB_PROMPT_FILE`, the prompt id in `AVRLAB_PROMPT_ID`, the sample index
/// in `AVRLAB_SAMPLE` and, when the model has one, its cost cap in `AVRLAB_MAX_COST_USD`. It
/// reports what it spent on a line of its standard error (see [`ReportedUsage`]).
pub struct CommandModel {
    config: CommandModelConfig,
    runner: Arc<dyn CommandRunner>,
}

impl fmt::Debug for CommandModel {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CommandModel")
            .field("config", &self.config)
            .finish_non_exhaustive()
    }
}

impl CommandModel {
    /// A model that runs `config`'s command through `runner`.
    pub fn new(config: CommandModelConfig, runner: Arc<dyn CommandRunner>) -> Self {
        Self { config, runner }
    }

    /// The configuration.
    pub fn config(&self) -> &CommandModelConfig {
        &self.config
    }

    /// The text the command reads: a completion prompt as it is; a chat as its messages' contents,
    /// system message first, separated by blank lines.
    pub fn prompt_text(prompt: &Prompt) -> String {
        match prompt {
            Prompt::Completion { prompt, .. } => prompt.clone(),
            Prompt::Chat { messages } => messages
                .iter()
                .map(|m| m.content.as_str())
                .collect::<Vec<_>>()
                .join("\n\n"),
        }
    }

    fn unavailable(&self, reason: impl fmt::Display) -> ModelError {
        ModelError::CommandUnavailable {
            program: self.config.program.clone(),
            reason: reason.to_string(),
        }
    }

    /// One run; its output once it exited with code 0 (or hit the output limit, which the caller
    /// judges), else the error it amounts to.
    fn run_once(
        &self,
        stdin: &[u8],
        cwd: Option<&Path>,
        inputs: &[&Path],
        env: &[(String, String)],
    ) -> Result<CommandOutput, ModelError> {
        let spec = CommandSpec {
            program: &self.config.program,
            args: &self.config.args,
            stdin,
            cwd,
            inputs,
            env,
            timeout: self.config.timeout,
            output_limit: self.config.output_limit,
        };
        let output = self
            .runner
            .run(&spec)
            .map_err(|reason| self.unavailable(reason))?;
        match output.exit {
            CommandExit::Code(0) | CommandExit::OutputLimit => Ok(output),
            CommandExit::TimedOut => Err(ModelError::CommandTimeout {
                program: self.config.program.clone(),
                timeout: self.config.timeout,
            }),
            exit @ (CommandExit::Code(_) | CommandExit::Signal(_) | CommandExit::DiskLimit) => {
                Err(ModelError::CommandFailed {
                    program: self.config.program.clone(),
                    status: exit.to_string(),
                    stderr: stderr_tail(&output.stderr),
                })
            }
        }
    }

    /// One sample in workdir mode: copy the task state into a fresh one-commit repository, run
    /// the program there, diff what it left against the state, remove the copy.
    fn run_in_workspace(
        &self,
        state: &Path,
        ignore: &[String],
        stdin: &[u8],
        inputs: &[&Path],
        env: &[(String, String)],
    ) -> Result<(String, FinishReason, Option<ReportedUsage>), ModelError> {
        let before = Snapshot::take(state, ignore).map_err(|e| {
            self.unavailable(format!(
                "cannot read the task state {}: {e}",
                state.display()
            ))
        })?;
        let workspace = tempfile::Builder::new()
            .prefix("avrlab-agent-")
            .tempdir()
            .map_err(|e| self.unavailable(format!("cannot create a workspace: {e}")))?
            .keep();
        let result = self.run_in_copy(&before, &workspace, ignore, stdin, inputs, env);
        // However the run ended, the copy goes (through the runner: the program may have made
        // parts of it unreadable).
        let removed = self.runner.remove_workspace(&workspace);
        let (diff, usage) = result?;
        removed.map_err(|e| {
            self.unavailable(format!(
                "cannot remove the workspace {}: {e}",
                workspace.display()
            ))
        })?;
        Ok((diff, FinishReason::Stop, usage))
    }

    fn run_in_copy(
        &self,
        before: &Snapshot,
        workspace: &Path,
        ignore: &[String],
        stdin: &[u8],
        inputs: &[&Path],
        env: &[(String, String)],
    ) -> Result<(String, Option<ReportedUsage>), ModelError> {
        before.write_to(workspace).map_err(|e| {
            self.unavailable(format!(
                "cannot write the workspace {}: {e}",
                workspace.display()
            ))
        })?;
        self.runner.init_repository(workspace).map_err(|e| {
            self.unavailable(format!("cannot make the workspace a repository: {e}"))
        })?;
        let output = self.run_once(stdin, Some(workspace), inputs, env)?;
        if output.exit == CommandExit::OutputLimit {
            // The program was killed mid-way: its edits may be half made.
            return Err(ModelError::CommandFailed {
                program: self.config.program.clone(),
                status: output.exit.to_string(),
                stderr: stderr_tail(&output.stderr),
            });
        }
        // What the program left is untrusted: read without following links, within limits.
        let after =
            Snapshot::take_hostile(workspace, ignore, &ReadLimits::default()).map_err(|e| {
                ModelError::CommandFailed {
                    program: self.config.program.clone(),
                    status: format!("a workspace that cannot be read as a task state ({e})"),
                    stderr: stderr_tail(&output.stderr),
                }
            })?;
        let usage = ReportedUsage::from_stderr(&String::from_utf8_lossy(&output.stderr));
        Ok((before.diff_to(&after), usage))
    }
}

impl Model for CommandModel {
    fn cache_identity(&self) -> String {
        let mode = match &self.config.mode {
            CommandMode::Stdin => "stdin".to_owned(),
            CommandMode::Workdir { ignore } => format!("workdir[{}]", ignore.join(",")),
        };
        let mut identity = format!("command|{mode}|{}", self.config.program);
        for arg in &self.config.args {
            identity.push('|');
            identity.push_str(arg);
        }
        identity
    }

    /// Exactly `n` samples, one run each; a run that fails fails the request.
    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let text = Self::prompt_text(request.prompt);
        let mut prompt_file = tempfile::Builder::new()
            .prefix("avrlab-prompt-")
            .suffix(".txt")
            .tempfile()
            .map_err(|e| self.unavailable(format!("cannot create the prompt file: {e}")))?;
        prompt_file
            .write_all(text.as_bytes())
            .and_then(|()| prompt_file.flush())
            .map_err(|e| self.unavailable(format!("cannot write the prompt file: {e}")))?;
        let prompt_path = prompt_file.path().display().to_string();
        let inputs = [prompt_file.path()];

        let mut generations = Vec::with_capacity(request.params.n as usize);
        for sample in request.first_sample..request.first_sample + request.params.n {
            let mut env = vec![
                ("AVRLAB_PROMPT_FILE".to_owned(), prompt_path.clone()),
                ("AVRLAB_PROMPT_ID".to_owned(), request.prompt_id.to_owned()),
                ("AVRLAB_SAMPLE".to_owned(), sample.to_string()),
            ];
            if let Some(cap) = self.config.max_cost_usd {
                env.push(("AVRLAB_MAX_COST_USD".to_owned(), cap.to_string()));
            }
            let started = Instant::now();
            let (text, finish_reason, usage) = match &self.config.mode {
                CommandMode::Stdin => {
                    let output = self.run_once(text.as_bytes(), None, &inputs, &env)?;
                    let finish_reason = if output.exit == CommandExit::OutputLimit {
                        FinishReason::Length
                    } else {
                        FinishReason::Stop
                    };
                    (
                        String::from_utf8_lossy(&output.stdout).into_owned(),
                        finish_reason,
                        ReportedUsage::from_stderr(&String::from_utf8_lossy(&output.stderr)),
                    )
                }
                CommandMode::Workdir { ignore } => {
                    let workspace = request.workspace.ok_or(ModelError::WorkspaceRequired(
                        "the command model in workdir mode",
                    ))?;
                    self.run_in_workspace(workspace, ignore, text.as_bytes(), &inputs, &env)?
                }
            };
            // The agent's own account of what it spent, on its documented stderr line; an agent
            // that prints none has an unknown cost (not 0).
            let usage = usage.unwrap_or_default();
            generations.push(Generation {
                text,
                finish_reason,
                tokens_in: usage.prompt_tokens,
                tokens_out: usage.completion_tokens,
                cost_usd: usage.cost_usd,
                latency: started.elapsed(),
                cached: false,
            });
        }
        Ok(generations)
    }
}

/// The end of a standard error stream, as text for an error message.
fn stderr_tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim_end();
    if text.len() <= STDERR_IN_ERROR {
        return text.to_owned();
    }
    let mut start = text.len() - STDERR_IN_ERROR;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    format!("…{}", &text[start..])
}
