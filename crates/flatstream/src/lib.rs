//! flatstream: framing for streams of FlatBuffers messages.

#![no_std]
#![forbid(unsafe_code)]

pub use flatstream_adapters as adapters;
pub use flatstream_checksum as checksum;
pub use flatstream_core::*;
