//! `StreamWriter`: frames payloads onto any `std::io::Write`.

use crate::error::{Error, Result};
use crate::frame::DEFAULT_MAX_FRAME_LEN;
use crate::framer::Framer;
use crate::serialize::StreamSerialize;
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
    /// Writes `header` then `payload`, adding every byte the sink accepts to `accepted`.
    #[doc(hidden)]
    fn write_frame<W: Write>(
        sink: &mut W,
        header: &[u8],
        payload: &[u8],
        accepted: &mut u64,
    ) -> io::Result<()>;
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
    #[inline(always)]
    fn write_frame<W: Write>(
        sink: &mut W,
        header: &[u8],
        payload: &[u8],
        accepted: &mut u64,
    ) -> io::Result<()> {
        write_all(sink, header, accepted)?;
        write_all(sink, payload, accepted)
    }
}

impl WriteStrategy for VectoredWrites {
    #[inline]
    fn write_frame<W: Write>(
        sink: &mut W,
        header: &[u8],
        payload: &[u8],
        accepted: &mut u64,
    ) -> io::Result<()> {
        if payload.len() >= VECTORED_MIN_PAYLOAD {
            write_all_vectored(sink, header, payload, accepted)
        } else {
            PlainWrites::write_frame(sink, header, payload, accepted)
        }
    }
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
/// In every mode the header is built on the stack and header and payload are handed to the
/// sink directly: the payload is never copied by the writer. The writer does no buffering of its
/// own; give it a `BufWriter` when the sink is a file or socket and messages are small. For an
/// unbuffered sink that receives large payloads,
/// [`with_vectored_writes`](Self::with_vectored_writes) sends header and payload in one system
/// call.
///
/// # Errors and what reached the sink
///
/// A payload over the bound, or rejected by the framer, is refused before any of its bytes are
/// written. If the sink fails mid-frame, the frame is partly written:
/// [`bytes_written`](Self::bytes_written) counts exactly the bytes the sink accepted, so a journal can cut the
/// torn frame off before appending again.
///
/// ```
/// use flatstream_core::{DefaultFramer, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"hello")?;
/// let bytes = writer.into_inner();
/// assert_eq!(&bytes[..4], 16u32.to_le_bytes()); // a 16-byte FlatBuffer holding "hello"
/// # Ok::<(), flatstream_core::Error>(())
/// ```
pub struct StreamWriter<W, F, S = PlainWrites> {
    sink: CountingSink<W>,
    framer: F,
    builder: FlatBufferBuilder<'static>,
    max_frame_len: usize,
    strategy: S,
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
                written: 0,
            },
            framer,
            builder,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            strategy: PlainWrites,
        }
    }

    /// Sends header and payload of frames from 4 KiB up in one vectored write: for unbuffered
    /// sinks that receive large payloads (see [`VectoredWrites`] for the measurements).
    pub fn with_vectored_writes(self) -> StreamWriter<W, F, VectoredWrites> {
        StreamWriter {
            sink: self.sink,
            framer: self.framer,
            builder: self.builder,
            max_frame_len: self.max_frame_len,
            strategy: VectoredWrites,
        }
    }
}

