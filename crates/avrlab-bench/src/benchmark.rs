//! A benchmark: a folder whose sub-folders each hold a `task.toml`.

use std::path::{Path, PathBuf};

use crate::task::{Task, TaskError, TaskKind};

/// A loaded benchmark, tasks sorted by id.
#[derive(Debug, Clone)]
pub struct Benchmark {
    pub name: String,
    pub dir: PathBuf,
    pub tasks: Vec<Task>,
}

/// Why a benchmark could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum BenchmarkError {
    /// The name is neither a built-in benchmark nor a folder.
    #[error(
        "no benchmark `{0}`: give `demo`, `vul4j` or `vjbench` (imported with `avrlab bench import` into $AVRLAB_BENCHMARKS), or the path of a folder of task folders"
    )]
    NotFound(String),
    /// The folder could not be listed.
    #[error("cannot list {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A task in it is invalid.
    #[error(transparent)]
    Task(#[from] TaskError),
    /// The folder holds no task.
    #[error("{0} holds no task folder with a task.toml")]
    Empty(PathBuf),
    /// Two tasks share an id.
    #[error("two tasks have the id `{0}`")]
    DuplicateId(String),
    /// A task the user asked for is not in the benchmark.
    #[error("benchmark `{benchmark}` has no task `{task}` (see `avrlab bench list`)")]
    UnknownTask { benchmark: String, task: String },
}

/// The folder of the built-in demo benchmark: `$AVRLAB_DEMO_DIR`, else the one in this source tree.
pub fn demo_benchmark_dir() -> PathBuf {
    std::env::var_os("AVRLAB_DEMO_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../../benchmarks/demo"))
}

impl Benchmark {
    /// The kind every task of the benchmark is of (`Repair` when it has none), or why a
    /// benchmark that holds both cannot be run as one: the two are scored differently (`verb`:
    /// what the user asked, e.g. `validate`).
    pub fn kind(&self, verb: &str) -> Result<TaskKind, String> {
        let (mut repair, mut feature) = (None, None);
        for task in &self.tasks {
            match task.kind {
                TaskKind::Repair => repair.get_or_insert(task),
                TaskKind::Feature => feature.get_or_insert(task),
            };
        }
        match (repair, feature) {
            (Some(repair), Some(_)) => Err(format!(
                "benchmark {} mixes feature and repair tasks ({} is a repair task); {verb} them apart",
                self.name, repair.id
            )),
            (_, Some(_)) => Ok(TaskKind::Feature),
            (_, None) => Ok(TaskKind::Repair),
        }
    }

    /// Loads `demo` or a benchmark folder.
    pub fn open(name_or_path: &str) -> Result<Self, BenchmarkError> {
        let imported = std::env::var_os("AVRLAB_BENCHMARKS")
            .map(|d| PathBuf::from(d).join(name_or_path))
            .filter(|d| matches!(name_or_path, "vul4j" | "vjbench") && d.is_dir());
        let (name, dir) = if name_or_path == "demo" {
            ("demo".to_owned(), demo_benchmark_dir())
        } else if let Some(dir) = imported {
            // The imported datasets by name: `avrlab bench import` writes them under
            // $AVRLAB_BENCHMARKS.
            (name_or_path.to_owned(), dir)
        } else {
            let dir = PathBuf::from(name_or_path);
            if !dir.is_dir() {
                return Err(BenchmarkError::NotFound(name_or_path.to_owned()));
            }
            let name = dir.file_name().map_or_else(
                || name_or_path.to_owned(),
                |n| n.to_string_lossy().into_owned(),
            );
            (name, dir)
        };
        Self::load(name, &dir)
    }

    /// Loads every `<dir>/<task>/task.toml`.
    pub fn load(name: String, dir: &Path) -> Result<Self, BenchmarkError> {
        let io = |source| BenchmarkError::Io {
            path: dir.to_owned(),
            source,
        };
        let dir = dir.canonicalize().map_err(io)?;
        let mut tasks = Vec::new();
        for entry in std::fs::read_dir(&dir).map_err(io)? {
            let manifest = entry.map_err(io)?.path().join("task.toml");
            if manifest.is_file() {
                tasks.push(Task::load(&manifest)?);
            }
        }
        if tasks.is_empty() {
            return Err(BenchmarkError::Empty(dir));
        }
        tasks.sort_by(|a, b| a.id.cmp(&b.id));
        if let Some(pair) = tasks.windows(2).find(|w| w[0].id == w[1].id) {
            return Err(BenchmarkError::DuplicateId(pair[0].id.clone()));
        }
        Ok(Self { name, dir, tasks })
    }

    /// The task with this id.
    pub fn task(&self, id: &str) -> Result<&Task, BenchmarkError> {
        self.tasks
            .iter()
            .find(|t| t.id == id)
            .ok_or_else(|| BenchmarkError::UnknownTask {
                benchmark: self.name.clone(),
                task: id.to_owned(),
            })
    }
}
