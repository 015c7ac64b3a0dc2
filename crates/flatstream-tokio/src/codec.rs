//! `FrameCodec`: tokio-util's `Decoder` and `Encoder` for flatstream frames.

use bytes::{Buf, Bytes, BytesMut};
use flatbuffers::{Allocator, FlatBufferBuilder};
use flatstream_adapters::{NoReclaim, ReclaimPolicy};
use flatstream_core::decode::{Decoded, Decoder};
use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
use flatstream_core::{DefaultDeframer, DefaultFramer, Deframer, Error, Framer, Result};

/// A codec for tokio-util's [`FramedRead`](tokio_util::codec::FramedRead),
/// [`FramedWrite`](tokio_util::codec::FramedWrite) and [`Framed`](tokio_util::codec::Framed):
/// frames are decoded by flatstream's [`Decoder`] and each verified payload comes out as a
/// [`Bytes`] split from the read buffer, with no copy.
///
/// ```text
/// read buffer:  [len|sum|payload 1][len|sum|payload 2][len|sum|payl...
///                         \_______/
///   decode() ->   Bytes sharing the buffer (Send + 'static); the frame leaves the buffer
/// ```
///
/// * **Decoding** yields `Bytes`. The bound ([`with_max_frame_len`](Self::with_max_frame_len),
///   2 GiB by default as for every reader) is checked from the length prefix alone, and the
///   codec never reserves what a header claims: the read buffer grows with the bytes received,
///   at most doubling. Errors are [`flatstream_core::Error`], with the offset of the frame in
///   the stream. A frame rejected for its content by a validating deframer is stepped over; a
///   framing error (a length over the bound, a checksum mismatch) leaves the codec at the frame,
///   and a stream that ends inside a frame is [`Error::UnexpectedEof`].
/// * **Encoding** takes a `&[u8]`, a [`Bytes`] or a finished `&FlatBufferBuilder`, and writes
///   the header and the payload straight into the destination `BytesMut`: no intermediate buffer,
///   and no allocation per message once the destination has grown.
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
/// tokio-util's `FramedRead` answers `None` once after any error from its codec
/// (tokio-rs/tokio#3976), then, if polled again, reads from the source before it decodes
/// again. For a content error the codec has already moved past the frame, so the frames after
/// it come out once more bytes (or the end of the stream) arrive; for a framing error the
/// same error comes back. Where a rejected frame must not pause the stream, read with
/// [`AsyncStreamReader`](crate::AsyncStreamReader), which goes straight on to the next frame.
///
/// ```
/// use flatstream_tokio::FrameCodec;
/// use futures_util::{SinkExt, StreamExt};
/// use tokio_util::codec::{FramedRead, FramedWrite};
///
/// # tokio::runtime::Builder::new_current_thread().build()?.block_on(async {
/// let (client, server) = tokio::io::duplex(64 * 1024);
/// let mut sink = FramedWrite::new(client, FrameCodec::default());
/// sink.send(&b"first"[..]).await?;
/// sink.send(bytes::Bytes::from_static(b"second")).await?;
/// drop(sink);
///
/// let mut frames = FramedRead::new(server, FrameCodec::default().with_max_frame_len(1 << 20));
/// let mut payloads = Vec::new();
/// while let Some(payload) = frames.next().await {
///     let payload: bytes::Bytes = payload?; // could be sent to another task
///     payloads.push(payload);
/// }
/// assert_eq!(payloads, [&b"first"[..], &b"second"[..]]);
/// # Ok::<(), flatstream_core::Error>(())
/// # })?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug, Clone)]
pub struct FrameCodec<F = DefaultFramer, D = DefaultDeframer, P = NoReclaim> {
    framer: F,
    decoder: Decoder<D>,
    /// The bound on payloads encoded, at most `u32::MAX`.
    max_write_len: usize,
    /// Stream offset of the first byte of the read buffer.
    read_offset: u64,
    /// Bytes encoded so far: the stream offset of the next frame written.
    write_offset: u64,
    reclaim: P,
}

