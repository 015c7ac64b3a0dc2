//! SQL over flatstream files, compared with the same computation done sequentially in Rust:
//! every framing, one partition and several, files cut into small byte ranges.

mod common;

use common::*;
use datafusion::arrow::array::AsArray;
use datafusion::arrow::datatypes::{Float64Type, UInt64Type};
use datafusion::prelude::SessionContext;
use flatstream::checksum::ChecksumKind;
use flatstream_datafusion::{Error, FlatstreamOptions, SessionContextExt};
use flatstream_test_support::telemetry::Reading;

/// Three files of different lengths: 0..3000, 3000..3001, 3001..7000.
fn three_files(dir: &std::path::Path, kind: ChecksumKind, ext: &str) -> Vec<std::ops::Range<u64>> {
    let ranges = vec![0..3000, 3000..3001, 3001..7000];
    for (i, r) in ranges.iter().enumerate() {
        write(dir, &format!("part-{i}.{ext}"), &telemetry(kind, r.clone()));
    }
    ranges
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn group_by_equals_the_sequential_computation_for_every_framing_and_partitioning() {
    for kind in ChecksumKind::ALL {
        let dir = tempfile::tempdir().unwrap();
        let ranges = three_files(dir.path(), kind, "fstream");
        let expected = expected_groups(&ranges);
        for (partitions, min_size) in [(1, 10 << 20), (4, 1), (13, 1)] {
            let ctx = session(partitions, min_size);
            register_telemetry(&ctx, "t", dir.path().to_str().unwrap()).await;
            check_groups(&ctx, "t", &expected).await;
            // The checksum given rather than detected: the same result.
            ctx.deregister_table("t").unwrap();
            ctx.register_flatstream(
                "t",
                dir.path().to_str().unwrap(),
                FlatstreamOptions::with_schema(telemetry_schema()).checksum(kind),
            )
            .await
            .unwrap();
            check_groups(&ctx, "t", &expected).await;
        }
    }
}

/// The plan of `sql`, as `EXPLAIN` prints it.
async fn explain(ctx: &SessionContext, sql: &str) -> String {
    let plan = query(ctx, &format!("EXPLAIN {sql}")).await;
    datafusion::arrow::util::pretty::pretty_format_batches(&plan)
        .unwrap()
        .to_string()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_scan_is_cut_into_byte_ranges_when_files_are_large_enough() {
    let dir = tempfile::tempdir().unwrap();
    three_files(dir.path(), ChecksumKind::Crc32c, "fstream");
    let ctx = session(4, 1);
    register_telemetry(&ctx, "t", dir.path().to_str().unwrap()).await;
    let text = explain(&ctx, "SELECT count(*) FROM t").await;
    assert!(text.contains("file_type=flatstream"), "{text}");
    assert!(
        text.contains(".fstream:"),
        "ranges in the file groups: {text}"
    );
    // A stream without checksums is not cut.
    let dir = tempfile::tempdir().unwrap();
    three_files(dir.path(), ChecksumKind::None, "fstream");
    let ctx = session(4, 1);
    ctx.register_flatstream(
        "t",
        dir.path().to_str().unwrap(),
        FlatstreamOptions::with_schema(telemetry_schema()).checksum(ChecksumKind::None),
    )
    .await
    .unwrap();
    let text = explain(&ctx, "SELECT count(*) FROM t").await;
    assert!(!text.contains(".fstream:"), "no ranges: {text}");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn filters_and_projections_equal_the_sequential_computation() {
    let dir = tempfile::tempdir().unwrap();
    let ranges = three_files(dir.path(), ChecksumKind::XxHash64, "fs");
    let glob = format!("{}/*.fs", dir.path().display());
    for partitions in [1, 5] {
        let ctx = session(partitions, 1);
        register_telemetry(&ctx, "t", &glob).await;
        let batches = query(
            &ctx,
            "SELECT timestamp, value FROM t WHERE device_id = 7 AND value > 20.5 \
                 ORDER BY timestamp",
        )
        .await;
        let mut got = Vec::new();
        for b in &batches {
            assert_eq!(b.num_columns(), 2);
            let ts = b.column(0).as_primitive::<UInt64Type>();
            let v = b.column(1).as_primitive::<Float64Type>();
            for i in 0..b.num_rows() {
                got.push((ts.value(i), v.value(i)));
            }
        }
        let mut expected: Vec<(u64, f64)> = ranges
            .iter()
            .flat_map(|r| r.clone())
            .map(Reading::nth)
            .filter(|r| r.device_id == 7 && r.value > 20.5)
            .map(|r| (r.timestamp, r.value))
            .collect();
        expected.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert!(!expected.is_empty());
        assert_eq!(got, expected);
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_offset_column_gives_each_rows_frame_offset() {
    let dir = tempfile::tempdir().unwrap();
    let bytes = telemetry(ChecksumKind::Crc16, 0..500);
    write(dir.path(), "a.fstream", &bytes);
    let ctx = session(6, 1);
    let mut options = FlatstreamOptions::with_schema(telemetry_schema());
    options.offset_column = true;
    ctx.register_flatstream("t", dir.path().to_str().unwrap(), options)
        .await
        .unwrap();
    let batches = query(&ctx, "SELECT _offset FROM t ORDER BY _offset").await;
    let frame = bytes.len() as u64 / 500;
    let expected: Vec<u64> = (0..500).map(|i| i * frame).collect();
    assert_eq!(u64s(&batches), expected);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_external_table_reads_with_its_options() {
    for kind in ChecksumKind::ALL {
        let dir = tempfile::tempdir().unwrap();
        let ranges = three_files(dir.path(), kind, "fstream");
        let ctx = session(3, 1);
        let sql = format!(
            "CREATE EXTERNAL TABLE t STORED AS FLATSTREAM LOCATION '{}/' OPTIONS ('schema' \
             '{}', 'root_type' 'telemetry.Telemetry', 'checksum' '{kind}')",
            dir.path().display(),
            telemetry_schema()
        );
        ctx.sql(&sql).await.unwrap();
        check_groups(&ctx, "t", &expected_groups(&ranges)).await;
        // A glob, other files, the checksum detected.
        let other = tempfile::tempdir().unwrap();
        let ranges = three_files(other.path(), kind, "fs");
        let sql = format!(
            "CREATE EXTERNAL TABLE u STORED AS FLATSTREAM LOCATION '{}/*.fs' OPTIONS \
             ('schema' '{}')",
            other.path().display(),
            telemetry_schema()
        );
        ctx.sql(&sql).await.unwrap();
        check_groups(&ctx, "u", &expected_groups(&ranges)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn create_external_table_reports_bad_options() {
    let dir = tempfile::tempdir().unwrap();
    three_files(dir.path(), ChecksumKind::Crc32, "fstream");
    let ctx = session(1, 1);
    let create = |options: &str| {
        format!(
            "CREATE EXTERNAL TABLE t STORED AS FLATSTREAM LOCATION '{}/' OPTIONS ({options})",
            dir.path().display()
        )
    };
    let schema = telemetry_schema();
    let cases = [
        (String::new(), "needs a schema"),
        (
            "'schema' '/nonexistent.bfbs'".to_owned(),
            "cannot read the schema",
        ),
        (
            format!("'schema' '{schema}', 'checksum' 'md5'"),
            "option checksum",
        ),
        (
            format!("'schema' '{schema}', 'root_type' 'nope.T'"),
            "root type `nope.T`",
        ),
        (
            format!("'schema' '{schema}', 'colour' 'red'"),
            "option format.colour",
        ),
    ];
    for (options, message) in cases {
        let sql = if options.is_empty() {
            format!(
                "CREATE EXTERNAL TABLE t STORED AS FLATSTREAM LOCATION '{}/'",
                dir.path().display()
            )
        } else {
            create(&options)
        };
        let err = ctx.sql(&sql).await.unwrap_err();
        assert!(
            err.to_string().contains(message),
            "{options}: {err} (expected {message})"
        );
    }
    // A wrong checksum given: the first frame fails, naming the file and offset 0.
    ctx.sql(&create(&format!(
        "'schema' '{schema}', 'checksum' 'crc32c'"
    )))
    .await
    .unwrap();
    let err = query_err(&ctx, "SELECT count(*) FROM t").await;
    let text = err.to_string();
    assert!(
        text.contains("part-") && text.contains("offset 0"),
        "{text}"
    );
    assert!(
        matches!(flatstream_error(&err), Some(Error::Frame { .. })),
        "{err:?}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_path_read_as_a_table_uses_the_session_setting() {
    let dir = tempfile::tempdir().unwrap();
    let ranges = three_files(dir.path(), ChecksumKind::Crc32, "fs");
    // A file of another extension in the same directory: not matched by the glob.
    write(dir.path(), "notes.txt", b"not a stream");
    let ctx = SessionContext::new().enable_url_table();
    ctx.register_flatstream_format().unwrap();
    let glob = format!("'{}/*.fs'", dir.path().display());

    // No schema yet: a clear error.
    let err = ctx
        .sql(&format!("SELECT count(*) FROM {glob}"))
        .await
        .unwrap_err();
    assert!(err.to_string().contains("flatstream.schema"), "{err}");

    ctx.sql(&format!("SET flatstream.schema = '{}'", telemetry_schema()))
        .await
        .unwrap();
    check_groups(&ctx, &glob, &expected_groups(&ranges)).await;

    // Set programmatically, as `flatstream query` does.
    let ctx = SessionContext::new().enable_url_table();
    ctx.set_flatstream_options(FlatstreamOptions::with_schema(telemetry_schema()))
        .unwrap();
    let one = format!("'{}/part-0.fs'", dir.path().display());
    check_groups(&ctx, &one, &expected_groups(&ranges[..1])).await;
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn damage_fails_the_query_naming_the_file_and_offset() {
    let dir = tempfile::tempdir().unwrap();
    let mut bytes = telemetry(ChecksumKind::XxHash64, 0..1000);
    let frame = bytes.len() / 1000;
    bytes[400 * frame + 20] ^= 0x10;
    let path = write(dir.path(), "bad.fstream", &bytes);
    for partitions in [1, 4] {
        let ctx = session(partitions, 1);
        ctx.register_flatstream(
            "t",
            &path,
            FlatstreamOptions::with_schema(telemetry_schema()).checksum(ChecksumKind::XxHash64),
        )
        .await
        .unwrap();
        let err = query_err(&ctx, "SELECT avg(value) FROM t").await;
        let text = err.to_string();
        // The file as the user gave it: its absolute path, not the store's location.
        assert!(path.starts_with('/'), "{path}");
        assert!(
            text.contains(&format!("{path}: "))
                && text.contains(&format!("offset {}", 400 * frame)),
            "{text}"
        );
        assert!(
            matches!(flatstream_error(&err), Some(Error::Frame { path: named, .. }) if *named == path),
            "{err:?}"
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_framing_that_cannot_be_told_fails_naming_the_file_and_why() {
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "zeros.fstream", &[0; 48]);
    let ctx = session(1, 1);
    register_telemetry(&ctx, "t", &path).await;
    let err = query_err(&ctx, "SELECT count(*) FROM t").await;
    let Some(Error::Framing { path: named, why }) = flatstream_error(&err) else {
        panic!("{err:?}");
    };
    assert_eq!(*named, path);
    assert!(why.contains("all zero bytes"), "{why}");
    assert!(
        err.to_string()
            .contains(&format!("{path}: cannot tell the stream's framing")),
        "{err}"
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn invalid_payloads_are_an_error_or_skipped_and_counted() {
    use flatstream::checksum::{AnyChecksum, Crc32};
    use flatstream::{ChecksumFramer, StreamWriter};
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(AnyChecksum::from(Crc32)));
    for i in 0..100 {
        if i % 10 == 3 {
            w.write_payload(&[0xFF; 12]).unwrap(); // intact frame, not a Telemetry
        } else {
            w.write(&Reading::nth(i)).unwrap();
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let path = write(dir.path(), "mixed.fstream", &w.into_inner());

    let ctx = session(2, 1);
    register_telemetry(&ctx, "strict", &path).await;
    let err = query_err(&ctx, "SELECT count(*) FROM strict").await;
    assert!(
        matches!(flatstream_error(&err), Some(Error::Convert { .. })),
        "{err}"
    );
    assert!(err.to_string().contains("mixed.fstream"), "{err}");

    let mut options = FlatstreamOptions::with_schema(telemetry_schema());
    options.skip_invalid = true;
    ctx.register_flatstream("lenient", &path, options)
        .await
        .unwrap();
    let df = ctx.sql("SELECT count(*) FROM lenient").await.unwrap();
    let plan = df.create_physical_plan().await.unwrap();
    let batches = datafusion::physical_plan::collect(plan.clone(), ctx.task_ctx())
        .await
        .unwrap();
    let n = batches[0]
        .column(0)
        .as_primitive::<datafusion::arrow::datatypes::Int64Type>();
    assert_eq!(n.value(0), 90);
    let skipped = scan_metric(&plan, "skipped_frames");
    assert_eq!(skipped, Some(10));
}

/// The sum of a metric of the plan's flatstream scan.
fn scan_metric(
    plan: &std::sync::Arc<dyn datafusion::physical_plan::ExecutionPlan>,
    name: &str,
) -> Option<usize> {
    if let Some(metrics) = plan.metrics()
        && let Some(v) = metrics.sum_by_name(name)
    {
        return Some(v.as_usize());
    }
    plan.children()
        .into_iter()
        .find_map(|child| scan_metric(child, name))
}