impl<W: Write, F: Framer, S: WriteStrategy> StreamWriter<W, F, S> {
    /// Sets the largest payload this writer accepts (default [`DEFAULT_MAX_FRAME_LEN`], 2 GiB).
    /// Larger payloads are refused with [`Error::FrameTooLarge`] before anything is written.
    /// A bound over `u32::MAX` acts as `u32::MAX`, the most the length prefix can say.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        // Clamped once here, so that the one check per frame also proves the framer's.
        self.max_frame_len = max.min(u32::MAX as usize);
        self
    }

    /// Simple mode: serializes `item` into the writer's builder and writes it as one frame.
    #[inline]
    pub fn write<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        self.builder.reset();
        item.serialize(&mut self.builder)?;
        self.sink.write_frame::<F, S>(
            &self.framer,
            self.max_frame_len,
            self.builder.finished_data(),
        )
    }

    /// Expert mode: writes the finished buffer of `builder` as one frame.
    ///
    /// The builder is left as it is; call `reset` on it before building the next message.
    #[inline]
    pub fn write_finished<A: Allocator>(
        &mut self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        self.sink
            .write_frame::<F, S>(&self.framer, self.max_frame_len, builder.finished_data())
    }

    /// Writes `payload`, which should be a finished FlatBuffer, as one frame.
    #[inline]
    pub fn write_payload(&mut self, payload: &[u8]) -> Result<()> {
        self.sink
            .write_frame::<F, S>(&self.framer, self.max_frame_len, payload)
    }

    /// Flushes the sink.
    pub fn flush(&mut self) -> Result<()> {
        self.sink
            .inner
            .flush()
            .map_err(|e| Error::io(e, self.sink.written))
    }

    /// Bytes the sink has accepted from this writer: the offset at which the next frame starts,
    /// or, after a failed write, the exact length of what reached the sink. (If the sink
    /// panics instead of failing, the count stops at the start of the frame being written.)
    pub fn bytes_written(&self) -> u64 {
        self.sink.written
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

    /// The sink. Writing to it directly puts bytes in the stream that the writer does not count.
    pub fn get_mut(&mut self) -> &mut W {
        &mut self.sink.inner
    }

    /// Returns the sink, without flushing it.
    pub fn into_inner(self) -> W {
        self.sink.inner
    }
}

impl<W: core::fmt::Debug, F: core::fmt::Debug, S: core::fmt::Debug> core::fmt::Debug
    for StreamWriter<W, F, S>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("StreamWriter")
            .field("sink", &self.sink.inner)
            .field("framer", &self.framer)
            .field("strategy", &self.strategy)
            .field("bytes_written", &self.sink.written)
            .field("max_frame_len", &self.max_frame_len)
            .finish_non_exhaustive()
    }
}

/// The sink and the count of bytes it accepted.
#[derive(Debug)]
struct CountingSink<W> {
    inner: W,
    written: u64,
}

impl<W: Write> CountingSink<W> {
    #[inline]
    fn write_frame<F: Framer, S: WriteStrategy>(
        &mut self,
        framer: &F,
        max: usize,
        payload: &[u8],
    ) -> Result<()> {
        let offset = self.written;
        // `max` is at most `u32::MAX` (see `with_max_frame_len`).
        if payload.len() > max {
            return Err(Error::too_large(offset, payload.len(), max));
        }
        let header = framer.header(payload, offset)?;
        // Counted in a local and stored once, whether the writes succeed or fail.
        let mut accepted = 0;
        let result = S::write_frame(&mut self.inner, header.as_bytes(), payload, &mut accepted);
        self.written = offset + accepted;
        result.map_err(|e| Error::io(e, offset))
    }
}

/// `Write::write_all`, adding every byte the sink accepts to `accepted`.
#[inline]
fn write_all<W: Write>(sink: &mut W, mut buf: &[u8], accepted: &mut u64) -> io::Result<()> {
    while !buf.is_empty() {
        match sink.write(buf) {
            Ok(0) => return Err(write_zero()),
            Ok(n) => {
                let n = n.min(buf.len());
                *accepted += n as u64;
                buf = &buf[n..];
            }
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Writes header and payload with vectored writes, adding every byte the sink accepts to
/// `accepted`.
fn write_all_vectored<W: Write>(
    sink: &mut W,
    header: &[u8],
    payload: &[u8],
    accepted: &mut u64,
) -> io::Result<()> {
    let total = header.len() + payload.len();
    let mut slices = [IoSlice::new(header), IoSlice::new(payload)];
    let mut bufs = &mut slices[..];
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

#[cold]
fn write_zero() -> io::Error {
    io::Error::new(io::ErrorKind::WriteZero, "sink accepted no bytes")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::DefaultFramer;

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
