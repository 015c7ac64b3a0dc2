//! The read path: 100 prewritten telemetry frames (no checksum), read from a `Read` source, from
//! the same source as a `BufRead` (in place), from a byte slice, and from a memory-mapped file. Framing only: each payload's length and first
//! byte are folded in, nothing is decoded (the telemetry suite measures decoding).
//!
//! Ids: `read_path/<source>/100`.

use criterion::{BenchmarkId, Criterion, Throughput};
use flatstream::read::BufReadStreamReader;
use flatstream::{DefaultDeframer, DefaultFramer, StreamReader};
use flatstream_bench::paths::{
    Seen, buf_read_all, frames_all, read_all, scratch_with, telemetry_stream,
};
use std::hint::black_box;
use std::io::Cursor;

const FRAMES: u64 = 100;

fn read_path(c: &mut Criterion) {
    let bytes = telemetry_stream(FRAMES, DefaultFramer);
    let expected = frames_all(&bytes, DefaultDeframer).expect("valid frames");
    assert_eq!(expected.frames, FRAMES);
    let check = |seen: Seen| assert_eq!(seen, expected);

    let mut group = c.benchmark_group("read_path");
    group.throughput(Throughput::Elements(FRAMES));

    // A new StreamReader on `&[u8]` each time: includes allocating its 64 KiB buffer.
    check(read_all(&mut StreamReader::new(&bytes[..], DefaultDeframer)).unwrap());
    group.bench_function(BenchmarkId::new("reader-slice-new", FRAMES), |b| {
        b.iter(|| {
            let mut reader = StreamReader::new(black_box(&bytes[..]), DefaultDeframer);
            black_box(read_all(&mut reader).unwrap())
        });
    });

    // A long-lived StreamReader on a `Cursor`, rewound each time (its buffer is reused).
    let mut reader = StreamReader::new(Cursor::new(bytes.clone()), DefaultDeframer);
    check(read_all(&mut reader).unwrap());
    group.bench_function(BenchmarkId::new("reader-cursor", FRAMES), |b| {
        b.iter(|| {
            reader.get_mut().set_position(0);
            black_box(read_all(&mut reader).unwrap())
        });
    });

    // A long-lived BufReadStreamReader on a `Cursor`, rewound each time: parses in place.
    let mut reader = BufReadStreamReader::new(Cursor::new(bytes.clone()), DefaultDeframer);
    check(buf_read_all(&mut reader).unwrap());
    group.bench_function(BenchmarkId::new("bufreader-cursor", FRAMES), |b| {
        b.iter(|| {
            reader.get_mut().set_position(0);
            black_box(buf_read_all(&mut reader).unwrap())
        });
    });

    // The zero-copy iterator over the bytes in memory.
    group.bench_function(BenchmarkId::new("frames-slice", FRAMES), |b| {
        b.iter(|| black_box(frames_all(black_box(&bytes), DefaultDeframer).unwrap()));
    });

    // The same iterator over a memory-mapped file (mapped once; pages warm).
    let path = scratch_with("read_path.fstream", &bytes).expect("write the scratch file");
    let file = std::fs::File::open(&path).expect("open the scratch file");
    let map = flatstream::read::MappedFile::map(&file).expect("map the scratch file");
    check(frames_all(&map, DefaultDeframer).unwrap());
    group.bench_function(BenchmarkId::new("frames-mmap", FRAMES), |b| {
        b.iter(|| black_box(frames_all(black_box(&map[..]), DefaultDeframer).unwrap()));
    });
    group.finish();
    drop(map);
    let _ = std::fs::remove_file(path);
}

criterion::criterion_group!(benches, read_path);
criterion::criterion_main!(benches);
