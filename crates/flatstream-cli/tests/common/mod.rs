//! What the tests of the `flatstream` command share: running the real binary (bounded in
//! time), and the streams it runs on.
#![allow(dead_code, unreachable_pub)]

use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter};
use flatstream_test_support::telemetry::Reading;
use serde_json::Value;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// No run of the binary in these tests takes near this long; one that does is killed.
const TIMEOUT: Duration = Duration::from_secs(120);

/// What a run of the binary printed, and its exit status.
#[derive(Debug)]
pub struct Out {
    pub status: i32,
    pub stdout: String,
    pub stderr: String,
    pub stdout_bytes: Vec<u8>,
}

impl Out {
    /// Asserts the run failed with `status` and said why in one line starting with
    /// "flatstream: ", with no panic or backtrace; returns that line.
    pub fn one_line_error(&self, status: i32) -> String {
        assert_eq!(self.status, status, "{self:?}");
        let line = self.stderr.trim_end();
        assert!(!line.contains('\n'), "more than one line: {line}");
        assert!(line.starts_with("flatstream: "), "{line}");
        assert!(
            !line.contains("panicked") && !line.contains("backtrace"),
            "{line}"
        );
        line.to_owned()
    }

    /// Asserts the run stopped at damaged frame `index`, at byte `offset` of its stream: exit
    /// status 1 and one line `flatstream: frame INDEX at byte offset OFFSET: ` that goes on
    /// with `words`; returns the line.
    #[track_caller]
    pub fn stops_at(&self, index: usize, offset: u64, words: &str) -> String {
        let line = self.one_line_error(1);
        assert_starts_with(
            &line,
            &format!("flatstream: frame {index} at byte offset {offset}: {words}"),
        );
        line
    }

    /// Asserts the run exited with `status` (whatever it printed).
    #[track_caller]
    pub fn exits(&self, status: i32) -> &Self {
        assert_eq!(self.status, status, "{self:?}");
        self
    }

    /// Asserts the run succeeded with nothing on stderr.
    pub fn ok(&self) -> &Self {
        assert_eq!(self.status, 0, "{self:?}");
        assert_eq!(self.stderr, "", "{self:?}");
        self
    }

    /// stdout parsed as one JSON value.
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.stdout).unwrap_or_else(|e| panic!("{e}: {}", self.stdout))
    }

    /// stdout parsed as one JSON value per line.
    pub fn json_lines(&self) -> Vec<Value> {
        self.stdout.lines().map(json).collect()
    }
}

/// `line` parsed as JSON.
pub fn json(line: &str) -> Value {
    serde_json::from_str(line).unwrap_or_else(|e| panic!("{e}: {line}"))
}

/// Asserts `text` contains `part`.
#[track_caller]
pub fn assert_contains(text: &str, part: &str) {
    assert!(text.contains(part), "{part:?} is not in:\n{text}");
}

/// Asserts `text` starts with `prefix`.
#[track_caller]
pub fn assert_starts_with(text: &str, prefix: &str) {
    assert!(
        text.starts_with(prefix),
        "does not start with {prefix:?}:\n{text}"
    );
}

/// Asserts `text` ends with `suffix`.
#[track_caller]
pub fn assert_ends_with(text: &str, suffix: &str) {
    assert!(
        text.ends_with(suffix),
        "does not end with {suffix:?}:\n{text}"
    );
}

/// Asserts that `m` is telemetry reading `i` (`Reading::nth(i)`) as `cat --schema` prints
/// it: its integers exact, its value the shortest decimal that reads back to the same bits.
#[track_caller]
pub fn assert_reading(m: &Value, i: u64) {
    assert_is(m, &Reading::nth(i));
}

/// Asserts that `m` is the telemetry reading `r` as `cat --schema` prints it (see
/// [`assert_reading`]).
#[track_caller]
pub fn assert_is(m: &Value, r: &Reading) {
    assert_eq!(m["device_id"].as_u64(), Some(r.device_id), "{m}");
    assert_eq!(m["timestamp"].as_u64(), Some(r.timestamp), "{m}");
    assert_eq!(
        m["value"].as_f64().map(f64::to_bits),
        Some(r.value.to_bits()),
        "{m}"
    );
}

