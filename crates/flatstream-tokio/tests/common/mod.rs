//! What the socket tests share.

use std::future::Future;
use std::time::Duration;

/// Runs `test` on a two-thread runtime with I/O and timers, failing if it takes longer than
/// `limit`.
pub(crate) fn run_within<F: Future<Output = ()>>(limit: Duration, test: F) {
    tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("a runtime")
        .block_on(async {
            tokio::time::timeout(limit, test)
                .await
                .expect("the test finished in time");
        });
}
