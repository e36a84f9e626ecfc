//! The built-in `local` model: SmolLM2-135M-Instruct read from its GGUF file and run in-process on the
//! CPU with candle, so that an eval runs offline with nothing to configure.
//!
//! The weights are fetched by `scripts/fetch-model`. Two pitfalls of this model under candle are
//! handled at load: candle has no fast CPU kernel for the file's Q4_1 blocks, so those tensors are
//! re-quantized to Q8_0; and the tokenizer is rebuilt from the GGUF metadata with the pre-tokenizer
//! the model was trained with (individual digits, then byte-level), without which it answers nonsense.

use std::collections::HashMap;
use std::fs::File;
use std::hash::{BuildHasher, RandomState};
use std::io::{BufReader, Cursor};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use avrlab_prompt::{Prompt, Role};
use candle_core::quantized::{GgmlDType, QTensor, gguf_file};
use candle_core::{D, DType, Device, Tensor};
use candle_nn::ops::softmax_last_dim;
use rand::SeedableRng;
use rand::distr::Distribution;
use rand::distr::weighted::WeightedIndex;
use rand::rngs::StdRng;
use tokenizers::decoders::byte_level::ByteLevel as ByteLevelDecoder;
use tokenizers::models::bpe::BPE;
use tokenizers::pre_tokenizers::byte_level::ByteLevel;
use tokenizers::pre_tokenizers::digits::Digits;
use tokenizers::pre_tokenizers::sequence::Sequence;
use tokenizers::{AddedToken, Tokenizer};

use crate::llama::{Llama, MAX_POSITIONS};
use crate::model::{FinishReason, GenParams, Generation, Model, ModelError, Request};

/// The file name `scripts/fetch-model` gives the weights.
pub const LOCAL_MODEL_FILE: &str = "SmolLM2-135M-Instruct.Q4_1.gguf";

/// The system message SmolLM2's chat template inserts when a conversation has none (from the
/// `tokenizer.chat_template` of the GGUF file).
const DEFAULT_SYSTEM: &str = "You are a helpful AI assistant named SmolLM, trained by Hugging Face";

/// GGUF token types (llama.cpp's `llama_token_type`) that mark special tokens: control (3) and
/// user-defined (4).
const SPECIAL_TOKEN_TYPES: [i32; 2] = [3, 4];

/// How the weights are held in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum WeightFormat {
    /// Re-quantize blocks that candle has no fast CPU kernel for (Q4_0/Q4_1/Q5_0/Q5_1) to Q8_0 at load:
    /// a slower load, a faster generation.
    #[default]
    Q8_0,
    /// Keep the blocks as the file stores them.
    AsStored,
}

impl WeightFormat {
    fn name(self) -> &'static str {
        match self {
            Self::Q8_0 => "q8_0",
            Self::AsStored => "as-stored",
        }
    }
}

/// How to load a [`LocalModel`].
#[derive(Debug, Clone)]
pub struct LocalModelConfig {
    /// How the weights are held in memory.
    pub weights: WeightFormat,
    /// Threads that run the model's kernels; 0 for one per core. The default is 1: this model's
    /// matrices are so small (576 wide) that more threads gain little, rayon's spin-waiting workers
    /// compete with the builds and tests that an eval runs beside the model, and on two busy cores
    /// one thread per core measured no faster than one (`cargo bench -p avrlab-model --bench
    /// local`).
    pub threads: usize,
}

impl Default for LocalModelConfig {
    fn default() -> Self {
        Self {
            weights: WeightFormat::default(),
            threads: 1,
        }
    }
}

/// SmolLM2-135M-Instruct (or another llama-architecture GGUF with a BPE tokenizer) run on the CPU.
///
/// The weights are loaded once; each request works on a cheap clone of them (the tensors are shared)
/// that carries its own attention cache, so the model can serve several threads at once. The prompt
/// is read once per request and its cache shared by the request's samples.
#[derive(Debug)]
pub struct LocalModel {
    identity: String,
    weights: Llama,
    tokenizer: Tokenizer,
    /// Tokens that end a sample: `<|im_end|>` (the GGUF's eos) and `<|endoftext|>`.
    end_tokens: Vec<u32>,
    /// The token that starts an empty completion prompt.
    bos: Option<u32>,
    context_length: usize,
    file_context_length: usize,
    load_time: Duration,
    /// The threads the model computes on, its own so that it neither competes with nor waits for
    /// other users of rayon's global pool.
    pool: rayon::ThreadPool,
}

