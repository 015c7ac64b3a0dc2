//! flatstream's Python package (`crates/flatstream-python`) on the SQL suite's telemetry
//! captures (1 000 000 and 17 000 000 rows, XXH3-64-framed, 60 bytes a frame):
//! `flatstream.read_table` against the Rust converter alone, the same rows read by a pure-Python
//! loop over the official FlatBuffers runtime (1 000 000 rows only: it takes minutes on 17 M),
//! and pyarrow's Parquet reader on the same rows written as zstd Parquet; and
//! `flatstream.read_batches`, whose peak memory growth goes to `python-memory.json` in the bench
//! output directory. Feature `python`; the interpreter is `FLATSTREAM_PYTHON`
//! (`flatstream_bench::python` documents the sides).
//!
//! Ids: `python/<side>/<rows>`, the throughput the rows. Every side's rows are checked.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream_bench::capture::{ROWS, TEST_ROWS, flatstream_file};
use flatstream_bench::paths::out_dir;
use flatstream_bench::python::{python, read_table_rust};
use std::fmt::Write;

fn suite(c: &mut Criterion, test_mode: bool) {
    let sizes: &[u64] = if test_mode {
        &[TEST_ROWS]
    } else {
        &[1_000_000, ROWS]
    };
    let mut memory = String::new();
    let mut group = c.benchmark_group("python");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    for &rows in sizes {
        let capture = flatstream_file(rows).expect("the capture");
        group.throughput(Throughput::Elements(rows));
        let read: usize = read_table_rust(&capture)
            .expect("the Rust converter")
            .iter()
            .map(|b| b.num_rows())
            .sum();
        assert_eq!(read as u64, rows, "the Rust converter's rows");
        group.bench_function(BenchmarkId::new("rust-converter", rows), |b| {
            b.iter(|| read_table_rust(&capture).expect("the Rust converter"));
        });
        let mut sides = vec!["read_table", "read_batches", "parquet"];
        if rows <= 1_000_000 {
            sides.push("pure_python");
        }
        for side in sides {
            let once = python(side, &capture, 1).expect("the Python side");
            assert_eq!(once.rows, rows, "{side}'s rows");
            if side == "read_batches" || side == "read_table" {
                let _ = write!(
                    memory,
                    "{}{{\"side\": \"{side}\", \"rows\": {rows}, \"capture_bytes\": {}, \"peak_growth\": {}}}",
                    if memory.is_empty() { "" } else { ", " },
                    std::fs::metadata(&capture).map(|m| m.len()).unwrap_or(0),
                    once.peak_growth
                );
            }
            group.bench_function(BenchmarkId::new(side.replace('_', "-"), rows), |b| {
                b.iter_custom(|iters| python(side, &capture, iters).expect("the Python side").time);
            });
        }
    }
    group.finish();
    std::fs::write(
        out_dir().join("python-memory.json"),
        format!("[{memory}]\n"),
    )
    .expect("write python-memory.json");
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --bench python` does not (criterion then
    // tests).
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let mut criterion = Criterion::default().configure_from_args();
    suite(&mut criterion, test_mode);
    criterion.final_summary();
}
