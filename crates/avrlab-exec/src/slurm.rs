//! Slurm's commands, as avrlab calls them: `sbatch` to submit a batch script (an array of shards,
//! a merge job that waits for them), `scancel`, and `squeue`/`sacct` to learn jobs' states. Slurm
//! is trusted tooling of the user's cluster: its commands run outside the sandbox, with the user's
//! environment (which is how they find the cluster's configuration).

use std::path::Path;
use std::time::Duration;

use crate::process::{ExitKind, ProcessError, RunSpec, run};
use crate::sandbox::{Limits, SandboxKind, SandboxPolicy};

/// Why a Slurm command failed.
#[derive(Debug, thiserror::Error)]
pub enum SlurmError {
    #[error(
        "`{0}` is not installed or not on PATH: run avrlab slurm on a machine of the Slurm cluster (a login node)"
    )]
    Missing(String),
    #[error("`{command}` failed: {stderr}")]
    Failed { command: String, stderr: String },
    #[error("`{command}` printed no job id: {stdout}")]
    NoJobId { command: String, stdout: String },
    #[error(transparent)]
    Process(#[from] ProcessError),
}

/// The state of one job or array task, as Slurm names it (`PENDING`, `RUNNING`, `COMPLETED`,
/// `FAILED`, `CANCELLED`, `TIMEOUT`, `PREEMPTED`, `NODE_FAIL`, `OUT_OF_MEMORY` …).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JobState {
    /// `1234` for a job, `1234_2` for task 2 of array 1234.
    pub id: String,
    pub state: String,
}

/// What avrlab asks of a Slurm cluster.
pub trait Scheduler {
    /// Submits `script` with extra `sbatch` options; returns the job id.
    fn submit(&self, script: &Path, options: &[String]) -> Result<String, SlurmError>;
    /// Cancels a job (no error when it has already ended).
    fn cancel(&self, job: &str) -> Result<(), SlurmError>;
    /// The states of a job's tasks: queued and running ones from `squeue`, ended ones from
    /// `sacct` where the cluster keeps accounting.
    fn states(&self, job: &str) -> Result<Vec<JobState>, SlurmError>;
}

/// The cluster reached through the Slurm commands on PATH.
#[derive(Debug, Clone, Copy, Default)]
pub struct SlurmCli;

fn slurm(program: &str, args: &[String]) -> Result<(bool, String, String), SlurmError> {
    let path = std::env::var_os("PATH").unwrap_or_default();
    let Some(found) = std::env::split_paths(&path)
        .map(|dir| dir.join(program))
        .find(|p| p.is_file())
    else {
        return Err(SlurmError::Missing(program.to_owned()));
    };
    let spec = RunSpec {
        program: found,
        args: args.to_vec(),
        cwd: std::env::current_dir().unwrap_or_else(|_| "/".into()),
        // The user's environment: Slurm finds its configuration (SLURM_CONF …) there, and a
        // batch job starts with the environment it was submitted from.
        env: std::env::vars().collect(),
        sandbox: SandboxKind::None,
        policy: SandboxPolicy::default(),
        limits: Limits {
            wall: Duration::from_secs(120),
            ..Limits::default()
        },
        stdin: Vec::new(),
    };
    let result = run(&spec)?;
    Ok((
        result.exit == ExitKind::Code(0),
        result.stdout.text(),
        result.stderr.text(),
    ))
}

fn checked(program: &str, args: &[String]) -> Result<String, SlurmError> {
    let (ok, stdout, stderr) = slurm(program, args)?;
    if ok {
        Ok(stdout)
    } else {
        Err(SlurmError::Failed {
            command: format!("{program} {}", args.join(" ")),
            stderr: stderr.trim().to_owned(),
        })
    }
}

/// Reads `id|state` lines.
fn parse_states(text: &str) -> Vec<JobState> {
    text.lines()
        .filter_map(|line| {
            let (id, state) = line.trim().split_once('|')?;
            // sacct writes `CANCELLED by 0`; the first word is the state.
            let state = state.split_whitespace().next()?;
            Some(JobState {
                id: id.to_owned(),
                state: state.to_owned(),
            })
        })
        .collect()
}

