//! Split reading: the frames that start in one byte range of a stream, found without reading
//! the bytes before the range.
//!
//! ```text
//!            start                                   end
//!              v                                      v
//! ... frame | frame          | frame | frame | frame       | frame ...
//!              '-- resync --'^                       '------^ read past `end`
//!                            first frame of the split        to finish the last frame
//! ```
//!
//! A split yields the frames that start in `[start, end)`. The frame under `start` belongs to
//! the split before, which reads past its own end to finish it. Frames start where the decoder
//! says they do; this module only chooses where to ask.

use crate::decode::{Decoded, Decoder};
use crate::error::{Error, Result};
use crate::framer::Deframer;
use crate::frames::Frames;
use core::ops::Range;

/// Frames that must chain after a candidate before a split starts on it, unless the stream
/// ends first. See [`SplitFrames`] for what it buys.
pub const DEFAULT_CONFIRMATIONS: usize = 2;

/// Iterates over the frames of a checksummed stream that start in a byte range, so that the
/// ranges of a partition can be read independently (by threads, or by the workers of a
/// distributed engine) and together yield every frame once.
///
/// `bytes` is the whole stream (a memory-mapped file costs only the pages touched) and offsets
/// are offsets in it, so errors carry the same offsets as a sequential reader's. A split that
/// starts at 0, or [at a known frame boundary](Self::at_boundary), reads from there. Otherwise
/// it first **resynchronizes**: the first offset `p >= start` where
///
/// 1. the decoder finds a whole frame whose length fits the bound and whose checksum verifies
///    (or that a validating deframer rejects for its content: its checksum verified), and whose
///    checksum field and payload are not all zeros ([`Frame::is_zero`](crate::decode::Frame::is_zero));
/// 2. and the next `K` frames ([`with_confirmations`](Self::with_confirmations), default
///    [`DEFAULT_CONFIRMATIONS`]) are whole and verify as well, or the stream ends exactly after
///    fewer of them.
///
/// It then yields the frames from `p` on while they start before `end`, reading past `end` to
/// finish the last one. Like [`Frames`](crate::Frames), a framing error is yielded once and
/// ends the iteration; a content error is yielded and iteration goes on.
///
/// ```
/// use flatstream_core::{Checksum, ChecksumDeframer, ChecksumFramer, SplitFrames, StreamWriter};
/// # #[derive(Clone, Copy)]
/// # struct Fnv32;
/// # impl Checksum for Fnv32 {
/// #     fn size(&self) -> usize { 4 }
/// #     fn calculate(&self, p: &[u8]) -> u64 {
/// #         p.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193)).into()
/// #     }
/// # }
/// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(Fnv32));
/// for word in ["alpha", "beta", "gamma", "delta"] {
///     writer.write_payload(word.as_bytes())?;
/// }
/// let bytes = writer.into_inner(); // frames at 0, 13, 25, 38
///
/// // Two workers, cut at byte 20, inside "beta".
/// let deframer = ChecksumDeframer::new(Fnv32);
/// let first: Vec<&[u8]> =
///     SplitFrames::new(&bytes, 0..20, deframer)?.collect::<Result<_, _>>()?;
/// let mut second = SplitFrames::new(&bytes, 20..bytes.len(), deframer)?;
/// assert_eq!(second.sync(), Some(25), "resynchronized on the first frame after byte 20");
/// let second: Vec<&[u8]> = second.collect::<Result<_, _>>()?;
/// assert_eq!(first, [&b"alpha"[..], b"beta"]);
/// assert_eq!(second, [&b"gamma"[..], b"delta"]);
/// # Ok::<(), flatstream_core::Error>(())
/// ```
///
/// # Joining splits: the check that makes a partition exact
///
/// After a split has been read to its end, [`position`](Self::position) is where the frame
/// after its last one starts: the first frame boundary at or after `end`. That is exactly where
/// the next split must have started. A coordinator checks, in stream order, that each split's
/// [`sync`](Self::sync) equals the previous split's `position` (or, for a split that found no
/// frame, that the previous position is at or past its `end`). Where it does, the splits are
/// exact: the first starts at 0, and each next one where the previous one proved a frame
/// starts. Where it does not (a false resynchronization, or damage near the cut), the
/// coordinator reads that split again with [`at_boundary`](Self::at_boundary) from the previous
/// position, which is what a sequential reader would have done. The check costs two offsets
/// per split; `docs/design.md` describes it for a distributed engine, and the parallel reader
/// runs it before handing out any frame.
///
/// # False resynchronization
///
/// A split can start on an offset inside a payload only if the bytes there pass both tests.
/// For payload bytes that are not themselves framed data, the candidate's own checksum matches
/// with probability 2<sup>-8C</sup> for a `C`-byte checksum, and the `K` confirmations each
/// with 2<sup>-8C</sup> again, unless the false frame happens to end exactly on a real frame
/// boundary, after which real frames confirm it. So the probability that one examined offset
/// fools the resynchronization is at most 2<sup>-8C</sup>, and about 2<sup>-8C(K+1)</sup> when
/// false frames cannot land on real boundaries:
///
/// | checksum | `C` | per examined offset, at most | with `K` = 2 and no landing |
/// |---|--:|--:|--:|
/// | CRC-16 | 2 | 1.5 × 10<sup>-5</sup> | 3.6 × 10<sup>-15</sup> |
/// | CRC-32, CRC-32C | 4 | 2.3 × 10<sup>-10</sup> | 1.3 × 10<sup>-29</sup> |
/// | XXH3-64 | 8 | 5.4 × 10<sup>-20</sup> | 1.6 × 10<sup>-58</sup> |
///
/// Only offsets whose four bytes declare a length within the bound are examined at all, and a
/// split examines the offsets between `start` and the first real frame after it: fewer than
/// one frame's length. **Payloads that carry framed data of the same framing** (a stream
/// stored inside a stream) defeat any such test: their inner frames verify and can end
/// exactly where the outer payload does. The join check above catches every false
/// resynchronization, whatever its cause.
///
/// # Streams without a checksum
///
/// Nothing tells a frame boundary from payload bytes, so [`new`](Self::new) refuses a start
/// past 0 with [`Error::Unsplittable`]. Split such a stream at offsets known to be frame
/// boundaries ([`at_boundary`](Self::at_boundary): an index's entries); the parallel reader
/// finds them by one sequential walk over the headers.
///
/// # Work
///
/// Each offset examined costs a header read, and up to `K` more while the declared lengths
/// chain (each fits the bound and the data); only where the whole chain is present are the
/// checksums computed, over the candidate's payload and up to `K` more. As for
/// [`Salvage`](crate::Salvage), **pass the bound your writer used**: with the 2 GiB default a
/// hostile range can cost a checksum over large spans per byte examined.
#[derive(Debug, Clone)]
pub struct SplitFrames<'a, D> {
    /// The whole stream.
    bytes: &'a [u8],
    /// Where the split was asked to start.
    start: usize,
    /// Frames that start before this offset (clamped to the stream's length) are yielded.
    end: usize,
    /// The frames from the next one to the end of the stream, with offsets in `bytes`: the
    /// split reads with the loop of `Frames`, and stops where fewer than `tail` bytes are left
    /// unread. Nothing is left unread before [`sync`](Self::sync) or after a framing error,
    /// so the one test of the hot path sends those states to the cold path.
    frames: Frames<'a, D>,
    /// The bytes past `end`: a frame is read while more than this are unread.
    tail: usize,
    /// Before [`sync`](Self::sync), the offset [`position`](Self::position) reports.
    parked: Option<usize>,
    /// Where the first frame starts, once synchronized; `None` if none starts in the range.
    first: Option<usize>,
    synced: bool,
    confirmations: usize,
}

