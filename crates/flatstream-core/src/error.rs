//! The error type shared by every part of flatstream.

use alloc::borrow::Cow;
use alloc::boxed::Box;
use core::fmt;

/// A `Result` whose error is flatstream's [`Error`].
pub type Result<T, E = Error> = core::result::Result<T, E>;

/// Everything that can go wrong while framing or deframing a stream.
///
/// Every variant carries `offset`: the position in the stream, in bytes from the first byte the
/// reader or writer handled, of the **start of the frame** the error concerns. Variants that
/// describe a size carry the numbers a caller needs to act on it.
///
/// The enum is kept to 32 bytes (rare, large details are boxed) so that the `Result` returned
/// for every frame stays cheap to move.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The underlying reader or writer failed.
    ///
    /// A reader keeps every byte it has already received; after `WouldBlock` or a transient error
    /// the next call carries on from where this one stopped.
    #[cfg(feature = "std")]
    #[error("i/o error at frame offset {offset}: {source}")]
    Io {
        /// The error reported by the reader or writer.
        source: std::io::Error,
        /// Offset of the frame being read or written.
        offset: u64,
    },

    /// The frames were written, but syncing them to disk failed.
    ///
    /// Raised by a [`StreamWriter`](crate::StreamWriter) that syncs, after the frame was handed
    /// to the sink whole: `bytes_written()` counts it. `offset` is the durable watermark, the
    /// start of the first frame not known to be on disk; it does not move again for that
    /// writer (see [`StreamWriter::durable`](crate::StreamWriter::durable)).
    #[cfg(feature = "std")]
    #[error("sync to disk failed: frames from offset {offset} on may not be on disk: {source}")]
    Sync {
        /// The error reported by the sync.
        source: std::io::Error,
        /// The durable watermark: the offset of the first frame not known to be on disk.
        offset: u64,
    },

    /// The stream ended inside a frame: the frame's header or payload was cut short.
    #[error(
        "stream ended inside the frame at offset {offset}: needed {needed} bytes, {present} present"
    )]
    UnexpectedEof {
        /// Offset of the incomplete frame.
        offset: u64,
        /// Bytes the frame needs in all, header included (the header size if the header itself
        /// is incomplete).
        needed: u64,
        /// Bytes of the frame that were present.
        present: u64,
    },

    /// A frame declares (or a writer was given) a payload longer than the configured bound.
    ///
    /// Readers report this before allocating or reading any of the payload.
    #[error("frame at offset {offset} is too large: payload of {len} bytes, bound is {max}")]
    FrameTooLarge {
        /// Offset of the frame.
        offset: u64,
        /// The payload length declared or offered.
        len: u64,
        /// The largest payload length allowed.
        max: u64,
    },

    /// The checksum stored in a frame does not match the checksum of its payload.
    #[error(
        "checksum mismatch in frame at offset {offset}: stored {expected:#x}, computed {actual:#x}"
    )]
    ChecksumMismatch {
        /// Offset of the frame.
        offset: u64,
        /// The checksum stored in the frame header.
        expected: u64,
        /// The checksum computed over the payload as received.
        actual: u64,
    },

    /// The payload is not a valid FlatBuffer for the type it was read as.
    #[error("invalid flatbuffer in frame at offset {offset}: {error}")]
    InvalidFlatbuffer {
        /// The verifier's report.
        #[cfg_attr(feature = "std", source)]
        error: Box<flatbuffers::InvalidFlatbuffer>,
        /// Offset of the frame.
        offset: u64,
    },

    /// A split of a stream without a checksum was asked to start past the stream's first byte.
    ///
    /// Finding where a frame starts in the middle of a stream relies on checksums: without
    /// one, any four bytes spell a plausible length. Read such a stream from its start, or
    /// split it at offsets known to be frame boundaries (a sidecar index's entries); see
    /// [`SplitFrames`](crate::SplitFrames).
    #[error(
        "cannot find a frame boundary from offset {offset} in a stream without a checksum: read it from its start or through an index"
    )]
    Unsplittable {
        /// Where the split was asked to start.
        offset: u64,
    },

    /// A frame declares a length that runs past the end of the data, as a torn tail's would,
    /// yet intact frames follow it: frames whose checksums verify start at `resumes_at`. Its
    /// length field is damaged, and cutting the data at `offset` would lose them.
    ///
    /// Raised by [`Recover::repair_file`](crate::Recover::repair_file), which then leaves the
    /// file as it is; [`Salvage`](crate::Salvage) keeps the intact frames. See
    /// [`StreamEnd::Damaged`](crate::StreamEnd::Damaged).
    #[error(
        "frame at offset {offset} declares {needed} bytes, past the end of the data, but intact frames follow from offset {resumes_at}: its length is damaged, not a torn tail"
    )]
    DamagedLength {
        /// Offset of the frame whose length is damaged.
        offset: u64,
        /// Bytes the frame declares in all, header included.
        needed: u64,
        /// Offset of the first intact frame after it.
        resumes_at: u64,
    },

    /// In a stream without a checksum, a frame declares a length that runs past the end of the
    /// data, and from `resumes_at` on the bytes parse as frames that end exactly at the end of
    /// the data: a torn tail whose payload happens to parse so, or a damaged length followed
    /// by intact frames. Without a checksum nothing tells them apart.
    ///
    /// Raised by [`Recover::repair_file`](crate::Recover::repair_file) under
    /// [`RepairPolicy::TornTail`](crate::RepairPolicy::TornTail), which then leaves the file
    /// as it is. See [`StreamEnd::Ambiguous`](crate::StreamEnd::Ambiguous).
    #[error(
        "frame at offset {offset} declares {needed} bytes, past the end of the data, and the bytes from offset {resumes_at} parse as frames up to the end: a torn tail or a damaged length, which a stream without a checksum cannot tell apart"
    )]
    AmbiguousTail {
        /// Offset of the frame that runs past the end.
        offset: u64,
        /// Bytes the frame declares in all, header included.
        needed: u64,
        /// Where the frames that parse up to the end start.
        resumes_at: u64,
    },

    /// A validator rejected the payload.
    #[error("validation failed for frame at offset {offset}: {details}")]
    Validation {
        /// Which validator rejected the payload, and why.
        details: Box<ValidationFailure>,
        /// Offset of the frame.
        offset: u64,
    },
}

