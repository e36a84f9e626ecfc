//! Building the report from the store.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use avrlab_core::{BadMonth, Differential, Month, Outcome, RunConfig};
use avrlab_stats::{mean_pass_at_k, mean_with_margin, wilson};
use avrlab_store::{
    AuditLabel, AuditRow, Extraction, GenerationRow, ItemClass, RunMode, Store, StoreError,
};
use serde::Serialize;

use crate::completeness::Completeness;
use crate::cost::CostSummary;
use crate::cutoff::CutoffSplit;
use crate::probe_summary::ProbeSummary;
use crate::published::{PublishedAgreement, PublishedLabel, UnknownLabel};
pub use crate::task_cell::TaskCell;

/// Why a report could not be built.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The run does not exist.
    #[error("the store has no run `{0}` (see the run ids printed by eval)")]
    UnknownRun(String),
    /// The run stores a model cut-off that is not a month.
    #[error("run `{0}`: its stored model cut-off")]
    Cutoff(String, #[source] BadMonth),
    /// The run is not an eval run.
    #[error("run `{0}` is a `{1}` run; reports are made for eval runs")]
    NotAnEval(String, String),
    /// A replayed run stores a published label this version does not know.
    #[error("run `{run}`: published labels")]
    Published {
        run: String,
        #[source]
        source: UnknownLabel,
    },
}

/// One row of the Table-4-style summary: one eval run (a model, a format, an offset).
#[derive(Debug, Clone, Serialize)]
pub struct ModelSummary {
    pub run_id: String,
    /// The benchmark the run was made on (a transformed variant has its own name; a replay of
    /// a published transformed variant, made on the original tasks, names the variant after it).
    pub benchmark: String,
    pub model: String,
    pub format: String,
    pub fl_offset: i64,
    /// Tasks with at least one sample on which the model was heard (not errored).
    pub tasks: usize,
    pub runs: u32,
    /// Samples per prompt (k).
    pub samples_per_prompt: u32,
    /// Samples on which the model was heard: the denominator of every score. Errored samples
    /// are counted in `completeness` only.
    pub samples: usize,
    /// Samples that yielded a candidate (distinct or duplicate).
    pub with_candidate: usize,
    /// Distinct candidates validated.
    pub distinct_candidates: usize,
    /// Share of samples with a candidate that repeat an earlier one of the same task.
    pub duplicate_rate: f64,
    /// Share of samples with a candidate that applied and compiled.
    pub compile_rate: f64,
    /// Tasks with at least one correct sample: Plausible, and `Exact`/`Equivalent` to the reference fix or
    /// audited correct by every auditor who labelled it.
    pub correct_tasks: usize,
    /// Tasks with at least one Plausible sample.
    pub plausible_tasks: usize,
    /// Wilson 95% interval of the share of tasks with a plausible fix.
    pub plausible_interval: (f64, f64),
    /// Mean pass@1 and pass@k (plausible) over tasks and runs, unbiased estimator.
    pub pass_at_1: Option<f64>,
    pub pass_at_k: Option<f64>,
    /// With several runs: plausible tasks per run, mean ± 95% margin.
    pub plausible_across_runs: Option<(f64, f64)>,
    /// Samples whose prompt the model could not answer (e.g. longer than its context); samples
    /// on which it was not heard at all are `completeness.errored`.
    pub errors: usize,
    /// Registered, judged, model failures, errored (by cause) and retried samples.
    pub completeness: Completeness,
    /// What the heard samples cost, where known.
    pub cost: CostSummary,
    /// Plausible but not known to be correct, and not audited yet: to audit by hand.
    pub to_audit: Vec<String>,
    /// Plausible candidates, not proven correct by comparison, that auditors labelled alike.
    pub audited: usize,
    /// Of those, labelled correct.
    pub audited_correct: usize,
    /// Plausible candidates whose auditors disagree (counted as not correct).
    pub disputed: usize,
    /// For a replay of published generations: our verdicts against the published labels.
    pub published: Option<PublishedAgreement>,
    /// What differential testing against the reference fix showed of the run's plausible
    /// candidates; `None` when the run has no differential result (and then not serialized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub differential: Option<DifferentialCounts>,
    /// The scores before and after the model's training cut-off, when one is known (stored with
    /// the run or given to the report); `None` otherwise (and then not serialized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cutoff: Option<CutoffSplit>,
    /// The memorization probe's scores of the run's model on the run's benchmark, beside its
    /// score, when `avrlab probe` stored some; `None` otherwise (and then not serialized).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub probe: Option<ProbeSummary>,
}

