//! [`FrameCodec`], tokio-util's `Decoder` and `Encoder` for flatstream frames, and its
//! [`Builder`].

use bytes::{Bytes, BytesMut};
use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
use flatstream_core::{
    Checksum, ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Error,
    Framer, Result,
};
use flatstream_core::{FrameConfig, NoReclaim, ReadBuffer, ReclaimPolicy, WriterCore};
use tokio::io::{AsyncRead, AsyncWrite};
use tokio_util::codec::{Framed, FramedRead, FramedWrite};

/// A codec for tokio-util's [`FramedRead`], [`FramedWrite`] and [`Framed`]: frames are decoded
/// by flatstream's [`ReadBuffer`] and each verified payload comes out as a [`Bytes`] split from the
/// read buffer, with no copy; payloads are encoded from anything that is bytes (`&[u8]`,
/// `Bytes`, `Vec<u8>`), so a payload received can be sent on as it is.
///
/// ```text
/// read buffer:  [len|sum|payload 1][len|sum|payload 2][len|sum|payl...
///                         \_______/
///   decode() ->   Bytes sharing the buffer (Send + 'static); the frame leaves the buffer
/// ```
///
/// * **Decoding** yields `Bytes`. The bound ([`Builder::max_frame_len`], 2 GiB by default as
///   for every reader) is checked from the length prefix alone, and the codec never reserves
///   what a header claims: the read buffer grows with the bytes received, at most doubling.
///   Errors the codec raises are [`Error`] with the offset of the frame in the
///   stream. A frame rejected for its content by a validating deframer is stepped over; a
///   framing error (a length over the bound, a checksum mismatch) leaves the codec at the
///   frame, and a stream that ends inside a frame is [`Error::UnexpectedEof`].
/// * **Encoding** takes any `T: AsRef<[u8]>`: a `&[u8]` (`builder.finished_data()`), a `Bytes`
///   received from a `FramedRead` or a `Framed` (an echo: `sink.send(payload)`, or
///   `stream.forward(sink)`), a `Vec<u8>`. It writes the header and the payload straight into
///   the destination `BytesMut`: no intermediate buffer, and no allocation per message once
///   the destination has grown.
///
/// Build one with [`FrameCodec::default`] (no checksum), [`FrameCodec::with_checksum`] (one
/// algorithm both ways), [`FrameCodec::read_only`] (a deframer alone, for `FramedRead`) or,
/// for everything else, [`FrameCodec::builder`].
///
/// # Cost
///
/// A `Bytes` payload is what makes the codec's frames `Send + 'static`, and it is also its
/// price. Each one takes a reference count on the read buffer when it is split off and gives
/// it back when it is dropped: two atomic read-modify-writes per frame, which on x86 are full
/// barriers, on top of the decoding a borrowed payload costs. They are the same for every
/// decoder that hands out `Bytes` split from a `BytesMut`, tokio-util's `LengthDelimitedCodec`
/// included, and nothing on the codec's side removes them; the codec itself takes one call
/// into `bytes` and one count per frame. Where payloads need not leave the reading task,
/// [`AsyncStreamReader::process_all`](crate::AsyncStreamReader::process_all) or
/// [`read_message`](crate::AsyncStreamReader::read_message) lend them from the reader's buffer
/// instead, close to the cost of the sync reader. The measured figures (`tokio_codec`, with the
/// least any `Bytes` decoder pays as the `bytes-limit` row, and the sync `BytesFrames` handing
/// out the same `Bytes` as the `sync-bytes` row) are in the repository's `docs/benchmarks.md`.
///
/// # `flush()` and `close()` name the item type
///
/// With several item types, a `FramedWrite` or a `Framed` of the codec is a `Sink` of each,
/// so a call that passes no item cannot tell which `Sink` is meant (E0283, "type annotations
/// needed"), as with tokio-util's `LinesCodec` and `BytesCodec`. The one annotation:
///
/// ```
/// use flatstream::tokio::FrameCodec;
/// use futures_util::SinkExt;
/// use tokio_util::codec::FramedWrite;
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let mut sink = FramedWrite::new(tokio::io::sink(), FrameCodec::default());
/// sink.feed(&b"reading"[..]).await?;
/// SinkExt::<&[u8]>::flush(&mut sink).await?;
/// SinkExt::<&[u8]>::close(&mut sink).await?;
/// # Ok::<(), flatstream::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// Any item type will do: the sink buffers encoded bytes, whatever they were encoded from.
/// `send` and `feed` take an item and need no annotation; nor does the sink half of a
/// `split()`, whose item type its first `send` fixes.
///
/// # Errors under `FramedRead`
///
/// tokio-util's `FramedRead` answers `None` once after **any** error, from the codec or from
/// the source (tokio-rs/tokio#3976): a `while let Some(item) = frames.next().await` loop ends
/// there, even after a frame merely rejected for its content. Polled again after that `None`,
/// it first reads from the source, then decodes: for a content error the codec has already
/// moved past the frame, so the frames after it come out once more bytes (or the end of the
/// stream) arrive, while frames already buffered wait for them; for a framing error the same
/// error comes back. Where a rejected frame must neither end nor pause the stream, read with
/// [`AsyncStreamReader`](crate::AsyncStreamReader), which goes straight on to the next frame.
///
/// An I/O error of the source is turned into an [`Error::Io`] by `FramedRead` itself (through
/// `From<std::io::Error>`), before the codec sees it: its offset is 0, not the frame's. The
/// offset of the frame the stream stopped at is [`read_position`](Self::read_position), on
/// `frames.decoder()`.
///
/// The examples need, besides `flatstream` with its `tokio` feature, `tokio` (`rt`,
/// `io-util`), `tokio-util` (`codec`), `bytes` and `futures-util` with its `sink` feature
/// (`SinkExt`, `StreamExt`).
///
/// ```
/// use flatstream::tokio::FrameCodec;
/// use futures_util::{SinkExt, StreamExt};
/// use tokio_util::codec::{FramedRead, FramedWrite};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let (client, server) = tokio::io::duplex(64 * 1024);
/// let mut sink = FramedWrite::new(client, FrameCodec::default());
/// sink.send(&b"first"[..]).await?;
/// sink.feed(bytes::Bytes::from_static(b"second")).await?;
/// // Flushes, then shuts the writing half down (`close` names the item type: see above).
/// SinkExt::<&[u8]>::close(&mut sink).await?;
///
/// let mut frames = FrameCodec::builder().max_frame_len(1 << 20).new_read(server);
/// let mut payloads = Vec::new();
/// while let Some(payload) = frames.next().await {
///     let payload: bytes::Bytes = payload?; // could be sent to another task
///     payloads.push(payload);
/// }
/// assert_eq!(payloads, [&b"first"[..], &b"second"[..]]);
/// # Ok::<(), flatstream::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FrameCodec<F = DefaultFramer, D = DefaultDeframer, P = NoReclaim> {
    framer: F,
    /// Decoding, read position, growth rule and reclaim policy; the bytes are `FramedRead`'s.
    reading: ReadBuffer<D, P, BytesMut>,
    /// Encoding: the bound and the bytes encoded so far, as a writer keeps them.
    writing: WriterCore,
}

