//! The decoder: the one place where the bytes at the front of a buffer become a frame.
//!
//! ```text
//!                        bytes at the front of a buffer, at stream offset `offset`
//!                                          |
//!                              +-----------v-----------+
//!                              |  Decoder::decode      |  no I/O, no allocation
//!                              +-----------+-----------+
//!        +-------------------+-------------+--------------+-------------------------+
//!        v                   v                            v                         v
//!  Ok(Frame)           Ok(Rejected)                 Ok(Incomplete)               Err(error)
//!  length within the   whole and intact, but a      not all there yet: how      a length over the
//!  bound, checksum     validating deframer says     many bytes the frame        bound, a checksum
//!  verified: hand out  no: step past `len` bytes    needs, how many are         mismatch: stay at
//!  the payload, step   and report the error         present, how many are       this frame
//!  past `frame.len()`                               worth reading next
//! ```
//!
//! The decoder performs no I/O and keeps no position: a driver hands it the bytes it holds and
//! the stream offset of the first of them, and acts on the outcome. Every reader of this crate
//! is such a driver: [`StreamReader`](crate::StreamReader) and
//! [`BufReadStreamReader`](crate::BufReadStreamReader) move bytes from a source into a buffer,
//! [`Frames`](crate::Frames), [`Recover`](crate::Recover) and [`Salvage`](crate::Salvage) walk a
//! slice. A driver of your own (an async codec, a ring buffer shared with a NIC) gets the same
//! bounds checks, the same errors and the same offsets by driving it the same way:
//!
//! ```
//! use flatstream::decode::{Decoded, Decoder};
//! use flatstream::{DefaultDeframer, Error};
//!
//! let decoder = Decoder::new(DefaultDeframer).with_max_frame_len(1024);
//! let stream = [2, 0, 0, 0, b'h', b'i', 5, 0, 0, 0, b'a'];
//! let (mut at, mut payloads) = (0, Vec::new());
//! let end = loop {
//!     match decoder.decode(&stream[at..], at as u64)? {
//!         Decoded::Frame(frame) => {
//!             payloads.push(frame.payload());
//!             at += frame.len();
//!         }
//!         Decoded::Rejected { len, error } => {
//!             at += len; // only validating deframers reject; a real driver reports the error
//!             let _ = error;
//!         }
//!         // A driver with a source would read more here; a slice is all there is.
//!         Decoded::Incomplete(need) => break need,
//!     }
//! };
//! assert_eq!(payloads, [b"hi"]);
//! assert_eq!((end.needed(), end.present(), end.missing()), (9, 5, 4));
//! let error = end.into_error(at as u64);
//! assert!(matches!(error, Error::UnexpectedEof { offset: 6, needed: 9, present: 5 }));
//! # Ok::<(), Error>(())
//! ```
//!
//! # What a driver owes the decoder
//!
//! * **The bound is checked for it.** [`Decoder::decode`] rejects a declared length over the
//!   bound as soon as the length prefix is present, whatever follows.
//! * **Memory grows with the bytes received, never with a header's claim.** An
//!   [`Incomplete`] outcome says how many bytes the frame needs in all and how many are missing;
//!   a driver must not reserve that up front. The readers of this crate grow their buffers by
//!   one rule, [`Incomplete::grown_len`] (at most doubling, toward what the frame needs; the
//!   rule of [`ReadBuffer`](crate::ReadBuffer)), or take at most [`Incomplete::missing`]
//!   bytes per refill. Either way a header that claims 2 GiB followed by 10 bytes
//!   costs no more than a small frame.
//! * **A rejected frame is stepped over, a framing error is not.** After
//!   [`Decoded::Rejected`] the next frame's position is known; after an `Err` it is not, and the
//!   driver reports the same error again if asked to go on.
//! * **Offsets are the driver's.** The decoder stamps errors with the offset it is given.

