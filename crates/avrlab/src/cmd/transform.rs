//! `avrlab transform`: a new benchmark whose tasks are semantics-preserving rewrites of the given
//! one, each verified by execution (or, with `--dry-run`, the diffs only).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use avrlab_run::transform::{
    TaskInput, dry_run_text, read_task, render_report, rewrite, transform_all,
};
use avrlab_transform::Variant;

use super::Failure;
use super::options::ValidationOptions;

/// Arguments of `avrlab transform`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
    /// Only this task (repeatable; adds to --tasks).
    #[arg(long = "task")]
    pub task: Vec<String>,
    /// `rename`, `structure`, `both`, or one rule: if-flip, for-to-while, while-to-for,
    /// foreach-to-for, ternary-to-if, if-to-ternary, switch-to-if, if-to-switch,
    /// call-chain-split, call-chain-merge, argument-extract, argument-inline, statement-reorder.
    #[arg(long)]
    pub variant: String,
    /// The folder of the new benchmark; it must not exist yet.
    #[arg(long, required_unless_present = "dry_run")]
    pub out: Option<PathBuf>,
    /// Seed for the choice of synonyms (the same seed gives the same benchmark).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print each task's diff and write nothing (no verification either).
    #[arg(long)]
    pub dry_run: bool,
}

/// A folder removed when dropped unless kept.
struct Scratch {
    path: PathBuf,
    keep: bool,
}

impl Drop for Scratch {
    fn drop(&mut self) {
        if !self.keep {
            let _ = std::fs::remove_dir_all(&self.path);
        }
    }
}

pub fn run(mut args: Args) -> Result<ExitCode, Failure> {
    args.options.tasks.append(&mut args.task);
    let variant: Variant = args.variant.parse().map_err(Failure::input)?;
    let benchmark = args.options.repair_benchmark("transform")?;
    if let Some(out) = &args.out
        && out.exists()
    {
        return Err(Failure::input(anyhow::anyhow!(
            "{} already exists; choose a new folder for the transformed benchmark",
            out.display()
        )));
    }
    let pid = std::process::id();
    let states = Scratch {
        path: std::env::temp_dir().join(format!("avrlab-transform-states-{pid}")),
        keep: false,
    };
    let mut inputs = Vec::new();
    for task in &benchmark.tasks {
        inputs.push(read_task(
            task,
            &states.path,
            args.options.mirrors.as_deref(),
        )?);
    }
    if args.dry_run {
        return dry_run(&inputs, variant, args.seed);
    }
    // Bad input is refused before anything runs: every task must transform at all.
    for input in &inputs {
        rewrite(input, &variant.rules(), args.seed)?;
    }
    let out = args
        .out
        .clone()
        .expect("clap requires --out without --dry-run");
    let staging = Scratch {
        path: staging_dir(&out, pid),
        keep: false,
    };
    std::fs::create_dir_all(&staging.path).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!(
            "cannot create {}: {e}",
            staging.path.display()
        ))
    })?;
    let (config, _work) = args.options.engine(false)?;
    let oracle = args.options.oracle(&config)?;
    let results = transform_all(
        &inputs,
        variant,
        args.seed,
        oracle.as_ref(),
        config.workers,
        &staging.path,
        &progress,
    )?;
    #[expect(clippy::print_stdout, reason = "the command's result")]
    {
        print!("{}", render_report(&results, variant));
    }
    if results.iter().all(|r| r.kept.is_none()) {
        return Err(Failure::input(anyhow::anyhow!(
            "no task of {} could be transformed with `{variant}` and verified; nothing written",
            benchmark.name
        )));
    }
    let mut staging = staging;
    std::fs::rename(&staging.path, &out).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!(
            "cannot move {} to {}: {e}",
            staging.path.display(),
            out.display()
        ))
    })?;
    staging.keep = true;
    let omitted = results.iter().filter(|r| r.kept.is_none()).count();
    #[expect(clippy::print_stderr, reason = "the command's closing line")]
    if omitted > 0 {
        eprintln!(
            "warning: {omitted} task(s) omitted (see the report); the others are in {}",
            out.display()
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `DIR.tmp-<pid>`, next to `DIR` so that the final rename stays on one file system.
fn staging_dir(out: &Path, pid: u32) -> PathBuf {
    let name = out.file_name().map_or_else(
        || "transformed".into(),
        |n| n.to_string_lossy().into_owned(),
    );
    out.with_file_name(format!("{name}.tmp-{pid}"))
}

fn progress(line: &str) {
    #[expect(clippy::print_stderr, reason = "progress goes to stderr")]
    {
        eprintln!("{line}");
    }
}

fn dry_run(inputs: &[TaskInput], variant: Variant, seed: u64) -> Result<ExitCode, Failure> {
    let text = dry_run_text(inputs, variant, seed)?;
    #[expect(clippy::print_stdout, reason = "the command's result")]
    {
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}
