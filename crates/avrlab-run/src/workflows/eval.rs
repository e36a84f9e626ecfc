//! `eval`: ask a model for patches in one input format, turn its answers into candidates, validate
//! them, and store everything — prompt by prompt, so that an interrupted eval resumes where it
//! stopped and an identical re-run is served from the response cache without a single request.

use std::collections::{HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::mpsc;

use avrlab_bench::{Benchmark, Patch, Task};
use avrlab_model::{CachedModel, GenParams, Generation, Model, ModelError, Request, ResponseCache};
use avrlab_prompt::{Format, RenderOptions, Renderer};
use avrlab_store::{
    Correctness, ErrorCause, Extraction, GenerationRow, ItemClass, NewCandidate, Store,
};
use avrlab_validate::{Candidate, Oracle, PreparedTask, ProjectDigest, ReplacementTarget};
use sha2::{Digest, Sha256};

use avrlab_core::{Blame, Blamed, ModelPrice, RunConfig, Shard, Stop};

use crate::run::generations::{GenerationSource, Prepared, RunTarget, run_generations};
use crate::run::input::{from_stored_form, stored_form};
use crate::run::run_loop::{Progress, RunError, RunReport, RunSettings, error_chain, task_cwes};
use crate::run::shard::shard_of_tasks;
use crate::workflows::method::{MethodError, correctness, vulnerable_method};

/// What an eval asks of the model.
#[derive(Debug, Clone)]
pub struct EvalSpec {
    /// The model's name in the configuration (stored with every sample).
    pub model_name: String,
    pub format: Format,
    /// Samples per prompt (`k`).
    pub samples: u32,
    /// Independent runs; run `r` samples with seed `seed + r`.
    pub runs: u32,
    pub fl_offset: i64,
    pub temperature: f32,
    pub top_p: f32,
    pub max_tokens: u32,
    pub seed: u64,
    /// Prompts asked at a time (the model's `concurrency`; at least 1).
    pub concurrency: usize,
    /// The model's price, as `avrlab.toml` gives it (stored with the run).
    pub price: Option<ModelPrice>,
    /// What one sample may cost (`max_cost_per_sample`): an answer that cost more is the model's
    /// failure (`OverCostCap`) and is not validated.
    pub max_cost_per_sample: Option<f64>,
    /// The model's training cut-off month, from `avrlab.toml` or `--model-cutoff` (stored with the
    /// run; its reports split scores at it).
    pub model_cutoff: Option<avrlab_core::Month>,
}

/// Why an eval stopped.
#[derive(Debug, thiserror::Error)]
pub enum EvalError {
    /// The model failed in a way that no retry fixes now (unreachable, refused credentials).
    #[error("model `{model}` failed on {prompt}; the run stays resumable (--resume)")]
    Model {
        model: String,
        prompt: String,
        #[source]
        source: ModelError,
    },
    /// More samples were errored than `--max-errors` allows; what was asked is stored.
    #[error(
        "stopped run `{run}`: {errored} of the {asked} samples asked so far were errored, more than \
         --max-errors {limit} allows ({planned} to ask in all); the run stays resumable \
         (--resume --run {run} --retry errored)"
    )]
    TooManyErrors {
        run: String,
        errored: usize,
        asked: usize,
        planned: usize,
        limit: ErrorLimit,
    },
    /// The samples asked so far cost `--max-cost` or more: no further prompt is asked.
    #[error(
        "stopped run `{run}` at its budget: ${spent:.4} spent of --max-cost ${budget} ({asked} of \
         {planned} samples to ask were asked); the run stays resumable with a higher budget \
         (--resume --run {run} --max-cost USD)"
    )]
    BudgetReached {
        run: String,
        spent: f64,
        budget: f64,
        asked: usize,
        planned: usize,
    },
    /// Under `--max-cost`, a sample came back whose cost is not known: the budget cannot be kept.
    #[error(
        "stopped run `{run}`: the cost of {prompt} is not known (the model has no price in \
         avrlab.toml, the server sent no usage, or the agent printed no `avrlab-usage:` line), so \
         --max-cost cannot be kept; ${spent:.4} spent so far; the run stays resumable"
    )]
    CostUnknown {
        run: String,
        prompt: String,
        spent: f64,
    },
    /// A task cannot be prompted for.
    #[error(transparent)]
    Method(#[from] MethodError),
    /// A prompt cannot be rendered.
    #[error("task {task}: cannot render the prompt")]
    Render {
        task: String,
        #[source]
        source: avrlab_prompt::RenderError,
    },
    /// Validation or the store failed.
    #[error(transparent)]
    Engine(#[from] RunError),
}

impl Blamed for EvalError {
    fn blame(&self) -> Blame {
        match self {
            Self::Model { .. } => Blame::Infrastructure,
            Self::TooManyErrors { .. } => Blame::Stopped(Stop::ErrorLimit),
            Self::BudgetReached { .. } => Blame::Stopped(Stop::BudgetReached),
            // The configuration cannot keep the budget the user set.
            Self::CostUnknown { .. } | Self::Method(_) | Self::Render { .. } => Blame::Input,
            Self::Engine(e) => e.blame(),
        }
    }
}

impl From<avrlab_store::StoreError> for EvalError {
    fn from(error: avrlab_store::StoreError) -> Self {
        Self::Engine(error.into())
    }
}

/// What a failed model call means for its prompt's samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Unanswered {
    /// The model answered, with nothing to judge: counted against it.
    ModelFailure,
    /// The model was not heard on this prompt; the eval goes on with the next.
    Errored(ErrorCause),
    /// Every later prompt would fail the same way (credentials, configuration, an endpoint that
    /// is not there): the eval stops, resumable.
    StopsTheRun,
}

