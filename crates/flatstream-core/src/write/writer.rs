//! `StreamWriter`: frames payloads onto any `std::io::Write`.

use crate::error::{Error, Result};
use crate::journal::watermark::WatermarkFile;
use crate::wire::framing::Framer;
use crate::write::core::{Receipt, WriterCore};
use crate::write::serialize::StreamSerialize;
use crate::write::sync::{NeverSync, PublishWatermark, SyncPolicy, SyncSink};
use core::borrow::Borrow;
use flatbuffers::{Allocator, FlatBufferBuilder};
use std::io::{self, IoSlice, Write};

/// With [`VectoredWrites`], payloads at least this long are written with one vectored write.
const VECTORED_MIN_PAYLOAD: usize = 4096;

mod sealed {
    pub trait Sealed {}
}

/// How a [`StreamWriter`] hands a frame's header and payload to the sink: [`PlainWrites`] (the
/// default) or [`VectoredWrites`]. Sealed: these two are the only ones.
pub trait WriteStrategy: sealed::Sealed {
    /// Whether frames with payloads of 4 KiB or more go to the sink in
    /// one vectored write.
    #[doc(hidden)]
    const VECTORED: bool;

    /// Writes `header` then `payload`, adding every byte the sink accepts to `accepted`. The
    /// one write path of both strategies: `VECTORED` is a constant, the branch folds away.
    #[doc(hidden)]
    #[inline(always)]
    fn write_frame<W: Write>(
        sink: &mut W,
        header: &[u8],
        payload: &[u8],
        accepted: &mut u64,
    ) -> io::Result<()> {
        if Self::VECTORED && payload.len() >= VECTORED_MIN_PAYLOAD {
            write_all_vectored(
                sink,
                [IoSlice::new(header), IoSlice::new(payload)],
                accepted,
            )
        } else {
            write_all(sink, header, accepted)?;
            write_all(sink, payload, accepted)
        }
    }
}

/// The default [`WriteStrategy`]: header and payload in two plain writes.
///
/// Best for buffered sinks (`Vec`, `BufWriter`), the right place for small messages.
#[derive(Debug, Clone, Copy, Default)]
pub struct PlainWrites;

/// A [`WriteStrategy`] for unbuffered sinks (a raw `File`, a `TcpStream`) that receive large
/// payloads: from 4 KiB up, header and payload go to the sink in one vectored write, one system
/// call; smaller frames take two plain writes. Choose it with
/// [`StreamWriter::with_vectored_writes`].
///
/// It is not the default because it is not free (figures in docs/benchmarks.md and
/// docs/design.md). The `core/vectored/*` benchmarks measure one vectored write against two
/// plain writes: on an unbuffered `File` it saves a system call per frame, worth most at 4 KiB
/// and little from 64 KiB up; into a `BufWriter` it is within a few percent either way; into a
/// `Vec` it costs more below 4 KiB. And its mere presence costs small frames: the write path then
/// holds a call that may write to the sink, so the compiler keeps the sink's state in memory
/// rather than in registers across frames, which the `core/*/write/flatstream` rows show.
#[derive(Debug, Clone, Copy, Default)]
pub struct VectoredWrites;

impl sealed::Sealed for PlainWrites {}
impl sealed::Sealed for VectoredWrites {}

impl WriteStrategy for PlainWrites {
    const VECTORED: bool = false;
}

impl WriteStrategy for VectoredWrites {
    const VECTORED: bool = true;
}

