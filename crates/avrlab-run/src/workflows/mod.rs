//! The workflows the subcommands call, each written against the run loop and the oracle trait:
//! eval, replay, study and its reviewer, probe, audit, differential testing, throughput,
//! transform, curation, feature scoring, Slurm.

pub(crate) mod audit;
pub(crate) mod curate;
pub(crate) mod diff_test;
pub(crate) mod eval;
pub(crate) mod feature_score;
pub(crate) mod method;
pub(crate) mod models;
pub(crate) mod mutants;
pub(crate) mod probe;
pub(crate) mod replay;
pub(crate) mod review;
pub(crate) mod slurm;
pub(crate) mod study;
pub(crate) mod throughput;
pub(crate) mod transform;
