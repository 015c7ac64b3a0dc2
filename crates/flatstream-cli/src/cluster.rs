//! The cluster's options (`flatstream worker`, `flatstream query --workers`) and the query that
//! runs on workers: planned here, its scans' byte ranges read by the workers, run again on the
//! workers that remain when one fails.

#[cfg(feature = "cluster")]
pub(crate) use imp::{config, query, workers};

#[cfg(feature = "cluster")]
mod imp {
    use crate::failure::{Failure, Status, quiet};
    use crate::options::sql::{QueryArgs, QueryClusterArgs, QueryFormat, TrustArgs};
    use flatstream::sql::datafusion::execution::SessionStateBuilder;
    use flatstream::sql::datafusion::physical_plan::collect;
    use flatstream::sql::datafusion::prelude::SessionContext;
    use flatstream::sql::distributed::datafusion_distributed::{
        DistributedExt, SessionStateBuilderExt,
    };
    use flatstream::sql::distributed::{
        CloudStores, ClusterChannels, ClusterConfig, FlatstreamDistributedExt, TlsFiles,
        WorkerFailure, WorkerList, explain, failed_workers, route_tasks, runs_on_workers,
    };
    use flatstream::sql::{FlatstreamOptions, SessionContextExt};
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
            let frame = ctx.sql(&args.sql).await.map_err(crate::rows::failure)?;
            let schema = frame.schema().inner().clone();
            if args.format == QueryFormat::Csv && !cluster.explain {
                crate::rows::check_flat(&schema)?;
            }
            let plan = frame
                .create_physical_plan()
                .await
                .map_err(crate::rows::failure)?;
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
                    return crate::rows::print(args.format, schema, rows, None).await;
                }
                Err(e) => e,
            };
            let now = failed_workers(&error, &live);
            if now.is_empty() {
                return Err(crate::rows::failure(error));
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
        let setting =
            |e: flatstream::sql::datafusion::error::DataFusionError| crate::rows::failure(e);
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
