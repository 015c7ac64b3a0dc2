//! The error type of this crate.

/// What can be wrong with a binary schema, the table asked of it, or a buffer verified
/// through it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The bytes do not start like a binary schema (their identifier is not `BFBS`).
    #[error("not a binary schema (flatc -b --schema x.fbs writes x.bfbs)")]
    NotBinarySchema,
    /// The bytes are a damaged binary schema: they fail FlatBuffers verification, or a type
    /// index in them names an object or enum the schema does not have.
    #[error("not a valid binary schema: {reason}")]
    InvalidSchema {
        /// What is wrong with it, one clause.
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
    /// A buffer failed verification against the schema. The message is the reason alone,
    /// one clause (`field `name` at payload byte 12: the string at bytes 40..52 is not
    /// UTF-8 (…)`), for the caller to put after what it was reading.
    #[error("{reason}")]
    InvalidBuffer {
        /// What the verifier found, and where.
        reason: String,
    },
}

/// The `Result` of this crate.
pub type Result<T, E = Error> = std::result::Result<T, E>;

#[cfg(test)]
mod tests {
    use super::Error;

    #[test]
    fn the_error_crosses_threads_and_reads_as_one_lowercase_line() {
        fn send_sync<T: Send + Sync + std::error::Error + 'static>() {}
        send_sync::<Error>();
        let errors = [
            Error::NotBinarySchema,
            Error::InvalidSchema {
                reason: "field t.T.f has no type index".to_owned(),
            },
            Error::UnknownRootType {
                name: "Nope".to_owned(),
                tables: "t.T".to_owned(),
            },
            Error::NoRootType {
                tables: "t.T".to_owned(),
            },
        ];
        for e in errors {
            let text = e.to_string();
            assert!(!text.contains('\n') && !text.ends_with('.'), "{text}");
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
        }
    }
}
