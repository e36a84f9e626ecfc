//! Real vulnerabilities from the datasets: Vul4J and VJBench rows imported from the shared mirrors
//! (`<repo root>/../shared/mirrors`, beside the clone in CI), checked by building and testing the
//! real projects; and the dataset rows the importer must refuse, each with one clear line.

use std::path::{Path, PathBuf};

use crate::common::{avrlab, fixtures, heavy_one_core, patch_line, repo_root, text};

/// The shared folder beside the repository; its absence is a setup error, said plainly.
fn shared(sub: &str) -> PathBuf {
    let dir = repo_root().join("..").join("shared").join(sub);
    assert!(
        dir.is_dir(),
        "{} is missing: the real-project tests need the shared datasets and mirrors beside the clone",
        dir.display()
    );
    dir
}

fn import(dir: &Path, dataset: &str, ids: &str, extra: &[&str]) -> std::process::Output {
    let out = dir.join(dataset);
    let mirrors = shared("mirrors");
    let mut args = vec![
        "bench",
        "import",
        dataset,
        "--mirrors",
        mirrors.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--ids",
        ids,
    ];
    args.extend_from_slice(extra);
    avrlab(dir, &args)
}

/// The three mirrored vulnerabilities import with `all-others` regression tests and no state
/// patch, and pass the reference check: each vulnerable state fails its PoV tests, each
/// reference fix is Plausible once the baseline has excluded what does not pass on the fix.
#[test]
fn the_three_mirrored_vulnerabilities_pass_the_reference_check() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let output = import(dir.path(), "vjbench", "Json-sanitizer-1,Jinjava-1", &[]);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("vjbench: 2 rows turned into tasks"),
        "{stdout}"
    );
    let output = import(dir.path(), "vul4j", "VUL4J-41", &[]);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("vul4j: 1 rows turned into tasks"),
        "{stdout}"
    );

    // One benchmark of the three tasks.
    let bench = dir.path().join("real");
    std::fs::create_dir_all(&bench).unwrap();
    for (dataset, id) in [
        ("vjbench", "vjbench-json-sanitizer-1"),
        ("vjbench", "vjbench-jinjava-1"),
        ("vul4j", "vul4j-41"),
    ] {
        let toml =
            std::fs::read_to_string(dir.path().join(dataset).join(id).join("task.toml")).unwrap();
        assert!(toml.contains("regression_tests = \"all-others\""), "{toml}");
        assert!(toml.contains("apply = []"), "{toml}");
        std::fs::rename(dir.path().join(dataset).join(id), bench.join(id)).unwrap();
    }
    let mirrors = shared("mirrors");
    let store = dir.path().join("results.sqlite");
    // One work folder for the check and the fast validations below: the baseline is taken once.
    let work = dir.path().join("work");
    let output = avrlab(
        dir.path(),
        &[
            "bench",
            "--benchmark",
            bench.to_str().unwrap(),
            "check",
            "--mirrors",
            mirrors.to_str().unwrap(),
            "--workers",
            "1",
            "--work-dir",
            work.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "3/3 vulnerable states fail their PoV tests, 3/3 reference fixes are Plausible"
        ),
        "{stdout}"
    );
    for id in ["vjbench-json-sanitizer-1", "vjbench-jinjava-1", "vul4j-41"] {
        assert!(
            stdout.contains(&format!("| {id} | yes | yes | yes |")),
            "{id}: {stdout}"
        );
    }
    // Jinjava's Byte Buddy pin is kept because the baseline counts more tests with it than
    // without it (both taken on the first warm-up of the state), and the check says so.
    let repair = stdout
        .lines()
        .find(|l| l.contains("repair byte-buddy: kept: the baseline counts"))
        .unwrap_or_else(|| panic!("no Byte Buddy decision: {stdout}"));
    let counts: Vec<usize> = repair
        .split_whitespace()
        .filter_map(|w| w.parse().ok())
        .collect();
    assert!(
        matches!(counts.as_slice(), [with, _, without, _] if with > without),
        "{repair}"
    );
    fast_engine_takes_the_real_tasks(dir.path(), &bench, &work);
}

