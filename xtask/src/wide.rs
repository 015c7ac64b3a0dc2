//! The wide-message section of the report (the `wide` suite: an order-book snapshot read
//! selectively and whole, and written, by flatstream and each peer), and its rows of "Which to
//! choose". Every sentence is written from the snapshot's figures; while the snapshot lacks
//! them, the section and the rows say "not measured yet" (these ids are not required by `ids`).

use crate::format::{ratio, small, time};
use crate::snapshot::{Bench, Snapshot};
use std::fmt::Write;

/// The parameter of every `wide_*` id: messages per iteration.
const PARAMETER: &str = "10000";
/// Reading the best bid and ask of every message.
const SELECTIVE: &str = "wide_selective";
/// Reading every field of every message.
const WHOLE: &str = "wide_whole";
/// Encoding and framing every message.
const WRITE: &str = "wide_write";
/// flatstream with the FlatBuffers verifier: the side every other is compared with.
const VERIFIED: &str = "flatstream-verified";
/// flatstream over an XXH3-64-checksummed stream, without verification.
const UNCHECKED: &str = "flatstream-unchecked";
/// The same payloads read with planus.
const PLANUS: &str = "planus";
/// The peers the crossover is stated against.
const PEERS: [&str; 2] = ["bincode", "prost"];

/// Every read side in the table's order, with the write side that wrote the bytes it reads
/// (planus's row shows planus's own writing; its read takes the bytes `flatstream` wrote).
const SIDES: [(&str, &str); 6] = [
    (VERIFIED, "flatstream"),
    (UNCHECKED, "flatstream-xxhash64"),
    (PLANUS, "planus"),
    ("bincode", "bincode"),
    ("prost", "prost"),
    ("serde_json", "serde_json"),
];

/// The section's fixed introduction.
const INTRO: &str = "\
The headline's three scalars are FlatBuffers' weakest case. Here every message is a market-data \
order-book snapshot ([`benches/schemas/orderbook.fbs`](../benches/schemas/orderbook.fbs)): a \
timestamp, a sequence number, the instrument's symbol and the ten best bid and ask levels, each \
a price and a size (43 values). Each side writes 10 000 snapshots into a reused buffer, then \
reads them back twice: *selective* reads the best bid and ask (the four values a quoting or \
monitoring application reads), *whole* reads every field. Sums of what each side read are \
checked against the messages before timing starts.

* `flatstream-verified`: `Frames` over the buffer, each payload verified by the FlatBuffers \
verifier (`process_typed`), then the fields read in place.
* `flatstream-unchecked`: the same messages framed with an XXH3-64 checksum; every frame's \
checksum is checked and the payload is read without verification (`process_typed_unchecked`, \
the `unchecked` feature: for streams you wrote and trust).
* `planus`: the payloads `flatstream-verified` reads (the same bytes), read with \
[planus](https://docs.rs/planus) 1.3, a second FlatBuffers implementation whose accessors check \
bounds as they read instead of verifying the buffer first. Its write row is planus's own \
builder.
* `bincode`, `prost`, `serde_json`: each message decoded whole by the library's safe decoder \
into its struct (a `String` and two `Vec`s allocated per message), then the fields read. prost \
writes from its own message structs, built before timing, as a prost application holds its \
data; the others write from the same Rust struct.

";

/// The figures of `function` in `group`.
fn find<'a>(snap: &'a Snapshot, group: &str, function: &str) -> Option<&'a Bench> {
    snap.find(group, function, PARAMETER)
}

/// Whether the snapshot holds any wide benchmark.
fn measured(snap: &Snapshot) -> bool {
    snap.benches
        .iter()
        .any(|b| [SELECTIVE, WHOLE, WRITE].contains(&b.group.as_str()))
}

