//! A run split with `--shard K/N` into stores of their own, one shard killed and resumed, merged
//! with `avrlab merge`: the merged store holds the verdicts of the same run made whole, and
//! merging again changes nothing. Bad shards and bad merges are refused in one line.

use std::path::Path;
use std::time::{Duration, Instant};

use crate::common::{avrlab, binary, heavy_one_core, run_outcomes, text};

pub(crate) const TASKS: &str = "demo-xxe-config,demo-zip-slip,demo-path-traversal";

pub(crate) fn outcomes(store: &Path) -> Vec<(String, String)> {
    run_outcomes(store, "ref")
}

fn count(store: &Path, table: &str) -> i64 {
    let db = rusqlite::Connection::open(store).unwrap();
    db.query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// `validate --reference` of [`TASKS`] as run `ref` into `store`, as shard `shard` if given.
pub(crate) fn validate_args<'a>(store: &'a Path, shard: Option<&'a str>) -> Vec<&'a str> {
    let mut args = vec![
        "validate",
        "--reference",
        "--tasks",
        TASKS,
        "--workers",
        "1",
        "--run",
        "ref",
        "--store",
        store.to_str().unwrap(),
    ];
    if let Some(shard) = shard {
        args.extend(["--shard", shard]);
    }
    args
}

#[test]
fn shards_killed_resumed_and_merged_equal_the_run_made_whole() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let path = |name: &str| dir.path().join(name);
    let (one, two, whole, merged) = (
        path("shard-1.sqlite"),
        path("shard-2.sqlite"),
        path("whole.sqlite"),
        path("merged.sqlite"),
    );

    // A shard that is not K/N with 1 <= K <= N: one line, exit 2, no store.
    let refused = avrlab(dir.path(), &validate_args(&one, Some("4/3")));
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("--shard") && stderr.contains("4/3"),
        "{stderr}"
    );
    assert!(!one.exists());

    // Shard 1 of 2 is killed once it has stored a verdict, then resumed.
    #[expect(clippy::disallowed_methods, reason = "the test kills the real binary")]
    let mut child = std::process::Command::new(binary())
        .args(validate_args(&one, Some("1/2")))
        .current_dir(dir.path())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(300);
    while !(one.exists() && count(&one, "verdicts") >= 1) {
        assert!(Instant::now() < deadline, "no verdict within 5 minutes");
        std::thread::sleep(Duration::from_millis(100));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let mut resume = validate_args(&one, Some("1/2"));
    // What a restarted batch job runs: the store has the run, so it is continued.
    resume.push("--resume-if-started");
    for (store, args) in [(&one, resume), (&two, validate_args(&two, Some("2/2")))] {
        let output = avrlab(dir.path(), &args);
        let (stdout, stderr) = text(&output);
        assert!(
            output.status.success(),
            "{}: {stdout}\n{stderr}",
            store.display()
        );
    }
    let (part_one, part_two) = (outcomes(&one), outcomes(&two));
    assert!(
        !part_one.is_empty() && !part_two.is_empty(),
        "{part_one:?} {part_two:?}"
    );

    // A merge with a shard missing is refused, and writes nothing.
    let refused = avrlab(
        dir.path(),
        &[
            "merge",
            "--into",
            merged.to_str().unwrap(),
            one.to_str().unwrap(),
        ],
    );
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("shard(s) 2/2 of 2 missing"), "{stderr}");
    assert!(!merged.exists(), "a refused merge writes nothing");

    let merge = || {
        let output = avrlab(
            dir.path(),
            &[
                "merge",
                "--into",
                merged.to_str().unwrap(),
                one.to_str().unwrap(),
                two.to_str().unwrap(),
            ],
        );
        let (stdout, stderr) = text(&output);
        assert!(output.status.success(), "{stdout}\n{stderr}");
        stdout
    };
    let first = merge();
    assert!(first.contains("run ref: shards 1/2, 2/2 merged"), "{first}");
    let rows = |store: &Path| {
        [
            "candidates",
            "verdicts",
            "phases",
            "test_results",
            "engines",
        ]
        .map(|table| count(store, table))
    };
    let after_first = rows(&merged);
    // Merging the same shards again adds nothing.
    let second = merge();
    assert!(second.contains("0 verdicts added"), "{second}");
    assert_eq!(rows(&merged), after_first);

    // The same run made whole, on one machine: the same verdicts, row for row.
    let output = avrlab(dir.path(), &validate_args(&whole, None));
    assert!(output.status.success(), "{}", text(&output).1);
    assert_eq!(outcomes(&merged), outcomes(&whole));
    assert_eq!(outcomes(&merged).len(), 6);
    let finished = |store: &Path| {
        let db = rusqlite::Connection::open(store).unwrap();
        db.query_row(
            "SELECT finished_at IS NOT NULL FROM runs WHERE id = 'ref'",
            [],
            |r| r.get::<_, bool>(0),
        )
        .unwrap()
    };
    assert!(finished(&merged), "a whole merge finishes the run");

    // Shards of another plan (other tasks under the same run id) are refused.
    let other = path("other.sqlite");
    let mut args = validate_args(&other, Some("2/2"));
    args[3] = "demo-xxe-config";
    let output = avrlab(dir.path(), &args);
    assert!(output.status.success(), "{}", text(&output).1);
    let into = path("mixed.sqlite");
    let refused = avrlab(
        dir.path(),
        &[
            "merge",
            "--into",
            into.to_str().unwrap(),
            one.to_str().unwrap(),
            other.to_str().unwrap(),
        ],
    );
    let (_, stderr) = text(&refused);
    assert_eq!(refused.status.code(), Some(2), "{stderr}");
    assert!(stderr.contains("different plans"), "{stderr}");
    assert!(!into.exists(), "a refused merge writes nothing");
}

#[test]
fn warm_up_readies_the_tasks_and_validates_nothing() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let output = avrlab(
        dir.path(),
        &["warm-up", "--tasks", "demo-zip-slip", "--workers", "1"],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stderr.contains("demo: 1 tasks warmed up for the fast engine"),
        "{stderr}"
    );
    assert!(!dir.path().join(".avrlab").exists(), "no store is written");
}
