//! The framings every per-checksum benchmark runs: no checksum, then each algorithm.

use flatstream::{DefaultDeframer, DefaultFramer, Deframer, Framer};

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
}
