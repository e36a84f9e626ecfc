//! The HTML report in a real headless Chromium: a store of eval runs (written through the store's
//! public API, with a model whose name is a script), `avrlab report --format html --out`, then the
//! page opened in the browser (sandboxed, no network). The page's own check must have passed, the
//! console must be silent (no script error, no policy violation), and the screenshot non-empty.

use avrlab_core::Outcome;
use avrlab_exec::{HeadlessPage, SandboxKind, render_headless};
use avrlab_store::{
    Correctness, Extraction, GenerationRow, NewCandidate, NewRun, RunMode, Store, VerdictRow,
};

use crate::common::{avrlab, text};

const HOSTILE_MODEL: &str = "<script>document.title='pwned'</script><img src=x onerror=alert(1)>";

fn generation(task: &str, model: &str, offset: i64, sample: u32, candidate: &str) -> GenerationRow {
    GenerationRow {
        id: format!("{task}/chat-p1/{offset}/0/{model}/{sample}"),
        task: task.into(),
        model: model.into(),
        format: "chat-p1".into(),
        fl_offset: offset,
        fl_effective: offset,
        run_index: 0,
        sample,
        prompt_hash: "h".into(),
        raw: String::new(),
        finish_reason: "stop".into(),
        tokens_in: None,
        tokens_out: None,
        cost_usd: None,
        latency_ms: 1,
        cached: false,
        error: None,
        extraction: Extraction::Candidate,
        candidate_id: Some(candidate.into()),
        correct: Correctness::Unknown,
        class: None,
        error_cause: None,
        attempt: 1,
    }
}

/// One eval run of `model` at `offset` on three demo tasks, with the outcomes given per task.
fn add_run(store: &mut Store, run: &str, model: &str, offset: i64, outcomes: [Outcome; 3]) {
    let tasks = ["demo-zip-slip", "demo-xss-escape", "demo-sql-injection"];
    let config = avrlab_core::RunConfig {
        model: Some(model.into()),
        format: Some("chat-p1".into()),
        samples: Some(1),
        runs: Some(1),
        fl_offset: offset,
        cwe: [
            ("demo-zip-slip", 22),
            ("demo-xss-escape", 79),
            ("demo-sql-injection", 89),
        ]
        .into_iter()
        .map(|(task, cwe)| (task.to_owned(), vec![cwe]))
        .collect(),
        ..Default::default()
    };
    store
        .create_run(
            &NewRun {
                id: run.into(),
                benchmark: "demo".into(),
                mode: RunMode::Eval,
                input_hash: run.into(),
                config,
            },
            &[],
        )
        .unwrap();
    for (task, outcome) in tasks.iter().zip(outcomes) {
        let candidate = format!("{run}-{task}");
        store
            .add_generations(
                run,
                &[NewCandidate {
                    id: candidate.clone(),
                    task: (*task).into(),
                    label: candidate.clone(),
                    kind: avrlab_core::CandidateKind::Diff,
                    content: String::new(),
                }],
                &[generation(task, model, offset, 0, &candidate)],
            )
            .unwrap();
        store
            .record_verdict(
                run,
                &candidate,
                &VerdictRow {
                    error_cause: None,
                    outcome,
                    reason: String::new(),
                    wall_ms: 1,
                    diagnostics: vec![],
                    phases: vec![],
                    tests: vec![],
                    engine: None,
                },
            )
            .unwrap();
    }
}

/// `avrlab report RUNS… --format html --out PAGE` on `store`: it succeeds and writes only the file.
fn write_html_report(
    dir: &std::path::Path,
    store: &std::path::Path,
    runs: &[&str],
    page: &std::path::Path,
) {
    let mut args = vec!["report"];
    args.extend_from_slice(runs);
    args.extend_from_slice(&[
        "--format",
        "html",
        "--store",
        store.to_str().unwrap(),
        "--out",
        page.to_str().unwrap(),
    ]);
    let output = avrlab(dir, &args);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.is_empty(),
        "--out writes the file, not stdout: {stdout}"
    );
}

/// The page rendered in headless Chromium: its own check passed, the console silent, and its
/// one script the only one (no stored string became markup).
fn render_checked(
    page: &std::path::Path,
    screenshot: &std::path::Path,
    window: (u32, u32),
) -> HeadlessPage {
    let rendered = render_headless(page, screenshot, window, SandboxKind::Bubblewrap)
        .expect("chromium renders the report (scripts/install-deps installs it)");
    assert!(
        rendered.console.is_empty(),
        "the page caused console messages: {:#?}",
        rendered.console
    );
    assert!(
        rendered.dom.contains("data-avrlab-check=\"passed\""),
        "the page's own check did not pass: {}",
        &rendered.dom[..rendered.dom.len().min(2000)]
    );
    assert_eq!(rendered.dom.matches("<script").count(), 1);
    assert!(!rendered.dom.contains("<img"));
    rendered
}

