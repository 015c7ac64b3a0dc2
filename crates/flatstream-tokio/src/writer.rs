//! `AsyncStreamWriter`: frames payloads onto any `AsyncWrite`, driving core's `WriterCore`.

use core::borrow::Borrow;
use flatbuffers::{Allocator, FlatBufferBuilder};
use flatstream_core::{Error, Framer, Receipt, Result, StreamSerialize, WriterCore};
use std::future::Future;
use std::io;
use tokio::io::{AsyncWrite, AsyncWriteExt};

/// Writes frames to an [`AsyncWrite`] sink: the async counterpart of
/// [`StreamWriter`](flatstream_core::StreamWriter), with the same three ways to write a message,
/// the same receipts, bound and byte count (both drive one
/// [`WriterCore`](flatstream_core::WriterCore)), and the same bytes on the wire.
///
/// * [`write`](Self::write) (simple mode): serializes a [`StreamSerialize`] value into the
///   writer's own builder, which is reset and reused, so a warm writer does not allocate.
/// * [`write_finished`](Self::write_finished) (expert mode): writes the finished buffer of a
///   builder you manage.
/// * [`write_payload`](Self::write_payload): writes bytes that are already a FlatBuffer.
///
/// Each has a `*_with_receipt` twin that returns a [`Receipt`]: where the frame starts and how
/// long it is. [`with_offset`](Self::with_offset) makes those offsets offsets in a file the
/// writer appends to.
///
/// The header is built on the stack; header and payload are handed to the sink as they are, the
/// payload is never copied by the writer. The writer does no buffering of its own: put a
/// [`tokio::io::BufWriter`] in front of a socket for small messages, and call
/// [`flush`](Self::flush) when the messages written should leave.
///
/// # Errors and what reached the sink
///
/// A payload over the bound ([`with_max_frame_len`](Self::with_max_frame_len)) or rejected by
/// the framer is refused before any of its bytes are written. If the sink fails mid-frame,
/// [`bytes_written`](Self::bytes_written) counts exactly the bytes it accepted and
/// [`torn`](Self::torn) says where the torn frame starts, so a journal can cut it off before
/// appending again.
///
/// # Durability
///
/// On a sink that can be synced ([`AsyncSyncSink`]: a `tokio::fs::File`, or a `BufWriter` in
/// front of one), [`sync`](Self::sync) flushes and syncs now, and [`durable`](Self::durable)
/// is the offset up to which every frame is known to be on disk, by the same rules as the sync
/// writer's (never past a torn frame, never again after a failed sync).
///
/// What the sync writer offers and this one does not: sync policies
/// ([`SyncPolicy`](flatstream_core::SyncPolicy)) and the watermark file. A policy syncs inside
/// the write, through a blocking call on the sink; here a sync is a future, so it is yours to
/// await where it fits (after a batch, on a timer, before acknowledging a message). Publishing
/// the watermark is a blocking write of a small file, which does not belong on a runtime's
/// thread: publish [`durable`](Self::durable) yourself after `sync`, with a
/// [`WatermarkFile`](flatstream_core::WatermarkFile) in `spawn_blocking`, if followers in other
/// processes need it.
///
/// # Cancel safety
///
/// The write methods are not cancel safe, as [`AsyncWriteExt::write_all`] is not: dropped
/// before it completes (in `tokio::select!`, say), a write may have put part of its frame
/// in the sink, and the stream is then torn there. [`bytes_written`](Self::bytes_written) stays
/// exact and [`torn`](Self::torn) names that frame. Do not race writes against timeouts; bound
/// the whole connection instead.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamReader};
/// use flatstream::tokio::AsyncStreamWriter;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let mut writer = AsyncStreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"hello").await?;
/// let receipt = writer.write_payload_with_receipt(b"raw bytes").await?;
/// assert_eq!((receipt.offset, receipt.len), (20, 13));
/// writer.flush().await?;
/// let bytes = writer.into_inner();
/// // The same bytes as the sync writer's: any reader reads them.
/// let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
/// assert_eq!(flatbuffers::root::<&str>(reader.read_message()?.unwrap())?, "hello");
/// # Ok::<(), flatstream::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct AsyncStreamWriter<W, F> {
    out: Out<W, F>,
    builder: FlatBufferBuilder<'static>,
}

/// Where frames go: the sink, the framer, and the core that counts what the sink accepted.
/// Apart from the builder, so that a payload borrowed from it can be written.
struct Out<W, F> {
    sink: W,
    core: WriterCore,
    /// The start of the frame being written, while a write is under way: still set when a write
    /// was dropped mid-frame, and then settled into the core's torn frame.
    pending: Option<u64>,
    framer: F,
}

