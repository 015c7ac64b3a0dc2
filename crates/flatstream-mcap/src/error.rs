//! What can go wrong between flatstream frames and MCAP records.

use std::io;

/// What failed, in one lowercase clause.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The `.bfbs` schema could not be used: unreadable, invalid, or without the root type
    /// asked for.
    #[error("the schema: {0}")]
    Schema(#[from] flatstream_reflect::Error),
    /// The time field named in [`ExportOptions::time`](crate::ExportOptions::time) is not one
    /// the exporter can read a time from.
    #[error("the time field `{field}`: {reason}")]
    TimeField {
        /// The field's path, as given.
        field: String,
        /// Why it cannot be a time.
        reason: String,
    },
    /// A payload failed verification against the schema; nothing of it was written.
    #[error("not a valid {table}: {reason}")]
    InvalidPayload {
        /// The root table's full name.
        table: String,
        /// The verifier's reason.
        reason: String,
    },
    /// A payload's time field holds no time a message can carry (negative, or past 2^64
    /// nanoseconds).
    #[error("the time field `{field}` {reason}")]
    Time {
        /// The field's path.
        field: String,
        /// What its value is.
        reason: String,
    },
    /// More channels than an MCAP file can number (65 535).
    #[error("more than 65 535 channels")]
    TooManyChannels,
    /// The MCAP file could not be read: what the `mcap` crate said, after our words for
    /// where.
    #[error("{context}: {reason}")]
    Mcap {
        /// What was being done (`not a readable MCAP file`).
        context: &'static str,
        /// The `mcap` crate's reason.
        reason: String,
    },
    /// An I/O error of the source or the output.
    #[error("{0}")]
    Io(#[from] io::Error),
}

/// This crate's `Result`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

impl Error {
    /// An error of the `mcap` crate while reading, with our words first (an I/O error stays
    /// an I/O error).
    pub(crate) fn reading(e: mcap::McapError) -> Error {
        match e {
            mcap::McapError::Io(e) => Error::Io(e),
            e => Error::Mcap {
                context: "not a readable MCAP file",
                reason: e.to_string(),
            },
        }
    }
}
