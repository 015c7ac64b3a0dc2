//! Generic Markdown tables for every criterion group: one table per parameter (rows ranked
//! fastest first within each operation), or a matrix of throughput by parameter. A per-group
//! configuration names the baseline the ratio column compares against; groups it does not
//! know are compared with their first benchmark.

use crate::snapshot::{Bench, Snapshot, Throughput};
use std::collections::BTreeSet;
use std::fmt::Write;

/// How a group of benchmarks is presented.
pub(crate) struct GroupConfig {
    /// The criterion group id, or a prefix of ids (`core` matches `core/numeric/100`).
    pub group: &'static str,
    /// Section title.
    pub title: &'static str,
    /// One line: what is measured.
    pub description: &'static str,
    /// The function id every row is compared with. For ids of the form `op/name`, the baseline
    /// of a row is `op/<baseline>` when that exists, so `write/flatstream` is compared with
    /// `write/limit` and `read/slice` with `read/limit`.
    pub baseline: &'static str,
    /// What the parameter counts (`messages`, `payload bytes`, …).
    pub parameter: &'static str,
    /// How the group's benchmarks are laid out.
    pub layout: Layout,
}

/// Table layouts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Layout {
    /// One table per parameter value (a batch size, a payload size).
    PerParameter,
    /// One matrix of throughput: rows are functions, columns are parameter values.
    Matrix,
    /// One table of every `function/parameter`, for groups whose parameter is a variant name.
    Flat,
}

/// The groups we know, in the order the report presents them.
pub(crate) const GROUPS: &[GroupConfig] = &[
    GroupConfig {
        group: "telemetry_cycle",
        title: "Telemetry: write and read back",
        description: "Each side encodes every reading, frames it, appends it to a reused buffer, \
            then finds every frame, decodes it safely and reads its three fields back.",
        baseline: "flatstream-none",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "telemetry_write",
        title: "Telemetry: the write half",
        description: "Encode and frame every reading into a reused buffer.",
        baseline: "flatstream-none",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "telemetry_read",
        title: "Telemetry: the read half",
        description: "Find every frame of the written buffer, decode it safely, read its fields.",
        baseline: "flatstream-none",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "telemetry_cold",
        title: "Telemetry: a cold cycle",
        description: "The same cycle of 100 messages, but each side creates its state (writer, \
            reader, buffers, builder, codec) on every iteration, as a short-lived connection \
            would; allocations include that setup.",
        baseline: "flatstream-none",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "read_path",
        title: "Read path: where the frames come from",
        description: "100 prewritten telemetry frames (no checksum), framing only: each \
            payload's length and first byte are folded in, nothing is decoded.",
        baseline: "frames-slice",
        parameter: "frames",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "size_sweep",
        title: "Payload size sweep",
        description: "One frame per iteration, written into a reused `Vec` or read from a \
            long-lived reader on a rewound `Cursor`; throughput counts payload bytes. \
            `memcpy` copies the same bytes once (`copy_from_slice` into a reused buffer): the \
            cost of touching every payload byte once. Ratios near 1.00 mean the framing costs \
            nothing measurable beyond that copy; a little under 1.00 is within what buffer \
            placement changes.",
        baseline: "memcpy",
        parameter: "payload bytes",
        layout: Layout::Matrix,
    },
    GroupConfig {
        group: "file_io",
        title: "File I/O, warm page cache",
        description: "A 256 MiB stream file written through the OS (no fsync) and read back \
            while it is still in the page cache; throughput counts file bytes. 24-byte payloads \
            are written only through a `BufWriter`: on a raw `File` every frame is a system \
            call, which the 4 KiB rows show (`write-file` uses `with_vectored_writes`, one \
            `writev` per frame).",
        baseline: "write-bufwriter",
        parameter: "payload bytes",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "core",
        title: "Core: flatstream against a hand-written loop",
        description: "flatstream's writer and readers against `limit`, the least code that \
            frames the same bytes (no error handling beyond bounds). `reader_slice`, \
            `reader_cursor` and `reader_new` are `StreamReader` over `&[u8]` and `Cursor`, which \
            it parses in place; `reader_copy` is `StreamReader` over the same bytes behind a \
            `Read` it does not recognize, which it copies through its buffer as from a file or \
            a socket (`limit_copy` is the least such a copy costs); `bufreader_*` rows are \
            `BufStreamReader` over the same bytes taken as a `BufRead`.",
        baseline: "limit",
        parameter: "",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "core/vectored",
        title: "Core: one write or two",
        description: "Writing a frame's header and payload with one vectored write against two \
            writes, into a `Vec`, a `BufWriter` and a raw `File`; throughput counts frame bytes.",
        baseline: "two_writes",
        parameter: "payload bytes",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "checksum",
        title: "Checksums",
        description: "The checksum algorithms alone, and reading frames that carry them.",
        baseline: "none",
        parameter: "",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "adapters",
        title: "Adapters",
        description: "Reader and writer adapters (bounds, observers, validation, reclaiming), \
            each against the bare reader or writer.",
        baseline: "bare",
        parameter: "",
        layout: Layout::Flat,
    },
];

