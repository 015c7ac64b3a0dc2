//! Toy checksums: enough to exercise the checksummed paths of the core and the adapters
//! without depending on the real algorithms (which live in flatstream-checksum and are tested
//! there against known answers).

use flatstream_core::Checksum;
use std::cell::Cell;

/// Fletcher-32, 4 bytes on the wire: a weak checksum, but one that sees every byte.
#[derive(Debug, Clone, Copy, Default)]
pub struct Fletcher32;

impl Checksum for Fletcher32 {
    fn size(&self) -> usize {
        4
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        let (mut a, mut b) = (1u64, 0u64);
        for &byte in payload {
            a = (a + u64::from(byte)) % 65_521;
            b = (b + a) % 65_521;
        }
        (b << 16) | a
    }
}

/// A weighted byte sum, 2 bytes on the wire: enough to tell a corrupted payload from an intact
/// one, and cheap.
#[derive(Debug, Clone, Copy, Default)]
pub struct ByteSum;

impl Checksum for ByteSum {
    fn size(&self) -> usize {
        2
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        payload.iter().fold(7u64, |acc, &b| {
            acc.wrapping_mul(31).wrapping_add(u64::from(b))
        })
    }
}

/// CRC-16/XMODEM, 2 bytes on the wire, bit by bit. Like the real one, its value over any run
/// of zero bytes is 0, which is what makes zero-filled holes look like empty frames.
///
/// ```
/// use flatstream_core::Checksum;
/// use flatstream_test_support::checksums::Xmodem;
///
/// assert_eq!(Xmodem.calculate(b"123456789"), 0x31C3);
/// assert_eq!(Xmodem.calculate(&[0; 100]), 0);
/// ```
#[derive(Debug, Clone, Copy, Default)]
pub struct Xmodem;

impl Checksum for Xmodem {
    fn size(&self) -> usize {
        2
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        let mut crc = 0u16;
        for &b in payload {
            crc ^= u16::from(b) << 8;
            for _ in 0..8 {
                crc = if crc & 0x8000 != 0 {
                    (crc << 1) ^ 0x1021
                } else {
                    crc << 1
                };
            }
        }
        u64::from(crc)
    }
}

/// A checksum that counts the bytes it hashes into a `Cell`, so that a test can check the work
/// a reader or a scan does.
#[derive(Debug, Clone, Copy)]
pub struct Counted<'c, C> {
    inner: C,
    hashed: &'c Cell<u64>,
}

impl<'c, C: Checksum> Counted<'c, C> {
    /// `inner`, counting into `hashed`.
    pub fn new(inner: C, hashed: &'c Cell<u64>) -> Self {
        Counted { inner, hashed }
    }
}

impl<C: Checksum> Checksum for Counted<'_, C> {
    fn size(&self) -> usize {
        self.inner.size()
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        self.hashed.set(self.hashed.get() + payload.len() as u64);
        self.inner.calculate(payload)
    }
}