impl LocalModel {
    /// Where `scripts/fetch-model` puts the weights: `$AVRLAB_MODEL_DIR`, or
    /// `$HOME/.cache/avrlab/models`, joined with [`LOCAL_MODEL_FILE`].
    pub fn default_path() -> PathBuf {
        let dir = match std::env::var_os("AVRLAB_MODEL_DIR") {
            Some(dir) if !dir.is_empty() => PathBuf::from(dir),
            _ => {
                let home = std::env::var_os("HOME").unwrap_or_default();
                PathBuf::from(home).join(".cache/avrlab/models")
            }
        };
        dir.join(LOCAL_MODEL_FILE)
    }

    /// Loads the GGUF file at `path` with the default configuration (Q8_0 weights).
    pub fn load(path: &Path) -> Result<Self, ModelError> {
        Self::load_with(path, &LocalModelConfig::default())
    }

    /// Loads the GGUF file at `path`.
    pub fn load_with(path: &Path, config: &LocalModelConfig) -> Result<Self, ModelError> {
        let started = Instant::now();
        let load_error = |source: Box<dyn std::error::Error + Send + Sync>| ModelError::LocalLoad {
            path: path.display().to_string(),
            source,
        };
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(config.threads)
            .thread_name(|i| format!("avrlab-local-{i}"))
            .build()
            .map_err(|e| load_error(Box::new(e)))?;
        let file = match File::open(path) {
            Ok(file) => file,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                return Err(ModelError::LocalWeightsMissing {
                    path: path.display().to_string(),
                });
            }
            Err(e) => return Err(load_error(Box::new(e))),
        };
        let mut reader = BufReader::new(file);
        let content = gguf_file::Content::read(&mut reader).map_err(|e| load_error(Box::new(e)))?;
        let tokenizer = build_tokenizer(&content.metadata).map_err(load_error)?;
        let file_context_length =
            metadata_u32(&content.metadata, "llama.context_length").map_err(load_error)? as usize;
        // The decoder's rotary table holds MAX_POSITIONS positions.
        let context_length = file_context_length.min(MAX_POSITIONS);
        let token_id = |key: &str| metadata_u32(&content.metadata, key).ok();
        let mut end_tokens: Vec<u32> = token_id("tokenizer.ggml.eos_token_id")
            .into_iter()
            .collect();
        end_tokens.extend(tokenizer.token_to_id("<|endoftext|>"));
        end_tokens.extend(tokenizer.token_to_id("<|im_end|>"));
        end_tokens.sort_unstable();
        end_tokens.dedup();
        let bos = token_id("tokenizer.ggml.bos_token_id");

        let device = Device::Cpu;
        let weights = pool
            .install(|| match config.weights {
                WeightFormat::AsStored => {
                    Llama::from_gguf(content, &mut reader, &device).map_err(BoxError::from)
                }
                WeightFormat::Q8_0 => {
                    let image = requantized_gguf(&content, &mut reader, &device)?;
                    let mut image = Cursor::new(image);
                    gguf_file::Content::read(&mut image)
                        .and_then(|content| Llama::from_gguf(content, &mut image, &device))
                        .map_err(BoxError::from)
                }
            })
            .map_err(load_error)?;

