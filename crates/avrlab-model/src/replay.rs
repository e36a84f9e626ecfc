//! Replaying generations from a JSONL file — other people's published outputs, or an earlier run's —
//! keyed by prompt id and sample index. One record per line:
//! `{"prompt_id": "…", "sample": 0, "text": "…", "finish_reason": "stop"}` (`finish_reason` optional).

use std::collections::HashMap;
use std::path::Path;
use std::time::Duration;

use serde::Deserialize;

use crate::model::{FinishReason, Generation, Model, ModelError, Request};

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Record {
    prompt_id: String,
    sample: u32,
    text: String,
    #[serde(default)]
    finish_reason: Option<String>,
}

/// Why a replay file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum ReplayError {
    /// The file could not be read.
    #[error("read replay file {path}")]
    Read {
        /// The file.
        path: String,
        /// The I/O error.
        #[source]
        source: std::io::Error,
    },
    /// A line is not a valid record.
    #[error("parse replay record on line {line}")]
    Parse {
        /// The 1-based line number.
        line: usize,
        /// The JSON error.
        #[source]
        source: serde_json::Error,
    },
    /// Two records claim the same prompt and sample.
    #[error("load replay records: sample {sample} of prompt `{prompt_id}` appears twice")]
    Duplicate {
        /// The prompt id.
        prompt_id: String,
        /// The sample index.
        sample: u32,
    },
}

/// Generations read from a JSONL file.
#[derive(Debug, Clone)]
pub struct ReplayModel {
    name: String,
    records: HashMap<(String, u32), Generation>,
}

impl ReplayModel {
    /// Parses JSONL text; `name` identifies the source in the cache and reports.
    pub fn from_jsonl(name: impl Into<String>, text: &str) -> Result<Self, ReplayError> {
        let mut records = HashMap::new();
        for (index, line) in text.lines().enumerate() {
            if line.trim().is_empty() {
                continue;
            }
            let record: Record =
                serde_json::from_str(line).map_err(|source| ReplayError::Parse {
                    line: index + 1,
                    source,
                })?;
            let generation = Generation {
                text: record.text,
                finish_reason: FinishReason::parse(record.finish_reason.as_deref()),
                tokens_in: None,
                tokens_out: None,
                cost_usd: None,
                latency: Duration::ZERO,
                cached: false,
            };
            let key = (record.prompt_id, record.sample);
            if records.contains_key(&key) {
                let (prompt_id, sample) = key;
                return Err(ReplayError::Duplicate { prompt_id, sample });
            }
            records.insert(key, generation);
        }
        Ok(Self {
            name: name.into(),
            records,
        })
    }

    /// Reads and parses a JSONL file.
    pub fn load(path: &Path) -> Result<Self, ReplayError> {
        let text = std::fs::read_to_string(path).map_err(|source| ReplayError::Read {
            path: path.display().to_string(),
            source,
        })?;
        Self::from_jsonl(path.display().to_string(), &text)
    }
}

impl Model for ReplayModel {
    fn cache_identity(&self) -> String {
        format!("replay|{}", self.name)
    }

    /// Samples `first_sample`, … of the prompt as far as the file has them (at most n); none is an
    /// error.
    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let first = request.first_sample;
        let generations: Vec<Generation> = (first..first + request.params.n)
            .map_while(|sample| {
                self.records
                    .get(&(request.prompt_id.to_owned(), sample))
                    .cloned()
            })
            .collect();
        if generations.is_empty() {
            return Err(ModelError::ReplayMissing {
                prompt_id: request.prompt_id.to_owned(),
                sample: first,
            });
        }
        Ok(generations)
    }
}
