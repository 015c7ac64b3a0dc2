//! CRC-32C (Castagnoli), through flatstream-crc32c: crc-fast with the `std` feature, the `crc`
//! crate's slicing-by-16 tables without it.

/// CRC-32C (Castagnoli, also CRC-32/ISCSI): the CRC of iSCSI, SCTP, ext4, Kafka record
/// batches, LevelDB/RocksDB logs and TFRecord, in 4 bytes.
///
/// Two implementations, one result (flatstream-crc32c's tests compare them on random inputs):
///
/// * with the crate's `std` feature (turned on by the `flatstream` facade's default `std`),
///   crc-fast, which probes the CPU once at run time and combines the CPU's CRC-32C
///   instruction (SSE4.2 on x86-64, the CRC extension on AArch64) with carry-less
///   multiplication (PCLMULQDQ or AVX-512 VPCLMULQDQ; PMULL), falling back to tables on CPUs
///   without them. This is the fast path;
/// * without `std`, slicing-by-16 tables from the `crc` crate (16 KiB, computed at compile
///   time), as for `Crc16`: no hardware path, but `#![no_std]` and without crc-fast, so
///   `crc32c` builds for targets without the standard library. (crc-fast does not build
///   without `std` as a dependency; see flatstream-crc32c.)
///
/// Choose it to exchange checksummed records with the systems above, or when a 32-bit CRC
/// with hardware support is wanted; for streams only flatstream reads, XXH3-64 (`XxHash64`) is faster.
///
/// ```
/// use flatstream::checksum::{Checksum, Crc32c};
///
/// assert_eq!(Crc32c::new().calculate(b"123456789"), 0xE306_9283);
/// assert_eq!(Crc32c::new().size(), 4);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Crc32c;

algorithm!(Crc32c, 4, #[inline], |payload| flatstream_crc32c::crc32c(payload));

#[cfg(test)]
mod tests {
    use super::Crc32c;
    use flatstream_core::Checksum;
    use std::vec::Vec;

    /// RFC 3720, B.4 (32 bytes of zeros, of 0xFF, and 0x00..=0x1F), with whichever
    /// implementation the features select; `tests/known_answers.rs` has the catalogue's check
    /// value, the empty input and 1 MiB.
    #[test]
    fn rfc_3720_vectors() {
        let crc = Crc32c::new();
        assert_eq!(crc.calculate(&[0; 32]), 0x8A91_36AA);
        assert_eq!(crc.calculate(&[0xFF; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(crc.calculate(&ascending), 0x46DD_794E);
    }
}
