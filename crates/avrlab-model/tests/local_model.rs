//! The built-in local model, run for real on the GGUF file that `scripts/fetch-model` fetches. The
//! tests fail (never skip) when the file is missing: CI runs the script before the tests.

use std::path::Path;
use std::sync::OnceLock;

use avrlab_model::{FinishReason, GenParams, Generation, LocalModel, Model, ModelError, Request};
use avrlab_prompt::{ChatMessage, Prompt, Role};

/// The model, loaded once for all tests of this module.
fn model() -> &'static LocalModel {
    static MODEL: OnceLock<LocalModel> = OnceLock::new();
    MODEL.get_or_init(|| {
        let path = LocalModel::default_path();
        LocalModel::load(&path).unwrap_or_else(|e| {
            panic!(
                "cannot load the local model from {} ({e}); run scripts/fetch-model first \
                 (it honours AVRLAB_MODEL_DIR)",
                path.display()
            )
        })
    })
}

fn generate(prompt: &Prompt, params: &GenParams) -> Result<Vec<Generation>, ModelError> {
    model().generate(&Request {
        first_sample: 0,
        prompt_id: "local-test",
        prompt,
        params,
        method: None,
        workspace: None,
    })
}

fn repair_chat() -> Prompt {
    Prompt::Chat {
        messages: vec![
            ChatMessage {
                role: Role::System,
                content: "You are a security engineer. Answer with Java code only.".into(),
            },
            ChatMessage {
                role: Role::User,
                content: "Fix the path traversal in this method:\n\n```java\n\
                          public File open(String name) {\n    return new File(root, name);\n}\n```"
                    .into(),
            },
        ],
    }
}

#[test]
fn seeded_samples_have_the_requested_shape_and_repeat() {
    let params = GenParams {
        n: 2,
        temperature: 0.8,
        top_p: 0.95,
        max_tokens: 48,
        stop: Vec::new(),
        seed: Some(42),
    };
    let first = generate(&repair_chat(), &params).unwrap();
    assert_eq!(first.len(), 2);
    for generation in &first {
        assert!(generation.tokens_in.unwrap() > 0);
        let tokens_out = generation.tokens_out.unwrap();
        assert!(tokens_out > 0 && tokens_out <= 48, "{tokens_out} tokens");
        assert!(
            matches!(
                generation.finish_reason,
                FinishReason::Stop | FinishReason::Length
            ),
            "{:?}",
            generation.finish_reason
        );
        assert!(!generation.cached);
    }
    let again = generate(&repair_chat(), &params).unwrap();
    let texts = |g: &[Generation]| g.iter().map(|g| g.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&first), texts(&again), "the same seed must repeat");
}

#[test]
fn greedy_decoding_honours_stop_sequences_and_max_tokens() {
    let question = Prompt::Chat {
        messages: vec![ChatMessage {
            role: Role::User,
            content: "Write a Java method that adds two ints.".into(),
        }],
    };
    let greedy = GenParams {
        n: 1,
        temperature: 0.0,
        max_tokens: 6,
        seed: None,
        ..GenParams::default()
    };
    let short = generate(&question, &greedy).unwrap();
    assert!(short[0].tokens_out.unwrap() <= 6);
    // Greedy decoding needs no seed to repeat itself.
    assert_eq!(short[0].text, generate(&question, &greedy).unwrap()[0].text);

    let stopped = generate(
        &question,
        &GenParams {
            max_tokens: 64,
            stop: vec!["\n".into()],
            ..greedy
        },
    )
    .unwrap();
    assert!(!stopped[0].text.contains('\n'), "{:?}", stopped[0].text);
    assert_eq!(stopped[0].finish_reason, FinishReason::Stop);
}

#[test]
fn completion_prompts_go_in_raw() {
    let prompt = Prompt::Completion {
        prompt: "public static int add(int a, int b) {\n    return".into(),
        suffix: None,
    };
    let params = GenParams {
        n: 1,
        temperature: 0.0,
        max_tokens: 8,
        ..GenParams::default()
    };
    let generation = &generate(&prompt, &params).unwrap()[0];
    assert!(generation.tokens_out.unwrap() > 0);
    assert_eq!(
        generation.tokens_in.unwrap() as usize,
        model()
            .tokenize("public static int add(int a, int b) {\n    return")
            .unwrap()
            .len()
    );
}

#[test]
fn the_chat_template_is_chatml_with_the_default_system_message() {
    let chat = Prompt::Chat {
        messages: vec![ChatMessage {
            role: Role::User,
            content: "Hi".into(),
        }],
    };
    assert_eq!(
        LocalModel::prompt_text(&chat),
        "<|im_start|>system\nYou are a helpful AI assistant named SmolLM, trained by Hugging Face\
         <|im_end|>\n<|im_start|>user\nHi<|im_end|>\n<|im_start|>assistant\n"
    );
    // Special tokens are single tokens, and digits are split one by one.
    let ids = model()
        .tokenize("<|im_start|>user\n2024<|im_end|>")
        .unwrap();
    assert_eq!(ids.len(), 1 + 2 + 4 + 1, "{ids:?}");
}

