//! The cost of the adapters on telemetry frames: the bare framer and deframer against each
//! adapter and against a stack of bound + observer + validator, writing and reading 1000 frames
//! of one `Reading` each (a 48-byte FlatBuffer); typed reading; reclamation policies; and the
//! structural validator per KiB of nested payload.
//!
//! The one `unsafe` block here calls `process_typed_unchecked` on the stream the bench wrote.
//!
//! Ids: `adapters/write/<variant>`, `adapters/read/<variant>`, `adapters/reclaim/<side>-<policy>`,
//! `adapters/structural/<KiB>`.

use criterion::{BenchmarkId, Criterion, Throughput};
use flatbuffers::{FlatBufferBuilder, WIPOffset};
use flatstream::adapters::{
    DeframerExt, FramerExt, SizeValidator, StructuralValidator, TypedValidator, Validator,
};
use flatstream::read::{NoReclaim, ShrinkAfter, TypedReaderExt, UncheckedReaderExt};
use flatstream::write::ReclaimExt;
use flatstream::{
    DefaultDeframer, DefaultFramer, Deframer, Framer, StreamReader, StreamSerialize, StreamWriter,
};
use flatstream_test_support::telemetry::{Reading, Telemetry};
use std::cell::Cell;
use std::hint::black_box;
use std::io::{self, BufWriter, Cursor};

const FRAMES: u64 = 1000;

/// `Telemetry` is defined in the bench library, so the typed-reading key is a local marker.
struct TelemetryRoot;

impl flatstream::read::StreamDeserialize for TelemetryRoot {
    type Root<'buf> = Telemetry<'buf>;
}

fn payload() -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    Reading::nth(12_345).serialize(&mut b).unwrap();
    b.finished_data().to_vec()
}

fn stream() -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    for i in 0..FRAMES {
        w.write(&Reading::nth(i)).unwrap();
    }
    w.into_inner()
}

/// Writes the payload `FRAMES` times through a 64 KiB `BufWriter` (the usual setup for small
/// messages) in front of a sink that discards the bytes.
///
/// `user` is called with the payload after each write: the work a caller would do without an
/// observer, to compare with one.
fn bench_write<F: Framer>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    framer: F,
    user: impl Fn(&[u8]),
) {
    let payload = payload();
    let sink = BufWriter::with_capacity(64 * 1024, io::sink());
    let mut w = StreamWriter::new(sink, framer);
    c.bench_function(BenchmarkId::new("write", id), |b| {
        b.iter(|| write_round(&mut w, &payload, &user));
    });
}

/// Reads the `FRAMES`-frame stream from a rewound `Cursor`, folding in each payload's length.
///
/// `user` is called with each payload, as in [`bench_write`].
fn bench_read<D: Deframer>(
    c: &mut criterion::BenchmarkGroup<'_, criterion::measurement::WallTime>,
    id: &str,
    deframer: D,
    user: impl Fn(&[u8]),
) {
    let mut r = StreamReader::new(Cursor::new(stream()), deframer);
    c.bench_function(BenchmarkId::new("read", id), |b| {
        b.iter(|| read_round(&mut r, &user));
    });
}

/// One iteration of a write benchmark: `FRAMES` frames, then a flush.
///
/// Not inlined, so that each variant is one symbol: `valgrind --tool=callgrind` on a
/// `--profile-time` run gives its instructions per call, hence per frame, whatever the load on
/// the machine.
#[inline(never)]
fn write_round<F: Framer>(
    w: &mut StreamWriter<BufWriter<io::Sink>, F>,
    payload: &[u8],
    user: &impl Fn(&[u8]),
) -> u64 {
    for _ in 0..FRAMES {
        w.write_payload(black_box(payload)).unwrap();
        user(payload);
    }
    w.flush().unwrap();
    black_box(w.bytes_written())
}

