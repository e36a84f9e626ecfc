//! Differential testing of plausible candidates against the reference fix (`avrlab diff-test`):
//! for each `Plausible` candidate of a run, the methods it or the fix changed are called on
//! generated inputs in the candidate's version and the fix's (and, where they differ, in the
//! vulnerable state's), inside the sandbox, and the verdict with its witness is stored.
//!
//! What divergence is not: inputs on which the vulnerable state and the fix differ are the
//! vulnerability's. There a candidate that still behaves as the vulnerable state is `Divergent`
//! (it lets through what the fix blocks), but one that blocks the input otherwise than the fix —
//! another exception type, another safe value — is only `DivergentOnVulnerableInputs`. Anywhere
//! else any difference is `Divergent`.

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_bench::{Benchmark, copy_project};
use avrlab_build::{
    COMPILED_REFERENCE, COMPILED_VULNERABLE, DiffTestRequest, DiffTester, Maven, RecordRequest,
};
use avrlab_core::{Differential, Outcome};
use avrlab_exec::{ExitKind, remove_tree};
use avrlab_store::{CandidateRow, ChangedLines, DifferentialRow, Store, StoreError, WitnessRow};
use avrlab_validate::{
    BuildToolOracle, CacheSeal, Candidate, Oracle, PreparedTask, ValidatorConfig, apply_candidate,
};
use serde::Deserialize;

use crate::run::input::from_stored_form;
use crate::run::progress::Progress;
use crate::workflows::method::correctness;

/// How hard to look, and where the helper is kept.
#[derive(Debug, Clone)]
pub struct DiffTestConfig {
    /// Seeds every input (input `i` of a candidate is drawn from this seed and `i`).
    pub seed: u64,
    /// Wall time for one candidate's inputs.
    pub budget: Duration,
    /// Inputs per changed method, at most.
    pub inputs_per_method: u32,
    /// How long one call may run before it counts as hanging.
    pub call_timeout: Duration,
    /// Also compare candidates already proven `Exact` or `Equivalent` (for checking the tester:
    /// such a candidate must never diverge).
    pub include_proven: bool,
    /// Where the helper is built (`~/.cache/avrlab/difftest`).
    pub tester_cache: PathBuf,
    /// Compare this candidate of the run only (how a witness is made again).
    pub only: Option<String>,
}

impl Default for DiffTestConfig {
    fn default() -> Self {
        Self {
            seed: 1,
            budget: Duration::from_secs(20),
            inputs_per_method: 1000,
            call_timeout: Duration::from_secs(1),
            include_proven: false,
            tester_cache: crate::run::work_dir::cache_dir().join("difftest"),
            only: None,
        }
    }
}

impl DiffTestConfig {
    /// The configuration of `--differential` with `budget_seconds` per candidate (and proven
    /// candidates compared too with `include_proven`); `None` when off.
    pub fn when(on: bool, budget_seconds: u64, include_proven: bool) -> Option<Self> {
        on.then(|| Self {
            budget: Duration::from_secs(budget_seconds),
            include_proven,
            ..Self::default()
        })
    }
}

/// Why differential testing could not go on (infrastructure or input; never a verdict).
#[derive(Debug, thiserror::Error)]
pub enum DiffTestError {
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The store has no such run.
    #[error("the store has no run `{0}`")]
    UnknownRun(String),
    /// The run has no verdicts yet.
    #[error("run `{0}` has no verdicts yet: validate it first")]
    NotValidated(String),
    /// `--candidate` names no plausible candidate of the run.
    #[error(
        "run `{run}` has no plausible candidate `{candidate}`: give an id that `avrlab audit {run}` lists"
    )]
    UnknownCandidate { run: String, candidate: String },
    /// `--tasks` leaves none of the run's plausible candidates.
    #[error(
        "run `{0}` has no plausible candidate of the tasks given: give tasks that `avrlab audit {0}` lists"
    )]
    NoneInTasks(String),
    /// The benchmark given is not the run's: a task of the run is not in it.
    #[error(
        "run `{run}` was made on benchmark `{made_on}`; its task {task} is not in benchmark `{given}`: give --benchmark {made_on}"
    )]
    OtherBenchmark {
        run: String,
        made_on: String,
        task: String,
        given: String,
    },
    /// The differential tester could not be built or run.
    #[error("task {task}")]
    Tester {
        task: String,
        #[source]
        source: avrlab_build::DiffTestError,
    },
    /// A task could not be prepared (materialized, warmed up).
    #[error("task {task}: {message}")]
    Task { task: String, message: String },
}

impl DiffTestError {
    /// The user's input is at fault (an unknown or unvalidated run, a store that is not one),
    /// not the machine.
    pub fn is_bad_input(&self) -> bool {
        match self {
            Self::Store(e) => matches!(
                e,
                StoreError::NotADatabase(_)
                    | StoreError::NotAStore(_)
                    | StoreError::Version { .. }
                    | StoreError::UnknownCandidate { .. }
            ),
            Self::UnknownRun(_)
            | Self::NotValidated(_)
            | Self::OtherBenchmark { .. }
            | Self::NoneInTasks(_)
            | Self::UnknownCandidate { .. } => true,
            Self::Tester { .. } | Self::Task { .. } => false,
        }
    }
}

/// What `avrlab diff-test` does: opens the store, compares the run's plausible candidates and
/// returns the table.
pub fn diff_test_store(
    store: &Path,
    run_id: &str,
    (benchmark, validator, workers): (&Benchmark, &ValidatorConfig, usize),
    config: &DiffTestConfig,
    progress: &dyn Progress,
) -> Result<String, DiffTestError> {
    let mut store = Store::open(store)?;
    let lines = diff_test_run(
        &mut store,
        run_id,
        benchmark,
        (validator, config, workers),
        progress,
    )?;
    Ok(render_lines(run_id, &lines))
}

/// Stores a candidate's result as it lands; returns its line.
fn record(
    store: &mut Store,
    run_id: &str,
    stored: &CandidateRow,
    row: DifferentialRow,
) -> Result<DiffTestLine, StoreError> {
    store.record_differential(run_id, &row)?;
    Ok(DiffTestLine {
        task: stored.task.clone(),
        label: stored.label.clone(),
        row,
    })
}

/// One candidate's line of the result.
#[derive(Debug, Clone)]
pub(crate) struct DiffTestLine {
    pub task: String,
    pub label: String,
    pub row: DifferentialRow,
}

