//! The error type of this crate, carried inside DataFusion's errors as
//! `DataFusionError::External`.

use datafusion::error::DataFusionError;

/// What can go wrong setting up or scanning a flatstream table. Errors about a file name it
/// and, where they concern a frame, carry its byte offset.
///
/// Every error reaches DataFusion as [`DataFusionError::External`] holding this type: match on
/// it with `downcast_ref::<flatstream_datafusion::Error>()` (after
/// [`DataFusionError::find_root`]). On a datafusion-distributed worker an error about the data
/// is also wrapped in a context, since only its text reaches the coordinator: [`is_damage`]
/// tells it there.
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

impl Error {
    /// Whether the error is about the data, not the setup or the storage: a damaged frame
    /// ([`Frame`](Error::Frame)), a payload that is not a valid FlatBuffer of the root type
    /// ([`Convert`](Error::Convert)), or a resynchronization that did not land
    /// ([`Resync`](Error::Resync)). `flatstream query` exits with status 1 for these, 2 for the
    /// rest.
    pub fn is_damage(&self) -> bool {
        matches!(
            self,
            Error::Frame { .. } | Error::Convert { .. } | Error::Resync { .. }
        )
    }

    /// This error as a scan reports it to DataFusion: `remote` on a datafusion-distributed
    /// worker, where an error about the data is wrapped in the context [`DAMAGE`], which
    /// survives the trip to the coordinator (where only the error's text is left of its type),
    /// so that [`is_damage`] still tells it.
    pub(crate) fn into_datafusion(self, remote: bool) -> DataFusionError {
        if remote && self.is_damage() {
            DataFusionError::Context(DAMAGE.to_owned(), Box::new(self.into()))
        } else {
            self.into()
        }
    }
}

impl From<Error> for DataFusionError {
    fn from(e: Error) -> Self {
        DataFusionError::External(Box::new(e))
    }
}

/// The context a worker wraps an error about the data in (see [`is_damage`]).
const DAMAGE: &str = "flatstream: the data is damaged";

/// Whether the query failed on the data ([`Error::is_damage`]): in this process, or on a
/// datafusion-distributed worker, whose error reaches the coordinator as text inside a context
/// that says so.
pub fn is_damage(e: &DataFusionError) -> bool {
    // Iterative: a chain of contexts as long as an error's cannot overflow the stack.
    let mut pending = vec![e];
    while let Some(e) = pending.pop() {
        match e {
            DataFusionError::External(inner)
                if inner.downcast_ref::<Error>().is_some_and(Error::is_damage) =>
            {
                return true;
            }
            DataFusionError::Context(context, _) if context == DAMAGE => return true,
            DataFusionError::Context(_, inner) => pending.push(inner),
            DataFusionError::Shared(inner) => pending.push(inner),
            DataFusionError::Diagnostic(_, inner) => pending.push(inner),
            DataFusionError::Collection(all) => pending.extend(all),
            _ => {}
        }
    }
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn frame_error() -> Error {
        Error::Frame {
            path: "a.fstream".to_owned(),
            source: flatstream_core::Error::UnexpectedEof {
                offset: 8,
                needed: 20,
                present: 4,
            },
        }
    }

    fn setup_error() -> Error {
        Error::Option {
            key: "checksum".to_owned(),
            reason: "unknown".to_owned(),
        }
    }

    /// What the coordinator gets of an error a worker sent: its text, in a boxed error of
    /// another type.
    fn as_text(e: &DataFusionError) -> DataFusionError {
        let text: Box<dyn std::error::Error + Send + Sync> = e.to_string().into();
        DataFusionError::External(text)
    }

    #[test]
    fn damage_is_told_in_this_process_and_from_a_worker_and_nothing_else_is() {
        assert!(is_damage(&frame_error().into_datafusion(false)));
        assert!(!is_damage(&setup_error().into_datafusion(false)));
        // In this process, the error keeps its shape: `External` holding it.
        assert!(matches!(
            frame_error().into_datafusion(false),
            DataFusionError::External(_)
        ));
        // From a worker, the context crosses and the text inside it does not matter.
        let remote = match frame_error().into_datafusion(true) {
            DataFusionError::Context(context, inner) => {
                DataFusionError::Context(context, Box::new(as_text(&inner)))
            }
            other => panic!("not wrapped: {other}"),
        };
        assert!(is_damage(&remote));
        assert!(!is_damage(&as_text(&setup_error().into_datafusion(true))));
        // Inside DataFusion's own wrappings.
        let shared = DataFusionError::Shared(std::sync::Arc::new(remote));
        assert!(is_damage(&DataFusionError::Collection(vec![
            as_text(&setup_error().into()),
            shared.context("in a stage"),
        ])));
    }
}
