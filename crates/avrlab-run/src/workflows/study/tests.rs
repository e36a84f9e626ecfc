//! Planning, running, resuming and reporting studies with the fake oracle, the template baseline
//! as generator and scripted reviewers: orchestration tested in milliseconds.

use std::sync::atomic::{AtomicUsize, Ordering};

use avrlab_model::{FinishReason, Generation};
use avrlab_store::ReviewDecision;
use avrlab_validate::Outcome;

use super::*;
use crate::run::fake_oracle::{Call, FakeOracle, Messages, Quiet, engine_config};

/// Every model name is configured, except `unknown`.
struct AnyModel;

impl ModelCatalog for AnyModel {
    fn check(&self, name: &str) -> Result<Option<String>, String> {
        if name == "unknown" {
            Err("no model `unknown` in avrlab.toml; add [models.unknown]".into())
        } else {
            Ok(Some("chat-p3".into()))
        }
    }
}

/// A reviewer that accepts every other candidate, and fails (as an unreachable server would)
/// once it has answered `fail_after` times.
struct ScriptedReviewer {
    answered: AtomicUsize,
    fail_after: usize,
}

impl ScriptedReviewer {
    fn new(fail_after: usize) -> Self {
        Self {
            answered: AtomicUsize::new(0),
            fail_after,
        }
    }
}

impl Model for ScriptedReviewer {
    fn cache_identity(&self) -> String {
        "scripted-reviewer".into()
    }

    fn generate(&self, request: &Request<'_>) -> Result<Vec<Generation>, ModelError> {
        let answered = self.answered.fetch_add(1, Ordering::SeqCst);
        if answered >= self.fail_after {
            return Err(ModelError::Unreachable {
                endpoint: "http://127.0.0.1:9".into(),
                source: "connection refused".into(),
            });
        }
        let text = match answered % 3 {
            0 => "ACCEPT: the input is checked now".to_owned(),
            1 => "REJECT: still unchecked".to_owned(),
            _ => "I am not sure about this one.".to_owned(),
        };
        assert!(request.prompt_id.starts_with("review/"));
        Ok(vec![Generation {
            text,
            finish_reason: FinishReason::Stop,
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            latency: std::time::Duration::from_millis(3),
            cached: false,
        }])
    }
}

const SMALL: &str = r#"
format_version = 1
name = "small"
formats = ["chat-p1", "chat-p2"]
fl_offsets = [0, 2]
samples = 2
runs = 2
temperature = 0.0

[[benchmarks]]
benchmark = "demo"
tasks = ["demo-zip-slip", "demo-xxe-config"]

[[models]]
name = "baseline"

[reviewer]
model = "reviewer"
"#;

