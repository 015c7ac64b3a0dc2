//! The options of the SQL commands, `export` and `query`, and of the cluster's: `worker`, and
//! `query --workers`.

use super::TableArgs;
use super::mcap::McapExportArgs;
use clap::{Args, ValueEnum};
use std::net::SocketAddr;
use std::path::PathBuf;

/// What `export` writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum ExportFormat {
    /// Parquet, zstd-compressed (a binary file: -o OUT).
    Parquet,
    /// An Arrow IPC file, uncompressed (a binary file: -o OUT).
    #[value(alias = "ipc")]
    Arrow,
    /// CSV with a header line; nested columns cannot be written (pick columns with --columns).
    Csv,
    /// One JSON object per row and per line.
    #[value(alias = "json")]
    Jsonl,
    /// MCAP for Foxglove: the messages themselves, a channel per FILE (a binary file: -o OUT).
    Mcap,
}

pub(crate) const EXPORT_HELP: &str = "\
Reads the frames of each FILE in turn (- for standard input), verifies each message against
the schema, converts it to a row (columns as flatstream-arrow names them: one per field of the
message table, nested tables and structs as struct columns, vectors as lists, enums by name,
unions as a struct of their type and members) and writes the rows of all FILEs, in order, to
OUT as one table:

  parquet  Parquet, zstd-compressed, the Arrow schema kept in its metadata
  arrow    an Arrow IPC file (Feather v2)
  csv      CSV with a header line (top-level columns of scalars, strings and bytes only)
  jsonl    one JSON object per row and per line
  mcap     MCAP, for Foxglove: each message as it is (not as a row), in a channel of
           encoding `flatbuffer` per FILE (or one --topic), with the schema's .bfbs in one
           schema record; times from --time-field (default: the frame's index), chunks
           compressed with --compression (default: zstd)

  flatstream export demo.fstream -s telemetry.bfbs --to parquet -o demo.parquet
  flatstream export demo.fstream -s telemetry.bfbs --to csv --columns device_id,value
  flatstream export demo.fstream -s telemetry.bfbs --to mcap -o demo.mcap \\
      --time-field timestamp --time-unit ms

OUT is written under a temporary name in its directory and renamed when the export is
complete: a failed export leaves no OUT (and an old OUT as it was). parquet and arrow need -o
OUT (- writes to stdout, which must not be a terminal); csv and jsonl write to stdout by
default, where the rows before a failure stay printed.

Without --checksum, each FILE's framing is detected from its leading frames. A frame that does
not verify (checksum, bound, torn tail) or a message the schema rejects stops the export with
one line naming the file, the frame's index and its byte offset; --skip-invalid skips messages
the schema rejects (not damaged frames: run flatstream salvage first) and counts them on stderr.
A message is verified as far as it is exported: its table and the exported fields (with
--columns, only those; --verify-unread verifies every field).

Exit status:
  0  every frame was exported
  1  a frame does not verify or is not a message of the schema: nothing is written to an OUT
     file (stdout holds the rows before it)
  2  the command could not do its job (missing file, unreadable schema, unknown root type or
     column, nested columns for csv, a framing that cannot be told, a failed write)";

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// The streams to export, one after the other into one table (- for standard input).
    #[arg(value_name = "FILE", required = true)]
    pub(crate) files: Vec<String>,
    /// The format to write: parquet, arrow, csv or jsonl.
    #[arg(long, value_enum, value_name = "FORMAT")]
    pub(crate) to: ExportFormat,
    /// Where to write (- for stdout): required for parquet and arrow; csv and jsonl write to
    /// stdout by default.
    #[arg(long, short = 'o', value_name = "OUT")]
    pub(crate) output: Option<String>,
    #[command(flatten)]
    pub(crate) table: TableArgs,
    /// Only these columns, in this order: top-level field names, comma-separated
    /// (`_offset` is each frame's byte offset in its stream).
    #[arg(long, value_name = "NAMES", value_delimiter = ',')]
    pub(crate) columns: Vec<String>,
    #[command(flatten)]
    pub(crate) mcap: McapExportArgs,
}