/// Writes frames to a `Write` sink.
///
/// Three ways to write a message:
///
/// * [`write`](Self::write) (simple mode): serializes a [`StreamSerialize`] value into the
///   writer's own builder, which is reset and reused, so a warm writer does not allocate.
/// * [`write_finished`](Self::write_finished) (expert mode): writes the finished buffer of a
///   builder you manage, for example one builder per message size class.
/// * [`write_payload`](Self::write_payload): writes bytes that are already a FlatBuffer.
///
/// Each has a `*_with_receipt` twin ([`write_with_receipt`](Self::write_with_receipt), ...)
/// that returns a [`Receipt`]: where the frame starts and how long it is. (The plain ones keep
/// FlatStream 0.2.x's signatures, and with them the exact code of the write path.)
///
/// The numbers and rules behind all this (byte count, bound, torn frame, durable watermark) are
/// a [`WriterCore`], the sans-I/O state that `flatstream-tokio`'s `AsyncStreamWriter` drives
/// too: both writers give the same receipts and errors for the same payloads.
///
/// In every mode the header is built on the stack and header and payload are handed to the
/// sink directly: the payload is never copied by the writer. The writer does no buffering of its
/// own; give it a `BufWriter` when the sink is a file or socket and messages are small. For an
/// unbuffered sink that receives large payloads,
/// [`with_vectored_writes`](Self::with_vectored_writes) sends header and payload in one system
/// call.
///
/// # Durability
///
/// [`with_sync`](Self::with_sync) chooses when the writer syncs a file to disk (every `n`
/// frames, every `n` bytes, at most every `d` of time: see the [`SyncPolicy`] implementations);
/// [`sync`](Self::sync) syncs now; [`durable`](Self::durable) is the offset up to which every
/// frame is known to be on disk, which [`with_watermark_file`](Self::with_watermark_file)
/// publishes for readers in other processes ([`Follower`](crate::Follower)). The default,
/// [`NeverSync`], adds nothing to the write path.
///
/// # Errors and what reached the sink
///
/// A payload over the bound, or rejected by the framer, is refused before any of its bytes are
/// written. If the sink fails mid-frame, the frame is partly written:
/// [`bytes_written`](Self::bytes_written) counts exactly the bytes the sink accepted and
/// [`torn`](Self::torn) says where that frame starts, so a journal can cut it off before
/// appending again. If the frame was written but the sync after it
/// failed, the error is [`Error::Sync`]: the frame is counted in `bytes_written`, and the
/// durable watermark stays where it was.
///
/// ```
/// use flatstream::{DefaultFramer, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"hello")?;
/// let second = writer.write_with_receipt(&"world")?;
/// assert_eq!((second.offset, second.len), (20, 20)); // a 4-byte header, a 16-byte FlatBuffer
/// assert_eq!(second.end(), writer.bytes_written());
/// let bytes = writer.into_inner();
/// assert_eq!(&bytes[..4], 16u32.to_le_bytes());
/// # Ok::<(), flatstream::Error>(())
/// ```
// `repr(C)`: the sink and its core first, where every frame reads and writes (see `CountingSink`).
#[repr(C)]
pub struct StreamWriter<W, F, S = PlainWrites, P = NeverSync> {
    sink: CountingSink<W>,
    framer: F,
    builder: FlatBufferBuilder<'static>,
    strategy: S,
    policy: P,
}

impl<W: Write, F: Framer> StreamWriter<W, F> {
    /// A writer that frames with `framer` onto `sink`.
    pub fn new(sink: W, framer: F) -> Self {
        Self::with_builder(sink, framer, FlatBufferBuilder::new())
    }

    /// A writer whose simple mode uses `builder`, for example one made with
    /// `FlatBufferBuilder::with_capacity` to avoid growing it during the first writes.
    pub fn with_builder(sink: W, framer: F, builder: FlatBufferBuilder<'static>) -> Self {
        StreamWriter {
            sink: CountingSink {
                inner: sink,
                core: WriterCore::new(),
            },
            framer,
            builder,
            strategy: PlainWrites,
            policy: NeverSync,
        }
    }
}

