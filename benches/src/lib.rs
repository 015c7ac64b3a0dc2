//! Fixtures shared by flatstream's benchmarks and allocation tests: the committed
//! flatc-generated telemetry schema, message generators, the workloads of each suite (so the
//! timing and allocation suites run the same code), and a counting allocator.

pub mod alloc;
pub mod checksums;
pub mod cycle;
pub mod faults;
pub mod mmap;
pub mod paths;
pub mod telemetry;
