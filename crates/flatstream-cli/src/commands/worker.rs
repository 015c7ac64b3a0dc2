//! `flatstream worker`: serve as a worker of `flatstream query --workers`, until interrupted.

use crate::cluster::TrustArgs;
use crate::failure::{Failure, Status};
use clap::Args;
use std::net::SocketAddr;

pub(crate) const WORKER_HELP: &str = "\
Serves the tasks that `flatstream query --workers` sends: each reads its byte ranges of the
query's files itself, from their paths as the coordinator names them (the same on every
machine: a shared file system), and sends its rows back over gRPC (HTTP/2).

  flatstream worker --listen 0.0.0.0:50051 --token-file cluster.token
  export FLATSTREAM_WORKERS=http://10.0.0.1:50051,http://10.0.0.2:50051
  flatstream query --token-file cluster.token -s telemetry.bfbs \"SELECT count(*) FROM '/data/*.fstream'\"

It listens on 127.0.0.1 unless --listen names another address: anyone who reaches the port can
send it plans. Give it a token (--token-file, or FLATSTREAM_CLUSTER_TOKEN): a request without
it, or with another, is refused, logged, and runs nothing. With --tls-cert and --tls-key it
serves TLS; coordinators then use https:// URLs with --tls-ca. The coordinator's schema
travels in the plan: a worker needs no copy of it.

On stderr, a line when it listens, and a line per task (-q leaves those out): the query's id,
the stage and task, the byte ranges it read, the rows it read and sent and how long it took,
or its error. Ctrl-C stops it.

Exit status:
  0  it was interrupted
  2  it could not serve: the address is in use or cannot be bound, a token or TLS file cannot
     be read";

/// `flatstream worker`'s options.
#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// The address to listen on (0.0.0.0:PORT for every interface).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:50051")]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    pub(crate) trust: TrustArgs,
}

/// Runs `flatstream worker`.
#[cfg(feature = "cluster")]
pub(crate) fn run(args: &WorkerArgs) -> Result<Status, Failure> {
    imp::run(args)
}

/// Without the `cluster` feature, `worker` is there only to say so.
#[cfg(not(feature = "cluster"))]
pub(crate) fn run(_args: &WorkerArgs) -> Result<Status, Failure> {
    Err(not_built("worker"))
}

/// The error of a cluster command in a flatstream built without the `cluster` feature.
#[cfg(not(feature = "cluster"))]
pub(crate) fn not_built(what: &str) -> Failure {
    Failure::error(format_args!(
        "{what} needs the cluster, which this flatstream was built without: build it with the \
         `cluster` feature (cargo install flatstream-cli, whose default it is)"
    ))
}

#[cfg(feature = "cluster")]
mod imp {
    use super::WorkerArgs;
    use crate::failure::{Failure, Status, io_message, quiet};
    use flatstream_datafusion::distributed::{CloudStores, WorkerEvent, WorkerEvents};
    use std::sync::Arc;

    pub(super) fn run(args: &WorkerArgs) -> Result<Status, Failure> {
        let config = crate::cluster::config(&args.trust)?;
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .enable_all()
            .build()
            .map_err(|e| Failure::io("the worker's runtime", e))?;
        runtime.block_on(async {
            let listener = tokio::net::TcpListener::bind(args.listen)
                .await
                .map_err(|e| {
                    Failure::error(format_args!(
                        "cannot listen on {}: {}",
                        args.listen,
                        io_message(&e)
                    ))
                })?;
            let quiet = quiet();
            let events: WorkerEvents = Arc::new(move |event| match event {
                WorkerEvent::Task(_) | WorkerEvent::Listening { .. } if quiet => {}
                event => eprintln!("flatstream worker: {event}"),
            });
            let worker = config
                .worker(
                    CloudStores::runtime().map_err(crate::commands::query::failure)?,
                    Arc::clone(&events),
                )
                .map_err(Failure::error)?;
            let shutdown = async {
                let _ = tokio::signal::ctrl_c().await;
            };
            config
                .serve(worker, listener, events, shutdown)
                .await
                .map_err(Failure::error)?;
            Ok(Status::Ok)
        })
    }
}