impl Default for FrameCodec {
    /// The plain format, without checksum, both ways.
    fn default() -> Self {
        FrameCodec::new(DefaultFramer, DefaultDeframer)
    }
}

impl FrameCodec {
    /// A [`Builder`] of codecs, starting from the plain format without checksum, the default
    /// bound (2 GiB) and no reclamation.
    ///
    /// ```
    /// use flatstream::checksum::XxHash64;
    /// use flatstream::tokio::FrameCodec;
    ///
    /// // The format first (it changes the codec's type), then the limits.
    /// let codec = FrameCodec::builder()
    ///     .checksum(XxHash64::new())
    ///     .max_frame_len(64 * 1024)
    ///     .new_codec();
    /// assert_eq!(codec.max_frame_len(), 64 * 1024);
    /// ```
    pub fn builder() -> Builder {
        Builder::new()
    }
}

impl<F: Framer, D: Deframer> FrameCodec<F, D> {
    /// A codec that encodes with `framer` and decodes with `deframer`, with the default bound
    /// (2 GiB) both ways.
    pub fn new(framer: F, deframer: D) -> Self {
        FrameCodec::from_parts(framer, deframer, DEFAULT_MAX_FRAME_LEN, NoReclaim)
    }
}

impl<C: Checksum + Clone> FrameCodec<ChecksumFramer<C>, ChecksumDeframer<C>> {
    /// A codec that protects every payload with `checksum`, writing and reading, with the
    /// default bound (2 GiB) both ways.
    ///
    /// ```
    /// use flatstream::checksum::XxHash64;
    /// use flatstream::tokio::FrameCodec;
    ///
    /// let codec = FrameCodec::with_checksum(XxHash64::new()).with_max_frame_len(1 << 20);
    /// assert_eq!(codec.max_frame_len(), 1 << 20);
    /// ```
    pub fn with_checksum(checksum: C) -> Self {
        FrameCodec::new(
            ChecksumFramer::new(checksum.clone()),
            ChecksumDeframer::new(checksum),
        )
    }
}

