//! `flatstream query`: SQL over streams, on DataFusion through flatstream-datafusion. The SQL
//! names files and globs as tables; each is read through the binary schema given.

use crate::failure::{Failure, Status};
use crate::options::KindParser;
use clap::{Args, ValueEnum};
use flatstream::checksum::ChecksumKind;
use std::path::PathBuf;

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

Without --checksum, each file's framing is detected from its leading frames. Every message is
verified against the schema before it is read; a frame that does not verify or a message the
schema rejects stops the query, and its error names the file and the frame's byte offset.

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
    /// The messages' schema, as a binary schema (`flatc -b --schema x.fbs` writes x.bfbs).
    #[arg(long, short = 's', value_name = "S.bfbs")]
    pub(crate) schema: PathBuf,
    /// The table each message is (default: the schema's root_type). A full name
    /// (`fleet.Robot`) or, when it is unambiguous, the name alone (`Robot`).
    #[arg(long, value_name = "TABLE")]
    pub(crate) root_type: Option<String>,
    /// The streams' checksum: none, xxhash64, crc32, crc32c or crc16 (default: detected from
    /// each file's leading frames).
    #[arg(long, short = 'c', value_name = "KIND", value_parser = KindParser, hide_possible_values = true)]
    pub(crate) checksum: Option<ChecksumKind>,
    /// Largest payload accepted, in bytes; a frame declaring more is corrupt.
    /// [default: 2147483648]
    #[arg(long, value_name = "BYTES")]
    pub(crate) max_frame_len: Option<usize>,
    /// Skip messages the schema rejects instead of failing the query.
    #[arg(long)]
    pub(crate) skip_invalid: bool,
    /// How to print the rows: table, csv or json (one object per line).
    #[arg(long, value_enum, default_value_t = QueryFormat::Table)]
    pub(crate) format: QueryFormat,
}

/// Runs `flatstream query`.
#[cfg(feature = "sql")]
pub(crate) fn run(args: &QueryArgs) -> Result<Status, Failure> {
    imp::run(args)
}

/// Without the `sql` feature, `query` is there only to say so.
#[cfg(not(feature = "sql"))]
pub(crate) fn run(_args: &QueryArgs) -> Result<Status, Failure> {
    Err(crate::export::not_built("query"))
}

#[cfg(feature = "sql")]
mod imp {
    use super::QueryArgs;
    use crate::failure::{Failure, Status};

    pub(super) fn run(_args: &QueryArgs) -> Result<Status, Failure> {
        Err(Failure::error("query is not written yet"))
    }
}
