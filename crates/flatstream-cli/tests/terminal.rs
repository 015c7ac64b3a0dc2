//! What the command does on a terminal, run in a pseudo-terminal with `script` (util-linux):
//! the progress bar on stderr (only on a terminal, only for work that lasts), and the refusal
//! to write binary frames to one. Where `script` is missing, the tests say so and pass.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;
use std::process::{Command, Stdio};

/// Runs `flatstream ARGS` in a pseudo-terminal; `None` if `script` is not installed.
fn in_terminal(args: &[&str], env: &[(&str, &str)]) -> Option<Out> {
    if !terminal_available() {
        return None;
    }
    let mut line = String::from(env!("CARGO_BIN_EXE_flatstream"));
    for arg in args {
        // Quoted for the shell `script` runs the line in: a quote closes, is escaped, reopens.
        line.push_str(&format!(" '{}'", arg.replace('\'', "'\\''")));
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
    assert!(out.stdout.contains("/11.44 MiB"), "{out:?}");
    assert!(out.stdout.contains("ok: 200000 frames"), "{out:?}");

    // In a pipe, never.
    let out = run_with(&["verify", &path], None, &now);
    out.ok();
    assert!(out.stdout.starts_with("ok: "));
}

/// One draw of the bar: bytes done, the total, and the rate (bytes a second) and time left
/// (seconds) once they show.
#[derive(Debug, Clone, Copy)]
struct Draw {
    done: f64,
    total: f64,
    rate: Option<f64>,
    left: Option<f64>,
}

/// Every draw of `verifying [...] X MiB/Y MiB (R MiB/s, T left)` in a terminal's output.
fn draws(screen: &str) -> Vec<Draw> {
    fn bytes(text: &str) -> f64 {
        let (n, unit) = text.trim().split_once(' ').unwrap_or((text, "B"));
        let scale = match unit {
            "B" => 1.0,
            "KiB" => 1024.0,
            "MiB" => 1024.0 * 1024.0,
            "GiB" => 1024.0 * 1024.0 * 1024.0,
            "TiB" => 1024.0f64.powi(4),
            other => panic!("unit {other:?} in {text:?}"),
        };
        n.parse::<f64>().unwrap_or_else(|_| panic!("{text:?}")) * scale
    }
    fn seconds(text: &str) -> f64 {
        text.split(' ')
            .map(|part| {
                let (n, unit) = part.split_at(part.len() - 1);
                let n: f64 = n.parse().unwrap_or_else(|_| panic!("{text:?}"));
                match unit {
                    "s" => n,
                    "m" => n * 60.0,
                    "h" => n * 3600.0,
                    other => panic!("unit {other:?} in {text:?}"),
                }
            })
            .sum()
    }
    // The terminal's control sequences (ESC [ digits letter) out.
    let mut plain = String::new();
    let mut chars = screen.chars().peekable();
    while let Some(c) = chars.next() {
        if c == '\u{1b}' && chars.peek() == Some(&'[') {
            chars.next();
            while chars.next().is_some_and(|c| !c.is_ascii_alphabetic()) {}
        } else {
            plain.push(c);
        }
    }
    let mut out = Vec::new();
    for part in plain.split(['\r', '\n']) {
        let Some(at) = part.find("verifying [") else {
            continue;
        };
        let rest = &part[at..];
        let Some(close) = rest.find("] ") else {
            continue;
        };
        let rest = rest[close + 2..].trim_end();
        let (counts, rate) = match rest.split_once(" (") {
            Some((counts, rate)) => (counts, Some(rate.trim_end_matches(')'))),
            None => (rest, None),
        };
        let Some((done, total)) = counts.split_once('/') else {
            continue;
        };
        let (rate, left) = match rate.and_then(|r| r.split_once("/s, ")) {
            Some((rate, left)) => (
                Some(bytes(rate)),
                Some(seconds(left.trim_end_matches(" left"))),
            ),
            None => (None, None),
        };
        out.push(Draw {
            done: bytes(done),
            total: bytes(total),
            rate,
            left,
        });
    }
    out
}

/// A stream long enough to verify for the bar to draw several times: its path in `dir`, and
/// its size in bytes (the bar's total).
fn long_stream(dir: &Dir) -> (String, f64) {
    let bytes = telemetry(400_000, ChecksumKind::XxHash64);
    (dir.file("t", &bytes), bytes.len() as f64)
}

#[test]
fn the_rate_and_the_time_left_hold_from_the_first_draw() {
    let dir = Dir::new();
    let (path, total) = long_stream(&dir);
    // The bar shows after 600 ms of work (the default is 2 s; the rate settles in 500 ms):
    // its first draw already has a rate and a time left, and whatever it shows then, the rate
    // cannot be more than the whole file over 600 ms (indicatif's own estimator showed
    // terabytes a second at its first draw, and 0s left, then decayed).
    let delay = 0.6;
    let env = [("FLATSTREAM_PROGRESS_DELAY_MS", "600")];
    let started = std::time::Instant::now();
    let args = ["verify", "-j", "1", &path, "--schema", &telemetry_bfbs()];
    let Some(out) = in_terminal(&args, &env) else {
        return;
    };
    let wall = started.elapsed().as_secs_f64();
    assert_eq!(out.status, 0, "{out:?}");
    let draws = draws(&out.stdout);
    if wall < delay + 0.5 {
        // Work this fast ends before the bar would show: nothing to check.
        eprintln!("the work took {wall:.2} s: the bar had no time to show");
        return;
    }
    let first = draws.first().unwrap_or_else(|| panic!("no bar in {out:?}"));
    assert!(
        first.rate.is_some(),
        "the first draw has no rate: {draws:?}"
    );
    for d in &draws {
        let (rate, left) = (
            d.rate
                .unwrap_or_else(|| panic!("{d:?} has no rate: {draws:?}")),
            d.left.unwrap(),
        );
        assert!(rate <= total / delay * 1.01, "{d:?} in {:?}", out.stdout);
        assert!(rate >= total / wall / 1.1 * (d.done / total), "{d:?}");
        // The time left is what the rate gives for the bytes left, rounded up.
        let expected = (d.total - d.done) / rate;
        assert!(
            left >= expected - 1.0 && left <= expected + 1.5 + expected * 0.02,
            "{d:?}: {expected} s expected"
        );
        assert!((d.total - total).abs() <= total * 0.01, "{d:?}");
    }
}

#[test]
fn the_parallel_path_advances_the_bar() {
    let dir = Dir::new();
    let now = [("FLATSTREAM_PROGRESS_DELAY_MS", "0")];
    // The bar is drawn every 100 ms: the stream doubles until its verification lasts half a
    // second, long enough for several draws before the end on a machine of any speed.
    let mut frames = 400_000;
    let (out, total) = loop {
        let bytes = telemetry(frames, ChecksumKind::XxHash64);
        let path = dir.file("t", &bytes);
        let args = ["verify", "-j", "2", &path, "--schema", &telemetry_bfbs()];
        let started = std::time::Instant::now();
        let Some(out) = in_terminal(&args, &now) else {
            return;
        };
        if started.elapsed().as_secs_f64() >= 0.5 || frames >= 6_400_000 {
            break (out, bytes.len() as f64);
        }
        frames *= 2;
    };
    assert_eq!(out.status, 0, "{out:?}");
    let draws = draws(&out.stdout);
    // Shown between its start and its end: the threads report as they go, not at the end.
    let between = draws
        .iter()
        .filter(|d| d.done > 0.0 && d.done < total * 0.9)
        .count();
    assert!(between >= 2, "{draws:?}");
    for pair in draws.windows(2) {
        assert!(pair[0].done <= pair[1].done, "{draws:?}");
    }
    assert!(draws.iter().all(|d| d.done <= total * 1.001), "{draws:?}");
}

#[test]
fn quiet_and_no_progress_show_no_bar() {
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(200_000, ChecksumKind::XxHash64));
    let now = [("FLATSTREAM_PROGRESS_DELAY_MS", "0")];
    for flag in ["--quiet", "-q", "--no-progress"] {
        let Some(out) = in_terminal(&["verify", flag, &path], &now) else {
            return;
        };
        assert_eq!(out.status, 0, "{out:?}");
        assert!(!out.stdout.contains("verifying"), "{flag}: {out:?}");
        assert_eq!(
            out.stdout.trim_end(),
            format!("ok: 200000 frames, 12000000 bytes, xxhash64 checksums verify"),
            "{flag}"
        );
    }
}