fn write_study(dir: &Path, text: &str) -> PathBuf {
    let path = dir.join("study.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// How many validations the cells' stored candidates need — one per project they make (their
/// candidate identity), one per candidate that does not apply — and how many candidates there are.
fn needed_validations(store: &Store, plan: &Plan, benchmarks: &[Benchmark]) -> (usize, usize) {
    let states = FakeOracle::new(|_, _| None);
    let mut projects = std::collections::HashSet::new();
    let (mut unique, mut stored) = (0, 0);
    for cell in &plan.cells {
        for c in store.candidates(&cell.run_id).unwrap() {
            let task = benchmarks[cell.benchmark].task(&c.task).unwrap();
            let candidate = crate::run::input::from_stored_form(c.kind, &c.content).unwrap();
            match states
                .materialize(task)
                .unwrap()
                .candidate_identity(&candidate)
            {
                avrlab_validate::CandidateIdentity::Project(project) => {
                    projects.insert(project);
                }
                avrlab_validate::CandidateIdentity::Unique => unique += 1,
            }
            stored += 1;
        }
    }
    (projects.len() + unique, stored)
}

fn plan_of(text: &str) -> Result<(Plan, Vec<Benchmark>), StudyFileError> {
    let dir = tempfile::tempdir().unwrap();
    let path = write_study(dir.path(), text);
    let file = read_study_file(&path)?;
    resolve_plan(&file, &path, &StudyOverrides::default(), &AnyModel)
}

#[test]
fn a_plan_lists_every_cell_and_its_size() {
    let (plan, benchmarks) = plan_of(SMALL).unwrap();
    assert_eq!(benchmarks[0].tasks.len(), 2);
    let ids: Vec<&str> = plan.cells.iter().map(|c| c.run_id.as_str()).collect();
    assert_eq!(
        ids,
        [
            "small/demo/original/baseline/chat-p1/0",
            "small/demo/original/baseline/chat-p1/2",
            "small/demo/original/baseline/chat-p2/0",
            "small/demo/original/baseline/chat-p2/2",
        ]
    );
    assert_eq!(
        plan.size(),
        PlanSize {
            cells: 4,
            prompts: 16,
            generations: 32,
            validations_at_most: 32,
            reviews_at_most: 32,
        }
    );
    let text = describe_plan(&plan, None);
    assert!(text.contains("size: 16 prompts, 32 samples"), "{text}");
    // Overrides make a smaller study of the same file.
    let dir = tempfile::tempdir().unwrap();
    let path = write_study(dir.path(), SMALL);
    let file = read_study_file(&path).unwrap();
    let overrides = StudyOverrides {
        samples: Some(1),
        runs: Some(1),
        tasks: vec!["demo-zip-slip".into()],
        fl_offsets: vec![0],
        ..StudyOverrides::default()
    };
    let (small, _) = resolve_plan(&file, &path, &overrides, &AnyModel).unwrap();
    assert_eq!(small.size().generations, 2);
    // A model named only on the command line takes its configured format when the study
    // names none.
    let no_formats = SMALL.replace("formats = [\"chat-p1\", \"chat-p2\"]\n", "");
    let path = write_study(dir.path(), &no_formats);
    let file = read_study_file(&path).unwrap();
    let overrides = StudyOverrides {
        models: vec!["server".into()],
        ..StudyOverrides::default()
    };
    let (other, _) = resolve_plan(&file, &path, &overrides, &AnyModel).unwrap();
    assert_eq!(
        other.cells[0].run_id,
        "small/demo/original/server/chat-p3/0"
    );
    assert_ne!(small.hash(&benchmarks), plan.hash(&benchmarks));
}

#[test]
fn a_bad_study_file_is_one_line_saying_what_where_and_what_to_do() {
    let cases = [
        (
            SMALL.replace("samples = 2", "samples = 2\nsampels = 3"),
            "study.toml:7:1: unknown field `sampels`",
        ),
        (
            SMALL.replace("\"chat-p2\"]", "\"chat-p9\"]"),
            "study.toml: `models[0].formats`: select prompt format `chat-p9`; known formats: infill-comment",
        ),
        (
            SMALL.replace("[0, 2]", "[0, 2, 0]"),
            "`fl_offsets`: lists an offset twice",
        ),
        (
            SMALL.replace("name = \"baseline\"", "name = \"unknown\""),
            "`models[0].name`: no model `unknown` in avrlab.toml",
        ),
        (
            SMALL.replace("model = \"reviewer\"", "model = \"unknown\""),
            "`reviewer.model`: no model `unknown`",
        ),
        (
            SMALL.replace("benchmark = \"demo\"", "benchmark = \"nowhere\""),
            "`benchmarks[0].benchmark`: no benchmark `nowhere`",
        ),
        (
            SMALL.replace("\"demo-xxe-config\"]", "\"demo-nothing\"]"),
            "`benchmarks[0].tasks`: benchmark `demo` has no task `demo-nothing`",
        ),
        (
            SMALL.replace("runs = 2", "runs = 0"),
            "`runs`: must be at least 1",
        ),
        (
            SMALL.replace("format_version = 1", "format_version = 7"),
            "`format_version`: 7 is not a study format",
        ),
        (
            SMALL.replace("samples = 2", "samples = \"two\""),
            "study.toml:6:11: invalid type",
        ),
        (
            SMALL.replace(
                "name = \"baseline\"",
                "name = \"baseline\"\ncutoff = \"mid-2024\"",
            ),
            "`models.cutoff`: `mid-2024` is not a month: write YYYY-MM",
        ),
    ];
    for (text, expected) in cases {
        let error = plan_of(&text).unwrap_err().to_string();
        assert!(error.contains(expected), "{expected:?} in {error:?}");
        assert!(!error.contains('\n'), "one line: {error:?}");
    }
}

fn models(reviewer: ScriptedReviewer, cache: &Path) -> StudyModels {
    let mut models: HashMap<String, Arc<dyn Model>> = HashMap::new();
    models.insert("baseline".into(), Arc::new(avrlab_model::BaselineModel));
    models.insert("reviewer".into(), Arc::new(reviewer));
    StudyModels {
        models,
        concurrency: HashMap::from([("baseline".to_owned(), 3)]),
        configs: HashMap::new(),
        cache: cache.to_owned(),
    }
}

fn plausible_if_reference(task: &Task, candidate: &Candidate) -> Option<Outcome> {
    // The baseline's template that bounds the path is what the zip-slip reference does: call
    // every zip-slip candidate Plausible, the rest PovFailing.
    let _ = candidate;
    Some(if task.id == "demo-zip-slip" {
        Outcome::Plausible
    } else {
        Outcome::PovFailing
    })
}

#[test]
fn a_study_stores_every_cell_validates_identical_candidates_once_and_resumes() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, benchmarks) = plan_of(SMALL).unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let config = engine_config(1, true);
    let cache = dir.path().join("cache");

    // First attempt: the reviewer goes away after 5 answers, as a server might.
    let oracle = FakeOracle::new(plausible_if_reference);
    let error = execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(5), &cache),
            config: &config,
            oracle: &oracle,
            resume: false,
            shard: None,
        },
        &Quiet,
    )
    .unwrap_err();
    assert!(matches!(error, StudyError::Review { .. }), "{error}");
    let first_validations = oracle.count(|c| matches!(c, Call::Validate(_)));
    assert!(first_validations > 0);
    assert!(store.study("small").unwrap().unwrap().finished_at.is_none());

    // Starting it again without --resume is refused; so is a changed plan.
    let oracle = FakeOracle::new(plausible_if_reference);
    let again = execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(usize::MAX), &cache),
            config: &config,
            oracle: &oracle,
            resume: false,
            shard: None,
        },
        &Quiet,
    )
    .unwrap_err();
    assert!(again.to_string().contains("pass --resume"), "{again}");
    let mut changed = plan.clone();
    changed.samples = 3;
    let changed_error = execute_study(
        &mut store,
        &StudyRequest {
            plan: &changed,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(usize::MAX), &cache),
            config: &config,
            oracle: &oracle,
            resume: true,
            shard: None,
        },
        &Quiet,
    )
    .unwrap_err();
    assert!(
        changed_error.to_string().contains("another plan"),
        "{changed_error}"
    );

    // The resume finishes it, redoing no generation, validation or review already stored.
    let reviews_before: usize = plan
        .cells
        .iter()
        .map(|c| store.reviews(&c.run_id).map(|r| r.len()).unwrap_or(0))
        .sum();
    // Five answers from the reviewer, and the same prompts again served by the response cache.
    assert!(reviews_before >= 5, "{reviews_before}");
    let generations_before: usize = plan
        .cells
        .iter()
        .map(|c| store.generations(&c.run_id).map(|g| g.len()).unwrap_or(0))
        .sum();
    let outcome = execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(usize::MAX), &cache),
            config: &config,
            oracle: &oracle,
            resume: true,
            shard: None,
        },
        &Quiet,
    )
    .expect("the resumed study ends");
    assert!(store.study("small").unwrap().unwrap().finished_at.is_some());
    let mut generations = 0;
    let mut candidates = 0;
    let mut reviews = Vec::new();
    for cell in &plan.cells {
        let run = store
            .run(&cell.run_id)
            .unwrap()
            .expect("every cell is stored");
        assert!(run.finished_at.is_some(), "{} finished", cell.run_id);
        generations += store.generations(&cell.run_id).unwrap().len();
        let cell_candidates = store.candidates(&cell.run_id).unwrap();
        assert_eq!(
            store.verdicts(&cell.run_id).unwrap().len(),
            cell_candidates.len()
        );
        candidates += cell_candidates.len();
        reviews.extend(store.reviews(&cell.run_id).unwrap());
    }
    assert_eq!(generations, 32, "2 tasks × 2 runs × 2 samples × 4 cells");
    assert!(generations_before <= generations);
    assert_eq!(reviews.len(), candidates, "every candidate reviewed once");
    assert_eq!(outcome.reviewed, candidates - reviews_before);
    assert!(
        reviews_before < candidates,
        "the first attempt stopped early"
    );
    assert!(
        reviews
            .iter()
            .any(|r| r.decision == ReviewDecision::Unparseable)
    );
    // Candidates of the same project across cells were validated once in this attempt.
    let (needed, _) = needed_validations(&store, &plan, &benchmarks);
    let validations = oracle.count(|c| matches!(c, Call::Validate(_)));
    assert!(validations <= needed, "{validations} ≤ {needed}");
    // A finished study resumed again does nothing.
    let oracle = FakeOracle::new(plausible_if_reference);
    let idle = execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(0), &cache),
            config: &config,
            oracle: &oracle,
            resume: true,
            shard: None,
        },
        &Quiet,
    )
    .expect("nothing left to do");
    assert_eq!((idle.cells_run, idle.cells_already_done), (0, 4));
    assert_eq!(oracle.count(|c| matches!(c, Call::Validate(_))), 0);

    // The report: the offset × prompt table, the comparison lines and the reviewer matrix.
    let report = avrlab_report::build_study_report(&store, "small").unwrap();
    assert_eq!(report.grids.len(), 1);
    let grid = &report.grids[0];
    assert_eq!(grid.offsets, [0, 2]);
    assert_eq!(grid.formats, ["chat-p1", "chat-p2"]);
    let zero = &grid.cells[&(0, "chat-p1".to_owned())];
    assert_eq!(zero.runs, 2);
    assert!(zero.fixed_margin.is_some());
    assert_eq!(report.comparisons.len(), 1);
    assert_eq!(
        report.comparisons[0].pairs, 8,
        "2 tasks × 2 formats × 2 runs"
    );
    let matrix = &report.reviewers[0];
    let decided = matrix.accept_plausible
        + matrix.accept_failing
        + matrix.reject_plausible
        + matrix.reject_failing;
    assert_eq!(
        decided + matrix.unparseable + matrix.no_answer + matrix.indeterminate,
        candidates as u64
    );
    let text = avrlab_report::render_study(&report, avrlab_report::StudyFormat::Markdown);
    for part in [
        "## FL offset × prompt: baseline on demo (original), 2 tasks",
        "| offset | chat-p1 | chat-p2 |",
        "offset 0 vs +2: 8 pairs",
        "TOST margin ±0.10",
        "McNemar",
        "## Reviewer `reviewer` against the tests",
        "| accept |",
        "unparseable answers",
        "## Table 5: fixed per CWE",
    ] {
        assert!(text.contains(part), "{part:?} in\n{text}");
    }
}