/// Compares every plausible candidate of `run_id` (of the benchmark's tasks: `--tasks` narrows
/// them) with its task's reference fix, `workers` at a time, and stores each result as it lands
/// (a later run replaces it). The lines come in run order.
pub(crate) fn diff_test_run(
    store: &mut Store,
    run_id: &str,
    benchmark: &Benchmark,
    (validator, config, workers): (&ValidatorConfig, &DiffTestConfig, usize),
    progress: &dyn Progress,
) -> Result<Vec<DiffTestLine>, DiffTestError> {
    let Some(run) = store.run(run_id)? else {
        return Err(DiffTestError::UnknownRun(run_id.to_owned()));
    };
    if store.verdicts(run_id)?.is_empty() {
        return Err(DiffTestError::NotValidated(run_id.to_owned()));
    }
    let mut candidates = plausible_candidates(store, run_id)?;
    if let Some(only) = &config.only {
        candidates.retain(|c| &c.id == only);
        if candidates.is_empty() {
            return Err(DiffTestError::UnknownCandidate {
                run: run_id.to_owned(),
                candidate: only.clone(),
            });
        }
    }
    let made_on = run.config.benchmark.clone().unwrap_or(run.benchmark);
    let in_benchmark = |c: &CandidateRow| benchmark.tasks.iter().any(|t| t.id == c.task);
    if made_on == benchmark.name {
        // The run's own benchmark, narrowed to some of its tasks or not.
        let before = candidates.len();
        candidates.retain(in_benchmark);
        if candidates.is_empty() && before > 0 {
            return Err(DiffTestError::NoneInTasks(run_id.to_owned()));
        }
    } else if let Some(stray) = candidates.iter().find(|c| !in_benchmark(c)) {
        return Err(DiffTestError::OtherBenchmark {
            run: run_id.to_owned(),
            made_on,
            task: stray.task.clone(),
            given: benchmark.name.clone(),
        });
    }
    // Each task is made ready once, before the workers start; a task that cannot be leaves its
    // candidates not applicable, with the reason.
    let oracle = BuildToolOracle::new(validator.clone());
    let mut prepared: HashMap<String, Result<PreparedTask, String>> = HashMap::new();
    for task in &benchmark.tasks {
        if candidates.iter().any(|c| c.task == task.id) {
            progress.message(&format!("diff-test: preparing {}", task.id));
            let state = oracle
                .materialize(task)
                .map_err(|e| format!("cannot materialize the task: {}", chain(&e)));
            prepared.insert(task.id.clone(), state);
        }
    }
    let comparer = Comparer::new(validator, config);
    let mut lines: Vec<(usize, DiffTestLine)> = Vec::new();
    let mut groups: Vec<TaskGroup<'_>> = Vec::new();
    for (index, stored) in candidates.into_iter().enumerate() {
        match &prepared[&stored.task] {
            Err(reason) => {
                let row = comparer.not_applicable(&stored, reason.clone());
                lines.push((index, record(store, run_id, &stored, row)?));
            }
            Ok(state) => add_to_group(&mut groups, state, (index, stored)),
        }
    }
    lines.extend(compare_in_workers(
        store,
        run_id,
        groups,
        (validator, config, workers),
        progress,
    )?);
    comparer.clean_up();
    lines.sort_by_key(|(index, _)| *index);
    Ok(lines.into_iter().map(|(_, line)| line).collect())
}

/// One task's candidates, each with its index in the run (which names its work folder).
type TaskGroup<'t> = (&'t PreparedTask, Vec<(usize, CandidateRow)>);

/// Puts a candidate into its task's group, which is made for the task's first candidate.
fn add_to_group<'t>(
    groups: &mut Vec<TaskGroup<'t>>,
    state: &'t PreparedTask,
    candidate: (usize, CandidateRow),
) {
    match groups.iter_mut().find(|(t, _)| t.task.id == state.task.id) {
        Some((_, group)) => group.push(candidate),
        None => groups.push((state, vec![candidate])),
    }
}

/// Compares the candidates of the groups with `workers` workers, one task's candidates to one
/// worker (which prepares the task's side once), and stores each result as it comes, so that a
/// crash loses none that was compared. The lines, each with its candidate's index, come in the
/// order they were compared.
fn compare_in_workers(
    store: &mut Store,
    run_id: &str,
    groups: Vec<TaskGroup<'_>>,
    (validator, config, workers): (&ValidatorConfig, &DiffTestConfig, usize),
    progress: &dyn Progress,
) -> Result<Vec<(usize, DiffTestLine)>, StoreError> {
    let pending: usize = groups.iter().map(|(_, group)| group.len()).sum();
    let workers = workers.clamp(1, groups.len().max(1));
    let queue = std::sync::Mutex::new(groups.into_iter());
    let started = std::sync::atomic::AtomicUsize::new(0);
    let (send, receive) = std::sync::mpsc::channel();
    let mut lines = Vec::new();
    std::thread::scope(|scope| -> Result<(), StoreError> {
        for _ in 0..workers {
            let (send, queue, started) = (send.clone(), &queue, &started);
            scope.spawn(move || {
                let mut comparer = Comparer::new(validator, config);
                loop {
                    let next = queue.lock().unwrap_or_else(|p| p.into_inner()).next();
                    let Some((task_state, candidates)) = next else {
                        return;
                    };
                    for (index, stored) in candidates {
                        let number = started.fetch_add(1, std::sync::atomic::Ordering::SeqCst);
                        progress.message(&format!(
                            "diff-test {}/{pending}: {} {}",
                            number + 1,
                            stored.task,
                            stored.label
                        ));
                        let row = comparer.row(task_state, &stored, index);
                        if send.send((index, stored, row)).is_err() {
                            return;
                        }
                    }
                }
            });
        }
        drop(send);
        for (index, stored, row) in receive {
            lines.push((index, record(store, run_id, &stored, row)?));
        }
        Ok(())
    })?;
    Ok(lines)
}

/// What a validation with `--differential` does once its candidates have verdicts: compares the
/// plausible candidates that have no stored result yet (so a resumed run redoes none), of the
/// tasks that have a reference fix, and not those proven `Exact` or `Equivalent` (unless
/// `include_proven`), exactly as `avrlab diff-test` does; the tasks come as validation prepared
/// them. The tasks are shared out among `workers` workers, each task's candidates compared in turn
/// by one of them. Says how it went on `progress`.
pub(crate) fn diff_test_new(
    store: &mut Store,
    run_id: &str,
    prepared: &HashMap<String, PreparedTask>,
    (validator, config, workers): (&ValidatorConfig, &DiffTestConfig, usize),
    progress: &dyn Progress,
) -> Result<Vec<DiffTestLine>, StoreError> {
    let done: BTreeSet<String> = store
        .differentials(run_id)?
        .into_iter()
        .map(|d| d.candidate_id)
        .collect();
    let proofs = Comparer::new(validator, config);
    let mut groups: Vec<TaskGroup<'_>> = Vec::new();
    let mut pending = 0;
    for stored in plausible_candidates(store, run_id)? {
        let Some(task_state) = prepared.get(&stored.task) else {
            continue;
        };
        if done.contains(&stored.id) || task_state.task.reference.is_none() {
            continue;
        }
        if proofs.proven(task_state, &stored).is_some() {
            continue;
        }
        add_to_group(&mut groups, task_state, (pending, stored));
        pending += 1;
    }
    let lines: Vec<DiffTestLine> = compare_in_workers(
        store,
        run_id,
        groups,
        (validator, config, workers),
        progress,
    )?
    .into_iter()
    .map(|(_, line)| line)
    .collect();
    proofs.clean_up();
    if pending > 0 || !done.is_empty() {
        let all = store.differentials(run_id)?;
        progress.message(&format!(
            "{}; {} compared now",
            summary_of_rows(run_id, &all).trim_end(),
            lines.len()
        ));
    }
    Ok(lines)
}

/// The run's candidates whose verdict is `Plausible`, in run order.
fn plausible_candidates(store: &Store, run_id: &str) -> Result<Vec<CandidateRow>, StoreError> {
    let plausible: BTreeSet<String> = store
        .verdicts(run_id)?
        .into_iter()
        .filter(|v| v.outcome == Outcome::Plausible)
        .map(|v| v.candidate_id)
        .collect();
    Ok(store
        .candidates(run_id)?
        .into_iter()
        .filter(|c| plausible.contains(&c.id))
        .collect())
}

/// Compares candidates one by one, preparing each task's side once (one `Comparer` a worker).
struct Comparer<'a> {
    validator: &'a ValidatorConfig,
    config: &'a DiffTestConfig,
    root: PathBuf,
    sides: HashMap<String, Result<TaskSide, String>>,
}

