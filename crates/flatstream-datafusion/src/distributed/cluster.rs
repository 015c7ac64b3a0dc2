//! The coordinator's side of a cluster: which workers, how to reach them (HTTP/2 keepalive,
//! deadlines, a shared token, TLS), which worker runs which task, and which worker failed.
//!
//! ```text
//!  coordinator ──SetPlan/ExecuteTask──▶ worker A ──ExecuteTask──▶ worker B   (a shuffle)
//!      │   authorization: Bearer TOKEN      │   the same token, TLS and deadlines
//!      └── a deadline per task, keepalive pings on every connection
//! ```
//!
//! Every call to a worker, from the coordinator or from another worker, goes through
//! [`ClusterChannels`]: a connection per worker URL with HTTP/2 keepalive pings (a worker that
//! stops answering them is given up after [`ClusterConfig::keepalive`] twice), a deadline per
//! task ([`ClusterConfig::task_timeout`]), the token in every request's `authorization` header,
//! and TLS when the URL says `https://`. A call that fails for want of the worker (refused,
//! lost, silent, TLS or token refused) fails with a [`WorkerFailure`] that names the worker's
//! URL; [`failed_workers`] finds them in a query's error, so that the query can be run again on
//! the workers that remain.

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::Duration;

use async_trait::async_trait;
use datafusion::arrow::array::RecordBatch;
use datafusion::common::{DataFusionError, Result};
use datafusion::execution::TaskContext;
use datafusion::physical_plan::metrics::ExecutionPlanMetricsSet;
use datafusion_distributed::grpc::{BoxCloneSyncChannel, create_worker_client};
use datafusion_distributed::{
    ChannelResolver, CoordinatorToWorkerMsg, ExecuteTaskRequest, GetWorkerInfoRequest,
    GetWorkerInfoResponse, RouteTasksEvent, RouteTasksEventResponse, SetPlanRequest, WorkerChannel,
    WorkerResolver, WorkerToCoordinatorMsg, get_distributed_worker_resolver,
};
use futures::StreamExt;
use futures::stream::BoxStream;
use http::HeaderValue;
use tonic::body::Body;
use tonic::transport::{Certificate, Channel, ClientTlsConfig, Endpoint, Identity};
use url::Url;

/// The header that tells a worker which task a plan is (`QUERY/STAGE/TASK/TASKS`), for its log.
pub(crate) const TASK_HEADER: &str = "x-flatstream-task";

/// How the members of a cluster reach and trust each other: the same on the coordinator and
/// on every worker (a worker calls other workers in a shuffle).
///
/// The defaults: keepalive pings every 10 s, a connection given up when a ping is not answered
/// within 10 s more, 10 s to connect, 600 s for a task; no token, no TLS.
#[derive(Clone)]
#[non_exhaustive]
pub struct ClusterConfig {
    /// The shared secret every request carries (`authorization: Bearer TOKEN`) and every worker
    /// checks; `None`: requests carry none, and workers check none.
    pub token: Option<String>,
    /// TLS: the certificates, as PEM. Without it, only `http://` URLs are accepted; with it,
    /// only `https://` ones.
    pub tls: Option<TlsFiles>,
    /// How often an HTTP/2 keepalive ping is sent on a connection, and how long its answer may
    /// take: a worker that stops (`kill -STOP`, a machine gone) is given up after about twice
    /// this. Default 10 s.
    pub keepalive: Duration,
    /// How long connecting to a worker may take. Default 10 s.
    pub connect_timeout: Duration,
    /// The longest a task may take, from its request to its last batch: past it, the task
    /// fails with a [`WorkerFailure`] naming its worker. Default 600 s.
    pub task_timeout: Duration,
}

impl Default for ClusterConfig {
    fn default() -> Self {
        ClusterConfig {
            token: None,
            tls: None,
            keepalive: Duration::from_secs(10),
            connect_timeout: Duration::from_secs(10),
            task_timeout: Duration::from_secs(600),
        }
    }
}

impl fmt::Debug for ClusterConfig {
    // Never the token.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterConfig")
            .field("token", &self.token.as_ref().map(|_| "<set>"))
            .field("tls", &self.tls)
            .field("keepalive", &self.keepalive)
            .field("connect_timeout", &self.connect_timeout)
            .field("task_timeout", &self.task_timeout)
            .finish()
    }
}

