//! The fixed text of `docs/benchmarks.md`: the method, why the peers can be faster on the
//! headline, and how to reproduce. Figures never appear here; they come from the snapshot.

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
compared with the expected total before timing starts. The codec's encoder takes an owned \
`Bytes`, so it copies each payload into one: that is its API, and it shows in the allocation \
column.
* **flatstream sides.** `flatstream-<checksum>` writes with `StreamWriter::write` and reads with a \
long-lived `StreamReader` whose source is handed the written bytes (as a socket consumer would); \
`flatstream-frames-none` reads the written `Vec` with the zero-copy `Frames` iterator instead.
* **Allocations** are counted by `flatstream_bench::alloc::CountingAlloc`, installed as the \
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

pub(crate) const WHY: &str = "\
### Why the peers can be faster here

The telemetry message is three scalars, always read whole. bincode and protobuf write them as \
a few varint bytes with no structure and parse them straight into a struct. A FlatBuffer of \
the same fields carries a vtable and offsets and is built back to front by \
`FlatBufferBuilder`, and a safe reader runs the FlatBuffers verifier over every message before \
touching a field. FlatBuffers pays these costs to give random access without parsing, which pays \
off when messages are large or nested and readers touch a few fields; this benchmark does not \
exercise that. What flatstream adds on top of FlatBuffers, the framing, is small: see \
`read_path` (framing only) and `core` (flatstream against a hand-written framing loop).

";

pub(crate) const REPRODUCE: &str = "\
## Reproduce

```text
cargo xtask bench-report            # full run (criterion defaults), then render
cargo xtask bench-report --quick    # shorter measurement, < 20 minutes on 2 cores
cargo xtask bench-report --render   # re-render from benches/snapshot.json only
cargo xtask bench-report --check    # CI: fail if a rendered file is out of date
cargo bench -p flatstream-bench --bench telemetry   # one suite, criterion's own output
```
";
