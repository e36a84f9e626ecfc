//! What a run was started with: one typed record, written as JSON into the run's row by every
//! command that registers a run and read back, field by field, by the reports. A field a command
//! does not set is left out of the JSON; a stored key this version does not know is ignored, so
//! stores written by older versions still read.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// The settings of one run. Validation runs fill the first group, eval and replay runs the second.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct RunConfig {
    /// The benchmark as given on the command line (a name or a path).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub benchmark: Option<String>,
    /// The `--tasks` restriction; empty for all tasks.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub tasks: Vec<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout_seconds: Option<u64>,
    /// The sandbox mode's stored word.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sandbox: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub workers: Option<usize>,
    /// The predictions file a validation read, if any.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub patches: Option<String>,
    /// Whether the run scores feature tasks (security and functionality tests) instead of repairs.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub feature: bool,

    /// The model's name in the configuration file.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model: Option<String>,
    /// The model's training cut-off month (`YYYY-MM`), from `avrlab.toml` or `--model-cutoff`:
    /// reports split the run's scores at it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_cutoff: Option<String>,
    /// What identifies the model's answers in the response cache.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub model_identity: Option<String>,
    /// The input format's name.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// Samples per prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub samples: Option<u32>,
    /// Independent runs of every prompt.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub runs: Option<u32>,
    /// Lines the fault localization was shifted by.
    pub fl_offset: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub temperature: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub top_p: Option<f32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    /// Each task's CWE numbers, so reports can show them beside the task.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub cwe: BTreeMap<String, Vec<u32>>,
    /// Where a replayed run's generations came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub replay: Option<ReplaySource>,
    /// A replayed run's published labels: generation id → the dataset's word.
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    pub published: BTreeMap<String, String>,
    /// What a replay could not map onto a task, one line each.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub unmapped: Vec<String>,
    /// The part of the plan this store holds, when the run was sharded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shard: Option<Shard>,
    /// The model's price as `avrlab.toml` gave it when the run was started (or last resumed),
    /// so that every cost in a report names the price and the day it was read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub price: Option<ModelPrice>,
}

/// What a model's tokens cost, in US dollars per million, as read from a provider's price list
/// on `read_on` (prices change; a cost without its date cannot be checked).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelPrice {
    /// Dollars per million prompt tokens.
    pub input_usd_per_million: f64,
    /// Dollars per million completion tokens.
    pub output_usd_per_million: f64,
    /// The day the price was read (`2026-12-01`).
    pub read_on: String,
}

impl std::fmt::Display for ModelPrice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "${}/M prompt, ${}/M completion tokens (read {})",
            self.input_usd_per_million, self.output_usd_per_million, self.read_on
        )
    }
}

/// One of `count` parts of a run's plan (`index` counts from 1), as `--shard K/N` names it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

/// A `--shard` value that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Debug, thiserror::Error)]
#[error("--shard {0}: give K/N with 1 <= K <= N (e.g. 2/3 for the second of three shards)")]
pub struct BadShard(String);

impl Shard {
    /// Reads `K/N`.
    pub fn parse(text: &str) -> Result<Self, BadShard> {
        let bad = || BadShard(text.to_owned());
        let (index, count) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            index.trim().parse::<u32>().map_err(|_| bad())?,
            count.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Self { index, count })
    }
}

impl std::fmt::Display for Shard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.index, self.count)
    }
}

/// The published generations a replayed run read.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default)]
pub struct ReplaySource {
    /// The generations folder.
    pub generations: String,
    /// The benchmark variant (`original`, or a transformed one).
    pub variant: String,
    /// The published localization file.
    pub locations: String,
}

/// A stored run configuration that is not the JSON of a [`RunConfig`].
#[derive(Debug, thiserror::Error)]
#[error("malformed run configuration: {0}")]
pub struct MalformedRunConfig(#[from] serde_json::Error);

impl RunConfig {
    /// The JSON stored in the run's row.
    pub fn to_json(&self) -> String {
        serde_json::to_string(self).expect("a run configuration always serializes")
    }

    /// Reads a stored configuration back.
    pub fn parse(json: &str) -> Result<Self, MalformedRunConfig> {
        Ok(serde_json::from_str(json)?)
    }

    /// Samples per prompt (1 when not recorded).
    pub fn samples_per_prompt(&self) -> u32 {
        self.samples.unwrap_or(1).max(1)
    }

    /// Independent runs of every prompt (1 when not recorded).
    pub fn run_count(&self) -> u32 {
        self.runs.unwrap_or(1).max(1)
    }

    /// The benchmark variant of a replayed run, when it is not the original.
    pub fn transformed_variant(&self) -> Option<&str> {
        self.replay
            .as_ref()
            .map(|r| r.variant.as_str())
            .filter(|v| *v != "original")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_configuration_round_trips_and_leaves_unset_fields_out() {
        let config = RunConfig {
            model: Some("m".into()),
            samples: Some(2),
            cwe: BTreeMap::from([("a".to_owned(), vec![22, 79])]),
            replay: Some(ReplaySource {
                variant: "rename".into(),
                ..ReplaySource::default()
            }),
            ..RunConfig::default()
        };
        let json = config.to_json();
        assert!(
            !json.contains("benchmark") && !json.contains("published"),
            "{json}"
        );
        assert_eq!(RunConfig::parse(&json).unwrap(), config);
        assert_eq!(config.transformed_variant(), Some("rename"));
    }

    #[test]
    fn older_stores_read_and_unknown_keys_are_ignored() {
        let old = r#"{"benchmark":"demo","tasks":[],"timeout_seconds":60,"sandbox":"bubblewrap",
            "workers":2,"patches":null,"kind":"feature","samples":3,"runs":null,"fl_offset":-2}"#;
        let config = RunConfig::parse(old).unwrap();
        assert_eq!(config.samples_per_prompt(), 3);
        assert_eq!(config.run_count(), 1);
        assert_eq!(config.fl_offset, -2);
        assert_eq!(config.patches, None);
        assert_eq!(RunConfig::parse("{}").unwrap(), RunConfig::default());
    }

    #[test]
    fn shards_read_as_k_of_n() {
        assert_eq!(Shard::parse("2/3").unwrap(), Shard { index: 2, count: 3 });
        assert_eq!(Shard::parse("2/3").unwrap().to_string(), "2/3");
        for bad in ["4/3", "0/3", "3", "a/b", "1/0", "-1/2"] {
            assert!(Shard::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_configuration_of_the_wrong_shape_is_refused() {
        assert!(RunConfig::parse(r#"{"samples":"many"}"#).is_err());
        assert!(RunConfig::parse("not json").is_err());
    }
}
