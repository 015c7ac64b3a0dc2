//! The sentences of the report: the fixed text of `docs/benchmarks.md` (the method, why the
//! peers can be faster on the headline, how to reproduce), and the paragraphs written around the
//! snapshot's figures (the verdict on the headline, the introduction of the core targets).

use crate::format::{ratio, time};
use crate::ids;
use crate::snapshot::{Bench, Ratio, Snapshot};
use std::fmt::Write;

/// The opening paragraph of `docs/benchmarks.md`.
pub(crate) const INTRO: &str = "\
Every figure on this page comes from `cargo xtask bench-report` on the machine below (one run, \
or one run and a suite run again with `--only`, as the mode row says), stored in \
[`benches/snapshot.json`](../benches/snapshot.json); the tables, the README summary and the chart \
are rendered from that file.

";

/// How to read the tables of "All results".
pub(crate) const RESULTS_KEY: &str = "\
Time per iteration is criterion's estimate (the slope of its linear sampling, or the mean) ± half \
its 95 % confidence interval. Within each table rows are ranked fastest first (grouped by \
operation when ids have one, as in `write/…`, `read/…`); the ratio is the row's time over its \
baseline's (lower is faster). Allocation columns come from the allocations suite (`–`: not \
measured there).

";

/// How the figures are measured.
pub(crate) const METHOD: &str = "\
## Method