/// The datasets' own buggy lines are the localization where they fit the vulnerable file:
/// Json-sanitizer-1 marks VJBench's lines 547–554 (`vul_location.json`; the fix's diff removes
/// 544–553), VUL4J-41 Vul4J's record's line 311, and each task says where its localization came
/// from. Lines that do not fit the file fall back to the fix, with the reason recorded.
#[test]
fn imported_tasks_carry_the_datasets_buggy_lines_and_say_so() {
    let dir = tempfile::tempdir().unwrap();
    let output = import(
        dir.path(),
        "vjbench",
        "Json-sanitizer-1,TorpedoQuery-1",
        &[],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let task = |dataset: &str, id: &str| {
        let path = dir.path().join(dataset).join(id).join("task.toml");
        avrlab_bench::Task::load(&path).unwrap()
    };
    let json = task("vjbench", "vjbench-json-sanitizer-1");
    assert_eq!(json.localization.len(), 1);
    let loc = &json.localization[0];
    assert_eq!(loc.file, "src/main/java/com/google/json/JsonSanitizer.java");
    assert_eq!(loc.method, "sanitizeString");
    assert_eq!(loc.method_lines, (511, 645));
    assert_eq!(loc.hunks, [(547, 554)]);
    let provenance = json.provenance.as_ref().unwrap();
    assert_eq!(
        provenance.localization.as_deref(),
        Some("dataset: vul_location.json, record VUL4J-10014")
    );
    assert!(
        provenance
            .notes
            .iter()
            .any(|n| n.contains("the fix's diff changes 544–553")),
        "{:?}",
        provenance.notes
    );
    // VJBench gives no lines for TorpedoQuery-1: the fix decides.
    let torpedo = task("vjbench", "vjbench-torpedoquery-1");
    assert_eq!(
        torpedo.provenance.unwrap().localization.as_deref(),
        Some("derived from the fix diff")
    );
    assert!(!torpedo.localization.is_empty());

    let output = import(dir.path(), "vul4j", "VUL4J-41", &[]);
    assert!(output.status.success(), "{:?}", text(&output));
    let v41 = task("vul4j", "vul4j-41");
    assert_eq!(v41.localization[0].method, "extractFile");
    assert_eq!(v41.localization[0].hunks, [(311, 311)]);
    assert_eq!(
        v41.provenance.unwrap().localization.as_deref(),
        Some("dataset: vul_location.json, record VUL4J-41")
    );

    let out = avrlab(
        dir.path(),
        &[
            "bench",
            "--benchmark",
            dir.path().join("vjbench").to_str().unwrap(),
            "show",
            "vjbench-json-sanitizer-1",
        ],
    );
    let (stdout, _) = text(&out);
    assert!(
        stdout.contains("hunks [(547, 554)]")
            && stdout.contains("localized:   dataset: vul_location.json, record VUL4J-10014"),
        "{stdout}"
    );
    // The fix commit's dates come from the mirror; VJBench gives no CVE publication date.
    assert!(
        stdout.contains(
            "fixed:       authored 2020-06-08T02:53:51+02:00, committed 2020-06-07T20:53:51-04:00"
        ) && stdout.contains("published:   unknown"),
        "{stdout}"
    );

    // A record whose lines lie past the end of the file: the fix's localization, and why.
    let published =
        std::fs::read_to_string(shared("datasets").join("vjbench/vul_location.json")).unwrap();
    let mut records: Vec<serde_json::Value> = serde_json::from_str(&published).unwrap();
    let record = records
        .iter_mut()
        .find(|r| r["vul_id"] == "VUL4J-10014")
        .unwrap();
    record["buggy_line"] = serde_json::json!([[9547, 9554]]);
    let locations = dir.path().join("vul_location.json");
    std::fs::write(&locations, serde_json::to_string(&records).unwrap()).unwrap();
    let out_dir = dir.path().join("shifted");
    let mirrors = shared("mirrors");
    let output = avrlab(
        dir.path(),
        &[
            "bench",
            "import",
            "vjbench",
            "--mirrors",
            mirrors.to_str().unwrap(),
            "--out",
            out_dir.to_str().unwrap(),
            "--ids",
            "Json-sanitizer-1",
            "--locations",
            locations.to_str().unwrap(),
        ],
    );
    assert!(output.status.success(), "{:?}", text(&output));
    let shifted =
        avrlab_bench::Task::load(&out_dir.join("vjbench-json-sanitizer-1/task.toml")).unwrap();
    assert_eq!(shifted.localization[0].hunks, [(544, 553)]);
    let provenance = shifted.provenance.unwrap();
    assert_eq!(
        provenance.localization.as_deref(),
        Some("derived from the fix diff")
    );
    assert!(
        provenance.notes.iter().any(|n| n.contains(
            "the dataset's buggy lines 9547–9554 lie outside src/main/java/com/google/json/JsonSanitizer.java"
        )),
        "{:?}",
        provenance.notes
    );
}

/// Next to Maven's check: one wrong candidate per real task on the fast engine (JUnit 3/4
/// through the vintage engine), decided by the fast path itself — no fallback, no sampled Maven
/// re-check (the sample is 0; a fast `RegressionBroken` is always confirmed) — with the outcome
/// Maven gives it
/// (`fixtures/real-candidates/expected.toml`, where every candidate was judged by both).
fn fast_engine_takes_the_real_tasks(dir: &Path, bench: &Path, work: &Path) {
    let folder = fixtures().join("real-candidates");
    let expected: std::collections::BTreeMap<String, std::collections::BTreeMap<String, String>> =
        toml::from_str(&std::fs::read_to_string(folder.join("expected.toml")).unwrap()).unwrap();
    // A PoV failure for the two VJBench tasks; for plexus-archiver a candidate that passes its
    // PoV test, so that the regression phase runs on the fast path too (and its RegressionBroken
    // stands: the fast path alone decides, with no sample) (the test classes that
    // load the changed class, by test-impact selection), and one that adds a
    // class named like a class of its plexus-io dependency (the two share a package), which the
    // class rules refuse once the warm-up has read the test classpath.
    let cases = [
        ("vjbench-jinjava-1", "restricts-another-method"),
        ("vjbench-json-sanitizer-1", "escapes-close-tags-only"),
        ("vul4j-41", "rejects-every-entry"),
        ("vul4j-41", "shadows-a-plexus-io-class"),
    ];
    let lines: Vec<String> = cases
        .iter()
        .map(|(task, label)| {
            let diff =
                std::fs::read_to_string(folder.join(task).join(format!("{label}.diff"))).unwrap();
            patch_line(task, label, &diff)
        })
        .collect();
    let patches = dir.join("real-candidates.jsonl");
    std::fs::write(&patches, lines.join("\n")).unwrap();
    let store = dir.join("fast.sqlite");
    let mirrors = shared("mirrors");
    let output = avrlab(
        dir,
        &[
            "validate",
            "--benchmark",
            bench.to_str().unwrap(),
            "--patches",
            patches.to_str().unwrap(),
            "--engine",
            "fast",
            "--recheck-sample",
            "0",
            "--workers",
            "1",
            "--mirrors",
            mirrors.to_str().unwrap(),
            "--work-dir",
            work.to_str().unwrap(),
            "--store",
            store.to_str().unwrap(),
        ],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let db = rusqlite::Connection::open(&store).unwrap();
    for (task, label) in cases {
        let id = format!("{task}/{label}");
        let (outcome, engine, fallback, fast, fast_reason): (
            String,
            String,
            Option<String>,
            Option<String>,
            Option<String>,
        ) = db
            .query_row(
                "SELECT v.outcome, e.engine, e.fallback, e.fast_outcome, e.fast_reason
                 FROM verdicts v JOIN engines e USING (run_id, candidate_id)
                 WHERE v.candidate_id = ?1",
                [&id],
                |r| Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?)),
            )
            .unwrap_or_else(|e| panic!("{id}: {e}"));
        assert_eq!(fallback, None, "{id}");
        assert_eq!(outcome, expected[task][label], "{id}");
        // Fast verdicts stand on their own (no sample here, nothing flagged).
        assert_eq!((engine.as_str(), fast.as_deref()), ("fast", None), "{id}");
        if outcome == "RegressionBroken" {
            // The PoV passed and only the regression suite decided, on the test classes that
            // load plexus-archiver's changed `AbstractUnArchiver` (some of them): the regression
            // log says which were selected.
            let log: String = db
                .query_row(
                    "SELECT log FROM phases WHERE candidate_id = ?1 AND phase = 'regression'",
                    [&id],
                    |r| r.get(0),
                )
                .unwrap_or_else(|e| panic!("{id}: {e}"));
            assert!(
                log.contains("test classes selected by class dependence (1 changed classes)"),
                "{id}: {log}"
            );
            assert_eq!(fast_reason, None, "{id}");
        }
    }
}

