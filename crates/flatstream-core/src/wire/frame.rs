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
//!
//! This module is the layout alone: sizes, and how a header is encoded. Deciding what the bytes
//! at the front of a buffer are (a frame, a frame cut short, a length over the bound) is the
//! decoder's job, in [`decode`](crate::decode).

use crate::error::{Error, Result};

/// Size of the length prefix that starts every frame.
pub const LEN_PREFIX_SIZE: usize = 4;

/// The widest checksum a frame can carry, in bytes.
pub const MAX_CHECKSUM_SIZE: usize = 8;

/// The longest header a frame can have: the length prefix and the widest checksum.
pub const MAX_HEADER_SIZE: usize = LEN_PREFIX_SIZE + MAX_CHECKSUM_SIZE;

/// The default bound on a frame's payload length: the largest buffer FlatBuffers can build
/// (2 GiB), which is also FlatStream 0.2.x's bound.
///
/// Readers of untrusted input should set a bound that fits their messages: every reader has a
/// `with_max_frame_len`.
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

/// Where a complete frame lies, relative to its first byte: the header (length prefix and
/// checksum field), then the payload.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FrameSpan {
    /// Length of the header: the length prefix and the checksum field.
    pub header_len: usize,
    /// Length of the payload.
    pub payload_len: usize,
}

impl FrameSpan {
    /// Length of the whole frame.
    #[inline(always)]
    pub fn frame_len(&self) -> usize {
        self.header_len + self.payload_len
    }

    /// Where the payload lies, counted from the frame's first byte.
    #[inline(always)]
    pub fn payload_range(&self) -> core::ops::Range<usize> {
        self.header_len..self.frame_len()
    }
}

/// Length of the header of a frame whose checksum field is `checksum_size` bytes wide.
#[inline(always)]
pub const fn header_len(checksum_size: usize) -> usize {
    LEN_PREFIX_SIZE + checksum_size
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
