//! File I/O through the operating system: write a stream file of 256 MiB, then read it back,
//! with the page cache warm (the file was just written; nothing is synced to disk).
//!
//! Ids: `file_io/<write-bufwriter|write-file|read-file>/<payload bytes>`; throughput is file
//! bytes. Small payloads are written only through a `BufWriter`: on a raw `File` each frame is
//! a system call, which is what the 4 KiB row measures.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream::{DefaultDeframer, DefaultFramer};
use flatstream_bench::paths::{Sink, payload, read_file, scratch_file, write_file};
use std::hint::black_box;

/// At least this many bytes per file.
const FILE_BYTES: u64 = 256 << 20;

fn file_io(c: &mut Criterion) {
    let mut group = c.benchmark_group("file_io");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    for (len, sinks) in [
        (24usize, &[Sink::BufWriter][..]),
        (4096, &[Sink::BufWriter, Sink::File][..]),
    ] {
        let p = payload(len);
        let frame = (len + 4) as u64;
        let count = FILE_BYTES.div_ceil(frame);
        let path = scratch_file(&format!("file_io_{len}.fstream")).expect("scratch dir");
        group.throughput(Throughput::Bytes(count * frame));
        for &sink in sinks {
            let name = match sink {
                Sink::BufWriter => "write-bufwriter",
                Sink::File => "write-file",
            };
            group.bench_function(BenchmarkId::new(name, len), |b| {
                b.iter(|| black_box(write_file(&path, sink, DefaultFramer, &p, count).unwrap()));
            });
        }
        let seen = read_file(&path, DefaultDeframer).expect("read the file");
        assert_eq!(seen.frames, count);
        group.bench_function(BenchmarkId::new("read-file", len), |b| {
            b.iter(|| black_box(read_file(&path, DefaultDeframer).unwrap()));
        });
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
}

criterion::criterion_group!(benches, file_io);
criterion::criterion_main!(benches);