use crate::error::{Error, Result};
use crate::wire::frame::{DEFAULT_MAX_FRAME_LEN, FrameSpan, LEN_PREFIX_SIZE, header_len};
use crate::wire::framing::Deframer;

/// The largest first allocation of a buffering reader's buffer; it then doubles up to the
/// reader's capacity (see [`Incomplete::grown_len`]).
pub const FIRST_ALLOCATION: usize = 8 * 1024;

/// Decodes frames from the front of a buffer: a deframer and a bound, and nothing else.
///
/// See the [module documentation](self) for the outcomes and how a driver acts on them.
#[derive(Debug, Clone)]
pub struct Decoder<D> {
    deframer: D,
    /// The bound set by the user; the deframer's own is applied on each call.
    max_frame_len: usize,
}

/// What [`Decoder::decode`] found at the front of a buffer, when it is not a framing error.
#[derive(Debug)]
pub enum Decoded<'a> {
    /// A whole frame, its length within the bound and its checksum verified.
    Frame(Frame<'a>),
    /// A whole frame, intact, that a validating deframer rejected for its content
    /// ([`Error::is_content_error`]). Its end is known: the driver steps `len` bytes past it
    /// and reports `error`.
    Rejected {
        /// Length of the whole frame, header included.
        len: usize,
        /// Why the deframer rejected it.
        error: Error,
    },
    /// The frame is not all there.
    Incomplete(Incomplete),
}

/// A verified frame, borrowed from the buffer it was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Frame<'a> {
    checksum: &'a [u8],
    payload: &'a [u8],
    /// The length the decoder checked against the buffer (kept, rather than summed again from
    /// the parts, so that the compiler sees it is within the buffer).
    len: usize,
}

impl<'a> Frame<'a> {
    /// The payload.
    #[inline(always)]
    pub fn payload(&self) -> &'a [u8] {
        self.payload
    }

    /// The checksum field as it is on the wire (empty without a checksum).
    #[inline(always)]
    pub fn checksum_field(&self) -> &'a [u8] {
        self.checksum
    }

    /// Where the frame's parts lie, counted from its first byte.
    #[inline(always)]
    pub fn span(&self) -> FrameSpan {
        FrameSpan {
            header_len: header_len(self.checksum.len()),
            payload_len: self.payload.len(),
        }
    }

    /// Length of the whole frame: where the next one starts.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len
    }

    /// Always `false`: a frame has at least its length prefix.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Whether the checksum field and the payload are all zero bytes.
    ///
    /// Such a frame verifies under CRC-32 and CRC-32C when empty, and under CRC-16/XMODEM at
    /// any length, so zero-filled bytes (the commonest damage, and common inside FlatBuffers)
    /// spell frames that verify. No FlatBuffer is all zeros (its first four bytes are the
    /// non-zero offset of its root): drivers that search for frames ([`Salvage`](crate::Salvage),
    /// [`SplitFrames`](crate::SplitFrames)) never take one as evidence of a frame boundary.
    pub fn is_zero(&self) -> bool {
        self.checksum.iter().chain(self.payload).all(|&b| b == 0)
    }
}

/// A frame that is not all there: the bytes it needs and the bytes present.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Incomplete {
    needed: usize,
    present: usize,
}

impl Incomplete {
    /// `needed` bytes, `present` of them in the buffer.
    pub(crate) fn new(needed: usize, present: usize) -> Self {
        Incomplete { needed, present }
    }

    /// Bytes the frame needs in all, header included. While the length prefix itself is
    /// incomplete this is the header's length: the payload's length is not known yet.
    #[inline]
    pub fn needed(&self) -> usize {
        self.needed
    }

    /// Bytes of the frame present in the buffer.
    #[inline]
    pub fn present(&self) -> usize {
        self.present
    }

    /// Bytes still missing: the most a driver should take from its source for this frame (the
    /// bytes after them belong to the next one).
    #[inline]
    pub fn missing(&self) -> usize {
        self.needed - self.present
    }

