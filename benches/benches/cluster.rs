//! SQL on a cluster of `flatstream worker` processes on this machine against the same query in
//! one process, over the SQL suite's capture of 17 000 000 telemetry rows (1.02 GB): two
//! workers, two that require the token, two behind TLS, and two of which one is killed halfway
//! (the time to the exact answer, from the survivor). Feature `cluster`; the binary is the one
//! `FLATSTREAM_BIN` names (`flatstream_bench::cluster` documents the command lines).
//!
//! Ids: `cluster/<side>/<rows>` (`cluster/two-workers/17000000`), the throughput the capture's
//! bytes. Each side's answer is checked against the rows before timing starts, and the killed
//! side's at every run. Workers are started before timing (the killed side: before each run).
//! In test mode (`--test`, or `cargo test --features cluster --bench cluster`) the capture has
//! 100 000 rows, the queries on workers cut it into 64 KiB ranges so that they distribute, and
//! each side runs once.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream_bench::capture::{ROWS, TEST_ROWS};
use flatstream_bench::cluster::{Cluster, Side};
use std::time::{Duration, Instant};

fn cluster(c: &mut Criterion, test_mode: bool) {
    let (rows, extra): (u64, &[&str]) = if test_mode {
        (TEST_ROWS, &["--bytes-per-partition", "65536"])
    } else {
        (ROWS, &[])
    };
    let cluster = Cluster::prepare(rows, extra).expect("the capture, the binary, the certificates");

    let mut group = c.benchmark_group("cluster");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    group.throughput(Throughput::Bytes(cluster.bytes()));
    // Half of a query on two workers: when the killed side kills.
    let mut half = Duration::ZERO;
    for side in Side::ALL {
        let id = BenchmarkId::new(side.name(), rows);
        if side == Side::OneKilled {
            group.bench_function(id, |b| {
                b.iter_custom(|iters| {
                    (0..iters)
                        .map(|_| {
                            let mut workers = cluster.workers(side).expect("start the workers");
                            cluster
                                .run_killing(&mut workers, half)
                                .expect("the answer from the survivor")
                        })
                        .sum()
                });
            });
            continue;
        }
        let workers = cluster.workers(side).expect("start the workers");
        let started = Instant::now();
        cluster.run(side, &workers).expect("the answer");
        if side == Side::TwoWorkers {
            half = started.elapsed() / 2;
        }
        group.bench_function(id, |b| {
            b.iter(|| cluster.run(side, &workers).expect("the answer"));
        });
    }
    group.finish();
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --bench cluster` does not (criterion then
    // tests).
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let mut criterion = Criterion::default().configure_from_args();
    cluster(&mut criterion, test_mode);
    criterion.final_summary();
}
