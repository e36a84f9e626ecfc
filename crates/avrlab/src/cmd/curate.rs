//! `avrlab curate`: secure-feature tasks from repair tasks, kept only when the five-run matrix
//! passes (the funnel table says which gate rejected each candidate); `--check` re-runs the
//! matrix of a curated benchmark and scores its golden, vulnerable and empty predictions.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::TaskKind;
use avrlab_run::curate::{CurateConfig, StatementModel, check_task, curate_task};
use avrlab_run::curate_tables::{check_table, funnel_table};
use avrlab_run::models::configured_model;
use avrlab_run::shard::shard_of_tasks;
use avrlab_validate::BuildToolOracle;

use super::options::{ModelConfigArg, ValidationOptions, parse_shard};
use super::{Exit, Failure};

/// Arguments of `avrlab curate`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
    /// The feature benchmark folder to write (tasks already there are left alone).
    #[arg(long, required_unless_present = "check")]
    pub out: Option<PathBuf>,
    /// Re-check a curated benchmark (`--benchmark`): the matrix again, and the golden,
    /// vulnerable and empty predictions scored. Exit 3 when a task fails.
    #[arg(long)]
    pub check: bool,
    /// Draft each problem statement with this model (a name from avrlab.toml's [models.*], or
    /// `local`); the template stands in when it fails or answers nothing usable, and the
    /// funnel says so. Without it, the template.
    #[arg(long)]
    pub statement_model: Option<String>,
    /// Only part K of N of the tasks; shards may share --out (each task is moved into it
    /// whole), and a shard run again keeps what it kept before.
    #[arg(long, value_name = "K/N", value_parser = parse_shard)]
    pub shard: Option<avrlab_core::Shard>,
    #[command(flatten)]
    pub config: ModelConfigArg,
}

/// The tasks the command takes in the shard (feature tasks to `--check`, repair tasks to curate
/// from); refused when the benchmark has none at all (a shard may have none when there are more
/// shards than tasks).
fn taken<'a>(
    args: &Args,
    tasks: &'a [avrlab_bench::Task],
) -> Result<Vec<&'a avrlab_bench::Task>, Failure> {
    let all: Vec<_> = tasks
        .iter()
        .filter(|t| match t.kind {
            TaskKind::Feature => args.check,
            TaskKind::Repair => !args.check,
        })
        .collect();
    if all.is_empty() {
        return Err(Failure::input(anyhow::anyhow!(
            "benchmark {} has no {}",
            args.options.benchmark,
            if args.check {
                "feature task to check"
            } else {
                "repair task to curate from"
            }
        )));
    }
    let mine = shard_of_tasks(all, args.shard);
    if let Some(shard) = args.shard {
        progress(&format!("shard {shard}: {} task(s)", mine.len()));
    }
    Ok(mine)
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    let (config, work) = args.options.engine(false)?;
    let oracle = BuildToolOracle::new(config.validator.clone());
    if args.check {
        let mut rows = Vec::new();
        for task in taken(&args, &benchmark.tasks)? {
            progress(&format!("checking {}", task.id));
            rows.push((task.id.clone(), check_task(&oracle, task)?));
        }
        let (table, all_pass) = check_table(&rows);
        print_out(&table);
        return Ok(if all_pass {
            ExitCode::SUCCESS
        } else {
            Exit::CheckFailed.into()
        });
    }
    let out = args
        .out
        .clone()
        .expect("clap requires --out without --check");
    let repairs = taken(&args, &benchmark.tasks)?;
    let statement_model = match &args.statement_model {
        None => None,
        Some(name) => Some((
            name.clone(),
            configured_model(name, &args.config.path, config.validator.maven.sandbox)?.1,
        )),
    };
    std::fs::create_dir_all(&out).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!("cannot create {}: {e}", out.display()))
    })?;
    let statement = statement_model
        .as_ref()
        .map(|(name, model)| StatementModel {
            name,
            model: model.as_ref(),
        });
    let curate = CurateConfig {
        out: out.clone(),
        scratch: work.path.join("curate"),
        mirrors: config.validator.mirrors.clone(),
    };
    let mut rows = Vec::new();
    for task in repairs {
        progress(&format!("curating {}", task.id));
        let row = curate_task(&oracle, task, &curate, statement)?;
        progress(&format!(
            "  {}: {}",
            row.task,
            row.rejected.as_ref().map_or_else(
                || if row.kept_earlier {
                    "kept earlier"
                } else {
                    "kept"
                }
                .to_owned(),
                |(g, r)| format!("rejected at {}: {r}", g.as_str())
            )
        ));
        rows.push(row);
    }
    let _ = std::fs::remove_dir(out.join(".staging"));
    print_out(&funnel_table(&rows));
    Ok(ExitCode::SUCCESS)
}

#[expect(clippy::print_stderr, reason = "progress goes to stderr")]
fn progress(line: &str) {
    eprintln!("{line}");
}

#[expect(clippy::print_stdout, reason = "the tables are the command's output")]
fn print_out(text: &str) {
    print!("{text}");
}
