//! Salvage: keep every intact frame of a damaged checksummed stream, skipping the damage.

use crate::error::Error;
use crate::read::slice::Frames;
use crate::split::ranges::{DEFAULT_CONFIRMATIONS, OverBudget, first_chained};
use crate::wire::decode::Decoded;
use crate::wire::framing::Deframer;

/// One item of a [`Salvage`]: a frame kept, a frame rejected for its content, or bytes skipped.
#[derive(Debug)]
#[non_exhaustive]
pub enum Salvaged<'a> {
    /// An intact frame: its offset in the input and its payload, borrowed from the input.
    Frame {
        /// Offset of the frame's first byte.
        offset: u64,
        /// The payload.
        payload: &'a [u8],
    },
    /// An intact frame whose checksum verified but that a validating deframer rejected for its
    /// content. Its boundaries are trusted: salvage goes on after it.
    Rejected {
        /// Offset of the frame's first byte.
        offset: u64,
        /// Length of the whole frame, header included.
        len: usize,
        /// The deframer's error.
        error: Error,
    },
    /// Bytes `start..end` of the input were skipped: no frame that verifies starts there.
    Skipped {
        /// First skipped byte.
        start: u64,
        /// One past the last skipped byte: the offset of the next frame, or the input's length.
        end: u64,
    },
}

