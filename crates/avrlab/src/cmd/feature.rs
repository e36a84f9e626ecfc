//! `avrlab feature import|export`: secure-feature tasks from and to SusVibes JSONL.

use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::{Benchmark, read_susvibes};
use avrlab_run::susvibes::{export_jsonl, import_records};
use clap::Subcommand;

use super::Failure;

/// Arguments of `avrlab feature`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: FeatureCommand,
}

#[derive(Debug, Subcommand)]
pub enum FeatureCommand {
    /// Write one feature task folder per record of a SusVibes JSONL file (all records or none).
    Import {
        /// The JSONL file.
        file: PathBuf,
        /// The benchmark folder to write the tasks into.
        #[arg(long)]
        out: PathBuf,
    },
    /// Write the feature tasks of a benchmark as SusVibes JSONL.
    Export {
        /// The folder of a feature benchmark (as `avrlab curate` writes).
        #[arg(long)]
        benchmark: String,
        /// The JSONL file to write; it must not exist.
        #[arg(long)]
        out: PathBuf,
    },
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    match args.command {
        FeatureCommand::Import { file, out } => import(&file, &out),
        FeatureCommand::Export { benchmark, out } => export(&benchmark, &out),
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the import summary is the command's output"
)]
fn import(file: &std::path::Path, out: &std::path::Path) -> Result<ExitCode, Failure> {
    let text = std::fs::read_to_string(file)
        .map_err(|e| Failure::input(anyhow::anyhow!("cannot read {}: {e}", file.display())))?;
    let records = read_susvibes(&text).map_err(|e| {
        Failure::input(anyhow::anyhow!(
            "{}: {e}; nothing was imported",
            file.display()
        ))
    })?;
    let ids = import_records(&records, out).map_err(|e| match e {
        avrlab_run::susvibes::SusVibesError::Io { .. } => Failure::infrastructure(e),
        other => Failure::input(anyhow::anyhow!("{other}; nothing was imported")),
    })?;
    println!(
        "imported {} feature task(s) into {}: {}",
        ids.len(),
        out.display(),
        ids.join(", ")
    );
    Ok(ExitCode::SUCCESS)
}

#[expect(
    clippy::print_stdout,
    reason = "the export summary is the command's output"
)]
fn export(benchmark: &str, out: &std::path::Path) -> Result<ExitCode, Failure> {
    if out.exists() {
        return Err(Failure::input(anyhow::anyhow!(
            "{} exists already; choose a new file",
            out.display()
        )));
    }
    let bench = Benchmark::open(benchmark).map_err(Failure::input)?;
    let (jsonl, records) = export_jsonl(&bench).map_err(Failure::input)?;
    std::fs::write(out, jsonl).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!("cannot write {}: {e}", out.display()))
    })?;
    println!("wrote {records} record(s) to {}", out.display());
    Ok(ExitCode::SUCCESS)
}
