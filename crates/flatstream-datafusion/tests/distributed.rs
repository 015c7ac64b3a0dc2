//! Queries over flatstream tables on a datafusion-distributed cluster of real gRPC workers on
//! 127.0.0.1, each result compared with the same query in one process; and the errors of a
//! cluster where one side lacks the codec.

#![cfg(feature = "distributed")]

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Duration;

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::error::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{SessionConfig, SessionContext};
use datafusion_distributed::{
    DistributedExt, SessionStateBuilderExt, Worker, WorkerQueryContext, WorkerResolver,
    display_plan_ascii,
};
use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::{ChecksumFramer, StreamWriter};
use flatstream_datafusion::distributed::FlatstreamDistributedExt;
use flatstream_datafusion::{FlatstreamOptions, SessionContextExt};
use tonic::transport::Server;
use tonic::transport::server::TcpIncoming;
use url::Url;

/// Workers serving on 127.0.0.1, each counting the tasks it was given.
struct Cluster {
    urls: Vec<Url>,
    tasks: Vec<Arc<AtomicUsize>>,
    servers: Vec<tokio::task::JoinHandle<()>>,
}

impl Cluster {
    /// `workers` workers, with the flatstream codec if `codec`.
    async fn start(workers: usize, codec: bool) -> Cluster {
        let mut cluster = Cluster {
            urls: Vec::new(),
            tasks: Vec::new(),
            servers: Vec::new(),
        };
        for _ in 0..workers {
            let incoming = TcpIncoming::bind(SocketAddr::from(([127, 0, 0, 1], 0))).unwrap();
            let addr = incoming.local_addr().unwrap();
            let tasks = Arc::new(AtomicUsize::new(0));
            let counter = Arc::clone(&tasks);
            let worker = Worker::from_session_builder(move |ctx: WorkerQueryContext| {
                counter.fetch_add(1, Ordering::Relaxed);
                let builder = match codec {
                    true => ctx.builder.with_flatstream_codec(),
                    false => ctx.builder,
                };
                async move { Ok(builder.build()) }
            });
            cluster.servers.push(tokio::spawn(async move {
                Server::builder()
                    .add_service(worker.into_worker_server())
                    .serve_with_incoming(incoming)
                    .await
                    .unwrap();
            }));
            cluster
                .urls
                .push(Url::parse(&format!("http://{addr}")).unwrap());
            cluster.tasks.push(tasks);
        }
        cluster
    }

    /// A coordinator's session: the distributed planner, these workers, byte ranges of
    /// `bytes_per_partition`, and the flatstream codec if `codec`.
    fn coordinator(&self, bytes_per_partition: usize, codec: bool) -> SessionContext {
        let mut state = SessionStateBuilder::new()
            .with_default_features()
            .with_config(SessionConfig::new().with_target_partitions(2))
            .with_distributed_planner()
            .with_distributed_worker_resolver(Workers(self.urls.clone()))
            .with_distributed_file_scan_config_bytes_per_partition(bytes_per_partition)
            .unwrap();
        if codec {
            state = state.with_flatstream_codec();
        }
        SessionContext::from(state.build())
    }

    /// How many workers were given at least one task so far.
    fn busy_workers(&self) -> usize {
        self.tasks
            .iter()
            .filter(|n| n.load(Ordering::Relaxed) > 0)
            .count()
    }
}

impl Drop for Cluster {
    fn drop(&mut self) {
        for server in &self.servers {
            server.abort();
        }
    }
}

/// The worker URLs, as given.
struct Workers(Vec<Url>);

impl WorkerResolver for Workers {
    fn get_urls(&self) -> Result<Vec<Url>, DataFusionError> {
        Ok(self.0.clone())
    }
}

const SCHEMA: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs");

/// The payload of `telemetry.Telemetry { device_id, timestamp, value }`.
fn telemetry(device_id: u64, timestamp: u64, value: f64) -> Vec<u8> {
    let mut b = flatstream::flatbuffers::FlatBufferBuilder::new();
    let table = b.start_table();
    b.push_slot::<u64>(4, device_id, 0);
    b.push_slot::<u64>(6, timestamp, 0);
    b.push_slot::<f64>(8, value, 0.0);
    let table = b.end_table(table);
    b.finish_minimal(table);
    b.finished_data().to_vec()
}