    /// The size to grow a full buffer of `len` bytes to, for this frame, in a reader whose
    /// configured capacity is `capacity`: double (from a first allocation of
    /// [`FIRST_ALLOCATION`] or `capacity` if smaller, so that short streams stay cheap), up to
    /// `capacity`, or toward what the frame [`needs`](Self::needed) if that is larger. The
    /// buffer never grows faster than the bytes that actually arrive, whatever length a header
    /// claims. The rule of every buffering reader of flatstream.
    ///
    /// ```
    /// # use flatstream::decode::{Decoded, Decoder, FIRST_ALLOCATION};
    /// # use flatstream::DefaultDeframer;
    /// // A header that claims 1 GiB, followed by 10 bytes.
    /// let mut bytes = vec![0, 0, 0, 0x40];
    /// bytes.extend([1; 10]);
    /// let Ok(Decoded::Incomplete(need)) = Decoder::new(DefaultDeframer).decode(&bytes, 0) else {
    ///     unreachable!()
    /// };
    /// assert_eq!(need.grown_len(0, 64 * 1024), FIRST_ALLOCATION);
    /// assert_eq!(need.grown_len(64 * 1024, 64 * 1024), 128 * 1024, "doubling, past the capacity");
    /// # Ok::<(), flatstream::Error>(())
    /// ```
    #[inline(always)]
    pub fn grown_len(&self, len: usize, capacity: usize) -> usize {
        len.saturating_mul(2)
            .max(capacity.min(FIRST_ALLOCATION))
            .min(capacity.max(self.needed))
    }

    /// The error for a stream that ends here: [`Error::UnexpectedEof`] for the frame at
    /// `offset`.
    #[cold]
    pub fn into_error(self, offset: u64) -> Error {
        Error::eof(offset, self.needed, self.present)
    }

    /// What it means when the input ends here: with no byte of a frame present, the clean end
    /// of the stream (`Ok`); otherwise a frame cut short ([`into_error`](Self::into_error)).
    #[inline]
    pub fn at_end(self, offset: u64) -> Result<()> {
        if self.present == 0 {
            Ok(())
        } else {
            Err(self.into_error(offset))
        }
    }
}

impl<D: Deframer> Decoder<D> {
    /// A decoder for frames read with `deframer`, with the default bound
    /// ([`DEFAULT_MAX_FRAME_LEN`], 2 GiB).
    pub fn new(deframer: D) -> Self {
        Decoder {
            deframer,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
        }
    }

    /// Sets the largest payload accepted. The deframer's own bound
    /// ([`Deframer::max_payload_len`]) applies as well: the smaller one wins.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// Sets the largest payload accepted, as [`with_max_frame_len`](Self::with_max_frame_len).
    pub fn set_max_frame_len(&mut self, max: usize) {
        self.max_frame_len = max;
    }

    /// The largest payload accepted: the smaller of the bound set and the deframer's.
    #[inline(always)]
    pub fn max_frame_len(&self) -> usize {
        self.max_frame_len.min(self.deframer.max_payload_len())
    }

    /// Length of a frame's header: the length prefix and the deframer's checksum field.
    #[inline(always)]
    pub fn header_len(&self) -> usize {
        header_len(self.deframer.checksum_size())
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        &self.deframer
    }

