//! `Framer` and `Deframer`: the strategies that turn payloads into frames and back.
//!
//! A framer encodes a frame's header for a payload; the writer puts header and payload on the
//! wire without copying the payload. A deframer says how wide a frame's checksum is, how large a
//! payload it accepts, and verifies a complete frame; the reader and the slice iterator do the
//! parsing and buffering themselves, in one place, so every deframer gets the same bounds
//! checks. Adapters (bounds, observers, validators) wrap a framer or deframer and delegate to it.

use crate::checksum::{Checksum, NoChecksum};
use crate::error::{Error, Result};
use crate::frame::{FrameHeader, read_checksum, truncate_checksum};

/// Encodes frames: given a payload, produces the header that goes before it.
pub trait Framer {
    /// Returns the header for a frame carrying `payload`.
    ///
    /// `offset` is where the frame will start in the stream; errors use it. An error means
    /// nothing of this frame is written.
    fn header(&self, payload: &[u8], offset: u64) -> Result<FrameHeader>;

    /// [`header`](Self::header), for a payload of at most `max` bytes (at most `u32::MAX`):
    /// a longer one is refused with [`Error::FrameTooLarge`] before the framer sees it. The
    /// check every writer makes before it writes a frame.
    #[inline(always)]
    fn header_within(&self, payload: &[u8], offset: u64, max: usize) -> Result<FrameHeader> {
        if payload.len() > max {
            return Err(Error::too_large(offset, payload.len(), max));
        }
        self.header(payload, offset)
    }
}

/// Decodes frames: the checksum width, the largest acceptable payload, and verification.
pub trait Deframer {
    /// Width of the checksum field that follows the length prefix, in bytes (0 to 8).
    fn checksum_size(&self) -> usize;

    /// The largest payload this deframer accepts. Readers compare the declared length with it
    /// (and with their own bound) before allocating anything for the frame. A `StreamReader`
    /// reads it once, when it is created or given a bound.
    #[inline]
    fn max_payload_len(&self) -> usize {
        usize::MAX
    }

    /// Verifies a complete frame: `checksum` is the header's checksum field (of
    /// [`checksum_size`](Deframer::checksum_size) bytes) and `payload` the payload.
    ///
    /// The payload is handed to the user only if this returns `Ok`.
    fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()>;
}

// Forwarding through a reference or a box must cost nothing: `#[inline]` alone left
// `<&T as Deframer>::verify`, with the whole checksum inlined into it, a call in the parallel
// reader's loop (callgrind).
macro_rules! forward_framing {
    ($($ptr:ty),*) => {$(
        impl<T: Framer + ?Sized> Framer for $ptr {
            #[inline(always)]
            fn header(&self, payload: &[u8], offset: u64) -> Result<FrameHeader> {
                (**self).header(payload, offset)
            }
        }

        impl<T: Deframer + ?Sized> Deframer for $ptr {
            #[inline(always)]
            fn checksum_size(&self) -> usize {
                (**self).checksum_size()
            }
            #[inline(always)]
            fn max_payload_len(&self) -> usize {
                (**self).max_payload_len()
            }
            #[inline(always)]
            fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()> {
                (**self).verify(checksum, payload, offset)
            }
        }
    )*};
}
forward_framing!(&T, alloc::boxed::Box<T>);

/// The plain format: a 4-byte little-endian length, then the payload.
///
/// ```text
/// [len: u32 LE][payload]
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DefaultFramer;

/// Reads the plain format written by [`DefaultFramer`].
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct DefaultDeframer;

impl Framer for DefaultFramer {
    #[inline]
    fn header(&self, payload: &[u8], offset: u64) -> Result<FrameHeader> {
        FrameHeader::new(payload.len(), 0, 0, offset)
    }
}

impl Deframer for DefaultDeframer {
    #[inline(always)]
    fn checksum_size(&self) -> usize {
        0
    }
    #[inline(always)]
    fn verify(&self, _checksum: &[u8], _payload: &[u8], _offset: u64) -> Result<()> {
        Ok(())
    }
}

