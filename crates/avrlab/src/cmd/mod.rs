//! Subcommands, one module each, and the exit codes they map to.
//!
//! Exit codes: 0 done (whatever the candidates' outcomes: they are data); 1 infrastructure failed
//! (no JDK, Maven, sandbox, disk); 2 bad input (arguments, task files, predictions files, store);
//! 3 the benchmark's reference check failed; 4 an eval stopped at its `--max-errors` limit
//! (resumable); 5 an eval stopped at its `--max-cost` budget (resumable).

mod ask;
mod audit;
mod bench;
mod curate;
mod diff_test;
mod eval;
mod feature;
mod merge;
mod mirror;
mod options;
mod probe;
mod replay;
mod report;
mod slurm;
mod study;
mod throughput;
mod transform;
mod validate;
mod warm_up;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// The documented exit codes (see the module's head); commands name them, never a number.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// 1: the infrastructure failed.
    Infrastructure = 1,
    /// 2: bad input.
    BadInput = 2,
    /// 3: the benchmark's reference check (or a curated task's check) failed.
    CheckFailed = 3,
    /// 4: an eval stopped because more samples were errored than `--max-errors` allows; what it
    /// asked is stored and the run resumes.
    ErrorLimit = 4,
    /// 5: an eval stopped asking because its samples cost `--max-cost` or more; what it asked is
    /// stored and the run resumes with a higher budget.
    BudgetReached = 5,
}

impl From<Exit> for ExitCode {
    fn from(exit: Exit) -> Self {
        ExitCode::from(exit as u8)
    }
}

/// A failed command: its exit code and error.
#[derive(Debug)]
pub struct Failure {
    pub code: Exit,
    pub error: anyhow::Error,
}

impl Failure {
    /// Bad input: exit code 2.
    pub fn input(error: impl Into<anyhow::Error>) -> Self {
        Self {
            code: Exit::BadInput,
            error: error.into(),
        }
    }

    /// Infrastructure failure: exit code 1.
    pub fn infrastructure(error: impl Into<anyhow::Error>) -> Self {
        Self {
            code: Exit::Infrastructure,
            error: error.into(),
        }
    }
}

impl From<avrlab_run::models::ModelSetupError> for Failure {
    /// A model that cannot be set up: the configuration is at fault (unreadable, malformed, no
    /// such model, a setting missing) as bad input, anything else as infrastructure.
    fn from(error: avrlab_run::models::ModelSetupError) -> Self {
        use avrlab_run::models::ModelSetupError::{Malformed, Missing, Read, Unknown};
        match error {
            Malformed { .. } | Missing { .. } | Read { .. } | Unknown { .. } => Self::input(error),
            _ => Self::infrastructure(error),
        }
    }
}

/// A store failure: the user's file at fault (not a store, a newer one, a run id taken, an
/// unknown candidate) as bad input, anything else as infrastructure.
pub(crate) fn store_failure(error: avrlab_store::StoreError) -> Failure {
    match error {
        avrlab_store::StoreError::NotADatabase(_)
        | avrlab_store::StoreError::NotAStore(_)
        | avrlab_store::StoreError::Version { .. }
        | avrlab_store::StoreError::RunExists(_)
        | avrlab_store::StoreError::UnknownCandidate { .. } => Failure::input(error),
        other => Failure::infrastructure(other),
    }
}

/// Bad input when a benchmark of feature tasks also holds a repair task (`verb`: what the user
/// asked).
pub(crate) fn refuse_mixed_benchmark(
    benchmark: &avrlab_bench::Benchmark,
    verb: &str,
) -> Result<(), Failure> {
    benchmark
        .mixed_kinds(verb)
        .map_or(Ok(()), |why| Err(Failure::input(anyhow::anyhow!(why))))
}

/// The tasks a run could not warm up, as one infrastructure failure (exit 1).
pub(crate) fn unprepared_failure(report: &avrlab_run::engine::RunReport) -> Option<Failure> {
    report
        .unprepared_message()
        .map(|why| Failure::infrastructure(anyhow::anyhow!(why)))
}

/// Execution-based evaluation of automated vulnerability repair on Java.
#[derive(Debug, Parser)]
#[command(name = "avrlab", version, about)]
pub struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Debug, Subcommand)]
enum Command {
    /// One generation of a model for a prompt on stdin, printed on stdout (what agent scripts
    /// call inside their sandbox).
    Ask(ask::Args),
    /// Label plausible candidates that no check proved correct, by hand; exchange labels;
    /// compare two auditors (Cohen's kappa).
    Audit(audit::Args),
    /// Compare each plausible candidate of a run with the reference fix on generated inputs.
    DiffTest(diff_test::Args),
    /// List, show and check out benchmark tasks.
    Bench(bench::Args),
    /// Validate candidates (or the benchmark's own reference fixes) by building and testing them.
    Validate(validate::Args),
    /// Clone the git repositories a benchmark or dataset needs into the mirror folder.
    Mirror(mirror::Args),
    /// Ask a model for patches, validate them, and print the tables.
    Eval(eval::Args),
    /// Merge the stores of a sharded run's workers (`--shard K/N`) into one store.
    Merge(merge::Args),
    /// Print the tables of stored eval runs.
    Report(report::Args),
    /// Could the model have seen the fixes? Ask it to continue each task's fixed file from just
    /// before the fix, compare with the fix and the vulnerable code, and store the scores.
    Probe(probe::Args),
    /// Run a sharded validation on a Slurm cluster: submit it as a job array and a merge job,
    /// see where it stands, resubmit the shards that did not complete.
    Slurm(slurm::Args),
    /// Re-validate a study's published generations (VJBench's Model_patches) as an eval run.
    Replay(replay::Args),
    /// Run a study from its file: benchmarks × models × formats × FL offsets × runs, with an
    /// optional reviewer model; resumable; prints the study's tables.
    Study(study::Args),
    /// Measure validations per minute with 1 and with N workers.
    Throughput(throughput::Args),
    /// Secure-feature tasks from repair tasks, checked by the five-run matrix (the funnel).
    Curate(curate::Args),
    /// Secure-feature tasks from and to SusVibes JSONL.
    Feature(feature::Args),
    /// Make every task of a benchmark ready to validate (dependencies, the fast path's states,
    /// baselines) and validate nothing: on a node with network, before shards run offline.
    WarmUp(warm_up::Args),
    /// Write a transformed benchmark (renamed identifiers, restructured code), verified by execution.
    Transform(transform::Args),
}

/// Runs the parsed command.
pub fn run(cli: Cli) -> Result<ExitCode, Failure> {
    match cli.command {
        Command::Ask(args) => ask::run(args),
        Command::Bench(args) => bench::run(args),
        Command::Validate(args) => validate::run(args),
        Command::Mirror(args) => mirror::run(args),
        Command::Eval(args) => eval::run(args),
        Command::Audit(args) => audit::run(args),
        Command::DiffTest(args) => diff_test::run(args),
        Command::Merge(args) => merge::run(args),
        Command::Report(args) => report::run(args),
        Command::Probe(args) => probe::run(args),
        Command::Slurm(args) => slurm::run(args),
        Command::Replay(args) => replay::run(args),
        Command::Study(args) => study::run(args),
        Command::Throughput(args) => throughput::run(args),
        Command::Transform(args) => transform::run(args),
        Command::Feature(args) => feature::run(args),
        Command::Curate(args) => curate::run(args),
        Command::WarmUp(args) => warm_up::run(args),
    }
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    /// Every subcommand's arguments are consistent: unique ids (two flattened fields of one name
    /// would be one argument), valid defaults and groups.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
