//! Frames to Arrow record batches (`flatstream_bench::arrow` documents each side).
//!
//! `arrow_convert/<side>/100000`: 100 000 telemetry frames (no checksum, about 4 MB) into
//! batches of 8192 rows of `device_id, timestamp, value`, by flatstream-arrow
//! (`flatstream-arrow`), a hand-written loop over flatc's generated verifier and accessors into
//! Arrow builders (`hand`), and the JSON route, `flatstream cat --schema` lines through
//! arrow-json (`json`). Every side's batches are checked equal before timing starts.
//!
//! `arrow_projection/<columns>/10000`: 10 000 frames of a 10-field table
//! (`benches/schemas/wide.fbs`) converted with all ten columns (`all`) and with `value` alone
//! (`one`).

use criterion::{BenchmarkId, Criterion, Throughput};
use flatstream_bench::arrow::{
    JsonRoute, TELEMETRY_FRAMES, WIDE_FRAMES, convert_flatstream, convert_hand, telemetry_frames,
    telemetry_plan, wide_frames, wide_plan,
};
use std::hint::black_box;

fn arrow_convert(c: &mut Criterion) {
    let bytes = telemetry_frames(TELEMETRY_FRAMES);
    let plan = telemetry_plan();
    let mut json = JsonRoute::new(plan.schema().clone());
    let expected = convert_flatstream(&plan, &bytes);
    assert_eq!(convert_hand(plan.schema(), &bytes), expected, "hand");
    assert_eq!(json.convert(&bytes), expected, "json");

    let mut group = c.benchmark_group("arrow_convert");
    group.throughput(Throughput::Elements(TELEMETRY_FRAMES));
    group.bench_function(
        BenchmarkId::new("flatstream-arrow", TELEMETRY_FRAMES),
        |b| {
            b.iter(|| black_box(convert_flatstream(&plan, black_box(&bytes))));
        },
    );
    group.bench_function(BenchmarkId::new("hand", TELEMETRY_FRAMES), |b| {
        b.iter(|| black_box(convert_hand(plan.schema(), black_box(&bytes))));
    });
    group.bench_function(BenchmarkId::new("json", TELEMETRY_FRAMES), |b| {
        b.iter(|| black_box(json.convert(black_box(&bytes))));
    });
    group.finish();
}

fn arrow_projection(c: &mut Criterion) {
    let bytes = wide_frames(WIDE_FRAMES);
    let all = wide_plan();
    assert_eq!(all.schema().fields().len(), 10);
    let one = all
        .with_projection_names(&["value"])
        .expect("a column of the wide table");
    let whole = convert_flatstream(&all, &bytes);
    assert_eq!(
        whole.iter().map(|b| b.num_rows()).sum::<usize>(),
        WIDE_FRAMES
    );
    let single = convert_flatstream(&one, &bytes);
    for (a, o) in whole.iter().zip(&single) {
        assert_eq!(o.column(0), a.column(3), "the projected column");
    }

    let mut group = c.benchmark_group("arrow_projection");
    group.throughput(Throughput::Elements(WIDE_FRAMES as u64));
    for (name, plan) in [("one", &one), ("all", &all)] {
        group.bench_function(BenchmarkId::new(name, WIDE_FRAMES), |b| {
            b.iter(|| black_box(convert_flatstream(plan, black_box(&bytes))));
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, arrow_convert, arrow_projection);
criterion::criterion_main!(benches);
