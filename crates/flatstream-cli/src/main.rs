//! `flatstream`: look into, check, repair, salvage, convert, print and pack streams of FlatBuffers
//! messages framed by flatstream.
//!
//! ```text
//! +-------------+---------------------------------+---------------------------------+
//! | len: u32 LE | checksum of payload: 0/2/4/8 B  | payload: a plain FlatBuffer     |  frame
//! +-------------+---------------------------------+---------------------------------+
//! ```
//!
//! A stream records neither its checksum nor where its frames start: this tool works that out
//! (the framing is detected from the leading frames unless `--checksum` says it) and drives the
//! library's readers ([`flatstream::Frames`], [`flatstream::Recover`], [`flatstream::Salvage`],
//! [`flatstream::StreamReader`]) over the file, memory-mapped where it can be.
//!
//! ```sh
//! cargo install --path crates/flatstream-cli
//! cargo run --release --example telemetry          # writes the demo stream
//! flatstream inspect /tmp/flatstream-telemetry-demo.fstream
//! flatstream verify /tmp/flatstream-telemetry-demo.fstream --schema examples/telemetry.bfbs
//! flatstream cat /tmp/flatstream-telemetry-demo.fstream --schema examples/telemetry.bfbs --limit 3
//! flatstream tail -f /tmp/flatstream-telemetry-demo.fstream --schema examples/telemetry.bfbs
//! ```
//!
//! Exit statuses, for every command: 0 when all is well, 1 when the stream is damaged or fails
//! a check (the first problem is named on stderr with its frame index and byte offset), 2 when
//! the command could not do its job (a missing file, an unreadable schema, a bad option, a
//! framing that cannot be told). Errors are one line on stderr.

mod cat;
mod convert;
mod detect;
mod failure;
mod input;
mod inspect;
mod json;
mod options;
mod pack;
mod progress;
mod recover;
mod schema;
mod stats;
mod tail;
mod verify;
mod walk;

use clap::Parser;
use failure::{Failure, Status};
use options::{Cli, Command};
use std::process::ExitCode;

fn main() -> ExitCode {
    failure::install_panic_hook();
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => {
            // clap's own errors (usage, --help, --version) print as clap formats them.
            let _ = e.print();
            return ExitCode::from(if e.use_stderr() { 2 } else { 0 });
        }
    };
    let result = match cli.command {
        Command::Inspect(args) => inspect::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Recover(args) => recover::run_recover(&args),
        Command::Salvage(args) => recover::run_salvage(&args),
        Command::Cat(args) => cat::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Tail(args) => tail::run(&args),
        Command::Pack(args) => pack::run(&args),
    };
    match result {
        Ok(status) => status.into(),
        Err(failure) => failure.report(),
    }
}

impl From<Status> for ExitCode {
    fn from(status: Status) -> Self {
        ExitCode::from(status as u8)
    }
}

impl Failure {
    /// Prints the one-line message (if any) and gives the exit status.
    fn report(self) -> ExitCode {
        if !self.message.is_empty() {
            // One line, whatever the message (a verifier's report spans several).
            let line: Vec<&str> = self.message.lines().map(str::trim).collect();
            eprintln!("flatstream: {}", line.join("; "));
        }
        self.status.into()
    }
}