impl<D: Deframer> FrameCodec<(), D> {
    /// A codec that only decodes, with `deframer` and the default bound (2 GiB): for a
    /// `FramedRead`. It has no framer, so it implements no `Encoder`.
    ///
    /// ```
    /// use flatstream::checksum::XxHash64;
    /// use flatstream::ChecksumDeframer;
    /// use flatstream::tokio::FrameCodec;
    /// use tokio_util::codec::FramedRead;
    ///
    /// let socket = tokio::io::empty(); // any `AsyncRead`: a `TcpStream`, a `tokio::fs::File`
    /// let codec = FrameCodec::read_only(ChecksumDeframer::new(XxHash64::new()));
    /// let frames = FramedRead::new(socket, codec.with_max_frame_len(1 << 20));
    /// assert_eq!(frames.decoder().max_frame_len(), 1 << 20);
    /// ```
    pub fn read_only(deframer: D) -> Self {
        FrameCodec::from_parts((), deframer, DEFAULT_MAX_FRAME_LEN, NoReclaim)
    }
}

impl<F: Clone, D: Deframer + Clone, P: ReclaimPolicy + Clone> FrameCodec<F, D, P> {
    /// A codec with the format, bound and reclaim policy of `config` (the capacity of the read
    /// buffer is `FramedRead`'s: see [`Builder::read_capacity`]).
    pub fn from_config(config: &FrameConfig<F, D, P>) -> Self {
        let mut reading = ReadBuffer::with_storage(config.deframer().clone()).with_capacity(0);
        reading.set_max_frame_len(config.max_frame_len());
        FrameCodec {
            framer: config.framer().clone(),
            // `FramedRead` chooses the buffer's first capacity; past it the buffer grows by
            // doubling toward what a frame needs, as the bytes arrive.
            reading: reading.with_reclaim(config.reclaim().clone()),
            writing: WriterCore::new().with_max_frame_len(config.max_frame_len()),
        }
    }
}

impl<F, D: Deframer, P: ReclaimPolicy> FrameCodec<F, D, P> {
    fn from_parts(framer: F, deframer: D, max: usize, reclaim: P) -> Self {
        let mut reading = ReadBuffer::with_storage(deframer).with_capacity(0);
        reading.set_max_frame_len(max);
        FrameCodec {
            framer,
            // `FramedRead` chooses the buffer's first capacity; past it the buffer grows by
            // doubling toward what a frame needs, as the bytes arrive.
            reading: reading.with_reclaim(reclaim),
            writing: WriterCore::new().with_max_frame_len(max),
        }
    }

