//! A worker's side of a cluster: the token checked on every request, TLS, keepalive, and a
//! report of each task it ran.
//!
//! ```text
//!  request ──▶ token check ──▶ datafusion-distributed's Worker ──▶ the task's plan
//!              (refused: Unauthenticated,                          └─ TaskLog: rows, time,
//!               reported, nothing run)                                error → TaskReport
//! ```

use std::fmt;
use std::future::Future;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use datafusion::common::tree_node::TreeNodeRecursion;
use datafusion::common::{Result, internal_err};
use datafusion::datasource::physical_plan::FileScanConfig;
use datafusion::datasource::source::DataSourceExec;
use datafusion::execution::runtime_env::RuntimeEnv;
use datafusion::execution::{SendableRecordBatchStream, TaskContext};
use datafusion::physical_expr::PhysicalExpr;
use datafusion::physical_plan::stream::RecordBatchStreamAdapter;
use datafusion::physical_plan::{
    DisplayAs, DisplayFormatType, ExecutionPlan, ExecutionPlanProperties, PlanProperties,
};
use datafusion_distributed::{
    DistributedExt, DistributedLeafExec, DistributedTaskContext, Worker, WorkerPlanRewriteEvent,
    WorkerPlanRewriteEventResponse, WorkerQueryContext,
};
use futures::StreamExt;
use http::HeaderValue;
use tonic::transport::server::TcpIncoming;
use tonic::transport::{Certificate, Identity, Server, ServerTlsConfig};

use super::FlatstreamDistributedExt;
use super::cluster::{ClusterConfig, ClusterError, TASK_HEADER, bearer, check_pem};

/// What a worker reports: a task it ran, or a request it refused.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub enum WorkerEvent {
    /// The worker listens (its TLS set up): it serves from now on.
    Listening {
        /// The address it listens on.
        addr: Option<std::net::SocketAddr>,
        /// Whether it serves TLS.
        tls: bool,
        /// Whether it requires the cluster's token.
        token: bool,
    },
    /// A task ended (all its partitions read, or dropped, or failed).
    Task(TaskReport),
    /// A request without the cluster's token, or with another: refused, nothing run.
    Refused {
        /// The peer's address, if known.
        peer: Option<std::net::SocketAddr>,
        /// `missing` or `wrong`.
        token: &'static str,
    },
}

impl fmt::Display for WorkerEvent {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WorkerEvent::Listening { addr, tls, token } => {
                let scheme = if *tls { "https" } else { "http" };
                match addr {
                    Some(addr) => write!(f, "listening on {scheme}://{addr}")?,
                    None => write!(f, "listening ({scheme})")?,
                }
                let token = if *token { "token required" } else { "no token" };
                let tls = if *tls { "TLS" } else { "plaintext" };
                write!(f, " ({token}, {tls})")
            }
            WorkerEvent::Task(report) => report.fmt(f),
            WorkerEvent::Refused { peer, token } => {
                write!(f, "refused a request")?;
                if let Some(peer) = peer {
                    write!(f, " from {peer}")?;
                }
                write!(f, ": {token} cluster token; nothing run")
            }
        }
    }
}

/// One task a worker ran: which, over which byte ranges, how many rows, how long, how it ended.
#[derive(Debug, Clone)]
#[non_exhaustive]
pub struct TaskReport {
    /// The query's id, as the coordinator made it.
    pub query: String,
    /// The stage, and the task within it (0-based) of how many.
    pub stage: usize,
    /// The task's index in its stage.
    pub task: usize,
    /// The tasks of its stage.
    pub tasks: usize,
    /// The byte ranges its scans read, `path:start..end` (a whole file: `path`).
    pub ranges: Vec<String>,
    /// The rows its scans read (none if it has no scan).
    pub rows_read: Option<u64>,
    /// The rows it sent back.
    pub rows_sent: u64,
    /// From its first partition's start to its last partition's end.
    pub elapsed: Duration,
    /// The first error of its partitions, if any.
    pub error: Option<String>,
}

impl fmt::Display for TaskReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "query {} stage {} task {}/{}",
            self.query, self.stage, self.task, self.tasks
        )?;
        if !self.ranges.is_empty() {
            write!(f, " [{}]", self.ranges.join(", "))?;
        }
        match &self.error {
            Some(error) => write!(
                f,
                ": failed after {:.3} s: {error}",
                self.elapsed.as_secs_f64()
            ),
            None => {
                write!(f, ":")?;
                if let Some(read) = self.rows_read {
                    write!(f, " read {read} rows,")?;
                }
                write!(
                    f,
                    " sent {} rows in {:.3} s",
                    self.rows_sent,
                    self.elapsed.as_secs_f64()
                )
            }
        }
    }
}

