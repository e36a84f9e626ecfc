//! Replay and the template baseline: backends that need no server.

use avrlab_model::{
    BaselineModel, CachedModel, FixTemplate, GenParams, Model, ModelError, ReplayError,
    ReplayModel, Request, ResponseCache, baseline_candidates,
};
use avrlab_prompt::{ChatLevel, Format, LineRange, RenderOptions, Renderer, VulnerableMethod};

fn params(n: u32) -> GenParams {
    GenParams {
        n,
        ..GenParams::default()
    }
}

#[test]
fn replay_serves_samples_by_prompt_and_index() {
    let jsonl = r#"{"prompt_id": "t1", "sample": 1, "text": "second"}
{"prompt_id": "t1", "sample": 0, "text": "first", "finish_reason": "length"}

{"prompt_id": "t2", "sample": 0, "text": "other"}
"#;
    let replay = ReplayModel::from_jsonl("published", jsonl).unwrap();
    let prompt = avrlab_prompt::Prompt::Completion {
        prompt: String::new(),
        suffix: None,
    };
    let ask = |id: &str, n| {
        replay.generate(&Request {
            first_sample: 0,
            prompt_id: id,
            prompt: &prompt,
            params: &params(n),
            method: None,
            workspace: None,
        })
    };
    let texts: Vec<_> = ask("t1", 5).unwrap().into_iter().map(|g| g.text).collect();
    assert_eq!(texts, ["first", "second"]);
    assert_eq!(ask("t2", 1).unwrap()[0].text, "other");
    assert!(matches!(
        ask("t3", 1),
        Err(ModelError::ReplayMissing { .. })
    ));

    let duplicate = "{\"prompt_id\":\"a\",\"sample\":0,\"text\":\"x\"}\n{\"prompt_id\":\"a\",\"sample\":0,\"text\":\"y\"}";
    assert!(matches!(
        ReplayModel::from_jsonl("d", duplicate),
        Err(ReplayError::Duplicate { sample: 0, .. })
    ));
    assert!(matches!(
        ReplayModel::from_jsonl("b", "{\"prompt_id\":1}"),
        Err(ReplayError::Parse { line: 1, .. })
    ));
}

/// More samples of a cached prompt are the next samples, not the first ones again: the cache asks
/// the backend for samples 2-3 by their indices.
#[test]
fn growing_the_sample_count_asks_for_the_next_samples() {
    let jsonl = (0..4)
        .map(|i| format!("{{\"prompt_id\": \"t\", \"sample\": {i}, \"text\": \"answer {i}\"}}\n"))
        .collect::<String>();
    let cache_dir = tempfile::tempdir().unwrap();
    let model = CachedModel::new(
        ReplayModel::from_jsonl("published", &jsonl).unwrap(),
        ResponseCache::new(cache_dir.path()),
    );
    let prompt = avrlab_prompt::Prompt::Completion {
        prompt: String::new(),
        suffix: None,
    };
    let ask = |n| {
        model
            .generate(&Request {
                first_sample: 0,
                prompt_id: "t",
                prompt: &prompt,
                params: &GenParams {
                    seed: Some(7),
                    ..params(n)
                },
                method: None,
                workspace: None,
            })
            .unwrap()
            .into_iter()
            .map(|g| (g.text, g.cached))
            .collect::<Vec<_>>()
    };
    assert_eq!(
        ask(2),
        [("answer 0".into(), false), ("answer 1".into(), false)]
    );
    assert_eq!(
        ask(4),
        [
            ("answer 0".to_owned(), true),
            ("answer 1".to_owned(), true),
            ("answer 2".to_owned(), false),
            ("answer 3".to_owned(), false)
        ]
    );
}

fn traversal() -> VulnerableMethod {
    VulnerableMethod {
        file: "Storage.java".into(),
        method_name: "open".into(),
        source: "    public InputStream open(String name) throws IOException {\n        Path p = root.resolve(name);\n        while (busy) {\n            wait(10);\n        }\n        return Files.newInputStream(p);\n    }\n".into(),
        method_start_line: 5,
        buggy_lines: vec![LineRange::new(6, 7)],
        cwe: Vec::new(),
        class_context: None,
    }
}

#[test]
fn baseline_candidates_follow_the_templates_on_marked_lines() {
    let candidates = baseline_candidates(&traversal());
    let templates: Vec<FixTemplate> = candidates.iter().map(|(t, _)| *t).collect();
    assert_eq!(
        templates,
        [
            FixTemplate::NormalizePath,
            FixTemplate::NullGuard,
            FixTemplate::WhileToIf,
            FixTemplate::DeleteStatement
        ]
    );
    assert!(
        candidates[0]
            .1
            .contains("Path p = root.resolve(name).normalize();\n")
    );
    assert!(candidates[2].1.contains("        if (busy) {\n"));
    // Lines outside the marked ones are never touched: `wait(10);` is not deleted.
    assert!(
        candidates
            .iter()
            .all(|(_, text)| text.contains("            wait(10);\n"))
    );
}

#[test]
fn the_baseline_model_answers_what_chat_extraction_reads() {
    let method = traversal();
    let rendered = Renderer::default()
        .render(
            &method,
            Format::Chat(ChatLevel::P1),
            &RenderOptions::default(),
        )
        .unwrap();
    let generations = BaselineModel
        .generate(&Request {
            first_sample: 0,
            prompt_id: "t",
            prompt: &rendered.prompt,
            params: &params(2),
            method: Some(&method),
            workspace: None,
        })
        .unwrap();
    assert_eq!(generations.len(), 2);
    let expected = baseline_candidates(&method);
    for (generation, (_, text)) in generations.iter().zip(expected) {
        assert_eq!(
            rendered.extract(&generation.text),
            Ok(avrlab_prompt::Candidate::Method(text))
        );
    }
    let no_method = BaselineModel.generate(&Request {
        first_sample: 0,
        prompt_id: "t",
        prompt: &rendered.prompt,
        params: &params(1),
        method: None,
        workspace: None,
    });
    assert!(matches!(no_method, Err(ModelError::MethodRequired(_))));
}
