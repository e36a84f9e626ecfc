//! Opening the store and reading and writing its rows.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use avrlab_core::{
    AuditLabel, CandidateKind, CheckKind, Correctness, Engine, ErrorCause, Extraction, ItemClass,
    Outcome, Phase, RunConfig, RunMode, TestGroupResult, TestStatus, UnknownWord,
};
use rusqlite::{Connection, OptionalExtension, params};

use crate::schema::{APPLICATION_ID, SCHEMA_VERSION, migrations};

/// Why the store could not be used.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// The file exists but is not a SQLite database.
    #[error(
        "{0} is not an avrlab results store (not a SQLite database): give another --store path"
    )]
    NotADatabase(PathBuf),
    /// The file was written by a newer avrlab.
    #[error(
        "{path} has store schema {found}; this avrlab reads {SCHEMA_VERSION}: upgrade avrlab or use another --store"
    )]
    Version { path: PathBuf, found: i64 },
    /// Its folder could not be created.
    #[error("cannot create the folder of {path}")]
    Folder {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// The file is an SQLite database of something else.
    #[error("{0} is an SQLite database but not an avrlab results store: give another --store path")]
    NotAStore(PathBuf),
    /// The schema could not be brought up to date.
    #[error("cannot upgrade the results store {path} to schema {SCHEMA_VERSION}")]
    Migration {
        path: PathBuf,
        #[source]
        source: rusqlite_migration::Error,
    },
    /// An audit names a candidate the run does not have.
    #[error("run `{run}` has no candidate `{candidate}`: audit only candidates of that run")]
    UnknownCandidate { run: String, candidate: String },
    /// A run id was reused.
    #[error(
        "the store already has a run `{0}`: pass --resume --run {0} to continue it, or another --run id"
    )]
    RunExists(String),
    /// SQLite failed.
    #[error("results store {path}")]
    Sqlite {
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },
}

impl avrlab_core::Blamed for StoreError {
    /// The user's file is at fault (not a store, a newer one, a run id taken, an unknown
    /// candidate); anything else is the machine's.
    fn blame(&self) -> avrlab_core::Blame {
        use avrlab_core::Blame;
        match self {
            Self::NotADatabase(_)
            | Self::NotAStore(_)
            | Self::Version { .. }
            | Self::RunExists(_)
            | Self::UnknownCandidate { .. } => Blame::Input,
            Self::Folder { .. } | Self::Migration { .. } | Self::Sqlite { .. } => {
                Blame::Infrastructure
            }
        }
    }
}

/// Reads a column that holds a word of one of the store's enums.
pub(crate) fn word<T>(
    row: &rusqlite::Row<'_>,
    index: usize,
    parse: fn(&str) -> Result<T, UnknownWord>,
) -> rusqlite::Result<T> {
    let text: String = row.get(index)?;
    parse(&text).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(index, rusqlite::types::Type::Text, Box::new(e))
    })
}

/// Reads a nullable column that holds a word of one of the store's enums.
fn optional_word<T>(
    row: &rusqlite::Row<'_>,
    index: usize,
    parse: fn(&str) -> Result<T, UnknownWord>,
) -> rusqlite::Result<Option<T>> {
    let text: Option<String> = row.get(index)?;
    text.map(|text| {
        parse(&text).map_err(|e| {
            rusqlite::Error::FromSqlConversionFailure(
                index,
                rusqlite::types::Type::Text,
                Box::new(e),
            )
        })
    })
    .transpose()
}

/// The columns of a run, in the order `run_from_row` reads them.
const RUN_SELECT: &str =
    "SELECT id, created_at, benchmark, mode, input_hash, config, finished_at, last_error FROM runs";

/// A run to create.
#[derive(Debug, Clone)]
pub struct NewRun {
    pub id: String,
    pub benchmark: String,
    pub mode: RunMode,
    /// A hash of everything that defines the run's candidates, so a resume can check its input.
    pub input_hash: String,
    /// The run's settings.
    pub config: RunConfig,
}

/// A candidate to register with its run.
#[derive(Debug, Clone)]
pub struct NewCandidate {
    pub id: String,
    pub task: String,
    pub label: String,
    /// What `content` is; stored as its word (`unchanged`, `diff`, `replacement:<target>`,
    /// `malformed`).
    pub kind: CandidateKind,
    pub content: String,
}

/// A stored candidate.
pub type CandidateRow = NewCandidate;

/// One model sample of an eval run, whatever became of it.
#[derive(Debug, Clone, PartialEq)]
pub struct GenerationRow {
    /// `task/model/format/offset/run/sample`.
    pub id: String,
    pub task: String,
    pub model: String,
    pub format: String,
    pub fl_offset: i64,
    /// The offset actually applied after clamping inside the method.
    pub fl_effective: i64,
    pub run_index: u32,
    pub sample: u32,
    pub prompt_hash: String,
    pub raw: String,
    pub finish_reason: String,
    pub tokens_in: Option<u32>,
    pub tokens_out: Option<u32>,
    /// What the sample cost in US dollars; `None` when not known (no price, no usage, an agent
    /// that reported none), never 0 in its place.
    pub cost_usd: Option<f64>,
    pub latency_ms: u64,
    pub cached: bool,
    /// Why the model gave no answer for this prompt (e.g. the prompt exceeds its context).
    pub error: Option<String>,
    /// A candidate, a duplicate, or why no candidate came out.
    pub extraction: Extraction,
    /// The candidate validated for this sample (shared by duplicates).
    pub candidate_id: Option<String>,
    /// `Exact` when the candidate equals the reference fix up to layout, else `Unknown`.
    pub correct: Correctness,
    /// How the sample ended; `None` while its candidate awaits a verdict (the store sets it
    /// when the verdict is recorded, for duplicates too).
    pub class: Option<ItemClass>,
    /// Why an errored sample's model was not heard; `None` for every other class.
    pub error_cause: Option<ErrorCause>,
    /// Which attempt at the sample this row is (1, then one more each time an errored sample is
    /// asked again; the earlier attempts are kept beside it).
    pub attempt: u32,
}

/// A stored run.
#[derive(Debug, Clone)]
pub struct RunInfo {
    pub id: String,
    pub created_at: String,
    pub benchmark: String,
    pub mode: RunMode,
    pub input_hash: String,
    pub config: RunConfig,
    pub finished_at: Option<String>,
    /// Why the run last stopped early, if it did.
    pub last_error: Option<String>,
}

/// One phase of a verdict.
#[derive(Debug, Clone)]
pub struct PhaseRow {
    pub phase: Phase,
    pub wall_ms: u64,
    pub exit: String,
    pub enforcement: String,
    pub log: String,
}

/// One test result of a verdict.
#[derive(Debug, Clone)]
pub struct TestRow {
    pub phase: Phase,
    pub class: String,
    pub method: String,
    pub status: TestStatus,
    pub seconds: f64,
    pub message: String,
}

/// A task's dates as a run stored them: ISO 8601 dates or date-times, `None` where unknown.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskDatesRow {
    pub task: String,
    /// The fix commit's author date.
    pub fix_authored: Option<String>,
    /// The fix commit's committer date.
    pub fix_committed: Option<String>,
    /// The CVE's publication date.
    pub cve_published: Option<String>,
}

/// The memorization probe's score of one task for one model (see `avrlab probe`).
#[derive(Debug, Clone, PartialEq)]
pub struct ProbeScoreRow {
    pub benchmark: String,
    pub model: String,
    pub task: String,
    /// The file probed and the (1-based) line of the fix's first change in it.
    pub file: String,
    pub line: u32,
    /// The window compared: lines of the fixed file from that line on, and their tokens.
    pub lines_compared: u32,
    pub tokens_compared: u32,
    /// Leading lines and tokens of the continuation equal to the fixed file's.
    pub fix_lines: u32,
    pub fix_tokens: u32,
    /// Leading lines and tokens of the continuation equal to the vulnerable file's.
    pub vulnerable_lines: u32,
    pub vulnerable_tokens: u32,
    /// Whether the continuation reproduced the whole window of the fix.
    pub memorized: bool,
    /// The fix window's mean token log-likelihood, as it is and under the task's renaming;
    /// `None` where the back end gives no log-probabilities (or the renaming did not apply).
    pub fix_log_likelihood: Option<f64>,
    pub renamed_log_likelihood: Option<f64>,
    /// What the model wrote.
    pub continuation: String,
    /// Why a measure is missing, or empty.
    pub note: String,
}

/// One auditor's label of one candidate.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct AuditRow {
    pub candidate_id: String,
    pub auditor: String,
    pub label: AuditLabel,
    pub note: String,
    /// When it was labelled (UTC, ISO 8601); empty when recording means now.
    pub labelled_at: String,
}

