//! Writing frames: the sans-I/O writer core, the stream writer over it, its sync policies, and
//! the serialization trait.

#[cfg(feature = "std")]
pub(crate) mod core;
pub(crate) mod serialize;
#[cfg(feature = "std")]
pub(crate) mod sync;
#[cfg(feature = "std")]
pub(crate) mod writer;
