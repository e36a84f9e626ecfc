//! The workflows the subcommands call, each written against the run loop and the oracle trait:
//! eval, replay, study and its reviewer, probe, audit, differential testing, throughput,
//! transform, curation, feature scoring, Slurm.

pub mod audit;
pub mod curate;
pub mod diff_test;
pub mod eval;
pub mod feature_score;
pub mod method;
pub mod models;
pub mod mutants;
pub mod probe;
pub mod replay;
pub mod review;
pub mod slurm;
pub mod study;
pub mod throughput;
pub mod transform;
