//! `avrlab throughput`: candidate validations per minute on a benchmark's reference check, for
//! each engine (`--engine fast,maven`) with 1 worker and with N, on the same candidates in one
//! run, with the ratio to Maven and the agreement of their verdicts. The fast engine is measured
//! twice: raw (no Maven cross-checks) and end to end (every Plausible confirmed by Maven, plus the
//! re-check sample). With `--eval-samples`, also the end-to-end throughput of `eval` with the
//! template baseline (a model that costs nothing), so that generation cost does not hide
//! validation cost.

use std::collections::BTreeMap;
use std::process::ExitCode;

use avrlab::engine::{RunRequest, execute};
use avrlab::input::{PlannedCandidate, read_patches_file, reference_candidates};
use avrlab::mutants::mutants;
use avrlab_store::Store;
use avrlab_validate::{FastOracle, MavenOracle, Oracle};

use super::Failure;
use super::options::{EngineArg, ValidationOptions, fast_config, oracle_for};
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

/// One measured run.
struct Row {
    engine: &'static str,
    workers: usize,
    candidates: usize,
    seconds: f64,
    outcomes: BTreeMap<String, String>,
    /// Per candidate: the reason its verdict gives (shown where the engines differ).
    reasons: BTreeMap<String, String>,
}

impl Row {
    fn per_minute(&self) -> f64 {
        self.candidates as f64 / self.seconds * 60.0
    }
}