        let file_name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        Ok(Self {
            identity: format!("local|{file_name}|{}", config.weights.name()),
            weights,
            tokenizer,
            end_tokens,
            bos,
            context_length,
            file_context_length,
            load_time: started.elapsed(),
            pool,
        })
    }

    /// How many tokens prompt and answer may hold together: the GGUF's `llama.context_length`, capped
    /// by the decoder's rotary table (4096 positions).
    pub fn context_length(&self) -> usize {
        self.context_length
    }

    /// How long [`LocalModel::load_with`] took.
    pub fn load_time(&self) -> Duration {
        self.load_time
    }

    /// The text the model reads for `prompt`: a chat in SmolLM2's ChatML template ending with the
    /// assistant's turn, or a completion prompt as it is. A completion suffix is dropped: SmolLM2 has
    /// no fill-in-the-middle tokens, so it completes the prefix only.
    pub fn prompt_text(prompt: &Prompt) -> String {
        match prompt {
            Prompt::Completion { prompt, .. } => prompt.clone(),
            Prompt::Chat { messages } => {
                let mut text = String::new();
                if messages.first().is_some_and(|m| m.role != Role::System) {
                    text.push_str("<|im_start|>system\n");
                    text.push_str(DEFAULT_SYSTEM);
                    text.push_str("<|im_end|>\n");
                }
                for message in messages {
                    let role = match message.role {
                        Role::System => "system",
                        Role::User => "user",
                        Role::Assistant => "assistant",
                    };
                    text.push_str("<|im_start|>");
                    text.push_str(role);
                    text.push('\n');
                    text.push_str(&message.content);
                    text.push_str("<|im_end|>\n");
                }
                text.push_str("<|im_start|>assistant\n");
                text
            }
        }
    }

    /// The token ids of `text`.
    pub fn tokenize(&self, text: &str) -> Result<Vec<u32>, ModelError> {
        self.tokenizer
            .encode(text, false)
            .map(|encoding| encoding.get_ids().to_vec())
            .map_err(|source| ModelError::LocalInference { source })
    }

    fn decode(&self, ids: &[u32]) -> Result<String, ModelError> {
        self.tokenizer
            .decode(ids, true)
            .map_err(|source| ModelError::LocalInference { source })
    }

    /// Generates one sample from the state after the prompt.
    fn sample(
        &self,
        prompt_state: &Llama,
        prompt_logits: &Tensor,
        prompt_len: usize,
        params: &GenParams,
        seed: u64,
    ) -> Result<(String, FinishReason, usize), ModelError> {
        let mut state = prompt_state.clone();
        let mut logits = prompt_logits.clone();
        let mut sampler = Sampler::new(seed, sampling(params));
        // The context bounds the answer as much as max_tokens does.
        let budget = (params.max_tokens as usize).min(self.context_length - prompt_len);
        let mut ids: Vec<u32> = Vec::new();
        let mut text = String::new();
        while ids.len() < budget {
            let next = sampler.next(&logits).map_err(inference)?;
            if self.end_tokens.contains(&next) {
                return Ok((text, FinishReason::Stop, ids.len()));
            }
            ids.push(next);
            text = self.decode(&ids)?;
            if let Some(cut) = earliest_stop(&text, &params.stop) {
                text.truncate(cut);
                return Ok((text, FinishReason::Stop, ids.len()));
            }
            if ids.len() < budget {
                let input = Tensor::new(&[next], &Device::Cpu)
                    .and_then(|t| t.unsqueeze(0))
                    .map_err(inference)?;
                logits = state
                    .forward(&input, prompt_len + ids.len() - 1)
                    .and_then(|t| t.squeeze(0))
                    .map_err(inference)?;
            }
        }
        Ok((text, FinishReason::Length, ids.len()))
    }
}

impl Model for LocalModel {
    fn cache_identity(&self) -> String {
        self.identity.clone()
    }

    /// Exactly `n` samples. With a seed, sample `i` is the same on every call; without one, each call
    /// draws a fresh seed. Temperature 0 is greedy decoding.
    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        self.pool.install(|| self.generate_here(request))
    }

    fn log_likelihood(
        &self,
        prefix: &str,
        continuation: &str,
    ) -> Result<Option<Vec<f64>>, ModelError> {
        self.pool
            .install(|| self.score(prefix, continuation))
            .map(Some)
    }
}