/// Iterates over every intact frame of a damaged checksummed stream, skipping the damage.
///
/// [`Recover`](crate::Recover) stops at the first corrupt frame, or at a damaged length it
/// finds intact frames after ([`StreamEnd::Damaged`](crate::StreamEnd::Damaged), which
/// [`repair_file`](crate::Recover::repair_file) refuses to cut). [`Salvage`] goes on: it
/// skips the damaged bytes and resynchronises on the next position where a frame's length fits
/// the bound and the data, and its checksum verifies. It yields, in stream order, every frame
/// it keeps and every byte range it skipped, which together cover the input exactly once.
///
/// ```text
/// +-------+-------+~~~~~~~~~~~~~~~+-------+-------+
/// | frame | frame | damaged bytes | frame | frame |
/// +-------+-------+~~~~~~~~~~~~~~~+-------+-------+
///  Frame   Frame   Skipped{start,  Frame   Frame
///                          end}
/// ```
///
/// ```
/// use flatstream::{ChecksumDeframer, ChecksumFramer, StreamWriter, XxHash64};
/// use flatstream::repair::{Salvage, Salvaged};
///
/// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
/// for word in ["one", "two", "three"] {
///     writer.write_payload(word.as_bytes())?;
/// }
/// // 12-byte headers (length and XXH3-64): frames at bytes 0..15, 15..30 and 30..47.
/// let mut bytes = writer.into_inner();
/// bytes[28] ^= 0xFF; // damage the second frame's payload
///
/// let mut kept = Vec::new();
/// let mut skipped = Vec::new();
/// let deframer = ChecksumDeframer::new(XxHash64::new());
/// for item in Salvage::new(&bytes, deframer).with_max_frame_len(1024) {
///     match item {
///         Salvaged::Frame { payload, .. } => kept.push(payload),
///         Salvaged::Skipped { start, end } => skipped.push(start..end),
///         _ => {} // Salvaged::Rejected: only validating deframers reject frames
///     }
/// }
/// assert_eq!(kept, [&b"one"[..], b"three"]);
/// assert_eq!(skipped, [15..30]);
/// # Ok::<(), flatstream::Error>(())
/// ```
///
/// # What it promises
///
/// * Every [`Salvaged::Frame`] has a length within the bound and a checksum that verifies.
/// * Frames and skipped ranges come in stream order and cover the input exactly, without gap or
///   overlap; a torn tail shows up as a final skipped range.
/// * If the bytes from some offset `q` on are intact frames, and no earlier position inside the
///   damage happens to verify as a frame (see below), every frame from `q` on is yielded, all-zero
///   frames excepted (see below), unless `q` is found only by the search for lone frames and
///   that search spends its budget (see "Work bound": ordinary damage is far from spending it).
///
/// # What it cannot promise
///
/// * **A checksum can verify by chance.** A `C`-byte checksum lets a random candidate through
///   with probability about 2<sup>-8C</sup>: one in 65,536 for CRC-16, one in 4 billion for
///   CRC-32. Only offsets whose length field fits the bound and the data are candidates, so a
///   tight bound also means fewer false frames. A false frame that overlaps real ones hides
///   them. Prefer an 8-byte checksum for data you may need to salvage.
/// * **Zero bytes.** The checksum of an empty payload is a constant, and for CRC-32 and
///   CRC-32C that constant is 0; CRC-16/XMODEM of any run of zero bytes is 0. So zero bytes,
///   the commonest damage (a file system that zero-fills the blocks a crash left unwritten) and
///   common inside FlatBuffers, spell frames that verify. Salvage therefore never keeps a frame
///   whose checksum field and payload are all zeros: it reports it inside a skipped range. No
///   FlatBuffer is empty or all zeros (its first four bytes are the non-zero offset of its
///   root), so only raw payloads written with `write_payload` can be lost this way. Readers and
///   [`Recover`](crate::Recover), which must read every frame written, take such frames at face
///   value.
/// * **Frames inside payloads.** If a payload itself carries framed bytes, a resynchronisation
///   that lands inside that payload yields the inner frames: they verify like any other.
/// * **Without a checksum there is nothing to verify.** Every offset whose length fits is
///   accepted, so after damage the frames yielded are whatever the bytes happen to spell; only
///   lengths over the bound and the end of the data are detected. Use salvage only on
///   checksummed streams; for the others, [`Recover`](crate::Recover) finds the intact prefix.
///
/// # Work bound
///
/// Resynchronisation is the search of [`SplitFrames`](crate::SplitFrames) (see its "Work"):
/// headers are read before anything is hashed, and short claims are hashed before long ones.
/// After damage at `start`, salvage first finds the next chain of three frames that verify
/// (a frame and its [`DEFAULT_CONFIRMATIONS`](crate::DEFAULT_CONFIRMATIONS)), or of fewer
/// ending exactly at the end of the input; then, between `start` and that chain, the first
/// offset where one frame verifies and ends by the chain's start, so that a lone intact frame
/// between two damaged ones is kept. Each search hashes at most four times the bytes it may
/// look through (from `start` to the end of the input, then to the chain; at least 64 KiB),
/// whatever the bytes hold and whatever the bound, and ordinary damage costs far less: the
/// first chain found is usually the next real frame. Where the search for lone frames spends
/// its budget, the skipped range ends at the chain.
///
/// Only bytes built to defeat the header walk (length fields that chain, as in a payload of
/// one repeated length) make the search for a chain spend its budget. Salvage then tries
/// every offset in turn, as a search without a budget must: a try reads the header and, only
/// if the declared length is at most `max_frame_len` and the payload is all present, computes
/// one checksum over it, so skipping `g` bytes of an `n`-byte input costs at most
/// `g × min(max_frame_len, n)` checksummed bytes. **Set the bound your writer used**
/// ([`with_max_frame_len`](Self::with_max_frame_len)) for input that may be hostile. `docs/robustness.md` has measurements.
///
/// Without a checksum nothing is hashed: each offset of a skipped range costs one header read.
#[derive(Debug, Clone)]
pub struct Salvage<'a, D> {
    bytes: &'a [u8],
    pos: usize,
    /// The input's frames, as a reader of it sees them: the deframer and the bound.
    frames: Frames<'a, D>,
    /// A frame found at the end of a skipped range, yielded right after it.
    pending: Option<usize>,
    /// The last search for a confirmed chain: where it started, and the chain it found (the
    /// input's length if none).
    confirmed: Option<(usize, usize)>,
}

/// What a try at one offset found.
enum Try<'a> {
    /// Nothing that verifies starts here.
    Nothing,
    /// A verified frame of `len` bytes.
    Frame { payload: &'a [u8], len: usize },
    /// A verified frame whose checksum field and payload are all zero bytes: not accepted.
    Zero,
    /// A whole, verified frame rejected for its content.
    Rejected { len: usize, error: Error },
}

