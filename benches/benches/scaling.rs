//! Scaling: verified reading of 1 000 000 XXH3-framed telemetry frames from a memory-mapped
//! file (FlatBuffers verification, then the three fields), on one thread with `Frames`, and
//! with `ParallelFrames` on rayon pools of 1 and 2 threads: `fold` (each split summed on its
//! thread) and `process_all_ordered` (fields summed in stream order on the calling thread).
//!
//! Ids: `scaling/sequential/1`, `scaling/fold/<threads>`, `scaling/ordered/<threads>`; the
//! parameter is the number of threads, throughput counts frames.

use criterion::{BenchmarkId, Criterion, Throughput};
use flatstream::{ChecksumFramer, XxHash64};
use flatstream_bench::cycle::{Totals, readings};
use flatstream_bench::paths::{scratch_with, telemetry_stream};
use flatstream_bench::scaling::{folded, ordered, sequential};
use std::hint::black_box;

const FRAMES: u64 = 1_000_000;

fn scaling(c: &mut Criterion) {
    let bytes = telemetry_stream(FRAMES, ChecksumFramer::new(XxHash64));
    let path = scratch_with("scaling.fstream", &bytes).expect("write the scratch file");
    drop(bytes);
    let file = std::fs::File::open(&path).expect("open the scratch file");
    let map = flatstream_bench::mmap::map(&file).expect("map the scratch file");
    let expected = Totals::of(&readings(FRAMES as usize));
    assert!(sequential(&map).unwrap().matches(&expected));

    let mut group = c.benchmark_group("scaling");
    group.throughput(Throughput::Elements(FRAMES));
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("sequential", 1), |b| {
        b.iter(|| black_box(sequential(black_box(&map[..])).unwrap()));
    });
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        assert!(pool.install(|| folded(&map)).unwrap().matches(&expected));
        assert!(pool.install(|| ordered(&map)).unwrap().matches(&expected));
        group.bench_function(BenchmarkId::new("fold", threads), |b| {
            b.iter(|| black_box(pool.install(|| folded(black_box(&map[..])).unwrap())));
        });
        group.bench_function(BenchmarkId::new("ordered", threads), |b| {
            b.iter(|| black_box(pool.install(|| ordered(black_box(&map[..])).unwrap())));
        });
    }
    group.finish();
    drop(map);
    let _ = std::fs::remove_file(path);
}

criterion::criterion_group!(benches, scaling);
criterion::criterion_main!(benches);
