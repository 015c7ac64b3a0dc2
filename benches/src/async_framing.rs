//! Workloads of the tokio suite, shared with the allocation suite: decoding and encoding the
//! telemetry frames through flatstream's `FrameCodec`, through tokio-util's
//! `LengthDelimitedCodec` (4-byte little-endian lengths: the same bytes), through the sync
//! reader and writer (payloads borrowed, and as `Bytes` from `BytesFrames`) and through
//! `AsyncStreamReader` over the bytes in memory; the least a decoder handing out `Bytes`
//! payloads pays (`bytes_limit`); and the async writer → reader over a loopback TCP connection.
//!
//! Every decode verifies each payload with `flatbuffers::root::<Telemetry>` and folds its three
//! fields into [`Totals`], whichever side found the frame.

use crate::cycle::Totals;
use bytes::{Buf, Bytes, BytesMut};
use flatbuffers::FlatBufferBuilder;
use flatstream::read::BytesFrames;
use flatstream::tokio::{AsyncStreamReader, AsyncStreamWriter, FrameCodec};
use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamSerialize, StreamWriter};
use flatstream_test_support::telemetry::{Reading, Telemetry};
use tokio::io::BufWriter;
use tokio::net::{TcpListener, TcpStream};
use tokio::runtime::Runtime;
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

/// tokio-util's codec set to flatstream's plain format: 4-byte little-endian lengths.
pub fn length_delimited() -> LengthDelimitedCodec {
    LengthDelimitedCodec::builder()
        .little_endian()
        .length_field_length(4)
        .new_codec()
}

#[inline(always)]
fn fold(totals: &mut Totals, payload: &[u8]) {
    let t = flatbuffers::root::<Telemetry<'_>>(payload).expect("a valid FlatBuffer");
    totals.add(t.device_id(), t.timestamp(), t.value());
}

/// Decodes every frame of `buf` with `FrameCodec`, consuming it.
pub fn codec_decode(codec: &mut FrameCodec, buf: &mut BytesMut) -> Totals {
    let mut totals = Totals::default();
    while let Some(payload) = codec.decode(buf).expect("valid frames") {
        fold(&mut totals, &payload);
    }
    totals
}

/// Decodes every frame of `buf` with `LengthDelimitedCodec`, consuming it.
pub fn length_delimited_decode(codec: &mut LengthDelimitedCodec, buf: &mut BytesMut) -> Totals {
    let mut totals = Totals::default();
    while let Some(payload) = codec.decode(buf).expect("valid frames") {
        fold(&mut totals, &payload);
    }
    totals
}

/// The least a decoder that hands out each payload as a `Bytes` split from a `BytesMut` pays: a
/// hand-written loop that reads each 4-byte length, splits the frame off (`split_to` +
/// `freeze`), steps over its header inside the `Bytes`, verifies and folds the payload, and
/// drops it. No bound, no offsets, no error but a panic: a limit, not a decoder.
pub fn bytes_limit(buf: &mut BytesMut) -> Totals {
    let mut totals = Totals::default();
    while let Some(&len) = buf.first_chunk::<4>() {
        let len = 4 + u32::from_le_bytes(len) as usize;
        assert!(len <= buf.len(), "whole frames");
        let mut payload = buf.split_to(len).freeze();
        payload.advance(4);
        fold(&mut totals, &payload);
    }
    totals
}

/// A runtime to block on the async readers of bytes in memory: current-thread, no drivers.
pub fn in_memory_runtime() -> Runtime {
    tokio::runtime::Builder::new_current_thread()
        .build()
        .expect("a current-thread runtime")
}

/// Decodes every frame of `bytes` with `AsyncStreamReader::process_all`, the bytes read from
/// memory (`&[u8]` is an `AsyncRead`) through the reader's buffer; payloads are borrowed.
pub fn async_decode(rt: &Runtime, bytes: &[u8]) -> Totals {
    let mut totals = Totals::default();
    let mut reader = AsyncStreamReader::new(bytes, DefaultDeframer);
    rt.block_on(reader.process_all(|payload| {
        fold(&mut totals, payload);
        Ok(())
    }))
    .expect("valid frames");
    totals
}

/// As [`async_decode`], one `read_message().await` per frame.
pub fn async_read_message_decode(rt: &Runtime, bytes: &[u8]) -> Totals {
    let mut totals = Totals::default();
    let mut reader = AsyncStreamReader::new(bytes, DefaultDeframer);
    rt.block_on(async {
        while let Some(payload) = reader.read_message().await.expect("valid frames") {
            fold(&mut totals, payload);
        }
    });
    totals
}

/// Decodes every frame of `bytes` with the sync `StreamReader`, in place.
pub fn sync_decode(bytes: &[u8]) -> Totals {
    let mut totals = Totals::default();
    StreamReader::new(bytes, DefaultDeframer)
        .process_all(|payload| {
            fold(&mut totals, payload);
            Ok(())
        })
        .expect("valid frames");
    totals
}

/// Decodes every frame of `bytes` with the sync `BytesFrames`, each payload a `Bytes` sharing
/// `bytes`' buffer, as the codec hands them out: the sync reader doing the codec's work.
pub fn sync_bytes_decode(bytes: &Bytes) -> Totals {
    let mut totals = Totals::default();
    for payload in BytesFrames::new(bytes.clone(), DefaultDeframer) {
        fold(&mut totals, &payload.expect("valid frames"));
    }
    totals
}

