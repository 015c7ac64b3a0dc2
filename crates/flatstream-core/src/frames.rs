//! `Frames`: a zero-copy iterator over the frames of a byte slice. Works without `std`.

use crate::error::{Error, Result};
use crate::frame::{DEFAULT_MAX_FRAME_LEN, LEN_PREFIX_SIZE, Parsed, complete_frame, parse_header};
use crate::framer::Deframer;

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
/// ```
/// use flatstream_core::{DefaultDeframer, Frames};
///
/// let bytes = [2, 0, 0, 0, b'h', b'i', 0, 0, 0, 0];
/// let payloads: Vec<&[u8]> = Frames::new(&bytes, DefaultDeframer).collect::<Result<_, _>>()?;
/// assert_eq!(payloads, [&b"hi"[..], &b""[..]]);
/// # Ok::<(), flatstream_core::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct Frames<'a, D> {
    /// The bytes from the next frame on. After a framing error, empty.
    rest: &'a [u8],
    /// The bytes from the failed frame on, after a framing error.
    failed: Option<&'a [u8]>,
    /// Length of the whole input.
    len: usize,
    deframer: D,
    max_frame_len: usize,
}

impl<'a, D: Deframer> Frames<'a, D> {
    /// Iterates over the frames in `bytes`, read with `deframer`.
    pub fn new(bytes: &'a [u8], deframer: D) -> Self {
        Frames {
            rest: bytes,
            failed: None,
            len: bytes.len(),
            deframer,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
        }
    }

    /// Sets the largest payload accepted (default [`DEFAULT_MAX_FRAME_LEN`]).
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// Bytes consumed so far: the offset of the next frame, or of the frame that failed.
    pub fn position(&self) -> usize {
        self.len - self.remainder().len()
    }

    /// The bytes not yet consumed, starting with the next frame (or the frame that failed).
    pub fn remainder(&self) -> &'a [u8] {
        self.failed.unwrap_or(self.rest)
    }

    /// Everything but a complete frame within the bound: the end, and framing errors.
    #[cold]
    fn advance_slow(&mut self) -> Option<Result<&'a [u8]>> {
        if self.rest.is_empty() {
            return None;
        }
        let offset = (self.len - self.rest.len()) as u64;
        let error = match parse_header(&self.deframer, self.rest, self.max_frame_len, offset) {
            Ok(Parsed::Incomplete { needed }) => Error::eof(offset, needed, self.rest.len()),
            Err(e) => e,
            // Only if the deframer's bound changed between two calls: go round again.
            Ok(Parsed::Frame(_)) => return self.next(),
        };
        Some(Err(self.fail(error)))
    }

    /// Stops the iteration at the current frame.
    #[cold]
    fn fail(&mut self, error: Error) -> Error {
        self.failed = Some(self.rest);
        self.rest = &[];
        error
    }

    /// A complete frame failed verification.
    #[cold]
    fn rejected(&mut self, error: Error, next: &'a [u8]) -> Option<Result<&'a [u8]>> {
        if error.is_content_error() {
            self.rest = next;
            Some(Err(error))
        } else {
            Some(Err(self.fail(error)))
        }
    }
}

impl<'a, D: Deframer> Iterator for Frames<'a, D> {
    type Item = Result<&'a [u8]>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        let max = self.max_frame_len.min(self.deframer.max_payload_len());
        let Some(span) = complete_frame(self.rest, self.deframer.checksum_size(), max) else {
            return self.advance_slow();
        };
        let (header, rest) = self.rest.split_at(span.header_len);
        let (payload, next) = rest.split_at(span.payload_len);
        let offset = (self.len - self.rest.len()) as u64;
        match self
            .deframer
            .verify(&header[LEN_PREFIX_SIZE..], payload, offset)
        {
            Ok(()) => {
                self.rest = next;
                Some(Ok(payload))
            }
            Err(e) => self.rejected(e, next),
        }
    }
}

impl<D: Deframer> core::iter::FusedIterator for Frames<'_, D> {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::DefaultDeframer;

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
        assert_eq!(it.position(), bytes.len());
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
