//! The coordinator's side of a cluster: which workers, how to reach them (HTTP/2 keepalive,
//! deadlines, a shared token, TLS), and which worker runs which task. Which worker failed, and
//! why, is told in `failure.rs`.
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
//! URL; [`failed_workers`](super::failed_workers) finds them in a query's error, so that the
//! query can be run again on the workers that remain.

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

use super::failure::{WorkerFailure, chain, name_worker, reason_of_text};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::distributed::failure::tests::two_workers;

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
        let urls = two_workers();
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
    fn a_token_is_printable_ascii_without_spaces_at_its_ends() {
        assert!(bearer("t0ken").is_ok());
        assert!(bearer(" spaced ").is_err());
        assert!(bearer("line\nbreak").is_err());
    }
}
