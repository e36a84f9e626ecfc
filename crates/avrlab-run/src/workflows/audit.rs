//! Auditing plausible candidates by hand: the queue of candidates that passed every test but are
//! not proven correct (neither `Exact` nor `Equivalent` to the reference fix), the labels people give them, their
//! exchange as JSON lines (so two auditors can label independently and merge), and the agreement
//! between two auditors (Cohen's kappa).

use std::collections::{BTreeMap, BTreeSet, HashMap};

use avrlab_core::{Blame, Blamed, Differential, Outcome, TestStatus};
use avrlab_stats::{Kappa, KappaError, cohen_kappa};
use avrlab_store::{AuditLabel, AuditRow, DifferentialRow, RunMode, Store, StoreError};
use serde::{Deserialize, Serialize};

/// One candidate waiting for (or holding) audit labels.
#[derive(Debug, Clone, PartialEq)]
pub struct AuditItem {
    pub candidate_id: String,
    pub task: String,
    pub label: String,
    /// `diff`, `replacement:<target>`, … and the candidate's text.
    pub kind: String,
    pub content: String,
    /// The tests that passed, `Class#method`.
    pub passed: Vec<String>,
    /// Why the fast path flagged the candidate for Maven (what its code reached for); such a
    /// candidate comes first in the queue.
    pub flags: Vec<String>,
    /// What differential testing against the reference fix showed (`avrlab diff-test`), if it
    /// ran: a divergent candidate comes with its witness, so the auditor sees at once why.
    pub differential: Option<DifferentialRow>,
}

/// Why an audit step failed.
#[derive(Debug, thiserror::Error)]
pub enum AuditError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("the store has no run `{0}`")]
    UnknownRun(String),
    #[error("{origin}: {message}")]
    BadLine { origin: String, message: String },
    #[error(
        "auditors `{first}` and `{second}` labelled no candidate of run `{run}` in common: nothing to compare"
    )]
    NothingInCommon {
        run: String,
        first: String,
        second: String,
    },
    #[error("agreement of `{first}` and `{second}`: {source}")]
    Kappa {
        first: String,
        second: String,
        #[source]
        source: KappaError,
    },
}

impl Blamed for AuditError {
    fn blame(&self) -> Blame {
        match self {
            Self::Store(e) => e.blame(),
            Self::UnknownRun(_)
            | Self::BadLine { .. }
            | Self::NothingInCommon { .. }
            | Self::Kappa { .. } => Blame::Input,
        }
    }
}

/// The plausible candidates of `run_id` that no check proved correct (for eval runs: neither
/// `Exact` nor `Equivalent` to the reference fix), the flagged ones first (their code reached for
/// what could fake a pass), then in run order; with `auditor`, only those that auditor has not
/// labelled yet.
pub fn queue(
    store: &Store,
    run_id: &str,
    auditor: Option<&str>,
) -> Result<Vec<AuditItem>, AuditError> {
    let run = store
        .run(run_id)?
        .ok_or_else(|| AuditError::UnknownRun(run_id.to_owned()))?;
    let exact: BTreeSet<String> = if run.mode == RunMode::Eval {
        store
            .generations(run_id)?
            .into_iter()
            .filter(|g| g.correct.is_proven())
            .filter_map(|g| g.candidate_id)
            .collect()
    } else {
        BTreeSet::new()
    };
    let done: BTreeSet<String> = match auditor {
        Some(auditor) => store
            .audits(run_id)?
            .into_iter()
            .filter(|a| a.auditor == auditor)
            .map(|a| a.candidate_id)
            .collect(),
        None => BTreeSet::new(),
    };
    let contents: HashMap<String, (String, String)> = store
        .candidates(run_id)?
        .into_iter()
        .map(|c| (c.id, (c.kind.to_string(), c.content)))
        .collect();
    let flags: HashMap<String, Vec<String>> = store
        .engines(run_id)?
        .into_iter()
        .filter(|(_, row)| !row.flags.is_empty())
        .map(|(id, row)| (id, row.flags))
        .collect();
    let mut differential: HashMap<String, DifferentialRow> = store
        .differentials(run_id)?
        .into_iter()
        .map(|row| (row.candidate_id.clone(), row))
        .collect();
    let mut items = Vec::new();
    for verdict in store.verdicts(run_id)? {
        if verdict.outcome != Outcome::Plausible
            || exact.contains(&verdict.candidate_id)
            || done.contains(&verdict.candidate_id)
        {
            continue;
        }
        let (kind, content) = contents
            .get(&verdict.candidate_id)
            .cloned()
            .unwrap_or_default();
        let passed = store
            .test_results(run_id, &verdict.candidate_id)?
            .into_iter()
            .filter(|t| t.status == TestStatus::Passed)
            .map(|t| format!("{}#{}", t.class, t.method))
            .collect();
        items.push(AuditItem {
            flags: flags
                .get(&verdict.candidate_id)
                .cloned()
                .unwrap_or_default(),
            differential: differential.remove(&verdict.candidate_id),
            candidate_id: verdict.candidate_id,
            task: verdict.task,
            label: verdict.label,
            kind,
            content,
            passed,
        });
    }
    // Stable: run order within each group.
    items.sort_by_key(|item| item.flags.is_empty());
    Ok(items)
}

