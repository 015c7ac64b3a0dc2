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
    /// The bytes do not start like a binary schema.
    #[error("not a binary schema (flatc -b --schema x.fbs writes x.bfbs)")]
    NotBinarySchema,
    /// The bytes are a damaged binary schema.
    #[error("not a valid binary schema: {reason}")]
    InvalidSchema {
        /// What is wrong with it.
        reason: String,
    },
    /// The root type asked for is not a table of the schema.
    #[error("root type `{name}` is not a table of the schema (its tables: {tables})")]
    UnknownRootType {
        /// The name asked for.
        name: String,
        /// The schema's tables, comma-separated.
        tables: String,
    },
    /// The schema declares no `root_type` and none was given.
    #[error("the schema has no root_type: name one (its tables: {tables})")]
    NoRootType {
        /// The schema's tables, comma-separated.
        tables: String,
    },
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

/// A library's message as a clause: lowercase first letter, no trailing period, one line.
pub(crate) fn sentence(text: &str) -> String {
    let text = text
        .lines()
        .next()
        .unwrap_or("")
        .trim()
        .trim_end_matches('.');
    let mut chars = text.chars();
    match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    }
}
