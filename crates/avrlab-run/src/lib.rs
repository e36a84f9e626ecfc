//! The run library behind the command line: reading candidate files, running validations on
//! parallel workers into the results store (resumably), the workflows the subcommands call (eval,
//! replay, study, curate, transform, feature scoring, audit, differential testing), and summaries of runs.
//!
//! Its rooms are private: `run` (the run loop and what it needs around it), `workflows` (what
//! each subcommand does, written against the run loop), `tables` (what a run or a benchmark
//! prints) and `datasets` (dataset rows into tasks). What the command line calls is the façade
//! below, one module per subcommand's concern, each naming only the entry points it needs.

#![warn(unreachable_pub)]

mod datasets;
mod run;
mod tables;
mod workflows;

/// The entry points of `workflows::audit`.
pub mod audit {
    pub use crate::workflows::audit::{
        AuditError, agreement, export, label_interactively, parse_lines, queue, render_agreement,
        render_queue,
    };
}

/// The entry points of `run::command_runner`.
pub mod command_runner {
    pub use crate::run::command_runner::{AgentSandbox, ExecRunner};
}

/// The entry points of `workflows::curate`.
pub mod curate {
    pub use crate::workflows::curate::{CurateConfig, StatementModel, check_task, curate_task};
}

/// The entry points of `tables::curate_tables`.
pub mod curate_tables {
    pub use crate::tables::curate_tables::{check_table, funnel_table};
}

/// The entry points of `workflows::diff_test`.
pub mod diff_test {
    pub use crate::workflows::diff_test::{DiffTestConfig, diff_test_store};
}

/// The entry points of `workflows::eval`.
pub mod eval {
    pub use crate::workflows::eval::{
        ErrorLimit, EvalError, EvalRequest, EvalSpec, Retry, execute_eval,
    };
}

/// The entry points of `workflows::feature_score`.
pub mod feature_score {
    pub use crate::workflows::feature_score::{
        FeatureEval, eval_feature_tasks, feature_report, read_feature_predictions,
        reference_feature_candidates, render_feature_report,
    };
}

/// The entry points of `datasets::import`.
pub mod import {
    pub use crate::datasets::import::{ImportConfig, import_fix_commit, import_rows};
}

/// The entry points of `run::input`.
pub mod input {
    pub use crate::run::input::{
        MalformedPatches, PlannedCandidate, read_predictions, reference_candidates,
    };
}

/// The entry points of `run::merge`.
pub mod merge {
    pub use crate::run::merge::{merge_shards, render_merged};
}

/// The entry points of `workflows::method`.
pub mod method {
    pub use crate::workflows::method::vulnerable_method;
}

/// The entry points of `workflows::models`.
pub mod models {
    pub use crate::workflows::models::{Backend, ConfigFile, build_model, configured_model};
}

/// The entry points of `workflows::probe`.
pub mod probe {
    pub use crate::workflows::probe::{
        ProbeConfig, ProbeError, default_scratch, probe_task, render_scores,
    };
}

/// The entry points of `tables::reference_check`.
pub mod reference_check {
    pub use crate::tables::reference_check::check_table;
}

/// The entry points of `workflows::replay`.
pub mod replay {
    pub use crate::workflows::replay::{ReplayRequest, check_request, import_generations};
}

/// The entry points of `run::run_loop`.
pub mod run_loop {
    pub use crate::run::run_loop::{
        Progress, RunError, RunReport, RunRequest, RunSettings, VerdictRetry, describe_stages,
        execute, warm_up_only,
    };
}

/// The entry points of `run::setup`.
pub mod setup {
    pub use crate::run::setup::{EngineSetup, unenforced_limits};
}

/// The entry points of `run::shard`.
pub mod shard {
    pub use crate::run::shard::shard_of_tasks;
}

/// The entry points of `workflows::slurm`.
pub mod slurm {
    pub use crate::workflows::slurm::{
        Resources, SlurmPlan, SlurmRunError, render_resumed, render_status, resume, status, submit,
    };
}

/// The entry points of `workflows::study`.
pub mod study {
    pub use crate::workflows::study::{
        ConfiguredModels, ReplaySource, StudyModels, StudyOverrides, StudyRequest, describe_plan,
        estimate, execute_study, read_study_file, resolve_plan,
    };
}

/// The entry points of `tables::summary`.
pub mod summary {
    pub use crate::tables::summary::{render_text, summarize};
}

/// The entry points of `datasets::susvibes`.
pub mod susvibes {
    pub use crate::datasets::susvibes::{SusVibesError, export_jsonl, import_records};
}

/// The entry points of `tables::swe_report`.
pub mod swe_report {
    pub use crate::tables::swe_report::swe_report;
}

/// The entry points of `tables::task_card`.
pub mod task_card {
    pub use crate::tables::task_card::{task_card, task_list};
}

/// The entry points of `workflows::throughput`.
pub mod throughput {
    pub use crate::workflows::throughput::{
        EngineMeasurement, measure_engines, measure_eval, measure_plain, mutant_candidates,
        render_measurements,
    };
}

/// The entry points of `workflows::transform`.
pub mod transform {
    pub use crate::workflows::transform::{
        TaskInput, dry_run_text, read_task, render_report, rewrite, transform_all,
    };
}

/// The entry points of `run::work_dir`.
pub mod work_dir {
    pub use crate::run::work_dir::{WorkDir, cache_dir};
}
