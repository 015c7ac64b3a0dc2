//! The SQL workload (feature `sql`): one aggregate over the same telemetry rows stored three
//! ways, run by DataFusion.
//!
//! ```sql
//! SELECT device_id, count(*), avg(value) FROM t GROUP BY device_id
//! ```
//!
//! The rows are [`capture`]'s, as its flatstream file holds them (shared with the cluster suite).
//!
//! | format | file | read by |
//! |---|---|---|
//! | flatstream | `telemetry.fstream`: XXH3-64-framed `telemetry.Telemetry` tables, 60 bytes a frame | `flatstream-datafusion` (`register_flatstream` with `examples/telemetry.bfbs`), the default bound on a frame's length |
//! | NDJSON | `telemetry.json`: the line `flatstream cat --schema` prints per frame ([`render_json`]) | DataFusion's JSON format, with the table's schema given (nothing inferred) |
//! | Parquet | `telemetry.parquet`: parquet's default writer settings, batches of 8192 rows | DataFusion's Parquet format |
//!
//! The files are written once into a cache directory ([`Fixture::prepare`]) and reused while
//! their sizes match; a file is written under a temporary name and renamed when complete, so an
//! interrupted run never leaves a file that looks finished.

use crate::arrow::render_json;
use crate::capture::{self, len, write_atomically};
pub use crate::capture::{DEVICES, FRAME_BYTES, QUERY, ROWS, TEST_ROWS, expected, matches, rows};
use datafusion::arrow::array::{Array, AsArray, Float64Array, RecordBatch, UInt64Array};
use datafusion::arrow::datatypes::{
    DataType, Field, Float64Type, Int64Type, Schema, SchemaRef, UInt64Type,
};
use datafusion::parquet::arrow::ArrowWriter;
use datafusion::prelude::{JsonReadOptions, ParquetReadOptions, SessionConfig, SessionContext};
use flatstream_datafusion::{FlatstreamOptions, SessionContextExt};
use flatstream_test_support::telemetry::Reading;
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// The stored formats, as the benchmark ids name them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// flatstream frames, through flatstream-datafusion.
    Flatstream,
    /// One JSON object a line.
    Ndjson,
    /// Apache Parquet.
    Parquet,
}

impl Format {
    /// Every format, in the order of the report.
    pub const ALL: [Format; 3] = [Format::Flatstream, Format::Ndjson, Format::Parquet];

    /// The name in benchmark ids.
    pub fn name(self) -> &'static str {
        match self {
            Format::Flatstream => "flatstream",
            Format::Ndjson => "ndjson",
            Format::Parquet => "parquet",
        }
    }

    fn file(self) -> &'static str {
        match self {
            Format::Flatstream => capture::FILE,
            Format::Ndjson => "telemetry.json",
            Format::Parquet => "telemetry.parquet",
        }
    }
}

/// The schema of the table, as flatstream-arrow gives it for `telemetry.Telemetry`.
pub fn table_schema() -> SchemaRef {
    Arc::new(Schema::new(vec![
        Field::new("device_id", DataType::UInt64, false),
        Field::new("timestamp", DataType::UInt64, false),
        Field::new("value", DataType::Float64, false),
    ]))
}

/// The files of one capture in the cache directory.
#[derive(Debug, Clone)]
pub struct Fixture {
    /// The rows every file holds.
    pub rows: u64,
    dir: PathBuf,
}

impl Fixture {
    /// The capture of `rows` rows, written into `<bench out>/sql-<rows>/` unless it is there
    /// already with the sizes this code writes.
    pub fn prepare(rows: u64) -> io::Result<Fixture> {
        let flat = capture::flatstream_file(rows)?;
        let dir = flat.parent().expect("a file in a directory").to_owned();
        let fixture = Fixture { rows, dir };
        let json = fixture.path(Format::Ndjson);
        let json_len = ndjson_len(rows);
        if len(&json) != Some(json_len) {
            write_atomically(&json, |w| {
                let mut line = Vec::with_capacity(128);
                for r in self::rows(rows) {
                    line.clear();
                    render_json(&r, &mut line);
                    line.push(b'\n');
                    w.write_all(&line)?;
                }
                Ok(())
            })?;
        }
        let parquet = fixture.path(Format::Parquet);
        let marker = dir_marker(&fixture.dir);
        let parquet_ok = std::fs::read_to_string(&marker)
            .ok()
            .and_then(|s| s.trim().parse::<u64>().ok())
            .is_some_and(|n| Some(n) == len(&parquet));
        if !parquet_ok {
            write_atomically(&parquet, |w| write_parquet(w, rows))?;
            let n = len(&parquet).unwrap_or(0);
            std::fs::write(&marker, format!("{n}\n"))?;
        }
        Ok(fixture)
    }

