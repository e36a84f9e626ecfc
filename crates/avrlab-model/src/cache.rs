//! A content-addressed response cache: each sample is stored under the sha256 of (model identity,
//! prompt, parameters but `n`, sample index), so re-running an identical eval sends zero requests and
//! asking for more samples later only generates the new ones.

use std::path::{Path, PathBuf};

use avrlab_prompt::Prompt;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::model::{GenParams, Generation, Model, ModelError, Request};

/// The on-disk format of one cache entry.
const FORMAT_VERSION: u32 = 1;

#[derive(Serialize)]
struct KeyMaterial<'a> {
    format_version: u32,
    model: &'a str,
    prompt: &'a Prompt,
    temperature: f32,
    top_p: f32,
    max_tokens: u32,
    stop: &'a [String],
    seed: Option<u64>,
    sample: u32,
}

#[derive(Serialize, Deserialize)]
struct Entry {
    format_version: u32,
    generation: Generation,
}

/// A directory of cached samples, `<dir>/<first 2 hex digits>/<sha256>.json`.
#[derive(Debug, Clone)]
pub struct ResponseCache {
    dir: PathBuf,
}

impl ResponseCache {
    /// A cache in `dir` (created on first store).
    pub fn new(dir: impl Into<PathBuf>) -> Self {
        Self { dir: dir.into() }
    }

    /// The key of sample `sample` of `prompt` sent to `model` with `params` (whose `n` is ignored).
    pub fn key(model: &str, prompt: &Prompt, params: &GenParams, sample: u32) -> String {
        let material = KeyMaterial {
            format_version: FORMAT_VERSION,
            model,
            prompt,
            temperature: params.temperature,
            top_p: params.top_p,
            max_tokens: params.max_tokens,
            stop: &params.stop,
            seed: params.seed,
            sample,
        };
        let json = serde_json::to_vec(&material).expect("key material serializes");
        hex::encode(Sha256::digest(&json))
    }

    fn path(&self, key: &str) -> PathBuf {
        self.dir.join(&key[..2]).join(format!("{key}.json"))
    }

    fn error(path: &Path, source: impl std::error::Error + Send + Sync + 'static) -> ModelError {
        ModelError::Cache {
            path: path.display().to_string(),
            source: Box::new(source),
        }
    }

    /// The cached sample under `key`, if any.
    pub fn load(&self, key: &str) -> Result<Option<Generation>, ModelError> {
        let path = self.path(key);
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(Self::error(&path, e)),
        };
        let entry: Entry = serde_json::from_slice(&bytes).map_err(|e| Self::error(&path, e))?;
        // An entry of another format version is a miss: it will be regenerated and overwritten.
        Ok((entry.format_version == FORMAT_VERSION).then_some(entry.generation))
    }

    /// Stores a sample under `key`, atomically (write to a temporary file, then rename), so a run
    /// killed mid-write never leaves a truncated entry.
    pub fn store(&self, key: &str, generation: &Generation) -> Result<(), ModelError> {
        let path = self.path(key);
        let parent = path.parent().expect("entries live in a subdirectory");
        std::fs::create_dir_all(parent).map_err(|e| Self::error(parent, e))?;
        let entry = Entry {
            format_version: FORMAT_VERSION,
            generation: generation.clone(),
        };
        let json = serde_json::to_vec_pretty(&entry).map_err(|e| Self::error(&path, e))?;
        let temporary = avrlab_core::partial_path(&path);
        std::fs::write(&temporary, json).map_err(|e| Self::error(&temporary, e))?;
        std::fs::rename(&temporary, &path).map_err(|e| Self::error(&path, e))
    }
}

/// A model behind a response cache.
#[derive(Debug)]
pub struct CachedModel<M> {
    inner: M,
    cache: ResponseCache,
}

impl<M: Model> CachedModel<M> {
    /// Wraps `inner` with `cache`.
    pub fn new(inner: M, cache: ResponseCache) -> Self {
        Self { inner, cache }
    }

    /// The wrapped model.
    pub fn inner(&self) -> &M {
        &self.inner
    }
}

impl<M: Model> Model for CachedModel<M> {
    fn cache_identity(&self) -> String {
        self.inner.cache_identity()
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let identity = self.inner.cache_identity();
        let params = request.params;
        let keys: Vec<String> = (0..params.n)
            .map(|i| {
                ResponseCache::key(&identity, request.prompt, params, request.first_sample + i)
            })
            .collect();
        let mut samples: Vec<Option<Generation>> = Vec::with_capacity(keys.len());
        for key in &keys {
            samples.push(
                self.cache
                    .load(key)?
                    .map(|g| Generation { cached: true, ..g }),
            );
        }
        let missing: Vec<usize> = (0..samples.len())
            .filter(|&i| samples[i].is_none())
            .collect();
        // Each run of consecutive missing samples is asked for by its own indices.
        for run in missing.chunk_by(|a, b| *b == a + 1) {
            let fresh_params = GenParams {
                n: run.len() as u32,
                ..params.clone()
            };
            let fresh = self.inner.generate(&Request {
                params: &fresh_params,
                first_sample: request.first_sample + run[0] as u32,
                ..*request
            })?;
            for (index, generation) in run.iter().zip(fresh) {
                self.cache.store(&keys[*index], &generation)?;
                samples[*index] = Some(generation);
            }
        }
        // A backend that ran out of samples (replay, baseline) leaves a gap: return the prefix.
        Ok(samples.into_iter().map_while(|s| s).collect())
    }
}