#[test]
fn identical_candidates_are_validated_once_across_the_cells_of_a_study() {
    let dir = tempfile::tempdir().unwrap();
    let (plan, benchmarks) = plan_of(SMALL).unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let oracle = FakeOracle::new(plausible_if_reference);
    let outcome = execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(usize::MAX), &dir.path().join("cache")),
            config: &engine_config(2, true),
            oracle: &oracle,
            resume: false,
            shard: None,
        },
        &Quiet,
    )
    .unwrap();
    let (needed, stored) = needed_validations(&store, &plan, &benchmarks);
    let validations = oracle.count(|c| matches!(c, Call::Validate(_)));
    assert_eq!(validations, needed);
    assert_eq!(outcome.reused_validations, stored - needed);
    assert!(outcome.reused_validations > 0, "the cells share candidates");
    // Each task was warmed up once for the whole study.
    assert_eq!(oracle.count(|c| matches!(c, Call::WarmUp(_))), 2);
    // Nothing is left to estimate; the reviewer's time is known from its stored reviews.
    let estimated = estimate(&store, &plan).unwrap();
    assert_eq!(estimated.finished_cells, 4);
    assert_eq!(estimated.total_seconds, Some(0.0));
    // (Reviews served from the response cache are not timings.)
    let (_, timed) = estimated.per_review.expect("reviews were timed");
    assert!(timed > 0 && timed < stored, "{timed} of {stored}");
}

