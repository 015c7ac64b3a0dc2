//! CRC-32C (Castagnoli, also CRC-32/ISCSI) of a byte slice: the function behind
//! `flatstream-checksum`'s `Crc32c`. Depend on `flatstream-checksum` (feature `crc32c`) or on
//! the `flatstream` facade rather than on this crate.
//!
//! * With the `std` feature, crc-fast: it probes the CPU once at run time and, on x86-64 with
//!   SSE4.2 and PCLMULQDQ (or AVX-512 VPCLMULQDQ), combines the CRC32 instruction with
//!   carry-less multiplication; on AArch64 with the CRC and AES (PMULL) extensions it does the
//!   same. On other CPUs it falls back to slicing-by-16 tables.
//! * Without `std`, slicing-by-16 tables from the `crc` crate (16 KiB, computed at compile
//!   time): no hardware path, but `#![no_std]` with no std anywhere in the dependency tree.
//!
//! Both give the same values (the tests compare them).
//!
//! # Why a crate of its own
//!
//! crc-fast cannot be the no_std implementation: its library target is also a `cdylib` and a
//! `staticlib` (crc-fast 1.9 and 1.10), which cargo builds for dependents too, and which
//! without `std` do not build unless crc-fast's `panic-handler` feature defines a
//! `#[panic_handler]` in the library, where it clashes with the application's own. So crc-fast
//! must be compiled only when `flatstream-checksum`'s `crc32c` **and** `std` are both on, and
//! cargo features express that only through an optional dependency: `crc32c` enables this
//! crate, and `std` turns on this crate's `std` with `flatstream-crc32c?/std`, which does
//! nothing unless `crc32c` did. A build with `std` but without `crc32c` compiles neither.
//!
//! ```
//! assert_eq!(flatstream_crc32c::crc32c(b"123456789"), 0xE306_9283);
//! ```

#![no_std]
#![forbid(unsafe_code)]

#[cfg(test)]
extern crate std;

/// CRC-32C (CRC-32/ISCSI) of `payload`: crc-fast with `std`, the tables without.
#[inline]
pub fn crc32c(payload: &[u8]) -> u32 {
    #[cfg(feature = "std")]
    {
        crc_fast::crc32_iscsi(payload)
    }
    #[cfg(not(feature = "std"))]
    {
        table::crc32c(payload)
    }
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
    use super::{crc32c, table};
    use std::vec::Vec;

    /// The catalogue's check value, the empty input and RFC 3720, B.4 (32 bytes of zeros, of
    /// 0xFF, and 0x00..=0x1F), for `f`.
    fn known_answers(f: fn(&[u8]) -> u32) {
        assert_eq!(f(b"123456789"), 0xE306_9283);
        assert_eq!(f(b""), 0);
        assert_eq!(f(&[0; 32]), 0x8A91_36AA);
        assert_eq!(f(&[0xFF; 32]), 0x62A8_AB43);
        let ascending: Vec<u8> = (0..32).collect();
        assert_eq!(f(&ascending), 0x46DD_794E);
    }

    /// The function the features select: crc-fast with `std`, the tables without.
    #[test]
    fn selected_implementation_gives_the_known_answers() {
        known_answers(crc32c);
    }

    #[test]
    fn tables_give_the_known_answers() {
        known_answers(table::crc32c);
    }

    /// Deterministic, non-periodic bytes.
    #[cfg(feature = "std")]
    fn pattern(len: usize) -> Vec<u8> {
        (0..len)
            .map(|i| (i * 131 + (i >> 7) * 17).to_le_bytes()[0])
            .collect()
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