/// One audit label as a JSON line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct AuditLine {
    pub run: String,
    pub candidate: String,
    pub auditor: String,
    pub label: String,
    #[serde(default)]
    pub note: String,
    #[serde(default)]
    pub labelled_at: String,
}

/// The labels of a run as JSON lines.
pub fn export(store: &Store, run_id: &str) -> Result<String, AuditError> {
    let mut out = String::new();
    for audit in store.audits(run_id)? {
        let line = AuditLine {
            run: run_id.to_owned(),
            candidate: audit.candidate_id,
            auditor: audit.auditor,
            label: audit.label.as_str().to_owned(),
            note: audit.note,
            labelled_at: audit.labelled_at,
        };
        out.push_str(&serde_json::to_string(&line).expect("audit lines serialize"));
        out.push('\n');
    }
    Ok(out)
}

/// Reads JSON lines of labels for `run_id` (blank lines skipped, a byte-order mark allowed); any
/// bad line refuses the whole input, naming `origin` and the line.
pub fn parse_lines(text: &str, origin: &str, run_id: &str) -> Result<Vec<AuditRow>, AuditError> {
    let mut rows = Vec::new();
    for (index, line) in text.lines().enumerate() {
        let line = line.trim_start_matches('\u{feff}').trim();
        if line.is_empty() {
            continue;
        }
        let bad = |message: String| AuditError::BadLine {
            origin: format!("{origin}:{}", index + 1),
            message,
        };
        let parsed: AuditLine =
            serde_json::from_str(line).map_err(|e| bad(format!("not an audit line ({e})")))?;
        if parsed.run != run_id {
            return Err(bad(format!(
                "the label is for run `{}`, not `{run_id}`",
                parsed.run
            )));
        }
        if parsed.auditor.trim().is_empty() {
            return Err(bad("the auditor is empty".into()));
        }
        let label = AuditLabel::parse(&parsed.label).map_err(|e| bad(e.to_string()))?;
        rows.push(AuditRow {
            candidate_id: parsed.candidate,
            auditor: parsed.auditor,
            label,
            note: parsed.note,
            labelled_at: parsed.labelled_at,
        });
    }
    Ok(rows)
}

/// How two auditors agree on the candidates both labelled.
#[derive(Debug, Clone, PartialEq)]
pub struct Agreement {
    /// Rows: the first auditor's label; columns: the second's (in `AuditLabel::ALL` order).
    pub table: Vec<Vec<u64>>,
    pub kappa: Kappa,
}

/// The rater name that stands for differential testing in [`agreement`].
pub(crate) const DIFFERENTIAL_RATER: &str = "differential";

