//! The framings every per-checksum benchmark runs: no checksum, then each algorithm
//! (XXH3-64 in 8 bytes, CRC-32/ISO-HDLC, CRC-32C/Castagnoli, CRC-16/XMODEM).

use flatstream::checksum::Crc32c;
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer,
};
use flatstream::{Crc16, Crc32, XxHash64};

/// Called once per framing by [`for_each_checksum`], with a framer and the matching deframer.
pub trait ChecksumVisitor {
    /// Visits the framing named `name` (`"none"`, `"xxhash64"`, `"crc32"`, …: the names used in
    /// benchmark ids).
    fn visit<F, D>(&mut self, name: &'static str, framer: F, deframer: D)
    where
        F: Framer + Copy,
        D: Deframer + Copy;
}

/// Visits no checksum, then every checksum algorithm flatstream offers.
pub fn for_each_checksum(v: &mut impl ChecksumVisitor) {
    v.visit("none", DefaultFramer, DefaultDeframer);
    with(v, "xxhash64", XxHash64::new());
    with(v, "crc32", Crc32::new());
    with(v, "crc32c", Crc32c::new());
    with(v, "crc16", Crc16::new());
}

fn with<C: flatstream::checksum::Checksum + Copy>(
    v: &mut impl ChecksumVisitor,
    name: &'static str,
    c: C,
) {
    v.visit(name, ChecksumFramer::new(c), ChecksumDeframer::new(c));
}
