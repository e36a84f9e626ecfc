//! Progress on stderr: a bar on a terminal, one line per verdict otherwise (logs, CI).

use std::io::IsTerminal;
use std::sync::Mutex;

use avrlab_run::input::PlannedCandidate;
use avrlab_run::run_loop::Progress;
use avrlab_validate::Verdict;
use indicatif::{ProgressBar, ProgressStyle};

/// Reports progress to stderr.
#[derive(Debug)]
pub struct StderrProgress {
    bar: Option<ProgressBar>,
    counts: Mutex<(usize, usize)>,
}

impl StderrProgress {
    pub fn new() -> Self {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{spinner} [{elapsed_precise}] {bar:30} {pos}/{len} {msg}",
                )
                .expect("the template is valid"),
            );
            bar
        });
        Self {
            bar,
            counts: Mutex::new((0, 0)),
        }
    }

    fn line(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.println(text),
            None => {
                #[expect(clippy::print_stderr, reason = "progress goes to stderr")]
                {
                    eprintln!("{text}");
                }
            }
        }
    }
}

impl Progress for StderrProgress {
    fn message(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.set_message(text.to_owned()),
            None => self.line(text),
        }
    }

    fn start(&self, total: usize, done: usize) {
        *self.counts.lock().expect("progress lock") = (done, total);
        if let Some(bar) = &self.bar {
            bar.set_length(total as u64);
            bar.set_position(done as u64);
            bar.set_message("validating");
        } else if done > 0 {
            self.line(&format!(
                "resuming: {done} of {total} candidates already have a verdict"
            ));
        }
    }

    fn verdict(&self, candidate: &PlannedCandidate, verdict: &Verdict) {
        let (done, total) = {
            let mut counts = self.counts.lock().expect("progress lock");
            counts.0 += 1;
            *counts
        };
        let text = format!(
            "[{done}/{total}] {}: {} ({:.1} s) {}",
            candidate.id,
            verdict.outcome,
            verdict.wall.as_secs_f64(),
            verdict.reason.chars().take(100).collect::<String>()
        );
        match &self.bar {
            Some(bar) => {
                bar.inc(1);
                bar.set_message(format!("{}: {}", candidate.id, verdict.outcome));
            }
            None => self.line(&text),
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
    }
}
