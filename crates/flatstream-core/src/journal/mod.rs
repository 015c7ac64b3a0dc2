//! Journals: a reader of a growing file, the watermark a writer publishes, and reads of the frame
//! at a recorded offset.

pub(crate) mod follow;
pub(crate) mod positioned;
pub(crate) mod watermark;