#[test]
fn binary_frames_are_not_written_to_a_terminal() {
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(10, ChecksumKind::Crc32));
    let Some(out) = in_terminal(&["convert", &path, "-o", "-", "--to-checksum", "none"], &[])
    else {
        return;
    };
    assert_eq!(out.status, 2, "{out:?}");
    assert_eq!(
        out.stdout.trim_end(),
        "flatstream: refusing to write binary frames to a terminal: redirect stdout or pass a file"
    );
}

/// `query` on a terminal: the bar follows the bytes its scans read, out of the file's size,
/// and is gone before the table prints; with `--no-progress`, or in a pipe, there is none.
/// The delay before the bar shows is set to nothing, so the test does not depend on how long
/// the query takes.
#[cfg(feature = "sql")]
#[test]
fn query_shows_its_progress_bar_on_a_terminal_only() {
    let dir = Dir::new();
    let bytes = telemetry(200_000, ChecksumKind::XxHash64);
    assert_eq!(bytes.len(), 12_000_000);
    let path = dir.file("t.fstream", &bytes);
    let schema = telemetry_bfbs();
    let sql = format!("SELECT count(*) AS frames, max(timestamp) AS last FROM '{path}'");
    let args = ["query", "-s", &schema, &sql];
    let now = [("FLATSTREAM_PROGRESS_DELAY_MS", "0")];
    let Some(shown) = in_terminal(&args, &now) else {
        return;
    };
    assert_eq!(shown.status, 0, "{shown:?}");
    assert!(shown.stdout.contains("querying ["), "{shown:?}");
    assert!(shown.stdout.contains("/11.44 MiB"), "{shown:?}");
    // The table, after the bar: its last line is the table's border.
    assert!(shown.stdout.contains("| 200000 "), "{shown:?}");
    assert!(shown.stdout.trim_end().ends_with('+'), "{shown:?}");

    let mut quiet = args.to_vec();
    quiet.push("--no-progress");
    let hidden = in_terminal(&quiet, &now).unwrap();
    assert_eq!(hidden.status, 0, "{hidden:?}");
    assert!(!hidden.stdout.contains("querying"), "{hidden:?}");
    assert!(hidden.stdout.contains("| 200000 "), "{hidden:?}");
    let piped = run_with(&args, None, &now);
    piped.ok();
    assert!(!piped.stderr.contains("querying"), "{piped:?}");
}

#[cfg(feature = "sql")]
#[test]
fn export_shows_its_progress_bar_on_a_terminal_only() {
    let dir = Dir::new();
    // Over 1 MiB: the bar is updated past its start.
    let bytes = telemetry(100_000, ChecksumKind::Crc32c);
    let path = dir.file("t", &bytes);
    let out = dir.path("t.parquet");
    let schema = telemetry_bfbs();
    let args = [
        "export", &path, "-s", &schema, "--to", "parquet", "-o", &out,
    ];
    let now = [("FLATSTREAM_PROGRESS_DELAY_MS", "0")];
    let Some(shown) = in_terminal(&args, &now) else {
        return;
    };
    assert_eq!(shown.status, 0, "{shown:?}");
    assert!(shown.stdout.contains("exporting ["), "{shown:?}");
    // --no-progress, and a pipe: none.
    let mut quiet = args.to_vec();
    quiet.push("--no-progress");
    let hidden = in_terminal(&quiet, &now).unwrap();
    assert_eq!(hidden.status, 0, "{hidden:?}");
    assert!(!hidden.stdout.contains("exporting"), "{hidden:?}");
    run_with(&args, None, &now).ok();
}
