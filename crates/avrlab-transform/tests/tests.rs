//! Integration tests of avrlab-transform, built into one binary.

mod fixtures;
mod property;
mod task;
