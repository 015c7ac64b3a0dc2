//! The wire format: how one frame is laid out, and how a header is encoded and parsed.
//!
//! ```text
//! offset 0        4                4 + C              4 + C + len
//!        +--------+----------------+------------------+
//!        | len    | checksum       | payload          |
//!        | u32 LE | C bytes, LE    | len bytes        |
//!        +--------+----------------+------------------+
//! ```
//!
//! `C`, the checksum width, is 0, 2, 4 or 8 and is fixed for a whole stream by the framer in use;
//! it is not recorded in the stream. Frames follow each other with nothing in between.

use crate::error::{Error, Result};
use crate::framer::Deframer;

/// Size of the length prefix that starts every frame.
pub const LEN_PREFIX_SIZE: usize = 4;

/// The widest checksum a frame can carry, in bytes.
pub const MAX_CHECKSUM_SIZE: usize = 8;

/// The longest header a frame can have: the length prefix and the widest checksum.
pub const MAX_HEADER_SIZE: usize = LEN_PREFIX_SIZE + MAX_CHECKSUM_SIZE;

/// The default bound on a frame's payload length: the largest buffer FlatBuffers can build
/// (2 GiB), which is also FlatStream 0.2.x's bound.
///
/// Readers of untrusted input should set a bound that fits their messages; see
/// `StreamReader::with_max_frame_len`.
pub const DEFAULT_MAX_FRAME_LEN: usize = flatbuffers::FLATBUFFERS_MAX_BUFFER_SIZE;

/// The encoded header of one frame: the length prefix followed by the checksum field.
///
/// Framers return it by value; it lives on the stack and is written to the sink ahead of the
/// payload, which is never copied.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct FrameHeader {
    bytes: [u8; MAX_HEADER_SIZE],
    len: u8,
}

impl FrameHeader {
    /// Encodes a header for a payload of `payload_len` bytes whose checksum is `checksum`,
    /// stored in the low `checksum_size` bytes, little-endian.
    ///
    /// Fails with [`Error::FrameTooLarge`] (at `offset`) if the length does not fit the `u32`
    /// prefix.
    ///
    /// # Panics
    ///
    /// If `checksum_size` is more than [`MAX_CHECKSUM_SIZE`]: that is a bug in the checksum,
    /// not bad input.
    #[inline]
    pub fn new(
        payload_len: usize,
        checksum: u64,
        checksum_size: usize,
        offset: u64,
    ) -> Result<Self> {
        let Ok(len) = u32::try_from(payload_len) else {
            return Err(Error::too_large(offset, payload_len, u32::MAX as usize));
        };
        assert!(
            checksum_size <= MAX_CHECKSUM_SIZE,
            "checksum wider than 8 bytes"
        );
        // Built from two integers, so that the header is stored with two writes as wide as the
        // reads that follow (byte-wise stores read back as one word stall store forwarding).
        let checksum = truncate_checksum(checksum, checksum_size);
        let low = u64::from(len) | (checksum << 32);
        // The checksum's high half: the shift leaves at most 32 bits.
        #[allow(clippy::cast_possible_truncation)]
        let high = (checksum >> 32) as u32;
        let mut bytes = [0u8; MAX_HEADER_SIZE];
        bytes[..8].copy_from_slice(&low.to_le_bytes());
        bytes[8..].copy_from_slice(&high.to_le_bytes());
        Ok(FrameHeader {
            bytes,
            // At most 12, asserted above.
            #[allow(clippy::cast_possible_truncation)]
            len: (LEN_PREFIX_SIZE + checksum_size) as u8,
        })
    }

    /// The header's bytes, exactly as they go on the wire.
    #[inline]
    pub fn as_bytes(&self) -> &[u8] {
        &self.bytes[..usize::from(self.len)]
    }

    /// The payload length the header declares.
    #[inline]
    pub fn payload_len(&self) -> u32 {
        u32::from_le_bytes([self.bytes[0], self.bytes[1], self.bytes[2], self.bytes[3]])
    }

    /// The checksum field, widened to `u64` (0 for frames without a checksum).
    #[inline]
    pub fn checksum(&self) -> u64 {
        read_checksum(&self.as_bytes()[LEN_PREFIX_SIZE..])
    }
}