/// How `query` prints its rows.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum QueryFormat {
    /// A table with a header, for people.
    Table,
    /// CSV with a header line.
    Csv,
    /// One JSON object per row and per line (JSON lines).
    Json,
}

pub(crate) const QUERY_HELP: &str = "\
Runs one SQL statement (DataFusion's dialect) and prints its rows. A table is a quoted path: a
file, a directory (every file in it) or a glob, each file a stream of frames read through
--schema, one column per field of the message table (as export names them):

  flatstream query -s telemetry.bfbs \"SELECT device_id, count(*), avg(value) FROM 'logs/*.fstream' GROUP BY device_id ORDER BY device_id\"
  flatstream query -s telemetry.bfbs --format json \"SELECT * FROM 'demo.fstream' WHERE value > 90 LIMIT 5\"
  flatstream query -s telemetry.bfbs --offset-column \"SELECT _offset, value FROM 'demo.fstream' WHERE value > 99\"

Without --checksum, each file's framing is detected from its leading frames. Every message is
verified against the schema before it is read: its table, and the fields the query reads (with
--verify-unread, every field). A frame that does not verify or a message the schema rejects
stops the query, and its error names the file and the frame's byte offset.

With --workers (or FLATSTREAM_WORKERS), the query runs on `flatstream worker`s: each file is
cut into byte ranges (--bytes-per-partition), and each worker reads its ranges itself, from
the same paths (relative paths are made absolute here). The rows are printed once the query
has ended. A worker that fails (killed, stopped: no answer to keepalive pings within twice
--keepalive, a task past --task-timeout, a refused connection) is left out, and the whole
query runs again on the workers that remain, up to --max-attempts: a query only reads, and
each attempt reads every frame of every range once, so a retry neither repeats nor loses a
row; its cost is the time of the attempts that failed. The error names each failed worker and
why. A plan with no stage of more than one task (files smaller than --bytes-per-partition)
runs on the coordinator alone: that is said on stderr (--require-workers refuses it); a single
worker gets two tasks per stage. --explain prints the stages, their tasks, and each
task's worker and byte ranges.

Exit status:
  0  the query ran and its rows were printed
  1  a frame does not verify or is not a message of the schema
  2  the command could not do its job: SQL that does not parse or plan (an unknown column, a
     missing file), an unreadable schema, unknown root type, a framing that cannot be told";

#[derive(Debug, Args)]
pub(crate) struct QueryArgs {
    /// The SQL statement; its tables are quoted paths or globs of streams.
    #[arg(value_name = "SQL")]
    pub(crate) sql: String,
    #[command(flatten)]
    pub(crate) table: TableArgs,
    /// How to print the rows: table, csv or json (one object per line).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub(crate) format: QueryFormat,
    #[command(flatten)]
    pub(crate) cluster: QueryClusterArgs,
}

/// How the members of a cluster trust each other: the same on the coordinator and on every
/// worker.
#[derive(Debug, Args)]
pub(crate) struct TrustArgs {
    /// A file holding the cluster's shared token: every request carries it, every worker
    /// checks it (FLATSTREAM_CLUSTER_TOKEN holds the token itself, if no file is given).
    #[arg(long, value_name = "FILE")]
    pub(crate) token_file: Option<PathBuf>,
    /// The certificate authority (PEM) that workers' certificates chain to; on a worker, also
    /// the one a client's certificate must chain to, if the client presents one.
    #[arg(long, value_name = "PEM")]
    pub(crate) tls_ca: Option<PathBuf>,
    /// This side's certificate chain (PEM): what a worker serves TLS with; on the coordinator,
    /// a client certificate to present.
    #[arg(long, value_name = "PEM", requires = "tls_key")]
    pub(crate) tls_cert: Option<PathBuf>,
    /// The private key (PEM) of --tls-cert.
    #[arg(long, value_name = "PEM", requires = "tls_cert")]
    pub(crate) tls_key: Option<PathBuf>,
    /// Seconds between HTTP/2 keepalive pings on every connection; a peer that does not answer
    /// one within as long again is given up.
    #[arg(long, value_name = "SECS", default_value_t = 10.0, value_parser = positive_seconds)]
    pub(crate) keepalive: f64,
}

