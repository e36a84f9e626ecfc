//! Reading Surefire's JUnit XML reports (`TEST-*.xml`): the per-test results a verdict rests on.

use std::path::{Path, PathBuf};

use avrlab_core::{UntrustedFileError, read_untrusted_file};

pub use avrlab_core::TestStatus;

/// One test case from a report.
#[derive(Debug, Clone, PartialEq)]
pub struct TestCaseResult {
    pub class: String,
    pub method: String,
    pub status: TestStatus,
    pub seconds: f64,
    /// The failure or error message, if any.
    pub message: String,
}

/// At most this many entries of the reports folder are looked at. Surefire writes up to three
/// files per test class (XML, text summary, captured output), so this allows thousands of classes.
const MAX_ENTRIES: usize = 20_000;
/// The largest report read. Surefire's XML holds its tests' captured output (of passing tests too:
/// a class whose tests print more than this has no usable report), so the fast path counts what
/// each test class prints against it.
pub(crate) const MAX_REPORT_BYTES: u64 = 16 << 20;
/// The most bytes read over all reports of one run.
const MAX_TOTAL_BYTES: u64 = 128 << 20;

/// Why the reports of a run cannot be used. The reports folder is written inside the sandbox, by
/// code that may be hostile, so each of these is evidence about that code.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The reports folder or a report cannot be read.
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A report is a link, FIFO, device, socket or folder instead of a regular file.
    #[error("{path} is a {kind}, not a regular file")]
    NotRegular { path: PathBuf, kind: &'static str },
    /// A report is larger than any report avrlab reads.
    #[error("{path} is larger than {limit} bytes")]
    TooLarge { path: PathBuf, limit: u64 },
    /// The reports together are larger than avrlab reads for one run.
    #[error("the reports in {dir} hold more than {limit} bytes together")]
    TooMuch { dir: PathBuf, limit: u64 },
    /// The folder holds more entries than any test run writes.
    #[error("{dir} holds more than {limit} entries")]
    TooMany { dir: PathBuf, limit: usize },
    /// A report is not JUnit XML.
    #[error("{path} is not a JUnit XML report: {message}")]
    Malformed { path: PathBuf, message: String },
}

/// JUnit 5 reports a method with its parameter types, `name(Path)`, and a parameterized
/// invocation with its index, `name(String)[2]`; oracle tests are named by the bare method.
/// `type: message`, as the fast path's runner reports a failure (`Throwable.toString()`), so
/// both engines' messages, and the baseline's failure lines, name what was thrown.
fn typed(kind: &str, message: &str) -> String {
    match (kind.is_empty(), message.is_empty()) {
        (true, _) => message.to_owned(),
        (false, true) => kind.to_owned(),
        (false, false) => format!("{kind}: {message}"),
    }
}

/// The method name a report gives, as the fast path's runner names it: JUnit 4's parameterized
/// invocation keeps its name (`m[PercentCodec %De]`, as the datasets name PoV invocations, and
/// what follows the bracket may hold anything); JUnit 5's parameter types and index (`m(Path)[1]`)
/// and TestNG's instance (`m on instance m(pkg.Class)`, its JUnit 3 mode) are left out.
fn method_name(reported: &str) -> &str {
    match reported.find(['(', '[', ' ']) {
        Some(at) if reported[at..].starts_with('[') => reported,
        Some(at) => &reported[..at],
        None => reported,
    }
}

/// Reads one report through the hostile-file reader, at most `budget` bytes (and never more than
/// one report may hold).
fn read_report(path: &Path, budget: u64) -> Result<Vec<u8>, ReportError> {
    match read_untrusted_file(path, MAX_REPORT_BYTES.min(budget)) {
        Ok(file) => Ok(file.bytes),
        Err(UntrustedFileError::NotRegular(kind)) => Err(ReportError::NotRegular {
            path: path.to_owned(),
            kind,
        }),
        Err(UntrustedFileError::TooLarge(limit)) => Err(ReportError::TooLarge {
            path: path.to_owned(),
            limit,
        }),
        Err(UntrustedFileError::Io(source)) => Err(ReportError::Io {
            path: path.to_owned(),
            source,
        }),
    }
}

