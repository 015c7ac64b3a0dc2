//! `benches/snapshot.json`: every figure of a run, the machine, the toolchain, the commit and
//! the date, and how it is read and written. Everything rendered comes from it.

use crate::Result;
use serde_json::{Value, json};
use std::path::Path;

/// Where the snapshot lives, relative to the workspace root.
pub(crate) const SNAPSHOT_PATH: &str = "benches/snapshot.json";

/// What a benchmark iteration processes, per criterion's `Throughput`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Throughput {
    /// Messages (frames) per iteration.
    Elements(u64),
    /// Bytes per iteration.
    Bytes(u64),
}

/// One benchmark's figures.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Bench {
    /// Criterion's full id, `group/function/parameter`.
    pub id: String,
    pub group: String,
    pub function: String,
    pub parameter: String,
    /// Time per iteration in nanoseconds: criterion's slope estimate when it has one (linear
    /// sampling), else the mean; with its 95 % confidence interval.
    pub ns: f64,
    pub ns_lower: f64,
    pub ns_upper: f64,
    pub throughput: Option<Throughput>,
}

impl Bench {
    /// Messages or bytes per iteration (1 when the benchmark declares no throughput).
    pub(crate) fn per_iteration(&self) -> u64 {
        match self.throughput {
            Some(Throughput::Elements(n) | Throughput::Bytes(n)) => n.max(1),
            None => 1,
        }
    }

    /// Nanoseconds per message or byte.
    pub(crate) fn per_unit(&self) -> f64 {
        self.ns / self.per_iteration() as f64
    }

    /// Messages or bytes per second.
    pub(crate) fn per_second(&self) -> f64 {
        self.per_iteration() as f64 / (self.ns / 1e9)
    }
}

/// Allocations of one benchmark id, from the allocations suite.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Alloc {
    pub id: String,
    pub messages: u64,
    pub allocations: u64,
    pub bytes: u64,
    /// Bytes on the wire for the whole run, where the suite records it (telemetry sides).
    pub wire_bytes: Option<u64>,
}

impl Alloc {
    /// Allocations and bytes allocated per message.
    pub(crate) fn per_message(&self) -> (f64, f64) {
        let n = self.messages.max(1) as f64;
        (self.allocations as f64 / n, self.bytes as f64 / n)
    }

    /// Bytes on the wire per message, where the suite records them.
    pub(crate) fn wire_per_message(&self) -> Option<f64> {
        Some(self.wire_bytes? as f64 / self.messages.max(1) as f64)
    }
}

/// One target ratio of the core suite, from the paired timing of the `ratios` bench: a
/// flatstream side over its baseline, timed back to back for many rounds in several processes.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Ratio {
    /// Criterion's group of the same workload, `core/<message>/<count>`.
    pub group: String,
    pub side: String,
    pub baseline: String,
    /// The ratio the side should stay within, if the suite sets one.
    pub target: Option<f64>,
    pub processes: u64,
    pub rounds: u64,
    /// Median and quartiles of the per-round ratios of all processes.
    pub median: f64,
    pub q1: f64,
    pub q3: f64,
    /// The lowest and highest median of a single process.
    pub lowest: f64,
    pub highest: f64,
}

/// The peak memory of one side of the `python` suite: how much the resident memory of its
/// process grew while it read a capture once.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Memory {
    pub side: String,
    pub rows: u64,
    pub capture_bytes: u64,
    pub peak_growth: u64,
}

/// Everything a report is rendered from.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Snapshot {
    pub cpu: String,
    pub cores: u64,
    pub os: String,
    pub rustc: String,
    /// The load average (1, 5 and 15 minutes) when the run started and ended.
    pub load: String,
    /// The file system the journal suite's files were on (`ext4 on /dev/vda`), if it ran.
    pub filesystem: String,
    pub commit: String,
    pub date: String,
    /// `quick` or `full`.
    pub mode: String,
    /// The command that produced the figures.
    pub command: String,
    pub benches: Vec<Bench>,
    pub allocs: Vec<Alloc>,
    pub ratios: Vec<Ratio>,
    /// The paired timing of the `scaling` bench: each `ParallelFrames` side against the
    /// sequential read it is compared with, as speed-ups (the baseline's time over the side's),
    /// in one process. Empty in a snapshot measured before it existed.
    pub scaling: Vec<Ratio>,
    /// The `python` suite's peak memory figures. Empty in a snapshot measured before it existed.
    pub memory: Vec<Memory>,
}

impl Snapshot {
    /// The benchmark `group/function/parameter`.
    pub(crate) fn find(&self, group: &str, function: &str, parameter: &str) -> Option<&Bench> {
        self.benches
            .iter()
            .find(|b| b.group == group && b.function == function && b.parameter == parameter)
    }

