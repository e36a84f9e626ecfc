//! `avrlab slurm`: a sharded run as a Slurm job array and a merge job; its status; its resumption.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_exec::SlurmCli;
use avrlab_run::slurm::{
    Resources, SlurmPlan, SlurmRunError, render_resumed, render_status, resume, status, submit,
};

use super::Failure;

/// Arguments of `avrlab slurm`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: SlurmCommand,
}

#[derive(Debug, clap::Subcommand)]
pub enum SlurmCommand {
    /// Submit `avrlab <COMMAND…>` as an array of --shards workers (each validating its shard into
    /// its own store in --dir, resuming what that store holds) and a merge job into --into that
    /// waits for them. Example: avrlab slurm submit --shards 3 --into all.sqlite -- validate
    /// --reference --benchmark demo
    Submit(SubmitArgs),
    /// Each shard's Slurm state and candidates done, and the merge job's state.
    Status(DirArg),
    /// Submit again the shards that did not complete (failed, cancelled, preempted, timed out),
    /// with a new merge job.
    Resume(DirArg),
}

#[derive(Debug, clap::Args)]
pub struct SubmitArgs {
    #[arg(long)]
    pub shards: u32,
    /// The store the shards are merged into.
    #[arg(long, value_name = "STORE")]
    pub into: PathBuf,
    /// Where the batch scripts, the logs and the shards' stores are written (on a file system the
    /// nodes share) [default: slurm-<run>].
    #[arg(long)]
    pub dir: Option<PathBuf>,
    #[arg(long)]
    pub partition: Option<String>,
    /// Each worker's time limit (sbatch --time, e.g. 02:00:00).
    #[arg(long)]
    pub time: Option<String>,
    /// CPUs per worker (sbatch --cpus-per-task).
    #[arg(long)]
    pub cpus: Option<u32>,
    /// Memory per worker (sbatch --mem, e.g. 16G).
    #[arg(long)]
    pub mem: Option<String>,
    /// A further sbatch option for every job (repeatable), e.g. --sbatch-arg=--account=lab.
    #[arg(long = "sbatch-arg", value_name = "OPTION", allow_hyphen_values = true)]
    pub sbatch_args: Vec<String>,
    /// The avrlab command line each worker runs (after `--`).
    #[arg(last = true, required = true, value_name = "COMMAND")]
    pub command: Vec<String>,
}

#[derive(Debug, clap::Args)]
pub struct DirArg {
    /// The --dir of the submission.
    #[arg(long)]
    pub dir: PathBuf,
}

fn failure(error: SlurmRunError) -> Failure {
    if error.is_bad_input() {
        Failure::input(error)
    } else {
        Failure::infrastructure(error)
    }
}

#[expect(
    clippy::print_stdout,
    reason = "job ids and states are the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let text = match args.command {
        SlurmCommand::Submit(args) => {
            let resources = Resources {
                partition: args.partition,
                time: args.time,
                cpus: args.cpus,
                mem: args.mem,
                sbatch_args: args.sbatch_args,
            };
            let plan = SlurmPlan::new(&args.command, args.shards, args.dir, &args.into, resources)
                .map_err(failure)?;
            plan.describe(&submit(&plan, &SlurmCli).map_err(failure)?)
        }
        SlurmCommand::Status(dir) => render_status(&status(&dir.dir, &SlurmCli).map_err(failure)?),
        SlurmCommand::Resume(dir) => {
            render_resumed(resume(&dir.dir, &SlurmCli).map_err(failure)?.as_ref())
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