#[test]
fn html_report_renders_in_headless_chromium_without_console_errors() {
    let dir = tempfile::tempdir().unwrap();
    let store_path = dir.path().join("results.sqlite");
    {
        let mut store = Store::open(&store_path).unwrap();
        add_run(
            &mut store,
            "e0",
            "baseline",
            0,
            [Outcome::Plausible, Outcome::PovFailing, Outcome::Plausible],
        );
        add_run(
            &mut store,
            "e2",
            "baseline",
            2,
            [
                Outcome::PovFailing,
                Outcome::Uncompilable,
                Outcome::Plausible,
            ],
        );
        add_run(
            &mut store,
            "eh",
            HOSTILE_MODEL,
            0,
            [Outcome::Plausible, Outcome::Plausible, Outcome::Timeout],
        );
    }
    let page = dir.path().join("report.html");
    write_html_report(dir.path(), &store_path, &["e0", "e2", "eh"], &page);
    let html = std::fs::read_to_string(&page).unwrap();
    assert!(html.contains("&lt;script&gt;document.title="));

    // The screenshot stays in the target folder so that it can be looked at after the run.
    let shots = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("html-report");
    std::fs::create_dir_all(&shots).unwrap();
    let screenshot = shots.join("report.png");
    let _ = std::fs::remove_file(&screenshot);
    // The hostile model name stayed text (`render_checked`: one script, no image).
    let rendered = render_checked(&page, &screenshot, (1200, 1800));
    #[expect(
        clippy::print_stderr,
        reason = "the screenshot's path is for the person reading the test log"
    )]
    {
        eprintln!("report screenshot: {}", rendered.screenshot.display());
    }
    let png = std::fs::read(&rendered.screenshot).unwrap();
    assert!(png.starts_with(b"\x89PNG\r\n\x1a\n"), "not a PNG");
    assert!(
        png.len() > 10_000,
        "a nearly empty screenshot: {} bytes",
        png.len()
    );
    assert!(rendered.dom.contains("<title>avrlab report</title>"));
    // Two offsets of the same model: the offset plot is there.
    assert!(rendered.dom.contains("data-figure=\"offsets\""));
}

/// A validate run (here a reference check with an errored verdict and a reason that is markup)
/// has its own page: it renders with its check passed and a silent console.
#[test]
fn the_html_report_of_a_validate_run_renders_in_headless_chromium() {
    let dir = tempfile::tempdir().unwrap();
    let store_path = dir.path().join("results.sqlite");
    {
        let mut store = Store::open(&store_path).unwrap();
        let candidates: Vec<NewCandidate> = ["vulnerable", "reference"]
            .iter()
            .map(|label| NewCandidate {
                id: format!("demo-zip-slip/{label}"),
                task: "demo-zip-slip".into(),
                label: (*label).into(),
                kind: avrlab_core::CandidateKind::Unchanged,
                content: String::new(),
            })
            .collect();
        let run = NewRun {
            id: "check".into(),
            benchmark: "demo".into(),
            mode: RunMode::Reference,
            input_hash: "h".into(),
            config: avrlab_core::RunConfig::default(),
        };
        store.create_run(&run, &candidates).unwrap();
        for (label, outcome, cause) in [
            ("vulnerable", Outcome::PovFailing, None),
            (
                "reference",
                Outcome::Indeterminate,
                Some(avrlab_core::ErrorCause::Killed),
            ),
        ] {
            let verdict = VerdictRow {
                error_cause: cause,
                outcome,
                reason: HOSTILE_MODEL.into(),
                wall_ms: 1200,
                diagnostics: vec![],
                phases: vec![],
                tests: vec![],
                engine: None,
            };
            store
                .record_verdict("check", &format!("demo-zip-slip/{label}"), &verdict)
                .unwrap();
        }
    }
    let page = dir.path().join("check.html");
    write_html_report(dir.path(), &store_path, &["check"], &page);
    // The reason, markup in the store, stayed text (`render_checked`: one script, no image).
    let rendered = render_checked(&page, &dir.path().join("check.png"), (1000, 700));
    assert!(
        rendered.dom.contains("errored (killed)"),
        "{}",
        rendered.dom
    );
    assert!(
        rendered
            .dom
            .contains("PovFailing 1; errored (in no count): killed 1")
    );
}
