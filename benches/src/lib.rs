//! Fixtures shared by flatstream's benchmarks and allocation tests: the committed
//! flatc-generated telemetry schema, message generators, and a counting allocator.

pub mod alloc;
pub mod telemetry;
