//! The MCAP section: `export --to mcap`'s speed as a ratio to `convert` of the same capture
//! (the goal: at least 0.5×, zstd on), and the MCAP file's size against the capture's. Its ids
//! are optional: a snapshot without them renders as "not measured yet".

use crate::format::{ratio, si, thousands, time};
use crate::snapshot::{Bench, Snapshot, Throughput};
use std::fmt::Write;

/// The criterion group of `benches/benches/mcap.rs`.
const GROUP: &str = "mcap";
/// Export runs at least this fraction of convert's speed, with zstd (issue 34).
const GOAL: f64 = 0.5;
/// The export sides: the function, the compression, and whether the goal applies.
const SIDES: [(&str, &str, bool); 3] = [
    ("export-zstd", "zstd", true),
    ("export-lz4", "lz4", false),
    ("export-none", "none", false),
];

fn bytes(b: &Bench) -> Option<u64> {
    match b.throughput {
        Some(Throughput::Bytes(n)) => Some(n),
        _ => None,
    }
}

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    s.push_str(
        "## MCAP export against `convert`\n\n\
         What `flatstream export --to mcap` does with a capture after reading it, against what \
         `flatstream convert` does with the same capture (the demo's telemetry readings, \
         XXH3-64-framed, in memory; `benches/benches/mcap.rs`): `convert` verifies every \
         frame's checksum and frames each payload again with XXH3-64; the export verifies every \
         checksum, verifies each payload against `examples/telemetry.bfbs` and writes it as an \
         MCAP message (flatstream-mcap's `Exporter`, times from the frame's index) in chunks \
         compressed with zstd (level -1, the default) or lz4 while the next chunks fill (on a \
         thread per core but one, and on the filling thread when those are busy: one and one \
         here), or stored. Speed is `convert`'s time over the export's \
         (1.00× would be as fast as `convert`); the goal is at least ",
    );
    let _ = write!(s, "{GOAL}× with zstd.\n\n");
    let convert = snap
        .benches
        .iter()
        .find(|b| b.group == GROUP && b.function == "convert");
    let Some(convert) = convert else {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{GROUP}/…` ids (`cargo xtask bench-report \
             --only mcap` measures them).\n"
        );
        return;
    };
    let capture = bytes(convert).unwrap_or(0);
    let _ = writeln!(
        s,
        "Capture: {} frames, {}B; `convert`: {}.\n",
        thousands(&convert.parameter),
        si(capture as f64),
        time(convert.ns)
    );
    s.push_str(
        "| chunks | export | speed against `convert` | goal | goal met | MCAP file | against the capture |\n\
         |---|--:|--:|--:|---|--:|--:|\n",
    );
    for (function, chunks, judged) in SIDES {
        let Some(b) = snap.find(GROUP, function, &convert.parameter) else {
            continue;
        };
        let speed = convert.ns / b.ns;
        let (goal, met) = if judged {
            let met = if speed >= GOAL { "yes" } else { "**no**" };
            (format!("≥ {GOAL}×"), met)
        } else {
            ("–".to_owned(), "–")
        };
        let (size, against) = match bytes(b) {
            Some(n) if capture > 0 => (
                format!("{}B", si(n as f64)),
                format!("{}×", ratio(n as f64 / capture as f64)),
            ),
            _ => ("–".to_owned(), "–".to_owned()),
        };
        let _ = writeln!(
            s,
            "| {chunks} | {} | {}× | {goal} | {met} | {size} | {against} |",
            time(b.ns),
            ratio(speed),
        );
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;

    fn with(snap: &mut Snapshot, function: &str, ns: f64, bytes: u64) {
        snap.benches.push(Bench {
            id: format!("{GROUP}/{function}/1000000"),
            group: GROUP.to_owned(),
            function: function.to_owned(),
            parameter: "1000000".to_owned(),
            ns,
            ns_lower: ns,
            ns_upper: ns,
            throughput: Some(Throughput::Bytes(bytes)),
        });
    }

    fn rendered(snap: &Snapshot) -> String {
        let mut s = String::new();
        section(&mut s, snap);
        s
    }

    #[test]
    fn without_the_suite_the_section_says_how_to_measure_it() {
        let s = rendered(&sample());
        assert!(s.contains("Not measured yet"), "{s}");
        assert!(s.contains("--only mcap"), "{s}");
    }

    #[test]
    fn speed_is_convert_over_export_and_sizes_are_the_file_against_the_capture() {
        let mut snap = sample();
        with(&mut snap, "convert", 10.0e6, 60_000_000);
        with(&mut snap, "export-zstd", 40.0e6, 15_000_000);
        with(&mut snap, "export-none", 16.0e6, 66_000_000);
        let s = rendered(&snap);
        assert!(
            s.contains("Capture: 1 000 000 frames, 60.0 MB; `convert`: 10.0 ms."),
            "{s}"
        );
        assert!(
            s.contains("| zstd | 40.0 ms | 0.25× | ≥ 0.5× | **no** | 15.0 MB | 0.25× |"),
            "{s}"
        );
        assert!(
            s.contains("| none | 16.0 ms | 0.62× | – | – | 66.0 MB | 1.10× |"),
            "{s}"
        );
    }
}
