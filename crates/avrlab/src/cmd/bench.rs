//! `avrlab bench list|show|checkout|fidelity`: what tasks a benchmark has, and a task's state on disk.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use avrlab_bench::{Benchmark, DatasetKind, VUL_LOCATION_FILE, read_dataset, read_vul_locations};
use avrlab_run::import::{ImportConfig, import_rows};
use avrlab_run::task_card::{task_card, task_list};
use avrlab_validate::materialize_task;
use clap::Subcommand;

use super::options::{EngineArg, SandboxArg, StoreArg, ValidationOptions};
use super::{Exit, Failure};

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
    /// Turn a dataset's rows into task folders (a benchmark), from mirrors of the projects.
    Import {
        /// `vul4j` or `vjbench`.
        dataset: String,
        /// The dataset file (default: `$AVRLAB_DATASETS`, else `../shared/datasets` beside the
        /// source tree: `vul4j/vul4j_dataset.csv`, `vjbench/VJBench_dataset.csv`).
        #[arg(long = "dataset")]
        file: Option<PathBuf>,
        /// The benchmark folder to write (default: `$AVRLAB_BENCHMARKS/<dataset>`).
        #[arg(long)]
        out: Option<PathBuf>,
        /// A folder of bare git mirrors (owner+repo.git); default `$AVRLAB_MIRRORS`.
        #[arg(long)]
        mirrors: Option<PathBuf>,
        /// Import only these dataset ids (e.g. VUL4J-41).
        #[arg(long, value_delimiter = ',')]
        ids: Vec<String>,
        /// The datasets' buggy lines (VJBench's `vul_location.json`, which also covers Vul4J's
        /// ids), used for `[[localization]]` where they fit the vulnerable file [default: the
        /// datasets folder's vjbench/vul_location.json].
        #[arg(long)]
        locations: Option<PathBuf>,
    },
    /// Make a task from any fix commit of a git repository, by the importers' own path; it is
    /// written only once its reference check passes.
    New(NewArgs),
    /// The reference check with one row per task: builds? vulnerable fails its PoV tests?
    /// reference fix Plausible? baseline exclusions, JDK, minutes. Exit 3 when a task fails it.
    Check(CheckArgs),
    /// The fidelity probe's table per task: every difference a test could see between
    /// Surefire's fork and the fast engine's test JVM, with why it may differ. Warms the tasks up
    /// for the fast engine; exit 3 when a difference is unexplained (the task goes to Maven).
    Fidelity(FidelityArgs),
    /// Write the task state (the vulnerable project) into a new folder.
    Checkout {
        task: String,
        /// The folder to create; it must not exist or be empty.
        #[arg(long)]
        out: PathBuf,
        /// A folder of bare git mirrors (owner+repo.git) for git-based tasks; default
        /// `$AVRLAB_MIRRORS`.
        #[arg(long)]
        mirrors: Option<PathBuf>,
    },
}

/// Arguments of `avrlab bench check` (the benchmark is `bench --benchmark`).
#[derive(Debug, clap::Args)]
pub struct CheckArgs {
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// Parallel workers [default: the number of cores].
    #[arg(long)]
    pub workers: Option<usize>,
    /// Seconds one build or test step may run before its process tree is killed (real
    /// projects' whole suites take minutes).
    #[arg(long, default_value_t = 900)]
    pub timeout: u64,
    /// A folder of bare git mirrors (owner+repo.git); default `$AVRLAB_MIRRORS`.
    #[arg(long)]
    pub mirrors: Option<PathBuf>,
    /// Where task states, baselines and workspaces are made [default: a fresh temp folder].
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
    #[command(flatten)]
    pub store: StoreArg,
    /// `--run NAME --resume-if-started`: a long check stopped anywhere goes on where it stopped.
    #[command(flatten)]
    pub target: super::options::RunArgs,
}

/// Arguments of `avrlab bench fidelity` (the benchmark is `bench --benchmark`).
#[derive(Debug, clap::Args)]
pub struct FidelityArgs {
    /// Only these tasks (comma-separated ids).
    #[arg(long, value_delimiter = ',')]
    pub tasks: Vec<String>,
    /// A folder of bare git mirrors (owner+repo.git); default `$AVRLAB_MIRRORS`.
    #[arg(long)]
    pub mirrors: Option<PathBuf>,
    /// Where task states and workspaces are made [default: a fresh temp folder].
    #[arg(long)]
    pub work_dir: Option<PathBuf>,
}