/// Encodes every reading with `FrameCodec` from a reused builder into `dst` (cleared first).
pub fn codec_encode(
    codec: &mut FrameCodec,
    builder: &mut FlatBufferBuilder<'static>,
    dst: &mut BytesMut,
    readings: &[Reading],
) {
    dst.clear();
    for r in readings {
        builder.reset();
        r.serialize(builder).expect("serialize a reading");
        codec
            .encode(builder.finished_data(), dst)
            .expect("encode into a BytesMut");
    }
}

/// Encodes every reading with `LengthDelimitedCodec` through its `Encoder<Bytes>`: each payload
/// is first copied into an owned `Bytes` (an allocation), as a `Sink<Bytes>` takes it.
pub fn length_delimited_encode(
    codec: &mut LengthDelimitedCodec,
    builder: &mut FlatBufferBuilder<'static>,
    dst: &mut BytesMut,
    readings: &[Reading],
) {
    dst.clear();
    for r in readings {
        builder.reset();
        r.serialize(builder).expect("serialize a reading");
        let payload = Bytes::copy_from_slice(builder.finished_data());
        codec.encode(payload, dst).expect("encode into a BytesMut");
    }
}

/// Encodes every reading with `LengthDelimitedCodec` through its `Encoder<&[u8]>` (tokio-util
/// 0.7.20 and later): the finished builder's bytes go straight into `dst`, no copy before.
pub fn length_delimited_encode_slice(
    codec: &mut LengthDelimitedCodec,
    builder: &mut FlatBufferBuilder<'static>,
    dst: &mut BytesMut,
    readings: &[Reading],
) {
    dst.clear();
    for r in readings {
        builder.reset();
        r.serialize(builder).expect("serialize a reading");
        codec
            .encode(builder.finished_data(), dst)
            .expect("encode into a BytesMut");
    }
}

/// Writes every reading with the sync `StreamWriter` into its `Vec` (cleared first).
pub fn sync_encode(writer: &mut StreamWriter<Vec<u8>, DefaultFramer>, readings: &[Reading]) {
    writer.get_mut().clear();
    for r in readings {
        writer.write(r).expect("write to a Vec");
    }
}

/// An `AsyncStreamWriter` (behind a 64 KiB `BufWriter`) and an `AsyncStreamReader` at the two
/// ends of one loopback TCP connection, on a runtime of their own.
pub struct Loopback {
    rt: Runtime,
    writer: AsyncStreamWriter<BufWriter<TcpStream>, DefaultFramer>,
    reader: AsyncStreamReader<TcpStream, DefaultDeframer>,
}

impl Loopback {
    /// Connects the two ends.
    pub fn new() -> std::io::Result<Self> {
        let rt = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(1)
            .enable_io()
            .build()?;
        let (writer, reader) = rt.block_on(async {
            let listener = TcpListener::bind("127.0.0.1:0").await?;
            let client = TcpStream::connect(listener.local_addr()?).await?;
            let (server, _) = listener.accept().await?;
            client.set_nodelay(true)?;
            std::io::Result::Ok((client, server))
        })?;
        Ok(Loopback {
            rt,
            writer: AsyncStreamWriter::new(
                BufWriter::with_capacity(64 * 1024, writer),
                DefaultFramer,
            ),
            reader: AsyncStreamReader::new(reader, DefaultDeframer),
        })
    }

    /// Writes `count` frames of `payload` and flushes, while reading them at the other end;
    /// returns the payload bytes read.
    pub fn transfer(&mut self, payload: &[u8], count: u64) -> u64 {
        let (writer, reader) = (&mut self.writer, &mut self.reader);
        self.rt.block_on(async {
            let write = async {
                for _ in 0..count {
                    writer.write_payload(payload).await.expect("write");
                }
                writer.flush().await.expect("flush");
            };
            let read = async {
                let mut bytes = 0;
                for _ in 0..count {
                    let p = reader.read_message().await.expect("read").expect("a frame");
                    bytes += p.len() as u64;
                }
                bytes
            };
            tokio::join!(write, read).1
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::readings;
    use crate::paths::telemetry_stream;

    #[test]
    fn every_side_decodes_and_encodes_the_same() {
        let rs = readings(1000);
        let expected = Totals::of(&rs);
        let bytes = telemetry_stream(1000, DefaultFramer);
        assert!(sync_decode(&bytes).matches(&expected));
        assert!(sync_bytes_decode(&Bytes::copy_from_slice(&bytes)).matches(&expected));
        let mut buf = BytesMut::from(&bytes[..]);
        assert!(codec_decode(&mut FrameCodec::default(), &mut buf).matches(&expected));
        let mut buf = BytesMut::from(&bytes[..]);
        assert!(length_delimited_decode(&mut length_delimited(), &mut buf).matches(&expected));
        let mut buf = BytesMut::from(&bytes[..]);
        assert!(bytes_limit(&mut buf).matches(&expected));
        let rt = in_memory_runtime();
        assert!(async_decode(&rt, &bytes).matches(&expected));
        assert!(async_read_message_decode(&rt, &bytes).matches(&expected));

        let mut builder = FlatBufferBuilder::new();
        let mut dst = BytesMut::new();
        codec_encode(&mut FrameCodec::default(), &mut builder, &mut dst, &rs);
        assert_eq!(&dst[..], &bytes[..]);
        length_delimited_encode(&mut length_delimited(), &mut builder, &mut dst, &rs);
        assert_eq!(&dst[..], &bytes[..]);
        let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
        sync_encode(&mut writer, &rs);
        assert_eq!(writer.get_ref(), &bytes);
    }

    #[test]
    fn loopback_transfers_every_frame() {
        let mut lo = Loopback::new().unwrap();
        assert_eq!(lo.transfer(&[7; 24], 1000), 24_000);
        assert_eq!(lo.transfer(&[7; 4096], 100), 409_600);
    }
}
