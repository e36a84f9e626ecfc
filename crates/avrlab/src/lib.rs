//! The avrlab engine behind the command line: reading candidate files, running validations on
//! parallel workers into the results store (resumably), and summarizing runs.

pub mod audit;
pub mod command_runner;
pub mod curate;
mod cwe;
pub mod engine;
pub mod eval;
#[cfg(test)]
mod fake_oracle;
pub mod feature_score;
pub mod import;
pub mod input;
pub mod method;
pub mod models;
pub mod mutants;
pub mod replay;
pub mod review;
pub mod study;
pub mod summary;
pub mod susvibes;
pub mod transform;