/// A dataset row naming a repository with no mirror, a commit the mirror lacks, or a PoV test
/// the project does not have: one clear line each, exit 2, no task folder.
#[test]
fn bad_dataset_rows_are_refused_with_one_line_and_nothing_is_stored() {
    let dir = tempfile::tempdir().unwrap();
    let source =
        std::fs::read_to_string(shared("datasets").join("vul4j/vul4j_dataset.csv")).unwrap();
    let mut lines = source.lines();
    let header = lines.next().unwrap();
    let row = lines.find(|l| l.starts_with("41,VUL4J-41,")).unwrap();
    let cases = [
        (
            row.replace(
                "codehaus-plexus/plexus-archiver/commit",
                "nobody/nothing/commit",
            ),
            "no mirror of https://github.com/nobody/nothing",
        ),
        (
            row.replace(
                "58bc24e465c0842981692adbf6d75680298989de",
                "0123456789abcdef0123456789abcdef01234567",
            ),
            "has no commit 0123456789abcdef0123456789abcdef01234567",
        ),
        (
            row.replace(
                "ZipUnArchiverTest#testExtractingZipWithEntryOutsideDestDirThrowsException",
                "ZipUnArchiverTest#noSuchTest",
            ),
            "PoV test org.codehaus.plexus.archiver.zip.ZipUnArchiverTest#noSuchTest does not exist",
        ),
    ];
    for (index, (bad_row, expected)) in cases.iter().enumerate() {
        let csv = dir.path().join(format!("bad-{index}.csv"));
        std::fs::write(&csv, format!("{header}\n{bad_row}\n")).unwrap();
        let out = dir.path().join(format!("out-{index}"));
        let mirrors = shared("mirrors");
        let output = avrlab(
            dir.path(),
            &[
                "bench",
                "import",
                "vul4j",
                "--dataset",
                csv.to_str().unwrap(),
                "--mirrors",
                mirrors.to_str().unwrap(),
                "--out",
                out.to_str().unwrap(),
            ],
        );
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
        let refusals: Vec<&str> = stdout
            .lines()
            .filter(|l| l.starts_with("refused "))
            .collect();
        assert_eq!(refusals.len(), 1, "{stdout}");
        assert!(refusals[0].contains(expected), "{stdout}");
        let stored: Vec<_> = std::fs::read_dir(&out).unwrap().flatten().collect();
        assert!(stored.is_empty(), "nothing is stored: {stored:?}");
    }
}