/// TLS certificates, as PEM text.
///
/// On a worker, `cert` and `key` are what it serves (and presents when it calls another
/// worker); `ca` is the authority it trusts for the workers it calls, and that a client's
/// certificate, if the client presents one, must chain to. On a coordinator, `ca` is the
/// authority the workers' certificates must chain to, and `cert` and `key`, if given, a client
/// certificate to present.
#[derive(Clone, Default)]
#[non_exhaustive]
pub struct TlsFiles {
    /// The certificate authority, PEM.
    pub ca: Option<Vec<u8>>,
    /// This side's certificate chain, PEM.
    pub cert: Option<Vec<u8>>,
    /// This side's private key, PEM.
    pub key: Option<Vec<u8>>,
}

impl TlsFiles {
    /// The authority `ca`, this side's `cert` and `key` (PEM text, each optional).
    pub fn new(ca: Option<Vec<u8>>, cert: Option<Vec<u8>>, key: Option<Vec<u8>>) -> Self {
        TlsFiles { ca, cert, key }
    }

    /// This side's identity, if it has one.
    pub(crate) fn identity(&self) -> Option<Identity> {
        match (&self.cert, &self.key) {
            (Some(cert), Some(key)) => Some(Identity::from_pem(cert, key)),
            _ => None,
        }
    }
}

impl fmt::Debug for TlsFiles {
    // Never the key's bytes.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TlsFiles")
            .field("ca", &self.ca.is_some())
            .field("cert", &self.cert.is_some())
            .field("key", &self.key.is_some())
            .finish()
    }
}

/// What is wrong with a cluster's settings, or with serving as a worker.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClusterError {
    /// A worker URL that cannot be used.
    #[error("worker URL `{url}`: {reason}")]
    Url {
        /// The URL as given.
        url: String,
        /// Why it cannot be used.
        reason: String,
    },
    /// The TLS settings are incomplete or cannot be read.
    #[error("TLS: {0}")]
    Tls(String),
    /// The token cannot be sent in an HTTP header.
    #[error("the cluster token must be printable ASCII, without spaces at its ends")]
    Token,
    /// Serving failed.
    #[error("serving: {0}")]
    Serve(String),
}

impl ClusterConfig {
    /// Reads a worker URL as given on a command line: `http://HOST:PORT`, or `https://HOST:PORT`
    /// when TLS is configured. A URL without a scheme, `https://` without TLS, and `http://`
    /// with TLS are errors: a connection is never silently downgraded to plaintext.
    pub fn worker_url(&self, text: &str) -> Result<Url, ClusterError> {
        let error = |reason: String| ClusterError::Url {
            url: text.to_owned(),
            reason,
        };
        let scheme_missing = || {
            error(format!(
                "no scheme: write http://{text} (or https://{text} with TLS)"
            ))
        };
        if !text.contains("://") {
            return Err(scheme_missing());
        }
        let url = Url::parse(text).map_err(|e| error(e.to_string()))?;
        match (url.scheme(), self.tls.is_some()) {
            ("http", false) | ("https", true) => {}
            ("https", false) => {
                return Err(error(
                    "https:// needs TLS: give the workers' certificate authority (--tls-ca)"
                        .to_owned(),
                ));
            }
            ("http", true) => {
                return Err(error(
                    "TLS is configured, so the URL must be https:// (a plaintext connection \
                     would not be encrypted)"
                        .to_owned(),
                ));
            }
            (scheme, _) => {
                return Err(error(format!(
                    "the scheme {scheme}:// is not http:// or https://"
                )));
            }
        }
        if url.host_str().is_none_or(str::is_empty) {
            return Err(error("no host".to_owned()));
        }
        if url.port_or_known_default().is_none() {
            return Err(error("no port".to_owned()));
        }
        Ok(url)
    }