impl<'a> Comparer<'a> {
    fn new(validator: &'a ValidatorConfig, config: &'a DiffTestConfig) -> Self {
        Self {
            validator,
            config,
            root: validator.work_root.join("diff-test"),
            sides: HashMap::new(),
        }
    }

    fn not_applicable(&self, stored: &CandidateRow, reason: String) -> DifferentialRow {
        DifferentialRow {
            candidate_id: stored.id.clone(),
            verdict: Differential::NotApplicable,
            reason,
            seed: self.config.seed as i64,
            inputs: 0,
            divergent_inputs: 0,
            vulnerable_inputs: 0,
            seconds: 0.0,
            budget_seconds: self.config.budget.as_secs_f64(),
            methods: Vec::new(),
            changed_lines: None,
            recorded_seeds: None,
            flags: Vec::new(),
            witness: None,
        }
    }

    /// Why the candidate is not compared, when it is proven the same as the reference fix by
    /// syntax (and the configuration does not compare such candidates).
    fn proven(&self, task_state: &PreparedTask, stored: &CandidateRow) -> Option<String> {
        if self.config.include_proven {
            return None;
        }
        let candidate = from_stored_form(stored.kind, &stored.content)?;
        let proven = correctness(&task_state.task, task_state.pristine(), &candidate);
        proven
            .is_proven()
            .then(|| format!("{proven}: proven the same as the reference fix by syntax"))
    }

    /// The candidate's result: compared, or not applicable with the reason. The task's side
    /// (its vulnerable state and fix built, the helper ready) is made for its first candidate
    /// that is compared.
    fn row(
        &mut self,
        task_state: &PreparedTask,
        stored: &CandidateRow,
        index: usize,
    ) -> DifferentialRow {
        if let Some(reason) = self.proven(task_state, stored) {
            return self.not_applicable(stored, reason);
        }
        let Some(candidate) = from_stored_form(stored.kind, &stored.content) else {
            return self.not_applicable(stored, "the stored candidate cannot be read".into());
        };
        let dir = self.root.join(&stored.task);
        let side = self.sides.entry(stored.task.clone()).or_insert_with(|| {
            TaskSide::prepare(task_state.clone(), self.validator, self.config, &dir)
        });
        let compared = match side {
            Err(reason) => Err(reason.clone()),
            Ok(side) => compare(
                side,
                &candidate,
                &stored.id,
                self.config,
                &dir.join(format!("candidate-{index}")),
            ),
        };
        compared.unwrap_or_else(|reason| self.not_applicable(stored, reason))
    }

    fn clean_up(&self) {
        if !self.validator.keep_workspaces && self.root.exists() {
            let _ = remove_tree(&self.root, self.validator.maven.sandbox);
        }
    }
}

/// What every candidate of a task shares: the vulnerable state, the reference fix, the literals
/// of its tests, its class path and the built helper.
struct TaskSide {
    prepared: PreparedTask,
    maven: Maven,
    tester: DiffTester,
    /// The project folders of the vulnerable state and the reference fix.
    vulnerable: PathBuf,
    reference: PathBuf,
    reference_targets: Vec<(String, String)>,
    classpath: Vec<PathBuf>,
    strings: Vec<String>,
    numbers: Vec<i64>,
    /// The argument values the task's tests passed to the changed methods, recorded on the
    /// reference fix; `None` when the recording could not be made or read.
    recorded: Option<RecordedSeeds>,
    /// The recording's folder, with the vulnerable and the fixed version's main classes.
    compiled: Option<PathBuf>,
}

impl TaskSide {
    fn prepare(
        prepared: PreparedTask,
        validator: &ValidatorConfig,
        config: &DiffTestConfig,
        dir: &Path,
    ) -> Result<Self, String> {
        let task = &prepared.task;
        let Some(reference) = &task.reference else {
            return Err("the task has no reference fix".into());
        };
        if task.build.system != avrlab_bench::BuildSystem::Maven {
            return Err(format!(
                "a {} build: the tester takes its class path from a Maven build",
                task.build.system.as_str()
            ));
        }
        let maven = Maven::for_build(validator.maven.clone(), &task.build)
            .map_err(|e| format!("no build tool for the task: {}", chain(&e)))?;
        let _ = remove_tree(dir, validator.maven.sandbox);
        let vulnerable = dir.join("vulnerable");
        let reference_dir = dir.join("reference");
        for folder in [&vulnerable, &reference_dir] {
            copy_project(prepared.pristine(), folder)
                .map_err(|e| format!("cannot copy the task state: {}", chain(&e)))?;
        }
        apply_candidate(
            task,
            prepared.classes(),
            &Candidate::Diff(reference.clone()),
            &reference_dir,
        )
        .map_err(|e| format!("the reference fix does not apply: {}", chain(&e)))?;
        let warm = match maven.warmed(&vulnerable) {
            Ok(Some(warm)) => warm,
            Ok(None) => {
                let copy = dir.join("warm-up");
                copy_project(prepared.pristine(), &copy)
                    .map_err(|e| format!("cannot copy the task state: {}", chain(&e)))?;
                as_warm_up(&validator.maven.repository, || maven.warm_up(&copy))?
                    .map_err(|e| format!("cannot resolve the class path: {}", chain(&e)))?
            }
            Err(e) => return Err(format!("cannot resolve the class path: {}", chain(&e))),
        };
        let tester = as_warm_up(&validator.maven.repository, || {
            maven.diff_tester(&config.tester_cache)
        })?
        .map_err(|e| format!("cannot build the differential tester: {}", chain(&e)))?;
        let module = &task.build.module;
        let reference_targets =
            changed_methods(&vulnerable.join(module), &reference_dir.join(module));
        let (strings, numbers) = test_literals(&vulnerable.join(module).join("src/test/java"));
        let request = RecordRequest {
            module: reference_dir.join(module),
            vulnerable: vulnerable.join(module),
            classpath: warm
                .classpath
                .iter()
                .map(|p| maven.sandbox_path(p))
                .collect(),
            targets: reference_targets.clone(),
            pov_tests: task
                .oracle
                .pov_tests
                .iter()
                .map(|t| (t.class.clone(), t.method.clone().unwrap_or_default()))
                .collect(),
            regression: true,
            budget: (config.budget / 4).min(RECORD_BUDGET),
            call_timeout: config.call_timeout.max(Duration::from_secs(2)),
            work: dir.join("record"),
        };
        let recorded = maven
            .diff_record(&tester, &request)
            .ok()
            .and_then(|run| run.answer.ok())
            .and_then(|bytes| read_recorded(&bytes).ok());
        // The recording compiled both versions' main classes: its comparisons use them (they are
        // the task's, made before any candidate ran). Without a recording they compile each time.
        let compiled = (recorded.is_some()
            && [COMPILED_VULNERABLE, COMPILED_REFERENCE]
                .iter()
                .all(|folder| request.work.join(folder).is_dir()))
        .then(|| request.work.clone());
        if compiled.is_none() {
            let _ = remove_tree(&request.work, validator.maven.sandbox);
        }
        Ok(Self {
            prepared,
            maven,
            tester,
            vulnerable,
            reference: reference_dir,
            reference_targets,
            classpath: warm.classpath,
            strings,
            numbers,
            recorded,
            compiled,
        })
    }
}

/// The longest the task's tests run while their arguments are recorded (a quarter of the
/// candidate's budget, at most this): the PoV tests first, then the others while it lasts.
const RECORD_BUDGET: Duration = Duration::from_secs(5);

/// The values a recording saw the tests pass, strings and integers, each once.
#[derive(Debug, Clone, Default, PartialEq)]
struct RecordedSeeds {
    strings: Vec<String>,
    numbers: Vec<i64>,
}

