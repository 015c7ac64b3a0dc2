//! Writing frames: the stream writer, its sync policies, and the serialization trait.

pub(crate) mod serialize;
#[cfg(feature = "std")]
pub(crate) mod sync;
#[cfg(feature = "std")]
pub(crate) mod writer;
