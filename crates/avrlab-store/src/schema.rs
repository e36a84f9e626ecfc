//! The store's tables, as numbered migrations: `user_version` carries how many have been applied
//! (an older store is upgraded when opened, a newer one refused rather than misread), and
//! `application_id` marks the file as an avrlab store.

use rusqlite_migration::{M, Migrations};

/// `application_id` of every avrlab store ("AVRL").
pub(crate) const APPLICATION_ID: i32 = 0x4156_524C;

/// The migrations, oldest first; the schema version is their count.
pub(crate) fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2_ENGINES),
        M::up(V3_AUDITS),
        M::up(V4_STUDIES),
        M::up(V5_FEATURE_SCORES),
        M::up(V6_ENGINE_FLAGS),
        M::up(V7_DIFFERENTIAL),
        M::up(V8_DIFFERENTIAL_COVERAGE),
        M::up(V9_DIFFERENTIAL_RECORDED_SEEDS),
        M::up(V10_ITEM_CLASSES),
        M::up(V11_GENERATION_COST),
        M::up(V12_VERDICT_CLASSES),
        M::up(V13_TASK_DATES),
        M::up(V14_PROBE_SCORES),
        M::up(V15_DIFFERENTIAL_FLAGS),
    ])
}

/// The schema version this build writes.
pub(crate) const SCHEMA_VERSION: i64 = 15;

