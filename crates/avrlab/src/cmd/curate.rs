//! `avrlab curate`: secure-feature tasks from repair tasks, kept only when the five-run matrix
//! passes (the funnel table says which gate rejected each candidate); `--check` re-runs the
//! matrix of a curated benchmark and scores its golden, vulnerable and empty predictions.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::TaskKind;
use avrlab_run::curate::{CurateConfig, StatementModel, check_task, curate_task};
use avrlab_run::curate_tables::{check_table, funnel_table};
use avrlab_run::models::{ConfigFile, build_model};
use avrlab_validate::MavenOracle;

use super::options::{ModelConfigArg, ValidationOptions};
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
    #[command(flatten)]
    pub config: ModelConfigArg,
}

fn curate_failure(error: avrlab_run::curate::CurateError) -> Failure {
    Failure::infrastructure(error)
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    let (config, work) = args.options.engine(false)?;
    let oracle = MavenOracle::new(config.validator.clone());
    if args.check {
        let features: Vec<_> = benchmark
            .tasks
            .iter()
            .filter(|t| t.kind == TaskKind::Feature)
            .collect();
        if features.is_empty() {
            return Err(Failure::input(anyhow::anyhow!(
                "benchmark {} has no feature task to check",
                args.options.benchmark
            )));
        }
        let mut rows = Vec::new();
        for task in features {
            progress(&format!("checking {}", task.id));
            rows.push((
                task.id.clone(),
                check_task(&oracle, task).map_err(curate_failure)?,
            ));
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
    std::fs::create_dir_all(&out).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!("cannot create {}: {e}", out.display()))
    })?;
    let repairs: Vec<_> = benchmark
        .tasks
        .iter()
        .filter(|t| t.kind == TaskKind::Repair)
        .collect();
    if repairs.is_empty() {
        return Err(Failure::input(anyhow::anyhow!(
            "benchmark {} has no repair task to curate from",
            args.options.benchmark
        )));
    }
    let statement_model = match &args.statement_model {
        None => None,
        Some(name) => {
            let configs = ConfigFile::load(&args.config.path).map_err(Failure::input)?;
            let model_config = configs
                .model(name, &args.config.path)
                .map_err(Failure::input)?;
            let model = build_model(
                name,
                &model_config,
                &args.config.path,
                config.validator.maven.sandbox,
            )
            .map_err(Failure::from)?;
            Some((name.clone(), model))
        }
    };
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
        let row = curate_task(&oracle, task, &curate, statement).map_err(curate_failure)?;
        progress(&format!(
            "  {}: {}",
            row.task,
            row.rejected.as_ref().map_or_else(
                || "kept".to_owned(),
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
