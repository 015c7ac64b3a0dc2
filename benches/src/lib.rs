//! Fixtures of flatstream's benchmarks: message generators and the workloads of each suite (so
//! the timing and allocation suites run the same code). The telemetry schema, the counting
//! allocator and `Opaque` come from `flatstream-test-support`, which the tests share.

pub mod arrow;
pub mod async_framing;
pub mod capture;
pub mod checksums;
#[cfg(feature = "cluster")]
pub mod cluster;
pub mod core_loops;
pub mod cycle;
pub mod paths;
#[cfg(feature = "python")]
pub mod python;
pub mod scaling;
#[cfg(feature = "sql")]
pub mod sql;
pub mod verify;
pub mod wide;

/// `len` pseudo-random bytes (xorshift64, fixed seed): the same bytes on every run.
pub fn pseudo_random_bytes(len: usize) -> Vec<u8> {
    let mut x = 0x9E37_79B9_7F4A_7C15u64;
    (0..len)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x.to_le_bytes()[0]
        })
        .collect()
}