    /// Decodes the frame at the front of `bytes`, whose first byte is at stream offset
    /// `offset`; see the [module documentation](self) for the outcomes.
    ///
    /// # Errors
    ///
    /// Framing errors, at `offset`: [`Error::FrameTooLarge`] as soon as the length prefix
    /// declares more than [`max_frame_len`](Self::max_frame_len), [`Error::ChecksumMismatch`]
    /// (or whatever framing error a custom deframer returns) for a whole frame that fails
    /// verification.
    #[inline(always)]
    pub fn decode<'a>(&self, bytes: &'a [u8], offset: u64) -> Result<Decoded<'a>> {
        match self.decode_at(bytes, || offset) {
            Ok(frame) => Ok(Decoded::Frame(frame)),
            Err(other) => other.into_decoded(),
        }
    }

    /// [`decode`](Self::decode), for a driver that handles every outcome but a verified frame
    /// out of line, and computes the offset only where it is used: in those outcomes, and in a
    /// deframer that stamps its errors with it. `Frames`, which derives the offset from its
    /// position, then spends nothing on it in its hot loop without a checksum, and its loop
    /// holds nothing but the frame path.
    #[inline(always)]
    pub(crate) fn decode_at<'a>(
        &self,
        bytes: &'a [u8],
        offset: impl FnOnce() -> u64,
    ) -> core::result::Result<Frame<'a>, NotAFrame> {
        let header_len = self.header_len();
        let max = self.max_frame_len();
        let Some(frame) = complete_frame(bytes, header_len, max) else {
            return Err(incomplete(bytes, header_len, max, offset()));
        };
        // Every part is sliced from the frame's start: the form that compiles to the tightest
        // loop in the readers (splitting the rest after each part measured 15 % slower).
        let checksum = &frame[LEN_PREFIX_SIZE..header_len];
        let payload = &frame[header_len..];
        match self.deframer.verify(checksum, payload, offset()) {
            Ok(()) => Ok(Frame {
                checksum,
                payload,
                len: frame.len(),
            }),
            Err(error) => Err(rejected(error, frame.len())),
        }
    }
}

/// Every outcome of [`Decoder::decode_at`] but a verified frame.
#[derive(Debug)]
pub(crate) enum NotAFrame {
    /// [`Decoded::Rejected`].
    Rejected {
        /// Length of the whole frame.
        len: usize,
        /// Why.
        error: Error,
    },
    /// [`Decoded::Incomplete`].
    Incomplete(Incomplete),
    /// A framing error.
    Failed(Error),
}

/// Where a driver that holds its whole input (a slice, a `Bytes`) goes after an outcome other
/// than a verified frame.
pub(crate) enum Step {
    /// Step past a rejected frame of this length.
    Past(usize),
    /// A framing error: stop at the frame that failed.
    Stop,
    /// The clean end.
    End,
}

impl NotAFrame {
    /// What it means for the frame at `offset` when the bytes decoded are all the input there
    /// is: where to go, and the error to report (`None` at the clean end). Out of line, and given no
    /// driver: a driver whose address escapes to a call lives in memory, and its hot path
    /// would then store and reload its position on every frame.
    #[cold]
    #[inline(never)]
    pub(crate) fn in_whole_input(self, offset: u64) -> (Step, Option<Error>) {
        match self {
            NotAFrame::Rejected { len, error } => (Step::Past(len), Some(error)),
            NotAFrame::Incomplete(need) => match need.at_end(offset) {
                Ok(()) => (Step::End, None),
                Err(e) => (Step::Stop, Some(e)),
            },
            NotAFrame::Failed(e) => (Step::Stop, Some(e)),
        }
    }

    /// As [`Decoder::decode`] reports it.
    #[inline(always)]
    pub(crate) fn into_decoded<'a>(self) -> Result<Decoded<'a>> {
        match self {
            NotAFrame::Rejected { len, error } => Ok(Decoded::Rejected { len, error }),
            NotAFrame::Incomplete(need) => Ok(Decoded::Incomplete(need)),
            NotAFrame::Failed(error) => Err(error),
        }
    }
}

impl<D: Deframer> Decoder<D> {
    /// Length of the frame at the front of `bytes`, header included, **without verifying it**:
    /// `Some` exactly where [`decode`](Self::decode) would look at a whole frame within the
    /// bound (and then verify it), `None` where it would report a frame cut short or a length
    /// over the bound.
    ///
    /// For a driver that needs only where frames start, such as the walk that checks where
    /// each split of a parallel read begins: it reads one length per frame and hashes nothing.
    /// Payloads found this way are not verified; hand out only what `decode` returns.
    #[inline]
    pub fn unverified_len(&self, bytes: &[u8]) -> Option<usize> {
        complete_frame(bytes, self.header_len(), self.max_frame_len()).map(<[u8]>::len)
    }
}