    /// The channels to the workers, for `with_distributed_channel_resolver` (on the
    /// coordinator's session and in every worker's session builder).
    pub fn channels(&self) -> Result<ClusterChannels, ClusterError> {
        let token = match &self.token {
            Some(token) => Some(bearer(token)?),
            None => None,
        };
        // Without an authority, an https:// worker cannot be checked: each call to one fails
        // and says so (a worker that serves TLS need not call others).
        let tls = match self.tls.as_ref().map(|files| (files, files.ca.as_ref())) {
            Some((files, Some(ca))) => {
                check_pem(ca, "the certificate authority", "CERTIFICATE")?;
                let mut config = ClientTlsConfig::new().ca_certificate(Certificate::from_pem(ca));
                if let Some(identity) = files.identity() {
                    config = config.identity(identity);
                }
                Some(config)
            }
            _ => None,
        };
        Ok(ClusterChannels(Arc::new(Channels {
            config: self.clone(),
            token,
            tls,
            cache: Mutex::new(HashMap::new()),
        })))
    }
}

/// `Bearer TOKEN` as a header value.
pub(crate) fn bearer(token: &str) -> Result<HeaderValue, ClusterError> {
    if token.is_empty() || token.trim() != token {
        return Err(ClusterError::Token);
    }
    let mut value =
        HeaderValue::from_str(&format!("Bearer {token}")).map_err(|_| ClusterError::Token)?;
    value.set_sensitive(true);
    Ok(value)
}

/// Fails unless `pem` holds a PEM block of `label` (`CERTIFICATE`, `PRIVATE KEY`).
pub(crate) fn check_pem(pem: &[u8], what: &str, label: &str) -> Result<(), ClusterError> {
    let text = String::from_utf8_lossy(pem);
    if text.contains("-----BEGIN ") && text.contains(&format!("{label}-----")) {
        Ok(())
    } else {
        Err(ClusterError::Tls(format!(
            "{what} is not PEM text with a {label} block"
        )))
    }
}

/// The workers a query runs on: a fixed list, in the order given.
///
/// A single worker is listed twice: datafusion-distributed gives a stage at most one task per
/// URL and runs a stage of one task on the coordinator, so one URL would put the whole query
/// on the coordinator. Twice, each stage that can be cut gets two tasks, both on that worker.
#[derive(Debug, Clone)]
pub struct WorkerList(pub Vec<Url>);

impl WorkerResolver for WorkerList {
    fn get_urls(&self) -> Result<Vec<Url>, DataFusionError> {
        match self.0.as_slice() {
            [one] => Ok(vec![one.clone(), one.clone()]),
            all => Ok(all.to_vec()),
        }
    }
}

/// Routes task `i` of every stage to worker `i % n` of the session's `n` workers: the same
/// placement that [`task_worker`] tells `--explain`. Register it with
/// `with_distributed_route_tasks_handler`.
pub fn route_tasks(ev: RouteTasksEvent<'_>) -> Option<Result<RouteTasksEventResponse>> {
    let urls = match get_distributed_worker_resolver(ev.task_ctx.session_config())
        .and_then(|r| r.get_urls())
    {
        Ok(urls) => urls,
        Err(e) => return Some(Err(e)),
    };
    let urls = (0..ev.task_count)
        .map(|i| task_worker(&urls, i).cloned())
        .collect::<Option<Vec<Url>>>();
    Some(match urls {
        Some(urls) => Ok(RouteTasksEventResponse::new(urls)),
        None => Err(DataFusionError::Execution(
            "no worker to run the query's tasks on".to_owned(),
        )),
    })
}

/// The worker that task `task` of a stage runs on, as [`route_tasks`] places it.
pub fn task_worker(workers: &[Url], task: usize) -> Option<&Url> {
    workers.get(task.checked_rem(workers.len())?)
}

/// The calls to the workers: one connection per worker URL, with keepalive, deadlines, the
/// token and TLS of a [`ClusterConfig`]. A [`ChannelResolver`] for datafusion-distributed.
#[derive(Clone)]
pub struct ClusterChannels(Arc<Channels>);

struct Channels {
    config: ClusterConfig,
    token: Option<HeaderValue>,
    tls: Option<ClientTlsConfig>,
    cache: Mutex<HashMap<Url, BoxCloneSyncChannel>>,
}

