//! The run loop: a run's candidates planned, sharded, validated on workers into the store
//! (resumable), and what it needs around it: inputs, the work folder, the start-up checks,
//! progress, merging shards.

pub(crate) mod command_runner;
#[cfg(test)]
pub(crate) mod fake_oracle;
pub(crate) mod generations;
pub(crate) mod input;
pub(crate) mod merge;
pub(crate) mod progress;
pub(crate) mod reference_failures;
pub(crate) mod run_loop;
pub(crate) mod setup;
pub(crate) mod shard;
pub(crate) mod work_dir;