/// Arguments of `avrlab bench new`.
#[derive(Debug, clap::Args)]
pub struct NewArgs {
    /// The repository: a folder (bare or with a work tree; a mirror named `owner+repo.git`
    /// stands for `https://github.com/owner/repo`), or a URL whose mirror is in `--mirrors`.
    #[arg(long)]
    pub repo: String,
    /// The fixing commit (a full hash or a prefix).
    #[arg(long)]
    pub fix: String,
    /// PoV tests, `pkg.Class#method` [default: the test methods the fix adds or changes].
    #[arg(long, value_delimiter = ',')]
    pub pov: Vec<String>,
    /// CWE numbers (`79` or `CWE-79`).
    #[arg(long, value_delimiter = ',')]
    pub cwe: Vec<String>,
    /// The CVE id.
    #[arg(long)]
    pub cve: Option<String>,
    /// The JDK the project targets [default: 8].
    #[arg(long)]
    pub jdk: Option<u32>,
    /// The task id [default: `<repo>-<first 8 hex digits of the commit>`].
    #[arg(long)]
    pub id: Option<String>,
    /// The benchmark folder to write the task into.
    #[arg(long)]
    pub out: PathBuf,
    /// A folder of bare git mirrors (owner+repo.git) for a URL; default `$AVRLAB_MIRRORS`.
    #[arg(long)]
    pub mirrors: Option<PathBuf>,
    /// Seconds one build or test step of the reference check may run.
    #[arg(long, default_value_t = 900)]
    pub timeout: u64,
}

/// `--mirrors`, else `$AVRLAB_MIRRORS`.
pub fn mirrors_dir(flag: Option<PathBuf>) -> Option<PathBuf> {
    flag.or_else(|| std::env::var_os("AVRLAB_MIRRORS").map(PathBuf::from))
}

/// The datasets folder: `$AVRLAB_DATASETS`, else `../shared/datasets` beside the source tree.
pub(super) fn datasets_dir() -> PathBuf {
    std::env::var_os("AVRLAB_DATASETS").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../../shared/datasets"),
        PathBuf::from,
    )
}

/// The dataset file of `kind` in the datasets folder, refused with what to do when it is not there.
pub(super) fn default_dataset_file(kind: DatasetKind) -> Result<PathBuf, Failure> {
    let file = kind.default_file(&datasets_dir());
    if file.is_file() {
        Ok(file)
    } else {
        Err(Failure::input(anyhow::anyhow!(
            "no {} dataset at {}: give --dataset FILE, or set $AVRLAB_DATASETS to a folder laid out as ../shared/datasets (vul4j/, vjbench/)",
            kind.as_str(),
            file.display()
        )))
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the import summary is the command's output"
)]
fn import(
    dataset: &str,
    file: Option<PathBuf>,
    out: Option<PathBuf>,
    mirrors: Option<PathBuf>,
    ids: &[String],
    locations: Option<PathBuf>,
) -> Result<ExitCode, Failure> {
    let kind = DatasetKind::parse(dataset).ok_or_else(|| {
        Failure::input(anyhow::anyhow!(
            "unknown dataset `{dataset}`: write vul4j or vjbench"
        ))
    })?;
    let file = match file {
        Some(file) => file,
        None => default_dataset_file(kind)?,
    };
    let out = out
        .or_else(|| {
            std::env::var_os("AVRLAB_BENCHMARKS").map(|d| PathBuf::from(d).join(kind.as_str()))
        })
        .ok_or_else(|| {
            Failure::input(anyhow::anyhow!(
                "where to write the tasks? give --out DIR or set $AVRLAB_BENCHMARKS"
            ))
        })?;
    let mirrors = mirrors_dir(mirrors).ok_or_else(|| {
        Failure::input(anyhow::anyhow!(
            "no mirrors folder: give --mirrors DIR or set $AVRLAB_MIRRORS (layout owner+repo.git)"
        ))
    })?;
    let read = read_dataset(kind, &file).map_err(Failure::input)?;
    let locations = match locations {
        Some(path) => read_vul_locations(&path).map_err(Failure::input)?,
        None => {
            let path = datasets_dir().join("vjbench").join(VUL_LOCATION_FILE);
            if path.is_file() {
                read_vul_locations(&path).map_err(Failure::input)?
            } else {
                // Without the file every task's localization is derived from its fix, and each
                // task's `[provenance]` says so.
                println!(
                    "no {} at {}: localizations are derived from the fixes (give --locations FILE)",
                    VUL_LOCATION_FILE,
                    path.display()
                );
                Vec::new()
            }
        }
    };
    let read = read.select(ids).map_err(|missing| {
        Failure::input(anyhow::anyhow!("{} has no row `{missing}`", file.display()))
    })?;
    let scratch = std::env::temp_dir().join(format!("avrlab-import-{}", std::process::id()));
    let config = ImportConfig {
        kind: Some(kind),
        mirrors,
        out: out.clone(),
        scratch: scratch.clone(),
        locations,
    };
    let summary = import_rows(&config, &read.rows, &read.refused);
    let _ = std::fs::remove_dir_all(&scratch);
    let summary = summary.map_err(Failure::infrastructure)?;
    print!("{}", summary.render(kind, &out));
    Ok(if summary.is_bad_input() {
        Exit::BadInput.into()
    } else {
        ExitCode::SUCCESS
    })
}