/// Reads a recording's seeds file strictly (the tests ran the project's code, which could have
/// written it): UTF-8, every line `string<TAB>value` (escaped as requests are: `\\`, `\t`,
/// `\n`, `\r`, `\0`) or `number<TAB>integer`, at most [`MAX_STRINGS`] strings of at most
/// [`MAX_STRING_CHARS`] characters and [`MAX_NUMBERS`] numbers. Anything else refuses the whole
/// file.
fn read_recorded(bytes: &[u8]) -> Result<RecordedSeeds, String> {
    let text = std::str::from_utf8(bytes).map_err(|_| "the seeds file is not UTF-8".to_owned())?;
    let mut seeds = RecordedSeeds::default();
    for (index, line) in text.lines().enumerate() {
        let bad = || format!("line {} of the seeds file is malformed", index + 1);
        let (kind, value) = line.split_once('\t').ok_or_else(bad)?;
        match kind {
            "string" => {
                let value = unescape_field(value).ok_or_else(bad)?;
                if value.chars().count() > MAX_STRING_CHARS || seeds.strings.len() == MAX_STRINGS {
                    return Err(bad());
                }
                if !seeds.strings.contains(&value) {
                    seeds.strings.push(value);
                }
            }
            "number" => {
                let value: i64 = value.parse().map_err(|_| bad())?;
                if seeds.numbers.len() == MAX_NUMBERS {
                    return Err(bad());
                }
                if !seeds.numbers.contains(&value) {
                    seeds.numbers.push(value);
                }
            }
            _ => return Err(bad()),
        }
    }
    Ok(seeds)
}

/// A field escaped as the helper's requests are; `None` for an escape it does not write.
fn unescape_field(text: &str) -> Option<String> {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars();
    while let Some(c) = chars.next() {
        match c {
            '\\' => out.push(match chars.next()? {
                '\\' => '\\',
                't' => '\t',
                'n' => '\n',
                'r' => '\r',
                '0' => '\0',
                _ => return None,
            }),
            '\t' | '\n' | '\r' => return None,
            c => out.push(c),
        }
    }
    Some(out)
}

/// The recorded values first, then the literals not among them.
fn recorded_first<T: Clone + PartialEq>(recorded: &[T], literals: &[T]) -> Vec<T> {
    let mut out = recorded.to_vec();
    out.extend(literals.iter().filter(|v| !recorded.contains(v)).cloned());
    out
}

/// Runs `step`, which writes the shared dependency cache (a class path or the tester's libraries
/// resolved with network), as a warm-up: while no candidate of any avrlab process sharing the
/// cache runs, and re-sealed after (see `CacheSeal`).
fn as_warm_up<T>(repository: &Path, step: impl FnOnce() -> T) -> Result<T, String> {
    CacheSeal::check_trusted(repository)
        .and_then(|()| CacheSeal.warm_up(repository)?.run(repository, step))
        .map_err(|e| chain(&e))
}

/// Compares one candidate; `Err` is a reason for `NotApplicable`.
fn compare(
    side: &TaskSide,
    candidate: &Candidate,
    candidate_id: &str,
    config: &DiffTestConfig,
    dir: &Path,
) -> Result<DifferentialRow, String> {
    let task = &side.prepared.task;
    let sandbox = side.maven.settings().sandbox;
    let _ = remove_tree(dir, sandbox);
    let project = dir.join("project");
    copy_project(side.prepared.pristine(), &project)
        .map_err(|e| format!("cannot copy the task state: {}", chain(&e)))?;
    apply_candidate(task, side.prepared.classes(), candidate, &project)
        .map_err(|e| format!("the candidate does not apply: {}", chain(&e)))?;
    let module = &task.build.module;
    let mut targets = changed_methods(&side.vulnerable.join(module), &project.join(module));
    for target in &side.reference_targets {
        if !targets.contains(target) {
            targets.push(target.clone());
        }
    }
    if targets.is_empty() {
        return Err("neither the candidate nor the fix changes a method".into());
    }
    let recorded = side.recorded.clone().unwrap_or_default();
    let request = DiffTestRequest {
        vulnerable: side.vulnerable.join(module),
        reference: side.reference.join(module),
        candidate: project.join(module),
        classpath: side
            .classpath
            .iter()
            .map(|p| side.maven.sandbox_path(p))
            .collect(),
        targets,
        strings: recorded_first(
            &recorded.strings,
            &with_changed_literals(
                &side.strings,
                &side.vulnerable.join(module),
                [&side.reference.join(module), &project.join(module)],
            ),
        ),
        numbers: recorded_first(&recorded.numbers, &side.numbers),
        changed_lines: changed_lines(&side.vulnerable.join(module), &project.join(module)),
        seed: config.seed,
        inputs_per_method: config.inputs_per_method,
        budget: config.budget,
        call_timeout: config.call_timeout,
        work: dir.join("work"),
        compiled: side.compiled.clone(),
    };
    let run = side
        .maven
        .diff_test(&side.tester, &request)
        .map_err(|e| format!("the differential tester did not run: {}", chain(&e)))?;
    let flags = tell_apart_flags(&side.vulnerable.join(module), &project.join(module));
    let _ = remove_tree(dir, sandbox);
    let bytes = match (&run.answer, run.exit) {
        (Ok(bytes), _) => bytes,
        (Err(why), ExitKind::TimedOut) => {
            return Err(format!("the differential tester ran out of time ({why})"));
        }
        (Err(why), exit) => {
            return Err(format!("{why} (exit {exit:?}): {}", last_line(&run.log)));
        }
    };
    let mut row = read_answer(
        bytes,
        candidate_id,
        config,
        request.changed_lines.len() as u64,
    )?;
    row.recorded_seeds = side
        .recorded
        .as_ref()
        .map(|r| (r.strings.len() + r.numbers.len()) as u64);
    row.flags = flags;
    Ok(row)
}

/// The helper's answer, as written (untrusted: the candidate's code ran in the same JVM).
#[derive(Debug, Deserialize)]
struct Answer {
    format_version: u32,
    verdict: String,
    #[serde(default)]
    reason: String,
    #[serde(default)]
    methods: Vec<String>,
    #[serde(default)]
    inputs: u64,
    #[serde(default)]
    divergent_inputs: u64,
    #[serde(default)]
    vulnerable_only_inputs: u64,
    /// Inputs on which the versions showed values that cannot be compared (neither the same nor
    /// a divergence).
    #[serde(default)]
    not_comparable_inputs: u64,
    /// The first such input's method and what it showed.
    #[serde(default)]
    not_comparable_example: Option<String>,
    #[serde(default)]
    seconds: f64,
    #[serde(default)]
    budget_exhausted: bool,
    /// Present together, where the candidate's changed lines were measured.
    #[serde(default)]
    changed_lines: Option<u64>,
    #[serde(default)]
    changed_lines_reached: Option<u64>,
    #[serde(default)]
    witness: Option<AnswerWitness>,
}

#[derive(Debug, Deserialize)]
struct AnswerWitness {
    input_seed: i64,
    method: String,
    input: String,
    /// The input as it was found, before it was shrunk to `input`.
    #[serde(default)]
    found_as: Option<String>,
    reference: String,
    candidate: String,
    vulnerable: String,
}