impl<'a, D: Deframer> SplitFrames<'a, D> {
    /// The frames of `bytes` that start in `range`, read with `deframer`. The first of them is
    /// found by resynchronization (see [`SplitFrames`]), unless `range` starts at 0. A range
    /// past the end of `bytes`, or empty, yields nothing.
    ///
    /// # Errors
    ///
    /// [`Error::Unsplittable`] if `range` starts past 0 and `deframer` has no checksum.
    pub fn new(bytes: &'a [u8], range: Range<usize>, deframer: D) -> Result<Self> {
        if range.start > 0 && deframer.checksum_size() == 0 {
            return Err(Error::Unsplittable {
                offset: range.start as u64,
            });
        }
        let mut split = Self::at_boundary(bytes, range, deframer);
        if split.start > 0 {
            split.synced = false;
            split.parked = Some(split.start);
            split.frames.restart(&[]);
        }
        Ok(split)
    }

    /// The frames of `bytes` that start in `range`, where `range.start` is known to be the
    /// first frame boundary at or after it: 0, an index entry, or the
    /// [`position`](Self::position) where the split before ended. No resynchronization: this
    /// works for every framing, and reads from `range.start` exactly as a sequential reader
    /// would. A start at or past the end yields nothing, and [`position`](Self::position)
    /// stays at the start.
    pub fn at_boundary(bytes: &'a [u8], range: Range<usize>, deframer: D) -> Self {
        let end = range.end.min(bytes.len());
        let start = range.start;
        let from = start.min(bytes.len());
        SplitFrames {
            bytes,
            start,
            end,
            frames: Frames::within(bytes, from..bytes.len(), deframer),
            tail: bytes.len() - end,
            // Past the end of the stream: nothing to read, and the position stays there.
            parked: (start > bytes.len()).then_some(start),
            first: (start < end).then_some(start),
            synced: true,
            confirmations: DEFAULT_CONFIRMATIONS,
        }
    }

