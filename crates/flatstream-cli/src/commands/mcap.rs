//! MCAP, through flatstream-mcap: `export --to mcap` (frames verified against the schema, each
//! a message), `import` (an MCAP file's FlatBuffers messages as a stream) and what `inspect`
//! says of an MCAP file.

#[cfg(not(feature = "mcap"))]
use crate::failure::{Failure, Status};
use crate::options::mcap::ImportArgs;
use crate::options::sql::ExportArgs;

/// The bytes every MCAP file starts with.
const MAGIC: &[u8; 8] = b"\x89MCAP0\r\n";

/// Whether the file at `path` starts as an MCAP file does (`-` is never one: standard input
/// cannot be read twice).
pub(crate) fn is_mcap(path: &str) -> bool {
    use std::io::Read;
    let mut head = [0u8; 8];
    path != "-"
        && std::fs::File::open(path)
            .and_then(|mut f| f.read_exact(&mut head))
            .is_ok()
        && &head == MAGIC
}

#[cfg(feature = "mcap")]
pub(crate) use imp::{export, inspect, run_import};

/// Without the `mcap` feature, MCAP is there only to say so.
#[cfg(not(feature = "mcap"))]
pub(crate) fn export(_args: &ExportArgs) -> Result<Status, Failure> {
    Err(crate::failure::without_mcap("export --to mcap"))
}

/// Without the `mcap` feature, MCAP is there only to say so.
#[cfg(not(feature = "mcap"))]
pub(crate) fn run_import(_args: &ImportArgs) -> Result<Status, Failure> {
    Err(crate::failure::without_mcap("import"))
}

/// Without the `mcap` feature, MCAP is there only to say so.
#[cfg(not(feature = "mcap"))]
pub(crate) fn inspect(_file: &str, _json: bool) -> Result<Status, Failure> {
    Err(crate::failure::without_mcap("inspect of an MCAP file"))
}

#[cfg(feature = "mcap")]
mod imp {
    use super::{ExportArgs, ImportArgs, MAGIC};
    use crate::failure::{Failure, Status, count, quiet};
    use crate::input::{Access, Input, Replacing};
    use crate::options::mcap::{CompressionArg, TimeUnitArg};
    use crate::progress::Progress;
    use crate::walk::Framed;
    use flatstream::checksum::AnyChecksum;
    use flatstream::mcap::{
        Channel, Compression, Error, ExportOptions, Exporter, Messages, Time, TimeUnit,
    };
    use serde::Serialize;
    use std::collections::BTreeMap;
    use std::io::{self, BufReader, BufWriter, Read, Write};
    use std::ops::ControlFlow;

    /// `flatstream export --to mcap`.
    pub(crate) fn export(args: &ExportArgs) -> Result<Status, Failure> {
        if !args.columns.is_empty() || args.table.offset_column {
            return Err(Failure::error(
                "--to mcap writes each message as it is: --columns and --offset-column go \
                 with the table formats",
            ));
        }
        let output = match args.output.as_deref() {
            Some("-") | None => {
                return Err(Failure::error(
                    "--to mcap writes a file, whole or not at all (an MCAP file cut short has \
                     no summary): pass -o OUT, a file",
                ));
            }
            Some(output) => output,
        };
        let options = export_options(args)?;
        let schema = args.table.schema.path();
        let shown = schema.display();
        let bfbs = std::fs::read(schema).map_err(|e| Failure::io(&shown, e))?;
        // Every input is opened before OUT is created: a missing one changes nothing.
        let mut inputs = Vec::with_capacity(args.files.len());
        for file in &args.files {
            let input = Input::open(file, Access::Stream, args.table.framing.max())?;
            input.check_not_output(file, output)?;
            inputs.push(input);
        }
        let target = Replacing::create(output)?;
        let out = BufWriter::with_capacity(1 << 16, target.file()?);
        let mut exporter = Exporter::new(out, &bfbs, &options).map_err(|e| match e {
            Error::TimeField { .. } => Failure::error(format_args!("--time-field: {e}")),
            Error::Io(e) => Failure::io(output, e),
            e => Failure::error(format_args!("{shown}: {e}")),
        })?;
        let mut skipped = 0u64;
        let exported = export_inputs(args, inputs, &mut exporter, &mut skipped, output);
        let finished = exported.and_then(|()| {
            let out = exporter.finish().map_err(|e| written(output, e))?;
            out.into_inner()
                .map_err(|e| Failure::io(output, e.into_error()))?;
            target.commit()
        });
        if let Err(mut failure) = finished {
            if !failure.message.is_empty() {
                failure.message = format!("{}; {output} is not written", failure.message);
            }
            return Err(failure);
        }
        if skipped > 0 && !quiet() {
            eprintln!(
                "flatstream: skipped {} that {} not valid",
                count(skipped, "message"),
                if skipped == 1 { "is" } else { "are" },
            );
        }
        Ok(Status::Ok)
    }

