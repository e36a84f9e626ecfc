//! The task data model of avrlab: what a benchmark task is, how it is stored on disk (`task.toml`,
//! format version 1), how benchmarks are found and loaded, and the unified diffs that carry
//! reference fixes and candidate patches.
//!
//! This crate reads files but never spawns a process: checking a task out of git lives in
//! `avrlab-exec`.

mod benchmark;
mod checkout;
mod class_policy;
mod dataset;
mod feature;
mod layout;
mod location;
mod patch;
mod policy;
mod task;
mod test_name;

pub use benchmark::{Benchmark, BenchmarkError, demo_benchmark_dir};
pub use checkout::{CheckoutError, copy_project};
pub use class_policy::{
    ClassPolicy, DeclaredTypes, declared_types, decode_unicode_escapes, shared_class_file,
};
pub use dataset::{
    DatasetError, DatasetKind, DatasetLocation, DatasetRow, DatasetRows, RefusalKind, RowBuild,
    RowRefusal, read_dataset,
};
pub use feature::{
    ExpectedFailures, FeatureFile, FeatureSpec, PatchText, RecordBuild, RecordError,
    StatementSource, SusVibesRecord, parse_cwe, read_susvibes, write_susvibes,
};
pub use layout::{DeclaredRoots, JavaSource, SourceRole, package_of};
pub use location::{
    DERIVED_FROM_FIX, LocalizationChoice, LocationLookup, MethodSpan, VUL_LOCATION_FILE,
    VulLocation, VulnerableFile, choose_localization, dataset_location, localize_from_dataset,
    read_vul_locations, show_ranges,
};
pub use patch::{FileChange, FileDiff, Hunk, HunkLine, Patch, PatchError, apply_to_text};
pub use policy::{EditPolicy, PolicyViolation};
pub use task::{
    BuildSpec, BuildSystem, BuildTargets, FORMAT_VERSION, Localization, ManifestProject, OlderApi,
    Oracle, ProjectSource, Provenance, RegressionTests, StateSpec, Task, TaskDates, TaskError,
    TaskKind, TaskManifest,
};
pub use test_name::{TestName, TestNameError};