impl LocalModel {
    /// The log-probability of each token of `continuation` after `prefix`: the prefix is read at
    /// once, then the continuation token by token (the decoder gives the logits of the last
    /// position only), each token's log-softmax read before it is fed. Both texts are tokenized
    /// together, so a token that straddles their border counts for the continuation.
    fn score(&self, prefix: &str, continuation: &str) -> Result<Vec<f64>, ModelError> {
        let mut prefix_ids = self.tokenize(prefix)?;
        let whole = self.tokenize(&format!("{prefix}{continuation}"))?;
        // Where the two tokenizations part: the continuation's tokens start there.
        let shared = prefix_ids
            .iter()
            .zip(&whole)
            .take_while(|(a, b)| a == b)
            .count();
        prefix_ids.truncate(shared);
        if prefix_ids.is_empty() {
            prefix_ids.extend(self.bos.or(self.end_tokens.first().copied()));
        }
        let targets = &whole[shared..];
        let length = prefix_ids.len() + targets.len();
        if length >= self.context_length {
            return Err(ModelError::ContextLengthExceeded {
                message: format!(
                    "scoring needs {length} tokens; the local model reads at most {}",
                    self.context_length - 1
                ),
            });
        }
        let mut state = self.weights.clone();
        let mut logits = Tensor::new(prefix_ids.as_slice(), &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .and_then(|t| state.forward(&t, 0))
            .and_then(|t| t.squeeze(0))
            .map_err(inference)?;
        let mut scores = Vec::with_capacity(targets.len());
        for (i, &token) in targets.iter().enumerate() {
            let log_probs = log_softmax(&logits)?;
            scores.push(log_probs[token as usize]);
            if i + 1 < targets.len() {
                let input = Tensor::new(&[token], &Device::Cpu)
                    .and_then(|t| t.unsqueeze(0))
                    .map_err(inference)?;
                logits = state
                    .forward(&input, prefix_ids.len() + i)
                    .and_then(|t| t.squeeze(0))
                    .map_err(inference)?;
            }
        }
        Ok(scores)
    }

    fn generate_here(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let started = Instant::now();
        let params = request.params;
        let mut prompt_ids = self.tokenize(&Self::prompt_text(request.prompt))?;
        if prompt_ids.is_empty() {
            // An empty completion prompt: start from the beginning-of-text token.
            prompt_ids.extend(self.bos.or(self.end_tokens.first().copied()));
        }
        let prompt_len = prompt_ids.len();
        if prompt_len >= self.context_length {
            return Err(ModelError::ContextLengthExceeded {
                message: format!(
                    "the prompt has {prompt_len} tokens; the local model reads at most {} \
                     (the GGUF file says {}, the decoder's rotary table holds {MAX_POSITIONS})",
                    self.context_length - 1,
                    self.file_context_length,
                ),
            });
        }

        let mut prompt_state = self.weights.clone();
        let prompt_logits = Tensor::new(prompt_ids.as_slice(), &Device::Cpu)
            .and_then(|t| t.unsqueeze(0))
            .and_then(|t| prompt_state.forward(&t, 0))
            .and_then(|t| t.squeeze(0))
            .map_err(inference)?;

        let base_seed = params
            .seed
            .unwrap_or_else(|| RandomState::new().hash_one(started));
        let mut samples = Vec::with_capacity(params.n as usize);
        for index in request.first_sample..request.first_sample + params.n {
            let seed = sample_seed(base_seed, index);
            samples.push(self.sample(&prompt_state, &prompt_logits, prompt_len, params, seed)?);
        }
        // Like a server's usage, the latency is the request's, shared by its samples.
        let latency = started.elapsed();
        // The prompt is computed once for all samples: each carries its share of it.
        let count = samples.len() as u32;
        Ok(samples
            .into_iter()
            .enumerate()
            .map(|(index, (text, finish_reason, tokens_out))| Generation {
                text,
                finish_reason,
                tokens_in: Some(crate::token_share(prompt_len as u32, count, index as u32)),
                tokens_out: Some(tokens_out as u32),
                cost_usd: None,
                latency,
                cached: false,
            })
            .collect())
    }
}

/// The log-softmax of one position's logits, computed in f64 from the f32 values.
fn log_softmax(logits: &Tensor) -> Result<Vec<f64>, ModelError> {
    let values: Vec<f32> = logits
        .to_dtype(DType::F32)
        .and_then(|t| t.flatten_all())
        .and_then(|t| t.to_vec1())
        .map_err(inference)?;
    let largest = values.iter().copied().fold(f32::NEG_INFINITY, f32::max);
    let sum: f64 = values
        .iter()
        .map(|v| (f64::from(*v) - f64::from(largest)).exp())
        .sum();
    let norm = f64::from(largest) + sum.ln();
    Ok(values.iter().map(|v| f64::from(*v) - norm).collect())
}

fn inference(source: candle_core::Error) -> ModelError {
    ModelError::LocalInference {
        source: Box::new(source),
    }
}

/// How the next token is picked from a position's logits.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Sampling {
    /// The most likely token.
    Greedy,
    /// Any token, by its probability at `temperature`.
    All { temperature: f64 },
    /// One of the most likely tokens whose probabilities (at `temperature`) first reach `p`, by
    /// its probability.
    Nucleus { p: f32, temperature: f64 },
}

