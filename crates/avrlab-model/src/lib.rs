//! Model backends for avrlab: the [`Model`] trait, an OpenAI-compatible HTTP client with retries and a
//! concurrency limit, a content-addressed response cache, replay of published generations from JSONL,
//! a deterministic template-based repair baseline, the `command` backend for coding agents, and the
//! built-in `local` model (SmolLM2-135M-Instruct run in-process with candle); and what samples cost.
//!
//! This crate is the only home of HTTP in avrlab. It spawns no process itself: the command backend
//! runs its program through a [`CommandRunner`] that the caller backs with `avrlab-exec`.

mod backoff;
mod baseline;
mod cache;
mod command;
mod cost;
mod llama;
mod local;
mod model;
mod openai;
mod replay;
mod snapshot;

pub use backoff::RetryPolicy;
pub use baseline::{BaselineModel, FixTemplate, baseline_candidates};
pub use cache::{CachedModel, ResponseCache};
pub use command::{
    CommandExit, CommandMode, CommandModel, CommandModelConfig, CommandOutput, CommandRunner,
    CommandSpec,
};
pub use cost::{Priced, ReportedUsage, USAGE_LINE_PREFIX, token_cost, token_share};
pub use local::{LOCAL_MODEL_FILE, LocalModel, LocalModelConfig, WeightFormat};
pub use model::{FinishReason, GenParams, Generation, Model, ModelError, Request};
pub use openai::{OpenAiClient, OpenAiConfig};
pub use replay::{ReplayError, ReplayModel};
