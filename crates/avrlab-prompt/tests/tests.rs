//! Integration tests of avrlab-prompt: one binary, one module per concern.

mod extraction;
mod localization;
mod samples;
mod snapshots;
