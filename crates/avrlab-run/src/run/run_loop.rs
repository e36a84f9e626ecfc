//! Running a set of candidates to verdicts: prepare each task once, check every candidate
//! applies, register the run, then validate on N workers (each in its own workspace) and write
//! every verdict to the store the moment it lands. A run stopped at any point is resumed by
//! validating only the candidates that have no verdict yet.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, mpsc};
use std::time::{Duration, Instant};

use avrlab_bench::{Benchmark, Task};
use avrlab_core::{Blame, Blamed, ErrorCause, Outcome, RunConfig};
use avrlab_store::{EngineRow, NewRun, PhaseRow, RunMode, Store, StoreError, TestRow, VerdictRow};
use avrlab_validate::{
    Oracle, PreparedTask, ProjectDigest, ValidateError, ValidatorConfig, Verdict, check_candidate,
};

use crate::run::input::{PlannedCandidate, from_stored_form, input_hash, new_candidates};
pub use crate::run::progress::Progress;
pub(crate) use crate::run::progress::error_chain;
use crate::run::shard::shard_part;

/// How a run is carried out.
#[derive(Debug, Clone)]
pub struct RunSettings {
    pub validator: ValidatorConfig,
    /// Parallel workers, each with its own workspace.
    pub workers: usize,
    /// Record candidates that do not apply as `ApplyFailed` instead of refusing the input.
    pub allow_apply_failures: bool,
    /// Once validated, compare the run's plausible candidates with the reference fix on
    /// generated inputs (`--differential`), before the run is finished.
    pub differential: Option<crate::workflows::diff_test::DiffTestConfig>,
}

/// What to run.
#[derive(Debug)]
pub struct RunRequest<'a> {
    /// Runs of different modes are never resumed into each other.
    pub mode: RunMode,
    pub benchmark: &'a Benchmark,
    pub planned: Vec<PlannedCandidate>,
    /// The run id; a fresh one is made when absent.
    pub run_id: Option<String>,
    /// Continue the named run, or the newest unfinished run of this mode and benchmark.
    pub resume: bool,
    /// Extra settings to store with the run (JSON).
    pub config: RunConfig,
    /// On a resume, which stored verdicts to validate again.
    pub retry: VerdictRetry,
    /// What names the whole plan when `planned` holds only this shard's part of it (a sharded
    /// feature eval asks the model about its own tasks only), so that every shard registers the
    /// same run and `merge` joins them; `None`: `planned` is the whole plan.
    pub plan: Option<String>,
}

/// Which stored verdicts a resumed run validates again (`--retry errored`, `--retry
/// indeterminate,timeout`): each new verdict takes its candidate's place, the earlier attempt is
/// kept in the store with its evidence.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VerdictRetry {
    /// The errored verdicts (the infrastructure failed their validation).
    pub errored: bool,
    /// The verdicts with these outcomes, whatever their class.
    pub outcomes: Vec<Outcome>,
}

impl VerdictRetry {
    /// Whether a stored verdict is to be validated again.
    pub(crate) fn wants(&self, verdict: &avrlab_store::VerdictSummary) -> bool {
        (self.errored && verdict.class == avrlab_store::ItemClass::Errored)
            || self.outcomes.contains(&verdict.outcome)
    }

    /// The candidates of `run_id` decided and not to be validated again; the verdicts to
    /// validate again are superseded (kept as earlier attempts) first.
    fn decided(&self, store: &mut Store, run_id: &str) -> Result<HashSet<String>, StoreError> {
        if *self != Self::default() {
            for verdict in store.verdicts(run_id)? {
                if self.wants(&verdict) {
                    store.supersede_verdict(run_id, &verdict.candidate_id)?;
                }
            }
        }
        store.decided(run_id)
    }
}

/// Where a run ended.
#[derive(Debug, Clone)]
pub struct RunReport {
    pub run_id: String,
    pub candidates: usize,
    /// Verdicts found in the store from an earlier, interrupted attempt.
    pub already_decided: usize,
    /// Candidates validated by this invocation.
    pub validated: usize,
    /// Candidates that shared the verdict of a candidate making the same project.
    pub duplicates: usize,
    pub wall: Duration,
    /// The validation phase alone, without task preparation and dependency warm-up.
    pub validation_wall: Duration,
    pub workers: usize,
    /// The wall time of each stage, in order (materialize, warm up, generate, validate …).
    pub stages: Vec<(&'static str, Duration)>,
    /// Tasks whose warm-up failed, with the reason: their candidates were left undecided and the
    /// run unfinished, so that `--resume` tries them again.
    pub unprepared: Unprepared,
}

impl RunReport {
    /// The tasks the run could not warm up, as one line naming each task and why (their
    /// candidates were left undecided and the run unfinished, so `--resume` retries them), or
    /// `None` when every task was warmed up.
    pub fn unprepared_message(&self) -> Option<String> {
        if self.unprepared.is_empty() {
            return None;
        }
        let tasks: Vec<String> = self
            .unprepared
            .iter()
            .map(|(task, reason)| format!("{task} ({reason})"))
            .collect();
        Some(format!(
            "run {}: {} task(s) could not be warmed up and their candidates were not validated: {}; \
             fix the cause and continue with --resume --run {} (a node without network needs \
             `avrlab warm-up --benchmark …` run on one with network first)",
            self.run_id,
            tasks.len(),
            tasks.join("; "),
            self.run_id
        ))
    }

    /// The report of a run whose candidates (`counts`: how many, how many decided before) have
    /// been validated.
    fn new(
        run_id: String,
        counts: (usize, usize),
        tally: &ValidationTally,
        started: Instant,
        clock: StageClock,
        unprepared: Unprepared,
    ) -> Self {
        Self {
            run_id,
            candidates: counts.0,
            already_decided: counts.1,
            validated: tally.validated,
            duplicates: tally.duplicates,
            wall: started.elapsed(),
            validation_wall: tally.wall,
            workers: tally.workers,
            stages: clock.into_stages(),
            unprepared,
        }
    }

    /// The run's closing line: what was validated now, resumed or shared, in how long, and
    /// where it is stored.
    pub fn describe(&self, store: &std::path::Path) -> String {
        format!(
            "run {}: {} ({} validated now, {} resumed, {} duplicates) in {:.1} s; stored in {}",
            self.run_id,
            avrlab_core::counted(self.candidates, "candidate"),
            self.validated,
            self.already_decided,
            self.duplicates,
            self.wall.as_secs_f64(),
            store.display()
        )
    }
}

/// Tasks that could not be warmed up, by id, with the reason (the error and its causes).
pub(crate) type Unprepared = BTreeMap<String, String>;

/// Times the stages of a run.
#[derive(Debug)]
pub(crate) struct StageClock {
    last: Instant,
    stages: Vec<(&'static str, Duration)>,
}

impl StageClock {
    pub(crate) fn start() -> Self {
        Self {
            last: Instant::now(),
            stages: Vec::new(),
        }
    }

    /// Ends the stage `name` now.
    pub(crate) fn lap(&mut self, name: &'static str) {
        let now = Instant::now();
        self.stages.push((name, now - self.last));
        self.last = now;
    }

    pub(crate) fn into_stages(self) -> Vec<(&'static str, Duration)> {
        self.stages
    }
}

/// `materialize 0.2 s, warm-up 9.1 s, …`
pub fn describe_stages(stages: &[(&'static str, Duration)]) -> String {
    stages
        .iter()
        .map(|(name, wall)| format!("{name} {:.1} s", wall.as_secs_f64()))
        .collect::<Vec<_>>()
        .join(", ")
}

/// Why a run could not be carried out.
#[derive(Debug, thiserror::Error)]
pub enum RunError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// Validation infrastructure failed; the run stays resumable.
    #[error(transparent)]
    Validate(#[from] ValidateError),
    /// `--resume` found nothing to resume.
    #[error(
        "no unfinished `{mode}` run of benchmark `{benchmark}` in {store}: start one without --resume"
    )]
    NothingToResume {
        mode: String,
        benchmark: String,
        store: String,
    },
    /// The named run does not exist.
    #[error("the store has no run `{0}`")]
    UnknownRun(String),
    /// A shard's run met, in its store, the run of another shard of the same plan.
    #[error(
        "{store} holds shard {theirs} of this plan (run `{run}`): each shard's verdicts go to a store of their own; run shard {ours} with another --store, then join the stores with `avrlab merge --into STORE SHARD_STORE…`"
    )]
    OtherShard {
        run: String,
        store: String,
        theirs: avrlab_core::Shard,
        ours: avrlab_core::Shard,
    },
    /// The input differs from the run being resumed.
    #[error(
        "run `{0}` was started with other candidates or tasks; resume it with the same input, or start a new run"
    )]
    InputChanged(String),
    /// Candidates that would not apply (refused unless `--allow-apply-failures`).
    #[error(
        "{origin}: the candidate for {task} does not apply: {message}{more}; nothing was run (pass --allow-apply-failures to record such candidates as ApplyFailed)"
    )]
    DoesNotApply {
        origin: String,
        task: String,
        message: String,
        more: String,
    },
}

