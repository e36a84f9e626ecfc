//! An eval run, whatever its generations come from: a model asked now (`eval`) or published
//! generations read from disk (`replay`). Either way the run is the same: its tasks are
//! materialized, it is registered (or resumed, its input unchanged), the generations it does not
//! hold yet are stored with their candidates, and every candidate without a verdict is validated.

use std::collections::HashMap;
use std::time::Instant;

use avrlab_bench::{Benchmark, Task};
use avrlab_core::RunConfig;
use avrlab_store::{Store, StoreError};
use avrlab_validate::{Oracle, PreparedTask};

use crate::run::run_loop::{
    Progress, RunError, RunReport, RunSettings, StageClock, StoredRun, VerdictRetry, Workshop,
    materialize_tasks, register_eval_run, validate_stored_run,
};

/// The materialized tasks of a run, by task id.
pub(crate) type Prepared = HashMap<String, PreparedTask>;

/// Where an eval run's generations come from.
pub(crate) trait GenerationSource {
    type Error: From<RunError> + From<StoreError>;

    /// The tasks the source has generations for; only they are materialized.
    fn tasks(&self) -> Vec<&Task>;

    /// What identifies the run's input (a resume must find the same) and what its row records.
    /// Called once the tasks are materialized, before the run is registered.
    fn plan(&mut self, prepared: &Prepared) -> Result<(String, RunConfig), Self::Error>;

    /// The stage's name in the run's timings.
    fn stage(&self) -> &'static str;

    /// Which stored verdicts to validate again (none unless asked).
    fn verdict_retry(&self) -> VerdictRetry {
        VerdictRetry::default()
    }

    /// Stores the generations, and the candidates they yield, that run `run_id` does not hold yet.
    fn store_generations(
        &mut self,
        store: &mut Store,
        run_id: &str,
        prepared: &Prepared,
        progress: &dyn Progress,
    ) -> Result<(), Self::Error>;
}

/// Where a run is written.
#[derive(Debug, Clone)]
pub(crate) struct RunTarget {
    /// The run id; a fresh one when absent.
    pub run_id: Option<String>,
    /// Continue the named run, or the newest unfinished eval of the benchmark.
    pub resume: bool,
}

/// Runs (or resumes) an eval run fed by `source`.
pub(crate) fn run_generations<S: GenerationSource>(
    store: &mut Store,
    benchmark: &Benchmark,
    target: RunTarget,
    source: &mut S,
    config: &RunSettings,
    oracle: &dyn Oracle,
    progress: &dyn Progress,
) -> Result<RunReport, S::Error> {
    let started = Instant::now();
    let mut clock = StageClock::start();
    let prepared = materialize_tasks(oracle, &source.tasks())?;
    clock.lap("materialize");
    let (hash, run_config) = source.plan(&prepared)?;
    let run_id = register_eval_run(
        store,
        benchmark,
        target.run_id,
        target.resume,
        hash,
        run_config,
    )?;
    crate::run::run_loop::record_task_dates(store, &run_id, source.tasks().into_iter())
        .map_err(RunError::from)?;
    source.store_generations(store, &run_id, &prepared, progress)?;
    clock.lap(source.stage());
    let run = StoredRun {
        run_id,
        workshop: Workshop {
            prepared: &prepared,
            oracle,
            config,
        },
        started,
        clock,
        retry: source.verdict_retry(),
    };
    Ok(validate_stored_run(store, run, progress)?)
}