#[test]
fn a_replayed_study_reads_published_models_and_says_what_it_leaves_out() {
    let text = SMALL
        .replacen(
            "[[models]]",
            "[[benchmarks]]\nbenchmark = \"demo\"\nvariant = \"rename\"\n\n[[models]]",
            1,
        )
        .replace(
            "name = \"baseline\"",
            "name = \"codet5\"\npublished = \"CodeT5\"\n\n[[models]]\nname = \"unknown\"",
        );
    let dir = tempfile::tempdir().unwrap();
    let path = write_study(dir.path(), &text);
    let file = read_study_file(&path).unwrap();
    // Without --replay the unconfigured model is refused …
    let error = resolve_plan(&file, &path, &StudyOverrides::default(), &AnyModel).unwrap_err();
    assert!(error.to_string().contains("`models[1].name`"), "{error}");
    // … with it, a model without published files and the variant are left out, and said so.
    let overrides = StudyOverrides {
        replay: Some(ReplaySource {
            generations: dir.path().to_owned(),
            locations: dir.path().join("vul_location.json"),
        }),
        ..StudyOverrides::default()
    };
    let (plan, benchmarks) = resolve_plan(&file, &path, &overrides, &AnyModel).unwrap();
    // The variant is replayed on the original tasks (its patches are mapped back onto them).
    assert_eq!(benchmarks.len(), 2);
    assert_eq!(
        plan.benchmarks
            .iter()
            .map(|b| (b.name.as_str(), b.variant.as_str()))
            .collect::<Vec<_>>(),
        [("demo", "original"), ("demo", "rename")]
    );
    assert_eq!(plan.cells.len(), 8);
    assert!(
        plan.cells
            .iter()
            .all(|c| c.model == "codet5" && c.published.as_deref() == Some("CodeT5"))
    );
    assert_eq!(
        plan.left_out,
        ["model unknown: no `published` folder name to replay"]
    );
    // A variant the package does not publish, or one without its original benchmark, is left out.
    let odd = text.replace("variant = \"rename\"", "variant = \"shuffled\"");
    let odd_path = write_study(dir.path(), &odd);
    let odd_file = read_study_file(&odd_path).unwrap();
    let (odd_plan, _) = resolve_plan(&odd_file, &odd_path, &overrides, &AnyModel).unwrap();
    assert_eq!(
        odd_plan.left_out[0],
        "benchmark demo (shuffled): the published generations have no such variant"
    );
    let described = describe_plan(&plan, None);
    assert!(
        described.contains("replaying the published generations in"),
        "{described}"
    );
}