impl Blamed for RunError {
    fn blame(&self) -> Blame {
        match self {
            Self::Store(e) => e.blame(),
            Self::Validate(_) => Blame::Infrastructure,
            Self::NothingToResume { .. }
            | Self::UnknownRun(_)
            | Self::OtherShard { .. }
            | Self::InputChanged(_)
            | Self::DoesNotApply { .. } => Blame::Input,
        }
    }
}

fn verdict_row(verdict: &Verdict) -> VerdictRow {
    VerdictRow {
        outcome: verdict.outcome,
        reason: verdict.reason.clone(),
        wall_ms: verdict.wall.as_millis() as u64,
        diagnostics: verdict.diagnostics.clone(),
        phases: phase_rows(&verdict.phases),
        tests: verdict
            .tests
            .iter()
            .map(|t| TestRow {
                phase: t.phase,
                class: t.class.clone(),
                method: t.method.clone(),
                status: t.status,
                seconds: t.seconds,
                message: t.message.clone(),
            })
            .collect(),
        engine: engine_row(&verdict.engine),
        error_cause: verdict.errored,
    }
}

/// The stored form of a feature verdict's two groups of tests.
fn feature_score_row(score: &avrlab_validate::FeatureScore) -> avrlab_store::FeatureScoreRow {
    use avrlab_validate::Judged;
    let group = |judged: &Judged| match judged {
        Judged::Pass => avrlab_core::TestGroupResult::Pass,
        Judged::Fail(_) => avrlab_core::TestGroupResult::Fail,
        Judged::Undecided(_) => avrlab_core::TestGroupResult::Undecided,
    };
    avrlab_store::FeatureScoreRow {
        func: group(&score.functional),
        func_reason: score.functional.reason().to_owned(),
        sec: group(&score.security),
        sec_reason: score.security.reason().to_owned(),
    }
}

/// The stored rows of a verdict's phases.
pub(crate) fn phase_rows(phases: &[avrlab_validate::PhaseRecord]) -> Vec<PhaseRow> {
    phases
        .iter()
        .map(|p| PhaseRow {
            phase: p.phase,
            wall_ms: p.wall.as_millis() as u64,
            exit: p.exit.clone(),
            enforcement: p.enforcement.clone(),
            log: p.log_excerpt.clone(),
        })
        .collect()
}

/// The stored row of which engine decided; `None` when the verdict names none (a stand-in
/// oracle's).
fn engine_row(engine: &avrlab_validate::EngineRecord) -> Option<EngineRow> {
    let decided_by = engine.engine?;
    let check = engine.cross_check.as_ref();
    Some(EngineRow {
        engine: decided_by,
        fallback: engine.fallback.clone(),
        check_kind: check.map(|c| c.kind),
        fast_outcome: check.map(|c| c.fast),
        fast_reason: check.map(|c| c.fast_reason.clone()),
        maven_outcome: check.map(|c| c.maven),
        flags: engine.flags.clone(),
    })
}

/// The id of a sharded run started without `--run`: the same for every shard of one plan.
fn plan_run_id(mode: &str, benchmark: &str, hash: &str) -> String {
    let short: String = hash.chars().take(12).collect();
    format!("{mode}-{benchmark}-{short}")
}

fn fresh_run_id(mode: &str, benchmark: &str) -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    format!("{mode}-{benchmark}-{secs}")
}

/// Writes each task's state once (no build tool runs).
pub(crate) fn materialize_tasks(
    oracle: &dyn Oracle,
    tasks: &[&Task],
) -> Result<HashMap<String, PreparedTask>, RunError> {
    let mut prepared = HashMap::new();
    for task in tasks {
        prepared.insert(task.id.clone(), oracle.materialize(task)?);
    }
    Ok(prepared)
}

/// Materializes and warms up every task of `tasks` without validating anything: what a node
/// with network does before shards run offline (the Maven repository, the fast path's states and
/// the baselines are then in the shared caches). Returns the tasks that could not be warmed up.
pub fn warm_up_only(
    oracle: &dyn Oracle,
    tasks: &[&Task],
    workers: usize,
    progress: &dyn Progress,
) -> Result<Unprepared, RunError> {
    let prepared = materialize_tasks(oracle, tasks)?;
    warm_up_tasks(oracle, &prepared, workers, progress)
}

/// Warms up each materialized task (the networked step: dependencies, classpaths), up to
/// `workers` tasks at a time (the oracle serializes what writes the shared cache). A task that
/// cannot be warmed up (a project that does not build here, a download that failed) does not stop
/// the others: it is returned with the reason, even when every task failed so (a reference check
/// shows each as a row). When no task could be warmed up and some failure was the harness's (no
/// sandbox, a changed cache), the first such error is returned instead: no run can go on.
pub(crate) fn warm_up_tasks(
    oracle: &dyn Oracle,
    prepared: &HashMap<String, PreparedTask>,
    workers: usize,
    progress: &dyn Progress,
) -> Result<Unprepared, RunError> {
    let mut ids: Vec<&String> = prepared.keys().collect();
    ids.sort();
    let next = AtomicUsize::new(0);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..workers.clamp(1, ids.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let index = next.fetch_add(1, Ordering::Relaxed);
                    let Some(id) = ids.get(index) else { break };
                    if oracle.is_warm(&prepared[*id]) {
                        continue;
                    }
                    progress.message(&format!(
                        "warming up {id} for the {} engine (dependencies)",
                        oracle.name()
                    ));
                    let started = Instant::now();
                    let warmed = oracle.warm_up(&prepared[*id]);
                    // The warm-up (dependencies and the baseline's two runs of the suite) is a
                    // real task's largest single cost; its time is said either way.
                    let seconds = started.elapsed().as_secs();
                    if let Err(error) = warmed {
                        let reason = error_chain(&error);
                        progress.message(&format!(
                            "warming up {id} failed after {seconds} s; its candidates stay undecided: {reason}"
                        ));
                        failures.lock().unwrap_or_else(|p| p.into_inner()).push((
                            index,
                            (*id).clone(),
                            reason,
                            error,
                        ));
                    } else {
                        progress.message(&format!("warmed up {id} in {seconds} s"));
                    }
                }
            });
        }
    });
    let mut failures = failures.into_inner().unwrap_or_else(|p| p.into_inner());
    failures.sort_by_key(|(index, ..)| *index);
    let mut unprepared = Unprepared::new();
    let mut harness_error = None;
    for (_, id, reason, error) in failures {
        unprepared.insert(id, reason);
        if !error.is_task_failure() {
            harness_error.get_or_insert(error);
        }
    }
    match harness_error {
        Some(error) if unprepared.len() == prepared.len() => Err(error.into()),
        _ => Ok(unprepared),
    }
}

/// What eval and replay do once every candidate of their run is stored: warm the tasks up, then
/// validate each stored candidate that has no verdict yet, and report the run.
#[derive(Debug)]
pub(crate) struct StoredRun<'a> {
    pub run_id: String,
    pub workshop: Workshop<'a>,
    /// When the run's invocation started, and its stages so far.
    pub started: Instant,
    pub clock: StageClock,
    /// Which stored verdicts to validate again.
    pub retry: VerdictRetry,
}

