//! flatstream files as a DataFusion file format: SQL over streams of FlatBuffers, each file
//! read in byte ranges by several partitions.
//!
//! ```text
//! +------------+--------------------------+----------------------------+
//! | len: u32 LE| checksum: 0/2/4/8 B, LE  | payload: a plain FlatBuffer|   frame 1  -> row 1
//! +------------+--------------------------+----------------------------+
//! | len: u32 LE| checksum                 | payload                    |   frame 2  -> row 2 ...
//! ```
//!
//! A table's columns are the fields of one table of a binary FlatBuffers schema (`.bfbs`,
//! from `flatc -b --schema`), converted by `flatstream-arrow`; one frame is one row. The schema
//! is always given, never guessed from the data.
//!
//! ```
//! use flatstream::flatbuffers::FlatBufferBuilder;
//! use flatstream::sql::datafusion::prelude::SessionContext;
//! use flatstream::sql::{FlatstreamOptions, SessionContextExt};
//! use flatstream::{ChecksumFramer, StreamWriter, XxHash64};
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! // A capture of 1000 `telemetry.Telemetry` messages (examples/telemetry.fbs), built field by
//! // field as flatc's generated `Telemetry::create` would, in a directory of captures.
//! let captures = std::env::temp_dir().join(format!("captures-{}", std::process::id()));
//! std::fs::create_dir_all(&captures)?;
//! let file = std::fs::File::create(captures.join("a.fstream"))?;
//! let mut writer = StreamWriter::new(file, ChecksumFramer::new(XxHash64::new()));
//! let mut builder = FlatBufferBuilder::new();
//! for i in 0..1000u64 {
//!     builder.reset();
//!     let table = builder.start_table();
//!     builder.push_slot::<u64>(4, i % 64, 0); // device_id
//!     builder.push_slot::<u64>(6, 1_700_000_000_000 + i / 64, 0); // timestamp
//!     builder.push_slot::<f64>(8, i as f64, 0.0); // value
//!     let root = builder.end_table(table);
//!     builder.finish(root, None);
//!     writer.write_finished(&mut builder)?;
//! }
//! writer.flush()?;
//! // The binary schema, from `flatc -b --schema telemetry.fbs`: here the repository's.
//! let schema = "../../examples/telemetry.bfbs";
//!
//! let ctx = SessionContext::new();
//! let options = FlatstreamOptions::with_schema(schema);
//! ctx.register_flatstream("telemetry", captures.to_str().unwrap(), options)
//!     .await?;
//! let batches = ctx
//!     .sql("SELECT device_id, count(*) AS n, avg(value) FROM telemetry GROUP BY device_id")
//!     .await?
//!     .collect()
//!     .await?;
//! let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 64, "one row per device");
//! std::fs::remove_dir_all(&captures)?;
//! # Ok(()) }
//! ```
//!
//! # Three ways to a table
//!
//! * [`SessionContextExt::register_flatstream`]: a file, glob or directory, with
//!   [`FlatstreamOptions`].
//! * SQL, once [`SessionContextExt::register_flatstream_format`] has run:
//!   `CREATE EXTERNAL TABLE t STORED AS FLATSTREAM LOCATION 'captures/' OPTIONS ('schema'
//!   'telemetry.bfbs', 'root_type' 'telemetry.Telemetry', 'checksum' 'xxhash64')`.
//! * A path read as a table, on a context made with `enable_url_table()`: `SELECT * FROM
//!   'captures/*.fstream'`. Such a table has no options of its own: it reads with the
//!   session's, `SET flatstream.schema = 'telemetry.bfbs'` or
//!   [`SessionContextExt::set_flatstream_options`].
//!
//! Paths read as tables are read as flatstream if they end in `.fstream` (what `flatstream`
//! commands write) or `.fs`. A directory given as a table's location is read for its
//! `.fstream` files; a glob (`'captures/*.fs'`) or a file names any others. The options are listed on
//! [`FlatstreamOptions`]; without `checksum`, each file's framing is told from its leading
//! frames, as `flatstream inspect` does.
//!
//! # Byte ranges: each frame exactly once
//!
//! DataFusion (and datafusion-distributed, always) cuts large files into byte ranges read by
//! independent partitions. A range `[start, end)` reads the chain of frames from the first
//! frame that core's resynchronization confirms at or after `start` up to the one it
//! confirms at or after `end`: the same function of the file's bytes, computed by the
//! partitions on both sides of a cut, so that they agree without talking. A range whose
//! chain steps over that point fails with [`Error::Resync`] (a false resynchronization: a
//! payload holding bytes that read as frames) rather than read a frame twice or drop one.
//! A file without checksums cannot be cut: the range that starts at byte 0 reads all of it,
//! the others nothing. `docs/design.md` explains why this is exactly-once.
//!
//! # Errors
//!
//! A damaged frame fails the query with an error naming the file and the frame's offset; a
//! payload that is not a valid FlatBuffer of the root type can be skipped and counted instead
//! (`skip_invalid`, metric `skipped_frames`). A scan verifies what the query reads: each
//! frame's root table and the fields of its projection, each whole; `verify_unread` verifies
//! every field, so that the frames skipped do not depend on the columns selected. Every error
//! of this crate reaches DataFusion as `DataFusionError::External` holding an [`Error`];
//! [`is_damage`] tells an error about the data (a damaged frame, an invalid payload) from the
//! rest, on a datafusion-distributed coordinator too, where a worker's error arrives as text.
//!
//! # Metrics
//!
//! Each scan partition counts `frames_read`, `bytes_scanned` (every byte fetched: framing
//! detection, resynchronization, frames) and `skipped_frames`; `EXPLAIN ANALYZE` shows them.
//!
//! # On a cluster
//!
//! With the feature `distributed`, the module `distributed` runs these scans on
//! datafusion-distributed: `FlatstreamCodec` carries a scan (its byte ranges and the schema's
//! bytes) to the workers, and `with_flatstream_codec()` registers it, on the coordinator and
//! on every worker. The example `distributed` is a worker and a coordinator; the crate's
//! README says how to run them on real machines, over files in S3 (feature `aws`) or Google
//! Cloud Storage (feature `gcp`).

mod context;
mod error;
mod format;
mod options;
mod range;
mod source;

pub use context::SessionContextExt;
pub use error::{Error, is_damage};
pub use format::{EXTENSIONS, FlatstreamFormat, FlatstreamFormatFactory};
pub use options::{FlatstreamOptions, ScanSpec};
pub use source::FlatstreamSource;

#[cfg(feature = "distributed")]
pub mod distributed;

/// The DataFusion crate this format plugs into (55.2), for `SessionContext` and the rest: with
/// SQL and every SQL function, without its `parquet` and `compression` features (Parquet
/// tables, compressed CSV and JSON), which flatstream tables do not need. A program that reads
/// those too names `datafusion = { version = "55.2", features = ["parquet"] }` in its own
/// manifest, and cargo builds the one DataFusion with them.
pub use datafusion;