/// Runs `flatstream ARGS`.
pub fn run(args: &[&str]) -> Out {
    run_with(args, None, &[])
}

/// Runs `flatstream ARGS` with `stdin` on its standard input.
pub fn run_stdin(args: &[&str], stdin: &[u8]) -> Out {
    run_with(args, Some(stdin), &[])
}

/// Runs `flatstream ARGS` with `stdin` (if any) and environment variables `env`.
pub fn run_with(args: &[&str], stdin: Option<&[u8]>, env: &[(&str, &str)]) -> Out {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_flatstream"));
    cmd.args(args)
        .stdin(if stdin.is_some() {
            Stdio::piped()
        } else {
            Stdio::null()
        })
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    for (k, v) in env {
        cmd.env(k, v);
    }
    bounded(cmd, stdin)
}

/// Runs `cmd` to its end, feeding it `stdin`, killing it after [`TIMEOUT`].
pub fn bounded(mut cmd: Command, stdin: Option<&[u8]>) -> Out {
    let mut child = cmd.spawn().expect("the binary runs");
    let feeder = stdin.map(|bytes| {
        let mut pipe = child.stdin.take().unwrap();
        let bytes = bytes.to_vec();
        // A command that stops reading early closes the pipe: not an error here.
        std::thread::spawn(move || drop(pipe.write_all(&bytes)))
    });
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        stdout.read_to_end(&mut v).map(|_| v)
    });
    let err_thread = std::thread::spawn(move || {
        let mut v = Vec::new();
        stderr.read_to_end(&mut v).map(|_| v)
    });
    let started = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if started.elapsed() > TIMEOUT {
            let _ = child.kill();
            panic!("{cmd:?} ran for more than {TIMEOUT:?}");
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    if let Some(f) = feeder {
        f.join().unwrap();
    }
    let stdout_bytes = out_thread.join().unwrap().unwrap();
    let stderr = err_thread.join().unwrap().unwrap();
    Out {
        status: status.code().expect("exited, not killed by a signal"),
        stdout: String::from_utf8_lossy(&stdout_bytes).into_owned(),
        stderr: String::from_utf8(stderr).unwrap(),
        stdout_bytes,
    }
}

pub fn checksum(kind: ChecksumKind) -> AnyChecksum {
    AnyChecksum::new(kind).unwrap()
}

/// `n` telemetry readings (`Reading::nth`), written as the demo writes them: simple mode,
/// framed with `kind`.
pub fn telemetry(n: u64, kind: ChecksumKind) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum(kind)));
    for i in 0..n {
        w.write(&Reading::nth(i)).unwrap();
    }
    w.into_inner()
}

/// [`telemetry`]`(n, kind)` and the offset of each of its frames.
pub fn telemetry_at(n: u64, kind: ChecksumKind) -> (Vec<u8>, Vec<u64>) {
    let bytes = telemetry(n, kind);
    let at = offsets(&bytes, kind);
    (bytes, at)
}

/// A scratch directory with [`telemetry_at`]`(n, kind)`: the opening of most tests, which then
/// write the stream (damaged, cut or whole) into the directory.
pub struct Capture {
    pub dir: Dir,
    pub bytes: Vec<u8>,
    pub at: Vec<u64>,
}

impl Capture {
    pub fn new(n: u64, kind: ChecksumKind) -> Self {
        let (bytes, at) = telemetry_at(n, kind);
        Capture {
            dir: Dir::new(),
            bytes,
            at,
        }
    }
}

/// 100 telemetry readings framed with CRC-32, written to `dir` twice: intact as `good.EXT`,
/// and as `bad.EXT` with a bit of frame 9's payload flipped (a checksum mismatch there).
pub struct GoodAndBad {
    pub good: String,
    pub bad: String,
    /// The intact stream.
    pub bytes: Vec<u8>,
    /// Its frames' offsets.
    pub at: Vec<u64>,
}

impl GoodAndBad {
    pub fn new(dir: &Dir, ext: &str) -> Self {
        let (bytes, at) = telemetry_at(100, ChecksumKind::Crc32);
        let good = dir.file(&format!("good.{ext}"), &bytes);
        let bad = dir.file(&format!("bad.{ext}"), &flipped(&bytes, at[9] + 12, 1));
        GoodAndBad {
            good,
            bad,
            bytes,
            at,
        }
    }
}

