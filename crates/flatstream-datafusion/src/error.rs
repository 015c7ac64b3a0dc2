//! The error type of this crate, carried inside DataFusion's errors as
//! `DataFusionError::External`.

use datafusion::error::DataFusionError;

/// What can go wrong setting up or scanning a flatstream table. Errors about a file name it
/// and, where they concern a frame, carry its byte offset.
///
/// Every error reaches DataFusion as [`DataFusionError::External`] holding this type: match on
/// it with `downcast_ref::<flatstream_datafusion::Error>()` (after
/// [`DataFusionError::find_root`]).
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// No schema was given, to the table or to the session.
    #[error(
        "a flatstream table needs a schema: set the table option 'schema' or the session \
         setting flatstream.schema to a .bfbs file (flatc -b --schema x.fbs writes it)"
    )]
    NoSchema,
    /// The schema file could not be read.
    #[error("{path}: cannot read the schema: {source}")]
    ReadSchema {
        /// The path given.
        path: String,
        /// What reading it reported.
        source: std::io::Error,
    },
    /// The schema is not a binary schema, or the root type or a field does not fit.
    #[error(transparent)]
    Schema(flatstream_arrow::Error),
    /// An option has an unknown key or a bad value.
    #[error("option {key}: {reason}")]
    Option {
        /// The key as given.
        key: String,
        /// What is wrong.
        reason: String,
    },
    /// The checksum was not given and the file's leading frames do not tell it.
    #[error("{path}: cannot tell the stream's framing: {why}; set the option 'checksum'")]
    Framing {
        /// The file.
        path: String,
        /// What detection found.
        why: String,
    },
    /// The checksum named is not compiled into this build.
    #[error("checksum {kind}: {reason}")]
    ChecksumUnavailable {
        /// The checksum.
        kind: String,
        /// Why it is unavailable.
        reason: String,
    },
    /// Reading the file failed.
    #[error("{path}: cannot read bytes {start}..{end}: {source}")]
    Read {
        /// The file.
        path: String,
        /// The first byte asked for.
        start: u64,
        /// The byte after the last one asked for.
        end: u64,
        /// What the object store reported.
        source: object_store::Error,
    },
    /// A framing error: a checksum mismatch, a length over the bound, a frame cut short.
    /// The offset is in the message of `source`.
    #[error("{path}: {source}")]
    Frame {
        /// The file.
        path: String,
        /// The error of the frame.
        source: flatstream_core::Error,
    },
    /// A frame's payload could not be converted (not a valid FlatBuffer of the root type,
    /// unless `skip_invalid` is on).
    #[error("{path}: {source}")]
    Convert {
        /// The file.
        path: String,
        /// What the converter reported, with the frame's offset.
        source: flatstream_arrow::Error,
    },
    /// The frames read from the start of a byte range did not land on the frame boundary
    /// the next range starts from: one of the two was found by a false resynchronization
    /// (bytes inside a payload that read as frames), or damage lies between them. Nothing
    /// of the range is trusted; read the file without splitting it (a sequential read
    /// reports what is wrong, if anything).
    #[error(
        "{path}: the frames of bytes {start}..{end} run from {from} to {reached}, past the \
         frame boundary {boundary} where the next range starts: a false resynchronization \
         or damage; read the file in one partition \
         (datafusion.optimizer.repartition_file_scans = false)"
    )]
    Resync {
        /// The file.
        path: String,
        /// The range's first byte.
        start: u64,
        /// The byte after the range.
        end: u64,
        /// Where the range's first frame starts.
        from: u64,
        /// Where its chain of frames reached past `boundary`.
        reached: u64,
        /// Where the next range starts.
        boundary: u64,
    },
}

impl From<Error> for DataFusionError {
    fn from(e: Error) -> Self {
        DataFusionError::External(Box::new(e))
    }
}
