//! Queries over flatstream tables on a datafusion-distributed cluster of real gRPC workers on
//! 127.0.0.1, each result compared with the same query in one process.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use datafusion::arrow::array::RecordBatch;
use datafusion::arrow::util::pretty::pretty_format_batches;
use datafusion::error::DataFusionError;
use datafusion::execution::SessionStateBuilder;
use datafusion::prelude::{CsvReadOptions, SessionConfig, SessionContext};
use datafusion_distributed::{
    DistributedExt, SessionStateBuilderExt, Worker, WorkerQueryContext, WorkerResolver,
    display_plan_ascii,
};
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
    async fn start(workers: usize) -> Cluster {
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
                async move { Ok(ctx.builder.build()) }
            });
            cluster.servers.push(tokio::spawn(async move {
                Server::builder()
                    .add_service(worker.into_worker_server())
                    .serve_with_incoming(incoming)
                    .await
                    .unwrap();
            }));
            cluster.urls.push(Url::parse(&format!("http://{addr}")).unwrap());
            cluster.tasks.push(tasks);
        }
        cluster
    }

    /// A coordinator's session: the distributed planner, these workers, and byte ranges of
    /// `bytes_per_partition`.
    fn coordinator(&self, bytes_per_partition: usize) -> SessionContext {
        let state = SessionStateBuilder::new()
            .with_default_features()
            .with_config(SessionConfig::new().with_target_partitions(2))
            .with_distributed_planner()
            .with_distributed_worker_resolver(Workers(self.urls.clone()))
            .with_distributed_file_scan_config_bytes_per_partition(bytes_per_partition)
            .unwrap()
            .build();
        SessionContext::from(state)
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

async fn sorted(ctx: &SessionContext, sql: &str) -> String {
    let batches: Vec<RecordBatch> = ctx.sql(sql).await.unwrap().collect().await.unwrap();
    let text = pretty_format_batches(&batches).unwrap().to_string();
    let mut lines: Vec<&str> = text.lines().collect();
    // Keep the header (3 lines) in place; rows come in any order from a distributed plan.
    if lines.len() > 4 {
        let end = lines.len() - 1;
        lines[3..end].sort_unstable();
    }
    lines.join("\n")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn csv_on_two_workers() {
    let dir = tempfile::tempdir().unwrap();
    for file in 0..3 {
        let mut text = String::from("device_id,value\n");
        for i in 0..2000u64 {
            text.push_str(&format!("{},{}\n", i % 7 + file, i as f64 / 4.0));
        }
        std::fs::write(dir.path().join(format!("{file}.csv")), text).unwrap();
    }
    let cluster = Cluster::start(2).await;
    let distributed = cluster.coordinator(4096);
    let local = SessionContext::new();
    for ctx in [&distributed, &local] {
        ctx.register_csv("t", dir.path().to_str().unwrap(), CsvReadOptions::new())
            .await
            .unwrap();
    }
    let sql = "SELECT device_id, count(*), avg(value) FROM t GROUP BY device_id";
    let plan = distributed
        .sql(sql)
        .await
        .unwrap()
        .create_physical_plan()
        .await
        .unwrap();
    println!("{}", display_plan_ascii(plan.as_ref(), false));
    assert_eq!(sorted(&distributed, sql).await, sorted(&local, sql).await);
    assert!(cluster.busy_workers() >= 2, "{:?}", cluster.tasks);
}
