//! The `Model` trait every backend implements, and the request, parameters and generations it speaks.

use std::path::Path;
use std::time::Duration;

use avrlab_prompt::{Prompt, VulnerableMethod};
use serde::{Deserialize, Serialize};

/// Sampling parameters of one request.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct GenParams {
    /// How many samples to generate.
    pub n: u32,
    /// Sampling temperature.
    pub temperature: f32,
    /// Nucleus sampling mass.
    pub top_p: f32,
    /// The most tokens one sample may have.
    pub max_tokens: u32,
    /// Sequences that end a sample.
    pub stop: Vec<String>,
    /// A seed for servers that support reproducible sampling.
    pub seed: Option<u64>,
}

impl Default for GenParams {
    fn default() -> Self {
        // The VJBench study's defaults: 10 samples, temperature 0.8 for sampling; top_p 0.95.
        Self {
            n: 10,
            temperature: 0.8,
            top_p: 0.95,
            max_tokens: 512,
            stop: Vec::new(),
            seed: None,
        }
    }
}

/// What one generation request asks for.
#[derive(Debug, Clone, Copy)]
pub struct Request<'a> {
    /// A stable id of the prompt (task, format, offset, run), for replay and logs.
    pub prompt_id: &'a str,
    /// The index of the first sample asked for: the request asks for samples `first_sample ..
    /// first_sample + n` of the prompt. Backends number (and seed) samples by that index, so that
    /// asking for samples 3-4 alone gives what asking for 0-4 gives at 3-4, never samples 0-1
    /// again (the response cache asks only for the samples it lacks).
    pub first_sample: u32,
    /// The rendered prompt.
    pub prompt: &'a Prompt,
    /// The sampling parameters.
    pub params: &'a GenParams,
    /// The method the prompt was rendered from, already moved by any fault-localization offset;
    /// backends that do not read text (the template baseline) work on it.
    pub method: Option<&'a VulnerableMethod>,
    /// The task's workspace, for backends that work on files (the command model in workdir mode);
    /// the others ignore it.
    pub workspace: Option<&'a Path>,
}

/// Why a sample ended.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FinishReason {
    /// The model stopped by itself or at a stop sequence.
    Stop,
    /// `max_tokens` was reached: the answer may be cut.
    Length,
    /// The provider filtered the answer.
    ContentFilter,
    /// Anything else a server reported.
    Other(String),
}

impl FinishReason {
    /// The word stored for this reason (the OpenAI spelling; another server's own word as is).
    pub fn as_str(&self) -> &str {
        match self {
            Self::Stop => "stop",
            Self::Length => "length",
            Self::ContentFilter => "content_filter",
            Self::Other(other) => other,
        }
    }

    /// The reason a server's (or the store's) word names; none means the model stopped.
    pub fn parse(reason: Option<&str>) -> Self {
        match reason {
            None | Some("stop") | Some("eos") | Some("stop_sequence") => Self::Stop,
            Some("length") => Self::Length,
            Some("content_filter") => Self::ContentFilter,
            Some(other) => Self::Other(other.to_owned()),
        }
    }
}

/// One sample.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Generation {
    /// The raw text the model produced.
    pub text: String,
    /// Why it ended.
    pub finish_reason: FinishReason,
    /// Prompt tokens of this sample, as the server (or the local tokenizer) counted them; with
    /// n > 1 in one request, the request's prompt tokens shared equally ([`crate::token_share`]):
    /// a prompt is paid once per request, so the samples' counts add up to what was paid for.
    pub tokens_in: Option<u32>,
    /// Completion tokens of this sample; with n > 1 in one request, the request's completion tokens
    /// shared equally (servers report usage per request, not per choice).
    pub tokens_out: Option<u32>,
    /// What this sample cost in US dollars: reported by the provider or the agent, or its tokens
    /// at the model's price; `None` when not known (never taken for 0).
    #[serde(default)]
    pub cost_usd: Option<f64>,
    /// Wall time of the request that produced it (shared by the samples of one request).
    #[serde(with = "duration_ms")]
    pub latency: Duration,
    /// Whether it came from the response cache rather than the model.
    #[serde(default)]
    pub cached: bool,
}

mod duration_ms {
    //! Durations stored as whole milliseconds.
    use std::time::Duration;

    use serde::{Deserialize, Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_millis() as u64)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        u64::deserialize(d).map(Duration::from_millis)
    }
}

