//! `avrlab bench list|show|checkout`: what tasks a benchmark has, and a task's state on disk.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::{Benchmark, ProjectSource, RegressionTests};
use avrlab_validate::materialize_task;
use clap::Subcommand;

use super::Failure;

/// Arguments of `avrlab bench`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// `demo`, or the folder of a benchmark.
    #[arg(long, global = true, default_value = "demo")]
    pub benchmark: String,
    #[command(subcommand)]
    pub command: BenchCommand,
}

#[derive(Debug, Subcommand)]
pub enum BenchCommand {
    /// One line per task: id, CWEs, CVE, localized methods.
    List,
    /// Everything about one task.
    Show { task: String },
    /// Write the task state (the vulnerable project) into a new folder.
    Checkout {
        task: String,
        /// The folder to create; it must not exist or be empty.
        #[arg(long)]
        out: PathBuf,
        /// A folder of bare git mirrors (owner+repo.git) for git-based tasks.
        #[arg(long)]
        mirrors: Option<PathBuf>,
    },
}

#[expect(clippy::print_stdout, reason = "listing tasks is the command's output")]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = Benchmark::open(&args.benchmark).map_err(Failure::input)?;
    match args.command {
        BenchCommand::List => {
            println!("{:<28} {:<14} {:<18} methods", "task", "cwe", "cve");
            for task in &benchmark.tasks {
                let cwe: Vec<String> = task.cwe.iter().map(|c| format!("CWE-{c}")).collect();
                let methods: Vec<&str> = task
                    .localization
                    .iter()
                    .map(|l| l.method.as_str())
                    .collect();
                println!(
                    "{:<28} {:<14} {:<18} {}",
                    task.id,
                    cwe.join(","),
                    task.cve.as_deref().unwrap_or("-"),
                    methods.join(", ")
                );
            }
            println!(
                "{} tasks in {}",
                benchmark.tasks.len(),
                benchmark.dir.display()
            );
        }
        BenchCommand::Show { task } => {
            let task = benchmark.task(&task).map_err(Failure::input)?;
            println!("id:          {}", task.id);
            println!("kind:        {:?}", task.kind);
            println!(
                "cwe:         {}",
                task.cwe
                    .iter()
                    .map(|c| format!("CWE-{c}"))
                    .collect::<Vec<_>>()
                    .join(", ")
            );
            println!("cve:         {}", task.cve.as_deref().unwrap_or("-"));
            match &task.project {
                ProjectSource::Folder(f) => println!("project:     {}", f.display()),
                ProjectSource::Git { url, commit } => println!("project:     {url} @ {commit}"),
            }
            println!(
                "build:       {:?}, JDK {}",
                task.build.system, task.build.jdk
            );
            let pov: Vec<String> = task
                .oracle
                .pov_tests
                .iter()
                .map(ToString::to_string)
                .collect();
            println!("pov tests:   {}", pov.join(", "));
            match &task.oracle.regression_tests {
                RegressionTests::AllOthers => println!("regression:  all other tests"),
                RegressionTests::Listed(list) => println!(
                    "regression:  {}",
                    list.iter()
                        .map(ToString::to_string)
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            }
            for loc in &task.localization {
                println!(
                    "location:    {} {}() lines {}-{}, hunks {:?}",
                    loc.file, loc.method, loc.method_lines.0, loc.method_lines.1, loc.hunks
                );
            }
            println!("\n{}\n", task.description);
            if let Some(reference) = &task.reference {
                println!("reference fix:\n{reference}");
            }
        }
        BenchCommand::Checkout { task, out, mirrors } => {
            let task = benchmark.task(&task).map_err(Failure::input)?;
            materialize_task(task, &out, mirrors.as_deref()).map_err(|e| {
                if e.is_input() {
                    Failure::input(e)
                } else {
                    Failure::infrastructure(e)
                }
            })?;
            println!("checked out {} into {}", task.id, out.display());
        }
    }
    Ok(ExitCode::SUCCESS)
}