fn unanswered(error: &ModelError) -> Unanswered {
    match error {
        ModelError::ContextLengthExceeded { .. }
        | ModelError::EmptyAnswer { .. }
        | ModelError::ReplayMissing { .. } => Unanswered::ModelFailure,
        ModelError::GaveUp { .. } => Unanswered::Errored(ErrorCause::HttpStatus),
        ModelError::Timeout { .. } | ModelError::CommandTimeout { .. } => {
            Unanswered::Errored(ErrorCause::Timeout)
        }
        ModelError::MalformedResponse { .. } => Unanswered::Errored(ErrorCause::MalformedResponse),
        ModelError::BadRequest { .. } => Unanswered::Errored(ErrorCause::Rejected),
        ModelError::CommandFailed { .. } => Unanswered::Errored(ErrorCause::CommandFailed),
        ModelError::Unreachable { .. }
        | ModelError::Auth { .. }
        | ModelError::MissingApiKey(_)
        | ModelError::MethodRequired(_)
        | ModelError::LocalWeightsMissing { .. }
        | ModelError::LocalLoad { .. }
        | ModelError::LocalInference { .. }
        | ModelError::CommandUnavailable { .. }
        | ModelError::WorkspaceRequired(_)
        | ModelError::Cache { .. } => Unanswered::StopsTheRun,
    }
}

/// Which stored samples a resumed eval asks again.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Retry {
    /// The errored ones: their earlier attempts are kept, the new answer takes their place.
    Errored,
}

/// How many errored samples an eval tolerates before it stops (`--max-errors N|P%`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ErrorLimit {
    /// More than this many errored samples stop it.
    Count(usize),
    /// More than this share (in percent) of the samples it is to ask stop it.
    Percent(f64),
}

/// A `--max-errors` value that is neither a count nor a percentage.
#[derive(Debug, thiserror::Error)]
#[error("--max-errors {0}: give a count (5) or a percentage of the samples to ask (10%)")]
pub struct BadErrorLimit(String);

impl ErrorLimit {
    /// Reads `N` or `P%`.
    pub fn parse(text: &str) -> Result<Self, BadErrorLimit> {
        let bad = || BadErrorLimit(text.to_owned());
        match text.trim().strip_suffix('%') {
            Some(percent) => {
                let percent: f64 = percent.trim().parse().map_err(|_| bad())?;
                if !(0.0..=100.0).contains(&percent) {
                    return Err(bad());
                }
                Ok(Self::Percent(percent))
            }
            None => text.trim().parse().map(Self::Count).map_err(|_| bad()),
        }
    }

    /// Whether `errored` samples out of the `planned` ones of this eval pass the limit.
    fn exceeded(self, errored: usize, planned: usize) -> bool {
        match self {
            Self::Count(count) => errored > count,
            Self::Percent(percent) => errored as f64 > percent / 100.0 * planned as f64,
        }
    }
}

impl std::fmt::Display for ErrorLimit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Self::Count(count) => write!(f, "{count}"),
            Self::Percent(percent) => write!(f, "{percent}%"),
        }
    }
}

fn input_hash(spec: &EvalSpec, identity: &str, benchmark: &Benchmark) -> String {
    let mut hasher = Sha256::new();
    let text = format!(
        "{identity}\0{}\0{}\0{}\0{}\0{}\0{}\0{}\0{}\0{}",
        spec.model_name,
        spec.format.name(),
        spec.samples,
        spec.runs,
        spec.fl_offset,
        spec.temperature,
        spec.top_p,
        spec.max_tokens,
        spec.seed
    );
    hasher.update(text.as_bytes());
    for task in &benchmark.tasks {
        hasher.update(task.id.as_bytes());
        if let Some(reference) = &task.reference {
            hasher.update(reference.to_string().as_bytes());
        }
    }
    hex::encode(&hasher.finalize()[..16])
}

/// The candidate a model's answer becomes.
fn to_candidate(extracted: &avrlab_prompt::Candidate) -> Option<Candidate> {
    match extracted {
        avrlab_prompt::Candidate::Method(text) => Some(Candidate::Replacement {
            target: ReplacementTarget::Method(0),
            text: text.clone(),
        }),
        avrlab_prompt::Candidate::Diff(text) => Patch::parse(text).ok().map(Candidate::Diff),
    }
}

/// One eval to run or resume.
pub struct EvalRequest<'a> {
    pub benchmark: &'a Benchmark,
    pub model: Box<dyn Model>,
    pub cache: ResponseCache,
    pub spec: EvalSpec,
    /// The run id; a fresh one when absent.
    pub run_id: Option<String>,
    /// Continue the named run, or the newest unfinished eval of the benchmark.
    pub resume: bool,
    /// Generate and validate only this part of the tasks (the run's input is the whole plan).
    pub shard: Option<Shard>,
    /// On a resume, which stored samples to ask again (none: only those never stored).
    pub retry: Option<Retry>,
    /// Stop, resumable, once more samples than this are errored.
    pub max_errors: Option<ErrorLimit>,
    /// Stop asking, resumable, once the run's samples cost this many dollars (`--max-cost`).
    pub max_cost: Option<f64>,
}

impl std::fmt::Debug for EvalRequest<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("EvalRequest")
            .field("spec", &self.spec)
            .field("run_id", &self.run_id)
            .finish()
    }
}

/// Runs (or resumes) an eval: generation, extraction, validation.
pub fn execute_eval(
    store: &mut Store,
    request: EvalRequest<'_>,
    config: &RunSettings,
    oracle: &dyn Oracle,
    progress: &dyn Progress,
) -> Result<RunReport, EvalError> {
    let EvalRequest {
        benchmark,
        model,
        cache,
        spec,
        run_id,
        resume,
        shard,
        retry,
        max_errors,
        max_cost,
    } = request;
    let identity = model.cache_identity();
    let mut source = AskedModel {
        benchmark,
        shard,
        retry,
        max_errors,
        max_cost,
        model: CachedModel::new(Boxed(model), cache),
        spec: &spec,
        identity,
    };
    run_generations(
        store,
        benchmark,
        RunTarget { run_id, resume },
        &mut source,
        config,
        oracle,
        progress,
    )
}

/// The generations of a model asked now, prompt by prompt.
struct AskedModel<'a> {
    benchmark: &'a Benchmark,
    shard: Option<Shard>,
    retry: Option<Retry>,
    max_errors: Option<ErrorLimit>,
    max_cost: Option<f64>,
    model: CachedModel<Boxed>,
    spec: &'a EvalSpec,
    /// What identifies the model's answers in the response cache.
    identity: String,
}