/// Reads the helper's answer into a stored row; a malformed one is `Err` (not applicable).
/// `changed` is how many changed lines were asked about: the answer cannot count more.
fn read_answer(
    bytes: &[u8],
    candidate_id: &str,
    config: &DiffTestConfig,
    changed: u64,
) -> Result<DifferentialRow, String> {
    let answer: Answer = serde_json::from_slice(bytes)
        .map_err(|e| format!("the differential tester's answer is malformed: {e}"))?;
    if answer.format_version != 1 {
        return Err(format!(
            "the differential tester's answer has format {}, not 1",
            answer.format_version
        ));
    }
    let verdict = match answer.verdict.as_str() {
        "divergent" => Differential::Divergent,
        "divergent_on_vulnerable_inputs" => Differential::DivergentOnVulnerableInputs,
        "no_divergence" => Differential::NoDivergence,
        "not_applicable" => return Err(answer.reason),
        other => {
            return Err(format!(
                "the differential tester's verdict `{other}` is unknown"
            ));
        }
    };
    let diverged = matches!(
        verdict,
        Differential::Divergent | Differential::DivergentOnVulnerableInputs
    );
    if diverged != answer.witness.is_some() {
        return Err("the differential tester's answer has a divergence without a witness".into());
    }
    let changed_lines = match (answer.changed_lines, answer.changed_lines_reached) {
        // A candidate that only deletes lines has none to reach (and the helper measures none).
        (None, None) if changed == 0 => Some(ChangedLines {
            total: 0,
            reached: 0,
        }),
        (Some(total), Some(reached)) if reached <= total && total <= changed => {
            Some(ChangedLines { total, reached })
        }
        _ => {
            return Err(
                "the differential tester's answer counts the changed lines inconsistently".into(),
            );
        }
    };
    let mut reason = answer.reason;
    if answer.not_comparable_inputs > 0 {
        let mut note = format!(
            "{} inputs showed values that cannot be compared",
            answer.not_comparable_inputs
        );
        if let Some(example) = &answer.not_comparable_example {
            note.push_str(&format!(" (the first: {example})"));
        }
        reason = if reason.is_empty() {
            note
        } else {
            format!("{reason}; {note}")
        };
    }
    if answer.budget_exhausted {
        let note = format!(
            "the time budget of {} s ran out after {} inputs",
            config.budget.as_secs(),
            answer.inputs
        );
        reason = if reason.is_empty() {
            note
        } else {
            format!("{reason}; {note}")
        };
    }
    Ok(DifferentialRow {
        candidate_id: candidate_id.to_owned(),
        verdict,
        reason,
        seed: config.seed as i64,
        inputs: answer.inputs,
        divergent_inputs: answer.divergent_inputs,
        vulnerable_inputs: answer.vulnerable_only_inputs,
        seconds: answer.seconds,
        budget_seconds: config.budget.as_secs_f64(),
        methods: answer.methods,
        changed_lines,
        recorded_seeds: None,
        flags: Vec::new(),
        witness: answer.witness.map(|w| WitnessRow {
            method: w.method,
            input: match w.found_as {
                Some(found) if found != w.input => format!("{}  (shrunk from {found})", w.input),
                _ => w.input,
            },
            reference: w.reference,
            candidate: w.candidate,
            vulnerable: w.vulnerable,
            input_seed: w.input_seed,
        }),
    })
}

/// The methods whose text differs between two versions of a module's main sources (new or
/// changed, not deleted), as `(binary class name, method name)`; `<init>` for constructors.
pub(crate) fn changed_methods(before: &Path, after: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let sources = after.join("src/main/java");
    for entry in walkdir::WalkDir::new(&sources)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java"))
    {
        let Ok(rel) = entry.path().strip_prefix(after) else {
            continue;
        };
        let Ok(new_text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let old_text = std::fs::read_to_string(before.join(rel)).unwrap_or_default();
        if old_text == new_text {
            continue;
        }
        let old = method_texts(&old_text);
        let new = method_texts(&new_text);
        let package = package_of(&new_text);
        let class_of = |types: &[String]| match &package {
            Some(p) => format!("{p}.{}", types.join("$")),
            None => types.join("$"),
        };
        let mut changed = false;
        for (key, text) in &new {
            if old.iter().any(|(k, t)| k == key && t == text) {
                continue;
            }
            let (types, name, _) = key;
            if types.is_empty() {
                continue;
            }
            changed = true;
            let target = (class_of(types), name.clone());
            if !out.contains(&target) {
                out.push(target);
            }
        }
        // A change outside every method (a field's initializer, a constant): the top-level
        // class's non-private methods are what can observe it (`<fields>`, as the helper reads it).
        if !changed && without_methods(&old_text) != without_methods(&new_text) {
            for (types, _, _) in new.iter().map(|(k, _)| k) {
                let target = (
                    class_of(&types[..1.min(types.len())]),
                    "<fields>".to_owned(),
                );
                if !types.is_empty() && !out.contains(&target) {
                    out.push(target);
                }
            }
        }
    }
    out
}

/// A source's text without its methods, imports, package line and comments, as tokens: what
/// else a change can touch (fields, initializers, class headers).
fn without_methods(text: &str) -> Vec<String> {
    let source = avrlab_java::parse(text);
    let mut kept = text.to_owned();
    let mut ranges: Vec<std::ops::Range<usize>> = avrlab_java::methods(&source)
        .into_iter()
        .map(|m| m.bytes)
        .collect();
    ranges.sort_by_key(|r| std::cmp::Reverse(r.start));
    for range in ranges {
        kept.replace_range(range, " ");
    }
    kept.lines()
        .map(str::trim)
        .filter(|l| {
            !(l.is_empty()
                || l.starts_with("import ")
                || l.starts_with("package ")
                || l.starts_with("//")
                || l.starts_with("/*")
                || l.starts_with('*'))
        })
        .flat_map(|l| l.split_whitespace().map(str::to_owned).collect::<Vec<_>>())
        .collect()
}

type MethodKey = (Vec<String>, String, usize);

/// Each method's text, keyed by its enclosing types, its name (`<init>` for a constructor) and
/// its position among the methods of that name.
fn method_texts(text: &str) -> Vec<(MethodKey, String)> {
    let source = avrlab_java::parse(text);
    let mut seen: HashMap<(Vec<String>, String), usize> = HashMap::new();
    let mut out = Vec::new();
    for method in avrlab_java::methods(&source) {
        let name = if method.is_constructor {
            "<init>".to_owned()
        } else {
            method.name.clone()
        };
        let count = seen
            .entry((method.enclosing_types.clone(), name.clone()))
            .or_default();
        let key = (method.enclosing_types.clone(), name, *count);
        *count += 1;
        out.push((key, text[method.bytes.clone()].to_owned()));
    }
    out
}

fn package_of(text: &str) -> Option<String> {
    let source = avrlab_java::parse(text);
    avrlab_java::preorder(source.root())
        .map(|(node, _)| node)
        .find(|n| n.kind() == "package_declaration")
        .map(|n| {
            source
                .node_text(n)
                .trim_start_matches("package")
                .trim_end_matches(';')
                .split_whitespace()
                .collect::<String>()
        })
}

/// The most changed lines whose coverage is asked for (a candidate that rewrites a whole file is
/// measured on its first lines).
const MAX_CHANGED_LINES: usize = 5000;

/// The main source files (`.java` under `src/main/java`) that a version of a module has and
/// another has not, or has otherwise: `(path as Java names it, earlier text, later text)`, the
/// earlier text empty for a new file.
fn changed_sources(before: &Path, after: &Path) -> Vec<(String, String, String)> {
    let mut out = Vec::new();
    let sources = after.join("src/main/java");
    for entry in walkdir::WalkDir::new(&sources)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java"))
    {
        let (Ok(rel), Ok(new_text)) = (
            entry.path().strip_prefix(&sources),
            std::fs::read_to_string(entry.path()),
        ) else {
            continue;
        };
        let old_text =
            std::fs::read_to_string(before.join("src/main/java").join(rel)).unwrap_or_default();
        if old_text == new_text {
            continue;
        }
        // The path as Java names it (`a/b/C.java`), whatever the host's separator.
        let path = rel
            .components()
            .map(|c| c.as_os_str().to_string_lossy())
            .collect::<Vec<_>>()
            .join("/");
        out.push((path, old_text, new_text));
    }
    out
}

/// What the candidate's new main code adds of the API families with which code can tell a test
/// harness from a test run, or reach for a harness's channel (the fast path's flags): the stack,
/// class loading, deep reflection, the JVM's own files, and the like. The differential tester's
/// JVM is not the test JVM, and a candidate that looks can find that out.
fn tell_apart_flags(before: &Path, after: &Path) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for (path, old_text, new_text) in changed_sources(before, after) {
        for family in avrlab_validate::added_families(&old_text, &new_text) {
            out.push(format!("{path}: {family}"));
        }
    }
    out
}

