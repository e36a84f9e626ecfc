//! Integration tests of the avrlab command, with real Maven, javac, JUnit, bubblewrap and SQLite.

mod adversarial;
mod agents;
mod bad_input;
mod baseline;
mod builds;
mod candidates;
mod common;
mod differential;
mod eval;
mod fail_first;
mod fast;
mod feature;
mod fork_per_class;
mod html_report;
mod multi_module;
mod older_api;
mod predictions;
mod prompts;
mod real;
mod reference;
mod replay;
mod resume;
mod shard;
mod slurm;
mod study;
mod transform;