/// A run's distinct plausible candidates and what differential testing showed of them.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct DifferentialCounts {
    /// Distinct candidates whose verdict is Plausible.
    pub plausible: usize,
    /// Of those: every input tried showed the same as the reference fix.
    pub no_divergence: usize,
    /// Differed from the fix with a witness (never counted correct without an auditor's note).
    pub divergent: usize,
    /// Differed only on the vulnerability's inputs, blocking them otherwise (weaker evidence).
    pub divergent_on_vulnerable_inputs: usize,
    /// Compared but not applicable (with a stored reason; a flagged `NoDivergence` counts here),
    /// and not compared at all (no row:
    /// proven `Exact`/`Equivalent`, or no reference fix).
    pub not_applicable: usize,
    pub not_compared: usize,
    /// Of the `NoDivergence` candidates measured: their changed lines with code, and those the
    /// inputs reached (how far "no divergence found" looked).
    pub no_divergence_changed_lines: u64,
    pub no_divergence_changed_lines_reached: u64,
}

impl DifferentialCounts {
    /// Counts the stored rows of the plausible candidates (`plausible`: their ids).
    pub fn of(plausible: &BTreeSet<&str>, rows: &[avrlab_store::DifferentialRow]) -> Self {
        let mut counts = Self {
            plausible: plausible.len(),
            ..Self::default()
        };
        for row in rows
            .iter()
            .filter(|r| plausible.contains(r.candidate_id.as_str()))
        {
            match row.verdict {
                // Its code could tell the tester from a test run: no divergence found is no evidence.
                Differential::NoDivergence if !row.flags.is_empty() => counts.not_applicable += 1,
                Differential::NoDivergence => {
                    counts.no_divergence += 1;
                    if let Some(changed) = row.changed_lines {
                        counts.no_divergence_changed_lines += changed.total;
                        counts.no_divergence_changed_lines_reached += changed.reached;
                    }
                }
                Differential::Divergent => counts.divergent += 1,
                Differential::DivergentOnVulnerableInputs => {
                    counts.divergent_on_vulnerable_inputs += 1;
                }
                Differential::NotApplicable => counts.not_applicable += 1,
            }
        }
        counts.not_compared = counts.plausible
            - counts.no_divergence
            - counts.divergent
            - counts.divergent_on_vulnerable_inputs
            - counts.not_applicable;
        counts
    }

    /// `plausible · no divergence found · divergent · on vulnerable inputs`, as the tables show
    /// it (`12 · 5 · 3 · 1`); where the changed lines were measured, the no-divergence count says
    /// how many of them its inputs reached (`12 · 5 (40/52 lines) · 3 · 1`).
    pub fn cell(&self) -> String {
        let reached = if self.no_divergence_changed_lines == 0 {
            String::new()
        } else {
            format!(
                " ({}/{} lines)",
                self.no_divergence_changed_lines_reached, self.no_divergence_changed_lines
            )
        };
        format!(
            "{} · {}{reached} · {} · {}",
            self.plausible, self.no_divergence, self.divergent, self.divergent_on_vulnerable_inputs
        )
    }
}

/// The heading of the differential column.
pub const DIFFERENTIAL_HEADING: &str =
    "differential (plausible · no divergence found · divergent · on vulnerable inputs)";

/// Whether some run of the report has differential results (else its tables have no such column).
pub fn has_differential(models: &[ModelSummary]) -> bool {
    models.iter().any(|m| m.differential.is_some())
}

/// A run's differential cell, `-` when it has none.
pub fn differential_cell(m: &ModelSummary) -> String {
    m.differential.map_or_else(|| "-".to_owned(), |d| d.cell())
}

/// The label every auditor of a candidate gave it; `None` where they disagree.
fn consensus(audits: &[AuditRow]) -> HashMap<&str, Option<AuditLabel>> {
    let mut labels: HashMap<&str, Option<AuditLabel>> = HashMap::new();
    for audit in audits {
        labels
            .entry(audit.candidate_id.as_str())
            .and_modify(|agreed| {
                if *agreed != Some(audit.label) {
                    *agreed = None;
                }
            })
            .or_insert(Some(audit.label));
    }
    labels
}

/// The whole report.
#[derive(Debug, Clone, Serialize)]
pub struct EvalReport {
    pub models: Vec<ModelSummary>,
    /// Task id → one cell per model row.
    pub matrix: BTreeMap<String, Vec<TaskCell>>,
    /// Task id → its CWE ids, as stored with the runs.
    pub cwe: BTreeMap<String, Vec<u32>>,
    /// Task id → for each model row, whether that run had the task (reports may combine runs
    /// on different benchmarks).
    pub ran: BTreeMap<String, Vec<bool>>,
    /// How many fast verdicts of the runs Maven re-judged, and every disagreement.
    #[serde(default)]
    pub engines: crate::EngineChecks,
}

impl EvalReport {
    /// What the report says at its top about runs that are not complete (errored samples,
    /// samples awaiting a verdict or not asked yet), one line per such run.
    pub fn incomplete_warnings(&self) -> Vec<String> {
        self.models
            .iter()
            .filter_map(|m| m.completeness.warning(&m.run_id))
            .collect()
    }