impl<W: Write, F: Framer, P> StreamWriter<W, F, PlainWrites, P> {
    /// Sends header and payload of frames from 4 KiB up in one vectored write: for unbuffered
    /// sinks that receive large payloads (see [`VectoredWrites`] for the measurements).
    pub fn with_vectored_writes(self) -> StreamWriter<W, F, VectoredWrites, P> {
        StreamWriter {
            sink: self.sink,
            framer: self.framer,
            builder: self.builder,
            strategy: VectoredWrites,
            policy: self.policy,
        }
    }
}

impl<W: Write, F: Framer, S: WriteStrategy> StreamWriter<W, F, S> {
    /// Syncs the sink as `policy` says after each frame: [`SyncEveryFrames`](crate::SyncEveryFrames),
    /// [`SyncEveryBytes`](crate::SyncEveryBytes) or [`SyncInterval`](crate::SyncInterval) on a
    /// [`SyncSink`] (a `File`, or a `BufWriter` in front of one). Each sync moves the
    /// [durable watermark](Self::durable) to the end of the frame just written.
    pub fn with_sync<P: SyncPolicy<W>>(self, policy: P) -> StreamWriter<W, F, S, P> {
        StreamWriter {
            sink: self.sink,
            framer: self.framer,
            builder: self.builder,
            strategy: self.strategy,
            policy,
        }
    }
}

impl<W: Write, F: Framer, S: WriteStrategy, P: SyncPolicy<W>> StreamWriter<W, F, S, P> {
    crate::__writer_core_setters!("crate", sink.core);

    /// Publishes the durable watermark in `file` each time it moves, for readers in other
    /// processes ([`Follower::with_watermark_file`](crate::Follower::with_watermark_file));
    /// the current watermark is published at once. The policy is wrapped in
    /// [`PublishWatermark`].
    ///
    /// # Errors
    ///
    /// [`Error::Io`] if the first publication fails.
    pub fn with_watermark_file(
        self,
        mut file: WatermarkFile,
    ) -> Result<StreamWriter<W, F, S, PublishWatermark<P>>> {
        let durable = self.sink.core.durable();
        file.publish(durable).map_err(|e| Error::io(e, durable))?;
        Ok(StreamWriter {
            sink: self.sink,
            framer: self.framer,
            builder: self.builder,
            strategy: self.strategy,
            policy: PublishWatermark::new(self.policy, file),
        })
    }