#[expect(
    clippy::print_stdout,
    reason = "the measurement is the command's output"
)]
pub fn run(args: Args) -> Result<ExitCode, Failure> {
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
    let maven = MavenOracle::new(config.validator.clone());
    let candidates = if let Some(path) = &args.patches {
        read_patches_file(path, &benchmark).map_err(Failure::input)?
    } else if args.mutants > 0 {
        mutant_candidates(&benchmark, &maven, args.mutants, args.seed)?
    } else {
        reference_candidates(&benchmark)
    };
    let maven_candidates: Vec<PlannedCandidate> = match args.maven_sample {
        0 => candidates.clone(),
        n => candidates.iter().take(n).cloned().collect(),
    };
    let mut rows: Vec<Row> = Vec::new();
    let mut measure = |label: &'static str,
                       oracle: &dyn Oracle,
                       workers: usize,
                       config: &avrlab::engine::EngineConfig|
     -> Result<(), Failure> {
        let path = scratch.join(format!("throughput-{label}-{workers}.sqlite"));
        let mut store = Store::open(&path).map_err(store_failure)?;
        let planned = if label == "maven" {
            maven_candidates.clone()
        } else {
            candidates.clone()
        };
        let count = planned.len();
        let request = RunRequest {
            mode: if args.patches.is_some() {
                avrlab_store::RunMode::Patches
            } else {
                avrlab_store::RunMode::Reference
            },
            benchmark: &benchmark,
            planned,
            run_id: Some(format!("{label}-{workers}")),
            resume: false,
            config_json: "{}".into(),
        };
        // Only the validation phase is timed: preparing tasks and warming up happen once per
        // task and would blur the comparison.
        let report = execute(&mut store, request, config, oracle, &StderrProgress::new())
            .map_err(Failure::infrastructure)?;
        if let Some(failure) = super::unprepared_failure(&report) {
            return Err(failure);
        }
        let verdicts = store.verdicts(&report.run_id).map_err(store_failure)?;
        let reasons = verdicts
            .iter()
            .map(|v| (v.candidate_id.clone(), v.reason.clone()))
            .collect();
        let outcomes = verdicts
            .into_iter()
            .map(|v| (v.candidate_id, v.outcome.as_str().to_owned()))
            .collect();
        rows.push(Row {
            engine: label,
            workers,
            candidates: count,
            seconds: report.validation_wall.as_secs_f64(),
            outcomes,
            reasons,
        });
        Ok(())
    };
    for &workers in &args.measure_workers {
        if workers == 0 {
            return Err(Failure::input(anyhow::anyhow!(
                "--measure-workers takes counts of at least 1"
            )));
        }
        config.workers = workers;
        for engine in &engines {
            match engine {
                EngineArg::Fast => {
                    let fast = fast.as_ref().expect("made when fast is measured");
                    fast.set_cross_checks(false);
                    measure("fast-raw", fast, workers, &config)?;
                    fast.set_cross_checks(true);
                    if !args.fast_raw_only {
                        measure("fast+confirm", fast, workers, &config)?;
                    }
                }
                EngineArg::Maven => measure("maven", &maven, workers, &config)?,
            }
        }
    }
    if args.plain_sample > 0 {
        rows.push(measure_plain(
            &benchmark,
            &maven,
            &candidates[..args.plain_sample.min(candidates.len())],
        )?);
    }
    let eval = if args.eval_samples > 0 {
        Some(measure_eval(&args, &benchmark, &scratch)?)
    } else {
        None
    };
    let _ = std::fs::remove_dir_all(&scratch);
    println!(
        "{:<13} {:>7}  {:>10}  {:>9}  {:>16}  {:>9}",
        "engine", "workers", "candidates", "seconds", "validations/min", "vs maven"
    );
    for row in &rows {
        let base = rows
            .iter()
            .find(|r| r.engine == "maven" && r.workers == row.workers);
        let ratio = base.map_or_else(
            || "-".to_owned(),
            |b| format!("{:.1}x", row.per_minute() / b.per_minute()),
        );
        println!(
            "{:<13} {:>7}  {:>10}  {:>9.1}  {:>16.1}  {:>9}",
            row.engine,
            row.workers,
            row.candidates,
            row.seconds,
            row.per_minute(),
            ratio
        );
    }
    if let (Some(plain), Some(fast)) = (
        rows.iter().find(|r| r.engine == "plain-mvn"),
        rows.iter()
            .find(|r| r.engine == "fast-raw" && r.workers == 1),
    ) {
        let passed = plain.outcomes.values().filter(|o| *o == "passes").count();
        println!(
            "plain `mvn test` per candidate (the Vul4J way), measured on {} of {} candidates: {:.1} validations/min ({passed} pass the whole suite); fast-raw with 1 worker on all {}: {:.1}/min = {:.1}x",
            plain.candidates,
            candidates.len(),
            plain.per_minute(),
            fast.candidates,
            fast.per_minute(),
            fast.per_minute() / plain.per_minute()
        );
    }
    for row in rows
        .iter()
        .filter(|r| r.engine != "maven" && r.engine != "plain-mvn")
    {
        let Some(base) = rows
            .iter()
            .find(|r| r.engine == "maven" && r.workers == row.workers)
        else {
            continue;
        };
        let differing: Vec<String> = base
            .outcomes
            .iter()
            .filter(|(id, outcome)| row.outcomes.get(*id) != Some(outcome))
            .map(|(id, outcome)| {
                let why = |r: &Row| r.reasons.get(id).cloned().unwrap_or_default();
                format!(
                    "\n  {id}: {} {} ({}); maven {outcome} ({})",
                    row.engine,
                    row.outcomes.get(id).map_or("none", String::as_str),
                    why(row),
                    why(base)
                )
            })
            .collect();
        println!(
            "agreement {} vs maven, {} worker(s): {}/{} same outcome{}",
            row.engine,
            row.workers,
            base.outcomes.len() - differing.len(),
            base.outcomes.len(),
            if differing.is_empty() {
                String::new()
            } else {
                format!(" — differing:{}", differing.join(""))
            }
        );
    }
    if let Some((samples, candidates, seconds)) = eval {
        println!(
            "eval (baseline, {} samples per task, {} engine): {samples} samples, {candidates} distinct candidates in {seconds:.1} s = {:.1} samples/min end to end",
            args.eval_samples,
            engines.first().map_or("fast", |e| e.as_str()),
            samples as f64 / seconds * 60.0
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// The reference fix and `count` mutants of the localized method of each task that has one, read
/// from the task state as the oracle materializes it.
fn mutant_candidates(
    benchmark: &avrlab_bench::Benchmark,
    maven: &MavenOracle,
    count: usize,
    seed: u64,
) -> Result<Vec<PlannedCandidate>, Failure> {
    let mut planned = Vec::new();
    for task in &benchmark.tasks {
        let Some(loc) = task.localization.first() else {
            #[expect(
                clippy::print_stderr,
                reason = "why a task is left out of the measurement"
            )]
            {
                eprintln!("{}: no localized method, so no mutants; left out", task.id);
            }
            continue;
        };
        let prepared = maven.materialize(task).map_err(Failure::infrastructure)?;
        let path = prepared.pristine().join(&loc.file);
        let text = std::fs::read_to_string(&path).map_err(|e| {
            Failure::infrastructure(anyhow::anyhow!("cannot read {}: {e}", path.display()))
        })?;
        let (start, end) = loc.method_lines;
        let method: String = text
            .lines()
            .skip(start as usize - 1)
            .take((end + 1 - start) as usize)
            .map(|l| format!("{l}\n"))
            .collect();
        let origin = task.dir.join("task.toml").display().to_string();
        if let Some(reference) = &task.reference {
            planned.push(PlannedCandidate {
                id: format!("{}/reference", task.id),
                task: task.id.clone(),
                label: "reference".into(),
                candidate: avrlab_validate::Candidate::Diff(reference.clone()),
                origin: origin.clone(),
            });
        }
        for mutant in mutants(&method, 0, count, seed) {
            planned.push(PlannedCandidate {
                id: format!("{}/{}", task.id, mutant.label),
                task: task.id.clone(),
                label: mutant.label,
                candidate: mutant.candidate,
                origin: origin.clone(),
            });
        }
    }
    Ok(planned)
}

/// One plain `mvn test` per candidate, one at a time (see `MavenOracle::plain`).
fn measure_plain(
    benchmark: &avrlab_bench::Benchmark,
    maven: &MavenOracle,
    candidates: &[PlannedCandidate],
) -> Result<Row, Failure> {
    let mut prepared = BTreeMap::new();
    for task in &benchmark.tasks {
        if candidates.iter().any(|c| c.task == task.id) {
            let ready = maven.materialize(task).map_err(Failure::infrastructure)?;
            maven.warm_up(&ready).map_err(Failure::infrastructure)?;
            prepared.insert(task.id.clone(), ready);
        }
    }
    let started = std::time::Instant::now();
    let mut outcomes = BTreeMap::new();
    for candidate in candidates {
        let ready = &prepared[&candidate.task];
        let passed = maven
            .plain(ready, &candidate.candidate, "plain")
            .map_err(Failure::infrastructure)?;
        let outcome = match passed {
            Some(true) => "passes",
            Some(false) => "fails",
            None => "does not apply",
        };
        #[expect(clippy::print_stderr, reason = "progress goes to stderr")]
        {
            eprintln!("plain mvn test: {} {outcome}", candidate.id);
        }
        outcomes.insert(candidate.id.clone(), outcome.to_owned());
    }
    Ok(Row {
        engine: "plain-mvn",
        workers: 1,
        candidates: candidates.len(),
        seconds: started.elapsed().as_secs_f64(),
        outcomes,
        reasons: BTreeMap::new(),
    })
}

/// Runs `eval` with the baseline model: (samples, distinct candidates, seconds).
fn measure_eval(
    args: &Args,
    benchmark: &avrlab_bench::Benchmark,
    scratch: &std::path::Path,
) -> Result<(usize, usize, f64), Failure> {
    use avrlab::eval::{EvalRequest, EvalSpec, execute_eval};
    let (config, _work) = args.options.engine(true)?;
    let engine = args
        .options
        .engine
        .first()
        .copied()
        .unwrap_or(EngineArg::Fast);
    let oracle = oracle_for(engine, &args.options, &config);
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
        concurrency: 1,
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
        oracle.as_ref(),
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
