//! Salvage: keep every intact frame of a damaged checksummed stream, skipping the damage.

use crate::error::Error;
use crate::wire::decode::{Decoded, Decoder};
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
/// use flatstream_core::{Checksum, ChecksumDeframer, ChecksumFramer, Salvage, Salvaged, StreamWriter};
/// # struct Fnv32;
/// # impl Checksum for Fnv32 {
/// #     fn size(&self) -> usize { 4 }
/// #     fn calculate(&self, p: &[u8]) -> u64 {
/// #         p.iter().fold(0x811c_9dc5u32, |h, &b| (h ^ u32::from(b)).wrapping_mul(0x0100_0193)).into()
/// #     }
/// # }
///
/// let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(Fnv32));
/// for word in ["one", "two", "three"] {
///     writer.write_payload(word.as_bytes())?;
/// }
/// let mut bytes = writer.into_inner();
/// bytes[13] ^= 0xFF; // damage the second frame's payload
///
/// let mut kept = Vec::new();
/// let mut skipped = Vec::new();
/// for item in Salvage::new(&bytes, ChecksumDeframer::new(Fnv32), 1024) {
///     match item {
///         Salvaged::Frame { payload, .. } => kept.push(payload),
///         Salvaged::Skipped { start, end } => skipped.push(start..end),
///         _ => {} // Salvaged::Rejected: only validating deframers reject frames
///     }
/// }
/// assert_eq!(kept, [&b"one"[..], b"three"]);
/// assert_eq!(skipped, [11..22]);
/// # Ok::<(), flatstream_core::Error>(())
/// ```
///
/// # What it promises
///
/// * Every [`Salvaged::Frame`] has a length within the bound and a checksum that verifies.
/// * Frames and skipped ranges come in stream order and cover the input exactly, without gap or
///   overlap; a torn tail shows up as a final skipped range.
/// * If the bytes from some offset `q` on are intact frames, and no earlier position inside the
///   damage happens to verify as a frame (see below), every frame from `q` on is yielded, all-zero
///   frames excepted (see below).
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
/// Each offset inside a skipped range is tried once. A try reads the header (constant work)
/// and, only if the declared length is at most `max_frame_len` and the payload is all present,
/// computes one checksum over it. Skipping `g` bytes of an `n`-byte input therefore costs at most
/// `g × min(max_frame_len, n)` checksummed bytes: linear in the damage for a fixed bound, but
/// quadratic if the bound is as large as the input. **Pass the bound your writer used**, not
/// the 2 GiB default of the reader. On random bytes a length fits a bound `M` with probability
/// `M / 2^32`, so the expected cost is far lower (about `M² / 2^33` bytes per offset: half a
/// byte for `M` = 64 KiB); the bound matters for hostile input. `docs/robustness.md` has
/// measurements.
#[derive(Debug, Clone)]
pub struct Salvage<'a, D> {
    bytes: &'a [u8],
    pos: usize,
    decoder: Decoder<D>,
    /// A frame found at the end of a skipped range, yielded right after it.
    pending: Option<usize>,
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
    /// Salvages `bytes`, framed as `deframer` expects, accepting payloads up to
    /// `max_frame_len` bytes. The bound also bounds the work: see [`Salvage`].
    pub fn new(bytes: &'a [u8], deframer: D, max_frame_len: usize) -> Self {
        Salvage {
            bytes,
            pos: 0,
            decoder: Decoder::new(deframer).with_max_frame_len(max_frame_len),
            pending: None,
        }
    }

    /// Offset of the next byte to examine.
    pub fn position(&self) -> u64 {
        self.pending.unwrap_or(self.pos) as u64
    }

    /// Tries the frame at `at`: the decoder decides, every error but a content error meaning
    /// that no frame starts there.
    fn try_at(&self, at: usize) -> Try<'a> {
        let bytes: &'a [u8] = self.bytes;
        match self.decoder.decode(&bytes[at..], at as u64) {
            Ok(Decoded::Frame(frame)) if frame.is_zero() => Try::Zero,
            Ok(Decoded::Frame(frame)) => Try::Frame {
                payload: frame.payload(),
                len: frame.len(),
            },
            Ok(Decoded::Rejected { len, error }) => Try::Rejected { len, error },
            Ok(Decoded::Incomplete(_)) | Err(_) => Try::Nothing,
        }
    }

    /// Yields the frame at `at` and moves past it; `None` if no frame is accepted there.
    fn take_at(&mut self, at: usize) -> Option<Salvaged<'a>> {
        let (payload, len) = match self.try_at(at) {
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
        // Resynchronise: the first later offset where a frame verifies. No frame is shorter
        // than its header, so offsets closer to the end than that are not tried.
        let header_len = self.decoder.header_len();
        let last = self.bytes.len().saturating_sub(header_len);
        let mut at = start + 1;
        while at <= last {
            if matches!(self.try_at(at), Try::Frame { .. } | Try::Rejected { .. }) {
                // Verified again when yielded: one more checksum per resynchronisation, not
                // per byte, and the iterator stays small and `Clone`.
                self.pending = Some(at);
                self.pos = at;
                return Some(Salvaged::Skipped {
                    start: start as u64,
                    end: at as u64,
                });
            }
            at += 1;
        }
        self.pos = self.bytes.len();
        Some(Salvaged::Skipped {
            start: start as u64,
            end: self.bytes.len() as u64,
        })
    }
}

impl<D: Deframer> core::iter::FusedIterator for Salvage<'_, D> {}

#[cfg(test)]
mod tests {
    use super::*;
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
        let got = summary(Salvage::new(bytes, ChecksumDeframer::new(Fnv(&count)), 64));
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
        let got = summary(Salvage::new(bytes, ChecksumDeframer::new(Fnv(&count)), 64));
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
        let items = Salvage::new(&garbage, ChecksumDeframer::new(Fnv(&count)), 64).count();
        assert_eq!(items, 1);
        assert!(count.get() <= garbage.len() as u64 * 64, "{}", count.get());
        assert!(count.get() > 0);
    }

    #[test]
    fn without_a_checksum_only_the_bound_and_the_end_are_detected() {
        let bytes = [0xFF, 0xFF, 0xFF, 0xFF, 1, 0, 0, 0, 9];
        let got = summary(Salvage::new(&bytes, DefaultDeframer, 16));
        assert_eq!(got, [('S', 0, 4), ('F', 4, 1)]);
    }
}