    /// Simple mode: serializes `item` into the writer's builder and writes it as one frame.
    #[inline]
    pub fn write<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        self.builder.reset();
        item.serialize(&mut self.builder)?;
        let offset = if P::SYNCS {
            self.sink.core.bytes_written()
        } else {
            0
        };
        let written = self
            .sink
            .write_frame::<F, S>(&self.framer, self.builder.finished_data());
        self.after_frame(written, offset)
    }

    /// Expert mode: writes the finished buffer of `builder` as one frame.
    ///
    /// The builder is left as it is; call `reset` on it before building the next message. Pass
    /// `&builder` or, as FlatStream 0.2.x did, `&mut builder`: both compile, on this writer and
    /// the async one (any `Borrow` of a builder does).
    // Always inlined, as are `write_payload` and `CountingSink::write_frame`: left to the
    // heuristic, a writer over a `Cursor` was called out of line in some programs and fell
    // behind FlatStream 0.2.7 (docs/design.md, "Writing without copies").
    #[inline(always)]
    pub fn write_finished<'b, A: Allocator, B: Borrow<FlatBufferBuilder<'b, A>>>(
        &mut self,
        builder: B,
    ) -> Result<()> {
        self.write_payload(builder.borrow().finished_data())
    }

    /// Writes `payload`, which should be a finished FlatBuffer, as one frame.
    #[inline(always)]
    pub fn write_payload(&mut self, payload: &[u8]) -> Result<()> {
        let offset = if P::SYNCS {
            self.sink.core.bytes_written()
        } else {
            0
        };
        let written = self.sink.write_frame::<F, S>(&self.framer, payload);
        self.after_frame(written, offset)
    }

    /// [`write`](Self::write), returning where the frame went.
    #[inline]
    pub fn write_with_receipt<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<Receipt> {
        let offset = self.sink.core.bytes_written();
        self.write(item)?;
        Ok(self.receipt(offset))
    }

    /// [`write_finished`](Self::write_finished), returning where the frame went.
    #[inline]
    pub fn write_finished_with_receipt<'b, A: Allocator, B: Borrow<FlatBufferBuilder<'b, A>>>(
        &mut self,
        builder: B,
    ) -> Result<Receipt> {
        let offset = self.sink.core.bytes_written();
        self.write_finished(builder)?;
        Ok(self.receipt(offset))
    }

    /// [`write_payload`](Self::write_payload), returning where the frame went.
    #[inline]
    pub fn write_payload_with_receipt(&mut self, payload: &[u8]) -> Result<Receipt> {
        let offset = self.sink.core.bytes_written();
        self.write_payload(payload)?;
        Ok(self.receipt(offset))
    }

    /// The receipt of the frame written whole from `offset` on.
    #[inline(always)]
    fn receipt(&self, offset: u64) -> Receipt {
        self.sink.core.receipt(offset)
    }

    /// Lets the policy sync after the frame written from `offset` on, if it was written
    /// whole. With [`NeverSync`] this is `written` itself: the writer's code is then the same
    /// as before sync policies existed (checked in the generated code of the `ratios` bench).
    #[inline(always)]
    fn after_frame(&mut self, written: Result<()>, offset: u64) -> Result<()> {
        if !P::SYNCS {
            return written;
        }
        written?;
        self.policy_after_frame(offset)
    }

    /// The policy's turn after a frame written whole from `offset` on. Out of line: inlined,
    /// its mere presence (in a branch folded away for `NeverSync`) changed the register
    /// allocation of the `write/fresh_writer` loop of a writer that never syncs.
    #[inline(never)]
    fn policy_after_frame(&mut self, offset: u64) -> Result<()> {
        let frame = self.receipt(offset);
        match self.policy.after_frame(&mut self.sink.inner, frame) {
            Ok(false) => Ok(()),
            Ok(true) => self.synced(frame.end()).map(drop),
            Err(e) => Err(self.sink.core.sync_failed(e)),
        }
    }

    /// A sync covering everything up to `end` succeeded: moves the watermark there, unless an
    /// earlier sync failed, and tells the policy.
    ///
    /// Never past the start of a frame the sink took only part of: a reader stops there, so
    /// neither it nor the frames after it are readable frames on disk.
    #[cold]
    fn synced(&mut self, end: u64) -> Result<u64> {
        let end = self.sink.core.synced(end)?;
        self.policy.synced(end).map_err(|e| Error::io(e, end))?;
        Ok(end)
    }

    /// Flushes the sink.
    pub fn flush(&mut self) -> Result<()> {
        self.sink
            .inner
            .flush()
            .map_err(|e| Error::io(e, self.sink.core.bytes_written()))
    }

    /// Bytes the sink has accepted from this writer: the offset at which the next frame starts,
    /// or, after a failed write, the exact length of what reached the sink. (If the sink
    /// panics instead of failing, the count stops at the start of the frame being written.)
    pub fn bytes_written(&self) -> u64 {
        self.sink.core.bytes_written()
    }

    /// The durable watermark: the stream offset up to which every frame is known to be on
    /// disk. It moves, to the end of a frame, only when a sync succeeds ([`sync`](Self::sync),
    /// or the policy's); 0 (or the [`with_offset`](Self::with_offset)) before the first.
    ///
    /// After a failed sync it never moves again for this writer: on Linux a failed `fsync` can
    /// drop the pages it could not write and let a later one succeed, so a later success would
    /// not prove the earlier frames are on disk. Reopen and repair the journal instead.
    ///
    /// Nor does it pass the start of a frame the sink took only part of (a write that failed
    /// mid-frame): a reader stops at that torn frame, so the frames written after it are not
    /// readable, synced or not.
    pub fn durable(&self) -> u64 {
        self.sink.core.durable()
    }

    /// The start of the first frame a failed write left partly in the sink, if one did: a
    /// reader stops there. Cut the stream there (or repair it) before appending again.
    pub fn torn(&self) -> Option<u64> {
        self.sink.core.torn()
    }

    /// The writer's sans-I/O state: byte count, bound, torn frame, durable watermark.
    pub fn core(&self) -> &WriterCore {
        &self.sink.core
    }

    /// The sync policy.
    pub fn policy(&self) -> &P {
        &self.policy
    }

    /// The framer.
    pub fn framer(&self) -> &F {
        &self.framer
    }

    /// The builder used by [`write`](Self::write). Useful to inspect or replace it, for
    /// example to release memory after a burst of large messages.
    pub fn builder_mut(&mut self) -> &mut FlatBufferBuilder<'static> {
        &mut self.builder
    }

    /// The sink.
    pub fn get_ref(&self) -> &W {
        &self.sink.inner
    }

    /// The sink. Writing to it directly puts bytes in the stream that the writer does not
    /// count.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.sink.inner
    }

    /// Returns the sink, without flushing or syncing it.
    pub fn into_inner(self) -> W {
        self.sink.inner
    }
}