impl GenerationSource for AskedModel<'_> {
    type Error = EvalError;

    fn tasks(&self) -> Vec<&Task> {
        shard_of_tasks(&self.benchmark.tasks, self.shard)
    }

    fn plan(&mut self, _: &Prepared) -> Result<(String, RunConfig), EvalError> {
        let (spec, benchmark) = (self.spec, self.benchmark);
        let hash = input_hash(spec, &self.identity, benchmark);
        let config = RunConfig {
            model: Some(spec.model_name.clone()),
            model_identity: Some(self.identity.clone()),
            format: Some(spec.format.name().to_owned()),
            samples: Some(spec.samples),
            runs: Some(spec.runs),
            fl_offset: spec.fl_offset,
            temperature: Some(spec.temperature),
            top_p: Some(spec.top_p),
            max_tokens: Some(spec.max_tokens),
            seed: Some(spec.seed),
            // Reports show each task's CWEs beside its row.
            cwe: task_cwes(benchmark.tasks.iter()),
            shard: self.shard,
            price: spec.price.clone(),
            model_cutoff: spec.model_cutoff.map(|m| m.to_string()),
            ..RunConfig::default()
        };
        Ok((hash, config))
    }

    fn stage(&self) -> &'static str {
        "prompt, generate, extract"
    }

    /// A sample errored in its validation (its candidate's test JVM killed from outside) is
    /// validated again, not asked again: the model was heard.
    fn verdict_retry(&self) -> crate::run::run_loop::VerdictRetry {
        crate::run::run_loop::VerdictRetry {
            errored: self.retry == Some(Retry::Errored),
            outcomes: Vec::new(),
        }
    }

    fn store_generations(
        &mut self,
        store: &mut Store,
        run_id: &str,
        prepared: &Prepared,
        progress: &dyn Progress,
    ) -> Result<(), EvalError> {
        let (spec, benchmark, model) = (self.spec, self.benchmark, &self.model);
        let renderer = Renderer::default();

        // What an interrupted attempt already stored: its samples (but the errored ones when they
        // are to be asked again, with the attempt each was), and the candidates they yielded (so
        // that duplicates keep pointing at the first).
        let mut done: HashSet<String> = HashSet::new();
        let mut attempts: HashMap<String, u32> = HashMap::new();
        let mut spent = 0.0;
        for stored in store.generations(run_id)? {
            // What earlier sessions of the run paid (an answer from the cache was paid before).
            if !stored.cached {
                spent += stored.cost_usd.unwrap_or(0.0);
            }
            let again = self.retry == Some(Retry::Errored)
                && stored.class == Some(ItemClass::Errored)
                && stored.candidate_id.is_none();
            if again {
                attempts.insert(stored.id, stored.attempt);
            } else {
                done.insert(stored.id);
            }
        }
        let mut first_by_project: HashMap<ProjectDigest, String> = HashMap::new();
        for stored in store.candidates(run_id)? {
            let Some(ready) = prepared.get(&stored.task) else {
                continue;
            };
            if let Some(candidate) = from_stored_form(stored.kind, &stored.content)
                && let Some(project) = ready.candidate_identity(&candidate).project()
            {
                first_by_project.entry(project.clone()).or_insert(stored.id);
            }
        }

        // Every prompt still to ask, in order (rendering is quick and needs no model).
        let mut pending: Vec<PendingPrompt<'_>> = Vec::new();
        for task in shard_of_tasks(&benchmark.tasks, self.shard) {
            let ready = &prepared[&task.id];
            let root = ready.pristine();
            let method = vulnerable_method(task, root)?;
            let rendered = renderer
                .render(
                    &method,
                    spec.format,
                    &RenderOptions {
                        fl_offset: spec.fl_offset,
                    },
                )
                .map_err(|source| EvalError::Render {
                    task: task.id.clone(),
                    source,
                })?;
            let prompt_json = serde_json::to_string(&rendered.prompt).expect("prompts serialize");
            let prompt_hash = hex::encode(&Sha256::digest(prompt_json.as_bytes())[..12]);
            // The baseline works on the method as the prompt marks it, offset included.
            let shifted = avrlab_prompt::apply_fl_offset(&method, spec.fl_offset)
                .map(|(shifted, _)| shifted)
                .unwrap_or_else(|_| method.clone());
            let shared = std::sync::Arc::new(TaskPrompt {
                rendered,
                prompt_hash,
                shifted,
            });
            for run_index in 0..spec.runs {
                let prompt_id = format!(
                    "{}/{}/{}/{run_index}",
                    task.id,
                    spec.format.name(),
                    spec.fl_offset
                );
                let sample_id = |sample: u32| format!("{prompt_id}/{}/{sample}", spec.model_name);
                if (0..spec.samples).all(|s| done.contains(&sample_id(s))) {
                    continue;
                }
                let params = GenParams {
                    n: spec.samples,
                    temperature: spec.temperature,
                    top_p: spec.top_p,
                    max_tokens: spec.max_tokens,
                    stop: shared.rendered.stop.clone(),
                    seed: Some(spec.seed + u64::from(run_index)),
                };
                // A prompt's samples are asked and stored together, so they share the attempt.
                let attempt = (0..spec.samples)
                    .filter_map(|s| attempts.get(&sample_id(s)))
                    .max()
                    .map_or(1, |previous| previous + 1);
                pending.push(PendingPrompt {
                    task,
                    prepared: ready,
                    shared: shared.clone(),
                    run_index,
                    prompt_id,
                    params,
                    attempt,
                });
            }
        }

        // Up to `concurrency` prompts are asked at a time; answers are stored in prompt order, each
        // prompt's samples in one transaction, so that which sample of a duplicate pair comes first
        // does not depend on timing, nor where `--max-errors` stops. A model failure that stops
        // the run, or errors past the limit, stop the asking; what was stored stays.
        let planned = pending.len() * spec.samples as usize;
        let (mut asked, mut errored) = (0usize, 0usize);
        let over_budget = |spent: f64| self.max_cost.is_some_and(|budget| spent >= budget);
        if over_budget(spent) && !pending.is_empty() {
            return Err(budget_reached(
                store,
                run_id,
                spent,
                self.max_cost,
                0,
                planned,
            ));
        }
        // Set once the budget is reached: no prompt is asked after it, but the answers already
        // asked for (paid) are stored.
        let mut stopped_at_budget = false;
        let workers = spec.concurrency.max(1).min(pending.len().max(1));
        let next = AtomicUsize::new(0);
        let abort = AtomicBool::new(false);
        // How many prompts are stored: a worker asks prompt i only once fewer than `workers`
        // prompts before it await storing, so that no more than `concurrency` answers are ever
        // unaccounted for when the budget or the error limit stops the asking.
        let window = (std::sync::Mutex::new(0usize), std::sync::Condvar::new());
        let mut failure: Option<EvalError> = None;
        std::thread::scope(|scope| {
            let (sender, receiver) =
                mpsc::channel::<(usize, Result<Vec<Generation>, ModelError>)>();
            for _ in 0..workers {
                let sender = sender.clone();
                let (pending, next, abort, model, window) =
                    (&pending, &next, &abort, &model, &window);
                scope.spawn(move || {
                    loop {
                        let index = next.fetch_add(1, Ordering::SeqCst);
                        if index >= pending.len() {
                            break;
                        }
                        let (stored, wake) = window;
                        let mut done = stored.lock().expect("the window lock is never poisoned");
                        while index >= *done + workers && !abort.load(Ordering::SeqCst) {
                            done = wake.wait(done).expect("the window lock is never poisoned");
                        }
                        drop(done);
                        if abort.load(Ordering::SeqCst) {
                            break;
                        }
                        let prompt = &pending[index];
                        progress.message(&format!(
                            "generating {} with {}",
                            prompt.prompt_id, spec.model_name
                        ));
                        let request = Request {
                            first_sample: 0,
                            prompt_id: &prompt.prompt_id,
                            prompt: &prompt.shared.rendered.prompt,
                            params: &prompt.params,
                            method: Some(&prompt.shared.shifted),
                            // Command models in workdir mode edit the task state there, and put it back.
                            workspace: Some(prompt.prepared.pristine()),
                        };
                        if sender.send((index, model.generate(&request))).is_err() {
                            break;
                        }
                    }
                });
            }
            drop(sender);
            let mut answers: Vec<Option<Result<Vec<Generation>, ModelError>>> =
                (0..pending.len()).map(|_| None).collect();
            let mut stored = 0;
            for (index, answer) in receiver {
                if failure.is_some() {
                    continue;
                }
                answers[index] = Some(answer);
                while stored < pending.len() {
                    let Some(answer) = answers[stored].take() else {
                        break;
                    };
                    match store_answer(
                        store,
                        run_id,
                        spec,
                        &pending[stored],
                        answer,
                        &mut first_by_project,
                    ) {
                        Ok(stored_answer) => {
                            asked += spec.samples as usize;
                            if stored_answer.heard == Heard::Errored {
                                errored += spec.samples as usize;
                            }
                            spent += stored_answer.paid.cost;
                            if self.max_cost.is_some() && stored_answer.paid.unknown {
                                abort.store(true, Ordering::SeqCst);
                                failure = Some(record(
                                    store,
                                    run_id,
                                    EvalError::CostUnknown {
                                        run: run_id.to_owned(),
                                        prompt: pending[stored].prompt_id.clone(),
                                        spent,
                                    },
                                ));
                                break;
                            }
                            if over_budget(spent) {
                                abort.store(true, Ordering::SeqCst);
                                stopped_at_budget = true;
                            }
                        }
                        Err(error) => {
                            abort.store(true, Ordering::SeqCst);
                            failure = Some(error);
                            break;
                        }
                    }
                    stored += 1;
                    if let Some(limit) = self.max_errors
                        && limit.exceeded(errored, planned)
                    {
                        let error = EvalError::TooManyErrors {
                            run: run_id.to_owned(),
                            errored,
                            asked,
                            planned,
                            limit,
                        };
                        abort.store(true, Ordering::SeqCst);
                        failure = Some(record(store, run_id, error));
                        break;
                    }
                }
                // Under the lock, so that a worker between its check and its wait cannot miss
                // the news (more stored, or the asking stopped).
                let mut done = window.0.lock().expect("the window lock is never poisoned");
                *done = stored;
                window.1.notify_all();
            }
        });
        match failure {
            Some(error) => Err(error),
            None if stopped_at_budget && asked < planned => Err(budget_reached(
                store,
                run_id,
                spent,
                self.max_cost,
                asked,
                planned,
            )),
            None => Ok(()),
        }
    }
}

