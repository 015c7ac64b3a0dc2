//! What the fuzz targets share: the framings under test, a source that hands bytes over in
//! input-chosen pieces with `Interrupted` and `WouldBlock` in between, a sink that accepts
//! input-chosen pieces and may fail, and the differential checks.
//!
//! Every check panics on a broken invariant: that is how libFuzzer learns of it.

use flatstream_checksum::{AnyChecksum, ChecksumKind};
use flatstream_core::{
    BufReadStreamReader, Checksum, ChecksumDeframer, ChecksumFramer, Deframer, Error, Framer,
    Frames, StreamReader,
};
use std::cell::Cell;
use std::io::{self, BufRead, BufReader, Read, Write};

/// A real checksum algorithm that counts the bytes it hashes, so targets can check the work
/// bounds.
#[derive(Clone, Copy, Debug)]
pub struct Counting<'c> {
    /// The algorithm.
    pub inner: AnyChecksum,
    /// Bytes hashed so far.
    pub hashed: &'c Cell<u64>,
}

impl Checksum for Counting<'_> {
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        self.hashed.set(self.hashed.get() + payload.len() as u64);
        self.inner.calculate(payload)
    }
}

/// The algorithm a selector byte picks: XXH3-64, CRC-32, CRC-16 or CRC-32C.
pub fn checksum_kind(selector: u8) -> ChecksumKind {
    [
        ChecksumKind::XxHash64,
        ChecksumKind::Crc32,
        ChecksumKind::Crc16,
        ChecksumKind::Crc32c,
    ][usize::from(selector % 4)]
}

/// The payload bound a selector byte picks, from tiny to the 2 GiB default.
pub fn max_frame_len(selector: u8) -> usize {
    [
        0,
        1,
        16,
        255,
        4096,
        1 << 20,
        flatstream_core::frame::DEFAULT_MAX_FRAME_LEN,
    ][usize::from(selector % 7)]
}

/// The framer and deframer of the algorithm `selector` picks (see [`checksum_kind`]).
pub fn checksummed(
    selector: u8,
    hashed: &Cell<u64>,
) -> (ChecksumFramer<Counting<'_>>, ChecksumDeframer<Counting<'_>>) {
    let inner = AnyChecksum::new(checksum_kind(selector)).expect("every algorithm is enabled");
    let sum = Counting { inner, hashed };
    (ChecksumFramer::new(sum), ChecksumDeframer::new(sum))
}

/// A source that hands `data` over in pieces chosen by `schedule`, cycling through it:
/// a schedule byte `s` gives `Interrupted` if `s % 8 == 0`, `WouldBlock` if `s % 8 == 1`
/// (never twice in a row, so reads always progress), otherwise up to `1 + s / 8` bytes.
#[derive(Debug)]
pub struct Choppy<'a> {
    data: &'a [u8],
    schedule: &'a [u8],
    step: usize,
    last_failed: bool,
    would_block: bool,
}

impl<'a> Choppy<'a> {
    /// A source of `data` delivered as `schedule` says; `WouldBlock` only if `would_block`.
    pub fn new(data: &'a [u8], schedule: &'a [u8], would_block: bool) -> Self {
        Choppy {
            data,
            schedule,
            step: 0,
            last_failed: false,
            would_block,
        }
    }
}

impl Read for Choppy<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let s = if self.schedule.is_empty() {
            255
        } else {
            self.schedule[self.step % self.schedule.len()]
        };
        self.step += 1;
        if !self.last_failed && !self.data.is_empty() {
            match s % 8 {
                0 => {
                    self.last_failed = true;
                    return Err(io::ErrorKind::Interrupted.into());
                }
                1 if self.would_block => {
                    self.last_failed = true;
                    return Err(io::ErrorKind::WouldBlock.into());
                }
                _ => {}
            }
        }
        self.last_failed = false;
        let n = (1 + usize::from(s / 8)).min(buf.len()).min(self.data.len());
        buf[..n].copy_from_slice(&self.data[..n]);
        self.data = &self.data[n..];
        Ok(n)
    }
}

/// A sink that accepts pieces chosen by `schedule` (as [`Choppy`] does, `Interrupted`
/// included) and fails for good once it holds `limit` bytes.
#[derive(Debug)]
pub struct Stingy<'a> {
    /// What the sink accepted.
    pub data: Vec<u8>,
    schedule: &'a [u8],
    step: usize,
    limit: usize,
    last_failed: bool,
}

