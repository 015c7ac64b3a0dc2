//! `WriterCore`: the sans-I/O state of a frame writer, which every writer drives.
//!
//! The numbers of a writer and the rules that move them, in one sans-I/O type that the sync and
//! async writers both drive. See [`WriterCore`].

use crate::error::{Error, Result};
use crate::wire::frame::{DEFAULT_MAX_FRAME_LEN, FrameHeader};
use crate::wire::framing::Framer;
use std::io;

/// Where a frame was written: returned by the `*_with_receipt` writes of a
/// [`StreamWriter`](crate::StreamWriter) and of `flatstream-tokio`'s `AsyncStreamWriter`.
///
/// `offset` is the stream offset of the frame's first byte (its length prefix) and `len` the
/// length of the whole frame, header included, so the next frame starts at
/// [`end`](Self::end). A journal keeps receipts as its index, and reads a frame back with
/// [`FrameAt`](crate::FrameAt). The writer counts the bytes anyway: a receipt costs nothing
/// more.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Receipt {
    /// Stream offset of the frame's first byte.
    pub offset: u64,
    /// Length of the whole frame, header included.
    pub len: u64,
}

impl Receipt {
    /// Where the frame ends: the offset of the next one.
    #[inline]
    pub fn end(&self) -> u64 {
        self.offset + self.len
    }
}

/// The sans-I/O state of a frame writer: the byte count, the bound on a payload, the first frame
/// torn by a failed write and the durable watermark, with the rules that move them.
///
/// ```text
///             durable(): moved to the end of a frame by a sync, never past torn()
///                                      v
///  +-----------+-----------+-----------+-------+-----------+
///  | frame 0   | frame 1   | frame 2   | fra.. | frame 4   |
///  +-----------+-----------+-----------+-------+-----------+
///                                      ^                   ^
///                torn(): a write failed 3 bytes            bytes_written(): where
///                into frame 3 (the sink took them)         the next frame starts
/// ```
///
/// It makes every decision a writer makes from these numbers: it checks a payload against the
/// bound and asks the framer for its header, counts what the sink accepted, turns a failed write
/// into an error at the frame's offset, and moves the watermark after a sync. It performs no
/// I/O: a driver moves the bytes.
///
/// A driver writes a frame in four steps:
///
/// ```
/// use flatstream::DefaultFramer;
/// use flatstream::write::WriterCore;
/// use std::io::Write;
///
/// let mut core = WriterCore::new().with_max_frame_len(1024);
/// let mut sink = Vec::new();
/// let payload = b"a finished flatbuffer";
///
/// let offset = core.bytes_written(); // 1. where the frame starts
/// let header = core.header(&DefaultFramer, payload)?; // 2. the bound, then the header
/// let mut accepted = 0;
/// for part in [header.as_bytes(), &payload[..]] {
///     sink.write_all(part).map_err(|e| core.write_failed(e, offset))?; // (3. a failure)
///     accepted += part.len() as u64;
///     core.accepted(offset, accepted); // 4. count what the sink took
/// }
/// let receipt = core.receipt(offset);
/// assert_eq!((receipt.offset, receipt.len), (0, 4 + payload.len() as u64));
/// assert_eq!(core.bytes_written(), sink.len() as u64);
/// # Ok::<(), flatstream::Error>(())
/// ```
///
/// Every writer of flatstream is a driver of one: [`StreamWriter`](crate::StreamWriter) over a
/// `std::io::Write` and `flatstream-tokio`'s `AsyncStreamWriter` over an `AsyncWrite`, with the
/// same numbers and the same errors. Use it directly to write frames through an I/O API
/// neither of them covers, and keep the same offsets, receipts and errors.
///
/// Its methods never fail on their own account and never panic: the errors they return are the
/// ones a writer returns ([`Error::FrameTooLarge`] or the framer's from
/// [`header`](Self::header), [`Error::Io`] from [`write_failed`](Self::write_failed),
/// [`Error::Sync`] from [`sync_failed`](Self::sync_failed) and [`synced`](Self::synced)).
// `repr(C)`, the fields every frame touches first: `StreamWriter` keeps the core right after its
// sink, so that they share a cache line (docs/design.md, "Writing without copies").
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WriterCore {
    /// Bytes the sink accepted, from the first offset on: where the next frame starts.
    written: u64,
    /// The largest payload accepted. At most `u32::MAX` by its type, so the one bound check per
    /// frame also proves the framer's length check (the compiler drops it).
    max: u32,
    /// Whether a sync ever failed: the watermark then never moves again.
    sync_failed: bool,
    /// Start of the first frame the sink took only part of, if one was.
    torn: Option<u64>,
    /// The offset up to which every frame is known to be on disk.
    durable: u64,
}