/// The configuration of `group`: configured by exact id or prefix, or generic.
/// The longest configured prefix wins (`core/vectored` over `core`).
pub(crate) fn config_of(group: &str) -> Option<&'static GroupConfig> {
    GROUPS
        .iter()
        .filter(|c| {
            group == c.group
                || group
                    .strip_prefix(c.group)
                    .is_some_and(|rest| rest.starts_with('/'))
        })
        .max_by_key(|c| c.group.len())
}

/// Group ids in report order: configured first (in [`GROUPS`] order), then the rest sorted.
pub(crate) fn ordered_groups(snap: &Snapshot) -> Vec<String> {
    let all: BTreeSet<&str> = snap.benches.iter().map(|b| b.group.as_str()).collect();
    let mut out: Vec<String> = Vec::new();
    for c in GROUPS {
        for g in &all {
            if config_of(g).is_some_and(|x| std::ptr::eq(x, c)) {
                out.push((*g).to_owned());
            }
        }
    }
    for g in &all {
        if config_of(g).is_none() {
            out.push((*g).to_owned());
        }
    }
    out
}

/// Parameters in numeric order when they are numbers, else as text.
fn sorted_params<'a>(rows: impl Iterator<Item = &'a Bench>) -> Vec<String> {
    let mut params: Vec<String> = rows
        .map(|b| b.parameter.clone())
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    params.sort_by(|a, b| match (a.parse::<f64>(), b.parse::<f64>()) {
        (Ok(x), Ok(y)) => x.total_cmp(&y),
        _ => a.cmp(b),
    });
    params
}

/// The operation part of a function id: `write` for `write/limit`, `` for `bincode`.
fn op_of(function: &str) -> &str {
    function.rsplit_once('/').map_or("", |(op, _)| op)
}

/// The baseline of `row` among `rows`. With a configured baseline `B`, the first of these that
/// exists: `op/B` (for `op/name` ids: `write/flatstream` against `write/limit`), `B/name`
/// (`vectored/file` against `two_writes/file`), `B` itself, each with the row's parameter; then
/// the row's function with parameter `B` (`write` of `observer` against `write` of `bare`).
/// Without a configuration: the first row.
pub(crate) fn baseline_of<'a>(
    row: &Bench,
    rows: &[&'a Bench],
    config: Option<&GroupConfig>,
) -> Option<&'a Bench> {
    let Some(c) = config else {
        return rows.first().copied();
    };
    let b = c.baseline;
    let mut functions = Vec::new();
    if let Some((op, name)) = row.function.rsplit_once('/') {
        functions.push(format!("{op}/{b}"));
        functions.push(format!("{b}/{name}"));
    }
    functions.push(b.to_owned());
    functions
        .iter()
        .find_map(|f| {
            rows.iter()
                .find(|x| &x.function == f && x.parameter == row.parameter)
        })
        .or_else(|| {
            rows.iter()
                .find(|x| x.function == row.function && x.parameter == b)
        })
        .copied()
}

/// `config` if its baseline resolves for some row of `rows`, else `None` (compare with the
/// first row, as for an unknown group).
fn effective<'c>(rows: &[&Bench], config: Option<&'c GroupConfig>) -> Option<&'c GroupConfig> {
    config.filter(|_| rows.iter().any(|r| baseline_of(r, rows, config).is_some()))
}

/// Renders the section of `group`; `intro` adds the configured title and description.
pub(crate) fn section(snap: &Snapshot, group: &str, intro: bool) -> String {
    let config = config_of(group);
    let mut rows: Vec<&Bench> = snap.benches.iter().filter(|b| b.group == group).collect();
    // "First" is first in id order, so the choice does not depend on how the snapshot is sorted.
    rows.sort_by(|a, b| a.id.cmp(&b.id));
    let mut out = String::new();
    let _ = writeln!(out, "### `{group}`\n");
    match config {
        Some(c) if intro => {
            let _ = writeln!(out, "{}. {}\n", c.title, c.description);
        }
        Some(_) => {}
        None => out.push_str("Each row against the group's first benchmark in id order.\n\n"),
    }
    let params = sorted_params(rows.iter().copied());
    match config.map_or(Layout::PerParameter, |c| c.layout) {
        Layout::Matrix => matrix(&mut out, snap, config, &rows, &params),
        Layout::Flat => table(&mut out, snap, config, &rows, None),
        Layout::PerParameter => {
            for p in &params {
                let in_param: Vec<&Bench> =
                    rows.iter().copied().filter(|b| &b.parameter == p).collect();
                table(&mut out, snap, config, &in_param, Some(p));
            }
        }
    }
    out
}

