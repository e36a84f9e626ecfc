//! Reports folders as hostile test code could leave them: each is read in bounded time and
//! memory and gives a reason (which the verdict rules turn into `Indeterminate`), never a hang.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use avrlab_build::{ReportError, read_reports};

const VALID: &str = r#"<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="x.ATest" tests="1" errors="0" skipped="0" failures="0">
  <testcase name="one" classname="x.ATest" time="0.01"/>
</testsuite>"#;

/// Reads the folder on a thread, so that a reader that blocks (on a FIFO, say) fails the test
/// instead of hanging the suite. The minute allowed is a hang guard, not a speed requirement.
fn read_guarded(dir: &Path) -> Result<usize, String> {
    let (send, receive) = mpsc::channel();
    let dir = dir.to_owned();
    std::thread::spawn(move || {
        let result = read_reports(&dir).map(|cases| cases.len());
        let _ = send.send(result.map_err(|e| describe(&e)));
    });
    receive
        .recv_timeout(Duration::from_secs(60))
        .expect("reading the reports hung")
}

fn describe(error: &ReportError) -> String {
    let mut text = error.to_string();
    if let Some(source) = std::error::Error::source(error) {
        text.push_str(&format!(": {source}"));
    }
    text
}

/// A folder with one valid report plus `plant`'s doing.
fn folder_with(plant: impl FnOnce(&Path)) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("TEST-x.ATest.xml"), VALID).unwrap();
    plant(dir.path());
    dir
}

#[test]
fn a_valid_folder_is_read() {
    let dir = folder_with(|_| {});
    assert_eq!(read_guarded(dir.path()), Ok(1));
}

#[test]
fn a_fifo_named_like_a_report_does_not_block() {
    let dir = folder_with(|d| {
        let path = std::ffi::CString::new(
            d.join("TEST-y.BTest.xml")
                .into_os_string()
                .into_encoded_bytes(),
        )
        .unwrap();
        // SAFETY: mkfifo reads a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(path.as_ptr(), 0o644) }, 0);
    });
    let problem = read_guarded(dir.path()).unwrap_err();
    assert!(
        problem.contains("is a FIFO, not a regular file"),
        "{problem}"
    );
}

#[test]
fn links_are_never_followed() {
    let host_file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(host_file.path(), VALID).unwrap();
    for target in [Path::new("/dev/zero"), host_file.path()] {
        let dir = folder_with(|d| {
            std::os::unix::fs::symlink(target, d.join("TEST-y.BTest.xml")).unwrap();
        });
        let problem = read_guarded(dir.path()).unwrap_err();
        assert!(
            problem.contains("is a symbolic link, not a regular file"),
            "{target:?}: {problem}"
        );
    }
}

#[test]
fn a_folder_named_like_a_report_is_refused() {
    let dir = folder_with(|d| std::fs::create_dir(d.join("TEST-y.BTest.xml")).unwrap());
    let problem = read_guarded(dir.path()).unwrap_err();
    assert!(problem.contains("is a folder"), "{problem}");
}

#[test]
fn a_100_mb_report_is_refused_without_being_read() {
    let dir = folder_with(|d| {
        // Sparse: the test itself uses no disk for it.
        let file = std::fs::File::create(d.join("TEST-y.BTest.xml")).unwrap();
        file.set_len(100 << 20).unwrap();
    });
    let problem = read_guarded(dir.path()).unwrap_err();
    assert!(problem.contains("is larger than"), "{problem}");
}

#[test]
fn a_malformed_report_is_a_reason_not_a_crash() {
    for text in [
        "<testsuite><testcase",
        "\u{0}\u{1}binary",
        "<!DOCTYPE x [<!ENTITY a \"aaaaaaaa\"><!ENTITY b \"&a;&a;&a;&a;&a;&a;&a;&a;\">]><testsuite name=\"&b;\"/>",
    ] {
        let dir = folder_with(|d| std::fs::write(d.join("TEST-y.BTest.xml"), text).unwrap());
        let problem = read_guarded(dir.path()).unwrap_err();
        assert!(
            problem.contains("is not a JUnit XML report"),
            "{text:?}: {problem}"
        );
    }
}

#[test]
fn fifty_thousand_files_are_refused_after_a_bounded_look() {
    let dir = folder_with(|d| {
        for i in 0..50_000 {
            std::fs::File::create(d.join(format!("f{i}"))).unwrap();
        }
    });
    let problem = read_guarded(dir.path()).unwrap_err();
    assert!(problem.contains("entries"), "{problem}");
}