/// The complete frame at the front of `bytes` whose declared length is at most `max`, or `None`
/// (a frame cut short, or a length over the bound: [`incomplete`] tells which).
///
/// The frame is taken with `get(..len)`: a driver that steps past it with `&bytes[len..]`
/// then repeats that very comparison, which the compiler folds, where a bound proved by
/// arithmetic (`len - header >= payload`) left a check in every reader's loop (measured, paired:
/// `Frames` with XXH3 went from 1.13-1.18 to 1.03-1.05 times its hand-written loop).
#[inline(always)]
fn complete_frame(bytes: &[u8], header_len: usize, max: usize) -> Option<&[u8]> {
    let (prefix, _) = bytes.split_first_chunk::<LEN_PREFIX_SIZE>()?;
    let payload_len = u32::from_le_bytes(*prefix) as usize;
    if payload_len > max {
        return None;
    }
    bytes.get(..header_len.checked_add(payload_len)?)
}

/// Marks the branch that calls it as unlikely. The outcomes other than a verified frame are
/// built inline, behind this mark, rather than in functions of their own: a result built by a
/// call lands in memory, and then the verified frame of the hot path did too (measured: the
/// readers' loops at 1.2 to 1.5 times the hand-written loop, instead of 1.0 to 1.1).
#[cold]
#[inline(never)]
fn unlikely() {}

/// No complete frame within the bound is at the front of `bytes`: the length is over the bound
/// (an error), or bytes are missing.
#[inline(always)]
fn incomplete(bytes: &[u8], header_len: usize, max: usize, offset: u64) -> NotAFrame {
    unlikely();
    let present = bytes.len();
    let Some(prefix) = bytes.first_chunk::<LEN_PREFIX_SIZE>() else {
        return NotAFrame::Incomplete(Incomplete {
            needed: header_len,
            present,
        });
    };
    let payload_len = u32::from_le_bytes(*prefix) as usize;
    if payload_len > max {
        return NotAFrame::Failed(Error::too_large(offset, payload_len, max));
    }
    // Within the bound, yet not whole: bytes are missing. (On a 16 or 32-bit target the sum
    // could overflow for a bound near `usize::MAX`: such a frame could never be held.)
    let Some(needed) = header_len.checked_add(payload_len) else {
        return NotAFrame::Failed(Error::too_large(
            offset,
            payload_len,
            usize::MAX - header_len,
        ));
    };
    NotAFrame::Incomplete(Incomplete { needed, present })
}

