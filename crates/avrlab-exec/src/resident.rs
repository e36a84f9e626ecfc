//! A resident process: started once under the same sandbox and limits as every other command, then
//! spoken to line by line over its standard input and output. Every read has a deadline; past it,
//! or when the process is dropped, its whole tree is killed.

use std::io::{BufRead, BufReader, Read, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::Arc;
use std::sync::mpsc::{Receiver, RecvTimeoutError, sync_channel};
use std::time::Instant;

use crate::cgroup::Cgroup;
use crate::process::{Prepared, ProcessError, RunSpec, kill_tree, prepare};

/// Longest line kept from the process's output; longer lines are cut (a frame is far shorter).
const MAX_LINE_BYTES: usize = 32 << 20;
/// Bytes of standard error kept for diagnostics.
const STDERR_BYTES: usize = 16 << 10;
/// Marked lines of standard error kept apart from the diagnostics, so that no amount of other
/// output pushes them out (the fast path's test JVM writes its guard's flags this way).
const MARKED_LINES: usize = 256;

type SpawnRequest = (
    std::process::Command,
    std::sync::mpsc::Sender<std::io::Result<Child>>,
);

/// Spawns `command` from one thread that lives as long as the program. bubblewrap's
/// `--die-with-parent` (PR_SET_PDEATHSIG) fires when the spawning *thread* ends, and a resident
/// process outlives the worker thread that first needed it.
fn spawn_from_keeper(command: std::process::Command) -> std::io::Result<Child> {
    static KEEPER: std::sync::OnceLock<std::sync::Mutex<std::sync::mpsc::Sender<SpawnRequest>>> =
        std::sync::OnceLock::new();
    let keeper = KEEPER.get_or_init(|| {
        let (sender, requests) = std::sync::mpsc::channel::<SpawnRequest>();
        std::thread::Builder::new()
            .name("avrlab-resident-spawner".into())
            .spawn(move || {
                for (mut command, reply) in requests {
                    let _ = reply.send(command.spawn());
                }
            })
            .expect("a thread can be started");
        std::sync::Mutex::new(sender)
    });
    let (reply, answer) = std::sync::mpsc::channel();
    keeper
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .send((command, reply))
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?;
    answer
        .recv()
        .map_err(|_| std::io::Error::other("the spawner thread is gone"))?
}

/// A running resident process.
pub struct ResidentProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<String>,
    stderr: Arc<std::sync::Mutex<Vec<u8>>>,
    /// Lines of standard error that start with `marker`, in order (at most [`MARKED_LINES`]).
    marked: Arc<std::sync::Mutex<Vec<String>>>,
    stderr_reader: Option<std::thread::JoinHandle<()>>,
    cgroup: Option<Arc<Cgroup>>,
    /// Which limits were enforced and how.
    pub enforcement: String,
}

impl std::fmt::Debug for ResidentProcess {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ResidentProcess")
            .field("pid", &self.child.id())
            .finish()
    }
}

/// How a resident process ended, as avrlab saw it: the signal that ended it, and how many OOM
/// kills its cgroup counted (the memory limit's SIGKILL is the candidate's own doing).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcessEnd {
    pub signal: Option<i32>,
    pub oom_kills: Option<u64>,
}

/// How avrlab's line on a process's end starts.
const END_PREFIX: &str = "[avrlab] process ended: ";

impl ProcessEnd {
    /// The line appended to the process's standard error.
    pub fn line(&self) -> String {
        let signal = self
            .signal
            .map_or_else(|| "no signal".to_owned(), |s| format!("signal {s}"));
        let oom = self
            .oom_kills
            .map_or_else(|| "unknown".to_owned(), |n| n.to_string());
        format!("{END_PREFIX}{signal}, cgroup OOM kills {oom}")
    }

    /// The end that the last line of `text` records, if it is avrlab's line.
    pub fn of_last_line(text: &str) -> Option<Self> {
        let rest = text.lines().last()?.strip_prefix(END_PREFIX)?;
        let (signal, oom) = rest.split_once(", cgroup OOM kills ")?;
        Some(Self {
            signal: signal.strip_prefix("signal ").and_then(|s| s.parse().ok()),
            oom_kills: oom.parse().ok(),
        })
    }

