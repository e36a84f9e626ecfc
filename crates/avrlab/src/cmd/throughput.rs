//! `avrlab throughput`: candidate validations per minute on a benchmark's reference check, with 1
//! worker and with N, in a scratch store, so users see what parallel validation buys; and with
//! `--eval-samples`, the end-to-end throughput of `eval` with the template baseline (a model that
//! costs nothing), so that generation cost does not hide validation cost.

use std::process::ExitCode;

use avrlab::engine::{RunRequest, execute};
use avrlab::input::reference_candidates;
use avrlab_store::Store;

use super::Failure;
use super::options::ValidationOptions;
use super::validate::store_failure;
use crate::progress::StderrProgress;

/// Arguments of `avrlab throughput`.
#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub options: ValidationOptions,
    /// Worker counts to measure, e.g. 1,2.
    #[arg(long = "measure-workers", value_delimiter = ',', default_value = "1,2")]
    pub measure_workers: Vec<usize>,
    /// Also measure `eval` with the baseline model and this many samples per task (0: skip).
    #[arg(long, default_value_t = 0)]
    pub eval_samples: u32,
}

#[expect(
    clippy::print_stdout,
    reason = "the measurement is the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let benchmark = args.options.benchmark()?;
    let scratch = tempfile_dir()?;
    let mut rows = Vec::new();
    for &workers in &args.measure_workers {
        let mut options = args.options.clone();
        options.workers = Some(workers);
        let (config, _work) = options.engine(false)?;
        let oracle = avrlab_validate::MavenOracle::new(config.validator.clone());
        let mut store = Store::open(&scratch.join(format!("throughput-{workers}.sqlite")))
            .map_err(store_failure)?;
        let planned = reference_candidates(&benchmark);
        let count = planned.len();
        let request = RunRequest {
            mode: "reference",
            benchmark: &benchmark,
            planned,
            run_id: None,
            resume: false,
            config_json: "{}".into(),
        };
        // Only the validation phase is timed: preparing tasks and warming the dependency cache
        // happen once per run and would blur the comparison.
        let report = execute(
            &mut store,
            request,
            &config,
            &oracle,
            &StderrProgress::new(),
        )
        .map_err(Failure::infrastructure)?;
        let seconds = report.validation_wall.as_secs_f64();
        rows.push((workers, count, seconds, count as f64 / seconds * 60.0));
    }
    let eval = if args.eval_samples > 0 {
        Some(measure_eval(&args, &benchmark, &scratch)?)
    } else {
        None
    };
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "{:>7}  {:>10}  {:>9}  {:>16}  {:>8}",
        "workers", "candidates", "seconds", "validations/min", "speed-up"
    );
    let base = rows.first().map_or(1.0, |r| r.3);
    for (workers, count, seconds, per_minute) in &rows {
        println!(
            "{workers:>7}  {count:>10}  {seconds:>9.1}  {per_minute:>16.1}  {:>7.2}x",
            per_minute / base
        );
    }
    if let Some((samples, candidates, seconds)) = eval {
        println!(
            "eval (baseline, {} samples per task): {samples} samples, {candidates} distinct candidates in {seconds:.1} s = {:.1} samples/min end to end",
            args.eval_samples,
            samples as f64 / seconds * 60.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// Runs `eval` with the baseline model: (samples, distinct candidates, seconds).
fn measure_eval(
    args: &Args,
    benchmark: &avrlab_bench::Benchmark,
    scratch: &std::path::Path,
) -> Result<(usize, usize, f64), Failure> {
    use avrlab::eval::{EvalRequest, EvalSpec, execute_eval};
    let (config, _work) = args.options.engine(true)?;
    let oracle = avrlab_validate::MavenOracle::new(config.validator.clone());
    let mut store = Store::open(&scratch.join("eval.sqlite")).map_err(store_failure)?;
    let spec = EvalSpec {
        model_name: "baseline".into(),
        format: "chat-p1".parse().expect("chat-p1 is a format"),
        samples: args.eval_samples,
        runs: 1,
        fl_offset: 0,
        temperature: 0.0,
        top_p: 1.0,
        max_tokens: 512,
        seed: 0,
    };
    let request = EvalRequest {
        benchmark,
        model: Box::new(avrlab_model::BaselineModel),
        cache: avrlab_model::ResponseCache::new(scratch.join("cache")),
        spec,
        run_id: None,
        resume: false,
    };
    let report = execute_eval(
        &mut store,
        request,
        &config,
        &oracle,
        &StderrProgress::new(),
    )
    .map_err(Failure::infrastructure)?;
    let samples = benchmark.tasks.len() * args.eval_samples as usize;
    Ok((samples, report.candidates, report.wall.as_secs_f64()))
}

fn tempfile_dir() -> Result<std::path::PathBuf, Failure> {
    let dir = std::env::temp_dir().join(format!("avrlab-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!("cannot create {}: {e}", dir.display()))
    })?;
    Ok(dir)
}
