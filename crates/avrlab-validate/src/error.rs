//! Why validation could not be carried out: the one infrastructure error of the oracles (a
//! candidate's own failure is an `Outcome`, never this).

use std::path::PathBuf;

use avrlab_bench::CheckoutError;
use avrlab_build::BuildError;
use avrlab_exec::RemovalError;

use crate::cache_seal::CacheAlarm;
use crate::materialize::MaterializeError;

/// Validation could not be carried out (infrastructure, never the candidate's fault).
#[derive(Debug, thiserror::Error)]
pub enum ValidateError {
    /// The task state could not be materialized.
    #[error(transparent)]
    Materialize(#[from] MaterializeError),
    /// A workspace could not be filled from the pristine state.
    #[error("cannot prepare a workspace for task {task}")]
    Checkout {
        task: String,
        #[source]
        source: CheckoutError,
    },
    /// The build tool (Maven, Gradle, Ant) could not be driven.
    #[error("task {task}")]
    Build {
        task: String,
        #[source]
        source: BuildError,
    },
    /// The dependency cache changed during a candidate run, or was marked so earlier.
    #[error(transparent)]
    Cache(#[from] CacheAlarm),
    /// The fast path could not be driven (helper build, resident JVM start).
    #[error("task {task}: the fast path failed")]
    FastPath {
        task: String,
        #[source]
        source: avrlab_build::FastPathError,
    },
    /// A workspace could not be made or cleaned.
    #[error("cannot use the workspace {path}")]
    Workspace {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A folder that sandboxed code wrote into could not be removed.
    #[error("cannot clean up")]
    Cleanup(#[from] RemovalError),
}

impl ValidateError {
    /// The task is at fault, not avrlab or the machine: its project does not build here, its
    /// state cannot be made, it needs a JDK or build tool that is missing. Such a task is
    /// reported and the others go on; a failure of the harness itself (no sandbox, a changed
    /// cache, a workspace that cannot be written) concerns every task.
    pub fn is_task_failure(&self) -> bool {
        match self {
            Self::Materialize(error) => error.is_input(),
            Self::Checkout { .. } => true,
            Self::Build { source, .. } => source.is_task_failure(),
            Self::Cache(_) | Self::FastPath { .. } | Self::Workspace { .. } | Self::Cleanup(_) => {
                false
            }
        }
    }

    /// Whether the failure is a write that found the disk full, anywhere in its chain of causes:
    /// the machine's, so a candidate in hand is errored rather than the run stopped.
    pub fn is_disk_full(&self) -> bool {
        let mut cause: Option<&(dyn std::error::Error + 'static)> = Some(self);
        while let Some(error) = cause {
            if error
                .downcast_ref::<std::io::Error>()
                .is_some_and(|e| e.kind() == std::io::ErrorKind::StorageFull)
            {
                return true;
            }
            cause = error.source();
        }
        false
    }
}