/// A sink whose accepted bytes can be made durable, asynchronously: a `tokio::fs::File`, or a
/// `tokio::io::BufWriter` in front of one (it flushes its buffer first). The async counterpart
/// of [`SyncSink`](flatstream_core::SyncSink).
///
/// ```
/// use flatstream::DefaultFramer;
/// use flatstream::tokio::AsyncStreamWriter;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let dir = std::env::temp_dir().join(format!("flatstream-doc-async-sync-{}", std::process::id()));
/// std::fs::create_dir_all(&dir)?;
/// let file = tokio::fs::File::create(dir.join("journal.fstream")).await?;
/// let mut writer = AsyncStreamWriter::new(tokio::io::BufWriter::new(file), DefaultFramer);
/// writer.write(&"one").await?;
/// let receipt = writer.write_with_receipt(&"two").await?;
/// assert_eq!(writer.durable(), 0); // handed to the buffer, not synced yet
/// assert_eq!(writer.sync().await?, receipt.end());
/// std::fs::remove_dir_all(&dir)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub trait AsyncSyncSink: AsyncWrite + Unpin {
    /// Hands every byte accepted so far to the file, then waits until the file's data is on
    /// the storage device (`File::sync_data`).
    fn sync(&mut self) -> impl Future<Output = io::Result<()>> + Send;
}

/// tokio's `File` hands each write to a blocking thread and returns before the OS has the bytes:
/// a write that returned is in the OS only once the file is flushed. `sync` flushes first, then
/// `sync_data`.
impl AsyncSyncSink for tokio::fs::File {
    async fn sync(&mut self) -> io::Result<()> {
        self.flush().await?;
        self.sync_data().await
    }
}

/// Flushes the buffer, then syncs the file behind it.
impl<W: AsyncSyncSink + Send> AsyncSyncSink for tokio::io::BufWriter<W> {
    async fn sync(&mut self) -> io::Result<()> {
        self.flush().await?;
        self.get_mut().sync().await
    }
}

impl<S: AsyncSyncSink + Send + ?Sized> AsyncSyncSink for &mut S {
    async fn sync(&mut self) -> io::Result<()> {
        (**self).sync().await
    }
}

impl<W: AsyncWrite + Unpin, F: Framer> AsyncStreamWriter<W, F> {
    /// A writer that frames with `framer` onto `sink`.
    pub fn new(sink: W, framer: F) -> Self {
        Self::with_builder(sink, framer, FlatBufferBuilder::new())
    }

    /// A writer whose simple mode uses `builder`.
    pub fn with_builder(sink: W, framer: F, builder: FlatBufferBuilder<'static>) -> Self {
        AsyncStreamWriter {
            out: Out {
                sink,
                core: WriterCore::new(),
                pending: None,
                framer,
            },
            builder,
        }
    }

    flatstream_core::__writer_core_setters!("flatstream_core", out.core);