    /// Sets the largest payload accepted (default
    /// [`DEFAULT_MAX_FRAME_LEN`](crate::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). It bounds the
    /// work of resynchronization too: pass the bound the writer used.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.frames = self.frames.with_max_frame_len(max);
        self
    }

    /// Sets how many frames must chain after a candidate before the split starts on it
    /// (default [`DEFAULT_CONFIRMATIONS`]). 0 trusts one verified checksum.
    pub fn with_confirmations(mut self, confirmations: usize) -> Self {
        self.confirmations = confirmations;
        self
    }

    /// Finds the split's first frame, if that is not done yet (the first call to `next` does
    /// it too), and returns its offset: `None` if no frame starts in the range.
    pub fn sync(&mut self) -> Option<u64> {
        if !self.synced {
            self.synced = true;
            self.first = self.resync();
            self.parked = None;
            self.frames
                .restart(&self.bytes[self.first.unwrap_or(self.end)..]);
        }
        self.first.map(|at| at as u64)
    }

    /// [`sync`](Self::sync), as an index into the bytes.
    #[cfg(feature = "rayon")]
    pub(crate) fn sync_at(&mut self) -> Option<usize> {
        self.sync();
        self.first
    }

    /// Where the split was asked to start and end (the end clamped to the stream's length).
    pub fn range(&self) -> Range<usize> {
        self.start..self.end
    }

    /// Offset of the next frame; after the last frame of the split, the first frame boundary
    /// at or after the range's end; after a framing error, the frame that failed. Before
    /// [`sync`](Self::sync), the range's start; where no frame starts in the range, its end.
    #[inline]
    pub fn position(&self) -> u64 {
        self.parked
            .map_or_else(|| self.frames.position(), |at| at as u64)
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        self.frames.deframer()
    }

    /// The first offset in the range where a frame starts and is confirmed.
    fn resync(&self) -> Option<usize> {
        // No frame is shorter than its header: offsets closer to the end are not tried.
        let last = self.bytes.len().saturating_sub(self.decoder().header_len());
        let until = self.end.min(last.saturating_add(1));
        (self.start..until).find(|&at| self.confirmed(at))
    }

    /// Whether a frame that is not all zeros starts at `at` and the next frames chain.
    fn confirmed(&self, at: usize) -> bool {
        if !self.chains(at) {
            return false;
        }
        let Some(mut pos) = self.intact(at, true).map(|len| at + len) else {
            return false;
        };
        for _ in 0..self.confirmations {
            if pos == self.bytes.len() {
                return true;
            }
            match self.intact(pos, false) {
                Some(len) => pos += len,
                None => return false,
            }
        }
        true
    }

    /// Whether the headers from `at` on chain as [`confirmed`](Self::confirmed) requires,
    /// unverified: the candidate and `K` more frames whole and within the bound, or fewer that
    /// end exactly at the end of the stream. It reads one length per frame and hashes nothing,
    /// so the checksums are computed only for candidates whose whole chain is present: on
    /// payload bytes, most lengths that fit the bound and the data do not land on a header
    /// that fits again.
    fn chains(&self, mut pos: usize) -> bool {
        for i in 0..=self.confirmations {
            if i > 0 && pos == self.bytes.len() {
                return true;
            }
            match self.decoder().unverified_len(&self.bytes[pos..]) {
                Some(len) => pos += len,
                None => return false,
            }
        }
        true
    }

    /// Length of the whole frame at `at` whose checksum verifies (a frame rejected for its
    /// content verified too); a candidate must not be all zeros.
    fn intact(&self, at: usize, candidate: bool) -> Option<usize> {
        match self.decoder().decode(&self.bytes[at..], at as u64) {
            Ok(Decoded::Frame(frame)) if !(candidate && frame.is_zero()) => Some(frame.len()),
            Ok(Decoded::Rejected { len, .. }) => Some(len),
            _ => None,
        }
    }

    /// Undoes the fusing after a framing error: the next item is the failed frame's again.
    #[inline(always)]
    fn retry(&mut self) {
        self.frames.retry();
    }

    fn decoder(&self) -> &Decoder<D> {
        self.frames.decoder()
    }

    /// Where the hot path's test failed (before synchronization, past the end of the range,
    /// after a framing error): synchronizes if that is what is missing, and tells whether a
    /// frame is to be read now. Not a call back into `next`, which would keep it from being
    /// inlined into the caller's loop.
    #[cold]
    fn unpark(&mut self) -> bool {
        if self.synced {
            return false;
        }
        self.sync();
        self.frames.unread() > self.tail
    }
}

