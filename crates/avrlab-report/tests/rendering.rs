//! Rendering of a report built by hand: the plotted numbers, escaping in every format, and CSV that
//! reads back through a real CSV reader.

use std::collections::BTreeMap;

use avrlab_report::figures::{self, Share};
use avrlab_report::{
    Completeness, CostSummary, DifferentialCounts, EvalReport, ModelSummary, ReportFormat,
    TaskCell, render,
};

const HOSTILE: &str = r#"<script>window.pwned=1</script>"Evil, Inc."&{x}_%"#;

fn summary(
    run: &str,
    model: &str,
    benchmark: &str,
    offset: i64,
    fixed: (usize, usize),
) -> ModelSummary {
    let tasks = 3;
    let plausible_interval = {
        let s = Share::of(fixed.1, tasks);
        (s.lower, s.upper)
    };
    ModelSummary {
        run_id: run.into(),
        benchmark: benchmark.into(),
        model: model.into(),
        format: "chat-p1".into(),
        fl_offset: offset,
        tasks,
        runs: 1,
        samples_per_prompt: 2,
        samples: 6,
        with_candidate: 5,
        distinct_candidates: 4,
        duplicate_rate: 0.2,
        compile_rate: 0.8,
        correct_tasks: fixed.0,
        plausible_tasks: fixed.1,
        plausible_interval,
        pass_at_1: Some(0.5),
        pass_at_k: Some(0.75),
        plausible_across_runs: None,
        errors: 0,
        to_audit: vec![],
        audited: 0,
        audited_correct: 0,
        disputed: 0,
        published: None,
        differential: None,
        cutoff: None,
        probe: None,
        completeness: Completeness {
            registered: 6,
            judged: 5,
            model_failures: 1,
            ..Completeness::default()
        },
        // No price: every sample's cost is unknown.
        cost: CostSummary {
            unknown_samples: 6,
            ..CostSummary::default()
        },
    }
}

/// Four runs: model m at offsets 0 and 2 on demo, m at offset 0 on demo-both (a transformed
/// variant, tasks a and b only... its third task c is missing), and a model with a hostile name.
fn report() -> EvalReport {
    use TaskCell::{Correct, NotFixed, Plausible};
    let models = vec![
        summary("r0", "m", "demo", 0, (1, 2)),
        summary("r1", "m", "demo", 2, (0, 1)),
        summary("r2", "m", "demo-both", 0, (0, 1)),
        summary("r3", HOSTILE, "demo", 0, (3, 3)),
    ];
    let matrix = BTreeMap::from([
        ("a".to_owned(), vec![Correct, NotFixed, Plausible, Correct]),
        (
            "b".to_owned(),
            vec![Plausible, Plausible, NotFixed, Correct],
        ),
        (
            "c<img src=x>".to_owned(),
            vec![NotFixed, NotFixed, NotFixed, Correct],
        ),
    ]);
    let ran = BTreeMap::from([
        ("a".to_owned(), vec![true; 4]),
        ("b".to_owned(), vec![true; 4]),
        ("c<img src=x>".to_owned(), vec![true, true, false, true]),
    ]);
    let cwe = BTreeMap::from([("a".to_owned(), vec![22]), ("b".to_owned(), vec![22, 79])]);
    EvalReport {
        models,
        matrix,
        cwe,
        ran,
        engines: Default::default(),
    }
}

#[test]
fn model_bars_carry_wilson_intervals() {
    let bars = figures::model_bars(&report());
    assert_eq!(bars.len(), 4);
    assert_eq!(bars[0].label, "m · chat-p1 · offset 0 · demo");
    assert_eq!((bars[0].plausible.part, bars[0].plausible.whole), (2, 3));
    // Wilson 95% for 2 of 3 (statsmodels proportion_confint method="wilson").
    assert!((bars[0].plausible.lower - 0.2077).abs() < 1e-4);
    assert!((bars[0].plausible.upper - 0.9385).abs() < 1e-4);
    assert_eq!(bars[0].correct.part, 1);
}

#[test]
fn heat_map_counts_tasks_per_cwe_and_leaves_out_tasks_a_run_lacked() {
    let rows = figures::cwe_heat_map(&report());
    let names: Vec<&str> = rows.iter().map(|r| r.cwe.as_str()).collect();
    assert_eq!(names, ["CWE-22", "CWE-79", "no CWE"]);
    // CWE-22: tasks a and b. Run r2 fixed a only.
    assert_eq!(rows[0].cells, [(2, 2), (1, 2), (1, 2), (2, 2)]);
    assert_eq!(rows[1].cells, [(1, 1), (1, 1), (0, 1), (1, 1)]);
    // Task c has no CWE and was not part of r2's benchmark.
    assert_eq!(rows[2].cells, [(0, 1), (0, 1), (0, 0), (1, 1)]);
}