impl<'a> Stingy<'a> {
    /// A sink accepting pieces as `schedule` says, up to `limit` bytes in all.
    pub fn new(schedule: &'a [u8], limit: usize) -> Self {
        Stingy {
            data: Vec::new(),
            schedule,
            step: 0,
            limit,
            last_failed: false,
        }
    }
}

impl Write for Stingy<'_> {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let s = if self.schedule.is_empty() {
            255
        } else {
            self.schedule[self.step % self.schedule.len()]
        };
        self.step += 1;
        if !self.last_failed && s % 8 == 0 {
            self.last_failed = true;
            return Err(io::ErrorKind::Interrupted.into());
        }
        self.last_failed = false;
        if self.data.len() >= self.limit {
            return Err(io::Error::other("sink full"));
        }
        let n = (1 + usize::from(s / 8))
            .min(buf.len())
            .min(self.limit - self.data.len());
        self.data.extend_from_slice(&buf[..n]);
        Ok(n)
    }
    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// What a reading produced, in a form two readers can be compared on.
#[derive(Debug, PartialEq, Eq)]
pub enum Item<'a> {
    /// A payload.
    Payload(&'a [u8]),
    /// A framing error, as displayed (it names the offset and the numbers).
    Error(String),
}

/// Reads `data` with the slice iterator: every payload, then the error that ended it, if any.
pub fn read_slice<'a, D: Deframer>(data: &'a [u8], deframer: D, max: usize) -> Vec<Item<'a>> {
    let mut it = Frames::new(data, deframer).with_max_frame_len(max);
    let mut items = Vec::new();
    let mut pos = 0;
    for item in it.by_ref() {
        match item {
            Ok(p) => {
                // Payloads are borrowed from the input, in order, right after their header.
                let start = p.as_ptr() as usize - data.as_ptr() as usize;
                assert!(start >= pos && start + p.len() <= data.len());
                pos = start + p.len();
                items.push(Item::Payload(p));
            }
            Err(e) => {
                assert!(!e.is_content_error());
                items.push(Item::Error(e.to_string()));
            }
        }
    }
    assert!(it.next().is_none(), "fused");
    match items.last() {
        Some(Item::Error(_)) => assert!(it.position() < data.len() as u64),
        _ => assert_eq!(it.position(), data.len() as u64),
    }
    items
}