/// Cohen's kappa between `first` and `second` over the candidates of `run_id` both labelled.
/// Either may be [`DIFFERENTIAL_RATER`]: differential testing's verdict then labels each
/// candidate it compared (`Divergent` as incorrect, `NoDivergence` as correct, the others not at
/// all), and the auditor's `unsure` labels are left out (the tester is never unsure).
pub fn agreement(
    store: &Store,
    run_id: &str,
    first: &str,
    second: &str,
) -> Result<Agreement, AuditError> {
    let mut by_candidate: BTreeMap<String, [Option<AuditLabel>; 2]> = BTreeMap::new();
    let with_tester = [first, second].contains(&DIFFERENTIAL_RATER);
    for audit in store.audits(run_id)? {
        let slot = if audit.auditor == first {
            0
        } else if audit.auditor == second {
            1
        } else {
            continue;
        };
        if with_tester && audit.label == AuditLabel::Unsure {
            continue;
        }
        by_candidate.entry(audit.candidate_id).or_default()[slot] = Some(audit.label);
    }
    if with_tester {
        let slot = usize::from(second == DIFFERENTIAL_RATER);
        for row in store.differentials(run_id)? {
            // A flagged candidate's NoDivergence says nothing: its code could tell the tester apart.
            if !row.flags.is_empty() && row.verdict == Differential::NoDivergence {
                continue;
            }
            if let Some(label) = row.verdict.as_audit_label() {
                by_candidate.entry(row.candidate_id).or_default()[slot] = Some(label);
            }
        }
    }
    let index = |label: AuditLabel| {
        AuditLabel::ALL
            .iter()
            .position(|l| *l == label)
            .expect("every label is listed")
    };
    let k = AuditLabel::ALL.len();
    let mut table = vec![vec![0u64; k]; k];
    for [a, b] in by_candidate.values() {
        if let (Some(a), Some(b)) = (a, b) {
            table[index(*a)][index(*b)] += 1;
        }
    }
    let kappa = cohen_kappa(&table, 0.95).map_err(|source| match source {
        KappaError::NoItems => AuditError::NothingInCommon {
            run: run_id.to_owned(),
            first: first.to_owned(),
            second: second.to_owned(),
        },
        source => AuditError::Kappa {
            first: first.to_owned(),
            second: second.to_owned(),
            source,
        },
    })?;
    Ok(Agreement { table, kappa })
}

/// What `avrlab audit --agreement A,B` prints: Cohen's kappa with its interval, and the table of
/// the two auditors' labels.
pub fn render_agreement(run: &str, first: &str, second: &str, agreed: &Agreement) -> String {
    let k = &agreed.kappa;
    let mut text = format!(
        "{first} vs {second} on run {run}: {} candidates labelled by both, observed agreement {:.1}%, chance {:.1}%, Cohen's kappa {:.3} (95% CI {:.3} to {:.3})\n",
        k.items,
        100.0 * k.observed,
        100.0 * k.chance,
        k.kappa,
        k.interval.0,
        k.interval.1
    );
    let names: Vec<&str> = AuditLabel::ALL.iter().map(|l| l.as_str()).collect();
    text.push_str(&format!(
        "| {first} \\ {second} | {} |\n",
        names.join(" | ")
    ));
    text.push_str(&format!("|---|{}\n", "---|".repeat(names.len())));
    for (name, row) in names.iter().zip(&agreed.table) {
        let cells: Vec<String> = row.iter().map(u64::to_string).collect();
        text.push_str(&format!("| {name} | {} |\n", cells.join(" | ")));
    }
    text
}

/// What `avrlab audit --list` prints: a candidate a line.
pub fn render_queue(items: &[AuditItem]) -> String {
    let mut text = String::new();
    for item in items {
        let flagged = if item.flags.is_empty() {
            String::new()
        } else {
            format!("\tflagged: {}", item.flags.join("; "))
        };
        let differential = item
            .differential
            .as_ref()
            .map_or(String::new(), |d| format!("\t{}", d.verdict));
        text.push_str(&format!(
            "{}\t{}\t{}\t{} tests passed{differential}{flagged}\n",
            item.candidate_id,
            item.task,
            item.label,
            item.passed.len()
        ));
    }
    text
}

