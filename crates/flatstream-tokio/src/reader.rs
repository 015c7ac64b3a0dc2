//! `AsyncStreamReader`: reads frames from any `AsyncRead`, handing out payloads borrowed from its
//! buffer, or as `Bytes` split from it.

use bytes::{Buf, Bytes, BytesMut};
use core::ops::Range;
use flatstream_adapters::{NoReclaim, ReclaimPolicy};
use flatstream_core::decode::{Decoded, Decoder, Incomplete};
use flatstream_core::{__Pass as Pass, __deliver_frames, Deframer, Error, IntoControlFlow, Result};
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
/// frame in it before reading again; it needs no `BufReader` in front of a `TcpStream`. Frames
/// are decoded by flatstream's one [`Decoder`]: the same bound, errors and offsets as the sync
/// readers.
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
/// As for `StreamReader`: the end of the source inside a frame is [`Error::UnexpectedEof`];
/// `Interrupted` is retried; other I/O errors are [`Error::Io`] and keep every byte received,
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
/// use flatstream_core::{DefaultDeframer, DefaultFramer};
/// use flatstream_tokio::{AsyncStreamReader, AsyncStreamWriter};
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
/// # Ok::<(), flatstream_core::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct AsyncStreamReader<R, D, P = NoReclaim> {
    source: R,
    decoder: Decoder<D>,
    /// The bytes received: frames handed out (or stepped over) up to `pos`, the bytes not
    /// consumed from `pos` on. The consumed ones (the payload lent out last among them) are
    /// dropped from the front only before the next read from the source, not per frame.
    buf: BytesMut,
    /// Where the next frame starts in `buf`.
    pos: usize,
    /// Stream offset of `buf[pos]`: the next frame.
    offset: u64,
    capacity: usize,
    reclaim: P,
    /// Whether the policy asked to shrink, at the next call.
    shrink: bool,
}

impl<R: AsyncRead + Unpin, D: Deframer> AsyncStreamReader<R, D> {
    /// The initial buffer capacity used by [`new`](Self::new): 64 KiB.
    pub const DEFAULT_CAPACITY: usize = 64 * 1024;

    /// A reader of `source` with `deframer` and a 64 KiB initial buffer.
    pub fn new(source: R, deframer: D) -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY, source, deframer)
    }

    /// A reader with an initial buffer of `capacity` bytes (at least 16), allocated on the
    /// first read.
    pub fn with_capacity(capacity: usize, source: R, deframer: D) -> Self {
        AsyncStreamReader {
            source,
            decoder: Decoder::new(deframer),
            buf: BytesMut::new(),
            pos: 0,
            offset: 0,
            capacity: capacity.max(16),
            reclaim: NoReclaim,
            shrink: false,
        }
    }
}

