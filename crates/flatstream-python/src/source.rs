//! What the module reads from and writes to: a path, bytes, or a Python binary file object;
//! and a stream's framing, given by name or detected from its leading frames as the
//! `flatstream` command detects it.

use crate::errors::{framing_error, io_error, value_error};
use flatstream::ChecksumDeframer;
use flatstream::checksum::{AnyChecksum, ChecksumKind, Detection, detect};
use flatstream::read::{Next, ReadBuffer};
use pyo3::prelude::*;
use pyo3::types::{PyByteArray, PyBytes};
use std::fs::File;
use std::io::{self, BufWriter, Cursor, Read, Write};
use std::path::PathBuf;

/// A reader the module can hold in a Python object (which may move between threads).
pub(crate) type Input = Box<dyn Read + Send + Sync>;

/// The frames of an [`Input`], with the framing chosen at run time: the core's sans-I/O
/// buffer and the input beside it, so that the caller says how each read of the input is made
/// (the `Reader` lets other Python threads run while a read blocks).
pub(crate) struct Frames {
    input: Input,
    buffer: ReadBuffer<ChecksumDeframer<AnyChecksum>>,
}

impl Frames {
    /// The stream offset of the next frame.
    pub(crate) fn position(&self) -> u64 {
        self.buffer.position()
    }

    /// The next payload, or `None` at the end of the stream between two frames.
    pub(crate) fn read_message(&mut self) -> flatstream::Result<Option<&[u8]>> {
        self.read_message_with(|read| read())
    }

    /// [`read_message`](Self::read_message), each read of the input made inside `around`
    /// (which calls the read it is given once, and may release the GIL for it); a payload
    /// already buffered whole is handed out without a read.
    pub(crate) fn read_message_with(
        &mut self,
        mut around: impl FnMut(&mut (dyn FnMut() -> io::Result<usize> + Send)) -> io::Result<usize>,
    ) -> flatstream::Result<Option<&[u8]>> {
        loop {
            match self.buffer.next_frame()? {
                Next::Frame(payload) => return Ok(Some(self.buffer.payload(payload))),
                Next::NeedBytes => {
                    let (input, space) = (&mut self.input, self.buffer.read_space());
                    let read = around(&mut || loop {
                        match input.read(space) {
                            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                            read => return read,
                        }
                    });
                    if !self.buffer.after_read(read)? {
                        return Ok(None);
                    }
                }
            }
        }
    }
}

/// How `checksum=` asks for the framing: by name, or `"auto"` (detected).
#[derive(Debug, Clone, Copy)]
pub(crate) enum Checksum {
    Auto,
    Given(ChecksumKind),
}

impl Checksum {
    /// Parses `checksum=`: `"auto"` or a checksum's name (`"xxhash64"`, `"crc32"`, …).
    pub(crate) fn parse(name: &str) -> PyResult<Checksum> {
        if name.eq_ignore_ascii_case("auto") {
            return Ok(Checksum::Auto);
        }
        name.parse().map(Checksum::Given).map_err(|_| {
            value_error(format!(
                "checksum={name:?}: expected \"auto\", \"none\", \"xxhash64\", \"crc32\", \
                 \"crc16\" or \"crc32c\""
            ))
        })
    }

    /// The framing to read the input `name` with: the one given, or the one `detection` (of
    /// its leading bytes) found; a `FramingError` when detection cannot tell.
    pub(crate) fn resolve(self, name: &str, detection: &Detection) -> PyResult<ChecksumKind> {
        match self {
            Checksum::Given(kind) => Ok(kind),
            Checksum::Auto => detection.kind().ok_or_else(|| {
                framing_error(format!(
                    "{name}: cannot tell the stream's framing: {detection}; pass checksum="
                ))
            }),
        }
    }
}

/// The checksum `kind` names (every algorithm is compiled in: feature `all_checksums`).
pub(crate) fn checksum(kind: ChecksumKind) -> PyResult<AnyChecksum> {
    AnyChecksum::new(kind).map_err(|e| value_error(e.to_string()))
}