/// `error`, recorded as the reason the run stopped (or the store's failure to record it).
fn record(store: &mut Store, run_id: &str, error: EvalError) -> EvalError {
    match store.record_run_error(run_id, &error_chain(&error)) {
        Ok(()) => error,
        Err(store_error) => store_error.into(),
    }
}

fn budget_reached(
    store: &mut Store,
    run_id: &str,
    spent: f64,
    budget: Option<f64>,
    asked: usize,
    planned: usize,
) -> EvalError {
    let error = EvalError::BudgetReached {
        run: run_id.to_owned(),
        spent,
        budget: budget.unwrap_or(0.0),
        asked,
        planned,
    };
    record(store, run_id, error)
}

/// What every prompt of one task shares.
struct TaskPrompt {
    rendered: avrlab_prompt::RenderedPrompt,
    prompt_hash: String,
    /// The method as the prompt marks it (offset included), for backends that read no text.
    shifted: avrlab_prompt::VulnerableMethod,
}

/// One prompt still to ask: a task and a run.
struct PendingPrompt<'a> {
    task: &'a Task,
    prepared: &'a PreparedTask,
    shared: std::sync::Arc<TaskPrompt>,
    run_index: u32,
    prompt_id: String,
    params: GenParams,
    /// Which attempt at the prompt's samples this is (1 unless they errored before).
    attempt: u32,
}

/// What one prompt's answer cost in this session: the dollars of its fresh (not cached) samples
/// whose cost is known, and whether some fresh sample's cost is not known.
#[derive(Debug, Clone, Copy, Default)]
struct Paid {
    cost: f64,
    unknown: bool,
}

