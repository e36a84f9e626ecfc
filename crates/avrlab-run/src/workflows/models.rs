//! Models named in `avrlab.toml`, and the built-in ones that need no configuration: `local` (the
//! in-process SmolLM2) and `baseline` (the template repair baseline).
//!
//! ```toml
//! [models.smollm-server]
//! backend = "openai"                 # openai | local | baseline | replay | command
//! endpoint = "http://127.0.0.1:8080/v1"
//! model = "smollm2"                  # the name the server knows
//! api_key_env = "OPENAI_API_KEY"     # optional
//! format = "chat-p1"                 # the default --format for this model
//! concurrency = 4                  # prompts eval and study ask at a time (default 1)
//! timeout_seconds = 120
//! max_context_tokens = 8192          # optional, informational
//! max_cost_per_sample = 0.05         # optional: a sample that cost more is the model's failure
//! cutoff = "2024-06"                 # optional: the month its training data ends, as its maker
//!                                    # states it; reports split scores at it
//!
//! [models.smollm-server.price]       # optional: what its tokens cost, as the provider listed it
//! input_usd_per_million = 0.15       # dollars per million prompt tokens
//! output_usd_per_million = 0.60      # dollars per million completion tokens
//! read_on = "2026-12-01"             # the day the price was read
//!
//! [models.my-agent]
//! backend = "command"
//! command = ["./agent.sh", "--fast"] # gets the prompt on stdin and in $AVRLAB_PROMPT_FILE; a
//!                                    # relative program is found from avrlab's working directory
//! mode = "stdin"                     # stdin: its stdout is the answer; workdir: it edits a copy of
//!                                    # the task state (its working directory) and the diff is the answer
//! timeout_seconds = 600
//! env = ["PROVIDER_API_KEY"]         # avrlab's variables it gets (besides PATH, HOME, LANG, TMPDIR)
//! network = true                     # default false: no network at all
//! read_only = ["/opt/agent"]         # host paths it may read, besides its own program
//! ```
//!
//! A command model reports its own cost per sample on its standard error
//! (`avrlab-usage: cost_usd=0.0123 prompt_tokens=1200 completion_tokens=340`); a price in its
//! configuration prices the tokens it reports when it reports no cost.
//!
//! Command models run in the candidates' sandbox (see `command_runner.rs`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use avrlab_core::{Blame, Blamed, ModelPrice, Month};
use avrlab_model::{
    BaselineModel, CommandMode, CommandModel, CommandModelConfig, LocalModel, Model, ModelError,
    OpenAiClient, OpenAiConfig, Priced, ReplayModel,
};
use serde::Deserialize;

use avrlab_exec::SandboxKind;

use crate::run::command_runner::{AgentSandbox, ExecRunner};

/// The configuration file.
#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    #[serde(default)]
    pub models: BTreeMap<String, ModelConfig>,
}

/// One named model.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ModelConfig {
    pub backend: Backend,
    pub endpoint: Option<String>,
    pub model: Option<String>,
    pub api_key_env: Option<String>,
    pub format: Option<String>,
    pub concurrency: Option<usize>,
    pub timeout_seconds: Option<u64>,
    /// The GGUF file of a `local` model, or the JSONL file of a `replay` model.
    pub path: Option<PathBuf>,
    pub max_context_tokens: Option<u32>,
    /// The program and its arguments of a `command` model.
    pub command: Option<Vec<String>>,
    /// `stdin` (default) or `workdir`, for a `command` model.
    pub mode: Option<String>,
    /// Names of avrlab's environment variables a `command` model's program gets.
    pub env: Option<Vec<String>>,
    /// Whether a `command` model's program may use the network (default: no).
    pub network: Option<bool>,
    /// Host paths a `command` model's program may read.
    pub read_only: Option<Vec<PathBuf>>,
    /// What the model's tokens cost, and the day that was read.
    pub price: Option<ModelPrice>,
    /// What one sample may cost in dollars: an answer that cost more is the model's failure; a
    /// `command` model's program gets it in `AVRLAB_MAX_COST_USD`.
    pub max_cost_per_sample: Option<f64>,
    /// The month the model's training data ends (`cutoff = "YYYY-MM"`), as its maker states it:
    /// reports split the model's scores into tasks fixed in or before that month and after it.
    pub cutoff: Option<Month>,
}

/// The kinds of model avrlab can drive.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Backend {
    Openai,
    Local,
    Baseline,
    Replay,
    Command,
}

