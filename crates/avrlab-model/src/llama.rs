//! A llama decoder over a GGUF file's tensors: token embeddings, blocks of grouped-query
//! self-attention with rotary positions (adjacent pairs turned, as llama.cpp stores llama
//! weights) and a gated SiLU feed-forward, RMS norms before each, and the output matrix (the
//! embeddings where the file ties them). The matrices stay quantized as stored; keys and values
//! are cached, so a state reads a prompt once and then one token at a time.
//!
//! The norm, softmax and rotation are candle-nn's kernels: the matrices quantize each
//! activation before they multiply it, so a difference in the last bit of a norm (a sum taken in
//! another order) changes later logits by tenths.

use std::io::{Read, Seek};

use candle_core::quantized::{QMatMul, gguf_file};
use candle_core::{DType, Device, Module, Result, Tensor, bail};
use candle_nn::ops::{rms_norm, softmax_last_dim};
use candle_nn::rotary_emb::rope_i;

/// How many positions the rotary table holds: a prompt and its answer together fit in it.
pub(crate) const MAX_POSITIONS: usize = 4096;

/// The decoder's weights and, after a forward pass, the keys and values it has read.
#[derive(Debug, Clone)]
pub(crate) struct Llama {
    embeddings: Tensor,
    blocks: Vec<Block>,
    norm: Tensor,
    output: QMatMul,
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
    eps: f32,
    cos: Tensor,
    sin: Tensor,
}

/// One transformer block and its cache of keys and values `(batch, kv_heads, positions, head_dim)`.
#[derive(Debug, Clone)]
struct Block {
    attention_norm: Tensor,
    query: QMatMul,
    key: QMatMul,
    value: QMatMul,
    attention_out: QMatMul,
    feed_forward_norm: Tensor,
    gate: QMatMul,
    up: QMatMul,
    down: QMatMul,
    cache: Option<(Tensor, Tensor)>,
}

impl Llama {
    /// The decoder of a GGUF file whose architecture is `llama` (dense, whole heads rotated).
    pub(crate) fn from_gguf<R: Read + Seek>(
        content: gguf_file::Content,
        reader: &mut R,
        device: &Device,
    ) -> Result<Self> {
        let number = |key: &str| match content.metadata.get(key) {
            Some(value) => Ok(value),
            None => bail!("the GGUF file has no {key}"),
        };
        let architecture = number("general.architecture")?.to_string()?.clone();
        if architecture != "llama" {
            bail!("the GGUF file's architecture is {architecture}; the local model runs llama");
        }
        if number("llama.expert_count")
            .and_then(|v| v.to_u32())
            .unwrap_or(0)
            > 1
        {
            bail!("the GGUF file is a mixture of experts; the local model runs dense llama");
        }
        let heads = number("llama.attention.head_count")?.to_u32()? as usize;
        let kv_heads = number("llama.attention.head_count_kv")?.to_u32()? as usize;
        let block_count = number("llama.block_count")?.to_u32()? as usize;
        let width = number("llama.embedding_length")?.to_u32()? as usize;
        let rotated = number("llama.rope.dimension_count")?.to_u32()? as usize;
        let eps = number("llama.attention.layer_norm_rms_epsilon")?.to_f32()?;
        let base = number("llama.rope.freq_base")
            .and_then(|v| v.to_f32())
            .unwrap_or(10_000.0);
        if heads == 0 || kv_heads == 0 {
            bail!("the GGUF file has {heads} query and {kv_heads} key heads");
        }
        let head_dim = width / heads;
        if rotated != head_dim || !heads.is_multiple_of(kv_heads) {
            bail!(
                "the GGUF file rotates {rotated} of {head_dim} dimensions per head with {heads} \
                 query and {kv_heads} key heads; the local model rotates whole heads"
            );
        }
        let (cos, sin) = rotations(head_dim, base, device)?;

        let mut tensor = |name: &str| content.tensor(reader, name, device);
        let embeddings_stored = tensor("token_embd.weight")?;
        let embeddings = embeddings_stored.dequantize(device)?;
        let norm = tensor("output_norm.weight")?.dequantize(device)?;
        // Models with tied embeddings (SmolLM2) have no output matrix of their own.
        let output = match tensor("output.weight") {
            Ok(output) => output,
            Err(_) => embeddings_stored,
        };
        let mut blocks = Vec::with_capacity(block_count);
        for index in 0..block_count {
            let mut matrix =
                |name: &str| QMatMul::from_qtensor(tensor(&format!("blk.{index}.{name}.weight"))?);
            let query = matrix("attn_q")?;
            let key = matrix("attn_k")?;
            let value = matrix("attn_v")?;
            let attention_out = matrix("attn_output")?;
            let gate = matrix("ffn_gate")?;
            let up = matrix("ffn_up")?;
            let down = matrix("ffn_down")?;
            let attention_norm =
                tensor(&format!("blk.{index}.attn_norm.weight"))?.dequantize(device)?;
            let feed_forward_norm =
                tensor(&format!("blk.{index}.ffn_norm.weight"))?.dequantize(device)?;
            blocks.push(Block {
                attention_norm,
                query,
                key,
                value,
                attention_out,
                feed_forward_norm,
                gate,
                up,
                down,
                cache: None,
            });
        }
        Ok(Self {
            embeddings,
            blocks,
            norm,
            output: QMatMul::from_qtensor(output)?,
            heads,
            kv_heads,
            head_dim,
            eps,
            cos,
            sin,
        })
    }

