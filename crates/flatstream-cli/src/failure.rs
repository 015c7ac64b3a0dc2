//! How a command ends: an exit status, and for a failure one line for stderr.

use std::fmt::Display;
use std::sync::atomic::{AtomicBool, Ordering};

/// The exit status of a command; the worse of two is the larger.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Status {
    /// All is well.
    Ok = 0,
    /// The stream is damaged or failed a check.
    Damaged = 1,
    /// The command could not do its job.
    Error = 2,
}

/// A command that stops: the status, and a message for stderr (empty for a quiet end, such
/// as a closed pipe on stdout).
#[derive(Debug)]
pub(crate) struct Failure {
    pub(crate) status: Status,
    pub(crate) message: String,
}

impl Failure {
    /// The command could not do its job (exit status 2).
    pub(crate) fn error(message: impl Display) -> Self {
        Failure {
            status: Status::Error,
            message: message.to_string(),
        }
    }

    /// This failure with its message prefixed by the input's name `name`, once (an empty
    /// message, a closed stdout, stays empty).
    #[cfg(any(feature = "sql", feature = "mcap"))]
    pub(crate) fn named(mut self, name: &str) -> Self {
        if !self.message.is_empty() && !self.message.starts_with(&format!("{name}: ")) {
            self.message = format!("{name}: {}", self.message);
        }
        self
    }

    /// The stream is damaged or failed a check (exit status 1).
    pub(crate) fn damaged(message: impl Display) -> Self {
        Failure {
            status: Status::Damaged,
            message: message.to_string(),
        }
    }

    /// Prints the message, if any, as one line on stderr.
    pub(crate) fn print(&self) {
        if !self.message.is_empty() {
            // One line, whatever the message (a verifier's report spans several).
            let line: Vec<&str> = self.message.lines().map(str::trim).collect();
            eprintln!("flatstream: {}", line.join("; "));
        }
    }

    /// Whether this is the quiet end of a closed stdout: nothing more can be printed.
    fn is_closed_stdout(&self) -> bool {
        self.status == Status::Ok && self.message.is_empty()
    }

    /// An I/O error on `what` (a file name, "stdout").
    pub(crate) fn io(what: impl Display, e: std::io::Error) -> Self {
        Failure::error(format_args!("{what}: {}", io_message(&e)))
    }

    /// A write to stdout failed: a closed pipe (`flatstream cat … | head`) ends the command
    /// quietly and successfully, as `cat` would; anything else is an error.
    pub(crate) fn stdout(e: std::io::Error) -> Self {
        if e.kind() == std::io::ErrorKind::BrokenPipe {
            Failure {
                status: Status::Ok,
                message: String::new(),
            }
        } else {
            Failure::io("stdout", e)
        }
    }
}

/// The failure of `command` (export, query) in a build without the `sql` feature.
#[cfg(not(feature = "sql"))]
pub(crate) fn without_sql(command: &str) -> Failure {
    Failure::error(format_args!(
        "{command} needs DataFusion, which this flatstream was built without: build it with \
         the `sql` feature, the default (`cargo install --locked --path crates/flatstream-cli` \
         in a clone of the repository)"
    ))
}

/// The failure of an MCAP command in a build without the `mcap` feature.
#[cfg(not(feature = "mcap"))]
pub(crate) fn without_mcap(what: &str) -> Failure {
    Failure::error(format_args!(
        "{what} needs MCAP support, which this flatstream was built without: build it with the \
         `mcap` feature, a default (`cargo install --locked --path crates/flatstream-cli`)"
    ))
}

/// The failure of a cluster command in a build without the `cluster` feature.
#[cfg(not(feature = "cluster"))]
pub(crate) fn without_cluster(what: &str) -> Failure {
    Failure::error(format_args!(
        "{what} needs the cluster, which this flatstream was built without: build it with the \
         `cluster` feature (cargo install flatstream-cli, whose default it is)"
    ))
}

/// Runs `one(file, several)` on each of `files` in turn, as ripgrep does with its paths:
/// `several` says whether there is more than one (results then name their file). A file's
/// failure is printed at once, prefixed with its name, and the next file is read; the status
/// is the worst of all (2 over 1 over 0). A closed stdout ends it all, quietly.
pub(crate) fn each(
    files: &[String],
    mut one: impl FnMut(&str, bool) -> Result<Status, Failure>,
) -> Result<Status, Failure> {
    if let [file] = files {
        return one(file, false);
    }
    let mut worst = Status::Ok;
    for file in files {
        match one(file, true) {
            Ok(status) => worst = worst.max(status),
            Err(failure) if failure.is_closed_stdout() => return Err(failure),
            Err(mut failure) => {
                let name = if file == "-" { "stdin" } else { file };
                if !failure.message.starts_with(&format!("{name}: ")) {
                    failure.message = format!("{name}: {}", failure.message);
                }
                failure.print();
                worst = worst.max(failure.status);
            }
        }
    }
    Ok(worst)
}

static QUIET_OUTPUT: AtomicBool = AtomicBool::new(false);

/// Sets `--quiet`: nothing on stderr but errors.
pub(crate) fn set_quiet(quiet: bool) {
    QUIET_OUTPUT.store(quiet, Ordering::Relaxed);
}

/// Whether `--quiet` was given: informational lines on stderr are left out.
pub(crate) fn quiet() -> bool {
    QUIET_OUTPUT.load(Ordering::Relaxed)
}

/// An I/O error in lowercase words, without Rust's "(os error 2)" suffix.
pub(crate) fn io_message(e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = match text.find(" (os error") {
        Some(at) => &text[..at],
        None => &text,
    };
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => text.to_owned(),
    }
}

/// `n` and the noun for it: `1 frame`, `2 frames` (`noun` is the singular; the plural adds s).
pub(crate) fn count(n: u64, noun: &str) -> String {
    if n == 1 {
        format!("1 {noun}")
    } else {
        format!("{n} {noun}s")
    }
}

/// Prints a panic as one line (never a backtrace): a panic is a bug in flatstream, and the line
/// says so.
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("flatstream: internal error, please report it: {message}");
    }));
}

#[cfg(test)]
mod tests {
    use super::count;

    #[test]
    fn counts_take_the_plural_except_for_one() {
        assert_eq!(count(0, "frame"), "0 frames");
        assert_eq!(count(1, "frame"), "1 frame");
        assert_eq!(count(2, "error"), "2 errors");
    }
}
