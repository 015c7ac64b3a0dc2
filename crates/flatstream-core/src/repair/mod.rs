//! Damaged streams: recovery of a torn tail and salvage past corruption.

pub(crate) mod recover;
pub(crate) mod salvage;
#[cfg(feature = "std")]
pub(crate) mod salvage_report;