/// A copy of `bytes` with the byte at `offset` xor-ed with `mask`.
pub fn flipped(bytes: &[u8], offset: u64, mask: u8) -> Vec<u8> {
    let mut damaged = bytes.to_vec();
    damaged[offset as usize] ^= mask;
    damaged
}

/// A copy of `bytes` whose frame at `offset` declares a length past the end of any test
/// stream: the high byte of its length set to 0x7f.
pub fn long_length(bytes: &[u8], offset: u64) -> Vec<u8> {
    let mut damaged = bytes.to_vec();
    damaged[offset as usize + 3] = 0x7f;
    damaged
}

/// `payloads` framed with `kind`.
pub fn framed<P: AsRef<[u8]>>(kind: ChecksumKind, payloads: &[P]) -> Vec<u8> {
    flatstream_test_support::stream_with(ChecksumFramer::new(checksum(kind)), payloads)
}

/// The offset of each frame of an intact stream.
pub fn offsets(bytes: &[u8], kind: ChecksumKind) -> Vec<u64> {
    let mut frames = Frames::new(bytes, ChecksumDeframer::new(checksum(kind)));
    let mut out = Vec::new();
    loop {
        let at = frames.position();
        match frames.next() {
            Some(Ok(_)) => out.push(at),
            Some(Err(e)) => panic!("{e}"),
            None => return out,
        }
    }
}

/// The payload of each frame of an intact stream.
pub fn payloads(bytes: &[u8], kind: ChecksumKind) -> Vec<Vec<u8>> {
    Frames::new(bytes, ChecksumDeframer::new(checksum(kind)))
        .map(|p| p.unwrap_or_else(|e| panic!("{e}")).to_vec())
        .collect()
}

/// A scratch directory, removed when dropped.
pub struct Dir(tempfile::TempDir);

impl Dir {
    pub fn new() -> Self {
        Dir(tempfile::tempdir().unwrap())
    }

    /// Writes `bytes` to `name` in the directory and returns its path as a string.
    pub fn file(&self, name: &str, bytes: &[u8]) -> String {
        let path = self.0.path().join(name);
        std::fs::write(&path, bytes).unwrap();
        path.to_str().unwrap().to_owned()
    }

    /// Writes `bytes` to `name` in the directory, and returns them with the file's path.
    pub fn file_of(&self, name: &str, bytes: Vec<u8>) -> (Vec<u8>, String) {
        let path = self.file(name, &bytes);
        (bytes, path)
    }

    /// The path of `name` in the directory, as a string.
    pub fn path(&self, name: &str) -> String {
        self.0.path().join(name).to_str().unwrap().to_owned()
    }
}

/// The workspace root.
pub fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The telemetry schema's binary form, as committed.
pub fn telemetry_bfbs() -> String {
    root()
        .join("examples/telemetry.bfbs")
        .to_str()
        .unwrap()
        .to_owned()
}

/// The fleet test schema's binary form, as committed.
pub fn fleet_bfbs() -> String {
    root()
        .join("examples/fleet.bfbs")
        .to_str()
        .unwrap()
        .to_owned()
}

/// The golden stream of flatstream-checksum for `kind` and `case` ("empty", "small",
/// "multi"), as bytes: its `.hex` file holds one frame per line, "length | checksum |
/// payload" in hex.
pub fn golden(kind: ChecksumKind, case: &str) -> Vec<u8> {
    let path = root().join(format!(
        "crates/flatstream-checksum/tests/golden/{kind}-{case}.hex"
    ));
    let text = std::fs::read_to_string(&path).unwrap();
    let digits: String = text
        .lines()
        .filter(|l| !l.starts_with('#'))
        .flat_map(|l| l.chars().filter(char::is_ascii_hexdigit))
        .collect();
    (0..digits.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&digits[i..i + 2], 16).unwrap())
        .collect()
}

/// Whether `script` (util-linux) is there to run the binary in a pseudo-terminal; if not, says
/// so on stderr, and the terminal tests pass without testing it.
pub fn terminal_available() -> bool {
    let available = Command::new("script")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    if !available {
        eprintln!("`script` (util-linux) is not installed: the terminal is not tested here");
    }
    available
}
