//! `avrlab eval` end to end against an OpenAI-compatible server on loopback (a stand-in for a
//! remote provider, to provoke its failures), with real Maven validation of what it answers.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use avrlab_bench::{Benchmark, apply_to_text};

use crate::common::{avrlab, heavy, text};

const TASK: &str = "demo-xxe-config";

/// How the fake provider answers.
#[derive(Debug, Clone)]
enum Behaviour {
    /// Choice 0 is the given answer; every other choice is prose without code.
    Answer(String),
    /// An HTTP error status with a JSON error message.
    Status(u16, String),
    /// As `Answer`, but a request with one of these seeds (a run's prompt: run r asks with seed
    /// r) meets its fault.
    Faulty(String, Vec<(u64, Fault)>),
}

/// What a faulty provider does to a prompt.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Fault {
    /// HTTP 500, with `Retry-After: 0` so that the client's retries take no time.
    Status500,
    /// A 200 whose JSON is cut short.
    Truncated,
    /// HTTP 429 with `Retry-After: 0` the first time, then an answer without `usage`.
    RateLimitedOnce,
}

/// A request the provider answered: the seed it carried and the status it got.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
struct Logged {
    seed: u64,
    status: u16,
}

struct FakeProvider {
    port: u16,
    requests: Arc<AtomicUsize>,
    behaviour: Arc<Mutex<Behaviour>>,
    log: Arc<Mutex<Vec<Logged>>>,
}

impl FakeProvider {
    fn start(behaviour: Behaviour) -> Self {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let requests = Arc::new(AtomicUsize::new(0));
        let behaviour = Arc::new(Mutex::new(behaviour));
        let log = Arc::new(Mutex::new(Vec::new()));
        let (count, mode, logged) = (requests.clone(), behaviour.clone(), log.clone());
        // Serves until the test process ends; each connection carries one request.
        std::thread::spawn(move || {
            for stream in listener.incoming().flatten() {
                count.fetch_add(1, Ordering::SeqCst);
                let current = mode.lock().unwrap().clone();
                let before = logged.lock().unwrap().clone();
                if let Ok(entry) = serve(stream, &current, &before) {
                    logged.lock().unwrap().push(entry);
                }
            }
        });
        Self {
            port,
            requests,
            behaviour,
            log,
        }
    }

    /// The requests answered since the last call, sorted (the client may ask concurrently).
    fn take_log(&self) -> Vec<Logged> {
        let mut log = std::mem::take(&mut *self.log.lock().unwrap());
        log.sort();
        log
    }