/// What storing one prompt's answer found.
struct StoredAnswer {
    heard: Heard,
    paid: Paid,
}

/// Whether a prompt's answer was heard.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Heard {
    /// Its samples are judged or the model's failures.
    Yes,
    /// Its samples are errored.
    Errored,
}

/// Turns one prompt's answer into generation rows and new candidates, and stores them in one
/// transaction; a model failure that stops the run is recorded as the run's error and returned.
fn store_answer(
    store: &mut Store,
    run_id: &str,
    spec: &EvalSpec,
    pending: &PendingPrompt<'_>,
    answer: Result<Vec<Generation>, ModelError>,
    first_by_project: &mut HashMap<ProjectDigest, String>,
) -> Result<StoredAnswer, EvalError> {
    let PendingPrompt {
        task,
        prepared,
        shared,
        run_index,
        prompt_id,
        attempt,
        ..
    } = pending;
    let (task, prepared, run_index) = (*task, *prepared, *run_index);
    let root = prepared.pristine();
    let rendered = &shared.rendered;
    let prompt_hash = &shared.prompt_hash;
    let sample_id = |sample: u32| format!("{prompt_id}/{}/{sample}", spec.model_name);
    let base = |sample: u32| GenerationRow {
        id: sample_id(sample),
        task: task.id.clone(),
        model: spec.model_name.clone(),
        format: spec.format.name().into(),
        fl_offset: spec.fl_offset,
        fl_effective: rendered.fl_offset.effective,
        run_index,
        sample,
        prompt_hash: prompt_hash.clone(),
        raw: String::new(),
        finish_reason: String::new(),
        tokens_in: None,
        tokens_out: None,
        cost_usd: None,
        latency_ms: 0,
        cached: false,
        error: None,
        extraction: Extraction::NoAnswer,
        candidate_id: None,
        correct: Correctness::Unknown,
        // A sample with a candidate gets its class with the candidate's verdict.
        class: Some(ItemClass::ModelFailure),
        error_cause: None,
        attempt: *attempt,
    };
    let mut rows = Vec::new();
    let mut candidates = Vec::new();
    let mut heard = Heard::Yes;
    let mut paid = Paid::default();
    match answer {
        Ok(generations) => {
            for (sample, generation) in generations.iter().enumerate() {
                let sample = sample as u32;
                let mut row = base(sample);
                row.raw = generation.text.clone();
                row.finish_reason = generation.finish_reason.as_str().to_owned();
                row.tokens_in = generation.tokens_in;
                row.tokens_out = generation.tokens_out;
                row.cost_usd = generation.cost_usd;
                row.latency_ms = generation.latency.as_millis() as u64;
                row.cached = generation.cached;
                if !generation.cached {
                    match generation.cost_usd {
                        Some(cost) => paid.cost += cost,
                        None => paid.unknown = true,
                    }
                }
                let over_cap = spec
                    .max_cost_per_sample
                    .zip(generation.cost_usd)
                    .is_some_and(|(cap, cost)| cost > cap);
                if over_cap {
                    // Whatever it holds, an answer that cost more than a sample may is the model's
                    // failure, as an agent that ran past its cost limit.
                    row.extraction = Extraction::OverCostCap;
                    rows.push(row);
                    continue;
                }
                match rendered
                    .extract(&generation.text)
                    .ok()
                    .and_then(|c| to_candidate(&c))
                {
                    None => {
                        row.extraction = match rendered.extract(&generation.text) {
                            Err(why) => extraction_of(&why),
                            Ok(_) => Extraction::MalformedDiff,
                        };
                    }
                    Some(candidate) => {
                        row.correct = correctness(task, root, &candidate);
                        // A candidate that makes the project of an earlier one is that one's
                        // duplicate; one that does not apply is a candidate of its own.
                        let identity = prepared.candidate_identity(&candidate);
                        let first = identity.project().and_then(|p| first_by_project.get(p));
                        row.class = None;
                        if let Some(first) = first {
                            row.extraction = Extraction::Duplicate;
                            row.candidate_id = Some(first.clone());
                        } else {
                            let (kind, content) = stored_form(&candidate);
                            candidates.push(NewCandidate {
                                id: row.id.clone(),
                                task: task.id.clone(),
                                label: format!("{}/{run_index}/{sample}", spec.model_name),
                                kind,
                                content,
                            });
                            if let Some(project) = identity.project() {
                                first_by_project.insert(project.clone(), row.id.clone());
                            }
                            row.extraction = Extraction::Candidate;
                            row.candidate_id = Some(row.id.clone());
                        }
                    }
                }
                rows.push(row);
            }
            // A replay or the baseline may have fewer samples than asked for.
            for sample in generations.len() as u32..spec.samples {
                let mut row = base(sample);
                row.extraction = Extraction::NoAnswer;
                row.error = Some("the model gave fewer samples than asked for".into());
                rows.push(row);
            }
        }
        Err(error) if unanswered(&error) != Unanswered::StopsTheRun => {
            let message = error_chain(&error);
            let errored = match unanswered(&error) {
                Unanswered::Errored(cause) => Some(cause),
                Unanswered::ModelFailure | Unanswered::StopsTheRun => None,
            };
            for sample in 0..spec.samples {
                let mut row = base(sample);
                row.extraction = Extraction::NoAnswer;
                row.error = Some(message.clone());
                if let Some(cause) = errored {
                    row.class = Some(ItemClass::Errored);
                    row.error_cause = Some(cause);
                    heard = Heard::Errored;
                }
                rows.push(row);
            }
        }
        Err(source) => {
            let error = EvalError::Model {
                model: spec.model_name.clone(),
                prompt: prompt_id.clone(),
                source,
            };
            store.record_run_error(run_id, &error_chain(&error))?;
            return Err(error);
        }
    }
    store.add_generations(run_id, &candidates, &rows)?;
    Ok(StoredAnswer { heard, paid })
}

/// A configured model behind the response cache.
struct Boxed(Box<dyn Model>);

impl Model for Boxed {
    fn cache_identity(&self) -> String {
        self.0.cache_identity()
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        self.0.generate(request)
    }
}

