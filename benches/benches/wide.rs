//! Wide messages: an order-book snapshot (timestamp, sequence, instrument, ten bid and ten ask
//! levels of price and size) written and read back by flatstream and by each peer. What each
//! side does is documented in `flatstream_bench::wide`.
//!
//! Ids: `wide_selective/<side>/10000` (the best bid and ask of every message),
//! `wide_whole/<side>/10000` (every field), and `wide_write/<side>/10000` (encode and frame every
//! message into a reused buffer). Every side's sums are checked against the messages before
//! timing starts, so a side that reads wrong fails at once.

use criterion::{BenchmarkId, Criterion, Throughput};
use flatstream_bench::wide::{Best, MESSAGES, Messages, Whole, read_sides, write_sides};
use std::hint::black_box;

fn wide_read(c: &mut Criterion) {
    let m = Messages::new(MESSAGES);
    let (best, whole) = (Best::of(&m.books), Whole::of(&m.books));
    let mut sides = read_sides();
    for (_, side) in &mut sides {
        side.write(&m);
    }
    for (name, side) in &mut sides {
        assert_eq!(side.selective(), best, "{name}: selective read");
        assert_eq!(side.whole(), whole, "{name}: whole read");
    }
    for (group_name, selective) in [("wide_selective", true), ("wide_whole", false)] {
        let mut group = c.benchmark_group(group_name);
        group.throughput(Throughput::Elements(MESSAGES as u64));
        for (name, side) in &mut sides {
            group.bench_function(BenchmarkId::new(*name, MESSAGES), |b| {
                if selective {
                    b.iter(|| black_box(side.selective()));
                } else {
                    b.iter(|| black_box(side.whole()));
                }
            });
        }
        group.finish();
    }
}

fn wide_write(c: &mut Criterion) {
    let m = Messages::new(MESSAGES);
    let mut group = c.benchmark_group("wide_write");
    group.throughput(Throughput::Elements(MESSAGES as u64));
    for (name, mut side) in write_sides() {
        side.write(&m);
        assert!(
            side.wire_len() > MESSAGES,
            "{name} wrote {} bytes",
            side.wire_len()
        );
        group.bench_with_input(BenchmarkId::new(name, MESSAGES), &m, |b, m| {
            b.iter(|| side.write(black_box(m)));
        });
    }
    group.finish();
}

criterion::criterion_group!(benches, wide_read, wide_write);
criterion::criterion_main!(benches);