/// The kind of an [`Error`], without its details: what [`Error::kind`] returns. One variant
/// per variant of `Error`, with the same name.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ErrorKind {
    /// [`Error::Io`]: the underlying reader or writer failed.
    #[cfg(feature = "std")]
    Io,
    /// [`Error::Sync`]: syncing written frames to disk failed.
    #[cfg(feature = "std")]
    Sync,
    /// [`Error::UnexpectedEof`]: the stream ended inside a frame.
    UnexpectedEof,
    /// [`Error::FrameTooLarge`]: a payload longer than the bound.
    FrameTooLarge,
    /// [`Error::ChecksumMismatch`]: the stored checksum differs from the payload's.
    ChecksumMismatch,
    /// [`Error::InvalidFlatbuffer`]: the payload is not a valid FlatBuffer of its type.
    InvalidFlatbuffer,
    /// [`Error::Unsplittable`]: a split of a stream without checksum past its first byte.
    Unsplittable,
    /// [`Error::Validation`]: a validator rejected the payload.
    Validation,
    /// [`Error::DamagedLength`]: a length past the end of the data with intact frames after it.
    DamagedLength,
    /// [`Error::AmbiguousTail`]: without a checksum, a torn tail and a damaged length look alike.
    AmbiguousTail,
}

/// Why a validator rejected a payload: carried, boxed, by [`Error::Validation`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValidationFailure {
    /// Name of the validator that rejected the payload.
    pub validator: Cow<'static, str>,
    /// What was wrong with the payload, in words.
    pub reason: Cow<'static, str>,
}