/// One iteration of a read benchmark: the whole stream from a rewound `Cursor` (not inlined,
/// as [`write_round`]).
#[inline(never)]
fn read_round<D: Deframer>(
    r: &mut StreamReader<Cursor<Vec<u8>>, D>,
    user: &impl Fn(&[u8]),
) -> usize {
    r.get_mut().set_position(0);
    let mut total = 0usize;
    while let Some(p) = r.read_message().unwrap() {
        total += p.len();
        user(p);
    }
    black_box(total)
}

fn framers(c: &mut Criterion) {
    let seen = Cell::new(0u64);
    let observe = |p: &[u8]| seen.set(seen.get() + p.len() as u64);
    let nothing = |_: &[u8]| {};
    let mut group = c.benchmark_group("adapters");
    group.throughput(Throughput::Elements(FRAMES));

    bench_write(&mut group, "bare", DefaultFramer, nothing);
    // The observer's work done by the caller instead: the baseline for `observer`.
    bench_write(&mut group, "bare-tally", DefaultFramer, observe);
    bench_write(
        &mut group,
        "observer",
        DefaultFramer.observed(observe),
        nothing,
    );
    bench_write(
        &mut group,
        "validator-size",
        DefaultFramer.validated(SizeValidator::new(8, 1024)),
        nothing,
    );
    bench_write(
        &mut group,
        "validator-structural",
        DefaultFramer.validated(StructuralValidator::new()),
        nothing,
    );
    bench_write(
        &mut group,
        "validator-typed",
        DefaultFramer.validated(TypedValidator::<Telemetry<'_>>::new()),
        nothing,
    );
    bench_write(
        &mut group,
        "stack-size",
        DefaultFramer
            .validated(SizeValidator::new(8, 1024))
            .observed(observe),
        nothing,
    );
    bench_write(
        &mut group,
        "stack-structural",
        DefaultFramer
            .validated(StructuralValidator::new())
            .observed(observe),
        nothing,
    );

    bench_read(&mut group, "bare", DefaultDeframer, nothing);
    bench_read(&mut group, "bare-tally", DefaultDeframer, observe);
    bench_read(
        &mut group,
        "observer",
        DefaultDeframer.observed(observe),
        nothing,
    );
    bench_read(
        &mut group,
        "validator-size",
        DefaultDeframer.validated(SizeValidator::new(8, 1024)),
        nothing,
    );
    bench_read(
        &mut group,
        "validator-structural",
        DefaultDeframer.validated(StructuralValidator::new()),
        nothing,
    );
    bench_read(
        &mut group,
        "validator-typed",
        DefaultDeframer.validated(TypedValidator::<Telemetry<'_>>::new()),
        nothing,
    );
    bench_read(
        &mut group,
        "stack-size",
        DefaultDeframer
            .validated(SizeValidator::new(8, 1024))
            .observed(observe),
        nothing,
    );
    bench_read(
        &mut group,
        "stack-structural",
        DefaultDeframer
            .validated(StructuralValidator::new())
            .observed(observe),
        nothing,
    );

    // Typed reading: each payload verified and decoded as `Telemetry`, against reading the
    // same fields from the bare payload after `flatbuffers::root` (which verifies too).
    let mut r = StreamReader::new(Cursor::new(stream()), DefaultDeframer);
    group.bench_function(BenchmarkId::new("read", "typed"), |b| {
        b.iter(|| {
            r.get_mut().set_position(0);
            let mut sum = 0u64;
            r.process_typed::<TelemetryRoot, _, _>(|t| {
                sum = sum.wrapping_add(t.device_id());
                Ok(())
            })
            .unwrap();
            black_box(sum)
        });
    });
    // The same without verification (the `unchecked` feature): what verification costs.
    group.bench_function(BenchmarkId::new("read", "typed-unchecked"), |b| {
        b.iter(|| {
            r.get_mut().set_position(0);
            let mut sum = 0u64;
            // SAFETY: the stream was written above by `stream()`, every frame a `Telemetry`
            // built by the generated code.
            #[allow(unsafe_code)]
            let read = unsafe {
                r.process_typed_unchecked::<TelemetryRoot, _, _>(|t| {
                    sum = sum.wrapping_add(t.device_id());
                    Ok(())
                })
            };
            read.unwrap();
            black_box(sum)
        });
    });
    group.finish();
    black_box(seen.get());
}

fn reclaim(c: &mut Criterion) {
    let mut group = c.benchmark_group("adapters");
    group.throughput(Throughput::Elements(FRAMES));
    // Simple-mode writes (the policy watches the internal builder), with and without a policy.
    let mut w = StreamWriter::new(Vec::with_capacity(1 << 20), DefaultFramer).reclaim(NoReclaim);
    group.bench_function(BenchmarkId::new("reclaim", "write-none"), |b| {
        b.iter(|| {
            w.get_mut().get_mut().clear();
            for i in 0..FRAMES {
                w.write(&Reading::nth(i)).unwrap();
            }
        });
    });
    let mut w = StreamWriter::new(Vec::with_capacity(1 << 20), DefaultFramer)
        .reclaim(ShrinkAfter::new(4096, 64));
    group.bench_function(BenchmarkId::new("reclaim", "write-shrink-after"), |b| {
        b.iter(|| {
            w.get_mut().get_mut().clear();
            for i in 0..FRAMES {
                w.write(&Reading::nth(i)).unwrap();
            }
        });
    });
    let mut r = StreamReader::new(Cursor::new(stream()), DefaultDeframer).with_reclaim(NoReclaim);
    group.bench_function(BenchmarkId::new("reclaim", "read-none"), |b| {
        b.iter(|| {
            r.get_mut().set_position(0);
            let mut total = 0usize;
            while let Some(p) = r.read_message().unwrap() {
                total += p.len();
            }
            black_box(total)
        });
    });
    let mut r = StreamReader::new(Cursor::new(stream()), DefaultDeframer)
        .with_reclaim(ShrinkAfter::new(64 * 1024, 64));
    group.bench_function(BenchmarkId::new("reclaim", "read-shrink-after"), |b| {
        b.iter(|| {
            r.get_mut().set_position(0);
            let mut total = 0usize;
            while let Some(p) = r.read_message().unwrap() {
                total += p.len();
            }
            black_box(total)
        });
    });
    group.finish();
}

/// A payload of about `kib` KiB: a root table referencing `kib` tables, each referencing 12
/// leaf tables of a `ulong`, a `double` and a 32-byte string.
fn nested_payload(kib: usize) -> Vec<u8> {
    let mut b = FlatBufferBuilder::new();
    let mut mids: Vec<WIPOffset<flatbuffers::TableFinishedWIPOffset>> = Vec::new();
    for m in 0..kib {
        let mut leaves = Vec::new();
        for l in 0..12u64 {
            let name = b.create_string(&format!("{m:08}-{l:08}-leaf-name-xxxxx"));
            let start = b.start_table();
            b.push_slot_always::<u64>(8, (l + 1) << 40);
            b.push_slot_always::<f64>(6, l as f64 * 0.5);
            b.push_slot_always(4, name);
            leaves.push(b.end_table(start));
        }
        let start = b.start_table();
        for (i, leaf) in leaves.iter().enumerate() {
            b.push_slot_always(u16::try_from(4 + 2 * i).unwrap(), *leaf);
        }
        mids.push(b.end_table(start));
    }
    // The root references every mid table (at most 256 fields: see StructuralValidator).
    let start = b.start_table();
    for (i, mid) in mids.iter().enumerate() {
        b.push_slot_always(u16::try_from(4 + 2 * i).unwrap(), *mid);
    }
    let root = b.end_table(start);
    b.finish(root, None);
    b.finished_data().to_vec()
}

fn structural(c: &mut Criterion) {
    let mut group = c.benchmark_group("adapters");
    let v = StructuralValidator::new();
    for kib in [1usize, 4, 16, 64] {
        let payload = nested_payload(kib);
        v.validate(&payload, 0).expect("a well-formed payload");
        group.throughput(Throughput::Bytes(payload.len() as u64));
        group.bench_function(BenchmarkId::new("structural", kib), |b| {
            b.iter(|| v.validate(black_box(&payload), 0).unwrap());
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, framers, reclaim, structural);
criterion::criterion_main!(benches);