/// One candidate as the auditor sees it: the reference fix, the candidate, the tests it passed,
/// and why the fast path flagged it.
pub(crate) fn render_item(index: usize, total: usize, item: &AuditItem, reference: &str) -> String {
    let mut text = format!(
        "\n=== [{}/{total}] {} (task {}, {})\n--- the reference fix:\n{reference}--- the candidate ({}):\n{}\n--- tests passed: {}\n",
        index + 1,
        item.candidate_id,
        item.task,
        item.label,
        item.kind,
        item.content.trim_end(),
        item.passed.join(", ")
    );
    if !item.flags.is_empty() {
        text.push_str(&format!(
            "--- flagged by the fast path (Maven re-judged it): {}\n",
            item.flags.join("; ")
        ));
    }
    if let Some(d) = &item.differential {
        text.push_str(&format!(
            "--- differential test against the reference fix: {} ({} inputs, {:.1} s{}{}{})\n",
            d.verdict,
            d.inputs,
            d.seconds,
            d.changed_lines
                .map_or(String::new(), |changed| format!(", {changed}")),
            d.recorded_seeds.map_or(String::new(), |n| format!(
                ", {n} seeds recorded from the tests"
            )),
            if d.reason.is_empty() {
                String::new()
            } else {
                format!("; {}", d.reason)
            }
        ));
        if !d.flags.is_empty() {
            text.push_str(&format!(
                "--- its code could tell the differential tester from a test run: {}\n",
                d.flags.join("; ")
            ));
        }
        if let Some(w) = &d.witness {
            text.push_str(&crate::workflows::diff_test::witness_text(w, ""));
        }
    }
    text
}

/// Shows each candidate on `output` and reads a label for it from `input`; each label is stored
/// as it is given, so quitting (or a crash) loses nothing already labelled. Returns how many
/// labels were stored.
pub fn label_interactively(
    store: &mut Store,
    run: &str,
    auditor: &str,
    items: &[AuditItem],
    benchmark: Option<&avrlab_bench::Benchmark>,
    input: impl std::io::BufRead,
    output: &mut impl std::io::Write,
) -> Result<usize, StoreError> {
    let mut lines = input.lines();
    let mut labelled = 0;
    for (index, item) in items.iter().enumerate() {
        let reference = benchmark
            .and_then(|b| b.task(&item.task).ok())
            .and_then(|t| t.reference.as_ref())
            .map_or_else(
                || "(not available: pass --benchmark)\n".to_owned(),
                ToString::to_string,
            );
        let _ = write!(
            output,
            "{}",
            render_item(index, items.len(), item, &reference)
        );
        let label = loop {
            let _ = write!(
                output,
                "label: [c]orrect, [i]ncorrect, [u]nsure, [s]kip, [q]uit > "
            );
            let _ = output.flush();
            let Some(Ok(answer)) = lines.next() else {
                return Ok(labelled);
            };
            match answer.trim() {
                "c" | "correct" => break Some(AuditLabel::Correct),
                "i" | "incorrect" => break Some(AuditLabel::Incorrect),
                "u" | "unsure" => break Some(AuditLabel::Unsure),
                "s" | "skip" => break None,
                "q" | "quit" => return Ok(labelled),
                _ => continue,
            }
        };
        let Some(label) = label else {
            continue;
        };
        let _ = write!(output, "note (optional) > ");
        let _ = output.flush();
        let note = match lines.next() {
            Some(Ok(note)) => note.trim().to_owned(),
            _ => String::new(),
        };
        let row = AuditRow {
            candidate_id: item.candidate_id.clone(),
            auditor: auditor.to_owned(),
            label,
            note,
            labelled_at: String::new(),
        };
        store.record_audits(run, &[row])?;
        labelled += 1;
    }
    Ok(labelled)
}