impl<R: AsyncRead + Unpin, D: Deframer, P: ReclaimPolicy> AsyncStreamReader<R, D, P> {
    /// Sets the largest payload accepted (default
    /// [`DEFAULT_MAX_FRAME_LEN`](flatstream_core::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). A
    /// frame declaring more is rejected with [`Error::FrameTooLarge`] before any of it is
    /// buffered.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.decoder.set_max_frame_len(max);
        self
    }

    /// Gives buffer memory back after large frames, as `policy` decides
    /// ([`ShrinkAfter`](flatstream_adapters::ShrinkAfter),
    /// [`ShrinkAbove`](flatstream_adapters::ShrinkAbove)): the buffer shrinks to the policy's
    /// baseline at the start of the next call, when no payload is borrowed any more. Payloads
    /// handed out as `Bytes` keep their own part of the old buffer alive until dropped.
    pub fn with_reclaim<Q: ReclaimPolicy>(self, policy: Q) -> AsyncStreamReader<R, D, Q> {
        AsyncStreamReader {
            source: self.source,
            decoder: self.decoder,
            buf: self.buf,
            pos: self.pos,
            offset: self.offset,
            capacity: self.capacity,
            reclaim: policy,
            shrink: self.shrink,
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
        Ok(self.next_frame().await?.map(|payload| &self.buf[payload]))
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
        // The payload ends the bytes consumed: they all leave the buffer, and what precedes
        // the payload is stepped over inside the `Bytes` (no second reference count).
        let mut bytes = self.buf.split_to(core::mem::take(&mut self.pos)).freeze();
        bytes.advance(payload.start);
        debug_assert_eq!(bytes.len(), payload.len());
        Ok(Some(bytes))
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
            self.release();
            // Every complete frame already buffered, in one synchronous pass that keeps the
            // position in registers; it is stored once, on the way out. There is no await in
            // the pass, so nothing can cancel it half-way.
            let (reclaim, shrink) = (&mut self.reclaim, &mut self.shrink);
            let (used, pass) = __deliver_frames(
                &self.decoder,
                &self.buf[self.pos..],
                self.offset,
                &mut f,
                // Stop the pass when the policy asks to shrink; `shrink` remembers it even
                // when the callback stops the pass at that frame.
                |len| {
                    let now = reclaim.after_message(len);
                    *shrink |= now;
                    now
                },
            );
            self.pos += used;
            self.offset += used as u64;
            match pass? {
                Pass::Exhausted(need) => {
                    if !self.fill(need).await? {
                        return need.at_end(self.offset);
                    }
                }
                Pass::Stopped => return Ok(()),
                // The policy asked to shrink: `release`, at the top, does it now that no
                // payload is borrowed.
                Pass::Paused => {}
            }
        }
    }

    /// Stream offset of the next frame: the bytes of the frames handed out (or stepped over)
    /// so far.
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// The bytes received from the source but not yet consumed, starting with the next frame.
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..]
    }

    /// Bytes currently allocated for the buffer.
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Shrinks the buffer to `capacity` bytes (or to the bytes it still holds, if more), and
    /// makes `capacity` the size of the next allocation.
    pub fn shrink_to(&mut self, capacity: usize) {
        self.capacity = capacity.max(16);
        self.shrink_buffer(self.capacity);
    }

    flatstream_core::__source_accessors!(R, D);

    /// Returns the source and the bytes read ahead but not consumed.
    pub fn into_parts(mut self) -> (R, BytesMut) {
        self.compact();
        (self.source, self.buf)
    }

    /// The next complete, verified frame, read into the buffer as needed; returns the
    /// payload's range in `buf`, the frame ending at `pos`.
    ///
    /// Cancel safe: every change to the reader's state is made between two awaits, and the
    /// only await is a cancel-safe read into the buffer's free space.
    #[inline]
    async fn next_frame(&mut self) -> Result<Option<Range<usize>>> {
        self.release();
        loop {
            match self.buffered_frame()? {
                Buffered::Frame(payload) => return Ok(Some(payload)),
                Buffered::Incomplete(need) => {
                    if !self.fill(need).await? {
                        need.at_end(self.offset)?;
                        return Ok(None);
                    }
                }
            }
        }
    }

    /// Takes the frame at `pos` if all of it is buffered (a rejected one is stepped over and
    /// reported), or says what it still needs: the part of [`next_frame`](Self::next_frame)
    /// without an await.
    #[inline(always)]
    fn buffered_frame(&mut self) -> Result<Buffered> {
        let start = self.pos;
        match self.decoder.decode(&self.buf[start..], self.offset)? {
            Decoded::Frame(frame) => {
                let (len, payload) = (frame.len(), frame.span().payload_range());
                self.pos = start + len;
                self.offset += len as u64;
                if self.reclaim.after_message(payload.len()) {
                    self.shrink = true;
                }
                Ok(Buffered::Frame(start + payload.start..start + payload.end))
            }
            Decoded::Rejected { len, error } => {
                self.pos = start + len;
                self.offset += len as u64;
                Err(error)
            }
            Decoded::Incomplete(need) => Ok(Buffered::Incomplete(need)),
        }
    }

    /// Shrinks the buffer if the policy asked to, now that no payload is borrowed.
    #[inline]
    fn release(&mut self) {
        if self.shrink {
            self.shrink = false;
            self.shrink_buffer(self.reclaim.baseline());
        }
    }

    /// Drops the consumed bytes from the front of the buffer: one call into `bytes` per read
    /// from the source rather than one per frame.
    #[inline]
    fn compact(&mut self) {
        if self.pos > 0 {
            self.buf.advance(core::mem::take(&mut self.pos));
        }
    }

    /// Moves the unconsumed bytes to a buffer of `capacity` bytes (or of their length, if more)
    /// if the current one is larger.
    #[cold]
    fn shrink_buffer(&mut self, capacity: usize) {
        self.compact();
        let keep = capacity.max(self.buf.len());
        if self.buf.capacity() > keep {
            let mut fresh = BytesMut::with_capacity(keep);
            fresh.extend_from_slice(&self.buf);
            self.buf = fresh;
        }
    }

    /// Reads once into the free end of the buffer, making room first for the frame `need`
    /// describes. Returns `false` at end-of-file.
    async fn fill(&mut self, need: Incomplete) -> Result<bool> {
        self.compact();
        let len = self.buf.len();
        if self.buf.capacity() == len {
            // Full, or not allocated yet: grow by the readers' one rule.
            self.buf.reserve(need.grown_len(len, self.capacity) - len);
        }
        loop {
            // `read_buf` is cancel safe: dropped before it completes, it has read nothing.
            match self.source.read_buf(&mut self.buf).await {
                Ok(0) => return Ok(false),
                Ok(_) => return Ok(true),
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(source) => {
                    return Err(Error::Io {
                        source,
                        offset: self.offset,
                    });
                }
            }
        }
    }
}

/// What [`AsyncStreamReader::buffered_frame`] found at `pos`.
enum Buffered {
    /// A frame, taken: the payload's range in the buffer.
    Frame(Range<usize>),
    /// Not all of the frame is buffered.
    Incomplete(Incomplete),
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_adapters::ShrinkAbove;
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
