//! The avrlab engine behind the command line: reading candidate files, running validations on
//! parallel workers into the results store (resumably), and summarizing runs.

pub mod engine;
pub mod input;
pub mod summary;
