//! The oracle interface: materialize a task state, warm up what validating it needs, validate
//! candidates against it. The engine, eval and transform are written against [`Oracle`], so that
//! they can be unit-tested with a fake and can run on either engine (Maven, or the fast path).

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, OnceLock};

use avrlab_bench::{ClassPolicy, Task};

use crate::baseline::Baseline;
use crate::candidate::{Candidate, CandidateIdentity};
use crate::error::ValidateError;
use crate::outcome::Verdict;

/// A task ready for validation: the task and its pristine state on disk, which every workspace
/// starts from. Engine-specific state (a warmed classpath, a resident JVM) stays in the oracle.
#[derive(Debug, Clone)]
pub struct PreparedTask {
    pub task: Task,
    pristine: PathBuf,
    /// The classes the task state declares, which candidates may not shadow.
    classes: ClassPolicy,
    /// The same, with the classes of the test classpath's dependencies, once a warm-up resolved it.
    with_library: OnceLock<ClassPolicy>,
    /// Which regression tests count, once a warm-up has taken (or found) the baseline.
    baseline: OnceLock<Baseline>,
    /// What avrlab changed in the task state's build files to build it here (raised language
    /// levels under a JDK substitution), one line per file; shared by clones, since the first
    /// warm-up may decline an optional repair (see `repairs`).
    build_notes: Arc<Mutex<Vec<String>>>,
    /// The optional repairs whose effect on the baseline is still to be measured.
    repairs: Arc<Mutex<RepairState>>,
}

/// What deciding the optional repairs of a task state needs (see `repairs`).
#[derive(Debug, Clone, Default)]
pub(crate) struct RepairState {
    /// The task state's key before the optional repairs (decisions are kept under it).
    pub key: String,
    /// Its poms then.
    pub base_poms: Vec<crate::repairs::PomText>,
    /// Applied repairs with no decision yet: name and note.
    pub pending: Vec<(String, String)>,
    /// Repairs declined for this state.
    pub declined: Vec<String>,
}

impl PreparedTask {
    /// A task whose state has been materialized in `pristine`; reads the classes it declares.
    pub fn new(task: Task, pristine: PathBuf) -> Result<Self, ValidateError> {
        let classes = ClassPolicy::scan(&pristine, &task.policy).map_err(|source| {
            ValidateError::Workspace {
                path: pristine.clone(),
                source,
            }
        })?;
        Ok(Self {
            task,
            pristine,
            classes,
            with_library: OnceLock::new(),
            baseline: OnceLock::new(),
            build_notes: Arc::default(),
            repairs: Arc::default(),
        })
    }

    /// Records what was changed in the state's build files.
    pub fn with_build_notes(self, notes: Vec<String>) -> Self {
        *self.build_notes.lock().unwrap_or_else(|p| p.into_inner()) = notes;
        self
    }

    /// Records what deciding the optional repairs needs.
    pub(crate) fn with_repairs(self, repairs: RepairState) -> Self {
        *self.repairs.lock().unwrap_or_else(|p| p.into_inner()) = repairs;
        self
    }

    /// What avrlab changed in the task state's build files, one line per file.
    pub fn build_notes(&self) -> Vec<String> {
        self.build_notes
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Replaces every build note (the state's build files were written again).
    pub(crate) fn set_build_notes(&self, notes: Vec<String>) {
        *self.build_notes.lock().unwrap_or_else(|p| p.into_inner()) = notes;
    }

    /// Replaces the build note `old` (a repair's, now decided) with `new`.
    pub(crate) fn replace_build_note(&self, old: &str, new: String) {
        let mut notes = self.build_notes.lock().unwrap_or_else(|p| p.into_inner());
        match notes.iter_mut().find(|n| n.as_str() == old) {
            Some(note) => *note = new,
            None => notes.push(new),
        }
    }

    /// The optional repairs' state, to decide the pending ones.
    pub(crate) fn repairs(&self) -> std::sync::MutexGuard<'_, RepairState> {
        self.repairs.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// The class rules of this task state (what a candidate may declare): after the warm-up, with
    /// the dependency classes of the test classpath.
    pub fn classes(&self) -> &ClassPolicy {
        self.with_library.get().unwrap_or(&self.classes)
    }

    /// Adds the test classpath's dependency classes to the class rules (once: the first warm-up
    /// that resolved the classpath decides).
    pub fn add_library(&self, classpath: &[PathBuf]) -> Result<(), ValidateError> {
        if self.with_library.get().is_some() {
            return Ok(());
        }
        let policy = self
            .classes
            .clone()
            .with_library(classpath)
            .map_err(|source| ValidateError::Workspace {
                path: self.pristine.clone(),
                source,
            })?;
        let _ = self.with_library.set(policy);
        Ok(())
    }

    /// The baseline of this task state, once a warm-up has taken or found it.
    pub fn baseline(&self) -> Option<&Baseline> {
        self.baseline.get()
    }

    /// Records the baseline of this task state (the first warm-up decides).
    pub(crate) fn set_baseline(&self, baseline: Baseline) {
        let _ = self.baseline.set(baseline);
    }

    /// The folder holding the task state that every workspace starts from.
    pub fn pristine(&self) -> &Path {
        &self.pristine
    }

    /// Which project `candidate` makes of this task state: candidates with the same project
    /// share one validation ([`crate::candidate_identity`]).
    pub fn candidate_identity(&self, candidate: &Candidate) -> CandidateIdentity {
        crate::candidate::candidate_identity(&self.task, self.classes(), candidate, &self.pristine)
    }
}

/// Something that turns a task and a candidate into a [`Verdict`].
///
/// The three steps are separate so that callers can check candidates against the materialized
/// state (preflight) before anything slow or networked runs.
pub trait Oracle: Sync {
    /// The engine's name, as stored and printed (`maven`, `fast`).
    fn name(&self) -> &str;

    /// Writes the task state to disk (no build tool runs; git only for git-based tasks).
    fn materialize(&self, task: &Task) -> Result<PreparedTask, ValidateError>;

    /// Resolves what validating the task needs (the networked step: dependencies, classpaths).
    fn warm_up(&self, prepared: &PreparedTask) -> Result<(), ValidateError>;

    /// Whether `warm_up` is known to have nothing left to do for this task (so there is nothing
    /// to announce). `false` unless the oracle keeps track.
    fn is_warm(&self, _prepared: &PreparedTask) -> bool {
        false
    }

    /// How many candidates of `task` are about to be validated, so that an oracle that starts
    /// processes ahead of need starts no more than will be used. A hint: more or fewer may come.
    fn expect_candidates(&self, _task: &str, _count: usize) {}

    /// Validates one candidate in the workspace slot `slot` (one per worker).
    fn validate(
        &self,
        prepared: &PreparedTask,
        candidate: &Candidate,
        slot: &str,
    ) -> Result<Verdict, ValidateError>;

    /// Records regression tests that did not pass on the task's reference fix in the reference
    /// check's regression phase in the baseline of the task state, so that they no longer decide
    /// a verdict of it (see `Baseline::add_reference_failures`, which may refuse them). Returns
    /// whether the baseline changed; an oracle that keeps no baselines changes nothing.
    fn record_reference_failures(
        &self,
        _prepared: &PreparedTask,
        _failures: &[crate::ReferenceFailure],
    ) -> Result<bool, ValidateError> {
        Ok(false)
    }

    /// Materializes and warms up in one go.
    fn prepare(&self, task: &Task) -> Result<PreparedTask, ValidateError> {
        let prepared = self.materialize(task)?;
        self.warm_up(&prepared)?;
        Ok(prepared)
    }
}