/// Writes `rows` telemetry frames with `checksum` to `path`, starting at row `first`; every
/// 500th frame is not a FlatBuffer if `invalid`. Returns the number of valid frames.
fn capture(path: &Path, checksum: ChecksumKind, first: u64, rows: u64, invalid: bool) -> u64 {
    let framer = ChecksumFramer::new(AnyChecksum::new(checksum).unwrap());
    let mut writer = StreamWriter::new(Vec::new(), framer);
    let mut valid = 0;
    for i in first..first + rows {
        if invalid && i % 500 == 499 {
            writer.write_payload(&[0xff; 24]).unwrap();
            continue;
        }
        // Values of a few bits, so that sums (and averages) are exact in any order.
        let payload = telemetry(i % 13, 1_700_000_000 + i, (i % 40) as f64 / 4.0);
        writer.write_payload(&payload).unwrap();
        valid += 1;
    }
    std::fs::write(path, writer.into_inner()).unwrap();
    valid
}

/// The query's rows as text, sorted: a distributed plan returns them in any order.
async fn rows(ctx: &SessionContext, sql: &str) -> Result<Vec<String>, DataFusionError> {
    let batches: Vec<RecordBatch> = ctx.sql(sql).await?.collect().await?;
    let text = pretty_format_batches(&batches)?.to_string();
    let mut lines: Vec<String> = text.lines().map(str::to_owned).collect();
    lines.sort_unstable();
    Ok(lines)
}

/// Registers the test tables on `ctx`: `t`, a directory of three captures with XXH3-64
/// checksums and a few invalid frames (skipped), read with `skip_invalid` and the `_offset`
/// column; `c`, one CRC-32C capture whose checksum is detected; `plain`, one capture without
/// checksums, named `none`; `plain_auto`, the same file, its framing detected.
async fn register(ctx: &SessionContext, dir: &Path) {
    let mut options = FlatstreamOptions::with_schema(SCHEMA).checksum(ChecksumKind::XxHash64);
    options.skip_invalid = true;
    options.offset_column = true;
    let t = dir.join("t");
    ctx.register_flatstream("t", t.to_str().unwrap(), options)
        .await
        .unwrap();
    let c = dir.join("c.fstream");
    ctx.register_flatstream(
        "c",
        c.to_str().unwrap(),
        FlatstreamOptions::with_schema(SCHEMA),
    )
    .await
    .unwrap();
    let plain = dir.join("plain.fstream");
    let options = FlatstreamOptions::with_schema(SCHEMA).checksum(ChecksumKind::None);
    ctx.register_flatstream("plain", plain.to_str().unwrap(), options)
        .await
        .unwrap();
    let options = FlatstreamOptions::with_schema(SCHEMA);
    ctx.register_flatstream("plain_auto", plain.to_str().unwrap(), options)
        .await
        .unwrap();
}