impl Scheduler for SlurmCli {
    fn submit(&self, script: &Path, options: &[String]) -> Result<String, SlurmError> {
        let mut args = vec!["--parsable".to_owned()];
        args.extend_from_slice(options);
        args.push(script.to_string_lossy().into_owned());
        let stdout = checked("sbatch", &args)?;
        // `--parsable` prints `id` or `id;cluster`.
        let id = stdout
            .trim()
            .split(';')
            .next()
            .unwrap_or_default()
            .to_owned();
        if id.is_empty() || !id.chars().all(|c| c.is_ascii_digit()) {
            return Err(SlurmError::NoJobId {
                command: format!("sbatch {}", args.join(" ")),
                stdout,
            });
        }
        Ok(id)
    }

    fn cancel(&self, job: &str) -> Result<(), SlurmError> {
        checked("scancel", &[job.to_owned()]).map(|_| ())
    }

    fn states(&self, job: &str) -> Result<Vec<JobState>, SlurmError> {
        let queued = checked(
            "squeue",
            &[
                "-h".into(),
                "-r".into(),
                "-j".into(),
                job.into(),
                "-o".into(),
                "%i|%T".into(),
            ],
        )
        // squeue refuses a job id it no longer knows: nothing is queued.
        .unwrap_or_default();
        let mut states = parse_states(&queued);
        // Ended jobs: the controller keeps them for MinJobAge; accounting (sacct) where the
        // cluster has it keeps them for good.
        let mut ended = Vec::new();
        if let Ok((true, records, _)) = slurm(
            "scontrol",
            &["-o".into(), "show".into(), "job".into(), job.into()],
        ) {
            ended.extend(parse_scontrol(&records));
        }
        let args = ["-n", "-P", "-X", "-j", job, "--format=JobID,State"].map(str::to_owned);
        if let Ok((true, records, _)) = slurm("sacct", &args) {
            ended.extend(parse_states(&records));
        }
        for state in ended {
            if !states.iter().any(|s| s.id == state.id) {
                states.push(state);
            }
        }
        Ok(states)
    }
}

/// Reads `scontrol -o show job` records (one a line, `Key=Value` words): the job or array task
/// id and its state.
fn parse_scontrol(text: &str) -> Vec<JobState> {
    text.lines()
        .filter_map(|line| {
            let field = |key: &str| {
                line.split_whitespace()
                    .find_map(|word| word.strip_prefix(key)?.strip_prefix('='))
            };
            let state = field("JobState")?.to_owned();
            let id = match (field("ArrayJobId"), field("ArrayTaskId")) {
                (Some(array), Some(task)) => format!("{array}_{task}"),
                _ => field("JobId")?.to_owned(),
            };
            Some(JobState { id, state })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scontrol_records_name_array_tasks_by_array_and_index() {
        let records = "JobId=7 ArrayJobId=5 ArrayTaskId=2 JobName=a JobState=COMPLETED Reason=None\n\
                       JobId=9 JobName=merge JobState=PENDING Reason=DependencyNeverSatisfied\n";
        assert_eq!(
            parse_scontrol(records),
            vec![
                JobState {
                    id: "5_2".into(),
                    state: "COMPLETED".into()
                },
                JobState {
                    id: "9".into(),
                    state: "PENDING".into()
                },
            ]
        );
    }

    #[test]
    fn states_are_read_from_pipe_separated_lines() {
        let states = parse_states("12_1|COMPLETED\n12_2|CANCELLED by 0\n\n12_[3]|PENDING\nnoise\n");
        assert_eq!(
            states,
            vec![
                JobState {
                    id: "12_1".into(),
                    state: "COMPLETED".into()
                },
                JobState {
                    id: "12_2".into(),
                    state: "CANCELLED".into()
                },
                JobState {
                    id: "12_[3]".into(),
                    state: "PENDING".into()
                },
            ]
        );
    }
}