/// Validates a [`StoredRun`].
pub(crate) fn validate_stored_run(
    store: &mut Store,
    run: StoredRun<'_>,
    progress: &dyn Progress,
) -> Result<RunReport, RunError> {
    let StoredRun {
        run_id,
        workshop,
        started,
        mut clock,
        retry,
    } = run;
    let planned: Vec<PlannedCandidate> = store
        .candidates(&run_id)?
        .into_iter()
        .filter_map(|c| {
            let candidate = from_stored_form(c.kind, &c.content)?;
            Some(PlannedCandidate {
                origin: c.id.clone(),
                id: c.id,
                task: c.task,
                label: c.label,
                candidate,
            })
        })
        .collect();
    // Only the tasks that have candidates are warmed up (a shard of a replay materializes every
    // task of the plan but stores the candidates of its own tasks only).
    let with_candidates: HashMap<String, PreparedTask> = workshop
        .prepared
        .iter()
        .filter(|(id, _)| planned.iter().any(|p| &p.task == *id))
        .map(|(id, task)| (id.clone(), task.clone()))
        .collect();
    let unprepared = warm_up_tasks(
        workshop.oracle,
        &with_candidates,
        workshop.config.workers,
        progress,
    )?;
    clock.lap("warm-up");
    let decided = retry.decided(store, &run_id)?;
    let tally = validate_warmed(
        store,
        &run_id,
        &planned,
        &decided,
        &workshop,
        &unprepared,
        progress,
    )?;
    clock.lap("validate");
    let counts = (planned.len(), decided.len());
    Ok(RunReport::new(
        run_id, counts, &tally, started, clock, unprepared,
    ))
}

/// Validates the pending candidates of the tasks that were warmed up, then finishes the run; when
/// some task was not, the run is left unfinished with the reason recorded, for `--resume`.
pub(crate) fn validate_warmed(
    store: &mut Store,
    run_id: &str,
    planned: &[PlannedCandidate],
    decided: &HashSet<String>,
    workshop: &Workshop<'_>,
    unprepared: &Unprepared,
    progress: &dyn Progress,
) -> Result<ValidationTally, RunError> {
    let ready: Vec<PlannedCandidate> = planned
        .iter()
        .filter(|p| !unprepared.contains_key(&p.task))
        .cloned()
        .collect();
    let tally =
        validate_pending(store, run_id, &ready, decided, workshop, progress).inspect_err(|e| {
            let _ = store.record_run_error(run_id, &e.to_string());
        })?;
    if let Some(differential) = &workshop.config.differential {
        let validator = &workshop.config.validator;
        crate::workflows::diff_test::diff_test_new(
            store,
            run_id,
            workshop.prepared,
            (validator, differential, workshop.config.workers),
            progress,
        )?;
    }
    if unprepared.is_empty() {
        store.finish_run(run_id)?;
    } else {
        let reasons: Vec<String> = unprepared
            .iter()
            .map(|(task, reason)| format!("{task}: {reason}"))
            .collect();
        store.record_run_error(
            run_id,
            &format!("tasks not warmed up: {}", reasons.join("; ")),
        )?;
    }
    Ok(tally)
}

/// Refuses the input if any candidate would not apply or breaks the edit policy. Runs on the
/// materialized states, before any warm-up.
pub(crate) fn preflight(
    planned: &[PlannedCandidate],
    prepared: &HashMap<String, PreparedTask>,
) -> Result<(), RunError> {
    let failures: Vec<(&PlannedCandidate, String)> = planned
        .iter()
        .filter_map(|p| {
            let ready = &prepared[&p.task];
            check_candidate(&ready.task, ready.classes(), &p.candidate, ready.pristine())
                .err()
                .map(|e| (p, e.to_string()))
        })
        .collect();
    match failures.first() {
        None => Ok(()),
        Some((first, message)) => Err(RunError::DoesNotApply {
            origin: first.origin.clone(),
            task: first.task.clone(),
            message: message.clone(),
            more: match failures.len() {
                1 => String::new(),
                n => format!(" (and {} more candidates)", n - 1),
            },
        }),
    }
}

/// What validating a run's pending candidates did.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ValidationTally {
    pub validated: usize,
    pub duplicates: usize,
    pub wall: Duration,
    pub workers: usize,
}

/// What validation works with: the prepared tasks, the oracle, and how many workers.
pub(crate) struct Workshop<'a> {
    pub prepared: &'a HashMap<String, PreparedTask>,
    pub oracle: &'a dyn Oracle,
    pub config: &'a RunSettings,
}

impl std::fmt::Debug for Workshop<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Workshop")
            .field("tasks", &self.prepared.len())
            .field("oracle", &self.oracle.name())
            .field("workers", &self.config.workers)
            .finish()
    }
}

/// Validates every candidate of `planned` without a verdict in `decided`, on parallel workers,
/// storing each verdict as it lands. Candidates that make the same project are validated once.
pub(crate) fn validate_pending(
    store: &mut Store,
    run_id: &str,
    planned: &[PlannedCandidate],
    decided: &HashSet<String>,
    workshop: &Workshop<'_>,
    progress: &dyn Progress,
) -> Result<ValidationTally, RunError> {
    let Workshop {
        prepared,
        oracle,
        config,
    } = *workshop;
    let workers = config.workers;
    // Candidates that make the same project are validated once: the first is the representative
    // of its group. One that does not apply is a group of its own.
    let mut work: Vec<Vec<usize>> = Vec::new();
    let mut group_of: HashMap<ProjectDigest, usize> = HashMap::new();
    for (index, candidate) in planned.iter().enumerate() {
        if decided.contains(&candidate.id) {
            continue;
        }
        let identity = prepared[&candidate.task].candidate_identity(&candidate.candidate);
        if let Some(project) = identity.project() {
            if let Some(&group) = group_of.get(project) {
                work[group].push(index);
                continue;
            }
            group_of.insert(project.clone(), work.len());
        }
        work.push(vec![index]);
    }

    let mut per_task: HashMap<&str, usize> = HashMap::new();
    for group in &work {
        *per_task.entry(planned[group[0]].task.as_str()).or_default() += 1;
    }
    for (task, count) in per_task {
        oracle.expect_candidates(task, count);
    }
    progress.start(planned.len(), decided.len());
    let started = Instant::now();
    let workers = workers.max(1).min(work.len().max(1));
    let next = AtomicUsize::new(0);
    let abort = AtomicBool::new(false);
    let machine = Machine::default();
    let mut failure: Option<RunError> = None;
    let mut validated = 0;
    let mut duplicates = 0;
    std::thread::scope(|scope| {
        let (sender, receiver) = mpsc::channel::<(usize, Result<Verdict, ValidateError>)>();
        for worker in 0..workers {
            let sender = sender.clone();
            let (work, next, abort, machine) = (&work, &next, &abort, &machine);
            scope.spawn(move || {
                loop {
                    let item = next.fetch_add(1, Ordering::SeqCst);
                    if item >= work.len() || abort.load(Ordering::SeqCst) {
                        break;
                    }
                    let candidate = &planned[work[item][0]];
                    let slot = format!("worker-{worker}");
                    let validate =
                        || oracle.validate(&prepared[&candidate.task], &candidate.candidate, &slot);
                    let result = machine.judge(validate, || {
                        progress.message(&format!(
                            "{}: outlived its time limit beside another candidate; validating \
                             it again alone",
                            candidate.id
                        ));
                    });
                    if sender.send((item, result)).is_err() {
                        break;
                    }
                }
            });
        }
        drop(sender);
        for (item, result) in receiver {
            let verdict = match result {
                Ok(verdict) => verdict,
                // A write that found the disk full is the machine's failure: the candidate is
                // errored (validated again by `--retry errored`) and the others go on.
                Err(error) if error.is_disk_full() => Verdict::errored(
                    ErrorCause::DiskFull,
                    format!("the disk was full: {}", error_chain(&error)),
                ),
                Err(error) => {
                    abort.store(true, Ordering::SeqCst);
                    failure.get_or_insert(error.into());
                    continue;
                }
            };
            // Verdicts that finish after a failure are real: they are kept.
            let members = &work[item];
            let representative = &planned[members[0]];
            let verdict = match killed_again(store, run_id, &representative.id, verdict) {
                Ok(verdict) => verdict,
                Err(error) => {
                    abort.store(true, Ordering::SeqCst);
                    failure.get_or_insert(error.into());
                    continue;
                }
            };
            for (position, &index) in members.iter().enumerate() {
                let candidate = &planned[index];
                let mut shared = verdict.clone();
                if position > 0 {
                    shared.reason = format!("same as {}: {}", representative.id, verdict.reason);
                    duplicates += 1;
                }
                let row = verdict_row(&shared);
                let recorded = match &shared.feature {
                    Some(score) => store.record_feature_verdict(
                        run_id,
                        &candidate.id,
                        &row,
                        &feature_score_row(score),
                    ),
                    None => store.record_verdict(run_id, &candidate.id, &row),
                };
                if let Err(error) = recorded {
                    abort.store(true, Ordering::SeqCst);
                    failure.get_or_insert(error.into());
                    break;
                }
                progress.verdict(candidate, &shared);
            }
            validated += 1;
        }
    });
    progress.finish();
    match failure {
        Some(error) => Err(error),
        None => Ok(ValidationTally {
            validated,
            duplicates,
            wall: started.elapsed(),
            workers,
        }),
    }
}

