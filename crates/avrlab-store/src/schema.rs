//! The store's tables. `user_version` carries the schema version; a newer file is refused rather
//! than misread.

/// The schema version this build writes.
pub(crate) const SCHEMA_VERSION: i64 = 1;

pub(crate) const CREATE: &str = r#"
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
CREATE INDEX IF NOT EXISTS phases_by_candidate ON phases(run_id, candidate_id);
CREATE INDEX IF NOT EXISTS tests_by_candidate ON test_results(run_id, candidate_id);
"#;