/// The sampling rule of `params`: greedy at temperature 0, nucleus sampling when top_p < 1.
fn sampling(params: &GenParams) -> Sampling {
    let temperature = f64::from(params.temperature);
    let top_p = params.top_p;
    if temperature <= 0.0 || temperature.is_nan() {
        Sampling::Greedy
    } else if top_p > 0.0 && top_p < 1.0 {
        Sampling::Nucleus {
            p: top_p,
            temperature,
        }
    } else {
        Sampling::All { temperature }
    }
}

/// Picks a sample's tokens by its rule, with a generator seeded by the sample's seed: the same
/// seed and logits give the same tokens.
struct Sampler {
    rng: StdRng,
    sampling: Sampling,
}

impl Sampler {
    fn new(seed: u64, sampling: Sampling) -> Self {
        Self {
            rng: StdRng::seed_from_u64(seed),
            sampling,
        }
    }

    /// The next token after `logits` (one position's, over the vocabulary).
    fn next(&mut self, logits: &Tensor) -> candle_core::Result<u32> {
        let logits = logits.to_dtype(DType::F32)?;
        let (temperature, nucleus) = match self.sampling {
            Sampling::Greedy => return logits.argmax(D::Minus1)?.to_scalar::<u32>(),
            Sampling::All { temperature } => (temperature, None),
            Sampling::Nucleus { p, temperature } => (temperature, Some(p)),
        };
        let mut probabilities: Vec<f32> = softmax_last_dim(&(logits / temperature)?)?.to_vec1()?;
        if let Some(p) = nucleus {
            // The most likely first; once their mass reaches p, the rest are left out.
            let mut order: Vec<usize> = (0..probabilities.len()).collect();
            order.sort_by(|&a, &b| probabilities[b].total_cmp(&probabilities[a]));
            let mut mass = 0.0;
            for index in order {
                if mass >= p {
                    probabilities[index] = 0.0;
                } else {
                    mass += probabilities[index];
                }
            }
        }
        let choice = WeightedIndex::new(&probabilities).map_err(candle_core::Error::wrap)?;
        Ok(choice.sample(&mut self.rng) as u32)
    }
}

/// The seed of sample `index`: splitmix64 of the request seed and the index, so that samples of one
/// request differ and neighbouring request seeds do not share samples.
fn sample_seed(seed: u64, index: u32) -> u64 {
    let mut z = seed ^ u64::from(index).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Where the first of `stops` begins in `text`.
fn earliest_stop(text: &str, stops: &[String]) -> Option<usize> {
    stops
        .iter()
        .filter(|s| !s.is_empty())
        .filter_map(|s| text.find(s.as_str()))
        .min()
}

type BoxError = Box<dyn std::error::Error + Send + Sync>;

fn metadata<'a>(
    metadata: &'a HashMap<String, gguf_file::Value>,
    key: &str,
) -> Result<&'a gguf_file::Value, BoxError> {
    metadata
        .get(key)
        .ok_or_else(|| format!("the GGUF metadata lacks `{key}`").into())
}

fn metadata_u32(map: &HashMap<String, gguf_file::Value>, key: &str) -> Result<u32, BoxError> {
    Ok(metadata(map, key)?.to_u32()?)
}

fn metadata_array<'a>(
    map: &'a HashMap<String, gguf_file::Value>,
    key: &str,
) -> Result<&'a Vec<gguf_file::Value>, BoxError> {
    Ok(metadata(map, key)?.to_vec()?)
}

