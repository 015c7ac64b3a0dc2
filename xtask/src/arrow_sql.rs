//! The Arrow and SQL section: the targets of the `arrow` and `sql` suites as ratios of two
//! criterion rows each, computed from the snapshot, with the sizes the rows measured.

use crate::format::{ratio, si, thousands, time};
use crate::snapshot::{Bench, Snapshot, Throughput};
use std::fmt::Write;

/// Which way a target bounds its ratio.
#[derive(Debug, Clone, Copy)]
enum Bound {
    AtMost(f64),
    AtLeast(f64),
}

impl Bound {
    fn holds(self, r: f64) -> bool {
        match self {
            Bound::AtMost(t) => r <= t,
            Bound::AtLeast(t) => r >= t,
        }
    }

    fn cell(self) -> String {
        match self {
            Bound::AtMost(t) => format!("≤ {t}"),
            Bound::AtLeast(t) => format!("≥ {t}"),
        }
    }
}

/// One target: the time of `numerator` over the time of `denominator` (criterion functions of
/// `group`, at the same parameter).
struct Target {
    what: &'static str,
    group: &'static str,
    numerator: &'static str,
    denominator: &'static str,
    bound: Option<Bound>,
}

const TARGETS: &[Target] = &[
    Target {
        what: "flatstream-arrow against hand-written builders",
        group: "arrow_convert",
        numerator: "flatstream-arrow",
        denominator: "hand",
        bound: Some(Bound::AtMost(2.0)),
    },
    Target {
        what: "the JSON route against flatstream-arrow",
        group: "arrow_convert",
        numerator: "json",
        denominator: "flatstream-arrow",
        bound: Some(Bound::AtLeast(5.0)),
    },
    Target {
        what: "one field of the 10-field table against all ten",
        group: "arrow_projection",
        numerator: "one",
        denominator: "all",
        bound: Some(Bound::AtMost(0.4)),
    },
    Target {
        what: "NDJSON against flatstream, 1 partition",
        group: "sql",
        numerator: "ndjson-1",
        denominator: "flatstream-1",
        bound: Some(Bound::AtLeast(2.0)),
    },
    Target {
        what: "NDJSON against flatstream, 2 partitions",
        group: "sql",
        numerator: "ndjson-2",
        denominator: "flatstream-2",
        bound: Some(Bound::AtLeast(2.0)),
    },
    Target {
        what: "flatstream, 1 partition against 2",
        group: "sql",
        numerator: "flatstream-1",
        denominator: "flatstream-2",
        bound: Some(Bound::AtLeast(1.7)),
    },
    Target {
        what: "Parquet against flatstream, 1 partition",
        group: "sql",
        numerator: "parquet-1",
        denominator: "flatstream-1",
        bound: None,
    },
    Target {
        what: "Parquet against flatstream, 2 partitions",
        group: "sql",
        numerator: "parquet-2",
        denominator: "flatstream-2",
        bound: None,
    },
];

/// What one row of a group measured: its parameter and, for the SQL rows, the file's bytes.
fn size(b: &Bench) -> String {
    match (b.group.as_str(), b.throughput) {
        ("sql", Some(Throughput::Bytes(n))) => {
            format!("{} rows, {} file", thousands(&b.parameter), mega_bytes(n))
        }
        ("arrow_convert", _) => format!("{} frames", thousands(&b.parameter)),
        (_, _) => format!("{} messages", thousands(&b.parameter)),
    }
}

/// Bytes in decimal megabytes or gigabytes, three significant digits.
fn mega_bytes(n: u64) -> String {
    format!("{}B", si(n as f64))
}

/// The pairs of rows of `t` in the snapshot (one per parameter both have).
fn pairs<'s>(snap: &'s Snapshot, t: &Target) -> Vec<(&'s Bench, &'s Bench)> {
    snap.benches
        .iter()
        .filter(|b| b.group == t.group && b.function == t.numerator)
        .filter_map(|n| {
            snap.find(t.group, t.denominator, &n.parameter)
                .map(|d| (n, d))
        })
        .collect()
}

