//! What a sample costs: its share of a request's tokens, priced per million tokens as
//! `avrlab.toml` gives a model's price, or the cost the provider or agent reported itself.

use avrlab_core::ModelPrice;

use crate::model::{Generation, Model, ModelError, Request};

/// Sample `index`'s share of `total` tokens that one request's `count` samples share: equal
/// parts, the remainder one token each to the first samples, so that the shares add up to the
/// request's count exactly (a prompt is paid once per request, however many samples it asks).
pub fn token_share(total: u32, count: u32, index: u32) -> u32 {
    let count = count.max(1);
    total / count + u32::from(index < total % count)
}

/// The cost in dollars of `tokens_in` prompt and `tokens_out` completion tokens at `price`;
/// `None` when either count is unknown (a server that sent no usage): a cost is never guessed.
pub fn token_cost(
    price: &ModelPrice,
    tokens_in: Option<u32>,
    tokens_out: Option<u32>,
) -> Option<f64> {
    let (tokens_in, tokens_out) = (tokens_in?, tokens_out?);
    Some(
        (f64::from(tokens_in) * price.input_usd_per_million
            + f64::from(tokens_out) * price.output_usd_per_million)
            / 1e6,
    )
}

/// A model with a price: every sample that comes without a cost of its own (one the server or
/// the agent reported) gets the cost of its tokens.
#[derive(Debug)]
pub struct Priced<M> {
    inner: M,
    price: ModelPrice,
}

impl<M> Priced<M> {
    /// `inner` at `price`.
    pub fn new(inner: M, price: ModelPrice) -> Self {
        Self { inner, price }
    }
}

impl<M: Model> Model for Priced<M> {
    /// The price is no part of what the model answers: a price change keeps the cache.
    fn cache_identity(&self) -> String {
        self.inner.cache_identity()
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let mut generations = self.inner.generate(request)?;
        for generation in &mut generations {
            if generation.cost_usd.is_none() {
                generation.cost_usd =
                    token_cost(&self.price, generation.tokens_in, generation.tokens_out);
            }
        }
        Ok(generations)
    }
    fn log_likelihood(
        &self,
        prefix: &str,
        continuation: &str,
    ) -> Result<Option<Vec<f64>>, ModelError> {
        self.inner.log_likelihood(prefix, continuation)
    }
}

/// What an agent (a command model) says it spent on one sample, on a line of its standard error:
/// `avrlab-usage: cost_usd=0.0123 prompt_tokens=1200 completion_tokens=340`, each field optional,
/// the last such line counting. Unknown fields are ignored; a value that is not a number makes the
/// line count for nothing (an unreadable cost stays unknown, never 0).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct ReportedUsage {
    pub cost_usd: Option<f64>,
    pub prompt_tokens: Option<u32>,
    pub completion_tokens: Option<u32>,
}

/// The prefix of the usage line.
pub const USAGE_LINE_PREFIX: &str = "avrlab-usage:";

impl ReportedUsage {
    /// The last well-formed usage line of `stderr`, if any.
    pub fn from_stderr(stderr: &str) -> Option<Self> {
        stderr
            .lines()
            .rev()
            .filter_map(|line| line.trim().strip_prefix(USAGE_LINE_PREFIX))
            .find_map(Self::parse_fields)
    }

    fn parse_fields(fields: &str) -> Option<Self> {
        let mut usage = Self::default();
        for field in fields.split_whitespace() {
            let (key, value) = field.split_once('=')?;
            match key {
                "cost_usd" => {
                    let cost: f64 = value.parse().ok()?;
                    if !cost.is_finite() || cost < 0.0 {
                        return None;
                    }
                    usage.cost_usd = Some(cost);
                }
                "prompt_tokens" => usage.prompt_tokens = Some(value.parse().ok()?),
                "completion_tokens" => usage.completion_tokens = Some(value.parse().ok()?),
                _ => {}
            }
        }
        Some(usage)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_request() {
        let shares: Vec<u32> = (0..3).map(|i| token_share(10, 3, i)).collect();
        assert_eq!(shares, [4, 3, 3]);
        assert_eq!(token_share(7, 1, 0), 7);
        assert_eq!(token_share(7, 0, 0), 7);
    }

    #[test]
    fn a_cost_needs_both_counts() {
        let price = ModelPrice {
            input_usd_per_million: 2.0,
            output_usd_per_million: 8.0,
            read_on: "2026-12-01".into(),
        };
        let cost = token_cost(&price, Some(1_000), Some(500)).unwrap();
        assert!((cost - 0.006).abs() < 1e-12, "{cost}");
        assert_eq!(token_cost(&price, None, Some(500)), None);
        assert_eq!(token_cost(&price, Some(1), None), None);
    }

    #[test]
    fn the_last_readable_usage_line_counts() {
        let stderr = "working\navrlab-usage: cost_usd=0.5\nmore\n  avrlab-usage: cost_usd=0.0123 prompt_tokens=1200 completion_tokens=340 model=x\n";
        assert_eq!(
            ReportedUsage::from_stderr(stderr),
            Some(ReportedUsage {
                cost_usd: Some(0.0123),
                prompt_tokens: Some(1200),
                completion_tokens: Some(340),
            })
        );
        // An unreadable last line leaves the one before it.
        let stderr = "avrlab-usage: cost_usd=0.25\navrlab-usage: cost_usd=lots\n";
        assert_eq!(
            ReportedUsage::from_stderr(stderr).unwrap().cost_usd,
            Some(0.25)
        );
        for none in [
            "",
            "cost_usd=1",
            "avrlab-usage: cost_usd=-1",
            "avrlab-usage: cost_usd=NaN",
        ] {
            assert_eq!(ReportedUsage::from_stderr(none), None, "{none}");
        }
    }
}
