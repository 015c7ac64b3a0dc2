//! What each criterion group is and how it is shown: its title, its description, its layout and
//! the baseline its ratio column compares against. Groups not listed here are shown generically,
//! each row against the group's first benchmark.

use crate::snapshot::{Bench, Snapshot};
use std::collections::BTreeSet;

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
        group: "wide_selective",
        title: "Wide messages: selective read",
        description: "10 000 order-book snapshots; each side finds every frame and reads the \
            best bid and ask (four values). See the wide-message section for the sides.",
        baseline: "flatstream-verified",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "wide_whole",
        title: "Wide messages: whole read",
        description: "The same snapshots, every field read.",
        baseline: "flatstream-verified",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "wide_write",
        title: "Wide messages: write",
        description: "Encode and frame every snapshot into a reused buffer.",
        baseline: "flatstream",
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
            long-lived reader on a rewound `Cursor` (parsed in place), every payload byte the \
            reader hands out summed as an application would use it; throughput counts payload \
            bytes. `memcpy` copies the same bytes once (`copy_from_slice` into a reused \
            buffer): the cost of touching every payload byte once; `sum` is the summing \
            alone, without framing, the least any read row can cost. Ratios near 1.00 mean the framing costs nothing measurable beyond \
            that; a little under 1.00 is within what buffer placement changes.",
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
            `BufReadStreamReader` over the same bytes taken as a `BufRead`.",
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
        group: "tokio_codec",
        title: "tokio: the codec against `LengthDelimitedCodec`",
        description: "The 100 000 telemetry frames (no checksum) decoded, each payload verified \
            with `flatbuffers::root` and its fields read, and the readings encoded with a reused \
            builder. `flatstream-codec` is `FrameCodec` (payloads as `Bytes` split from a \
            `BytesMut` filled in untimed setup; encoding from the finished builder into a reused \
            `BytesMut`), `length-delimited` is tokio-util's `LengthDelimitedCodec` with 4-byte \
            little-endian lengths (the same bytes; `encode/length-delimited` goes through its \
            `Encoder<Bytes>`, copying each payload into an owned `Bytes` first, \
            `encode/length-delimited-slice` through its `Encoder<&[u8]>`, which copies nothing \
            before the destination buffer), `sync` is `StreamReader` in place over the same bytes and \
            `StreamWriter` into a reused `Vec`, `sync-bytes` is the sync `BytesFrames` over a \
            `Bytes` holding the same bytes (payloads as `Bytes`, as the codecs hand them out). \
            `bytes-limit` is the least any decoder handing \
            out `Bytes` split from a `BytesMut` pays: a hand-written loop that splits each frame \
            off, steps over its header and drops the payload after the same verification. \
            Each such `Bytes` takes a reference count when split and gives it back when \
            dropped, two atomic read-modify-writes per frame that a borrowed payload does not \
            pay; both codecs and `sync-bytes` pay them. `async-process-all` and `async-read-message` are \
            `AsyncStreamReader` over the same bytes in memory (a `&[u8]` as the `AsyncRead`, \
            copied through the reader's buffer; payloads borrowed) on a current-thread runtime.",
        baseline: "sync",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "tokio_tcp",
        title: "tokio: loopback TCP",
        description: "`AsyncStreamWriter` behind a 64 KiB `BufWriter` → a loopback TCP \
            connection → `AsyncStreamReader`, writing and reading concurrently on a tokio \
            runtime: 100 000 frames of 24 B, 10 000 of 4 KiB per iteration. Throughput counts \
            messages; payload bytes per second are that times the payload size. Allocations \
            count the reading and writing futures, not the runtime's worker thread.",
        baseline: "async",
        parameter: "payload bytes",
        layout: Layout::Flat,
    },
    GroupConfig {
        group: "journal",
        title: "Journals: what each sync policy costs",
        description: "One frame per iteration (no checksum) through a 64 KiB `BufWriter` into a \
            file under the target directory, on the file system named in the machine table \
            (a disk, not a tmpfs); the time is the mean latency of a frame, syncs \
            (`fdatasync`) included. `never` syncs not at all, `every-N` after every N-th \
            frame, `every-1ms` after a frame written at least 1 ms after the last sync.",
        baseline: "never",
        parameter: "payload bytes",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "arrow_convert",
        title: "Arrow: telemetry frames to record batches",
        description: "Every frame verified as a FlatBuffer and its three fields appended to \
            Arrow columns, in batches of 8192 rows: flatstream-arrow, a hand-written loop over \
            flatc's generated code, and `cat --schema` JSON lines through arrow-json. See the \
            Arrow and SQL section.",
        baseline: "hand",
        parameter: "frames",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "arrow_projection",
        title: "Arrow: one field of a 10-field table",
        description: "flatstream-arrow converting 10 000 frames of a 10-field table \
            (`benches/schemas/wide.fbs`: integers of four widths, floats of two, a bool and a \
            string) with one column (`value`) and with all ten, with flatstream-arrow's default \
            verification: each frame's root table, and the fields converted.",
        baseline: "all",
        parameter: "messages",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "sql",
        title: "SQL: an aggregate in DataFusion",
        description: "`SELECT device_id, count(*), avg(value) FROM t GROUP BY device_id` over \
            the same rows as flatstream, NDJSON and Parquet files, with 1 and 2 target \
            partitions (`<format>-<partitions>`); throughput is the file's bytes per second. \
            See the Arrow and SQL section.",
        baseline: "flatstream-1",
        parameter: "rows",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "schema_verify",
        title: "`flatstream verify`, with and without `--schema`",
        description: "The command's work over a capture file (XXH3-64-framed, mapped, verified \
            on a rayon pool of one thread per core): `plain` verifies every checksum, \
            `compiled` also every payload against the schema with flatstream-reflect's \
            compiled verifier (`verify --schema` now), `reflection` with \
            `flatbuffers-reflection`'s `SafeBuffer` (`verify --schema` before). Throughput \
            counts the file's bytes. See the `verify --schema` section.",
        baseline: "plain",
        parameter: "frames",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "mcap",
        title: "MCAP export against convert",
        description: "The demo's capture in memory: `convert` re-frames every payload with \
            XXH3-64; `export-zstd`, `export-lz4` and `export-none` verify each payload against \
            the schema and write it as an MCAP message, in zstd, lz4 or stored chunks. \
            Throughput counts the capture's bytes for `convert`, the MCAP file's for the \
            exports. See the MCAP section.",
        baseline: "convert",
        parameter: "frames",
        layout: Layout::PerParameter,
    },
    GroupConfig {
        group: "cluster",
        title: "SQL on a cluster of local workers",
        description: "`flatstream query` (the release binary) over the SQL suite's flatstream \
            capture, in one process and on two `flatstream worker` processes on 127.0.0.1: \
            plain, with the token, with TLS, and with one worker killed halfway; each time is \
            the whole command, to the checked answer. Throughput counts the capture's bytes. \
            See the cluster section.",
        baseline: "one-process",
        parameter: "rows",
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
pub(crate) fn effective<'c>(
    rows: &[&Bench],
    config: Option<&'c GroupConfig>,
) -> Option<&'c GroupConfig> {
    config.filter(|_| rows.iter().any(|r| baseline_of(r, rows, config).is_some()))
}
