//! `avrlab transform`: a new benchmark whose tasks are semantics-preserving rewrites of the given
//! one, each verified by execution (or, with `--dry-run`, the diffs only).

use std::collections::{BTreeMap, VecDeque};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::Mutex;

use avrlab::transform::{
    Check, TaskInput, TaskResult, TransformTaskError, read_task, rewrite, rule_counts,
    transform_verified, transformed_id, verify,
};
use avrlab_transform::{Rule, Variant, unified_diff};
use avrlab_validate::Oracle;

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

fn task_failure(error: TransformTaskError) -> Failure {
    if error.is_input() {
        Failure::input(error)
    } else {
        Failure::infrastructure(error)
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
        inputs.push(
            read_task(task, &states.path, args.options.mirrors.as_deref()).map_err(task_failure)?,
        );
    }
    if args.dry_run {
        return dry_run(&inputs, variant, args.seed);
    }
    // Bad input is refused before anything runs: every task must transform at all.
    for input in &inputs {
        rewrite(input, &variant.rules(), args.seed).map_err(task_failure)?;
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

/// Transforms and verifies every task on `workers` threads, each with its own workspace slot.
fn transform_all(
    inputs: &[TaskInput],
    variant: Variant,
    seed: u64,
    oracle: &dyn Oracle,
    workers: usize,
    staging: &Path,
) -> Result<Vec<TaskResult>, Failure> {
    let queue: Mutex<VecDeque<usize>> = Mutex::new((0..inputs.len()).collect());
    let results: Mutex<BTreeMap<usize, Result<TaskResult, TransformTaskError>>> =
        Mutex::new(BTreeMap::new());
    let prepare_lock = Mutex::new(());
    std::thread::scope(|scope| {
        for worker in 0..workers.clamp(1, inputs.len().max(1)) {
            let (queue, results, prepare_lock) = (&queue, &results, &prepare_lock);
            scope.spawn(move || {
                let slot = format!("transform-{worker}");
                loop {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop_front();
                    let Some(index) = next else { break };
                    let input = &inputs[index];
                    let dest = staging.join(transformed_id(&input.task, variant));
                    let mut check = |dir: &Path| -> Result<Check, TransformTaskError> {
                        let check = verify(oracle, dir, &slot, prepare_lock)?;
                        progress(&format!("  {}: {}", input.task.id, check.describe()));
                        Ok(check)
                    };
                    let result = transform_verified(input, variant, seed, &dest, &mut check);
                    let failed = result.is_err();
                    results
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .insert(index, result);
                    if failed {
                        // One failure aborts the command: leave the queue to drain.
                        queue.lock().unwrap_or_else(|p| p.into_inner()).clear();
                    }
                }
            });
        }
    });
    let mut done = Vec::new();
    for (_, result) in results.into_inner().unwrap_or_else(|p| p.into_inner()) {
        done.push(result.map_err(task_failure)?);
    }
    Ok(done)
}

fn progress(line: &str) {
    #[expect(clippy::print_stderr, reason = "progress goes to stderr")]
    {
        eprintln!("{line}");
    }
}

fn dry_run(inputs: &[TaskInput], variant: Variant, seed: u64) -> Result<ExitCode, Failure> {
    let mut results = Vec::new();
    let mut text = String::new();
    for input in inputs {
        let rw = rewrite(input, &variant.rules(), seed).map_err(task_failure)?;
        let new_id = transformed_id(&input.task, variant);
        let _ = writeln!(text, "=== {} → {new_id}", input.task.id);
        let renamed: BTreeMap<&str, &str> = rw
            .output
            .file_renames
            .iter()
            .map(|(old, new)| (old.as_str(), new.as_str()))
            .collect();
        for (path, old) in &input.sources.files {
            let new_path = renamed.get(path.as_str()).copied().unwrap_or(path);
            if let Some(new) = rw.output.files.get(new_path) {
                text.push_str(&unified_diff(path, new_path, old, new));
            }
        }
        results.push(TaskResult {
            task: input.task.id.clone(),
            new_id,
            kept: Some(rw),
            rolled_back: Vec::new(),
            verifications: 0,
            omitted: None,
        });
    }
    text.push_str(&render_report(&results, variant));
    text.push_str("(dry run: nothing verified, nothing written)\n");
    #[expect(clippy::print_stdout, reason = "the command's result")]
    {
        print!("{text}");
    }
    Ok(ExitCode::SUCCESS)
}

/// The per-task lines and the rule-by-rule table.
fn render_report(results: &[TaskResult], variant: Variant) -> String {
    let mut t = String::new();
    let _ = writeln!(t, "transform `{variant}`: {} task(s)", results.len());
    for r in results {
        match &r.kept {
            Some(kept) => {
                let rules: Vec<String> = kept
                    .applied_rules()
                    .iter()
                    .map(|rule| format!("{rule}×{}", kept.applied_sites(*rule)))
                    .collect();
                let _ = writeln!(
                    t,
                    "  {} → {}: kept [{}], {} rename(s), {} verification(s)",
                    r.task,
                    r.new_id,
                    rules.join(", "),
                    kept.output.rename_map.entries.len(),
                    r.verifications
                );
            }
            None => {
                let _ = writeln!(
                    t,
                    "  {}: OMITTED, {}",
                    r.task,
                    r.omitted.as_deref().unwrap_or("nothing kept")
                );
            }
        }
        for rb in &r.rolled_back {
            let _ = writeln!(
                t,
                "      rolled back {} ({} site(s)): {}",
                rb.rule, rb.sites, rb.reason
            );
        }
    }
    let counts = rule_counts(results);
    let _ = writeln!(
        t,
        "{:<20} {:>8} {:>8} {:>12}",
        "rule", "applied", "declined", "rolled back"
    );
    for rule in std::iter::once(Rule::Rename).chain(Rule::STRUCTURE) {
        let c = counts.get(&rule).copied().unwrap_or_default();
        let _ = writeln!(
            t,
            "{:<20} {:>8} {:>8} {:>12}",
            rule.name(),
            c.applied,
            c.declined,
            c.rolled_back
        );
    }
    t
}
