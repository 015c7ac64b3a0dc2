//! `flatstream worker`: serve as a worker of `flatstream query --workers`, until interrupted.

use crate::failure::{Failure, Status};
use crate::options::sql::WorkerArgs;

/// Runs `flatstream worker`.
#[cfg(feature = "cluster")]
pub(crate) fn run(args: &WorkerArgs) -> Result<Status, Failure> {
    imp::run(args)
}

/// Without the `cluster` feature, `worker` is there only to say so.
#[cfg(not(feature = "cluster"))]
pub(crate) fn run(_args: &WorkerArgs) -> Result<Status, Failure> {
    Err(crate::failure::without_cluster("worker"))
}

#[cfg(feature = "cluster")]
mod imp {
    use super::WorkerArgs;
    use crate::failure::{Failure, Status, io_message, quiet};
    use flatstream::sql::distributed::{CloudStores, WorkerEvent, WorkerEvents};
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
                    CloudStores::runtime().map_err(crate::rows::failure)?,
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
