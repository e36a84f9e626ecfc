//! `avrlab ask`: one generation of a model for a prompt read on standard input, printed on
//! standard output. It is the door through which an agent script reaches avrlab's models (the
//! local one above all) from inside the agent sandbox, where avrlab's binary and the weights are
//! mounted read-only (see `agents/local-model-agent`).

use std::io::{Read as _, Write as _};
use std::path::PathBuf;
use std::process::ExitCode;

use avrlab_exec::SandboxKind;
use avrlab_model::{GenParams, Request};
use avrlab_prompt::{ChatMessage, Prompt, Role};
use avrlab_run::models::{Backend, ConfigFile, build_model};

use super::Failure;
use super::options::ModelConfigArg;

/// The most bytes of prompt read from standard input.
const PROMPT_LIMIT: u64 = 1 << 20;

/// Arguments of `avrlab ask`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// The model: a name from avrlab.toml's [models.*], or `local` / `baseline`.
    #[arg(long, default_value = "local")]
    pub model: String,
    /// The GGUF file of a local-backend model [default: the model's `path`, else
    /// $AVRLAB_MODEL_DIR or ~/.cache/avrlab/models, with SmolLM2's file name].
    #[arg(long)]
    pub weights: Option<PathBuf>,
    /// A system message put before the prompt [default: none; the local model then uses its
    /// own].
    #[arg(long)]
    pub system: Option<String>,
    #[arg(long, default_value_t = 0.2)]
    pub temperature: f32,
    #[arg(long, default_value_t = 0.95)]
    pub top_p: f32,
    #[arg(long, default_value_t = 512)]
    pub max_tokens: u32,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    #[command(flatten)]
    pub config: ModelConfigArg,
}

pub fn run(args: Args) -> Result<ExitCode, Failure> {
    let mut bytes = Vec::new();
    std::io::stdin()
        .take(PROMPT_LIMIT + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Failure::input(anyhow::anyhow!("cannot read the prompt on stdin: {e}")))?;
    if bytes.len() as u64 > PROMPT_LIMIT {
        return Err(Failure::input(anyhow::anyhow!(
            "the prompt on stdin is longer than {PROMPT_LIMIT} bytes; shorten it"
        )));
    }
    let prompt = String::from_utf8(bytes)
        .map_err(|_| Failure::input(anyhow::anyhow!("the prompt on stdin is not UTF-8")))?;
    if prompt.trim().is_empty() {
        return Err(Failure::input(anyhow::anyhow!(
            "the prompt on stdin is empty; pipe the question into `avrlab ask`"
        )));
    }
    let configs = ConfigFile::load(&args.config.path).map_err(Failure::input)?;
    let mut config = configs
        .model(&args.model, &args.config.path)
        .map_err(Failure::input)?;
    if let Some(weights) = &args.weights {
        if config.backend != Backend::Local {
            return Err(Failure::input(anyhow::anyhow!(
                "--weights is for a local-backend model; `{}` is not one",
                args.model
            )));
        }
        config.path = Some(weights.clone());
    }
    // A command model asked from here runs in the sandbox, as everywhere.
    let model = build_model(
        &args.model,
        &config,
        &args.config.path,
        SandboxKind::Bubblewrap,
    )
    .map_err(Failure::from)?;
    let mut messages = Vec::new();
    if let Some(system) = &args.system {
        messages.push(ChatMessage {
            role: Role::System,
            content: system.clone(),
        });
    }
    messages.push(ChatMessage {
        role: Role::User,
        content: prompt,
    });
    let prompt = Prompt::Chat { messages };
    let params = GenParams {
        n: 1,
        temperature: args.temperature,
        top_p: args.top_p,
        max_tokens: args.max_tokens,
        stop: Vec::new(),
        seed: Some(args.seed),
    };
    let generations = model
        .generate(&Request {
            prompt_id: "ask",
            first_sample: 0,
            prompt: &prompt,
            params: &params,
            method: None,
            workspace: None,
        })
        .map_err(|e| {
            Failure::infrastructure(anyhow::Error::new(e).context(format!("model {}", args.model)))
        })?;
    let text = generations
        .into_iter()
        .next()
        .map(|g| g.text)
        .unwrap_or_default();
    let mut stdout = std::io::stdout().lock();
    stdout
        .write_all(text.as_bytes())
        .and_then(|()| stdout.flush())
        .map_err(|e| Failure::infrastructure(anyhow::anyhow!("cannot write the answer: {e}")))?;
    Ok(ExitCode::SUCCESS)
}