#[cfg(test)]
mod tests {
    use avrlab_store::{NewCandidate, NewRun, PhaseRow, TestRow, VerdictRow};

    use super::*;
    use avrlab_core::Phase;

    fn store_with_plausibles(dir: &std::path::Path) -> Store {
        let mut store = Store::open(&dir.join("s.sqlite")).unwrap();
        let run = NewRun {
            id: "r".into(),
            benchmark: "demo".into(),
            mode: RunMode::Patches,
            input_hash: "h".into(),
            config: avrlab_core::RunConfig::default(),
        };
        let candidates: Vec<NewCandidate> = (0..4)
            .map(|i| NewCandidate {
                id: format!("c{i}"),
                task: "t".into(),
                label: format!("l{i}"),
                kind: avrlab_core::CandidateKind::Diff,
                content: format!("--- diff {i}\n"),
            })
            .collect();
        store.create_run(&run, &candidates).unwrap();
        for (i, outcome) in [
            Outcome::Plausible,
            Outcome::PovFailing,
            Outcome::Plausible,
            Outcome::Plausible,
        ]
        .into_iter()
        .enumerate()
        {
            let verdict = VerdictRow {
                error_cause: None,
                outcome,
                reason: "r".into(),
                wall_ms: 1,
                diagnostics: vec![],
                phases: vec![PhaseRow {
                    phase: Phase::Pov,
                    wall_ms: 1,
                    exit: "exit 0".into(),
                    enforcement: String::new(),
                    log: String::new(),
                }],
                tests: vec![TestRow {
                    phase: Phase::Pov,
                    class: "a.PovTest".into(),
                    method: "exploit".into(),
                    status: TestStatus::Passed,
                    seconds: 0.1,
                    message: String::new(),
                }],
                engine: None,
            };
            store
                .record_verdict("r", &format!("c{i}"), &verdict)
                .unwrap();
        }
        store
    }