/// Rows the importer once refused or imported wrongly for reasons of its own: layouts read from
/// the build files (JDOM's Ant build compiles `core/src/java`), PoV tests in another module than
/// the fix (Elide), a package named `build` (Jenkins' pipeline-build-step), a dataset's class
/// name in the wrong case (ESAPI), a dataset whose two files disagree (Xwiki-commons-1 carries
/// Spark's commit in its JSON record), and PoV tests the fix commit lacks, each refusal in its
/// class and counted in the summary.
#[test]
fn rows_are_read_by_their_projects_layout_and_refused_by_class() {
    let dir = tempfile::tempdir().unwrap();
    let output = import(
        dir.path(),
        "vjbench",
        "Jdom-1,Elide-1,Xwiki-commons-1,Ratpack-1",
        &[],
    );
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains(
            "vjbench: 2 rows turned into tasks in"
        ) && stdout.contains(
            "2 refused (0 avrlab cannot drive yet, 1 dataset inconsistent or incomplete, 1 PoV test not at the fix commit, 0 no mirror here)"
        ),
        "{stdout}"
    );
    assert!(
        stdout.contains("refused Xwiki-commons-1 (dataset inconsistent or incomplete): the dataset's files disagree: VJBench_dataset.csv names https://github.com/xwiki/xwiki-commons commit 947e8921"),
        "{stdout}"
    );
    assert!(
        stdout.contains("refused Ratpack-1 (PoV test not at the fix commit)")
            && stdout.contains("https://github.com/VJBench/Ratpack-1"),
        "{stdout}"
    );
    let jdom =
        std::fs::read_to_string(dir.path().join("vjbench/vjbench-jdom-1/task.toml")).unwrap();
    assert!(
        jdom.contains("editable = [\"core/src/java/**/*.java\"]"),
        "{jdom}"
    );
    assert!(
        jdom.contains(
            "pov_tests = [\"org.jdom2.test.cases.input.TestSAXBuilder#testSetExternalFeature\"]"
        ),
        "{jdom}"
    );
    let elide =
        std::fs::read_to_string(dir.path().join("vjbench/vjbench-elide-1/task.toml")).unwrap();
    assert!(elide.contains("module = \"elide-core\""), "{elide}");
    assert!(
        elide.contains("leaves out com.yahoo.elide.tests.FilterIT"),
        "{elide}"
    );

    let output = import(dir.path(), "vul4j", "VUL4J-57,VUL4J-44,VUL4J-46", &[]);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert!(
        stdout.contains("vul4j: 2 rows turned into tasks"),
        "{stdout}"
    );
    assert!(
        stdout.contains("refused VUL4J-46 (PoV test not at the fix commit)")
            && stdout
                .contains("branch VUL4J-46 of https://github.com/FasterXML/jackson-dataformat-xml"),
        "{stdout}"
    );
    let esapi = std::fs::read_to_string(dir.path().join("vul4j/vul4j-44/task.toml")).unwrap();
    assert!(
        esapi.contains(
            "\"org.owasp.esapi.codecs.CodecImmunityTest#testImmuneEncode[PercentCodec %De]\""
        ),
        "{esapi}"
    );
    assert!(dir.path().join("vul4j/vul4j-57/reference.diff").is_file());
}

