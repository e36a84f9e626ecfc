//! Reading Surefire's JUnit XML reports (`TEST-*.xml`): the per-test results a verdict rests on.

use std::path::{Path, PathBuf};

/// How one test case ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TestStatus {
    Passed,
    /// An assertion failed.
    Failed,
    /// The test threw something other than an assertion error.
    Errored,
    Skipped,
}

impl TestStatus {
    /// The stored name.
    pub fn as_str(self) -> &'static str {
        match self {
            Self::Passed => "passed",
            Self::Failed => "failed",
            Self::Errored => "errored",
            Self::Skipped => "skipped",
        }
    }
}

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

/// A report file that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum ReportError {
    /// The reports folder or a file in it cannot be read.
    #[error("cannot read {path}")]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// A report is not JUnit XML.
    #[error("{path} is not a JUnit XML report: {message}")]
    Malformed { path: PathBuf, message: String },
}

/// JUnit 5 reports a method with its parameter types, `name(Path)`, and a parameterized
/// invocation with its index, `name(String)[2]`; oracle tests are named by the bare method.
fn method_name(reported: &str) -> &str {
    reported.split(['(', '[']).next().unwrap_or(reported)
}

/// Reads every `TEST-*.xml` in a folder (none yields an empty list, never an error).
pub fn read_reports(dir: &Path) -> Result<Vec<TestCaseResult>, ReportError> {
    let io = |path: &Path, source| ReportError::Io {
        path: path.to_owned(),
        source,
    };
    let mut files: Vec<PathBuf> = match std::fs::read_dir(dir) {
        Ok(entries) => entries
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| {
                p.file_name()
                    .and_then(|n| n.to_str())
                    .is_some_and(|n| n.starts_with("TEST-") && n.ends_with(".xml"))
            })
            .collect(),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
        Err(e) => return Err(io(dir, e)),
    };
    files.sort();
    let mut cases = Vec::new();
    for path in files {
        let file = std::fs::File::open(&path).map_err(|e| io(&path, e))?;
        let suites = junit_parser::from_reader(std::io::BufReader::new(file)).map_err(|e| {
            ReportError::Malformed {
                path: path.clone(),
                message: e.to_string(),
            }
        })?;
        for suite in suites.suites {
            for case in suite.cases {
                let (status, message) = match &case.status {
                    junit_parser::TestStatus::Success => (TestStatus::Passed, String::new()),
                    junit_parser::TestStatus::Failure(f) => (TestStatus::Failed, f.message.clone()),
                    junit_parser::TestStatus::Error(e) => (TestStatus::Errored, e.message.clone()),
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
        assert_eq!(cases[1].message, "expected: <3> but was: <2>");
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
