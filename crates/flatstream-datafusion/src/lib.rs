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
//! use flatstream::sql::datafusion::prelude::SessionContext;
//! use flatstream::sql::{FlatstreamOptions, SessionContextExt};
//! # use flatstream::checksum::XxHash64;
//! # use flatstream::{ChecksumFramer, StreamWriter};
//! # use flatstream_test_support::telemetry::Reading;
//!
//! # #[tokio::main(flavor = "current_thread")]
//! # async fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
//! # for i in 0..1000 { w.write(&Reading::nth(i))?; }
//! # std::fs::write(dir.path().join("a.fstream"), w.into_inner())?;
//! # let schema = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/telemetry.bfbs");
//! # let captures = dir.path().to_str().unwrap();
//! let ctx = SessionContext::new();
//! // `captures` is a directory of files written with `flatstream`, `schema` the path of
//! // examples/telemetry.bfbs.
//! ctx.register_flatstream("telemetry", captures, FlatstreamOptions::with_schema(schema))
//!     .await?;
//! let batches = ctx
//!     .sql("SELECT device_id, count(*) AS n, avg(value) FROM telemetry GROUP BY device_id")
//!     .await?
//!     .collect()
//!     .await?;
//! let rows: usize = batches.iter().map(|b| b.num_rows()).sum();
//! assert_eq!(rows, 64, "one row per device");
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
//! of this crate reaches DataFusion as `DataFusionError::External` holding an [`Error`].
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
pub use error::Error;
pub use format::{EXTENSIONS, FlatstreamFormat, FlatstreamFormatFactory};
pub use options::{FlatstreamOptions, ScanSpec};
pub use source::FlatstreamSource;

#[cfg(feature = "distributed")]
pub mod distributed;

/// The DataFusion crate this format plugs into (55.2), for `SessionContext` and the rest.
pub use datafusion;
