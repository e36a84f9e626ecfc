//! What `avrlab bench list` and `bench show` print: a benchmark's tasks one a line, and one
//! task's card (oracle tests, localization and where it came from, reference fix).

use std::fmt::Write as _;

use avrlab_bench::{Benchmark, ProjectSource, RegressionTests, Task, TaskKind};

fn cwes(task: &Task) -> String {
    task.cwe
        .iter()
        .map(|c| format!("CWE-{c}"))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One line per task (id, CWEs, CVE, localized methods), then the count.
pub fn task_list(benchmark: &Benchmark) -> String {
    let mut out = String::new();
    let _ = writeln!(out, "{:<28} {:<14} {:<18} methods", "task", "cwe", "cve");
    for task in &benchmark.tasks {
        let methods: Vec<&str> = task
            .localization
            .iter()
            .map(|l| l.method.as_str())
            .collect();
        let _ = writeln!(
            out,
            "{:<28} {:<14} {:<18} {}",
            task.id,
            cwes(task).replace(' ', ""),
            task.cve.as_deref().unwrap_or("-"),
            methods.join(", ")
        );
    }
    let _ = writeln!(
        out,
        "{} tasks in {}",
        benchmark.tasks.len(),
        benchmark.dir.display()
    );
    out
}

/// Everything a task says about itself.
pub fn task_card(task: &Task) -> String {
    let mut out = String::new();
    let kind = match task.kind {
        TaskKind::Repair => "repair",
        TaskKind::Feature => "feature",
    };
    let build = task.build.system.as_str();
    let names = |list: &[avrlab_bench::TestName]| {
        list.iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join(", ")
    };
    let _ = writeln!(out, "id:          {}", task.id);
    let _ = writeln!(out, "kind:        {kind}");
    let _ = writeln!(out, "cwe:         {}", cwes(task));
    let _ = writeln!(out, "cve:         {}", task.cve.as_deref().unwrap_or("-"));
    let _ = match &task.project {
        ProjectSource::Folder(f) => writeln!(out, "project:     {}", f.display()),
        ProjectSource::Git { url, commit } => writeln!(out, "project:     {url} @ {commit}"),
    };
    let unknown = "unknown";
    let _ = writeln!(
        out,
        "fixed:       authored {}, committed {}",
        task.dates.fix_authored.as_deref().unwrap_or(unknown),
        task.dates.fix_committed.as_deref().unwrap_or(unknown)
    );
    let _ = writeln!(
        out,
        "published:   {}",
        task.dates.cve_published.as_deref().unwrap_or(unknown)
    );
    let _ = writeln!(out, "build:       {build}, JDK {}", task.build.jdk);
    let _ = writeln!(out, "pov tests:   {}", names(&task.oracle.pov_tests));
    let _ = match &task.oracle.regression_tests {
        RegressionTests::AllOthers => writeln!(out, "regression:  all other tests"),
        RegressionTests::Listed(list) => writeln!(out, "regression:  {}", names(list)),
    };
    for loc in &task.localization {
        let _ = writeln!(
            out,
            "location:    {} {}() lines {}-{}, hunks {:?}",
            loc.file, loc.method, loc.method_lines.0, loc.method_lines.1, loc.hunks
        );
    }
    if let Some(provenance) = &task.provenance {
        let _ = writeln!(
            out,
            "localized:   {}",
            provenance
                .localization
                .as_deref()
                .unwrap_or("not recorded (imported before avrlab recorded it)")
        );
        let _ = writeln!(
            out,
            "provenance:  {} {}",
            provenance.dataset, provenance.dataset_id
        );
        for note in &provenance.notes {
            let _ = writeln!(out, "  note:      {note}");
        }
    }
    let _ = writeln!(out, "\n{}\n", task.description);
    if let Some(reference) = &task.reference {
        let _ = writeln!(out, "reference fix:\n{reference}");
    }
    out
}