* **Harness.** [criterion](https://docs.rs/criterion) suites in `benches/benches/`, one file per \
suite, stable ids `group/function/parameter` (they are the keys of these tables). The workloads \
live in `benches/src/` and are shared by the timing suites and the allocation suite, so both \
measure the same code.
* **Equal work in the telemetry suite.** Every side, for every message: builds its encoded form \
from the same `Reading` (FlatBuffer via `FlatBufferBuilder`; bincode 2 through serde with \
`config::standard()`; serde_json; a hand-written prost message with `uint64, uint64, double` \
fields), frames it with a length prefix (4 bytes little-endian; prost uses protobuf's own varint \
length delimiter; tokio-util's `LengthDelimitedCodec` is set to 4 bytes little-endian, so its \
bytes equal flatstream's) and appends it to a buffer kept from one iteration to the next. Then \
it finds each frame, decodes it with the library's safe entry point (FlatBuffers through the \
verifier, `flatbuffers::root`; `decode_from_slice`; `from_slice`; `decode_length_delimited`; \
`LengthDelimitedCodec::decode`) and reads all three fields into a running total that is \
compared with the expected total before timing starts. The codec side encodes through \
`Encoder<Bytes>`, copying each payload into an owned `Bytes` first (what a `Sink<Bytes>` takes), \
and that copy shows in the allocation column; its `Encoder<&[u8]>` (tokio-util 0.7.20) copies \
nothing before the destination buffer, and the `tokio_codec` table has both paths.
* **flatstream sides.** `flatstream-<checksum>` writes with `StreamWriter::write` and reads with a \
long-lived `StreamReader` whose source is handed the written bytes (as a socket consumer would); \
`flatstream-frames-none` reads the written `Vec` with the zero-copy `Frames` iterator instead.
* **Allocations** are counted by `flatstream_test_support::alloc::CountingAlloc`, installed as the \
global allocator of `benches/benches/allocations.rs`: each path runs three times to reach its \
steady state, then once counting; the count is divided by the messages (frames) of that run. \
Paths that create their reader or writer per iteration (`read_path/reader-slice-new`, \
`file_io/*`) include that setup, exactly as timed.
* **Warm and cold.** Most figures are steady state: buffers are reused and files are in the page \
cache. The cold costs measured are `telemetry_cold` (every side creates its writer, reader, \
buffers and codec on every iteration), a reader created per batch \
(`read_path/reader-slice-new`), and creating and truncating the file on every `file_io` write. \
A cold page cache (reading from the disk) is not measured: dropping the cache needs privileges \
the benchmark does not use.
* **Quick mode** (`--quick`) uses 0.5 s of warm-up and 1 s of measurement per benchmark instead \
of criterion's 3 s and 5 s (the `core` suite sets 1 s and 3 s itself), so intervals are wider.
* **Noise.** The machine has 2 cores and other work (compilers, fuzzers of other checkouts) may \
run beside the benchmarks; the load average of the run is in the table above. Contention \
inflates the times of a run roughly alike, so compare ratios within a table rather than \
absolute times across runs, and read differences under about 10 % as noise.

";

/// Why the peers can be faster on the headline.
pub(crate) const WHY: &str = "\
### Why the peers can be faster here

The telemetry message is three scalars, always read whole. bincode and protobuf write them as \
a few varint bytes with no structure and parse them straight into a struct. A FlatBuffer of \
the same fields carries a vtable and offsets and is built back to front by \
`FlatBufferBuilder`, and a safe reader runs the FlatBuffers verifier over every message before \
touching a field. FlatBuffers pays these costs to give random access without parsing, which pays \
off when messages are large or nested and readers touch a few fields; this benchmark does not \
exercise that, the [wide-message section](#wide-messages-an-order-book-snapshot) does. What \
flatstream adds on top of FlatBuffers, the framing, is small: see `read_path` (framing only) \
and `core` (flatstream against a hand-written framing loop).

";

/// The commands that produce the figures.
pub(crate) const REPRODUCE: &str = "\
## Reproduce

```text
cargo xtask bench-report            # full run (criterion defaults), then render
cargo xtask bench-report --quick    # shorter measurement, < 20 minutes on 2 cores
cargo xtask bench-report --render   # re-render from benches/snapshot.json only
cargo xtask bench-report --only scaling   # run one suite again, merge it into the snapshot
cargo xtask bench-report --only arrow     # the Arrow conversion and projection suite
cargo xtask bench-report --only sql       # the SQL suite (feature `sql`: DataFusion in release)
cargo xtask bench-report --only schema_verify   # `flatstream verify` with and without --schema
cargo xtask bench-report --only mcap      # `export --to mcap` against `convert`
cargo xtask bench-report --only cluster   # `flatstream query` in one process and on workers (builds the CLI in release)
cargo xtask bench-report --check    # CI: fail if a rendered file is out of date
cargo bench -p flatstream-bench --bench telemetry   # one suite, criterion's own output
cargo test -p flatstream-bench --features sql --bench sql   # the SQL suite once, debug build
```
";

/// One paragraph: who is ahead of flatstream on the headline, plainly.
pub(crate) fn verdict(snap: &Snapshot, rows: &[&Bench]) -> String {
    let Some(fs) = rows.iter().find(|b| b.function == ids::HEADLINE.function) else {
        return String::new();
    };
    let ahead: Vec<&&Bench> = rows
        .iter()
        .filter(|b| b.ns < fs.ns && !b.function.starts_with("flatstream"))
        .collect();
    let behind: Vec<String> = rows
        .iter()
        .filter(|b| b.ns > fs.ns && !b.function.starts_with("flatstream"))
        .map(|b| format!("`{}` ({}× the time)", b.function, ratio(b.ns / fs.ns)))
        .collect();
    let mut s = String::new();
    if ahead.is_empty() {
        let _ = write!(s, "flatstream is ahead of every peer on this cycle.");
    } else {
        let names: Vec<String> = ahead
            .iter()
            .map(|b| format!("`{}` ({}× the time)", b.function, ratio(b.ns / fs.ns)))
            .collect();
        let _ = write!(
            s,
            "**flatstream is not ahead of {} on this cycle.** The cost is in the payload \
             format, not in the framing.{} Building a FlatBuffer (vtable, table, alignment, back \
             to front) and verifying it before reading costs more than writing three numbers as \
             a few bytes and parsing them back.",
            names.join(", "),
            evidence(snap, fs, ahead[0])
        );
    }
    if !behind.is_empty() {
        let _ = write!(s, " It is ahead of {}.", behind.join(", "));
    }
    s
}

/// Where the time goes between flatstream (`fs`) and `peer`, from the write and read halves,
/// the read path and the wire sizes, when present.
fn evidence(snap: &Snapshot, fs: &Bench, peer: &Bench) -> String {
    let half = |id: ids::Id| snap.find(id.group, &peer.function, id.parameter);
    let mut s = String::new();
    if let (Some(fw), Some(pw), Some(fr), Some(pr)) = (
        ids::HEADLINE_WRITE.find(snap),
        half(ids::HEADLINE_WRITE),
        ids::HEADLINE_READ.find(snap),
        half(ids::HEADLINE_READ),
    ) {
        let _ = write!(
            s,
            " Writing takes {} per message for flatstream against {} for `{}`, reading {} \
             against {}",
            time(fw.per_unit()),
            time(pw.per_unit()),
            peer.function,
            time(fr.per_unit()),
            time(pr.per_unit()),
        );
        match ids::FRAMING.find(snap) {
            Some(framing) => {
                let _ = write!(
                    s,
                    "; of flatstream's read, {} per message is framing (`{}`), the rest \
                     is `flatbuffers::root` verifying the payload and reading its fields.",
                    time(framing.per_unit()),
                    ids::FRAMING.group
                );
            }
            None => s.push('.'),
        }
    }
    let wire = |b: &Bench| snap.alloc(&b.id)?.wire_per_message();
    if let (Some(fw), Some(pw)) = (wire(fs), wire(peer)) {
        let _ = write!(
            s,
            " On the wire a message takes {fw:.0} bytes with flatstream (a 4-byte header and \
             the FlatBuffer) against {pw:.0} with `{}` (its length prefix included).",
            peer.function
        );
    }
    s
}

/// The paragraph before the core targets table; `first` is any row (all share their counts).
pub(crate) fn targets(first: &Ratio) -> String {
    format!(
        "The `core/*` targets are ratios of flatstream to a hand-written loop. Two criterion \
         benchmarks are timed seconds apart, and on this shared machine their ratio moves with \
         whatever else the host runs, by 10 % and more from one run to the next. So the `ratios` \
         bench times each pair back to back, the order alternating, {} rounds in each of {} \
         processes (a process's memory layout moves the writer's ratio too). Each cell is the \
         median of the per-round ratios, then the quartiles and, after the semicolon, the lowest \
         and highest median of one process. The functions timed are those of the criterion \
         rows below. Lower is faster; under 1, flatstream was faster than the loop.",
        first.rounds / first.processes.max(1),
        first.processes
    )
}