    /// The file of `format`.
    pub fn path(&self, format: Format) -> PathBuf {
        self.dir.join(format.file())
    }

    /// Bytes of the file of `format`.
    pub fn bytes(&self, format: Format) -> u64 {
        len(&self.path(format)).unwrap_or(0)
    }

    /// A session with `partitions` target partitions and the table `t` of `format`.
    pub async fn context(
        &self,
        format: Format,
        partitions: usize,
    ) -> datafusion::error::Result<SessionContext> {
        let config = SessionConfig::new().with_target_partitions(partitions);
        let ctx = SessionContext::new_with_config(config);
        let path = self.path(format);
        let path = path.to_str().expect("a UTF-8 path");
        let schema = table_schema();
        match format {
            Format::Flatstream => {
                let bfbs = concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/telemetry.bfbs");
                ctx.register_flatstream("t", path, FlatstreamOptions::with_schema(bfbs))
                    .await?;
            }
            Format::Ndjson => {
                ctx.register_json("t", path, JsonReadOptions::default().schema(&schema))
                    .await?;
            }
            Format::Parquet => {
                ctx.register_parquet("t", path, ParquetReadOptions::default())
                    .await?;
            }
        }
        Ok(ctx)
    }
}

/// Runs [`QUERY`] on `ctx`; returns, per device, its count and average.
pub async fn aggregate(ctx: &SessionContext) -> datafusion::error::Result<Vec<(u64, i64, f64)>> {
    let batches = ctx.sql(QUERY).await?.collect().await?;
    let mut out = Vec::new();
    for b in &batches {
        let devices = b.column(0).as_primitive::<UInt64Type>();
        let counts = b.column(1).as_primitive::<Int64Type>();
        let avgs = b.column(2).as_primitive::<Float64Type>();
        for i in 0..b.num_rows() {
            out.push((devices.value(i), counts.value(i), avgs.value(i)));
        }
    }
    out.sort_by_key(|r| r.0);
    Ok(out)
}

fn dir_marker(dir: &Path) -> PathBuf {
    dir.join("telemetry.parquet.len")
}

/// Bytes of the NDJSON file of `rows` rows (each line rendered, not written).
fn ndjson_len(rows: u64) -> u64 {
    let mut line = Vec::with_capacity(128);
    self::rows(rows)
        .map(|r| {
            line.clear();
            render_json(&r, &mut line);
            line.len() as u64 + 1
        })
        .sum()
}

fn write_parquet(w: &mut BufWriter<File>, rows: u64) -> io::Result<()> {
    let schema = table_schema();
    let mut writer = ArrowWriter::try_new(w, schema.clone(), None).map_err(io::Error::other)?;
    let mut all = self::rows(rows).peekable();
    while all.peek().is_some() {
        let chunk: Vec<Reading> = all.by_ref().take(8192).collect();
        let columns: Vec<Arc<dyn Array>> = vec![
            Arc::new(UInt64Array::from_iter_values(
                chunk.iter().map(|r| r.device_id),
            )),
            Arc::new(UInt64Array::from_iter_values(
                chunk.iter().map(|r| r.timestamp),
            )),
            Arc::new(Float64Array::from_iter_values(
                chunk.iter().map(|r| r.value),
            )),
        ];
        let batch = RecordBatch::try_new(schema.clone(), columns).map_err(io::Error::other)?;
        writer.write(&batch).map_err(io::Error::other)?;
    }
    writer.close().map_err(io::Error::other)?;
    Ok(())
}