/// The checksummed format: a 4-byte little-endian length, the payload's checksum in
/// `C::size()` bytes, little-endian, then the payload.
///
/// ```text
/// [len: u32 LE][checksum: C::size() bytes LE][payload]
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ChecksumFramer<C = NoChecksum> {
    checksum: C,
}

/// Reads and verifies the format written by [`ChecksumFramer`] with the same algorithm.
///
/// A frame whose stored checksum differs from the checksum of its payload is reported as
/// [`Error::ChecksumMismatch`]; its payload is never handed out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ChecksumDeframer<C = NoChecksum> {
    checksum: C,
}

impl<C: Checksum> ChecksumFramer<C> {
    /// A framer that protects each payload with `checksum`.
    pub const fn new(checksum: C) -> Self {
        ChecksumFramer { checksum }
    }

    /// The checksum algorithm in use.
    pub fn checksum(&self) -> &C {
        &self.checksum
    }
}

impl<C: Checksum> ChecksumDeframer<C> {
    /// A deframer that verifies each payload against `checksum`.
    pub const fn new(checksum: C) -> Self {
        ChecksumDeframer { checksum }
    }

    /// The checksum algorithm in use.
    pub fn checksum(&self) -> &C {
        &self.checksum
    }
}

impl<C: Checksum> Framer for ChecksumFramer<C> {
    #[inline]
    fn header(&self, payload: &[u8], offset: u64) -> Result<FrameHeader> {
        let size = self.checksum.size();
        let sum = truncate_checksum(self.checksum.calculate(payload), size);
        FrameHeader::new(payload.len(), sum, size, offset)
    }
}

impl<C: Checksum> Deframer for ChecksumDeframer<C> {
    #[inline]
    fn checksum_size(&self) -> usize {
        self.checksum.size()
    }

    #[inline(always)]
    fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()> {
        let expected = read_checksum(checksum);
        let actual = truncate_checksum(self.checksum.calculate(payload), checksum.len());
        if expected == actual {
            Ok(())
        } else {
            Err(mismatch(offset, expected, actual))
        }
    }
}

#[cold]
#[inline(never)]
fn mismatch(offset: u64, expected: u64, actual: u64) -> Error {
    Error::ChecksumMismatch {
        offset,
        expected,
        actual,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Sum16;

    #[test]
    fn default_framer_header_is_the_length_alone() {
        let h = DefaultFramer.header(b"abc", 0).unwrap();
        assert_eq!(h.as_bytes(), [3, 0, 0, 0]);
    }

    #[test]
    fn no_checksum_framer_matches_default_framer() {
        let a = ChecksumFramer::new(NoChecksum).header(b"hello", 0).unwrap();
        let b = DefaultFramer.header(b"hello", 0).unwrap();
        assert_eq!(a, b);
    }

    #[test]
    fn checksum_framer_stores_the_truncated_checksum_and_deframer_verifies_it() {
        let h = ChecksumFramer::new(Sum16).header(&[1, 2, 3], 0).unwrap();
        assert_eq!(h.as_bytes(), [3, 0, 0, 0, 6, 0]);
        let d = ChecksumDeframer::new(Sum16);
        assert_eq!(d.checksum_size(), 2);
        d.verify(&[6, 0], &[1, 2, 3], 0).unwrap();
        let err = d.verify(&[6, 0], &[1, 2, 4], 17).unwrap_err();
        assert!(matches!(
            err,
            Error::ChecksumMismatch {
                offset: 17,
                expected: 6,
                actual: 7
            }
        ));
    }

    #[test]
    fn references_and_boxes_frame_like_their_target() {
        let boxed: alloc::boxed::Box<dyn Deframer> =
            alloc::boxed::Box::new(ChecksumDeframer::new(Sum16));
        assert_eq!(boxed.checksum_size(), 2);
        let framer = &DefaultFramer;
        assert_eq!(framer.header(b"x", 0).unwrap().as_bytes(), [1, 0, 0, 0]);
    }
}
