//! The cluster's options (`flatstream worker`, `flatstream query --workers`) and the query that
//! runs on workers: planned here, its scans' byte ranges read by the workers, run again on the
//! workers that remain when one fails.

use clap::Args;
use std::path::PathBuf;

/// How the members of a cluster trust each other: the same on the coordinator and on every
/// worker.
#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// A file holding the cluster's shared token: every request carries it, every worker
    /// checks it (FLATSTREAM_CLUSTER_TOKEN holds the token itself, if no file is given).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// The certificate authority (PEM) that workers' certificates chain to; on a worker, also
    /// the one a client's certificate must chain to, if the client presents one.
    #[arg(long, value_name = "PEM")]
    pub(crate) tls_ca: Option<PathBuf>,
    /// This side's certificate chain (PEM): what a worker serves TLS with; on the coordinator,
    /// a client certificate to present.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    /// Seconds between HTTP/2 keepalive pings on every connection; a peer that does not answer
    /// one within as long again is given up.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = positive_seconds)]
    pub(crate) keepalive: f64,
}

/// `--workers` and what goes with it, for `query`.
#[derive(Debug, Args)]
pub(crate) struct QueryClusterArgs {
    /// Run the query on these workers (`flatstream worker`), comma-separated:
    /// http://HOST:PORT, or https://HOST:PORT with --tls-ca [env: FLATSTREAM_WORKERS].
    #[arg(long, value_name = "URLS", value_delimiter = ',')]
    pub(crate) workers: Vec<String>,
    /// With --workers, the longest one task may take on a worker, in seconds: past it the
    /// worker counts as failed.
    #[arg(long, value_name = "SECS", default_value_t = 600.0, value_parser = positive_seconds)]
    pub(crate) task_timeout: f64,
    /// The longest the whole query may take, in seconds, every attempt included [default:
    /// none: each task is bounded by --task-timeout and keepalive, each query by
    /// --max-attempts].
    #[arg(long, value_name = "SECS", value_parser = positive_seconds)]
    pub(crate) timeout: Option<f64>,
    /// With --workers, how many times the query is run at most: after an attempt fails for a
    /// worker (killed, stopped, refusing), it runs again on the workers that remain.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_attempts: u32,
    /// With --workers, the bytes of a file each task's partition reads: smaller means more
    /// tasks [default: 16 MiB].
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) bytes_per_partition: Option<u64>,
    /// With --workers, fail instead of running a plan on the coordinator alone (scans too
    /// small to cut into tasks: on a cluster the coordinator may not reach the data).
    #[arg(long)]
    pub(crate) require_workers: bool,
    /// Print the plan instead of running the query: with --workers, its stages, their tasks,
    /// and each task's worker and byte ranges.
    #[arg(long)]
    pub(crate) explain: bool,
    #[command(flatten)]
    pub(crate) trust: TrustArgs,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

#[cfg(feature = "cluster")]
pub(crate) use imp::{config, query, workers};

#[cfg(feature = "cluster")]
mod imp {
    use super::{QueryClusterArgs, TrustArgs};
    use crate::failure::{Failure, Status, quiet};
    use crate::options::{QueryArgs, QueryFormat};
    use datafusion::execution::SessionStateBuilder;
    use datafusion::physical_plan::collect;
    use datafusion::prelude::SessionContext;
    use flatstream_datafusion::distributed::datafusion_distributed::{
        DistributedExt, SessionStateBuilderExt,
    };
    use flatstream_datafusion::distributed::{
        CloudStores, ClusterChannels, ClusterConfig, FlatstreamDistributedExt, TlsFiles,
        WorkerFailure, WorkerList, explain, failed_workers, route_tasks, runs_on_workers,
    };
    use flatstream_datafusion::{FlatstreamOptions, SessionContextExt};
    use std::path::Path;
    use std::sync::Arc;
    use std::time::{Duration, Instant};
    use url::Url;

