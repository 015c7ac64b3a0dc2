//! Fixtures shared by flatstream's benchmarks and allocation tests: the committed
//! flatc-generated telemetry schema, message generators, the workloads of each suite (so the
//! timing and allocation suites run the same code), and a counting allocator.

pub mod alloc;
pub mod checksums;
pub mod core_loops;
pub mod cycle;
pub mod faults;
pub mod mmap;
pub mod paths;
pub mod telemetry;

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
