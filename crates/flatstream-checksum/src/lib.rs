//! Checksum algorithms for flatstream frames, one feature each, all off by default.
//!
//! ```text
//! [len: u32 LE][checksum: 2, 4 or 8 bytes LE][payload]
//! ```

#![no_std]
#![forbid(unsafe_code)]

pub use flatstream_core::{Checksum, NoChecksum};