/// Where a worker's events go.
pub type WorkerEvents = Arc<dyn Fn(WorkerEvent) + Send + Sync>;

impl ClusterConfig {
    /// A datafusion-distributed [`Worker`] for flatstream scans: the codec, the cluster's
    /// channels for the workers it calls (keepalive, deadlines, token, TLS), and a
    /// [`TaskReport`] to `events` for each task it runs. Serve it with [`serve`](Self::serve).
    pub fn worker(
        &self,
        runtime: Arc<RuntimeEnv>,
        events: WorkerEvents,
    ) -> Result<Worker, ClusterError> {
        let channels = self.channels()?;
        let worker = Worker::from_session_builder(move |ctx: WorkerQueryContext| {
            let task = ctx
                .headers
                .get(TASK_HEADER)
                .and_then(|v| v.to_str().ok())
                .and_then(TaskKey::parse);
            let mut builder = ctx
                .builder
                .with_flatstream_codec()
                .with_distributed_channel_resolver(channels.clone());
            if let Some(task) = task {
                let events = Arc::clone(&events);
                builder = builder.with_distributed_worker_plan_rewrite_handler(
                    move |ev: WorkerPlanRewriteEvent<'_>| {
                        Ok(WorkerPlanRewriteEventResponse::new(TaskLog::wrap(
                            ev.plan,
                            ev.session_config,
                            task.clone(),
                            Arc::clone(&events),
                        )))
                    },
                );
            }
            async move { Ok(builder.build()) }
        })
        .with_runtime_env(runtime);
        Ok(worker)
    }

    /// Serves `worker` on `listener` until `shutdown` completes: HTTP/2 keepalive, TLS if
    /// configured (a certificate and key needed), and the token checked on every request
    /// (a request without it, or with another, is refused with `Unauthenticated`, reported
    /// to `events`, and runs nothing).
    pub async fn serve(
        &self,
        worker: Worker,
        listener: tokio::net::TcpListener,
        events: WorkerEvents,
        shutdown: impl Future<Output = ()>,
    ) -> Result<(), ClusterError> {
        let mut server = Server::builder()
            .http2_keepalive_interval(Some(self.keepalive))
            .http2_keepalive_timeout(Some(self.keepalive))
            .tcp_nodelay(true);
        if let Some(tls) = &self.tls {
            let (Some(cert), Some(key)) = (&tls.cert, &tls.key) else {
                return Err(ClusterError::Tls(
                    "a worker serving TLS needs its certificate and key (--tls-cert, --tls-key)"
                        .to_owned(),
                ));
            };
            check_pem(cert, "the certificate", "CERTIFICATE")?;
            check_pem(key, "the key", "PRIVATE KEY")?;
            let mut config = ServerTlsConfig::new().identity(Identity::from_pem(cert, key));
            if let Some(ca) = &tls.ca {
                check_pem(ca, "the certificate authority", "CERTIFICATE")?;
                config = config
                    .client_ca_root(Certificate::from_pem(ca))
                    .client_auth_optional(true);
            }
            server = server
                .tls_config(config)
                .map_err(|e| ClusterError::Tls(super::failure::reason_of_text(&e.to_string())))?;
        }
        let token = match &self.token {
            Some(token) => Some(bearer(token)?),
            None => None,
        };
        let report = Arc::clone(&events);
        let check =
            move |request: tonic::Request<()>| -> Result<tonic::Request<()>, tonic::Status> {
                let Some(expected) = &token else {
                    return Ok(request);
                };
                let given = request.metadata().get("authorization");
                let refused = match given {
                    None => "missing",
                    Some(given) if same(given.as_bytes(), expected) => return Ok(request),
                    Some(_) => "wrong",
                };
                report(WorkerEvent::Refused {
                    peer: request.remote_addr(),
                    token: refused,
                });
                Err(tonic::Status::unauthenticated(format!(
                    "{refused} cluster token"
                )))
            };
        let service = tonic::service::interceptor::InterceptedService::new(
            worker.into_worker_server(),
            check,
        );
        events(WorkerEvent::Listening {
            addr: listener.local_addr().ok(),
            tls: self.tls.is_some(),
            token: self.token.is_some(),
        });
        let incoming = TcpIncoming::from(listener).with_nodelay(Some(true));
        server
            .add_service(service)
            .serve_with_incoming_shutdown(incoming, shutdown)
            .await
            .map_err(|e| ClusterError::Serve(super::failure::reason_of_text(&e.to_string())))
    }
}

