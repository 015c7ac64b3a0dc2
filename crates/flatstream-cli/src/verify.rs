//! `flatstream verify`: every frame's checksum and bound, and with a schema every payload's
//! FlatBuffer, with the first error's frame index and byte offset.
//!
//! # The serial path, and where a parallel one plugs in
//!
//! The work is [`verify_run`]: it verifies the frames of one run of bytes that starts at a
//! frame boundary (its stream offset given) and returns a [`Tally`]. Over a mapped file the
//! command calls it once, on the whole file, single-threaded; over a stream, [`verify_reader`]
//! does the same through a `StreamReader`. A parallel driver (split reading of a mapped file)
//! calls `verify_run` on each split, one per thread, and folds the tallies in stream order with
//! [`Tally::then`], which renumbers the later split's frame indices: the result and the report
//! are then the same as the serial path's.

use crate::detect::{self, Framing};
use crate::failure::{Failure, Status};
use crate::input::{Access, Input};
use crate::options::VerifyArgs;
use crate::progress::Progress;
use crate::schema::{Schema, Verifier};
use crate::walk::describe;
use flatstream::frame::DEFAULT_MAX_FRAME_LEN;
use flatstream::{
    Checksum, ChecksumDeframer, Deframer, Error, Frames, MessageReader, Salvage, Salvaged,
    StreamReader, WithChecksum,
};
use serde::Serialize;
use std::io::Write;

/// One frame that failed.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FrameError {
    /// Frames verified before it (its index among the intact frames).
    pub(crate) index: u64,
    /// Stream offset of its first byte.
    pub(crate) offset: u64,
    /// "checksum", "too_large", "torn_tail", "schema", "damage" (a range with no frame that
    /// verifies, after a corrupt frame, with `--all`) or "io".
    pub(crate) kind: &'static str,
    /// What is wrong, in words.
    pub(crate) message: String,
}

impl FrameError {
    fn new(index: u64, offset: u64, error: &Error) -> Self {
        let kind = match error {
            Error::ChecksumMismatch { .. } => "checksum",
            Error::FrameTooLarge { .. } => "too_large",
            Error::UnexpectedEof { .. } => "torn_tail",
            Error::InvalidFlatbuffer { .. } | Error::Validation { .. } => "schema",
            _ => "io",
        };
        FrameError {
            index,
            offset,
            kind,
            message: describe(error),
        }
    }
}

/// What verifying a run of frames found. Tallies of consecutive runs fold with
/// [`then`](Self::then).
#[derive(Debug, Clone, Default, Serialize)]
pub(crate) struct Tally {
    /// Frames whose checksum (and schema, if any) verified, and those that failed the schema.
    pub(crate) frames: u64,
    /// Their payload bytes.
    pub(crate) payload_bytes: u64,
    /// Errors: frames that failed the schema, corrupt frames and damaged byte ranges.
    pub(crate) errors: u64,
    /// Bytes skipped as damage (with `--all`, after a corrupt frame).
    pub(crate) skipped_bytes: u64,
    /// The first error.
    pub(crate) first_error: Option<FrameError>,
    /// Whether verification stopped before the end of the run (at the first error).
    #[serde(skip)]
    pub(crate) stopped: bool,
}

impl Tally {
    /// Folds in the tally of the run that follows this one in the stream.
    pub(crate) fn then(mut self, later: Tally) -> Tally {
        if self.first_error.is_none() {
            self.first_error = later.first_error.map(|mut e| {
                e.index += self.frames;
                e
            });
        }
        self.frames += later.frames;
        self.payload_bytes += later.payload_bytes;
        self.errors += later.errors;
        self.skipped_bytes += later.skipped_bytes;
        self.stopped |= later.stopped;
        self
    }

    fn error(&mut self, e: FrameError) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some(e);
        }
    }

    /// Counts an intact frame and checks its payload against the schema, if any. Returns
    /// whether it passed.
    #[inline(always)]
    fn frame(&mut self, payload: &[u8], offset: u64, schema: &mut Option<Verifier<'_>>) -> bool {
        let index = self.frames;
        self.frames += 1;
        self.payload_bytes += payload.len() as u64;
        if let Some(verifier) = schema
            && let Err(why) = verifier.verify(payload)
        {
            self.error(FrameError {
                index,
                offset,
                kind: "schema",
                message: why,
            });
            return false;
        }
        true
    }
}

/// What `verify_run` needs besides the bytes.
pub(crate) struct Options<'a> {
    pub(crate) max_frame_len: usize,
    /// Keep going after errors.
    pub(crate) all: bool,
    /// The bound used to resynchronise after a corrupt frame with `all`.
    pub(crate) salvage_bound: Option<usize>,
    pub(crate) schema: Option<&'a Schema>,
}

