//! The reviewer: a second model that judges each candidate of an eval run from the vulnerable
//! code, the candidate and the CWE, answering accept or reject with a reason. Its answer is read
//! strictly — an answer that is neither clearly one nor the other is stored as `unparseable`,
//! never guessed — and stored beside the candidate's test verdict, so that reports can measure
//! the reviewer against the tests.

use std::collections::{HashMap, HashSet};

use avrlab_model::{GenParams, Model, ModelError, Request};
use avrlab_prompt::{VulnerableMethod, parse_review, review_prompt};
use avrlab_store::{ReviewDecision, ReviewRow, Store, StoreError};

use crate::run::run_loop::error_chain;

/// How the reviewer is asked.
#[derive(Debug, Clone)]
pub(crate) struct ReviewSpec {
    /// The reviewer model's name (stored with every review).
    pub reviewer: String,
    pub max_tokens: u32,
    pub temperature: f32,
    pub seed: u64,
}

/// Why reviewing stopped.
#[derive(Debug, thiserror::Error)]
pub enum ReviewError {
    /// The reviewer failed in a way that no retry fixes now; reviews so far are stored.
    #[error("reviewer `{reviewer}` failed on candidate {candidate}; the study stays resumable")]
    Model {
        reviewer: String,
        candidate: String,
        #[source]
        source: ModelError,
    },
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
}

impl avrlab_core::Blamed for ReviewError {
    fn blame(&self) -> avrlab_core::Blame {
        match self {
            Self::Model { .. } => avrlab_core::Blame::Infrastructure,
            Self::Store(e) => e.blame(),
        }
    }
}

/// Model errors that concern one prompt (stored as that review's result) rather than the model.
fn is_per_prompt(error: &ModelError) -> bool {
    matches!(
        error,
        ModelError::ContextLengthExceeded { .. }
            | ModelError::BadRequest { .. }
            | ModelError::MalformedResponse { .. }
            | ModelError::EmptyAnswer { .. }
            | ModelError::ReplayMissing { .. }
            | ModelError::CommandFailed { .. }
            | ModelError::CommandTimeout { .. }
            | ModelError::MethodRequired(_)
    )
}

/// Reviews every candidate of `run_id` that this reviewer has not reviewed yet, storing each
/// review as it lands. `methods` holds each task's vulnerable method. Returns how many were
/// reviewed now.
pub(crate) fn review_run(
    store: &mut Store,
    run_id: &str,
    methods: &HashMap<String, VulnerableMethod>,
    model: &dyn Model,
    spec: &ReviewSpec,
    progress: &dyn crate::run::run_loop::Progress,
) -> Result<usize, ReviewError> {
    let done: HashSet<String> = store
        .reviews(run_id)?
        .into_iter()
        .filter(|r| r.reviewer == spec.reviewer)
        .map(|r| r.candidate_id)
        .collect();
    let mut reviewed = 0;
    for candidate in store.candidates(run_id)? {
        if done.contains(&candidate.id) {
            continue;
        }
        let Some(method) = methods.get(&candidate.task) else {
            continue;
        };
        progress.message(&format!(
            "reviewing {} with {}",
            candidate.id, spec.reviewer
        ));
        let prompt = review_prompt(method, &candidate.kind.to_string(), &candidate.content);
        let params = GenParams {
            n: 1,
            temperature: spec.temperature,
            top_p: 1.0,
            max_tokens: spec.max_tokens,
            stop: Vec::new(),
            seed: Some(spec.seed),
        };
        let prompt_id = format!("review/{}", candidate.id);
        let request = Request {
            first_sample: 0,
            prompt_id: &prompt_id,
            prompt: &prompt,
            params: &params,
            method: Some(method),
            workspace: None,
        };
        let mut row = ReviewRow {
            candidate_id: candidate.id.clone(),
            reviewer: spec.reviewer.clone(),
            decision: ReviewDecision::NoAnswer,
            reason: String::new(),
            raw: String::new(),
            latency_ms: 0,
            cached: false,
            error: None,
        };
        match model.generate(&request) {
            Ok(generations) => match generations.first() {
                Some(answer) => {
                    let (decision, reason) = parse_review(&answer.text);
                    row.decision = decision;
                    row.reason = reason;
                    row.raw = answer.text.clone();
                    row.latency_ms = answer.latency.as_millis() as u64;
                    row.cached = answer.cached;
                }
                None => row.error = Some("the reviewer gave no sample".into()),
            },
            Err(error) if is_per_prompt(&error) => row.error = Some(error_chain(&error)),
            Err(source) => {
                return Err(ReviewError::Model {
                    reviewer: spec.reviewer.clone(),
                    candidate: candidate.id.clone(),
                    source,
                });
            }
        }
        store.record_review(run_id, &row)?;
        reviewed += 1;
    }
    Ok(reviewed)
}