/// Rows ranked: by operation, then baseline first, then fastest first.
fn ranked<'a>(rows: &[&'a Bench], config: Option<&GroupConfig>, flat: bool) -> Vec<&'a Bench> {
    let mut ranked = rows.to_vec();
    let is_base = |b: &Bench| baseline_of(b, rows, config).is_some_and(|x| x.id == b.id);
    let op = |b: &'a Bench| {
        if flat {
            b.function.as_str()
        } else {
            op_of(&b.function)
        }
    };
    ranked.sort_by(|a, b| {
        op(a)
            .cmp(op(b))
            .then(is_base(b).cmp(&is_base(a)))
            .then(per_unit(a).total_cmp(&per_unit(b)))
    });
    ranked
}

/// Nanoseconds per message or byte.
fn per_unit(b: &Bench) -> f64 {
    b.ns / b.per_iteration() as f64
}

/// A table of `rows`: those of parameter `p`, or (`None`) all of a flat group.
fn table(
    out: &mut String,
    snap: &Snapshot,
    config: Option<&GroupConfig>,
    rows: &[&Bench],
    p: Option<&str>,
) {
    match (p, config.map_or("", |c| c.parameter)) {
        (None | Some(""), _) => {}
        (Some(p), "") => {
            let _ = writeln!(out, "**{p}**\n");
        }
        (Some(p), what) => {
            let _ = writeln!(out, "**{} {what}**\n", thousands(p));
        }
    }
    let config = effective(rows, config);
    let with_allocs = rows.iter().any(|b| snap.alloc(&b.id).is_some());
    let base_name = config.map_or_else(|| label(rows[0], p.is_none()), |c| c.baseline.to_owned());
    let _ = write!(
        out,
        "| benchmark | time per iteration | throughput | time vs `{base_name}` |"
    );
    if with_allocs {
        out.push_str(" allocations per message | bytes allocated per message |");
    }
    out.push_str("\n|---|--:|--:|--:|");
    if with_allocs {
        out.push_str("--:|--:|");
    }
    out.push('\n');
    for b in ranked(rows, config, p.is_none()) {
        let ratio = match baseline_of(b, rows, config) {
            Some(base) if base.id == b.id => "**1.00** (baseline)".to_owned(),
            Some(base) => format!("{}×", ratio(b.ns / base.ns)),
            None => "–".to_owned(),
        };
        let _ = write!(
            out,
            "| `{}` | {} ± {} | {} | {ratio} |",
            label(b, p.is_none()),
            time(b.ns),
            time((b.ns_upper - b.ns_lower) / 2.0),
            rate(b)
        );
        if with_allocs {
            match snap.alloc(&b.id) {
                Some(a) => {
                    let (n, bytes) = a.per_message();
                    let _ = write!(out, " {} | {} |", small(n), small(bytes));
                }
                None => out.push_str(" – | – |"),
            }
        }
        out.push('\n');
    }
    out.push('\n');
}

/// How a row is named: its function, or `function/parameter` in a flat table.
fn label(b: &Bench, flat: bool) -> String {
    if flat && !b.parameter.is_empty() {
        format!("{}/{}", b.function, b.parameter)
    } else {
        b.function.clone()
    }
}