/// Renders the section.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    s.push_str(
        "## Arrow and SQL\n\n\
         **Conversion** (`arrow_convert`): telemetry frames without checksums into Arrow batches \
         of 8192 rows of `device_id`, `timestamp`, `value`, each frame verified as a FlatBuffer \
         on every side: by flatstream-arrow (a `Plan` of `examples/telemetry.bfbs`), by a \
         hand-written loop of flatc's generated verifier and accessors into `UInt64Builder`s and \
         a `Float64Builder` (the route a user of flatc's code takes by hand; flatstream-arrow's \
         compiled verifier makes the same checks without the error trace flatbuffers' \
         `visit_field` prepares for every field, hence a ratio under 1), and by the JSON route a user has without it: each \
         payload verified with `flatbuffers-reflection` and printed as the line `flatstream cat \
         --schema` prints, the lines decoded by arrow-json into the same batches. \
         **Projection** (`arrow_projection`): 10 000 frames of a 10-field table \
         (`benches/schemas/wide.fbs`) converted with `value` alone and with all ten columns, \
         with flatstream-arrow's default verification: each frame's root table and the fields \
         the projection reads (`Options::verify_unread` verifies the others too). \
         **SQL** (`sql`): `SELECT device_id, count(*), avg(value) FROM t GROUP BY device_id` in \
         DataFusion with `target_partitions` 1 and 2, over the same rows (1 000 devices) as \
         XXH3-framed flatstream read by flatstream-datafusion with the default bound on a \
         frame's length (2 GiB), as NDJSON (the `cat --schema` lines, schema given) and as \
         Parquet (default writer settings). Each ratio is the first row's time over the \
         second's, from the criterion rows below (timed one after the other, not paired).\n\n",
    );
    let rows: Vec<(&Target, Vec<(&Bench, &Bench)>)> =
        TARGETS.iter().map(|t| (t, pairs(snap, t))).collect();
    if rows.iter().all(|(_, p)| p.is_empty()) {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `arrow_convert`, `arrow_projection` or \
             `sql` ids (`cargo xtask bench-report --only arrow` and `--only sql` measure \
             them).\n"
        );
        return;
    }
    s.push_str(
        "| ratio | first row | second row | size | times | target | ratio measured | target met |\n\
         |---|---|---|---|--:|--:|--:|---|\n",
    );
    for (t, pairs) in &rows {
        let target = t.bound.map_or("–".to_owned(), Bound::cell);
        if pairs.is_empty() {
            let _ = writeln!(
                s,
                "| {} | `{}/{}` | `{}/{}` | – | – | {target} | not measured | – |",
                t.what, t.group, t.numerator, t.group, t.denominator
            );
            continue;
        }
        for (n, d) in pairs {
            let r = n.ns / d.ns;
            let met = match t.bound {
                Some(b) if b.holds(r) => "yes",
                Some(_) => "**no**",
                None => "–",
            };
            let sizes = if n.throughput == d.throughput {
                size(n)
            } else {
                format!("{}; {}", size(n), size(d))
            };
            let _ = writeln!(
                s,
                "| {} | `{}` | `{}` | {sizes} | {} / {} | {target} | {}× | {met} |",
                t.what,
                n.id,
                d.id,
                time(n.ns),
                time(d.ns),
                ratio(r)
            );
        }
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;

    fn bench(group: &str, function: &str, parameter: &str, ns: f64, t: Throughput) -> Bench {
        Bench {
            id: format!("{group}/{function}/{parameter}"),
            group: group.to_owned(),
            function: function.to_owned(),
            parameter: parameter.to_owned(),
            ns,
            ns_lower: ns,
            ns_upper: ns,
            throughput: Some(t),
        }
    }

    #[test]
    fn without_the_suites_the_section_says_how_to_measure_them() {
        let mut s = String::new();
        section(&mut s, &sample());
        assert!(s.contains("Not measured yet"), "{s}");
        assert!(!s.contains("| ratio |"));
    }

    #[test]
    fn ratios_come_from_the_rows_and_say_whether_the_target_holds() {
        let mut snap = sample();
        let frames = Throughput::Elements(100_000);
        snap.benches.extend([
            bench("arrow_convert", "flatstream-arrow", "100000", 3.0e6, frames),
            bench("arrow_convert", "hand", "100000", 2.0e6, frames),
            bench("arrow_convert", "json", "100000", 12.0e6, frames),
            bench(
                "sql",
                "flatstream-1",
                "17000000",
                2.0e9,
                Throughput::Bytes(1_020_000_000),
            ),
            bench(
                "sql",
                "flatstream-2",
                "17000000",
                1.6e9,
                Throughput::Bytes(1_020_000_000),
            ),
            bench(
                "sql",
                "ndjson-1",
                "17000000",
                9.0e9,
                Throughput::Bytes(1_300_000_000),
            ),
        ]);
        let mut s = String::new();
        section(&mut s, &snap);
        let row = |what: &str| {
            s.lines()
                .find(|l| l.starts_with(&format!("| {what} |")))
                .unwrap_or_else(|| panic!("no row {what} in {s}"))
                .to_owned()
        };
        let hand = row("flatstream-arrow against hand-written builders");
        assert!(hand.contains("| ≤ 2 | 1.50× | yes |"), "{hand}");
        assert!(hand.contains("| 100 000 frames |"), "{hand}");
        let json = row("the JSON route against flatstream-arrow");
        assert!(json.contains("| ≥ 5 | 4.00× | **no** |"), "{json}");
        let ndjson = row("NDJSON against flatstream, 1 partition");
        assert!(ndjson.contains("| ≥ 2 | 4.50× | yes |"), "{ndjson}");
        assert!(
            ndjson.contains("17 000 000 rows, 1.30 GB file; 17 000 000 rows, 1.02 GB file"),
            "{ndjson}"
        );
        let scaling = row("flatstream, 1 partition against 2");
        assert!(scaling.contains("| ≥ 1.7 | 1.25× | **no** |"), "{scaling}");
        let missing = row("NDJSON against flatstream, 2 partitions");
        assert!(missing.contains("| not measured |"), "{missing}");
    }
}
