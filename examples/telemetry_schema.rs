//! The telemetry schema of `telemetry.fbs`, as flatc 25.12.19 generated it into `generated/`
//! (committed; `cargo xtask flatc` regenerates it). Shared by the examples.

// Generated code: flatc's style and its `unsafe` accessors, not ours.
#[allow(
    unsafe_code,
    unused_imports,
    rust_2018_idioms,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    unreachable_pub
)]
#[path = "generated/telemetry_generated.rs"]
mod generated;

#[allow(unused_imports)]
pub(crate) use generated::telemetry::*;