/// Version 1: runs, candidates, verdicts with their phases and tests, and eval generations.
/// (`IF NOT EXISTS` because version 1 was once created on every open, before migrations.)
pub(crate) const V1: &str = r#"
CREATE TABLE IF NOT EXISTS runs (
    id           TEXT PRIMARY KEY,
    created_at   TEXT NOT NULL,
    benchmark    TEXT NOT NULL,
    mode         TEXT NOT NULL,
    input_hash   TEXT NOT NULL,
    config       TEXT NOT NULL,
    finished_at  TEXT,
    last_error   TEXT
);
CREATE TABLE IF NOT EXISTS candidates (
    run_id   TEXT NOT NULL REFERENCES runs(id),
    id       TEXT NOT NULL,
    seq      INTEGER NOT NULL,
    task     TEXT NOT NULL,
    label    TEXT NOT NULL,
    kind     TEXT NOT NULL,
    content  TEXT NOT NULL,
    PRIMARY KEY (run_id, id)
);
CREATE TABLE IF NOT EXISTS verdicts (
    run_id       TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    outcome      TEXT NOT NULL,
    reason       TEXT NOT NULL,
    wall_ms      INTEGER NOT NULL,
    diagnostics  TEXT NOT NULL,
    finished_at  TEXT NOT NULL,
    PRIMARY KEY (run_id, candidate_id),
    FOREIGN KEY (run_id, candidate_id) REFERENCES candidates(run_id, id)
);
CREATE TABLE IF NOT EXISTS phases (
    run_id       TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    phase        TEXT NOT NULL,
    wall_ms      INTEGER NOT NULL,
    exit         TEXT NOT NULL,
    enforcement  TEXT NOT NULL,
    log          TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS test_results (
    run_id       TEXT NOT NULL,
    candidate_id TEXT NOT NULL,
    phase        TEXT NOT NULL,
    class        TEXT NOT NULL,
    method       TEXT NOT NULL,
    status       TEXT NOT NULL,
    seconds      REAL NOT NULL,
    message      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS generations (
    run_id         TEXT NOT NULL REFERENCES runs(id),
    id             TEXT NOT NULL,
    seq            INTEGER NOT NULL,
    task           TEXT NOT NULL,
    model          TEXT NOT NULL,
    format         TEXT NOT NULL,
    fl_offset      INTEGER NOT NULL,
    fl_effective   INTEGER NOT NULL,
    run_index      INTEGER NOT NULL,
    sample         INTEGER NOT NULL,
    prompt_hash    TEXT NOT NULL,
    raw            TEXT NOT NULL,
    finish_reason  TEXT NOT NULL,
    tokens_in      INTEGER,
    tokens_out     INTEGER,
    latency_ms     INTEGER NOT NULL,
    cached         INTEGER NOT NULL,
    error          TEXT,
    extraction     TEXT NOT NULL,
    candidate_id   TEXT,
    correct        TEXT NOT NULL DEFAULT 'Unknown',
    PRIMARY KEY (run_id, id)
);
CREATE INDEX IF NOT EXISTS phases_by_candidate ON phases(run_id, candidate_id);
CREATE INDEX IF NOT EXISTS tests_by_candidate ON test_results(run_id, candidate_id);
"#;

/// Version 2: which engine decided each verdict, and the fast path's view where Maven re-checked
/// it. (Some version-1 stores already have it.)
const V2_ENGINES: &str = r#"
CREATE TABLE IF NOT EXISTS engines (
    run_id         TEXT NOT NULL,
    candidate_id   TEXT NOT NULL,
    engine         TEXT NOT NULL,
    fallback       TEXT,
    check_kind     TEXT,
    fast_outcome   TEXT,
    fast_reason    TEXT,
    maven_outcome  TEXT,
    PRIMARY KEY (run_id, candidate_id)
);
"#;

/// Version 3: people's labels of plausible candidates (`avrlab audit`), one per auditor.
const V3_AUDITS: &str = r#"
CREATE TABLE audits (
    run_id        TEXT NOT NULL,
    candidate_id  TEXT NOT NULL,
    auditor       TEXT NOT NULL,
    label         TEXT NOT NULL,
    note          TEXT NOT NULL,
    labelled_at   TEXT NOT NULL,
    PRIMARY KEY (run_id, candidate_id, auditor),
    FOREIGN KEY (run_id, candidate_id) REFERENCES candidates(run_id, id)
);
"#;

/// Version 4: studies (`avrlab study`: a plan of cells, each an eval run) and a reviewer model's
/// judgement of each candidate, beside its test verdict.
const V4_STUDIES: &str = r#"
CREATE TABLE studies (
    id           TEXT PRIMARY KEY,
    created_at   TEXT NOT NULL,
    plan_hash    TEXT NOT NULL,
    plan         TEXT NOT NULL,
    finished_at  TEXT
);
CREATE TABLE study_cells (
    study_id   TEXT NOT NULL REFERENCES studies(id),
    seq        INTEGER NOT NULL,
    run_id     TEXT NOT NULL,
    benchmark  TEXT NOT NULL,
    variant    TEXT NOT NULL,
    model      TEXT NOT NULL,
    format     TEXT NOT NULL,
    fl_offset  INTEGER NOT NULL,
    PRIMARY KEY (study_id, seq)
);
CREATE TABLE reviews (
    run_id        TEXT NOT NULL,
    candidate_id  TEXT NOT NULL,
    reviewer      TEXT NOT NULL,
    decision      TEXT NOT NULL,
    reason        TEXT NOT NULL,
    raw           TEXT NOT NULL,
    latency_ms    INTEGER NOT NULL,
    cached        INTEGER NOT NULL,
    error         TEXT,
    reviewed_at   TEXT NOT NULL,
    PRIMARY KEY (run_id, candidate_id, reviewer),
    FOREIGN KEY (run_id, candidate_id) REFERENCES candidates(run_id, id)
);
"#;

/// Version 5: the two verdicts of a prediction for a secure-feature task — functional tests and
/// security tests — next to its verdict row (whose outcome folds them into one word).
const V5_FEATURE_SCORES: &str = r#"
CREATE TABLE feature_scores (
    run_id        TEXT NOT NULL,
    candidate_id  TEXT NOT NULL,
    func          TEXT NOT NULL,
    func_reason   TEXT NOT NULL,
    sec           TEXT NOT NULL,
    sec_reason    TEXT NOT NULL,
    PRIMARY KEY (run_id, candidate_id),
    FOREIGN KEY (run_id, candidate_id) REFERENCES candidates(run_id, id)
);
"#;

/// Version 6: why a fast verdict was flagged for Maven (what the candidate's code reached for at
/// run time or adds in its diff), one reason a line; empty when it was not.
const V6_ENGINE_FLAGS: &str = r#"
ALTER TABLE engines ADD COLUMN flags TEXT NOT NULL DEFAULT '';
"#;

/// Version 7: what differential testing against the reference fix showed of a plausible candidate
/// (`avrlab diff-test`): its verdict, the inputs tried and the time taken, and for a divergence
/// the witness — the method, the input, what each version showed — with the seeds that make it
/// again.
const V7_DIFFERENTIAL: &str = r#"
CREATE TABLE differential (
    run_id             TEXT NOT NULL,
    candidate_id       TEXT NOT NULL,
    verdict            TEXT NOT NULL,
    reason             TEXT NOT NULL,
    seed               INTEGER NOT NULL,
    inputs             INTEGER NOT NULL,
    divergent_inputs   INTEGER NOT NULL,
    vulnerable_inputs  INTEGER NOT NULL,
    seconds            REAL NOT NULL,
    budget_seconds     REAL NOT NULL,
    methods            TEXT NOT NULL,
    witness_method     TEXT,
    witness_input      TEXT,
    witness_reference  TEXT,
    witness_candidate  TEXT,
    witness_vulnerable TEXT,
    witness_input_seed INTEGER,
    tested_at          TEXT NOT NULL,
    PRIMARY KEY (run_id, candidate_id),
    FOREIGN KEY (run_id, candidate_id) REFERENCES candidates(run_id, id)
);
"#;

/// Version 8: how many of the candidate's changed lines (those with code) the differential
/// tester's inputs reached, measured with JaCoCo; NULL where nothing was measured (not applicable,
/// or compared before version 8).
const V8_DIFFERENTIAL_COVERAGE: &str = r#"
ALTER TABLE differential ADD COLUMN changed_lines INTEGER;
ALTER TABLE differential ADD COLUMN changed_lines_reached INTEGER;
"#;

/// Version 9: how many of the values that seeded the differential tester's generators were
/// recorded as the task's tests passed them to the changed methods (the rest are literals of
/// the sources); NULL where nothing was recorded or before version 9.
const V9_DIFFERENTIAL_RECORDED_SEEDS: &str = r#"
ALTER TABLE differential ADD COLUMN recorded_seeds INTEGER;
"#;

/// Version 10: how each eval sample ended (`class`: judged, model failure or errored; NULL while
/// its candidate awaits a verdict), why an errored one was (`error_cause`), and which attempt at
/// it the row is. An errored sample asked again keeps its earlier attempts in
/// `generation_attempts`. Older rows: a sample without a candidate was the model's failure (a
/// failed call stopped the run before version 10, so none was stored), one with a verdict judged
/// — or the model's failure when its diff did not apply.
const V10_ITEM_CLASSES: &str = r#"
ALTER TABLE generations ADD COLUMN class TEXT;
ALTER TABLE generations ADD COLUMN error_cause TEXT;
ALTER TABLE generations ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
UPDATE generations SET class = 'model-failure' WHERE candidate_id IS NULL;
UPDATE generations SET class = (
    SELECT CASE v.outcome WHEN 'ApplyFailed' THEN 'model-failure' ELSE 'judged' END
    FROM verdicts v WHERE v.run_id = generations.run_id AND v.candidate_id = generations.candidate_id
) WHERE candidate_id IS NOT NULL;
CREATE TABLE generation_attempts (
    run_id         TEXT NOT NULL,
    id             TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    raw            TEXT NOT NULL,
    finish_reason  TEXT NOT NULL,
    latency_ms     INTEGER NOT NULL,
    cached         INTEGER NOT NULL,
    error          TEXT,
    class          TEXT,
    error_cause    TEXT,
    superseded_at  TEXT NOT NULL,
    PRIMARY KEY (run_id, id, attempt)
);
"#;

/// Version 11: what each eval sample cost in US dollars (reported by the provider or the agent,
/// or its tokens at the model's price); NULL where it is not known, as for every older row.
const V11_GENERATION_COST: &str = r#"
ALTER TABLE generations ADD COLUMN cost_usd REAL;
"#;

/// Version 12: how each verdict ended for the run's denominators (`class`: judged, model failure
/// — a diff that does not apply — or errored, when the infrastructure failed the validation, with
/// its `error_cause`), and which attempt at the candidate it is. A verdict validated again
/// (`--retry`) moves to `verdict_attempts` with its evidence (its phases and tests as JSON).
const V12_VERDICT_CLASSES: &str = r#"
ALTER TABLE verdicts ADD COLUMN class TEXT NOT NULL DEFAULT 'judged';
ALTER TABLE verdicts ADD COLUMN error_cause TEXT;
ALTER TABLE verdicts ADD COLUMN attempt INTEGER NOT NULL DEFAULT 1;
UPDATE verdicts SET class = 'model-failure' WHERE outcome = 'ApplyFailed';
CREATE TABLE verdict_attempts (
    run_id         TEXT NOT NULL,
    candidate_id   TEXT NOT NULL,
    attempt        INTEGER NOT NULL,
    outcome        TEXT NOT NULL,
    reason         TEXT NOT NULL,
    class          TEXT NOT NULL,
    error_cause    TEXT,
    wall_ms        INTEGER NOT NULL,
    phases         TEXT NOT NULL,
    tests          TEXT NOT NULL,
    superseded_at  TEXT NOT NULL,
    PRIMARY KEY (run_id, candidate_id, attempt)
);
"#;

/// Version 13: each task's dates as the run saw them (the fix commit's author and committer
/// dates, the CVE's publication date; NULL where the task does not know), so a report can split
/// a run's scores at a model's training cut-off from the store alone.
const V13_TASK_DATES: &str = r#"
CREATE TABLE task_dates (
    run_id         TEXT NOT NULL REFERENCES runs(id),
    task           TEXT NOT NULL,
    fix_authored   TEXT,
    fix_committed  TEXT,
    cve_published  TEXT,
    PRIMARY KEY (run_id, task)
);
"#;

/// Version 14: the memorization probe's score of each task for each model (`avrlab probe`): how
/// many of the lines and whitespace-separated tokens after the fix's first changed line the
/// model's greedy continuation reproduced of the fixed file and of the vulnerable one, whether
/// it reproduced the whole window of the fix, and, where the back end gives log-probabilities,
/// the fix window's mean token log-likelihood as it is and under the task's renaming. A task
/// probed again replaces its row.
const V14_PROBE_SCORES: &str = r#"
CREATE TABLE probe_scores (
    benchmark                TEXT NOT NULL,
    model                    TEXT NOT NULL,
    task                     TEXT NOT NULL,
    probed_at                TEXT NOT NULL,
    file                     TEXT NOT NULL,
    line                     INTEGER NOT NULL,
    lines_compared           INTEGER NOT NULL,
    fix_lines                INTEGER NOT NULL,
    vulnerable_lines         INTEGER NOT NULL,
    tokens_compared          INTEGER NOT NULL,
    fix_tokens               INTEGER NOT NULL,
    vulnerable_tokens        INTEGER NOT NULL,
    memorized                INTEGER NOT NULL,
    fix_log_likelihood       REAL,
    renamed_log_likelihood   REAL,
    continuation             TEXT NOT NULL,
    note                     TEXT NOT NULL,
    PRIMARY KEY (benchmark, model, task)
);
"#;

/// Version 15: what in a compared candidate's new code could tell the differential tester from a
/// test run, or reach for the tester's channel (the API families of the fast path's flags), one
/// per line: a `NoDivergence` with flags is no evidence of correctness.
const V15_DIFFERENTIAL_FLAGS: &str = r#"
ALTER TABLE differential ADD COLUMN flags TEXT NOT NULL DEFAULT '';
"#;