    /// Each run's cost line, named by its run.
    pub fn cost_lines(&self) -> Vec<String> {
        self.models
            .iter()
            .map(|m| format!("{}: {}", m.run_id, m.cost.line()))
            .collect()
    }

    /// Each run's completeness line, named by its run.
    pub fn completeness_lines(&self) -> Vec<String> {
        self.models
            .iter()
            .map(|m| format!("{}: {}", m.run_id, m.completeness.line()))
            .collect()
    }

    /// The scores before and after the model's cut-off, one line for each run that has a split,
    /// named by its run.
    pub fn cutoff_lines(&self) -> Vec<String> {
        self.models
            .iter()
            .filter_map(|m| {
                m.cutoff
                    .as_ref()
                    .map(|c| format!("{}: {}", m.run_id, c.line()))
            })
            .collect()
    }

    /// The memorization probe beside the score, one line for each run whose tasks were probed,
    /// named by its run.
    pub fn probe_lines(&self) -> Vec<String> {
        self.models
            .iter()
            .filter_map(|m| {
                m.probe
                    .as_ref()
                    .map(|p| format!("{}: {}", m.run_id, p.line()))
            })
            .collect()
    }
}

/// What the report says of the cut-off split, in every format that has prose.
pub const CUTOFF_HEADING: &str =
    "Before and after the model's training cut-off (tasks by the month their fix was committed)";

/// What the report says of the memorization probe, in every format that has prose.
pub const PROBE_HEADING: &str =
    "Memorization probe (`avrlab probe` of the run's model on its benchmark)";

/// Our verdicts against the labels a replayed run keeps in its configuration (`published`:
/// sample id → label; `unmapped`: what could not be replayed). `None` for other runs.
fn published_agreement(
    config: &RunConfig,
    generations: &[GenerationRow],
    outcomes: &HashMap<String, Outcome>,
) -> Result<Option<PublishedAgreement>, UnknownLabel> {
    if config.replay.is_none() {
        return Ok(None);
    }
    let labels = &config.published;
    let mut agreement = PublishedAgreement::default();
    let mut plausible_tasks: BTreeSet<&str> = BTreeSet::new();
    for g in generations {
        let Some(word) = labels.get(&g.id) else {
            continue;
        };
        let theirs = PublishedLabel::parse(word)?;
        if theirs == PublishedLabel::TestSuccess {
            plausible_tasks.insert(&g.task);
        }
        let Some(outcome) = g.candidate_id.as_ref().and_then(|c| outcomes.get(c)) else {
            continue;
        };
        let ours = PublishedLabel::of_outcome(*outcome);
        agreement.compared += 1;
        if ours == Some(theirs) {
            agreement.agree += 1;
        }
        match (
            ours == Some(PublishedLabel::TestSuccess),
            theirs == PublishedLabel::TestSuccess,
        ) {
            (true, true) => agreement.plausible_both += 1,
            (true, false) => agreement.plausible_ours_only += 1,
            (false, true) => agreement.plausible_published_only += 1,
            (false, false) => {}
        }
        let key = format!(
            "{} / {}",
            ours.map_or("indeterminate", PublishedLabel::as_str),
            theirs.as_str()
        );
        *agreement.table.entry(key).or_default() += 1;
    }
    agreement.published_plausible_tasks = plausible_tasks.len();
    agreement.unmapped = config.unmapped.clone();
    Ok(Some(agreement))
}

/// What a report is asked for beyond the stored runs.
#[derive(Debug, Clone, Copy, Default)]
pub struct EvalReportOptions {
    /// Split every run's scores at this cut-off month, whatever cut-off the run stored.
    pub model_cutoff: Option<Month>,
}

/// Builds the report of eval runs `run_ids` (one summary row each), splitting each at the
/// cut-off its run stored.
pub fn build_eval_report(store: &Store, run_ids: &[String]) -> Result<EvalReport, ReportError> {
    build_eval_report_with(store, run_ids, EvalReportOptions::default())
}

