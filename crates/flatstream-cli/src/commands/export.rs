//! `flatstream export`: the messages of streams as Arrow record batches (through
//! flatstream-arrow), written as Parquet, an Arrow IPC file, CSV or JSON lines.
//!
//! Frames are read as `cat` reads them (a stream, memory bounded by the largest frame and one
//! batch of rows), each verified against the schema by flatstream-arrow's [`Converter`] and
//! appended to its columns; every [`Options::batch_size`] rows the batch goes to the writer.
//! A file OUT is written beside itself under a temporary name and renamed once complete: a
//! failed export leaves no OUT behind, and an old OUT is replaced only by a whole new one.

use crate::failure::{Failure, Status};
use crate::options::sql::{ExportArgs, ExportFormat};

#[cfg(feature = "sql")]
impl ExportFormat {
    fn is_binary(self) -> bool {
        matches!(
            self,
            ExportFormat::Parquet | ExportFormat::Arrow | ExportFormat::Mcap
        )
    }
}

/// Runs `flatstream export`: MCAP through flatstream-mcap, the table formats here.
pub(crate) fn run(args: &ExportArgs) -> Result<Status, Failure> {
    if args.to == ExportFormat::Mcap {
        return crate::commands::mcap::export(args);
    }
    if let Some(option) = args.mcap.given() {
        return Err(Failure::error(format_args!("{option} goes with --to mcap")));
    }
    tables(args)
}

#[cfg(feature = "sql")]
fn tables(args: &ExportArgs) -> Result<Status, Failure> {
    imp::run(args)
}

/// Without the `sql` feature, the table formats are there only to say so.
#[cfg(not(feature = "sql"))]
fn tables(_args: &ExportArgs) -> Result<Status, Failure> {
    Err(crate::failure::without_sql("export"))
}

#[cfg(feature = "sql")]
mod imp {
    use super::{ExportArgs, ExportFormat};
    use crate::failure::{Failure, Status, count};
    use crate::input::{Access, Input, Replacing};
    use crate::progress::Progress;
    use crate::rows::{Stdout, check_flat};
    use crate::walk::Framed;
    use flatstream::arrow::{BinarySchema, Converter, Options, Plan};
    use flatstream::sql::datafusion::arrow::array::RecordBatch;
    use flatstream::sql::datafusion::arrow::datatypes::SchemaRef;
    use flatstream::sql::datafusion::arrow::error::ArrowError;
    use flatstream::sql::datafusion::arrow::{csv, ipc, json};
    use parquet::arrow::ArrowWriter;
    use parquet::basic::{Compression, ZstdLevel};
    use parquet::errors::ParquetError;
    use parquet::file::properties::WriterProperties;
    use std::io::{self, BufWriter, IsTerminal, Write};
    use std::ops::ControlFlow;

    pub(super) fn run(args: &ExportArgs) -> Result<Status, Failure> {
        let output = match (&args.output, args.to.is_binary()) {
            (Some(output), _) => output.clone(),
            (None, false) => "-".to_owned(),
            (None, true) => {
                return Err(Failure::error(format_args!(
                    "--to {} writes a binary file: pass -o OUT",
                    format_name(args.to)
                )));
            }
        };
        let plan = plan(args)?;
        if args.to == ExportFormat::Csv {
            check_flat(plan.schema())?;
        }
        // Every input is opened before OUT is created: a missing one changes nothing.
        let mut inputs = Vec::with_capacity(args.files.len());
        for file in &args.files {
            let input = Input::open(file, Access::Stream, args.table.framing.max())?;
            input.check_not_output(file, &output)?;
            inputs.push(input);
        }
        if args.to.is_binary() && output == "-" && io::stdout().is_terminal() {
            return Err(Failure::error(
                "refusing to write a binary file to a terminal: redirect stdout or pass -o OUT",
            ));
        }
        let mut target = Target::create(&output)?;
        let mut sink =
            Sink::new(args.to, plan.schema(), target.writer()?).map_err(|e| target.failure(e))?;
        let mut converter = plan.converter();
        let mut rows = 0u64;
        let result = export(args, &plan, inputs, &mut converter, &mut sink, &mut rows);
        // What was converted before a failure reaches stdout (a file is dropped whole).
        let flushed = flush(&mut converter, &mut sink, &mut rows)
            .and_then(|()| sink.finish())
            .map_err(|e| target.failure(e));
        match result {
            // A closed stdout ends it quietly.
            Err(failure) if failure.message.is_empty() => Err(failure),
            Err(mut failure) => {
                if target.is_stdout() {
                    if flushed.is_ok() {
                        failure.message = format!(
                            "{}; stdout holds the {} before it",
                            failure.message,
                            count(rows, "row")
                        );
                    }
                } else {
                    failure.message = format!("{}; {} is not written", failure.message, output);
                }
                Err(failure)
            }
            Ok(()) => {
                flushed?;
                target.commit()?;
                let skipped = converter.skipped();
                if skipped > 0 && !crate::failure::quiet() {
                    eprintln!(
                        "flatstream: skipped {} that {} not valid {}",
                        count(skipped, "message"),
                        if skipped == 1 { "is" } else { "are" },
                        plan.root_type()
                    );
                }
                Ok(Status::Ok)
            }
        }
    }

