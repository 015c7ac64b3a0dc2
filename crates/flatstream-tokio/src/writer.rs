//! `AsyncStreamWriter`: frames payloads onto any `AsyncWrite`.

use flatbuffers::{Allocator, FlatBufferBuilder};
use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
use flatstream_core::{Error, Framer, Result, StreamSerialize};
use std::io;
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Writes frames to an [`AsyncWrite`] sink: the async counterpart of
/// [`StreamWriter`](flatstream_core::StreamWriter), with the same three ways to write a message.
///
/// * [`write`](Self::write) (simple mode): serializes a [`StreamSerialize`] value into the
///   writer's own builder, which is reset and reused, so a warm writer does not allocate.
/// * [`write_finished`](Self::write_finished) (expert mode): writes the finished buffer of a
///   builder you manage.
/// * [`write_payload`](Self::write_payload): writes bytes that are already a FlatBuffer.
///
/// The header is built on the stack; header and payload are handed to the sink as they are, the
/// payload is never copied by the writer. The writer does no buffering of its own: put a
/// [`tokio::io::BufWriter`] in front of a socket for small messages, and call
/// [`flush`](Self::flush) when the messages written should leave.
///
/// A payload over the bound ([`with_max_frame_len`](Self::with_max_frame_len)) or rejected by
/// the framer is refused before any of its bytes are written. If the sink fails mid-frame,
/// [`bytes_written`](Self::bytes_written) counts exactly the bytes it accepted.
///
/// # Cancel safety
///
/// The write methods are not cancel safe, as [`AsyncWriteExt::write_all`] is not: dropped
/// before it completes (in `tokio::select!`, say), a write may have put part of its frame
/// in the sink, and the stream is then torn at [`bytes_written`](Self::bytes_written), which
/// stays exact. Do not race writes against timeouts; bound the whole connection instead.
///
/// ```
/// use flatstream_core::{DefaultDeframer, DefaultFramer, StreamReader};
/// use flatstream_tokio::AsyncStreamWriter;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let mut writer = AsyncStreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"hello").await?;
/// writer.write_payload(b"raw bytes").await?;
/// writer.flush().await?;
/// let bytes = writer.into_inner();
/// // The same bytes as the sync writer's: any reader reads them.
/// let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
/// assert_eq!(flatbuffers::root::<&str>(reader.read_message()?.unwrap())?, "hello");
/// # Ok::<(), flatstream_core::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncStreamWriter<W, F> {
    sink: W,
    framer: F,
    builder: FlatBufferBuilder<'static>,
    max_frame_len: usize,
    written: u64,
}

impl<W: AsyncWrite + Unpin, F: Framer> AsyncStreamWriter<W, F> {
    /// A writer that frames with `framer` onto `sink`.
    pub fn new(sink: W, framer: F) -> Self {
        Self::with_builder(sink, framer, FlatBufferBuilder::new())
    }

    /// A writer whose simple mode uses `builder`.
    pub fn with_builder(sink: W, framer: F, builder: FlatBufferBuilder<'static>) -> Self {
        AsyncStreamWriter {
            sink,
            framer,
            builder,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            written: 0,
        }
    }

    /// Sets the largest payload this writer accepts (default
    /// [`DEFAULT_MAX_FRAME_LEN`](flatstream_core::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). Larger
    /// payloads are refused with [`Error::FrameTooLarge`] before anything is written.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max.min(u32::MAX as usize);
        self
    }

    /// Simple mode: serializes `item` into the writer's builder and writes it as one frame.
    pub async fn write<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        self.builder.reset();
        item.serialize(&mut self.builder)?;
        let payload = self.builder.finished_data();
        write_frame(
            &mut self.sink,
            &mut self.written,
            &self.framer,
            self.max_frame_len,
            payload,
        )
        .await
    }

    /// Expert mode: writes the finished buffer of `builder` as one frame. The builder is left as
    /// it is; reset it before building the next message.
    pub async fn write_finished<A: Allocator>(
        &mut self,
        builder: &FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        self.write_payload(builder.finished_data()).await
    }

    /// Writes `payload`, which should be a finished FlatBuffer, as one frame.
    pub async fn write_payload(&mut self, payload: &[u8]) -> Result<()> {
        write_frame(
            &mut self.sink,
            &mut self.written,
            &self.framer,
            self.max_frame_len,
            payload,
        )
        .await
    }

    /// Flushes the sink.
    pub async fn flush(&mut self) -> Result<()> {
        let offset = self.written;
        self.sink
            .flush()
            .await
            .map_err(|source| Error::Io { source, offset })
    }

    /// Flushes and shuts the sink down (for a `TcpStream`, the write half): the peer's reader
    /// sees the end of the stream.
    pub async fn shutdown(&mut self) -> Result<()> {
        let offset = self.written;
        self.sink
            .shutdown()
            .await
            .map_err(|source| Error::Io { source, offset })
    }

    /// Bytes the sink has accepted from this writer: the offset at which the next frame starts,
    /// or, after a failed or cancelled write, the exact length of what reached the sink.
    pub fn bytes_written(&self) -> u64 {
        self.written
    }

    /// The framer.
    pub fn framer(&self) -> &F {
        &self.framer
    }

    /// The builder used by [`write`](Self::write), for example to release memory after a
    /// burst of large messages.
    pub fn builder_mut(&mut self) -> &mut FlatBufferBuilder<'static> {
        &mut self.builder
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.sink
    }

    /// The sink. Writing to it directly puts bytes in the stream that the writer does not count.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.sink
    }

    /// Returns the sink, without flushing it.
    pub fn into_inner(self) -> W {
        self.sink
    }
}

impl<W: core::fmt::Debug, F: core::fmt::Debug> core::fmt::Debug for AsyncStreamWriter<W, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncStreamWriter")
            .field("sink", &self.sink)
            .field("framer", &self.framer)
            .field("bytes_written", &self.written)
            .field("max_frame_len", &self.max_frame_len)
            .finish_non_exhaustive()
    }
}

/// Writes the frame of `payload`, adding every byte the sink accepts to `written` as it goes.
async fn write_frame<W: AsyncWrite + Unpin, F: Framer>(
    sink: &mut W,
    written: &mut u64,
    framer: &F,
    max: usize,
    payload: &[u8],
) -> Result<()> {
    let offset = *written;
    if payload.len() > max {
        return Err(Error::FrameTooLarge {
            offset,
            len: payload.len() as u64,
            max: max as u64,
        });
    }
    let header = framer.header(payload, offset)?;
    let result = match write_all(sink, header.as_bytes(), written).await {
        Ok(()) => write_all(sink, payload, written).await,
        Err(e) => Err(e),
    };
    result.map_err(|source| Error::Io { source, offset })
}

/// `write_all`, adding every byte the sink accepts to `written` as soon as it does (so that the
/// count stays exact if the future is dropped).
async fn write_all<W: AsyncWrite + Unpin>(
    sink: &mut W,
    mut buf: &[u8],
    written: &mut u64,
) -> io::Result<()> {
    while !buf.is_empty() {
        match sink.write(buf).await {
            Ok(0) => {
                return Err(io::Error::new(
                    io::ErrorKind::WriteZero,
                    "sink accepted no bytes",
                ));
            }
            Ok(n) => {
                let n = n.min(buf.len());
                *written += n as u64;
                buf = &buf[n..];
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
