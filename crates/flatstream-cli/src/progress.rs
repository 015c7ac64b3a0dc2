//! A progress bar on stderr, for work that takes more than a few seconds, only when stderr is a
//! terminal: never in a pipe or a log.
//!
//! The bar appears once the work has run for [`DELAY`] (the environment variable
//! `FLATSTREAM_PROGRESS_DELAY_MS` sets another delay, which the tests use to see it at once).
//! Drivers report their position every [`STEP`] bytes or so, so the cost per frame is one
//! comparison.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::time::{Duration, Instant};

/// How long work runs before the bar appears.
const DELAY: Duration = Duration::from_secs(2);

/// Bytes between two position reports.
pub(crate) const STEP: u64 = 8 << 20;

/// Progress through an input of `total` bytes (if known).
pub(crate) struct Progress {
    what: &'static str,
    total: Option<u64>,
    started: Instant,
    delay: Duration,
    /// Whether a bar may be shown at all (stderr is a terminal).
    enabled: bool,
    bar: Option<ProgressBar>,
    /// The position at which [`update`](Self::update) next does something.
    next: u64,
}

impl Progress {
    /// Progress of `what` ("verifying") through `total` bytes.
    pub(crate) fn new(what: &'static str, total: Option<u64>) -> Self {
        let delay = std::env::var("FLATSTREAM_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DELAY, Duration::from_millis);
        let enabled = std::io::stderr().is_terminal();
        Progress {
            what,
            total,
            started: Instant::now(),
            delay,
            enabled,
            bar: None,
            next: if enabled { 0 } else { u64::MAX },
        }
    }

    /// Progress that is never shown, for work whose caller reports its progress.
    pub(crate) fn silent() -> Self {
        Progress {
            what: "",
            total: None,
            started: Instant::now(),
            delay: DELAY,
            enabled: false,
            bar: None,
            next: u64::MAX,
        }
    }

    /// Never shows a bar (for commands whose output is their progress).
    pub(crate) fn hidden(mut self) -> Self {
        self.enabled = false;
        self.next = u64::MAX;
        self
    }

    /// Reports the position, in bytes; cheap unless a step was crossed.
    #[inline]
    pub(crate) fn update(&mut self, position: u64) {
        if position >= self.next {
            self.step(position);
        }
    }

    #[cold]
    fn step(&mut self, position: u64) {
        self.next = position.saturating_add(STEP);
        if self.bar.is_none() {
            if self.started.elapsed() < self.delay {
                return;
            }
            self.bar = Some(self.show());
        }
        if let Some(bar) = &self.bar {
            bar.set_position(position);
        }
    }

    fn show(&self) -> ProgressBar {
        let bar = ProgressBar::with_draw_target(self.total, ProgressDrawTarget::stderr());
        let template = if self.total.is_some() {
            "{msg} [{bar:40}] {binary_bytes}/{binary_total_bytes} ({binary_bytes_per_sec}, {eta} left)"
        } else {
            "{msg} {binary_bytes} ({binary_bytes_per_sec})"
        };
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style.progress_chars("=> "));
        }
        bar.set_message(self.what);
        bar.set_elapsed(self.started.elapsed());
        bar
    }

    /// Removes the bar, if it was shown, before the command prints its result.
    pub(crate) fn finish(&mut self) {
        if let Some(bar) = self.bar.take() {
            bar.finish_and_clear();
        }
    }
}

impl Drop for Progress {
    fn drop(&mut self) {
        self.finish();
    }
}