#[test]
fn variants_get_table_6_and_cwes_table_5() {
    // The demo benchmark twice, the second time standing in for a transformed variant.
    let text = SMALL
        .replace("fl_offsets = [0, 2]", "fl_offsets = [0]")
        .replace("[reviewer]\nmodel = \"reviewer\"\n", "")
        .replacen(
            "[[models]]",
            "[[benchmarks]]\nbenchmark = \"demo\"\nvariant = \"rename\"\ntasks = [\"demo-zip-slip\"]\n\n[[models]]",
            1,
        );
    let dir = tempfile::tempdir().unwrap();
    let path = write_study(dir.path(), &text);
    let file = read_study_file(&path).unwrap();
    let (plan, benchmarks) =
        resolve_plan(&file, &path, &StudyOverrides::default(), &AnyModel).unwrap();
    assert_eq!(plan.cells.len(), 4, "2 variants × 2 formats");
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    let oracle = FakeOracle::new(plausible_if_reference);
    let messages = Messages::default();
    execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(0), &dir.path().join("cache")),
            config: &engine_config(1, true),
            oracle: &oracle,
            resume: false,
            shard: None,
        },
        &messages,
    )
    .unwrap();
    // Each task is warmed up, and announced, once for the whole study, not once per cell.
    let warming = |task: &str| {
        messages
            .lines()
            .iter()
            .filter(|l| l.starts_with(&format!("warming up {task} ")))
            .count()
    };
    assert_eq!(
        (warming("demo-zip-slip"), warming("demo-xxe-config")),
        (1, 1)
    );
    let report = avrlab_report::build_study_report(&store, "small").unwrap();
    assert_eq!(report.variants, ["original", "rename"]);
    // zip-slip is fixed (the fake calls it Plausible) in both variants; xxe-config in neither.
    assert_eq!(report.per_variant["baseline"], [(0, 1, 2), (0, 1, 1)]);
    let cwes: Vec<&str> = report.per_cwe.iter().map(|r| r.cwe.as_str()).collect();
    assert_eq!(cwes, ["CWE-22", "CWE-611"]);
    assert!(
        report.comparisons.is_empty(),
        "one offset: nothing to compare"
    );
    let text = avrlab_report::render_study(&report, avrlab_report::StudyFormat::Markdown);
    assert!(
        text.contains(
            "| model | original | rename |\n|---|---:|---:|\n| baseline | 0 / 1 / 2 | 0 / 1 / 1 |"
        ),
        "{text}"
    );
    assert!(text.contains("| CWE-22 | 1 | 0 / 1 |"), "{text}");
}