impl ClusterChannels {
    /// The channel to `url`: made once (connecting lazily, at its first call) and reused.
    fn channel(&self, url: &Url) -> Result<BoxCloneSyncChannel> {
        let mut cache = self.0.cache.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(channel) = cache.get(url) {
            return Ok(channel.clone());
        }
        let failure = |reason: String| {
            DataFusionError::External(Box::new(WorkerFailure {
                url: url.clone(),
                reason,
            }))
        };
        let config = &self.0.config;
        let mut endpoint = Endpoint::from_shared(url.to_string())
            .map_err(|e| failure(format!("not a URL a connection can be made to: {e}")))?
            .connect_timeout(config.connect_timeout)
            .http2_keep_alive_interval(config.keepalive)
            .keep_alive_timeout(config.keepalive)
            .keep_alive_while_idle(true)
            .tcp_nodelay(true);
        let configured = self.0.config.tls.is_some();
        match (url.scheme(), &self.0.tls) {
            ("https", Some(tls)) => {
                endpoint = endpoint
                    .tls_config(tls.clone())
                    .map_err(|e| failure(format!("TLS: {}", reason_of_text(&chain(&e)))))?;
            }
            ("http", None) if !configured => {}
            ("https", None) => {
                return Err(failure(
                    "https:// needs a certificate authority to check the worker with (--tls-ca)"
                        .to_owned(),
                ));
            }
            _ => {
                return Err(failure(
                    "TLS is configured, so the URL must be https://".to_owned(),
                ));
            }
        }
        let channel = BoxCloneSyncChannel::new(WithToken {
            inner: endpoint.connect_lazy(),
            token: self.0.token.clone(),
        });
        cache.insert(url.clone(), channel.clone());
        Ok(channel)
    }
}

impl fmt::Debug for ClusterChannels {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ClusterChannels")
            .field("config", &self.0.config)
            .finish_non_exhaustive()
    }
}

#[async_trait]
impl ChannelResolver for ClusterChannels {
    async fn get_worker_client_for_url(&self, url: &Url) -> Result<Box<dyn WorkerChannel>> {
        let channel = self.channel(url)?;
        Ok(Box::new(Guarded {
            inner: create_worker_client(channel),
            url: url.clone(),
            task_timeout: self.0.config.task_timeout,
        }))
    }
}

/// A channel that puts the token in every request.
#[derive(Clone)]
struct WithToken {
    inner: Channel,
    token: Option<HeaderValue>,
}

impl tower::Service<http::Request<Body>> for WithToken {
    type Response = http::Response<Body>;
    type Error = tonic::transport::Error;
    type Future = <Channel as tower::Service<http::Request<Body>>>::Future;

    fn poll_ready(&mut self, cx: &mut Context<'_>) -> Poll<Result<(), Self::Error>> {
        self.inner.poll_ready(cx)
    }

    fn call(&mut self, mut request: http::Request<Body>) -> Self::Future {
        if let Some(token) = &self.token {
            request
                .headers_mut()
                .insert(http::header::AUTHORIZATION, token.clone());
        }
        self.inner.call(request)
    }
}

/// A worker's client whose calls have deadlines and whose transport failures name the worker.
struct Guarded {
    inner: Box<dyn WorkerChannel>,
    url: Url,
    task_timeout: Duration,
}

impl Guarded {
    fn timed_out(&self) -> DataFusionError {
        timed_out(&self.url, self.task_timeout)
    }
}

fn timed_out(url: &Url, timeout: Duration) -> DataFusionError {
    DataFusionError::External(Box::new(WorkerFailure {
        url: url.clone(),
        reason: format!(
            "a task did not finish within the task timeout of {}",
            seconds(timeout)
        ),
    }))
}

/// `d` in seconds, as the options take it: `30 s`, `0.5 s`.
pub(crate) fn seconds(d: Duration) -> String {
    format!("{} s", d.as_secs_f64())
}