/// The lines a version adds or changes in a module's main sources against another version
/// (deleted lines have nothing to reach), as `(source path under src/main/java, line number)`,
/// numbered in the later version.
pub(crate) fn changed_lines(before: &Path, after: &Path) -> Vec<(String, u32)> {
    let mut out = Vec::new();
    for (path, old_text, new_text) in changed_sources(before, after) {
        let diff = similar::TextDiff::from_lines(&old_text, &new_text);
        for op in diff.ops() {
            if let similar::DiffOp::Insert {
                new_index, new_len, ..
            }
            | similar::DiffOp::Replace {
                new_index, new_len, ..
            } = *op
            {
                for index in new_index..new_index + new_len {
                    if out.len() == MAX_CHANGED_LINES {
                        return out;
                    }
                    out.push((path.clone(), index as u32 + 1));
                }
            }
        }
    }
    out
}

/// The most literals of each kind handed to the generators, and the longest string kept.
const MAX_STRINGS: usize = 200;
const MAX_NUMBERS: usize = 100;
const MAX_STRING_CHARS: usize = 400;

/// The string and integer literals of a module's test sources, in file order, each once: the
/// values the PoV and regression tests pass, which seed the generators.
pub(crate) fn test_literals(tests: &Path) -> (Vec<String>, Vec<i64>) {
    let mut strings: Vec<String> = Vec::new();
    let mut numbers: Vec<i64> = Vec::new();
    for entry in walkdir::WalkDir::new(tests)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java"))
    {
        let Ok(text) = std::fs::read_to_string(entry.path()) else {
            continue;
        };
        let source = avrlab_java::parse(&text);
        for (node, parent) in avrlab_java::preorder(source.root()) {
            match node.kind() {
                "string_literal" => {
                    if let Some(value) = unquote(source.node_text(node))
                        && value.chars().count() <= MAX_STRING_CHARS
                        && !strings.contains(&value)
                        && strings.len() < MAX_STRINGS
                    {
                        strings.push(value);
                    }
                }
                "decimal_integer_literal" | "hex_integer_literal" => {
                    let literal = source.node_text(node).replace('_', "");
                    let digits = literal.trim_end_matches(['l', 'L']);
                    let value = match digits.strip_prefix("0x").or(digits.strip_prefix("0X")) {
                        Some(hex) => i64::from_str_radix(hex, 16).ok(),
                        None => digits.parse().ok(),
                    };
                    if let Some(value) = value {
                        // A literal after a minus sign is the negative number the test means.
                        let negative = parent
                            .filter(|p| p.kind() == "unary_expression")
                            .is_some_and(|p| source.node_text(p).trim_start().starts_with('-'));
                        let value = if negative { -value } else { value };
                        if !numbers.contains(&value) && numbers.len() < MAX_NUMBERS {
                            numbers.push(value);
                        }
                    }
                }
                _ => {}
            }
        }
    }
    (strings, numbers)
}

/// The literals of the tests, then the string literals that the reference fix or the candidate
/// add to the main sources (`"toString"` added to a deny list): the values the change is about,
/// which the tests may never pass. The generators draw a literal from the list at random, so the
/// change's literals are repeated until they make up about a quarter of it: among a test suite's
/// 200 literals, two added names would otherwise come up once in hundreds of inputs.
fn with_changed_literals(tests: &[String], before: &Path, afters: [&Path; 2]) -> Vec<String> {
    let mut added: Vec<String> = Vec::new();
    for after in afters {
        let sources = after.join("src/main/java");
        for entry in walkdir::WalkDir::new(&sources)
            .sort_by_file_name()
            .into_iter()
            .filter_map(Result::ok)
            .filter(|e| {
                e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "java")
            })
        {
            let (Ok(rel), Ok(new_text)) = (
                entry.path().strip_prefix(after),
                std::fs::read_to_string(entry.path()),
            ) else {
                continue;
            };
            let old_text = std::fs::read_to_string(before.join(rel)).unwrap_or_default();
            if old_text == new_text {
                continue;
            }
            let old = string_literals(&old_text);
            for value in string_literals(&new_text) {
                if !old.contains(&value) && !tests.contains(&value) && !added.contains(&value) {
                    added.push(value);
                }
            }
        }
    }
    added.truncate(MAX_STRINGS);
    let mut out = tests.to_vec();
    if !added.is_empty() {
        let repeat = (tests.len() / (3 * added.len())).max(1);
        for _ in 0..repeat {
            out.extend(added.iter().cloned());
        }
    }
    out
}

/// The string literals of a Java source, decoded, each once.
fn string_literals(text: &str) -> Vec<String> {
    let source = avrlab_java::parse(text);
    let mut out: Vec<String> = Vec::new();
    for (node, _) in avrlab_java::preorder(source.root()) {
        if node.kind() == "string_literal"
            && let Some(value) = unquote(source.node_text(node))
            && value.chars().count() <= MAX_STRING_CHARS
            && !out.contains(&value)
        {
            out.push(value);
        }
    }
    out
}

/// The value of a Java string literal (not a text block), escapes decoded.
fn unquote(literal: &str) -> Option<String> {
    let inner = literal.strip_prefix('"')?.strip_suffix('"')?;
    if inner.starts_with("\"\"") {
        return None;
    }
    let mut out = String::new();
    let mut chars = inner.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next()? {
            'n' => out.push('\n'),
            'r' => out.push('\r'),
            't' => out.push('\t'),
            'b' => out.push('\u{8}'),
            'f' => out.push('\u{c}'),
            's' => out.push(' '),
            '0' => out.push('\0'),
            'u' => {
                let hex: String = chars.by_ref().take(4).collect();
                out.push(char::from_u32(u32::from_str_radix(&hex, 16).ok()?)?);
            }
            other => out.push(other),
        }
    }
    Some(out)
}

fn chain(error: &dyn std::error::Error) -> String {
    crate::run::progress::error_chain(error)
}

fn last_line(log: &str) -> &str {
    log.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("")
}

/// The result as a table: one line per candidate, with the witness of each divergence.
pub(crate) fn render_lines(run_id: &str, lines: &[DiffTestLine]) -> String {
    let mut out = String::new();
    for line in lines {
        let row = &line.row;
        out.push_str(&format!(
            "{:<24} {:<28} {:<28} {:>5} inputs {:>6.1} s",
            line.task, line.label, row.verdict, row.inputs, row.seconds
        ));
        if let Some(changed) = row.changed_lines {
            out.push_str(&format!("  {changed}"));
        }
        if let Some(recorded) = row.recorded_seeds {
            out.push_str(&format!("  {recorded} seeds recorded from the tests"));
        }
        if !row.reason.is_empty() {
            out.push_str(&format!("  ({})", row.reason));
        }
        out.push('\n');
        if !row.flags.is_empty() {
            out.push_str(&format!("    flagged: {}\n", row.flags.join("; ")));
        }
        if let Some(w) = &row.witness {
            out.push_str(&witness_text(w, "    "));
            out.push_str(&format!(
                "      again:      {}\n",
                reproduce_command(run_id, row)
            ));
        }
    }
    out.push_str(&summary(run_id, lines));
    out
}