    /// Sets the largest payload accepted, reading and writing (default
    /// [`DEFAULT_MAX_FRAME_LEN`], 2 GiB): as [`Builder::max_frame_len`].
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.reading.set_max_frame_len(max);
        self.writing.set_max_frame_len(max);
        self
    }

    /// Gives the read buffer's memory back after large frames, as `policy` decides: as
    /// [`Builder::reclaim`]. Applies to reading.
    pub fn with_reclaim<Q: ReclaimPolicy>(self, policy: Q) -> FrameCodec<F, D, Q> {
        FrameCodec {
            framer: self.framer,
            reading: self.reading.with_reclaim(policy),
            writing: self.writing,
        }
    }

    /// The largest payload accepted when reading: the smaller of the bound set and the
    /// deframer's.
    pub fn max_frame_len(&self) -> usize {
        self.reading.decoder().max_frame_len()
    }

    /// Stream offset of the next frame to decode: the bytes of the frames decoded (or stepped
    /// over) so far.
    pub fn read_position(&self) -> u64 {
        self.reading.position()
    }

    /// Bytes encoded so far: the stream offset of the next frame to encode.
    pub fn bytes_encoded(&self) -> u64 {
        self.writing.bytes_written()
    }

    /// The framer (`()` for a [`read_only`](FrameCodec::read_only) codec).
    pub fn framer(&self) -> &F {
        &self.framer
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        self.reading.decoder().deframer()
    }
}

impl<F: Framer, D, P> FrameCodec<F, D, P> {
    /// Appends the frame of `payload` to `dst`.
    #[inline]
    fn encode_payload(&mut self, payload: &[u8], dst: &mut BytesMut) -> Result<()> {
        let offset = self.writing.bytes_written();
        let header = self.writing.header(&self.framer, payload)?;
        let header = header.as_bytes();
        let len = header.len() + payload.len();
        dst.reserve(len);
        dst.extend_from_slice(header);
        dst.extend_from_slice(payload);
        self.writing.accepted(offset, len as u64);
        Ok(())
    }
}

impl<F, D: Deframer, P: ReclaimPolicy> tokio_util::codec::Decoder for FrameCodec<F, D, P> {
    type Item = Bytes;
    type Error = Error;

    #[inline]
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>> {
        self.reading.split_frame(src, false)
    }

    /// As `decode`; bytes left that are not a whole frame are [`Error::UnexpectedEof`] with
    /// the frame's offset, the bytes it needs and the bytes present.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>> {
        self.reading.split_frame(src, true)
    }
}

/// Every payload that is bytes: `&[u8]`, `Bytes` (a payload the codec decoded, sent on),
/// `Vec<u8>`, `BytesMut`. One item type alone would not compile the echo servers tokio users
/// write: `stream.forward(sink)` needs a `Sink<Bytes>`, and the sink half of a `split()` over
/// `&[u8]` cannot take a payload that lives for one turn of the loop (E0597). The price: a
/// `Framed` or `FramedWrite` of the codec is a `Sink` of each, so `flush()` and `close()`
/// name one (see [`FrameCodec`], "`flush()` and `close()` name the item type").
impl<T: AsRef<[u8]>, F: Framer, D, P> tokio_util::codec::Encoder<T> for FrameCodec<F, D, P> {
    type Error = Error;

    /// Appends the frame of `payload`: header, then payload. A payload over the bound is
    /// [`Error::FrameTooLarge`], and nothing of it is appended.
    #[inline]
    fn encode(&mut self, payload: T, dst: &mut BytesMut) -> Result<()> {
        self.encode_payload(payload.as_ref(), dst)
    }
}

/// The capacity `FramedRead` and `Framed` give their read buffer unless told otherwise.
const DEFAULT_READ_CAPACITY: usize = 8 * 1024;