    /// The exporter's options from the command line.
    fn export_options(args: &ExportArgs) -> Result<ExportOptions, Failure> {
        let mcap = &args.mcap;
        let unit = match mcap.time_unit {
            Some(_) if mcap.time_field.is_none() => {
                return Err(Failure::error("--time-unit goes with --time-field"));
            }
            Some(TimeUnitArg::Us) => TimeUnit::Microseconds,
            Some(TimeUnitArg::Ms) => TimeUnit::Milliseconds,
            Some(TimeUnitArg::S) => TimeUnit::Seconds,
            Some(TimeUnitArg::Ns) | None => TimeUnit::Nanoseconds,
        };
        let time = match &mcap.time_field {
            Some(path) => Time::Field {
                path: path.clone(),
                unit,
            },
            None => Time::Index,
        };
        let compression = match mcap.compression {
            Some(CompressionArg::Zstd) | None => Compression::Zstd,
            Some(CompressionArg::Lz4) => Compression::Lz4,
            Some(CompressionArg::None) => Compression::None,
        };
        let mut options = ExportOptions::new().time(time).compression(compression);
        if let Some(root) = &args.table.schema.root_type {
            options = options.root_type(root.as_str());
        }
        Ok(options)
    }

    /// A failure to write OUT.
    fn written(output: &str, e: Error) -> Failure {
        match e {
            Error::Io(e) => Failure::io(output, e),
            e => Failure::error(format_args!("{output}: {e}")),
        }
    }

