//! Raw frames in and out: `flatstream.Reader`, which iterates over a stream's payloads, and
//! `flatstream.Writer`, which frames finished FlatBuffers. Both are byte-compatible with the
//! Rust crates and the `flatstream` command.

use crate::errors::{frame_error, io_error, value_error};
use crate::source::{Checksum, DEFAULT_MAX_FRAME_LEN, Frames, Opened, open_sink, open_source};
use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::{ChecksumFramer, StreamWriter};
use pyo3::buffer::PyBuffer;
use pyo3::prelude::*;
use pyo3::types::PyBytes;
use std::io::Write;

/// Iterates over the payloads of a stream of frames, each a `bytes` holding one FlatBuffer.
///
/// `source` is a path, bytes-like data, or a binary file object. `checksum` is the stream's
/// checksum (`"none"`, `"xxhash64"`, `"crc32"`, `"crc16"`, `"crc32c"`), or `"auto"` to detect
/// it from the leading frames. A frame declaring a payload over `max_frame_len` bytes is an
/// error before anything is allocated for it. While it waits for its input (a named pipe's
/// writer, bytes that have not arrived), other Python threads run.
#[pyclass(module = "flatstream")]
pub(crate) struct Reader {
    name: String,
    kind: ChecksumKind,
    /// `None` once closed.
    frames: Option<Frames>,
    /// The offset of the frame of the last payload returned.
    offset: Option<u64>,
    count: u64,
}

#[pymethods]
impl Reader {
    #[new]
    #[pyo3(signature = (source, checksum = "auto", max_frame_len = None))]
    fn new(
        source: &Bound<'_, PyAny>,
        checksum: &str,
        max_frame_len: Option<usize>,
    ) -> PyResult<Self> {
        let checksum = Checksum::parse(checksum)?;
        let max = max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN);
        let (name, input) = open_source(source)?;
        // Detection reads the leading frames, which may not have arrived yet.
        let opened = source
            .py()
            .detach(|| Opened::new(name, input, checksum, max))?;
        let (name, kind) = (opened.name.clone(), opened.kind);
        Ok(Reader {
            name,
            kind,
            frames: Some(opened.frames(max)?),
            offset: None,
            count: 0,
        })
    }

    fn __iter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    fn __next__<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyBytes>>> {
        let Some(frames) = self.frames.as_mut() else {
            return Err(value_error("I/O operation on a closed Reader"));
        };
        let offset = frames.position();
        // A frame already buffered is handed out as it is; a read of the input (which blocks
        // on a pipe or a socket until bytes arrive) lets other Python threads run.
        match frames.read_message_with(|read| py.detach(read)) {
            Ok(Some(payload)) => {
                self.offset = Some(offset);
                self.count += 1;
                Ok(Some(PyBytes::new(py, payload)))
            }
            Ok(None) => Ok(None),
            Err(e) => Err(frame_error(&self.name, e)),
        }
    }

    /// The stream's checksum: the one given, or the one detected.
    #[getter]
    fn checksum(&self) -> &'static str {
        self.kind.name()
    }

    /// The byte offset of the frame whose payload was returned last (`None` before the first).
    #[getter]
    fn offset(&self) -> Option<u64> {
        self.offset
    }

    /// How many payloads were returned.
    #[getter]
    fn frames(&self) -> u64 {
        self.count
    }

    /// Releases the input (a file is closed; a file object is let go, not closed).
    fn close(&mut self) {
        self.frames = None;
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> bool {
        self.close();
        false
    }

    fn __repr__(&self) -> String {
        format!(
            "flatstream.Reader({:?}, checksum={:?}, frames={})",
            self.name,
            self.kind.name(),
            self.count
        )
    }
}

type Sink = Box<dyn Write + Send + Sync>;

/// Writes finished FlatBuffers as frames: `[u32 LE length][checksum][payload]`.
///
/// `sink` is a path (created, or truncated) or a binary file object. `checksum` is
/// `"xxhash64"` (the default), `"crc32"`, `"crc16"`, `"crc32c"` or `"none"`. Writes are
/// buffered: `flush()` or `close()` (or leaving a `with` block) passes them on.
#[pyclass(module = "flatstream")]
pub(crate) struct Writer {
    name: String,
    kind: ChecksumKind,
    /// `None` once closed.
    writer: Option<StreamWriter<Sink, ChecksumFramer<AnyChecksum>>>,
    count: u64,
    written: u64,
}