/// Configures and builds [`FrameCodec`]s, and the `FramedRead`, `FramedWrite` and `Framed`
/// around them: the model is tokio-util's `length_delimited::Builder`.
///
/// Setters of a limit take `&mut self` and return it, so a builder can be kept and used for
/// several connections; setters of the format ([`checksum`](Self::checksum),
/// [`framer`](Self::framer), [`deframer`](Self::deframer), [`reclaim`](Self::reclaim)) change
/// the codec's type, so they take the builder by value: call them first.
///
/// ```
/// use flatstream::checksum::XxHash64;
/// use flatstream::tokio::FrameCodec;
/// use futures_util::{SinkExt, StreamExt};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let mut config = FrameCodec::builder().checksum(XxHash64::new());
/// config.max_frame_len(64 * 1024).read_capacity(16 * 1024);
///
/// let (client, server) = tokio::io::duplex(64 * 1024);
/// let mut sink = config.new_write(client);
/// sink.send(&b"reading"[..]).await?;
/// SinkExt::<&[u8]>::close(&mut sink).await?;
///
/// let mut frames = config.new_read(server);
/// assert_eq!(frames.next().await.transpose()?.as_deref(), Some(&b"reading"[..]));
/// assert!(frames.next().await.is_none());
/// # Ok::<(), flatstream::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct Builder<F = DefaultFramer, D = DefaultDeframer, P = NoReclaim> {
    config: FrameConfig<F, D, P>,
    read_capacity: usize,
}

impl Default for Builder {
    fn default() -> Self {
        Builder::new()
    }
}

impl Builder {
    /// The plain format without checksum, the default bound (2 GiB), no reclamation and
    /// tokio-util's read buffer capacity (8 KiB): what [`FrameCodec::builder`] returns.
    pub fn new() -> Self {
        Builder::from_config(FrameConfig::new())
    }
}

impl<F, D, P> Builder<F, D, P> {
    /// A builder with the format, bound and reclaim policy of `config` (its capacity does not
    /// apply: see [`read_capacity`](Self::read_capacity)).
    pub fn from_config(config: FrameConfig<F, D, P>) -> Self {
        Builder {
            config,
            read_capacity: DEFAULT_READ_CAPACITY,
        }
    }
}

impl<F, D, P> Builder<F, D, P> {
    /// Sets the largest payload accepted. Applies to **reading and writing**. Default:
    /// [`DEFAULT_MAX_FRAME_LEN`] (2 GiB).
    ///
    /// Reading, a frame declaring more is an [`Error::FrameTooLarge`] as soon as its length
    /// prefix is in, before anything is reserved for it; writing, a longer payload is refused
    /// before any of it is encoded. **Decoders of untrusted input should set a bound that fits
    /// their messages.** A deframer with a bound of its own keeps the smaller one.
    pub fn max_frame_len(&mut self, max: usize) -> &mut Self
    where
        F: Clone,
        D: Clone,
        P: Clone,
    {
        self.config = self.config.clone().with_max_frame_len(max);
        self
    }

    /// Sets the capacity of the read buffer that [`new_read`](Self::new_read) and
    /// [`new_framed`](Self::new_framed) start with (`FramedRead::with_capacity`). Applies to
    /// **reading**. Default: 8 KiB, tokio-util's own. The buffer grows past it with the bytes
    /// received, never with what a header claims.
    pub fn read_capacity(&mut self, capacity: usize) -> &mut Self {
        self.read_capacity = capacity;
        self
    }

    /// Protects every payload with `checksum`: [`ChecksumFramer`] and [`ChecksumDeframer`] of
    /// the same algorithm. Applies to **reading and writing**. Default: no checksum
    /// ([`DefaultFramer`], [`DefaultDeframer`]).
    pub fn checksum<C: Checksum + Clone>(
        self,
        checksum: C,
    ) -> Builder<ChecksumFramer<C>, ChecksumDeframer<C>, P> {
        Builder {
            config: self.config.with_checksum(checksum),
            read_capacity: self.read_capacity,
        }
    }

    /// Encodes with `framer` (an adapter stack, say). Applies to **writing**. Default:
    /// [`DefaultFramer`].
    pub fn framer<G: Framer>(self, framer: G) -> Builder<G, D, P> {
        Builder {
            config: self.config.with_framer(framer),
            read_capacity: self.read_capacity,
        }
    }