/// Which engine decided a verdict, and the fast path's view where Maven re-checked it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EngineRow {
    pub engine: Engine,
    /// Why the fast path handed the candidate to Maven.
    pub fallback: Option<String>,
    /// Why both engines judged the candidate, when they did.
    pub check_kind: Option<CheckKind>,
    pub fast_outcome: Option<Outcome>,
    pub fast_reason: Option<String>,
    pub maven_outcome: Option<Outcome>,
    /// Why the candidate was flagged for Maven, one reason each (empty: not flagged).
    pub flags: Vec<String>,
}

impl EngineRow {
    /// A verdict `engine` decided alone: no fallback, no cross-check, no flags.
    pub fn decided_by(engine: Engine) -> Self {
        Self {
            engine,
            fallback: None,
            check_kind: None,
            fast_outcome: None,
            fast_reason: None,
            maven_outcome: None,
            flags: Vec::new(),
        }
    }
}

/// A verdict with its evidence, written in one transaction.
#[derive(Debug, Clone)]
pub struct VerdictRow {
    pub outcome: Outcome,
    pub reason: String,
    pub wall_ms: u64,
    pub diagnostics: Vec<String>,
    pub phases: Vec<PhaseRow>,
    pub tests: Vec<TestRow>,
    /// Which engine decided (`None`: not recorded, as for a stand-in oracle's verdicts).
    pub engine: Option<EngineRow>,
    /// Why the infrastructure failed this validation (the verdict is then errored); `None` for
    /// a verdict the candidate earned.
    pub error_cause: Option<ErrorCause>,
}

impl VerdictRow {
    /// The verdict's class: errored when the infrastructure failed it, else its outcome's.
    pub fn class(&self) -> ItemClass {
        match self.error_cause {
            Some(_) => ItemClass::Errored,
            None => ItemClass::of_outcome(self.outcome),
        }
    }
}

/// A verdict as listed in summaries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VerdictSummary {
    pub candidate_id: String,
    pub task: String,
    pub label: String,
    pub outcome: Outcome,
    pub reason: String,
    pub wall_ms: u64,
    /// Judged, the model's failure (a diff that does not apply) or errored.
    pub class: ItemClass,
    /// Why an errored verdict's validation failed.
    pub error_cause: Option<ErrorCause>,
    /// Which attempt at the candidate this verdict is (1, and one more per `--retry`).
    pub attempt: u32,
    /// The last phase the verdict's validation ran (the one that decided it); `None` when no
    /// phase ran (a diff that did not apply).
    pub last_phase: Option<Phase>,
}

/// The functional and security results of one feature prediction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FeatureScoreRow {
    pub func: TestGroupResult,
    pub func_reason: String,
    pub sec: TestGroupResult,
    pub sec_reason: String,
}

/// The results store.
#[derive(Debug)]
pub struct Store {
    pub(crate) conn: Connection,
    pub(crate) path: PathBuf,
}

/// How long an open or a write waits for another avrlab that holds the store's lock.
const BUSY_TIMEOUT: std::time::Duration = std::time::Duration::from_secs(10);

/// Puts the store in WAL mode. The switch needs the file to itself for a moment, and SQLite does
/// not wait for that (another avrlab opening the same new store has it open): it is tried again
/// for as long as the busy timeout. Once in WAL mode, the file stays so and the switch is a no-op.
fn write_ahead_log(conn: &Connection) -> rusqlite::Result<()> {
    let deadline = std::time::Instant::now() + BUSY_TIMEOUT;
    loop {
        match conn.pragma_update(None, "journal_mode", "WAL") {
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::DatabaseBusy
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            done => return done,
        }
    }
}

/// Brings the schema of the store at `path`, found at `version`, up to date. Two processes that
/// open the same new store at once both read the old version; the one that upgrades second fails
/// (the tables exist) with its transaction rolled back, so it tries again from the version the
/// other one wrote, as long as each failure finds the version moved on.
fn upgrade(conn: &mut Connection, path: &Path, mut version: i64) -> Result<(), StoreError> {
    loop {
        let Err(source) = migrations().to_latest(conn) else {
            return Ok(());
        };
        let now: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap_or(version);
        if now <= version {
            return Err(StoreError::Migration {
                path: path.to_owned(),
                source,
            });
        }
        version = now;
    }
}