/// Builds the report of eval runs `run_ids` (one summary row each) with `options`.
pub fn build_eval_report_with(
    store: &Store,
    run_ids: &[String],
    options: EvalReportOptions,
) -> Result<EvalReport, ReportError> {
    let mut models = Vec::new();
    let mut engine_rows = Vec::new();
    let mut engine_outcomes = HashMap::new();
    let mut per_run_cells: Vec<HashMap<String, TaskCell>> = Vec::new();
    let mut all_tasks: BTreeSet<String> = BTreeSet::new();
    let mut cwe: BTreeMap<String, Vec<u32>> = BTreeMap::new();
    for run_id in run_ids {
        let run = store
            .run(run_id)?
            .ok_or_else(|| ReportError::UnknownRun(run_id.clone()))?;
        if run.mode != RunMode::Eval {
            return Err(ReportError::NotAnEval(
                run_id.clone(),
                run.mode.as_str().to_owned(),
            ));
        }
        let config = &run.config;
        cwe.extend(config.cwe.clone());
        let samples_per_prompt = config.samples_per_prompt();
        let runs = config.run_count();
        let outcomes: HashMap<String, Outcome> = store
            .verdicts(run_id)?
            .into_iter()
            .map(|v| (v.candidate_id, v.outcome))
            .collect();
        // A candidate id is named by its run when the report combines runs.
        let named = |candidate: &str| {
            if run_ids.len() > 1 {
                format!("{run_id}: {candidate}")
            } else {
                candidate.to_owned()
            }
        };
        for (candidate, row) in store.engines(run_id)? {
            engine_rows.push((named(&candidate), row));
        }
        for (candidate, outcome) in &outcomes {
            engine_outcomes.insert(named(candidate), *outcome);
        }
        let stored = store.generations(run_id)?;
        // The plan registers tasks × runs × samples, where the run's row says so: not for a
        // shard's store (whose tasks the report does not know) nor a replay (whose samples vary).
        let planned =
            (config.replay.is_none() && config.shard.is_none() && config.samples.is_some())
                .then(|| config.cwe.len() * runs as usize * samples_per_prompt as usize);
        let completeness = Completeness::of(&stored, planned);
        let cost = CostSummary::of(&stored, config.price.as_ref());
        // An errored sample is no evidence about the model: it enters no denominator.
        let generations: Vec<GenerationRow> = stored
            .into_iter()
            .filter(|g| g.class != Some(ItemClass::Errored))
            .collect();
        let outcome_of = |g: &GenerationRow| {
            g.candidate_id
                .as_ref()
                .and_then(|c| outcomes.get(c))
                .copied()
        };

        let tasks: BTreeSet<&str> = generations.iter().map(|g| g.task.as_str()).collect();
        all_tasks.extend(tasks.iter().map(|t| (*t).to_owned()));
        let with_candidate: Vec<&GenerationRow> = generations
            .iter()
            .filter(|g| g.candidate_id.is_some())
            .collect();
        let duplicates = with_candidate
            .iter()
            .filter(|g| g.extraction == Extraction::Duplicate)
            .count();
        let compiled = with_candidate
            .iter()
            .filter(|g| {
                !matches!(
                    outcome_of(g),
                    Some(Outcome::Uncompilable | Outcome::ApplyFailed) | None
                )
            })
            .count();
        let plausible = |g: &GenerationRow| outcome_of(g) == Some(Outcome::Plausible);
        let audits = store.audits(run_id)?;
        let labels = consensus(&audits);
        let label_of = |g: &GenerationRow| {
            g.candidate_id
                .as_deref()
                .and_then(|c| labels.get(c).copied())
        };
        // A candidate that differential testing found Divergent is never counted correct, unless
        // an auditor labelled it correct with a note (the note says why the divergence is fine).
        let overruled: BTreeSet<&str> = audits
            .iter()
            .filter(|a| a.label == AuditLabel::Correct && !a.note.trim().is_empty())
            .map(|a| a.candidate_id.as_str())
            .collect();
        let differentials = store.differentials(run_id)?;
        let plausible_ids: BTreeSet<&str> = outcomes
            .iter()
            .filter(|(_, o)| **o == Outcome::Plausible)
            .map(|(c, _)| c.as_str())
            .collect();
        let differential = (!differentials.is_empty())
            .then(|| DifferentialCounts::of(&plausible_ids, &differentials));
        let divergent: BTreeSet<String> = differentials
            .into_iter()
            .filter(|d| d.verdict == Differential::Divergent)
            .map(|d| d.candidate_id)
            .filter(|c| !overruled.contains(c.as_str()))
            .collect();
        let divergent_of = |g: &GenerationRow| {
            g.candidate_id
                .as_ref()
                .is_some_and(|c| divergent.contains(c))
        };
        let correct = |g: &GenerationRow| {
            plausible(g)
                && !divergent_of(g)
                && (g.correct.is_proven() || label_of(g) == Some(Some(AuditLabel::Correct)))
        };

        let mut cells: HashMap<String, TaskCell> = HashMap::new();
        for task in &tasks {
            let of_task = generations.iter().filter(|g| g.task == *task);
            let cell = if of_task.clone().any(correct) {
                TaskCell::Correct
            } else if of_task.clone().any(plausible) {
                TaskCell::Plausible
            } else {
                TaskCell::NotFixed
            };
            cells.insert((*task).to_owned(), cell);
        }
        let cutoff = match options.model_cutoff {
            Some(month) => Some(month),
            None => config
                .model_cutoff
                .as_deref()
                .map(|text| {
                    text.parse::<Month>()
                        .map_err(|e| ReportError::Cutoff(run_id.clone(), e))
                })
                .transpose()?,
        };
        let cutoff = match cutoff {
            Some(month) => {
                let by_task: BTreeMap<&str, TaskCell> =
                    cells.iter().map(|(t, c)| (t.as_str(), *c)).collect();
                Some(CutoffSplit::of(&by_task, &store.task_dates(run_id)?, month))
            }
            None => None,
        };
        let probe = match &config.model {
            Some(model) => {
                // Each task's share of heard samples that were Plausible: the probe plot's y.
                let rates: HashMap<String, f64> = tasks
                    .iter()
                    .filter_map(|task| {
                        let of_task: Vec<&GenerationRow> =
                            generations.iter().filter(|g| g.task == *task).collect();
                        let fixed = of_task.iter().filter(|g| plausible(g)).count();
                        (!of_task.is_empty())
                            .then(|| ((*task).to_owned(), fixed as f64 / of_task.len() as f64))
                    })
                    .collect();
                ProbeSummary::of(&cells, &rates, &store.probe_scores(&run.benchmark, model)?)
            }
            None => None,
        };
        let plausible_tasks = cells.values().filter(|c| **c != TaskCell::NotFixed).count();
        let correct_tasks = cells.values().filter(|c| **c == TaskCell::Correct).count();
        let interval = wilson(plausible_tasks as u64, tasks.len() as u64, 0.95)
            .map(|i| (i.lower, i.upper))
            .unwrap_or((0.0, 0.0));

        // pass@k per (task, run): n samples, c plausible.
        let mut per_prompt: BTreeMap<(&str, u32), (u64, u64)> = BTreeMap::new();
        for g in &generations {
            let entry = per_prompt
                .entry((g.task.as_str(), g.run_index))
                .or_default();
            entry.0 += 1;
            entry.1 += u64::from(plausible(g));
        }
        // A prompt's samples are asked together, so a prompt is heard whole or not at all; one
        // with fewer heard samples than k (a replay's) has no pass@k and is left out of it.
        let k = u64::from(samples_per_prompt);
        let counts: Vec<(u64, u64)> = per_prompt.values().copied().collect();
        let with_k: Vec<(u64, u64)> = counts.iter().copied().filter(|(n, _)| *n >= k).collect();
        let pass_at_1 = mean_pass_at_k(&counts, 1).ok().flatten();
        let pass_at_k = mean_pass_at_k(&with_k, k).ok().flatten();
        // Tasks fixed per run are comparable between runs only where the model was heard on
        // every task: a run with an errored prompt is left out of the spread across runs.
        let heard_whole = |r: u32| {
            tasks.iter().all(|t| {
                generations
                    .iter()
                    .any(|g| g.task == **t && g.run_index == r)
            })
        };
        let plausible_across_runs = (runs > 1)
            .then(|| {
                let per_run: Vec<f64> = (0..runs)
                    .filter(|r| heard_whole(*r))
                    .map(|r| {
                        tasks
                            .iter()
                            .filter(|t| {
                                generations
                                    .iter()
                                    .any(|g| g.task == **t && g.run_index == r && plausible(g))
                            })
                            .count() as f64
                    })
                    .collect();
                // Fewer than two whole runs have no spread to show.
                mean_with_margin(&per_run, 0.95)
                    .ok()
                    .map(|m| (m.mean, m.margin))
            })
            .flatten();
        let not_proven: Vec<&GenerationRow> = generations
            .iter()
            .filter(|g| {
                plausible(g) && !g.correct.is_proven() && g.extraction == Extraction::Candidate
            })
            .collect();
        let mut to_audit: Vec<String> = not_proven
            .iter()
            .filter(|g| label_of(g).is_none())
            .map(|g| g.id.clone())
            .collect();
        to_audit.sort();
        let audited = not_proven
            .iter()
            .filter(|g| matches!(label_of(g), Some(Some(_))))
            .count();
        let audited_correct = not_proven
            .iter()
            .filter(|g| label_of(g) == Some(Some(AuditLabel::Correct)) && !divergent_of(g))
            .count();
        let disputed = not_proven
            .iter()
            .filter(|g| label_of(g) == Some(None))
            .count();
        let share = |part: usize, whole: usize| {
            if whole == 0 {
                0.0
            } else {
                part as f64 / whole as f64
            }
        };
        let published = published_agreement(config, &generations, &outcomes).map_err(|source| {
            ReportError::Published {
                run: run_id.clone(),
                source,
            }
        })?;
        models.push(ModelSummary {
            published,
            differential,
            cutoff,
            probe,
            run_id: run_id.clone(),
            benchmark: benchmark_label(&run.benchmark, config),
            model: config.model.clone().unwrap_or_else(|| "?".to_owned()),
            format: config.format.clone().unwrap_or_else(|| "?".to_owned()),
            fl_offset: config.fl_offset,
            tasks: tasks.len(),
            runs,
            samples_per_prompt,
            samples: generations.len(),
            with_candidate: with_candidate.len(),
            distinct_candidates: with_candidate.len() - duplicates,
            duplicate_rate: share(duplicates, with_candidate.len()),
            compile_rate: share(compiled, with_candidate.len()),
            correct_tasks,
            plausible_tasks,
            plausible_interval: interval,
            pass_at_1,
            pass_at_k,
            plausible_across_runs,
            errors: generations.iter().filter(|g| g.error.is_some()).count(),
            completeness,
            cost,
            to_audit,
            audited,
            audited_correct,
            disputed,
        });
        per_run_cells.push(cells);
    }
    let matrix: BTreeMap<String, Vec<TaskCell>> = all_tasks
        .into_iter()
        .map(|task| {
            let row = per_run_cells
                .iter()
                .map(|cells| cells.get(&task).copied().unwrap_or(TaskCell::NotFixed))
                .collect();
            (task, row)
        })
        .collect();
    let ran = matrix
        .keys()
        .map(|task| {
            let row = per_run_cells.iter().map(|c| c.contains_key(task)).collect();
            (task.clone(), row)
        })
        .collect();
    cwe.retain(|task, _| matrix.contains_key(task));
    Ok(EvalReport {
        models,
        matrix,
        cwe,
        ran,
        engines: crate::EngineChecks::from_rows(&engine_rows, &engine_outcomes),
    })
}

