//! A client for OpenAI-compatible servers (OpenAI, vLLM, llama.cpp server, Ollama, …): chat prompts go
//! to `/chat/completions`, completion prompts to `/completions`. It bounds concurrent requests, retries
//! 429, 5xx and timeouts with exponential backoff (honouring `Retry-After`), and maps every other
//! failure to a typed [`ModelError`].

use std::sync::{Condvar, Mutex};
use std::time::{Duration, Instant};

use avrlab_prompt::Prompt;
use serde_json::{Value, json};

use crate::backoff::RetryPolicy;
use crate::model::{FinishReason, GenParams, Generation, Model, ModelError, Request};

/// How to reach one model on an OpenAI-compatible server.
#[derive(Debug, Clone, PartialEq)]
pub struct OpenAiConfig {
    /// The API root, including its version segment, e.g. `http://127.0.0.1:8080/v1`.
    pub base_url: String,
    /// The model name the server knows.
    pub model: String,
    /// The environment variable holding the API key, if the server needs one.
    pub api_key_env: Option<String>,
    /// The limit on one attempt, connection to last byte.
    pub timeout: Duration,
    /// The most requests in flight at once from this client.
    pub max_concurrency: usize,
    /// When and how long to wait before retrying.
    pub retry: RetryPolicy,
}

impl OpenAiConfig {
    /// A config with the usual limits: 120 s per attempt, 4 requests in flight, default retries.
    pub fn new(base_url: impl Into<String>, model: impl Into<String>) -> Self {
        Self {
            base_url: base_url.into(),
            model: model.into(),
            api_key_env: None,
            timeout: Duration::from_secs(120),
            max_concurrency: 4,
            retry: RetryPolicy::default(),
        }
    }
}

/// A counting semaphore: the concurrency limit.
#[derive(Debug)]
struct Permits {
    available: Mutex<usize>,
    freed: Condvar,
}

struct Permit<'a>(&'a Permits);

impl Permits {
    fn new(count: usize) -> Self {
        Self {
            available: Mutex::new(count.max(1)),
            freed: Condvar::new(),
        }
    }

    fn acquire(&self) -> Permit<'_> {
        let mut available = self.available.lock().unwrap_or_else(|e| e.into_inner());
        while *available == 0 {
            available = self
                .freed
                .wait(available)
                .unwrap_or_else(|e| e.into_inner());
        }
        *available -= 1;
        Permit(self)
    }
}

impl Drop for Permit<'_> {
    fn drop(&mut self) {
        *self.0.available.lock().unwrap_or_else(|e| e.into_inner()) += 1;
        self.0.freed.notify_one();
    }
}

/// A blocking OpenAI-compatible client.
#[derive(Debug)]
pub struct OpenAiClient {
    config: OpenAiConfig,
    api_key: Option<String>,
    agent: ureq::Agent,
    permits: Permits,
}

/// The parsed part of a successful answer.
struct Answer {
    choices: Vec<(String, FinishReason)>,
    prompt_tokens: Option<u32>,
    completion_tokens: Option<u32>,
    /// The request's cost, where the provider reports one (`usage.cost`, as OpenRouter does).
    cost_usd: Option<f64>,
    latency: Duration,
}

/// The error message inside an error body, or the body itself, shortened.
fn error_message(body: &str) -> String {
    let message = serde_json::from_str::<Value>(body).ok().and_then(|v| {
        let error = v.get("error")?;
        error
            .get("message")
            .and_then(Value::as_str)
            .or_else(|| error.as_str())
            .map(str::to_owned)
    });
    let message = message.unwrap_or_else(|| body.trim().to_owned());
    message.chars().take(500).collect()
}

/// Whether a 4xx message says the prompt is longer than the context (the wordings of OpenAI, vLLM,
/// llama.cpp and Ollama).
fn is_context_overflow(message: &str) -> bool {
    let message = message.to_lowercase();
    [
        "context length",
        "context_length",
        "maximum context",
        "context window",
        "too many tokens",
        "exceeds the available context",
        "prompt is too long",
    ]
    .iter()
    .any(|needle| message.contains(needle))
}