impl core::fmt::Debug for FrameHeader {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("FrameHeader")
            .field("payload_len", &self.payload_len())
            .field("checksum_size", &(usize::from(self.len) - LEN_PREFIX_SIZE))
            .field("checksum", &format_args!("{:#x}", self.checksum()))
            .finish()
    }
}

/// Reads a little-endian checksum field of 0 to 8 bytes, widened to `u64`.
///
/// Bytes past the eighth are ignored.
#[inline]
pub fn read_checksum(field: &[u8]) -> u64 {
    // The widths in use get fixed-size loads; a width only known at run time would otherwise
    // cost a call to `memcpy` per frame.
    match *field {
        [] => 0,
        [a, b] => u64::from(u16::from_le_bytes([a, b])),
        [a, b, c, d] => u64::from(u32::from_le_bytes([a, b, c, d])),
        [a, b, c, d, e, f, g, h, ..] => u64::from_le_bytes([a, b, c, d, e, f, g, h]),
        _ => {
            let mut bytes = [0u8; 8];
            bytes[..field.len()].copy_from_slice(field);
            u64::from_le_bytes(bytes)
        }
    }
}

/// Keeps the low `size` bytes of a checksum value: what a `size`-byte field can hold.
#[inline]
pub fn truncate_checksum(value: u64, size: usize) -> u64 {
    if size >= 8 {
        value
    } else {
        value & ((1u64 << (8 * size)) - 1)
    }
}

/// Where a complete frame lies, relative to the start of the bytes it was parsed from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSpan {
    /// Length of the header: the length prefix and the checksum field.
    pub header_len: usize,
    /// Length of the payload.
    pub payload_len: usize,
}

impl FrameSpan {
    /// Length of the whole frame.
    #[inline]
    pub fn frame_len(&self) -> usize {
        self.header_len + self.payload_len
    }
}

/// What [`parse_header`] found at the start of a buffer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parsed {
    /// A whole frame is present (it has not been verified yet).
    Frame(FrameSpan),
    /// The frame is not all there: it needs `needed` bytes in all, counted from its first byte.
    /// Before the length prefix is complete this is the header length.
    Incomplete {
        /// Bytes needed for the whole frame, or for its header while the length is unknown.
        needed: usize,
    },
}

/// The hot path of every reader: the span of a complete frame at the start of `buf` whose
/// declared length is at most `max`, or `None` for anything else (an incomplete frame, a length
/// over the bound), which [`parse_header`] then sorts out.
#[inline(always)]
pub(crate) fn complete_frame(buf: &[u8], checksum_size: usize, max: usize) -> Option<FrameSpan> {
    let (prefix, _) = buf.split_first_chunk::<LEN_PREFIX_SIZE>()?;
    let payload_len = u32::from_le_bytes(*prefix) as usize;
    let header_len = LEN_PREFIX_SIZE + checksum_size;
    let fits =
        payload_len <= max && buf.len() >= header_len && buf.len() - header_len >= payload_len;
    fits.then_some(FrameSpan {
        header_len,
        payload_len,
    })
}

/// Verifies the frame `span` at the start of `bytes`. (`Frames` splits its frames in a form
/// of its own, which measured faster there.)
#[cfg(feature = "std")]
#[inline(always)]
pub(crate) fn verify_frame<D: Deframer>(
    deframer: &D,
    bytes: &[u8],
    span: FrameSpan,
    offset: u64,
) -> Result<()> {
    let (header, tail) = bytes.split_at(span.header_len);
    deframer.verify(
        &header[LEN_PREFIX_SIZE..],
        &tail[..span.payload_len],
        offset,
    )
}