/// The default bound on a frame's payload: the largest FlatBuffer there can be (2 GiB - 1).
pub(crate) const DEFAULT_MAX_FRAME_LEN: usize = flatstream::framing::DEFAULT_MAX_FRAME_LEN;

/// An input opened for streaming, its leading bytes already read for detection.
pub(crate) struct Opened {
    /// The name errors use: the path, `"<bytes>"` or the file object's `name`.
    pub(crate) name: String,
    /// The framing.
    pub(crate) kind: ChecksumKind,
    /// The input from its first byte (the bytes read for detection chained before the rest).
    pub(crate) input: Input,
}

impl Opened {
    /// Reads the leading bytes of `input` as detection asks for (a first frame of any size
    /// within `max` is read whole), and resolves the framing.
    pub(crate) fn new(
        name: String,
        mut input: Input,
        checksum: Checksum,
        max: usize,
    ) -> PyResult<Opened> {
        let mut head = Vec::new();
        let kind = match checksum {
            Checksum::Given(kind) => kind,
            Checksum::Auto => {
                let mut want = 0usize;
                let detection = loop {
                    // One byte past the head, if there is one: then the head is not all of it.
                    let missing = (want.saturating_add(1)).saturating_sub(head.len());
                    input
                        .by_ref()
                        .take(missing as u64)
                        .read_to_end(&mut head)
                        .map_err(|e| io_error(&name, e))?;
                    let complete = head.len() <= want;
                    let shown = &head[..head.len().min(want)];
                    match detect(shown, complete, max) {
                        Detection::NeedMore { len } => want = len,
                        detection => break detection,
                    }
                };
                checksum.resolve(&name, &detection)?
            }
        };
        let input: Input = if head.is_empty() {
            input
        } else {
            Box::new(Cursor::new(head).chain(input))
        };
        Ok(Opened { name, kind, input })
    }

    /// Opens the file at `path` for streaming.
    pub(crate) fn path(path: &PathBuf, checksum: Checksum, max: usize) -> PyResult<Opened> {
        let (name, file) = open_file(path)?;
        Opened::new(name, Box::new(file), checksum, max)
    }

    /// The frames of the input, each at most `max` bytes.
    pub(crate) fn frames(self, max: usize) -> PyResult<Frames> {
        let mut buffer = ReadBuffer::new(ChecksumDeframer::new(checksum(self.kind)?));
        buffer.set_max_frame_len(max);
        Ok(Frames {
            input: self.input,
            buffer,
        })
    }
}

/// The file at `path`, opened to be read, with its name; a directory is an error.
fn open_file(path: &PathBuf) -> PyResult<(String, File)> {
    let name = path.display().to_string();
    let file = File::open(path).map_err(|e| io_error(&name, e))?;
    if file.metadata().is_ok_and(|m| m.is_dir()) {
        let e = io::Error::new(io::ErrorKind::IsADirectory, "is a directory");
        return Err(io_error(&name, e));
    }
    Ok((name, file))
}

/// What `Reader(source)` was given, read as an [`Input`]: a path (`str` or `os.PathLike`),
/// bytes-like data (copied once), or a binary file object (its `read` method).
pub(crate) fn open_source(source: &Bound<'_, PyAny>) -> PyResult<(String, Input)> {
    if let Ok(bytes) = source.cast::<PyBytes>() {
        return Ok((
            "<bytes>".to_owned(),
            Box::new(Cursor::new(bytes.as_bytes().to_vec())),
        ));
    }
    if let Ok(bytes) = source.cast::<PyByteArray>() {
        return Ok(("<bytes>".to_owned(), Box::new(Cursor::new(bytes.to_vec()))));
    }
    if let Ok(path) = source.extract::<PathBuf>() {
        // Opening a named pipe waits for its writer: other Python threads run meanwhile.
        let (name, file) = source.py().detach(|| open_file(&path))?;
        return Ok((name, Box::new(file)));
    }
    if source.hasattr("read")? {
        return Ok((
            file_name(source),
            Box::new(PyReader(source.clone().unbind())),
        ));
    }
    if let Ok(view) = source.call_method0("tobytes") {
        // A memoryview (or another object with `tobytes`, as array.array has).
        let bytes = view.cast_into::<PyBytes>()?;
        return Ok((
            "<bytes>".to_owned(),
            Box::new(Cursor::new(bytes.as_bytes().to_vec())),
        ));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "expected a path, bytes or a binary file object, not {}",
        source.get_type().name()?
    )))
}