/// Reads `data` through a [`StreamReader`] over a [`Choppy`] source, retrying `WouldBlock`,
/// and checks it produces exactly what the slice iterator produces; then the same for a
/// `StreamReader` in place over `data` and a `Cursor` of it, and for a [`BufReadStreamReader`]
/// over `data` itself and over a `BufReader` of a [`Choppy`] source.
pub fn check_reader<D: Deframer>(data: &[u8], schedule: &[u8], deframer: D, max: usize) {
    let expected = read_slice(data, &deframer, max);
    check_buf_reader(data, &deframer, max, &expected, |r| {
        let mut got = Vec::new();
        let result = r.process_all(|p| {
            got.push(p.to_vec());
            Ok(())
        });
        (got, result.err())
    });
    let capacity = schedule.get(1).map_or(8, |&c| usize::from(c) + 1);
    let source = BufReader::with_capacity(capacity, Choppy::new(data, schedule, true));
    check_buf_reader(source, &deframer, max, &expected, |r| {
        let mut got = Vec::new();
        loop {
            match r.read_message() {
                Ok(Some(p)) => got.push(p.to_vec()),
                Ok(None) => return (got, None),
                Err(Error::Io { source, offset }) => {
                    assert_eq!(source.kind(), io::ErrorKind::WouldBlock);
                    assert_eq!(offset, r.position());
                }
                Err(e) => return (got, Some(e)),
            }
        }
    });

    // `StreamReader` in place: over the slice with `process_all`, over a `Cursor` of it with
    // `read_message`.
    let mut reader = StreamReader::new(data, &deframer).with_max_frame_len(max);
    let mut got = Vec::new();
    let result = reader.process_all(|p| {
        got.push(p.to_vec());
        Ok(())
    });
    check_in_place(&mut reader, got, result.err(), &expected);
    let mut reader = StreamReader::new(io::Cursor::new(data), &deframer).with_max_frame_len(max);
    let mut got = Vec::new();
    let error = loop {
        match reader.read_message() {
            Ok(Some(p)) => got.push(p.to_vec()),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    check_in_place(&mut reader, got, error, &expected);

    let capacity = schedule.first().map_or(16, |&c| usize::from(c) * 4);
    let mut reader =
        StreamReader::with_capacity(capacity, Choppy::new(data, schedule, true), deframer)
            .with_max_frame_len(max);
    let mut got: Vec<Vec<u8>> = Vec::new();
    let mut error = None;
    let mut blocked = 0usize;
    loop {
        match reader.read_message() {
            Ok(Some(p)) => got.push(p.to_vec()),
            Ok(None) => break,
            Err(Error::Io { source, offset }) => {
                assert_eq!(source.kind(), io::ErrorKind::WouldBlock);
                assert_eq!(offset, reader.position());
                blocked += 1;
                assert!(blocked <= 2 * data.len() + 2, "no progress");
            }
            Err(e) => {
                assert_eq!(e.offset(), reader.position());
                // A framing error leaves the reader at the bad frame: it says so again.
                let again = reader.read_message().unwrap_err();
                assert_eq!(again.to_string(), e.to_string());
                error = Some(e.to_string());
                break;
            }
        }
    }
    let mut got_items: Vec<Item<'_>> = got.iter().map(|p| Item::Payload(p)).collect();
    if let Some(e) = error {
        got_items.push(Item::Error(e));
    }
    assert_eq!(got_items, expected);
}

/// Checks what an in-place `StreamReader` read (its payloads, and the error that ended the
/// reading) against the slice iterator's outcome.
fn check_in_place<R: Read, D: Deframer>(
    reader: &mut StreamReader<R, D>,
    got: Vec<Vec<u8>>,
    error: Option<Error>,
    expected: &[Item<'_>],
) {
    let position = reader.position();
    check_outcome(
        &got,
        error,
        position,
        || reader.read_message().err(),
        expected,
    );
}

/// Checks a reader's payloads and the error that ended its reading against the slice
/// iterator's outcome: the error is at the reader's `position`, and reading `again` after a
/// framing error gives it again.
fn check_outcome(
    got: &[Vec<u8>],
    error: Option<Error>,
    position: u64,
    again: impl FnOnce() -> Option<Error>,
    expected: &[Item<'_>],
) {
    let mut items: Vec<Item<'_>> = got.iter().map(|p| Item::Payload(p)).collect();
    if let Some(e) = error {
        assert_eq!(e.offset(), position);
        // A framing error leaves the reader at the bad frame: it says so again.
        let again = again().expect("the same error again");
        assert_eq!(again.to_string(), e.to_string());
        items.push(Item::Error(e.to_string()));
    }
    assert_eq!(items, expected);
}

/// Reads `source` with a [`BufReadStreamReader`] through `read` (which returns the payloads and the
/// error that ended the reading) and checks the outcome against the slice iterator's.
fn check_buf_reader<R, D, F>(source: R, deframer: D, max: usize, expected: &[Item<'_>], read: F)
where
    R: BufRead,
    D: Deframer,
    F: FnOnce(&mut BufReadStreamReader<R, D>) -> (Vec<Vec<u8>>, Option<Error>),
{
    let mut reader = BufReadStreamReader::new(source, deframer).with_max_frame_len(max);
    let (got, error) = read(&mut reader);
    let position = reader.position();
    check_outcome(
        &got,
        error,
        position,
        || reader.read_message().err(),
        expected,
    );
}

/// Writes `messages` with `framer` through a [`Stingy`] sink that fails after `limit` bytes,
/// and checks that what the writer reports is what the sink holds.
pub fn write_all<F: Framer>(
    messages: &[Vec<u8>],
    framer: F,
    schedule: &[u8],
    limit: usize,
) -> (Vec<u8>, usize) {
    let mut writer = flatstream_core::StreamWriter::new(Stingy::new(schedule, limit), framer);
    let mut whole = 0;
    for m in messages {
        let before = writer.bytes_written();
        match writer.write_payload(m) {
            Ok(()) => whole += 1,
            Err(e) => {
                assert!(matches!(e, Error::Io { .. }), "{e}");
                assert_eq!(e.offset(), before);
                break;
            }
        }
    }
    let written = writer.bytes_written();
    let data = writer.into_inner().data;
    assert_eq!(written, data.len() as u64);
    (data, whole)
}