impl<W: SyncSink, F: Framer, S: WriteStrategy, P: SyncPolicy<W>> StreamWriter<W, F, S, P> {
    /// Flushes the sink and syncs it to disk now, whatever the policy, and returns the new
    /// durable watermark: every frame written so far (up to the first frame torn by a failed
    /// write, if one was: see [`durable`](Self::durable)).
    ///
    /// # Errors
    ///
    /// [`Error::Sync`] if the sync fails, now or at any earlier sync of this writer (see
    /// [`durable`](Self::durable)); the watermark stays where it was.
    pub fn sync(&mut self) -> Result<u64> {
        match self.sink.inner.sync() {
            Ok(()) => self.synced(self.sink.core.bytes_written()),
            Err(e) => Err(self.sink.core.sync_failed(e)),
        }
    }
}

impl<W: core::fmt::Debug, F: core::fmt::Debug, S: core::fmt::Debug, P: core::fmt::Debug>
    core::fmt::Debug for StreamWriter<W, F, S, P>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamWriter")
            .field("sink", &self.sink.inner)
            .field("framer", &self.framer)
            .field("strategy", &self.strategy)
            .field("policy", &self.policy)
            .field("core", &self.sink.core)
            .finish_non_exhaustive()
    }
}

/// The sink and the writer's core, side by side.
///
/// Every frame reads the core's bound and byte count and the sink's state, so they are kept on
/// one cache line rather than with the core beyond the builder, where the writer ran measurably
/// slower in some phases of a run (docs/design.md, "Writing without copies"). `repr(C)` keeps
/// that order.
#[repr(C)]
#[derive(Debug)]
struct CountingSink<W> {
    inner: W,
    core: WriterCore,
}

impl<W: Write> CountingSink<W> {
    #[inline(always)]
    fn write_frame<F: Framer, S: WriteStrategy>(
        &mut self,
        framer: &F,
        payload: &[u8],
    ) -> Result<()> {
        let offset = self.core.bytes_written();
        let header = self.core.header(framer, payload)?;
        // Counted in a local and stored once, whether the writes succeed or fail.
        let mut accepted = 0;
        let result = S::write_frame(&mut self.inner, header.as_bytes(), payload, &mut accepted);
        self.core.accepted(offset, accepted);
        result.map_err(|e| self.core.write_failed(e, offset))
    }
}

/// `Write::write_all`, adding every byte the sink accepts to `accepted`.
#[inline]
fn write_all<W: Write>(sink: &mut W, mut buf: &[u8], accepted: &mut u64) -> io::Result<()> {
    while !buf.is_empty() {
        account_write(sink.write(buf), &mut buf, accepted)?;
    }
    Ok(())
}