    /// Killed by SIGKILL or SIGTERM with no OOM kill counted in its cgroup: by something
    /// outside the process's own doing as far as avrlab can tell (a cgroup whose counter cannot
    /// be read gives no such evidence either way, and counts as outside).
    pub fn killed_from_outside(&self) -> bool {
        matches!(self.signal, Some(libc::SIGKILL | libc::SIGTERM))
            && self.oom_kills.unwrap_or(0) == 0
    }
}

/// What a read found.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ReadLine {
    Line(String),
    /// The process closed its output (it exited or crashed).
    Closed,
    /// Nothing came before the deadline.
    TimedOut,
}

impl ResidentProcess {
    /// Starts the command of `spec` with piped standard input and output. `spec.limits.wall` is
    /// not applied here: each read has its own deadline. Lines of standard error that start with
    /// `marker` are kept apart from the diagnostics ([`Self::kill_and_collect_marked`]).
    pub fn start(spec: &RunSpec, marker: Option<&str>) -> Result<Self, ProcessError> {
        let Prepared {
            mut command,
            program,
            cgroup,
            enforcement,
            disk: _,
            inherited,
        } = prepare(spec)?;
        command.stdin(Stdio::piped());
        let mut child = spawn_from_keeper(command).map_err(|source| ProcessError::Spawn {
            program: program.to_string_lossy().into_owned(),
            source,
        })?;
        // The child has its copies of the inherited descriptors; the parent's go.
        drop(inherited);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take().expect("stdout is piped");
        let stderr_pipe = child.stderr.take().expect("stderr is piped");
        // A bounded queue: a process that floods its output blocks instead of filling memory.
        let (sender, lines) = sync_channel(64);
        std::thread::spawn(move || {
            let mut reader = BufReader::new(stdout);
            loop {
                let mut line = Vec::new();
                let read = reader
                    .by_ref()
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut line);
                match read {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {
                        let text = String::from_utf8_lossy(&line).trim_end().to_owned();
                        if sender.send(text).is_err() {
                            break;
                        }
                    }
                }
            }
        });
        let stderr = Arc::new(std::sync::Mutex::new(Vec::new()));
        let marked = Arc::new(std::sync::Mutex::new(Vec::new()));
        let kept = stderr.clone();
        let kept_marked = marked.clone();
        let marker = marker.map(str::to_owned);
        let stderr_reader = std::thread::spawn(move || {
            let mut reader = BufReader::new(stderr_pipe);
            loop {
                let mut line = Vec::new();
                match reader
                    .by_ref()
                    .take(MAX_LINE_BYTES as u64)
                    .read_until(b'\n', &mut line)
                {
                    Ok(0) | Err(_) => break,
                    Ok(_) => {}
                }
                if let Some(marker) = &marker
                    && line.starts_with(marker.as_bytes())
                {
                    let mut marked = kept_marked.lock().unwrap_or_else(|p| p.into_inner());
                    if marked.len() < MARKED_LINES {
                        marked.push(String::from_utf8_lossy(&line).trim_end().to_owned());
                    }
                    continue;
                }
                let mut kept = kept.lock().unwrap_or_else(|p| p.into_inner());
                let room = STDERR_BYTES.saturating_sub(kept.len());
                kept.extend_from_slice(&line[..line.len().min(room)]);
            }
        });
        Ok(Self {
            child,
            stdin,
            lines,
            stderr,
            marked,
            stderr_reader: Some(stderr_reader),
            cgroup,
            enforcement,
        })
    }

    /// Writes one line (a newline is added).
    pub fn send_line(&mut self, line: &str) -> std::io::Result<()> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| std::io::Error::other("the process's input is closed"))?;
        stdin.write_all(line.as_bytes())?;
        stdin.write_all(b"\n")?;
        stdin.flush()
    }

    /// The next line of output, waiting until `deadline` at most.
    pub fn read_line(&mut self, deadline: Instant) -> ReadLine {
        let wait = deadline.saturating_duration_since(Instant::now());
        match self.lines.recv_timeout(wait) {
            Ok(line) => ReadLine::Line(line),
            Err(RecvTimeoutError::Timeout) => ReadLine::TimedOut,
            Err(RecvTimeoutError::Disconnected) => ReadLine::Closed,
        }
    }

    /// The start of what the process wrote to standard error.
    pub fn stderr_text(&self) -> String {
        let kept = self.stderr.lock().unwrap_or_else(|p| p.into_inner());
        String::from_utf8_lossy(&kept).into_owned()
    }

    /// Kills the process and everything it started, then waits (up to `wait`) until its standard
    /// error has been read to the end, and returns the marked lines it wrote.
    pub fn kill_and_collect_marked(&mut self, wait: std::time::Duration) -> Vec<String> {
        self.kill();
        if let Some(reader) = self.stderr_reader.take() {
            let until = Instant::now() + wait;
            while !reader.is_finished() && Instant::now() < until {
                std::thread::sleep(std::time::Duration::from_millis(5));
            }
            if reader.is_finished() {
                let _ = reader.join();
            }
        }
        self.marked
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Waits up to `wait` for the process to end by itself (its standard input is closed first).
    pub fn wait_exit(&mut self, wait: std::time::Duration) {
        self.stdin = None;
        let until = Instant::now() + wait;
        while matches!(self.child.try_wait(), Ok(None)) && Instant::now() < until {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
    }

    /// What the process wrote to standard error, then one line of avrlab's own on how it
    /// ended ([`ProcessEnd`]), once it closed its output. The line is the text's last, after
    /// anything the process could write.
    pub fn stderr_and_end(&mut self) -> String {
        // The output closes a moment before the process is reaped.
        let until = Instant::now() + std::time::Duration::from_secs(2);
        let status = loop {
            match self.child.try_wait() {
                Ok(Some(status)) => break Some(status),
                Ok(None) if Instant::now() < until => {
                    std::thread::sleep(std::time::Duration::from_millis(10));
                }
                Ok(None) | Err(_) => break None,
            }
        };
        let end = ProcessEnd {
            signal: status.and_then(|s| {
                use std::os::unix::process::ExitStatusExt;
                // bubblewrap reports a child a signal ended as 128 + the signal.
                s.signal().or_else(|| {
                    s.code()
                        .filter(|c| (129..=192).contains(c))
                        .map(|c| c - 128)
                })
            }),
            oom_kills: self.cgroup.as_deref().and_then(Cgroup::oom_kills),
        };
        format!("{}\n{}", self.stderr_text().trim_end(), end.line())
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Kills the process and everything it started.
    pub fn kill(&mut self) {
        self.stdin = None;
        kill_tree(&mut self.child, self.cgroup.as_deref());
    }
}

impl Drop for ResidentProcess {
    fn drop(&mut self) {
        self.kill();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_end_line_reads_back_and_tells_an_outside_kill_from_the_memory_limit() {
        let outside = ProcessEnd {
            signal: Some(libc::SIGKILL),
            oom_kills: Some(0),
        };
        let text = format!("java stderr\n{}", outside.line());
        assert_eq!(ProcessEnd::of_last_line(&text), Some(outside));
        assert!(outside.killed_from_outside());
        let memory = ProcessEnd {
            oom_kills: Some(1),
            ..outside
        };
        assert!(!memory.killed_from_outside());
        let crashed = ProcessEnd {
            signal: Some(libc::SIGSEGV),
            oom_kills: None,
        };
        assert!(!crashed.killed_from_outside());
        let exited = ProcessEnd {
            signal: None,
            oom_kills: None,
        };
        assert_eq!(ProcessEnd::of_last_line(&exited.line()), Some(exited));
        // Only the last line counts: what the process wrote before it cannot pose as avrlab's.
        let forged = format!("{}\nits own last words", outside.line());
        assert_eq!(ProcessEnd::of_last_line(&forged), None);
    }
}