/// Whether the token given equals the one expected, in a time that does not depend on where
/// they differ.
fn same(given: &[u8], expected: &HeaderValue) -> bool {
    let expected = expected.as_bytes();
    given.len() == expected.len()
        && given
            .iter()
            .zip(expected)
            .fold(0u8, |acc, (a, b)| acc | (a ^ b))
            == 0
}

/// A task as the coordinator names it in [`TASK_HEADER`].
#[derive(Debug, Clone)]
struct TaskKey {
    query: String,
    stage: usize,
    task: usize,
    tasks: usize,
}

impl TaskKey {
    fn parse(text: &str) -> Option<TaskKey> {
        let mut parts = text.split('/');
        let key = TaskKey {
            query: parts.next()?.to_owned(),
            stage: parts.next()?.parse().ok()?,
            task: parts.next()?.parse().ok()?,
            tasks: parts.next()?.parse().ok()?,
        };
        parts.next().is_none().then_some(key)
    }
}

/// The head of a task's plan on a worker: passes every batch through, counting rows, and
/// reports the task once all its partitions ended.
#[derive(Debug)]
struct TaskLog {
    input: Arc<dyn ExecutionPlan>,
    state: Arc<TaskState>,
}

struct TaskState {
    key: TaskKey,
    ranges: Vec<String>,
    /// The scans this task runs, for their row counts.
    scans: Vec<Arc<dyn ExecutionPlan>>,
    partitions: usize,
    ended: AtomicUsize,
    rows: AtomicU64,
    started: OnceLock<Instant>,
    error: Mutex<Option<String>>,
    reported: AtomicBool,
    events: WorkerEvents,
}

impl fmt::Debug for TaskState {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TaskState")
            .field("key", &self.key)
            .finish_non_exhaustive()
    }
}

impl TaskLog {
    fn wrap(
        plan: Arc<dyn ExecutionPlan>,
        config: &datafusion::prelude::SessionConfig,
        key: TaskKey,
        events: WorkerEvents,
    ) -> Arc<dyn ExecutionPlan> {
        let task_index = config
            .get_extension::<DistributedTaskContext>()
            .map(|c| c.task_index)
            .unwrap_or(key.task);
        let mut scans = Vec::new();
        find_scans(&plan, task_index, &mut scans);
        let ranges = scans
            .iter()
            .flat_map(|scan| ranges_of(scan.as_ref()))
            .collect();
        let partitions = plan.output_partitioning().partition_count();
        Arc::new(TaskLog {
            state: Arc::new(TaskState {
                key,
                ranges,
                scans,
                partitions,
                ended: AtomicUsize::new(0),
                rows: AtomicU64::new(0),
                started: OnceLock::new(),
                error: Mutex::new(None),
                reported: AtomicBool::new(false),
                events,
            }),
            input: plan,
        })
    }
}

/// The scans of `plan` that task `task_index` runs (of a distributed leaf, its task's variant).
fn find_scans(
    plan: &Arc<dyn ExecutionPlan>,
    task_index: usize,
    out: &mut Vec<Arc<dyn ExecutionPlan>>,
) {
    if let Some(leaf) = plan.downcast_ref::<DistributedLeafExec>() {
        if let Some(variant) = leaf.variants().get(task_index) {
            find_scans(variant, task_index, out);
        }
        return;
    }
    if plan
        .downcast_ref::<DataSourceExec>()
        .is_some_and(|d| d.data_source().downcast_ref::<FileScanConfig>().is_some())
    {
        out.push(Arc::clone(plan));
        return;
    }
    for child in plan.children() {
        find_scans(child, task_index, out);
    }
}