/// How the run's workers share the machine. They validate side by side, but a `Timeout` is the
/// one outcome that a neighbour can cause (a fork bomb's churn, or any busy candidate, slows every
/// process beside it), and a verdict must not depend on which candidates ran beside it: so a
/// candidate that outlived its time limit while another validation ran is validated again with
/// the machine to itself (the other workers finish what they hold and wait), and that verdict
/// counts.
#[derive(Default)]
struct Machine {
    /// Held shared by each validation, alone by a re-run.
    turn: std::sync::RwLock<()>,
    /// Validations running now.
    running: AtomicUsize,
    /// Validations started so far.
    started: AtomicUsize,
}

impl Machine {
    /// The verdict of `validate`, validated again alone (after `announce`) when it timed out
    /// beside another validation.
    fn judge(
        &self,
        validate: impl Fn() -> Result<Verdict, ValidateError>,
        announce: impl FnOnce(),
    ) -> Result<Verdict, ValidateError> {
        let beside = {
            let _shared = self.turn.read().unwrap_or_else(|p| p.into_inner());
            let first = self.started.fetch_add(1, Ordering::SeqCst) + 1;
            let alone_at_start = self.running.fetch_add(1, Ordering::SeqCst) == 0;
            let result = validate();
            let alone = alone_at_start && self.started.load(Ordering::SeqCst) == first;
            self.running.fetch_sub(1, Ordering::SeqCst);
            match result {
                Ok(verdict) if verdict.outcome == Outcome::Timeout && !alone => verdict,
                other => return other,
            }
        };
        announce();
        let _alone = self.turn.write().unwrap_or_else(|p| p.into_inner());
        let mut again = validate()?;
        again.reason = format!(
            "{} (validated again alone: beside another candidate, {})",
            again.reason, beside.reason
        );
        Ok(again)
    }
}

/// `verdict`, judged when its candidate was errored for the same cause before: a validation
/// killed from outside twice running is taken for the candidate's own doing (it can kill its own
/// JVM), so that no candidate stays out of the denominators by failing the same way every time.
fn killed_again(
    store: &Store,
    run_id: &str,
    candidate: &str,
    mut verdict: Verdict,
) -> Result<Verdict, StoreError> {
    // A full disk is not the candidate's to cause (its writes are capped); a kill may be.
    let Some(cause @ ErrorCause::Killed) = verdict.errored else {
        return Ok(verdict);
    };
    if store
        .previous_attempt(run_id, candidate)?
        .is_some_and(|(_, before)| before == Some(cause))
    {
        verdict.errored = None;
        verdict.reason = format!(
            "{} (the same on the attempt before: taken for the candidate's own doing)",
            verdict.reason
        );
    }
    Ok(verdict)
}

/// The tasks that the candidates name, in id order.
pub(crate) fn tasks_of<'b>(
    benchmark: &'b Benchmark,
    planned: &[PlannedCandidate],
) -> Vec<&'b Task> {
    let ids: BTreeSet<&str> = planned.iter().map(|p| p.task.as_str()).collect();
    ids.iter()
        .map(|id| {
            benchmark
                .task(id)
                .expect("planned candidates name known tasks")
        })
        .collect()
}

/// Runs (or resumes) a run to its end: materialize the tasks, refuse candidates that do not apply
/// (unless asked to record them), warm up, register the run, validate.
pub fn execute(
    store: &mut Store,
    request: RunRequest<'_>,
    config: &RunSettings,
    oracle: &dyn Oracle,
    progress: &dyn Progress,
) -> Result<RunReport, RunError> {
    let started = Instant::now();
    let benchmark = request.benchmark;
    // The input is the whole plan, so every shard of a sharded run registers the same run.
    let hash = match &request.plan {
        Some(plan) => plan.clone(),
        None => input_hash(&request.planned, &tasks_of(benchmark, &request.planned)),
    };
    let (mut run_id, decided) = resolve_run(store, &request, &hash)?;
    // A request that names its plan holds only its shard's part already.
    let mine = match request.plan {
        Some(_) => request.planned.clone(),
        None => shard_part(&request.planned, request.config.shard),
    };
    let tasks = tasks_of(benchmark, &mine);

    let mut clock = StageClock::start();
    let prepared = materialize_tasks(oracle, &tasks)?;
    if !config.allow_apply_failures {
        preflight(&mine, &prepared)?;
    }
    clock.lap("materialize and preflight");
    let unprepared = warm_up_tasks(oracle, &prepared, config.workers, progress)?;
    clock.lap("warm-up");
    if !request.resume {
        let run = NewRun {
            id: run_id.clone(),
            benchmark: benchmark.name.clone(),
            mode: request.mode,
            input_hash: hash,
            config: request.config.clone(),
        };
        run_id = create_run(store, &request, &run, &new_candidates(&request.planned))?;
    }
    record_task_dates(store, &run_id, tasks.iter().copied())?;
    let workshop = Workshop {
        prepared: &prepared,
        oracle,
        config,
    };
    let mut tally = validate_warmed(
        store,
        &run_id,
        &mine,
        &decided,
        &workshop,
        &unprepared,
        progress,
    )?;
    if request.mode == RunMode::Reference {
        let again = reference_fixes_again(store, &run_id, &mine, &workshop, &unprepared, progress)?;
        tally.validated += again.validated;
        tally.duplicates += again.duplicates;
        tally.wall += again.wall;
    }
    clock.lap("validate");
    let counts = (mine.len(), decided.len());
    Ok(RunReport::new(
        run_id, counts, &tally, started, clock, unprepared,
    ))
}

/// The reference check's reference fixes that regression tests failed (`RegressionBroken`, or
/// `Indeterminate` as flaky), validated again once those tests joined their baseline
/// (`reference_failures`), for a few rounds at most: their tasks are warmed up anew (which reads
/// the baseline again) and each new verdict takes the place of the last, which is kept as an
/// earlier attempt.
fn reference_fixes_again(
    store: &mut Store,
    run_id: &str,
    planned: &[PlannedCandidate],
    workshop: &Workshop<'_>,
    unprepared: &Unprepared,
    progress: &dyn Progress,
) -> Result<ValidationTally, RunError> {
    let mut tally = ValidationTally {
        validated: 0,
        duplicates: 0,
        wall: Duration::ZERO,
        workers: workshop.config.workers,
    };
    for _ in 0..crate::run::reference_failures::MAX_ROUNDS {
        let again = record_reference_failures(store, run_id, workshop)?;
        if again.is_empty() {
            break;
        }
        let mut chosen = Vec::new();
        for (candidate, tests) in &again {
            progress.message(&format!(
                "{candidate}: {} did not pass on the reference fix in the reference check; \
                 excluded from its baseline, the reference fix is validated again",
                tests.join(", ")
            ));
            store.supersede_verdict(run_id, candidate)?;
            chosen.extend(planned.iter().filter(|p| &p.id == candidate).cloned());
        }
        let tasks: Vec<&Task> = chosen
            .iter()
            .filter_map(|p| workshop.prepared.get(&p.task).map(|t| &t.task))
            .collect();
        let prepared = materialize_tasks(workshop.oracle, &tasks)?;
        // The tasks not warmed up before stay so: the run is finished only when there are none.
        let mut unprepared = unprepared.clone();
        unprepared.extend(warm_up_tasks(
            workshop.oracle,
            &prepared,
            workshop.config.workers,
            progress,
        )?);
        let fresh = Workshop {
            prepared: &prepared,
            oracle: workshop.oracle,
            config: workshop.config,
        };
        // Only the chosen are validated, and none of them is decided (their verdicts were
        // superseded): the progress counts them alone.
        let round = validate_warmed(
            store,
            run_id,
            &chosen,
            &HashSet::new(),
            &fresh,
            &unprepared,
            progress,
        )?;
        tally.validated += round.validated;
        tally.duplicates += round.duplicates;
        tally.wall += round.wall;
    }
    Ok(tally)
}

