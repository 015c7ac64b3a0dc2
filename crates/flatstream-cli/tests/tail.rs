//! `flatstream tail`: the last frames of a file, and with `-f` the frames another process
//! appends, printed as `cat` prints them.
//!
//! The writer is this test binary itself, run again as a child process
//! (`flatstream_test_support::child`); `flatstream tail -f` reads the file it writes, and each
//! test kills the tail process at its end. Every wait is bounded.

mod common;
use common::*;
use flatstream::checksum::ChecksumKind;
use flatstream::journal::{SyncEveryFrames, WatermarkFile};
use flatstream::{ChecksumFramer, StreamWriter};
use flatstream_test_support::child;
use flatstream_test_support::telemetry::Reading;
use std::fs::{File, OpenOptions};
use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

/// How long any one wait of these tests may take before it fails.
const PATIENCE: Duration = Duration::from_secs(30);
const KIND: ChecksumKind = ChecksumKind::XxHash64;

/// A process whose stdout lines arrive on a channel; killed when dropped.
struct Lines {
    child: Child,
    lines: mpsc::Receiver<String>,
}

impl Lines {
    fn spawn(mut command: Command) -> Self {
        command.stdout(Stdio::piped());
        let mut child = command.spawn().expect("the process starts");
        let stdout = child.stdout.take().unwrap();
        let (send, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { return };
                if send.send(line).is_err() {
                    return;
                }
            }
        });
        Lines { child, lines }
    }

    /// `flatstream ARGS`, its stderr piped.
    fn flatstream(args: &[&str]) -> Self {
        let mut command = Command::new(env!("CARGO_BIN_EXE_flatstream"));
        command
            .args(args)
            .stdin(Stdio::null())
            .stderr(Stdio::piped());
        Lines::spawn(command)
    }

    /// The next line, failing the test after [`PATIENCE`].
    fn next(&mut self, what: &str) -> String {
        match self.lines.recv_timeout(PATIENCE) {
            Ok(line) => line,
            Err(e) => {
                let _ = self.child.kill();
                panic!("no line ({what}) within {PATIENCE:?}: {e}");
            }
        }
    }

    /// The next `n` lines.
    fn take(&mut self, n: usize, what: &str) -> Vec<String> {
        (0..n).map(|_| self.next(what)).collect()
    }

    /// Stops reading the process's stdout: the pipe closes at the next line it writes.
    fn close_stdout(&mut self) {
        self.lines = mpsc::channel().1;
    }

    /// Waits for the process to exit on its own; its exit status and stderr.
    fn exit(mut self) -> (i32, String) {
        let started = std::time::Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                let mut stderr = String::new();
                if let Some(mut e) = self.child.stderr.take() {
                    std::io::Read::read_to_string(&mut e, &mut stderr).unwrap();
                }
                return (status.code().expect("exited, not killed"), stderr);
            }
            if started.elapsed() > PATIENCE {
                let _ = self.child.kill();
                panic!("the process did not exit within {PATIENCE:?}");
            }
            std::thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for Lines {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The writer child `role`, on the file at `path`, its stdin and stdout piped.
fn spawn_writer(role: &str, path: &str, env: &[(&str, String)]) -> (Lines, ChildStdin) {
    let mut command = child::command(role, Path::new(path));
    command.stdin(Stdio::piped());
    for (k, v) in env {
        command.env(k, v);
    }
    let mut lines = Lines::spawn(command);
    let stdin = lines.child.stdin.take().unwrap();
    (lines, stdin)
}

/// What the writer child says next ([`child::say`]).
fn said(writer: &mut Lines) -> String {
    loop {
        if let Some(said) = child::heard(&writer.next("the writer")) {
            return said.to_owned();
        }
    }
}

/// The entry point of the child processes ([`child::ENTRY`]); does nothing in a normal test
/// run.
#[test]
fn child_process() {
    child::run(&[("appender", appender), ("durable", durable)]);
}

/// Appends telemetry frames `FROM..TO` (of the stream `telemetry(TO, KIND)`) to the file in
/// pieces of 1 to 7 bytes, sleeping now and then inside frames; after every 25 frames says
/// `pause N` (N frames in the file) and waits for a line on stdin; at the end says `done N`.
fn appender(path: &Path) {
    let number = |name: &str| -> u64 { std::env::var(name).unwrap().parse().unwrap() };
    let (from, to) = (number("FROM"), number("TO"));
    let bytes = telemetry(to, KIND);
    let mut ends: Vec<usize> = offsets(&bytes, KIND)
        .into_iter()
        .skip(1)
        .map(|o| o as usize)
        .collect();
    ends.push(bytes.len());
    let mut file = OpenOptions::new().append(true).open(path).unwrap();
    let mut stdin = BufReader::new(std::io::stdin());
    let mut at = if from == 0 {
        0
    } else {
        ends[from as usize - 1]
    };
    for n in from..to {
        let end = ends[n as usize];
        child::write_in_pieces(&mut file, &bytes, at..end, 5);
        at = end;
        let frames = n + 1;
        if frames % 25 == 0 && frames < to {
            child::say(&format!("pause {frames}"));
            let mut line = String::new();
            stdin.read_line(&mut line).unwrap();
        }
    }
    child::say(&format!("done {to}"));
}

/// Writes 100 telemetry frames, syncing every 8 and publishing the durable watermark beside
/// the file (`FILE.durable`), says `written`, waits for a line on stdin, syncs (the watermark
/// then covers all 100), says `synced` and waits for a line again.
fn durable(path: &Path) {
    let file = File::create(path).unwrap();
    let mut writer = StreamWriter::new(file, ChecksumFramer::new(checksum(KIND)))
        .with_sync(SyncEveryFrames::new(8))
        .with_watermark_file(WatermarkFile::create(path.with_extension("durable")).unwrap())
        .unwrap();
    for i in 0..100 {
        writer.write(&Reading::nth(i)).unwrap();
    }
    let mut stdin = BufReader::new(std::io::stdin());
    let mut line = String::new();
    child::say("written");
    stdin.read_line(&mut line).unwrap();
    writer.sync().unwrap();
    child::say("synced");
    stdin.read_line(&mut line).unwrap();
}

/// Follows the appending `writer` to its end: at each of its pauses, `tail` must already have
/// printed every frame written so far (frames come as they are written, not at the end),
/// each the reading of its index. Returns the index after the last frame printed.
fn follow(tail: &mut Lines, writer: &mut Lines, resume: &mut ChildStdin, mut printed: u64) -> u64 {
    loop {
        let said = said(writer);
        let (what, frames) = said.split_once(' ').unwrap();
        let frames: u64 = frames.parse().unwrap();
        for line in tail.take((frames - printed) as usize, "tail -f") {
            is_reading(&line, printed);
            printed += 1;
        }
        if what == "done" {
            return printed;
        }
        writeln!(resume, "go").unwrap();
    }
}

/// Asserts that `line` is telemetry reading `i`, as `cat --schema` prints it.
#[track_caller]
fn is_reading(line: &str, i: u64) {
    assert_reading(&json(line), i);
}

#[test]
fn follows_a_writer_that_appends_frames_in_pieces() {
    // The file is empty when tail starts, and no --checksum is given: tail waits until the
    // first frame tells the framing, then prints each frame as it comes.
    let dir = Dir::new();
    let path = dir.file("journal.fstream", &[]);
    let bfbs = telemetry_bfbs();
    let mut tail = Lines::flatstream(&[
        "tail",
        "-f",
        "--from-start",
        &path,
        "--schema",
        &bfbs,
        "--poll",
        "5",
    ]);
    let (mut writer, mut resume) = spawn_writer(
        "appender",
        &path,
        &[("FROM", "0".into()), ("TO", "120".into())],
    );
    assert_eq!(follow(&mut tail, &mut writer, &mut resume, 0), 120);
}

#[test]
fn starts_at_the_last_frames_then_follows() {
    let dir = Dir::new();
    let bytes = telemetry(50, KIND);
    let path = dir.file("journal.fstream", &bytes);
    let bfbs = telemetry_bfbs();
    let mut tail = Lines::flatstream(&["tail", "-f", "-n", "3", &path, "-s", &bfbs, "--poll", "5"]);
    for (line, i) in tail.take(3, "the last 3 frames").iter().zip(47..) {
        is_reading(line, i);
    }
    let (mut writer, mut resume) = spawn_writer(
        "appender",
        &path,
        &[("FROM", "50".into()), ("TO", "80".into())],
    );
    assert_eq!(follow(&mut tail, &mut writer, &mut resume, 50), 80);

    // Hex lines, as cat prints them; -n 1 shows tail has caught up before the writer starts.
    let mut tail = Lines::flatstream(&["tail", "-f", "-n", "1", &path, "--poll", "5"]);
    let all = run(&["cat", &path]);
    assert_eq!(
        tail.next("the last frame"),
        all.stdout.lines().last().unwrap()
    );
    let (mut writer, _resume) = spawn_writer(
        "appender",
        &path,
        &[("FROM", "80".into()), ("TO", "85".into())],
    );
    assert_eq!(said(&mut writer), "done 85");
    let all = run(&["cat", &path]);
    let expected: Vec<&str> = all.stdout.lines().skip(80).collect();
    assert_eq!(tail.take(5, "the new frames"), expected);
    // -n 0 prints nothing of what is there.
    assert_eq!(run(&["tail", "-n", "0", &path]).ok().stdout, "");
}

#[test]
fn stops_at_the_durable_watermark() {
    let dir = Dir::new();
    let path = dir.path("journal.fstream");
    let watermark = dir.path("journal.durable");
    let bfbs = telemetry_bfbs();
    let (mut writer, mut resume) = spawn_writer("durable", &path, &[]);
    assert_eq!(said(&mut writer), "written");

    // 100 frames written, 96 synced (every 8): only those are printed.
    let out = run(&[
        "tail",
        "--from-start",
        &path,
        "--watermark",
        &watermark,
        "-s",
        &bfbs,
    ]);
    out.ok();
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 96, "{}", out.stdout);
    for (i, line) in lines.iter().enumerate() {
        is_reading(line, i as u64);
    }
    // Without the watermark, all 100.
    let out = run(&["tail", "--from-start", &path, "-s", &bfbs]);
    assert_eq!(out.ok().stdout.lines().count(), 100);

    // Followed: 96, then the 4 others once the writer syncs.
    let mut tail = Lines::flatstream(&[
        "tail",
        "-f",
        "-n",
        "1000",
        &path,
        "--watermark",
        &watermark,
        "-s",
        &bfbs,
        "--poll",
        "5",
    ]);
    for (i, line) in tail.take(96, "the durable frames").iter().enumerate() {
        is_reading(line, i as u64);
    }
    writeln!(resume, "sync").unwrap();
    assert_eq!(said(&mut writer), "synced");
    for (line, i) in tail.take(4, "the frames synced last").iter().zip(96..) {
        is_reading(line, i);
    }
}