/// `avrlab bench new`: the task is made in a staging folder beside `--out`, checked there (its
/// vulnerable state must fail its PoV tests and its reference fix be Plausible), and moved into
/// `--out` only then; on any refusal nothing stays behind.
#[expect(clippy::print_stdout, reason = "the command's result")]
fn new_task(args: NewArgs) -> Result<ExitCode, Failure> {
    use avrlab_bench::{DatasetRow, RowBuild, TestName};
    use avrlab_run::import::import_fix_commit;

    let bad = |text: String| Failure::input(anyhow::anyhow!(text));
    let mut pov_tests = Vec::new();
    for name in &args.pov {
        pov_tests.push(
            TestName::parse_method(name)
                .map_err(|e| bad(format!("--pov {name}: {e}; write pkg.Class#method")))?,
        );
    }
    let mut cwe = Vec::new();
    for text in &args.cwe {
        let digits = text.trim().trim_start_matches("CWE-");
        cwe.push(digits.parse::<u32>().map_err(|_| {
            bad(format!(
                "--cwe {text}: not a CWE number; write 79 or CWE-79"
            ))
        })?);
    }
    let local = Path::new(&args.repo);
    let (url, local, mirrors) = if local.is_dir() {
        let dir = local
            .canonicalize()
            .map_err(|e| bad(format!("--repo {}: {e}", args.repo)))?;
        let name = dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        // A mirror folder of avrlab's layout names its upstream; the task then checks out of
        // the mirrors folder like an imported one.
        match name.strip_suffix(".git").and_then(|n| n.split_once('+')) {
            Some((owner, repo)) => (
                format!("https://github.com/{owner}/{repo}"),
                None,
                dir.parent().map(Path::to_owned),
            ),
            None => (format!("file://{}", dir.display()), Some(dir), None),
        }
    } else if args.repo.contains("://") || args.repo.starts_with("git@") {
        let mirrors = mirrors_dir(args.mirrors.clone()).ok_or_else(|| {
            bad(format!(
                "--repo {}: a URL needs its mirror: give --mirrors DIR or set $AVRLAB_MIRRORS (layout owner+repo.git), or give the repository's folder",
                args.repo
            ))
        })?;
        (
            args.repo.trim_end_matches('/').to_owned(),
            None,
            Some(mirrors),
        )
    } else {
        return Err(bad(format!(
            "--repo {}: no such folder, and not a URL; give a git repository's folder or its URL",
            args.repo
        )));
    };
    let repo_name = url
        .trim_end_matches(".git")
        .rsplit('/')
        .next()
        .unwrap_or("task")
        .to_ascii_lowercase();
    let fix = args.fix.trim().to_ascii_lowercase();
    if fix.len() < 7 || !fix.chars().all(|c| c.is_ascii_hexdigit()) {
        return Err(bad(format!(
            "--fix {}: not a commit hash; give at least 7 hex digits",
            args.fix
        )));
    }
    let id = args
        .id
        .clone()
        .unwrap_or_else(|| format!("{repo_name}-{}", &fix[..8.min(fix.len())]));
    let dest = args.out.join(&id);
    if dest.exists() {
        return Err(bad(format!(
            "{} already exists: give another --id or remove it",
            dest.display()
        )));
    }
    // The staging folder sits beside `--out` (on its file system, so the task moves in by a
    // rename) and goes away whatever happens; `--out` itself is made only for a passed task.
    let out_name = args
        .out
        .file_name()
        .map_or_else(|| "out".to_owned(), |n| n.to_string_lossy().into_owned());
    let staging = args
        .out
        .parent()
        .unwrap_or(Path::new("."))
        .join(format!(".{out_name}.{id}.new"));
    let _ = std::fs::remove_dir_all(&staging);
    let row = DatasetRow {
        dataset_id: id.clone(),
        task_id: id.clone(),
        repo_url: url,
        commit: fix,
        cve: args.cve.clone(),
        cwe,
        cwe_name: None,
        // Read from the project's root build file by the importer.
        build: RowBuild::Maven { module: ".".into() },
        jdk: args.jdk,
        maven_args: Vec::new(),
        pov_tests: (!pov_tests.is_empty()).then_some(pov_tests),
        location: None,
        dataset_copy: None,
    };
    let config = ImportConfig {
        kind: None,
        mirrors: mirrors
            .clone()
            .unwrap_or_else(|| staging.join("no-mirrors")),
        out: staging.join("tasks"),
        scratch: staging.join("scratch"),
        locations: Vec::new(),
    };
    let cleanup = || {
        let _ = std::fs::remove_dir_all(&staging);
    };
    if let Err(refused) = import_fix_commit(&config, &row, local.as_deref()) {
        cleanup();
        return Err(bad(format!(
            "cannot make a task of {} at {} ({}): {}",
            args.repo,
            args.fix,
            refused.kind.describe(),
            refused.reason
        )));
    }
    let options = ValidationOptions {
        benchmark: config.out.display().to_string(),
        tasks: Vec::new(),
        workers: Some(1),
        timeout: args.timeout,
        sandbox: SandboxArg::Bwrap,
        maven_repo: None,
        work_dir: Some(staging.join("work")),
        mirrors,
        keep_workspaces: false,
        engine: vec![EngineArg::Maven],
        confirm_sample: 0.0,
        confirm: super::options::ConfirmArg::Sampled,
        keep_going: true,
    };
    let checked = super::validate::check(super::validate::Args {
        options,
        reference: true,
        patches: None,
        store: StoreArg {
            path: staging.join("results.sqlite"),
        },
        target: super::options::RunArgs::default(),
        differential: Default::default(),
        allow_apply_failures: true,
        json: false,
        report_json: None,
        retry: Vec::new(),
    });
    match checked {
        Ok(code) if code == ExitCode::SUCCESS => {}
        Ok(_) => {
            cleanup();
            return Err(bad(format!(
                "{id}: the reference check failed (the table above says why: the vulnerable state must fail its PoV tests and the fix be Plausible); nothing written"
            )));
        }
        Err(failure) => {
            cleanup();
            return Err(failure);
        }
    }
    std::fs::create_dir_all(&args.out)
        .and_then(|()| std::fs::rename(config.out.join(&id), &dest))
        .map_err(|e| {
            cleanup();
            Failure::infrastructure(anyhow::anyhow!(
                "cannot move the task into {}: {e}",
                dest.display()
            ))
        })?;
    cleanup();
    println!(
        "new task {id} in {} (reference check passed)",
        dest.display()
    );
    Ok(ExitCode::SUCCESS)
}