    fn set(&self, behaviour: Behaviour) {
        *self.behaviour.lock().unwrap() = behaviour;
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

fn serve(
    stream: std::net::TcpStream,
    behaviour: &Behaviour,
    log: &[Logged],
) -> std::io::Result<Logged> {
    let mut reader = BufReader::new(stream.try_clone()?);
    let mut length = 0usize;
    loop {
        let mut line = String::new();
        reader.read_line(&mut line)?;
        if line.trim().is_empty() {
            break;
        }
        if let Some(value) = line.to_ascii_lowercase().strip_prefix("content-length:") {
            length = value.trim().parse().unwrap_or(0);
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body)?;
    let request: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let n = request["n"].as_u64().unwrap_or(1);
    let seed = request["seed"].as_u64().unwrap_or(0);
    let answer = |answer: &str, usage: bool| {
        let choices: Vec<serde_json::Value> = (0..n)
            .map(|i| {
                let content = if i == 0 { answer.to_owned() } else { "I am sorry, I cannot help with that.".to_owned() };
                serde_json::json!({"index": i, "message": {"role": "assistant", "content": content}, "finish_reason": "stop"})
            })
            .collect();
        let mut reply =
            serde_json::json!({"id": "x", "object": "chat.completion", "choices": choices});
        if usage {
            reply["usage"] = serde_json::json!({"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150});
        }
        reply.to_string()
    };
    let error = |message: &str| serde_json::json!({"error": {"message": message}}).to_string();
    let retry_now = "Retry-After: 0\r\n";
    let (status, header, reply) = match behaviour {
        Behaviour::Answer(text) => (200, "", answer(text, true)),
        Behaviour::Status(code, message) => (*code, "", error(message)),
        Behaviour::Faulty(text, faults) => {
            let fault = faults.iter().find(|(s, _)| *s == seed).map(|(_, f)| *f);
            let asked_before = log.iter().any(|l| l.seed == seed);
            match fault {
                None => (200, "", answer(text, true)),
                Some(Fault::Status500) => (500, retry_now, error("internal server error")),
                Some(Fault::Truncated) => {
                    let whole = answer(text, true);
                    (200, "", whole[..whole.len() / 2].to_owned())
                }
                Some(Fault::RateLimitedOnce) if !asked_before => {
                    (429, retry_now, error("rate limit reached"))
                }
                Some(Fault::RateLimitedOnce) => (200, "", answer(text, false)),
            }
        }
    };
    let mut stream = stream;
    write!(
        stream,
        "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\nContent-Length: {}\r\n{header}Connection: close\r\n\r\n{reply}",
        reply.len()
    )?;
    stream.flush()?;
    Ok(Logged { seed, status })
}

/// The task's method as the reference fix leaves it, in a fenced block: a perfect answer.
fn reference_answer() -> String {
    let benchmark = Benchmark::open("demo").unwrap();
    let task = benchmark.task(TASK).unwrap();
    let root = crate::common::project_root(task);
    let loc = &task.localization[0];
    let original = std::fs::read_to_string(root.join(&loc.file)).unwrap();
    let reference = task.reference.as_ref().unwrap();
    let fixed = apply_to_text(&reference.files[0], &original).unwrap();
    let added: i64 = reference.files[0]
        .hunks
        .iter()
        .flat_map(|h| &h.lines)
        .map(|l| match l {
            avrlab_bench::HunkLine::Add(_) => 1,
            avrlab_bench::HunkLine::Remove(_) => -1,
            avrlab_bench::HunkLine::Context(_) => 0,
        })
        .sum();
    let lines: Vec<&str> = fixed.lines().collect();
    let (start, end) = (
        loc.method_lines.0 as usize,
        (loc.method_lines.1 as i64 + added) as usize,
    );
    format!(
        "Here is the fixed method:\n```java\n{}\n```\n",
        lines[start - 1..end].join("\n")
    )
}

fn write_config(dir: &Path, port: u16) {
    std::fs::write(
        dir.join("avrlab.toml"),
        format!(
            "[models.provider]\nbackend = \"openai\"\nendpoint = \"http://127.0.0.1:{port}/v1\"\nmodel = \"test-model\"\nformat = \"chat-p2\"\ntimeout_seconds = 20\n"
        ),
    )
    .unwrap();
}

fn eval_args<'a>(store: &'a str, cache: &'a str, extra: &[&'a str]) -> Vec<&'a str> {
    let mut args = vec![
        "eval",
        "--model",
        "provider",
        "--samples",
        "2",
        "--tasks",
        TASK,
        "--store",
        store,
        "--cache",
        cache,
        "--report-format",
        "json",
    ];
    args.extend_from_slice(extra);
    args
}

fn generations(store: &Path) -> Vec<(String, String, Option<String>)> {
    let db = rusqlite::Connection::open(store).unwrap();
    let mut stmt = db
        .prepare("SELECT extraction, correct, error FROM generations ORDER BY run_id, seq")
        .unwrap();
    stmt.query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect()
}

#[test]
fn eval_against_a_provider_validates_its_answers_and_a_rerun_sends_no_request() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let provider = FakeProvider::start(Behaviour::Answer(reference_answer()));
    write_config(dir.path(), provider.port);
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let (store_s, cache_s) = (store.to_str().unwrap(), cache.to_str().unwrap());

    let first = avrlab(dir.path(), &eval_args(store_s, cache_s, &[]));
    let (stdout, stderr) = text(&first);
    assert!(first.status.success(), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &report["models"][0];
    assert_eq!(row["samples"], 2);
    assert_eq!(row["plausible_tasks"], 1, "{stdout}");
    assert_eq!(row["correct_tasks"], 1, "{stdout}");
    assert_eq!(row["format"], "chat-p2");
    let requests = provider.requests();
    assert_eq!(requests, 1, "one request with n = 2");
    let rows = generations(&store);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, "candidate");
    assert_eq!(rows[0].1, "Exact");
    assert_eq!(
        rows[1].0, "NoCode",
        "prose without code is a stored outcome"
    );

    // The same eval again: served from the response cache, with an identical report.
    let second = avrlab(dir.path(), &eval_args(store_s, cache_s, &[]));
    assert!(second.status.success(), "{}", text(&second).1);
    assert_eq!(
        provider.requests(),
        requests,
        "a re-run must send no request"
    );
    // The same figures; only the run's id differs.
    let without_run_id = |json: &str| {
        let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
        value["models"][0].as_object_mut().unwrap().remove("run_id");
        value
    };
    assert_eq!(
        without_run_id(&text(&second).0),
        without_run_id(&stdout),
        "a re-run must print the same report"
    );
}

#[test]
fn provider_failures_are_stored_and_the_run_resumes() {
    // No hold on the cores: the provider fails every request, nothing is validated, it ends in
    // a fraction of a second.
    let dir = tempfile::tempdir().unwrap();
    let provider = FakeProvider::start(Behaviour::Status(401, "invalid api key".into()));
    write_config(dir.path(), provider.port);
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let (store_s, cache_s) = (store.to_str().unwrap(), cache.to_str().unwrap());

    // 401: the run stops with one line, its error stored, resumable.
    let refused = avrlab(dir.path(), &eval_args(store_s, cache_s, &["--run", "r1"]));
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.lines().last().unwrap().contains("HTTP 401"),
        "{stderr}"
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    let last_error: Option<String> = db
        .query_row("SELECT last_error FROM runs WHERE id = 'r1'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert!(last_error.unwrap().contains("401"));

    // The provider comes back, but the prompt is too long for its context: stored per sample as
    // "no answer", and the run completes.
    provider.set(Behaviour::Status(
        400,
        "This model's maximum context length is 2048 tokens".into(),
    ));
    let resumed = avrlab(
        dir.path(),
        &eval_args(store_s, cache_s, &["--run", "r1", "--resume"]),
    );
    let (stdout, stderr) = text(&resumed);
    assert!(resumed.status.success(), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["models"][0]["errors"], 2);
    let rows = generations(&store);
    assert!(
        rows.iter()
            .all(|(extraction, _, error)| extraction == "NoAnswer"
                && error.as_deref().unwrap_or("").contains("context")),
        "{rows:?}"
    );

    // An unreachable endpoint: one clear line, exit 1.
    drop(provider);
    write_config(dir.path(), 9);
    let unreachable = avrlab(
        dir.path(),
        &eval_args(store_s, cache_s, &["--run", "r2", "--fl-offset", "2"]),
    );
    let (_, stderr) = text(&unreachable);
    assert_eq!(unreachable.status.code(), Some(1), "{stderr}");
    assert!(
        stderr
            .lines()
            .last()
            .unwrap()
            .contains("reach model endpoint"),
        "{stderr}"
    );
}

#[test]
fn garbage_and_empty_answers_are_outcomes_not_errors() {
    // No hold on the cores: nothing is validated (the answers give no candidate), it ends in
    // a fraction of a second.
    let dir = tempfile::tempdir().unwrap();
    let provider = FakeProvider::start(Behaviour::Answer(String::new()));
    write_config(dir.path(), provider.port);
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let output = avrlab(
        dir.path(),
        &eval_args(store.to_str().unwrap(), cache.to_str().unwrap(), &[]),
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let rows = generations(&store);
    assert_eq!(rows.len(), 2);
    assert_eq!(rows[0].0, "EmptyAnswer");
    assert_eq!(rows[1].0, "NoCode");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["models"][0]["plausible_tasks"], 0);
}

#[test]
fn eval_with_the_local_model_stores_its_samples_and_prints_the_tables() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let output = avrlab(
        dir.path(),
        &[
            "eval",
            "--model",
            "local",
            "--format",
            "chat-p4",
            "--samples",
            "2",
            "--max-tokens",
            "48",
            "--model-cutoff",
            "2024-06",
            "--tasks",
            TASK,
            "--store",
            store.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(
        output.status.success(),
        "the local model's weights come from scripts/fetch-model\n{stdout}\n{stderr}"
    );
    assert!(
        stdout.contains("| local | chat-p4 | 0 | 1 | 2 |"),
        "{stdout}"
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    let (rows, with_tokens, answered): (i64, i64, i64) = db
        .query_row(
            "SELECT count(*), sum(tokens_out > 0), sum(length(raw) > 0) FROM generations WHERE model = 'local'",
            [],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
        .unwrap();
    assert_eq!((rows, with_tokens, answered), (2, 2, 2));
    // Every sample either became a candidate with a verdict, or says why it did not.
    let unexplained: i64 = db
        .query_row(
            "SELECT count(*) FROM generations g WHERE g.candidate_id IS NOT NULL
             AND NOT EXISTS (SELECT 1 FROM verdicts v WHERE v.candidate_id = g.candidate_id)",
            [],
            |r| r.get(0),
        )
        .unwrap();
    assert_eq!(unexplained, 0);
    // The run keeps its task's dates and the model's cut-off: the demo's fixes were written
    // after it, and one task is too few to tell a difference.
    let (run, committed): (String, String) = db
        .query_row(
            "SELECT run_id, fix_committed FROM task_dates WHERE task = ?1",
            [TASK],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .unwrap();
    assert!(committed.starts_with("2026-11-29T"), "{committed}");
    assert!(
        stdout.contains(&format!(
            "- {run}: cut-off 2024-06: fixed before or in that month: no tasks; after: 1 tasks"
        )),
        "{stdout}"
    );
    // The report splits at another cut-off when asked.
    let output = avrlab(
        dir.path(),
        &[
            "report",
            &run,
            "--model-cutoff",
            "2026-11",
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (report, stderr) = text(&output);
    assert!(output.status.success(), "{stderr}");
    assert!(
        report.contains("cut-off 2026-11: fixed before or in that month: 1 tasks")
            && report.contains("too few tasks to tell (each side needs 5 or more)"),
        "{report}"
    );
}

#[test]
fn a_command_model_answers_through_its_standard_output() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let answer = dir.path().join("answer.md");
    std::fs::write(&answer, reference_answer()).unwrap();
    // The "agent" reads the prompt from stdin and checks it is also in $AVRLAB_PROMPT_FILE.
    let script = format!(
        "prompt=$(cat); test -s \"$AVRLAB_PROMPT_FILE\" && case \"$prompt\" in *ConfigParser*) cat '{}';; esac",
        answer.display()
    );
    std::fs::write(
        dir.path().join("avrlab.toml"),
        // The agent runs in the sandbox: the answer file is a path it is given to read.
        format!(
            "[models.agent]\nbackend = \"command\"\ncommand = [\"sh\", \"-c\", {script:?}]\ntimeout_seconds = 60\nread_only = [{:?}]\n",
            answer.display().to_string()
        ),
    )
    .unwrap();
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let output = avrlab(
        dir.path(),
        &[
            "eval",
            "--model",
            "agent",
            "--samples",
            "1",
            "--tasks",
            TASK,
            "--store",
            store.to_str().unwrap(),
            "--cache",
            cache.to_str().unwrap(),
            "--report-format",
            "json",
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(report["models"][0]["correct_tasks"], 1, "{stdout}");
    // The agent reported no cost: unknown, not 0.
    let cost = &report["models"][0]["cost"];
    assert!(cost["usd"].is_null(), "{stdout}");
    assert_eq!(cost["unknown_samples"], 1, "{stdout}");
    assert!(
        stderr.contains("cost of run ") && stderr.contains(": unknown · spent $0.0000"),
        "{stderr}"
    );
}

#[test]
fn an_agents_reported_cost_is_kept_and_max_cost_stops_the_eval_at_its_budget() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    let answer = dir.path().join("answer.md");
    std::fs::write(&answer, reference_answer()).unwrap();
    // Every sample costs the agent $0.01, which it reports on its documented stderr line; it is
    // told its cap per sample.
    let script = format!(
        "cat >/dev/null; cat '{}'; echo \"avrlab-usage: cost_usd=0.01 prompt_tokens=1000 completion_tokens=200 cap=$AVRLAB_MAX_COST_USD\" >&2",
        answer.display()
    );
    std::fs::write(
        dir.path().join("avrlab.toml"),
        format!(
            "[models.agent]\nbackend = \"command\"\ncommand = [\"sh\", \"-c\", {script:?}]\ntimeout_seconds = 60\nread_only = [{:?}]\nmax_cost_per_sample = 0.05\n",
            answer.display().to_string()
        ),
    )
    .unwrap();
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let (store_s, cache_s) = (store.to_str().unwrap(), cache.to_str().unwrap());
    let args = |extra: &[&'static str]| {
        let mut args = vec![
            "eval",
            "--model",
            "agent",
            "--samples",
            "1",
            "--runs",
            "4",
            "--run",
            "budget",
            "--tasks",
            TASK,
            "--store",
            store_s,
            "--cache",
            cache_s,
            "--report-format",
            "json",
        ];
        args.extend_from_slice(extra);
        args
    };

    // Four prompts of one sample: the third answer reaches $0.025 and the fourth is not asked.
    let stopped = avrlab(dir.path(), &args(&["--max-cost", "0.025"]));
    let (_, stderr) = text(&stopped);
    assert_eq!(stopped.status.code(), Some(5), "{stderr}");
    assert!(
        stderr.lines().last().unwrap().contains(
            "stopped run `budget` at its budget: $0.0300 spent of --max-cost $0.025 (3 of 4 samples to ask were asked)"
        ),
        "{stderr}"
    );

    // A higher budget asks the last prompt alone and finishes the run.
    let resumed = avrlab(dir.path(), &args(&["--resume", "--max-cost", "1"]));
    let (stdout, stderr) = text(&resumed);
    assert!(resumed.status.success(), "{stdout}\n{stderr}");
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &report["models"][0];
    assert_eq!(row["samples"], 4, "{stdout}");
    assert_eq!(row["cost"]["known_samples"], 4, "{stdout}");
    let usd = row["cost"]["usd"].as_f64().unwrap();
    assert!((usd - 0.04).abs() < 1e-9, "{stdout}");
    assert!(
        stderr.contains("cost of run budget: $0.0400 · spent $0.0400"),
        "{stderr}"
    );
    let db = rusqlite::Connection::open(&store).unwrap();
    let tokens: Vec<(u32, u32, f64)> = db
        .prepare("SELECT tokens_in, tokens_out, cost_usd FROM generations ORDER BY seq")
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    assert_eq!(tokens, vec![(1000, 200, 0.01); 4]);
    // Every report format has the cost.
    let markdown = avrlab(dir.path(), &["report", "budget", "--store", store_s]);
    let (markdown, _) = text(&markdown);
    assert!(markdown.contains("| cost (USD) |"), "{markdown}");
    assert!(
        markdown.contains("- budget: $0.0400 · spent $0.0400"),
        "{markdown}"
    );
}

/// The report of `--report-format json` without what names the run, and without the count of
/// samples asked more than once (all that may differ between a run that had to retry and one that
/// did not).
fn comparable(json: &str) -> serde_json::Value {
    let mut value: serde_json::Value = serde_json::from_str(json).unwrap();
    let row = value["models"][0].as_object_mut().unwrap();
    row.remove("run_id");
    row["completeness"]
        .as_object_mut()
        .unwrap()
        .remove("retried");
    value
}

#[test]
fn errored_prompts_stay_out_of_the_scores_and_a_retry_asks_only_them() {
    let _lock = heavy();
    let dir = tempfile::tempdir().unwrap();
    // Four runs of one prompt (seeds 0–3), two samples each: run 1's prompt meets HTTP 500 through
    // every retry, run 2's answer is cut short, run 3's is rate-limited once and then lacks `usage`.
    let faults = vec![
        (1, Fault::Status500),
        (2, Fault::Truncated),
        (3, Fault::RateLimitedOnce),
    ];
    let provider = FakeProvider::start(Behaviour::Faulty(reference_answer(), faults));
    write_config(dir.path(), provider.port);
    let (store, cache) = (dir.path().join("r.sqlite"), dir.path().join("cache"));
    let (store_s, cache_s) = (store.to_str().unwrap(), cache.to_str().unwrap());
    let runs = ["--runs", "4", "--run", "faulty"];

    let first = avrlab(dir.path(), &eval_args(store_s, cache_s, &runs));
    let (stdout, stderr) = text(&first);
    assert!(first.status.success(), "{stdout}\n{stderr}");
    // Six attempts at the 500, one at the cut answer, two at the rate-limited prompt.
    let log = provider.take_log();
    let statuses: Vec<(u64, u16)> = log.iter().map(|l| (l.seed, l.status)).collect();
    let mut expected = vec![(0, 200)];
    expected.extend([(1, 500); 6]);
    expected.extend([(2, 200), (3, 200), (3, 429)]);
    assert_eq!(statuses, expected);
    let report: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let row = &report["models"][0];
    // Only the two heard prompts count: four samples, one plausible each.
    assert_eq!(row["samples"], 4, "{stdout}");
    assert_eq!(row["pass_at_1"], 0.5, "{stdout}");
    assert_eq!(
        row["completeness"],
        serde_json::json!({"registered": 8, "judged": 2, "model_failures": 2, "errored": 4,
            "errored_by_cause": {"http-status": 2, "malformed-response": 2},
            "awaiting_verdict": 0, "not_asked": 0, "retried": 0}),
        "{stdout}"
    );
    assert!(
        stderr.contains("samples of run faulty: registered 8 · judged 2 · model failures 2 · errored 4 (http-status 2, malformed-response 2) · retried 0"),
        "{stderr}"
    );
    // The Markdown report says so before anything else.
    let markdown = avrlab(dir.path(), &["report", "faulty", "--store", store_s]);
    let (markdown, _) = text(&markdown);
    assert!(
        markdown.starts_with("**Incomplete:** run `faulty` is incomplete: 4 errored sample(s)"),
        "{markdown}"
    );

    // A second run that stops once more than one sample is errored: exit 4, resumable.
    let limited = avrlab(
        dir.path(),
        &eval_args(
            store_s,
            cache_s,
            &[
                "--runs",
                "4",
                "--run",
                "limited",
                "--fl-offset",
                "2",
                "--max-errors",
                "1",
            ],
        ),
    );
    let (_, stderr) = text(&limited);
    assert_eq!(limited.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.lines().last().unwrap().contains(
            "stopped run `limited`: 2 of the 4 samples asked so far were errored, more than --max-errors 1 allows"
        ),
        "{stderr}"
    );
    provider.take_log();

    // The provider is healthy again: `--retry errored` asks runs 1 and 2 only, once each.
    provider.set(Behaviour::Answer(reference_answer()));
    let retried = avrlab(
        dir.path(),
        &eval_args(
            store_s,
            cache_s,
            &[&runs[..], &["--resume", "--retry", "errored"]].concat(),
        ),
    );
    let (retried_stdout, stderr) = text(&retried);
    assert!(retried.status.success(), "{retried_stdout}\n{stderr}");
    let seeds: Vec<(u64, u16)> = provider
        .take_log()
        .iter()
        .map(|l| (l.seed, l.status))
        .collect();
    assert_eq!(seeds, [(1, 200), (2, 200)]);
    let report: serde_json::Value = serde_json::from_str(&retried_stdout).unwrap();
    assert_eq!(
        report["models"][0]["completeness"]["retried"], 4,
        "{retried_stdout}"
    );
    // Each errored attempt is kept beside the answer that replaced it.
    let db = rusqlite::Connection::open(&store).unwrap();
    let kept: Vec<(String, u32, String)> = db
        .prepare(
            "SELECT id, attempt, error_cause FROM generation_attempts WHERE run_id = 'faulty' ORDER BY id",
        )
        .unwrap()
        .query_map([], |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)))
        .unwrap()
        .map(Result::unwrap)
        .collect();
    let causes: Vec<(u32, &str)> = kept.iter().map(|(_, a, c)| (*a, c.as_str())).collect();
    assert_eq!(
        causes,
        [
            (1, "http-status"),
            (1, "http-status"),
            (1, "malformed-response"),
            (1, "malformed-response")
        ],
        "{kept:?}"
    );

    // The same eval against a provider that never failed, into a store and cache of its own.
    let healthy = FakeProvider::start(Behaviour::Answer(reference_answer()));
    let clean = tempfile::tempdir().unwrap();
    write_config(clean.path(), healthy.port);
    let (store2, cache2) = (clean.path().join("r.sqlite"), clean.path().join("cache"));
    let never_failed = avrlab(
        clean.path(),
        &eval_args(store2.to_str().unwrap(), cache2.to_str().unwrap(), &runs),
    );
    let (never_failed_stdout, stderr) = text(&never_failed);
    assert!(never_failed.status.success(), "{stderr}");
    assert_eq!(
        comparable(&retried_stdout),
        comparable(&never_failed_stdout),
        "the retried run's report is the never-failed run's"
    );
}