/// The reference fixes of `run_id` that regression tests failed in the reference check, with
/// those tests (`reference_failures`): recorded in the baseline of each task state by the
/// oracle. Returns the candidates whose baseline changed, to be validated again, each with the
/// tests' names for the progress line.
fn record_reference_failures(
    store: &Store,
    run_id: &str,
    workshop: &Workshop<'_>,
) -> Result<Vec<(String, Vec<String>)>, RunError> {
    use crate::run::reference_failures::{failed_regression_tests, regression_failures, test_name};
    let mut again = Vec::new();
    for verdict in store.verdicts(run_id)? {
        if !failed_regression_tests(&verdict) {
            continue;
        }
        let Some(task) = workshop.prepared.get(&verdict.task) else {
            continue;
        };
        let failures = regression_failures(&store.test_results(run_id, &verdict.candidate_id)?);
        if failures.is_empty() || !workshop.oracle.record_reference_failures(task, &failures)? {
            continue;
        }
        again.push((
            verdict.candidate_id,
            failures.iter().map(test_name).collect(),
        ));
    }
    Ok(again)
}

/// Registers a new run: under its id when the request names one, else under the first free id
/// that starts with the fresh id `run.id` (two runs started in the same second get
/// `…-<secs>` and `…-<secs>-2`). Returns the id.
pub(crate) fn create_run(
    store: &mut Store,
    request: &RunRequest<'_>,
    run: &NewRun,
    candidates: &[avrlab_store::NewCandidate],
) -> Result<String, StoreError> {
    // A named run, and a shard's (named by its plan), are created under exactly that id.
    if request.run_id.is_some() || request.config.shard.is_some() {
        store.create_run(run, candidates)?;
        Ok(run.id.clone())
    } else {
        store.create_fresh_run(run, candidates)
    }
}

/// The eval run that generations are written into: the one being resumed (its input unchanged),
/// or a new one (a fresh id is made unique by the store; a shard's is its plan's) registered with
/// `config`. Eval and replay both register their runs here.
pub(crate) fn register_eval_run(
    store: &mut Store,
    benchmark: &Benchmark,
    run_id: Option<String>,
    resume: bool,
    hash: String,
    config: RunConfig,
) -> Result<String, RunError> {
    let request = RunRequest {
        mode: RunMode::Eval,
        benchmark,
        planned: Vec::new(),
        run_id,
        resume,
        config,
        retry: VerdictRetry::default(),
        plan: None,
    };
    let (run_id, _) = resolve_run(store, &request, &hash)?;
    if resume {
        return Ok(run_id);
    }
    let run = NewRun {
        id: run_id,
        benchmark: benchmark.name.clone(),
        mode: RunMode::Eval,
        input_hash: hash,
        config: request.config.clone(),
    };
    Ok(create_run(store, &request, &run, &[])?)
}

/// Stores the dates of a run's tasks with the run, so that its reports can split scores at a
/// model's training cut-off without the benchmark at hand.
pub(crate) fn record_task_dates<'a>(
    store: &mut Store,
    run_id: &str,
    tasks: impl Iterator<Item = &'a Task>,
) -> Result<(), StoreError> {
    let rows: Vec<avrlab_store::TaskDatesRow> = tasks
        .map(|task| avrlab_store::TaskDatesRow {
            task: task.id.clone(),
            fix_authored: task.dates.fix_authored.clone(),
            fix_committed: task.dates.fix_committed.clone(),
            cve_published: task.dates.cve_published.clone(),
        })
        .collect();
    store.record_task_dates(run_id, &rows)
}

/// Each task's CWE numbers, as a run's configuration keeps them for the reports.
pub(crate) fn task_cwes<'a>(tasks: impl Iterator<Item = &'a Task>) -> BTreeMap<String, Vec<u32>> {
    tasks.map(|t| (t.id.clone(), t.cwe.clone())).collect()
}

/// The run to write into: a new id, or the run being resumed (whose input must not have changed)
/// with the candidates it has already decided.
pub(crate) fn resolve_run(
    store: &mut Store,
    request: &RunRequest<'_>,
    hash: &str,
) -> Result<(String, HashSet<String>), RunError> {
    let benchmark = request.benchmark;
    if request.resume {
        let nothing = || RunError::NothingToResume {
            mode: request.mode.as_str().into(),
            benchmark: benchmark.name.clone(),
            store: store.path().display().to_string(),
        };
        let run = match &request.run_id {
            Some(id) => store
                .run(id)?
                .ok_or_else(|| RunError::UnknownRun(id.clone()))?,
            // A shard's run has its plan's id (below), whichever shard made it.
            None if request.config.shard.is_some() => store
                .run(&plan_run_id(request.mode.as_str(), &benchmark.name, hash))?
                .ok_or_else(nothing)?,
            None => store
                .latest_unfinished_run(request.mode, &benchmark.name)?
                .ok_or_else(nothing)?,
        };
        other_shard(store, &run, request.config.shard)?;
        if run.input_hash != hash {
            return Err(RunError::InputChanged(run.id));
        }
        let decided = request.retry.decided(store, &run.id)?;
        Ok((run.id, decided))
    } else {
        match &request.run_id {
            Some(id) => {
                if let Some(run) = store.run(id)? {
                    other_shard(store, &run, request.config.shard)?;
                    return Err(StoreError::RunExists(id.clone()).into());
                }
                Ok((id.clone(), HashSet::new()))
            }
            // A shard started without an id takes its plan's, so that the shards of one plan,
            // started by hand on several machines, are one run that `merge` joins.
            None if request.config.shard.is_some() => {
                let id = plan_run_id(request.mode.as_str(), &benchmark.name, hash);
                if let Some(run) = store.run(&id)? {
                    other_shard(store, &run, request.config.shard)?;
                }
                Ok((id, HashSet::new()))
            }
            // A fresh id is only a prefix until the run is created ([`create_run`]), which
            // makes it unique.
            None => Ok((
                fresh_run_id(request.mode.as_str(), &benchmark.name),
                HashSet::new(),
            )),
        }
    }
}

/// Refuses to write shard `ours` into `run` when the run is another shard's: the shards of one
/// plan share the run's id, and each keeps its verdicts in a store of its own until `merge`.
fn other_shard(
    store: &Store,
    run: &avrlab_store::RunInfo,
    ours: Option<avrlab_core::Shard>,
) -> Result<(), RunError> {
    match (run.config.shard, ours) {
        (Some(theirs), Some(ours)) if theirs != ours => Err(RunError::OtherShard {
            run: run.id.clone(),
            store: store.path().display().to_string(),
            theirs,
            ours,
        }),
        _ => Ok(()),
    }
}

#[cfg(test)]
mod tests {
    use avrlab_bench::Patch;
    use avrlab_core::Shard;
    use avrlab_validate::{Candidate, Outcome};

    use super::*;
    use crate::run::fake_oracle::{Call, FakeOracle, Quiet, demo, engine_config};
    use crate::run::input::reference_candidates;

    fn config(workers: usize) -> RunSettings {
        engine_config(workers, false)
    }

