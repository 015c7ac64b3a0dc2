//! `flatstream pack`: JSON lines in, a stream out, through a binary schema; the inverse of
//! `cat --schema`.
//!
//! Each line is parsed ([`value`]), built into a FlatBuffer by the schema's reflection
//! ([`build`]), verified against the schema as `verify --schema` verifies, and only then
//! handed to a [`StreamWriter`](flatstream::StreamWriter) as one frame. A line that fails any
//! step stops the command before any of its bytes are written, so the output holds the whole
//! frames of the lines before it.

mod build;
mod bytes;
mod pieces;
mod scalar;
#[cfg(test)]
mod tests;
mod value;

use crate::failure::{Failure, Status};
use crate::input::same_file;
use crate::options::PackArgs;
use crate::schema::Schema;
use build::Packer;
use flatbuffers::FlatBufferBuilder;
use flatstream::Error;
use flatstream::checksum::AnyChecksum;
use std::fs::File;
use std::io::{self, BufRead, BufReader};
use std::path::Path;

/// An input of JSON lines, open.
struct Source {
    /// The name to print: the path, or "stdin".
    name: String,
    reader: Box<dyn BufRead>,
}

pub(crate) fn run(args: &PackArgs) -> Result<Status, Failure> {
    let schema = Schema::load(args.schema.path(), args.schema.root_type.as_deref())?;
    // Every input is opened before OUT is created: a missing one changes nothing.
    let sources = open_sources(&args.files, &args.out.output)?;
    let checksum = AnyChecksum::new(args.checksum).map_err(Failure::error)?;
    let output = args.out.name();
    let mut writer = args.out.writer(checksum)?;
    let write_error = |e| args.out.write_failure(e);

    let packer = Packer::new(&schema, args.bytes);
    let mut verifier = schema.verifier();
    let mut builder = FlatBufferBuilder::with_capacity(1024);
    let mut line = Vec::new();
    let mut frames = 0u64;
    let packed = || -> Result<(), Failure> {
        for mut source in sources {
            let mut number = 0u64;
            loop {
                line.clear();
                let read = source
                    .reader
                    .read_until(b'\n', &mut line)
                    .map_err(|e| Failure::io(&source.name, e))?;
                if read == 0 {
                    break;
                }
                number += 1;
                let bad = |why: &dyn std::fmt::Display| {
                    let s = if frames == 1 { "" } else { "s" };
                    Failure::damaged(format_args!(
                        "{}: line {number}: {why}; {output} holds the {frames} frame{s} before it",
                        source.name
                    ))
                };
                let Some(payload) = pack_line(&line, &packer, &mut builder).map_err(|e| bad(&e))?
                else {
                    continue;
                };
                verifier.verify(payload).map_err(|why| {
                    bad(&format_args!(
                        "the message built from it does not verify: {why}"
                    ))
                })?;
                writer.write_payload(payload).map_err(|e| match e {
                    Error::FrameTooLarge { .. } => bad(&e),
                    e => write_error(e),
                })?;
                frames += 1;
            }
        }
        Ok(())
    };
    let packed = packed();
    // Whatever happened, the frames packed reach OUT.
    let flushed = writer.flush().map_err(write_error);
    packed?;
    flushed?;
    Ok(Status::Ok)
}

/// Opens every input (`-`, or none at all, is standard input, which can be read once),
/// refusing one that is `output`.
fn open_sources(files: &[String], output: &str) -> Result<Vec<Source>, Failure> {
    let stdin = ["-".to_owned()];
    let files = if files.is_empty() { &stdin[..] } else { files };
    if files.iter().filter(|f| *f == "-").count() > 1 {
        return Err(Failure::error("standard input (-) can be read only once"));
    }
    let mut sources = Vec::with_capacity(files.len());
    for path in files {
        if path == "-" {
            sources.push(Source {
                name: "stdin".to_owned(),
                reader: Box::new(io::stdin().lock()),
            });
            continue;
        }
        if output != "-" && same_file(Path::new(path), Path::new(output)) {
            return Err(Failure::error(format_args!(
                "{output} is an input file: write to another file"
            )));
        }
        let file = File::open(path).map_err(|e| Failure::io(path, e))?;
        if file.metadata().is_ok_and(|m| m.is_dir()) {
            return Err(Failure::error(format_args!("{path}: is a directory")));
        }
        sources.push(Source {
            name: path.clone(),
            reader: Box::new(BufReader::with_capacity(1 << 16, file)),
        });
    }
    Ok(sources)
}

/// Builds `line` (its newline included, if any) into `builder`: the finished FlatBuffer, or
/// `None` for a blank line, or why the line is not a message of the schema.
fn pack_line<'b>(
    line: &[u8],
    packer: &Packer<'_>,
    builder: &'b mut FlatBufferBuilder<'static>,
) -> Result<Option<&'b [u8]>, String> {
    let text = std::str::from_utf8(line).map_err(|e| {
        let before = String::from_utf8_lossy(&line[..e.valid_up_to()]);
        format!("not UTF-8 at column {}", before.chars().count() + 1)
    })?;
    if text.trim().is_empty() {
        return Ok(None);
    }
    let value = value::parse(text).map_err(|e| e.to_string())?;
    builder.reset();
    match packer.message(&value, builder) {
        Ok(()) => Ok(Some(builder.finished_data())),
        Err(bad) => {
            builder.reset();
            Err(bad.to_string())
        }
    }
}
