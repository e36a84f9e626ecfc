//! What `avrlab throughput` measures: the validation phase of a run (candidates per minute) on
//! one engine and worker count, the naive way (one plain `mvn test` per candidate), and `eval`
//! with the template baseline end to end; and where two measured engines gave different verdicts.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use avrlab_bench::Benchmark;
use avrlab_core::{Blame, Blamed};
use avrlab_store::{RunMode, Store, StoreError};
use avrlab_validate::{BuildToolOracle, Candidate, FastOracle, Oracle, ValidateError};

use crate::run::input::PlannedCandidate;
use crate::run::run_loop::{Progress, RunError, RunRequest, RunSettings, execute};
use crate::workflows::eval::{EvalError, EvalRequest, EvalSpec, execute_eval};
use crate::workflows::mutants::mutants;

/// Why a measurement could not be made (the candidates' verdicts are data, not errors).
#[derive(Debug, thiserror::Error)]
pub enum ThroughputError {
    /// A task could not be materialized, warmed up or validated.
    #[error(transparent)]
    Validate(#[from] ValidateError),
    /// The measurement's store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The measured run failed.
    #[error(transparent)]
    Engine(#[from] RunError),
    /// The measured eval failed.
    #[error(transparent)]
    Eval(#[from] EvalError),
    /// A task's source file could not be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Some tasks could not be warmed up, so the measurement would leave their candidates out.
    #[error("{0} task(s) could not be warmed up: {1}")]
    Unprepared(usize, String),
}

impl Blamed for ThroughputError {
    fn blame(&self) -> Blame {
        match self {
            Self::Store(e) => e.blame(),
            Self::Engine(e) => e.blame(),
            Self::Eval(e) => e.blame(),
            Self::Validate(_) | Self::Read { .. } | Self::Unprepared(..) => Blame::Infrastructure,
        }
    }
}

/// One measured run: an engine (or `plain-mvn`) with a number of workers.
#[derive(Debug, Clone)]
pub struct Measurement {
    pub engine: &'static str,
    pub workers: usize,
    pub candidates: usize,
    pub seconds: f64,
    /// Per candidate id: its outcome's word (for `plain-mvn`: passes, fails, does not apply).
    pub outcomes: BTreeMap<String, String>,
    /// Per candidate id: the reason its verdict gives (shown where the engines differ).
    pub reasons: BTreeMap<String, String>,
}

impl Measurement {
    pub(crate) fn per_minute(&self) -> f64 {
        self.candidates as f64 / self.seconds * 60.0
    }

    /// One line per candidate whose outcome differs from `base`'s.
    pub(crate) fn differences(&self, base: &Measurement) -> Vec<String> {
        let why = |m: &Measurement, id: &str| m.reasons.get(id).cloned().unwrap_or_default();
        base.outcomes
            .iter()
            .filter(|(id, outcome)| self.outcomes.get(*id) != Some(outcome))
            .map(|(id, outcome)| {
                format!(
                    "{id}: {} {} ({}); {} {outcome} ({})",
                    self.engine,
                    self.outcomes.get(id).map_or("none", String::as_str),
                    why(self, id),
                    base.engine,
                    why(base, id)
                )
            })
            .collect()
    }
}

/// The engines a throughput measurement compares, on which candidates.
#[derive(Debug)]
pub struct EngineMeasurement<'a> {
    /// The fast engine, measured raw (no Maven cross-checks) and, unless `fast_raw_only`, end
    /// to end (its Plausibles confirmed by Maven).
    pub fast: Option<&'a FastOracle>,
    pub fast_raw_only: bool,
    /// The Maven engine, measured on `maven_candidates`.
    pub maven: Option<&'a BuildToolOracle>,
    pub candidates: Vec<PlannedCandidate>,
    pub maven_candidates: Vec<PlannedCandidate>,
}

/// Measures each engine of `engines` with each worker count, one store per measurement in
/// `scratch`, in the order given.
pub fn measure_engines(
    engines: &EngineMeasurement<'_>,
    workers: &[usize],
    scratch: &Path,
    benchmark: &Benchmark,
    mode: RunMode,
    config: &mut RunSettings,
    progress: &dyn Progress,
) -> Result<Vec<Measurement>, ThroughputError> {
    let mut rows = Vec::new();
    for &count in workers {
        config.workers = count;
        let mut measure = |label: &'static str,
                           oracle: &dyn Oracle,
                           planned: &Vec<PlannedCandidate>|
         -> Result<(), ThroughputError> {
            let store = scratch.join(format!("throughput-{label}-{count}.sqlite"));
            rows.push(measure_run(
                &store,
                label,
                benchmark,
                mode,
                planned.clone(),
                oracle,
                config,
                progress,
            )?);
            Ok(())
        };
        if let Some(fast) = engines.fast {
            fast.set_cross_checks(false);
            measure("fast-raw", fast, &engines.candidates)?;
            fast.set_cross_checks(true);
            if !engines.fast_raw_only {
                measure("fast+confirm", fast, &engines.candidates)?;
            }
        }
        if let Some(maven) = engines.maven {
            measure("maven", maven, &engines.maven_candidates)?;
        }
    }
    Ok(rows)
}

/// One run of `planned` on `oracle` into a fresh store at `store_path`; only the validation
/// phase is timed (preparing tasks and warming up happen once per task and would blur the
/// comparison).
#[expect(clippy::too_many_arguments, reason = "one measurement's whole setting")]
pub(crate) fn measure_run(
    store_path: &Path,
    label: &'static str,
    benchmark: &Benchmark,
    mode: RunMode,
    planned: Vec<PlannedCandidate>,
    oracle: &dyn Oracle,
    config: &RunSettings,
    progress: &dyn Progress,
) -> Result<Measurement, ThroughputError> {
    let mut store = Store::open(store_path)?;
    let count = planned.len();
    let request = RunRequest {
        mode,
        benchmark,
        planned,
        run_id: Some(format!("{label}-{}", config.workers)),
        resume: false,
        config: avrlab_core::RunConfig::default(),
        retry: crate::run::run_loop::VerdictRetry::default(),
        plan: None,
    };
    let report = execute(&mut store, request, config, oracle, progress)?;
    if !report.unprepared.is_empty() {
        let tasks: Vec<String> = report
            .unprepared
            .iter()
            .map(|(task, reason)| format!("{task} ({reason})"))
            .collect();
        return Err(ThroughputError::Unprepared(tasks.len(), tasks.join("; ")));
    }
    let verdicts = store.verdicts(&report.run_id)?;
    Ok(Measurement {
        engine: label,
        workers: config.workers,
        candidates: count,
        seconds: report.validation_wall.as_secs_f64(),
        reasons: verdicts
            .iter()
            .map(|v| (v.candidate_id.clone(), v.reason.clone()))
            .collect(),
        outcomes: verdicts
            .into_iter()
            .map(|v| (v.candidate_id, v.outcome.as_str().to_owned()))
            .collect(),
    })
}

/// The reference fix and `count` mutants of the localized method of each task that has one, read
/// from the task state as the oracle materializes it; `note` hears which tasks are left out.
pub fn mutant_candidates(
    benchmark: &Benchmark,
    maven: &BuildToolOracle,
    count: usize,
    seed: u64,
    note: &dyn Fn(&str),
) -> Result<Vec<PlannedCandidate>, ThroughputError> {
    let mut planned = Vec::new();
    for task in &benchmark.tasks {
        let Some(loc) = task.localization.first() else {
            note(&format!(
                "{}: no localized method, so no mutants; left out",
                task.id
            ));
            continue;
        };
        let prepared = maven.materialize(task)?;
        let path = prepared.pristine().join(&loc.file);
        let text = std::fs::read_to_string(&path).map_err(|source| ThroughputError::Read {
            path: path.clone(),
            source,
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
                candidate: Candidate::Diff(reference.clone()),
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

/// One plain `mvn test` per candidate, one at a time (see `BuildToolOracle::plain`): the way Vul4J
/// validates. `note` hears each candidate's result.
pub fn measure_plain(
    benchmark: &Benchmark,
    maven: &BuildToolOracle,
    candidates: &[PlannedCandidate],
    note: &dyn Fn(&str),
) -> Result<Measurement, ThroughputError> {
    let mut prepared = BTreeMap::new();
    for task in &benchmark.tasks {
        if candidates.iter().any(|c| c.task == task.id) {
            let ready = maven.materialize(task)?;
            maven.warm_up(&ready)?;
            prepared.insert(task.id.clone(), ready);
        }
    }
    let started = std::time::Instant::now();
    let mut outcomes = BTreeMap::new();
    for candidate in candidates {
        let ready = &prepared[&candidate.task];
        let outcome = match maven.plain(ready, &candidate.candidate, "plain")? {
            Some(true) => "passes",
            Some(false) => "fails",
            None => "does not apply",
        };
        note(&format!("plain mvn test: {} {outcome}", candidate.id));
        outcomes.insert(candidate.id.clone(), outcome.to_owned());
    }
    Ok(Measurement {
        engine: "plain-mvn",
        workers: 1,
        candidates: candidates.len(),
        seconds: started.elapsed().as_secs_f64(),
        outcomes,
        reasons: BTreeMap::new(),
    })
}

/// What `eval` with the template baseline cost end to end.
#[derive(Debug, Clone, Copy)]
pub struct EvalMeasurement {
    pub samples: usize,
    /// Distinct candidates among the samples (the rest were validated once for all).
    pub candidates: usize,
    pub seconds: f64,
}

/// Runs `eval` with the template baseline (a model that costs nothing), `samples` per task, in
/// `scratch`, so that generation cost does not hide validation cost.
pub fn measure_eval(
    benchmark: &Benchmark,
    samples: u32,
    oracle: &dyn Oracle,
    config: &RunSettings,
    scratch: &Path,
    progress: &dyn Progress,
) -> Result<EvalMeasurement, ThroughputError> {
    let mut store = Store::open(&scratch.join("eval.sqlite"))?;
    let spec = EvalSpec {
        model_name: "baseline".into(),
        format: "chat-p1".parse().expect("chat-p1 is a format"),
        samples,
        runs: 1,
        fl_offset: 0,
        temperature: 0.0,
        top_p: 1.0,
        max_tokens: 512,
        seed: 0,
        concurrency: 1,
        price: None,
        max_cost_per_sample: None,
        model_cutoff: None,
    };
    let request = EvalRequest {
        benchmark,
        model: Box::new(avrlab_model::BaselineModel),
        cache: avrlab_model::ResponseCache::new(scratch.join("cache")),
        spec,
        run_id: None,
        resume: false,
        shard: None,
        retry: None,
        max_errors: None,
        max_cost: None,
    };
    let report = execute_eval(&mut store, request, config, oracle, progress)?;
    Ok(EvalMeasurement {
        samples: benchmark.tasks.len() * samples as usize,
        candidates: report.candidates,
        seconds: report.wall.as_secs_f64(),
    })
}

/// The table `avrlab throughput` prints: each measurement with its ratio to Maven's at the same
/// workers, the plain `mvn test` comparison, the engines' agreement with Maven, and the eval
/// measurement (samples per task, engine, measured) when there is one.
pub fn render_measurements(
    rows: &[Measurement],
    all_candidates: usize,
    eval: Option<(u32, &str, EvalMeasurement)>,
) -> String {
    use std::fmt::Write as _;
    let mut text = String::new();
    let _ = writeln!(
        text,
        "{:<13} {:>7}  {:>10}  {:>9}  {:>16}  {:>9}",
        "engine", "workers", "candidates", "seconds", "validations/min", "vs maven"
    );
    let maven_row = |workers: usize| {
        rows.iter()
            .find(|r| r.engine == "maven" && r.workers == workers)
    };
    for row in rows {
        let ratio = maven_row(row.workers).map_or_else(
            || "-".to_owned(),
            |b| format!("{:.1}x", row.per_minute() / b.per_minute()),
        );
        let _ = writeln!(
            text,
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
        let _ = writeln!(
            text,
            "plain `mvn test` per candidate (the Vul4J way), measured on {} of {} candidates: {:.1} validations/min ({passed} pass the whole suite); fast-raw with 1 worker on all {}: {:.1}/min = {:.1}x",
            plain.candidates,
            all_candidates,
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
        let Some(base) = maven_row(row.workers) else {
            continue;
        };
        let differing = row.differences(base);
        let _ = writeln!(
            text,
            "agreement {} vs maven, {} worker(s): {}/{} same outcome{}",
            row.engine,
            row.workers,
            base.outcomes.len() - differing.len(),
            base.outcomes.len(),
            if differing.is_empty() {
                String::new()
            } else {
                format!(" — differing:\n  {}", differing.join("\n  "))
            }
        );
    }
    if let Some((samples_per_task, engine, eval)) = eval {
        let _ = writeln!(
            text,
            "eval (baseline, {} samples per task, {} engine): {} samples, {} distinct candidates in {:.1} s = {:.1} samples/min end to end",
            samples_per_task,
            engine,
            eval.samples,
            eval.candidates,
            eval.seconds,
            eval.samples as f64 / eval.seconds * 60.0
        );
    }
    text
}
