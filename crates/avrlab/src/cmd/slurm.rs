//! `avrlab slurm`: a sharded run as a Slurm job array and a merge job; its status; its resumption.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_exec::SlurmCli;
use avrlab_run::slurm::{
    Resources, SlurmPlan, SlurmRunError, resume, status, submit, worker_command,
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

/// An absolute path: the jobs run in Slurm's working folder, not necessarily this one.
fn absolute(path: PathBuf) -> Result<PathBuf, Failure> {
    std::path::absolute(&path).map_err(Failure::infrastructure)
}

#[expect(
    clippy::print_stdout,
    reason = "job ids and states are the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        SlurmCommand::Submit(args) => {
            let unix = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_secs());
            let (command, run) =
                worker_command(&args.command, &format!("slurm-{unix}")).map_err(failure)?;
            let plan = SlurmPlan {
                dir: absolute(
                    args.dir
                        .unwrap_or_else(|| PathBuf::from(format!("slurm-{run}"))),
                )?,
                into: absolute(args.into)?,
                shards: args.shards,
                avrlab: std::env::current_exe().map_err(Failure::infrastructure)?,
                command: absolute_paths(command)?,
                run,
                resources: Resources {
                    partition: args.partition,
                    time: args.time,
                    cpus: args.cpus,
                    mem: args.mem,
                    sbatch_args: args.sbatch_args,
                },
            };
            let submitted = submit(&plan, &SlurmCli).map_err(failure)?;
            println!(
                "run {}: array job {} ({} shards, scripts and stores in {}), merge job {} into {}",
                plan.run,
                submitted.array,
                plan.shards,
                plan.dir.display(),
                submitted.merge,
                plan.into.display()
            );
        }
        SlurmCommand::Status(dir) => {
            let status = status(&absolute(dir.dir)?, &SlurmCli).map_err(failure)?;
            println!(
                "run {}: array job {}, merge job {} ({})",
                status.plan.run,
                status.latest.array,
                status.latest.merge,
                status.merge.as_deref().unwrap_or("unknown to Slurm")
            );
            for shard in &status.shards {
                let done = match shard.done {
                    Some((done, all)) => format!("{done} of {all} candidates validated"),
                    None => "not started".to_owned(),
                };
                println!(
                    "  shard {}: {}, {done}",
                    shard.shard,
                    shard.state.as_deref().unwrap_or("unknown to Slurm")
                );
            }
        }
        SlurmCommand::Resume(dir) => {
            match resume(&absolute(dir.dir)?, &SlurmCli).map_err(failure)? {
                Some(submitted) => {
                    let shards: Vec<String> =
                        submitted.shards.iter().map(ToString::to_string).collect();
                    println!(
                        "shards {} submitted again as array job {}; merge job {}",
                        shards.join(", "),
                        submitted.array,
                        submitted.merge
                    );
                }
                None => println!("every shard completed; nothing to resume"),
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The command line with the values of path flags made absolute (the jobs run elsewhere).
fn absolute_paths(mut command: Vec<String>) -> Result<Vec<String>, Failure> {
    const PATH_FLAGS: [&str; 6] = [
        "--benchmark",
        "--patches",
        "--work-dir",
        "--mirrors",
        "--config",
        "--report-json",
    ];
    for i in 1..command.len() {
        if PATH_FLAGS.contains(&command[i - 1].as_str())
            && std::path::Path::new(&command[i]).exists()
        {
            command[i] = absolute(PathBuf::from(&command[i]))?
                .to_string_lossy()
                .into_owned();
        }
    }
    Ok(command)
}