/// Why a model could not be set up.
#[derive(Debug, thiserror::Error)]
pub enum ModelSetupError {
    /// The configuration file cannot be read.
    #[error("cannot read {path}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The configuration file is malformed.
    #[error("{path}: {message}")]
    Malformed { path: PathBuf, message: String },
    /// The model is not configured.
    #[error(
        "no model `{name}`: name one of [models.*] in {config} or a built-in model (local, baseline)"
    )]
    Unknown { name: String, config: String },
    /// A setting the backend needs is missing.
    #[error("model `{name}`: the {backend} backend needs `{key}` in {config}")]
    Missing {
        name: String,
        backend: String,
        key: &'static str,
        config: String,
    },
    /// The backend could not be started (weights missing, bad endpoint).
    #[error("model `{name}`")]
    Backend {
        name: String,
        #[source]
        source: ModelError,
    },
    /// A replay file could not be read.
    #[error("model `{name}`: {message}")]
    Replay { name: String, message: String },
}

impl Blamed for ModelSetupError {
    /// The configuration is at fault (unreadable, malformed, no such model, a setting missing);
    /// a backend that cannot start is the machine's.
    fn blame(&self) -> Blame {
        match self {
            Self::Read { .. }
            | Self::Malformed { .. }
            | Self::Unknown { .. }
            | Self::Missing { .. } => Blame::Input,
            Self::Backend { .. } | Self::Replay { .. } => Blame::Infrastructure,
        }
    }
}

impl ConfigFile {
    /// Reads `path`; a missing file is an empty configuration.
    pub fn load(path: &Path) -> Result<Self, ModelSetupError> {
        match std::fs::read_to_string(path) {
            Ok(text) => toml::from_str(&text).map_err(|e| ModelSetupError::Malformed {
                path: path.to_owned(),
                message: e.message().to_owned(),
            }),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Self::default()),
            Err(source) => Err(ModelSetupError::Read {
                path: path.to_owned(),
                source,
            }),
        }
    }

    /// The configuration of `name`, with the built-in models as defaults.
    pub fn model(&self, name: &str, config_path: &Path) -> Result<ModelConfig, ModelSetupError> {
        if let Some(config) = self.models.get(name) {
            return Ok(config.clone());
        }
        let builtin = |backend| ModelConfig {
            backend,
            endpoint: None,
            model: None,
            api_key_env: None,
            format: Some("chat-p1".into()),
            concurrency: None,
            timeout_seconds: None,
            path: None,
            max_context_tokens: None,
            command: None,
            mode: None,
            env: None,
            network: None,
            read_only: None,
            price: None,
            max_cost_per_sample: None,
            cutoff: None,
        };
        match name {
            "local" => Ok(builtin(Backend::Local)),
            "baseline" => Ok(builtin(Backend::Baseline)),
            _ => Err(ModelSetupError::Unknown {
                name: name.into(),
                config: config_path.display().to_string(),
            }),
        }
    }
}

/// The model `name` of the configuration file `config_path` (or a built-in one), started, with
/// its configuration; a `command` model's program will run in `sandbox`.
pub fn configured_model(
    name: &str,
    config_path: &Path,
    sandbox: SandboxKind,
) -> Result<(ModelConfig, Box<dyn Model>), ModelSetupError> {
    let config = ConfigFile::load(config_path)?.model(name, config_path)?;
    let model = build_model(name, &config, config_path, sandbox)?;
    Ok((config, model))
}