/// Verifies the frames of `bytes`, which start at a frame boundary at stream offset `base`.
///
/// Without `all`, stops at the first error. With it, goes on after a schema error, and after
/// a corrupt frame resynchronises on the next frame that verifies, as [`Salvage`] does,
/// counting each damaged range as one error.
pub(crate) fn verify_run<D: Deframer>(
    bytes: &[u8],
    base: u64,
    deframer: &D,
    options: &Options<'_>,
    progress: &mut Progress,
) -> Tally {
    let mut tally = Tally::default();
    let mut schema = options.schema.map(Schema::verifier);
    let mut frames = Frames::new(bytes, deframer).with_max_frame_len(options.max_frame_len);
    let mut largest = 0;
    loop {
        let at = frames.position();
        progress.update(base + at);
        match frames.next() {
            None => return tally,
            Some(Ok(payload)) => {
                largest = largest.max(payload.len());
                if !tally.frame(payload, base + at, &mut schema) && !options.all {
                    tally.stopped = true;
                    return tally;
                }
            }
            Some(Err(e)) => {
                tally.error(FrameError::new(tally.frames, base + at, &e));
                if !options.all {
                    tally.stopped = true;
                    return tally;
                }
                let bound = options
                    .salvage_bound
                    .unwrap_or_else(|| salvage_bound(largest));
                let rest = resync(
                    &bytes[at as usize..],
                    base + at,
                    deframer,
                    bound.min(options.max_frame_len),
                    &mut schema,
                    progress,
                );
                return tally.then(rest);
            }
        }
    }
}

/// Verifies what follows a corrupt frame at stream offset `base`, the start of `bytes`:
/// [`Salvage`] resynchronises on each next frame that verifies; each damaged range after the
/// first (which holds the corrupt frame, already reported) counts as one error.
fn resync<D: Deframer>(
    bytes: &[u8],
    base: u64,
    deframer: &D,
    bound: usize,
    schema: &mut Option<Verifier<'_>>,
    progress: &mut Progress,
) -> Tally {
    let mut tally = Tally::default();
    for item in Salvage::new(bytes, deframer, bound) {
        match item {
            Salvaged::Frame { offset, payload } => {
                progress.update(base + offset);
                tally.frame(payload, base + offset, schema);
            }
            Salvaged::Skipped { start, end } => {
                tally.skipped_bytes += end - start;
                if start != 0 {
                    tally.error(FrameError {
                        index: tally.frames,
                        offset: base + start,
                        kind: "damage",
                        message: format!(
                            "bytes {}..{} hold no frame that verifies",
                            base + start,
                            base + end
                        ),
                    });
                }
            }
            Salvaged::Rejected { offset, error, .. } => {
                tally.error(FrameError::new(tally.frames, base + offset, &error));
            }
            // `Salvaged` may grow; nothing else is produced by a plain deframer.
            _ => {}
        }
    }
    tally
}

/// The bound for resynchronising after damage when none is given: 1 MiB, or the power of two
/// at or above the largest payload seen if that is larger (see `salvage --help`).
pub(crate) fn salvage_bound(largest: usize) -> usize {
    largest
        .checked_next_power_of_two()
        .unwrap_or(usize::MAX)
        .max(1 << 20)
}

/// Verifies a stream read through `reader`. A corrupt frame ends it even with `all`: a stream
/// cannot be resynchronised without its bytes at hand (a mapped file can).
pub(crate) fn verify_reader<M: MessageReader>(
    reader: &mut M,
    options: &Options<'_>,
    progress: &mut Progress,
) -> Result<Tally, Error> {
    let mut tally = Tally::default();
    let mut schema = options.schema.map(Schema::verifier);
    loop {
        let at = reader.position();
        progress.update(at);
        match reader.read_message() {
            Ok(None) => return Ok(tally),
            Ok(Some(payload)) => {
                if !tally.frame(payload, at, &mut schema) && !options.all {
                    tally.stopped = true;
                    return Ok(tally);
                }
            }
            Err(e @ Error::Io { .. }) => return Err(e),
            Err(e) => {
                tally.error(FrameError::new(tally.frames, at, &e));
                tally.stopped = true;
                return Ok(tally);
            }
        }
    }
}

/// `verify_run` with the checksum's static type (one copy of the loop per algorithm).
struct Job<'a> {
    bytes: &'a [u8],
    options: &'a Options<'a>,
    progress: &'a mut Progress,
}