#[test]
fn a_study_files_cutoff_and_probe_show_beside_each_score_and_in_table_6() {
    let text = SMALL
        .replace("fl_offsets = [0, 2]", "fl_offsets = [0]")
        .replace("[reviewer]\nmodel = \"reviewer\"\n", "")
        .replace(
            "name = \"baseline\"",
            "name = \"baseline\"\ncutoff = \"2024-06\"",
        )
        .replace("temperature = 0.0", "temperature = 0.0\nprobe = true");
    let (plan, benchmarks) = plan_of(&text).unwrap();
    assert!(plan.probe);
    assert_eq!(plan.cutoffs["baseline"].to_string(), "2024-06");
    let dir = tempfile::tempdir().unwrap();
    let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
    execute_study(
        &mut store,
        &StudyRequest {
            plan: &plan,
            benchmarks: &benchmarks,
            models: &models(ScriptedReviewer::new(0), &dir.path().join("cache")),
            config: &engine_config(1, true),
            oracle: &FakeOracle::new(plausible_if_reference),
            resume: false,
            shard: None,
        },
        &Quiet,
    )
    .unwrap();
    let report = avrlab_report::build_study_report(&store, "small").unwrap();
    // The demo's fixes were written in 2026: both tasks are after the cut-off; zip-slip fixed.
    assert_eq!(
        report.after_cutoff["baseline"],
        ("2024-06".to_owned(), (0, 1, 2))
    );
    let cell = &report.models.models[0];
    let split = cell.cutoff.as_ref().expect("each cell's row is split");
    assert_eq!((split.before.tasks, split.after.tasks), (0, 2));
    // The study probed its model on its original benchmark: every row shows it.
    let probe = cell.probe.as_ref().expect("the study ran the probe");
    assert_eq!((probe.probed, probe.memorized), (2, 0));
    assert_eq!(store.probe_scores("demo", "baseline").unwrap().len(), 2);
    let text = avrlab_report::render_study(&report, avrlab_report::StudyFormat::Markdown);
    assert!(
        text.contains("| baseline | 0 / 1 / 2 | 0 / 1 / 2 (after 2024-06) |"),
        "{text}"
    );
}
