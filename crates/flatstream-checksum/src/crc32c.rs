//! CRC-32C (Castagnoli): through crc-fast with the `std` feature, through the `crc` crate's
//! slicing-by-16 tables without it.

use flatstream_core::Checksum;

/// CRC-32C (Castagnoli, also CRC-32/ISCSI): the CRC of iSCSI, SCTP, ext4, Kafka record
/// batches, LevelDB/RocksDB logs and TFRecord, in 4 bytes.
///
/// Two implementations, one result (the crate's tests compare them on random inputs):
///
/// * with the crate's `std` feature (turned on by the `flatstream` facade's default `std`),
///   crc-fast, which combines the CPU's CRC-32C instruction (SSE4.2 on x86-64, the CRC
///   extension on AArch64) with carry-less multiplication, probes the CPU once at run time, and
///   falls back to tables on CPUs without them. This is the fast path;
/// * without `std`, slicing-by-16 tables from the `crc` crate (16 KiB, computed at compile
///   time), as for `Crc16`: no hardware path, but `#![no_std]` and without crc-fast, so
///   `crc32c` builds for targets without the standard library.
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
        u64::from(crc32c(payload))
    }
}

/// CRC-32C of `payload`, on the hardware path.
#[cfg(feature = "std")]
#[inline]
fn crc32c(payload: &[u8]) -> u32 {
    crc_fast::crc32_iscsi(payload)
}

/// CRC-32C of `payload`, on the tables.
#[cfg(not(feature = "std"))]
#[inline]
fn crc32c(payload: &[u8]) -> u32 {
    table::crc32c(payload)
}

/// The table-driven implementation: the only one without `std`, compiled in tests too, so that
/// they can compare it with crc-fast.
#[cfg(any(not(feature = "std"), test))]
mod table {
    use crc::{CRC_32_ISCSI, Crc, Table};

    /// The slicing-by-16 tables (16 × 256 entries of 4 bytes, 16 KiB): the fastest strategy
    /// the `crc` crate offers. A `static`, so there is one copy however often it is used.
    static CASTAGNOLI: Crc<u32, Table<16>> = Crc::<u32, Table<16>>::new(&CRC_32_ISCSI);

    /// CRC-32C (CRC-32/ISCSI) of `payload`.
    #[inline]
    pub(super) fn crc32c(payload: &[u8]) -> u32 {
        CASTAGNOLI.checksum(payload)
    }
}

#[cfg(test)]
mod tests {
    use super::table;
    use std::vec::Vec;

    /// Deterministic, non-periodic bytes.
    #[cfg(feature = "std")]
    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i * 131 + (i >> 7) * 17).to_le_bytes()[0])
            .collect()
    }

    #[test]
    fn tables_give_the_catalogue_values() {
        assert_eq!(table::crc32c(b"123456789"), 0xE306_9283);
        assert_eq!(table::crc32c(b""), 0);
        // RFC 3720, B.4: 32 bytes of zeros, of 0xFF, and 0x00..=0x1F.
        assert_eq!(table::crc32c(&[0; 32]), 0x8A91_36AA);
        assert_eq!(table::crc32c(&[0xFF; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(table::crc32c(&ascending), 0x46DD_794E);
    }

    /// Every length up to 1 KiB plus one at every start offset modulo 16, and 1 MiB plus 3:
    /// crc-fast switches strategy with the length and the alignment, the tables work in
    /// 16-byte steps.
    #[cfg(feature = "std")]
    #[test]
    fn tables_agree_with_crc_fast_on_every_short_length_and_alignment() {
        let data = pattern((1 << 20) + 3);
        for start in 0..16 {
            for len in 0..=1025 {
                let slice = &data[start..start + len];
                assert_eq!(
                    table::crc32c(slice),
                    crc_fast::crc32_iscsi(slice),
                    "start {start}, len {len}"
                );
            }
        }
        assert_eq!(table::crc32c(&data), crc_fast::crc32_iscsi(&data));
    }

    #[cfg(feature = "std")]
    mod random {
        use super::table;
        use proptest::prelude::*;

        proptest! {
            #[test]
            fn tables_agree_with_crc_fast(
                data in proptest::collection::vec(any::<u8>(), 0..70_000),
                start in 0usize..64,
            ) {
                let slice = data.get(start..).unwrap_or_default();
                prop_assert_eq!(table::crc32c(slice), crc_fast::crc32_iscsi(slice));
            }
        }
    }
}
