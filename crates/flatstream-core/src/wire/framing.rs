//! `Framer` and `Deframer`: the strategies that turn payloads into frames and back.
//!
//! A framer encodes a frame's header for a payload; the writer puts header and payload on the
//! wire without copying the payload. A deframer says how wide a frame's checksum is, how large a
//! payload it accepts, and verifies a complete frame; parsing headers and checking bounds is
//! done once, by the sans-I/O [`decode`](crate::decode) module every reader drives, so every
//! deframer gets the same bounds checks. Adapters (bounds, observers, validators) wrap a framer
//! or deframer and delegate to it.
//!
//! With `std`, [`Framer::frame_and_write`] and [`Deframer::read_and_deframe`] write or read one
//! frame on their own, as FlatStream 0.2.x's traits did.

use crate::error::{Error, Result};
use crate::wire::checksum::{Checksum, NoChecksum};
use crate::wire::frame::{FrameHeader, read_checksum, truncate_checksum};

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

    /// Writes the frame of `payload` (header, then payload) to `writer`: FlatStream 0.2.x's
    /// method, for one frame at a time. Errors carry offset 0, the frame's own start: the
    /// position in `writer` is not known here. A [`StreamWriter`](crate::StreamWriter) keeps
    /// the offsets, and writes header and payload in one call where the sink allows.
    ///
    /// A payload longer than `u32::MAX` bytes is [`Error::FrameTooLarge`] and nothing is
    /// written; an I/O error may leave part of the frame written.
    ///
    /// ```
    /// use flatstream::{DefaultFramer, Framer};
    ///
    /// let mut out = Vec::new();
    /// DefaultFramer.frame_and_write(&mut out, b"abc")?;
    /// assert_eq!(out, b"\x03\x00\x00\x00abc");
    /// # Ok::<(), flatstream::Error>(())
    /// ```
    #[cfg(feature = "std")]
    fn frame_and_write<W: std::io::Write + ?Sized>(
        &self,
        writer: &mut W,
        payload: &[u8],
    ) -> Result<()>
    where
        Self: Sized,
    {
        let header = self.header_within(payload, 0, u32::MAX as usize)?;
        writer
            .write_all(header.as_bytes())
            .and_then(|()| writer.write_all(payload))
            .map_err(|e| Error::io(e, 0))
    }
}

/// Decodes frames: the checksum width, the largest acceptable payload, and verification.
pub trait Deframer {
    /// Width of the checksum field that follows the length prefix, in bytes (0 to 8).
    fn checksum_size(&self) -> usize;

    /// The largest payload this deframer accepts. Readers compare the declared length with it
    /// (and with their own bound) before allocating anything for the frame. The decoder asks
    /// for it at every frame, so it should be cheap: a constant or a field.
    #[inline]
    fn max_payload_len(&self) -> usize {
        usize::MAX
    }

    /// Verifies a complete frame: `checksum` is the header's checksum field (of
    /// [`checksum_size`](Deframer::checksum_size) bytes) and `payload` the payload.
    ///
    /// The payload is handed to the user only if this returns `Ok`.
    fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()>;

    /// Reads one frame from `reader` into `buffer`, verifies it, and returns the payload's
    /// length: the payload is `buffer[..len]` (`buffer` is cleared first). `Ok(None)` if the
    /// reader is at its end before the frame's first byte. FlatStream 0.2.x's method, for one
    /// frame at a time; a [`StreamReader`](crate::StreamReader) reads a stream faster, in
    /// place where it can.
    ///
    /// The declared length is checked against [`max_payload_len`](Self::max_payload_len) and
    /// the default bound ([`DEFAULT_MAX_FRAME_LEN`](crate::wire::frame::DEFAULT_MAX_FRAME_LEN))
    /// before anything is read for the payload, and `buffer` grows with the bytes received,
    /// not with what the header claims. Errors carry offset 0, the frame's own start: the
    /// position in `reader` is not known here. A frame cut short is
    /// [`Error::UnexpectedEof`]; after any error the reader is inside or past the frame.
    ///
    /// ```
    /// use flatstream::{DefaultDeframer, DefaultFramer, Deframer, Framer};
    ///
    /// let mut wire = Vec::new();
    /// DefaultFramer.frame_and_write(&mut wire, b"abc")?;
    /// let (mut src, mut buf) = (&wire[..], Vec::new());
    /// assert_eq!(DefaultDeframer.read_and_deframe(&mut src, &mut buf)?, Some(3));
    /// assert_eq!(buf, b"abc");
    /// assert_eq!(DefaultDeframer.read_and_deframe(&mut src, &mut buf)?, None);
    /// # Ok::<(), flatstream::Error>(())
    /// ```
    #[cfg(feature = "std")]
    fn read_and_deframe<R: std::io::Read + ?Sized>(
        &self,
        reader: &mut R,
        buffer: &mut alloc::vec::Vec<u8>,
    ) -> Result<Option<usize>>
    where
        Self: Sized,
    {
        read_one_frame(self, reader, buffer)
    }
}

