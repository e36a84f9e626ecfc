//! A headless Chromium that opens one of avrlab's own HTML reports, takes a screenshot and returns
//! the DOM after the page's scripts ran, with the console messages the page caused. It is how the
//! tests check that a report renders in a real browser.
//!
//! The page is avrlab's own output, not untrusted code, but it shows strings from stored data, so
//! the browser runs in the same bubblewrap sandbox as candidates: no network, no host folder but
//! the page's (read-only), the screenshot's (writable) and the fonts' configuration. Chromium's own
//! sandbox needs user namespaces, which ours refuses (seccomp), and it refuses to start as root
//! without `--no-sandbox`; so it runs with `--no-sandbox` inside ours.

use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::process::{ExitKind, ProcessError, RunSpec, run};
use crate::sandbox::{Limits, Mount, SandboxKind, SandboxPolicy, find_on_path};

/// The browser binaries tried, in order: Debian's real binary (its `/usr/bin/chromium` is a shell
/// wrapper that reads `/etc/chromium.d`), then the usual names on `PATH`.
const CANDIDATES: [&str; 3] = ["chromium", "chromium-browser", "google-chrome"];

/// What the browser left.
#[derive(Debug, Clone)]
pub struct HeadlessPage {
    /// The DOM after the page's scripts ran (`--dump-dom`).
    pub dom: String,
    /// The console messages (page errors, policy violations, `console.*` calls), one a line.
    pub console: Vec<String>,
    /// The PNG written.
    pub screenshot: PathBuf,
    /// What the sandbox enforced.
    pub enforcement: String,
}

/// Why the page could not be rendered.
#[derive(Debug, thiserror::Error)]
pub enum BrowserError {
    /// No Chromium is installed (`scripts/install-deps` installs Debian's `chromium`).
    #[error("no headless browser found (chromium): run scripts/install-deps")]
    Missing,
    /// The page or the screenshot's folder is not where it was said to be.
    #[error("page {0} or its screenshot folder does not exist")]
    NoPage(PathBuf),
    /// The browser could not be run.
    #[error(transparent)]
    Process(#[from] ProcessError),
    /// The browser ran but ended badly.
    #[error("chromium ended with {exit:?}: {stderr}")]
    Failed { exit: ExitKind, stderr: String },
    /// The browser ended well but wrote no screenshot.
    #[error("chromium wrote no screenshot at {0}")]
    NoScreenshot(PathBuf),
}

/// The browser to run, if one is installed.
pub fn find_browser() -> Option<PathBuf> {
    let debian = Path::new("/usr/lib/chromium/chromium");
    if debian.is_file() {
        return Some(debian.to_path_buf());
    }
    CANDIDATES.iter().find_map(|name| find_on_path(name))
}

/// Opens `page` (a local HTML file) at `window` (width, height) pixels, writes a screenshot to
/// `screenshot` and returns the DOM and console.
pub fn render_headless(
    page: &Path,
    screenshot: &Path,
    window: (u32, u32),
    sandbox: SandboxKind,
) -> Result<HeadlessPage, BrowserError> {
    let browser = find_browser().ok_or(BrowserError::Missing)?;
    let page = page
        .canonicalize()
        .map_err(|_| BrowserError::NoPage(page.to_path_buf()))?;
    let out_folder = screenshot
        .parent()
        .filter(|p| !p.as_os_str().is_empty())
        .unwrap_or(Path::new("."))
        .canonicalize()
        .map_err(|_| BrowserError::NoPage(screenshot.to_path_buf()))?;
    let screenshot = out_folder.join(screenshot.file_name().unwrap_or("screenshot.png".as_ref()));
    let page_folder = page.parent().unwrap_or(Path::new("/")).to_path_buf();
    let mut mounts = vec![Mount::ReadOnly(page_folder)];
    if Path::new("/etc/fonts").is_dir() {
        mounts.push(Mount::ReadOnly("/etc/fonts".into()));
    }
    mounts.push(Mount::ReadWrite(out_folder));
    let spec = RunSpec {
        program: browser,
        args: vec![
            "--headless".into(),
            "--no-sandbox".into(),
            "--disable-gpu".into(),
            "--no-first-run".into(),
            "--no-default-browser-check".into(),
            "--disable-extensions".into(),
            "--disable-background-networking".into(),
            "--disable-dev-shm-usage".into(),
            // Console messages go to stderr as `INFO:CONSOLE(...)` lines.
            "--enable-logging=stderr".into(),
            "--v=0".into(),
            format!("--window-size={},{}", window.0, window.1),
            format!("--screenshot={}", screenshot.display()),
            "--dump-dom".into(),
            format!("file://{}", page.display()),
        ],
        cwd: PathBuf::from("/tmp"),
        env: vec![
            ("PATH".into(), "/usr/bin:/bin".into()),
            ("HOME".into(), "/tmp".into()),
            ("LANG".into(), "C.UTF-8".into()),
        ],
        sandbox,
        policy: SandboxPolicy {
            mounts,
            network: false,
        },
        limits: Limits {
            wall: Duration::from_secs(120),
            cpu: Duration::from_secs(240),
            memory_bytes: 2 << 30,
            processes: 512,
            output_bytes: 64 << 20,
            file_size_bytes: 256 << 20,
            disk_bytes: 1 << 30,
            disk_files: 10_000,
            idle: None,
        },
        stdin: Vec::new(),
    };
    let result = run(&spec)?;
    let stderr = result.stderr.text();
    if !result.exit.success() {
        return Err(BrowserError::Failed {
            exit: result.exit,
            stderr: stderr.lines().rev().take(20).collect::<Vec<_>>().join("\n"),
        });
    }
    // Only a regular file counts (a link planted in its place does not).
    if !std::fs::symlink_metadata(&screenshot).is_ok_and(|m| m.is_file() && m.len() > 0) {
        return Err(BrowserError::NoScreenshot(screenshot));
    }
    Ok(HeadlessPage {
        dom: result.stdout.text(),
        console: page_console(&stderr),
        screenshot,
        enforcement: result.enforcement,
    })
}

/// The console lines of Chromium's log that the page caused. Chromium's own pages (`chrome://`,
/// `chrome-untrusted://`, `devtools://`) log to the same console, for instance a "slow network"
/// note when the machine is loaded; those say nothing about the page and are left out.
fn page_console(log: &str) -> Vec<String> {
    const BROWSER_OWN: [&str; 3] = ["chrome://", "chrome-untrusted://", "devtools://"];
    log.lines()
        .filter(|line| line.contains(":CONSOLE"))
        .filter(|line| {
            let source = line
                .rsplit_once(", source: ")
                .map_or("", |(_, source)| source);
            !BROWSER_OWN.iter().any(|own| source.starts_with(own))
        })
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::page_console;

    #[test]
    fn only_the_pages_console_messages_are_kept() {
        let log = "\
[1:1:1201/215300.1:INFO:CONSOLE:574] \"Slow network is detected.\", source: chrome://resources/cr_components/composebox/composebox_input.js (574)
[1:1:1201/215300.2:INFO:CONSOLE:3] \"Refused to execute inline script\", source: file:///tmp/x/report.html (3)
[1:1:1201/215300.3:WARNING:gpu_init.cc(12)] not a console line
[1:1:1201/215300.4:INFO:CONSOLE:0] \"Uncaught TypeError: x is undefined\", source:  (0)
";
        let kept = page_console(log);
        assert_eq!(kept.len(), 2, "{kept:#?}");
        assert!(kept[0].contains("Refused to execute inline script"));
        assert!(kept[1].contains("Uncaught TypeError"));
    }
}