/// `--workers` and what goes with it, for `query`.
#[derive(Debug, Args)]
pub(crate) struct QueryClusterArgs {
    /// Run the query on these workers (`flatstream worker`), comma-separated:
    /// http://HOST:PORT, or https://HOST:PORT with --tls-ca [env: FLATSTREAM_WORKERS].
    #[arg(long, value_name = "URLS", value_delimiter = ',')]
    pub(crate) workers: Vec<String>,
    /// With --workers, the longest one task may take on a worker, in seconds: past it the
    /// worker counts as failed.
    #[arg(long, value_name = "SECS", default_value_t = 600.0, value_parser = positive_seconds)]
    pub(crate) task_timeout: f64,
    /// The longest the whole query may take, in seconds, every attempt included [default:
    /// none: each task is bounded by --task-timeout and keepalive, each query by
    /// --max-attempts].
    #[arg(long, value_name = "SECS", value_parser = positive_seconds)]
    pub(crate) timeout: Option<f64>,
    /// With --workers, how many times the query is run at most: after an attempt fails for a
    /// worker (killed, stopped, refusing), it runs again on the workers that remain.
    #[arg(long, value_name = "N", default_value_t = 3, value_parser = clap::value_parser!(u32).range(1..))]
    pub(crate) max_attempts: u32,
    /// With --workers, the bytes of a file each task's partition reads: smaller means more
    /// tasks [default: 16 MiB].
    #[arg(long, value_name = "BYTES", value_parser = clap::value_parser!(u64).range(1..))]
    pub(crate) bytes_per_partition: Option<u64>,
    /// With --workers, fail instead of running a plan on the coordinator alone (scans too
    /// small to cut into tasks: on a cluster the coordinator may not reach the data).
    #[arg(long)]
    pub(crate) require_workers: bool,
    /// Print the plan instead of running the query: with --workers, its stages, their tasks,
    /// and each task's worker and byte ranges.
    #[arg(long)]
    pub(crate) explain: bool,
    #[command(flatten)]
    pub(crate) trust: TrustArgs,
}

fn positive_seconds(text: &str) -> Result<f64, String> {
    match text.parse::<f64>() {
        Ok(s) if s.is_finite() && s > 0.0 && s <= 1e9 => Ok(s),
        _ => Err(format!("{text:?} is not a positive number of seconds")),
    }
}

pub(crate) const WORKER_HELP: &str = "\
Serves the tasks that `flatstream query --workers` sends: each reads its byte ranges of the
query's files itself, from their paths as the coordinator names them (the same on every
machine: a shared file system), and sends its rows back over gRPC (HTTP/2).

  flatstream worker --listen 0.0.0.0:50051 --token-file cluster.token
  export FLATSTREAM_WORKERS=http://10.0.0.1:50051,http://10.0.0.2:50051
  flatstream query --token-file cluster.token -s telemetry.bfbs \"SELECT count(*) FROM '/data/*.fstream'\"

It listens on 127.0.0.1 unless --listen names another address: anyone who reaches the port can
send it plans. Give it a token (--token-file, or FLATSTREAM_CLUSTER_TOKEN): a request without
it, or with another, is refused, logged, and runs nothing. With --tls-cert and --tls-key it
serves TLS; coordinators then use https:// URLs with --tls-ca. The coordinator's schema
travels in the plan: a worker needs no copy of it.

On stderr, a line when it listens, and a line per task (-q leaves those out): the query's id,
the stage and task, the byte ranges it read, the rows it read and sent and how long it took,
or its error. Ctrl-C stops it.

Exit status:
  0  it was interrupted
  2  it could not serve: the address is in use or cannot be bound, a token or TLS file cannot
     be read";

/// `flatstream worker`'s options.
#[derive(Debug, Args)]
pub(crate) struct WorkerArgs {
    /// The address to listen on (0.0.0.0:PORT for every interface).
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:50051")]
    pub(crate) listen: SocketAddr,
    #[command(flatten)]
    pub(crate) trust: TrustArgs,
}