/// [`Deframer::read_and_deframe`], out of the trait so that it is compiled once per deframer
/// and reader rather than inlined into callers.
#[cfg(feature = "std")]
fn read_one_frame<D: Deframer, R: std::io::Read + ?Sized>(
    deframer: &D,
    reader: &mut R,
    buffer: &mut alloc::vec::Vec<u8>,
) -> Result<Option<usize>> {
    use crate::wire::frame::{
        DEFAULT_MAX_FRAME_LEN, LEN_PREFIX_SIZE, MAX_CHECKSUM_SIZE, MAX_HEADER_SIZE, header_len,
    };
    use std::io::{ErrorKind, Read};

    let header_size = header_len(deframer.checksum_size().min(MAX_CHECKSUM_SIZE));
    let mut header = [0u8; MAX_HEADER_SIZE];
    let header = &mut header[..header_size];
    let mut present = 0;
    while present < header_size {
        match reader.read(&mut header[present..]) {
            Ok(0) if present == 0 => return Ok(None),
            Ok(0) => return Err(Error::eof(0, header_size, present)),
            Ok(n) => present += n,
            Err(e) if e.kind() == ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(e, 0)),
        }
    }
    let (len, checksum) = header.split_at(LEN_PREFIX_SIZE);
    let len = u32::from_le_bytes([len[0], len[1], len[2], len[3]]) as usize;
    let max = deframer.max_payload_len().min(DEFAULT_MAX_FRAME_LEN);
    if len > max {
        return Err(Error::too_large(0, len, max));
    }
    buffer.clear();
    let got = reader
        .take(len as u64)
        .read_to_end(buffer)
        .map_err(|e| Error::io(e, 0))?;
    if got < len {
        return Err(Error::eof(0, header_size + len, header_size + got));
    }
    deframer.verify(checksum, buffer, 0)?;
    Ok(Some(len))
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

impl DefaultFramer {
    /// Returns `DefaultFramer` (as FlatStream 0.2.x spelled it; the unit value is the same).
    pub const fn new() -> Self {
        DefaultFramer
    }
}

impl DefaultDeframer {
    /// Returns `DefaultDeframer` (as FlatStream 0.2.x spelled it; the unit value is the same).
    pub const fn new() -> Self {
        DefaultDeframer
    }
}

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

    /// A checksum that gives its width as the constant, as 0.2.x's trait required.
    struct Sum24;

    impl Checksum for Sum24 {
        const SIZE: usize = 3;
        fn calculate(&self, payload: &[u8]) -> u64 {
            payload.iter().map(|&b| u64::from(b)).sum()
        }
    }

    #[test]
    fn a_width_given_as_the_constant_is_the_width_on_the_wire() {
        assert_eq!(Sum24.size(), 3);
        assert_eq!(
            <&Sum24 as Checksum>::SIZE,
            3,
            "a reference forwards the constant"
        );
        let h = ChecksumFramer::new(Sum24).header(&[1, 2], 0).unwrap();
        assert_eq!(h.as_bytes(), [2, 0, 0, 0, 3, 0, 0]);
        assert_eq!(ChecksumDeframer::new(Sum24).checksum_size(), 3);
    }

    #[cfg(feature = "std")]
    #[test]
    fn one_frame_at_a_time_written_and_read_back() {
        let mut wire = alloc::vec::Vec::new();
        let framer = ChecksumFramer::new(Sum16);
        framer.frame_and_write(&mut wire, b"abc").unwrap();
        framer.frame_and_write(&mut wire, b"").unwrap();
        assert_eq!(&wire[..6], [3, 0, 0, 0, 0x26, 0x01]);
        let deframer = ChecksumDeframer::new(Sum16);
        let (mut src, mut buf) = (&wire[..], alloc::vec![9u8; 50]);
        assert_eq!(
            deframer.read_and_deframe(&mut src, &mut buf).unwrap(),
            Some(3)
        );
        assert_eq!(buf, b"abc");
        assert_eq!(
            deframer.read_and_deframe(&mut src, &mut buf).unwrap(),
            Some(0)
        );
        assert_eq!(deframer.read_and_deframe(&mut src, &mut buf).unwrap(), None);
    }

    #[cfg(feature = "std")]
    #[test]
    fn one_frame_at_a_time_reports_bad_input_as_typed_errors() {
        let mut wire = alloc::vec::Vec::new();
        ChecksumFramer::new(Sum16)
            .frame_and_write(&mut wire, b"abcdef")
            .unwrap();
        let d = ChecksumDeframer::new(Sum16);
        let mut buf = alloc::vec::Vec::new();
        // Cut inside the header, then inside the payload.
        let err = d.read_and_deframe(&mut &wire[..3], &mut buf).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stream ended inside the frame at offset 0: needed 6 bytes, 3 present"
        );
        let err = d.read_and_deframe(&mut &wire[..9], &mut buf).unwrap_err();
        assert!(
            matches!(
                err,
                Error::UnexpectedEof {
                    offset: 0,
                    needed: 12,
                    present: 9
                }
            ),
            "{err}"
        );
        // A flipped payload bit.
        let mut bad = wire.clone();
        bad[7] ^= 1;
        let err = d.read_and_deframe(&mut &bad[..], &mut buf).unwrap_err();
        assert_eq!(err.kind(), crate::ErrorKind::ChecksumMismatch);
        // A header claiming 4 GiB - 1 followed by ten bytes: refused by the bound (2 GiB)
        // before anything is reserved for the payload.
        let mut buf = alloc::vec::Vec::new();
        // A header claiming `len`, then ten zero bytes, read without a checksum.
        let claim = |len: u32, buf: &mut alloc::vec::Vec<u8>| {
            let mut bytes = alloc::vec::Vec::from(len.to_le_bytes());
            bytes.extend_from_slice(&[0; 10]);
            DefaultDeframer
                .read_and_deframe(&mut &bytes[..], buf)
                .unwrap_err()
        };
        let err = claim(u32::MAX, &mut buf);
        assert!(
            matches!(err, Error::FrameTooLarge { offset: 0, .. }),
            "{err}"
        );
        assert_eq!(buf.capacity(), 0);
        // Within the bound, a claim the stream does not back grows the buffer with the bytes
        // received only.
        let short = claim(1_000_000, &mut buf);
        assert!(
            matches!(short, Error::UnexpectedEof { present: 14, .. }),
            "{short}"
        );
        assert!(buf.capacity() < 1_000, "{}", buf.capacity());
    }
}
