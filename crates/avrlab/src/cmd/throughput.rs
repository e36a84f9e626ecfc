//! `avrlab throughput`: candidate validations per minute on a benchmark's reference check, for
//! each engine (`--engine fast,maven`) with 1 worker and with N, on the same candidates in one
//! run, with the ratio to Maven and the agreement of their verdicts. The fast engine is measured
//! twice: raw (no Maven cross-checks) and end to end (every Plausible confirmed by Maven, plus the
//! re-check sample). With `--eval-samples`, also the end-to-end throughput of `eval` with the
//! template baseline (a model that costs nothing), so that generation cost does not hide
//! validation cost.

use std::process::ExitCode;

use avrlab_run::input::{
    MalformedPatches, PlannedCandidate, read_predictions, reference_candidates,
};
use avrlab_run::throughput::{
    EngineMeasurement, measure_engines, measure_eval, measure_plain, mutant_candidates,
    render_measurements,
};
use avrlab_store::RunMode;
use avrlab_validate::{BuildToolOracle, FastOracle};

use super::Failure;
use super::options::{EngineArg, ValidationOptions, fast_config, oracle_for};
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
    /// Instead of each task's vulnerable state and reference fix: its reference fix and this
    /// many mechanical mutants of its localized method (tasks without one are left out).
    #[arg(long, default_value_t = 0)]
    pub mutants: usize,
    /// The seed that picks the mutants.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Measure the Maven engine on the first N candidates only (0: all of them).
    #[arg(long, default_value_t = 0)]
    pub maven_sample: usize,
    /// Also measure the naive way, one plain `mvn test` per candidate (as Vul4J validates), on
    /// the first N candidates, one at a time.
    #[arg(long, default_value_t = 0)]
    pub plain_sample: usize,
    /// Measure the fast engine raw only (not again with Maven confirming its Plausibles).
    #[arg(long)]
    pub fast_raw_only: bool,
    /// Measure on these candidates (a predictions file, as for `validate --patches`) instead of
    /// the benchmark's reference check; candidates that do not apply count as `ApplyFailed`.
    #[arg(long, conflicts_with = "mutants")]
    pub patches: Option<std::path::PathBuf>,
}

#[expect(clippy::print_stderr, reason = "notes on the measurement go to stderr")]
fn note(line: &str) {
    eprintln!("{line}");
}

#[expect(
    clippy::print_stdout,
    reason = "the measurement is the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
    if args.measure_workers.contains(&0) {
        return Err(Failure::input(anyhow::anyhow!(
            "--measure-workers takes counts of at least 1"
        )));
    }
    let benchmark = args.options.repair_benchmark("throughput")?;
    let scratch = tempfile_dir()?;
    // One work folder and one oracle per engine for the whole measurement, so that the fast
    // engine's warm-up (and its JVMs) are paid once, like Maven's dependency cache.
    let (mut config, _work) = args.options.engine(args.patches.is_some())?;
    let mut engines: Vec<EngineArg> = args.options.engine.clone();
    engines.dedup();
    let fast = engines.contains(&EngineArg::Fast).then(|| {
        // As many primed JVMs per task as the most workers measured.
        let workers = args.measure_workers.iter().copied().max().unwrap_or(1);
        FastOracle::new(
            config.validator.clone(),
            fast_config(&args.options, workers),
        )
    });
    let maven = BuildToolOracle::new(config.validator.clone());
    let candidates = if let Some(path) = &args.patches {
        read_predictions(path, &benchmark, MalformedPatches::Record).map_err(Failure::input)?
    } else if args.mutants > 0 {
        mutant_candidates(&benchmark, &maven, args.mutants, args.seed, &note)?
    } else {
        reference_candidates(&benchmark)
    };
    let maven_candidates: Vec<PlannedCandidate> = match args.maven_sample {
        0 => candidates.clone(),
        n => candidates.iter().take(n).cloned().collect(),
    };
    let mode = if args.patches.is_some() {
        RunMode::Patches
    } else {
        RunMode::Reference
    };
    let progress = StderrProgress::new();
    let measured = EngineMeasurement {
        fast: fast.as_ref(),
        fast_raw_only: args.fast_raw_only,
        maven: engines.contains(&EngineArg::Maven).then_some(&maven),
        candidates: candidates.clone(),
        maven_candidates,
    };
    let mut rows = measure_engines(
        &measured,
        &args.measure_workers,
        &scratch,
        &benchmark,
        mode,
        &mut config,
        &progress,
    )?;
    if args.plain_sample > 0 {
        let sample = &candidates[..args.plain_sample.min(candidates.len())];
        rows.push(measure_plain(&benchmark, &maven, sample, &note)?);
    }
    let eval = if args.eval_samples > 0 {
        let (config, _work) = args.options.engine(true)?;
        let engine = engines.first().copied().unwrap_or(EngineArg::Fast);
        let oracle = oracle_for(engine, &args.options, &config);
        let measured = measure_eval(
            &benchmark,
            args.eval_samples,
            oracle.as_ref(),
            &config,
            &scratch,
            &progress,
        )?;
        Some(measured)
    } else {
        None
    };
    let _ = std::fs::remove_dir_all(&scratch);
    let engine = engines.first().map_or("fast", |e| e.as_str());
    print!(
        "{}",
        render_measurements(
            &rows,
            candidates.len(),
            eval.map(|m| (args.eval_samples, engine, m))
        )
    );
    Ok(ExitCode::SUCCESS)
}

fn tempfile_dir() -> Result<std::path::PathBuf, Failure> {
    let dir = std::env::temp_dir().join(format!("avrlab-throughput-{}", std::process::id()));
    std::fs::create_dir_all(&dir).map_err(|e| {
        Failure::infrastructure(anyhow::anyhow!("cannot create {}: {e}", dir.display()))
    })?;
    Ok(dir)
}