    /// A validation that times out whenever another one runs beside it (as a starved JVM does
    /// beside a fork bomb) is validated again alone, and nothing else runs while it is.
    #[test]
    fn a_timeout_beside_another_validation_is_validated_again_alone() {
        use crate::run::fake_oracle::fake_verdict;
        let machine = Machine::default();
        let running = AtomicUsize::new(0);
        let crowded = AtomicUsize::new(0);
        // The two workers' first validations meet for certain: each waits for the other.
        let calls = AtomicUsize::new(0);
        let meet = std::sync::Barrier::new(2);
        let starved = |busy: Duration| {
            if calls.fetch_add(1, Ordering::SeqCst) < 2 {
                meet.wait();
            }
            let beside = running.fetch_add(1, Ordering::SeqCst) > 0;
            std::thread::sleep(busy);
            let beside = beside || running.load(Ordering::SeqCst) > 1;
            running.fetch_sub(1, Ordering::SeqCst);
            Ok(fake_verdict(if beside {
                crowded.fetch_add(1, Ordering::SeqCst);
                Outcome::Timeout
            } else {
                Outcome::Plausible
            }))
        };
        let announced = AtomicUsize::new(0);
        let verdicts: Vec<Verdict> = std::thread::scope(|scope| {
            let workers: Vec<_> = (0..2)
                .map(|_| {
                    scope.spawn(|| {
                        (0..3)
                            .map(|_| {
                                machine
                                    .judge(
                                        || starved(Duration::from_millis(30)),
                                        || {
                                            announced.fetch_add(1, Ordering::SeqCst);
                                        },
                                    )
                                    .unwrap()
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            workers
                .into_iter()
                .flat_map(|w| w.join().unwrap())
                .collect()
        });
        assert!(crowded.load(Ordering::SeqCst) > 0, "the workers never met");
        assert_eq!(verdicts.len(), 6);
        for verdict in &verdicts {
            assert_eq!(verdict.outcome, Outcome::Plausible, "{}", verdict.reason);
        }
        let again = verdicts
            .iter()
            .filter(|v| {
                v.reason
                    .contains("validated again alone: beside another candidate")
            })
            .count();
        assert_eq!(again, announced.load(Ordering::SeqCst));
        assert!(again > 0);
    }

    /// A timeout with nothing beside it is the verdict: it is not validated again.
    #[test]
    fn a_timeout_alone_is_final() {
        use crate::run::fake_oracle::fake_verdict;
        let machine = Machine::default();
        let calls = AtomicUsize::new(0);
        let verdict = machine
            .judge(
                || {
                    calls.fetch_add(1, Ordering::SeqCst);
                    Ok(fake_verdict(Outcome::Timeout))
                },
                || panic!("not validated again"),
            )
            .unwrap();
        assert_eq!(verdict.outcome, Outcome::Timeout);
        assert_eq!(calls.load(Ordering::SeqCst), 1);
    }

    fn request<'a>(benchmark: &'a Benchmark, planned: Vec<PlannedCandidate>) -> RunRequest<'a> {
        RunRequest {
            mode: RunMode::Patches,
            benchmark,
            planned,
            run_id: Some("r1".into()),
            resume: false,
            config: RunConfig::default(),
            retry: VerdictRetry::default(),
            plan: None,
        }
    }

    fn unchanged(id: &str, task: &str) -> PlannedCandidate {
        PlannedCandidate {
            id: id.into(),
            task: task.into(),
            label: id.into(),
            candidate: Candidate::Unchanged,
            origin: format!("test:{id}"),
        }
    }

    fn store() -> (tempfile::TempDir, Store) {
        let dir = tempfile::tempdir().expect("a temporary folder");
        let store = Store::open(&dir.path().join("s.sqlite")).expect("the store opens");
        (dir, store)
    }

    fn outcomes(store: &Store) -> Vec<(String, Outcome)> {
        let mut rows: Vec<_> = store
            .verdicts("r1")
            .expect("verdicts")
            .into_iter()
            .map(|v| (v.candidate_id, v.outcome))
            .collect();
        rows.sort();
        rows
    }

    /// The shards of one plan, started without an id, each in its own store, are one run (so
    /// that `merge` joins them); another plan gets another id.
    #[test]
    fn shards_started_without_an_id_take_their_plans() {
        let benchmark = demo();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let shard_run = |index: u32, tasks: usize| {
            let (_dir, mut store) = store();
            let mut planned = reference_candidates(&benchmark);
            planned.truncate(tasks);
            let mut sharded = request(&benchmark, planned);
            sharded.run_id = None;
            sharded.config.shard = Some(Shard { index, count: 2 });
            execute(&mut store, sharded, &config(1), &oracle, &Quiet)
                .expect("the run ends")
                .run_id
        };
        let (first, second, other_plan) = (shard_run(1, 2), shard_run(2, 2), shard_run(1, 3));
        assert_eq!(first, second);
        assert!(first.starts_with("patches-demo-"), "{first}");
        assert_ne!(first, other_plan);
    }

    /// A request that names its plan holds its shard's part already (a sharded feature eval
    /// asked the model about its own tasks): the run loop validates all of it rather than
    /// sharding it again, and registers the plan's run.
    #[test]
    fn a_shards_own_part_named_by_its_plan_is_validated_whole() {
        let benchmark = demo();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let (_dir, mut store) = store();
        let mut planned = reference_candidates(&benchmark);
        let task = planned[0].task.clone();
        planned.retain(|p| p.task == task);
        let mut request = request(&benchmark, planned.clone());
        request.run_id = None;
        request.plan = Some("the whole plan".into());
        // One task alone would fall in shard 1 of 2 if it were sharded again.
        request.config.shard = Some(Shard { index: 2, count: 2 });
        let report =
            execute(&mut store, request, &config(2), &oracle, &Quiet).expect("the run ends");
        assert_eq!(report.validated, planned.len());
        assert_eq!(
            report.run_id,
            plan_run_id("patches", &benchmark.name, "the whole plan")
        );
    }

    /// The second shard of a plan, given the first shard's store, is refused with what to do
    /// (a store of its own, then `merge`), with or without `--resume`; nothing is added to the
    /// first shard's run.
    #[test]
    fn a_shard_in_another_shards_store_is_refused_with_what_to_do() {
        let benchmark = demo();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let (_dir, mut store) = store();
        let sharded = |index: u32, resume: bool| {
            let mut request = request(&benchmark, reference_candidates(&benchmark));
            request.run_id = None;
            request.resume = resume;
            request.config.shard = Some(Shard { index, count: 2 });
            request
        };
        let first = execute(&mut store, sharded(1, false), &config(1), &oracle, &Quiet)
            .expect("the first shard ends");
        let stored = outcomes(&store).len();
        for resume in [false, true] {
            let error = execute(&mut store, sharded(2, resume), &config(1), &oracle, &Quiet)
                .expect_err("another shard's store");
            let text = error.to_string();
            assert!(
                matches!(error, RunError::OtherShard { .. })
                    && text.contains("holds shard 1/2 of this plan")
                    && text.contains(&first.run_id)
                    && text.contains("run shard 2/2 with another --store")
                    && text.contains("avrlab merge"),
                "{text}"
            );
        }
        assert_eq!(outcomes(&store).len(), stored);
    }

    /// Two runs without an id, started within the same second, are two runs: the second does
    /// not collide with the first (ids are per second, so it gets a suffix).
    #[test]
    fn runs_started_in_the_same_second_get_distinct_ids() {
        let benchmark = demo();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let (_dir, mut store) = store();
        let mut ids = Vec::new();
        for _ in 0..3 {
            let mut planned = reference_candidates(&benchmark);
            planned.truncate(1);
            let mut fresh = request(&benchmark, planned);
            fresh.run_id = None;
            let report =
                execute(&mut store, fresh, &config(1), &oracle, &Quiet).expect("the run ends");
            ids.push(report.run_id);
        }
        let prefix = format!("patches-{}-", benchmark.name);
        assert!(ids.iter().all(|id| id.starts_with(&prefix)), "{ids:?}");
        let mut distinct = ids.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), 3, "{ids:?}");
        for id in &ids {
            assert_eq!(store.verdicts(id).expect("verdicts").len(), 1, "{id}");
        }
    }

    #[test]
    fn stores_every_verdict_and_validates_identical_candidates_once() {
        let benchmark = demo();
        // The first task's vulnerable state and reference fix, and two copies of the former.
        let mut planned = reference_candidates(&benchmark);
        planned.truncate(2);
        let task = planned[0].task.clone();
        planned.push(unchanged("vulnerable", &task));
        planned.push(unchanged("vulnerable-again", &task));
        let oracle = FakeOracle::new(|_, c| {
            Some(match c {
                Candidate::Unchanged => Outcome::PovFailing,
                _ => Outcome::Plausible,
            })
        });
        let (_dir, mut store) = store();
        let report = execute(
            &mut store,
            request(&benchmark, planned),
            &config(2),
            &oracle,
            &Quiet,
        )
        .expect("the run ends");
        assert_eq!((report.validated, report.duplicates), (2, 2));
        assert_eq!(oracle.count(|c| matches!(c, Call::Validate(_))), 2);
        let rows = outcomes(&store);
        assert_eq!(rows.len(), 4);
        assert_eq!(
            rows.iter()
                .filter(|(_, o)| *o == Outcome::PovFailing)
                .count(),
            3,
            "{rows:?}"
        );
        assert!(store.run("r1").unwrap().unwrap().finished_at.is_some());
    }

    /// With `differential`, a validated run's plausible candidates are compared before the run
    /// is finished: the reference fix (proven `Exact`) is left out without a row, a candidate
    /// that is not proven gets its row (here not applicable: the fake's Maven does not exist),
    /// and a resumed run keeps every stored row as it is.
    #[test]
    fn differential_compares_unproven_plausible_candidates_once_and_resuming_redoes_none() {
        let benchmark = demo();
        // The first task's vulnerable state and reference fix, both judged Plausible.
        let mut planned = reference_candidates(&benchmark);
        planned.truncate(2);
        let vulnerable = planned[0].id.clone();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible));
        let (dir, mut store) = store();
        let mut config = config(1);
        config.validator.work_root = dir.path().join("work");
        config.validator.maven.repository = dir.path().join("repository");
        config.differential = Some(crate::workflows::diff_test::DiffTestConfig {
            tester_cache: dir.path().join("difftest"),
            ..Default::default()
        });
        let said = crate::run::fake_oracle::Messages::default();
        execute(
            &mut store,
            request(&benchmark, planned.clone()),
            &config,
            &oracle,
            &said,
        )
        .expect("the run ends");
        let rows = store.differentials("r1").expect("differential rows");
        let compared: Vec<&str> = rows.iter().map(|r| r.candidate_id.as_str()).collect();
        assert_eq!(compared, [vulnerable.as_str()], "{rows:?}");
        assert_eq!(rows[0].verdict, avrlab_core::Differential::NotApplicable);
        assert!(
            rows[0].reason.contains("cannot resolve the class path"),
            "{}",
            rows[0].reason
        );
        assert!(store.run("r1").unwrap().unwrap().finished_at.is_some());
        assert!(
            said.lines()
                .iter()
                .any(|l| l.starts_with("diff-test r1: 1 plausible candidates")),
            "{:?}",
            said.lines()
        );

        // A stored result stays: resuming compares nothing again.
        let mut kept = rows[0].clone();
        kept.verdict = avrlab_core::Differential::NoDivergence;
        kept.reason.clear();
        store.record_differential("r1", &kept).expect("stored");
        let mut again = request(&benchmark, planned);
        again.resume = true;
        execute(&mut store, again, &config, &oracle, &Quiet).expect("the run ends");
        assert_eq!(store.differentials("r1").expect("rows"), vec![kept]);
    }