/// The byte-level BPE tokenizer described by the GGUF metadata (`tokenizer.ggml.tokens`, `.merges`,
/// `.token_type`), with SmolLM2's pre-tokenizer: each digit its own word, then GPT-2's byte-level
/// split.
fn build_tokenizer(map: &HashMap<String, gguf_file::Value>) -> Result<Tokenizer, BoxError> {
    let model = metadata(map, "tokenizer.ggml.model")?.to_string()?;
    if model != "gpt2" {
        return Err(format!("the tokenizer is `{model}`, not the byte-level BPE (`gpt2`)").into());
    }
    let tokens = metadata_array(map, "tokenizer.ggml.tokens")?
        .iter()
        .map(|t| t.to_string().cloned())
        .collect::<Result<Vec<String>, _>>()?;
    let merges = metadata_array(map, "tokenizer.ggml.merges")?
        .iter()
        .map(|m| {
            let merge = m.to_string()?;
            merge
                .split_once(' ')
                .map(|(a, b)| (a.to_owned(), b.to_owned()))
                .ok_or_else(|| BoxError::from(format!("malformed merge `{merge}`")))
        })
        .collect::<Result<Vec<(String, String)>, _>>()?;
    let types = metadata_array(map, "tokenizer.ggml.token_type")?
        .iter()
        .map(|t| t.to_i32())
        .collect::<Result<Vec<i32>, _>>()?;

    let vocab = tokens
        .iter()
        .enumerate()
        .map(|(id, token)| (token.clone(), id as u32))
        .collect();
    let bpe = BPE::new(vocab, merges);
    let mut tokenizer = Tokenizer::new(bpe);
    tokenizer
        .with_pre_tokenizer(Some(Sequence::new(vec![
            Digits::new(true).into(),
            ByteLevel::new(false, true, true).into(),
        ])))
        .with_decoder(Some(ByteLevelDecoder::default()));
    let special: Vec<AddedToken> = tokens
        .iter()
        .zip(&types)
        .filter(|(_, ty)| SPECIAL_TOKEN_TYPES.contains(ty))
        .map(|(token, _)| AddedToken::from(token.clone(), true))
        .collect();
    tokenizer.add_special_tokens(special)?;
    Ok(tokenizer)
}

/// A GGUF image of `content` whose tensors without a fast CPU kernel are re-quantized to Q8_0.
/// Only the model's metadata is kept: the tokenizer has been read already.
fn requantized_gguf<R: std::io::Read + std::io::Seek>(
    content: &gguf_file::Content,
    reader: &mut R,
    device: &Device,
) -> Result<Vec<u8>, BoxError> {
    let mut names: Vec<&String> = content.tensor_infos.keys().collect();
    names.sort();
    let mut tensors: Vec<(&str, QTensor)> = Vec::with_capacity(names.len());
    for name in names {
        let tensor = content.tensor(reader, name, device)?;
        let tensor = match tensor.dtype() {
            GgmlDType::Q4_0 | GgmlDType::Q4_1 | GgmlDType::Q5_0 | GgmlDType::Q5_1 => {
                QTensor::quantize(&tensor.dequantize(device)?, GgmlDType::Q8_0)?
            }
            _ => tensor,
        };
        tensors.push((name.as_str(), tensor));
    }
    let metadata: Vec<(&str, &gguf_file::Value)> = content
        .metadata
        .iter()
        .filter(|(key, _)| !key.starts_with("tokenizer."))
        .map(|(key, value)| (key.as_str(), value))
        .collect();
    let tensor_refs: Vec<(&str, &QTensor)> = tensors.iter().map(|(n, t)| (*n, t)).collect();
    let mut image = Cursor::new(Vec::new());
    gguf_file::write(&mut image, &metadata, &tensor_refs)?;
    Ok(image.into_inner())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn samples_of_one_request_get_distinct_seeds() {
        assert_ne!(sample_seed(7, 0), sample_seed(7, 1));
        assert_ne!(sample_seed(7, 1), sample_seed(8, 0));
        assert_eq!(sample_seed(7, 3), sample_seed(7, 3));
    }

    #[test]
    fn the_earliest_stop_sequence_wins() {
        let stops = ["}".to_owned(), "\n\n".to_owned(), String::new()];
        assert_eq!(earliest_stop("a\n\nb}", &stops), Some(1));
        assert_eq!(earliest_stop("abc", &stops), None);
    }

    #[test]
    fn temperature_zero_is_greedy() {
        let greedy = GenParams {
            temperature: 0.0,
            ..GenParams::default()
        };
        assert_eq!(sampling(&greedy), Sampling::Greedy);
        let nucleus = GenParams::default();
        assert!(matches!(sampling(&nucleus), Sampling::Nucleus { .. }));
    }
}
