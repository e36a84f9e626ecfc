//! What a model did on one task, the cell of the task × model matrix that the eval report, the
//! cut-off split and the probe summary all read.

use serde::Serialize;

/// One cell of the task × model matrix.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum TaskCell {
    Correct,
    Plausible,
    NotFixed,
}
