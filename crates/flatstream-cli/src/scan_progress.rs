//! The progress bar of `flatstream query`: the bytes a DataFusion plan's file scans have read
//! (flatstream-datafusion's `bytes_scanned` metric, which each scan adds to once per batch),
//! out of the bytes of the files and byte ranges they read. A task of the query's runtime
//! reads the metric every [`TICK`] while the query runs; the bar itself is the other
//! commands' ([`Progress`]): on a terminal only, after the same delay.

use crate::progress::Progress;
use flatstream::sql::datafusion::datasource::physical_plan::FileScanConfig;
use flatstream::sql::datafusion::datasource::source::DataSourceExec;
use flatstream::sql::datafusion::physical_plan::ExecutionPlan;
use std::sync::Arc;
use std::time::Duration;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// How often the scans' metric is read.
const TICK: Duration = Duration::from_millis(100);

/// A bar that follows the scans of a running plan; [`finish`](Self::finish) clears it.
pub(crate) struct ScanProgress {
    stop: oneshot::Sender<()>,
    task: JoinHandle<()>,
}

/// Follows the scans of `plan`, labelled `what`, unless `hidden` (rows printed to the terminal
/// the bar would be drawn on). Runs on the current tokio runtime.
pub(crate) fn watch(
    what: &'static str,
    plan: &Arc<dyn ExecutionPlan>,
    hidden: bool,
) -> ScanProgress {
    let mut scans = Vec::new();
    find_scans(plan, &mut scans);
    let total = scans.iter().map(scan_len).sum();
    let mut progress = Progress::new(what, Some(total));
    if hidden {
        progress = progress.hidden();
    }
    let (stop, mut stopped) = oneshot::channel();
    let task = tokio::spawn(async move {
        loop {
            let scanned: u64 = scans.iter().map(scanned).sum();
            progress.update(scanned.min(total));
            tokio::select! {
                _ = &mut stopped => break,
                () = tokio::time::sleep(TICK) => {}
            }
        }
        progress.finish();
    });
    ScanProgress { stop, task }
}

impl ScanProgress {
    /// Clears the bar, if it showed, before the command prints.
    pub(crate) async fn finish(self) {
        let _ = self.stop.send(());
        let _ = self.task.await;
    }
}

/// The file scans of `plan`, in any depth.
fn find_scans(plan: &Arc<dyn ExecutionPlan>, out: &mut Vec<Arc<dyn ExecutionPlan>>) {
    if let Some(exec) = plan.downcast_ref::<DataSourceExec>()
        && exec
            .data_source()
            .downcast_ref::<FileScanConfig>()
            .is_some()
    {
        out.push(Arc::clone(plan));
    }
    for child in plan.children() {
        find_scans(child, out);
    }
}

/// The bytes a file scan reads: each file's range, or the whole file.
fn scan_len(scan: &Arc<dyn ExecutionPlan>) -> u64 {
    let Some(config) = scan
        .downcast_ref::<DataSourceExec>()
        .and_then(|exec| exec.data_source().downcast_ref::<FileScanConfig>())
    else {
        return 0;
    };
    config
        .file_groups
        .iter()
        .flat_map(|group| group.files())
        .map(|file| match &file.range {
            Some(range) => u64::try_from(range.end.saturating_sub(range.start)).unwrap_or(0),
            None => file.object_meta.size,
        })
        .sum()
}

/// The bytes a file scan has read so far.
fn scanned(scan: &Arc<dyn ExecutionPlan>) -> u64 {
    scan.metrics()
        .and_then(|metrics| metrics.sum_by_name("bytes_scanned"))
        .map_or(0, |value| value.as_usize() as u64)
}