impl Default for WriterCore {
    fn default() -> Self {
        Self::new()
    }
}

impl WriterCore {
    /// A core at offset 0, with the default bound ([`DEFAULT_MAX_FRAME_LEN`], 2 GiB).
    pub const fn new() -> Self {
        WriterCore {
            written: 0,
            max: clamp(DEFAULT_MAX_FRAME_LEN),
            sync_failed: false,
            torn: None,
            durable: 0,
        }
    }

    /// Sets the largest payload accepted (default [`DEFAULT_MAX_FRAME_LEN`], 2 GiB): a larger one
    /// is refused by [`header`](Self::header) with [`Error::FrameTooLarge`]. A bound over
    /// `u32::MAX` acts as `u32::MAX`, the most the length prefix can say.
    pub const fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max = clamp(max);
        self
    }

    /// [`with_max_frame_len`](Self::with_max_frame_len), in place.
    pub const fn set_max_frame_len(&mut self, max: usize) {
        self.max = clamp(max);
    }

    /// The largest payload accepted.
    pub const fn max_frame_len(&self) -> usize {
        self.max as usize
    }

    /// Sets the stream offset of the first byte written: the length of the stream the writer
    /// appends to, so that receipts, errors and the durable watermark are offsets in it. The
    /// bytes before `offset` are taken to be on disk (a repaired journal is synced). Meant for a
    /// core that has not written yet: it sets the byte count and the watermark, and forgets a
    /// torn frame.
    pub const fn with_offset(mut self, offset: u64) -> Self {
        self.written = offset;
        self.durable = offset;
        self.torn = None;
        self
    }

    /// Bytes the sink accepted, counted from the first offset: where the next frame starts, or,
    /// after a failed write, the exact end of what reached the sink.
    #[inline(always)]
    pub const fn bytes_written(&self) -> u64 {
        self.written
    }

    /// The durable watermark: the offset up to which every frame is known to be on disk. It
    /// moves, to the end of a frame, only through [`synced`](Self::synced); it never passes
    /// [`torn`](Self::torn), and never moves again after [`sync_failed`](Self::sync_failed).
    pub const fn durable(&self) -> u64 {
        self.durable
    }

    /// The start of the first frame a failed write left partly in the sink, if one did. A
    /// reader of the stream stops there: neither that frame nor the ones written after it are
    /// readable. Truncate the stream to this offset (or repair it) before appending again.
    pub const fn torn(&self) -> Option<u64> {
        self.torn
    }

    /// The header of the next frame, for `payload`, from `framer`: the bound is checked first,
    /// and a payload over it is refused with [`Error::FrameTooLarge`] at the next frame's
    /// offset, before the framer sees it. Changes nothing: a refused payload leaves the core as
    /// it was, and the driver writes nothing.
    #[inline(always)]
    pub fn header<F: Framer + ?Sized>(&self, framer: &F, payload: &[u8]) -> Result<FrameHeader> {
        framer.header_within(payload, self.written, self.max as usize)
    }

    /// The sink has accepted `bytes` bytes, in all, of the frame that starts at `frame` (the
    /// [`bytes_written`](Self::bytes_written) read before its header). Call it after each write
    /// the sink accepts, or once with the total: either way the count is exact, even if the
    /// driver stops (a dropped future) between two writes.
    #[inline(always)]
    pub fn accepted(&mut self, frame: u64, bytes: u64) {
        self.written = frame + bytes;
    }

    /// The receipt of the frame that starts at `frame` and ends where the count is now: call
    /// it once the frame is written whole.
    #[inline(always)]
    pub const fn receipt(&self, frame: u64) -> Receipt {
        Receipt {
            offset: frame,
            len: self.written - frame,
        }
    }

    /// A write of the frame that starts at `frame` failed with `source`, after the sink
    /// accepted what [`accepted`](Self::accepted) counted: returns the error to report,
    /// [`Error::Io`] at `frame`. If the sink took part of the frame, remembers it as
    /// [`torn`](Self::torn) (the first such frame).
    #[cold]
    pub fn write_failed(&mut self, source: io::Error, frame: u64) -> Error {
        self.unfinished(frame);
        Error::io(source, frame)
    }

    /// The frame that starts at `frame` was not written whole: its write failed, or the driver
    /// stopped before the end (a dropped future). If the sink took part of it, remembers it as
    /// [`torn`](Self::torn) (the first such frame); if it took none, nothing changes.
    #[cold]
    pub fn unfinished(&mut self, frame: u64) {
        if self.written > frame && self.torn.is_none_or(|torn| torn > frame) {
            self.torn = Some(frame);
        }
    }

    /// A sync covering every byte accepted up to `end` succeeded: moves the durable watermark
    /// to `end`, or to the start of the torn frame if one lies before it, and returns the new
    /// watermark.
    ///
    /// # Errors
    ///
    /// [`Error::Sync`] if an earlier sync failed: on Linux a failed `fsync` can drop the pages
    /// it could not write and let a later one succeed, so a later success does not prove the
    /// earlier frames are on disk. The watermark stays.
    pub fn synced(&mut self, end: u64) -> Result<u64> {
        if self.sync_failed {
            return Err(Error::Sync {
                source: io::Error::other("an earlier sync of this writer failed"),
                offset: self.durable,
            });
        }
        let end = self.torn.map_or(end, |torn| end.min(torn));
        self.durable = self.durable.max(end);
        Ok(self.durable)
    }

    /// A sync failed with `source`: returns the error to report, [`Error::Sync`] at the
    /// watermark, which stays there for good (see [`synced`](Self::synced)).
    #[cold]
    pub fn sync_failed(&mut self, source: io::Error) -> Error {
        self.sync_failed = true;
        Error::Sync {
            source,
            offset: self.durable,
        }
    }
}