/// Starts the model a configuration describes; a `command` model's program will run in `sandbox`.
pub fn build_model(
    name: &str,
    config: &ModelConfig,
    config_path: &Path,
    sandbox: SandboxKind,
) -> Result<Box<dyn Model>, ModelSetupError> {
    let missing = |backend: &str, key| ModelSetupError::Missing {
        name: name.into(),
        backend: backend.into(),
        key,
        config: config_path.display().to_string(),
    };
    let backend_error = |source| ModelSetupError::Backend {
        name: name.into(),
        source,
    };
    check_costs(name, config, config_path)?;
    let model: Box<dyn Model> = match config.backend {
        Backend::Openai => {
            let endpoint = config
                .endpoint
                .clone()
                .ok_or_else(|| missing("openai", "endpoint"))?;
            let model = config
                .model
                .clone()
                .ok_or_else(|| missing("openai", "model"))?;
            let mut client = OpenAiConfig::new(endpoint, model);
            client.api_key_env = config.api_key_env.clone();
            if let Some(n) = config.concurrency {
                client.max_concurrency = n;
            }
            if let Some(seconds) = config.timeout_seconds {
                client.timeout = Duration::from_secs(seconds);
            }
            Box::new(OpenAiClient::new(client).map_err(backend_error)?)
        }
        Backend::Local => {
            let path = config.path.clone().unwrap_or_else(LocalModel::default_path);
            Box::new(LocalModel::load(&path).map_err(backend_error)?)
        }
        Backend::Baseline => Box::new(BaselineModel),
        Backend::Command => {
            let mut words = config.command.clone().unwrap_or_default().into_iter();
            let program = words.next().ok_or_else(|| missing("command", "command"))?;
            let mut settings = CommandModelConfig::new(program, words.collect());
            settings.max_cost_usd = config.max_cost_per_sample;
            settings.mode = match config.mode.as_deref() {
                None | Some("stdin") => CommandMode::Stdin,
                Some("workdir") => CommandMode::workdir(),
                Some(other) => {
                    return Err(ModelSetupError::Malformed {
                        path: config_path.to_owned(),
                        message: format!("model `{name}`: mode `{other}` is not stdin or workdir"),
                    });
                }
            };
            if let Some(seconds) = config.timeout_seconds {
                settings.timeout = Duration::from_secs(seconds);
            }
            let malformed = |message: String| ModelSetupError::Malformed {
                path: config_path.to_owned(),
                message: format!("model `{name}`: {message}"),
            };
            // The provider key, if one is named, is the one secret the program may see.
            let names = config.env.iter().flatten().chain(&config.api_key_env);
            let mut env = Vec::new();
            for variable in names {
                let value = std::env::var(variable).map_err(|_| {
                    malformed(format!(
                        "`env` passes {variable}, which is not set (or not UTF-8) in avrlab's environment; set it or remove it from `env`"
                    ))
                })?;
                env.push((variable.clone(), value));
            }
            let mut read_only = Vec::new();
            for path in config.read_only.iter().flatten() {
                let absolute = std::fs::canonicalize(path).map_err(|e| {
                    malformed(format!(
                        "`read_only` path {} cannot be used ({e}); name an existing path",
                        path.display()
                    ))
                })?;
                read_only.push(absolute);
            }
            let runner = ExecRunner::new(AgentSandbox {
                kind: sandbox,
                network: config.network.unwrap_or(false),
                env,
                read_only,
            });
            Box::new(CommandModel::new(settings, std::sync::Arc::new(runner)))
        }
        Backend::Replay => {
            let path = config
                .path
                .clone()
                .ok_or_else(|| missing("replay", "path"))?;
            Box::new(
                ReplayModel::load(&path).map_err(|e| ModelSetupError::Replay {
                    name: name.into(),
                    message: e.to_string(),
                })?,
            )
        }
    };
    Ok(match &config.price {
        Some(price) => Box::new(Priced::new(model, price.clone())),
        None => model,
    })
}

/// Refuses a price or a cost cap that cannot be meant: negative or not a number, or a price
/// without the day it was read (`YYYY-MM-DD`).
fn check_costs(
    name: &str,
    config: &ModelConfig,
    config_path: &Path,
) -> Result<(), ModelSetupError> {
    let malformed = |message: String| ModelSetupError::Malformed {
        path: config_path.to_owned(),
        message: format!("model `{name}`: {message}"),
    };
    let amount = |value: f64| value.is_finite() && value >= 0.0;
    if let Some(price) = &config.price {
        if !amount(price.input_usd_per_million) || !amount(price.output_usd_per_million) {
            return Err(malformed(
                "`price` needs dollars per million tokens of 0 or more".into(),
            ));
        }
        let date = price.read_on.as_bytes();
        let is_date = date.len() == 10
            && date.iter().enumerate().all(|(i, b)| match i {
                4 | 7 => *b == b'-',
                _ => b.is_ascii_digit(),
            });
        if !is_date {
            return Err(malformed(format!(
                "`price.read_on` is `{}`: give the day the price was read as \"YYYY-MM-DD\"",
                price.read_on
            )));
        }
    }
    if let Some(cap) = config.max_cost_per_sample
        && !(amount(cap) && cap > 0.0)
    {
        return Err(malformed(
            "`max_cost_per_sample` needs a number of dollars above 0".into(),
        ));
    }
    Ok(())
}
