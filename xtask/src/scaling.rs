//! The "Scaling" section: verified reading on 1 and 2 threads, against one thread reading
//! sequentially, with the machine's core count in the table. Its ids are optional: a snapshot
//! measured before the suite existed renders as "not measured yet".

use crate::format::{si, time};
use crate::snapshot::{Bench, Snapshot};
use std::fmt::Write;

/// The criterion group of `benches/benches/scaling.rs`.
const GROUP: &str = "scaling";
/// One thread reading with `Frames`: the single-thread rate every row is compared with.
const SEQUENTIAL: (&str, &str) = ("sequential", "1");
/// `ParallelFrames` on pools of 1 and 2 threads, the way each row reads.
const PARALLEL: [(&str, &str, &str); 4] = [
    ("fold", "1", "`ParallelFrames::fold`, summed per split"),
    ("fold", "2", "`ParallelFrames::fold`, summed per split"),
    ("ordered", "1", "`ParallelFrames::process_all_ordered`"),
    ("ordered", "2", "`ParallelFrames::process_all_ordered`"),
];

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    s.push_str(
        "## Scaling: verified reading on more cores\n\n\
         Verified reading of 1 000 000 XXH3-framed telemetry frames from a memory-mapped file \
         (FlatBuffers verification and the three fields of every frame, summed): on one thread \
         with `Frames`, and with `ParallelFrames` on rayon pools of 1 and 2 threads. `fold` \
         verifies, reads and sums each split on its thread and adds up the splits' sums; \
         `process_all_ordered` verifies and reads on the pool's threads, keeps each frame's \
         fields, and sums them in stream order on the calling thread, which is also one of the \
         pool's threads. The speed-up is the sequential time over the row's time.\n\n",
    );
    let find = |(function, parameter): (&str, &str)| snap.find(GROUP, function, parameter);
    let Some(base) = find(SEQUENTIAL) else {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{GROUP}/…` ids (`cargo xtask bench-report` \
             measures them).\n"
        );
        return;
    };
    let _ = writeln!(
        s,
        "| reader | threads, of {} cores | per frame | frames/s | speed-up |",
        snap.cores
    );
    s.push_str("|---|--:|--:|--:|--:|\n");
    row(s, snap, "`Frames`, sequential", base, base);
    for (function, threads, reader) in PARALLEL {
        if let Some(b) = find((function, threads)) {
            row(s, snap, reader, b, base);
        }
    }
    s.push('\n');
}

fn row(s: &mut String, snap: &Snapshot, reader: &str, b: &Bench, base: &Bench) {
    let _ = writeln!(
        s,
        "| {reader} | {} of {} | {} | {} | {:.2}× |",
        b.parameter,
        snap.cores,
        time(b.per_unit()),
        si(b.per_second()),
        base.ns / b.ns
    );
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::snapshot::Throughput;

    fn with(snap: &mut Snapshot, function: &str, parameter: &str, ns: f64) {
        snap.benches.push(Bench {
            id: format!("{GROUP}/{function}/{parameter}"),
            group: GROUP.to_owned(),
            function: function.to_owned(),
            parameter: parameter.to_owned(),
            ns,
            ns_lower: ns,
            ns_upper: ns,
            throughput: Some(Throughput::Elements(1_000_000)),
        });
    }

    #[test]
    fn the_table_states_the_cores_and_the_speed_up() {
        let mut snap = sample();
        with(&mut snap, "sequential", "1", 60.0e6);
        with(&mut snap, "fold", "2", 32.0e6);
        with(&mut snap, "ordered", "2", 40.0e6);
        let mut s = String::new();
        section(&mut s, &snap);
        assert!(s.contains("| reader | threads, of 2 cores |"), "{s}");
        assert!(
            s.contains("| `Frames`, sequential | 1 of 2 | 60.0 ns |"),
            "{s}"
        );
        assert!(
            s.contains(
                "| `ParallelFrames::fold`, summed per split | 2 of 2 | 32.0 ns | 31.2 M | 1.88× |"
            ),
            "{s}"
        );
        assert!(s.contains("| 2 of 2 | 40.0 ns | 25.0 M | 1.50× |"), "{s}");
    }

    #[test]
    fn a_snapshot_without_the_suite_says_so() {
        let mut s = String::new();
        section(&mut s, &sample());
        assert!(s.contains("Not measured yet"));
    }
}