/// What `Writer(sink)` was given, as a writer: a path (created or truncated) or a binary file
/// object (its `write` method), buffered.
pub(crate) fn open_sink(
    sink: &Bound<'_, PyAny>,
) -> PyResult<(String, Box<dyn Write + Send + Sync>)> {
    if let Ok(path) = sink.extract::<PathBuf>() {
        let name = path.display().to_string();
        let file = File::create(&path).map_err(|e| io_error(&name, e))?;
        return Ok((name, Box::new(BufWriter::with_capacity(1 << 16, file))));
    }
    if sink.hasattr("write")? {
        let writer = PyWriter(sink.clone().unbind());
        return Ok((
            file_name(sink),
            Box::new(BufWriter::with_capacity(1 << 16, writer)),
        ));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "expected a path or a binary file object, not {}",
        sink.get_type().name()?
    )))
}

/// A file object's `name`, if it has a text one, else `"<file>"`.
fn file_name(file: &Bound<'_, PyAny>) -> String {
    file.getattr("name")
        .and_then(|n| n.extract::<String>())
        .unwrap_or_else(|_| "<file>".to_owned())
}

/// A Python binary file object as a [`Read`]: each read calls its `read(n)`. An exception it
/// raises travels inside the `io::Error` and is raised again as itself.
struct PyReader(Py<PyAny>);

impl Read for PyReader {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let chunk = self
                .0
                .call_method1(py, "read", (buf.len(),))
                .map_err(io::Error::other)?;
            let chunk = chunk.bind(py);
            let bytes: &[u8] = if let Ok(b) = chunk.cast::<PyBytes>() {
                b.as_bytes()
            } else if chunk.is_none() {
                // A non-blocking file with nothing to read yet: no data is not the end.
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    "the file object has no data ready (non-blocking)",
                ));
            } else {
                return Err(io::Error::other(pyo3::exceptions::PyTypeError::new_err(
                    "the file object's read() returned text, not bytes: open it in binary mode",
                )));
            };
            if bytes.len() > buf.len() {
                return Err(io::Error::other(pyo3::exceptions::PyValueError::new_err(
                    "the file object's read(n) returned more than n bytes",
                )));
            }
            buf[..bytes.len()].copy_from_slice(bytes);
            Ok(bytes.len())
        })
    }
}

/// A Python binary file object as a [`Write`]: each write calls its `write(b)` (after the
/// buffering in front of it).
struct PyWriter(Py<PyAny>);

impl Write for PyWriter {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        Python::attach(|py| {
            let written = self
                .0
                .call_method1(py, "write", (PyBytes::new(py, buf),))
                .map_err(io::Error::other)?;
            // A raw file may write less than asked; a buffered one returns the length or None.
            match written.extract::<Option<usize>>(py) {
                Ok(Some(n)) if n <= buf.len() => Ok(n),
                Ok(None) => Ok(buf.len()),
                _ => Err(io::Error::other(pyo3::exceptions::PyValueError::new_err(
                    "the file object's write() returned neither a length nor None",
                ))),
            }
        })
    }

    fn flush(&mut self) -> io::Result<()> {
        Python::attach(|py| {
            if self.0.bind(py).hasattr("flush").unwrap_or(false) {
                self.0.call_method0(py, "flush").map_err(io::Error::other)?;
            }
            Ok(())
        })
    }
}