    /// The allocation counts of benchmark `id`.
    pub(crate) fn alloc(&self, id: &str) -> Option<&Alloc> {
        self.allocs.iter().find(|a| a.id == id)
    }
}

/// Parses the JSON text of the file at `path`.
pub(crate) fn parse_json(text: &str, path: &Path) -> Result<Value> {
    serde_json::from_str(text).map_err(|e| format!("{}: {e}", path.display()))
}

/// The rows of the allocations suite's output (or of a snapshot), sorted by id.
pub(crate) fn parse_allocs(v: &Value) -> Vec<Alloc> {
    let mut out: Vec<Alloc> = v
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|a| {
            Some(Alloc {
                id: a["id"].as_str()?.to_owned(),
                messages: a["messages"].as_u64()?,
                allocations: a["allocations"].as_u64()?,
                bytes: a["bytes"].as_u64()?,
                wire_bytes: a["wire_bytes"].as_u64(),
            })
        })
        .collect();
    out.sort_by(|a, b| a.id.cmp(&b.id));
    out
}

/// The rows of the `ratios` bench's output (or of a snapshot), in the order given.
pub(crate) fn parse_ratios(v: &Value) -> Vec<Ratio> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|r| {
            Some(Ratio {
                group: r["group"].as_str()?.to_owned(),
                side: r["side"].as_str()?.to_owned(),
                baseline: r["baseline"].as_str()?.to_owned(),
                target: r["target"].as_f64(),
                processes: r["processes"].as_u64()?,
                rounds: r["rounds"].as_u64()?,
                median: r["median"].as_f64()?,
                q1: r["q1"].as_f64()?,
                q3: r["q3"].as_f64()?,
                lowest: r["lowest_process_median"].as_f64()?,
                highest: r["highest_process_median"].as_f64()?,
            })
        })
        .collect()
}

/// The `python` suite's memory figures (or a snapshot's), in the order given.
pub(crate) fn parse_memory(v: &Value) -> Vec<Memory> {
    v.as_array()
        .into_iter()
        .flatten()
        .filter_map(|m| {
            Some(Memory {
                side: m["side"].as_str()?.to_owned(),
                rows: m["rows"].as_u64()?,
                capture_bytes: m["capture_bytes"].as_u64()?,
                peak_growth: m["peak_growth"].as_u64()?,
            })
        })
        .collect()
}

/// Loads a snapshot written by [`to_json`].
pub(crate) fn load(path: &Path) -> Result<Snapshot> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        format!(
            "{}: {e} (run `cargo xtask bench-report --quick` to create it)",
            path.display()
        )
    })?;
    from_json(&parse_json(&text, path)?)
        .ok_or_else(|| format!("{}: not a snapshot", path.display()))
}