    /// Writes the frames of every input as messages, a channel per input (or one `--topic`).
    fn export_inputs<W: Write>(
        args: &ExportArgs,
        inputs: Vec<Input>,
        exporter: &mut Exporter<W>,
        skipped: &mut u64,
        output: &str,
    ) -> Result<(), Failure> {
        let mut shared = None;
        for mut input in inputs {
            let name = input.name.clone();
            let channel = match (&args.mcap.topic, shared) {
                (Some(_), Some(channel)) => channel,
                (topic, _) => {
                    let topic = topic.clone().unwrap_or_else(|| default_topic(&name));
                    let channel = exporter.channel(&topic).map_err(|e| written(output, e))?;
                    shared = Some(channel);
                    channel
                }
            };
            let framed =
                Framed::resolve(&input, &args.table.framing).map_err(|f| f.named(&name))?;
            let mut progress = Progress::new("exporting", input.len());
            let walked = framed
                .walk(&mut input, &mut progress, |index, offset, payload| {
                    match exporter.write(channel, payload) {
                        Ok(()) => {}
                        Err(Error::InvalidPayload { .. }) if args.table.skip_invalid => {
                            *skipped += 1;
                        }
                        Err(e @ (Error::InvalidPayload { .. } | Error::Time { .. })) => {
                            return Err(Failure::damaged(format_args!(
                                "{name}: frame {index} at byte offset {offset}: {e}"
                            )));
                        }
                        Err(e) => return Err(written(output, e)),
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

    /// The topic of a FILE's channel: `/` and its name without directories or extension
    /// (`logs/robot-7.fstream` is `/robot-7`; standard input is `/stdin`).
    fn default_topic(name: &str) -> String {
        let stem = std::path::Path::new(name)
            .file_stem()
            .map_or_else(|| name.to_owned(), |s| s.to_string_lossy().into_owned());
        format!("/{stem}")
    }

    /// The messages of the MCAP file `file` (`-`: standard input), checked to start as one;
    /// a file's records are bounded by its length. Its name, and the messages.
    fn open(
        file: &str,
        topics: Option<Vec<String>>,
    ) -> Result<(String, Messages<Box<dyn Read>>), Failure> {
        let (name, mut source, len): (String, Box<dyn Read>, _) = if file == "-" {
            ("stdin".to_owned(), Box::new(io::stdin().lock()), None)
        } else {
            let f = std::fs::File::open(file).map_err(|e| Failure::io(file, e))?;
            let len = f.metadata().map(|m| m.len()).ok();
            (file.to_owned(), Box::new(f), len)
        };
        let mut head = Vec::with_capacity(MAGIC.len());
        (&mut source)
            .take(MAGIC.len() as u64)
            .read_to_end(&mut head)
            .map_err(|e| Failure::io(&name, e))?;
        if head != MAGIC {
            return Err(Failure::error(format_args!(
                "{name}: not an MCAP file (it does not start with MCAP's magic bytes)"
            )));
        }
        let source = io::Cursor::new(head).chain(source);
        let source: Box<dyn Read> = Box::new(BufReader::with_capacity(1 << 16, source));
        let messages = Messages::new(source, topics);
        Ok(match len {
            Some(len) => (name, messages.max_record_len(len)),
            None => (name, messages),
        })
    }

    /// `flatstream import`.
    pub(crate) fn run_import(args: &ImportArgs) -> Result<Status, Failure> {
        let topics = (!args.topic.is_empty()).then(|| args.topic.clone());
        let (name, mut messages) = open(&args.file, topics)?;
        let to = AnyChecksum::new(args.checksum).map_err(Failure::error)?;
        let output = args.out.name();
        let mut writer = args.out.writer(to)?;
        let write_error = |e: flatstream::Error| match e {
            flatstream::Error::Io { .. } => args.out.write_failure(e),
            other => Failure::error(format_args!("{output}: {other}")),
        };
        let mut written = 0u64;
        let mut damage = None;
        for message in messages.by_ref() {
            match message {
                Ok(m) => {
                    writer.write_payload(&m.data).map_err(write_error)?;
                    written += 1;
                }
                Err(e) => {
                    damage = Some(e);
                    break;
                }
            }
        }
        writer.flush().map_err(write_error)?;
        let channels = messages.channels();
        if let Some(e) = damage {
            return Err(Failure::damaged(format_args!(
                "{name}: {e}; {output} holds the {} before it",
                count(written, "message")
            )));
        }
        let imported: Vec<&Channel> = channels
            .iter()
            .filter(|c| {
                c.is_flatbuffer() && (args.topic.is_empty() || args.topic.contains(&c.topic))
            })
            .collect();
        if let Some(missing) = args
            .topic
            .iter()
            .find(|t| !imported.iter().any(|c| &&c.topic == t))
        {
            let listed: Vec<String> = channels.iter().map(describe).collect();
            return Err(Failure::error(format_args!(
                "{name}: no FlatBuffers channel has the topic {missing} (its channels: {})",
                if listed.is_empty() {
                    "none".to_owned()
                } else {
                    listed.join(", ")
                }
            )));
        }
        if let Some(dir) = &args.schema_out {
            write_schemas(dir, &imported)?;
        }
        if !quiet() {
            for c in &channels {
                let taken = imported.iter().any(|i| i.id == c.id);
                eprintln!(
                    "flatstream: {} {} of {}",
                    if taken { "imported" } else { "skipped" },
                    count(c.messages, "message"),
                    describe(c)
                );
            }
            let schemas: BTreeMap<&[u8], ()> =
                imported.iter().map(|c| (&*c.schema_data, ())).collect();
            if schemas.len() > 1 {
                eprintln!(
                    "flatstream: note: {output} mixes the messages of {} schemas: import one \
                     --topic at a time for a stream of one table",
                    schemas.len()
                );
            }
        }
        Ok(Status::Ok)
    }

    /// `/robots (flatbuffer, fleet.Robot)`.
    fn describe(c: &Channel) -> String {
        match &c.schema_name {
            Some(schema) => format!("{} ({}, {schema})", c.topic, c.message_encoding),
            None => format!("{} ({})", c.topic, c.message_encoding),
        }
    }

    /// Writes each channel's schema as `DIR/<schema name>.bfbs` (the channel's id added when
    /// two schemas of one name differ).
    fn write_schemas(dir: &std::path::Path, channels: &[&Channel]) -> Result<(), Failure> {
        std::fs::create_dir_all(dir).map_err(|e| Failure::io(dir.display(), e))?;
        let mut written: BTreeMap<String, &[u8]> = BTreeMap::new();
        for c in channels {
            let stem: String = c
                .schema_name
                .as_deref()
                .unwrap_or("schema")
                .chars()
                .map(|ch| {
                    if ch.is_ascii_alphanumeric() || "._-".contains(ch) {
                        ch
                    } else {
                        '_'
                    }
                })
                .collect();
            let name = match written.get(&stem) {
                Some(data) if *data == &*c.schema_data => continue,
                Some(_) => format!("{stem}.{}", c.id),
                None => stem.clone(),
            };
            let path = dir.join(format!("{name}.bfbs"));
            std::fs::write(&path, &c.schema_data).map_err(|e| Failure::io(path.display(), e))?;
            written.insert(name, &c.schema_data);
        }
        Ok(())
    }

    #[derive(Debug, Serialize)]
    struct ChannelReport<'a> {
        id: u16,
        topic: &'a str,
        message_encoding: &'a str,
        schema: Option<&'a str>,
        schema_encoding: Option<&'a str>,
        messages: u64,
        log_time_min: Option<u64>,
        log_time_max: Option<u64>,
        imported: bool,
    }

    /// What `inspect` says of an MCAP file: every channel, and what import would take.
    pub(crate) fn inspect(file: &str, json: bool) -> Result<Status, Failure> {
        let (name, mut messages) = open(file, None)?;
        for message in messages.by_ref() {
            message.map_err(|e| Failure::damaged(format_args!("{name}: {e}")))?;
        }
        let channels = messages.channels();
        let reports: Vec<ChannelReport<'_>> = channels
            .iter()
            .map(|c| ChannelReport {
                id: c.id,
                topic: &c.topic,
                message_encoding: &c.message_encoding,
                schema: c.schema_name.as_deref(),
                schema_encoding: c.schema_encoding.as_deref(),
                messages: c.messages,
                log_time_min: c.log_times.map(|t| t.0),
                log_time_max: c.log_times.map(|t| t.1),
                imported: c.is_flatbuffer(),
            })
            .collect();
        let mut out = io::stdout().lock();
        let text = if json {
            let report = serde_json::json!({ "file": name, "format": "mcap", "channels": reports });
            format!("{report}\n")
        } else {
            let mut s = format!("{name}: an MCAP file\n");
            let total: u64 = channels.iter().map(|c| c.messages).sum();
            s.push_str(&format!(
                "  channels      {}\n  messages      {total}\n",
                channels.len()
            ));
            if let Some((lo, hi)) = time_range(&channels) {
                s.push_str(&format!("  log time      {lo} .. {hi} ns\n"));
            }
            for c in &channels {
                let times = c.log_times.map_or(String::new(), |(lo, hi)| {
                    format!(", log time {lo} .. {hi} ns")
                });
                s.push_str(&format!(
                    "  channel {}    {}: {}{times}\n",
                    c.id,
                    describe(c),
                    count(c.messages, "message"),
                ));
            }
            let (take, skip): (Vec<&Channel>, Vec<&Channel>) =
                channels.iter().partition(|c| c.is_flatbuffer());
            let sum = |cs: &[&Channel]| cs.iter().map(|c| c.messages).sum::<u64>();
            s.push_str(&format!(
                "  import takes  {} of {} (flatbuffer); skips {} of {}\n",
                count(sum(&take), "message"),
                count(take.len() as u64, "channel"),
                count(sum(&skip), "message"),
                count(skip.len() as u64, "channel"),
            ));
            s
        };
        out.write_all(text.as_bytes()).map_err(Failure::stdout)?;
        Ok(Status::Ok)
    }

    /// The least and greatest log time of every channel's messages.
    fn time_range(channels: &[Channel]) -> Option<(u64, u64)> {
        channels
            .iter()
            .filter_map(|c| c.log_times)
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)))
    }
}
