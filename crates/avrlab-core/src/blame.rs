//! Who a failed command's error is owed to. Each crate's error says it once, variant by variant
//! ([`Blamed`]), so the command line maps errors to exit codes in one place and no call site
//! decides the blame of an error it did not make.

/// Whose the failure is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Blame {
    /// What the user gave: arguments, task files, predictions, a store that is not one.
    Input,
    /// The machine or a tool it runs: JDK, Maven, sandbox, disk, a model provider.
    Infrastructure,
    /// Nobody's: the command did what it was asked and stopped where its result or a limit the
    /// user set says.
    Stopped(Stop),
}

/// Where a command stops by its own result, not a failure of anything.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stop {
    /// A benchmark's reference check (or a curated task's check) did not pass.
    CheckFailed,
    /// An eval had more errored samples than `--max-errors` allows (resumable).
    ErrorLimit,
    /// An eval's samples cost its `--max-cost` budget (resumable with a higher one).
    BudgetReached,
}

/// An error that knows its blame.
pub trait Blamed: std::error::Error + Send + Sync + 'static {
    fn blame(&self) -> Blame;
}

impl Blame {
    /// `Input` when `input`, else `Infrastructure`.
    pub fn input_if(input: bool) -> Self {
        if input {
            Self::Input
        } else {
            Self::Infrastructure
        }
    }
}
