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
    sink: Counted<W>,
    framer: F,
    builder: FlatBufferBuilder<'static>,
    /// At most `u32::MAX` by its type, so the one bound check per frame also proves the
    /// framer's length check (the compiler drops it).
    max_frame_len: u32,
}

/// The sink, and the bytes it has accepted.
struct Counted<W> {
    inner: W,
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
            sink: Counted {
                inner: sink,
                written: 0,
            },
            framer,
            builder,
            max_frame_len: u32::try_from(DEFAULT_MAX_FRAME_LEN).unwrap_or(u32::MAX),
        }
    }

    /// Sets the largest payload this writer accepts (default
    /// [`DEFAULT_MAX_FRAME_LEN`](flatstream_core::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). Larger
    /// payloads are refused with [`Error::FrameTooLarge`] before anything is written.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = u32::try_from(max).unwrap_or(u32::MAX);
        self
    }

    /// Simple mode: serializes `item` into the writer's builder and writes it as one frame.
    pub async fn write<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        self.builder.reset();
        item.serialize(&mut self.builder)?;
        let payload = self.builder.finished_data();
        self.sink
            .write_frame(&self.framer, self.max_frame_len, payload)
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
        self.sink
            .write_frame(&self.framer, self.max_frame_len, payload)
            .await
    }

    /// Flushes the sink.
    pub async fn flush(&mut self) -> Result<()> {
        let result = self.sink.inner.flush().await;
        self.sink.at_end(result)
    }

    /// Flushes and shuts the sink down (for a `TcpStream`, the write half): the peer's reader
    /// sees the end of the stream.
    pub async fn shutdown(&mut self) -> Result<()> {
        let result = self.sink.inner.shutdown().await;
        self.sink.at_end(result)
    }

    /// Bytes the sink has accepted from this writer: the offset at which the next frame starts,
    /// or, after a failed or cancelled write, the exact length of what reached the sink.
    pub fn bytes_written(&self) -> u64 {
        self.sink.written
    }

    flatstream_core::__writer_accessors!(W, F);

    /// Returns the sink, without flushing it.
    pub fn into_inner(self) -> W {
        self.sink.inner
    }
}

impl<W: core::fmt::Debug, F: core::fmt::Debug> core::fmt::Debug for AsyncStreamWriter<W, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncStreamWriter")
            .field("sink", &self.sink.inner)
            .field("framer", &self.framer)
            .field("bytes_written", &self.sink.written)
            .field("max_frame_len", &self.max_frame_len)
            .finish_non_exhaustive()
    }
}

impl<W: AsyncWrite + Unpin> Counted<W> {
    /// Writes the frame of `payload`, adding every byte the sink accepts to `written` as it
    /// goes.
    async fn write_frame<F: Framer>(&mut self, framer: &F, max: u32, payload: &[u8]) -> Result<()> {
        let offset = self.written;
        let header = framer.header_within(payload, offset, max as usize)?;
        let sink = &mut self.inner;
        let result = match write_all(sink, header.as_bytes(), &mut self.written).await {
            Ok(()) => write_all(sink, payload, &mut self.written).await,
            Err(e) => Err(e),
        };
        result.map_err(|source| Error::Io { source, offset })
    }

    /// The result of flushing or shutting the sink down, an error stamped with the end of
    /// what it accepted.
    fn at_end(&self, result: io::Result<()>) -> Result<()> {
        let offset = self.written;
        result.map_err(|source| Error::Io { source, offset })
    }
}

/// `write_all`, adding every byte the sink accepts to `written` as soon as it does (so that the
/// count stays exact if the future is dropped).
async fn write_all<W: AsyncWrite + Unpin>(
    sink: &mut W,
    mut buf: &[u8],
    written: &mut u64,
) -> io::Result<()> {
    while !buf.is_empty() {
        flatstream_core::__account_write(sink.write(buf).await, &mut buf, written)?;
    }
    Ok(())
}