impl fmt::Display for ValidationFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}: {}", self.validator, self.reason)
    }
}

impl Error {
    /// The offset in the stream of the frame this error concerns.
    pub fn offset(&self) -> u64 {
        match self {
            #[cfg(feature = "std")]
            Error::Io { offset, .. } | Error::Sync { offset, .. } => *offset,
            Error::UnexpectedEof { offset, .. }
            | Error::FrameTooLarge { offset, .. }
            | Error::ChecksumMismatch { offset, .. }
            | Error::InvalidFlatbuffer { offset, .. }
            | Error::Validation { offset, .. }
            | Error::Unsplittable { offset }
            | Error::DamagedLength { offset, .. }
            | Error::AmbiguousTail { offset, .. } => *offset,
        }
    }

    /// Builds a [`Error::Validation`] naming the validator and the reason.
    #[cold]
    pub fn validation(
        validator: impl Into<Cow<'static, str>>,
        reason: impl Into<Cow<'static, str>>,
        offset: u64,
    ) -> Self {
        Error::Validation {
            details: Box::new(ValidationFailure {
                validator: validator.into(),
                reason: reason.into(),
            }),
            offset,
        }
    }

    /// Whether the error concerns a payload's content while the frame itself was read whole and
    /// intact (validation and FlatBuffers verification failures).
    ///
    /// A reader that reports such an error has already moved past the frame, so the next read
    /// returns the next frame. Any other error leaves the reader where it was.
    pub fn is_content_error(&self) -> bool {
        matches!(
            self,
            Error::InvalidFlatbuffer { .. } | Error::Validation { .. }
        )
    }

    /// Whether the bytes at the error's offset are not a readable frame: a length over the
    /// bound ([`Error::FrameTooLarge`]), a checksum mismatch ([`Error::ChecksumMismatch`]), or a
    /// frame cut short by the end of the input ([`Error::UnexpectedEof`]). A reader that reports
    /// such an error stays at the frame: the position of the next one is not known.
    pub fn is_framing_error(&self) -> bool {
        matches!(
            self,
            Error::UnexpectedEof { .. }
                | Error::FrameTooLarge { .. }
                | Error::ChecksumMismatch { .. }
        )
    }

    /// Replaces the offset of an error that concerns a payload's content (see
    /// [`Error::is_content_error`]); other errors are returned unchanged.
    ///
    /// Readers use this to give errors raised inside a user's callback, for example by `?` on
    /// `flatbuffers::root`, the offset of the frame being processed.
    pub fn at_frame(mut self, frame_offset: u64) -> Self {
        if let Error::InvalidFlatbuffer { offset, .. } | Error::Validation { offset, .. } =
            &mut self
        {
            *offset = frame_offset;
        }
        self
    }

    /// What kind of error this is, without its details: for code that only needs the
    /// category (and for code written against FlatStream 0.2.x's `err.kind()`). Match on the
    /// `Error` itself for the numbers.
    ///
    /// ```
    /// use flatstream::{Error, ErrorKind};
    ///
    /// let err = Error::validation("size", "too long", 40);
    /// assert_eq!(err.kind(), ErrorKind::Validation);
    /// assert!(matches!(err.kind(), ErrorKind::Validation { .. }));
    /// ```
    pub fn kind(&self) -> ErrorKind {
        match self {
            #[cfg(feature = "std")]
            Error::Io { .. } => ErrorKind::Io,
            #[cfg(feature = "std")]
            Error::Sync { .. } => ErrorKind::Sync,
            Error::UnexpectedEof { .. } => ErrorKind::UnexpectedEof,
            Error::FrameTooLarge { .. } => ErrorKind::FrameTooLarge,
            Error::ChecksumMismatch { .. } => ErrorKind::ChecksumMismatch,
            Error::InvalidFlatbuffer { .. } => ErrorKind::InvalidFlatbuffer,
            Error::Unsplittable { .. } => ErrorKind::Unsplittable,
            Error::Validation { .. } => ErrorKind::Validation,
            Error::DamagedLength { .. } => ErrorKind::DamagedLength,
            Error::AmbiguousTail { .. } => ErrorKind::AmbiguousTail,
        }
    }

