//! A checksummed stream read in byte ranges, and on all cores (feature `rayon`).

#[cfg(feature = "rayon")]
pub(crate) mod parallel;
pub(crate) mod ranges;
