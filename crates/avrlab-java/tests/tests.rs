//! Integration tests of avrlab-java, built into one binary.

mod edits;
mod locate;
mod parse;
mod symbols;