    /// The cluster's settings from the command line and the environment.
    pub(crate) fn config(trust: &TrustArgs) -> Result<ClusterConfig, Failure> {
        let mut config = ClusterConfig::default();
        config.keepalive = Duration::from_secs_f64(trust.keepalive);
        config.token = match &trust.token_file {
            Some(path) => Some(token_from(path)?),
            None => match std::env::var("FLATSTREAM_CLUSTER_TOKEN") {
                Ok(token) if !token.is_empty() => Some(token),
                _ => None,
            },
        };
        if trust.tls_ca.is_some() || trust.tls_cert.is_some() {
            let read = |path: &Option<std::path::PathBuf>| {
                path.as_deref()
                    .map(|p| std::fs::read(p).map_err(|e| Failure::io(p.display(), e)))
                    .transpose()
            };
            config.tls = Some(TlsFiles::new(
                read(&trust.tls_ca)?,
                read(&trust.tls_cert)?,
                read(&trust.tls_key)?,
            ));
        }
        Ok(config)
    }

    /// The token in `path`: its text, without the line break at its end.
    fn token_from(path: &Path) -> Result<String, Failure> {
        let text = std::fs::read_to_string(path).map_err(|e| Failure::io(path.display(), e))?;
        let token = text.trim_end_matches(['\n', '\r']);
        if token.is_empty() {
            return Err(Failure::error(format_args!(
                "{}: the token file is empty",
                path.display()
            )));
        }
        Ok(token.to_owned())
    }

    /// The workers of `--workers` (or `FLATSTREAM_WORKERS`), checked; none: the query runs in
    /// this process.
    pub(crate) fn workers(
        args: &QueryClusterArgs,
        config: &ClusterConfig,
    ) -> Result<Vec<Url>, Failure> {
        let given: Vec<String> = if args.workers.is_empty() {
            std::env::var("FLATSTREAM_WORKERS")
                .unwrap_or_default()
                .split(',')
                .map(str::to_owned)
                .collect()
        } else {
            args.workers.clone()
        };
        let mut urls = Vec::new();
        for text in given.iter().map(|s| s.trim()).filter(|s| !s.is_empty()) {
            let url = config.worker_url(text).map_err(Failure::error)?;
            if urls.contains(&url) {
                return Err(Failure::error(format_args!(
                    "worker URL `{text}` is given twice"
                )));
            }
            urls.push(url);
        }
        Ok(urls)
    }

    /// Runs `args.sql` on `workers`: the whole query again on the workers that remain after
    /// an attempt fails for a worker, up to `--max-attempts` attempts.
    pub(crate) async fn query(
        args: &QueryArgs,
        options: FlatstreamOptions,
        config: ClusterConfig,
        workers: Vec<Url>,
    ) -> Result<Status, Failure> {
        quiet_cancellations();
        let cluster = &args.cluster;
        let mut config = config;
        config.task_timeout = Duration::from_secs_f64(cluster.task_timeout);
        let channels = config.channels().map_err(Failure::error)?;
        let deadline = cluster
            .timeout
            .map(|s| (Instant::now() + Duration::from_secs_f64(s), s));
        let mut live = workers;
        let mut failed: Vec<WorkerFailure> = Vec::new();
        for attempt in 1..=cluster.max_attempts {
            let ctx = session(&live, &channels, cluster, options.clone())?;
            let frame = ctx
                .sql(&args.sql)
                .await
                .map_err(crate::commands::query::failure)?;
            let schema = frame.schema().inner().clone();
            if args.format == QueryFormat::Csv && !cluster.explain {
                crate::commands::export::check_flat(&schema)?;
            }
            let plan = frame
                .create_physical_plan()
                .await
                .map_err(crate::commands::query::failure)?;
            let distributed = runs_on_workers(&plan);
            if cluster.explain {
                print!("{}", explain(&plan, &live));
                return Ok(Status::Ok);
            }
            if !distributed {
                let why = "the plan runs on the coordinator alone, not on the workers: no stage \
                           has more than one task (its scans are too small to cut: see \
                           --bytes-per-partition)";
                if cluster.require_workers {
                    return Err(Failure::error(format_args!(
                        "{why}; --require-workers refuses it"
                    )));
                }
                if !quiet() {
                    eprintln!("flatstream: note: {why}");
                }
            }
            let run = collect(Arc::clone(&plan), ctx.task_ctx());
            let result = match deadline {
                None => run.await,
                Some((at, secs)) => match tokio::time::timeout_at(at.into(), run).await {
                    Ok(result) => result,
                    Err(_) => {
                        return Err(Failure::error(format_args!(
                            "the query did not finish within --timeout {secs} s{}",
                            failures_so_far(&failed)
                        )));
                    }
                },
            };
            let error = match result {
                Ok(batches) => {
                    let rows = futures::stream::iter(batches.into_iter().map(Ok));
                    return crate::commands::query::print(args.format, schema, rows, None).await;
                }
                Err(e) => e,
            };
            let now = failed_workers(&error, &live);
            if now.is_empty() {
                return Err(crate::commands::query::failure(error));
            }
            live.retain(|url| !now.iter().any(|f| &f.url == url));
            let said = list(&now);
            failed.extend(now);
            if live.is_empty() {
                return Err(Failure::error(format_args!(
                    "no worker remains: {}",
                    list(&failed)
                )));
            }
            if attempt == cluster.max_attempts {
                return Err(Failure::error(format_args!(
                    "the query failed on {} (--max-attempts {}): {}",
                    crate::failure::count(u64::from(attempt), "attempt"),
                    cluster.max_attempts,
                    list(&failed)
                )));
            }
            if !quiet() {
                eprintln!(
                    "flatstream: note: {}; running the query again on the {} that remain{}",
                    said,
                    crate::failure::count(live.len() as u64, "worker"),
                    if live.len() == 1 { "s" } else { "" }
                );
            }
        }
        unreachable!("the last attempt returns")
    }

