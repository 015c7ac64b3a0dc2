//! `AsyncStreamReader`: reads frames from any `AsyncRead`, handing out payloads borrowed from its
//! buffer, or as `Bytes` split from it.

use bytes::{Bytes, BytesMut};
use core::ops::Range;
use flatstream_core::{
    Deframer, IntoControlFlow, Next, NoReclaim, ReadBuffer, ReclaimPolicy, Result,
};
use std::io;
use tokio::io::{AsyncRead, AsyncReadExt};

/// Reads frames from an [`AsyncRead`] source: the async counterpart of
/// [`StreamReader`](flatstream_core::StreamReader), with the same vocabulary.
///
/// * [`read_message`](Self::read_message) returns the next payload, borrowed from the reader's
///   buffer, or `None` at a clean end of stream (the source ended between two frames).
/// * [`read_bytes`](Self::read_bytes) returns it as a [`Bytes`] split from the buffer, with no
///   copy: `Send + 'static`, for another task.
/// * [`process_all`](Self::process_all) calls a closure with every payload until the end; the
///   closure may stop early by returning `ControlFlow::Break(())`.
///
/// It fills its buffer with reads as large as the free space and hands out every complete
/// frame in it before reading again; it needs no `BufReader` in front of a `TcpStream`. It is a
/// loop around flatstream's sans-I/O [`ReadBuffer`], the one under the sync readers: the same
/// bound, errors, offsets and memory behaviour.
///
/// # Memory
///
/// The buffer is allocated on the first read, at 8 KiB or the capacity given to
/// [`with_capacity`](Self::with_capacity) if smaller, and doubles as data arrives up to that
/// capacity (64 KiB for [`new`](Self::new)). It grows past it only for a frame that does not
/// fit, and then only as the frame's bytes arrive, at most doubling: a peer that sends a header
/// claiming the bound and then trickles bytes holds about twice what it sent, not the claim. A
/// declared length over the bound ([`with_max_frame_len`](Self::with_max_frame_len), default
/// 2 GiB) is an error as soon as the length prefix is in. After a large frame,
/// [`shrink_to`](Self::shrink_to) or a [`with_reclaim`](Self::with_reclaim) policy give the
/// memory back.
///
/// # Errors
///
/// As for `StreamReader`: the end of the source inside a frame is [`Error::UnexpectedEof`](flatstream_core::Error::UnexpectedEof);
/// `Interrupted` is retried; other I/O errors are [`Error::Io`](flatstream_core::Error::Io) and keep every byte received,
/// the next call carries on; framing errors leave the reader at the bad frame; content errors
/// from a validating deframer concern a frame read whole, and the reader moves past it.
///
/// # Cancel safety
///
/// [`read_message`](Self::read_message) and [`read_bytes`](Self::read_bytes) are cancel safe.
/// If one of them is used as a branch in `tokio::select!` (with a timeout, say) and another
/// branch completes first, then it is guaranteed that no data was lost: the bytes received
/// stay in the reader's buffer, and the next call resumes the frame where it was.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer};
/// use flatstream::tokio::{AsyncStreamReader, AsyncStreamWriter};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let mut writer = AsyncStreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"one").await?;
/// writer.write(&"two").await?;
/// let bytes = writer.into_inner();
///
/// let mut reader = AsyncStreamReader::new(&bytes[..], DefaultDeframer).with_max_frame_len(1024);
/// let mut seen = Vec::new();
/// while let Some(payload) = reader.read_message().await? {
///     seen.push(flatbuffers::root::<&str>(payload)?.to_owned());
/// }
/// assert_eq!(seen, ["one", "two"]);
/// # Ok::<(), flatstream::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AsyncStreamReader<R, D, P = NoReclaim> {
    source: R,
    buffer: ReadBuffer<D, P, BytesMut>,
}

impl<R: AsyncRead + Unpin, D: Deframer> AsyncStreamReader<R, D> {
    /// A reader of `source` with `deframer` and a buffer of
    /// [`DEFAULT_CAPACITY`](flatstream_core::DEFAULT_CAPACITY) (64 KiB).
    pub fn new(source: R, deframer: D) -> Self {
        Self::from_buffer(source, ReadBuffer::with_storage(deframer))
    }

