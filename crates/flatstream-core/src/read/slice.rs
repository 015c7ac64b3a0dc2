//! `Frames`: a zero-copy iterator over the frames of a byte slice. Works without `std`.

use crate::error::Result;
use crate::wire::decode::{Decoded, Decoder, Step};
use crate::wire::framing::Deframer;

/// Iterates over the payloads of the frames in a byte slice, without copying.
///
/// Each item is a payload borrowed from the input for its whole lifetime `'a`, so payloads can be
/// kept after the iterator is gone. Use it over a memory-mapped file, a received datagram, or a
/// buffer read whole.
///
/// The iterator ends (`None`) exactly at the end of the input. A framing error (a length over
/// the bound, a checksum mismatch, a frame cut short by the end of the input) is yielded once,
/// after which the iterator is fused: the bytes past it cannot be trusted to be frame boundaries.
/// A content error raised by a validating deframer is yielded and iteration goes on with the
/// next frame, whose position is known.
///
/// It is also a [`MessageReader`](crate::MessageReader), so typed reading and the other reader adapters work over it.
///
/// ```
/// use flatstream::{DefaultDeframer, Frames};
///
/// let bytes = [2, 0, 0, 0, b'h', b'i', 0, 0, 0, 0];
/// let payloads: Vec<&[u8]> = Frames::new(&bytes, DefaultDeframer).collect::<Result<_, _>>()?;
/// assert_eq!(payloads, [&b"hi"[..], &b""[..]]);
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Frames<'a, D> {
    /// The bytes from the next frame on. After a framing error, empty.
    rest: &'a [u8],
    /// The bytes from the failed frame on, after a framing error.
    failed: Option<&'a [u8]>,
    /// Offset of the end of the input: its length, or for [`within`](Self::within) the end
    /// of the range in the whole stream. Offsets are this minus what is left.
    len: usize,
    decoder: Decoder<D>,
}

impl<'a, D: Deframer> Frames<'a, D> {
    /// Iterates over the frames in `bytes`, read with `deframer`.
    pub fn new(bytes: &'a [u8], deframer: D) -> Self {
        Self::within(bytes, 0..bytes.len(), deframer)
    }

    /// Iterates over the frames in `bytes[range]`, where `range` starts on a frame boundary and
    /// ends on one or at the end of `bytes`, with offsets (positions, errors) in `bytes`: how
    /// split reading uses the loop of a sequential reader.
    pub(crate) fn within(bytes: &'a [u8], range: core::ops::Range<usize>, deframer: D) -> Self {
        Frames {
            rest: &bytes[range.clone()],
            failed: None,
            len: range.end,
            decoder: Decoder::new(deframer),
        }
    }

    crate::read::decoder_accessors!(D, decoder);

    /// Bytes consumed so far: the offset of the next frame, or of the frame that failed.
    #[inline]
    pub fn position(&self) -> u64 {
        (self.len - self.remainder().len()) as u64
    }

