//! `avrlab report RUN…`: the tables of stored eval runs, one model row per run, or the report
//! of one validate run.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use avrlab_report::{
    EvalReportOptions, ReportFormat, build_eval_report_with, build_validation_report, render,
    render_validation,
};
use avrlab_store::Store;
use clap::ValueEnum;

use super::Failure;
use super::options::StoreArg;

/// Report formats on the command line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum FormatArg {
    Md,
    Csv,
    Json,
    /// `booktabs` tables for a paper.
    Latex,
    /// One self-contained page with the tables and SVG plots.
    Html,
}

impl From<FormatArg> for ReportFormat {
    fn from(format: FormatArg) -> Self {
        match format {
            FormatArg::Md => Self::Markdown,
            FormatArg::Csv => Self::Csv,
            FormatArg::Json => Self::Json,
            FormatArg::Latex => Self::Latex,
            FormatArg::Html => Self::Html,
        }
    }
}

/// The one run named when it is not an eval run (a reference check, a predictions file, a
/// feature run): it has a report of its own. Eval runs are reported together, one model row each;
/// a validate run is reported alone.
fn validate_run<'a>(store: &Store, runs: &'a [String]) -> Result<Option<&'a str>, Failure> {
    let mut others = Vec::new();
    for id in runs {
        // An unknown run is said by the report that reads it.
        if let Some(run) = store.run(id)? {
            match run.mode {
                avrlab_store::RunMode::Eval => {}
                avrlab_store::RunMode::Reference | avrlab_store::RunMode::Patches => {
                    others.push(id.as_str());
                }
            }
        }
    }
    match (others.as_slice(), runs.len()) {
        ([], _) => Ok(None),
        ([one], 1) => Ok(Some(one)),
        _ => Err(Failure::input(anyhow::anyhow!(
            "runs {} are not eval runs: report eval runs together, or one validate run alone",
            others.join(", ")
        ))),
    }
}

/// Arguments of `avrlab report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Eval run ids (each becomes one model row), or one validate run's id.
    #[arg(required = true)]
    pub runs: Vec<String>,
    #[arg(long, value_enum, default_value = "md")]
    pub format: FormatArg,
    #[command(flatten)]
    pub store: StoreArg,
    /// Split every run's scores at this training cut-off month (YYYY-MM) instead of the one
    /// stored with the run: tasks fixed in or before it against those fixed after it.
    #[arg(long, value_name = "YYYY-MM")]
    pub model_cutoff: Option<avrlab_core::Month>,
    /// Write the report to this file (written whole, then renamed into place) instead of stdout.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if !args.store.path.is_file() {
        return Err(Failure::input(anyhow::anyhow!(
            "no results store at {}: give --store",
            args.store.path.display()
        )));
    }
    let store = Store::open(&args.store.path)?;
    let text = match validate_run(&store, &args.runs)? {
        Some(run) => {
            let report = build_validation_report(&store, run).map_err(Failure::input)?;
            render_validation(&report, args.format.into())
        }
        None => {
            let options = EvalReportOptions {
                model_cutoff: args.model_cutoff,
            };
            let report =
                build_eval_report_with(&store, &args.runs, options).map_err(Failure::input)?;
            render(&report, args.format.into())
        }
    };
    match &args.out {
        Some(path) => write_whole("--out", path, &text)?,
        None => {
            #[expect(clippy::print_stdout, reason = "the report is the command's output")]
            {
                print!("{text}");
            }
        }
    }
    Ok(ExitCode::SUCCESS)
}

/// The folder and file name of a file a command will write (`flag` names the option), refused
/// as bad input when the folder does not exist: checked before any work starts.
pub(super) fn output_path(flag: &str, path: &Path) -> Result<(PathBuf, String), Failure> {
    let folder = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    if !folder.is_dir() {
        return Err(Failure::input(anyhow::anyhow!(
            "{flag} {}: the folder {} does not exist",
            path.display(),
            folder.display()
        )));
    }
    let name = path.file_name().ok_or_else(|| {
        Failure::input(anyhow::anyhow!(
            "{flag} {}: not a file name",
            path.display()
        ))
    })?;
    Ok((folder, name.to_string_lossy().into_owned()))
}

/// Writes `text` next to `path` and renames it into place, so a reader never sees half a report.
pub(super) fn write_whole(flag: &str, path: &Path, text: &str) -> Result<(), Failure> {
    let (folder, name) = output_path(flag, path)?;
    let partial = folder.join(format!(".{name}.partial"));
    let written = std::fs::write(&partial, text).and_then(|()| std::fs::rename(&partial, path));
    if let Err(error) = written {
        let _ = std::fs::remove_file(&partial);
        return Err(Failure::infrastructure(
            anyhow::Error::new(error).context(format!("write the report to {}", path.display())),
        ));
    }
    Ok(())
}
