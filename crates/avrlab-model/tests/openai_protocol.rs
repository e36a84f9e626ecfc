//! The OpenAI protocol's edge cases against a scripted local server.

use std::time::{Duration, Instant};

use avrlab_model::{
    CachedModel, FinishReason, GenParams, Model, ModelError, OpenAiClient, OpenAiConfig, Request,
    ResponseCache, RetryPolicy,
};
use avrlab_prompt::{ChatMessage, Prompt, Role};
use serde_json::json;

use crate::fake_server::{FakeServer, Reply, chat_answer};

fn config(server: &FakeServer) -> OpenAiConfig {
    OpenAiConfig {
        timeout: Duration::from_secs(5),
        max_concurrency: 2,
        retry: RetryPolicy {
            max_retries: 3,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_secs(2),
        },
        ..OpenAiConfig::new(&server.base_url, "test-model")
    }
}

fn chat_prompt() -> Prompt {
    Prompt::Chat {
        messages: vec![ChatMessage {
            role: Role::User,
            content: "fix it".into(),
        }],
    }
}

fn params(n: u32) -> GenParams {
    GenParams {
        n,
        temperature: 0.2,
        top_p: 0.9,
        max_tokens: 64,
        stop: Vec::new(),
        seed: None,
    }
}

fn generate(
    client: &dyn Model,
    prompt: &Prompt,
    params: &GenParams,
) -> Result<Vec<avrlab_model::Generation>, ModelError> {
    client.generate(&Request {
        first_sample: 0,
        prompt_id: "t1",
        prompt,
        params,
        method: None,
        workspace: None,
    })
}

