//! How a command ends: an exit status, and for a failure one line for stderr.

use std::cell::Cell;
use std::fmt::Display;

/// The exit status of a command.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
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

    /// The stream is damaged or failed a check (exit status 1).
    pub(crate) fn damaged(message: impl Display) -> Self {
        Failure {
            status: Status::Damaged,
            message: message.to_string(),
        }
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

thread_local! {
    /// Set while code that may panic on hostile input runs under `catch_unwind`: the panic
    /// becomes an error of that frame, and the hook stays silent.
    static QUIET: Cell<bool> = const { Cell::new(false) };
}

/// Prints a panic as one line (never a backtrace): a panic is a bug in flatstream, and the line
/// says so. Panics caught by [`catch_quietly`] print nothing.
pub(crate) fn install_panic_hook() {
    std::panic::set_hook(Box::new(|info| {
        if QUIET.with(Cell::get) {
            return;
        }
        let message = info
            .payload()
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| info.payload().downcast_ref::<String>().cloned())
            .unwrap_or_default();
        eprintln!("flatstream: internal error, please report it: {message}");
    }));
}

/// Runs `f`, turning a panic into `Err` with the panic's message. For library code that is
/// not ours and may panic on hostile input (the reflection verifier indexes a union's values
/// with the discriminant it reads from the buffer).
pub(crate) fn catch_quietly<T>(f: impl FnOnce() -> T) -> Result<T, String> {
    QUIET.with(|q| q.set(true));
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
    QUIET.with(|q| q.set(false));
    result.map_err(|payload| {
        payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "the verifier panicked".to_owned())
    })
}
