//! What the command does on a terminal, run in a pseudo-terminal with `script` (util-linux):
//! the progress bar on stderr (only on a terminal, only for work that lasts), and the refusal
//! to write binary frames to one. Where `script` is missing, the tests say so and pass.

mod common;
use common::*;
use flatstream::ChecksumKind;
use std::process::{Command, Stdio};

/// Runs `flatstream ARGS` in a pseudo-terminal; `None` if `script` is not installed.
fn in_terminal(args: &[&str], env: &[(&str, &str)]) -> Option<Out> {
    let available = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        eprintln!("`script` (util-linux) is not installed: the terminal is not tested here");
        return None;
    }
    let mut line = String::from(env!("CARGO_BIN_EXE_flatstream"));
    for arg in args {
        assert!(!arg.contains('\''), "{arg}");
        line.push_str(&format!(" '{arg}'"));
    }
    let mut cmd = Command::new("script");
    cmd.args(["-q", "-e", "-c", &line, "/dev/null"])
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    Some(bounded(cmd, None))
}

#[test]
fn the_progress_bar_shows_on_a_terminal_once_work_lasts() {
    let dir = Dir::new();
    // Over 8 MiB: the bar is updated at least once past its start.
    let bytes = telemetry(200_000, ChecksumKind::XxHash64);
    assert!(bytes.len() > 8 << 20);
    let path = dir.file("t", &bytes);
    // The delay before the bar appears, set to nothing: the bar shows at once.
    let now = [("FLATSTREAM_PROGRESS_DELAY_MS", "0")];
    let Some(out) = in_terminal(&["verify", &path], &now) else {
        return;
    };
    assert_eq!(out.status, 0, "{out:?}");
    assert!(out.stdout.contains("verifying ["), "{out:?}");
    assert!(out.stdout.contains("MiB/"), "{out:?}");
    assert!(out.stdout.contains("ok: 200000 frames"), "{out:?}");

    // In a pipe, never.
    let out = run_with(&["verify", &path], None, &now);
    out.ok();
    assert!(out.stdout.starts_with("ok: "));
}

#[test]
fn binary_frames_are_not_written_to_a_terminal() {
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(10, ChecksumKind::Crc32));
    let Some(out) = in_terminal(&["convert", &path, "-", "--to-checksum", "none"], &[]) else {
        return;
    };
    assert_eq!(out.status, 2, "{out:?}");
    assert_eq!(
        out.stdout.trim_end(),
        "flatstream: refusing to write binary frames to a terminal: redirect stdout or pass a file"
    );
}
