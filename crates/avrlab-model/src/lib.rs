//! Model backends for avrlab: the [`Model`] trait, an OpenAI-compatible HTTP client with retries and a
//! concurrency limit, a content-addressed response cache, replay of published generations from JSONL,
//! and a deterministic template-based repair baseline.
//!
//! This crate is the only home of HTTP in avrlab. The `command` backend (coding agents) and the
//! in-process local model will be further [`Model`] implementations beside these.

mod backoff;
mod baseline;
mod cache;
mod model;
mod openai;
mod replay;

pub use backoff::RetryPolicy;
pub use baseline::{BaselineModel, FixTemplate, baseline_candidates};
pub use cache::{CachedModel, ResponseCache};
pub use model::{FinishReason, GenParams, Generation, Model, ModelError, Request};
pub use openai::{OpenAiClient, OpenAiConfig};
pub use replay::{ReplayError, ReplayModel};
