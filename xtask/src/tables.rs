//! Markdown tables: for every criterion group one table per parameter (rows ranked fastest
//! first within each operation), a matrix of throughput by parameter, or one flat table; and the
//! headline and core-target tables. What a group compares against is decided in `groups`.

use crate::format::{bytes_label, rate, ratio, si, small, thousands, time};
use crate::groups::{GroupConfig, Layout, baseline_of, config_of, effective};
use crate::ids;
use crate::snapshot::{Bench, Ratio, Snapshot};
use std::collections::BTreeSet;
use std::fmt::Write;

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
            .then(a.per_unit().total_cmp(&b.per_unit()))
    });
    ranked
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

/// The matrix of a group: throughput by function (rows) and parameter (columns), each cell
/// with its time relative to the baseline at that parameter.
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

/// The headline table: every side of the telemetry cycle against flatstream's.
pub(crate) fn headline(s: &mut String, snap: &Snapshot, rows: &[&Bench]) {
    let fs = ids::HEADLINE.function;
    let base = rows.iter().find(|b| b.function == fs);
    let _ = writeln!(
        s,
        "| side | per message | throughput | time vs `{fs}` | bytes on the wire per message | allocations per message |"
    );
    s.push_str("|---|--:|--:|--:|--:|--:|\n");
    for b in rows {
        let ratio = match base {
            Some(x) if x.id == b.id => "**1.00**".to_owned(),
            Some(x) => format!("{}×", ratio(b.ns / x.ns)),
            None => "–".to_owned(),
        };
        let alloc = snap.alloc(&b.id);
        let wire = alloc
            .and_then(|a| a.wire_per_message())
            .map_or("–".to_owned(), |w| format!("{w:.1}"));
        let allocs = alloc.map_or("–".to_owned(), |a| small(a.per_message().0));
        let _ = writeln!(
            s,
            "| `{}` | {} | {} msg/s | {ratio} | {wire} | {allocs} |",
            b.function,
            time(b.per_unit()),
            si(b.per_second()),
        );
    }
    s.push('\n');
}

/// The core targets table, from the paired timing of the `ratios` bench: one row per side, one
/// column per group, each cell the median ratio with its quartiles.
pub(crate) fn targets(s: &mut String, ratios: &[Ratio]) {
    let mut groups: Vec<&str> = Vec::new();
    let mut sides: Vec<(&str, &str, Option<f64>)> = Vec::new();
    for r in ratios {
        if !groups.contains(&r.group.as_str()) {
            groups.push(&r.group);
        }
        if !sides.iter().any(|(side, ..)| *side == r.side) {
            sides.push((&r.side, &r.baseline, r.target));
        }
    }
    s.push_str("| side | baseline | target |");
    for g in &groups {
        let _ = write!(s, " `{g}` |");
    }
    s.push_str(" within target |\n|---|---|--:|");
    for _ in &groups {
        s.push_str("--:|");
    }
    s.push_str("---|\n");
    for (side, baseline, target) in &sides {
        let target_cell = target.map_or("–".to_owned(), |t| format!("≤ {t:.1}"));
        let _ = write!(s, "| `{side}` | `{baseline}` | {target_cell} |");
        let (mut within, mut total) = (0, 0);
        for g in &groups {
            match ratios.iter().find(|r| r.group == *g && r.side == *side) {
                Some(r) => {
                    total += 1;
                    if target.is_some_and(|t| r.median <= t) {
                        within += 1;
                    }
                    let _ = write!(
                        s,
                        " {:.2} ({:.2}–{:.2}; {:.2}–{:.2}) |",
                        r.median, r.q1, r.q3, r.lowest, r.highest
                    );
                }
                None => s.push_str(" – |"),
            }
        }
        let verdict = if target.is_some() {
            format!("{within} of {total}")
        } else {
            "–".to_owned()
        };
        let _ = writeln!(s, " {verdict} |");
    }
    s.push('\n');
}