    /// Reads `tokens` (`(batch, length)`, u32) at positions `first..first + length` after what
    /// this state has read (a `first` of 0 starts afresh) and returns the logits of the last
    /// position, `(batch, vocabulary)`.
    pub(crate) fn forward(&mut self, tokens: &Tensor, first: usize) -> Result<Tensor> {
        let (batch, length) = tokens.dims2()?;
        let width = self.embeddings.dim(1)?;
        let mut hidden = self
            .embeddings
            .index_select(&tokens.flatten_all()?, 0)?
            .reshape((batch, length, width))?;
        let mask = match length {
            1 => None,
            _ => Some(causal_mask(length, first, tokens.device())?),
        };
        let shape = Shape {
            heads: self.heads,
            kv_heads: self.kv_heads,
            head_dim: self.head_dim,
        };
        let cos = self.cos.narrow(0, first, length)?;
        let sin = self.sin.narrow(0, first, length)?;
        for block in &mut self.blocks {
            let normed = rms_norm(&hidden, &block.attention_norm, self.eps)?;
            let attended = block.attend(&normed, mask.as_ref(), first, &shape, &cos, &sin)?;
            hidden = (attended + &hidden)?;
            let normed = rms_norm(&hidden, &block.feed_forward_norm, self.eps)?;
            let gate = candle_nn::ops::silu(&block.gate.forward(&normed)?)?;
            let fed = block.down.forward(&(gate * block.up.forward(&normed)?)?)?;
            hidden = (fed + &hidden)?;
        }
        let last = rms_norm(&hidden, &self.norm, self.eps)?
            .narrow(1, length - 1, 1)?
            .squeeze(1)?;
        self.output.forward(&last)
    }
}

/// Head counts and size, shared by every block.
struct Shape {
    heads: usize,
    kv_heads: usize,
    head_dim: usize,
}

impl Block {
    /// Self-attention over `input` `(batch, length, width)` at positions from `first`, with the
    /// cached keys and values of the earlier positions.
    fn attend(
        &mut self,
        input: &Tensor,
        mask: Option<&Tensor>,
        first: usize,
        shape: &Shape,
        cos: &Tensor,
        sin: &Tensor,
    ) -> Result<Tensor> {
        let (batch, length, width) = input.dims3()?;
        let split = |projected: Tensor, heads: usize| {
            projected
                .reshape((batch, length, heads, shape.head_dim))?
                .transpose(1, 2)?
                .contiguous()
        };
        let query = rope_i(&split(self.query.forward(input)?, shape.heads)?, cos, sin)?;
        let key = rope_i(&split(self.key.forward(input)?, shape.kv_heads)?, cos, sin)?;
        let value = split(self.value.forward(input)?, shape.kv_heads)?;
        let (key, value) = match (&self.cache, first) {
            (Some((keys, values)), 1..) => (
                Tensor::cat(&[keys, &key], 2)?,
                Tensor::cat(&[values, &value], 2)?,
            ),
            _ => (key, value),
        };
        self.cache = Some((key.clone(), value.clone()));

        let group = shape.heads / shape.kv_heads;
        let key = shared_heads(&key, group)?;
        let value = shared_heads(&value, group)?;
        let scores = (query.matmul(&key.t()?)? / (shape.head_dim as f64).sqrt())?;
        let scores = match mask {
            None => scores,
            Some(mask) => {
                let mask = mask.broadcast_as(scores.shape())?;
                let hidden = Tensor::new(f32::NEG_INFINITY, scores.device())?
                    .broadcast_as(scores.shape())?;
                mask.where_cond(&hidden, &scores)?
            }
        };
        let weights = softmax_last_dim(&scores)?;
        let mixed = weights
            .matmul(&value.contiguous()?)?
            .transpose(1, 2)?
            .reshape((batch, length, width))?;
        self.attention_out.forward(&mixed)
    }
}

/// Each key/value head repeated for the `group` query heads that share it: `(b, kv, n, d)` to
/// `(b, kv * group, n, d)`, query head `h` reading key head `h / group`.
fn shared_heads(x: &Tensor, group: usize) -> Result<Tensor> {
    if group == 1 {
        return Ok(x.clone());
    }
    let (batch, kv_heads, length, head_dim) = x.dims4()?;
    x.unsqueeze(2)?
        .expand((batch, kv_heads, group, length, head_dim))?
        .reshape((batch, kv_heads * group, length, head_dim))
}

