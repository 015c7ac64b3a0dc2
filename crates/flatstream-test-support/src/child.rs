//! A second process for the tests that need one (a writer killed at random, a writer another
//! process follows): the test binary itself, run again with only its [`ENTRY`] test, which
//! runs the role [`command`] gave it ([`run`]) and does nothing in a normal test run.
//!
//! The child tells its parent where it is in lines on stdout ([`say`], read back with
//! [`heard`]) and waits for lines on stdin; [`write_in_pieces`] is how it appends frames.
//!
//! ```no_run
//! use flatstream_test_support::child;
//! use std::path::Path;
//! use std::process::Stdio;
//!
//! // The child's entry point, named `child::ENTRY`.
//! #[test]
//! fn child_process() {
//!     child::run(&[("writer", writer)]);
//! }
//!
//! fn writer(path: &Path) {
//!     std::fs::write(path, b"frames").unwrap();
//!     child::say("done");
//! }
//!
//! // In a test of the same binary:
//! let out = child::command("writer", "journal.fstream".as_ref())
//!     .stdout(Stdio::piped())
//!     .output()
//!     .unwrap();
//! let said: Vec<&str> = std::str::from_utf8(&out.stdout)
//!     .unwrap()
//!     .lines()
//!     .filter_map(child::heard)
//!     .collect();
//! assert_eq!(said, ["done"]);
//! ```

use std::io::Write;
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The name of the test that is the child's entry point.
pub const ENTRY: &str = "child_process";

/// The child's role, in its environment.
const ROLE_ENV: &str = "FLATSTREAM_TEST_CHILD";
/// The file it works on, in its environment.
const PATH_ENV: &str = "FLATSTREAM_TEST_CHILD_PATH";
/// What begins each line the child says.
const SAYS: &str = "child says: ";

/// A command that runs this test binary again as the child `role` on the file at `path`: its
/// [`ENTRY`] test alone, output not captured. Stdio and more environment are the caller's
/// to set.
pub fn command(role: &str, path: &Path) -> Command {
    let mut command = Command::new(std::env::current_exe().expect("the test binary's path"));
    command
        .args(["--exact", ENTRY, "--nocapture", "--test-threads", "1"])
        .env(ROLE_ENV, role)
        .env(PATH_ENV, path);
    command
}

/// What a child does: a function of the path [`command`] gave.
pub type Role = fn(&Path);

/// The body of the [`ENTRY`] test: in a child, runs the function of `roles` named by the
/// role [`command`] gave, on its path; in a normal test run, nothing.
pub fn run(roles: &[(&str, Role)]) {
    let Ok(role) = std::env::var(ROLE_ENV) else {
        return;
    };
    let path = PathBuf::from(std::env::var_os(PATH_ENV).expect("a child is given a path"));
    match roles.iter().find(|(name, _)| *name == role) {
        Some((_, child)) => child(&path),
        None => panic!("unknown child {role}"),
    }
}

/// In the child: tells the parent `what`, in a line on stdout.
pub fn say(what: &str) {
    println!("{SAYS}{what}");
}

/// In the parent: what the child said in `line` of its stdout, or `None` if the line is not
/// one the child said (the test harness prints others, and may have begun the line with
/// "test child_process ... ").
pub fn heard(line: &str) -> Option<&str> {
    line.split_once(SAYS).map(|(_, said)| said)
}

/// Writes `bytes[range]` to `out` in pieces of 1 to 7 bytes (the size a function of the
/// offset), sleeping 1 ms after every `pause_every` pieces: a frame as a follower sees it
/// when a writer's bytes reach the file a few at a time.
pub fn write_in_pieces(
    out: &mut impl Write,
    bytes: &[u8],
    range: Range<usize>,
    pause_every: usize,
) {
    let Range { start: mut at, end } = range;
    let mut piece = 0;
    while at < end {
        let len = (1 + (at * 13 + piece) % 7).min(end - at);
        out.write_all(&bytes[at..at + len])
            .expect("a piece written");
        at += len;
        piece += 1;
        if piece % pause_every == 0 {
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}
