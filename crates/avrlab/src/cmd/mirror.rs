//! `avrlab mirror fetch`: clone, as bare mirrors, the repositories a benchmark or a dataset needs
//! and the mirror folder lacks.

use std::collections::BTreeSet;
use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_bench::{Benchmark, DatasetKind, ProjectSource, read_dataset};
use clap::Subcommand;

use super::bench::{default_dataset_file, mirrors_dir};
use super::{Exit, Failure};

/// Arguments of `avrlab mirror`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub command: MirrorCommand,
}

#[derive(Debug, Subcommand)]
pub enum MirrorCommand {
    /// Clone every missing repository (needs a network that reaches it).
    Fetch {
        /// `vul4j` or `vjbench` (the dataset's rows), or a benchmark folder (its git tasks).
        #[arg(long, default_value = "vul4j")]
        benchmark: String,
        /// Only these tasks or dataset ids.
        #[arg(long, value_delimiter = ',')]
        tasks: Vec<String>,
        /// The mirror folder (owner+repo.git); default `$AVRLAB_MIRRORS`.
        #[arg(long)]
        mirrors: Option<PathBuf>,
    },
}

#[expect(
    clippy::print_stdout,
    reason = "what was fetched is the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let MirrorCommand::Fetch {
        benchmark,
        tasks,
        mirrors,
    } = args.command;
    let mirrors = mirrors_dir(mirrors).ok_or_else(|| {
        Failure::input(anyhow::anyhow!(
            "no mirrors folder: give --mirrors DIR or set $AVRLAB_MIRRORS"
        ))
    })?;
    let keep = |id: &str| tasks.is_empty() || tasks.iter().any(|t| t == id);
    // (repository URL, a commit it must hold) for every selected task.
    let mut wanted: BTreeSet<(String, String)> = BTreeSet::new();
    match DatasetKind::parse(&benchmark) {
        Some(kind) => {
            let rows = read_dataset(kind, &default_dataset_file(kind)?).map_err(Failure::input)?;
            for row in rows.rows.iter().filter(|r| keep(&r.dataset_id)) {
                wanted.insert((row.repo_url.clone(), row.commit.clone()));
            }
        }
        None => {
            let bench = Benchmark::open(&benchmark).map_err(Failure::input)?;
            for task in bench.tasks.iter().filter(|t| keep(&t.id)) {
                if let ProjectSource::Git { url, commit } = &task.project {
                    wanted.insert((url.clone(), commit.clone()));
                }
            }
        }
    }
    let (mut fetched, mut present, mut failed) = (0, 0, 0);
    let mut done: BTreeSet<String> = BTreeSet::new();
    for (url, commit) in &wanted {
        if !done.insert(url.clone()) {
            continue;
        }
        if avrlab_exec::find_mirror(url, &mirrors).is_some() {
            present += 1;
            continue;
        }
        match avrlab_exec::fetch_mirror(url, &mirrors) {
            Ok(path) => {
                fetched += 1;
                println!("fetched {url} into {}", path.display());
            }
            Err(e) => {
                failed += 1;
                println!(
                    "cannot fetch {url} (needed for commit {commit}) into {}: {e}",
                    avrlab_exec::mirror_path(url, &mirrors).display()
                );
            }
        }
    }
    println!(
        "{} repositories: {present} already mirrored, {fetched} fetched, {failed} not reachable",
        done.len()
    );
    Ok(if failed > 0 {
        Exit::Infrastructure.into()
    } else {
        ExitCode::SUCCESS
    })
}