/// The first offset at or after `from` (past 0) where a frame starts and is confirmed, as a
/// split of `bytes` that starts at `from` finds it (see [`SplitFrames`]): `None` if there is
/// none, or if `deframer` has no checksum. Recovery looks past a frame that runs off the end
/// with it.
pub(crate) fn first_confirmed<D: Deframer>(
    bytes: &[u8],
    from: usize,
    deframer: D,
    max_frame_len: usize,
) -> Option<usize> {
    debug_assert!(from > 0, "a split from 0 starts there unconfirmed");
    let mut split = SplitFrames::new(bytes, from..bytes.len(), deframer)
        .ok()?
        .with_max_frame_len(max_frame_len);
    split.sync();
    split.first
}

impl<'a, D: Deframer> Iterator for SplitFrames<'a, D> {
    type Item = Result<&'a [u8]>;

    #[inline(always)]
    fn next(&mut self) -> Option<Self::Item> {
        if self.frames.unread() <= self.tail && !self.unpark() {
            return None;
        }
        // Some of the frame is before `end <= bytes.len()`: `Frames` reports it cut short
        // rather than ending.
        self.frames.next()
    }
}

crate::read::message_reader_from_iterator!(SplitFrames);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::{ChecksumDeframer, ChecksumFramer, DefaultDeframer, Framer};
    use crate::read::MessageReader;
    use crate::testing::Sum32;
    use alloc::vec::Vec;

    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let mut out = Vec::new();
        for p in payloads {
            let header = ChecksumFramer::new(Sum32).header(p, 0).unwrap();
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    fn split(bytes: &[u8], range: Range<usize>) -> (Option<u64>, Vec<&[u8]>, u64) {
        let mut s = SplitFrames::new(bytes, range, ChecksumDeframer::new(Sum32)).unwrap();
        let first = s.sync();
        let frames = s.by_ref().collect::<Result<Vec<_>>>().unwrap();
        (first, frames, s.position())
    }

    #[test]
    fn every_cut_of_a_clean_stream_yields_each_frame_once() {
        let payloads: [&[u8]; 4] = [b"one", b"two!", b"", b"three"];
        let bytes = framed(&payloads);
        for cut in 0..=bytes.len() {
            let (_, mut left, joint) = split(&bytes, 0..cut);
            let (first, right, end) = split(&bytes, cut..bytes.len());
            assert_eq!(first.unwrap_or(joint), joint, "cut {cut}");
            assert_eq!(end, bytes.len() as u64);
            left.extend(right);
            assert_eq!(left, payloads, "cut {cut}");
        }
    }

    #[test]
    fn a_range_inside_one_frame_yields_nothing_and_ends_at_its_end() {
        let bytes = framed(&[&[7; 40], b"x"]);
        let (first, frames, position) = split(&bytes, 3..30);
        assert_eq!((first, frames.len(), position), (None, 0, 30));
    }

    #[test]
    fn without_a_checksum_only_a_split_from_zero_is_possible() {
        let bytes = [1, 0, 0, 0, 9];
        let err = SplitFrames::new(&bytes, 1..5, DefaultDeframer).unwrap_err();
        assert!(matches!(err, Error::Unsplittable { offset: 1 }));
        let all: Vec<_> = SplitFrames::new(&bytes, 0..5, DefaultDeframer)
            .unwrap()
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(all, [[9]]);
        let from_boundary: Vec<_> = SplitFrames::at_boundary(&bytes, 0..1, DefaultDeframer)
            .collect::<Result<_>>()
            .unwrap();
        assert_eq!(from_boundary, [[9]], "the frame starts before the end");
    }

    #[test]
    fn a_candidate_must_be_confirmed_by_the_frames_after_it() {
        // The payload of the first frame holds a frame that verifies, followed by bytes that
        // do not chain: with confirmations the split skips it, with none it is fooled.
        let inner = framed(&[b"in"]);
        let mut payload = inner.clone();
        payload.extend_from_slice(&[0xEE; 9]);
        let bytes = framed(&[&payload, b"after", b"last"]);
        let (first, frames, _) = split(&bytes, 1..bytes.len());
        assert_eq!(first, Some(8 + payload.len() as u64));
        assert_eq!(frames, [&b"after"[..], b"last"]);
        let mut fooled = SplitFrames::new(&bytes, 1..bytes.len(), ChecksumDeframer::new(Sum32))
            .unwrap()
            .with_confirmations(0);
        assert_eq!(fooled.sync(), Some(8));
    }

    #[test]
    fn a_frame_cut_short_before_the_end_is_an_error_once_and_stays() {
        let mut bytes = framed(&[b"abc", b"defg"]);
        bytes.truncate(bytes.len() - 1);
        let mut s = SplitFrames::at_boundary(&bytes, 0..bytes.len(), ChecksumDeframer::new(Sum32));
        assert_eq!(s.next().unwrap().unwrap(), b"abc");
        assert!(matches!(
            s.next(),
            Some(Err(Error::UnexpectedEof { offset: 11, .. }))
        ));
        assert!(s.next().is_none());
        assert_eq!(s.position(), 11);
        assert!(
            s.read_message().is_err(),
            "the error again, as other readers do"
        );
    }
}