/// Appends the section to `s`.
pub(crate) fn section(s: &mut String, snap: &Snapshot) {
    s.push_str("## Wide messages: an order-book snapshot\n\n");
    s.push_str(INTRO);
    if !measured(snap) {
        let _ = writeln!(
            s,
            "Not measured yet: the snapshot has no `{SELECTIVE}`, `{WHOLE}` or `{WRITE}` \
             benchmarks (`cargo xtask bench-report` runs them).\n"
        );
        return;
    }
    let _ = writeln!(
        s,
        "| side | selective read per message | time vs `{VERIFIED}` | whole read per message | \
         time vs `{VERIFIED}` | allocations per message read | write per message | bytes on \
         the wire per message |"
    );
    s.push_str("|---|--:|--:|--:|--:|--:|--:|--:|\n");
    for (read, write) in SIDES {
        let mut row = format!("| `{read}` |");
        for group in [SELECTIVE, WHOLE] {
            let b = find(snap, group, read);
            let base = find(snap, group, VERIFIED);
            let vs = match (b, base) {
                (Some(b), Some(base)) if b.id == base.id => "**1.00**".to_owned(),
                (Some(b), Some(base)) => format!("{}×", ratio(b.ns / base.ns)),
                _ => "–".to_owned(),
            };
            let _ = write!(row, " {} | {vs} |", per_message(b));
        }
        let allocs = find(snap, SELECTIVE, read)
            .and_then(|b| snap.alloc(&b.id))
            .map_or("–".to_owned(), |a| small(a.per_message().0));
        let w = find(snap, WRITE, write);
        let wire = w
            .and_then(|b| snap.alloc(&b.id)?.wire_per_message())
            .map_or("–".to_owned(), |x| format!("{x:.0}"));
        let writer = if write == read {
            String::new()
        } else {
            format!(" (`{write}`)")
        };
        let _ = writeln!(row, " {allocs} | {}{writer} | {wire} |", per_message(w));
        s.push_str(&row);
    }
    s.push('\n');
    if let Some(p) = crossover(snap) {
        let _ = writeln!(s, "{p}\n");
    }
}

/// Time per message of `b`, or `–`.
fn per_message(b: Option<&Bench>) -> String {
    b.map_or("–".to_owned(), |b| time(b.per_unit()))
}

/// `2.50× faster than `bincode` (200 ns)`, or `1.30× slower than …`: `ns` against `peer`.
fn against(ns: f64, peer: &Bench) -> String {
    let (r, word) = if peer.ns >= ns {
        (peer.ns / ns, "faster")
    } else {
        (ns / peer.ns, "slower")
    };
    format!(
        "{}× {word} than `{}` ({})",
        ratio(r),
        peer.function,
        time(peer.per_unit())
    )
}

/// The paragraph stating where flatstream is ahead and where not: both reads against bincode
/// and prost, the crossover between them, and what verification costs. `None` without the
/// verified side's two reads.
pub(crate) fn crossover(snap: &Snapshot) -> Option<String> {
    let (vs, vw) = (
        find(snap, SELECTIVE, VERIFIED)?,
        find(snap, WHOLE, VERIFIED)?,
    );
    let peers =
        |group| -> Vec<&Bench> { PEERS.iter().filter_map(|p| find(snap, group, p)).collect() };
    let (ps, pw) = (peers(SELECTIVE), peers(WHOLE));
    let list = |ns: f64, peers: &[&Bench]| -> String {
        peers
            .iter()
            .map(|p| against(ns, p))
            .collect::<Vec<_>>()
            .join(" and ")
    };
    let mut s = String::new();
    let _ = write!(
        s,
        "Reading the best bid and ask, flatstream with verification takes {} per message",
        time(vs.per_unit())
    );
    if !ps.is_empty() {
        let _ = write!(s, ": {}", list(vs.ns, &ps));
    }
    let _ = write!(s, ". Reading every field it takes {}", time(vw.per_unit()));
    if !pw.is_empty() {
        let _ = write!(s, ": {}", list(vw.ns, &pw));
    }
    s.push('.');
    let ahead_selective = !ps.is_empty() && ps.iter().all(|p| vs.ns < p.ns);
    let ahead_whole = !pw.is_empty() && pw.iter().all(|p| vw.ns < p.ns);
    match (ahead_selective, ahead_whole) {
        (true, true) => {
            let _ = write!(
                s,
                " So there is no crossover between these two reads: flatstream stays ahead even \
                 when every field is read, because the peers decode the whole message (and \
                 allocate its strings and lists) on either read, while flatstream's time grows \
                 only with the fields it reads ({} → {}).",
                time(vs.per_unit()),
                time(vw.per_unit())
            );
        }
        (true, false) => {
            let faster: Vec<String> = pw
                .iter()
                .filter(|p| p.ns <= vw.ns)
                .map(|p| format!("`{}`", p.function))
                .collect();
            let _ = write!(
                s,
                " The crossover lies between these two reads: flatstream is the faster choice \
                 when an application reads a few fields of each message, {} when it reads them \
                 all.",
                faster.join(" or ")
            );
        }
        (false, _) if !ps.is_empty() => {
            s.push_str(" flatstream with verification is not ahead of every peer even on the selective read.");
        }
        _ => {}
    }
    if let (Some(us), Some(uw)) = (
        find(snap, SELECTIVE, UNCHECKED),
        find(snap, WHOLE, UNCHECKED),
    ) {
        let _ = write!(
            s,
            " Verification is what the verified read spends most on when few fields are read: \
             over a trusted stream checked by its XXH3-64 checksums instead \
             (`{UNCHECKED}`), the two reads take {} and {}",
            time(us.per_unit()),
            time(uw.per_unit())
        );
        if let (Some(ls), Some(lw)) = (find(snap, SELECTIVE, PLANUS), find(snap, WHOLE, PLANUS)) {
            let _ = write!(
                s,
                "; planus, safe without a verifier because its accessors check bounds as they \
                 read, takes {} and {}",
                time(ls.per_unit()),
                time(lw.per_unit())
            );
        }
        s.push('.');
    }
    Some(s)
}