    /// The bytes not yet consumed, starting with the next frame (or the frame that failed).
    pub fn remainder(&self) -> &'a [u8] {
        self.failed.unwrap_or(self.rest)
    }

    /// Reads from `rest` on, a tail of the bytes given at creation: the offsets stay theirs.
    pub(crate) fn restart(&mut self, rest: &'a [u8]) {
        self.rest = rest;
        self.failed = None;
    }

    /// How many bytes are left to read; 0 after a framing error.
    #[inline(always)]
    pub(crate) fn unread(&self) -> usize {
        self.rest.len()
    }

    /// The frame at the front of `bytes`, a part of this reader's input whose first byte is
    /// at stream offset `offset`, decided by this reader's rules (deframer and bound) without
    /// moving it: how the situational slice readers (split, parallel, recover, salvage,
    /// positioned) look at a frame they choose.
    #[inline(always)]
    pub(crate) fn decode<'b>(&self, bytes: &'b [u8], offset: u64) -> Result<Decoded<'b>> {
        self.decoder.decode(bytes, offset)
    }

    /// Length of the frame at the front of `bytes`, header included, without verifying it:
    /// see [`Decoder::unverified_len`].
    #[inline(always)]
    pub(crate) fn unverified_len(&self, bytes: &[u8]) -> Option<usize> {
        self.decoder.unverified_len(bytes)
    }

    /// Length of a frame's header.
    #[inline(always)]
    pub(crate) fn header_len(&self) -> usize {
        self.decoder.header_len()
    }

    /// The bound in force: the smaller of the one set and the deframer's own.
    #[inline(always)]
    pub(crate) fn max_frame_len(&self) -> usize {
        self.decoder.max_frame_len()
    }

    /// [`with_max_frame_len`](Self::with_max_frame_len), in place.
    pub(crate) fn set_max_frame_len(&mut self, max: usize) {
        self.decoder.set_max_frame_len(max);
    }

    /// One step of the slice loop for a reader that keeps its input and position itself
    /// (`BytesFrames`): the range of the payload of the frame at `input[*pos..]`, stepping
    /// `pos` past it; `None` at the end, or after a framing error, which sets `failed` and
    /// leaves `pos` on the frame that failed. The outcomes are those of the iterator.
    #[cfg(feature = "bytes")]
    #[inline(always)]
    pub(crate) fn step_in(
        &self,
        input: &[u8],
        pos: &mut usize,
        failed: &mut bool,
    ) -> Option<Result<core::ops::Range<usize>>> {
        if *failed {
            return None;
        }
        let offset = *pos as u64;
        match self.decoder.decode_at(&input[*pos..], || offset) {
            Ok(frame) => {
                let payload = frame.span().payload_range();
                let start = *pos;
                *pos += frame.len();
                Some(Ok(start + payload.start..start + payload.end))
            }
            Err(other) => {
                let (step, error) = other.in_whole_input(offset);
                match step {
                    Step::Past(len) => *pos += len,
                    Step::Stop => *failed = true,
                    Step::End => {}
                }
                error.map(Err)
            }
        }
    }

    /// Undoes the fusing after a framing error: the next item is the failed frame's again.
    #[inline(always)]
    pub(crate) fn retry(&mut self) {
        if let Some(failed) = self.failed.take() {
            self.rest = failed;
        }
    }
}

impl<'a, D: Deframer> Iterator for Frames<'a, D> {
    type Item = Result<&'a [u8]>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let offset = || (self.len - self.rest.len()) as u64;
        match self.decoder.decode_at(self.rest, offset) {
            Ok(frame) => {
                self.rest = &self.rest[frame.len()..];
                Some(Ok(frame.payload()))
            }
            Err(other) => {
                let (step, error) = other.in_whole_input(offset());
                match step {
                    Step::Past(len) => self.rest = &self.rest[len..],
                    Step::Stop => self.failed = Some(core::mem::take(&mut self.rest)),
                    Step::End => {}
                }
                error.map(Err)
            }
        }
    }
}

crate::read::message_reader_from_iterator!(Frames);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Error;
    use crate::wire::framing::DefaultDeframer;

    #[test]
    fn yields_each_payload_then_none() {
        let bytes = [1, 0, 0, 0, 7, 0, 0, 0, 0, 2, 0, 0, 0, 8, 9];
        let mut it = Frames::new(&bytes, DefaultDeframer);
        assert_eq!(it.next().unwrap().unwrap(), [7]);
        assert_eq!(it.next().unwrap().unwrap(), [] as [u8; 0]);
        assert_eq!(it.position(), 9);
        assert_eq!(it.next().unwrap().unwrap(), [8, 9]);
        assert!(it.next().is_none());
        assert!(it.next().is_none());
        assert_eq!(it.position(), bytes.len() as u64);
    }

    #[test]
    fn truncated_tail_is_an_error_then_the_iterator_is_fused() {
        let bytes = [1, 0, 0, 0, 7, 5, 0, 0, 0, 1, 2];
        let mut it = Frames::new(&bytes, DefaultDeframer);
        assert_eq!(it.next().unwrap().unwrap(), [7]);
        let err = it.next().unwrap().unwrap_err();
        assert!(matches!(
            err,
            Error::UnexpectedEof {
                offset: 5,
                needed: 9,
                present: 6
            }
        ));
        assert!(it.next().is_none());
        assert_eq!(it.position(), 5);
        assert_eq!(it.remainder(), &bytes[5..]);
    }

    #[test]
    fn a_length_over_the_bound_is_an_error() {
        let bytes = [9, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 9];
        let mut it = Frames::new(&bytes, DefaultDeframer).with_max_frame_len(8);
        assert!(matches!(
            it.next().unwrap().unwrap_err(),
            Error::FrameTooLarge {
                offset: 0,
                len: 9,
                max: 8
            }
        ));
        assert!(it.next().is_none());
    }
}
