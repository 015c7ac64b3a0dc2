//! Toy checksums for the unit tests (integration tests share theirs through
//! `flatstream-test-support`).

use crate::wire::checksum::Checksum;

/// The sum of the bytes in a 2-byte field, computed deliberately wider than 2 bytes, to check
/// truncation on both sides.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sum16;

impl Checksum for Sum16 {
    fn size(&self) -> usize {
        2
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        0xFFFF_0000 | payload.iter().map(|&b| u64::from(b)).sum::<u64>()
    }
}

/// A rotate-and-xor hash in a 4-byte field: a flipped bit anywhere changes it.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sum32;

impl Checksum for Sum32 {
    fn size(&self) -> usize {
        4
    }
    fn calculate(&self, payload: &[u8]) -> u64 {
        payload
            .iter()
            .fold(0x1234_5678u64, |a, &b| a.rotate_left(5) ^ u64::from(b))
    }
}
