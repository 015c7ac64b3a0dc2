//! The robustness suite: what recovery and salvage cost, on intact streams and on the worst
//! garbage for salvage's work bound.
//!
//! Ids (stable), per group:
//! - `recovery/scan/{none,xxhash64}`: `Recover::scan` over an intact 1 MiB telemetry stream.
//! - `salvage/intact/xxhash64`: `Salvage` over the same stream (XXH3-64 framing): the cost when
//!   nothing is damaged, to compare with `recovery/scan/xxhash64`.
//! - `salvage/random/xxhash64/max64k`: 1 MiB of pseudo-random bytes, then one frame; bound 64 KiB.
//! - `salvage/hostile/xxhash64/max4k`: 1 MiB of the bytes `00 10 00` repeated, then one frame;
//!   bound 4 KiB. At every third offset the length field reads 4096, the bound itself, and the
//!   payload is present: each such offset costs a checksum over 4096 bytes, the most the bound
//!   allows. For bounds up to 64 KiB no pattern does this at more offsets (neighbouring length
//!   fields share bytes, and one within such a bound has two zero high bytes); from about
//!   1 MiB up, every second offset can.
//! - `salvage/hostile/xxhash64/max64k`: `00 FF 00` repeated over 256 KiB, lengths of 65 280, a
//!   64 KiB bound.
//!
//! Throughput is the input's length: for the hostile inputs it shows how the cost per input
//! byte grows with the bound (about bound / 3 checksummed bytes per input byte).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use flatstream::repair::{Recover, Salvage};
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Framer, StreamWriter,
    XxHash64,
};
use flatstream_bench::pseudo_random_bytes;
use flatstream_test_support::telemetry::Reading;
use std::hint::black_box;

fn telemetry<F: Framer>(framer: F, bytes: usize) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), framer);
    let mut i = 0;
    while (w.bytes_written() as usize) < bytes {
        w.write(&Reading::nth(i)).unwrap();
        i += 1;
    }
    w.into_inner()
}

/// `garbage` followed by one intact frame.
fn damaged(garbage: Vec<u8>) -> Vec<u8> {
    let mut bytes = garbage;
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
    w.write(&Reading::nth(0)).unwrap();
    bytes.extend_from_slice(&w.into_inner());
    bytes
}

fn count_frames(bytes: &[u8], max: usize) -> usize {
    Salvage::new(bytes, ChecksumDeframer::new(XxHash64))
        .with_max_frame_len(max)
        .count()
}

fn bench(c: &mut Criterion) {
    let plain = telemetry(DefaultFramer, 1 << 20);
    let summed = telemetry(ChecksumFramer::new(XxHash64), 1 << 20);

    let mut g = c.benchmark_group("recovery");
    g.throughput(Throughput::Bytes(plain.len() as u64));
    g.bench_function("scan/none", |b| {
        b.iter(|| Recover::new(DefaultDeframer).scan(black_box(&plain)).frames)
    });
    g.throughput(Throughput::Bytes(summed.len() as u64));
    g.bench_function("scan/xxhash64", |b| {
        b.iter(|| {
            Recover::new(ChecksumDeframer::new(XxHash64))
                .scan(black_box(&summed))
                .frames
        })
    });
    g.finish();

    let mut g = c.benchmark_group("salvage");
    g.sample_size(10);
    g.throughput(Throughput::Bytes(summed.len() as u64));
    g.bench_function("intact/xxhash64", |b| {
        b.iter(|| count_frames(black_box(&summed), 1 << 16))
    });
    let inputs = [
        (
            "random/xxhash64/max64k",
            damaged(pseudo_random_bytes(1 << 20)),
            1 << 16,
        ),
        (
            "hostile/xxhash64/max4k",
            damaged([0, 0x10, 0].repeat((1 << 20) / 3)),
            4096,
        ),
        (
            "hostile/xxhash64/max64k",
            damaged([0, 0xFF, 0].repeat((1 << 18) / 3)),
            1 << 16,
        ),
    ];
    for (id, bytes, max) in &inputs {
        assert_eq!(
            count_frames(bytes, *max),
            2,
            "{id}: one skipped range, one frame"
        );
        g.throughput(Throughput::Bytes(bytes.len() as u64));
        g.bench_function(*id, |b| b.iter(|| count_frames(black_box(bytes), *max)));
    }
    g.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
