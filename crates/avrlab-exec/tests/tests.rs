//! Integration tests of the sandbox and process control, with real processes.

mod containment;
mod sandbox;
