//! `avrlab report RUN…`: the tables of stored eval runs of repair tasks, one model row per run,
//! or the report of one validate run, or of one eval run of feature tasks.

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

/// What kind of report the named runs get.
enum Reported<'a> {
    /// Eval runs of repair tasks, together, one model row each.
    Evals,
    /// One validate run (a reference check, a predictions file), alone.
    Validation(&'a str),
    /// One eval run of a feature benchmark, alone: its scores are functional and secure rates.
    FeatureEval(Box<avrlab_store::RunInfo>),
}

/// The report the named runs get: eval runs of repair tasks are reported together; a validate
/// run or a feature eval run has a report of its own, and is named alone.
fn reported<'a>(store: &Store, runs: &'a [String]) -> Result<Reported<'a>, Failure> {
    let mut others = Vec::new();
    let mut feature = None;
    for id in runs {
        // An unknown run is said by the report that reads it.
        if let Some(run) = store.run(id)? {
            match run.mode {
                avrlab_store::RunMode::Eval if run.config.feature => {
                    others.push(id.as_str());
                    feature = Some(Box::new(run));
                }
                avrlab_store::RunMode::Eval => {}
                avrlab_store::RunMode::Reference | avrlab_store::RunMode::Patches => {
                    others.push(id.as_str());
                }
            }
        }
    }
    match (others.as_slice(), runs.len(), feature) {
        ([], _, _) => Ok(Reported::Evals),
        ([_], 1, Some(run)) => Ok(Reported::FeatureEval(run)),
        ([one], 1, None) => Ok(Reported::Validation(one)),
        _ => Err(Failure::input(anyhow::anyhow!(
            "runs {} are not eval runs of repair tasks: report those together, or one validate or feature eval run alone",
            others.join(", ")
        ))),
    }
}

/// The report of a feature eval run, whose CWE rows come from its benchmark's tasks.
fn feature_eval_report(
    store: &Store,
    run: &avrlab_store::RunInfo,
    format: ReportFormat,
) -> Result<String, Failure> {
    use avrlab_run::feature_score::{feature_report, render_feature_report};
    // The format is checked before any work.
    let json = match format {
        ReportFormat::Markdown => false,
        ReportFormat::Json => true,
        ReportFormat::Csv | ReportFormat::Latex | ReportFormat::Html => {
            return Err(Failure::input(anyhow::anyhow!(
                "run `{}` is a feature eval: its report comes as --format md or json",
                run.id
            )));
        }
    };
    let name = run.config.benchmark.as_deref().unwrap_or(&run.benchmark);
    let benchmark = avrlab_bench::Benchmark::open(name).map_err(|e| {
        Failure::input(anyhow::anyhow!(
            "run `{}` scored feature tasks of benchmark `{name}`, which cannot be opened here ({e}): report it from the folder the eval ran in",
            run.id
        ))
    })?;
    let report = feature_report(store, &run.id, &benchmark)?;
    Ok(if json {
        format!(
            "{}\n",
            serde_json::to_string_pretty(&report).expect("reports serialize")
        )
    } else {
        render_feature_report(&report)
    })
}

/// Arguments of `avrlab report`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// Eval run ids of repair tasks (each becomes one model row), or one validate run's id, or one
    /// feature eval run's id.
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
    let text = match reported(&store, &args.runs)? {
        Reported::Validation(run) => {
            let report = build_validation_report(&store, run).map_err(Failure::input)?;
            render_validation(&report, args.format.into())
        }
        Reported::FeatureEval(run) => feature_eval_report(&store, &run, args.format.into())?,
        Reported::Evals => {
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