impl Default for FrameCodec {
    /// The plain format, without checksum, both ways.
    fn default() -> Self {
        FrameCodec::new(DefaultFramer, DefaultDeframer)
    }
}

impl<F: Framer, D: Deframer> FrameCodec<F, D> {
    /// A codec that encodes with `framer` and decodes with `deframer`, with the default bound
    /// (2 GiB) both ways.
    pub fn new(framer: F, deframer: D) -> Self {
        FrameCodec {
            framer,
            decoder: Decoder::new(deframer),
            max_write_len: DEFAULT_MAX_FRAME_LEN,
            read_offset: 0,
            write_offset: 0,
            reclaim: NoReclaim,
        }
    }
}

impl<F: Framer, D: Deframer, P: ReclaimPolicy> FrameCodec<F, D, P> {
    /// Sets the largest payload accepted, reading and writing (default
    /// [`DEFAULT_MAX_FRAME_LEN`], 2 GiB). A frame declaring more is an
    /// [`Error::FrameTooLarge`] as soon as its length prefix is in, before anything is reserved
    /// for it; a payload longer than this is refused before any of it is encoded.
    /// **Decoders of untrusted input should set a bound that fits their messages.**
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.decoder.set_max_frame_len(max);
        self.max_write_len = max.min(u32::MAX as usize);
        self
    }

    /// Gives the read buffer's memory back after large frames, as `policy` decides (see
    /// [`ShrinkAfter`](flatstream_adapters::ShrinkAfter) and
    /// [`ShrinkAbove`](flatstream_adapters::ShrinkAbove)): when it says so, the bytes not yet
    /// decoded move to a new buffer of the policy's baseline, and the large one is freed once
    /// the payloads handed out of it are dropped. Applies to reading. By default
    /// ([`NoReclaim`]) the buffer keeps its largest size.
    pub fn with_reclaim<Q: ReclaimPolicy>(self, policy: Q) -> FrameCodec<F, D, Q> {
        FrameCodec {
            framer: self.framer,
            decoder: self.decoder,
            max_write_len: self.max_write_len,
            read_offset: self.read_offset,
            write_offset: self.write_offset,
            reclaim: policy,
        }
    }

    /// The largest payload accepted when reading: the smaller of the bound set and the
    /// deframer's.
    pub fn max_frame_len(&self) -> usize {
        self.decoder.max_frame_len()
    }

    /// Stream offset of the next frame to decode: the bytes of the frames decoded (or stepped
    /// over) so far.
    pub fn read_position(&self) -> u64 {
        self.read_offset
    }

    /// Bytes encoded so far: the stream offset of the next frame to encode.
    pub fn bytes_encoded(&self) -> u64 {
        self.write_offset
    }

    /// The framer.
    pub fn framer(&self) -> &F {
        &self.framer
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        self.decoder.deframer()
    }

    /// Decodes the frame at the front of `src`; at the end of the stream, bytes that are not a
    /// whole frame are an error.
    #[inline]
    fn next(&mut self, src: &mut BytesMut, at_eof: bool) -> Result<Option<Bytes>> {
        let offset = self.read_offset;
        let (len, header) = match self.decoder.decode(src, offset)? {
            Decoded::Frame(frame) => (frame.len(), frame.span().header_len),
            Decoded::Rejected { len, error } => {
                src.advance(len);
                self.read_offset += len as u64;
                return Err(error);
            }
            Decoded::Incomplete(need) => {
                if at_eof {
                    return need.at_end(offset).map(|()| None);
                }
                // A full buffer gets room for what is worth reading next: at most what the
                // frame already has (or a header's worth), never what its header claims. (Left
                // to `FramedRead`'s `reserve(1)`, a buffer still shared with a payload handed
                // out would be copied into one of exactly one byte more.)
                if src.capacity() == src.len() {
                    src.reserve(need.useful());
                }
                return Ok(None);
            }
        };
        self.read_offset += len as u64;
        // The whole frame is split off, then its header stepped over inside the `Bytes`:
        // one call into `bytes` and one reference count taken per frame. (`Bytes::advance`
        // is inlined and touches no count, where `BytesMut::advance` before the split is a
        // second out-of-line call, and `slice` a second count.)
        let mut payload = src.split_to(len).freeze();
        payload.advance(header);
        if self.reclaim.after_message(payload.len()) {
            self.reclaim_buffer(src);
        }
        Ok(Some(payload))
    }

    /// Moves the bytes not yet decoded to a buffer of the policy's baseline, if `src` is
    /// larger.
    #[cold]
    fn reclaim_buffer(&self, src: &mut BytesMut) {
        let baseline = self.reclaim.baseline().max(src.len());
        if src.capacity() > baseline {
            let mut fresh = BytesMut::with_capacity(baseline);
            fresh.extend_from_slice(src);
            *src = fresh;
        }
    }

    /// Appends the frame of `payload` to `dst`.
    #[inline]
    fn encode_payload(&mut self, payload: &[u8], dst: &mut BytesMut) -> Result<()> {
        let offset = self.write_offset;
        if payload.len() > self.max_write_len {
            return Err(too_large(offset, payload.len(), self.max_write_len));
        }
        let header = self.framer.header(payload, offset)?;
        let header = header.as_bytes();
        let len = header.len() + payload.len();
        dst.reserve(len);
        dst.extend_from_slice(header);
        dst.extend_from_slice(payload);
        self.write_offset = offset + len as u64;
        Ok(())
    }
}