fn matrix(
    out: &mut String,
    snap: &Snapshot,
    config: Option<&GroupConfig>,
    rows: &[&Bench],
    params: &[String],
) {
    let what = config.map_or("", |c| c.parameter);
    let base = config.map_or("", |c| c.baseline);
    let _ = writeln!(
        out,
        "Throughput per {what}; in parentheses, time relative to `{base}` at the same size \
         (lower is faster).\n"
    );
    out.push_str("| benchmark |");
    for p in params {
        let _ = write!(out, " {} |", bytes_label(p));
    }
    out.push_str("\n|---|");
    out.push_str(&"--:|".repeat(params.len()));
    out.push('\n');
    let functions: BTreeSet<&str> = rows.iter().map(|b| b.function.as_str()).collect();
    let mut functions: Vec<&str> = functions.into_iter().collect();
    // Baseline first, then by operation, no checksum first within an operation.
    functions.sort_by_key(|f| (*f != base, op_name_key(f)));
    let with_allocs = rows
        .iter()
        .any(|b| snap.alloc(&b.id).is_some_and(|a| a.allocations > 0));
    for f in functions {
        let _ = write!(out, "| `{f}` |");
        for p in params {
            let cell = rows.iter().find(|b| b.function == f && &b.parameter == p);
            let in_param: Vec<&Bench> =
                rows.iter().copied().filter(|b| &b.parameter == p).collect();
            match cell {
                Some(b) => {
                    let ratio = baseline_of(b, &in_param, config)
                        .filter(|x| x.id != b.id)
                        .map(|x| format!(" ({}×)", ratio(b.ns / x.ns)))
                        .unwrap_or_default();
                    let _ = write!(out, " {}{ratio} |", rate(b));
                }
                None => out.push_str(" – |"),
            }
        }
        out.push('\n');
    }
    out.push('\n');
    if !with_allocs && rows.iter().any(|b| snap.alloc(&b.id).is_some()) {
        out.push_str("No path in this table allocates (allocations suite).\n\n");
    }
}

/// Sort key of `op-name` ids: by operation, `none` first, then by name.
fn op_name_key(f: &str) -> (&str, bool, &str) {
    match f.split_once('-') {
        Some((op, name)) => (op, name != "none", name),
        None => (f, false, ""),
    }
}

/// A time in nanoseconds, with three significant digits and a unit.
pub(crate) fn time(ns: f64) -> String {
    let (v, unit) = if ns < 1e3 {
        (ns, "ns")
    } else if ns < 1e6 {
        (ns / 1e3, "µs")
    } else if ns < 1e9 {
        (ns / 1e6, "ms")
    } else {
        (ns / 1e9, "s")
    };
    format!("{} {unit}", sig3(v))
}

/// A time ratio with two decimals; tiny ones are not shown as zero.
pub(crate) fn ratio(r: f64) -> String {
    if r < 0.01 {
        "< 0.01".to_owned()
    } else {
        format!("{r:.2}")
    }
}

/// Three significant digits.
pub(crate) fn sig3(v: f64) -> String {
    if v >= 100.0 {
        format!("{v:.0}")
    } else if v >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

/// Throughput of `b`: messages per second (and time per message), or bytes per second.
pub(crate) fn rate(b: &Bench) -> String {
    let per_sec = b.per_iteration() as f64 / (b.ns / 1e9);
    match b.throughput {
        Some(Throughput::Elements(_)) => {
            format!("{} msg/s ({}/msg)", si(per_sec), time(per_unit(b)))
        }
        Some(Throughput::Bytes(_)) => bytes_per_sec(per_sec),
        None => format!("{}/s", si(per_sec)),
    }
}

pub(crate) fn bytes_per_sec(v: f64) -> String {
    const GIB: f64 = (1u64 << 30) as f64;
    const MIB: f64 = (1u64 << 20) as f64;
    if v >= GIB {
        format!("{} GiB/s", sig3(v / GIB))
    } else {
        format!("{} MiB/s", sig3(v / MIB))
    }
}

/// `12.3 M`, `456 k`.
pub(crate) fn si(v: f64) -> String {
    if v >= 1e9 {
        format!("{} G", sig3(v / 1e9))
    } else if v >= 1e6 {
        format!("{} M", sig3(v / 1e6))
    } else if v >= 1e3 {
        format!("{} k", sig3(v / 1e3))
    } else {
        sig3(v)
    }
}

/// A per-message count: `0` exactly when nothing was allocated.
pub(crate) fn small(v: f64) -> String {
    if v == 0.0 {
        "0".to_owned()
    } else if v < 0.001 {
        "< 0.001".to_owned()
    } else {
        sig3(v)
    }
}

/// `100000` as `100 000`; other text unchanged.
pub(crate) fn thousands(p: &str) -> String {
    if p.is_empty() || !p.bytes().all(|c| c.is_ascii_digit()) {
        return p.to_owned();
    }
    let mut out = String::new();
    for (i, c) in p.chars().enumerate() {
        if i > 0 && (p.len() - i) % 3 == 0 {
            out.push(' ');
        }
        out.push(c);
    }
    out
}

/// `4096` as `4 KiB`, `1048576` as `1 MiB`; other text unchanged.
fn bytes_label(p: &str) -> String {
    match p.parse::<u64>() {
        Ok(n) if n >= 1 << 20 && n % (1 << 20) == 0 => format!("{} MiB", n >> 20),
        Ok(n) if n >= 1 << 10 && n % (1 << 10) == 0 => format!("{} KiB", n >> 10),
        Ok(n) => format!("{n} B"),
        Err(_) => p.to_owned(),
    }
}