impl OpenAiClient {
    /// A client for `config`, reading the API key from the environment variable it names.
    pub fn new(config: OpenAiConfig) -> Result<Self, ModelError> {
        let api_key = match &config.api_key_env {
            Some(var) => {
                Some(std::env::var(var).map_err(|_| ModelError::MissingApiKey(var.clone()))?)
            }
            None => None,
        };
        let agent = ureq::Agent::config_builder()
            .timeout_global(Some(config.timeout))
            .http_status_as_error(false)
            .build()
            .new_agent();
        let permits = Permits::new(config.max_concurrency);
        Ok(Self {
            config,
            api_key,
            agent,
            permits,
        })
    }

    fn url(&self, prompt: &Prompt) -> String {
        let base = self.config.base_url.trim_end_matches('/');
        match prompt {
            Prompt::Chat { .. } => format!("{base}/chat/completions"),
            Prompt::Completion { .. } => format!("{base}/completions"),
        }
    }

    fn body(&self, prompt: &Prompt, params: &GenParams, n: u32, seed: Option<u64>) -> Value {
        let mut body = json!({
            "model": self.config.model,
            "n": n,
            "temperature": params.temperature,
            "top_p": params.top_p,
            "max_tokens": params.max_tokens,
        });
        match prompt {
            Prompt::Chat { messages } => body["messages"] = json!(messages),
            Prompt::Completion { prompt, suffix } => {
                body["prompt"] = json!(prompt);
                if let Some(suffix) = suffix {
                    body["suffix"] = json!(suffix);
                }
            }
        }
        if !params.stop.is_empty() {
            body["stop"] = json!(params.stop);
        }
        if let Some(seed) = seed {
            body["seed"] = json!(seed);
        }
        body
    }

    /// Sends one request, retrying what is worth retrying.
    fn post(&self, url: &str, body: &str, chat: bool) -> Result<Answer, ModelError> {
        let policy = self.config.retry;
        let mut last_status = None;
        let mut attempts = 0;
        for retry in 0..=policy.max_retries {
            attempts += 1;
            let started = Instant::now();
            let (status, retry_after, text) = {
                let _permit = self.permits.acquire();
                let mut request = self
                    .agent
                    .post(url)
                    .header("Content-Type", "application/json");
                if let Some(key) = &self.api_key {
                    request = request.header("Authorization", format!("Bearer {key}"));
                }
                match request.send(body).and_then(|mut response| {
                    let status = response.status().as_u16();
                    let retry_after = response
                        .headers()
                        .get("retry-after")
                        .and_then(|v| v.to_str().ok())
                        .map(str::to_owned);
                    let text = response.body_mut().read_to_string()?;
                    Ok((status, retry_after, text))
                }) {
                    Ok(answer) => answer,
                    Err(error) if is_timeout(&error) => {
                        last_status = None;
                        if retry < policy.max_retries {
                            drop(_permit);
                            std::thread::sleep(policy.delay(retry, None));
                        }
                        continue;
                    }
                    Err(error) => {
                        return Err(ModelError::Unreachable {
                            endpoint: url.to_owned(),
                            source: Box::new(error),
                        });
                    }
                }
            };
            let latency = started.elapsed();
            match status {
                200..=299 => return parse_answer(url, &text, chat, latency),
                401 | 403 => {
                    return Err(ModelError::Auth {
                        endpoint: url.to_owned(),
                        status,
                        message: error_message(&text),
                    });
                }
                429 | 500..=599 => {
                    last_status = Some(status);
                    if retry < policy.max_retries {
                        std::thread::sleep(policy.delay(retry, retry_after.as_deref()));
                    }
                }
                _ => {
                    let message = error_message(&text);
                    if is_context_overflow(&message) {
                        return Err(ModelError::ContextLengthExceeded { message });
                    }
                    return Err(ModelError::BadRequest { status, message });
                }
            }
        }
        Err(match last_status {
            Some(status) => ModelError::GaveUp {
                endpoint: url.to_owned(),
                status,
                attempts,
            },
            None => ModelError::Timeout {
                endpoint: url.to_owned(),
                attempts,
            },
        })
    }
}

