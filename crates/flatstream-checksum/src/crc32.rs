//! CRC-32/ISO-HDLC, through crc32fast.

/// CRC-32/ISO-HDLC: the CRC-32 of zlib, gzip, PNG and Ethernet, in 4 bytes.
///
/// Computed by crc32fast, which folds with carry-less multiplication (PCLMULQDQ on x86-64,
/// PMULL on AArch64) when the CPU has it. With the crate's `std` feature (turned on by the
/// `flatstream` facade's default `std`) the CPU is probed at run time; without it, only the
/// instructions the compilation target guarantees are used, which on a baseline x86-64 target
/// means crc32fast's table-driven fallback.
///
/// ```
/// use flatstream::checksum::{Checksum, Crc32};
///
/// assert_eq!(Crc32::new().calculate(b"123456789"), 0xCBF4_3926);
/// assert_eq!(Crc32::new().size(), 4);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Crc32;

algorithm!(Crc32, 4, #[inline], |payload| crc32fast::hash(payload));