/// Why a model could not answer. These are infrastructure failures; an answer that yields no usable
/// candidate is not an error but an outcome.
#[derive(Debug, thiserror::Error)]
pub enum ModelError {
    /// The endpoint could not be reached (refused, unknown host, TLS failure).
    #[error("reach model endpoint {endpoint}")]
    Unreachable {
        /// The URL tried.
        endpoint: String,
        /// The transport error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// Every attempt timed out.
    #[error("get an answer from {endpoint} within the timeout after {attempts} attempt(s)")]
    Timeout {
        /// The URL tried.
        endpoint: String,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The server refused the credentials (401/403).
    #[error("authenticate to {endpoint} (HTTP {status}); check the API key variable: {message}")]
    Auth {
        /// The URL tried.
        endpoint: String,
        /// 401 or 403.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// The prompt and `max_tokens` do not fit the model's context.
    #[error("fit the prompt into the model's context: {message}")]
    ContextLengthExceeded {
        /// The server's message.
        message: String,
    },
    /// The server rejected the request (4xx other than auth and rate limits).
    #[error("have request accepted (HTTP {status}): {message}")]
    BadRequest {
        /// The status code.
        status: u16,
        /// The server's message.
        message: String,
    },
    /// 429 or 5xx persisted through every retry.
    #[error("get an answer from {endpoint}: HTTP {status} after {attempts} attempt(s)")]
    GaveUp {
        /// The URL tried.
        endpoint: String,
        /// The last status code.
        status: u16,
        /// How many attempts were made.
        attempts: u32,
    },
    /// The answer was not the JSON the protocol promises.
    #[error("parse the answer of {endpoint}: {reason}")]
    MalformedResponse {
        /// The URL tried.
        endpoint: String,
        /// What was wrong.
        reason: String,
    },
    /// The answer held no choice at all.
    #[error("get any choice from {endpoint}: the answer was empty")]
    EmptyAnswer {
        /// The URL tried.
        endpoint: String,
    },
    /// The environment variable that should hold the API key is unset.
    #[error("read the API key from environment variable {0}")]
    MissingApiKey(String),
    /// A replay file has no generation for this prompt and sample.
    #[error("replay sample {sample} of prompt `{prompt_id}`: not in the replay file")]
    ReplayMissing {
        /// The prompt id asked for.
        prompt_id: String,
        /// The sample index asked for.
        sample: u32,
    },
    /// The backend needs the vulnerable method, which the request lacks.
    #[error("generate with {0}: the request carries no vulnerable method")]
    MethodRequired(&'static str),
    /// The local model's weights are not where they were looked for.
    #[error("find the local model's weights at {path}; run scripts/fetch-model to fetch them")]
    LocalWeightsMissing {
        /// The file looked for.
        path: String,
    },
    /// The local model's weights file could not be read or understood.
    #[error("load the local model from {path}")]
    LocalLoad {
        /// The weights file.
        path: String,
        /// The I/O, GGUF or tokenizer error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// The local model failed while tokenizing or computing.
    #[error("run the local model")]
    LocalInference {
        /// The tensor or tokenizer error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
    /// A command model's program could not be run at all (not found, not executable, sandbox
    /// failure), or its working directory could not be read.
    #[error("run model command `{program}`: {reason}")]
    CommandUnavailable {
        /// The program.
        program: String,
        /// What went wrong.
        reason: String,
    },
    /// A command model's program exited unsuccessfully.
    #[error(
        "get an answer from model command `{program}`: it exited with {status}; stderr: {stderr}"
    )]
    CommandFailed {
        /// The program.
        program: String,
        /// The exit status, as the runner describes it (`code 2`, `signal 9`).
        status: String,
        /// The end of its standard error.
        stderr: String,
    },
    /// A command model's program ran past its timeout and was killed with its process tree.
    #[error("get an answer from model command `{program}` within {timeout:?}")]
    CommandTimeout {
        /// The program.
        program: String,
        /// The limit it ran past.
        timeout: Duration,
    },
    /// The backend works in the task's workspace, which the request lacks.
    #[error("generate with {0}: the request carries no workspace")]
    WorkspaceRequired(&'static str),
    /// The response cache could not be read or written.
    #[error("use the response cache at {path}")]
    Cache {
        /// The file involved.
        path: String,
        /// The I/O or JSON error.
        #[source]
        source: Box<dyn std::error::Error + Send + Sync>,
    },
}

/// A source of generations.
pub trait Model: Send + Sync {
    /// What identifies this model's answers in the response cache: backend, endpoint and model name.
    fn cache_identity(&self) -> String;

    /// Generates up to `request.params.n` samples (exactly n for remote models; a replay or the
    /// baseline may have fewer). Sample `i` of the result is sample index `i`.
    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError>;

    /// The natural log-probability the model gives each token of `continuation` when it follows
    /// `prefix` as plain text (no chat template), in the model's own tokens; `None` when the back
    /// end does not give log-probabilities (the default).
    fn log_likelihood(
        &self,
        prefix: &str,
        continuation: &str,
    ) -> Result<Option<Vec<f64>>, ModelError> {
        let _ = (prefix, continuation);
        Ok(None)
    }
}

/// A boxed model is a model (so that wrappers such as [`crate::Priced`] take any configured one).
impl<M: Model + ?Sized> Model for Box<M> {
    fn cache_identity(&self) -> String {
        (**self).cache_identity()
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        (**self).generate(request)
    }

    fn log_likelihood(
        &self,
        prefix: &str,
        continuation: &str,
    ) -> Result<Option<Vec<f64>>, ModelError> {
        (**self).log_likelihood(prefix, continuation)
    }
}
