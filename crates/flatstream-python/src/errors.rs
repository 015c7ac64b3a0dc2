//! The exceptions: one hierarchy under `flatstream.Error`, each with the byte offset of the
//! frame it is about (`offset`, `None` where it is about no frame), and the conversions from
//! the Rust errors.

use flatstream::Error as FrameError;
use flatstream::arrow::Error as ArrowError;
use pyo3::PyErrArguments;
use pyo3::exceptions::{
    PyException, PyFileExistsError, PyFileNotFoundError, PyIsADirectoryError, PyOSError,
    PyPermissionError, PyValueError,
};
use pyo3::prelude::*;
use std::io;

pyo3::create_exception!(
    flatstream,
    Error,
    PyException,
    "The base of every error flatstream raises about a stream or a schema.\n\n\
     `offset` is the byte offset of the frame the error is about in its stream, or `None`."
);
pyo3::create_exception!(
    flatstream,
    ChecksumMismatch,
    Error,
    "A frame's payload does not match its checksum: the frame is corrupt."
);
pyo3::create_exception!(
    flatstream,
    FrameTooLarge,
    Error,
    "A frame declares a payload longer than the bound (`max_frame_len`): its length is \
     corrupt, or the bound is too small for the stream. Nothing is allocated for it."
);
pyo3::create_exception!(
    flatstream,
    UnexpectedEof,
    Error,
    "The input ends inside a frame: the torn tail a writer that died mid-frame leaves."
);
pyo3::create_exception!(
    flatstream,
    InvalidFlatbuffer,
    Error,
    "A payload is not a valid FlatBuffer of the schema's root table."
);
pyo3::create_exception!(
    flatstream,
    SchemaError,
    Error,
    "A schema (`.bfbs`) is not a valid binary schema, or cannot be used as asked: no such \
     root type or column, a type that cannot be converted to Arrow."
);
pyo3::create_exception!(
    flatstream,
    FramingError,
    Error,
    "The stream's framing (its checksum) cannot be told from its leading frames: pass \
     `checksum=`."
);

/// Registers the exception classes in the module.
pub(crate) fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("Error", py.get_type::<Error>())?;
    // A class attribute, so that `offset` reads `None` on any instance that was not given one.
    py.get_type::<Error>().setattr("offset", py.None())?;
    m.add("ChecksumMismatch", py.get_type::<ChecksumMismatch>())?;
    m.add("FrameTooLarge", py.get_type::<FrameTooLarge>())?;
    m.add("UnexpectedEof", py.get_type::<UnexpectedEof>())?;
    m.add("InvalidFlatbuffer", py.get_type::<InvalidFlatbuffer>())?;
    m.add("SchemaError", py.get_type::<SchemaError>())?;
    m.add("FramingError", py.get_type::<FramingError>())?;
    Ok(())
}

/// `err` with its `offset` attribute set.
fn at(err: PyErr, offset: Option<u64>) -> PyErr {
    Python::attach(|py| {
        // Setting an attribute on a fresh exception instance of our own cannot fail but for
        // memory; the error is raised without it then.
        let _ = err.value(py).setattr("offset", offset);
    });
    err
}

/// An error of the framing layer, about the stream `name`, as its exception.
pub(crate) fn frame_error(name: &str, error: FrameError) -> PyErr {
    let message = format!("{name}: {error}");
    let offset = Some(error.offset());
    match error {
        FrameError::ChecksumMismatch { .. } => at(ChecksumMismatch::new_err(message), offset),
        FrameError::FrameTooLarge { .. } => at(FrameTooLarge::new_err(message), offset),
        FrameError::UnexpectedEof { .. } => at(UnexpectedEof::new_err(message), offset),
        FrameError::InvalidFlatbuffer { .. } => at(InvalidFlatbuffer::new_err(message), offset),
        FrameError::Io { source, .. } => io_error(name, source),
        _ => at(Error::new_err(message), offset),
    }
}

/// An error of the Arrow conversion, about the stream `name`, as its exception.
pub(crate) fn arrow_error(name: &str, error: ArrowError) -> PyErr {
    match error {
        ArrowError::Stream(error) => frame_error(name, error),
        ArrowError::ReadSchema { path, source } => io_error(&path.display().to_string(), source),
        ArrowError::InvalidFrame { offset, .. } => at(
            InvalidFlatbuffer::new_err(format!("{name}: {error}")),
            Some(offset),
        ),
        ArrowError::Read { offset, .. } | ArrowError::Poisoned { offset } => {
            at(Error::new_err(format!("{name}: {error}")), Some(offset))
        }
        error => schema_error(error),
    }
}

/// An error about the schema or the columns asked for (it names no stream).
pub(crate) fn schema_error(error: impl std::fmt::Display) -> PyErr {
    SchemaError::new_err(error.to_string())
}

/// A framing that cannot be told, for the stream `name`.
pub(crate) fn framing_error(message: String) -> PyErr {
    FramingError::new_err(message)
}

/// An I/O error about `name` as Python's own: `FileNotFoundError`, `PermissionError`… with the
/// file name, or, for an error a Python file object raised, that very exception.
pub(crate) fn io_error(name: &str, error: io::Error) -> PyErr {
    if error.get_ref().is_some_and(|e| e.is::<PyErr>()) {
        if let Some(inner) = error.into_inner() {
            if let Ok(err) = inner.downcast::<PyErr>() {
                return *err;
            }
        }
        return PyOSError::new_err(format!("{name}: a Python file object failed"));
    }
    // An error of the system's: `OSError(errno, strerror, filename)`, as Python's own `open`
    // raises it; another (a directory given as a stream): a message naming the file.
    match error.raw_os_error() {
        Some(errno) => os_error(error.kind(), (errno, error.to_string(), name.to_owned())),
        None => os_error(error.kind(), format!("{name}: {error}")),
    }
}

/// The `OSError` subclass Python raises for `kind`, with `args`.
fn os_error<A: PyErrArguments + Send + Sync + 'static>(kind: io::ErrorKind, args: A) -> PyErr {
    match kind {
        io::ErrorKind::NotFound => PyFileNotFoundError::new_err(args),
        io::ErrorKind::PermissionDenied => PyPermissionError::new_err(args),
        io::ErrorKind::AlreadyExists => PyFileExistsError::new_err(args),
        io::ErrorKind::IsADirectory => PyIsADirectoryError::new_err(args),
        _ => PyOSError::new_err(args),
    }
}

/// A value the caller passed that cannot be used, as `ValueError`.
pub(crate) fn value_error(message: impl Into<String>) -> PyErr {
    PyValueError::new_err(message.into())
}