    /// A reader with an initial buffer of `capacity` bytes (at least 16), allocated on the
    /// first read.
    pub fn with_capacity(capacity: usize, source: R, deframer: D) -> Self {
        Self::from_buffer(
            source,
            ReadBuffer::with_storage(deframer).with_capacity(capacity),
        )
    }
}

impl<R: AsyncRead + Unpin, D: Deframer, P: ReclaimPolicy> AsyncStreamReader<R, D, P> {
    /// A reader of `source` with the format, bound, capacity and reclaim policy of `config`.
    pub fn from_config<F>(source: R, config: &flatstream_core::FrameConfig<F, D, P>) -> Self
    where
        D: Clone,
        P: Clone,
    {
        Self::from_buffer(source, config.read_buffer_in())
    }

    /// A reader of `source` through `buffer`: its deframer, bound, capacity, reclaim policy
    /// and position.
    pub fn from_buffer(source: R, buffer: ReadBuffer<D, P, BytesMut>) -> Self {
        AsyncStreamReader { source, buffer }
    }

    /// Sets the largest payload accepted (default
    /// [`DEFAULT_MAX_FRAME_LEN`](flatstream_core::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). A
    /// frame declaring more is rejected with [`Error::FrameTooLarge`](flatstream_core::Error::FrameTooLarge)
    /// before any of it is buffered.
    ///
    /// The same setting as [`FrameConfig::with_max_frame_len`](flatstream_core::FrameConfig::with_max_frame_len).
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.buffer.set_max_frame_len(max);
        self
    }

    /// Gives buffer memory back after large frames, as `policy` decides
    /// ([`ShrinkAfter`](flatstream_core::ShrinkAfter),
    /// [`ShrinkAbove`](flatstream_core::ShrinkAbove)): the buffer shrinks to the policy's
    /// baseline at the start of the next call, when no payload is borrowed any more. Payloads
    /// handed out as `Bytes` keep their own part of the old buffer alive until dropped.
    pub fn with_reclaim<Q: ReclaimPolicy>(self, policy: Q) -> AsyncStreamReader<R, D, Q> {
        AsyncStreamReader {
            source: self.source,
            buffer: self.buffer.with_reclaim(policy),
        }
    }

    /// Reads the next frame and returns its payload, borrowed from the reader's buffer, or
    /// `None` when the source ends exactly between two frames.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If you use it as a branch in `tokio::select!` and another
    /// branch completes first, then it is guaranteed that no data was lost: the next call
    /// resumes where this one stopped.
    pub async fn read_message(&mut self) -> Result<Option<&[u8]>> {
        Ok(self
            .next_frame()
            .await?
            .map(|payload| self.buffer.payload(payload)))
    }

    /// Reads the next frame and returns its payload as a [`Bytes`] split from the reader's
    /// buffer (no copy; it keeps its part of the buffer alive by itself), or `None` when the
    /// source ends exactly between two frames.
    ///
    /// # Cancel safety
    ///
    /// This method is cancel safe. If you use it as a branch in `tokio::select!` and another
    /// branch completes first, then it is guaranteed that no data was lost: the next call
    /// resumes where this one stopped.
    pub async fn read_bytes(&mut self) -> Result<Option<Bytes>> {
        let Some(payload) = self.next_frame().await? else {
            return Ok(None);
        };
        Ok(Some(self.buffer.take_bytes(payload)))
    }

    /// Calls `f` with each payload until the end of the stream.
    ///
    /// `f` returns `Ok(())` to go on, or `Ok(ControlFlow::Break(()))` to stop early (not an
    /// error; the next frame stays unread). An error returned by `f` stops the loop and is
    /// returned; a verifier or validation error raised in `f` is stamped with the offset of the
    /// frame being processed. Every frame already buffered is handed out before the source is
    /// read again.
    ///
    /// # Cancel safety
    ///
    /// Dropped at an `.await`, it loses nothing: the frames `f` was given are consumed, the rest
    /// stays in the reader for the next call.
    pub async fn process_all<F, C>(&mut self, mut f: F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<C>,
        C: IntoControlFlow,
    {
        loop {
            // Every complete frame already buffered, in one synchronous pass: there is no await
            // in it, so nothing can cancel it half-way.
            if self.buffer.process_buffered(&mut f)?.is_break() || !self.fill().await? {
                return Ok(());
            }
        }
    }

    /// Stream offset of the next frame: the bytes of the frames handed out (or stepped over)
    /// so far.
    pub fn position(&self) -> u64 {
        self.buffer.position()
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        self.buffer.decoder().deframer()
    }

    flatstream_core::__source_accessors!(R);

    /// Returns the source and the bytes read ahead but not consumed.
    pub fn into_parts(self) -> (R, BytesMut) {
        (self.source, self.buffer.into_buffered())
    }

    /// The next complete, verified frame, read into the buffer as needed; returns the
    /// payload's range in the buffer.
    ///
    /// Cancel safe: every change to the reader's state is made between two awaits, and the
    /// only await is a cancel-safe read into the buffer's free space.
    #[inline]
    async fn next_frame(&mut self) -> Result<Option<Range<usize>>> {
        loop {
            if let Next::Frame(payload) = self.buffer.next_frame()? {
                return Ok(Some(payload));
            }
            if !self.fill().await? {
                return Ok(None);
            }
        }
    }

    /// Reads once into the buffer's free space: `true` when bytes arrived, `false` when the
    /// source is at its end between two frames; the end inside a frame, and I/O errors, are
    /// errors. Cancel safe: `read` into a slice, dropped before it completes, has read nothing.
    async fn fill(&mut self) -> Result<bool> {
        let space = self.buffer.read_space();
        let read = loop {
            match self.source.read(space).await {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        self.buffer.after_read(read)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_core::ShrinkAbove;
    use flatstream_core::{DefaultDeframer, DefaultFramer};

    fn block_on<F: Future>(f: F) -> F::Output {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("a runtime")
            .block_on(f)
    }

    /// A large frame between small ones, and a reader whose policy shrinks after it.
    fn large_between_small() -> (Vec<u8>, ShrinkAbove) {
        let big = vec![1u8; 100_000];
        let bytes =
            flatstream_test_support::stream_with(DefaultFramer, &[&b"a"[..], &big, b"b", b"c"]);
        (bytes, ShrinkAbove::new(1024, 4096))
    }

    #[test]
    fn process_all_gives_the_buffer_back_after_a_large_frame_and_goes_on() {
        let (bytes, policy) = large_between_small();
        let mut reader = AsyncStreamReader::with_capacity(1024, &bytes[..], DefaultDeframer)
            .with_reclaim(policy);
        let mut lens = Vec::new();
        block_on(reader.process_all(|payload| {
            lens.push(payload.len());
            Ok(())
        }))
        .unwrap();
        assert_eq!(lens, [1, 100_000, 1, 1]);
        assert_eq!(reader.position(), bytes.len() as u64);
        assert!(reader.capacity() <= 1024, "{}", reader.capacity());
    }

    #[test]
    fn read_message_gives_the_buffer_back_at_the_next_call() {
        let (bytes, policy) = large_between_small();
        let mut reader = AsyncStreamReader::with_capacity(1024, &bytes[..], DefaultDeframer)
            .with_reclaim(policy);
        block_on(async {
            assert_eq!(reader.read_message().await.unwrap(), Some(&b"a"[..]));
            assert_eq!(reader.read_message().await.unwrap().unwrap().len(), 100_000);
            assert!(reader.capacity() > 100_000);
            assert_eq!(reader.read_bytes().await.unwrap().unwrap(), &b"b"[..]);
            assert!(reader.capacity() <= 1024, "{}", reader.capacity());
            assert_eq!(reader.read_message().await.unwrap(), Some(&b"c"[..]));
            assert_eq!(reader.read_message().await.unwrap(), None);
        });
    }
}