#[test]
fn offsets_and_transformations_group_rows_that_differ_in_one_setting() {
    let report = report();
    let offsets = figures::offset_series(&report);
    assert_eq!(offsets.len(), 1);
    assert_eq!(offsets[0].label, "m · chat-p1 · demo");
    let xs: Vec<&str> = offsets[0].points.iter().map(|(x, _)| x.as_str()).collect();
    assert_eq!(xs, ["0", "2"]);
    let transformations = figures::transformation_series(&report);
    assert_eq!(transformations.len(), 1);
    let xs: Vec<&str> = transformations[0]
        .points
        .iter()
        .map(|(x, _)| x.as_str())
        .collect();
    assert_eq!(xs, ["demo", "demo-both"]);
}

#[test]
fn rows_on_unrelated_benchmarks_are_not_a_transformation() {
    use TaskCell::NotFixed;
    let report = EvalReport {
        models: vec![
            summary("v1", "m", "vul4j", 0, (0, 0)),
            summary("v2", "m", "vjbench", 0, (0, 0)),
            summary("v3", "m", "vul4j-rename", 0, (0, 0)),
        ],
        matrix: BTreeMap::from([
            ("vul4j-12".to_owned(), vec![NotFixed; 3]),
            ("vjbench-jinjava-1".to_owned(), vec![NotFixed; 3]),
            ("vul4j-12-rename".to_owned(), vec![NotFixed; 3]),
        ]),
        cwe: BTreeMap::new(),
        ran: BTreeMap::from([
            ("vul4j-12".to_owned(), vec![true, false, false]),
            ("vjbench-jinjava-1".to_owned(), vec![false, true, false]),
            ("vul4j-12-rename".to_owned(), vec![false, false, true]),
        ]),
        engines: Default::default(),
    };
    let series = figures::transformation_series(&report);
    assert_eq!(series.len(), 1);
    let xs: Vec<&str> = series[0].points.iter().map(|(x, _)| x.as_str()).collect();
    // The original first, then its variant; VJBench is not a variant of Vul4J.
    assert_eq!(xs, ["vul4j", "vul4j-rename"]);
}

#[test]
fn html_is_self_contained_and_escapes_stored_strings() {
    let html = render(&report(), ReportFormat::Html);
    // The only script is the page's own check; the hostile name is text.
    assert_eq!(html.matches("<script").count(), 1, "{html}");
    assert!(html.contains("&lt;script&gt;window.pwned=1&lt;/script&gt;&quot;Evil, Inc.&quot;"));
    assert!(html.contains("c&lt;img src=x&gt;"));
    assert!(!html.contains("<img"));
    // No reference to anything outside the page.
    for outside in ["http://", "https://", "src=\"", "href=", "@import", "url("] {
        let hits: Vec<&str> = html
            .match_indices(outside)
            .map(|(i, _)| &html[i.saturating_sub(40)..(i + 40).min(html.len())])
            .filter(|context| !context.contains("xmlns=\"http://www.w3.org/2000/svg\""))
            .collect();
        assert!(hits.is_empty(), "{outside}: {hits:?}");
    }
    assert!(html.contains("Content-Security-Policy"));
    assert!(html.contains("default-src 'none'"));
    // Four plots: models, CWE heat map, offsets, transformations.
    assert_eq!(html.matches("<svg ").count(), 4);
    assert!(html.contains("data-figure=\"offsets\""));
    assert!(html.contains("data-figure=\"transformations\""));
    // The CSP names the script's own hash, so the script the page carries is the one allowed.
    let script_start = html.find("<script>").unwrap() + "<script>".len();
    let script_end = html.find("</script>").unwrap();
    let script = &html[script_start..script_end];
    use base64::Engine as _;
    use sha2::Digest as _;
    let hash = base64::engine::general_purpose::STANDARD.encode(sha2::Sha256::digest(script));
    assert!(html.contains(&format!("script-src 'sha256-{hash}'")));
}

#[test]
fn html_without_offsets_or_variants_says_so() {
    let mut report = report();
    report.models.truncate(1);
    for row in report.matrix.values_mut() {
        row.truncate(1);
    }
    for row in report.ran.values_mut() {
        row.truncate(1);
    }
    let html = render(&report, ReportFormat::Html);
    assert_eq!(html.matches("<svg ").count(), 2);
    assert!(html.contains("No model, format and benchmark was run at two or more FL offsets"));
}