/// A witness as an auditor reads it, each line indented by `indent`.
pub(crate) fn witness_text(w: &WitnessRow, indent: &str) -> String {
    format!(
        "{indent}witness {} (input seed {}):\n{indent}  input:      {}\n{indent}  reference:  {}\n\
         {indent}  candidate:  {}\n{indent}  vulnerable: {}\n",
        w.method, w.input_seed, w.input, w.reference, w.candidate, w.vulnerable
    )
}

/// The command that compares one candidate again, as it was compared (the same seed, so the
/// same inputs and the same shrunk witness).
pub(crate) fn reproduce_command(run_id: &str, row: &DifferentialRow) -> String {
    format!(
        "avrlab diff-test {run_id} --candidate {} --budget {:.0} --include-proven (with the run's --store and --benchmark)",
        row.candidate_id, row.budget_seconds
    )
}

/// One line: how many candidates got each verdict, and the seconds they took.
pub(crate) fn summary(run_id: &str, lines: &[DiffTestLine]) -> String {
    let rows: Vec<DifferentialRow> = lines.iter().map(|l| l.row.clone()).collect();
    summary_of_rows(run_id, &rows)
}

/// [`summary`] of stored rows.
pub(crate) fn summary_of_rows(run_id: &str, rows: &[DifferentialRow]) -> String {
    let count = |v: Differential| rows.iter().filter(|r| r.verdict == v).count();
    let tested: Vec<&DifferentialRow> = rows
        .iter()
        .filter(|r| r.verdict != Differential::NotApplicable)
        .collect();
    let seconds: f64 = tested.iter().map(|r| r.seconds).sum();
    let mean = if tested.is_empty() {
        0.0
    } else {
        seconds / tested.len() as f64
    };
    let budget = rows.first().map_or(0.0, |r| r.budget_seconds);
    // What the inputs of the candidates that did not diverge reached of their changed lines.
    let (reached, total) = rows
        .iter()
        .filter(|r| r.verdict == Differential::NoDivergence)
        .filter_map(|r| r.changed_lines)
        .fold((0, 0), |(reached, total), c| {
            (reached + c.reached, total + c.total)
        });
    // A candidate whose code could tell the tester apart found no divergence on its own word.
    let flagged = rows
        .iter()
        .filter(|r| r.verdict == Differential::NoDivergence && !r.flags.is_empty())
        .count();
    format!(
        "diff-test {run_id}: {} plausible candidates: {} Divergent, {} DivergentOnVulnerableInputs, \
         {} NoDivergence ({flagged} flagged), {} NotApplicable; {mean:.1} s per compared candidate \
         in the tester (budget {budget:.0} s); changed lines reached in NoDivergence: {reached} of \
         {total}\n",
        rows.len(),
        count(Differential::Divergent),
        count(Differential::DivergentOnVulnerableInputs),
        count(Differential::NoDivergence),
        count(Differential::NotApplicable),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn changed_methods_are_found_by_their_text_with_nested_classes_named_as_binary_names() {
        let dir = tempfile::tempdir().unwrap();
        let file = "src/main/java/a/b/C.java";
        let before = "package a.b;\nclass C {\n  int f() { return 1; }\n  int g() { return 2; }\n  \
                      static class D { void h() {} }\n}\n";
        let after = "package a.b;\nclass C {\n  int f() { return 1; }\n  int g() { return 3; }\n  \
                     static class D { void h() { g(); } }\n}\n";
        for (side, text) in [("old", before), ("new", after)] {
            let path = dir.path().join(side).join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        assert_eq!(
            changed_methods(&dir.path().join("old"), &dir.path().join("new")),
            vec![
                ("a.b.C".to_owned(), "g".to_owned()),
                ("a.b.C$D".to_owned(), "h".to_owned())
            ]
        );
    }

    #[test]
    fn a_change_outside_every_method_targets_the_top_level_class_fields() {
        let dir = tempfile::tempdir().unwrap();
        let file = "src/main/java/a/C.java";
        let before = "package a;\nimport java.util.Set;\nclass C {\n  static final Set<String> S = Set.of(\"x\");\n  \
                      boolean f(String s) { return S.contains(s); }\n  static class D { void h() {} }\n}\n";
        let after = before.replace("Set.of(\"x\")", "Set.of(\"x\", \"y\")");
        let reformatted = before.replace("import java.util.Set;", "import java.util.Set; // sets");
        for (side, text) in [
            ("old", before),
            ("new", after.as_str()),
            ("layout", &reformatted),
        ] {
            let path = dir.path().join(side).join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        assert_eq!(
            changed_methods(&dir.path().join("old"), &dir.path().join("new")),
            vec![("a.C".to_owned(), "<fields>".to_owned())]
        );
        assert!(changed_methods(&dir.path().join("old"), &dir.path().join("layout")).is_empty());
    }

    #[test]
    fn literals_a_change_adds_to_the_main_sources_follow_the_tests_literals() {
        let dir = tempfile::tempdir().unwrap();
        let file = "src/main/java/a/C.java";
        let before = "class C { static final Set<String> S = Set.of(\"clone\"); }";
        let fix = "class C { static final Set<String> S = Set.of(\"clone\", \"getClass\"); }";
        let candidate = "class C { static final Set<String> S = Set.of(\"clone\", \"getClass\", \"toString\"); }";
        for (side, text) in [("old", before), ("fix", fix), ("candidate", candidate)] {
            let path = dir.path().join(side).join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        let strings = with_changed_literals(
            &["a".to_owned()],
            &dir.path().join("old"),
            [&dir.path().join("fix"), &dir.path().join("candidate")],
        );
        assert_eq!(strings, ["a", "getClass", "toString"]);
        // Among many test literals, the change's come up about a quarter of the time.
        let tests: Vec<String> = (0..60).map(|i| format!("t{i}")).collect();
        let strings = with_changed_literals(
            &tests,
            &dir.path().join("old"),
            [&dir.path().join("fix"), &dir.path().join("candidate")],
        );
        assert_eq!(strings.len(), 60 + 2 * 10);
        assert_eq!(strings.iter().filter(|s| *s == "toString").count(), 10);
    }

    #[test]
    fn test_literals_decode_escapes_and_keep_the_sign_of_numbers() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(
            dir.path().join("T.java"),
            "class T { void t() { f(\"a\\r\\nb\", -50, 0x10, \"a\\r\\nb\", \"\\u0041\"); } }",
        )
        .unwrap();
        let (strings, numbers) = test_literals(dir.path());
        assert_eq!(strings, vec!["a\r\nb".to_owned(), "A".to_owned()]);
        assert_eq!(numbers, vec![-50, 16]);
    }

    #[test]
    fn an_answer_that_claims_a_divergence_without_a_witness_is_refused() {
        let config = DiffTestConfig::default();
        let forged = br#"{"format_version":1,"verdict":"divergent","inputs":3}"#;
        assert!(read_answer(forged, "c", &config, 0).is_err());
        let plain = br#"{"format_version":1,"verdict":"no_divergence","inputs":3,"seconds":1.5,
            "methods":["C.f(int)"],"budget_exhausted":true}"#;
        let row = read_answer(plain, "c", &config, 0).unwrap();
        assert_eq!(row.verdict, Differential::NoDivergence);
        assert!(
            row.reason.contains("ran out after 3 inputs"),
            "{}",
            row.reason
        );
        assert!(read_answer(b"not json", "c", &config, 0).is_err());
    }

    #[test]
    fn a_candidate_that_looks_at_the_stack_or_names_the_tester_is_flagged_and_counted() {
        let dir = tempfile::tempdir().unwrap();
        let (before, after) = (dir.path().join("v"), dir.path().join("c"));
        for (root, body) in [
            (&before, "return x;"),
            (
                &after,
                "if (new Throwable().getStackTrace().length > 0 && \"avrlab\".isEmpty()) {} return x;",
            ),
        ] {
            let file = root.join("src/main/java/a/B.java");
            std::fs::create_dir_all(file.parent().unwrap()).unwrap();
            std::fs::write(
                &file,
                format!("package a; class B {{ int f(int x) {{ {body} }} }}"),
            )
            .unwrap();
        }
        let flags = tell_apart_flags(&before, &after);
        assert_eq!(flags.len(), 2, "{flags:?}");
        assert!(
            flags.iter().all(|f| f.starts_with("a/B.java: ")),
            "{flags:?}"
        );
        assert!(
            flags.iter().any(|f| f.contains("getStackTrace")),
            "{flags:?}"
        );
        // An ordinary fix adds none.
        assert!(tell_apart_flags(&before, &before).is_empty());

        let config = DiffTestConfig::default();
        let plain = br#"{"format_version":1,"verdict":"no_divergence","inputs":3,"seconds":1.5,
            "methods":["B.f(int)"]}"#;
        let mut flagged = read_answer(plain, "c1", &config, 0).unwrap();
        flagged.flags = flags;
        let clean = read_answer(plain, "c2", &config, 0).unwrap();
        let summary = summary_of_rows("r", &[flagged, clean]);
        assert!(summary.contains("2 NoDivergence (1 flagged)"), "{summary}");
    }

    #[test]
    fn the_changed_lines_reached_are_read_only_when_consistent_with_the_request() {
        let config = DiffTestConfig::default();
        let answer = |total: u64, reached: u64| {
            format!(
                r#"{{"format_version":1,"verdict":"no_divergence","inputs":3,
                "changed_lines":{total},"changed_lines_reached":{reached}}}"#
            )
        };
        let row = read_answer(answer(4, 3).as_bytes(), "c", &config, 6).unwrap();
        assert_eq!(
            row.changed_lines,
            Some(ChangedLines {
                total: 4,
                reached: 3
            })
        );
        // More reached than there are, more lines than were asked about, one count alone.
        assert!(read_answer(answer(4, 5).as_bytes(), "c", &config, 6).is_err());
        assert!(read_answer(answer(7, 1).as_bytes(), "c", &config, 6).is_err());
        let alone = br#"{"format_version":1,"verdict":"no_divergence","changed_lines":2}"#;
        assert!(read_answer(alone, "c", &config, 6).is_err());
        // Lines were asked about and the answer does not count them; none were, and it does not.
        let silent = br#"{"format_version":1,"verdict":"no_divergence","inputs":3}"#;
        assert!(read_answer(silent, "c", &config, 6).is_err());
        assert_eq!(
            read_answer(silent, "c", &config, 0).unwrap().changed_lines,
            Some(ChangedLines {
                total: 0,
                reached: 0
            })
        );
        let line = render_lines(
            "r",
            &[DiffTestLine {
                task: "t".into(),
                label: "l".into(),
                row,
            }],
        );
        assert!(line.contains("changed lines reached: 3 of 4"), "{line}");
        assert!(
            line.contains("changed lines reached in NoDivergence: 3 of 4"),
            "{line}"
        );
    }

    #[test]
    fn a_shrunk_witness_keeps_the_input_it_was_found_as_and_says_how_to_make_it_again() {
        let config = DiffTestConfig::default();
        let answer = br#"{"format_version":1,"verdict":"divergent","inputs":9,
            "changed_lines":1,"changed_lines_reached":1,"not_comparable_inputs":2,
            "witness":{"index":4,"input_seed":1000007,"method":"A.f(int)","input":"A.f(-1)",
            "found_as":"A.f(-12)","reference":"returned 1","candidate":"returned 2","vulnerable":"returned 2"}}"#;
        let row = read_answer(answer, "c7", &config, 1).unwrap();
        let witness = row.witness.clone().unwrap();
        assert_eq!(witness.input, "A.f(-1)  (shrunk from A.f(-12))");
        assert_eq!(row.reason, "2 inputs showed values that cannot be compared");
        let with_example = String::from_utf8_lossy(answer).replace(
            "\"not_comparable_inputs\":2,",
            "\"not_comparable_inputs\":2,\"not_comparable_example\":\"A.f(int), the value: A keeps identity equality\",",
        );
        assert_eq!(
            read_answer(with_example.as_bytes(), "c7", &config, 1)
                .unwrap()
                .reason,
            "2 inputs showed values that cannot be compared (the first: A.f(int), the value: A keeps identity equality)"
        );
        let line = render_lines(
            "r",
            &[DiffTestLine {
                task: "t".into(),
                label: "l".into(),
                row,
            }],
        );
        assert!(
            line.contains("again:      avrlab diff-test r --candidate c7 --budget 20"),
            "{line}"
        );
    }

    #[test]
    fn recorded_seeds_are_read_strictly_and_come_ahead_of_the_literals() {
        let seeds =
            read_recorded(b"string\ta\\tb\\\\\nnumber\t-77\nstring\tx\nnumber\t-77\n").unwrap();
        assert_eq!(seeds.strings, ["a\tb\\", "x"]);
        assert_eq!(seeds.numbers, [-77]);
        assert_eq!(
            recorded_first(&seeds.strings, &["x".to_owned(), "lit".to_owned()]),
            ["a\tb\\", "x", "lit"]
        );
        // An unknown kind, an escape the helper does not write, a number that is not one, a
        // string too long, bytes that are not UTF-8: the whole file is refused.
        for bad in [
            &b"word\tx\n"[..],
            b"string\ta\\q\n",
            b"string\ta\\\n",
            b"number\t1.5\n",
            b"number\n",
            b"\xff\xfe\n",
        ] {
            assert!(read_recorded(bad).is_err(), "{bad:?}");
        }
        let long = format!("string\t{}\n", "a".repeat(MAX_STRING_CHARS + 1));
        assert!(read_recorded(long.as_bytes()).is_err());
        let many: String = (0..=MAX_NUMBERS)
            .map(|n| format!("number\t{n}\n"))
            .collect();
        assert!(read_recorded(many.as_bytes()).is_err());
    }

    #[test]
    fn changed_lines_are_the_added_and_replaced_lines_numbered_in_the_later_version() {
        let dir = tempfile::tempdir().unwrap();
        let file = "src/main/java/a/C.java";
        let before =
            "package a;\nclass C {\n  int f() {\n    return 1;\n  }\n  int g() { return 0; }\n}\n";
        let after =
            "package a;\nclass C {\n  int f() {\n    if (x) throw e;\n    return 2;\n  }\n}\n";
        for (side, text) in [("old", before), ("new", after)] {
            let path = dir.path().join(side).join(file);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, text).unwrap();
        }
        assert_eq!(
            changed_lines(&dir.path().join("old"), &dir.path().join("new")),
            vec![("a/C.java".to_owned(), 4), ("a/C.java".to_owned(), 5)]
        );
        assert!(changed_lines(&dir.path().join("old"), &dir.path().join("old")).is_empty());
    }
}