#[test]
fn retries_429_honouring_retry_after() {
    let server = FakeServer::start(vec![
        Reply::raw(429, r#"{"error":{"message":"slow down"}}"#).with_header("Retry-After", "1"),
        Reply::json(200, chat_answer(&["ok"])),
    ]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let started = Instant::now();
    let generations = generate(&client, &chat_prompt(), &params(1)).unwrap();
    assert!(
        started.elapsed() >= Duration::from_millis(950),
        "Retry-After: 1 was not honoured"
    );
    assert_eq!(generations[0].text, "ok");
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn retries_500_then_succeeds() {
    let server = FakeServer::start(vec![
        Reply::raw(500, "boom"),
        Reply::json(200, chat_answer(&["fixed"])),
    ]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let generations = generate(&client, &chat_prompt(), &params(1)).unwrap();
    assert_eq!(generations[0].text, "fixed");
    assert_eq!(generations[0].finish_reason, FinishReason::Stop);
    assert_eq!(generations[0].tokens_in, Some(42));
    assert_eq!(server.requests().len(), 2);
}

#[test]
fn gives_up_on_persistent_500() {
    let server = FakeServer::start(vec![Reply::raw(503, "down")]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let error = generate(&client, &chat_prompt(), &params(1)).unwrap_err();
    assert!(
        matches!(
            error,
            ModelError::GaveUp {
                status: 503,
                attempts: 4,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(server.requests().len(), 4);
}

/// A check that an error is of the expected kind.
type IsExpected = fn(&ModelError) -> bool;

#[test]
fn malformed_and_empty_answers_are_typed_and_not_retried() {
    let cases: Vec<(Reply, IsExpected)> = vec![
        (Reply::raw(200, "{not json"), |e| {
            matches!(e, ModelError::MalformedResponse { .. })
        }),
        (
            Reply::json(200, json!({"object": "chat.completion"})),
            |e| matches!(e, ModelError::MalformedResponse { .. }),
        ),
        (Reply::json(200, json!({"choices": [{"index": 0}]})), |e| {
            matches!(e, ModelError::MalformedResponse { .. })
        }),
        (Reply::json(200, json!({"choices": []})), |e| {
            matches!(e, ModelError::EmptyAnswer { .. })
        }),
        (Reply::raw(401, r#"{"error":{"message":"bad key"}}"#), |e| {
            matches!(e, ModelError::Auth { status: 401, .. })
        }),
        (Reply::raw(403, "forbidden"), |e| {
            matches!(e, ModelError::Auth { status: 403, .. })
        }),
        (
            Reply::raw(
                400,
                r#"{"error":{"message":"This model's maximum context length is 2048 tokens"}}"#,
            ),
            |e| matches!(e, ModelError::ContextLengthExceeded { .. }),
        ),
        (
            Reply::raw(422, r#"{"error":"bad temperature"}"#),
            |e| matches!(e, ModelError::BadRequest { status: 422, message } if message == "bad temperature"),
        ),
    ];
    for (reply, expected) in cases {
        let server = FakeServer::start(vec![reply.clone()]);
        let client = OpenAiClient::new(config(&server)).unwrap();
        let error = generate(&client, &chat_prompt(), &params(1)).unwrap_err();
        assert!(expected(&error), "{reply:?} gave {error:?}");
        assert_eq!(server.requests().len(), 1, "{reply:?} was retried");
    }
}

#[test]
fn null_content_is_an_empty_generation() {
    let server = FakeServer::start(vec![Reply::json(
        200,
        json!({"choices": [{"index": 0, "message": {"content": null}, "finish_reason": "content_filter"}]}),
    )]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let generations = generate(&client, &chat_prompt(), &params(1)).unwrap();
    assert_eq!(generations[0].text, "");
    assert_eq!(generations[0].finish_reason, FinishReason::ContentFilter);
}

#[test]
fn n_samples_in_one_request_sorted_by_index() {
    let server = FakeServer::start(vec![Reply::json(200, chat_answer(&["a", "b", "c"]))]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let generations = generate(&client, &chat_prompt(), &params(3)).unwrap();
    let texts: Vec<_> = generations.iter().map(|g| g.text.as_str()).collect();
    assert_eq!(texts, ["a", "b", "c"]);
    assert_eq!(generations[0].tokens_out, Some(10));
    let requests = server.requests();
    assert_eq!(requests.len(), 1);
    assert_eq!(requests[0].path, "/v1/chat/completions");
    assert_eq!(requests[0].body["n"], 3);
    assert_eq!(requests[0].body["model"], "test-model");
    assert_eq!(
        requests[0].body["messages"][0],
        json!({"role": "user", "content": "fix it"})
    );
}

#[test]
fn a_server_that_ignores_n_is_asked_again_with_moved_seeds() {
    let server = FakeServer::start(vec![Reply::json(200, chat_answer(&["one"]))]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let params = GenParams {
        seed: Some(7),
        ..params(3)
    };
    assert_eq!(generate(&client, &chat_prompt(), &params).unwrap().len(), 3);
    let requests = server.requests();
    let asked: Vec<_> = requests
        .iter()
        .map(|r| (r.body["n"].clone(), r.body["seed"].clone()))
        .collect();
    assert_eq!(
        asked,
        [
            (json!(3), json!(7)),
            (json!(2), json!(8)),
            (json!(1), json!(9))
        ]
    );
}

#[test]
fn completion_prompts_pass_suffix_and_stop_sequences() {
    let server = FakeServer::start(vec![Reply::json(
        200,
        json!({"choices": [{"index": 0, "text": "x = 1;", "finish_reason": "length"}]}),
    )]);
    let client = OpenAiClient::new(config(&server)).unwrap();
    let prompt = Prompt::Completion {
        prompt: "int f() {\n".into(),
        suffix: Some("}\n".into()),
    };
    let params = GenParams {
        stop: vec!["<|endofmask|>".into(), "\n}".into()],
        ..params(1)
    };
    let generations = generate(&client, &prompt, &params).unwrap();
    assert_eq!(generations[0].finish_reason, FinishReason::Length);
    let body = &server.requests()[0].body;
    assert_eq!(server.requests()[0].path, "/v1/completions");
    assert_eq!(body["prompt"], "int f() {\n");
    assert_eq!(body["suffix"], "}\n");
    assert_eq!(body["stop"], json!(["<|endofmask|>", "\n}"]));
    assert!(body.get("seed").is_none());
}

#[test]
fn a_stalling_server_times_out() {
    let server = FakeServer::start(vec![Reply::Stall(Duration::from_secs(3))]);
    let config = OpenAiConfig {
        timeout: Duration::from_millis(300),
        retry: RetryPolicy {
            max_retries: 1,
            base_delay: Duration::from_millis(5),
            max_delay: Duration::from_millis(5),
        },
        ..config(&server)
    };
    let client = OpenAiClient::new(config).unwrap();
    // A stall that the time-out did not cut would end in an answer or a broken connection,
    // not in two timed-out attempts.
    let error = generate(&client, &chat_prompt(), &params(1)).unwrap_err();
    assert!(
        matches!(error, ModelError::Timeout { attempts: 2, .. }),
        "{error:?}"
    );
}

#[test]
fn a_refused_connection_is_unreachable() {
    // Bind then drop a listener: its port is free and refuses connections.
    let port = std::net::TcpListener::bind("127.0.0.1:0")
        .unwrap()
        .local_addr()
        .unwrap()
        .port();
    let client = OpenAiClient::new(OpenAiConfig::new(
        format!("http://127.0.0.1:{port}/v1"),
        "m",
    ))
    .unwrap();
    let error = generate(&client, &chat_prompt(), &params(1)).unwrap_err();
    assert!(matches!(error, ModelError::Unreachable { .. }), "{error:?}");
}

#[test]
fn the_api_key_comes_from_the_named_variable() {
    let server = FakeServer::start(vec![Reply::json(200, chat_answer(&["ok"]))]);
    // PATH is set in every environment the tests run in; it stands in for a key variable.
    let client = OpenAiClient::new(OpenAiConfig {
        api_key_env: Some("PATH".into()),
        ..config(&server)
    })
    .unwrap();
    generate(&client, &chat_prompt(), &params(1)).unwrap();
    let expected = format!("Bearer {}", std::env::var("PATH").unwrap());
    assert_eq!(
        server.requests()[0].authorization.as_deref(),
        Some(expected.as_str())
    );
    let missing = OpenAiClient::new(OpenAiConfig {
        api_key_env: Some("AVRLAB_TEST_KEY_THAT_IS_NEVER_SET".into()),
        ..config(&server)
    });
    assert!(
        matches!(missing, Err(ModelError::MissingApiKey(var)) if var == "AVRLAB_TEST_KEY_THAT_IS_NEVER_SET")
    );
}

#[test]
fn a_cache_hit_sends_zero_requests() {
    let server = FakeServer::start(vec![
        Reply::json(200, chat_answer(&["a", "b"])),
        Reply::json(200, chat_answer(&["c"])),
    ]);
    let cache_dir = tempfile::tempdir().unwrap();
    let model = CachedModel::new(
        OpenAiClient::new(config(&server)).unwrap(),
        ResponseCache::new(cache_dir.path()),
    );
    let first = generate(&model, &chat_prompt(), &params(2)).unwrap();
    assert_eq!(server.requests().len(), 1);
    assert!(first.iter().all(|g| !g.cached));

    let again = generate(&model, &chat_prompt(), &params(2)).unwrap();
    assert_eq!(server.requests().len(), 1, "a cache hit sent a request");
    assert!(again.iter().all(|g| g.cached));
    let texts =
        |gs: &[avrlab_model::Generation]| gs.iter().map(|g| g.text.clone()).collect::<Vec<_>>();
    assert_eq!(texts(&again), texts(&first));

    // One more sample: only the missing one is requested.
    let more = generate(&model, &chat_prompt(), &params(3)).unwrap();
    assert_eq!(texts(&more), ["a", "b", "c"]);
    let requests = server.requests();
    assert_eq!(requests.len(), 2);
    assert_eq!(requests[1].body["n"], 1);

    // Other parameters are another key.
    let hotter = GenParams {
        temperature: 0.9,
        ..params(1)
    };
    generate(&model, &chat_prompt(), &hotter).unwrap();
    assert_eq!(server.requests().len(), 3);
}
