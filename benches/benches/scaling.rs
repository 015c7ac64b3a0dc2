//! Scaling: reading a 105 MB capture of XXH3-framed telemetry tables with arbitrary field
//! values (1 750 000 frames), from a memory-mapped file, with the default bound (2 GiB), on one
//! thread with `Frames`, and with `ParallelFrames` on rayon pools of 1 and 2 threads.
//!
//! With the fields (FlatBuffers verification, then the three fields summed): `fold` (each split
//! summed on its thread) and `process_all_ordered` (fields summed in stream order on the calling
//! thread). With verification alone (the checksum verified, the frame counted): `fold`.
//!
//! Ids: `scaling/sequential/1`, `scaling/fold/<threads>`, `scaling/ordered/<threads>`,
//! `scaling/verify_sequential/1`, `scaling/verify_fold/<threads>`; the parameter is the number
//! of threads, throughput counts frames.
//!
//! Then the targets (`fold` on 2 threads at least 1.7 times as fast as the sequential read with
//! the fields, 1.2 times with verification alone) are timed in pairs: the side and its
//! sequential baseline back to back, the order alternating, for [`ROUNDS`] rounds
//! (`FLATSTREAM_SCALING_ROUNDS` overrides it for a quick look). The median speed-up and its
//! quartiles are printed and written to `<target>/flatstream-bench/scaling.json`, where
//! `cargo xtask bench-report` reads them. In test mode (`--test`) one round runs and nothing is
//! written.

use criterion::{BenchmarkId, Criterion, Throughput};
use flatstream::read::MappedFile;
use flatstream_bench::cycle::Totals;
use flatstream_bench::paths::out_dir;
use flatstream_bench::paths::scratch_with;
use flatstream_bench::scaling::{
    CAPTURE_BYTES, FRAMES, arbitrary_readings, capture, folded, ordered, sequential,
    verified_folded, verified_sequential,
};
use serde_json::json;
use std::hint::black_box;
use std::time::Instant;

/// Paired rounds per target.
const ROUNDS: usize = 31;

fn scaling(c: &mut Criterion, test_mode: bool) {
    let readings = arbitrary_readings(FRAMES);
    let expected = Totals::of(&readings);
    let bytes = capture(&readings);
    drop(readings);
    assert_eq!(bytes.len(), CAPTURE_BYTES, "the capture the report names");
    let path = scratch_with("scaling.fstream", &bytes).expect("write the scratch file");
    drop(bytes);
    let map = MappedFile::open(&path).expect("map the scratch file");
    assert!(sequential(&map).unwrap().matches(&expected));
    let verified = verified_sequential(&map).unwrap();
    assert_eq!(verified.0, FRAMES);

    let mut group = c.benchmark_group("scaling");
    group.throughput(Throughput::Elements(FRAMES));
    group.sample_size(20);
    group.bench_function(BenchmarkId::new("sequential", 1), |b| {
        b.iter(|| black_box(sequential(black_box(&map[..])).unwrap()));
    });
    group.bench_function(BenchmarkId::new("verify_sequential", 1), |b| {
        b.iter(|| black_box(verified_sequential(black_box(&map[..])).unwrap()));
    });
    for threads in [1, 2] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("a thread pool");
        assert!(pool.install(|| folded(&map)).unwrap().matches(&expected));
        assert!(pool.install(|| ordered(&map)).unwrap().matches(&expected));
        assert_eq!(pool.install(|| verified_folded(&map)).unwrap(), verified);
        group.bench_function(BenchmarkId::new("fold", threads), |b| {
            b.iter(|| black_box(pool.install(|| folded(black_box(&map[..])).unwrap())));
        });
        group.bench_function(BenchmarkId::new("ordered", threads), |b| {
            b.iter(|| black_box(pool.install(|| ordered(black_box(&map[..])).unwrap())));
        });
        group.bench_function(BenchmarkId::new("verify_fold", threads), |b| {
            b.iter(|| black_box(pool.install(|| verified_folded(black_box(&map[..])).unwrap())));
        });
    }
    group.finish();

    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .expect("a thread pool");
    let rounds = if test_mode {
        1
    } else {
        std::env::var("FLATSTREAM_SCALING_ROUNDS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(ROUNDS)
    };
    let bytes = &map[..];
    let pairs = [
        paired(
            ("fold/2", 1.7),
            "sequential/1",
            rounds,
            &mut || pool.install(|| folded(black_box(bytes)).unwrap()).count,
            &mut || sequential(black_box(bytes)).unwrap().count,
        ),
        paired(
            ("verify_fold/2", 1.2),
            "verify_sequential/1",
            rounds,
            &mut || {
                pool.install(|| verified_folded(black_box(bytes)).unwrap())
                    .0
            },
            &mut || verified_sequential(black_box(bytes)).unwrap().0,
        ),
    ];
    drop(map);
    let _ = std::fs::remove_file(path);
    if !test_mode {
        let dir = out_dir();
        std::fs::create_dir_all(&dir).expect("create the bench output directory");
        let text = serde_json::to_string_pretty(&json!({ "scaling": pairs })).unwrap();
        std::fs::write(dir.join("scaling.json"), text + "\n").expect("write scaling.json");
    }
}

/// Times `side` and `baseline` back to back for `rounds` rounds, the order alternating, and
/// returns the median speed-up (the baseline's time over the side's) with its quartiles, as
/// `cargo xtask bench-report` reads it. Both must have read the same number of frames.
fn paired(
    (side, target): (&str, f64),
    baseline: &str,
    rounds: usize,
    run_side: &mut dyn FnMut() -> u64,
    run_baseline: &mut dyn FnMut() -> u64,
) -> serde_json::Value {
    let time = |run: &mut dyn FnMut() -> u64| {
        let start = Instant::now();
        let frames = black_box(run());
        assert_eq!(frames, FRAMES);
        start.elapsed().as_secs_f64()
    };
    let mut speed_ups: Vec<f64> = (0..rounds)
        .map(|round| {
            let (side, baseline) = if round % 2 == 0 {
                let side = time(run_side);
                (side, time(run_baseline))
            } else {
                let baseline = time(run_baseline);
                (time(run_side), baseline)
            };
            baseline / side
        })
        .collect();
    speed_ups.sort_by(f64::total_cmp);
    let q = |f: f64| speed_ups[((speed_ups.len() - 1) as f64 * f).round() as usize];
    let (median, q1, q3) = (q(0.5), q(0.25), q(0.75));
    println!(
        "scaling/{side} against scaling/{baseline}, {rounds} paired rounds: speed-up {median:.2} ({q1:.2}-{q3:.2}), target {target}"
    );
    json!({
        "group": "scaling", "side": side, "baseline": baseline, "target": target,
        "processes": 1, "rounds": rounds, "median": median, "q1": q1, "q3": q3,
        "lowest_process_median": median, "highest_process_median": median,
    })
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not (criterion then tests).
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let mut criterion = Criterion::default().configure_from_args();
    scaling(&mut criterion, test_mode);
    criterion.final_summary();
}
