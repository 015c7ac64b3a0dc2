//! CRC-32C (Castagnoli), through crc-fast.

use flatstream_core::Checksum;

/// CRC-32C (Castagnoli, also CRC-32/ISCSI): the CRC of iSCSI, SCTP, ext4, Kafka record
/// batches, LevelDB/RocksDB logs and TFRecord, in 4 bytes.
///
/// Computed by crc-fast, which combines the CPU's CRC-32C instruction (SSE4.2 on x86-64, the
/// CRC extension on AArch64) with carry-less multiplication, and falls back to tables on CPUs
/// without them; the CPU is probed once, at run time. Because of that probe, crc-fast needs
/// `std`: the `crc32c` feature is the one feature of this crate that does not build for
/// targets without the standard library.
///
/// Choose it to exchange checksummed records with the systems above, or when a 32-bit CRC
/// with hardware support is wanted; for streams only flatstream reads, XXH3-64 (`XxHash64`) is faster.
///
/// ```
/// use flatstream_checksum::{Checksum, Crc32c};
///
/// assert_eq!(Crc32c::new().calculate(b"123456789"), 0xE306_9283);
/// assert_eq!(Crc32c::new().size(), 4);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Crc32c;

impl Crc32c {
    /// Returns `Crc32c`.
    pub const fn new() -> Self {
        Crc32c
    }
}

impl Checksum for Crc32c {
    #[inline(always)]
    fn size(&self) -> usize {
        4
    }

    #[inline]
    fn calculate(&self, payload: &[u8]) -> u64 {
        u64::from(crc_fast::crc32_iscsi(payload))
    }
}
