//! Differential-testing results: per plausible candidate, what calling the changed methods on
//! generated inputs showed against the reference fix, with the witness of a divergence.

use rusqlite::params;

use crate::store::{Store, StoreError, word};
use avrlab_core::Differential;

/// One divergence, as an auditor needs it: where, on what, and what each version showed.
#[derive(Debug, Clone, PartialEq)]
pub struct WitnessRow {
    /// The method called, `Class.method(Types)`.
    pub method: String,
    /// The input, Java-like (`new HttpHeaders().addAll("a", List.of("x\n"))`).
    pub input: String,
    /// What the reference fix, the candidate and the vulnerable state showed on it.
    pub reference: String,
    pub candidate: String,
    pub vulnerable: String,
    /// The seed of this one input (the run's seed and the input's index make it).
    pub input_seed: i64,
}

/// How many of a candidate's changed lines the differential tester's inputs reached.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChangedLines {
    /// The changed lines that have code (a brace or a comment cannot be reached).
    pub total: u64,
    pub reached: u64,
}

impl std::fmt::Display for ChangedLines {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "changed lines reached: {} of {}",
            self.reached, self.total
        )
    }
}

/// A candidate's differential result.
#[derive(Debug, Clone, PartialEq)]
pub struct DifferentialRow {
    pub candidate_id: String,
    pub verdict: Differential,
    /// Why not applicable, or what was left out (methods no input could be made for).
    pub reason: String,
    pub seed: i64,
    /// Inputs tried, those on which the candidate diverged, and those on which it differed only
    /// where the fix changes behaviour.
    pub inputs: u64,
    pub divergent_inputs: u64,
    pub vulnerable_inputs: u64,
    pub seconds: f64,
    pub budget_seconds: f64,
    /// The methods called, one per line.
    pub methods: Vec<String>,
    /// The coverage of the candidate's changed lines; `None` where nothing was measured.
    pub changed_lines: Option<ChangedLines>,
    /// How many seeds of the generators were recorded from the task's tests at run time;
    /// `None` where no recording was made.
    pub recorded_seeds: Option<u64>,
    /// What in the candidate's new code could tell the tester from a test run (API families),
    /// one per entry; empty for a candidate that adds none.
    pub flags: Vec<String>,
    pub witness: Option<WitnessRow>,
}

impl Store {
    /// Stores (or replaces) a candidate's differential result.
    pub fn record_differential(
        &mut self,
        run_id: &str,
        row: &DifferentialRow,
    ) -> Result<(), StoreError> {
        let w = row.witness.as_ref();
        self.conn
            .execute(
                "INSERT OR REPLACE INTO differential (run_id, candidate_id, verdict, reason, seed,
                     inputs, divergent_inputs, vulnerable_inputs, seconds, budget_seconds, methods,
                     witness_method, witness_input, witness_reference, witness_candidate,
                     witness_vulnerable, witness_input_seed, changed_lines, changed_lines_reached,
                     recorded_seeds, flags, tested_at)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
                     ?18, ?19, ?20, ?21, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                params![
                    run_id,
                    row.candidate_id,
                    row.verdict.as_str(),
                    row.reason,
                    row.seed,
                    row.inputs as i64,
                    row.divergent_inputs as i64,
                    row.vulnerable_inputs as i64,
                    row.seconds,
                    row.budget_seconds,
                    row.methods.join("\n"),
                    w.map(|w| &w.method),
                    w.map(|w| &w.input),
                    w.map(|w| &w.reference),
                    w.map(|w| &w.candidate),
                    w.map(|w| &w.vulnerable),
                    w.map(|w| w.input_seed),
                    row.changed_lines.map(|c| c.total as i64),
                    row.changed_lines.map(|c| c.reached as i64),
                    row.recorded_seeds.map(|n| n as i64),
                    row.flags.join("\n"),
                ],
            )
            .map(drop)
            .map_err(self.err())
    }

    /// Every differential result of a run, in candidate order.
    pub fn differentials(&self, run_id: &str) -> Result<Vec<DifferentialRow>, StoreError> {
        self.all_rows(
            "SELECT d.candidate_id, d.verdict, d.reason, d.seed, d.inputs, d.divergent_inputs,
                 d.vulnerable_inputs, d.seconds, d.budget_seconds, d.methods, d.witness_method,
                 d.witness_input, d.witness_reference, d.witness_candidate, d.witness_vulnerable,
                 d.witness_input_seed, d.changed_lines, d.changed_lines_reached,
                 d.recorded_seeds, d.flags
             FROM differential d JOIN candidates c ON c.run_id = d.run_id AND c.id = d.candidate_id
             WHERE d.run_id = ?1 ORDER BY c.seq",
            [run_id],
            |r| {
                let method: Option<String> = r.get(10)?;
                let witness = match method {
                    Some(method) => Some(WitnessRow {
                        method,
                        input: r.get(11)?,
                        reference: r.get(12)?,
                        candidate: r.get(13)?,
                        vulnerable: r.get(14)?,
                        input_seed: r.get(15)?,
                    }),
                    None => None,
                };
                let methods: String = r.get(9)?;
                let total: Option<i64> = r.get(16)?;
                let reached: Option<i64> = r.get(17)?;
                let changed_lines = total.zip(reached).map(|(total, reached)| ChangedLines {
                    total: total as u64,
                    reached: reached as u64,
                });
                Ok(DifferentialRow {
                    candidate_id: r.get(0)?,
                    verdict: word(r, 1, Differential::parse)?,
                    reason: r.get(2)?,
                    seed: r.get(3)?,
                    inputs: r.get::<_, i64>(4)? as u64,
                    divergent_inputs: r.get::<_, i64>(5)? as u64,
                    vulnerable_inputs: r.get::<_, i64>(6)? as u64,
                    seconds: r.get(7)?,
                    budget_seconds: r.get(8)?,
                    methods: methods.lines().map(str::to_owned).collect(),
                    changed_lines,
                    recorded_seeds: r.get::<_, Option<i64>>(18)?.map(|n| n as u64),
                    flags: r.get::<_, String>(19)?.lines().map(str::to_owned).collect(),
                    witness,
                })
            },
        )
    }
}
