//! `flatstream cat`: each message as a line of JSON (with a schema) or of hex (without); and
//! the printing of a frame, which `tail` shares.

use crate::detect;
use crate::failure::{Failure, Status};
use crate::input::{Access, Input};
use crate::json::{Printer, base64, hex};
use crate::options::{BytesFormat, CatArgs, Format, PrintArgs};
use crate::progress::Progress;
use crate::schema::{Schema, Verifier};
use crate::walk::walk;
use flatstream::{ChecksumDeframer, StreamReader};
use std::io::{BufWriter, Write};
use std::ops::ControlFlow;

/// Payload bytes shown by the hex format.
const PREVIEW: usize = 32;

/// Prints frames as `cat` does: with a schema, each message verified and printed as one line
/// of JSON; without, one line of hex (or of JSON with the raw payload).
pub(crate) struct FramePrinter<'s> {
    format: Format,
    bytes: BytesFormat,
    schema_name: &'static str,
    printer: Option<Printer<'s>>,
    verifier: Option<Verifier<'s>>,
    line: Vec<u8>,
}

impl<'s> FramePrinter<'s> {
    /// Prints with `schema` (if any) as `args` say.
    pub(crate) fn new(schema: Option<&'s Schema>, args: &PrintArgs) -> Self {
        let format = args.format.unwrap_or(if schema.is_some() {
            Format::Json
        } else {
            Format::Hex
        });
        FramePrinter {
            format,
            bytes: args.bytes,
            schema_name: schema.map_or("a message", |s| s.root_name),
            printer: schema.map(|s| Printer::new(s, args.bytes)),
            verifier: schema.map(Schema::verifier),
            line: Vec::with_capacity(256),
        }
    }

    /// Writes the line of frame `index`, at stream offset `offset`, to `out`. A payload that
    /// the schema rejects is an error of that frame (exit status 1); a failed write is
    /// [`Failure::stdout`]'s.
    pub(crate) fn print(
        &mut self,
        index: u64,
        offset: u64,
        payload: &[u8],
        out: &mut impl Write,
    ) -> Result<(), Failure> {
        let bad = |why: String| {
            Failure::damaged(format_args!("frame {index} at byte offset {offset}: {why}"))
        };
        if let Some(verifier) = &mut self.verifier {
            verifier.verify(payload).map_err(bad)?;
        }
        let line = &mut self.line;
        line.clear();
        match (self.format, &self.printer) {
            (Format::Json, Some(printer)) => {
                printer.message(payload, line).map_err(|why| {
                    bad(format!("cannot print it as {}: {why}", self.schema_name))
                })?;
            }
            (Format::Json, None) => {
                let _ = write!(
                    line,
                    "{{\"index\":{index},\"offset\":{offset},\"size\":{},\"payload\":",
                    payload.len()
                );
                line.push(b'"');
                match self.bytes {
                    BytesFormat::Base64 => base64(payload, line),
                    BytesFormat::Hex => hex(payload, line),
                }
                line.extend_from_slice(b"\"}");
            }
            (Format::Hex, _) => {
                let _ = write!(
                    line,
                    "frame {index} offset {offset} size {}: ",
                    payload.len()
                );
                for (i, b) in payload.iter().take(PREVIEW).enumerate() {
                    let sep = if i == 0 { "" } else { " " };
                    let _ = write!(line, "{sep}{b:02x}");
                }
                if payload.len() > PREVIEW {
                    line.extend_from_slice(" \u{2026}".as_bytes());
                }
            }
        }
        line.push(b'\n');
        out.write_all(line).map_err(Failure::stdout)
    }
}

/// Loads the schema `args` name, if any.
pub(crate) fn load_schema(args: &PrintArgs) -> Result<Option<Schema>, Failure> {
    match &args.schema.schema {
        Some(path) => Ok(Some(Schema::load(path, args.schema.root_type.as_deref())?)),
        None => Ok(None),
    }
}

pub(crate) fn run(args: &CatArgs) -> Result<Status, Failure> {
    // A stream, whatever the input: memory stays bounded by the largest frame.
    let mut input = Input::open(&args.file, Access::Stream)?;
    let schema = load_schema(&args.print)?;
    let max = args.read.framing.max();
    let (head, complete) = input.head();
    let framing = args.read.framing.resolve(head, complete)?;
    let head = head.to_vec();
    let mut printer = FramePrinter::new(schema.as_ref(), &args.print);

    let name = input.name.clone();
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut printed = 0u64;
    // The output is the progress here; no bar.
    let mut progress = Progress::new("printing", None).hidden();
    let mut reader = StreamReader::new(input.reader(), ChecksumDeframer::new(framing.checksum))
        .with_max_frame_len(max);
    let walked = walk(
        &mut reader,
        &name,
        &mut progress,
        |index, offset, payload| {
            if index < args.skip {
                return Ok(ControlFlow::Continue(()));
            }
            if args.limit.is_some_and(|limit| printed >= limit) {
                return Ok(ControlFlow::Break(()));
            }
            printer.print(index, offset, payload, &mut out)?;
            printed += 1;
            Ok(ControlFlow::Continue(()))
        },
    );
    let flushed = out.flush().map_err(Failure::stdout);
    let walked = walked?;
    flushed?;
    match walked.end.damage(walked.frames) {
        Some(mut damage) => {
            let offset = walked.end.damage_offset().unwrap_or(0);
            damage.push_str(&detect::hint(
                &framing,
                offset,
                &head,
                complete,
                max,
                "--checksum",
            ));
            Err(Failure::damaged(damage))
        }
        None => Ok(Status::Ok),
    }
}
