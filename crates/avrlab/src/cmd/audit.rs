//! `avrlab audit RUN`: label plausible-but-not-proven candidates by hand, one by one; list the
//! queue; exchange labels as JSON lines; compare two auditors.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::Benchmark;
use avrlab_run::audit::{
    AuditError, agreement, export, label_interactively, parse_lines, queue, render_agreement,
    render_queue,
};
use avrlab_store::Store;

use super::Failure;
use super::options::StoreArg;

/// Arguments of `avrlab audit`.
#[derive(Debug, clap::Args)]
#[command(group(clap::ArgGroup::new("action").args(["list", "export", "import", "agreement"])))]
pub struct Args {
    /// The run whose plausible candidates to audit.
    pub run: String,
    /// Who labels (stored with each label) [default: $USER].
    #[arg(long)]
    pub auditor: Option<String>,
    /// The benchmark of the run, to show each task's reference fix [default: the run's].
    #[arg(long)]
    pub benchmark: Option<String>,
    /// Print the queue (candidates this auditor has not labelled) and stop.
    #[arg(long)]
    pub list: bool,
    /// Write every label of the run as JSON lines to this file ("-": standard output).
    #[arg(long)]
    pub export: Option<PathBuf>,
    /// Store the labels of a JSON-lines file (all or none).
    #[arg(long)]
    pub import: Option<PathBuf>,
    /// Cohen's kappa between two auditors, `A,B`; `differential` as one names differential testing.
    #[arg(long, value_name = "A,B")]
    pub agreement: Option<String>,
    #[command(flatten)]
    pub store: StoreArg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if !args.store.path.is_file() {
        return Err(Failure::input(anyhow::anyhow!(
            "no results store at {}: give --store",
            args.store.path.display()
        )));
    }
    let mut store = Store::open(&args.store.path)?;
    let run_info = store
        .run(&args.run)?
        .ok_or_else(|| AuditError::UnknownRun(args.run.clone()))?;
    if let Some(path) = &args.export {
        let text = export(&store, &args.run)?;
        if path.as_os_str() == "-" {
            #[expect(clippy::print_stdout, reason = "the export is the command's output")]
            {
                print!("{text}");
            }
        } else {
            std::fs::write(path, text).map_err(|e| {
                Failure::input(anyhow::anyhow!("cannot write {}: {e}", path.display()))
            })?;
        }
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(path) = &args.import {
        let text = std::fs::read_to_string(path)
            .map_err(|e| Failure::input(anyhow::anyhow!("cannot read {}: {e}", path.display())))?;
        let rows = parse_lines(&text, &path.display().to_string(), &args.run)?;
        store.record_audits(&args.run, &rows)?;
        say(&format!(
            "stored {} label(s) of run {} from {}",
            rows.len(),
            args.run,
            path.display()
        ));
        return Ok(ExitCode::SUCCESS);
    }
    if let Some(pair) = &args.agreement {
        let Some((first, second)) = pair
            .split_once(',')
            .filter(|(a, b)| !a.is_empty() && !b.is_empty() && !b.contains(','))
        else {
            return Err(Failure::input(anyhow::anyhow!(
                "--agreement takes two auditors, `A,B`; got `{pair}`"
            )));
        };
        let agreed = agreement(&store, &args.run, first, second)?;
        #[expect(clippy::print_stdout, reason = "the agreement is the command's output")]
        {
            print!("{}", render_agreement(&args.run, first, second, &agreed));
        }
        return Ok(ExitCode::SUCCESS);
    }

    let auditor = args
        .auditor
        .clone()
        .or_else(|| std::env::var("USER").ok())
        .filter(|a| !a.trim().is_empty())
        .ok_or_else(|| Failure::input(anyhow::anyhow!("say who audits: --auditor NAME")))?;
    let items = queue(&store, &args.run, Some(&auditor))?;
    if args.list {
        #[expect(clippy::print_stdout, reason = "the queue is the command's output")]
        {
            print!("{}", render_queue(&items));
        }
        say(&format!(
            "{} plausible candidate(s) of run {} not yet labelled by {auditor}",
            items.len(),
            args.run
        ));
        return Ok(ExitCode::SUCCESS);
    }
    let benchmark = Benchmark::open(args.benchmark.as_deref().unwrap_or(&run_info.benchmark)).ok();
    let labelled = label_interactively(
        &mut store,
        &args.run,
        &auditor,
        &items,
        benchmark.as_ref(),
        std::io::stdin().lock(),
        &mut std::io::stderr(),
    )?;
    say(&format!("\n{labelled} label(s) stored"));
    Ok(ExitCode::SUCCESS)
}

/// A line for the person at the terminal (the command's data goes to standard output).
fn say(text: &str) {
    let _ = writeln!(std::io::stderr(), "{text}");
}