#[pymethods]
impl Writer {
    #[new]
    #[pyo3(signature = (sink, checksum = "xxhash64", max_frame_len = None))]
    fn new(
        sink: &Bound<'_, PyAny>,
        checksum: &str,
        max_frame_len: Option<usize>,
    ) -> PyResult<Self> {
        let kind = match Checksum::parse(checksum)? {
            Checksum::Given(kind) => kind,
            Checksum::Auto => {
                return Err(value_error(
                    "checksum=\"auto\" is for reading: a Writer needs a checksum's name",
                ));
            }
        };
        let framer = ChecksumFramer::new(crate::source::checksum(kind)?);
        let (name, sink) = open_sink(sink)?;
        let writer = StreamWriter::new(sink, framer)
            .with_max_frame_len(max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN));
        Ok(Writer {
            name,
            kind,
            writer: Some(writer),
            count: 0,
            written: 0,
        })
    }

    /// Writes `payload`, one finished FlatBuffer (`builder.Output()`), as a frame. Takes
    /// `bytes`, `bytearray`, `memoryview` or any other contiguous bytes-like object.
    fn write(&mut self, payload: &Bound<'_, PyAny>) -> PyResult<()> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(closed());
        };
        let result = if let Ok(bytes) = payload.cast::<PyBytes>() {
            writer.write_payload(bytes.as_bytes())
        } else {
            let buffer = PyBuffer::<u8>::get(payload)?;
            writer.write_payload(&buffer.to_vec(payload.py())?)
        };
        let written = writer.bytes_written();
        result.map_err(|e| frame_error(&self.name, e))?;
        self.count += 1;
        self.written = written;
        Ok(())
    }

    /// Passes on what is buffered (and flushes a file object that has `flush`).
    fn flush(&mut self) -> PyResult<()> {
        let Some(writer) = self.writer.as_mut() else {
            return Err(closed());
        };
        writer.flush().map_err(|e| frame_error(&self.name, e))
    }

    /// Flushes, then releases the sink (a file is closed; a file object is flushed and let
    /// go, not closed). Closing twice does nothing.
    fn close(&mut self) -> PyResult<()> {
        let Some(mut writer) = self.writer.take() else {
            return Ok(());
        };
        writer.flush().map_err(|e| frame_error(&self.name, e))?;
        writer
            .into_inner()
            .flush()
            .map_err(|e| io_error(&self.name, e))
    }

    /// The sink's checksum.
    #[getter]
    fn checksum(&self) -> &'static str {
        self.kind.name()
    }

    /// How many frames were written.
    #[getter]
    fn frames(&self) -> u64 {
        self.count
    }

    /// How many bytes the frames take, headers included.
    #[getter]
    fn bytes_written(&self) -> u64 {
        self.written
    }

    fn __enter__(slf: PyRef<'_, Self>) -> PyRef<'_, Self> {
        slf
    }

    /// Closes the writer, also when the block raised: the frames written before stay written.
    #[pyo3(signature = (*_exc))]
    fn __exit__(&mut self, _exc: &Bound<'_, pyo3::types::PyTuple>) -> PyResult<bool> {
        self.close()?;
        Ok(false)
    }

    fn __repr__(&self) -> String {
        format!(
            "flatstream.Writer({:?}, checksum={:?}, frames={})",
            self.name,
            self.kind.name(),
            self.count
        )
    }
}

/// The error for a Writer used after `close()`, in the words of Python's own files.
fn closed() -> PyErr {
    value_error("I/O operation on a closed Writer")
}

impl Drop for Writer {
    /// A writer dropped without `close()` still passes on what it buffered (errors cannot be
    /// raised from here: call `close()` to see them).
    fn drop(&mut self) {
        if let Some(writer) = self.writer.as_mut() {
            let _ = writer.flush();
        }
    }
}