    /// The plan the options ask for: the schema, the root type, the columns.
    fn plan(args: &ExportArgs) -> Result<Plan, Failure> {
        let path = args.table.schema.path();
        let shown = path.display();
        let schema = BinarySchema::load(path).map_err(|e| match e {
            flatstream::arrow::Error::ReadSchema { .. } => Failure::error(e),
            e => Failure::error(format_args!("{shown}: {e}")),
        })?;
        let mut options = Options::new();
        if let Some(root) = &args.table.schema.root_type {
            options.root_type(root.as_str());
        }
        let offset = args.table.offset_column
            || args
                .columns
                .iter()
                .any(|c| c == flatstream::arrow::OFFSET_COLUMN);
        options
            .offset_column(offset)
            .skip_invalid(args.table.skip_invalid)
            .verify_unread(args.table.verify_unread);
        let plan = Plan::new(&schema, &options)
            .map_err(|e| Failure::error(format_args!("{shown}: {e}")))?;
        if args.columns.is_empty() {
            return Ok(plan);
        }
        plan.with_projection_names(&args.columns)
            .map_err(|e| Failure::error(format_args!("--columns: {e}")))
    }

    /// Converts the frames of every input and writes the batches to `sink`.
    fn export(
        args: &ExportArgs,
        plan: &Plan,
        inputs: Vec<Input>,
        converter: &mut Converter,
        sink: &mut Sink,
        rows: &mut u64,
    ) -> Result<(), Failure> {
        let batch = plan.batch_size();
        for mut input in inputs {
            let framed =
                Framed::resolve(&input, &args.table.framing).map_err(|f| f.named(&input.name))?;
            let name = input.name.clone();
            let mut progress = Progress::new("exporting", input.len());
            let walked = framed
                .walk(&mut input, &mut progress, |index, offset, payload| {
                    converter.append(offset, payload).map_err(|e| match e {
                        flatstream::arrow::Error::InvalidFrame { table, reason, .. } => {
                            Failure::damaged(format_args!(
                                "{name}: frame {index} at byte offset {offset}: not a valid \
                                 {table}: {reason}"
                            ))
                        }
                        e => Failure::error(format_args!("{name}: frame {index}: {e}")),
                    })?;
                    if converter.len() >= batch {
                        flush(converter, sink, rows).map_err(|e| e.into_failure(&args.output))?;
                    }
                    Ok(ControlFlow::Continue(()))
                })
                .map_err(|f| f.named(&name))?;
            if let Some(damage) = framed.damage(&walked) {
                return Err(Failure::damaged(format_args!("{name}: {damage}")));
            }
        }
        Ok(())
    }

    /// Writes the rows the converter holds, if any.
    fn flush(converter: &mut Converter, sink: &mut Sink, rows: &mut u64) -> Result<(), WriteError> {
        if converter.is_empty() {
            return Ok(());
        }
        let batch = converter
            .finish()
            .map_err(|e| WriteError::Other(e.to_string()))?;
        sink.write(&batch)?;
        *rows += batch.num_rows() as u64;
        Ok(())
    }

