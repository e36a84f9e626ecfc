//! Fault-localization offsets: the study design that asks how much a model relies on being told
//! exactly where the bug is, by moving the marked lines `n` lines up (negative) or down (positive).

use serde::{Deserialize, Serialize};

use crate::method::{MethodError, VulnerableMethod};

/// The offset asked for and the one applied; they differ when moving every hunk by the requested
/// amount would push one out of the method. Stored with every generation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct FlOffset {
    /// The offset the user asked for (`--fl-offset`).
    pub requested: i64,
    /// The offset applied after clamping every hunk inside the method.
    pub effective: i64,
}

/// Moves every buggy-line range of `method` by `offset` lines, as one block (hunks keep their relative
/// positions), clamped so that each range stays inside the method: a replaced range within the
/// method's lines, an insertion before one of them.
pub fn apply_fl_offset(
    method: &VulnerableMethod,
    offset: i64,
) -> Result<(VulnerableMethod, FlOffset), MethodError> {
    method.validate()?;
    let method_start = i64::from(method.method_start_line);
    let method_end = i64::from(method.method_end_line());
    let lowest = method
        .buggy_lines
        .iter()
        .map(|h| method_start - i64::from(h.start))
        .max();
    let highest = method
        .buggy_lines
        .iter()
        .map(|h| method_end - i64::from(h.end.max(h.start)))
        .min();
    let (Some(lowest), Some(highest)) = (lowest, highest) else {
        unreachable!("validate() rejects methods without buggy lines");
    };
    let effective = offset.clamp(lowest, highest);
    let mut shifted = method.clone();
    for hunk in &mut shifted.buggy_lines {
        *hunk = hunk.shifted(effective);
    }
    Ok((
        shifted,
        FlOffset {
            requested: offset,
            effective,
        },
    ))
}
