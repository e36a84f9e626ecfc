//! Integration tests of the avrlab command, with real Maven, javac, JUnit, bubblewrap and SQLite.

mod bad_input;
mod candidates;
mod common;
mod reference;
mod resume;