    /// Simple mode: serializes `item` into the writer's builder and writes it as one frame.
    pub async fn write<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        self.write_with_receipt(item).await.map(drop)
    }

    /// Expert mode: writes the finished buffer of `builder` as one frame. The builder is left as
    /// it is; reset it before building the next message. Pass `&builder` or `&mut builder`: both
    /// compile, as on the sync writer (any `Borrow` of a builder does).
    pub async fn write_finished<'b, A: Allocator, B: Borrow<FlatBufferBuilder<'b, A>>>(
        &mut self,
        builder: B,
    ) -> Result<()> {
        self.write_payload(builder.borrow().finished_data()).await
    }

    /// Writes `payload`, which should be a finished FlatBuffer, as one frame.
    pub async fn write_payload(&mut self, payload: &[u8]) -> Result<()> {
        self.write_payload_with_receipt(payload).await.map(drop)
    }

    /// [`write`](Self::write), returning where the frame went.
    pub async fn write_with_receipt<T: StreamSerialize + ?Sized>(
        &mut self,
        item: &T,
    ) -> Result<Receipt> {
        self.builder.reset();
        item.serialize(&mut self.builder)?;
        self.out.write(self.builder.finished_data()).await
    }

    /// [`write_finished`](Self::write_finished), returning where the frame went.
    pub async fn write_finished_with_receipt<
        'b,
        A: Allocator,
        B: Borrow<FlatBufferBuilder<'b, A>>,
    >(
        &mut self,
        builder: B,
    ) -> Result<Receipt> {
        self.write_payload_with_receipt(builder.borrow().finished_data())
            .await
    }

    /// [`write_payload`](Self::write_payload), returning where the frame went.
    pub async fn write_payload_with_receipt(&mut self, payload: &[u8]) -> Result<Receipt> {
        self.out.write(payload).await
    }

    /// Flushes the sink.
    pub async fn flush(&mut self) -> Result<()> {
        let result = self.out.sink.flush().await;
        self.at_end(result)
    }

    /// Flushes and shuts the sink down (for a `TcpStream`, the write half): the peer's reader
    /// sees the end of the stream.
    pub async fn shutdown(&mut self) -> Result<()> {
        let result = self.out.sink.shutdown().await;
        self.at_end(result)
    }

    /// The result of flushing or shutting the sink down, an error stamped with the end of what
    /// it accepted.
    fn at_end(&self, result: io::Result<()>) -> Result<()> {
        let offset = self.out.core.bytes_written();
        result.map_err(|source| Error::Io { source, offset })
    }

    /// Bytes the sink has accepted from this writer: the offset at which the next frame starts,
    /// or, after a failed or cancelled write, the exact end of what reached the sink.
    pub fn bytes_written(&self) -> u64 {
        self.out.core.bytes_written()
    }

    /// The start of the first frame that a failed or cancelled write left partly in the sink,
    /// if one did: a reader stops there. Cut the stream there (or repair it) before appending
    /// again.
    pub fn torn(&self) -> Option<u64> {
        let cancelled = self
            .out
            .pending
            .filter(|&f| self.out.core.bytes_written() > f);
        match (self.out.core.torn(), cancelled) {
            (Some(t), Some(c)) => Some(t.min(c)),
            (t, c) => t.or(c),
        }
    }

    /// The durable watermark: the stream offset up to which every frame is known to be on disk.
    /// It moves, to the end of a frame, only when [`sync`](Self::sync) succeeds; 0 (or the
    /// [`with_offset`](Self::with_offset)) before. As the sync writer's, it never passes a torn
    /// frame and never moves again after a failed sync (see
    /// [`StreamWriter::durable`](flatstream_core::StreamWriter::durable)).
    pub fn durable(&self) -> u64 {
        self.out.core.durable()
    }

    /// The writer's sans-I/O state: byte count, bound, torn frame, durable watermark.
    pub fn core(&self) -> &WriterCore {
        &self.out.core
    }

    /// The framer.
    pub fn framer(&self) -> &F {
        &self.out.framer
    }

    /// The builder used by [`write`](Self::write). Useful to inspect or replace it, for
    /// example to release memory after a burst of large messages.
    pub fn builder_mut(&mut self) -> &mut FlatBufferBuilder<'static> {
        &mut self.builder
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.out.sink
    }

    /// The sink. Writing to it directly puts bytes in the stream that the writer does not
    /// count.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.out.sink
    }

    /// Returns the sink, without flushing it.
    pub fn into_inner(self) -> W {
        self.out.sink
    }
}

impl<W: AsyncSyncSink, F: Framer> AsyncStreamWriter<W, F> {
    /// Flushes the sink and syncs it to disk now, and returns the new durable watermark: every
    /// frame written so far (up to the first torn frame, if a write failed or was cancelled
    /// mid-frame: see [`durable`](Self::durable)).
    ///
    /// # Errors
    ///
    /// [`Error::Sync`] if the sync fails, now or at any earlier sync of this writer; the
    /// watermark stays where it was.
    pub async fn sync(&mut self) -> Result<u64> {
        self.out.settle();
        match self.out.sink.sync().await {
            Ok(()) => self.out.core.synced(self.out.core.bytes_written()),
            Err(e) => Err(self.out.core.sync_failed(e)),
        }
    }
}

impl<W: core::fmt::Debug, F: core::fmt::Debug> core::fmt::Debug for AsyncStreamWriter<W, F> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("AsyncStreamWriter")
            .field("sink", &self.out.sink)
            .field("framer", &self.out.framer)
            .field("core", &self.out.core)
            .finish_non_exhaustive()
    }
}

impl<W: AsyncWrite + Unpin, F: Framer> Out<W, F> {
    /// A write dropped mid-frame left `pending` set: tells the core the frame was not finished.
    fn settle(&mut self) {
        if let Some(frame) = self.pending.take() {
            self.core.unfinished(frame);
        }
    }

    /// Writes the frame of `payload`, counting every byte the sink accepts in the core as soon
    /// as it does (so that the count stays exact if the future is dropped).
    async fn write(&mut self, payload: &[u8]) -> Result<Receipt> {
        self.settle();
        let offset = self.core.bytes_written();
        let header = self.core.header(&self.framer, payload)?;
        self.pending = Some(offset);
        let mut accepted = 0;
        for mut buf in [header.as_bytes(), payload] {
            while !buf.is_empty() {
                match self.sink.write(buf).await {
                    Ok(0) => {
                        self.pending = None;
                        let zero =
                            io::Error::new(io::ErrorKind::WriteZero, "sink accepted no bytes");
                        return Err(self.core.write_failed(zero, offset));
                    }
                    Ok(n) => {
                        let n = n.min(buf.len());
                        accepted += n as u64;
                        self.core.accepted(offset, accepted);
                        buf = &buf[n..];
                    }
                    Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                    Err(e) => {
                        self.pending = None;
                        return Err(self.core.write_failed(e, offset));
                    }
                }
            }
        }
        self.pending = None;
        Ok(self.core.receipt(offset))
    }
}
