//! The local model's speed as users wait for it: load time with the Q8_0 re-quantization and without
//! it (the file's own Q4_1 blocks), and generated tokens per second for each, greedy and sampled, on
//! one thread (the default) and on one thread per core.
//! Also prints the greedy answer to "What is 2+2?", a quick check that the tokenizer is right (a
//! wrong pre-tokenizer makes the model answer nonsense). Needs `scripts/fetch-model` to have run.
//! Run with `cargo bench -p avrlab-model --bench local`.
#![expect(clippy::print_stdout, reason = "a bench reports its figures on stdout")]

use std::time::Instant;

use avrlab_model::{GenParams, LocalModel, LocalModelConfig, Model, Request, WeightFormat};
use avrlab_prompt::{ChatMessage, Prompt, Role};

fn chat(question: &str) -> Prompt {
    Prompt::Chat {
        messages: vec![ChatMessage {
            role: Role::User,
            content: question.to_owned(),
        }],
    }
}

fn main() {
    let path = LocalModel::default_path();
    let repair = chat(
        "Fix the vulnerability in this Java method and answer with the fixed method only.\n\n\
         ```java\npublic File resolve(String name) {\n    return new File(root, name);\n}\n```",
    );
    let configs = [
        (WeightFormat::Q8_0, 1),
        (WeightFormat::AsStored, 1),
        (WeightFormat::Q8_0, 0),
    ];
    for (weights, threads) in configs {
        let model = match LocalModel::load_with(&path, &LocalModelConfig { weights, threads }) {
            Ok(model) => model,
            Err(e) => {
                println!("cannot load {}: {e}", path.display());
                std::process::exit(1);
            }
        };
        let threads = if threads == 0 {
            "threads=per core".to_owned()
        } else {
            format!("threads={threads}")
        };
        let weights = format!("{weights:?} {threads}");
        println!("{weights}: load {:.2} s", model.load_time().as_secs_f64());
        for (label, temperature) in [("greedy", 0.0), ("sampled t=0.8", 0.8)] {
            let params = GenParams {
                n: 2,
                temperature,
                top_p: 0.95,
                max_tokens: 128,
                stop: Vec::new(),
                seed: Some(1),
            };
            let started = Instant::now();
            let generations = model
                .generate(&Request {
                    first_sample: 0,
                    prompt_id: "bench",
                    prompt: &repair,
                    params: &params,
                    method: None,
                    workspace: None,
                })
                .expect("generation");
            let seconds = started.elapsed().as_secs_f64();
            let tokens_in = generations[0].tokens_in.unwrap_or(0);
            let tokens_out: u32 = generations.iter().filter_map(|g| g.tokens_out).sum();
            println!(
                "{weights} {label}: prompt {tokens_in} tokens, {tokens_out} tokens out in {seconds:.2} s \
                 = {:.1} tokens/s (one prompt pass, 2 samples)",
                f64::from(tokens_out) / seconds
            );
        }
        if weights == "Q8_0 threads=1" {
            let params = GenParams {
                n: 1,
                temperature: 0.0,
                max_tokens: 64,
                ..GenParams::default()
            };
            let answer = model
                .generate(&Request {
                    first_sample: 0,
                    prompt_id: "sanity",
                    prompt: &chat("What is 2+2?"),
                    params: &params,
                    method: None,
                    workspace: None,
                })
                .expect("generation");
            println!("greedy answer to \"What is 2+2?\": {:?}", answer[0].text);
        }
    }
}