/// A whole frame failed verification: its content (a frame to step over), or its framing.
#[inline(always)]
fn rejected(error: Error, len: usize) -> NotAFrame {
    unlikely();
    if error.is_content_error() {
        NotAFrame::Rejected { len, error }
    } else {
        NotAFrame::Failed(error)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Sum16;
    use crate::wire::framing::{ChecksumDeframer, DefaultDeframer};

    /// Rejects payloads that start with 0xFF, for their content.
    struct NoFf;
    impl Deframer for NoFf {
        fn checksum_size(&self) -> usize {
            0
        }
        fn max_payload_len(&self) -> usize {
            16
        }
        fn verify(&self, _: &[u8], payload: &[u8], offset: u64) -> Result<()> {
            match payload.first() {
                Some(0xFF) => Err(Error::validation("no-ff", "starts with 0xFF", offset)),
                _ => Ok(()),
            }
        }
    }

    fn need(d: &Decoder<impl Deframer>, bytes: &[u8]) -> (usize, usize) {
        match d.decode(bytes, 0).unwrap() {
            Decoded::Incomplete(n) => (n.needed(), n.present()),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn reports_what_is_missing_header_first_then_the_frame() {
        let d = Decoder::new(DefaultDeframer);
        assert_eq!(need(&d, &[]), (4, 0));
        assert_eq!(need(&d, &[3, 0]), (4, 2));
        assert_eq!(need(&d, &[3, 0, 0, 0, 1]), (7, 5));
        let d = Decoder::new(ChecksumDeframer::new(Sum16));
        assert_eq!(need(&d, &[3]), (6, 1), "the checksum is header too");
        assert_eq!(need(&d, &[3, 0, 0, 0, 6]), (9, 5));
        assert_eq!(need(&d, &[3, 0, 0, 0, 6, 0, 1]), (9, 7));
    }

    #[test]
    fn a_whole_frame_is_verified_and_sliced() {
        let d = Decoder::new(ChecksumDeframer::new(Sum16));
        let bytes = [3, 0, 0, 0, 6, 0, 1, 2, 3, 9, 9];
        let Decoded::Frame(frame) = d.decode(&bytes, 0).unwrap() else {
            panic!()
        };
        assert_eq!(frame.payload(), [1, 2, 3]);
        assert_eq!(frame.checksum_field(), [6, 0]);
        assert_eq!(frame.len(), 9);
        assert_eq!(&bytes[frame.span().payload_range()], [1, 2, 3]);

        let err = d.decode(&[3, 0, 0, 0, 7, 0, 1, 2, 3], 40).unwrap_err();
        assert!(matches!(
            err,
            Error::ChecksumMismatch {
                offset: 40,
                expected: 7,
                actual: 6
            }
        ));
    }

    #[test]
    fn rejects_a_length_over_the_bound_from_the_prefix_alone() {
        let d = Decoder::new(DefaultDeframer).with_max_frame_len(1024);
        let err = d.decode(&[0xFF; 4], 40).unwrap_err();
        assert!(matches!(
            err,
            Error::FrameTooLarge {
                offset: 40,
                len: 0xFFFF_FFFF,
                max: 1024
            }
        ));
        let d = Decoder::new(DefaultDeframer).with_max_frame_len(100);
        assert!(d.decode(&[101, 0, 0, 0], 0).is_err());
        assert!(matches!(
            d.decode(&[100, 0, 0, 0], 0),
            Ok(Decoded::Incomplete(_))
        ));
    }

    #[test]
    fn the_deframers_bound_applies_too_and_the_smaller_wins() {
        let d = Decoder::new(NoFf);
        assert_eq!(d.max_frame_len(), 16);
        assert!(matches!(
            d.decode(&[17, 0, 0, 0], 0),
            Err(Error::FrameTooLarge { max: 16, .. })
        ));
        assert_eq!(Decoder::new(NoFf).with_max_frame_len(8).max_frame_len(), 8);
    }

    #[test]
    fn a_content_error_is_a_rejected_frame_with_its_length() {
        let d = Decoder::new(NoFf);
        match d.decode(&[2, 0, 0, 0, 0xFF, 1, 0], 12).unwrap() {
            Decoded::Rejected { len, error } => {
                assert_eq!(len, 6);
                assert!(error.is_content_error());
                assert_eq!(error.offset(), 12);
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn growth_is_at_most_doubling_whatever_the_claim() {
        let d = Decoder::new(DefaultDeframer).with_max_frame_len(usize::MAX);
        let mut bytes = vec![0u8; 10];
        bytes[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        let Decoded::Incomplete(n) = d.decode(&bytes, 0).unwrap() else {
            panic!()
        };
        assert_eq!(n.grown_len(10, 0), 20, "double, not the 4 GiB declared");
        assert_eq!(n.grown_len(0, 64 * 1024), FIRST_ALLOCATION);
        let small = [5, 0, 0, 0, 1];
        let Decoded::Incomplete(n) = d.decode(&small, 0).unwrap() else {
            panic!()
        };
        assert_eq!(n.grown_len(5, 0), 9, "never more than the frame needs");
    }
}
