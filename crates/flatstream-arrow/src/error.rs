//! The error type of this crate.

use std::path::PathBuf;

/// What can go wrong compiling a plan or converting frames. Errors about frames carry the
/// frame's byte offset in its stream.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The schema file could not be read.
    #[error("{}: cannot read the schema: {source}", path.display())]
    ReadSchema {
        /// The file.
        path: PathBuf,
        /// What reading it reported.
        source: std::io::Error,
    },
    /// The schema is not a binary schema, or is damaged, or has no table of the root type
    /// asked for (or declares none and none was given): a [`flatstream_reflect::Error`].
    #[error(transparent)]
    Schema(#[from] flatstream_reflect::Error),
    /// A field has a type this crate cannot convert (a vector of unions, a union of structs,
    /// a 64-bit offset).
    #[error("field `{path}`: {what} cannot be converted to arrow")]
    Unsupported {
        /// The field's path from the root table (`sensors.readings`).
        path: String,
        /// Its type, in words.
        what: String,
    },
    /// A projection names a column index past the last column.
    #[error("column {index} is out of range: the table has {columns} columns")]
    ColumnOutOfRange {
        /// The index asked for.
        index: usize,
        /// How many columns there are.
        columns: usize,
    },
    /// A projection names a column that does not exist.
    #[error("no column named `{name}` (the columns: {columns})")]
    UnknownColumn {
        /// The name asked for.
        name: String,
        /// The column names, comma-separated.
        columns: String,
    },
    /// The `_offset` column was asked for, but the root table has a field of that name.
    #[error("the root table has a field named `{name}`: it cannot also be the offset column")]
    OffsetColumnTaken {
        /// The name of the offset column.
        name: String,
    },
    /// A frame's payload failed verification against the schema.
    #[error("frame at byte {offset}: not a valid {table}: {reason}")]
    InvalidFrame {
        /// The frame's offset in its stream.
        offset: u64,
        /// The root table's full name.
        table: String,
        /// What the verifier found.
        reason: String,
    },
    /// A verified frame could not be read. This is a bug of this crate (or of the verifier),
    /// reported instead of a panic; the converter refuses further frames after it.
    #[error("frame at byte {offset}: cannot read it: {reason}")]
    Read {
        /// The frame's offset in its stream.
        offset: u64,
        /// What went wrong.
        reason: String,
    },
    /// A converter was used after a [`Read`](Self::Read) error left its columns uneven.
    #[error("the converter failed on the frame at byte {offset} and accepts no more frames")]
    Poisoned {
        /// The offset of the frame it failed on.
        offset: u64,
    },
    /// The stream of frames failed (a framing error: checksum, length, truncation).
    #[error(transparent)]
    Stream(#[from] flatstream_core::Error),
    /// Arrow refused the arrays built (a bug of this crate if it happens).
    #[error("arrow: {0}")]
    Arrow(#[from] arrow_schema::ArrowError),
}

/// The `Result` of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;