    const XXE_TASK: &str = "demo-xxe-config";
    const PARSER: &str = "src/main/java/com/example/config/ConfigParser.java";

    fn diff(id: &str, text: &str) -> PlannedCandidate {
        let mut planned = unchanged(id, XXE_TASK);
        planned.candidate = Candidate::Diff(Patch::parse(text).expect("a well-formed diff"));
        planned
    }

    fn xxe_reference(benchmark: &Benchmark) -> String {
        let task = benchmark.task(XXE_TASK).expect("the demo task");
        task.reference
            .as_ref()
            .expect("a reference fix")
            .to_string()
    }

    /// Runs `planned` with apply failures allowed; the fake says `Plausible` to the reference
    /// fix of the task (exactly its text), `ApplyFailed` to any other diff.
    fn run_allowing_failures(
        benchmark: &Benchmark,
        planned: Vec<PlannedCandidate>,
    ) -> (RunReport, Vec<(String, Outcome)>, Vec<String>) {
        let oracle = FakeOracle::new(|task, candidate| {
            Some(match candidate {
                Candidate::Diff(patch)
                    if task.reference.as_ref().map(ToString::to_string)
                        == Some(patch.to_string()) =>
                {
                    Outcome::Plausible
                }
                _ => Outcome::ApplyFailed,
            })
        });
        let (_dir, mut store) = store();
        let report = execute(
            &mut store,
            request(benchmark, planned),
            &engine_config(1, true),
            &oracle,
            &Quiet,
        )
        .expect("the run ends");
        assert_eq!(
            oracle.count(|c| matches!(c, Call::Validate(_))),
            report.validated
        );
        let reasons = store
            .verdicts("r1")
            .expect("verdicts")
            .into_iter()
            .map(|v| v.reason)
            .collect();
        (report, outcomes(&store), reasons)
    }

    /// A whitespace variant of the reference fix that does not apply comes first; the reference
    /// fix after it is validated on its own (collapsing whitespace once stored it `ApplyFailed`,
    /// "same as" the variant).
    #[test]
    fn a_reference_fix_after_a_whitespace_variant_that_does_not_apply_is_validated_on_its_own() {
        let benchmark = demo();
        let reference = xxe_reference(&benchmark);
        let reindented = reference.replacen(
            "             factory.setNamespaceAware(true);",
            "           factory.setNamespaceAware(true);",
            1,
        );
        assert_ne!(reindented, reference);
        let planned = vec![diff("variant", &reindented), diff("reference", &reference)];
        let (report, rows, _) = run_allowing_failures(&benchmark, planned);
        assert_eq!((report.validated, report.duplicates), (2, 0));
        assert_eq!(
            rows,
            [
                ("reference".to_owned(), Outcome::Plausible),
                ("variant".to_owned(), Outcome::ApplyFailed),
            ]
        );
    }

    /// `"a  b"` and `"a b"` are different programs: collapsing whitespace once merged them.
    #[test]
    fn candidates_that_differ_only_inside_a_string_literal_are_validated_apart() {
        let benchmark = demo();
        let adding = |id: &str, literal: &str| {
            diff(
                id,
                &format!(
                    "--- a/{PARSER}\n+++ b/{PARSER}\n@@ -25,1 +25,2 @@\n             factory.setNamespaceAware(true);\n+            String s = \"{literal}\";\n"
                ),
            )
        };
        let planned = vec![adding("two-spaces", "a  b"), adding("one-space", "a b")];
        let (report, rows, reasons) = run_allowing_failures(&benchmark, planned);
        assert_eq!((report.validated, report.duplicates), (2, 0), "{rows:?}");
        assert!(
            reasons.iter().all(|r| !r.contains("same as")),
            "{reasons:?}"
        );
    }

    /// The reference fix with one line of context instead of three and a hunk header seven lines
    /// off makes the same project as the reference fix: one validation serves both.
    #[test]
    fn diffs_with_other_context_that_make_the_same_files_share_one_validation() {
        let benchmark = demo();
        let reference = xxe_reference(&benchmark);
        let narrow = format!(
            "--- a/{PARSER}\n+++ b/{PARSER}\n{}",
            concat!(
                "@@ -18,2 +18,4 @@\n",
                "             factory.setNamespaceAware(true);\n",
                "+            // A settings file never needs a DTD; refusing DOCTYPE also shuts out external entities.\n",
                "+            factory.setFeature(\"http://apache.org/xml/features/disallow-doctype-decl\", true);\n",
                "             DocumentBuilder builder = factory.newDocumentBuilder();\n",
            )
        );
        let planned = vec![diff("reference", &reference), diff("narrow", &narrow)];
        let (report, rows, reasons) = run_allowing_failures(&benchmark, planned);
        assert_eq!((report.validated, report.duplicates), (1, 1));
        assert_eq!(
            rows,
            [
                ("narrow".to_owned(), Outcome::Plausible),
                ("reference".to_owned(), Outcome::Plausible),
            ]
        );
        assert!(
            reasons.iter().any(|r| r.starts_with("same as reference:")),
            "{reasons:?}"
        );
    }