/// The snapshot in `v`, or `None` if a field is missing or of the wrong type.
pub(crate) fn from_json(v: &Value) -> Option<Snapshot> {
    let s = |v: &Value| v.as_str().map(str::to_owned);
    let m = &v["machine"];
    let benches = v["benchmarks"]
        .as_array()?
        .iter()
        .map(|b| {
            let t = &b["throughput"];
            let throughput = match (t["kind"].as_str(), t["per_iteration"].as_u64()) {
                (Some("elements"), Some(n)) => Some(Throughput::Elements(n)),
                (Some("bytes"), Some(n)) => Some(Throughput::Bytes(n)),
                _ => None,
            };
            Some(Bench {
                id: s(&b["id"])?,
                group: s(&b["group"])?,
                function: s(&b["function"])?,
                parameter: s(&b["parameter"])?,
                ns: b["ns"].as_f64()?,
                ns_lower: b["ns_lower"].as_f64()?,
                ns_upper: b["ns_upper"].as_f64()?,
                throughput,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Snapshot {
        cpu: s(&m["cpu"])?,
        cores: m["cores"].as_u64()?,
        os: s(&m["os"])?,
        rustc: s(&m["rustc"])?,
        load: s(&m["load_average"]).unwrap_or_default(),
        filesystem: s(&m["journal_filesystem"]).unwrap_or_default(),
        commit: s(&v["commit"])?,
        date: s(&v["date"])?,
        mode: s(&v["mode"])?,
        command: s(&v["command"])?,
        benches,
        allocs: parse_allocs(&v["allocations"]),
        ratios: parse_ratios(&v["ratios"]),
        scaling: parse_ratios(&v["scaling"]),
        memory: parse_memory(&v["python_memory"]),
    })
}

/// The snapshot as pretty-printed JSON (keys sorted, so it diffs well).
pub(crate) fn to_json(snap: &Snapshot) -> String {
    let benches: Vec<Value> = snap
        .benches
        .iter()
        .map(|b| {
            let throughput = match b.throughput {
                Some(Throughput::Elements(n)) => json!({"kind": "elements", "per_iteration": n}),
                Some(Throughput::Bytes(n)) => json!({"kind": "bytes", "per_iteration": n}),
                None => Value::Null,
            };
            json!({
                "id": b.id, "group": b.group, "function": b.function, "parameter": b.parameter,
                "ns": round(b.ns), "ns_lower": round(b.ns_lower), "ns_upper": round(b.ns_upper),
                "throughput": throughput,
            })
        })
        .collect();
    let allocs: Vec<Value> = snap
        .allocs
        .iter()
        .map(|a| {
            let mut v = json!({
                "id": a.id, "messages": a.messages, "allocations": a.allocations, "bytes": a.bytes,
            });
            if let Some(w) = a.wire_bytes {
                v["wire_bytes"] = json!(w);
            }
            v
        })
        .collect();
    let doc = json!({
        "generated_by": "cargo xtask bench-report",
        "machine": {
            "cpu": snap.cpu, "cores": snap.cores, "os": snap.os, "rustc": snap.rustc,
            "load_average": snap.load, "journal_filesystem": snap.filesystem,
        },
        "commit": snap.commit,
        "date": snap.date,
        "mode": snap.mode,
        "command": snap.command,
        "benchmarks": benches,
        "allocations": allocs,
        "ratios": snap.ratios.iter().map(ratio_json).collect::<Vec<_>>(),
    });
    let mut doc = doc;
    if !snap.scaling.is_empty() {
        doc["scaling"] = snap.scaling.iter().map(ratio_json).collect();
    }
    if !snap.memory.is_empty() {
        doc["python_memory"] = snap
            .memory
            .iter()
            .map(|m| {
                json!({"side": m.side, "rows": m.rows, "capture_bytes": m.capture_bytes,
                       "peak_growth": m.peak_growth})
            })
            .collect();
    }
    serde_json::to_string_pretty(&doc).expect("a Value serializes") + "\n"
}

/// One paired figure, as the `ratios` and `scaling` benches write them.
fn ratio_json(r: &Ratio) -> Value {
    json!({
        "group": r.group, "side": r.side, "baseline": r.baseline, "target": r.target,
        "processes": r.processes, "rounds": r.rounds,
        "median": round(r.median), "q1": round(r.q1), "q3": round(r.q3),
        "lowest_process_median": round(r.lowest),
        "highest_process_median": round(r.highest),
    })
}

/// Three decimals of a nanosecond are more than criterion can resolve.
fn round(x: f64) -> f64 {
    (x * 1000.0).round() / 1000.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_snapshot_survives_its_json() {
        let snap = Snapshot {
            cpu: "cpu".into(),
            cores: 2,
            os: "os".into(),
            rustc: "rustc".into(),
            load: "1.00 2.00 3.00 at the start, 1.50 2.00 3.00 at the end".into(),
            filesystem: "ext4 on /dev/vda".into(),
            commit: "abc".into(),
            date: "2026-01-01 00:00 UTC".into(),
            mode: "quick".into(),
            command: "cargo bench".into(),
            benches: vec![Bench {
                id: "g/f/1".into(),
                group: "g".into(),
                function: "f".into(),
                parameter: "1".into(),
                ns: 1.5,
                ns_lower: 1.25,
                ns_upper: 1.75,
                throughput: Some(Throughput::Bytes(64)),
            }],
            allocs: vec![Alloc {
                id: "g/f/1".into(),
                messages: 3,
                allocations: 1,
                bytes: 8,
                wire_bytes: Some(12),
            }],
            ratios: vec![Ratio {
                group: "core/numeric/100".into(),
                side: "read/slice".into(),
                baseline: "read/limit".into(),
                target: Some(1.2),
                processes: 5,
                rounds: 505,
                median: 1.025,
                q1: 1.0,
                q3: 1.125,
                lowest: 0.875,
                highest: 1.25,
            }],
            scaling: vec![Ratio {
                group: "scaling".into(),
                side: "fold/2".into(),
                baseline: "sequential/1".into(),
                target: Some(1.7),
                processes: 1,
                rounds: 21,
                median: 1.875,
                q1: 1.75,
                q3: 1.9,
                lowest: 1.875,
                highest: 1.875,
            }],
            memory: vec![Memory {
                side: "read_batches".into(),
                rows: 10,
                capture_bytes: 600,
                peak_growth: 100,
            }],
        };
        let back = from_json(&serde_json::from_str(&to_json(&snap)).unwrap()).unwrap();
        assert_eq!(back, snap);
    }
}
