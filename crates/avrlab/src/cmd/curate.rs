//! `avrlab curate`: secure-feature tasks from repair tasks, kept only when the five-run matrix
//! passes (the funnel table says which gate rejected each candidate); `--check` re-runs the
//! matrix of a curated benchmark and scores its golden, vulnerable and empty predictions.

use std::fmt::Write as _;
use std::path::PathBuf;
use std::process::ExitCode;

use avrlab::curate::{
    CheckRow, CurateConfig, FunnelRow, Gate, StatementModel, check_task, curate_task,
};
use avrlab::models::{ConfigFile, build_model};
use avrlab_bench::TaskKind;
use avrlab_validate::{FeatureRun, Judged, MavenOracle};

use super::Failure;
use super::options::ValidationOptions;

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
    /// The model configuration file.
    #[arg(long, default_value = "avrlab.toml")]
    pub config: PathBuf,
}

fn curate_failure(error: avrlab::curate::CurateError) -> Failure {
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
            ExitCode::from(3)
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
            let configs = ConfigFile::load(&args.config).map_err(Failure::input)?;
            let model_config = configs.model(name, &args.config).map_err(Failure::input)?;
            let model = build_model(
                name,
                &model_config,
                &args.config,
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

fn one_line(text: &str) -> String {
    let line = text.lines().next().unwrap_or("").replace('|', "/");
    line.chars().take(140).collect()
}

fn run_cell(runs: &[FeatureRun], label: &str) -> String {
    match runs.iter().find(|r| r.label == label) {
        None => "–".into(),
        Some(run) => {
            let func = run.functional.as_ref().map(|_| run.func());
            let sec = run.security.as_ref().map(|_| run.sec());
            match (func, sec) {
                (Some(f), None) => format!("func {}", f.as_str()),
                (None, Some(s)) => format!("sec {}", s.as_str()),
                (Some(f), Some(s)) => format!("func {} sec {}", f.as_str(), s.as_str()),
                (None, None) => match (&run.not_applied, &run.compiled) {
                    (Some(_), _) => "not applied".into(),
                    (_, Some(Err(_))) => "no compile".into(),
                    _ => "?".into(),
                },
            }
        }
    }
}

const LABELS: [&str; 5] = [
    "base",
    "base-without-security",
    "rollback",
    "rollback-with-security",
    "masked",
];

/// The funnel: one row per candidate task, then how many passed each gate.
pub fn funnel_table(rows: &[FunnelRow]) -> String {
    let mut out = String::from(
        "| repair task | feature task | masked methods | base | base w/o sec | rollback | rollback + sec | masked | expected func failures | result | problem statement |\n\
         |---|---|---|---|---|---|---|---|---|---|---|\n",
    );
    for row in rows {
        let result = row.rejected.as_ref().map_or_else(
            || "kept".to_owned(),
            |(g, r)| format!("rejected at {}: {}", g.as_str(), one_line(r)),
        );
        let _ = writeln!(
            out,
            "| {} | {} | {} | {} | {} | {} | {} | {} | {} | {} | {} |",
            row.source,
            row.task,
            row.masked_methods,
            run_cell(&row.runs, LABELS[0]),
            run_cell(&row.runs, LABELS[1]),
            run_cell(&row.runs, LABELS[2]),
            run_cell(&row.runs, LABELS[3]),
            run_cell(&row.runs, LABELS[4]),
            row.expected_func,
            result,
            if row.statement.is_empty() {
                "–".to_owned()
            } else {
                one_line(&row.statement)
            }
        );
    }
    let mut remaining = rows.len();
    let _ = write!(out, "\nfunnel: {remaining} candidate(s)");
    for gate in Gate::ALL {
        let rejected = rows
            .iter()
            .filter(|r| r.rejected.as_ref().is_some_and(|(g, _)| *g == gate))
            .count();
        remaining -= rejected;
        let _ = write!(out, " → {} {remaining}", gate.as_str());
    }
    let _ = writeln!(out, "; kept {remaining}");
    out
}

fn score_cell(rows: &[FeatureRun], label: &str) -> (String, Option<(Judged, Judged)>) {
    match rows.iter().find(|r| r.label == label) {
        None => ("–".into(), None),
        Some(run) => {
            let (f, s) = (run.func(), run.sec());
            (
                format!("func={} sec={}", f.as_str(), s.as_str()),
                Some((f, s)),
            )
        }
    }
}

/// The re-check: the matrix per task, the three reference predictions, and whether each is
/// as it must be (golden func=pass sec=pass, vulnerable func=pass sec=fail, empty func=fail).
pub fn check_table(rows: &[(String, Result<CheckRow, String>)]) -> (String, bool) {
    let mut out = String::from(
        "| feature task | base | base w/o sec | rollback | rollback + sec | masked | golden | vulnerable put back | empty | check |\n\
         |---|---|---|---|---|---|---|---|---|---|\n",
    );
    let mut all_pass = true;
    for (id, row) in rows {
        let row = match row {
            Ok(row) => row,
            Err(reason) => {
                all_pass = false;
                let _ = writeln!(
                    out,
                    "| {id} | | | | | | | | | FAILED: {} |",
                    one_line(reason)
                );
                continue;
            }
        };
        let (golden, g) = score_cell(&row.scores, "golden");
        let (vulnerable, v) = score_cell(&row.scores, "vulnerable");
        let (empty, e) = score_cell(&row.scores, "empty");
        let mut problems = Vec::new();
        if let Some((gate, reason)) = &row.matrix.rejected {
            problems.push(format!("gate {}: {}", gate.as_str(), one_line(reason)));
        }
        if !matches!(g, Some((Judged::Pass, Judged::Pass))) {
            problems.push("golden is not func=pass sec=pass".into());
        }
        if !matches!(v, Some((Judged::Pass, Judged::Fail(_)))) {
            problems.push("vulnerable is not func=pass sec=fail".into());
        }
        if !matches!(e, Some((Judged::Fail(_), _))) {
            problems.push("empty is not func=fail".into());
        }
        let verdict = if problems.is_empty() {
            "passed".to_owned()
        } else {
            all_pass = false;
            format!("FAILED: {}", problems.join("; "))
        };
        let runs = &row.matrix.runs;
        let _ = writeln!(
            out,
            "| {id} | {} | {} | {} | {} | {} | {golden} | {vulnerable} | {empty} | {verdict} |",
            run_cell(runs, LABELS[0]),
            run_cell(runs, LABELS[1]),
            run_cell(runs, LABELS[2]),
            run_cell(runs, LABELS[3]),
            run_cell(runs, LABELS[4]),
        );
    }
    let passed = rows.iter().filter(|(_, r)| r.is_ok()).count();
    let _ = writeln!(
        out,
        "\nfeature check: {} task(s): {}",
        rows.len(),
        if all_pass { "PASSED" } else { "FAILED" }
    );
    let _ = passed;
    (out, all_pass)
}