#[test]
fn a_prompt_past_the_context_is_a_typed_error() {
    let context = model().context_length();
    let prompt = Prompt::Completion {
        prompt: " word".repeat(context + 10),
        suffix: None,
    };
    let params = GenParams {
        n: 1,
        max_tokens: 4,
        ..GenParams::default()
    };
    let error = generate(&prompt, &params).unwrap_err();
    assert!(
        matches!(error, ModelError::ContextLengthExceeded { .. }),
        "{error:?}"
    );
}

#[test]
fn missing_weights_name_the_fetch_script() {
    let error = LocalModel::load(Path::new("/nonexistent/SmolLM2.gguf")).unwrap_err();
    assert!(matches!(error, ModelError::LocalWeightsMissing { .. }));
    assert!(error.to_string().contains("scripts/fetch-model"), "{error}");
}

/// What the decoder gave on one kind of CPU. The same build gives other log-likelihoods (by up to
/// 0.16) on a CPU with AVX-512 than on one with AVX2 alone, each the same run after run: the
/// matrix kernels are picked at run time by the CPU's features and sum in other orders, and the
/// quantized matrices round each activation. So each kind has its own record.
struct Recorded {
    likelihoods: [f64; 5],
    /// Two samples each for greedy (seed 1), nucleus 0.9 at 0.8 (seed 7), all tokens at 0.7 (seed 9).
    samples: [[&'static str; 2]; 3],
}

/// With AVX-512: what candle-transformers' `quantized_llama` gave at 2d06100, which the own
/// decoder and sampler were shown to give bit for bit.
const WITH_AVX512: Recorded = Recorded {
    likelihoods: [
        -0.6178376781528634,
        -0.083871504549343,
        -0.12386250460712489,
        -0.019345976990564395,
        -0.014597046099126487,
    ],
    samples: [
        [
            "```java\npublic File open(String name) {\n    return new File(new File(root, name));",
            "```java\npublic File open(String name) {\n    return new File(new File(root, name));",
        ],
        [
            "```java\npublic File open(String name) {\n    if (name.endsWith(\"\\\\\\\\\")) {\n       ",
            "Here's a Java implementation of the above code:\n\n```java\nimport java.util.File;\nimport",
        ],
        [
            "```java\npublic File open(String name) {\n    return new File(new File(name), \"./\");",
            "```java\npublic File open(String name) {\n    return new File(new File(name), \"project.",
        ],
    ],
};

/// With AVX2 alone (an AMD EPYC): what the own decoder gave at 5477518.
const WITH_AVX2: Recorded = Recorded {
    likelihoods: [
        -0.7755693654993081,
        -0.10039333741254808,
        -0.1556534365590494,
        -0.015954960520581096,
        -0.01640692078868966,
    ],
    samples: [
        [
            "```java\npublic File open(String name) {\n    return new File(new File(root, name));",
            "```java\npublic File open(String name) {\n    return new File(new File(root, name));",
        ],
        [
            "```java\npublic File open(String name) {\n    if (name.endsWith(\"\\\\\\\\\")) {\n       ",
            "```java\npublic String open(String name) {\n    return new File(new FilePathString(name));",
        ],
        [
            "```java\npublic File open(String name) {\n    return new File(new File(name), \"./\" +",
            "```java\npublic File open(String name) {\n    return new File(\n      new File(name,\n      \"",
        ],
    ],
};

/// The decoder and sampler give this CPU kind's recorded log-likelihoods (with AVX-512, those of
/// candle-transformers) and the same greedy and seeded samples. A decoder that differs even in
/// the order of a norm's sum moves these log-likelihoods by hundredths.
#[test]
fn the_decoder_and_sampler_give_the_recorded_log_likelihoods_and_samples() {
    let recorded = if std::arch::is_x86_feature_detected!("avx512f") {
        WITH_AVX512
    } else {
        WITH_AVX2
    };
    let likelihoods = model()
        .log_likelihood(
            "public File open(String name) {\n    return new File(root, ",
            "name);\n}\n",
        )
        .unwrap()
        .unwrap();
    assert_eq!(likelihoods.len(), recorded.likelihoods.len());
    for (ours, theirs) in likelihoods.iter().zip(recorded.likelihoods) {
        assert!(
            (ours - theirs).abs() < 1e-6,
            "{likelihoods:?} against {:?}",
            recorded.likelihoods
        );
    }
    let cases = [(0.0, 1.0, 1), (0.8, 0.9, 7), (0.7, 1.0, 9)];
    for ((temperature, top_p, seed), expected) in cases.into_iter().zip(recorded.samples) {
        let params = GenParams {
            n: 2,
            temperature,
            top_p,
            max_tokens: 24,
            seed: Some(seed),
            stop: Vec::new(),
        };
        let texts: Vec<String> = generate(&repair_chat(), &params)
            .unwrap()
            .into_iter()
            .map(|g| g.text)
            .collect();
        assert_eq!(
            texts, expected,
            "temperature {temperature}, top_p {top_p}, seed {seed}"
        );
    }
}
