//! What the SQL commands share on the way out: a query's rows printed as a table, CSV or JSON
//! lines; DataFusion's errors as one line of ours; standard output that notes a closed pipe.

use crate::failure::{Failure, Status};
use crate::options::sql::QueryFormat;
use crate::scan_progress::ScanProgress;
use flatstream::sql::datafusion::arrow::array::RecordBatch;
use flatstream::sql::datafusion::arrow::datatypes::SchemaRef;
use flatstream::sql::datafusion::arrow::error::ArrowError;
use flatstream::sql::datafusion::arrow::util::pretty::pretty_format_batches_with_schema;
use flatstream::sql::datafusion::arrow::{csv, json};
use flatstream::sql::datafusion::error::DataFusionError;
use futures::{Stream, StreamExt};
use std::io::{self, BufWriter, Write};

/// Prints the rows of `stream` in `format` on stdout; `progress`, if any, is finished once
/// the last row is in.
pub(crate) async fn print(
    format: QueryFormat,
    schema: SchemaRef,
    mut stream: impl Stream<Item = Result<RecordBatch, DataFusionError>> + Unpin,
    progress: Option<ScanProgress>,
) -> Result<Status, Failure> {
    let mut out = BufWriter::with_capacity(1 << 16, Stdout);
    match format {
        QueryFormat::Table => {
            // A table's columns are as wide as their widest value: every row first.
            let mut batches = Vec::new();
            while let Some(batch) = stream.next().await {
                batches.push(batch.map_err(failure)?);
            }
            if let Some(progress) = progress {
                progress.finish().await;
            }
            let table = pretty_format_batches_with_schema(schema, &batches)
                .map_err(|e| Failure::error(message_of(&e.to_string())))?;
            writeln!(out, "{table}").map_err(Failure::stdout)?;
        }
        QueryFormat::Csv => {
            let mut w = csv::WriterBuilder::new().with_header(true).build(&mut out);
            // The header, even for no rows.
            w.write(&RecordBatch::new_empty(schema))
                .map_err(write_error)?;
            while let Some(batch) = stream.next().await {
                w.write(&batch.map_err(failure)?).map_err(write_error)?;
            }
            if let Some(progress) = progress {
                progress.finish().await;
            }
        }
        QueryFormat::Json => {
            let mut w = json::WriterBuilder::new()
                .with_explicit_nulls(true)
                .build::<_, json::writer::LineDelimited>(&mut out);
            while let Some(batch) = stream.next().await {
                w.write(&batch.map_err(failure)?).map_err(write_error)?;
            }
            w.finish().map_err(write_error)?;
            if let Some(progress) = progress {
                progress.finish().await;
            }
        }
    }
    out.flush().map_err(Failure::stdout)?;
    Ok(Status::Ok)
}

/// An error of the query: damaged data (status 1) if it is a frame's, the command's
/// (status 2) otherwise. One line, without DataFusion's prefixes.
pub(crate) fn failure(e: DataFusionError) -> Failure {
    // On a worker's error, only the text is left of its type: `is_damage` tells damage by the
    // context the worker wrapped it in.
    let failure: fn(String) -> Failure = if flatstream::sql::is_damage(&e) {
        Failure::damaged
    } else {
        Failure::error
    };
    let root = e.find_root();
    if let DataFusionError::External(inner) = root
        && let Some(error) = inner.downcast_ref::<flatstream::sql::Error>()
    {
        return failure(message_of(&error.to_string()));
    }
    let mut text = match root {
        DataFusionError::SQL(e, _) => e.to_string(),
        DataFusionError::ArrowError(e, _) => e.to_string(),
        other => other.message().into_owned(),
    };
    if text.starts_with("table '") && text.ends_with("not found") {
        text.push_str(
            " (a quoted path is read as a table if it exists: a file ending in .fstream \
             or .fs, a directory or a glob)",
        );
    }
    failure(message_of(&text))
}

fn write_error(e: ArrowError) -> Failure {
    match e {
        ArrowError::IoError(_, e) => Failure::stdout(e),
        // The CSV writer words the closed pipe it met as text.
        _ if Stdout::closed() => Failure::stdout(io::ErrorKind::BrokenPipe.into()),
        e => Failure::error(message_of(&e.to_string())),
    }
}

/// A library's message as this tool writes messages: without DataFusion's backtrace, as
/// a clause ([`flatstream_reflect::sentence`]: one line, lowercase first letter, no
/// trailing period).
fn message_of(text: &str) -> String {
    let text = text
        .split(DataFusionError::BACK_TRACE_SEP)
        .next()
        .unwrap_or("");
    flatstream_reflect::sentence(text)
}

/// Fails (status 2) if a column of `schema` is nested: CSV has no way to write it.
pub(crate) fn check_flat(schema: &SchemaRef) -> Result<(), Failure> {
    let nested: Vec<&str> = schema
        .fields()
        .iter()
        .filter(|f| f.data_type().is_nested())
        .map(|f| f.name().as_str())
        .collect();
    if nested.is_empty() {
        return Ok(());
    }
    Err(Failure::error(format_args!(
        "csv cannot hold the nested {} {}: pick others with --columns, or export to jsonl, \
         parquet or arrow",
        if nested.len() == 1 {
            "column"
        } else {
            "columns"
        },
        nested.join(", ")
    )))
}

/// Standard output, noting a closed pipe: some writers (CSV) report write errors as text,
/// and a closed pipe must still end the command quietly.
pub(crate) struct Stdout;

static STDOUT_CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

impl Stdout {
    /// Whether a write met a closed pipe.
    pub(crate) fn closed() -> bool {
        STDOUT_CLOSED.load(std::sync::atomic::Ordering::Relaxed)
    }

    fn note<T>(result: std::io::Result<T>) -> std::io::Result<T> {
        if let Err(e) = &result
            && e.kind() == std::io::ErrorKind::BrokenPipe
        {
            STDOUT_CLOSED.store(true, std::sync::atomic::Ordering::Relaxed);
        }
        result
    }
}

impl std::io::Write for Stdout {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        Stdout::note(std::io::stdout().write(buf))
    }

    fn flush(&mut self) -> std::io::Result<()> {
        Stdout::note(std::io::stdout().flush())
    }
}
