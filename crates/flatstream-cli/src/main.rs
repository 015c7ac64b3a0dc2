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
//! library's readers ([`flatstream::Frames`], [`flatstream::repair::Recover`], [`flatstream::repair::Salvage`],
//! [`flatstream::StreamReader`]) over the file, memory-mapped where it can be.
//!
//! ```sh
//! cargo install --locked --path crates/flatstream-cli
//! cargo run --release --example telemetry -- 1000000 demo.fstream   # a path given is kept
//! flatstream inspect demo.fstream
//! flatstream verify demo.fstream --schema examples/telemetry.bfbs
//! flatstream cat demo.fstream --schema examples/telemetry.bfbs --limit 3
//! flatstream tail -f demo.fstream --schema examples/telemetry.bfbs
//! ```
//!
//! It behaves as ripgrep and fd do. `inspect`, `verify` and `cat` take several FILEs (`-` for
//! standard input) and report on each in turn, prefixed with its name; a command that writes a
//! stream writes it to `-o OUT`; `--checksum` is always the input stream's checksum
//! (`--to-checksum` the output's, in `convert`; `pack`, whose input is JSON, frames its output
//! with `--checksum`); a progress bar shows only when stderr is a terminal (`--quiet`
//! or `--no-progress` turn it off); `--generate complete-bash|complete-zsh|complete-fish|man`
//! prints shell completions or the man page.
//!
//! ```sh
//! flatstream verify --all a.fstream b.fstream      # every damaged range of each, worst status
//! flatstream convert raw.fstream -o safe.fstream --to-checksum xxhash64
//! flatstream --generate man > flatstream.1
//! ```
//!
//! Exit statuses, for every command: 0 when all is well (an empty file is a clean stream of
//! zero frames), 1 when the stream is damaged or fails a check (the first problem is named on
//! stderr with its frame index and byte offset, or in the report of inspect, recover and
//! salvage), 2 when the command could not do its job (a missing file, an unreadable schema, a
//! bad option, a framing that cannot be told, which inspect reports with 1); with several
//! FILEs, the worst of theirs. Errors are one line on stderr.

mod cluster;
mod commands;
mod damage;
mod detect;
mod failure;
mod generate;
mod input;
mod json;
mod options;
mod progress;
#[cfg(feature = "sql")]
mod rows;
#[cfg(feature = "sql")]
mod scan_progress;
mod schema;
mod stats;
mod walk;

use clap::Parser;
use commands::{cat, convert, export, inspect, mcap, pack, query, recover, tail, verify, worker};
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
    failure::set_quiet(cli.quiet);
    progress::set_shown(!cli.quiet && !cli.no_progress);
    let command = match (cli.command, cli.generate) {
        // --quiet and --no-progress go before a command or after it; --generate stands alone.
        (Some(_), Some(_)) => {
            let e = <Cli as clap::CommandFactory>::command().error(
                clap::error::ErrorKind::ArgumentConflict,
                "--generate stands alone: it cannot be used with a command",
            );
            let _ = e.print();
            return ExitCode::from(2);
        }
        (None, Some(kind)) => {
            return match generate::print(kind) {
                Ok(status) => status.into(),
                Err(failure) => failure.report(),
            };
        }
        (Some(command), None) => command,
        (None, None) => {
            let e = <Cli as clap::CommandFactory>::command().error(
                clap::error::ErrorKind::MissingSubcommand,
                "a command is required (see flatstream --help)",
            );
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    let result = match command {
        Command::Inspect(args) => inspect::run(&args),
        Command::Verify(args) => verify::run(&args),
        Command::Recover(args) => recover::run_recover(&args),
        Command::Salvage(args) => recover::run_salvage(&args),
        Command::Cat(args) => cat::run(&args),
        Command::Convert(args) => convert::run(&args),
        Command::Tail(args) => tail::run(&args),
        Command::Pack(args) => pack::run(&args),
        Command::Export(args) => export::run(&args),
        Command::Import(args) => mcap::run_import(&args),
        Command::Query(args) => query::run(&args),
        Command::Worker(args) => worker::run(&args),
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
        self.print();
        self.status.into()
    }
}