    #[cold]
    pub(crate) fn too_large(offset: u64, len: usize, max: usize) -> Self {
        Error::FrameTooLarge {
            offset,
            len: len as u64,
            max: max as u64,
        }
    }

    #[cold]
    pub(crate) fn eof(offset: u64, needed: usize, present: usize) -> Self {
        Error::UnexpectedEof {
            offset,
            needed: needed as u64,
            present: present as u64,
        }
    }

    #[cfg(feature = "std")]
    #[cold]
    pub(crate) fn io(source: std::io::Error, offset: u64) -> Self {
        Error::Io { source, offset }
    }
}

/// Wraps a verifier failure; the offset is 0 until a reader stamps it with
/// [`Error::at_frame`], which `process_all` and the typed readers do.
impl From<flatbuffers::InvalidFlatbuffer> for Error {
    #[cold]
    fn from(source: flatbuffers::InvalidFlatbuffer) -> Self {
        Error::InvalidFlatbuffer {
            error: Box::new(source),
            offset: 0,
        }
    }
}

#[cfg(feature = "std")]
impl From<std::io::Error> for Error {
    /// Wraps an I/O error raised outside any frame (offset 0).
    fn from(source: std::io::Error) -> Self {
        Error::Io { source, offset: 0 }
    }
}

#[cfg(feature = "std")]
impl From<Error> for std::io::Error {
    /// I/O and sync errors are unwrapped; a cut-short frame becomes `UnexpectedEof`; every other error
    /// becomes `InvalidData` with the flatstream error as its source.
    fn from(err: Error) -> Self {
        use std::io::ErrorKind;
        match err {
            Error::Io { source, .. } | Error::Sync { source, .. } => source,
            e @ Error::UnexpectedEof { .. } => std::io::Error::new(ErrorKind::UnexpectedEof, e),
            e => std::io::Error::new(ErrorKind::InvalidData, e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_is_small_send_sync_and_static() {
        fn assert_traits<T: Send + Sync + 'static + core::error::Error>() {}
        assert_traits::<Error>();
        assert!(
            core::mem::size_of::<Error>() <= 32,
            "{}",
            core::mem::size_of::<Error>()
        );
    }

    #[test]
    fn messages_are_lowercase_without_trailing_punctuation() {
        let errors = [
            Error::eof(12, 30, 7),
            Error::too_large(4, 100, 10),
            Error::ChecksumMismatch {
                offset: 0,
                expected: 1,
                actual: 2,
            },
            Error::validation("size", "payload is empty", 9),
        ];
        for e in errors {
            let text = alloc::format!("{e}");
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
    }

    #[test]
    fn offset_and_at_frame() {
        let e = Error::validation("v", "r", 0).at_frame(77);
        assert_eq!(e.offset(), 77);
        assert!(e.is_content_error());
        let e = Error::eof(5, 10, 3).at_frame(77);
        assert_eq!(e.offset(), 5, "framing errors keep their own offset");
        assert!(!e.is_content_error());
    }

    #[cfg(feature = "std")]
    #[test]
    fn converts_into_io_error() {
        let io: std::io::Error = Error::eof(0, 8, 3).into();
        assert_eq!(io.kind(), std::io::ErrorKind::UnexpectedEof);
        let io: std::io::Error = Error::too_large(0, 9, 8).into();
        assert_eq!(io.kind(), std::io::ErrorKind::InvalidData);
        let io: std::io::Error = Error::io(std::io::ErrorKind::WouldBlock.into(), 3).into();
        assert_eq!(io.kind(), std::io::ErrorKind::WouldBlock);
    }
}
