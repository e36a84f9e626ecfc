//! The validation oracle: given a task and a candidate, produce an [`Outcome`] with the evidence
//! that justifies it (per-test results from Surefire's reports, compiler diagnostics, timings and
//! log excerpts).
//!
//! The pipeline is apply → compile → PoV tests → regression tests; the first failing stage decides.
//! Outcomes are data; `Err` is kept for infrastructure failures (no JDK, disk full).

mod baseline;
mod cache_seal;
mod candidate;
mod error;
mod failed_warm_up;
mod fast;
mod feature;
mod fingerprint;
mod flags;
mod left_out;
mod materialize;
mod oracle;
mod outcome;
mod repairs;
mod sources;
mod test_impact;
mod validator;
mod verdict_rules;

pub use baseline::{Baseline, ReferenceFailure};
pub use cache_seal::{CacheAlarm, CacheSeal, TAMPERED_MARKER, seal_tree};
pub use candidate::{
    Candidate, CandidateError, CandidateIdentity, ProjectDigest, ReplacementTarget,
    apply_candidate, candidate_identity, check_candidate,
};
pub use error::ValidateError;
pub use fast::{ConfirmPolicy, FastConfig, FastOracle, Fidelity, ProbeDifference};
pub use feature::{
    FeatureRun, FeatureRunPlan, FeatureRunner, FeatureScore, Judged, StateEdit, feature_verdict,
    judge_functional, judge_security,
};
pub use flags::added_families;
pub use materialize::{MaterializeError, materialize_task};
pub use oracle::{Oracle, PreparedTask};
pub use outcome::{
    CheckKind, CrossCheck, EngineRecord, Outcome, Phase, PhaseRecord, TestRecord, Verdict,
};
pub use validator::{BuildToolOracle, ValidatorConfig};
pub use verdict_rules::FLAKY_REASON;
