//! The small snapshot the tests render.

use crate::ids;
use crate::snapshot::{Alloc, Bench, Ratio, Snapshot, Throughput};

/// [`base`] with every id the report reads by name: those it lacks are added at 1 µs.
pub(crate) fn sample() -> Snapshot {
    let mut snap = base();
    for id in ids::ALL {
        if id.find(&snap).is_none() {
            let n = id.parameter.parse().unwrap_or(1);
            let t = Throughput::Elements(n);
            snap.benches
                .push(bench(id.group, id.function, id.parameter, 1000.0, t));
        }
    }
    snap
}

/// What `section` renders of `snap`.
pub(crate) fn rendered(section: fn(&mut String, &Snapshot), snap: &Snapshot) -> String {
    let mut s = String::new();
    section(&mut s, snap);
    s
}

/// A benchmark with a 95 % confidence interval of ± 2 %.
pub(crate) fn bench(group: &str, function: &str, param: &str, ns: f64, t: Throughput) -> Bench {
    Bench {
        id: format!("{group}/{function}/{param}"),
        group: group.to_owned(),
        function: function.to_owned(),
        parameter: param.to_owned(),
        ns,
        ns_lower: ns * 0.98,
        ns_upper: ns * 1.02,
        throughput: Some(t),
    }
}

/// The snapshot the tests render: a few of each kind of group, not every id the report reads.
fn base() -> Snapshot {
    let n = Throughput::Elements(100_000);
    let mut benches = vec![
        bench("telemetry_cycle", "flatstream-none", "100000", 9.0e6, n),
        bench("telemetry_cycle", "bincode", "100000", 2.0e6, n),
        bench("telemetry_cycle", "serde_json", "100000", 40.0e6, n),
        bench("telemetry_write", "flatstream-none", "100000", 6.0e6, n),
        bench("telemetry_write", "bincode", "100000", 1.0e6, n),
        bench("telemetry_read", "flatstream-none", "100000", 3.0e6, n),
        bench("telemetry_read", "bincode", "100000", 0.5e6, n),
        bench(
            "read_path",
            "reader-cursor",
            "100",
            500.0,
            Throughput::Elements(100),
        ),
        bench(
            "read_path",
            "frames-slice",
            "100",
            400.0,
            Throughput::Elements(100),
        ),
        bench(
            "read_path",
            "reader-slice-new",
            "100",
            3000.0,
            Throughput::Elements(100),
        ),
        bench("mystery", "b", "", 20.0, Throughput::Bytes(64)),
        bench("mystery", "a", "", 10.0, Throughput::Bytes(64)),
    ];
    for (f, ns) in [("memcpy", 10.0), ("read-none", 20.0), ("read-crc32", 30.0)] {
        benches.push(bench("size_sweep", f, "16", ns, Throughput::Bytes(16)));
    }
    Snapshot {
        cpu: "Test CPU".into(),
        cores: 2,
        os: "linux x86_64".into(),
        rustc: "rustc 1.0.0".into(),
        load: String::new(),
        filesystem: String::new(),
        commit: "0123456789ab".into(),
        date: "2026-01-01 00:00 UTC".into(),
        mode: "quick".into(),
        command: "cargo bench".into(),
        benches,
        allocs: vec![
            Alloc {
                id: "telemetry_cycle/flatstream-none/100000".into(),
                messages: 100_000,
                allocations: 0,
                bytes: 0,
                wire_bytes: Some(4_400_000),
            },
            Alloc {
                id: "telemetry_cycle/bincode/100000".into(),
                messages: 100_000,
                allocations: 0,
                bytes: 0,
                wire_bytes: Some(2_200_000),
            },
        ],
        ratios: ["core/numeric/100", "core/numeric/100000"]
            .iter()
            .enumerate()
            .map(|(i, g)| Ratio {
                group: (*g).into(),
                side: "write/flatstream".into(),
                baseline: "write/limit".into(),
                target: Some(1.1),
                processes: 5,
                rounds: 505,
                median: 1.05 + 0.1 * i as f64,
                q1: 1.0,
                q3: 1.2,
                lowest: 0.99,
                highest: 1.3,
            })
            .collect(),
        scaling: Vec::new(),
        memory: Vec::new(),
    }
}
