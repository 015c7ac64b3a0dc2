//! Adapters that wrap flatstream framers and deframers.
//!
//! ```text
//! [len: u32 LE][checksum: 0/2/4/8 bytes LE][payload]
//! ```

#![no_std]
#![forbid(unsafe_code)]