#[async_trait]
impl WorkerChannel for Guarded {
    async fn coordinator_channel(
        &mut self,
        mut headers: http::HeaderMap,
        set_plan_request: SetPlanRequest,
        c2w_stream: BoxStream<'static, CoordinatorToWorkerMsg>,
        metrics: ExecutionPlanMetricsSet,
        task_ctx: &Arc<TaskContext>,
    ) -> Result<BoxStream<'static, Result<WorkerToCoordinatorMsg>>> {
        let key = set_plan_request.task_key;
        let task = format!(
            "{}/{}/{}/{}",
            key.query_id, key.stage_id, key.task_number, set_plan_request.task_count
        );
        if let Ok(value) = HeaderValue::from_str(&task) {
            headers.insert(TASK_HEADER, value);
        }
        let call = self.inner.coordinator_channel(
            headers,
            set_plan_request,
            c2w_stream,
            metrics,
            task_ctx,
        );
        let stream = match tokio::time::timeout(self.task_timeout, call).await {
            Ok(result) => result.map_err(|e| name_worker(&self.url, e))?,
            Err(_) => return Err(self.timed_out()),
        };
        let url = self.url.clone();
        Ok(stream
            .map(move |item| item.map_err(|e| name_worker(&url, e)))
            .boxed())
    }

    async fn execute_task(
        &mut self,
        headers: http::HeaderMap,
        request: ExecuteTaskRequest,
        metrics: ExecutionPlanMetricsSet,
        task_ctx: &Arc<TaskContext>,
    ) -> Result<Vec<BoxStream<'static, Result<RecordBatch>>>> {
        let deadline = tokio::time::Instant::now() + self.task_timeout;
        let call = self.inner.execute_task(headers, request, metrics, task_ctx);
        let streams = match tokio::time::timeout_at(deadline, call).await {
            Ok(result) => result.map_err(|e| name_worker(&self.url, e))?,
            Err(_) => return Err(self.timed_out()),
        };
        let (url, timeout) = (self.url.clone(), self.task_timeout);
        Ok(streams
            .into_iter()
            .map(|stream| with_deadline(stream, deadline, url.clone(), timeout))
            .collect())
    }

    async fn get_worker_info(
        &mut self,
        request: GetWorkerInfoRequest,
    ) -> Result<GetWorkerInfoResponse> {
        match tokio::time::timeout(self.task_timeout, self.inner.get_worker_info(request)).await {
            Ok(result) => result.map_err(|e| name_worker(&self.url, e)),
            Err(_) => Err(self.timed_out()),
        }
    }
}

/// `stream`, failing with a [`WorkerFailure`] if it has not ended by `deadline`.
fn with_deadline(
    stream: BoxStream<'static, Result<RecordBatch>>,
    deadline: tokio::time::Instant,
    url: Url,
    timeout: Duration,
) -> BoxStream<'static, Result<RecordBatch>> {
    futures::stream::unfold(Some(stream), move |state| {
        let url = url.clone();
        async move {
            let mut stream = state?;
            match tokio::time::timeout_at(deadline, stream.next()).await {
                Ok(Some(Ok(batch))) => Some((Ok(batch), Some(stream))),
                Ok(Some(Err(e))) => Some((Err(name_worker(&url, e)), None)),
                Ok(None) => None,
                Err(_) => Some((Err(timed_out(&url, timeout)), None)),
            }
        }
    })
    .boxed()
}

/// A worker that failed a query for want of the worker itself: it refused the connection, lost
/// it, stopped answering, missed a deadline, or refused the TLS handshake or the token. (An
/// error the worker reports about the data, such as a damaged frame, is not one.)
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct WorkerFailure {
    /// The worker.
    pub url: Url,
    /// Why, in words.
    pub reason: String,
}

impl fmt::Display for WorkerFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "worker {}: {}", self.url, self.reason)
    }
}

impl std::error::Error for WorkerFailure {}

/// `e`, as a [`WorkerFailure`] of `url` if it is a failure of the transport; else unchanged.
fn name_worker(url: &Url, e: DataFusionError) -> DataFusionError {
    if contains_failure(&e) {
        return e;
    }
    match transport_reason(&e) {
        Some(reason) => DataFusionError::External(Box::new(WorkerFailure {
            url: url.clone(),
            reason,
        })),
        None => e,
    }
}

fn contains_failure(e: &DataFusionError) -> bool {
    let mut found = false;
    visit(e, &mut |inner| {
        found |= inner.downcast_ref::<WorkerFailure>().is_some();
    });
    found
}

