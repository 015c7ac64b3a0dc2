//! flatstream-tokio: the codec against tokio-util's `LengthDelimitedCodec` and the sync reader
//! and writer, and the async writer → reader over loopback TCP.
//!
//! Ids:
//! * `tokio_codec/decode/<side>/100000`: the 100 000 telemetry frames (no checksum) decoded,
//!   each payload verified with `flatbuffers::root` and its fields read; `sync` is
//!   `StreamReader` in place over the same bytes, `sync-bytes` is `BytesFrames` over a `Bytes`
//!   holding them (payloads as `Bytes`, the codec's work done by the sync reader),
//!   `flatstream-codec` is `FrameCodec::decode` over a `BytesMut` holding them (payloads as
//!   `Bytes`), `length-delimited` is `LengthDelimitedCodec` (4-byte little-endian lengths),
//!   `bytes-limit` is the least any decoder handing out `Bytes` split from a `BytesMut` pays
//!   (a hand-written loop: split, freeze, step over the header, drop), `async-process-all` and
//!   `async-read-message` are `AsyncStreamReader` over the bytes in memory (`&[u8]` as the
//!   `AsyncRead`, copied through its buffer; payloads borrowed) on a current-thread runtime.
//!   The codecs' buffer is filled in criterion's untimed setup.
//! * `tokio_codec/encode/<side>/100000`: the readings serialized with a reused builder and
//!   framed: `sync` with `StreamWriter` into a reused `Vec`, `flatstream-codec` with
//!   `FrameCodec::encode(builder.finished_data())` into a reused `BytesMut`,
//!   `length-delimited` with `LengthDelimitedCodec`'s `Encoder<Bytes>` (each payload copied
//!   into an owned `Bytes` first, as a `Sink<Bytes>` takes it), `length-delimited-slice` with
//!   its `Encoder<&[u8]>` (no copy before the one into the destination).
//! * `tokio_tcp/async/<payload bytes>`: `AsyncStreamWriter` (behind a `BufWriter`) → loopback
//!   TCP → `AsyncStreamReader`, frames of 24 B and 4 KiB, on a tokio runtime.

use bytes::{Bytes, BytesMut};
use criterion::{BatchSize, BenchmarkId, Criterion, Throughput};
use flatbuffers::FlatBufferBuilder;
use flatstream::tokio::FrameCodec;
use flatstream::{DefaultFramer, StreamWriter};
use flatstream_bench::async_framing::{
    Loopback, async_decode, async_read_message_decode, bytes_limit, codec_decode, codec_encode,
    in_memory_runtime, length_delimited, length_delimited_decode, length_delimited_encode,
    length_delimited_encode_slice, sync_bytes_decode, sync_decode, sync_encode,
};
use flatstream_bench::cycle::{Totals, readings};
use flatstream_bench::paths::{payload, telemetry_stream};
use std::hint::black_box;

const MESSAGES: usize = 100_000;

