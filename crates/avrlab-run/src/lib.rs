//! The run library behind the command line: reading candidate files, running validations on
//! parallel workers into the results store (resumably), the workflows the subcommands call (eval,
//! replay, study, curate, transform, feature scoring, audit, differential testing), and summaries of runs.

pub mod audit;
pub mod command_runner;
pub mod curate;
pub mod curate_tables;
pub mod diff_test;
pub mod engine;
pub mod eval;
#[cfg(test)]
mod fake_oracle;
pub mod feature_score;
pub mod generations;
pub mod import;
pub mod input;
pub mod merge;
pub mod method;
pub mod models;
pub mod mutants;
pub mod probe;
pub mod progress;
pub mod reference_check;
pub mod replay;
pub mod review;
pub mod setup;
pub mod shard;
pub mod slurm;
pub mod study;
pub mod summary;
pub mod susvibes;
pub mod swe_report;
pub mod task_card;
pub mod throughput;
pub mod transform;
pub mod work_dir;