/// The rotation angles' cosines and sines for every position, `(MAX_POSITIONS, head_dim / 2)`:
/// angle `i` of position `p` turns the pair `(2i, 2i + 1)` of each head by `p / base^(2i / head_dim)`.
fn rotations(head_dim: usize, base: f32, device: &Device) -> Result<(Tensor, Tensor)> {
    let frequencies: Vec<f32> = (0..head_dim)
        .step_by(2)
        .map(|i| 1.0 / base.powf(i as f32 / head_dim as f32))
        .collect();
    let angles: Vec<f32> = (0..MAX_POSITIONS)
        .flat_map(|p| frequencies.iter().map(move |f| p as f32 * f))
        .collect();
    let angles = Tensor::from_vec(angles, (MAX_POSITIONS, head_dim / 2), device)?;
    Ok((angles.cos()?, angles.sin()?))
}

/// Which keys each of `length` new positions may not see: `(length, first + length)`, 1 where
/// the key comes after the query (every earlier position is visible).
fn causal_mask(length: usize, first: usize, device: &Device) -> Result<Tensor> {
    let hidden: Vec<u8> = (0..length)
        .flat_map(|query| (0..first + length).map(move |key| u8::from(key > first + query)))
        .collect();
    Tensor::from_vec(hidden, (length, first + length), device)?.to_dtype(DType::U8)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GGUF image holding only `metadata`, no tensors.
    fn metadata_only(metadata: &[(&str, gguf_file::Value)]) -> Result<Llama> {
        let pairs: Vec<(&str, &gguf_file::Value)> = metadata.iter().map(|(k, v)| (*k, v)).collect();
        let mut image = std::io::Cursor::new(Vec::new());
        gguf_file::write(&mut image, &pairs, &[])?;
        image.set_position(0);
        let content = gguf_file::Content::read(&mut image)?;
        Llama::from_gguf(content, &mut image, &Device::Cpu)
    }

    #[test]
    fn another_architecture_and_heads_that_do_not_share_evenly_are_refused_by_name() {
        use gguf_file::Value;
        let error = metadata_only(&[("general.architecture", Value::String("qwen2".into()))])
            .unwrap_err()
            .to_string();
        assert!(
            error.contains("the GGUF file's architecture is qwen2; the local model runs llama"),
            "{error}"
        );
        let llama = |kv_heads: u32| {
            vec![
                ("general.architecture", Value::String("llama".into())),
                ("llama.attention.head_count", Value::U32(9)),
                ("llama.attention.head_count_kv", Value::U32(kv_heads)),
                ("llama.block_count", Value::U32(1)),
                ("llama.embedding_length", Value::U32(576)),
                ("llama.rope.dimension_count", Value::U32(64)),
                ("llama.attention.layer_norm_rms_epsilon", Value::F32(1e-5)),
            ]
        };
        let error = metadata_only(&llama(4)).unwrap_err().to_string();
        assert!(
            error.contains("with 9 query and 4 key heads; the local model rotates whole heads"),
            "{error}"
        );
        let error = metadata_only(&llama(0)).unwrap_err().to_string();
        assert!(error.contains("has 9 query and 0 key heads"), "{error}");
        // Heads that share evenly get past the checks to the tensors, which this image lacks.
        let error = metadata_only(&llama(3)).unwrap_err().to_string();
        assert!(error.contains("token_embd.weight"), "{error}");
    }

    #[test]
    fn a_query_sees_every_earlier_position_and_itself() {
        let mask = causal_mask(3, 2, &Device::Cpu).unwrap();
        let values: Vec<u8> = mask.flatten_all().unwrap().to_vec1().unwrap();
        assert_eq!(values, [0, 0, 0, 1, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0]);
    }

    #[test]
    fn shared_heads_serve_consecutive_query_heads() {
        let x = Tensor::new(&[1f32, 2.], &Device::Cpu)
            .unwrap()
            .reshape((1, 2, 1, 1))
            .unwrap();
        let values: Vec<f32> = shared_heads(&x, 2)
            .unwrap()
            .flatten_all()
            .unwrap()
            .to_vec1()
            .unwrap();
        assert_eq!(values, [1., 1., 2., 2.]);
    }

    #[test]
    fn a_rotation_angle_grows_with_the_position_and_shrinks_with_the_pair() {
        let (cos, _) = rotations(4, 100.0, &Device::Cpu).unwrap();
        let angles: Vec<Vec<f32>> = cos.narrow(0, 0, 2).unwrap().to_vec2().unwrap();
        // Position 0 is not turned; position 1 by 1 radian (pair 0) and 1/10 (pair 1).
        assert_eq!(angles[0], [1., 1.]);
        assert!((angles[1][0] - 1f32.cos()).abs() < 1e-6);
        assert!((angles[1][1] - 0.1f32.cos()).abs() < 1e-6);
    }
}