/// A file scan's files and byte ranges, `path:start..end`.
pub(crate) fn ranges_of(plan: &dyn ExecutionPlan) -> Vec<String> {
    let Some(config) = plan
        .downcast_ref::<DataSourceExec>()
        .and_then(|d| d.data_source().downcast_ref::<FileScanConfig>())
    else {
        return Vec::new();
    };
    config
        .file_groups
        .iter()
        .flat_map(|group| group.iter())
        .map(|file| match &file.range {
            Some(r) => format!("{}:{}..{}", file.object_meta.location, r.start, r.end),
            None => file.object_meta.location.to_string(),
        })
        .collect()
}

impl TaskState {
    fn partition_ended(&self) {
        if self.ended.fetch_add(1, Ordering::AcqRel) + 1 >= self.partitions {
            self.report();
        }
    }

    fn report(&self) {
        if self.reported.swap(true, Ordering::AcqRel) {
            return;
        }
        let Some(started) = self.started.get() else {
            // Never executed (the query ended before this task started): nothing to say.
            return;
        };
        let rows_read = (!self.scans.is_empty()).then(|| {
            self.scans
                .iter()
                .filter_map(|s| s.metrics().and_then(|m| m.output_rows()))
                .map(|n| n as u64)
                .sum()
        });
        let error = self.error.lock().unwrap_or_else(|e| e.into_inner()).clone();
        (self.events)(WorkerEvent::Task(TaskReport {
            query: self.key.query.clone(),
            stage: self.key.stage,
            task: self.key.task,
            tasks: self.key.tasks,
            ranges: self.ranges.clone(),
            rows_read,
            rows_sent: self.rows.load(Ordering::Acquire),
            elapsed: started.elapsed(),
            error,
        }));
    }
}

impl Drop for TaskState {
    fn drop(&mut self) {
        self.report();
    }
}

impl DisplayAs for TaskLog {
    fn fmt_as(&self, _: DisplayFormatType, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "TaskLog")
    }
}

impl ExecutionPlan for TaskLog {
    fn name(&self) -> &str {
        "TaskLog"
    }

    fn properties(&self) -> &Arc<PlanProperties> {
        self.input.properties()
    }

    fn children(&self) -> Vec<&Arc<dyn ExecutionPlan>> {
        vec![&self.input]
    }

    fn apply_expressions(
        &self,
        _f: &mut dyn FnMut(&Arc<dyn PhysicalExpr>) -> Result<TreeNodeRecursion>,
    ) -> Result<TreeNodeRecursion> {
        // It has no expressions of its own.
        Ok(TreeNodeRecursion::Continue)
    }

    fn with_new_children(
        self: Arc<Self>,
        mut children: Vec<Arc<dyn ExecutionPlan>>,
    ) -> Result<Arc<dyn ExecutionPlan>> {
        if children.len() != 1 {
            return internal_err!("TaskLog has one child, not {}", children.len());
        }
        Ok(Arc::new(TaskLog {
            input: children.remove(0),
            state: Arc::clone(&self.state),
        }))
    }

    fn execute(
        &self,
        partition: usize,
        context: Arc<TaskContext>,
    ) -> Result<SendableRecordBatchStream> {
        let state = Arc::clone(&self.state);
        state.started.get_or_init(Instant::now);
        let stream = match self.input.execute(partition, context) {
            Ok(stream) => stream,
            Err(e) => {
                state.fail(&e);
                state.partition_ended();
                return Err(e);
            }
        };
        let schema = stream.schema();
        let guard = PartitionGuard(Arc::clone(&state));
        let counted = stream.map(move |item| {
            let _ = &guard;
            match &item {
                Ok(batch) => {
                    guard
                        .0
                        .rows
                        .fetch_add(batch.num_rows() as u64, Ordering::AcqRel);
                }
                Err(e) => guard.0.fail(e),
            }
            item
        });
        Ok(Box::pin(RecordBatchStreamAdapter::new(schema, counted)))
    }
}

impl TaskState {
    fn fail(&self, e: &datafusion::error::DataFusionError) {
        let mut error = self.error.lock().unwrap_or_else(|e| e.into_inner());
        if error.is_none() {
            let text = e.to_string();
            let text = text
                .split(datafusion::error::DataFusionError::BACK_TRACE_SEP)
                .next()
                .unwrap_or("");
            *error = Some(text.lines().collect::<Vec<_>>().join("; "));
        }
    }
}

/// Ends a partition of a task when its stream ends or is dropped.
struct PartitionGuard(Arc<TaskState>);

impl Drop for PartitionGuard {
    fn drop(&mut self) {
        self.0.partition_ended();
    }
}