/// Writes the tables of [`register`]; returns the number of valid rows of each.
fn write_tables(dir: &Path) -> [u64; 3] {
    std::fs::create_dir(dir.join("t")).unwrap();
    let mut t = 0;
    for file in 0..3 {
        let path = dir.join("t").join(format!("{file}.fstream"));
        t += capture(&path, ChecksumKind::XxHash64, file * 2000, 2000, true);
    }
    let c = capture(&dir.join("c.fstream"), ChecksumKind::Crc32c, 0, 2000, false);
    let plain = capture(
        &dir.join("plain.fstream"),
        ChecksumKind::None,
        0,
        2000,
        false,
    );
    [t, c, plain]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn queries_on_two_workers_equal_one_process() {
    let dir = tempfile::tempdir().unwrap();
    let [t_rows, c_rows, plain_rows] = write_tables(dir.path());
    let cluster = Cluster::start(2, true).await;
    // About 100 KiB per file: byte ranges of 8 KiB make each scan two tasks of several ranges.
    let distributed = cluster.coordinator(8 << 10, true);
    let local = SessionContext::new();
    for ctx in [&distributed, &local] {
        register(ctx, dir.path()).await;
    }

    // Every row once, whatever the cuts: counts against what was written.
    for (table, written) in [
        ("t", t_rows),
        ("c", c_rows),
        ("plain", plain_rows),
        ("plain_auto", plain_rows),
    ] {
        let sql = format!("SELECT count(*) AS n FROM {table}");
        let counted = rows(&distributed, &sql).await.unwrap();
        assert!(
            counted
                .iter()
                .any(|line| line.contains(&format!("| {written} "))),
            "{table}: {counted:?}, {written} written"
        );
    }

    let queries = [
        "SELECT device_id, count(*), avg(value), min(timestamp), max(timestamp) FROM t GROUP BY device_id",
        "SELECT device_id, count(*), avg(value) FROM c GROUP BY device_id",
        "SELECT device_id, count(*), avg(value) FROM plain GROUP BY device_id",
        "SELECT device_id, count(*), sum(value) FROM plain_auto GROUP BY device_id",
        "SELECT timestamp, value FROM t WHERE device_id = 3 AND value > 5",
        "SELECT _offset, device_id FROM t WHERE timestamp % 997 = 0",
        "SELECT count(*), sum(_offset) FROM t",
        "SELECT value FROM c WHERE timestamp BETWEEN 1700000100 AND 1700000200",
        "SELECT count(*) FROM (SELECT device_id FROM t LIMIT 25)",
        "SELECT device_id, timestamp FROM plain ORDER BY timestamp DESC LIMIT 7",
    ];
    for sql in queries {
        let expected = rows(&local, sql).await.unwrap();
        assert_eq!(rows(&distributed, sql).await.unwrap(), expected, "{sql}");
    }

    // The scans ran as two tasks, on two workers, over byte ranges: the file without
    // checksums too, though its source says it cannot be split.
    for (table, file) in [("t", "t/1.fstream:"), ("plain", "plain.fstream:")] {
        let sql = format!("SELECT device_id, count(*) FROM {table} GROUP BY device_id");
        let df = distributed.sql(&sql).await.unwrap();
        let plan = df.create_physical_plan().await.unwrap();
        let text = display_plan_ascii(plan.as_ref(), false);
        assert!(text.contains("file_type=flatstream"), "{text}");
        assert!(text.contains("tasks=2"), "{text}");
        assert!(text.contains(&format!("{file}0..")), "{text}");
        assert!(text.matches(file).count() >= 2, "{text}");
    }
    assert!(cluster.busy_workers() >= 2, "{:?}", cluster.tasks);
}

/// A grouped count on two workers, the codec registered on the workers if `workers_codec`
/// and on the coordinator if `coordinator_codec`, that must fail within 30 s (a worker
/// waiting for a plan that never comes gives up after 10 s): its error, and the cluster it
/// ran on.
async fn failure(workers_codec: bool, coordinator_codec: bool) -> (String, Cluster) {
    let dir = tempfile::tempdir().unwrap();
    write_tables(dir.path());
    let cluster = Cluster::start(2, workers_codec).await;
    let coordinator = cluster.coordinator(8 << 10, coordinator_codec);
    register(&coordinator, dir.path()).await;
    let sql = "SELECT device_id, count(*) FROM t GROUP BY device_id";
    let result = tokio::time::timeout(Duration::from_secs(30), rows(&coordinator, sql))
        .await
        .expect("the query neither ended nor failed in 30 s");
    match result {
        Ok(rows) => panic!("{sql} succeeded: {rows:?}"),
        Err(e) => (e.strip_backtrace(), cluster),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn coordinator_without_the_codec_fails_at_planning() {
    let (error, cluster) = failure(true, false).await;
    assert!(error.contains("with_flatstream_codec()"), "{error}");
    assert!(!error.contains("imeout"), "{error}");
    // It failed before any task was sent.
    assert_eq!(cluster.busy_workers(), 0, "{:?}", cluster.tasks);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn worker_without_the_codec_fails_the_query() {
    let (error, cluster) = failure(false, true).await;
    // datafusion-distributed's decoding error, at once: the worker has no codec at the
    // position the coordinator's list gave ours. It cannot be made clearer from this side.
    assert!(error.contains("Can't find required codec"), "{error}");
    assert!(!error.contains("imeout"), "{error}");
    assert!(cluster.busy_workers() >= 1, "{:?}", cluster.tasks);
}
