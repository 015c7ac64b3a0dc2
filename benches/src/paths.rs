//! Workloads of the read-path, size-sweep and file I/O suites, shared with the allocation
//! suite so both measure the same code.

use flatstream::read::BufReadStreamReader;
use flatstream::{Deframer, Framer, Frames, StreamReader, StreamWriter};
use flatstream_test_support::telemetry::Reading;
use std::fs::File;
use std::io::{self, BufRead, BufWriter, Read, Write};
use std::path::{Path, PathBuf};

/// What a framing-only reader saw: frames, and a fold of each payload's length and first byte
/// (enough to make the compiler keep every payload, without decoding any).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Seen {
    /// Frames read.
    pub frames: u64,
    /// Sum of payload lengths.
    pub bytes: u64,
    /// Sum of each payload's first byte.
    pub first_bytes: u64,
}

impl Seen {
    /// Folds one payload in.
    #[inline(always)]
    pub fn add(&mut self, payload: &[u8]) {
        self.frames += 1;
        self.bytes += payload.len() as u64;
        self.first_bytes += u64::from(payload.first().copied().unwrap_or(0));
    }
}

/// `n` telemetry readings written as frames with `framer`.
pub fn telemetry_stream<F: Framer>(n: u64, framer: F) -> Vec<u8> {
    let mut writer = StreamWriter::new(Vec::new(), framer);
    for i in 0..n {
        writer.write(&Reading::nth(i)).expect("write to a Vec");
    }
    writer.into_inner()
}

/// A payload of `len` bytes with a deterministic, not all-equal content.
pub fn payload(len: usize) -> Vec<u8> {
    (0..251u8)
        .cycle()
        .take(len)
        .map(|b| b.wrapping_mul(31).wrapping_add(7))
        .collect()
}

/// Reads every frame of `reader` to the end.
#[inline]
pub fn read_all<R: Read, D: Deframer>(reader: &mut StreamReader<R, D>) -> flatstream::Result<Seen> {
    let mut seen = Seen::default();
    reader.process_all(|payload| {
        seen.add(payload);
        Ok(())
    })?;
    Ok(seen)
}

/// What a reader that consumes its payloads saw: frames, payload bytes, and a fold of every
/// payload byte.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Touched {
    /// Frames read.
    pub frames: u64,
    /// Sum of payload lengths.
    pub bytes: u64,
    /// Wrapping sum of [`touch`] over every payload.
    pub sum: u64,
}

/// Reads every byte of `payload` once, as an application consuming it would at least: a
/// wrapping sum of its 8-byte little-endian words (which the compiler vectorizes) and of its
/// last bytes.
#[inline]
pub fn touch(payload: &[u8]) -> u64 {
    let words = payload.chunks_exact(8);
    let tail = words
        .remainder()
        .iter()
        .fold(0u64, |acc, &b| acc.wrapping_add(u64::from(b)));
    words.fold(tail, |acc, w| {
        acc.wrapping_add(u64::from_le_bytes(w.try_into().expect("8 bytes")))
    })
}

/// Reads every frame of `reader` to the end, touching every payload byte ([`touch`]).
#[inline]
pub fn read_all_touched<R: Read, D: Deframer>(
    reader: &mut StreamReader<R, D>,
) -> flatstream::Result<Touched> {
    let mut seen = Touched::default();
    reader.process_all(|payload| {
        seen.frames += 1;
        seen.bytes += payload.len() as u64;
        seen.sum = seen.sum.wrapping_add(touch(payload));
        Ok(())
    })?;
    Ok(seen)
}

/// Reads every frame with a `BufReadStreamReader`, in place in the source's buffer.
#[inline]
pub fn buf_read_all<R: BufRead, D: Deframer>(
    reader: &mut BufReadStreamReader<R, D>,
) -> flatstream::Result<Seen> {
    let mut seen = Seen::default();
    reader.process_all(|payload| {
        seen.add(payload);
        Ok(())
    })?;
    Ok(seen)
}

/// Iterates over every frame of `bytes`.
#[inline]
pub fn frames_all<D: Deframer>(bytes: &[u8], deframer: D) -> flatstream::Result<Seen> {
    let mut seen = Seen::default();
    for payload in Frames::new(bytes, deframer) {
        seen.add(payload?);
    }
    Ok(seen)
}