/// The fastest of `functions` in `group`.
fn fastest<'a>(snap: &'a Snapshot, group: &str, functions: &[&str]) -> Option<&'a Bench> {
    functions
        .iter()
        .filter_map(|f| find(snap, group, f))
        .min_by(|a, b| a.ns.total_cmp(&b.ns))
}

/// The rows of "Which to choose" for wide messages: `[you have, use, evidence]`.
pub(crate) fn choose_rows(snap: &Snapshot) -> Vec<[String; 3]> {
    let situations = [
        (SELECTIVE, "Wide messages (many fields), a few fields read"),
        (WHOLE, "Wide messages, every field read"),
    ];
    let mut rows = Vec::new();
    for (group, situation) in situations {
        let all: Vec<&str> = SIDES.iter().map(|(read, _)| *read).collect();
        // The choice among safe reads: the unchecked side needs a trusted stream.
        let safe: Vec<&str> = all.iter().copied().filter(|f| *f != UNCHECKED).collect();
        let (Some(best), Some(verified)) =
            (fastest(snap, group, &safe), find(snap, group, VERIFIED))
        else {
            rows.push([
                situation.to_owned(),
                "not measured yet".to_owned(),
                format!("the snapshot has no `{group}` benchmarks"),
            ]);
            continue;
        };
        let use_ = match best.function.as_str() {
            VERIFIED => {
                "flatstream, fields read in place after verification (`process_typed`)".to_owned()
            }
            PLANUS => "flatstream frames, payloads read with planus (bounds checked as it reads; \
                       or `process_typed` to verify first)"
                .to_owned(),
            other => format!("`{other}` framed by length"),
        };
        let mut evidence = format!(
            "`{group}`: {} per message for `{VERIFIED}`",
            time(verified.per_unit())
        );
        for f in [PLANUS, UNCHECKED, "bincode", "prost"] {
            if let Some(b) = find(snap, group, f) {
                let _ = write!(evidence, ", {} for `{f}`", time(b.per_unit()));
            }
        }
        rows.push([situation.to_owned(), use_, evidence]);
    }
    rows
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fixture::sample;
    use crate::snapshot::{Alloc, Throughput};

    /// `sample()` with the wide groups at the given nanoseconds per message (`None`: absent).
    fn with_wide(selective: [f64; 6], whole: [f64; 6]) -> Snapshot {
        let mut snap = sample();
        let n: u64 = PARAMETER.parse().unwrap();
        let mut add = |group: &str, function: &str, ns_per_msg: f64| {
            let ns = ns_per_msg * n as f64;
            let id = format!("{group}/{function}/{PARAMETER}");
            snap.benches.push(Bench {
                id: id.clone(),
                group: group.to_owned(),
                function: function.to_owned(),
                parameter: PARAMETER.to_owned(),
                ns,
                ns_lower: ns * 0.99,
                ns_upper: ns * 1.01,
                throughput: Some(Throughput::Elements(n)),
            });
            id
        };
        for (i, (read, write)) in SIDES.iter().enumerate() {
            add(SELECTIVE, read, selective[i]);
            add(WHOLE, read, whole[i]);
            let id = add(WRITE, write, 100.0);
            snap.allocs.push(Alloc {
                id,
                messages: n,
                allocations: 0,
                bytes: 0,
                wire_bytes: Some(n * 400),
            });
        }
        snap
    }

    #[test]
    fn without_figures_the_section_and_rows_say_not_measured_yet() {
        let snap = sample();
        let mut s = String::new();
        section(&mut s, &snap);
        assert!(
            s.contains("Not measured yet: the snapshot has no `wide_selective`"),
            "{s}"
        );
        assert!(crossover(&snap).is_none());
        let rows = choose_rows(&snap);
        assert_eq!(rows.len(), 2);
        assert!(rows.iter().all(|r| r[1] == "not measured yet"));
    }

    #[test]
    fn ahead_on_both_reads_says_there_is_no_crossover() {
        let snap = with_wide(
            [80.0, 28.0, 27.0, 346.0, 767.0, 1594.0],
            [103.0, 42.0, 41.0, 390.0, 960.0, 2344.0],
        );
        let p = crossover(&snap).unwrap();
        assert!(
            p.starts_with(
                "Reading the best bid and ask, flatstream with verification takes 80.0 ns per \
                 message: 4.33× faster than `bincode` (346 ns) and 9.59× faster than `prost` \
                 (767 ns). Reading every field it takes 103 ns: 3.79× faster than `bincode`"
            ),
            "{p}"
        );
        assert!(p.contains("no crossover between these two reads"), "{p}");
        assert!(p.contains("(`flatstream-unchecked`), the two reads take 28.0 ns and 42.0 ns"));
        assert!(p.contains("planus, safe without a verifier"), "{p}");
        let rows = choose_rows(&snap);
        assert!(rows[0][1].contains("planus"), "{:?}", rows[0]);
        assert!(rows[0][2].starts_with("`wide_selective`: 80.0 ns per message for"));
    }

    #[test]
    fn a_peer_ahead_on_the_whole_read_is_the_crossover() {
        let snap = with_wide(
            [80.0, 28.0, 90.0, 346.0, 767.0, 1594.0],
            [500.0, 42.0, 600.0, 390.0, 960.0, 2344.0],
        );
        let p = crossover(&snap).unwrap();
        assert!(p.contains("1.28× slower than `bincode` (390 ns)"), "{p}");
        assert!(
            p.contains(
                "flatstream is the faster choice when an application reads a few fields of \
                 each message, `bincode` when it reads them all."
            ),
            "{p}"
        );
        let rows = choose_rows(&snap);
        assert!(rows[0][1].contains("`process_typed`"), "{:?}", rows[0]);
        assert_eq!(rows[1][1], "`bincode` framed by length");
    }

    #[test]
    fn the_table_shows_every_side_with_its_writer() {
        let snap = with_wide(
            [80.0, 28.0, 27.0, 346.0, 767.0, 1594.0],
            [103.0, 42.0, 41.0, 390.0, 960.0, 2344.0],
        );
        let mut s = String::new();
        section(&mut s, &snap);
        assert!(
            s.contains(
                "| `flatstream-verified` | 80.0 ns | **1.00** | 103 ns | **1.00** | – | 100 ns \
             (`flatstream`) | 400 |"
            ),
            "{s}"
        );
        assert!(s.contains("| `bincode` | 346 ns | 4.33× | 390 ns | 3.79× | – | 100 ns | 400 |"));
    }
}