impl<'a, D: Deframer> Salvage<'a, D> {
    /// Salvages `bytes`, framed as `deframer` expects, with the default bound
    /// ([`DEFAULT_MAX_FRAME_LEN`](crate::wire::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB).
    pub fn new(bytes: &'a [u8], deframer: D) -> Self {
        Salvage {
            bytes,
            pos: 0,
            frames: Frames::new(bytes, deframer),
            pending: None,
            confirmed: None,
        }
    }

    /// Sets the largest payload accepted, as
    /// [`FrameConfig::with_max_frame_len`](crate::FrameConfig::with_max_frame_len). Here the bound also
    /// bounds the work: see [`Salvage`].
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.frames.set_max_frame_len(max);
        self
    }

    /// Offset of the next byte to examine.
    pub fn position(&self) -> u64 {
        self.pending.unwrap_or(self.pos) as u64
    }

    /// Tries the frame at `at`: the reader's rules decide, every error but a content error meaning
    /// that no frame starts there. The frame must end by `end`.
    fn try_at(&self, at: usize, end: usize) -> Try<'a> {
        let bytes: &'a [u8] = self.bytes;
        match self.frames.decode(&bytes[at..end], at as u64) {
            Ok(Decoded::Frame(frame)) if frame.is_zero() => Try::Zero,
            Ok(Decoded::Frame(frame)) => Try::Frame {
                payload: frame.payload(),
                len: frame.len(),
            },
            Ok(Decoded::Rejected { len, error }) => Try::Rejected { len, error },
            Ok(Decoded::Incomplete(_)) | Err(_) => Try::Nothing,
        }
    }

    /// Where the first frame after the one that failed at `start` starts, or the input's
    /// length: the resynchronisation described under "Work bound" in [`Salvage`].
    fn resync(&mut self, start: usize) -> usize {
        let bytes: &'a [u8] = self.bytes;
        let from = start + 1;
        let deframer = self.frames.deframer();
        let max = self.frames.max_frame_len();
        if deframer.checksum_size() == 0 {
            // Nothing is hashed: each offset costs a header read.
            return self.first_frame(from, bytes.len());
        }
        // The first chain of confirmed frames, found by split's search; the resynchronisations
        // that start before it find it again, so it is kept.
        let confirmed = match self.confirmed {
            Some((searched, at)) if searched <= from && from <= at => Some(at),
            _ => match first_chained(bytes, from, deframer, max, DEFAULT_CONFIRMATIONS) {
                Ok(found) => {
                    let at = found.unwrap_or(bytes.len());
                    self.confirmed = Some((from, at));
                    Some(at)
                }
                Err(OverBudget) => None,
            },
        };
        match confirmed {
            Some(at) if from >= at => at,
            // A frame before it ends at or before it (frames do not overlap), and may be
            // followed by damage: one frame that verifies within the bytes up to it is enough.
            Some(at) => match first_chained(&bytes[..at], from, deframer, max, 0) {
                Ok(Some(lone)) => lone,
                Ok(None) | Err(OverBudget) => at,
            },
            // Bytes that spend the budget: the search for one frame, then every offset in turn.
            None => match first_chained(bytes, from, deframer, max, 0) {
                Ok(found) => found.unwrap_or(bytes.len()),
                Err(OverBudget) => self.first_frame(from, bytes.len()),
            },
        }
    }

    /// The first offset from `from` on where a frame within `bytes[..end]` is accepted, else
    /// `end`, trying every offset in turn. No frame is shorter than its header, so offsets
    /// closer to `end` than that are not tried.
    fn first_frame(&self, from: usize, end: usize) -> usize {
        let last = end.saturating_sub(self.frames.header_len());
        (from..=last)
            .find(|&at| {
                matches!(
                    self.try_at(at, end),
                    Try::Frame { .. } | Try::Rejected { .. }
                )
            })
            .unwrap_or(end)
    }

    /// Yields the frame at `at` and moves past it; `None` if no frame is accepted there.
    fn take_at(&mut self, at: usize) -> Option<Salvaged<'a>> {
        let (payload, len) = match self.try_at(at, self.bytes.len()) {
            Try::Nothing | Try::Zero => return None,
            Try::Frame { payload, len } => (payload, len),
            Try::Rejected { len, error } => {
                self.pos = at + len;
                return Some(Salvaged::Rejected {
                    offset: at as u64,
                    len,
                    error,
                });
            }
        };
        self.pos = at + len;
        Some(Salvaged::Frame {
            offset: at as u64,
            payload,
        })
    }
}

