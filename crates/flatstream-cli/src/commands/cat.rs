//! `flatstream cat`: each message as a line of JSON (with a schema) or of hex (without); and
//! the printing of a frame, which `tail` shares.

use crate::failure::{Failure, Status};
use crate::input::{Access, Input};
use crate::json::{Printer, base64, hex};
use crate::options::{BytesFormat, CatArgs, Format, PrintArgs};
use crate::progress::Progress;
use crate::schema::{Schema, Verifier};
use crate::walk::Framed;
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
    /// Printed before each hex line (`FILE: `) when `cat` prints several files.
    hex_prefix: Vec<u8>,
    /// Printed first in each raw JSON object (`"file":"FILE",`) when `cat` prints several.
    json_prefix: Vec<u8>,
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
            hex_prefix: Vec::new(),
            json_prefix: Vec::new(),
        }
    }

    /// Names the file each line comes from (`cat` of several files), or none.
    pub(crate) fn name_file(&mut self, name: Option<&str>) {
        self.hex_prefix.clear();
        self.json_prefix.clear();
        if let Some(name) = name {
            self.hex_prefix = format!("{name}: ").into_bytes();
            let quoted = serde_json::to_string(name).unwrap_or_default();
            self.json_prefix = format!("\"file\":{quoted},").into_bytes();
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
                line.push(b'{');
                line.extend_from_slice(&self.json_prefix);
                let size = payload.len() as u64;
                numbers(
                    line,
                    [
                        (b"\"index\":", index),
                        (b",\"offset\":", offset),
                        (b",\"size\":", size),
                    ],
                );
                line.extend_from_slice(b",\"payload\":\"");
                match self.bytes {
                    BytesFormat::Base64 => base64(payload, line),
                    BytesFormat::Hex => hex(payload, line),
                }
                line.extend_from_slice(b"\"}");
            }
            (Format::Hex, _) => {
                line.extend_from_slice(&self.hex_prefix);
                let size = payload.len() as u64;
                numbers(
                    line,
                    [(b"frame ", index), (b" offset ", offset), (b" size ", size)],
                );
                line.extend_from_slice(b": ");
                spaced_hex(&payload[..payload.len().min(PREVIEW)], line);
                if payload.len() > PREVIEW {
                    line.extend_from_slice(" \u{2026}".as_bytes());
                }
            }
        }
        line.push(b'\n');
        out.write_all(line).map_err(Failure::stdout)
    }
}

/// Each label followed by its number in decimal, appended to `out`: a frame's index, offset
/// and size, as the JSON and hex formats label them.
fn numbers(out: &mut Vec<u8>, labelled: [(&[u8], u64); 3]) {
    for (label, n) in labelled {
        out.extend_from_slice(label);
        decimal(n, out);
    }
}

/// `n` in decimal, appended to `out` (what `write!` does, without its formatting machinery:
/// the hex format prints three numbers a frame).
fn decimal(mut n: u64, out: &mut Vec<u8>) {
    let mut digits = [0u8; 20];
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    out.extend_from_slice(&digits[at..]);
}

/// Each byte of `bytes` as two lowercase hex digits, separated by spaces, appended to `out`:
/// one table lookup a byte into a buffer reserved once.
fn spaced_hex(bytes: &[u8], out: &mut Vec<u8>) {
    /// "00 " to "ff ", three bytes each.
    const TABLE: [[u8; 3]; 256] = {
        const DIGITS: &[u8; 16] = b"0123456789abcdef";
        let mut table = [[b' '; 3]; 256];
        let mut b = 0;
        while b < 256 {
            table[b] = [DIGITS[b >> 4], DIGITS[b & 15], b' '];
            b += 1;
        }
        table
    };
    out.reserve(bytes.len() * 3);
    for &b in bytes {
        out.extend_from_slice(&TABLE[usize::from(b)]);
    }
    if !bytes.is_empty() {
        out.pop(); // the last byte's space
    }
}

pub(crate) fn run(args: &CatArgs) -> Result<Status, Failure> {
    let schema = args.print.schema.load()?;
    let mut printer = FramePrinter::new(schema.as_ref(), &args.print);
    crate::failure::each(&args.files, |file, several| {
        run_one(args, &mut printer, file, several)
    })
}

/// Prints the frames of one FILE; `several` when there are others (lines then name it).
fn run_one(
    args: &CatArgs,
    printer: &mut FramePrinter<'_>,
    file: &str,
    several: bool,
) -> Result<Status, Failure> {
    // A stream, whatever the input: memory stays bounded by the largest frame.
    let mut input = Input::open(file, Access::Stream, args.read.framing.max())?;
    let framed = Framed::resolve(&input, &args.read.framing)?;
    printer.name_file(several.then_some(input.name.as_str()));

    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    let mut printed = 0u64;
    // The output is the progress here; no bar.
    let mut progress = Progress::new("printing", None).hidden();
    let walked = framed.walk(&mut input, &mut progress, |index, offset, payload| {
        if index < args.skip {
            return Ok(ControlFlow::Continue(()));
        }
        if args.limit.is_some_and(|limit| printed >= limit) {
            return Ok(ControlFlow::Break(())); // --limit 0
        }
        printer.print(index, offset, payload, &mut out)?;
        printed += 1;
        // Stop at the limit, before reading the next frame: what follows the frames asked
        // for is not read, so damage there is not an error of this command, as with head.
        if args.limit.is_some_and(|limit| printed >= limit) {
            return Ok(ControlFlow::Break(()));
        }
        Ok(ControlFlow::Continue(()))
    });
    let flushed = out.flush().map_err(Failure::stdout);
    let walked = walked?;
    flushed?;
    match framed.damage(&walked) {
        Some(damage) => Err(Failure::damaged(damage)),
        None => Ok(Status::Ok),
    }
}