    /// Decodes with `deframer` (a validating one, say). Applies to **reading**. Default:
    /// [`DefaultDeframer`].
    pub fn deframer<E: Deframer>(self, deframer: E) -> Builder<F, E, P> {
        Builder {
            config: self.config.with_deframer(deframer),
            read_capacity: self.read_capacity,
        }
    }

    /// Gives the read buffer's memory back after large frames, as `policy` decides (see
    /// [`ShrinkAfter`](flatstream_core::ShrinkAfter) and
    /// [`ShrinkAbove`](flatstream_core::ShrinkAbove)): when it says so, the bytes not yet
    /// decoded move to a new buffer of the policy's baseline, and the large one is freed once
    /// the payloads handed out of it are dropped. Applies to **reading**. Default:
    /// [`NoReclaim`], the buffer keeps its largest size.
    pub fn reclaim<Q: ReclaimPolicy>(self, policy: Q) -> Builder<F, D, Q> {
        Builder {
            config: self.config.with_reclaim(policy),
            read_capacity: self.read_capacity,
        }
    }
}

impl<F, D, P> Builder<F, D, P>
where
    F: Framer + Clone,
    D: Deframer + Clone,
    P: ReclaimPolicy + Clone,
{
    /// A codec with this configuration.
    pub fn new_codec(&self) -> FrameCodec<F, D, P> {
        FrameCodec::from_config(&self.config)
    }

    /// A `FramedRead` of `io` with a codec of this configuration and a read buffer of
    /// [`read_capacity`](Self::read_capacity).
    pub fn new_read<T: AsyncRead>(&self, io: T) -> FramedRead<T, FrameCodec<F, D, P>> {
        FramedRead::with_capacity(io, self.new_codec(), self.read_capacity)
    }

    /// A `FramedWrite` of `io` with a codec of this configuration.
    pub fn new_write<T: AsyncWrite>(&self, io: T) -> FramedWrite<T, FrameCodec<F, D, P>> {
        FramedWrite::new(io, self.new_codec())
    }

    /// A `Framed` of `io` with a codec of this configuration and a read buffer of
    /// [`read_capacity`](Self::read_capacity).
    pub fn new_framed<T: AsyncRead + AsyncWrite>(&self, io: T) -> Framed<T, FrameCodec<F, D, P>> {
        Framed::with_capacity(io, self.new_codec(), self.read_capacity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_core::ShrinkAbove;
    use flatstream_core::{ChecksumDeframer, ChecksumFramer};
    use flatstream_test_support::checksums::Fletcher32;
    use tokio_util::codec::{Decoder as _, Encoder as _};

    fn encoded(payloads: &[&[u8]]) -> BytesMut {
        let mut codec = FrameCodec::default();
        let mut dst = BytesMut::new();
        for p in payloads {
            codec.encode(*p, &mut dst).unwrap();
        }
        dst
    }

    #[test]
    fn bytes_are_those_of_the_sync_writer() {
        let payloads: [&[u8]; 3] = [b"one", b"", &[7; 300]];
        let mut codec = FrameCodec::new(ChecksumFramer::new(Fletcher32), DefaultDeframer);
        let mut dst = BytesMut::new();
        codec.encode(payloads[0], &mut dst).unwrap();
        let shared = Bytes::from_static(payloads[1]);
        codec.encode(&shared[..], &mut dst).unwrap();
        let mut builder = flatbuffers::FlatBufferBuilder::new();
        let s = builder.create_vector(payloads[2]);
        builder.finish_minimal(s);
        codec.encode(builder.finished_data(), &mut dst).unwrap();
        let expected = flatstream_test_support::stream_with(
            ChecksumFramer::new(Fletcher32),
            &[payloads[0], payloads[1], builder.finished_data()],
        );
        assert_eq!(&dst[..], &expected[..]);
        assert_eq!(codec.bytes_encoded(), expected.len() as u64);
    }

    #[test]
    fn decodes_each_frame_as_bytes_split_from_the_buffer() {
        let mut src = encoded(&[b"ab", b"cde"]);
        let start = src.as_ptr();
        let mut codec = FrameCodec::default();
        let a = codec.decode(&mut src).unwrap().unwrap();
        assert_eq!(a, &b"ab"[..]);
        assert_eq!(a.as_ptr() as usize, start as usize + 4, "no copy");
        assert_eq!(codec.read_position(), 6);
        assert_eq!(codec.decode(&mut src).unwrap().unwrap(), &b"cde"[..]);
        assert_eq!(codec.decode(&mut src).unwrap(), None);
        assert_eq!(codec.decode_eof(&mut src).unwrap(), None);
    }

    #[test]
    fn errors_carry_the_offset_and_a_torn_tail_is_unexpected_eof() {
        let bytes = flatstream_test_support::stream_with(
            ChecksumFramer::new(Fletcher32),
            &[&b"first"[..], b"second"],
        );
        let mut corrupted = BytesMut::from(&bytes[..]);
        let last = corrupted.len() - 1;
        corrupted[last] ^= 1;
        let mut codec = FrameCodec::new(DefaultFramer, ChecksumDeframer::new(Fletcher32));
        assert_eq!(
            codec.decode(&mut corrupted).unwrap().unwrap(),
            &b"first"[..]
        );
        for _ in 0..2 {
            let err = codec.decode(&mut corrupted).unwrap_err();
            assert!(
                matches!(err, Error::ChecksumMismatch { offset: 13, .. }),
                "{err}"
            );
        }

        let mut torn = BytesMut::from(&bytes[..bytes.len() - 2]);
        let mut codec = FrameCodec::new(DefaultFramer, ChecksumDeframer::new(Fletcher32));
        assert!(codec.decode(&mut torn).unwrap().is_some());
        assert_eq!(codec.decode(&mut torn).unwrap(), None);
        let err = codec.decode_eof(&mut torn).unwrap_err();
        assert_eq!(
            err.to_string(),
            "stream ended inside the frame at offset 13: needed 14 bytes, 12 present"
        );
    }

    #[test]
    fn a_length_over_the_bound_is_refused_from_the_prefix_and_nothing_is_reserved() {
        let mut codec = FrameCodec::default().with_max_frame_len(1000);
        let mut src = BytesMut::from(&1001u32.to_le_bytes()[..]);
        let err = codec.decode(&mut src).unwrap_err();
        assert_eq!(
            err.to_string(),
            "frame at offset 0 is too large: payload of 1001 bytes, bound is 1000"
        );
        // Within the bound: room by the readers' growth rule (the first allocation), not for
        // the claim.
        let mut large = FrameCodec::default().with_max_frame_len(1 << 30);
        let mut src = BytesMut::from(&(1u32 << 30).to_le_bytes()[..]);
        assert_eq!(large.decode(&mut src).unwrap(), None);
        let first = flatstream_core::decode::FIRST_ALLOCATION;
        assert!(src.capacity() <= first, "{}", src.capacity());
        // Writing is bounded too, before anything is encoded.
        let mut dst = BytesMut::new();
        let err = codec.encode(&[0u8; 1001][..], &mut dst).unwrap_err();
        assert!(
            matches!(err, Error::FrameTooLarge { offset: 0, .. }),
            "{err}"
        );
        assert!(dst.is_empty());
    }

    #[test]
    fn the_buffer_is_given_back_after_a_large_frame() {
        let big = vec![1u8; 100_000];
        let mut src = encoded(&[&big, b"small"]);
        let mut codec = FrameCodec::default().with_reclaim(ShrinkAbove::new(1024, 4096));
        assert_eq!(codec.decode(&mut src).unwrap().unwrap().len(), big.len());
        assert!(src.capacity() <= 1024, "{}", src.capacity());
        assert_eq!(codec.decode(&mut src).unwrap().unwrap(), &b"small"[..]);
    }
}