impl<'a, D: Deframer> Iterator for Salvage<'a, D> {
    type Item = Salvaged<'a>;

    fn next(&mut self) -> Option<Self::Item> {
        if let Some(at) = self.pending.take() {
            // Verified a moment ago; a deframer that changes its mind falls through to a fresh
            // try at the same offset.
            if let Some(item) = self.take_at(at) {
                return Some(item);
            }
        }
        let start = self.pos;
        if start >= self.bytes.len() {
            return None;
        }
        if let Some(item) = self.take_at(start) {
            return Some(item);
        }
        let at = self.resync(start);
        self.pos = at;
        if at < self.bytes.len() {
            // Verified again when yielded: one more checksum per resynchronisation, not per
            // byte, and the iterator stays small and `Clone`.
            self.pending = Some(at);
        }
        Some(Salvaged::Skipped {
            start: start as u64,
            end: at as u64,
        })
    }
}

impl<D: Deframer> core::iter::FusedIterator for Salvage<'_, D> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::split::ranges::tests::arbitrary_words;
    use crate::wire::checksum::Checksum;
    use crate::wire::framing::{ChecksumDeframer, ChecksumFramer, DefaultDeframer, Framer};
    use alloc::vec::Vec;
    use core::cell::Cell;

    /// FNV-1a in 4 bytes, counting the bytes it hashes.
    struct Fnv<'c>(&'c Cell<u64>);
    impl Checksum for Fnv<'_> {
        fn size(&self) -> usize {
            4
        }
        fn calculate(&self, p: &[u8]) -> u64 {
            self.0.set(self.0.get() + p.len() as u64);
            p.iter()
                .fold(0x811c_9dc5u32, |h, &b| {
                    (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
                })
                .into()
        }
    }

    fn framed(payloads: &[&[u8]]) -> Vec<u8> {
        let count = Cell::new(0);
        let mut out = Vec::new();
        for p in payloads {
            let header = ChecksumFramer::new(Fnv(&count)).header(p, 0).unwrap();
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    fn summary<'a>(items: impl Iterator<Item = Salvaged<'a>>) -> Vec<(char, u64, u64)> {
        items
            .map(|i| match i {
                Salvaged::Frame { offset, payload } => ('F', offset, payload.len() as u64),
                Salvaged::Skipped { start, end } => ('S', start, end),
                Salvaged::Rejected { offset, len, .. } => ('R', offset, len as u64),
            })
            .collect()
    }

    #[test]
    fn intact_stream_is_all_frames() {
        let bytes = framed(&[b"a", b"", b"bcd"]).leak();
        let count = Cell::new(0);
        let got =
            summary(Salvage::new(bytes, ChecksumDeframer::new(Fnv(&count))).with_max_frame_len(64));
        assert_eq!(got, [('F', 0, 1), ('F', 9, 0), ('F', 17, 3)]);
    }

    #[test]
    fn skips_garbage_between_frames_and_a_torn_tail() {
        let mut bytes = framed(&[b"first"]);
        bytes.extend_from_slice(&[0xEE; 7]);
        bytes.extend_from_slice(&framed(&[b"second", b"third"]));
        bytes.extend_from_slice(&[50, 0, 0, 0, 1]);
        let bytes = bytes.leak();
        let count = Cell::new(0);
        let got =
            summary(Salvage::new(bytes, ChecksumDeframer::new(Fnv(&count))).with_max_frame_len(64));
        assert_eq!(
            got,
            [
                ('F', 0, 5),
                ('S', 13, 20),
                ('F', 20, 6),
                ('F', 34, 5),
                ('S', 47, 52)
            ]
        );
    }

    #[test]
    fn work_is_bounded_by_the_bound_per_skipped_byte() {
        // Every fourth offset declares a 60-byte payload that fits: the worst pattern for a
        // bound of 64.
        let garbage: Vec<u8> = [60u8, 0, 0, 0].repeat(1000);
        let count = Cell::new(0);
        let items = Salvage::new(&garbage, ChecksumDeframer::new(Fnv(&count)))
            .with_max_frame_len(64)
            .count();
        assert_eq!(items, 1);
        assert!(count.get() <= garbage.len() as u64 * 64, "{}", count.get());
        assert!(count.get() > 0);
    }

    #[test]
    fn bytes_that_spend_the_budget_fall_back_to_trying_every_offset() {
        // Every fourth offset declares a 4080-byte payload: a frame of 4088 bytes, which lands
        // on the next such claim, so the headers chain and every chain must be hashed to be
        // rejected. Both searches spend their budget; the survivor is still found.
        let garbage: Vec<u8> = 4080u32.to_le_bytes().repeat(4 << 10);
        let mut bytes = garbage.clone();
        bytes.extend_from_slice(&framed(&[b"survivor"]));
        let count = Cell::new(0);
        let got = summary(
            Salvage::new(&bytes, ChecksumDeframer::new(Fnv(&count))).with_max_frame_len(4096),
        );
        let end = garbage.len() as u64;
        assert_eq!(got, [('S', 0, end), ('F', end, 8)]);
        let budgets = 2 * 4 * (64 << 10);
        assert!(count.get() > budgets, "{}", count.get());
        assert!(count.get() <= budgets + end * 4096, "{}", count.get());
    }

    #[test]
    fn resynchronising_with_the_default_bound_hashes_a_small_multiple_of_the_input() {
        // Payloads of 32-bit words below the stream's length, as a capture's arbitrary field
        // values are: nearly every offset declares a frame that fits the default bound and
        // lands inside the data. Trying each offset's claim would hash about half the stream
        // per offset skipped.
        let mut seed = 0x9E37_79B9_7F4A_7C15;
        let frames = 2000;
        let guess = frames * (8 + 64);
        let payloads: Vec<Vec<u8>> = (0..frames)
            .map(|_| arbitrary_words(&mut seed, 16, guess as u64))
            .collect();
        let refs: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        let mut bytes = framed(&refs);
        // Damage: a length; a payload and the next frame's checksum; another length; the last
        // frame's length, and the stream torn inside that frame.
        let damaged = [100, 700, 701, 1200, 1999];
        for (frame, at) in damaged.iter().zip([0, 20, 5, 1, 0]) {
            bytes[frame * 72 + at] ^= 0x5A;
        }
        bytes.truncate(bytes.len() - 30);
        let count = Cell::new(0);
        let deframer = ChecksumDeframer::new(Fnv(&count));
        let got = summary(Salvage::new(&bytes, deframer));
        let kept: Vec<u64> = got
            .iter()
            .filter(|i| i.0 == 'F')
            .map(|i| i.1 / 72)
            .collect();
        let expected: Vec<u64> = (0..frames as u64)
            .filter(|&f| !damaged.iter().any(|&d| d as u64 == f))
            .collect();
        assert_eq!(kept, expected);
        assert!(
            count.get() <= 4 * bytes.len() as u64,
            "{} bytes hashed for a {}-byte input",
            count.get(),
            bytes.len()
        );
    }

    #[test]
    fn without_a_checksum_only_the_bound_and_the_end_are_detected() {
        let bytes = [0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 9];
        let got = summary(Salvage::new(&bytes, DefaultDeframer).with_max_frame_len(16));
        assert_eq!(got, [('S', 0, 4), ('F', 4, 1)]);
    }
}