/// Where the benchmarks put their scratch files: `$FLATSTREAM_BENCH_OUT`, else
/// `$CARGO_TARGET_DIR/flatstream-bench`, else `target/flatstream-bench` of the workspace.
pub fn out_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("FLATSTREAM_BENCH_OUT") {
        return PathBuf::from(dir);
    }
    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| Path::new(env!("CARGO_MANIFEST_DIR")).join("../target"));
    target.join("flatstream-bench")
}

/// How the file I/O suite writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Sink {
    /// A `BufWriter` with a 1 MiB buffer in front of the `File`.
    BufWriter,
    /// The `File` itself, with vectored writes: one `writev` system call per 4 KiB frame, two
    /// `write` calls per smaller frame.
    File,
}

/// Writes `count` frames of `payload` to a new file at `path` with `framer`; returns the file
/// length. The data reaches the page cache, not necessarily the disk (no `fsync`).
pub fn write_file<F: Framer>(
    path: &Path,
    sink: Sink,
    framer: F,
    payload: &[u8],
    count: u64,
) -> io::Result<u64> {
    let file = File::create(path)?;
    match sink {
        Sink::BufWriter => {
            let mut w = StreamWriter::new(BufWriter::with_capacity(1 << 20, file), framer);
            for _ in 0..count {
                w.write_payload(payload)?;
            }
            w.flush()?;
            Ok(w.bytes_written())
        }
        Sink::File => {
            // Unbuffered: header and payload of 4 KiB frames in one vectored write.
            let mut w = StreamWriter::new(file, framer).with_vectored_writes();
            for _ in 0..count {
                w.write_payload(payload)?;
            }
            w.flush()?;
            Ok(w.bytes_written())
        }
    }
}

/// Reads every frame of the file at `path` with a `StreamReader` straight on the `File`.
pub fn read_file<D: Deframer>(path: &Path, deframer: D) -> io::Result<Seen> {
    let file = File::open(path)?;
    Ok(read_all(&mut StreamReader::new(file, deframer))?)
}

/// Copies `src` into `dst` (the physical baseline of the size sweep).
#[inline]
pub fn memcpy(dst: &mut [u8], src: &[u8]) {
    dst.copy_from_slice(src);
}

/// Creates the scratch directory and returns the path of `name` in it.
pub fn scratch_file(name: &str) -> io::Result<PathBuf> {
    let dir = out_dir();
    std::fs::create_dir_all(&dir)?;
    Ok(dir.join(name))
}

/// Writes `bytes` to the scratch file `name` and returns its path.
pub fn scratch_with(name: &str, bytes: &[u8]) -> io::Result<PathBuf> {
    let path = scratch_file(name)?;
    let mut f = File::create(&path)?;
    f.write_all(bytes)?;
    f.sync_all()?;
    Ok(path)
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream::{DefaultDeframer, DefaultFramer};

    #[test]
    fn touch_sees_every_byte() {
        for len in [0, 1, 7, 8, 9, 64, 257] {
            let p = payload(len);
            let base = touch(&p);
            for i in 0..len {
                let mut changed = p.clone();
                changed[i] ^= 1;
                assert_ne!(touch(&changed), base, "byte {i} of {len}");
            }
        }
    }

    #[test]
    fn a_touching_reader_reads_every_frame() {
        let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
        let p = payload(300);
        for _ in 0..3 {
            w.write_payload(&p).unwrap();
        }
        let mut r = StreamReader::new(&w.get_ref()[..], DefaultDeframer);
        let seen = read_all_touched(&mut r).unwrap();
        assert_eq!((seen.frames, seen.bytes), (3, 900));
        assert_eq!(seen.sum, touch(&p).wrapping_mul(3));
    }

    #[test]
    fn readers_see_every_frame_of_a_file() {
        let path = scratch_file("paths-test.fstream").unwrap();
        let p = payload(300);
        let len = write_file(&path, Sink::File, DefaultFramer, &p, 50).unwrap();
        assert_eq!(len, 50 * 304);
        let seen = read_file(&path, DefaultDeframer).unwrap();
        assert_eq!(seen.frames, 50);
        assert_eq!(seen.bytes, 50 * 300);
        let bytes = std::fs::read(&path).unwrap();
        let mapped = flatstream::read::MappedFile::map(&File::open(&path).unwrap()).unwrap();
        assert_eq!(frames_all(&bytes, DefaultDeframer).unwrap(), seen);
        assert_eq!(frames_all(&mapped, DefaultDeframer).unwrap(), seen);
        std::fs::remove_file(&path).unwrap();
    }
}