/// The benchmark a run is shown under: its name, and for a replay of a published transformed
/// variant (whose candidates go onto the original tasks) the variant in parentheses.
fn benchmark_label(benchmark: &str, config: &RunConfig) -> String {
    match config.transformed_variant() {
        Some(variant) => format!("{benchmark} ({variant})"),
        None => benchmark.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use avrlab_store::{NewCandidate, NewRun, VerdictRow};

    use super::*;

    fn generation(
        task: &str,
        run_index: u32,
        sample: u32,
        candidate: Option<&str>,
        extraction: &str,
        correct: &str,
    ) -> GenerationRow {
        GenerationRow {
            id: format!("{task}/{run_index}/{sample}"),
            task: task.into(),
            model: "m".into(),
            format: "chat-p1".into(),
            fl_offset: 0,
            fl_effective: 0,
            run_index,
            sample,
            prompt_hash: "h".into(),
            raw: String::new(),
            finish_reason: "Stop".into(),
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            latency_ms: 0,
            cached: false,
            error: None,
            extraction: Extraction::parse(extraction).unwrap(),
            candidate_id: candidate.map(str::to_owned),
            correct: avrlab_store::Correctness::parse(correct).unwrap(),
            class: candidate.is_none().then_some(ItemClass::ModelFailure),
            error_cause: None,
            attempt: 1,
        }
    }

    fn verdict(outcome: Outcome) -> VerdictRow {
        VerdictRow {
            error_cause: None,
            outcome,
            reason: String::new(),
            wall_ms: 1,
            diagnostics: vec![],
            phases: vec![],
            tests: vec![],
            engine: None,
        }
    }

    /// Two tasks, two runs, two samples each: task a is fixed exactly in run 0 only; task b gets a
    /// plausible (not exact) fix in run 1 and an uncompilable one in run 0, plus a duplicate.
    #[test]
    fn counts_come_from_the_stored_rows() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let run = NewRun {
            id: "e".into(),
            benchmark: "demo".into(),
            mode: RunMode::Eval,
            input_hash: "h".into(),
            config: RunConfig::parse(
                r#"{"model":"m","format":"chat-p1","samples":2,"runs":2,"fl_offset":0,"cwe":{"a":[22],"b":[79,80]}}"#,
            )
            .unwrap(),
        };
        let candidate = |id: &str, task: &str| NewCandidate {
            id: id.into(),
            task: task.into(),
            label: id.into(),
            kind: avrlab_core::CandidateKind::Diff,
            content: id.into(),
        };
        let candidates = [
            candidate("a0", "a"),
            candidate("b0", "b"),
            candidate("b1", "b"),
        ];
        let generations = [
            generation("a", 0, 0, Some("a0"), "candidate", "Exact"),
            generation("a", 0, 1, None, "NoCode", "Unknown"),
            generation("a", 1, 0, None, "NoCode", "Unknown"),
            generation("a", 1, 1, None, "EmptyAnswer", "Unknown"),
            generation("b", 0, 0, Some("b0"), "candidate", "Unknown"),
            generation("b", 0, 1, Some("b0"), "duplicate", "Unknown"),
            generation("b", 1, 0, Some("b1"), "candidate", "Unknown"),
            generation("b", 1, 1, None, "NoCode", "Unknown"),
        ];
        store.create_run(&run, &[]).unwrap();
        store
            .add_generations("e", &candidates, &generations)
            .unwrap();
        store
            .record_verdict("e", "a0", &verdict(Outcome::Plausible))
            .unwrap();
        store
            .record_verdict("e", "b0", &verdict(Outcome::Uncompilable))
            .unwrap();
        store
            .record_verdict("e", "b1", &verdict(Outcome::Plausible))
            .unwrap();

        let report = build_eval_report(&store, &["e".to_owned()]).unwrap();
        let m = &report.models[0];
        assert_eq!(
            (m.tasks, m.samples, m.with_candidate, m.distinct_candidates),
            (2, 8, 4, 3)
        );
        assert_eq!((m.plausible_tasks, m.correct_tasks), (2, 1));
        assert!((m.duplicate_rate - 0.25).abs() < 1e-9);
        // Two of the four samples with a candidate are uncompilable (b0 and its duplicate).
        assert!((m.compile_rate - 0.5).abs() < 1e-9);
        // pass@1 over the four (task, run) prompts: a/0 1 of 2, a/1 0, b/0 0, b/1 1 of 2.
        assert!((m.pass_at_1.unwrap() - 0.25).abs() < 1e-9);
        // pass@2: a/0 and b/1 have a plausible sample among their two.
        assert!((m.pass_at_k.unwrap() - 0.5).abs() < 1e-9);
        // One plausible task in each run: mean 1, no spread.
        assert_eq!(m.plausible_across_runs, Some((1.0, 0.0)));
        assert_eq!(m.to_audit, ["b/1/0"]);
        assert_eq!(report.matrix["a"], [TaskCell::Correct]);
        assert_eq!(report.matrix["b"], [TaskCell::Plausible]);
        assert_eq!(report.cwe["b"], [79, 80]);
        let markdown = crate::render(&report, crate::ReportFormat::Markdown);
        assert!(
            markdown.contains("| demo | m | chat-p1 | 0 | 2 | 8 | 1 | 2 ("),
            "{markdown}"
        );
        assert!(
            markdown.contains("| task | CWE | m (chat-p1) |"),
            "{markdown}"
        );
        // Rows of several benchmarks (a study's variants) are told apart in the per-task table.
        let mut variants = report.clone();
        let mut renamed = variants.models[0].clone();
        renamed.benchmark = "demo (rename)".into();
        variants.models.push(renamed);
        for cells in variants.matrix.values_mut() {
            cells.push(TaskCell::NotFixed);
        }
        let markdown = crate::render(&variants, crate::ReportFormat::Markdown);
        assert!(
            markdown.contains("| task | CWE | m (chat-p1, demo) | m (chat-p1, demo (rename)) |"),
            "{markdown}"
        );
        assert!(
            markdown.contains("| demo (rename) | m | chat-p1 |"),
            "{markdown}"
        );
        let csv = crate::render(&report, crate::ReportFormat::Csv);
        assert_eq!(csv.lines().count(), 2);
        assert!(
            markdown.contains("| b | CWE-79, CWE-80 | plausible |"),
            "{markdown}"
        );

        // Two auditors disagree on b1: disputed, not correct, no longer waiting for an audit.
        let label = |auditor: &str, label| AuditRow {
            candidate_id: "b1".into(),
            auditor: auditor.into(),
            label,
            note: String::new(),
            labelled_at: String::new(),
        };
        store
            .record_audits(
                "e",
                &[
                    label("ana", AuditLabel::Correct),
                    label("bo", AuditLabel::Incorrect),
                ],
            )
            .unwrap();
        let report = build_eval_report(&store, &["e".into()]).unwrap();
        let m = &report.models[0];
        assert_eq!((m.disputed, m.audited, m.correct_tasks), (1, 0, 1));
        assert!(m.to_audit.is_empty());
        // Once they agree it is correct, task b counts as correctly fixed.
        store
            .record_audits("e", &[label("bo", AuditLabel::Correct)])
            .unwrap();
        let report = build_eval_report(&store, &["e".into()]).unwrap();
        let m = &report.models[0];
        assert_eq!(
            (m.disputed, m.audited, m.audited_correct, m.correct_tasks),
            (0, 1, 1, 2)
        );
        assert_eq!(report.matrix["b"], [TaskCell::Correct]);
        // Differential testing finds b1 Divergent: not correct any more, until an auditor's note
        // says why the divergence does not matter.
        let divergent = avrlab_store::DifferentialRow {
            candidate_id: "b1".into(),
            verdict: Differential::Divergent,
            reason: String::new(),
            seed: 1,
            inputs: 3,
            divergent_inputs: 1,
            vulnerable_inputs: 0,
            seconds: 1.0,
            budget_seconds: 20.0,
            methods: Vec::new(),
            changed_lines: None,
            recorded_seeds: None,
            flags: Vec::new(),
            witness: None,
        };
        store.record_differential("e", &divergent).unwrap();
        assert_eq!(report.models[0].differential, None, "no row, no counts");
        let divergent_report = build_eval_report(&store, &["e".into()]).unwrap();
        let m = &divergent_report.models[0];
        assert_eq!((m.audited_correct, m.correct_tasks), (0, 1));
        // Two plausible candidates: b1 divergent, a0 (Exact) not compared.
        assert_eq!(
            m.differential,
            Some(DifferentialCounts {
                plausible: 2,
                divergent: 1,
                not_compared: 1,
                ..DifferentialCounts::default()
            })
        );
        assert_eq!(m.differential.unwrap().cell(), "2 · 0 · 1 · 0");
        let measured = DifferentialCounts {
            no_divergence: 1,
            no_divergence_changed_lines: 5,
            no_divergence_changed_lines_reached: 4,
            ..m.differential.unwrap()
        };
        assert_eq!(measured.cell(), "2 · 1 (4/5 lines) · 1 · 0");
        let noted = AuditRow {
            note: "differs only in the exception message".into(),
            ..label("bo", AuditLabel::Correct)
        };
        store.record_audits("e", &[noted]).unwrap();
        let noted_report = build_eval_report(&store, &["e".into()]).unwrap();
        let m = &noted_report.models[0];
        assert_eq!((m.audited_correct, m.correct_tasks), (1, 2));
        let markdown = crate::render(&report, crate::ReportFormat::Markdown);
        assert!(
            markdown.contains("1 plausible candidates audited by hand (1 correct)"),
            "{markdown}"
        );
    }

    /// One task, two runs of two samples: run 0 heard (one plausible sample, one without code),
    /// run 1's prompt errored. The errored samples count nowhere but in the completeness line.
    #[test]
    fn errored_samples_enter_no_denominator() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let run = NewRun {
            id: "e".into(),
            benchmark: "demo".into(),
            mode: RunMode::Eval,
            input_hash: "h".into(),
            config: RunConfig::parse(
                r#"{"model":"m","format":"chat-p1","samples":2,"runs":2,"fl_offset":0,"cwe":{"a":[22]}}"#,
            )
            .unwrap(),
        };
        store.create_run(&run, &[]).unwrap();
        let errored = |sample: u32| GenerationRow {
            class: Some(ItemClass::Errored),
            error_cause: Some(avrlab_store::ErrorCause::HttpStatus),
            error: Some("HTTP 500 after 6 attempt(s)".into()),
            ..generation("a", 1, sample, None, "NoAnswer", "Unknown")
        };
        let candidate = NewCandidate {
            id: "a0".into(),
            task: "a".into(),
            label: "a0".into(),
            kind: avrlab_core::CandidateKind::Diff,
            content: "a0".into(),
        };
        store
            .add_generations(
                "e",
                &[candidate],
                &[
                    generation("a", 0, 0, Some("a0"), "candidate", "Unknown"),
                    generation("a", 0, 1, None, "NoCode", "Unknown"),
                    errored(0),
                    errored(1),
                ],
            )
            .unwrap();
        store
            .record_verdict("e", "a0", &verdict(Outcome::Plausible))
            .unwrap();
        let report = build_eval_report(&store, &["e".to_owned()]).unwrap();
        let m = &report.models[0];
        assert_eq!(
            (m.tasks, m.samples, m.errors, m.plausible_tasks),
            (1, 2, 0, 1)
        );
        // Over the one heard prompt: 1 of 2 plausible; and no spread from a single whole run.
        assert_eq!((m.pass_at_1, m.pass_at_k), (Some(0.5), Some(1.0)));
        assert_eq!(m.plausible_across_runs, None);
        assert_eq!(
            m.completeness.line(),
            "registered 4 · judged 1 · model failures 1 · errored 2 (http-status 2) · retried 0"
        );
    }

    #[test]
    fn only_eval_runs_have_reports() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("r.sqlite")).unwrap();
        let run = NewRun {
            id: "v".into(),
            benchmark: "demo".into(),
            mode: RunMode::Reference,
            input_hash: "h".into(),
            config: RunConfig::default(),
        };
        store.create_run(&run, &[]).unwrap();
        assert!(matches!(
            build_eval_report(&store, &["v".to_owned()]),
            Err(ReportError::NotAnEval(..))
        ));
        assert!(matches!(
            build_eval_report(&store, &["nope".to_owned()]),
            Err(ReportError::UnknownRun(_))
        ));
    }

    #[test]
    fn a_replayed_transformed_variant_is_shown_under_its_name() {
        let replay = |variant: &str| RunConfig {
            replay: Some(avrlab_core::ReplaySource {
                variant: variant.to_owned(),
                ..Default::default()
            }),
            ..RunConfig::default()
        };
        assert_eq!(benchmark_label("vjbench", &replay("original")), "vjbench");
        assert_eq!(
            benchmark_label("vjbench", &replay("rename_only")),
            "vjbench (rename_only)"
        );
        assert_eq!(benchmark_label("vjbench", &RunConfig::default()), "vjbench");
    }
}
