//! The run library behind the command line: reading candidate files, running validations on
//! parallel workers into the results store (resumably), the workflows the subcommands call (eval,
//! replay, study, curate, transform, feature scoring, audit, differential testing), and summaries of runs.

mod datasets;
mod run;
mod tables;
mod workflows;

// The modules by their old names, the paths the command line uses.
pub use datasets::{import, susvibes};
#[cfg(test)]
pub(crate) use run::fake_oracle;
pub use run::{
    command_runner, generations, input, merge, progress, run_loop, setup, shard, work_dir,
};
pub use tables::{curate_tables, reference_check, summary, swe_report, task_card};
pub use workflows::{
    audit, curate, diff_test, eval, feature_score, method, models, mutants, probe, replay, review,
    slurm, study, throughput, transform,
};