fn tokio_codec(c: &mut Criterion) {
    let rs = readings(MESSAGES);
    let expected = Totals::of(&rs);
    let bytes = telemetry_stream(MESSAGES as u64, DefaultFramer);
    let mut group = c.benchmark_group("tokio_codec");
    group.sample_size(10);
    group.throughput(Throughput::Elements(MESSAGES as u64));

    assert!(sync_decode(&bytes).matches(&expected));
    group.bench_function(BenchmarkId::new("decode/sync", MESSAGES), |b| {
        b.iter(|| black_box(sync_decode(black_box(&bytes))));
    });
    let shared = Bytes::copy_from_slice(&bytes);
    assert!(sync_bytes_decode(&shared).matches(&expected));
    group.bench_function(BenchmarkId::new("decode/sync-bytes", MESSAGES), |b| {
        b.iter(|| black_box(sync_bytes_decode(black_box(&shared))));
    });
    let fill = || BytesMut::from(&bytes[..]);
    let mut codec = FrameCodec::default();
    assert!(codec_decode(&mut codec, &mut fill()).matches(&expected));
    group.bench_function(BenchmarkId::new("decode/flatstream-codec", MESSAGES), |b| {
        b.iter_batched_ref(
            fill,
            |buf| black_box(codec_decode(&mut codec, buf)),
            BatchSize::LargeInput,
        );
    });
    let mut ldc = length_delimited();
    assert!(length_delimited_decode(&mut ldc, &mut fill()).matches(&expected));
    group.bench_function(BenchmarkId::new("decode/length-delimited", MESSAGES), |b| {
        b.iter_batched_ref(
            fill,
            |buf| black_box(length_delimited_decode(&mut ldc, buf)),
            BatchSize::LargeInput,
        );
    });

    assert!(bytes_limit(&mut fill()).matches(&expected));
    group.bench_function(BenchmarkId::new("decode/bytes-limit", MESSAGES), |b| {
        b.iter_batched_ref(
            fill,
            |buf| black_box(bytes_limit(buf)),
            BatchSize::LargeInput,
        );
    });
    let rt = in_memory_runtime();
    assert!(async_decode(&rt, &bytes).matches(&expected));
    group.bench_function(
        BenchmarkId::new("decode/async-process-all", MESSAGES),
        |b| {
            b.iter(|| black_box(async_decode(&rt, black_box(&bytes))));
        },
    );
    assert!(async_read_message_decode(&rt, &bytes).matches(&expected));
    group.bench_function(
        BenchmarkId::new("decode/async-read-message", MESSAGES),
        |b| b.iter(|| black_box(async_read_message_decode(&rt, black_box(&bytes)))),
    );

    let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
    sync_encode(&mut writer, &rs);
    assert_eq!(writer.get_ref(), &bytes);
    group.bench_function(BenchmarkId::new("encode/sync", MESSAGES), |b| {
        b.iter(|| sync_encode(&mut writer, black_box(&rs)));
    });
    let mut builder = FlatBufferBuilder::new();
    let mut dst = BytesMut::new();
    codec_encode(&mut codec, &mut builder, &mut dst, &rs);
    assert_eq!(&dst[..], &bytes[..]);
    group.bench_function(BenchmarkId::new("encode/flatstream-codec", MESSAGES), |b| {
        b.iter(|| codec_encode(&mut codec, &mut builder, &mut dst, black_box(&rs)));
    });
    length_delimited_encode(&mut ldc, &mut builder, &mut dst, &rs);
    assert_eq!(&dst[..], &bytes[..]);
    group.bench_function(BenchmarkId::new("encode/length-delimited", MESSAGES), |b| {
        b.iter(|| length_delimited_encode(&mut ldc, &mut builder, &mut dst, black_box(&rs)));
    });
    length_delimited_encode_slice(&mut ldc, &mut builder, &mut dst, &rs);
    assert_eq!(&dst[..], &bytes[..]);
    group.bench_function(
        BenchmarkId::new("encode/length-delimited-slice", MESSAGES),
        |b| {
            b.iter(|| {
                length_delimited_encode_slice(&mut ldc, &mut builder, &mut dst, black_box(&rs))
            });
        },
    );
    group.finish();
}

fn tokio_tcp(c: &mut Criterion) {
    let mut lo = Loopback::new().expect("a loopback connection");
    let mut group = c.benchmark_group("tokio_tcp");
    group.sample_size(10);
    for (size, count) in [(24usize, 100_000u64), (4096, 10_000)] {
        let p = payload(size);
        assert_eq!(lo.transfer(&p, count), size as u64 * count);
        group.throughput(Throughput::Elements(count));
        group.bench_function(BenchmarkId::new("async", size), |b| {
            b.iter(|| black_box(lo.transfer(black_box(&p), count)));
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, tokio_codec, tokio_tcp);
criterion::criterion_main!(benches);