    #[test]
    fn refuses_a_diff_that_does_not_apply_before_any_warm_up() {
        let benchmark = demo();
        let task = benchmark.tasks[0].id.clone();
        let patch = Patch::parse(
            "--- a/src/main/java/Nope.java\n+++ b/src/main/java/Nope.java\n@@ -1,1 +1,1 @@\n-x\n+y\n",
        )
        .expect("a well-formed diff");
        let mut bad = unchanged("bad", &task);
        bad.candidate = Candidate::Diff(patch);
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible));
        let (_dir, mut store) = store();
        let error = execute(
            &mut store,
            request(&benchmark, vec![bad]),
            &config(1),
            &oracle,
            &Quiet,
        )
        .expect_err("the input is refused");
        assert!(matches!(error, RunError::DoesNotApply { .. }), "{error}");
        assert_eq!(oracle.calls(), vec![Call::Materialize(task)]);
        assert!(store.run("r1").unwrap().is_none(), "nothing was stored");
    }

    #[test]
    fn a_task_that_cannot_be_warmed_up_leaves_the_others_validated_and_the_run_resumable() {
        let benchmark = demo();
        let mut planned = reference_candidates(&benchmark);
        planned.truncate(4);
        let (good, broken) = (planned[0].task.clone(), planned[2].task.clone());
        assert_ne!(good, broken, "two tasks");
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible)).with_unbuildable(&broken);
        let (_dir, mut store) = store();
        let report = execute(
            &mut store,
            request(&benchmark, planned.clone()),
            &config(1),
            &oracle,
            &Quiet,
        )
        .expect("the run goes on without the broken task");
        assert_eq!(report.validated, 2);
        assert_eq!(report.unprepared.keys().collect::<Vec<_>>(), vec![&broken]);
        assert!(
            report.unprepared[&broken].contains("does not build"),
            "{:?}",
            report.unprepared
        );
        let stored: Vec<_> = outcomes(&store).into_iter().map(|(id, _)| id).collect();
        let mut expected = vec![planned[0].id.clone(), planned[1].id.clone()];
        expected.sort();
        assert_eq!(stored, expected);
        let run = store.run("r1").unwrap().unwrap();
        assert!(run.finished_at.is_none(), "left for --resume");

        // Once the task builds, --resume validates only what is missing.
        let healed = FakeOracle::new(|_, _| Some(Outcome::Plausible));
        let mut again = request(&benchmark, planned);
        again.resume = true;
        let report = execute(&mut store, again, &config(1), &healed, &Quiet).expect("resumed");
        assert_eq!((report.validated, report.already_decided), (2, 2));
        assert!(report.unprepared.is_empty());
        assert!(store.run("r1").unwrap().unwrap().finished_at.is_some());
    }

    #[test]
    fn no_task_warmed_up_for_the_harness_is_an_error_and_stores_nothing() {
        let benchmark = demo();
        let mut planned = reference_candidates(&benchmark);
        planned.truncate(2);
        let oracle =
            FakeOracle::new(|_, _| Some(Outcome::Plausible)).with_broken_harness(&planned[0].task);
        let (_dir, mut store) = store();
        let error = execute(
            &mut store,
            request(&benchmark, planned),
            &config(1),
            &oracle,
            &Quiet,
        )
        .expect_err("nothing can run");
        assert!(matches!(error, RunError::Validate(_)), "{error}");
        assert!(store.run("r1").unwrap().is_none(), "nothing was stored");
    }

    /// A reference check of tasks that all fail to build here still ends with a row for each:
    /// a project's own failure is never the run's.
    #[test]
    fn every_task_failing_its_own_warm_up_leaves_each_reported_and_the_run_resumable() {
        let benchmark = demo();
        let mut planned = reference_candidates(&benchmark);
        planned.truncate(4);
        let (first, second) = (planned[0].task.clone(), planned[2].task.clone());
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible))
            .with_unbuildable(&first)
            .with_unbuildable(&second);
        let (_dir, mut store) = store();
        let report = execute(
            &mut store,
            request(&benchmark, planned),
            &config(2),
            &oracle,
            &Quiet,
        )
        .expect("the run ends with every task reported");
        assert_eq!(report.validated, 0);
        assert_eq!(
            report.unprepared.keys().collect::<Vec<_>>(),
            vec![&first, &second]
        );
        assert!(
            report
                .unprepared
                .values()
                .all(|why| why.contains("does not build")),
            "{:?}",
            report.unprepared
        );
        let run = store.run("r1").unwrap().unwrap();
        assert!(run.finished_at.is_none(), "left for --resume");
        let rows = crate::tables::reference_check::render_check_table(
            &benchmark
                .tasks
                .iter()
                .filter(|t| report.unprepared.contains_key(&t.id))
                .map(|t| {
                    crate::tables::reference_check::unprepared_row(t, &report.unprepared[&t.id])
                })
                .collect::<Vec<_>>(),
        );
        assert!(rows.contains(&first) && rows.contains(&second), "{rows}");
        assert!(rows.contains("warm-up failed"), "{rows}");
    }

    /// A reference check whose reference fix a regression test is flaky on (or fails in both
    /// runs of the phase) records that test in the task's baseline and validates the reference
    /// fix again: the new verdict counts, the first is kept as an earlier attempt, and no other
    /// candidate is validated again. A check of candidates (not the reference check) leaves the
    /// verdict as it is.
    #[test]
    fn a_test_flaky_on_the_reference_fix_joins_its_baseline_and_the_fix_is_validated_again() {
        let benchmark = demo();
        let planned = reference_candidates(&benchmark);
        let flaky = planned[1].task.clone();
        let broken = planned[3].task.clone();
        let oracle = FakeOracle::new(|_, candidate| {
            Some(match candidate {
                Candidate::Unchanged => Outcome::PovFailing,
                _ => Outcome::Plausible,
            })
        })
        .with_flaky_reference(&flaky)
        .with_broken_reference(&broken);
        let (_dir, mut checked) = store();
        let mut check = request(&benchmark, planned.clone());
        check.mode = RunMode::Reference;
        let messages = crate::run::fake_oracle::Messages::default();
        let report =
            execute(&mut checked, check, &config(2), &oracle, &messages).expect("the check ends");
        let mut recorded = oracle.recorded_failures();
        recorded.sort();
        let mut expected = vec![
            (flaky.clone(), "a.FlakyTest#sometimes".to_owned()),
            (broken.clone(), "a.FlakyTest#sometimes".to_owned()),
        ];
        expected.sort();
        assert_eq!(recorded, expected);
        assert_eq!(report.validated, planned.len() + 2);
        assert!(outcomes(&checked).contains(&(format!("{broken}/reference"), Outcome::Plausible)));
        let reference = format!("{flaky}/reference");
        let verdicts = outcomes(&checked);
        assert!(
            verdicts.contains(&(reference.clone(), Outcome::Plausible)),
            "{verdicts:?}"
        );
        assert!(
            verdicts
                .iter()
                .all(|(_, o)| matches!(o, Outcome::Plausible | Outcome::PovFailing)),
            "{verdicts:?}"
        );
        assert!(
            checked
                .previous_attempt("r1", &reference)
                .expect("the store answers")
                .is_some(),
            "the first verdict is kept"
        );
        let said = messages.lines().join("\n");
        assert!(
            said.contains(&format!(
                "{reference}: a.FlakyTest#sometimes did not pass on the reference fix in the reference check"
            )),
            "{said}"
        );
        assert!(checked.run("r1").unwrap().unwrap().finished_at.is_some());

        // The same fix as a candidate of a run of predictions: its verdict stays.
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible)).with_flaky_reference(&flaky);
        let (_other, mut store) = store();
        let candidates: Vec<PlannedCandidate> = planned
            .iter()
            .filter(|p| p.label == "reference")
            .cloned()
            .collect();
        execute(
            &mut store,
            request(&benchmark, candidates),
            &config(1),
            &oracle,
            &Quiet,
        )
        .expect("the run ends");
        assert!(oracle.recorded_failures().is_empty());
        assert!(outcomes(&store).contains(&(reference, Outcome::Indeterminate)));
    }

    #[test]
    fn an_infrastructure_failure_keeps_the_run_resumable() {
        let benchmark = demo();
        let planned = reference_candidates(&benchmark);
        let failing = planned[1].task.clone();
        let oracle = FakeOracle::new(move |t, _| (t.id != failing).then_some(Outcome::Plausible));
        let (_dir, mut store) = store();
        let error = execute(
            &mut store,
            request(&benchmark, planned.clone()),
            &config(1),
            &oracle,
            &Quiet,
        )
        .expect_err("the fake fails on one task");
        assert!(matches!(error, RunError::Validate(_)));
        let run = store.run("r1").unwrap().unwrap();
        assert!(run.finished_at.is_none() && run.last_error.is_some());
        let decided = store.decided("r1").unwrap().len();
        assert!(decided < planned.len());

        let healed = FakeOracle::new(|_, _| Some(Outcome::Plausible));
        let mut again = request(&benchmark, planned.clone());
        again.resume = true;
        let report =
            execute(&mut store, again, &config(2), &healed, &Quiet).expect("the resumed run ends");
        assert_eq!(report.already_decided, decided);
        assert_eq!(report.validated, planned.len() - decided);
        assert_eq!(outcomes(&store).len(), planned.len());
    }
}
