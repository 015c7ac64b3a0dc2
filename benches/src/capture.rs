//! The telemetry capture of the SQL and cluster suites: the rows, the query both run, its
//! answer, and the capture as a flatstream file, written once and reused.
//!
//! ```sql
//! SELECT device_id, count(*), avg(value) FROM t GROUP BY device_id
//! ```
//!
//! The rows ([`rows`]): 1 000 devices, each row's device drawn pseudo-randomly, timestamps one
//! apart, values with every mantissa bit pseudo-random in [0, 1000) (so that their text is as
//! long as a real measurement's). Every field is non-zero, so every FlatBuffer holds all three.
//! The file ([`flatstream_file`]) holds them as XXH3-64-framed `telemetry.Telemetry` tables,
//! 60 bytes a frame, in `<bench out>/sql-<rows>/telemetry.fstream`.

use crate::paths::out_dir;
use flatstream::{ChecksumFramer, StreamWriter, XxHash64};
use flatstream_test_support::telemetry::Reading;
use std::collections::BTreeMap;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// The query every side runs.
pub const QUERY: &str = "SELECT device_id, count(*), avg(value) FROM t GROUP BY device_id";

/// Rows of the benchmark's capture: 17 000 000 frames of 60 bytes, 1.02 GB of flatstream.
pub const ROWS: u64 = 17_000_000;
/// Bytes of one frame of the flatstream file (4 length, 8 checksum, 48 FlatBuffer).
pub const FRAME_BYTES: u64 = 60;
const _: () = assert!(ROWS * FRAME_BYTES >= 1_000_000_000);

/// Rows of the capture in criterion's test mode (`--test`): enough for several batches.
pub const TEST_ROWS: u64 = 100_000;

/// Devices the rows are spread over.
pub const DEVICES: u64 = 1_000;

/// The name of the flatstream file in its directory.
pub const FILE: &str = "telemetry.fstream";

/// The first `n` rows of the workload, in order (the same on every run).
pub fn rows(n: u64) -> impl Iterator<Item = Reading> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n).map(move |i| Reading {
        device_id: 1 + next() % DEVICES,
        timestamp: 1_700_000_000_000 + i,
        value: (next() >> 11) as f64 / (1u64 << 53) as f64 * 1000.0 + f64::EPSILON,
    })
}

/// The answer: per device, its rows and the sum of their values.
pub fn expected(n: u64) -> BTreeMap<u64, (i64, f64)> {
    let mut out = BTreeMap::new();
    for r in rows(n) {
        let e = out.entry(r.device_id).or_insert((0i64, 0.0f64));
        e.0 += 1;
        e.1 += r.value;
    }
    out
}

/// The capture of `rows` rows as a flatstream file, written unless it is there already with the
/// size this code writes; its path.
pub fn flatstream_file(rows: u64) -> io::Result<PathBuf> {
    let dir = out_dir().join(format!("sql-{rows}"));
    std::fs::create_dir_all(&dir)?;
    let path = dir.join(FILE);
    if len(&path) != Some(rows * FRAME_BYTES) {
        write_atomically(&path, |w| {
            let mut writer = StreamWriter::new(w, ChecksumFramer::new(XxHash64));
            for r in self::rows(rows) {
                writer.write(&r)?;
            }
            writer.flush()?;
            Ok(())
        })?;
    }
    Ok(path)
}

/// Whether `got` is the answer for `expected`: the same devices and counts, averages within
/// a relative 1e-9 (sums added in another order differ in their last bits).
pub fn matches(got: &[(u64, i64, f64)], expected: &BTreeMap<u64, (i64, f64)>) -> bool {
    got.len() == expected.len()
        && got
            .iter()
            .zip(expected)
            .all(|(&(d, n, avg), (&ed, &(en, sum)))| {
                let want = sum / en as f64;
                d == ed && n == en && ((avg - want) / want).abs() < 1e-9
            })
}

/// The length of the file at `path`, if there is one.
pub fn len(path: &Path) -> Option<u64> {
    std::fs::metadata(path).ok().map(|m| m.len())
}

/// Writes `path` through `write` into `<path>.partial`, then renames it.
pub fn write_atomically(
    path: &Path,
    write: impl FnOnce(&mut BufWriter<File>) -> io::Result<()>,
) -> io::Result<()> {
    let partial = path.with_extension("partial");
    let mut w = BufWriter::with_capacity(1 << 20, File::create(&partial)?);
    write(&mut w)?;
    w.flush()?;
    drop(w);
    std::fs::rename(&partial, path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_frame_is_60_bytes_so_the_cached_file_is_recognised() {
        let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
        for r in rows(1000) {
            writer.write(&r).unwrap();
        }
        assert_eq!(writer.into_inner().len() as u64, 1000 * FRAME_BYTES);
    }

    #[test]
    fn rows_spread_over_every_device() {
        let e = expected(100_000);
        assert_eq!(e.len() as u64, DEVICES);
        assert_eq!(e.values().map(|v| v.0).sum::<i64>(), 100_000);
    }
}