#[test]
fn latex_is_a_booktabs_table_with_escaped_names() {
    let latex = render(&report(), ReportFormat::Latex);
    assert!(
        latex.contains("\\toprule")
            && latex.contains("\\midrule")
            && latex.contains("\\bottomrule")
    );
    assert!(latex.contains(r#"\textless{}script\textgreater{}window.pwned=1\textless{}/script\textgreater{}"Evil, Inc."\&\{x\}\_\%"#));
    assert!(latex.contains("demo-both"));
    // Every row of the first table has as many cells as its header.
    let first = latex.split("\\midrule\n").nth(1).unwrap();
    for line in first.lines().take_while(|l| !l.starts_with("\\bottomrule")) {
        assert_eq!(line.matches(" & ").count(), 10, "{line}");
    }
}

/// A run with differential results gets the column in every format (`-` for the runs without);
/// a report without any keeps its tables as they were.
#[test]
fn the_differential_column_appears_only_with_differential_results() {
    let plain = report();
    for format in [
        ReportFormat::Markdown,
        ReportFormat::Html,
        ReportFormat::Latex,
        ReportFormat::Csv,
    ] {
        let text = render(&plain, format);
        assert!(!text.contains("ifferential"), "{format:?}: {text}");
    }
    assert!(!render(&plain, ReportFormat::Json).contains("\"differential\""));

    let mut with = report();
    with.models[0].differential = Some(DifferentialCounts {
        plausible: 5,
        no_divergence: 2,
        divergent: 1,
        divergent_on_vulnerable_inputs: 1,
        not_applicable: 0,
        not_compared: 1,
        ..DifferentialCounts::default()
    });
    let markdown = render(&with, ReportFormat::Markdown);
    let lines: Vec<&str> = markdown.lines().collect();
    let header = lines
        .iter()
        .position(|l| l.starts_with("| benchmark |"))
        .unwrap();
    assert!(
        lines[header].ends_with(
            "| no answer | cost (USD) | differential (plausible · no divergence found · divergent · on vulnerable inputs) |"
        ),
        "{markdown}"
    );
    assert!(lines[header + 1].ends_with("---:|---:|"), "{markdown}");
    assert!(
        lines[header + 2].ends_with("| 0 | unknown | 5 · 2 · 1 · 1 |"),
        "{markdown}"
    );
    assert!(
        lines[header + 3].ends_with("| 0 | unknown | - |"),
        "{markdown}"
    );
    let cells = |line: &str| line.matches(" | ").count();
    assert!(
        (header + 2..header + 6).all(|i| cells(lines[i]) == cells(lines[header])),
        "{markdown}"
    );

    let html = render(&with, ReportFormat::Html);
    assert!(
        html.contains("<td class=\"n\">5 · 2 · 1 · 1</td>"),
        "{html}"
    );
    let latex = render(&with, ReportFormat::Latex);
    assert!(latex.contains("{lllrrrrlrrrr}"), "{latex}");
    let first = latex.split("\\midrule\n").nth(1).unwrap();
    for line in first.lines().take_while(|l| !l.starts_with("\\bottomrule")) {
        assert_eq!(line.matches(" & ").count(), 11, "{line}");
    }
    assert!(
        latex.contains(" & 5 $\\cdot$ 2 $\\cdot$ 1 $\\cdot$ 1 \\\\"),
        "{latex}"
    );
    let csv = render(&with, ReportFormat::Csv);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = header
        .iter()
        .position(|h| h == "differential_divergent")
        .unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!((&rows[0][column], &rows[1][column]), ("1", ""));
    assert!(render(&with, ReportFormat::Json).contains("\"divergent_on_vulnerable_inputs\": 1"));
}

#[test]
fn csv_quotes_what_needs_quoting_and_reads_back() {
    let text = render(&report(), ReportFormat::Csv);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let model = header.iter().position(|h| h == "model").unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(rows.len(), 4);
    assert_eq!(&rows[3][model], HOSTILE);
    assert!(rows.iter().all(|r| r.len() == header.len()));
}

#[test]
fn a_study_page_plots_the_offsets_of_all_its_cells_though_its_table_4_has_offset_0_only() {
    let all_cells = report();
    let mut at_zero = all_cells.clone();
    let keep: Vec<bool> = at_zero.models.iter().map(|m| m.fl_offset == 0).collect();
    at_zero.models.retain(|m| m.fl_offset == 0);
    for row in at_zero.matrix.values_mut() {
        let mut flags = keep.iter();
        row.retain(|_| *flags.next().unwrap());
    }
    for row in at_zero.ran.values_mut() {
        let mut flags = keep.iter();
        row.retain(|_| *flags.next().unwrap());
    }
    assert!(figures::offset_series(&at_zero).is_empty());
    let study = avrlab_report::StudyReport {
        study: "s".into(),
        finished: true,
        tost_margin: 0.1,
        alpha: 0.05,
        grids: Vec::new(),
        comparisons: Vec::new(),
        models: at_zero,
        all_cells,
        models_order: vec!["m".into()],
        per_cwe: Vec::new(),
        variants: vec!["original".into()],
        per_variant: BTreeMap::new(),
        after_cutoff: BTreeMap::new(),
        reviewers: Vec::new(),
        auditors: Vec::new(),
    };
    let html = avrlab_report::render_study(&study, avrlab_report::StudyFormat::Html);
    assert!(html.contains("data-figure=\"offsets\""), "{html}");
    assert!(!html.contains("No model, format and benchmark was run at two or more FL offsets"));
}

#[test]
fn a_run_with_errored_samples_says_so_at_the_top_of_every_format() {
    let mut incomplete = report();
    let complete_md = render(&incomplete, ReportFormat::Markdown);
    assert!(!complete_md.contains("Incomplete"), "{complete_md}");
    assert!(
        complete_md
            .contains("- r0: registered 6 · judged 5 · model failures 1 · errored 0 · retried 0"),
        "{complete_md}"
    );
    let r1 = &mut incomplete.models[1].completeness;
    r1.judged = 3;
    r1.errored = 2;
    r1.errored_by_cause.insert("http-status", 2);
    let markdown = render(&incomplete, ReportFormat::Markdown);
    assert!(
        markdown.starts_with(
            "**Incomplete:** run `r1` is incomplete: 2 errored sample(s), left out of every score"
        ),
        "{markdown}"
    );
    assert!(
        markdown.contains("- r1: registered 6 · judged 3 · model failures 1 · errored 2 (http-status 2) · retried 0"),
        "{markdown}"
    );
    let html = render(&incomplete, ReportFormat::Html);
    let warning = html
        .find("<strong>Incomplete:</strong> run `r1`")
        .expect("html warning");
    assert!(
        warning < html.find("<h2>").unwrap(),
        "before the first section"
    );
    let latex = render(&incomplete, ReportFormat::Latex);
    assert!(
        latex
            .lines()
            .nth(1)
            .unwrap()
            .starts_with("% INCOMPLETE: run `r1`"),
        "{latex}"
    );
    let json: serde_json::Value =
        serde_json::from_str(&render(&incomplete, ReportFormat::Json)).unwrap();
    assert_eq!(
        json["models"][1]["completeness"]["errored_by_cause"]["http-status"],
        2
    );
}

#[test]
fn costs_show_in_every_format_and_an_unknown_one_is_never_zero() {
    let mut priced = report();
    priced.models[0].cost = CostSummary {
        usd: Some(0.0126),
        known_usd: 0.0126,
        known_samples: 6,
        unknown_samples: 0,
        spent_usd: 0.0042,
        price: Some(avrlab_core::ModelPrice {
            input_usd_per_million: 0.15,
            output_usd_per_million: 0.6,
            read_on: "2026-12-01".into(),
        }),
    };
    let markdown = render(&priced, ReportFormat::Markdown);
    assert!(
        markdown.contains("| no answer | cost (USD) |"),
        "{markdown}"
    );
    assert!(markdown.contains("| 0 | $0.0126 |"), "{markdown}");
    assert!(markdown.contains("| 0 | unknown |"), "{markdown}");
    assert!(
        markdown.contains(
            "- r0: $0.0126 · spent $0.0042 · price $0.15/M prompt, $0.6/M completion tokens (read 2026-12-01)"
        ),
        "{markdown}"
    );

    let text = render(&priced, ReportFormat::Csv);
    let mut reader = csv::Reader::from_reader(text.as_bytes());
    let header = reader.headers().unwrap().clone();
    let column = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert_eq!(&rows[0][column("cost_usd")], "0.012600");
    assert_eq!(&rows[0][column("price_read_on")], "2026-12-01");
    assert_eq!(&rows[1][column("cost_usd")], "unknown");
    assert_eq!(&rows[1][column("cost_unknown_samples")], "6");

    let json: serde_json::Value =
        serde_json::from_str(&render(&priced, ReportFormat::Json)).unwrap();
    assert_eq!(json["models"][0]["cost"]["usd"], 0.0126);
    assert_eq!(json["models"][0]["cost"]["price"]["read_on"], "2026-12-01");
    assert!(json["models"][1]["cost"]["usd"].is_null());

    let latex = render(&priced, ReportFormat::Latex);
    assert!(latex.contains("& Cost (USD)"), "{latex}");
    assert!(latex.contains("& \\$0.0126 \\\\"), "{latex}");
    assert!(latex.contains("& unknown \\\\"), "{latex}");

    let html = render(&priced, ReportFormat::Html);
    assert!(html.contains("<th>cost (USD)</th>"), "{html}");
    assert!(html.contains(">$0.0126</td>"), "{html}");
    assert!(html.contains(">unknown</td>"), "{html}");
}

/// The cut-off split and the memorization probe appear in every format once a run has them: a
/// line per run in Markdown, LaTeX and HTML, columns in CSV (empty cells for the runs without,
/// and for a test that was not made), and nothing of them in a report without.
#[test]
fn the_cutoff_split_and_the_probe_show_in_every_format() {
    use avrlab_report::{
        CutoffDifference, CutoffSide, CutoffSplit, ProbeCorrelation, ProbePoint, ProbeSummary,
    };
    let plain = report();
    for format in [
        ReportFormat::Markdown,
        ReportFormat::Html,
        ReportFormat::Latex,
        ReportFormat::Csv,
    ] {
        let text = render(&plain, format);
        assert!(!text.contains("cut-off"), "{format:?}: {text}");
        assert!(!text.contains("emoriz"), "{format:?}: {text}");
    }
    let side = |tasks, plausible, correct| CutoffSide {
        tasks,
        plausible,
        correct,
        plausible_interval: Some((0.1, 0.9)),
        correct_interval: Some((0.0, 0.5)),
    };
    let mut with = report();
    with.models[0].cutoff = Some(CutoffSplit {
        cutoff: "2021-09".into(),
        before: side(8, 6, 2),
        after: side(5, 1, 0),
        undated: 1,
        plausible_difference: Some(CutoffDifference {
            difference: 0.55,
            p_value: 0.0862,
        }),
        correct_difference: None,
    });
    with.models[1].probe = Some(ProbeSummary {
        probed: 13,
        memorized: 3,
        memorized_plausible: 3,
        other_plausible: 2,
        p_value: Some(0.035),
        mean_rename_drop: None,
        points: vec![
            ProbePoint {
                task: "a<b>".into(),
                score: 1.0,
                plausible_rate: 0.5,
            },
            ProbePoint {
                task: "c".into(),
                score: 0.0,
                plausible_rate: 0.0,
            },
        ],
        correlation: Some(ProbeCorrelation {
            tasks: 13,
            r: 0.61,
            p_value: 0.027,
            interval: (0.08, 0.87),
        }),
        no_correlation: None,
    });
    for format in [
        ReportFormat::Markdown,
        ReportFormat::Html,
        ReportFormat::Latex,
    ] {
        let text = render(&with, format);
        assert!(
            text.contains(
                "r0: cut-off 2021-09: fixed before or in that month: 8 tasks, 6 plausible"
            ),
            "{format:?}: {text}"
        );
        assert!(
            text.contains(
                "r1: 3 of 13 probed tasks memorized (3 of them fixed), 2 of the other 10 fixed"
            ),
            "{format:?}: {text}"
        );
    }
    let csv = render(&with, ReportFormat::Csv);
    let mut reader = csv::Reader::from_reader(csv.as_bytes());
    let header = reader.headers().unwrap().clone();
    let at = |name: &str| header.iter().position(|h| h == name).unwrap();
    let rows: Vec<csv::StringRecord> = reader.records().map(Result::unwrap).collect();
    assert!(rows.iter().all(|r| r.len() == header.len()));
    assert_eq!(&rows[0][at("cutoff")], "2021-09");
    assert_eq!(&rows[0][at("after_plausible")], "1");
    assert_eq!(&rows[0][at("plausible_fisher_p")], "0.086200");
    assert_eq!(
        &rows[0][at("correct_fisher_p")],
        "",
        "no test: an empty cell"
    );
    assert_eq!(&rows[1][at("cutoff")], "");
    assert_eq!(&rows[1][at("memorized_tasks")], "3");
    assert_eq!(&rows[0][at("memorized_tasks")], "");
    assert_eq!(&rows[1][at("probe_rate_r")], "0.6100");
    // The HTML page plots the probed run's tasks, their names escaped.
    let html = render(&with, ReportFormat::Html);
    assert_eq!(
        html.matches("data-figure=\"probe-scatter\"").count(),
        1,
        "{html}"
    );
    assert!(
        html.contains("a&lt;b&gt;: score 1.00, plausible 50%"),
        "{html}"
    );
    assert!(
        html.contains("r = 0.61 (95% CI 0.08 to 0.87) over 13 tasks"),
        "{html}"
    );
}