    /// Leaves out the panics of tasks cancelled when an attempt is given up (tokio's "task 12
    /// was cancelled", met by datafusion-distributed's tasks that were waiting on them): they
    /// say nothing the failed attempt's note does not, and are not flatstream's bugs.
    fn quiet_cancellations() {
        static ONCE: std::sync::Once = std::sync::Once::new();
        ONCE.call_once(|| {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let payload = info.payload();
                let text = payload
                    .downcast_ref::<&str>()
                    .map(|s| (*s).to_owned())
                    .or_else(|| payload.downcast_ref::<String>().cloned())
                    .unwrap_or_default();
                if text.starts_with("task ") && text.ends_with(" was cancelled") {
                    return;
                }
                previous(info);
            }));
        });
    }

    /// `worker URL: reason; …`, each failed worker once.
    fn list(failed: &[WorkerFailure]) -> String {
        failed
            .iter()
            .map(ToString::to_string)
            .collect::<Vec<_>>()
            .join("; ")
    }

    fn failures_so_far(failed: &[WorkerFailure]) -> String {
        if failed.is_empty() {
            String::new()
        } else {
            format!(" (failed before: {})", list(failed))
        }
    }

    /// A coordinator's session over `workers`.
    fn session(
        workers: &[Url],
        channels: &ClusterChannels,
        cluster: &QueryClusterArgs,
        options: FlatstreamOptions,
    ) -> Result<SessionContext, Failure> {
        let setting = |e: datafusion::error::DataFusionError| crate::commands::query::failure(e);
        let runtime = CloudStores::runtime().map_err(setting)?;
        let mut state = SessionStateBuilder::new()
            .with_default_features()
            .with_runtime_env(runtime)
            .with_distributed_planner()
            .with_distributed_worker_resolver(WorkerList(workers.to_vec()))
            .with_distributed_channel_resolver(channels.clone())
            .with_distributed_route_tasks_handler(route_tasks)
            .with_flatstream_codec()
            // Each worker reports its tasks through a node on top of their plans: the metrics
            // of a plan's nodes, by position, would no longer match the coordinator's.
            .with_distributed_metrics_collection(false)
            .map_err(setting)?;
        if let Some(bytes) = cluster.bytes_per_partition {
            state = state
                .with_distributed_file_scan_config_bytes_per_partition(
                    usize::try_from(bytes).unwrap_or(usize::MAX),
                )
                .map_err(setting)?;
        }
        let ctx = SessionContext::from(state.build()).enable_url_table();
        ctx.set_flatstream_options(options).map_err(setting)?;
        Ok(ctx)
    }
}
