//! Payload sizes from 16 B to 1 MiB, written and read one frame at a time, with no checksum and
//! with each checksum, beside a plain `memcpy` of the same bytes (the physical baseline: the
//! writer copies the payload into its sink) and a `sum` of them (the least a reader that uses
//! the payload does: every read row sums every payload byte it is handed, as an application
//! would read them, so its throughput is that of bytes delivered and used).
//!
//! Ids: `size_sweep/<write|read>-<checksum>/<bytes>`, `size_sweep/memcpy/<bytes>` and
//! `size_sweep/sum/<bytes>`; throughput is payload bytes.

use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, measurement::WallTime};
use flatstream::{Deframer, Framer, StreamReader, StreamWriter};
use flatstream_bench::checksums::{ChecksumVisitor, for_each_checksum};
use flatstream_bench::paths::{memcpy, payload, read_all_touched, touch};
use std::hint::black_box;
use std::io::Cursor;

/// The payload sizes, in bytes.
const SIZES: [usize; 5] = [16, 256, 4 << 10, 64 << 10, 1 << 20];

struct Sweep<'g, 'c, 'p> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    payload: &'p [u8],
}

impl ChecksumVisitor for Sweep<'_, '_, '_> {
    fn visit<F, D>(&mut self, name: &'static str, framer: F, deframer: D)
    where
        F: Framer + Copy,
        D: Deframer + Copy,
    {
        let len = self.payload.len();
        // Write: one frame into a reused Vec.
        let mut writer = StreamWriter::new(Vec::with_capacity(len + 16), framer);
        self.group
            .bench_function(BenchmarkId::new(format!("write-{name}"), len), |b| {
                b.iter(|| {
                    writer.get_mut().clear();
                    writer.write_payload(black_box(self.payload)).unwrap();
                    black_box(writer.get_ref().len())
                });
            });
        // Read: one frame from a long-lived reader on a rewound Cursor (which it parses in
        // place), every payload byte summed: with no checksum the reader itself touches none.
        // The frame is written here again: a filter may have skipped the write benchmark.
        writer.get_mut().clear();
        writer.write_payload(self.payload).unwrap();
        let frame = writer.into_inner();
        let mut reader = StreamReader::new(Cursor::new(frame), deframer);
        let seen = read_all_touched(&mut reader).unwrap();
        assert_eq!((seen.bytes, seen.sum), (len as u64, touch(self.payload)));
        self.group
            .bench_function(BenchmarkId::new(format!("read-{name}"), len), |b| {
                b.iter(|| {
                    reader.get_mut().set_position(0);
                    black_box(read_all_touched(&mut reader).unwrap())
                });
            });
    }
}

fn size_sweep(c: &mut Criterion) {
    let mut group = c.benchmark_group("size_sweep");
    for len in SIZES {
        let p = payload(len);
        group.throughput(Throughput::Bytes(len as u64));
        let mut dst = vec![0u8; len];
        group.bench_function(BenchmarkId::new("memcpy", len), |b| {
            b.iter(|| {
                memcpy(black_box(&mut dst), black_box(&p));
                black_box(dst[len - 1])
            });
        });
        group.bench_function(BenchmarkId::new("sum", len), |b| {
            b.iter(|| touch(black_box(&p)));
        });
        for_each_checksum(&mut Sweep {
            group: &mut group,
            payload: &p,
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, size_sweep);
criterion::criterion_main!(benches);