#[expect(clippy::print_stdout, reason = "listing tasks is the command's output")]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if let BenchCommand::Import {
        dataset,
        file,
        out,
        mirrors,
        ids,
        locations,
    } = args.command
    {
        return import(&dataset, file, out, mirrors, &ids, locations);
    }
    if let BenchCommand::New(new) = args.command {
        return new_task(new);
    }
    if let BenchCommand::Check(check) = args.command {
        let options = ValidationOptions {
            benchmark: args.benchmark,
            tasks: check.tasks,
            workers: check.workers,
            timeout: check.timeout,
            sandbox: SandboxArg::Bwrap,
            maven_repo: None,
            work_dir: check.work_dir,
            mirrors: mirrors_dir(check.mirrors),
            keep_workspaces: false,
            // The reference check of real projects runs Maven itself, with its baseline.
            engine: vec![EngineArg::Maven],
            confirm_sample: 0.0,
            confirm: super::options::ConfirmArg::Sampled,
            keep_going: true,
        };
        return super::validate::check(super::validate::Args {
            options,
            reference: true,
            patches: None,
            store: check.store,
            target: check.target,
            differential: Default::default(),
            // A check of many tasks never stops on one: a reference fix that does not apply to
            // its own task state is that task's row (ApplyFailed), not the end of the run.
            allow_apply_failures: true,
            json: false,
            report_json: None,
            retry: Vec::new(),
        });
    }
    if let BenchCommand::Fidelity(fidelity) = args.command {
        return super::warm_up::fidelity(ValidationOptions {
            benchmark: args.benchmark,
            tasks: fidelity.tasks,
            workers: None,
            timeout: 180,
            sandbox: SandboxArg::Bwrap,
            maven_repo: None,
            work_dir: fidelity.work_dir,
            mirrors: mirrors_dir(fidelity.mirrors),
            keep_workspaces: false,
            engine: vec![EngineArg::Fast],
            confirm_sample: 0.0,
            confirm: super::options::ConfirmArg::Sampled,
            keep_going: true,
        });
    }
    let benchmark = Benchmark::open(&args.benchmark).map_err(Failure::input)?;
    match args.command {
        BenchCommand::Import { .. }
        | BenchCommand::Check(_)
        | BenchCommand::New(_)
        | BenchCommand::Fidelity(_) => {
            unreachable!("handled above")
        }
        BenchCommand::List => print!("{}", task_list(&benchmark)),
        BenchCommand::Show { task } => {
            let task = benchmark.task(&task).map_err(Failure::input)?;
            print!("{}", task_card(task));
        }
        BenchCommand::Checkout { task, out, mirrors } => {
            let task = benchmark.task(&task).map_err(Failure::input)?;
            materialize_task(task, &out, mirrors_dir(mirrors).as_deref()).map_err(|e| {
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
