//! The "Which to choose" section: what to use in each situation, each row backed by figures of
//! this run. Rendering has checked that the snapshot holds every id named here (`ids`).

use crate::format::{bytes_label, rate, time};
use crate::ids;
use crate::snapshot::{Bench, Snapshot};
use std::fmt::Write;

/// Appends the section to `s`; `head` is the headline rows, fastest first.
pub(crate) fn section(s: &mut String, snap: &Snapshot, head: &[&Bench]) {
    let mut rows: Vec<[String; 3]> = Vec::new();
    if let (Some(best), Some(fs)) = (
        head.first(),
        head.iter().find(|b| b.function == ids::HEADLINE.function),
    ) && best.id != fs.id
    {
        rows.push([
            "Small fixed-shape messages, always read whole, speed above all".to_owned(),
            format!("`{}` framed by length", best.function),
            format!(
                "`{}`: {} per message against {} for flatstream",
                ids::HEADLINE.group,
                time(best.per_unit()),
                time(fs.per_unit())
            ),
        ]);
    }
    if let (Some(slice), Some(new)) = (ids::FRAMES_SLICE.find(snap), ids::READER_NEW.find(snap)) {
        let mmap = ids::FRAMES_MMAP
            .find(snap)
            .map(|m| format!(", {} from a memory-mapped file", time(m.per_unit())))
            .unwrap_or_default();
        rows.push([
            "Frames already in memory or memory-mapped".to_owned(),
            "`flatstream::Frames` over the slice (zero copy)".to_owned(),
            format!(
                "`{}`: {} per frame{mmap}; a new `StreamReader` on the same slice: {}",
                ids::FRAMES_SLICE.group,
                time(slice.per_unit()),
                time(new.per_unit())
            ),
        ]);
    }
    if let (Some(buf), Some(raw), Some(read)) = (
        ids::FILE_WRITE_BUFFERED.find(snap),
        ids::FILE_WRITE_RAW.find(snap),
        ids::FILE_READ.find(snap),
    ) {
        rows.push([
            "A file (or socket)".to_owned(),
            "`StreamWriter` over a `BufWriter`; `StreamReader` straight on the `File` (it \
             buffers itself)"
                .to_owned(),
            format!(
                "`{}`, {} payloads: write {} through a `BufWriter`, {} on the raw `File`; \
                 read {}",
                ids::FILE_READ.group,
                bytes_label(ids::FILE_READ.parameter),
                rate(buf),
                rate(raw),
                rate(read)
            ),
        ]);
    }
    rows.extend(crate::wide::choose_rows(snap));
    for id in [ids::SWEEP_SMALL, ids::SWEEP_LARGE] {
        if let Some(row) = checksum(snap, id) {
            rows.push(row);
        }
    }
    if rows.is_empty() {
        return;
    }
    s.push_str("## Which to choose\n\n| you have | use | evidence (this run) |\n|---|---|---|\n");
    for [a, b, c] in rows {
        let _ = writeln!(s, "| {a} | {b} | {c} |");
    }
    s.push('\n');
}

/// The checksum to read with at the payload size of `id` (reading with no checksum): the
/// fastest, and those within 10 % of it.
fn checksum(snap: &Snapshot, id: ids::Id) -> Option<[String; 3]> {
    let label = bytes_label(id.parameter);
    let mut sums: Vec<&Bench> = snap
        .benches
        .iter()
        .filter(|b| {
            b.group == id.group
                && b.parameter == id.parameter
                && b.function.starts_with("read-")
                && b.function != id.function
        })
        .collect();
    sums.sort_by(|a, b| a.ns.total_cmp(&b.ns));
    let (none, best) = (id.find(snap)?, sums.first()?);
    // Within 10 % of the fastest is a tie on this machine.
    let tied: Vec<String> = sums
        .iter()
        .filter(|b| b.ns <= best.ns * 1.1)
        .map(|b| format!("`{}`", b.function.trim_start_matches("read-")))
        .collect();
    let use_ = if tied.len() == 1 {
        tied[0].clone()
    } else {
        format!("{} (within 10 % of each other)", tied.join(" or "))
    };
    Some([
        format!("Corruption detection, {label} payloads"),
        use_,
        if snap.find(id.group, "sum", id.parameter).is_some() {
            // Every read row sums the payload it is handed, so the throughputs compare.
            format!(
                "`{}` read at {label}, every payload byte summed: {} with `{}` ({} per frame), \
                 {} with no checksum ({} per frame)",
                id.group,
                rate(best),
                best.function.trim_start_matches("read-"),
                time(best.ns),
                rate(none),
                time(none.ns)
            )
        } else {
            // A snapshot from before the read rows summed their payloads: reading without a
            // checksum touched no payload byte, so only its time per frame compares.
            format!(
                "`{}` read at {label}: {} with `{}` ({} per frame), {} per frame with no \
                 checksum",
                id.group,
                rate(best),
                best.function.trim_start_matches("read-"),
                time(best.ns),
                time(none.ns)
            )
        },
    ])
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::snapshot::Throughput;

    fn with_sweep_row(snap: &mut Snapshot, function: &str, ns: f64) {
        snap.benches.push(Bench {
            id: format!("size_sweep/{function}/256"),
            group: "size_sweep".to_owned(),
            function: function.to_owned(),
            parameter: "256".to_owned(),
            ns,
            ns_lower: ns,
            ns_upper: ns,
            throughput: Some(Throughput::Bytes(256)),
        });
    }

    #[test]
    fn checksum_rows_compare_rates_only_when_the_reads_summed_their_payloads() {
        let mut snap = sample();
        snap.benches.retain(|b| b.id != "size_sweep/read-none/256");
        with_sweep_row(&mut snap, "read-none", 10.0);
        with_sweep_row(&mut snap, "read-crc32", 20.0);
        let [_, use_, evidence] = checksum(&snap, ids::SWEEP_SMALL).unwrap();
        assert_eq!(use_, "`crc32`");
        assert_eq!(
            evidence,
            "`size_sweep` read at 256 B: 11.9 GiB/s with `crc32` (20.0 ns per frame), 10.0 ns \
             per frame with no checksum"
        );
        with_sweep_row(&mut snap, "sum", 5.0);
        let [_, _, evidence] = checksum(&snap, ids::SWEEP_SMALL).unwrap();
        assert_eq!(
            evidence,
            "`size_sweep` read at 256 B, every payload byte summed: 11.9 GiB/s with `crc32` \
             (20.0 ns per frame), 23.8 GiB/s with no checksum (10.0 ns per frame)"
        );
    }
}
