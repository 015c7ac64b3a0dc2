//! Where a distributed plan runs: its stages, their tasks, each task's worker and byte ranges,
//! or that it runs on the coordinator alone.

use std::fmt::Write;
use std::sync::Arc;

use datafusion::physical_plan::{ExecutionPlan, displayable};
use datafusion_distributed::{
    DistributedExec, DistributedLeafExec, NetworkBoundaryExt, display_plan_ascii,
};
use url::Url;

use super::cluster::task_worker;
use super::worker::ranges_of;

/// Whether `plan` (a physical plan of a distributed session) sends any work to the workers.
/// A plan whose stages were all dropped (one task each: scans too small to cut into byte
/// ranges) runs on the coordinator alone.
pub fn runs_on_workers(plan: &Arc<dyn ExecutionPlan>) -> bool {
    fn any_boundary(plan: &Arc<dyn ExecutionPlan>) -> bool {
        plan.as_network_boundary().is_some() || plan.children().into_iter().any(any_boundary)
    }
    plan.downcast_ref::<DistributedExec>().is_some() && any_boundary(plan)
}

/// The plan as `--explain` shows it: datafusion-distributed's drawing of the stages, then each
/// stage's tasks with the worker each runs on ([`route_tasks`](super::route_tasks)) and the
/// byte ranges its scans read. A plan that runs on the coordinator alone says so first.
pub fn explain(plan: &Arc<dyn ExecutionPlan>, workers: &[Url]) -> String {
    let mut out = String::new();
    if !runs_on_workers(plan) {
        out.push_str(
            "runs on the coordinator alone: no stage has more than one task (its scans are too \
             small to cut: see --bytes-per-partition)\n",
        );
        let _ = write!(out, "{}", displayable(plan.as_ref()).indent(true));
        return out;
    }
    out.push_str(&display_plan_ascii(plan.as_ref(), false));
    out.push_str("\ntasks:\n");
    let mut stages = Vec::new();
    collect_stages(plan, &mut stages);
    stages.sort_by_key(|(num, ..)| *num);
    stages.dedup_by_key(|(num, ..)| *num);
    for (num, tasks, stage_plan) in stages {
        for task in 0..tasks {
            let worker = task_worker(workers, task).map_or("?", Url::as_str);
            let _ = write!(out, "  stage {num} task {task}/{tasks} on {worker}");
            let ranges = stage_plan
                .as_ref()
                .map(|p| task_ranges(p, task))
                .unwrap_or_default();
            if ranges.is_empty() {
                out.push('\n');
            } else {
                let _ = writeln!(out, ": {}", ranges.join(", "));
            }
        }
    }
    out
}

/// A stage: its number, task count and plan (if the coordinator holds it).
type StageInfo = (usize, usize, Option<Arc<dyn ExecutionPlan>>);

/// Every stage under `plan`.
fn collect_stages(plan: &Arc<dyn ExecutionPlan>, out: &mut Vec<StageInfo>) {
    if let Some(boundary) = plan.as_network_boundary() {
        let stage = boundary.input_stage();
        let local = stage.local_plan().cloned();
        out.push((stage.num(), stage.task_count(), local.clone()));
        if let Some(local) = local {
            collect_stages(&local, out);
        }
        return;
    }
    for child in plan.children() {
        collect_stages(child, out);
    }
}

/// The byte ranges task `task` of a stage reads (its variant of each distributed leaf), down to
/// the stage's own boundaries.
fn task_ranges(plan: &Arc<dyn ExecutionPlan>, task: usize) -> Vec<String> {
    if let Some(leaf) = plan.downcast_ref::<DistributedLeafExec>() {
        return leaf
            .variants()
            .get(task)
            .map(|v| task_ranges(v, task))
            .unwrap_or_default();
    }
    let mut ranges = ranges_of(plan.as_ref());
    if plan.as_network_boundary().is_some() {
        return ranges;
    }
    for child in plan.children() {
        ranges.extend(task_ranges(child, task));
    }
    ranges
}
