//! SQL over a capture of 17 000 000 telemetry rows (1.02 GB as flatstream), stored as
//! flatstream, NDJSON and Parquet: `SELECT device_id, count(*), avg(value) FROM t GROUP BY
//! device_id` in DataFusion with 1 and 2 target partitions (`flatstream_bench::sql` documents
//! the rows and files). Feature `sql` (DataFusion); `cargo xtask bench-report` turns it on.
//!
//! Ids: `sql/<format>-<partitions>/<rows>` (`sql/flatstream-2/17000000`), the throughput the
//! file's bytes. Every side's
//! answer is checked against the rows before timing starts. The files are written once into
//! `<target>/flatstream-bench/sql-<rows>/` and reused. In test mode (`--test`, or `cargo test
//! --features sql --bench sql`) the capture has 100 000 rows and each query runs once.

use criterion::{BenchmarkId, Criterion, SamplingMode, Throughput};
use flatstream_bench::sql::{Fixture, Format, ROWS, TEST_ROWS, aggregate, expected, matches};
use std::hint::black_box;

fn sql(c: &mut Criterion, test_mode: bool) {
    let rows = if test_mode { TEST_ROWS } else { ROWS };
    let fixture = Fixture::prepare(rows).expect("write the SQL fixtures");
    let answer = expected(rows);
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a tokio runtime");

    let mut group = c.benchmark_group("sql");
    group.sample_size(10);
    group.sampling_mode(SamplingMode::Flat);
    for format in Format::ALL {
        group.throughput(Throughput::Bytes(fixture.bytes(format)));
        for partitions in [1, 2] {
            let ctx = runtime
                .block_on(fixture.context(format, partitions))
                .expect("register the table");
            let got = runtime.block_on(aggregate(&ctx)).expect("run the query");
            assert!(
                matches(&got, &answer),
                "{}/{partitions}: a wrong answer",
                format.name()
            );
            let id = BenchmarkId::new(format!("{}-{partitions}", format.name()), rows);
            group.bench_function(id, |b| {
                b.iter(|| black_box(runtime.block_on(aggregate(&ctx)).expect("run the query")));
            });
        }
    }
    group.finish();
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --bench sql` does not (criterion then tests).
    let args: Vec<String> = std::env::args().collect();
    let test_mode = args.iter().any(|a| a == "--test") || !args.iter().any(|a| a == "--bench");
    let mut criterion = Criterion::default().configure_from_args();
    sql(&mut criterion, test_mode);
    criterion.final_summary();
}
