//! The wire format: the frame layout, the framing traits and their framers, the checksum trait,
//! and the sans-I/O [`decode`] module that reads frames off the front of a buffer.

pub(crate) mod checksum;
pub mod decode;
pub mod frame;
pub(crate) mod framing;