/// How an answer that yields no candidate is stored.
fn extraction_of(why: &avrlab_prompt::NoCandidate) -> Extraction {
    match why {
        avrlab_prompt::NoCandidate::EmptyAnswer => Extraction::EmptyAnswer,
        avrlab_prompt::NoCandidate::NoCode => Extraction::NoCode,
        avrlab_prompt::NoCandidate::UnclosedMethod => Extraction::UnclosedMethod,
    }
}

#[cfg(test)]
mod tests {
    use avrlab_store::Store;
    use avrlab_validate::Outcome;

    use super::*;
    use crate::run::fake_oracle::{Call, FakeOracle, Quiet, demo, engine_config};

    #[test]
    fn baseline_samples_become_stored_verdicts_through_the_oracle() {
        let mut benchmark = demo();
        // Two tasks the template baseline writes fixes for (a candidate each, at least).
        benchmark
            .tasks
            .retain(|t| ["demo-zip-slip", "demo-path-traversal"].contains(&t.id.as_str()));
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::RegressionBroken));
        let config = engine_config(2, true);
        let request = EvalRequest {
            benchmark: &benchmark,
            model: Box::new(avrlab_model::BaselineModel),
            cache: ResponseCache::new(dir.path().join("cache")),
            spec: EvalSpec {
                model_name: "baseline".into(),
                format: "chat-p1".parse().unwrap(),
                samples: 3,
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
            },
            run_id: Some("e1".into()),
            resume: false,
            shard: None,
            retry: None,
            max_errors: None,
            max_cost: None,
        };
        let report =
            execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        let generations = store.generations("e1").unwrap();
        assert_eq!(generations.len(), 6, "3 samples of 2 tasks");
        let verdicts = store.verdicts("e1").unwrap();
        assert!(
            report.candidates > 0,
            "the baseline's samples yield candidates"
        );
        assert_eq!(verdicts.len(), report.candidates);
        assert!(
            verdicts
                .iter()
                .all(|v| v.outcome == Outcome::RegressionBroken)
        );
        // Every distinct candidate was validated once, after both tasks were warmed up.
        assert_eq!(
            oracle.count(|c| matches!(c, Call::Validate(_))),
            report.validated
        );
        let calls = oracle.calls();
        let last_warm_up = calls
            .iter()
            .rposition(|c| matches!(c, Call::WarmUp(_)))
            .unwrap();
        let first_validate = calls
            .iter()
            .position(|c| matches!(c, Call::Validate(_)))
            .unwrap_or(usize::MAX);
        assert!(last_warm_up < first_validate, "{calls:?}");
    }

    /// A model that answers after a pause, counting how many requests are in flight at once and
    /// noting which prompts it was asked, and fails with `failure` on the prompts in `fail_on`.
    struct SlowModel {
        in_flight: AtomicUsize,
        most: AtomicUsize,
        fail_on: Vec<String>,
        failure: fn() -> ModelError,
        asked: std::sync::Mutex<Vec<String>>,
        /// What each answer costs, as an agent would report it.
        cost: Option<f64>,
    }

    /// What an unreachable server makes of a call: the run stops.
    fn unreachable() -> ModelError {
        ModelError::Unreachable {
            endpoint: "http://127.0.0.1:9".into(),
            source: "connection refused".into(),
        }
    }

    /// What a server answering 500 through every retry makes of a call: the prompt is errored.
    fn gave_up() -> ModelError {
        ModelError::GaveUp {
            endpoint: "http://127.0.0.1:9/v1/chat/completions".into(),
            status: 500,
            attempts: 6,
        }
    }

    impl Model for SlowModel {
        fn cache_identity(&self) -> String {
            "slow".into()
        }

        fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
            self.asked
                .lock()
                .unwrap()
                .push(request.prompt_id.to_owned());
            let now = self.in_flight.fetch_add(1, Ordering::SeqCst) + 1;
            self.most.fetch_max(now, Ordering::SeqCst);
            std::thread::sleep(std::time::Duration::from_millis(40));
            self.in_flight.fetch_sub(1, Ordering::SeqCst);
            if self.fail_on.iter().any(|p| p == request.prompt_id) {
                return Err((self.failure)());
            }
            Ok(vec![Generation {
                text: format!("no code for {}", request.prompt_id),
                finish_reason: avrlab_model::FinishReason::Stop,
                tokens_in: None,
                tokens_out: None,
                cost_usd: self.cost,
                latency: std::time::Duration::from_millis(40),
                cached: false,
            }])
        }
    }

    fn slow_model(fail_on: Vec<String>) -> SlowModel {
        failing_model(fail_on, unreachable)
    }

    fn failing_model(fail_on: Vec<String>, failure: fn() -> ModelError) -> SlowModel {
        SlowModel {
            in_flight: AtomicUsize::new(0),
            most: AtomicUsize::new(0),
            fail_on,
            failure,
            asked: std::sync::Mutex::new(Vec::new()),
            cost: None,
        }
    }

    /// The model of a test, shared with the test to read its counters afterwards.
    struct Shared(std::sync::Arc<SlowModel>);

    impl Model for Shared {
        fn cache_identity(&self) -> String {
            self.0.cache_identity()
        }

        fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
            self.0.generate(request)
        }
    }

    fn slow_request<'a>(
        benchmark: &'a Benchmark,
        model: impl Model + 'static,
        cache: &std::path::Path,
        resume: bool,
    ) -> EvalRequest<'a> {
        EvalRequest {
            benchmark,
            model: Box::new(model),
            cache: ResponseCache::new(cache),
            spec: EvalSpec {
                model_name: "slow".into(),
                format: "chat-p1".parse().unwrap(),
                samples: 1,
                runs: 3,
                fl_offset: 0,
                temperature: 0.0,
                top_p: 1.0,
                max_tokens: 64,
                seed: 0,
                concurrency: 3,
                price: None,
                max_cost_per_sample: None,
                model_cutoff: None,
            },
            run_id: Some("c1".into()),
            resume,
            shard: None,
            retry: None,
            max_errors: None,
            max_cost: None,
        }
    }

    #[test]
    fn prompts_are_asked_concurrently_and_stored_in_order() {
        let mut benchmark = demo();
        benchmark.tasks.truncate(2);
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let config = engine_config(1, true);
        let cache = dir.path().join("cache");
        let fifth = format!("{}/chat-p1/0/1", benchmark.tasks[1].id);
        // The fifth prompt's model failure stops the eval; the prompts before it are stored.
        let request = slow_request(&benchmark, slow_model(vec![fifth]), &cache, false);
        let error = execute_eval(&mut store, request, &config, &oracle, &Quiet).unwrap_err();
        assert!(matches!(error, EvalError::Model { .. }), "{error}");
        let stored = store.generations("c1").unwrap();
        assert_eq!(stored.len(), 4, "{stored:?}");
        // The resume asks the rest, and the rows are in prompt order.
        let request = slow_request(&benchmark, slow_model(Vec::new()), &cache, true);
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        let ids: Vec<String> = store
            .generations("c1")
            .unwrap()
            .into_iter()
            .map(|g| g.id)
            .collect();
        let expected: Vec<String> = benchmark
            .tasks
            .iter()
            .flat_map(|t| (0..3).map(move |r| format!("{}/chat-p1/0/{r}/slow/0", t.id)))
            .collect();
        assert_eq!(ids, expected);

        // A fresh eval of six prompts has several in flight at once, never more than three.
        let model = std::sync::Arc::new(slow_model(Vec::new()));
        let mut request = slow_request(
            &benchmark,
            Shared(model.clone()),
            &dir.path().join("cache2"),
            false,
        );
        request.run_id = Some("c2".into());
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        let peak = model.most.load(Ordering::SeqCst);
        assert!((2..=3).contains(&peak), "{peak} requests at once");
    }

    /// The class, cause and attempt of each stored sample of run `c1`, in order.
    fn classes(store: &Store) -> Vec<(Option<ItemClass>, Option<ErrorCause>, u32)> {
        store
            .generations("c1")
            .unwrap()
            .into_iter()
            .map(|g| (g.class, g.error_cause, g.attempt))
            .collect()
    }

    #[test]
    fn an_errored_prompt_does_not_stop_the_eval_and_a_retry_asks_only_it() {
        let mut benchmark = demo();
        benchmark.tasks.truncate(2);
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let config = engine_config(1, true);
        let cache = dir.path().join("cache");
        let second = format!("{}/chat-p1/0/1", benchmark.tasks[0].id);
        let request = slow_request(
            &benchmark,
            failing_model(vec![second.clone()], gave_up),
            &cache,
            false,
        );
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        // Six prompts of one sample, all stored: the second errored, the rest the model's
        // failures (its answers hold no code).
        let failure = (Some(ItemClass::ModelFailure), None, 1);
        let errored = (Some(ItemClass::Errored), Some(ErrorCause::HttpStatus), 1);
        let mut expected = vec![failure; 6];
        expected[1] = errored;
        assert_eq!(classes(&store), expected);

        // A plain resume asks nothing: the errored sample is stored.
        let model = std::sync::Arc::new(slow_model(Vec::new()));
        let request = slow_request(&benchmark, Shared(model.clone()), &cache, true);
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        assert!(model.asked.lock().unwrap().is_empty());

        // `--retry errored` asks the errored prompt alone; its answer takes its place.
        let model = std::sync::Arc::new(slow_model(Vec::new()));
        let mut request = slow_request(&benchmark, Shared(model.clone()), &cache, true);
        request.retry = Some(Retry::Errored);
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        assert_eq!(*model.asked.lock().unwrap(), [second]);
        expected[1] = (Some(ItemClass::ModelFailure), None, 2);
        assert_eq!(classes(&store), expected);
    }

    #[test]
    fn errors_past_the_limit_stop_the_eval_where_they_pass_it() {
        let mut benchmark = demo();
        benchmark.tasks.truncate(2);
        let prompt =
            |task: usize, run: u32| format!("{}/chat-p1/0/{run}", benchmark.tasks[task].id);
        let failing = vec![prompt(0, 1), prompt(1, 0), prompt(1, 2)];
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let config = engine_config(1, true);
        // (limit, whether it stops, samples stored): three of six prompts error.
        let cases = [
            (ErrorLimit::Count(1), true, 4),
            (ErrorLimit::Count(3), false, 6),
            (ErrorLimit::Percent(40.0), true, 6),
            (ErrorLimit::Percent(50.0), false, 6),
        ];
        for (limit, stops, stored) in cases {
            let dir = tempfile::tempdir().unwrap();
            let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
            let model = failing_model(failing.clone(), gave_up);
            let mut request = slow_request(&benchmark, model, &dir.path().join("cache"), false);
            request.max_errors = Some(limit);
            let result = execute_eval(&mut store, request, &config, &oracle, &Quiet);
            match result {
                Err(EvalError::TooManyErrors { errored, .. }) => {
                    assert!(stops, "{limit}: stopped");
                    assert_eq!(errored, if stored == 4 { 2 } else { 3 }, "{limit}");
                    let run = store.run("c1").unwrap().unwrap();
                    assert!(
                        run.last_error.unwrap().contains("--retry errored"),
                        "{limit}: the stored error says how to go on"
                    );
                }
                Ok(_) => assert!(!stops, "{limit}: went on"),
                Err(other) => panic!("{limit}: {other}"),
            }
            assert_eq!(store.generations("c1").unwrap().len(), stored, "{limit}");
        }
        assert_eq!(ErrorLimit::parse("10%").unwrap(), ErrorLimit::Percent(10.0));
        assert_eq!(ErrorLimit::parse("3").unwrap(), ErrorLimit::Count(3));
        for bad in ["", "-1", "x%", "101%", "3 errors"] {
            assert!(ErrorLimit::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_budget_stops_the_asking_and_a_higher_one_finishes_the_run() {
        let mut benchmark = demo();
        benchmark.tasks.truncate(2);
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let config = engine_config(1, true);
        let cache = dir.path().join("cache");
        let priced = |cost| {
            let mut model = slow_model(Vec::new());
            model.cost = cost;
            std::sync::Arc::new(model)
        };
        // Six prompts of one sample at $0.01 each, one asked at a time: $0.025 is reached by the
        // third answer, and nothing is asked after it.
        let model = priced(Some(0.01));
        let mut request = slow_request(&benchmark, Shared(model.clone()), &cache, false);
        request.spec.concurrency = 1;
        request.max_cost = Some(0.025);
        let error = execute_eval(&mut store, request, &config, &oracle, &Quiet).unwrap_err();
        match &error {
            EvalError::BudgetReached {
                spent,
                asked,
                planned,
                ..
            } => {
                assert!((spent - 0.03).abs() < 1e-9, "{error}");
                assert_eq!((*asked, *planned), (3, 6), "{error}");
            }
            other => panic!("{other}"),
        }
        assert!(
            error
                .to_string()
                .contains("$0.0300 spent of --max-cost $0.025"),
            "{error}"
        );
        assert_eq!(model.asked.lock().unwrap().len(), 3);
        assert_eq!(store.generations("c1").unwrap().len(), 3);

        // The same budget again asks nothing: it is spent.
        let model = priced(Some(0.01));
        let mut request = slow_request(&benchmark, Shared(model.clone()), &cache, true);
        request.max_cost = Some(0.025);
        let error = execute_eval(&mut store, request, &config, &oracle, &Quiet).unwrap_err();
        assert!(
            matches!(error, EvalError::BudgetReached { asked: 0, .. }),
            "{error}"
        );
        assert!(model.asked.lock().unwrap().is_empty());

        // A higher budget asks the three prompts left, and only them.
        let model = priced(Some(0.01));
        let mut request = slow_request(&benchmark, Shared(model.clone()), &cache, true);
        request.max_cost = Some(1.0);
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        assert_eq!(model.asked.lock().unwrap().len(), 3);
        let stored = store.generations("c1").unwrap();
        assert_eq!(stored.len(), 6);
        assert!(
            stored.iter().all(|g| g.cost_usd == Some(0.01)),
            "{stored:?}"
        );
    }

    #[test]
    fn an_unknown_cost_stops_a_budgeted_run_and_a_sample_over_its_cap_is_the_models_failure() {
        let mut benchmark = demo();
        benchmark.tasks.truncate(1);
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let oracle = FakeOracle::new(|_, _| Some(Outcome::PovFailing));
        let config = engine_config(1, true);
        // A model that reports no cost cannot be held to a budget.
        let mut request = slow_request(
            &benchmark,
            slow_model(Vec::new()),
            &dir.path().join("a"),
            false,
        );
        request.spec.concurrency = 1;
        request.max_cost = Some(1.0);
        let error = execute_eval(&mut store, request, &config, &oracle, &Quiet).unwrap_err();
        assert!(matches!(error, EvalError::CostUnknown { .. }), "{error}");
        assert_eq!(
            store.generations("c1").unwrap().len(),
            1,
            "what it answered is kept"
        );

        // Answers of $0.02 against a cap of $0.01 a sample: stored, not validated, the model's
        // failure.
        let mut model = slow_model(Vec::new());
        model.cost = Some(0.02);
        let mut request = slow_request(&benchmark, model, &dir.path().join("b"), false);
        request.run_id = Some("capped".into());
        request.spec.max_cost_per_sample = Some(0.01);
        execute_eval(&mut store, request, &config, &oracle, &Quiet).expect("the eval ends");
        let stored = store.generations("capped").unwrap();
        assert_eq!(stored.len(), 3);
        assert!(
            stored
                .iter()
                .all(|g| g.extraction == Extraction::OverCostCap
                    && g.class == Some(ItemClass::ModelFailure)
                    && g.candidate_id.is_none()),
            "{stored:?}"
        );
    }

    /// The baseline's identity, for a resumed eval; asked anything, it fails the eval.
    struct NeverAsked;

    impl Model for NeverAsked {
        fn cache_identity(&self) -> String {
            avrlab_model::BaselineModel.cache_identity()
        }

        fn generate(&self, _: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
            Err(unreachable())
        }
    }

    #[test]
    fn a_sample_whose_validation_errored_is_validated_again_not_asked_again() {
        let mut benchmark = demo();
        benchmark.tasks.retain(|t| t.id == "demo-zip-slip");
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let config = engine_config(1, true);
        let request = |model: Box<dyn Model>, resume: bool, retry: Option<Retry>| EvalRequest {
            benchmark: &benchmark,
            model,
            cache: ResponseCache::new(dir.path().join("cache")),
            spec: EvalSpec {
                model_name: "baseline".into(),
                format: "chat-p1".parse().unwrap(),
                samples: 1,
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
            },
            run_id: Some("k1".into()),
            resume,
            shard: None,
            retry,
            max_errors: None,
            max_cost: None,
        };
        // The first validation's test JVM is killed from outside: the sample is errored.
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible)).with_killed(1);
        let model = Box::new(avrlab_model::BaselineModel);
        execute_eval(
            &mut store,
            request(model, false, None),
            &config,
            &oracle,
            &Quiet,
        )
        .expect("the eval ends");
        let sample = &store.generations("k1").unwrap()[0];
        assert_eq!(
            (sample.class, sample.error_cause),
            (Some(ItemClass::Errored), Some(ErrorCause::Killed))
        );
        let candidate = sample
            .candidate_id
            .clone()
            .expect("the baseline wrote a fix");

        // `--retry errored` validates its candidate again and asks the model nothing.
        let oracle = FakeOracle::new(|_, _| Some(Outcome::Plausible));
        let retry = request(Box::new(NeverAsked), true, Some(Retry::Errored));
        execute_eval(&mut store, retry, &config, &oracle, &Quiet).expect("the eval ends");
        let sample = &store.generations("k1").unwrap()[0];
        assert_eq!(
            (sample.class, sample.error_cause, sample.attempt),
            (Some(ItemClass::Judged), None, 1)
        );
        let verdict = &store.verdicts("k1").unwrap()[0];
        assert_eq!(verdict.candidate_id, candidate);
        assert_eq!((verdict.outcome, verdict.attempt), (Outcome::Plausible, 2));
    }
}
