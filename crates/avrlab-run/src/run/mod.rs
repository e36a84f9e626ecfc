//! The run loop: a run's candidates planned, sharded, validated on workers into the store
//! (resumable), and what it needs around it: inputs, the work folder, the start-up checks,
//! progress, merging shards.

pub mod command_runner;
#[cfg(test)]
pub(crate) mod fake_oracle;
pub mod generations;
pub mod input;
pub mod merge;
pub mod progress;
pub mod run_loop;
pub mod setup;
pub mod shard;
pub mod work_dir;
