//! The "Scaling" section: reading a capture with the default bound on 1 and 2 threads, against
//! one thread reading sequentially, with the per-frame work of an application and with
//! verification alone, and the machine's core count in the table. Its ids are optional: a
//! snapshot measured before the suite read this capture renders as "not measured yet".

use crate::format::{si, time};
use crate::snapshot::{Bench, Snapshot};
use std::fmt::Write;

/// The criterion group of `benches/benches/scaling.rs`.
const GROUP: &str = "scaling";
/// The capture `benches/src/scaling.rs` writes (its tests check both figures).
const CAPTURE: &str = "1 750 000 XXH3-framed telemetry tables (105 MB)";
/// One thread reading with `Frames`, with the fields: the rate the first table compares with.
const SEQUENTIAL: (&str, &str) = ("sequential", "1");
/// The same, verification alone: the rate the second table compares with. Its presence marks a
/// snapshot that measured this capture.
const VERIFY_SEQUENTIAL: (&str, &str) = ("verify_sequential", "1");
/// `ParallelFrames` on pools of 1 and 2 threads with the fields, the way each row reads.
const WITH_FIELDS: [(&str, &str, &str); 4] = [
    ("fold", "1", "`ParallelFrames::fold`, summed per split"),
    ("fold", "2", "`ParallelFrames::fold`, summed per split"),
    ("ordered", "1", "`ParallelFrames::process_all_ordered`"),
    ("ordered", "2", "`ParallelFrames::process_all_ordered`"),
];
/// The same, verification alone.
const VERIFY_ONLY: [(&str, &str, &str); 2] = [
    (
        "verify_fold",
        "1",
        "`ParallelFrames::fold`, counted per split",
    ),
    (
        "verify_fold",
        "2",
        "`ParallelFrames::fold`, counted per split",
    ),
];

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    let _ = write!(
        s,
        "## Scaling: reading on more cores, with the default bound\n\n\
         Reading a capture of {CAPTURE} whose fields hold arbitrary values (every bit of the \
         ids and timestamps pseudo-random, values of random sign and mantissa) from a \
         memory-mapped file, with the **default bound** (2 GiB: no `with_max_frame_len`, as a \
         user who sets nothing reads): on one thread with `Frames`, and with `ParallelFrames` \
         on rayon pools of 1 and 2 threads. **With the fields**, each frame's checksum is \
         verified, then its FlatBuffer, and its three fields are summed; **verification \
         alone** verifies each frame's checksum and counts it. `fold` works through each \
         split on its thread and adds up the splits' results; `process_all_ordered` verifies \
         and reads on the pool's threads, keeps each frame's fields, and sums them in stream \
         order on the calling thread, which is also one of the pool's threads. The speed-up \
         is the sequential time over the row's time (criterion rows, timed one after the \
         other); the paired timing below holds the targets.\n\n"
    );
    let find = |(function, parameter): (&str, &str)| snap.find(GROUP, function, parameter);
    let (Some(base), Some(verify_base)) = (find(SEQUENTIAL), find(VERIFY_SEQUENTIAL)) else {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{GROUP}/…` ids for this capture \
             (`cargo xtask bench-report --only scaling` measures them).\n"
        );
        return;
    };
    for (title, base, reader, rows) in [
        (
            "With the fields",
            base,
            "`Frames`, sequential",
            &WITH_FIELDS[..],
        ),
        (
            "Verification alone",
            verify_base,
            "`Frames`, sequential",
            &VERIFY_ONLY[..],
        ),
    ] {
        let _ = writeln!(s, "**{title}**\n");
        let _ = writeln!(
            s,
            "| reader | threads, of {} cores | per frame | frames/s | speed-up |",
            snap.cores
        );
        s.push_str("|---|--:|--:|--:|--:|\n");
        row(s, snap, reader, base, base);
        for &(function, threads, reader) in rows {
            if let Some(b) = find((function, threads)) {
                row(s, snap, reader, b, base);
            }
        }
        s.push('\n');
    }
    paired(s, snap);
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

/// The paired timing of the targets, if the snapshot has it.
fn paired(s: &mut String, snap: &Snapshot) {
    let Some(first) = snap.scaling.first() else {
        let _ = writeln!(
            s,
            "No paired timing of the targets in this snapshot (`cargo xtask bench-report --only \
             scaling` measures it).\n"
        );
        return;
    };
    let _ = writeln!(
        s,
        "**Paired timing of the targets.** Two criterion rows are timed seconds apart, and on \
         a shared machine their ratio moves with whatever else runs; so the bench also times \
         each side and its sequential baseline back to back, the order alternating, for {} \
         rounds in one process. Each cell is the median of the per-round speed-ups, then the \
         quartiles.\n",
        first.rounds
    );
    s.push_str("| side | baseline | target | speed-up, median (quartiles) | target met |\n");
    s.push_str("|---|---|--:|--:|---|\n");
    for r in &snap.scaling {
        let (target, met) = match r.target {
            Some(t) if r.median >= t => (format!("≥ {t:.1}×"), "yes"),
            Some(t) => (format!("≥ {t:.1}×"), "**no**"),
            None => ("–".to_owned(), "–"),
        };
        let _ = writeln!(
            s,
            "| `{}` | `{}` | {target} | {:.2}× ({:.2}–{:.2}) | {met} |",
            r.side, r.baseline, r.median, r.q1, r.q3
        );
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::snapshot::{Ratio, Throughput};

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
    fn the_tables_state_the_bound_the_capture_the_cores_and_the_speed_up() {
        let mut snap = sample();
        with(&mut snap, "sequential", "1", 100.0e6);
        with(&mut snap, "fold", "2", 55.0e6);
        with(&mut snap, "ordered", "2", 70.0e6);
        with(&mut snap, "verify_sequential", "1", 30.0e6);
        with(&mut snap, "verify_fold", "2", 27.0e6);
        let mut s = String::new();
        section(&mut s, &snap);
        assert!(s.contains("**default bound** (2 GiB"), "{s}");
        assert!(
            s.contains("1 750 000 XXH3-framed telemetry tables (105 MB)"),
            "{s}"
        );
        assert!(s.contains("| reader | threads, of 2 cores |"), "{s}");
        assert!(
            s.contains("| `Frames`, sequential | 1 of 2 | 100 ns |"),
            "{s}"
        );
        assert!(
            s.contains(
                "| `ParallelFrames::fold`, summed per split | 2 of 2 | 55.0 ns | 18.2 M | 1.82× |"
            ),
            "{s}"
        );
        assert!(s.contains("| 2 of 2 | 70.0 ns | 14.3 M | 1.43× |"), "{s}");
        assert!(s.contains("| 2 of 2 | 27.0 ns | 37.0 M | 1.11× |"), "{s}");
        assert!(s.contains("No paired timing"), "{s}");
    }

    #[test]
    fn the_paired_timing_says_whether_each_target_is_met() {
        let mut snap = sample();
        with(&mut snap, "sequential", "1", 100.0e6);
        with(&mut snap, "verify_sequential", "1", 30.0e6);
        let pair = |side: &str, baseline: &str, target, median| Ratio {
            group: GROUP.into(),
            side: side.into(),
            baseline: baseline.into(),
            target: Some(target),
            processes: 1,
            rounds: 21,
            median,
            q1: median - 0.05,
            q3: median + 0.05,
            lowest: median,
            highest: median,
        };
        snap.scaling = vec![
            pair("fold/2", "sequential/1", 1.7, 1.8),
            pair("verify_fold/2", "verify_sequential/1", 1.2, 1.1),
        ];
        let mut s = String::new();
        section(&mut s, &snap);
        assert!(s.contains("for 21 rounds in one process"), "{s}");
        assert!(
            s.contains("| `fold/2` | `sequential/1` | ≥ 1.7× | 1.80× (1.75–1.85) | yes |"),
            "{s}"
        );
        assert!(
            s.contains(
                "| `verify_fold/2` | `verify_sequential/1` | ≥ 1.2× | 1.10× (1.05–1.15) | **no** |"
            ),
            "{s}"
        );
    }

    #[test]
    fn a_snapshot_without_this_capture_says_so() {
        let mut s = String::new();
        section(&mut s, &sample());
        assert!(s.contains("Not measured yet"));
        let mut snap = sample();
        with(&mut snap, "sequential", "1", 60.0e6);
        let mut s = String::new();
        section(&mut s, &snap);
        assert!(
            s.contains("Not measured yet"),
            "an older capture's figures are not shown"
        );
    }
}