    fn format_name(format: ExportFormat) -> &'static str {
        match format {
            ExportFormat::Parquet => "parquet",
            ExportFormat::Arrow => "arrow",
            ExportFormat::Csv => "csv",
            ExportFormat::Jsonl => "jsonl",
            ExportFormat::Mcap => "mcap",
        }
    }

    /// A failed write: of the output's bytes, or of a writer's own.
    #[derive(Debug)]
    enum WriteError {
        Io(io::Error),
        Other(String),
    }

    impl WriteError {
        /// As a failure of writing OUT (`None` or `-`: stdout, where a closed pipe ends quietly).
        fn into_failure(self, output: &Option<String>) -> Failure {
            let stdout = output.as_deref().is_none_or(|o| o == "-");
            match self {
                WriteError::Io(e) if stdout => Failure::stdout(e),
                WriteError::Io(e) => Failure::io(output.as_deref().unwrap_or("stdout"), e),
                // The CSV writer words the closed pipe it met as text.
                WriteError::Other(_) if stdout && Stdout::closed() => {
                    Failure::stdout(io::ErrorKind::BrokenPipe.into())
                }
                WriteError::Other(why) => Failure::error(format_args!("cannot write: {why}")),
            }
        }
    }

    impl From<ArrowError> for WriteError {
        fn from(e: ArrowError) -> Self {
            match e {
                ArrowError::IoError(_, e) => WriteError::Io(e),
                ArrowError::ExternalError(e) => match e.downcast::<io::Error>() {
                    Ok(e) => WriteError::Io(*e),
                    Err(e) => WriteError::Other(e.to_string()),
                },
                e => WriteError::Other(e.to_string()),
            }
        }
    }

    impl From<ParquetError> for WriteError {
        fn from(e: ParquetError) -> Self {
            match e {
                ParquetError::External(e) => match e.downcast::<io::Error>() {
                    Ok(e) => WriteError::Io(*e),
                    Err(e) => WriteError::Other(e.to_string()),
                },
                ParquetError::ArrowError(why) => WriteError::Other(why),
                e => WriteError::Other(e.to_string()),
            }
        }
    }

    impl From<io::Error> for WriteError {
        fn from(e: io::Error) -> Self {
            WriteError::Io(e)
        }
    }

    type Out = BufWriter<Box<dyn Write + Send>>;

    /// A writer of one of the formats.
    enum Sink {
        Parquet(ArrowWriter<Out>),
        Arrow(ipc::writer::FileWriter<Out>),
        Csv(csv::Writer<Out>),
        Jsonl(json::LineDelimitedWriter<Out>),
        /// Finished: its bytes flushed.
        Done,
    }

    impl Sink {
        fn new(format: ExportFormat, schema: &SchemaRef, out: Out) -> Result<Sink, WriteError> {
            Ok(match format {
                ExportFormat::Parquet => {
                    let props = WriterProperties::builder()
                        .set_compression(Compression::ZSTD(ZstdLevel::default()))
                        .build();
                    Sink::Parquet(ArrowWriter::try_new(out, schema.clone(), Some(props))?)
                }
                ExportFormat::Arrow => Sink::Arrow(ipc::writer::FileWriter::try_new(out, schema)?),
                ExportFormat::Csv => {
                    Sink::Csv(csv::WriterBuilder::new().with_header(true).build(out))
                }
                ExportFormat::Jsonl => Sink::Jsonl(json::LineDelimitedWriter::new(out)),
                ExportFormat::Mcap => unreachable!("export::run sends --to mcap to commands::mcap"),
            })
        }

        fn write(&mut self, batch: &RecordBatch) -> Result<(), WriteError> {
            let written = match self {
                Sink::Parquet(w) => w.write(batch).map_err(WriteError::from),
                Sink::Arrow(w) => w.write(batch).map_err(WriteError::from),
                Sink::Csv(w) => w.write(batch).map_err(WriteError::from),
                Sink::Jsonl(w) => w.write(batch).map_err(WriteError::from),
                Sink::Done => Ok(()),
            };
            if written.is_err() {
                // A writer that failed is not finished (the CSV writer's would panic).
                *self = Sink::Done;
            }
            written
        }

        /// Ends the file (footers), and flushes every byte to the output.
        fn finish(&mut self) -> Result<(), WriteError> {
            let mut out = match std::mem::replace(self, Sink::Done) {
                Sink::Parquet(w) => w.into_inner()?,
                Sink::Arrow(mut w) => {
                    w.finish()?;
                    w.into_inner()?
                }
                Sink::Csv(w) => w.into_inner(),
                Sink::Jsonl(mut w) => {
                    w.finish()?;
                    w.into_inner()
                }
                Sink::Done => return Ok(()),
            };
            out.flush()?;
            Ok(())
        }
    }

    /// Where the bytes go: stdout, or a temporary file beside OUT renamed to OUT on success.
    enum Target {
        Stdout,
        File(Option<Replacing>),
    }

    impl Target {
        fn create(output: &str) -> Result<Target, Failure> {
            if output == "-" {
                return Ok(Target::Stdout);
            }
            Ok(Target::File(Some(Replacing::create(output)?)))
        }

        fn is_stdout(&self) -> bool {
            matches!(self, Target::Stdout)
        }

        fn writer(&self) -> Result<Out, Failure> {
            let out: Box<dyn Write + Send> = match self {
                Target::Stdout => Box::new(Stdout),
                Target::File(file) => {
                    Box::new(file.as_ref().expect("a target is committed once").file()?)
                }
            };
            Ok(BufWriter::with_capacity(1 << 16, out))
        }

        fn failure(&self, e: WriteError) -> Failure {
            match self {
                Target::Stdout => e.into_failure(&None),
                Target::File(file) => {
                    let path = file.as_ref().map_or("OUT", |f| f.path()).to_owned();
                    e.into_failure(&Some(path))
                }
            }
        }

        /// Renames the complete temporary file to OUT.
        fn commit(&mut self) -> Result<(), Failure> {
            match self {
                Target::Stdout => Ok(()),
                Target::File(file) => file.take().expect("a target is committed once").commit(),
            }
        }
    }
}