/// Reads every `TEST-*.xml` in a folder (none yields an empty list, never an error). The folder
/// was written by code under test: only regular files are read, no link is followed, and the
/// number of entries and the bytes read are capped, so that whatever the folder holds the reading
/// ends soon, in bounded memory, with the cases or the reason they cannot be used.
pub fn read_reports(dir: &Path) -> Result<Vec<TestCaseResult>, ReportError> {
    let io = |path: &Path, source| ReportError::Io {
        path: path.to_owned(),
        source,
    };
    let entries = match std::fs::read_dir(dir) {
        Ok(entries) => entries,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir, e)),
    };
    let mut files: Vec<PathBuf> = Vec::new();
    for (seen, entry) in entries.enumerate() {
        if seen >= MAX_ENTRIES {
            return Err(ReportError::TooMany {
                dir: dir.to_owned(),
                limit: MAX_ENTRIES,
            });
        }
        let entry = entry.map_err(|e| io(dir, e))?;
        let name = entry.file_name();
        if name
            .to_str()
            .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"))
        {
            files.push(entry.path());
        }
    }
    files.sort();
    let mut cases = Vec::new();
    let mut budget = MAX_TOTAL_BYTES;
    for path in files {
        if budget == 0 {
            return Err(ReportError::TooMuch {
                dir: dir.to_owned(),
                limit: MAX_TOTAL_BYTES,
            });
        }
        let bytes = read_report(&path, budget).map_err(|e| match e {
            ReportError::TooLarge { limit, .. } if limit < MAX_REPORT_BYTES => {
                ReportError::TooMuch {
                    dir: dir.to_owned(),
                    limit: MAX_TOTAL_BYTES,
                }
            }
            other => other,
        })?;
        budget -= bytes.len() as u64;
        let suites = junit_parser::from_reader(std::io::Cursor::new(bytes)).map_err(|e| {
            ReportError::Malformed {
                path: path.clone(),
                message: e.to_string(),
            }
        })?;
        for suite in suites.suites {
            for case in suite.cases {
                let (status, message) = match &case.status {
                    junit_parser::TestStatus::Success => (TestStatus::Passed, String::new()),
                    junit_parser::TestStatus::Failure(f) => {
                        (TestStatus::Failed, typed(&f.failure_type, &f.message))
                    }
                    junit_parser::TestStatus::Error(e) => {
                        (TestStatus::Errored, typed(&e.error_type, &e.message))
                    }
                    junit_parser::TestStatus::Skipped(s) => {
                        (TestStatus::Skipped, s.message.clone())
                    }
                };
                cases.push(TestCaseResult {
                    class: case.classname.clone().unwrap_or_else(|| suite.name.clone()),
                    method: method_name(&case.original_name).to_owned(),
                    status,
                    seconds: case.time,
                    message,
                });
            }
        }
    }
    Ok(cases)
}

#[cfg(test)]
mod tests {
    use super::*;

    const REPORT: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" version="3.0" name="x.ATest" time="0.05" tests="4" errors="1" skipped="1" failures="1">
  <properties><property name="java.version" value="17"/></properties>
  <testcase name="one" classname="x.ATest" time="0.01"/>
  <testcase name="two" classname="x.ATest" time="0.02">
    <failure message="expected: &lt;3&gt; but was: &lt;2&gt;" type="org.opentest4j.AssertionFailedError">trace</failure>
  </testcase>
  <testcase name="three" classname="x.ATest" time="0">
    <error message="boom" type="java.lang.IllegalStateException">trace</error>
  </testcase>
  <testcase name="four(Path)[1]" classname="x.ATest" time="0"><skipped message="off"/></testcase>
</testsuite>"#;

    #[test]
    fn a_junit_4_invocation_keeps_its_name_and_other_decorations_go() {
        assert_eq!(
            method_name("testImmuneEncode[PercentCodec IMMUNE_PERCENT (%)]"),
            "testImmuneEncode[PercentCodec IMMUNE_PERCENT (%)]"
        );
        assert_eq!(method_name("four(Path)[1]"), "four");
        assert_eq!(method_name("four(String, int)"), "four");
        assert_eq!(
            method_name("testEmpty on instance testEmpty(x.URLValidatorTest)"),
            "testEmpty"
        );
        assert_eq!(method_name("plain"), "plain");
    }

    #[test]
    fn reads_every_status_from_a_surefire_report() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("TEST-x.ATest.xml"), REPORT).unwrap();
        std::fs::write(dir.path().join("x.ATest.txt"), "not a report").unwrap();
        let cases = read_reports(dir.path()).unwrap();
        let statuses: Vec<_> = cases
            .iter()
            .map(|c| (c.method.as_str(), c.status))
            .collect();
        assert_eq!(
            statuses,
            [
                ("one", TestStatus::Passed),
                ("two", TestStatus::Failed),
                ("three", TestStatus::Errored),
                ("four", TestStatus::Skipped)
            ]
        );
        assert_eq!(
            cases[1].message,
            "org.opentest4j.AssertionFailedError: expected: <3> but was: <2>"
        );
        assert_eq!(cases[0].class, "x.ATest");
    }

    #[test]
    fn a_missing_folder_has_no_tests_and_a_broken_report_is_an_error() {
        assert!(
            read_reports(Path::new("/nonexistent/avrlab"))
                .unwrap()
                .is_empty()
        );
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("TEST-x.xml"), "<testsuite><testcase").unwrap();
        assert!(read_reports(dir.path()).is_err());
    }
}
