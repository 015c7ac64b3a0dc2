//! CRC-16/XMODEM, through the `crc` crate.

use crc::{CRC_16_XMODEM, Crc, Table};

/// The slicing-by-16 tables (16 × 256 entries, 8 KiB): the fastest strategy the `crc` crate
/// offers for this algorithm. A `static`, so there is one copy however often it is used.
static XMODEM: Crc<u16, Table<16>> = Crc::<u16, Table<16>>::new(&CRC_16_XMODEM);

/// CRC-16/XMODEM (polynomial 0x1021, initial value 0, not reflected), in 2 bytes.
///
/// The smallest field: 2 bytes per frame instead of 8. It has no hardware path: slicing-by-16
/// tables (8 KiB) make it 2.5 times as fast as the `crc` crate's byte-wise table on 24 bytes,
/// and 10 times as fast from 256 bytes on, but it remains the slowest algorithm here, and 16
/// bits catch fewer corruptions than 32 or 64. Choose it when 6 bytes per frame matter more
/// than speed, or to interoperate with XMODEM-style tools.
///
/// ```
/// use flatstream::checksum::{Checksum, Crc16};
///
/// assert_eq!(Crc16::new().calculate(b"123456789"), 0x31C3);
/// assert_eq!(Crc16::new().size(), 2);
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Crc16;

algorithm!(Crc16, 2, #[inline], |payload| XMODEM.checksum(payload));
