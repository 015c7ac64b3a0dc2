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

use crate::error::{Error, Result};
use crate::read::slice::Frames;
use crate::wire::decode::Decoded;
use crate::wire::framing::Deframer;
use core::ops::Range;

/// Frames that must chain after a candidate before a split starts on it, unless the stream
/// ends first. See [`SplitFrames`] for what it buys.
pub const DEFAULT_CONFIRMATIONS: usize = 2;

/// The span of the chains resynchronization tries first, and the distance from the start it
/// tries them in: it doubles from there.
const FIRST_SPAN: usize = 4 << 10;
/// The least a split's resynchronization allows for, however short the split: the longest
/// chain it looks for, and a quarter of the bytes it may hash.
const MIN_REACH: usize = 64 << 10;
/// The bytes resynchronization may hash, per byte of the split (or of [`MIN_REACH`]).
const HASH_BUDGET: usize = 4;

/// A resynchronization that spent its budget before it found a frame (see "Work" in
/// [`SplitFrames`]).
#[derive(Debug)]
pub(crate) struct OverBudget;

/// How the chain of a candidate fared once hashed.
enum Tried {
    /// Every frame verified.
    Confirmed,
    /// A frame did not.
    Rejected,
    /// Hashing the next frame would exceed the budget.
    OverBudget,
}

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
///    checksum field and payload are not all zeros ([`Frame::is_zero`](crate::wire::decode::Frame::is_zero));
/// 2. and the next `K` frames ([`with_confirmations`](Self::with_confirmations), default
///    [`DEFAULT_CONFIRMATIONS`]) are whole and verify as well, or the stream ends exactly after
///    fewer of them,
///
/// trying offsets in the order described under [Work](#work). On a stream not damaged near
/// `start` that finds the first frame at or after `start`; a split can also give up and find
/// none, which the join check below catches.
///
/// It then yields the frames from `p` on while they start before `end`, reading past `end` to
/// finish the last one. Like [`Frames`](crate::Frames), a framing error is yielded once and
/// ends the iteration; a content error is yielded and iteration goes on.
///
/// ```
/// use flatstream::{ChecksumDeframer, ChecksumFramer, StreamWriter, XxHash64};
/// use flatstream::split::SplitFrames;
///
/// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
/// for word in ["alpha", "beta", "gamma", "delta"] {
///     writer.write_payload(word.as_bytes())?;
/// }
/// // 12-byte headers (length and XXH3-64): frames at 0, 17, 33 and 50.
/// let bytes = writer.into_inner();
///
/// // Two workers, cut at byte 30, inside "beta".
/// let deframer = ChecksumDeframer::new(XxHash64::new());
/// let first: Vec<&[u8]> =
///     SplitFrames::new(&bytes, 0..30, deframer)?.collect::<Result<_, _>>()?;
/// let mut second = SplitFrames::new(&bytes, 30..bytes.len(), deframer)?;
/// assert_eq!(second.sync(), Some(33), "resynchronized on the first frame after byte 30");
/// let second: Vec<&[u8]> = second.collect::<Result<_, _>>()?;
/// assert_eq!(first, [&b"alpha"[..], b"beta"]);
/// assert_eq!(second, [&b"gamma"[..], b"delta"]);
/// # Ok::<(), flatstream::Error>(())
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
/// Only offsets whose headers chain (see [Work](#work)) are hashed at all, and a split examines
/// the offsets between `start` and the first real frame after it, or as far as the chain of
/// `K + 1` real frames from there reaches, whichever is further. **Payloads that carry framed
/// data of the same framing** (a stream stored inside a stream) defeat any such test: their
/// inner frames verify and can end exactly where the outer payload does. The join check above
/// catches every false resynchronization, whatever its cause, and every split that found no
/// frame where one starts.
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
/// Resynchronization reads headers before it hashes anything, and hashes the cheapest
/// candidates first:
///
/// 1. **The headers chain.** An offset is a candidate only if its four bytes declare a length
///    within the bound, the frame they declare is whole within the bytes, and so are the `K`
///    frames whose headers follow it (or fewer that end exactly at the end of the bytes): up to
///    `K + 1` header reads, no hashing. Arbitrary payload bytes rarely chain three times.
/// 2. **Short chains first.** The candidates whose chain of `K + 1` frames spans at most
///    4 KiB are hashed first, among the offsets less than 4 KiB from `start`, in order, each
///    frame hashed only if the one before it verified. Then 8 KiB within 8 KiB, and so on,
///    doubling up to the split's length `L` (at least 64 KiB), over the whole range.
/// 3. **What lands on the frame found.** When a chain at `p` is confirmed, an offset before
///    `p` that was passed over for its longer chain can still be the first frame, but only if
///    its frames end exactly on `p` (frames do not overlap): those frames are hashed, the first
///    offset where they verify is the split's first frame, else `p` is.
///
/// On a stream of frames short against the split, the first pass finds the first frame after
/// a few header reads and `K + 1` checksums. **The worst case per split**, whatever the bytes
/// hold and whatever the bound: fewer than `5 L` offsets examined, each at most `K + 1` header
/// reads, and at most `4 max(L, 64 KiB)` bytes hashed. Where that finds nothing (the first
/// chain of real frames spans more than the split, or hostile bytes spent the budget),
/// [`sync`](Self::sync) reports no frame, and the join check reads the split from where the
/// one before it ended, as a sequential reader would. A tighter bound
/// ([`with_max_frame_len`](Self::with_max_frame_len)) still helps: fewer offsets chain.
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

    // `with_max_frame_len` and `deframer`. Resynchronization costs little with the default bound
    // (see "Work" above); the bound the writer used makes it reject more offsets from their
    // headers alone.
    crate::read::decoder_accessors!(D, frames);

    /// Sets how many frames must chain after a candidate before the split starts on it
    /// (default [`DEFAULT_CONFIRMATIONS`]). 0 trusts one verified checksum.
    pub fn with_confirmations(mut self, confirmations: usize) -> Self {
        self.confirmations = confirmations;
        self
    }

    /// Finds the split's first frame, if that is not done yet (the first call to `next` does
    /// it too), and returns its offset: `None` if none was found, because no frame starts in
    /// the range or because finding it would cost more than the split's budget (see
    /// [Work](SplitFrames#work)). The join check tells the two apart.
    pub fn sync(&mut self) -> Option<u64> {
        if !self.synced {
            self.synced = true;
            self.first = self.resync().ok().flatten();
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

    /// The split's first frame: the first offset in the range that starts a confirmed chain,
    /// tried cheapest first (see "Work" in [`SplitFrames`]); `None` if none is found, `Err` if
    /// the search spent its budget first.
    fn resync(&self) -> core::result::Result<Option<usize>, OverBudget> {
        // No frame is shorter than its header: offsets closer to the end are not tried.
        let last = self.bytes.len().saturating_sub(self.frames.header_len());
        let until = self.end.min(last.saturating_add(1));
        if self.start >= until {
            return Ok(None);
        }
        let reach = (self.end - self.start).max(MIN_REACH);
        let mut budget = reach.saturating_mul(HASH_BUDGET);
        let mut span = FIRST_SPAN.min(reach);
        loop {
            // A pass: the chains of at most `span` bytes that start within `span` bytes.
            let window = until.min(self.start.saturating_add(span));
            for at in self.start..window {
                let Some(chain_end) = self.chain(at, span) else {
                    continue;
                };
                match self.verify_chain(at, chain_end, &mut budget) {
                    Tried::Confirmed => {
                        return self
                            .earliest(at, span, &mut budget)
                            .map(Some)
                            .ok_or(OverBudget);
                    }
                    Tried::Rejected => {}
                    Tried::OverBudget => return Err(OverBudget),
                }
            }
            if span >= reach {
                return Ok(None);
            }
            // Once the window holds the whole range, only the span is left to grow.
            span = if window == until {
                reach
            } else {
                span.saturating_mul(2).min(reach)
            };
        }
    }

    /// Where the chain of the candidate at `at` ends, read from the headers alone (nothing is
    /// hashed): the frame at `at` and the `K` after it, each with a length within the bound
    /// and whole within the bytes, or fewer that end exactly at the end of the bytes. `None`
    /// if there is no such chain, or if it spans more than `span` bytes (found out at the first
    /// hop past it, so a long claim costs no further reads).
    #[inline]
    fn chain(&self, at: usize, span: usize) -> Option<usize> {
        let mut pos = at;
        for hop in 0..=self.confirmations {
            if hop > 0 && pos == self.bytes.len() {
                break;
            }
            pos += self.frames.unverified_len(&self.bytes[pos..])?;
            if pos - at > span {
                return None;
            }
        }
        Some(pos)
    }

    /// Hashes the frames from `at` to `chain_end`, the first a candidate, stopping at the
    /// first that does not verify, each charged to `budget` before it is hashed.
    fn verify_chain(&self, at: usize, chain_end: usize, budget: &mut usize) -> Tried {
        let mut pos = at;
        while pos < chain_end {
            let Some(len) = self.frames.unverified_len(&self.bytes[pos..]) else {
                return Tried::Rejected;
            };
            let Some(left) = budget.checked_sub(len) else {
                return Tried::OverBudget;
            };
            *budget = left;
            if self.intact(pos, pos == at).is_none() {
                return Tried::Rejected;
            }
            pos += len;
        }
        Tried::Confirmed
    }

    /// The first frame of the split, given that a chain of at most `span` bytes is confirmed
    /// at `found` and that no such chain starts before it: an offset before `found` whose
    /// chain is longer than `span` was passed over, and is a frame boundary only if its frames
    /// land exactly on `found` (frames do not overlap). Those are hashed up to `found`, the
    /// rest of their chain being `found`'s, and the first that verifies is the split's first
    /// frame. The frames before `found` are shorter than `span` in all: this costs at most
    /// `K + 1` header reads per offset, and hashes only bytes before `found`.
    fn earliest(&self, found: usize, span: usize, budget: &mut usize) -> Option<usize> {
        for at in self.start..found {
            let mut pos = at;
            for _ in 0..=self.confirmations {
                match self.frames.unverified_len(&self.bytes[pos..]) {
                    Some(len) if pos + len <= found => pos += len,
                    _ => break,
                }
                if pos == found {
                    break;
                }
            }
            // A chain that ends before `found` was tried in the pass that found it; one that
            // jumps over `found` cannot be made of frames if `found` is one.
            if pos != found || self.chain(at, span).is_some() {
                continue;
            }
            match self.verify_chain(at, found, budget) {
                Tried::Confirmed => return Some(at),
                Tried::Rejected => {}
                Tried::OverBudget => return None,
            }
        }
        Some(found)
    }

    /// Length of the whole frame at `at` whose checksum verifies (a frame rejected for its
    /// content verified too); a candidate must not be all zeros.
    fn intact(&self, at: usize, candidate: bool) -> Option<usize> {
        match self.frames.decode(&self.bytes[at..], at as u64) {
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
/// none, if `deframer` has no checksum, or if the search spent its budget (see "Work" in
/// [`SplitFrames`]: the split spans the whole rest of `bytes`, so every real chain fits its
/// widest pass). Recovery looks past a frame that runs off the end with it.
pub(crate) fn first_confirmed<D: Deframer>(
    bytes: &[u8],
    from: usize,
    deframer: D,
    max_frame_len: usize,
) -> Option<usize> {
    first_chained(bytes, from, deframer, max_frame_len, DEFAULT_CONFIRMATIONS)
        .ok()
        .flatten()
}

/// [`first_confirmed`] with `confirmations` frames to chain after the candidate (0: one
/// verified frame, whole within `bytes`, is enough), telling a search that spent its budget
/// (`Err`) from one that found no frame (`Ok(None)`, also for a deframer without a checksum).
/// Salvage resynchronizes with it.
pub(crate) fn first_chained<D: Deframer>(
    bytes: &[u8],
    from: usize,
    deframer: D,
    max_frame_len: usize,
    confirmations: usize,
) -> core::result::Result<Option<usize>, OverBudget> {
    debug_assert!(from > 0, "a split from 0 starts there unconfirmed");
    let Ok(split) = SplitFrames::new(bytes, from..bytes.len(), deframer) else {
        return Ok(None);
    };
    split
        .with_max_frame_len(max_frame_len)
        .with_confirmations(confirmations)
        .resync()
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
pub(crate) mod tests {
    use super::*;
    use crate::read::MessageReader;
    use crate::testing::Sum32;
    use crate::wire::framing::{ChecksumDeframer, ChecksumFramer, DefaultDeframer, Framer};
    use alloc::vec;
    use alloc::vec::Vec;
    use core::cell::Cell;

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

    /// [`Sum32`], counting the bytes it hashes.
    #[derive(Clone, Copy)]
    struct Counted<'c>(&'c Cell<usize>);

    impl crate::Checksum for Counted<'_> {
        fn size(&self) -> usize {
            4
        }
        fn calculate(&self, payload: &[u8]) -> u64 {
            self.0.set(self.0.get() + payload.len());
            Sum32.calculate(payload)
        }
    }

    /// Where `range` resynchronizes, and the bytes hashed to get there.
    fn sync_counted(bytes: &[u8], range: Range<usize>) -> (Option<u64>, usize) {
        let hashed = Cell::new(0);
        let mut split =
            SplitFrames::new(bytes, range, ChecksumDeframer::new(Counted(&hashed))).unwrap();
        (split.sync(), hashed.get())
    }

    /// A little xorshift: payload bytes that are arbitrary, and the same on every run (the
    /// salvage tests use it too).
    pub(crate) fn arbitrary_words(seed: &mut u64, n: usize, below: u64) -> Vec<u8> {
        (0..n)
            .flat_map(|_| {
                *seed ^= *seed << 13;
                *seed ^= *seed >> 7;
                *seed ^= *seed << 17;
                u32::try_from(*seed % below).unwrap().to_le_bytes()
            })
            .collect()
    }

    #[test]
    fn a_candidate_whose_headers_do_not_chain_is_rejected_without_hashing() {
        // At byte 8 of the stream, inside the first payload, a length of 4: a frame of 12 bytes
        // that lands inside the data, on a length over the bound. Sum32 would have to hash
        // its 4 bytes to reject it; the header walk rejects it first.
        let mut first = 4u32.to_le_bytes().to_vec();
        first.extend([0xFF; 20]);
        let rest: [&[u8]; 3] = [b"alpha", b"beta!", b"gamma"];
        let mut payloads = vec![&first[..]];
        payloads.extend(rest);
        let bytes = framed(&payloads);
        let (first_frame, hashed) = sync_counted(&bytes, 8..bytes.len());
        assert_eq!(first_frame, Some(8 + 24));
        assert_eq!(
            hashed, 15,
            "the three frames of the chain found, nothing else"
        );
    }

    #[test]
    fn resynchronizing_over_arbitrary_lengths_that_land_hashes_little() {
        // Payloads of 32-bit words below the stream's length: nearly every aligned offset
        // declares a frame that lands inside the data, as a large capture's arbitrary field
        // values do. Hashing every claimed frame would cost about half the stream per offset.
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        let guess = 3000 * (8 + 64);
        let payloads: Vec<Vec<u8>> = (0..3000)
            .map(|_| arbitrary_words(&mut seed, 16, guess))
            .collect();
        let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        let bytes = framed(&refs);
        let (mut splits, mut total) = (0, 0);
        for start in (1..bytes.len() - 1000).step_by(997) {
            let (first, hashed) = sync_counted(&bytes, start..bytes.len());
            let boundary = start.div_ceil(72) * 72;
            assert_eq!(first, Some(boundary as u64), "start {start}");
            // The chain found is 3 payloads of 64 bytes; a false chain tried first is shorter
            // than the first span.
            assert!(
                hashed <= FIRST_SPAN + 192,
                "start {start}: {hashed} bytes hashed"
            );
            (splits, total) = (splits + 1, total + hashed);
        }
        assert!(
            total <= splits * 256,
            "{total} bytes hashed for {splits} splits"
        );
    }

    #[test]
    fn a_first_frame_passed_over_for_its_long_chain_is_found_by_where_it_lands() {
        // The split's first frame (3000 bytes) is followed by a short one and another 3000:
        // its chain is longer than the first span tried, the next frame's is not. The next
        // frame is confirmed first; the first one lands exactly on it, and verifies.
        let long = [0xFF; 3000];
        let payloads: [&[u8]; 6] = [b"head", &long, b"mid", &long, b"tail", b"end"];
        let bytes = framed(&payloads);
        let (first, hashed) = sync_counted(&bytes, 3..bytes.len());
        assert_eq!(first, Some(12));
        assert_eq!(
            hashed,
            3000 + 3 + 3000 + 4,
            "the long frame, and the chain after it"
        );
    }

    #[test]
    fn the_bytes_hashed_are_bounded_whatever_the_payload_holds() {
        // A 1 MiB payload of the length 60 000 (Sum32: a frame of 60 008 bytes, a multiple of
        // 4): every aligned offset starts a chain of three frames that land, none verifying.
        let hostile: Vec<u8> = 60_000u32.to_le_bytes().repeat(1 << 18);
        let bytes = framed(&[&hostile, b"after", b"last"]);
        let split = 256 << 10;
        let (first, hashed) = sync_counted(&bytes, 1000..1000 + split);
        assert_eq!(
            first, None,
            "gave up: the join check reads it from the split before"
        );
        assert!(hashed <= HASH_BUDGET * split, "{hashed} bytes hashed");
        assert!(hashed > 0);
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