/// Calls `f` on every boxed error inside `e` (through contexts, shared errors, collections).
fn visit(e: &DataFusionError, f: &mut dyn FnMut(&(dyn std::error::Error + Send + Sync + 'static))) {
    match e {
        DataFusionError::External(inner) => f(inner.as_ref()),
        DataFusionError::Context(_, inner) => visit(inner, f),
        DataFusionError::Shared(inner) => visit(inner, f),
        DataFusionError::Diagnostic(_, inner) => visit(inner, f),
        DataFusionError::Collection(all) => all.iter().for_each(|e| visit(e, f)),
        DataFusionError::ArrowError(arrow, _) => {
            if let datafusion::arrow::error::ArrowError::ExternalError(inner) = arrow.as_ref() {
                // arrow's external errors are `Box<dyn Error + Send + Sync>` too.
                f(inner.as_ref());
            }
        }
        _ => {}
    }
}

/// Why a call failed, if the failure is the transport's: a `tonic::Status` that is not an
/// error the worker encoded (those decode to DataFusion's own errors).
fn transport_reason(e: &DataFusionError) -> Option<String> {
    let mut reason = None;
    visit(e, &mut |inner| {
        if reason.is_some() {
            return;
        }
        let mut source: Option<&(dyn std::error::Error + 'static)> = Some(inner);
        while let Some(error) = source {
            if let Some(status) = error.downcast_ref::<tonic::Status>() {
                reason = Some(reason_of_status(status));
                return;
            }
            if error.downcast_ref::<tonic::transport::Error>().is_some() {
                reason = Some(reason_of_text(&chain(error)));
                return;
            }
            source = error.source();
        }
        // arrow-flight's errors wrap a status in their own type; their text says so.
        let text = chain(inner);
        if is_transport_text(&text) {
            reason = Some(reason_of_text(&text));
        }
    });
    reason
}

/// An error and its sources, as one text.
fn chain(e: &(dyn std::error::Error + 'static)) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(inner) = source {
        let more = inner.to_string();
        if !text.contains(&more) {
            text.push_str(": ");
            text.push_str(&more);
        }
        source = inner.source();
    }
    text
}

fn reason_of_status(status: &tonic::Status) -> String {
    match status.code() {
        tonic::Code::Unauthenticated => {
            format!("refused the request: {}", status.message())
        }
        tonic::Code::DeadlineExceeded => "the request's deadline passed".to_owned(),
        _ => reason_of_text(&chain(status)),
    }
}

fn is_transport_text(text: &str) -> bool {
    let lower = text.to_lowercase();
    [
        "transport error",
        "h2 protocol error",
        "tcp connect error",
        "error trying to connect",
        "connection refused",
        "connection reset",
        "broken pipe",
        "keep-alive timed out",
        "error reading a body",
        "status: unavailable",
        "status: unknown",
        "status: cancelled",
    ]
    .iter()
    .any(|p| lower.contains(p))
}

/// A transport failure in words, without hyper's or h2's Debug text.
pub(crate) fn reason_of_text(text: &str) -> String {
    let lower = text.to_lowercase();
    let has = |p: &str| lower.contains(p);
    if has("connection refused") {
        "connection refused (is the worker running, on that port?)".to_owned()
    } else if has("keep-alive") || has("keepalive") {
        "stopped answering (no reply to HTTP/2 keepalive pings)".to_owned()
    } else if has("certificate") || has("tls") || has("handshake") || has("invalidcontenttype") {
        "the TLS handshake failed (is the worker serving TLS, with a certificate from --tls-ca \
         for this host?)"
            .to_owned()
    } else if has("timed out") || has("deadline") {
        "connecting timed out".to_owned()
    } else if has("dns") || has("failed to lookup") || has("name or service not known") {
        "its host name does not resolve".to_owned()
    } else if has("error reading a body")
        || has("connection reset")
        || has("broken pipe")
        || has("connection closed")
        || has("stream closed")
        || has("unexpected end of file")
        || has("unexpected eof")
        || has("not connected")
        || has("operation was canceled")
    {
        "the connection was lost (the worker exited or was killed?)".to_owned()
    } else {
        let first = text.lines().next().unwrap_or("").trim();
        format!("the connection failed: {first}")
    }
}

/// The workers among `workers` that `e` says failed, each once (with the first reason given),
/// in the order of `workers`. A worker's failure met by another worker (in a shuffle) reaches
/// the coordinator as that worker's error text: it is found by the text `worker URL: `.
pub fn failed_workers(e: &DataFusionError, workers: &[Url]) -> Vec<WorkerFailure> {
    let mut found: Vec<WorkerFailure> = Vec::new();
    visit(e, &mut |inner| {
        if let Some(failure) = inner.downcast_ref::<WorkerFailure>() {
            found.push(failure.clone());
        }
    });
    let text = e.to_string();
    for url in workers {
        let marker = format!("worker {url}: ");
        if let Some(at) = text.find(&marker) {
            let rest = &text[at + marker.len()..];
            let end = rest.find(['\n', ';']).unwrap_or(rest.len());
            found.push(WorkerFailure {
                url: url.clone(),
                reason: rest[..end].trim().to_owned(),
            });
        }
    }
    let mut unique: Vec<WorkerFailure> = Vec::new();
    for url in workers {
        if let Some(failure) = found.iter().find(|f| &f.url == url) {
            unique.push(failure.clone());
        }
    }
    unique
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn worker_urls_need_a_scheme_and_never_downgrade() {
        let plain = ClusterConfig::default();
        assert!(plain.worker_url("http://127.0.0.1:50051").is_ok());
        let e = plain.worker_url("127.0.0.1:50051").unwrap_err().to_string();
        assert!(e.contains("no scheme: write http://127.0.0.1:50051"), "{e}");
        let e = plain.worker_url("localhost:50051").unwrap_err().to_string();
        assert!(e.contains("no scheme"), "{e}");
        let e = plain.worker_url("https://a:1").unwrap_err().to_string();
        assert!(e.contains("https:// needs TLS"), "{e}");
        let e = plain.worker_url("ftp://a:1").unwrap_err().to_string();
        assert!(e.contains("ftp://"), "{e}");

        let tls = ClusterConfig {
            tls: Some(TlsFiles::default()),
            ..ClusterConfig::default()
        };
        assert!(tls.worker_url("https://a:1").is_ok());
        let e = tls.worker_url("http://a:1").unwrap_err().to_string();
        assert!(e.contains("must be https://"), "{e}");
    }

    #[test]
    fn tasks_go_round_the_workers() {
        let urls: Vec<Url> = ["http://a:1", "http://b:1"]
            .iter()
            .map(|u| Url::parse(u).unwrap())
            .collect();
        let placed: Vec<&str> = (0..5)
            .map(|i| task_worker(&urls, i).unwrap().as_str())
            .collect();
        assert_eq!(
            placed,
            [
                "http://a:1/",
                "http://b:1/",
                "http://a:1/",
                "http://b:1/",
                "http://a:1/"
            ]
        );
        assert_eq!(task_worker(&[], 0), None);
    }

    #[test]
    fn failures_are_found_in_errors_and_in_their_text() {
        let urls: Vec<Url> = ["http://a:1", "http://b:1"]
            .iter()
            .map(|u| Url::parse(u).unwrap())
            .collect();
        let direct = DataFusionError::Context(
            "reading".to_owned(),
            Box::new(DataFusionError::External(Box::new(WorkerFailure {
                url: urls[1].clone(),
                reason: "connection refused".to_owned(),
            }))),
        );
        assert_eq!(
            failed_workers(&direct, &urls),
            [WorkerFailure {
                url: urls[1].clone(),
                reason: "connection refused".to_owned()
            }]
        );
        // As another worker reports it: text only.
        let relayed = DataFusionError::Execution(
            "External error: worker http://a:1/: the connection was lost".to_owned(),
        );
        let found = failed_workers(&relayed, &urls);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].url, urls[0]);
        assert_eq!(found[0].reason, "the connection was lost");
        // A damaged frame names no worker.
        let data = DataFusionError::Execution("a.fstream: frame 3 at byte 120".to_owned());
        assert!(failed_workers(&data, &urls).is_empty());
    }

    #[test]
    fn transport_errors_are_worded_without_debug_text() {
        let status = tonic::Status::unavailable(
            "error trying to connect: tcp connect error: Connection refused (os error 111)",
        );
        let e = name_worker(
            &Url::parse("http://a:1").unwrap(),
            DataFusionError::External(Box::new(status)),
        );
        assert_eq!(
            e.to_string(),
            "External error: worker http://a:1/: connection refused (is the worker running, \
             on that port?)"
        );
        let lost = reason_of_text("h2 protocol error: error reading a body from connection");
        assert!(lost.starts_with("the connection was lost"), "{lost}");
        // An error the worker encoded is left as it is.
        let data = DataFusionError::Execution("frame 3 is damaged".to_owned());
        let url = Url::parse("http://a:1").unwrap();
        assert_eq!(
            name_worker(&url, data).to_string(),
            "Execution error: frame 3 is damaged"
        );
        assert!(bearer("t0ken").is_ok());
        assert!(bearer(" spaced ").is_err());
        assert!(bearer("line\nbreak").is_err());
    }
}
