//! The `verify --schema` section: for each capture of the `schema_verify` suite, plain
//! `flatstream verify`, `verify --schema` with flatstream-reflect's compiled verifier and, as
//! before it, with `flatbuffers-reflection`'s, and each schema side's time over the plain
//! side's against the target. Its ids are optional: a snapshot without them renders as "not
//! measured yet".

use crate::format::{frames_and_bytes, ratio, time};
use crate::snapshot::{Bench, Snapshot};
use std::fmt::Write;

/// The criterion group of `benches/benches/schema_verify.rs`.
const GROUP: &str = "schema_verify";
/// `verify --schema` takes at most this many times the time of plain `verify` (issue 32).
const TARGET: f64 = 8.0;
/// The captures, in the table's order: the function prefix and what the capture holds.
const CAPTURES: [(&str, &str); 2] = [
    (
        "telemetry",
        "the demo's telemetry readings (the file `cargo run --release --example telemetry -- \
         1000000 PATH` writes; `examples/telemetry.fbs`: three scalars)",
    ),
    (
        "log",
        "log lines (`benches/schemas/log.fbs`, the fields of Foxglove's `Log`: a timestamp, \
         a level, three strings and a line number)",
    ),
];

/// The three rows of one capture, at the same parameter.
struct Sides<'a> {
    plain: &'a Bench,
    compiled: &'a Bench,
    reflection: Option<&'a Bench>,
}

/// The rows of `capture` in the snapshot: plain and compiled, at least.
fn sides<'a>(snap: &'a Snapshot, capture: &str) -> Option<Sides<'a>> {
    let plain_id = format!("{capture}/plain");
    let plain = snap
        .benches
        .iter()
        .find(|b| b.group == GROUP && b.function == plain_id)?;
    let find = |side: &str| snap.find(GROUP, &format!("{capture}/{side}"), &plain.parameter);
    Some(Sides {
        plain,
        compiled: find("compiled")?,
        reflection: find("reflection"),
    })
}

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    let _ = write!(
        s,
        "## `verify --schema` against plain `verify`\n\n\
         What checking every payload against its schema costs in `flatstream verify`, on the \
         same capture file: plain `verify` (every frame's XXH3-64 checksum), `verify --schema` \
         (every checksum, then every payload verified against the `.bfbs` by \
         flatstream-reflect's compiled verifier, the command now), and `verify --schema` as \
         the command ran it before that verifier (every payload through \
         `flatbuffers-reflection`'s `SafeBuffer`, default limits). Each side does what the \
         command does with its defaults (`benches/src/verify/`, through the library calls of \
         `crates/flatstream-cli/src/commands/verify/`): it maps the file, detects its framing, \
         and verifies it on a new rayon pool of one thread per core ({} here), as the command \
         does for a file of 16 MiB or more; the schema is loaded once, before timing. Starting \
         the process is left out on every side: a timing of the whole command, which adds the \
         same start to both, gives smaller ratios. The ratio is the schema side's time over plain `verify`'s (criterion rows timed one after \
         the other, not paired); the target is at most {TARGET}×.\n\n",
        snap.cores
    );
    let rows: Vec<(&str, Sides<'_>)> = CAPTURES
        .iter()
        .filter_map(|&(capture, what)| Some((what, sides(snap, capture)?)))
        .collect();
    if rows.is_empty() {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{GROUP}/…` ids (`cargo xtask bench-report \
             --only schema_verify` measures them).\n"
        );
        return;
    }
    s.push_str(
        "| capture | frames, file | `verify` | `verify --schema` | ratio | target | target met \
         | `verify --schema` before | ratio before |\n\
         |---|---|--:|--:|--:|--:|---|--:|--:|\n",
    );
    for (what, sides) in rows {
        let r = sides.compiled.ns / sides.plain.ns;
        let met = if r <= TARGET { "yes" } else { "**no**" };
        let (before, before_ratio) = match sides.reflection {
            Some(b) => (time(b.ns), format!("{}×", ratio(b.ns / sides.plain.ns))),
            None => ("–".to_owned(), "–".to_owned()),
        };
        let _ = writeln!(
            s,
            "| {what} | {} | {} | {} | {}× | ≤ {TARGET} | {met} | {before} | {before_ratio} |",
            frames_and_bytes(sides.plain),
            time(sides.plain.ns),
            time(sides.compiled.ns),
            ratio(r),
        );
    }
    s.push('\n');
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::snapshot::Throughput;

    fn with(snap: &mut Snapshot, function: &str, parameter: &str, ns: f64, bytes: u64) {
        snap.benches.push(Bench {
            id: format!("{GROUP}/{function}/{parameter}"),
            group: GROUP.to_owned(),
            function: function.to_owned(),
            parameter: parameter.to_owned(),
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

    /// The table row whose first cell starts with `capture`.
    fn row<'a>(s: &'a str, capture: &str) -> &'a str {
        s.lines()
            .find(|l| l.starts_with(&format!("| {capture}")))
            .unwrap_or_else(|| panic!("no row for {capture} in {s}"))
    }

    #[test]
    fn without_the_suite_the_section_says_how_to_measure_it() {
        let s = rendered(&sample());
        assert!(s.contains("Not measured yet"), "{s}");
        assert!(s.contains("--only schema_verify"), "{s}");
        assert!(!s.contains("| capture |"), "{s}");
    }

    #[test]
    fn each_capture_has_its_ratio_its_target_and_the_ratio_before() {
        let mut snap = sample();
        with(&mut snap, "telemetry/plain", "1000000", 10.0e6, 60_000_000);
        with(
            &mut snap,
            "telemetry/compiled",
            "1000000",
            34.0e6,
            60_000_000,
        );
        with(
            &mut snap,
            "telemetry/reflection",
            "1000000",
            240.0e6,
            60_000_000,
        );
        with(&mut snap, "log/plain", "300000", 8.0e6, 63_500_000);
        with(&mut snap, "log/compiled", "300000", 72.0e6, 63_500_000);
        with(&mut snap, "log/reflection", "300000", 120.0e6, 63_500_000);
        let s = rendered(&snap);
        assert!(s.contains("one thread per core (2 here)"), "{s}");
        assert!(s.contains("the target is at most 8×"), "{s}");
        let telemetry = row(&s, "the demo's telemetry readings");
        assert!(
            telemetry.ends_with(
                "| 1 000 000 frames, 60.0 MB | 10.0 ms | 34.0 ms | 3.40× | ≤ 8 | yes | 240 ms \
                 | 24.00× |"
            ),
            "{telemetry}"
        );
        let log = row(&s, "log lines");
        assert!(
            log.ends_with(
                "| 300 000 frames, 63.5 MB | 8.00 ms | 72.0 ms | 9.00× | ≤ 8 | **no** | 120 ms \
                 | 15.00× |"
            ),
            "{log}"
        );
    }

    #[test]
    fn a_capture_without_its_rows_is_left_out_and_a_missing_before_is_a_dash() {
        let mut snap = sample();
        with(&mut snap, "log/plain", "300000", 8.0e6, 63_500_000);
        with(&mut snap, "log/compiled", "300000", 16.0e6, 63_500_000);
        // Another parameter's row is not this capture's.
        with(&mut snap, "log/reflection", "1000", 1.0e6, 200_000);
        with(&mut snap, "telemetry/plain", "1000000", 10.0e6, 60_000_000);
        let s = rendered(&snap);
        assert!(!s.contains("| the demo's"), "no compiled row: {s}");
        let log = row(&s, "log lines");
        assert!(log.ends_with("| 2.00× | ≤ 8 | yes | – | – |"), "{log}");
    }
}