/// With -f, damage ends the command: the frames before it are printed, then the damage in one
/// line, exit status 1.
#[test]
fn with_follow_a_corrupt_frame_is_a_one_line_error() {
    let Capture { dir, bytes, at } = Capture::new(30, KIND);
    let bfbs = telemetry_bfbs();

    // A writer that died mid-frame, restarted without repair: the torn frame's bytes and the
    // next frames read as one frame whose checksum fails.
    let mut torn = bytes[..at[20] as usize + 9].to_vec();
    torn.extend_from_slice(&telemetry(5, KIND));
    let path = dir.file("torn", &torn);
    let out = run(&["tail", "-f", &path, "--from-start", "-s", &bfbs]);
    out.stops_at(20, at[20], "corrupt frame: checksum mismatch");
    // The frames before it were printed.
    assert_eq!(out.stdout.lines().count(), 20);

    // A flipped byte: the same.
    let path = dir.file("flipped", &flipped(&bytes, at[7] + 20, 0x04));
    run(&["tail", "-f", &path, "-c", "xxhash64"]).stops_at(
        7,
        at[7],
        "corrupt frame: checksum mismatch",
    );
}

/// Without -f, tail on a damaged file prints the last frames of the file that verify, however
/// far before them the damage lies (issue 35: it printed the last frames before the damage, as
/// if they were the end); stderr names each damaged range skipped, in the words `verify --all`
/// and `salvage` use, and the exit status is 1.
#[test]
fn on_a_damaged_file_the_last_frames_that_verify_and_what_was_skipped() {
    let Capture { dir, bytes, at } = Capture::new(30, KIND);
    let bfbs = telemetry_bfbs();

    // Damage in the middle: the file's last frames, and the damaged frame named.
    let path = dir.file("flipped", &flipped(&bytes, at[7] + 20, 0x04));
    let out = run(&["tail", &path, "-n", "2", "-s", &bfbs]);
    let error = out.one_line_error(1);
    assert_starts_with(
        &error,
        &format!(
            "flatstream: skipped {} bytes of damage in 1 range, the frames printed are the \
             last that verify: frame 7 at bytes {}..{}: corrupt frame: checksum mismatch: \
             stored 0x",
            at[8] - at[7],
            at[7],
            at[8]
        ),
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    is_reading(lines[0], 28);
    is_reading(lines[1], 29);
    // Frames are numbered among those that verify, as verify --all numbers them.
    let hex = run(&["tail", &path, "-n", "1"]);
    hex.one_line_error(1);
    assert_starts_with(&hex.stdout, &format!("frame 28 offset {} ", at[29]));

    // A writer that died mid-frame, restarted without repair: the frames it appended after
    // the torn one are the last ones, from the start too.
    let mut torn = bytes[..at[20] as usize + 9].to_vec();
    let appended = telemetry(5, KIND);
    torn.extend_from_slice(&appended);
    let path = dir.file("torn", &torn);
    let out = run(&["tail", &path, "-n", "2", "-s", &bfbs]);
    assert_contains(
        &out.one_line_error(1),
        &format!(
            "skipped 9 bytes of damage in 1 range, the frames printed are the last that verify: \
             frame 20 at bytes {}..{}: corrupt frame: checksum mismatch",
            at[20],
            at[20] + 9
        ),
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    is_reading(lines[0], 3);
    is_reading(lines[1], 4);
    let all = run(&["tail", &path, "--from-start", "-s", &bfbs]);
    all.one_line_error(1);
    let lines: Vec<&str> = all.stdout.lines().collect();
    assert_eq!(lines.len(), 25, "{all:?}");
    is_reading(lines[19], 19);
    is_reading(lines[20], 0);

    // A file that ends inside a frame: the frames before it, and the torn tail named.
    let path = dir.file("cut", &bytes[..bytes.len() - 5]);
    let out = run(&["tail", &path, "-n", "2", "-s", &bfbs]);
    let present = bytes.len() as u64 - 5 - at[29];
    assert_contains(
        &out.one_line_error(1),
        &format!(
            "frame 29 at bytes {}..{}: torn tail: the stream ends inside it ({present} of its \
             {} bytes present)",
            at[29],
            bytes.len() - 5,
            present + 5
        ),
    );
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    is_reading(lines[0], 27);
    is_reading(lines[1], 28);

    // Damage in two places: both named, the last frames printed.
    let mut twice = flipped(&bytes, at[3] + 20, 0x10);
    twice[at[12] as usize + 20] ^= 0x01;
    let path = dir.file("twice", &twice);
    let out = run(&["tail", &path, "-n", "1", "-s", &bfbs]);
    let error = out.one_line_error(1);
    assert_contains(&error, "in 2 ranges");
    assert_contains(
        &error,
        &format!("frame 3 at bytes {}..{}: corrupt frame", at[3], at[4]),
    );
    assert_contains(
        &error,
        &format!("frame 11 at bytes {}..{}: corrupt frame", at[12], at[13]),
    );
    is_reading(out.stdout.trim_end(), 29);
}

/// A pipe cannot be read again, nor a stream without a checksum resynchronised: tail prints
/// the last frames before the damage, then the damage, exit status 1.
#[test]
fn from_a_pipe_or_without_a_checksum_the_last_frames_before_the_damage() {
    let Capture { bytes, at, .. } = Capture::new(30, KIND);
    let bfbs = telemetry_bfbs();
    let damaged = flipped(&bytes, at[7] + 20, 0x04);
    let out = run_stdin(&["tail", "-", "-n", "2", "-s", &bfbs], &damaged);
    out.stops_at(7, at[7], "corrupt frame: checksum mismatch");
    let lines: Vec<&str> = out.stdout.lines().collect();
    assert_eq!(lines.len(), 2, "{out:?}");
    is_reading(lines[0], 5);
    is_reading(lines[1], 6);

    let dir = Dir::new();
    let plain = telemetry(30, ChecksumKind::None);
    let at = offsets(&plain, ChecksumKind::None);
    let path = dir.file("cut", &plain[..plain.len() - 5]);
    let out = run(&["tail", &path, "-n", "2", "-s", &bfbs]);
    out.stops_at(29, at[29], "torn tail: the stream ends inside it");
    assert_eq!(out.stdout.lines().count(), 2);
}

#[test]
fn prints_as_cat_prints() {
    let dir = Dir::new();
    let path = dir.file("t", &telemetry(40, ChecksumKind::Crc32));
    let bfbs = telemetry_bfbs();
    for format in [
        &[][..],
        &["-s", &bfbs],
        &["--format", "json", "--bytes", "hex"],
    ] {
        let cat = run(&[&["cat", &path][..], format].concat());
        cat.ok();
        let all = run(&[&["tail", &path, "--from-start"][..], format].concat());
        assert_eq!(all.ok().stdout, cat.stdout, "{format:?}");
        // By default the last 10 frames, as tail prints lines.
        let expected: Vec<&str> = cat.stdout.lines().skip(30).collect();
        let out = run(&[&["tail", &path][..], format].concat());
        assert_eq!(out.ok().stdout.lines().collect::<Vec<_>>(), expected);
    }
    // Standard input, read to its end (-f does not apply to it).
    let bytes = telemetry(40, ChecksumKind::Crc32);
    let out = run_stdin(&["tail", "-", "-f", "-n", "2"], &bytes);
    let cat = run(&["cat", &path]);
    let expected: Vec<&str> = cat.stdout.lines().skip(38).collect();
    assert_eq!(out.ok().stdout.lines().collect::<Vec<_>>(), expected);
}

#[test]
fn a_closed_stdout_ends_it_quietly() {
    let dir = Dir::new();
    let path = dir.file("journal.fstream", &telemetry(10, KIND));
    let mut tail = Lines::flatstream(&["tail", "-f", "-n", "1", &path, "--poll", "5"]);
    tail.next("the last frame");
    // The reader goes away; the next line tail writes closes the pipe, and the one after
    // that cannot be written.
    tail.close_stdout();
    let (_writer, mut resume) = spawn_writer(
        "appender",
        &path,
        &[("FROM", "10".into()), ("TO", "300".into())],
    );
    for _ in 0..20 {
        writeln!(resume, "go").unwrap(); // never paused
    }
    let (status, stderr) = tail.exit();
    assert_eq!((status, stderr.as_str()), (0, ""));
}

#[test]
fn help_explains_the_options_and_exit_statuses() {
    let out = run(&["tail", "--help"]);
    for needle in [
        "--follow",
        "--frames",
        "--from-start",
        "--watermark",
        "--poll",
        "--schema",
        "Exit status:",
        "  0  ",
        "  1  ",
        "  2  ",
    ] {
        assert_contains(&out.ok().stdout, needle);
    }
}
