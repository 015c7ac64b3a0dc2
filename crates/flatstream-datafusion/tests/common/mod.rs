//! What the SQL tests share: telemetry files of every framing, sessions with small
//! partitions, and the sequential computation the SQL results are compared with.

#![allow(dead_code)]

use datafusion::arrow::array::{AsArray, RecordBatch};
use datafusion::arrow::datatypes::{Float64Type, Int64Type, UInt64Type};
use datafusion::error::DataFusionError;
use datafusion::prelude::{SessionConfig, SessionContext};
use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::{ChecksumFramer, StreamWriter};
use flatstream_datafusion::{FlatstreamOptions, SessionContextExt};
use flatstream_test_support::telemetry::Reading;
use std::collections::BTreeMap;
use std::path::Path;

/// examples/telemetry.bfbs.
pub(crate) fn telemetry_schema() -> String {
    concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs").to_owned()
}

/// The readings `from..to` ([`Reading::nth`]) framed with `kind`.
pub(crate) fn telemetry(kind: ChecksumKind, readings: std::ops::Range<u64>) -> Vec<u8> {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(AnyChecksum::new(kind).unwrap()),
    );
    for i in readings {
        w.write(&Reading::nth(i)).unwrap();
    }
    w.into_inner()
}

/// A session with `partitions` target partitions that splits files of more than `min_size`
/// bytes, with the format registered.
pub(crate) fn session(partitions: usize, min_size: usize) -> SessionContext {
    let mut config = SessionConfig::new().with_target_partitions(partitions);
    config.options_mut().optimizer.repartition_file_min_size = min_size;
    let ctx = SessionContext::new_with_config(config);
    ctx.register_flatstream_format().unwrap();
    ctx
}

/// Writes `bytes` to `dir/name`.
pub(crate) fn write(dir: &Path, name: &str, bytes: &[u8]) -> String {
    let path = dir.join(name);
    std::fs::write(&path, bytes).unwrap();
    path.to_str().unwrap().to_owned()
}

/// Per device: rows, and the sum of values.
pub(crate) type Groups = BTreeMap<u64, (i64, f64)>;

/// The groups of the readings `ranges`, computed in Rust.
pub(crate) fn expected_groups(ranges: &[std::ops::Range<u64>]) -> Groups {
    let mut groups = Groups::new();
    for r in ranges {
        for i in r.clone() {
            let reading = Reading::nth(i);
            let g = groups.entry(reading.device_id).or_insert((0, 0.0));
            g.0 += 1;
            g.1 += reading.value;
        }
    }
    groups
}

/// Runs `SELECT device_id, count(*), avg(value) FROM {table} GROUP BY device_id` and checks
/// it against `expected`.
pub(crate) async fn check_groups(ctx: &SessionContext, table: &str, expected: &Groups) {
    let sql = format!(
        "SELECT device_id, count(*) AS n, avg(value) AS mean FROM {table} GROUP BY device_id \
         ORDER BY device_id"
    );
    let batches = query(ctx, &sql).await;
    let mut got = BTreeMap::new();
    for b in &batches {
        let ids = b.column(0).as_primitive::<UInt64Type>();
        let n = b.column(1).as_primitive::<Int64Type>();
        let mean = b.column(2).as_primitive::<Float64Type>();
        for row in 0..b.num_rows() {
            got.insert(ids.value(row), (n.value(row), mean.value(row)));
        }
    }
    assert_eq!(got.len(), expected.len(), "{sql}");
    for (device, (n, sum)) in expected {
        let (got_n, got_mean) = got[device];
        assert_eq!(got_n, *n, "device {device}");
        let mean = sum / *n as f64;
        assert!(
            (got_mean - mean).abs() < 1e-9,
            "device {device}: {got_mean} vs {mean}"
        );
    }
}

/// The rows of a single-column `UInt64` result.
pub(crate) fn u64s(batches: &[RecordBatch]) -> Vec<u64> {
    batches
        .iter()
        .flat_map(|b| {
            let c = b.column(0).as_primitive::<UInt64Type>();
            (0..c.len()).map(|i| c.value(i)).collect::<Vec<_>>()
        })
        .collect()
}

/// The flatstream error inside a DataFusion error, if there is one.
pub(crate) fn flatstream_error(e: &DataFusionError) -> Option<&flatstream_datafusion::Error> {
    match e.find_root() {
        DataFusionError::External(inner) => inner.downcast_ref(),
        _ => None,
    }
}

/// The batches of the query `sql`.
pub(crate) async fn query(ctx: &SessionContext, sql: &str) -> Vec<RecordBatch> {
    ctx.sql(sql).await.unwrap().collect().await.unwrap()
}

/// The error of the query `sql`, which plans but fails while running.
pub(crate) async fn query_err(ctx: &SessionContext, sql: &str) -> DataFusionError {
    ctx.sql(sql).await.unwrap().collect().await.unwrap_err()
}

/// Registers the telemetry files at `path` (a file, a directory or a glob) as table `name`,
/// the checksum detected.
pub(crate) async fn register_telemetry(ctx: &SessionContext, name: &str, path: &str) {
    ctx.register_flatstream(
        name,
        path,
        FlatstreamOptions::with_schema(telemetry_schema()),
    )
    .await
    .unwrap();
}
