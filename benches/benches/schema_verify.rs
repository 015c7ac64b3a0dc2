//! `flatstream verify` against `flatstream verify --schema` over the same capture, as the
//! command runs them (`flatstream_bench::verify` documents the path): with flatstream-reflect's
//! compiled verifier (the command now) and with `flatbuffers-reflection`'s (the command before).
//!
//! Ids: `schema_verify/<capture>/<side>/<frames>`, the capture `telemetry` (the demo's million
//! readings) or `log` (300 000 log lines with the fields of Foxglove's `Log`), the side `plain`
//! (`verify`), `compiled` (`verify --schema`) or `reflection` (`verify --schema` before);
//! throughput counts the file's bytes. Each capture is written to a file first, and every side
//! is checked to verify every frame of it before timing starts. `cargo xtask bench-report`
//! renders each schema side's time over the plain side's against the target (8×).

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream_bench::paths::scratch_with;
use flatstream_bench::verify::{
    Compiled, LOG_FRAMES, Reflection, SchemaCheck, TELEMETRY_FRAMES, Tally, log_capture,
    telemetry_capture, verify_file,
};
use std::hint::black_box;
use std::path::Path;

/// The captures: name, frames, bytes and the schema their frames hold (relative to the
/// workspace root).
fn captures() -> [(&'static str, u64, Vec<u8>, &'static str); 2] {
    [
        (
            "telemetry",
            TELEMETRY_FRAMES,
            telemetry_capture(TELEMETRY_FRAMES),
            "examples/telemetry.bfbs",
        ),
        (
            "log",
            LOG_FRAMES,
            log_capture(LOG_FRAMES),
            "benches/schemas/log.bfbs",
        ),
    ]
}

/// One side over the file at `path`: `verify_file`, which must verify every frame.
fn run<S: SchemaCheck>(path: &Path, schema: Option<&S>) -> Tally {
    verify_file(path, schema).expect("read the capture")
}

fn schema_verify(c: &mut Criterion) {
    let mut group = c.benchmark_group("schema_verify");
    // A run takes milliseconds to a few hundred: the same number of runs in every sample.
    group.sampling_mode(SamplingMode::Flat);
    group.sample_size(20);
    for (name, frames, bytes, schema) in captures() {
        let path = scratch_with(&format!("schema_verify-{name}.fstream"), &bytes)
            .expect("write the capture");
        let len = bytes.len() as u64;
        drop(bytes);
        let bfbs = std::fs::read(format!("{}/../{schema}", env!("CARGO_MANIFEST_DIR")))
            .expect("read the schema");
        let compiled = Compiled::load(&bfbs).expect("load the schema");
        let reflection = Reflection::load(&bfbs).expect("load the schema");
        let plain = run(&path, None::<&Compiled>);
        assert_eq!((plain.frames, plain.errors), (frames, 0), "{name}: plain");
        assert_eq!(run(&path, Some(&compiled)), plain, "{name}: compiled");
        assert_eq!(run(&path, Some(&reflection)), plain, "{name}: reflection");

        group.throughput(Throughput::Bytes(len));
        group.bench_function(BenchmarkId::new(format!("{name}/plain"), frames), |b| {
            b.iter(|| black_box(run(black_box(&path), None::<&Compiled>)));
        });
        group.bench_function(BenchmarkId::new(format!("{name}/compiled"), frames), |b| {
            b.iter(|| black_box(run(black_box(&path), Some(&compiled))));
        });
        group.bench_function(
            BenchmarkId::new(format!("{name}/reflection"), frames),
            |b| {
                b.iter(|| black_box(run(black_box(&path), Some(&reflection))));
            },
        );
        let _ = std::fs::remove_file(&path);
    }
    group.finish();
}

criterion::criterion_group!(benches, schema_verify);
criterion::criterion_main!(benches);
