//! A progress bar on stderr, for work that takes more than a few seconds, only when stderr is a
//! terminal: never in a pipe or a log, never with `--quiet` or `--no-progress`.
//!
//! The bar appears once the work has run for [`DELAY`] (the environment variable
//! `FLATSTREAM_PROGRESS_DELAY_MS` sets another delay, which the tests use to see it at once).
//! Drivers report their position every [`STEP`] bytes or so, so the cost per frame is one
//! comparison. Work shared among threads reports through [`Progress::worker`]s, each adding
//! what its own thread has done to the one bar.
//!
//! The rate is the bytes done over the time since the work started, and the time left follows
//! from it: neither is shown before [`SETTLE`] has passed, when so few bytes over so little time
//! would say nothing true (indicatif's own estimator, fed a first position after a delay, shows
//! terabytes per second and then decays). A steady tick redraws the bar, so the time left counts
//! down between two reports.

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressState, ProgressStyle};
use std::io::IsTerminal;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

/// How long work runs before the bar appears.
const DELAY: Duration = Duration::from_secs(2);

/// How long work runs before its rate and the time left are shown.
const SETTLE: Duration = Duration::from_millis(500);

/// How often the bar is redrawn while it shows.
const TICK: Duration = Duration::from_millis(100);

/// Bytes between two position reports.
pub(crate) const STEP: u64 = 1 << 20;

static SHOWN: AtomicBool = AtomicBool::new(true);

/// Sets whether bars may show at all (`--quiet` and `--no-progress` say no).
pub(crate) fn set_shown(shown: bool) {
    SHOWN.store(shown, Ordering::Relaxed);
}

/// Progress through an input of `total` bytes (if known).
pub(crate) struct Progress {
    /// The bar, drawn nowhere until the work has lasted [`DELAY`]; `None` when no bar may
    /// show (stderr is not a terminal, `--quiet`, a command whose output is its progress).
    bar: Option<ProgressBar>,
    delay: Duration,
    /// The position at which [`update`](Self::update) next does something.
    next: u64,
    /// For a [`worker`](Self::worker): the position it last added to the bar, and the end of
    /// its share (positions past it are another worker's).
    share: Option<(u64, u64)>,
}

impl Progress {
    /// Progress of `what` ("verifying") through `total` bytes.
    pub(crate) fn new(what: &'static str, total: Option<u64>) -> Self {
        let delay = std::env::var("FLATSTREAM_PROGRESS_DELAY_MS")
            .ok()
            .and_then(|ms| ms.parse().ok())
            .map_or(DELAY, Duration::from_millis);
        let enabled = SHOWN.load(Ordering::Relaxed) && std::io::stderr().is_terminal();
        let bar = enabled.then(|| {
            // Hidden until it has lasted `delay`; its clock starts with the work.
            let bar = ProgressBar::with_draw_target(total, ProgressDrawTarget::hidden());
            bar.set_style(style(total.is_some()));
            bar.set_message(what);
            bar
        });
        Progress {
            next: if bar.is_some() { 0 } else { u64::MAX },
            bar,
            delay,
            share: None,
        }
    }

    /// Progress that is never shown, for work whose caller reports its progress.
    pub(crate) fn silent() -> Self {
        Progress {
            bar: None,
            delay: DELAY,
            next: u64::MAX,
            share: None,
        }
    }

    /// Never shows a bar (for commands whose output is their progress).
    pub(crate) fn hidden(mut self) -> Self {
        self.bar = None;
        self.next = u64::MAX;
        self
    }

    /// Progress of one thread's share of the work, the bytes `share` of the input: its
    /// [`update`](Self::update)s add to this bar what the thread has done since the last, up
    /// to the end of its share; [`done`](Self::done) adds the rest.
    pub(crate) fn worker(&self, share: std::ops::Range<u64>) -> Progress {
        Progress {
            bar: self.bar.clone(),
            delay: self.delay,
            next: if self.bar.is_some() { 0 } else { u64::MAX },
            share: Some((share.start, share.end)),
        }
    }

    /// Reports the position, in bytes; cheap unless a step was crossed.
    #[inline]
    pub(crate) fn update(&mut self, position: u64) {
        if position >= self.next {
            self.step(position);
        }
    }

    /// For a worker: its share is done.
    pub(crate) fn done(&mut self) {
        if let Some((_, end)) = self.share {
            self.step(end);
        }
    }

    #[cold]
    fn step(&mut self, position: u64) {
        self.next = position.saturating_add(STEP);
        let Some(bar) = &self.bar else {
            return;
        };
        match &mut self.share {
            None => bar.set_position(position),
            Some((last, end)) => {
                let position = position.min(*end);
                if position > *last {
                    bar.inc(position - *last);
                    *last = position;
                }
            }
        }
        if bar.is_hidden() && bar.elapsed() >= self.delay {
            bar.set_draw_target(ProgressDrawTarget::stderr());
            bar.enable_steady_tick(TICK);
        }
    }

    /// Removes the bar, if it was shown, before the command prints its result.
    pub(crate) fn finish(&mut self) {
        if self.share.is_some() {
            return; // the owner of the bar clears it
        }
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

/// The bar's look: with a total, the bar, the bytes done of the total, the rate and the time
/// left; without, the bytes done and the rate.
fn style(total: bool) -> ProgressStyle {
    let template = if total {
        "{msg} [{wide_bar}] {binary_bytes}/{binary_total_bytes}{rate}"
    } else {
        "{msg} {binary_bytes}{rate}"
    };
    ProgressStyle::with_template(template)
        .unwrap_or_else(|_| ProgressStyle::default_bar())
        .progress_chars("=> ")
        .with_key("rate", rate)
}

/// ` (RATE/s, T left)`, from the bytes done since the work started; nothing before [`SETTLE`].
fn rate(state: &ProgressState, out: &mut dyn std::fmt::Write) {
    let elapsed = state.elapsed();
    let position = state.pos();
    if elapsed < SETTLE || position == 0 {
        return;
    }
    let per_sec = position as f64 / elapsed.as_secs_f64();
    let _ = write!(out, " ({}/s", indicatif::BinaryBytes(per_sec as u64));
    if let Some(total) = state.len() {
        let left = total.saturating_sub(position) as f64 / per_sec;
        let _ = write!(out, ", {} left", duration(left));
    }
    let _ = write!(out, ")");
}

/// `5s`, `3m 20s`, `2h 05m`.
fn duration(secs: f64) -> String {
    let secs = secs.ceil().min(u64::MAX as f64) as u64;
    match secs {
        0..60 => format!("{secs}s"),
        60..3600 => format!("{}m {:02}s", secs / 60, secs % 60),
        _ => format!("{}h {:02}m", secs / 3600, secs % 3600 / 60),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn durations_read_as_people_write_them() {
        assert_eq!(duration(0.0), "0s");
        assert_eq!(duration(4.2), "5s");
        assert_eq!(duration(200.0), "3m 20s");
        assert_eq!(duration(7500.0), "2h 05m");
    }
}
