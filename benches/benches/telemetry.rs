//! The telemetry write+read cycle: flatstream (no checksum and each checksum) against bincode,
//! serde_json, prost and tokio-util's `LengthDelimitedCodec`, on 100 and 100 000 messages.
//!
//! Ids: `telemetry_cycle/<side>/<messages>`, and `telemetry_write/<side>/100000` and
//! `telemetry_read/<side>/100000` for the two halves of the cycle, and
//! `telemetry_cold/<side>/100` for a cycle that creates its state anew each time. What each side does per message is documented in
//! `flatstream_bench::cycle`; every side frames every message and reads every field back, and
//! the result is checked against the readings before timing starts.

use criterion::{BenchmarkGroup, BenchmarkId, Criterion, Throughput, measurement::WallTime};
use flatstream::{DefaultDeframer, DefaultFramer, Deframer, Framer};
use flatstream_bench::checksums::{ChecksumVisitor, for_each_checksum};
use flatstream_bench::cycle::{
    BincodeCycle, CodecCycle, Cycle, FlatstreamCycle, FlatstreamSliceCycle, JsonCycle, ProstCycle,
    Totals, readings,
};
use flatstream_test_support::telemetry::Reading;
use std::hint::black_box;

/// The batch sizes: a burst, and a long stream.
const SIZES: [usize; 2] = [100, 100_000];

fn run(group: &mut BenchmarkGroup<'_, WallTime>, id: &str, side: &mut dyn Cycle, rs: &[Reading]) {
    let expected = Totals::of(rs);
    let got = side.cycle(rs);
    assert!(
        got.matches(&expected),
        "{id}: read {got:?}, wrote {expected:?}"
    );
    group.bench_with_input(BenchmarkId::new(id, rs.len()), rs, |b, rs| {
        b.iter(|| black_box(side.cycle(black_box(rs))));
    });
}

struct Sides<'g, 'c, 'r> {
    group: &'g mut BenchmarkGroup<'c, WallTime>,
    readings: &'r [Reading],
}

impl ChecksumVisitor for Sides<'_, '_, '_> {
    fn visit<F, D>(&mut self, name: &'static str, framer: F, deframer: D)
    where
        F: Framer + Copy,
        D: Deframer + Copy,
    {
        let id = format!("flatstream-{name}");
        run(
            self.group,
            &id,
            &mut FlatstreamCycle::new(framer, deframer),
            self.readings,
        );
        if name == "none" {
            run(
                self.group,
                "flatstream-frames-none",
                &mut FlatstreamSliceCycle::new(framer, deframer),
                self.readings,
            );
        }
    }
}

/// Write only and read only, for the sides that can read the same bytes twice: where the
/// cycle's time goes.
fn telemetry_split(c: &mut Criterion) {
    let n = 100_000;
    let rs = readings(n);
    let expected = Totals::of(&rs);
    let mut sides: Vec<(&str, Box<dyn Cycle>)> = vec![
        (
            "flatstream-none",
            Box::new(FlatstreamCycle::new(DefaultFramer, DefaultDeframer)),
        ),
        (
            "flatstream-frames-none",
            Box::new(FlatstreamSliceCycle::new(DefaultFramer, DefaultDeframer)),
        ),
        ("bincode", Box::new(BincodeCycle::default())),
        ("serde_json", Box::new(JsonCycle::default())),
        ("prost", Box::new(ProstCycle::default())),
    ];
    for (phase, reading) in [("telemetry_write", false), ("telemetry_read", true)] {
        let mut group = c.benchmark_group(phase);
        group.sample_size(10);
        group.throughput(Throughput::Elements(n as u64));
        for (id, side) in &mut sides {
            side.write(&rs);
            assert!(side.read().matches(&expected), "{id}");
            group.bench_with_input(BenchmarkId::new(*id, n), &rs, |b, rs| {
                if reading {
                    b.iter(|| black_box(side.read()));
                } else {
                    b.iter(|| side.write(black_box(rs)));
                }
            });
        }
        group.finish();
    }
}

/// One cold cycle: the side's state (writer, reader, buffers, builder, codec) is created anew
/// on every iteration, as for a short-lived connection.
fn cold<C: Cycle>(
    group: &mut BenchmarkGroup<'_, WallTime>,
    id: &str,
    make: impl Fn() -> C,
    rs: &[Reading],
) {
    let expected = Totals::of(rs);
    assert!(make().cycle(rs).matches(&expected), "{id}");
    group.bench_with_input(BenchmarkId::new(id, rs.len()), rs, |b, rs| {
        b.iter(|| black_box(make().cycle(black_box(rs))));
    });
}

/// The cycle of 100 messages with fresh state each time.
fn telemetry_cold(c: &mut Criterion) {
    let rs = readings(100);
    let mut group = c.benchmark_group("telemetry_cold");
    group.throughput(Throughput::Elements(rs.len() as u64));
    let g = &mut group;
    cold(
        g,
        "flatstream-none",
        || FlatstreamCycle::new(DefaultFramer, DefaultDeframer),
        &rs,
    );
    cold(
        g,
        "flatstream-frames-none",
        || FlatstreamSliceCycle::new(DefaultFramer, DefaultDeframer),
        &rs,
    );
    cold(g, "bincode", BincodeCycle::default, &rs);
    cold(g, "serde_json", JsonCycle::default, &rs);
    cold(g, "prost", ProstCycle::default, &rs);
    cold(g, "tokio-codec", CodecCycle::default, &rs);
    group.finish();
}

fn telemetry_cycle(c: &mut Criterion) {
    let mut group = c.benchmark_group("telemetry_cycle");
    for n in SIZES {
        let rs = readings(n);
        if n >= 10_000 {
            // Each iteration takes milliseconds: ten samples are plenty.
            group.sample_size(10);
        }
        group.throughput(Throughput::Elements(n as u64));
        for_each_checksum(&mut Sides {
            group: &mut group,
            readings: &rs,
        });
        run(&mut group, "bincode", &mut BincodeCycle::default(), &rs);
        run(&mut group, "serde_json", &mut JsonCycle::default(), &rs);
        run(&mut group, "prost", &mut ProstCycle::default(), &rs);
        run(&mut group, "tokio-codec", &mut CodecCycle::default(), &rs);
    }
    group.finish();
}

criterion::criterion_group!(benches, telemetry_cycle, telemetry_split, telemetry_cold);
criterion::criterion_main!(benches);