/// What one `write` of `buf` to a sink returned, accounted as `write_all` does: the bytes
/// accepted are added to `accepted` and `buf` moves past them; `Interrupted` is `Ok` (write
/// again); a write of no bytes is a `WriteZero` error.
#[inline(always)]
fn account_write(result: io::Result<usize>, buf: &mut &[u8], accepted: &mut u64) -> io::Result<()> {
    match result {
        Ok(0) => Err(write_zero()),
        Ok(n) => {
            let n = n.min(buf.len());
            *accepted += n as u64;
            *buf = &buf[n..];
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::Interrupted => Ok(()),
        Err(e) => Err(e),
    }
}

/// Writes a frame's parts (header and payload) with vectored writes, adding every byte the sink
/// accepts to `accepted`.
fn write_all_vectored<W: Write>(
    sink: &mut W,
    mut parts: [IoSlice<'_>; 2],
    accepted: &mut u64,
) -> io::Result<()> {
    let total = parts[0].len() + parts[1].len();
    let mut bufs = &mut parts[..];
    let mut done = 0;
    while done < total {
        match sink.write_vectored(bufs) {
            Ok(0) => return Err(write_zero()),
            Ok(n) => {
                let n = n.min(total - done);
                done += n;
                *accepted += n as u64;
                IoSlice::advance_slices(&mut bufs, n);
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// The error of a sink that accepted no bytes: `WriteZero`, as `write_all`'s.
#[cold]
pub(crate) fn write_zero() -> io::Error {
    io::Error::new(io::ErrorKind::WriteZero, "sink accepted no bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::framing::DefaultFramer;

    /// Accepts at most `chunk` bytes per call, fails with `Interrupted` every other call, and
    /// fails for good once `limit` bytes have been accepted.
    struct Stingy {
        data: Vec<u8>,
        chunk: usize,
        limit: usize,
        calls: usize,
    }

    impl Write for Stingy {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.calls += 1;
            if self.calls % 2 == 0 {
                return Err(io::ErrorKind::Interrupted.into());
            }
            if self.data.len() >= self.limit {
                return Err(io::Error::other("disk full"));
            }
            let n = buf.len().min(self.chunk).min(self.limit - self.data.len());
            self.data.extend_from_slice(&buf[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// Counts the calls of each kind it receives.
    #[derive(Default)]
    struct Calls {
        data: Vec<u8>,
        writes: usize,
        vectored: usize,
    }

    impl Write for Calls {
        fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
            self.writes += 1;
            self.data.extend_from_slice(buf);
            Ok(buf.len())
        }
        fn write_vectored(&mut self, bufs: &[IoSlice<'_>]) -> io::Result<usize> {
            self.vectored += 1;
            let n = bufs.iter().map(|b| b.len()).sum();
            bufs.iter().for_each(|b| self.data.extend_from_slice(b));
            Ok(n)
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn vectored_writes_are_used_from_4_kib_when_chosen_and_change_no_byte() {
        let payloads = [
            vec![1u8; 10],
            vec![2u8; 4095],
            vec![3u8; 4096],
            vec![4u8; 70_000],
        ];
        let mut plain = StreamWriter::new(Calls::default(), DefaultFramer);
        let mut vectored =
            StreamWriter::new(Calls::default(), DefaultFramer).with_vectored_writes();
        for p in &payloads {
            plain.write_payload(p).unwrap();
            vectored.write_payload(p).unwrap();
        }
        assert_eq!(vectored.bytes_written(), plain.bytes_written());
        let (plain, vectored) = (plain.into_inner(), vectored.into_inner());
        assert_eq!(vectored.data, plain.data);
        assert_eq!((plain.writes, plain.vectored), (8, 0));
        // The two frames under 4 KiB in two writes each, the two others in one call each.
        assert_eq!((vectored.writes, vectored.vectored), (4, 2));
    }

    fn stingy(chunk: usize, limit: usize) -> Stingy {
        Stingy {
            data: vec![],
            chunk,
            limit,
            calls: 0,
        }
    }

    fn retries<S: WriteStrategy>(mut w: StreamWriter<Stingy, DefaultFramer, S>) {
        w.write_payload(b"abcdefg").unwrap();
        w.write_payload(&[7u8; 5000]).unwrap();
        assert_eq!(w.bytes_written(), 4 + 7 + 4 + 5000);
        let data = w.into_inner().data;
        assert_eq!(&data[..11], b"\x07\x00\x00\x00abcdefg");
        assert_eq!(&data[11..15], 5000u32.to_le_bytes());
        assert!(data[15..].iter().all(|&b| b == 7));
    }

    #[test]
    fn short_writes_and_interruptions_are_retried() {
        retries(StreamWriter::new(stingy(3, usize::MAX), DefaultFramer));
        retries(StreamWriter::new(stingy(3, usize::MAX), DefaultFramer).with_vectored_writes());
    }

    fn fills_up<S: WriteStrategy>(mut w: StreamWriter<Stingy, DefaultFramer, S>, limit: usize) {
        let mut failed = None;
        for payload in [&b"hello"[..], &[1u8; 4096][..]] {
            if let Err(e) = w.write_payload(payload) {
                failed = Some(e);
                break;
            }
        }
        let err = failed.expect("the sink fills up");
        assert!(matches!(err, Error::Io { .. }), "{err}");
        let written = w.bytes_written();
        assert_eq!(written, w.get_ref().data.len() as u64, "limit {limit}");
        // The error names the frame that was being written.
        assert_eq!(err.offset(), if limit < 9 { 0 } else { 9 });
    }

    #[test]
    fn after_a_failed_write_bytes_written_is_what_the_sink_holds() {
        for limit in [0, 2, 4, 9, 13, 4100] {
            fills_up(StreamWriter::new(stingy(5, limit), DefaultFramer), limit);
            let vectored = StreamWriter::new(stingy(5, limit), DefaultFramer);
            fills_up(vectored.with_vectored_writes(), limit);
        }
    }

    #[test]
    fn a_payload_over_the_bound_writes_nothing() {
        let mut w = StreamWriter::new(Vec::new(), DefaultFramer).with_max_frame_len(4);
        w.write_payload(b"1234").unwrap();
        let err = w.write_payload(b"12345").unwrap_err();
        assert!(matches!(
            err,
            Error::FrameTooLarge {
                offset: 8,
                len: 5,
                max: 4
            }
        ));
        assert_eq!(w.bytes_written(), 8);
        assert_eq!(w.into_inner().len(), 8);
    }

    #[test]
    fn a_sink_that_accepts_nothing_is_an_error_not_a_loop() {
        struct Zero;
        impl Write for Zero {
            fn write(&mut self, _: &[u8]) -> io::Result<usize> {
                Ok(0)
            }
            fn flush(&mut self) -> io::Result<()> {
                Ok(())
            }
        }
        let mut w = StreamWriter::new(Zero, DefaultFramer);
        let err = w.write_payload(b"x").unwrap_err();
        let Error::Io { source, .. } = err else {
            panic!("{err}")
        };
        assert_eq!(source.kind(), io::ErrorKind::WriteZero);
        let err = w.write_payload(&[0; 5000]).unwrap_err();
        assert!(matches!(err, Error::Io { .. }));
        let mut w = StreamWriter::new(Zero, DefaultFramer).with_vectored_writes();
        let err = w.write_payload(&[0; 5000]).unwrap_err();
        let Error::Io { source, .. } = err else {
            panic!("{err}")
        };
        assert_eq!(source.kind(), io::ErrorKind::WriteZero);
    }
}