/// `max` as the `u32` a length prefix can say.
#[allow(clippy::cast_possible_truncation)] // `max` is at most `u32::MAX` where it is cast
const fn clamp(max: usize) -> u32 {
    if max > u32::MAX as usize {
        u32::MAX
    } else {
        max as u32
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::framing::DefaultFramer;

    #[test]
    fn the_bound_is_checked_before_the_framer_and_changes_nothing() {
        let core = WriterCore::new().with_offset(10).with_max_frame_len(4);
        let err = core.header(&DefaultFramer, b"12345").unwrap_err();
        assert!(matches!(
            err,
            Error::FrameTooLarge {
                offset: 10,
                len: 5,
                max: 4
            }
        ));
        assert_eq!(
            core,
            WriterCore::new().with_offset(10).with_max_frame_len(4)
        );
        let header = core.header(&DefaultFramer, b"1234").unwrap();
        assert_eq!(header.as_bytes(), 4u32.to_le_bytes());
        assert_eq!(
            WriterCore::new()
                .with_max_frame_len(usize::MAX)
                .max_frame_len(),
            u32::MAX as usize
        );
    }

    #[test]
    fn a_failed_write_tears_the_frame_only_if_the_sink_took_part_of_it() {
        let mut core = WriterCore::new();
        core.accepted(0, 6);
        let err = core.write_failed(io::Error::other("full"), 6);
        assert!(matches!(err, Error::Io { offset: 6, .. }));
        assert_eq!(core.torn(), None, "nothing of the frame reached the sink");
        core.accepted(6, 3);
        core.write_failed(io::Error::other("full"), 6);
        assert_eq!(core.torn(), Some(6));
        core.accepted(9, 6);
        core.write_failed(io::Error::other("full"), 9);
        assert_eq!(core.torn(), Some(6), "the first torn frame is kept");
        assert_eq!(core.bytes_written(), 15);
    }

    #[test]
    fn the_watermark_stops_at_a_torn_frame_and_for_good_after_a_failed_sync() {
        let mut core = WriterCore::new().with_offset(4);
        assert_eq!(core.durable(), 4);
        core.accepted(4, 6);
        assert_eq!(core.synced(10).unwrap(), 10);
        core.accepted(10, 2);
        core.write_failed(io::Error::other("full"), 10);
        core.accepted(12, 6);
        assert_eq!(core.synced(18).unwrap(), 10, "not past the torn frame");
        let err = core.sync_failed(io::Error::other("gone"));
        assert!(matches!(err, Error::Sync { offset: 10, .. }));
        assert!(matches!(
            core.synced(18),
            Err(Error::Sync { offset: 10, .. })
        ));
        assert_eq!(core.durable(), 10);
    }

    #[test]
    fn a_receipt_spans_the_frame_just_counted() {
        let mut core = WriterCore::new().with_offset(100);
        let frame = core.bytes_written();
        core.accepted(frame, 4);
        core.accepted(frame, 20);
        let r = core.receipt(frame);
        assert_eq!((r.offset, r.len, r.end()), (100, 20, 120));
    }
}