impl WithChecksum for Job<'_> {
    type Output = Tally;

    fn with<C: Checksum + Copy + Send + Sync + 'static>(self, checksum: C) -> Tally {
        verify_run(
            self.bytes,
            0,
            &ChecksumDeframer::new(checksum),
            self.options,
            self.progress,
        )
    }
}

#[derive(Debug, Serialize)]
struct Report<'a> {
    file: &'a str,
    ok: bool,
    framing: String,
    framing_detected: bool,
    schema: Option<&'a str>,
    bytes: u64,
    #[serde(flatten)]
    tally: &'a Tally,
}

pub(crate) fn run(args: &VerifyArgs) -> Result<Status, Failure> {
    let access = if args.read.no_mmap {
        Access::Stream
    } else {
        Access::Map
    };
    let mut input = Input::open(&args.file, access)?;
    let schema = match &args.schema.schema {
        Some(path) => Some(Schema::load(path, args.schema.root_type.as_deref())?),
        None => None,
    };
    let max = args.read.max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN);
    let (head, complete) = input.head();
    let framing = detect::resolve(args.read.checksum, head, complete, max, "--checksum")?;
    let head = head.to_vec();
    let options = Options {
        max_frame_len: max,
        all: args.all,
        salvage_bound: args.read.max_frame_len,
        schema: schema.as_ref(),
    };
    let mut progress = Progress::new("verifying", input.len());
    let name = input.name.clone();
    let (tally, bytes) = match input.mapped() {
        Some(bytes) => {
            let job = Job {
                bytes,
                options: &options,
                progress: &mut progress,
            };
            let tally = framing.kind.dispatch(job).map_err(Failure::error)?;
            (tally, bytes.len() as u64)
        }
        None => {
            let deframer = ChecksumDeframer::new(framing.checksum);
            let mut reader = StreamReader::new(input.reader(), deframer).with_max_frame_len(max);
            let tally =
                verify_reader(&mut reader, &options, &mut progress).map_err(|e| match e {
                    Error::Io { source, .. } => Failure::io(&name, source),
                    other => Failure::error(other),
                })?;
            let bytes = reader.position() + reader.buffer().len() as u64;
            (tally, bytes)
        }
    };
    progress.finish();
    report(
        &name,
        &framing,
        schema.as_ref(),
        &tally,
        bytes,
        args,
        &head,
        complete,
        max,
    )
}

#[allow(clippy::too_many_arguments)]
fn report(
    name: &str,
    framing: &Framing,
    schema: Option<&Schema>,
    tally: &Tally,
    bytes: u64,
    args: &VerifyArgs,
    head: &[u8],
    complete: bool,
    max: usize,
) -> Result<Status, Failure> {
    let ok = tally.errors == 0;
    let mut first = tally.first_error.clone();
    if let Some(e) = &mut first
        && e.kind != "schema"
    {
        e.message.push_str(&detect::hint(
            framing,
            e.offset,
            head,
            complete,
            max,
            "--checksum",
        ));
    }
    let mut out = std::io::stdout().lock();
    if args.json {
        let mut tally = tally.clone();
        tally.first_error = first.clone();
        let report = Report {
            file: name,
            ok,
            framing: framing.kind.to_string(),
            framing_detected: framing.detected,
            schema: schema.map(|s| s.root_name),
            bytes,
            tally: &tally,
        };
        serde_json::to_writer(&mut out, &report).map_err(|e| Failure::stdout(e.into()))?;
        writeln!(out).map_err(Failure::stdout)?;
    } else if ok {
        let against = match schema {
            Some(s) => format!(", every payload a valid {}", s.root_name),
            None => String::new(),
        };
        writeln!(
            out,
            "ok: {} frames, {bytes} bytes, {} checksums verify{against}",
            tally.frames, framing.kind
        )
        .map_err(Failure::stdout)?;
    }
    if ok {
        return Ok(Status::Ok);
    }
    let first = first.expect("an error was counted");
    let line = format!(
        "frame {} at byte offset {}: {}",
        first.index, first.offset, first.message
    );
    if !args.all || args.json {
        // The JSON report already holds the counts.
        if args.json {
            return Ok(Status::Damaged);
        }
        return Err(Failure::damaged(line));
    }
    let stopped = if tally.stopped {
        " (stopped at a corrupt frame: a stream read without mapping, from a pipe or with \
         --no-mmap, cannot be resynchronised)"
    } else {
        ""
    };
    Err(Failure::damaged(format_args!(
        "{} error(s) in {} frames, {} bytes skipped{stopped}; first: {line}",
        tally.errors, tally.frames, tally.skipped_bytes
    )))
}