    #[test]
    fn the_queue_holds_plausible_candidates_the_auditor_has_not_labelled() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_plausibles(dir.path());
        let all = queue(&store, "r", Some("ana")).unwrap();
        let ids: Vec<&str> = all.iter().map(|i| i.candidate_id.as_str()).collect();
        assert_eq!(ids, ["c0", "c2", "c3"]);
        assert_eq!(all[0].passed, ["a.PovTest#exploit"]);
        assert_eq!(all[0].content, "--- diff 0\n");
        let lines =
            "{\"run\":\"r\",\"candidate\":\"c2\",\"auditor\":\"ana\",\"label\":\"correct\"}\n";
        let rows = parse_lines(lines, "labels.jsonl", "r").unwrap();
        store.record_audits("r", &rows).unwrap();
        let left: Vec<String> = queue(&store, "r", Some("ana"))
            .unwrap()
            .into_iter()
            .map(|i| i.candidate_id)
            .collect();
        assert_eq!(left, ["c0", "c3"]);
        assert_eq!(queue(&store, "r", Some("bo")).unwrap().len(), 3);
    }

    #[test]
    fn interactive_labels_are_stored_one_by_one_and_quit_keeps_them() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_plausibles(dir.path());
        let items = queue(&store, "r", Some("ana")).unwrap();
        // An unknown answer is asked again; c0 correct with a note, c2 skipped, then quit.
        let input = std::io::Cursor::new("maybe\nc\nbounds checked\ns\nq\n");
        let mut shown = Vec::new();
        let labelled =
            label_interactively(&mut store, "r", "ana", &items, None, input, &mut shown).unwrap();
        assert_eq!(labelled, 1);
        let shown = String::from_utf8(shown).unwrap();
        assert_eq!(shown.matches("label: [c]orrect").count(), 4, "{shown}");
        assert!(
            shown.contains("(not available: pass --benchmark)"),
            "{shown}"
        );
        let left: Vec<String> = queue(&store, "r", Some("ana"))
            .unwrap()
            .into_iter()
            .map(|i| i.candidate_id)
            .collect();
        assert_eq!(left, ["c2", "c3"]);
        let exported = export(&store, "r").unwrap();
        assert!(
            exported.contains("\"candidate\":\"c0\"") && exported.contains("bounds checked"),
            "{exported}"
        );
    }

    #[test]
    fn labels_round_trip_as_json_lines_and_bad_lines_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_plausibles(dir.path());
        let text = "\u{feff}{\"run\":\"r\",\"candidate\":\"c0\",\"auditor\":\"ana\",\"label\":\"incorrect\",\"note\":\"removes the check\"}\n\n";
        store
            .record_audits("r", &parse_lines(text, "a.jsonl", "r").unwrap())
            .unwrap();
        let exported = export(&store, "r").unwrap();
        let again = parse_lines(&exported, "export", "r").unwrap();
        assert_eq!(again.len(), 1);
        assert_eq!(again[0].note, "removes the check");
        assert!(again[0].labelled_at.ends_with('Z'));

        let cases = [
            (
                "{\"run\":\"other\",\"candidate\":\"c0\",\"auditor\":\"a\",\"label\":\"correct\"}",
                "for run `other`",
            ),
            (
                "{\"run\":\"r\",\"candidate\":\"c0\",\"auditor\":\"a\",\"label\":\"right\"}",
                "`right` is not a known audit label",
            ),
            (
                "{\"run\":\"r\",\"candidate\":\"c0\",\"auditor\":\" \",\"label\":\"correct\"}",
                "the auditor is empty",
            ),
            (
                "{\"run\":\"r\",\"candidate\":\"c0\",\"auditor\":\"a\",\"label\":\"correct\",\"extra\":1}",
                "not an audit line",
            ),
        ];
        for (line, expected) in cases {
            let text = format!("{exported}{line}\n");
            let err = parse_lines(&text, "b.jsonl", "r").unwrap_err().to_string();
            assert!(err.starts_with("b.jsonl:2: "), "{err}");
            assert!(err.contains(expected), "{err}");
        }
    }

    /// An auditor against differential testing: Divergent stands for incorrect, NoDivergence
    /// for correct; the tester's other verdicts and the auditor's `unsure` are left out.
    #[test]
    fn the_evidence_of_a_candidate_found_no_different_says_how_far_the_inputs_looked() {
        let item = AuditItem {
            candidate_id: "c1".into(),
            task: "t".into(),
            label: "l".into(),
            kind: "diff".into(),
            content: "+ fix".into(),
            passed: vec!["T#pov".into()],
            flags: Vec::new(),
            differential: Some(DifferentialRow {
                candidate_id: "c1".into(),
                verdict: Differential::NoDivergence,
                reason: String::new(),
                seed: 1,
                inputs: 1000,
                divergent_inputs: 0,
                vulnerable_inputs: 0,
                seconds: 3.1,
                budget_seconds: 10.0,
                methods: Vec::new(),
                changed_lines: Some(avrlab_store::ChangedLines {
                    total: 4,
                    reached: 3,
                }),
                recorded_seeds: Some(6),
                flags: Vec::new(),
                witness: None,
            }),
        };
        let text = render_item(0, 1, &item, "+ reference\n");
        assert!(
            text.contains(
                "--- differential test against the reference fix: NoDivergence (1000 inputs, 3.1 s, \
                 changed lines reached: 3 of 4, 6 seeds recorded from the tests)\n"
            ),
            "{text}"
        );
    }

    #[test]
    fn agreement_with_the_differential_verdict_reads_divergent_as_incorrect() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_plausibles(dir.path());
        let verdict = |candidate: &str, verdict| DifferentialRow {
            candidate_id: candidate.into(),
            verdict,
            reason: String::new(),
            seed: 1,
            inputs: 10,
            divergent_inputs: 0,
            vulnerable_inputs: 0,
            seconds: 1.0,
            budget_seconds: 20.0,
            methods: Vec::new(),
            changed_lines: None,
            recorded_seeds: None,
            flags: Vec::new(),
            witness: None,
        };
        use avrlab_core::Differential::{Divergent, DivergentOnVulnerableInputs, NoDivergence};
        for row in [
            verdict("c0", Divergent),
            verdict("c1", DivergentOnVulnerableInputs),
            verdict("c2", NoDivergence),
            verdict("c3", NoDivergence),
        ] {
            store.record_differential("r", &row).unwrap();
        }
        let audit = |candidate: &str, label| AuditRow {
            candidate_id: candidate.into(),
            auditor: "ana".into(),
            label,
            note: String::new(),
            labelled_at: String::new(),
        };
        store
            .record_audits(
                "r",
                &[
                    audit("c0", AuditLabel::Incorrect),
                    audit("c1", AuditLabel::Incorrect),
                    audit("c2", AuditLabel::Correct),
                    audit("c3", AuditLabel::Incorrect),
                ],
            )
            .unwrap();
        let agreed = agreement(&store, "r", "ana", DIFFERENTIAL_RATER).unwrap();
        // c0 and c2 agree, c3 does not, c1 has no differential label.
        assert_eq!(agreed.kappa.items, 3);
        assert_eq!(agreed.table[0], [1, 0, 0]);
        assert_eq!(agreed.table[1], [1, 1, 0]);
        // p_o = 2/3; ana 1/3 correct, the tester 2/3: p_e = 2/9 + 2/9 = 4/9; kappa = 0.4.
        assert!((agreed.kappa.kappa - 0.4).abs() < 1e-12, "{agreed:?}");
        // The other way round, the same; an unsure label leaves its candidate out.
        store
            .record_audits("r", &[audit("c3", AuditLabel::Unsure)])
            .unwrap();
        let agreed = agreement(&store, "r", DIFFERENTIAL_RATER, "ana").unwrap();
        assert_eq!(agreed.kappa.items, 2);
        assert!((agreed.kappa.kappa - 1.0).abs() < 1e-12, "{agreed:?}");
        let text = render_agreement("r", DIFFERENTIAL_RATER, "ana", &agreed);
        assert!(
            text.starts_with("differential vs ana on run r: 2 candidates"),
            "{text}"
        );
    }

    #[test]
    fn agreement_compares_only_candidates_both_auditors_labelled() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = store_with_plausibles(dir.path());
        let row = |candidate: &str, auditor: &str, label| AuditRow {
            candidate_id: candidate.into(),
            auditor: auditor.into(),
            label,
            note: String::new(),
            labelled_at: String::new(),
        };
        assert!(matches!(
            agreement(&store, "r", "ana", "bo"),
            Err(AuditError::NothingInCommon { .. })
        ));
        store
            .record_audits(
                "r",
                &[
                    row("c0", "ana", AuditLabel::Correct),
                    row("c0", "bo", AuditLabel::Correct),
                    row("c2", "ana", AuditLabel::Incorrect),
                    row("c2", "bo", AuditLabel::Incorrect),
                    row("c3", "ana", AuditLabel::Correct),
                    row("c3", "bo", AuditLabel::Incorrect),
                    row("c1", "ana", AuditLabel::Unsure),
                ],
            )
            .unwrap();
        let agreed = agreement(&store, "r", "ana", "bo").unwrap();
        assert_eq!(agreed.kappa.items, 3);
        assert_eq!(agreed.table[0], [1, 1, 0]);
        assert_eq!(agreed.table[1], [0, 1, 0]);
        // p_o = 2/3, p_e = (2/3)(1/3) + (1/3)(2/3) = 4/9, kappa = (2/9)/(5/9) = 0.4.
        assert!((agreed.kappa.kappa - 0.4).abs() < 1e-12, "{agreed:?}");
    }
}