fn is_timeout(error: &ureq::Error) -> bool {
    match error {
        ureq::Error::Timeout(_) => true,
        ureq::Error::Io(io) => matches!(
            io.kind(),
            std::io::ErrorKind::TimedOut | std::io::ErrorKind::WouldBlock
        ),
        _ => false,
    }
}

fn parse_answer(
    url: &str,
    text: &str,
    chat: bool,
    latency: Duration,
) -> Result<Answer, ModelError> {
    let malformed = |reason: String| ModelError::MalformedResponse {
        endpoint: url.to_owned(),
        reason,
    };
    let value: Value =
        serde_json::from_str(text).map_err(|e| malformed(format!("not JSON ({e})")))?;
    let choices = value
        .get("choices")
        .and_then(Value::as_array)
        .ok_or_else(|| malformed("no `choices` array".to_owned()))?;
    if choices.is_empty() {
        return Err(ModelError::EmptyAnswer {
            endpoint: url.to_owned(),
        });
    }
    let mut indexed = Vec::with_capacity(choices.len());
    for (position, choice) in choices.iter().enumerate() {
        let text = if chat {
            match choice.get("message").map(|m| m.get("content")) {
                // A null content (a refusal, a tool call) is an empty answer to store, not a failure.
                Some(Some(Value::Null)) => String::new(),
                Some(Some(Value::String(s))) => s.clone(),
                _ => {
                    return Err(malformed(format!(
                        "choice {position} has no message content"
                    )));
                }
            }
        } else {
            match choice.get("text") {
                Some(Value::String(s)) => s.clone(),
                _ => return Err(malformed(format!("choice {position} has no text"))),
            }
        };
        let index = choice
            .get("index")
            .and_then(Value::as_u64)
            .unwrap_or(position as u64);
        let reason = FinishReason::parse(choice.get("finish_reason").and_then(Value::as_str));
        indexed.push((index, text, reason));
    }
    indexed.sort_by_key(|(index, _, _)| *index);
    let usage = |field: &str| {
        value
            .get("usage")
            .and_then(|u| u.get(field))
            .and_then(Value::as_u64)
            .map(|v| v as u32)
    };
    Ok(Answer {
        choices: indexed
            .into_iter()
            .map(|(_, text, reason)| (text, reason))
            .collect(),
        prompt_tokens: usage("prompt_tokens"),
        completion_tokens: usage("completion_tokens"),
        cost_usd: value
            .get("usage")
            .and_then(|u| u.get("cost"))
            .and_then(Value::as_f64)
            .filter(|c| c.is_finite() && *c >= 0.0),
        latency,
    })
}

impl Model for OpenAiClient {
    fn cache_identity(&self) -> String {
        format!(
            "openai|{}|{}",
            self.config.base_url.trim_end_matches('/'),
            self.config.model
        )
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let params = request.params;
        let url = self.url(request.prompt);
        let chat = matches!(request.prompt, Prompt::Chat { .. });
        let mut generations = Vec::with_capacity(params.n as usize);
        // Some servers (llama.cpp) ignore `n` and answer one choice: ask again for the rest, with the
        // seed moved on so that the samples differ.
        let mut round = 0u64;
        while generations.len() < params.n as usize {
            let wanted = params.n - generations.len() as u32;
            // Samples after the first of the prompt move the seed on too.
            let seed = params
                .seed
                .map(|s| s.wrapping_add(u64::from(request.first_sample) + round));
            let body = self.body(request.prompt, params, wanted, seed).to_string();
            let answer = self.post(&url, &body, chat)?;
            let count = answer.choices.len().min(wanted as usize) as u32;
            for (index, (text, finish_reason)) in
                answer.choices.into_iter().take(count as usize).enumerate()
            {
                let index = index as u32;
                let share = |total: u32| crate::token_share(total, count, index);
                generations.push(Generation {
                    text,
                    finish_reason,
                    tokens_in: answer.prompt_tokens.map(share),
                    tokens_out: answer.completion_tokens.map(share),
                    cost_usd: answer.cost_usd.map(|c| c / f64::from(count.max(1))),
                    latency: answer.latency,
                    cached: false,
                });
            }
            round += 1;
        }
        Ok(generations)
    }
}