/// Parses the frame at the start of `buf` without verifying its checksum.
///
/// As soon as the length prefix is present, a declared length over `max` (or over the
/// deframer's own [`Deframer::max_payload_len`]) is rejected with [`Error::FrameTooLarge`] at
/// `offset`: nothing has been allocated for it, and nothing will be.
#[inline]
pub fn parse_header<D: Deframer + ?Sized>(
    deframer: &D,
    buf: &[u8],
    max: usize,
    offset: u64,
) -> Result<Parsed> {
    let header_len = LEN_PREFIX_SIZE + deframer.checksum_size();
    let Some(prefix) = buf.first_chunk::<LEN_PREFIX_SIZE>() else {
        return Ok(Parsed::Incomplete { needed: header_len });
    };
    let payload_len = u32::from_le_bytes(*prefix) as usize;
    let max = max.min(deframer.max_payload_len());
    if payload_len > max {
        return Err(Error::too_large(offset, payload_len, max));
    }
    // `payload_len <= max <= usize::MAX`, but the header could still overflow on 16/32-bit.
    let Some(needed) = header_len.checked_add(payload_len) else {
        return Err(Error::too_large(
            offset,
            payload_len,
            usize::MAX - header_len,
        ));
    };
    if buf.len() < needed {
        return Ok(Parsed::Incomplete { needed });
    }
    Ok(Parsed::Frame(FrameSpan {
        header_len,
        payload_len,
    }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::DefaultDeframer;

    #[test]
    fn header_layout_is_le_length_then_le_checksum() {
        let h = FrameHeader::new(0x0102_0304, 0x1122_3344_5566_7788, 8, 0).unwrap();
        assert_eq!(
            h.as_bytes(),
            [
                0x04, 0x03, 0x02, 0x01, 0x88, 0x77, 0x66, 0x55, 0x44, 0x33, 0x22, 0x11
            ]
        );
        let h = FrameHeader::new(5, 0xABCD, 2, 0).unwrap();
        assert_eq!(h.as_bytes(), [5, 0, 0, 0, 0xCD, 0xAB]);
        assert_eq!(h.payload_len(), 5);
        assert_eq!(h.checksum(), 0xABCD);
        let h = FrameHeader::new(7, 0, 0, 0).unwrap();
        assert_eq!(h.as_bytes(), [7, 0, 0, 0]);
    }

    #[test]
    fn header_rejects_lengths_over_u32() {
        #[cfg(target_pointer_width = "64")]
        {
            let err = FrameHeader::new(u32::MAX as usize + 1, 0, 0, 9).unwrap_err();
            assert!(matches!(
                err,
                Error::FrameTooLarge {
                    offset: 9,
                    len: 4_294_967_296,
                    max: 4_294_967_295
                }
            ));
        }
        assert!(FrameHeader::new(u32::MAX as usize, 0, 0, 0).is_ok());
    }

    #[test]
    fn checksum_helpers() {
        assert_eq!(read_checksum(&[]), 0);
        assert_eq!(read_checksum(&[0x34, 0x12]), 0x1234);
        assert_eq!(read_checksum(&[1, 2, 3]), 0x03_0201);
        assert_eq!(read_checksum(&[4, 3, 2, 1]), 0x0102_0304);
        assert_eq!(
            read_checksum(&[1, 0, 0, 0, 0, 0, 0, 0x80, 0xFF]),
            0x8000_0000_0000_0001
        );
        assert_eq!(truncate_checksum(0x1234_5678, 2), 0x5678);
        assert_eq!(truncate_checksum(u64::MAX, 8), u64::MAX);
        assert_eq!(truncate_checksum(u64::MAX, 0), 0);
    }

    #[test]
    fn parse_reports_what_is_missing() {
        let d = DefaultDeframer;
        assert_eq!(
            parse_header(&d, &[], 100, 0).unwrap(),
            Parsed::Incomplete { needed: 4 }
        );
        assert_eq!(
            parse_header(&d, &[3, 0], 100, 0).unwrap(),
            Parsed::Incomplete { needed: 4 }
        );
        assert_eq!(
            parse_header(&d, &[3, 0, 0, 0, 1], 100, 0).unwrap(),
            Parsed::Incomplete { needed: 7 }
        );
        assert_eq!(
            parse_header(&d, &[3, 0, 0, 0, 1, 2, 3, 4], 100, 0).unwrap(),
            Parsed::Frame(FrameSpan {
                header_len: 4,
                payload_len: 3
            })
        );
    }

    #[test]
    fn parse_rejects_a_length_over_the_bound_from_the_prefix_alone() {
        let err = parse_header(&DefaultDeframer, &[0xFF; 4], 1024, 40).unwrap_err();
        assert!(matches!(
            err,
            Error::FrameTooLarge {
                offset: 40,
                len: 0xFFFF_FFFF,
                max: 1024
            }
        ));
        let err = parse_header(&DefaultDeframer, &[101, 0, 0, 0], 100, 0).unwrap_err();
        assert!(matches!(
            err,
            Error::FrameTooLarge {
                len: 101,
                max: 100,
                ..
            }
        ));
        assert!(parse_header(&DefaultDeframer, &[100, 0, 0, 0], 100, 0).is_ok());
    }
}
