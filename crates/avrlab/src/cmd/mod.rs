//! Subcommands, one module each, and the exit codes they map to: [`Exit`], reached from an
//! error's [`Blame`] in [`Exit::of`] only; the README's table is [`exit_code_table`].

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

use avrlab_core::{Blame, Blamed, Stop};
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

impl Exit {
    /// Every code but 0, in order.
    const ALL: [Self; 5] = [
        Self::Infrastructure,
        Self::BadInput,
        Self::CheckFailed,
        Self::ErrorLimit,
        Self::BudgetReached,
    ];

    /// The one place where a blame becomes an exit code.
    pub fn of(blame: Blame) -> Self {
        match blame {
            Blame::Input => Self::BadInput,
            Blame::Infrastructure => Self::Infrastructure,
            Blame::Stopped(Stop::CheckFailed) => Self::CheckFailed,
            Blame::Stopped(Stop::ErrorLimit) => Self::ErrorLimit,
            Blame::Stopped(Stop::BudgetReached) => Self::BudgetReached,
        }
    }

    /// What the code tells the user, as the README's table says it.
    fn meaning(self) -> &'static str {
        match self {
            Self::Infrastructure => {
                "the infrastructure failed (no JDK, Maven or sandbox, a full disk, a model provider \
                 that is down)"
            }
            Self::BadInput => {
                "bad input (arguments, task files, predictions, configuration, a store that is not \
                 one)"
            }
            Self::CheckFailed => "a benchmark's reference check (or a curated task's check) failed",
            Self::ErrorLimit => {
                "an eval stopped at its `--max-errors` limit; resumable with `--resume --retry errored`"
            }
            Self::BudgetReached => {
                "an eval stopped at its `--max-cost` budget; resumable with a higher one"
            }
        }
    }
}

/// The README's table of exit codes, made from [`Exit`] (a test keeps the README equal to it).
pub fn exit_code_table() -> String {
    let mut table = String::from(
        "| exit | meaning |\n|---|---|\n| 0 | done, whatever the candidates' outcomes (they are data) |\n",
    );
    for exit in Exit::ALL {
        table.push_str(&format!("| {} | {} |\n", exit as u8, exit.meaning()));
    }
    table
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

impl<E: Blamed> From<E> for Failure {
    /// An error that knows its blame fails the command with that blame's exit code.
    fn from(error: E) -> Self {
        Self {
            code: Exit::of(error.blame()),
            error: error.into(),
        }
    }
}

/// The kind of a benchmark's tasks; bad input when it holds both (`verb`: what the user asked).
pub(crate) fn benchmark_kind(
    benchmark: &avrlab_bench::Benchmark,
    verb: &str,
) -> Result<avrlab_bench::TaskKind, Failure> {
    benchmark
        .kind(verb)
        .map_err(|why| Failure::input(anyhow::anyhow!(why)))
}

/// The first task of a benchmark of feature tasks, refused for a command that takes repair
/// tasks only (`what`: why, after the task's id).
pub(crate) fn refuse_feature_tasks(
    benchmark: &avrlab_bench::Benchmark,
    command: &str,
    what: &str,
) -> Result<(), Failure> {
    match benchmark_kind(benchmark, command)? {
        avrlab_bench::TaskKind::Repair => Ok(()),
        avrlab_bench::TaskKind::Feature => Err(Failure::input(anyhow::anyhow!(
            "benchmark {}: {} is a feature task{what}",
            benchmark.name,
            benchmark.tasks[0].id
        ))),
    }
}

/// The end of a feature run (`validate` or `eval` of a feature benchmark): the feature report
/// on stdout, the run's counts with its engine and workers on stderr, and the exit (a task that
/// could not be warmed up fails the command, resumable).
pub(crate) fn finish_feature_run(
    store: &avrlab_store::Store,
    report: &avrlab_run::run_loop::RunReport,
    benchmark: &avrlab_bench::Benchmark,
    engine: &str,
    progress: &crate::progress::StderrProgress,
) -> Result<ExitCode, Failure> {
    use avrlab_run::feature_score::{feature_report, render_feature_report};
    let scores = feature_report(store, &report.run_id, benchmark)?;
    #[expect(clippy::print_stdout, reason = "the report is the command's output")]
    {
        print!("{}", render_feature_report(&scores));
    }
    // Which engine decided the verdicts: the fast path, or the build tool it handed them to.
    let mut decided: std::collections::BTreeMap<&str, usize> = std::collections::BTreeMap::new();
    for (_, row) in store.engines(&report.run_id)? {
        *decided.entry(row.engine.as_str()).or_default() += 1;
    }
    let decided: Vec<String> = decided
        .iter()
        .map(|(engine, count)| format!("{engine} {count}"))
        .collect();
    let closing = format!(
        "{} (engine {engine}, {}; verdicts by engine: {})",
        report.describe(store.path()),
        avrlab_core::counted(report.workers, "worker"),
        if decided.is_empty() {
            "none".to_owned()
        } else {
            decided.join(", ")
        }
    );
    avrlab_run::run_loop::Progress::message(progress, &closing);
    unprepared_failure(report).map_or(Ok(ExitCode::SUCCESS), Err)
}

/// The tasks a run could not warm up, as one infrastructure failure (exit 1).
pub(crate) fn unprepared_failure(report: &avrlab_run::run_loop::RunReport) -> Option<Failure> {
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
    /// Print the tables of stored runs: eval runs together, or one validate or feature eval run.
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
    use avrlab_run::eval::EvalError;
    use avrlab_run::run_loop::RunError;
    use avrlab_store::StoreError;
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn each_blame_has_its_exit_code_and_errors_reach_it_through_their_own_blame() {
        use avrlab_core::{Blame, Stop};

        use super::{Exit, Failure};
        let codes: Vec<u8> = [
            Blame::Infrastructure,
            Blame::Input,
            Blame::Stopped(Stop::CheckFailed),
            Blame::Stopped(Stop::ErrorLimit),
            Blame::Stopped(Stop::BudgetReached),
        ]
        .into_iter()
        .map(|blame| Exit::of(blame) as u8)
        .collect();
        assert_eq!(codes, [1, 2, 3, 4, 5]);
        let code = |failure: Failure| failure.code as u8;
        let store = std::path::PathBuf::from("runs.sqlite");
        // The user's file, and the machine's failure, of one error type.
        assert_eq!(code(StoreError::NotAStore(store.clone()).into()), 2);
        let folder = StoreError::Folder {
            path: store,
            source: std::io::Error::other("read-only file system"),
        };
        assert_eq!(code(folder.into()), 1);
        // Nested errors take the blame of what they hold.
        let nested = RunError::Store(StoreError::RunExists("r".into()));
        assert_eq!(code(EvalError::Engine(nested).into()), 2);
        let budget = EvalError::BudgetReached {
            run: "r".into(),
            spent: 1.0,
            budget: 1.0,
            asked: 3,
            planned: 9,
        };
        assert_eq!(code(budget.into()), 5);
    }

    /// The README's table of exit codes is the one [`super::exit_code_table`] makes.
    #[test]
    fn the_readme_shows_the_exit_codes_as_they_are() {
        let readme = include_str!("../../../../README.md");
        let table = super::exit_code_table();
        assert!(
            readme.contains(&table),
            "README.md's exit-code table differs from the code's; put this in its place:\n{table}"
        );
    }

    /// Every subcommand's arguments are consistent: unique ids (two flattened fields of one name
    /// would be one argument), valid defaults and groups.
    #[test]
    fn the_command_line_is_consistent() {
        Cli::command().debug_assert();
    }
}