/// Runs git in `dir` for a test's own repository.
fn git(dir: &Path, args: &[&str]) -> String {
    #[expect(
        clippy::disallowed_methods,
        reason = "the test makes its own repository"
    )]
    let output = std::process::Command::new("git")
        .args(["-c", "user.name=t", "-c", "user.email=t@example.com"])
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    assert!(output.status.success(), "{output:?}");
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// `bench new` makes a task of a fix commit in any repository folder by the importers' path
/// (build read from the project, PoV tests named), and writes it only after its reference check
/// passed. Bad input — an unknown commit, a commit that changes no main source — is one line,
/// exit 2, and nothing written.
#[test]
fn a_task_from_any_fix_commit_is_written_only_after_its_check_passes() {
    let _lock = heavy_one_core();
    let dir = tempfile::tempdir().unwrap();
    let repo = dir.path().join("zip-slip");
    let demo = repo_root().join("benchmarks/demo/demo-zip-slip");
    crate::common::copy_tree(&demo.join("project"), &repo);
    git(&repo, &["init", "--quiet"]);
    git(&repo, &["add", "."]);
    git(&repo, &["commit", "--quiet", "-m", "vulnerable"]);
    git(
        &repo,
        &["apply", demo.join("reference.diff").to_str().unwrap()],
    );
    git(&repo, &["commit", "--quiet", "-am", "fix zip slip"]);
    let fix = git(&repo, &["rev-parse", "HEAD"]);
    std::fs::write(repo.join("README.md"), "notes\n").unwrap();
    git(&repo, &["add", "README.md"]);
    git(&repo, &["commit", "--quiet", "-m", "docs"]);
    let docs = git(&repo, &["rev-parse", "HEAD"]);
    let out = dir.path().join("tasks");
    let new = |fix: &str| {
        avrlab(
            dir.path(),
            &[
                "bench",
                "new",
                "--repo",
                repo.to_str().unwrap(),
                "--fix",
                fix,
                "--pov",
                "com.example.archive.ArchiveExtractorTest#doesNotWriteOutsideTheDestination",
                "--cwe",
                "CWE-22",
                "--jdk",
                "17",
                "--out",
                out.to_str().unwrap(),
            ],
        )
    };
    for (bad, expected) in [
        (
            "0123456789abcdef0123456789abcdef01234567",
            "has no commit 0123456789abcdef0123456789abcdef01234567",
        ),
        (
            docs.as_str(),
            "changes no main Java source (it changes README.md)",
        ),
    ] {
        let output = new(bad);
        let (stdout, stderr) = text(&output);
        assert_eq!(output.status.code(), Some(2), "{stdout}\n{stderr}");
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
        assert!(!out.exists(), "nothing is written");
        let left: Vec<_> = std::fs::read_dir(dir.path())
            .unwrap()
            .flatten()
            .map(|e| e.file_name())
            .collect();
        assert_eq!(left.len(), 1, "only the repository is there: {left:?}");
    }

    let output = new(&fix);
    let (stdout, stderr) = text(&output);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    let id = format!("zip-slip-{}", &fix[..8]);
    assert!(stdout.contains(&format!("new task {id} in")), "{stdout}");
    let task_dir = out.join(&id);
    let manifest = std::fs::read_to_string(task_dir.join("task.toml")).unwrap();
    assert!(manifest.contains("system = \"maven\""), "{manifest}");
    assert!(manifest.contains("cwe = [22]"), "{manifest}");
    // The fix's dates are read from git, as the commit records them.
    let dates = git(&repo, &["show", "--no-patch", "--format=%aI %cI", &fix]);
    let (authored, committed) = dates.split_once(' ').unwrap();
    assert!(
        manifest.contains(&format!("fix_authored = \"{authored}\""))
            && manifest.contains(&format!("fix_committed = \"{committed}\"")),
        "{manifest}"
    );
    assert!(!manifest.contains("cve_published"), "{manifest}");
    // The reference fix is the commit's main-source diff, as the importers compute it.
    let reference = std::fs::read_to_string(task_dir.join("reference.diff")).unwrap();
    let expected = git(
        &repo,
        &[
            "diff",
            "--no-color",
            "--no-renames",
            "--no-ext-diff",
            &format!("{fix}^"),
            &fix,
            "--",
            "src/main/java",
        ],
    );
    assert_eq!(reference.trim_end(), expected);
}