impl Store {
    /// Opens the store at `path`, creating it (and its folder) when missing.
    pub fn open(path: &Path) -> Result<Self, StoreError> {
        if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
            std::fs::create_dir_all(parent).map_err(|source| StoreError::Folder {
                path: path.to_owned(),
                source,
            })?;
        }
        let sqlite = |source| StoreError::Sqlite {
            path: path.to_owned(),
            source,
        };
        let mut conn = Connection::open(path).map_err(sqlite)?;
        // Set first: another avrlab may hold the store's lock (a shard writing while `slurm
        // status` reads), and the pragmas below wait for it too.
        conn.busy_timeout(BUSY_TIMEOUT).map_err(sqlite)?;
        // One statement, so one snapshot: another avrlab may be creating the same store.
        let found = conn.query_row(
            "SELECT (SELECT user_version FROM pragma_user_version), \
                    (SELECT application_id FROM pragma_application_id), \
                    (SELECT count(*) FROM sqlite_master)",
            [],
            |r| {
                Ok((
                    r.get::<_, i64>(0)?,
                    r.get::<_, i32>(1)?,
                    r.get::<_, i64>(2)?,
                ))
            },
        );
        let (version, application, tables) = match found {
            Ok(found) => found,
            Err(rusqlite::Error::SqliteFailure(e, _))
                if e.code == rusqlite::ErrorCode::NotADatabase =>
            {
                return Err(StoreError::NotADatabase(path.to_owned()));
            }
            Err(e) => return Err(sqlite(e)),
        };
        // Another program's database is never written to: one marked as such, or one with
        // tables that no avrlab made.
        if application != APPLICATION_ID && (application != 0 || (version == 0 && tables > 0)) {
            return Err(StoreError::NotAStore(path.to_owned()));
        }
        if version > SCHEMA_VERSION {
            return Err(StoreError::Version {
                path: path.to_owned(),
                found: version,
            });
        }
        // WAL keeps readers (reports) and the writer apart, and survives kill -9 without losing
        // a committed verdict.
        write_ahead_log(&conn).map_err(sqlite)?;
        conn.pragma_update(None, "synchronous", "NORMAL")
            .map_err(sqlite)?;
        conn.pragma_update(None, "foreign_keys", "ON")
            .map_err(sqlite)?;
        upgrade(&mut conn, path, version)?;
        conn.pragma_update(None, "application_id", APPLICATION_ID)
            .map_err(sqlite)?;
        Ok(Self {
            conn,
            path: path.to_owned(),
        })
    }

    /// The file this store lives in.
    pub fn path(&self) -> &Path {
        &self.path
    }

    pub(crate) fn err(&self) -> impl Fn(rusqlite::Error) -> StoreError + '_ {
        |source| StoreError::Sqlite {
            path: self.path.clone(),
            source,
        }
    }

    /// Every row of a query, each mapped by `row`.
    pub(crate) fn all_rows<T>(
        &self,
        sql: &str,
        params: impl rusqlite::Params,
        row: impl FnMut(&rusqlite::Row<'_>) -> rusqlite::Result<T>,
    ) -> Result<Vec<T>, StoreError> {
        let mut stmt = self.conn.prepare(sql).map_err(self.err())?;
        let rows = stmt.query_map(params, row).map_err(self.err())?;
        rows.collect::<Result<_, _>>().map_err(self.err())
    }

    /// Creates a run with all its candidates, atomically.
    pub fn create_run(
        &mut self,
        run: &NewRun,
        candidates: &[NewCandidate],
    ) -> Result<(), StoreError> {
        self.insert_run(run, candidates, false).map(|_| ())
    }

    /// Registers a run under a fresh id: `run.id` if no run has it, else the first free of
    /// `run.id-2`, `run.id-3`, … The id is chosen and the run inserted in one write
    /// transaction, so two runs started at once (in one process or several) never share an
    /// id. Returns the id.
    pub fn create_fresh_run(
        &mut self,
        run: &NewRun,
        candidates: &[NewCandidate],
    ) -> Result<String, StoreError> {
        self.insert_run(run, candidates, true)
    }

    fn insert_run(
        &mut self,
        run: &NewRun,
        candidates: &[NewCandidate],
        fresh: bool,
    ) -> Result<String, StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        // Immediate: the write lock is taken before the id is looked up.
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(sqlite)?;
        let taken = |id: &str| -> Result<bool, StoreError> {
            tx.query_row("SELECT 1 FROM runs WHERE id = ?1", [id], |_| Ok(()))
                .optional()
                .map(|found| found.is_some())
                .map_err(sqlite)
        };
        let mut id = run.id.clone();
        let mut suffix = 1;
        while taken(&id)? {
            if !fresh {
                return Err(StoreError::RunExists(run.id.clone()));
            }
            suffix += 1;
            id = format!("{}-{suffix}", run.id);
        }
        tx.execute(
            "INSERT INTO runs (id, created_at, benchmark, mode, input_hash, config)
             VALUES (?1, datetime('now'), ?2, ?3, ?4, ?5)",
            params![
                id,
                run.benchmark,
                run.mode.as_str(),
                run.input_hash,
                run.config.to_json()
            ],
        )
        .map_err(sqlite)?;
        {
            let mut insert = tx
                .prepare("INSERT INTO candidates (run_id, id, seq, task, label, kind, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                .map_err(sqlite)?;
            for (seq, c) in candidates.iter().enumerate() {
                insert
                    .execute(params![
                        id,
                        c.id,
                        seq as i64,
                        c.task,
                        c.label,
                        c.kind.to_string(),
                        c.content
                    ])
                    .map_err(sqlite)?;
            }
        }
        tx.commit().map_err(sqlite)?;
        Ok(id)
    }

    /// The one run a `WHERE …` clause selects, if any.
    fn one_run(
        &self,
        clause: &str,
        params: impl rusqlite::Params,
    ) -> Result<Option<RunInfo>, StoreError> {
        self.conn
            .query_row(
                &format!("{RUN_SELECT} {clause}"),
                params,
                Self::run_from_row,
            )
            .optional()
            .map_err(self.err())
    }

    fn run_from_row(row: &rusqlite::Row<'_>) -> rusqlite::Result<RunInfo> {
        Ok(RunInfo {
            id: row.get(0)?,
            created_at: row.get(1)?,
            benchmark: row.get(2)?,
            mode: word(row, 3, RunMode::parse)?,
            input_hash: row.get(4)?,
            config: {
                let text: String = row.get(5)?;
                RunConfig::parse(&text).map_err(|e| {
                    rusqlite::Error::FromSqlConversionFailure(
                        5,
                        rusqlite::types::Type::Text,
                        Box::new(e),
                    )
                })?
            },
            finished_at: row.get(6)?,
            last_error: row.get(7)?,
        })
    }

    /// The run with this id.
    pub fn run(&self, id: &str) -> Result<Option<RunInfo>, StoreError> {
        self.one_run("WHERE id = ?1", [id])
    }

    /// The newest run of this mode and benchmark that has not finished.
    pub fn latest_unfinished_run(
        &self,
        mode: RunMode,
        benchmark: &str,
    ) -> Result<Option<RunInfo>, StoreError> {
        self.one_run(
            "WHERE mode = ?1 AND benchmark = ?2 AND finished_at IS NULL ORDER BY rowid DESC LIMIT 1",
            [mode.as_str(), benchmark],
        )
    }

    /// Every run, oldest first.
    pub fn runs(&self) -> Result<Vec<RunInfo>, StoreError> {
        self.all_rows(
            &format!("{RUN_SELECT} ORDER BY rowid"),
            [],
            Self::run_from_row,
        )
    }

    /// The run's candidates in their original order.
    pub fn candidates(&self, run_id: &str) -> Result<Vec<CandidateRow>, StoreError> {
        self.all_rows(
            "SELECT id, task, label, kind, content FROM candidates WHERE run_id = ?1 ORDER BY seq",
            [run_id],
            |r| {
                Ok(NewCandidate {
                    id: r.get(0)?,
                    task: r.get(1)?,
                    label: r.get(2)?,
                    kind: word(r, 3, CandidateKind::parse)?,
                    content: r.get(4)?,
                })
            },
        )
    }

    /// Ids of the run's candidates that already have a verdict.
    pub fn decided(&self, run_id: &str) -> Result<HashSet<String>, StoreError> {
        let ids = self.all_rows(
            "SELECT candidate_id FROM verdicts WHERE run_id = ?1",
            [run_id],
            |r| r.get(0),
        )?;
        Ok(ids.into_iter().collect())
    }

    /// Writes one verdict and its evidence in a single transaction.
    pub fn record_verdict(
        &mut self,
        run_id: &str,
        candidate_id: &str,
        verdict: &VerdictRow,
    ) -> Result<(), StoreError> {
        self.record_verdict_with(run_id, candidate_id, verdict, None)
    }

    /// Writes the verdict of a feature prediction, its evidence and its functional and security
    /// results in a single transaction.
    pub fn record_feature_verdict(
        &mut self,
        run_id: &str,
        candidate_id: &str,
        verdict: &VerdictRow,
        score: &FeatureScoreRow,
    ) -> Result<(), StoreError> {
        self.record_verdict_with(run_id, candidate_id, verdict, Some(score))
    }

    /// The functional and security results of a run's feature predictions, by candidate id.
    pub fn feature_scores(
        &self,
        run_id: &str,
    ) -> Result<Vec<(String, FeatureScoreRow)>, StoreError> {
        let rows = self.all_rows(
            "SELECT candidate_id, func, func_reason, sec, sec_reason FROM feature_scores
                 WHERE run_id = ?1 ORDER BY candidate_id",
            [run_id],
            |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    word(r, 1, TestGroupResult::parse)?,
                    r.get::<_, String>(2)?,
                    word(r, 3, TestGroupResult::parse)?,
                    r.get::<_, String>(4)?,
                ))
            },
        )?;
        Ok(rows
            .into_iter()
            .map(|(id, func, func_reason, sec, sec_reason)| {
                (
                    id,
                    FeatureScoreRow {
                        func,
                        func_reason,
                        sec,
                        sec_reason,
                    },
                )
            })
            .collect())
    }

    fn record_verdict_with(
        &mut self,
        run_id: &str,
        candidate_id: &str,
        verdict: &VerdictRow,
        score: Option<&FeatureScoreRow>,
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        // A candidate validated again (`--retry`) counts on from its earlier attempts.
        let earlier: Option<u32> = tx
            .query_row(
                "SELECT max(attempt) FROM verdict_attempts WHERE run_id = ?1 AND candidate_id = ?2",
                params![run_id, candidate_id],
                |r| r.get(0),
            )
            .map_err(sqlite)?;
        let attempt = earlier.map_or(1, |a| a + 1);
        if let Some(score) = score {
            tx.execute(
                "INSERT INTO feature_scores (run_id, candidate_id, func, func_reason, sec, sec_reason)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
                params![
                    run_id,
                    candidate_id,
                    score.func.as_str(),
                    score.func_reason,
                    score.sec.as_str(),
                    score.sec_reason
                ],
            )
            .map_err(sqlite)?;
        }
        tx.execute(
            "INSERT INTO verdicts (run_id, candidate_id, outcome, reason, wall_ms, diagnostics,
                 finished_at, class, error_cause, attempt)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, datetime('now'), ?7, ?8, ?9)",
            params![
                run_id,
                candidate_id,
                verdict.outcome.as_str(),
                verdict.reason,
                verdict.wall_ms as i64,
                verdict.diagnostics.join("\n"),
                verdict.class().as_str(),
                verdict.error_cause.map(ErrorCause::as_str),
                attempt,
            ],
        )
        .map_err(sqlite)?;
        // The eval samples that yielded this candidate (duplicates included) now have a class.
        tx.execute(
            "UPDATE generations SET class = ?3, error_cause = ?4 WHERE run_id = ?1 AND candidate_id = ?2",
            params![
                run_id,
                candidate_id,
                verdict.class().as_str(),
                verdict.error_cause.map(ErrorCause::as_str),
            ],
        )
        .map_err(sqlite)?;
        {
            let mut phase = tx
                .prepare("INSERT INTO phases (run_id, candidate_id, phase, wall_ms, exit, enforcement, log) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                .map_err(sqlite)?;
            for p in &verdict.phases {
                phase
                    .execute(params![
                        run_id,
                        candidate_id,
                        p.phase.as_str(),
                        p.wall_ms as i64,
                        p.exit,
                        p.enforcement,
                        p.log
                    ])
                    .map_err(sqlite)?;
            }
            let mut test = tx
                .prepare("INSERT INTO test_results (run_id, candidate_id, phase, class, method, status, seconds, message) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)")
                .map_err(sqlite)?;
            for t in &verdict.tests {
                test.execute(params![
                    run_id,
                    candidate_id,
                    t.phase.as_str(),
                    t.class,
                    t.method,
                    t.status.as_str(),
                    t.seconds,
                    t.message
                ])
                .map_err(sqlite)?;
            }
        }
        if let Some(e) = &verdict.engine {
            tx.execute(
                "INSERT INTO engines (run_id, candidate_id, engine, fallback, check_kind, fast_outcome, fast_reason, maven_outcome, flags)
                 VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
                params![
                    run_id,
                    candidate_id,
                    e.engine.as_str(),
                    e.fallback,
                    e.check_kind.map(CheckKind::as_str),
                    e.fast_outcome.map(Outcome::as_str),
                    e.fast_reason,
                    e.maven_outcome.map(Outcome::as_str),
                    e.flags.join("\n")
                ],
            )
            .map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)
    }

    /// Which engine decided each verdict of a run, by candidate id.
    pub fn engines(&self, run_id: &str) -> Result<Vec<(String, EngineRow)>, StoreError> {
        let sqlite = |source| StoreError::Sqlite {
            path: self.path.clone(),
            source,
        };
        let mut statement = self
            .conn
            .prepare(
                "SELECT candidate_id, engine, fallback, check_kind, fast_outcome, fast_reason, maven_outcome, flags
                 FROM engines WHERE run_id = ?1 ORDER BY candidate_id",
            )
            .map_err(sqlite)?;
        let rows = statement
            .query_map(params![run_id], |r| {
                Ok((
                    r.get(0)?,
                    EngineRow {
                        engine: word(r, 1, Engine::parse)?,
                        fallback: r.get(2)?,
                        check_kind: optional_word(r, 3, CheckKind::parse)?,
                        fast_outcome: optional_word(r, 4, Outcome::parse)?,
                        fast_reason: r.get(5)?,
                        maven_outcome: optional_word(r, 6, Outcome::parse)?,
                        flags: r.get::<_, String>(7)?.lines().map(str::to_owned).collect(),
                    },
                ))
            })
            .map_err(sqlite)?;
        rows.collect::<Result<_, _>>().map_err(sqlite)
    }

    /// Marks a run finished.
    pub fn finish_run(&mut self, run_id: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET finished_at = datetime('now'), last_error = NULL WHERE id = ?1",
                [run_id],
            )
            .map(drop)
            .map_err(self.err())
    }

    /// Moves a candidate's verdict, with its evidence (its phases and tests, as JSON), to
    /// `verdict_attempts`, so that it is validated again (`--retry`); its next verdict is the next
    /// attempt. Returns whether there was a verdict.
    pub fn supersede_verdict(
        &mut self,
        run_id: &str,
        candidate_id: &str,
    ) -> Result<bool, StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        let moved = tx
            .execute(
                "INSERT INTO verdict_attempts (run_id, candidate_id, attempt, outcome, reason, class,
                     error_cause, wall_ms, phases, tests, superseded_at)
                 SELECT v.run_id, v.candidate_id, v.attempt, v.outcome, v.reason, v.class,
                     v.error_cause, v.wall_ms,
                     (SELECT json_group_array(json_object('phase', p.phase, 'wall_ms', p.wall_ms,
                          'exit', p.exit, 'enforcement', p.enforcement, 'log', p.log))
                      FROM phases p WHERE p.run_id = v.run_id AND p.candidate_id = v.candidate_id),
                     (SELECT json_group_array(json_object('phase', t.phase, 'class', t.class,
                          'method', t.method, 'status', t.status, 'seconds', t.seconds,
                          'message', t.message))
                      FROM test_results t WHERE t.run_id = v.run_id AND t.candidate_id = v.candidate_id),
                     datetime('now')
                 FROM verdicts v WHERE v.run_id = ?1 AND v.candidate_id = ?2",
                params![run_id, candidate_id],
            )
            .map_err(sqlite)?;
        // A feature prediction's two results go with its verdict (its reason keeps them).
        for table in [
            "verdicts",
            "phases",
            "test_results",
            "engines",
            "feature_scores",
        ] {
            tx.execute(
                &format!("DELETE FROM {table} WHERE run_id = ?1 AND candidate_id = ?2"),
                params![run_id, candidate_id],
            )
            .map_err(sqlite)?;
        }
        tx.commit().map_err(sqlite)?;
        Ok(moved > 0)
    }

    /// The class and error cause of a candidate's latest superseded verdict, if it has one.
    pub fn previous_attempt(
        &self,
        run_id: &str,
        candidate_id: &str,
    ) -> Result<Option<(ItemClass, Option<ErrorCause>)>, StoreError> {
        self.conn
            .query_row(
                "SELECT class, error_cause FROM verdict_attempts WHERE run_id = ?1 AND candidate_id = ?2
                 ORDER BY attempt DESC LIMIT 1",
                params![run_id, candidate_id],
                |r| Ok((word(r, 0, ItemClass::parse)?, optional_word(r, 1, ErrorCause::parse)?)),
            )
            .optional()
            .map_err(self.err())
    }

    /// Every verdict of a run, in candidate order.
    pub fn verdicts(&self, run_id: &str) -> Result<Vec<VerdictSummary>, StoreError> {
        self.all_rows(
            "SELECT c.id, c.task, c.label, v.outcome, v.reason, v.wall_ms, v.class, v.error_cause,
                 v.attempt,
                 (SELECT p.phase FROM phases p
                  WHERE p.run_id = v.run_id AND p.candidate_id = v.candidate_id
                  ORDER BY p.rowid DESC LIMIT 1)
                 FROM verdicts v
                 JOIN candidates c ON c.run_id = v.run_id AND c.id = v.candidate_id
                 WHERE v.run_id = ?1 ORDER BY c.seq",
            [run_id],
            |r| {
                Ok(VerdictSummary {
                    candidate_id: r.get(0)?,
                    task: r.get(1)?,
                    label: r.get(2)?,
                    outcome: word(r, 3, Outcome::parse)?,
                    reason: r.get(4)?,
                    wall_ms: r.get::<_, i64>(5)? as u64,
                    class: word(r, 6, ItemClass::parse)?,
                    error_cause: optional_word(r, 7, ErrorCause::parse)?,
                    attempt: r.get(8)?,
                    last_phase: optional_word(r, 9, Phase::parse)?,
                })
            },
        )
    }

    /// The regression tests found flaky on a candidate of a run: they failed in the regression
    /// run and passed when the regression phase ran again in a fresh JVM (phase
    /// `regression-rerun`, where the phase's other tests ran again too). Read from
    /// the tests' own rows, by task, as `(task, Class#method, candidate)`.
    pub fn flaky_tests(&self, run_id: &str) -> Result<Vec<(String, String, String)>, StoreError> {
        self.all_rows(
            "SELECT DISTINCT c.task, t.class || '#' || t.method, t.candidate_id FROM test_results t
                 JOIN candidates c ON c.run_id = t.run_id AND c.id = t.candidate_id
                 WHERE t.run_id = ?1 AND t.phase = ?2 AND t.status = ?3
                   AND EXISTS (SELECT 1 FROM test_results f
                       WHERE f.run_id = t.run_id AND f.candidate_id = t.candidate_id
                         AND f.phase = ?4 AND f.class = t.class AND f.method = t.method
                         AND f.status IN (?5, ?6))
                 ORDER BY c.task, 2, c.seq",
            [
                run_id,
                Phase::RegressionRerun.as_str(),
                TestStatus::Passed.as_str(),
                Phase::Regression.as_str(),
                TestStatus::Failed.as_str(),
                TestStatus::Errored.as_str(),
            ],
            |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
        )
    }

    /// Records audit labels of candidates of `run_id`, all or none; an auditor's new label of a
    /// candidate replaces their old one. A candidate the run does not have is refused.
    pub fn record_audits(&mut self, run_id: &str, audits: &[AuditRow]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT OR REPLACE INTO audits (run_id, candidate_id, auditor, label, note, labelled_at)
                     VALUES (?1, ?2, ?3, ?4, ?5,
                             CASE WHEN ?6 = '' THEN strftime('%Y-%m-%dT%H:%M:%SZ', 'now') ELSE ?6 END)",
                )
                .map_err(sqlite)?;
            for audit in audits {
                insert
                    .execute(params![
                        run_id,
                        audit.candidate_id,
                        audit.auditor,
                        audit.label.as_str(),
                        audit.note,
                        audit.labelled_at
                    ])
                    .map_err(|e| match e {
                        rusqlite::Error::SqliteFailure(f, _)
                            if f.code == rusqlite::ErrorCode::ConstraintViolation =>
                        {
                            StoreError::UnknownCandidate {
                                run: run_id.to_owned(),
                                candidate: audit.candidate_id.clone(),
                            }
                        }
                        other => sqlite(other),
                    })?;
            }
        }
        tx.commit().map_err(sqlite)
    }

    /// Stores probe scores, each replacing the earlier score of its benchmark, model and task.
    pub fn record_probe_scores(&mut self, rows: &[ProbeScoreRow]) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT OR REPLACE INTO probe_scores
                         (benchmark, model, task, probed_at, file, line, lines_compared,
                          fix_lines, vulnerable_lines, tokens_compared, fix_tokens,
                          vulnerable_tokens, memorized, fix_log_likelihood,
                          renamed_log_likelihood, continuation, note)
                     VALUES (?1, ?2, ?3, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'), ?4, ?5, ?6, ?7,
                             ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16)",
                )
                .map_err(sqlite)?;
            for row in rows {
                insert
                    .execute(params![
                        row.benchmark,
                        row.model,
                        row.task,
                        row.file,
                        row.line,
                        row.lines_compared,
                        row.fix_lines,
                        row.vulnerable_lines,
                        row.tokens_compared,
                        row.fix_tokens,
                        row.vulnerable_tokens,
                        row.memorized,
                        row.fix_log_likelihood,
                        row.renamed_log_likelihood,
                        row.continuation,
                        row.note
                    ])
                    .map_err(sqlite)?;
            }
        }
        tx.commit().map_err(sqlite)
    }

    /// The stored probe scores of `model` on `benchmark`, by task.
    pub fn probe_scores(
        &self,
        benchmark: &str,
        model: &str,
    ) -> Result<Vec<ProbeScoreRow>, StoreError> {
        self.all_rows(
            "SELECT benchmark, model, task, file, line, lines_compared, tokens_compared,
                    fix_lines, fix_tokens, vulnerable_lines, vulnerable_tokens, memorized,
                    fix_log_likelihood, renamed_log_likelihood, continuation, note
             FROM probe_scores WHERE benchmark = ?1 AND model = ?2 ORDER BY task",
            [benchmark, model],
            |r| {
                Ok(ProbeScoreRow {
                    benchmark: r.get(0)?,
                    model: r.get(1)?,
                    task: r.get(2)?,
                    file: r.get(3)?,
                    line: r.get(4)?,
                    lines_compared: r.get(5)?,
                    tokens_compared: r.get(6)?,
                    fix_lines: r.get(7)?,
                    fix_tokens: r.get(8)?,
                    vulnerable_lines: r.get(9)?,
                    vulnerable_tokens: r.get(10)?,
                    memorized: r.get(11)?,
                    fix_log_likelihood: r.get(12)?,
                    renamed_log_likelihood: r.get(13)?,
                    continuation: r.get(14)?,
                    note: r.get(15)?,
                })
            },
        )
    }

    /// Records the dates of the tasks of run `run_id` (a task's new dates replace its old ones).
    pub fn record_task_dates(
        &mut self,
        run_id: &str,
        dates: &[TaskDatesRow],
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        {
            let mut insert = tx
                .prepare(
                    "INSERT OR REPLACE INTO task_dates
                         (run_id, task, fix_authored, fix_committed, cve_published)
                     VALUES (?1, ?2, ?3, ?4, ?5)",
                )
                .map_err(sqlite)?;
            for row in dates {
                insert
                    .execute(params![
                        run_id,
                        row.task,
                        row.fix_authored,
                        row.fix_committed,
                        row.cve_published
                    ])
                    .map_err(sqlite)?;
            }
        }
        tx.commit().map_err(sqlite)
    }

    /// The task dates stored with a run, by task; empty for a run stored before schema 13.
    pub fn task_dates(&self, run_id: &str) -> Result<Vec<TaskDatesRow>, StoreError> {
        self.all_rows(
            "SELECT task, fix_authored, fix_committed, cve_published FROM task_dates
                 WHERE run_id = ?1 ORDER BY task",
            [run_id],
            |r| {
                Ok(TaskDatesRow {
                    task: r.get(0)?,
                    fix_authored: r.get(1)?,
                    fix_committed: r.get(2)?,
                    cve_published: r.get(3)?,
                })
            },
        )
    }

    /// Every audit label of a run, by candidate then auditor.
    pub fn audits(&self, run_id: &str) -> Result<Vec<AuditRow>, StoreError> {
        self.all_rows(
            "SELECT candidate_id, auditor, label, note, labelled_at FROM audits
                 WHERE run_id = ?1 ORDER BY candidate_id, auditor",
            [run_id],
            |r| {
                Ok(AuditRow {
                    candidate_id: r.get(0)?,
                    auditor: r.get(1)?,
                    label: word(r, 2, AuditLabel::parse)?,
                    note: r.get(3)?,
                    labelled_at: r.get(4)?,
                })
            },
        )
    }

    /// The test results stored with a candidate's verdict.
    pub fn test_results(
        &self,
        run_id: &str,
        candidate_id: &str,
    ) -> Result<Vec<TestRow>, StoreError> {
        self.all_rows(
            "SELECT phase, class, method, status, seconds, message FROM test_results
                 WHERE run_id = ?1 AND candidate_id = ?2 ORDER BY rowid",
            [run_id, candidate_id],
            |r| {
                Ok(TestRow {
                    phase: word(r, 0, Phase::parse)?,
                    class: r.get(1)?,
                    method: r.get(2)?,
                    status: word(r, 3, TestStatus::parse)?,
                    seconds: r.get(4)?,
                    message: r.get(5)?,
                })
            },
        )
    }

    /// Adds the samples of one prompt and the candidates they yielded, atomically, to an existing
    /// run; candidates already registered are kept as they are. A sample already stored as
    /// errored is replaced by its new attempt in its place (same position in the run), the
    /// earlier attempt kept in `generation_attempts`; any other sample already stored is an
    /// error. A sample whose candidate already has a verdict takes that verdict's class.
    pub fn add_generations(
        &mut self,
        run_id: &str,
        candidates: &[NewCandidate],
        generations: &[GenerationRow],
    ) -> Result<(), StoreError> {
        let path = self.path.clone();
        let sqlite = |source| StoreError::Sqlite {
            path: path.clone(),
            source,
        };
        let tx = self.conn.transaction().map_err(sqlite)?;
        {
            let next_candidate: i64 = tx
                .query_row(
                    "SELECT coalesce(max(seq) + 1, 0) FROM candidates WHERE run_id = ?1",
                    [run_id],
                    |r| r.get(0),
                )
                .map_err(sqlite)?;
            let mut insert = tx
                .prepare("INSERT OR IGNORE INTO candidates (run_id, id, seq, task, label, kind, content) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)")
                .map_err(sqlite)?;
            for (offset, c) in candidates.iter().enumerate() {
                insert
                    .execute(params![
                        run_id,
                        c.id,
                        next_candidate + offset as i64,
                        c.task,
                        c.label,
                        c.kind.to_string(),
                        c.content
                    ])
                    .map_err(sqlite)?;
            }
            let next_generation: i64 = tx
                .query_row(
                    "SELECT coalesce(max(seq) + 1, 0) FROM generations WHERE run_id = ?1",
                    [run_id],
                    |r| r.get(0),
                )
                .map_err(sqlite)?;
            // An errored sample asked again: its earlier attempt moves aside, and the new one
            // takes its position, so that the run's order does not depend on what failed.
            let mut errored_seq = tx
                .prepare("SELECT seq FROM generations WHERE run_id = ?1 AND id = ?2 AND class = ?3")
                .map_err(sqlite)?;
            let mut keep = tx
                .prepare(
                    "INSERT INTO generation_attempts (run_id, id, attempt, raw, finish_reason,
                     latency_ms, cached, error, class, error_cause, superseded_at)
                     SELECT run_id, id, attempt, raw, finish_reason, latency_ms, cached, error,
                     class, error_cause, datetime('now') FROM generations WHERE run_id = ?1 AND id = ?2",
                )
                .map_err(sqlite)?;
            let mut remove = tx
                .prepare("DELETE FROM generations WHERE run_id = ?1 AND id = ?2")
                .map_err(sqlite)?;
            let mut verdict = tx
                .prepare("SELECT outcome FROM verdicts WHERE run_id = ?1 AND candidate_id = ?2")
                .map_err(sqlite)?;
            let mut insert = tx
                .prepare(
                    "INSERT INTO generations (run_id, id, seq, task, model, format, fl_offset, fl_effective,
                     run_index, sample, prompt_hash, raw, finish_reason, tokens_in, tokens_out, latency_ms,
                     cached, error, extraction, candidate_id, correct, class, error_cause, attempt, cost_usd)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17, ?18, ?19, ?20, ?21, ?22, ?23, ?24, ?25)",
                )
                .map_err(sqlite)?;
            let mut fresh = 0;
            for g in generations {
                let replaced: Option<i64> = errored_seq
                    .query_row(params![run_id, g.id, ItemClass::Errored.as_str()], |r| {
                        r.get(0)
                    })
                    .optional()
                    .map_err(sqlite)?;
                let seq = match replaced {
                    Some(seq) => {
                        keep.execute(params![run_id, g.id]).map_err(sqlite)?;
                        remove.execute(params![run_id, g.id]).map_err(sqlite)?;
                        seq
                    }
                    None => {
                        fresh += 1;
                        next_generation + fresh - 1
                    }
                };
                let class = match (g.class, &g.candidate_id) {
                    (None, Some(candidate)) => verdict
                        .query_row(params![run_id, candidate], |r| word(r, 0, Outcome::parse))
                        .optional()
                        .map_err(sqlite)?
                        .map(ItemClass::of_outcome),
                    (class, _) => class,
                };
                insert
                    .execute(params![
                        run_id,
                        g.id,
                        seq,
                        g.task,
                        g.model,
                        g.format,
                        g.fl_offset,
                        g.fl_effective,
                        g.run_index,
                        g.sample,
                        g.prompt_hash,
                        g.raw,
                        g.finish_reason,
                        g.tokens_in,
                        g.tokens_out,
                        g.latency_ms as i64,
                        g.cached,
                        g.error,
                        g.extraction.as_str(),
                        g.candidate_id,
                        g.correct.as_str(),
                        class.map(ItemClass::as_str),
                        g.error_cause.map(ErrorCause::as_str),
                        g.attempt,
                        g.cost_usd,
                    ])
                    .map_err(sqlite)?;
            }
        }
        tx.commit().map_err(sqlite)
    }

    /// Records why a run stopped early (it stays resumable).
    pub fn record_run_error(&mut self, run_id: &str, error: &str) -> Result<(), StoreError> {
        self.conn
            .execute(
                "UPDATE runs SET last_error = ?2 WHERE id = ?1",
                params![run_id, error],
            )
            .map(drop)
            .map_err(self.err())
    }

    /// The model samples of a run, in generation order.
    pub fn generations(&self, run_id: &str) -> Result<Vec<GenerationRow>, StoreError> {
        self.all_rows(
            "SELECT id, task, model, format, fl_offset, fl_effective, run_index, sample, prompt_hash, raw,
                 finish_reason, tokens_in, tokens_out, latency_ms, cached, error, extraction, candidate_id, correct,
                 class, error_cause, attempt, cost_usd
                 FROM generations WHERE run_id = ?1 ORDER BY seq",
            [run_id],
            |r| {
                Ok(GenerationRow {
                    id: r.get(0)?,
                    task: r.get(1)?,
                    model: r.get(2)?,
                    format: r.get(3)?,
                    fl_offset: r.get(4)?,
                    fl_effective: r.get(5)?,
                    run_index: r.get(6)?,
                    sample: r.get(7)?,
                    prompt_hash: r.get(8)?,
                    raw: r.get(9)?,
                    finish_reason: r.get(10)?,
                    tokens_in: r.get(11)?,
                    tokens_out: r.get(12)?,
                    latency_ms: r.get::<_, i64>(13)? as u64,
                    cached: r.get(14)?,
                    error: r.get(15)?,
                    extraction: word(r, 16, Extraction::parse)?,
                    candidate_id: r.get(17)?,
                    correct: word(r, 18, Correctness::parse)?,
                    class: optional_word(r, 19, ItemClass::parse)?,
                    error_cause: optional_word(r, 20, ErrorCause::parse)?,
                    attempt: r.get(21)?,
                    cost_usd: r.get(22)?,
                })
            },
        )
    }

    /// The stored log of one phase of a candidate.
    pub fn phase_log(
        &self,
        run_id: &str,
        candidate_id: &str,
        phase: Phase,
    ) -> Result<Option<String>, StoreError> {
        self.conn
            .query_row(
                "SELECT log FROM phases WHERE run_id = ?1 AND candidate_id = ?2 AND phase = ?3",
                [run_id, candidate_id, phase.as_str()],
                |r| r.get(0),
            )
            .optional()
            .map_err(self.err())
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    pub(crate) fn sample_run(id: &str) -> (NewRun, Vec<NewCandidate>) {
        let run = NewRun {
            id: id.into(),
            benchmark: "demo".into(),
            mode: RunMode::Patches,
            input_hash: "h".into(),
            config: RunConfig::default(),
        };
        let candidates = (0..3)
            .map(|i| NewCandidate {
                id: format!("c{i}"),
                task: "t".into(),
                label: format!("l{i}"),
                kind: CandidateKind::Diff,
                content: "--- a\n".into(),
            })
            .collect();
        (run, candidates)
    }

    pub(crate) fn verdict(outcome: Outcome) -> VerdictRow {
        VerdictRow {
            error_cause: None,
            outcome,
            reason: "r".into(),
            wall_ms: 5,
            diagnostics: vec![],
            phases: vec![PhaseRow {
                phase: Phase::Pov,
                wall_ms: 3,
                exit: "exit 0".into(),
                enforcement: "e".into(),
                log: "LOG".into(),
            }],
            tests: vec![TestRow {
                phase: Phase::Pov,
                class: "a.T".into(),
                method: "m".into(),
                status: TestStatus::Passed,
                seconds: 0.1,
                message: String::new(),
            }],
            engine: Some(EngineRow {
                engine: Engine::Fast,
                fallback: None,
                check_kind: Some(CheckKind::Flag),
                fast_outcome: Some(outcome),
                fast_reason: Some("fast".into()),
                maven_outcome: Some(Outcome::PovFailing),
                flags: vec![
                    "the tests opened /proc/self/mem".into(),
                    "a thread started by the tests is still running (t)".into(),
                ],
            }),
        }
    }

    /// Several avrlab processes may open the same new store at once (`slurm status` reads a
    /// shard's store while the shard creates it): each must get it, whichever upgrades it first.
    #[test]
    fn a_new_store_opened_by_four_at_once_is_upgraded_once_and_opens_for_each() {
        let dir = tempfile::tempdir().unwrap();
        for attempt in 0..40 {
            let path = dir.path().join(format!("results-{attempt}.sqlite"));
            let start = std::sync::Barrier::new(4);
            std::thread::scope(|scope| {
                let opened: Vec<_> = (0..4)
                    .map(|_| {
                        scope.spawn(|| {
                            start.wait();
                            Store::open(&path).map(|_| ()).map_err(|e| {
                                let source = std::error::Error::source(&e)
                                    .map(|s| s.to_string())
                                    .unwrap_or_default();
                                format!("{e}: {source}")
                            })
                        })
                    })
                    .collect();
                for handle in opened {
                    handle.join().unwrap().unwrap();
                }
            });
            let store = Store::open(&path).unwrap();
            let version: i64 = store
                .conn
                .query_row("PRAGMA user_version", [], |r| r.get(0))
                .unwrap();
            assert_eq!(version, SCHEMA_VERSION);
        }
    }

    /// A word the store does not know, in any of the typed columns, is an error naming the
    /// column's vocabulary, never a silently different value.
    #[test]
    fn unknown_stored_words_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (run, candidates) = sample_run("r1");
        let mut store = Store::open(&dir.path().join("results.sqlite")).unwrap();
        store.create_run(&run, &candidates).unwrap();
        store
            .record_verdict("r1", "c0", &verdict(Outcome::Plausible))
            .unwrap();
        let refused = |store: &Store, what: &str| {
            let message = [
                store.verdicts("r1").err(),
                store.test_results("r1", "c0").err(),
                store.engines("r1").err(),
            ]
            .into_iter()
            .flatten()
            .map(|e| {
                let mut text = e.to_string();
                let mut source = std::error::Error::source(&e);
                while let Some(cause) = source {
                    text.push_str(&format!(": {cause}"));
                    source = cause.source();
                }
                text
            })
            .collect::<Vec<_>>();
            assert_eq!(message.len(), 1, "{what}: {message:?}");
            assert!(message[0].contains(what), "{}", message[0]);
        };
        for (update, what) in [
            (
                "UPDATE verdicts SET outcome = 'plausible'",
                "`plausible` is not a known outcome",
            ),
            (
                "UPDATE verdicts SET outcome = 'Plausible'; UPDATE test_results SET status = 'PASSED'",
                "`PASSED` is not a known test status",
            ),
            (
                "UPDATE test_results SET status = 'passed', phase = 'PoV'",
                "`PoV` is not a known phase",
            ),
            (
                "UPDATE test_results SET phase = 'pov'; UPDATE engines SET engine = 'plain-mvn'",
                "`plain-mvn` is not a known engine",
            ),
            (
                "UPDATE engines SET engine = 'fast', check_kind = 'sampled'",
                "`sampled` is not a known check kind",
            ),
            (
                "UPDATE engines SET check_kind = 'sample', maven_outcome = 'Pass'",
                "`Pass` is not a known outcome",
            ),
        ] {
            store.conn.execute_batch(update).unwrap();
            refused(&store, what);
        }
        // A candidate's kind is read as a word of its own too, the stored spelling only.
        assert_eq!(store.candidates("r1").unwrap()[0].kind, CandidateKind::Diff);
        store
            .conn
            .execute_batch("UPDATE candidates SET kind = 'method' WHERE id = 'c1'")
            .unwrap();
        let error = store.candidates("r1").unwrap_err();
        let mut text = error.to_string();
        let mut source = std::error::Error::source(&error);
        while let Some(cause) = source {
            text.push_str(&format!(": {cause}"));
            source = cause.source();
        }
        assert!(
            text.contains("`method` is not a known candidate kind"),
            "{text}"
        );
    }

    /// Fresh ids never collide, however close together the runs start (one process or two
    /// connections): the first free suffix is taken, and each run keeps its own candidates.
    #[test]
    fn fresh_run_ids_are_unique() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("results.sqlite");
        let (run, candidates) = sample_run("eval-demo-1796151752");
        let mut store = Store::open(&path).unwrap();
        let mut other = Store::open(&path).unwrap();
        let ids = [
            store.create_fresh_run(&run, &candidates).unwrap(),
            store.create_fresh_run(&run, &candidates).unwrap(),
            other.create_fresh_run(&run, &candidates).unwrap(),
        ];
        assert_eq!(
            ids,
            [
                "eval-demo-1796151752",
                "eval-demo-1796151752-2",
                "eval-demo-1796151752-3"
            ]
        );
        for id in &ids {
            assert_eq!(store.candidates(id).unwrap().len(), candidates.len());
        }
    }

    #[test]
    fn verdicts_survive_reopening_and_are_listed_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("sub/results.sqlite");
        let (run, candidates) = sample_run("r1");
        {
            let mut store = Store::open(&path).unwrap();
            store.create_run(&run, &candidates).unwrap();
            store
                .record_verdict("r1", "c1", &verdict(Outcome::Plausible))
                .unwrap();
            assert!(matches!(
                store.create_run(&run, &candidates),
                Err(StoreError::RunExists(_))
            ));
        }

        let mut store = Store::open(&path).unwrap();
        assert_eq!(
            store.decided("r1").unwrap(),
            HashSet::from(["c1".to_owned()])
        );
        assert_eq!(
            store
                .latest_unfinished_run(RunMode::Patches, "demo")
                .unwrap()
                .unwrap()
                .id,
            "r1"
        );
        store
            .record_verdict("r1", "c0", &verdict(Outcome::PovFailing))
            .unwrap();
        let listed: Vec<_> = store
            .verdicts("r1")
            .unwrap()
            .into_iter()
            .map(|v| v.candidate_id)
            .collect();
        assert_eq!(listed, ["c0", "c1"]);
        assert_eq!(
            store.phase_log("r1", "c1", Phase::Pov).unwrap().as_deref(),
            Some("LOG")
        );
        // Both engines' views are kept with the verdict, disagreement included.
        let engines = store.engines("r1").unwrap();
        assert_eq!(engines.len(), 2);
        let (id, c1) = &engines[1];
        assert_eq!(id, "c1");
        assert_eq!(c1.fast_outcome, Some(Outcome::Plausible));
        assert_eq!(c1.maven_outcome, Some(Outcome::PovFailing));
        assert_eq!(c1.check_kind, Some(CheckKind::Flag));
        assert_eq!(
            c1.flags,
            [
                "the tests opened /proc/self/mem",
                "a thread started by the tests is still running (t)"
            ]
        );
        // A verdict is written once; validated again, the earlier one is superseded first, and
        // kept with its evidence.
        assert!(
            store
                .record_verdict("r1", "c0", &verdict(Outcome::Plausible))
                .is_err()
        );
        assert_eq!(store.previous_attempt("r1", "c0").unwrap(), None);
        assert!(store.supersede_verdict("r1", "c0").unwrap());
        assert!(!store.decided("r1").unwrap().contains("c0"));
        assert_eq!(
            store.previous_attempt("r1", "c0").unwrap(),
            Some((ItemClass::Judged, None))
        );
        // The retry ran a regression phase after its PoV phase: that last phase decided it.
        let mut retried = verdict(Outcome::PovFailing);
        retried.phases.push(PhaseRow {
            phase: Phase::Regression,
            ..retried.phases[0].clone()
        });
        store.record_verdict("r1", "c0", &retried).unwrap();
        let again = &store.verdicts("r1").unwrap()[0];
        assert_eq!((again.outcome, again.attempt), (Outcome::PovFailing, 2));
        assert_eq!(again.last_phase, Some(Phase::Regression));
        // A feature prediction's results are superseded with its verdict and written anew.
        let score = |sec| FeatureScoreRow {
            func: TestGroupResult::Pass,
            func_reason: String::new(),
            sec,
            sec_reason: String::new(),
        };
        let errored = VerdictRow {
            error_cause: Some(ErrorCause::Killed),
            ..verdict(Outcome::Indeterminate)
        };
        store
            .record_feature_verdict("r1", "c1", &errored, &score(TestGroupResult::Undecided))
            .unwrap_err();
        assert!(store.supersede_verdict("r1", "c1").unwrap());
        store
            .record_feature_verdict("r1", "c1", &errored, &score(TestGroupResult::Undecided))
            .unwrap();
        assert!(store.supersede_verdict("r1", "c1").unwrap());
        store
            .record_feature_verdict(
                "r1",
                "c1",
                &verdict(Outcome::PovFailing),
                &score(TestGroupResult::Fail),
            )
            .unwrap();
        let scores = store.feature_scores("r1").unwrap();
        assert_eq!(scores.len(), 1);
        assert_eq!(scores[0].1.sec, TestGroupResult::Fail);
        store.record_run_error("r1", "endpoint down").unwrap();
        assert_eq!(
            store.run("r1").unwrap().unwrap().last_error.as_deref(),
            Some("endpoint down")
        );
        store.finish_run("r1").unwrap();
        // A finished run carries no stale error from an earlier, interrupted attempt.
        assert_eq!(store.run("r1").unwrap().unwrap().last_error, None);
        assert_eq!(store.runs().unwrap().len(), 1);
        assert!(
            store
                .latest_unfinished_run(RunMode::Patches, "demo")
                .unwrap()
                .is_none()
        );
    }

    #[test]
    fn audit_labels_are_kept_per_auditor_and_refused_for_unknown_candidates() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("a.sqlite")).unwrap();
        let (run, candidates) = sample_run("r1");
        store.create_run(&run, &candidates).unwrap();
        let label = |candidate: &str, auditor: &str, label| AuditRow {
            candidate_id: candidate.into(),
            auditor: auditor.into(),
            label,
            note: String::new(),
            labelled_at: String::new(),
        };
        store
            .record_audits(
                "r1",
                &[
                    label("c1", "ana", AuditLabel::Incorrect),
                    label("c1", "bo", AuditLabel::Correct),
                ],
            )
            .unwrap();
        // A new label by the same auditor replaces the old one.
        store
            .record_audits("r1", &[label("c1", "ana", AuditLabel::Correct)])
            .unwrap();
        // All or none: the unknown candidate stops the whole batch.
        let err = store
            .record_audits(
                "r1",
                &[
                    label("c2", "ana", AuditLabel::Unsure),
                    label("nope", "ana", AuditLabel::Unsure),
                ],
            )
            .unwrap_err();
        assert!(err.to_string().contains("has no candidate `nope`"), "{err}");
        let audits = store.audits("r1").unwrap();
        let got: Vec<_> = audits
            .iter()
            .map(|a| (a.candidate_id.as_str(), a.auditor.as_str(), a.label))
            .collect();
        assert_eq!(
            got,
            vec![
                ("c1", "ana", AuditLabel::Correct),
                ("c1", "bo", AuditLabel::Correct)
            ]
        );
        assert!(audits[0].labelled_at.ends_with('Z'), "{audits:?}");
    }

    fn sample(
        id: &str,
        class: Option<ItemClass>,
        candidate: Option<&str>,
        attempt: u32,
    ) -> GenerationRow {
        GenerationRow {
            id: id.into(),
            task: "t".into(),
            model: "m".into(),
            format: "chat-p1".into(),
            fl_offset: 0,
            fl_effective: 0,
            run_index: 0,
            sample: 0,
            prompt_hash: "h".into(),
            raw: format!("answer of attempt {attempt}"),
            finish_reason: "stop".into(),
            tokens_in: None,
            tokens_out: None,
            cost_usd: None,
            latency_ms: 0,
            cached: false,
            error: (class == Some(ItemClass::Errored)).then(|| "HTTP 500".into()),
            extraction: Extraction::NoAnswer,
            candidate_id: candidate.map(str::to_owned),
            correct: Correctness::Unknown,
            class,
            error_cause: (class == Some(ItemClass::Errored)).then_some(ErrorCause::HttpStatus),
            attempt,
        }
    }

    #[test]
    fn an_errored_sample_asked_again_keeps_its_place_and_its_earlier_attempt() {
        let dir = tempfile::tempdir().unwrap();
        let mut store = Store::open(&dir.path().join("s.sqlite")).unwrap();
        let (mut run, candidates) = sample_run("e");
        run.mode = RunMode::Eval;
        store.create_run(&run, &[]).unwrap();
        let errored = Some(ItemClass::Errored);
        store
            .add_generations("e", &[], &[sample("g0", errored, None, 1)])
            .unwrap();
        store
            .add_generations("e", &candidates[..1], &[sample("g1", None, Some("c0"), 1)])
            .unwrap();
        // The verdict gives its samples their class; a sample stored later with the same
        // candidate (a duplicate) takes it from the verdict.
        store
            .record_verdict("e", "c0", &verdict(Outcome::ApplyFailed))
            .unwrap();
        // A sample already heard is not replaced.
        assert!(
            store
                .add_generations("e", &[], &[sample("g1", None, Some("c0"), 2)])
                .is_err()
        );
        store
            .add_generations("e", &[], &[sample("g0", None, Some("c0"), 2)])
            .unwrap();
        let rows: Vec<(String, Option<ItemClass>, u32)> = store
            .generations("e")
            .unwrap()
            .into_iter()
            .map(|g| (g.id, g.class, g.attempt))
            .collect();
        assert_eq!(
            rows,
            [
                ("g0".to_owned(), Some(ItemClass::ModelFailure), 2),
                ("g1".to_owned(), Some(ItemClass::ModelFailure), 1)
            ]
        );
        let kept: (u32, String, String, String) = store
            .conn
            .query_row(
                "SELECT attempt, class, error_cause, raw FROM generation_attempts WHERE run_id = 'e' AND id = 'g0'",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?)),
            )
            .unwrap();
        assert_eq!(
            kept,
            (
                1,
                "errored".to_owned(),
                "http-status".to_owned(),
                "answer of attempt 1".to_owned()
            )
        );
    }

    #[test]
    fn a_version_1_store_is_upgraded_and_another_programs_database_left_alone() {
        let dir = tempfile::tempdir().unwrap();
        // A store as version 1 wrote it (its tables, with an eval run's samples): no engines
        // table, no application id.
        let old = dir.path().join("old.sqlite");
        {
            let conn = Connection::open(&old).unwrap();
            conn.execute_batch(crate::schema::V1).unwrap();
            conn.execute_batch(
                "INSERT INTO runs VALUES ('r0', 't', 'demo', 'reference', 'h', '{}', NULL, NULL);
                 INSERT INTO runs VALUES ('e0', 't', 'demo', 'eval', 'h', '{}', NULL, NULL);
                 INSERT INTO candidates VALUES ('e0', 'c0', 0, 't', 'c0', 'diff', 'x');
                 INSERT INTO candidates VALUES ('e0', 'c1', 1, 't', 'c1', 'diff', 'y');
                 INSERT INTO verdicts VALUES ('e0', 'c0', 'Plausible', '', 1, '', 't');
                 INSERT INTO verdicts VALUES ('e0', 'c1', 'ApplyFailed', '', 1, '', 't');
                 INSERT INTO generations VALUES
                   ('e0', 'g0', 0, 't', 'm', 'chat-p1', 0, 0, 0, 0, 'h', '', 'stop', NULL, NULL, 0, 0, NULL, 'candidate', 'c0', 'Unknown'),
                   ('e0', 'g1', 1, 't', 'm', 'chat-p1', 0, 0, 0, 1, 'h', '', 'stop', NULL, NULL, 0, 0, NULL, 'candidate', 'c1', 'Unknown'),
                   ('e0', 'g2', 2, 't', 'm', 'chat-p1', 0, 0, 0, 2, 'h', '', 'stop', NULL, NULL, 0, 0, NULL, 'NoCode', NULL, 'Unknown');
                 PRAGMA user_version = 1;",
            )
            .unwrap();
        }
        let store = Store::open(&old).expect("a version-1 store opens");
        assert_eq!(store.run("r0").unwrap().unwrap().mode, RunMode::Reference);
        // Its samples got the classes they earned: a verdict judged (a diff that does not apply
        // the model's failure), no candidate the model's failure; each its first attempt.
        let classes: Vec<(Option<ItemClass>, u32)> = store
            .generations("e0")
            .unwrap()
            .into_iter()
            .map(|g| (g.class, g.attempt))
            .collect();
        assert_eq!(
            classes,
            [
                (Some(ItemClass::Judged), 1),
                (Some(ItemClass::ModelFailure), 1),
                (Some(ItemClass::ModelFailure), 1)
            ]
        );
        let (version, application, engines): (i64, i32, i64) = store
            .conn
            .query_row(
                "SELECT (SELECT user_version FROM pragma_user_version),
                        (SELECT application_id FROM pragma_application_id),
                        (SELECT count(*) FROM sqlite_master WHERE name = 'engines')",
                [],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?)),
            )
            .unwrap();
        assert_eq!(
            (version, application, engines),
            (SCHEMA_VERSION, APPLICATION_ID, 1)
        );
        // A run stored before schema 13 has no task dates; the upgraded store keeps new ones.
        let mut store = store;
        assert!(store.task_dates("e0").unwrap().is_empty());
        let dates = TaskDatesRow {
            task: "t".into(),
            fix_committed: Some("2020-06-07T20:53:51-04:00".into()),
            ..TaskDatesRow::default()
        };
        store
            .record_task_dates("e0", std::slice::from_ref(&dates))
            .unwrap();
        assert_eq!(store.task_dates("e0").unwrap(), [dates]);
        // And probe scores (schema 14), a task probed again replacing its row.
        let mut probe = ProbeScoreRow {
            benchmark: "demo".into(),
            model: "local".into(),
            task: "t".into(),
            file: "A.java".into(),
            line: 12,
            lines_compared: 5,
            tokens_compared: 20,
            fix_lines: 1,
            fix_tokens: 7,
            vulnerable_lines: 0,
            vulnerable_tokens: 3,
            memorized: false,
            fix_log_likelihood: Some(-1.25),
            renamed_log_likelihood: None,
            continuation: "x".into(),
            note: "not renamed".into(),
        };
        store
            .record_probe_scores(std::slice::from_ref(&probe))
            .unwrap();
        probe.fix_lines = 5;
        probe.memorized = true;
        store
            .record_probe_scores(std::slice::from_ref(&probe))
            .unwrap();
        assert_eq!(store.probe_scores("demo", "local").unwrap(), [probe]);
        drop(store);

        // Another program's database, with its own tables: refused, and not written to.
        let foreign = dir.path().join("foreign.sqlite");
        Connection::open(&foreign)
            .unwrap()
            .execute_batch("CREATE TABLE notes (text TEXT);")
            .unwrap();
        let before = std::fs::read(&foreign).unwrap();
        let err = Store::open(&foreign).unwrap_err();
        assert!(matches!(err, StoreError::NotAStore(_)), "{err}");
        assert_eq!(std::fs::read(&foreign).unwrap(), before);

        // A stored word the store does not know is an error naming it, not a different row.
        let store = Store::open(&old).unwrap();
        store
            .conn
            .execute("UPDATE runs SET mode = 'Eval' WHERE id = 'r0'", [])
            .unwrap();
        let err = store.run("r0").unwrap_err();
        let chain = format!("{err}: {}", std::error::Error::source(&err).unwrap());
        assert!(chain.contains("`Eval` is not a known run mode"), "{chain}");
    }

    #[test]
    fn a_file_that_is_not_a_database_is_refused_clearly() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("notes.txt");
        std::fs::write(
            &path,
            "these are my notes, not a database, and they are long enough",
        )
        .unwrap();
        let err = Store::open(&path).unwrap_err();
        assert!(matches!(err, StoreError::NotADatabase(_)), "{err:?}");
        assert_eq!(
            std::fs::read_to_string(&path).unwrap(),
            "these are my notes, not a database, and they are long enough"
        );
    }
}