#[cold]
fn too_large(offset: u64, len: usize, max: usize) -> Error {
    Error::FrameTooLarge {
        offset,
        len: len as u64,
        max: max as u64,
    }
}

impl<F: Framer, D: Deframer, P: ReclaimPolicy> tokio_util::codec::Decoder for FrameCodec<F, D, P> {
    type Item = Bytes;
    type Error = Error;

    #[inline]
    fn decode(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>> {
        self.next(src, false)
    }

    /// As `decode`; bytes left that are not a whole frame are [`Error::UnexpectedEof`] with
    /// the frame's offset, the bytes it needs and the bytes present.
    fn decode_eof(&mut self, src: &mut BytesMut) -> Result<Option<Bytes>> {
        self.next(src, true)
    }
}

impl<F: Framer, D: Deframer, P: ReclaimPolicy> tokio_util::codec::Encoder<&[u8]>
    for FrameCodec<F, D, P>
{
    type Error = Error;

    /// Appends the frame of `payload`: header, then payload.
    #[inline]
    fn encode(&mut self, payload: &[u8], dst: &mut BytesMut) -> Result<()> {
        self.encode_payload(payload, dst)
    }
}

impl<F: Framer, D: Deframer, P: ReclaimPolicy> tokio_util::codec::Encoder<Bytes>
    for FrameCodec<F, D, P>
{
    type Error = Error;

    /// Appends the frame of `payload`: header, then payload.
    #[inline]
    fn encode(&mut self, payload: Bytes, dst: &mut BytesMut) -> Result<()> {
        self.encode_payload(&payload, dst)
    }
}

impl<F, D, P, A> tokio_util::codec::Encoder<&FlatBufferBuilder<'_, A>> for FrameCodec<F, D, P>
where
    F: Framer,
    D: Deframer,
    P: ReclaimPolicy,
    A: Allocator,
{
    type Error = Error;

    /// Appends the frame of the builder's finished buffer. The builder is left as it is: reset
    /// it before building the next message.
    #[inline]
    fn encode(&mut self, builder: &FlatBufferBuilder<'_, A>, dst: &mut BytesMut) -> Result<()> {
        self.encode_payload(builder.finished_data(), dst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_adapters::ShrinkAbove;
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
        codec
            .encode(Bytes::from_static(payloads[1]), &mut dst)
            .unwrap();
        let mut builder = FlatBufferBuilder::new();
        let s = builder.create_vector(payloads[2]);
        builder.finish_minimal(s);
        codec.encode(&builder, &mut dst).unwrap();
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
        // Within the bound: room for what is worth reading next, not for the claim.
        let mut src = BytesMut::from(&1000u32.to_le_bytes()[..]);
        assert_eq!(codec.decode(&mut src).unwrap(), None);
        assert!(src.capacity() <= 64, "{}", src.capacity());
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
