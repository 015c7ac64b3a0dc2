//! `flatstream verify`: every frame's checksum and bound, and with a schema every payload's
//! FlatBuffer, with the first error's frame index and byte offset.
//!
//! # The serial path and the parallel one
//!
//! The work is [`verify_run`]: it verifies the frames of one run of bytes that starts at a
//! frame boundary (its stream offset given) and returns a [`Tally`]. Over a small mapped file,
//! or with `--threads 1`, the command calls it once, on the whole file; over a stream,
//! [`verify_reader`] does the same through a `StreamReader`. Over a mapped file of
//! [`PARALLEL_MIN_LEN`] or more, [`verify_parallel`] verifies the splits of the file (as
//! [`ParallelFrames`] cuts it) on every core and folds their tallies in stream order with
//! [`Tally::then`], which renumbers the later split's frame indices, after the join check
//! that makes the splits start where a sequential reader finds frames: the result and the
//! report are then the same as the serial path's, damage included.
//!
//! `FLATSTREAM_SPLIT_LEN`, in the environment, sets the length of the splits (the tests cut
//! small files into splits of a few dozen bytes with it).

mod parallel;
mod run;
mod tally;

pub(crate) use parallel::verify_parallel;
pub(crate) use run::{Options, salvage_bound, verify_reader, verify_run};
pub(crate) use tally::{FrameError, Tally};

use crate::detect::{self, Framing};
use crate::failure::{Failure, Status, count};
use crate::input::{Access, Input};
use crate::options::VerifyArgs;
use crate::progress::Progress;
use crate::schema::Schema;
use crate::walk::ends_inside;
use flatstream::checksum::{Checksum, ChecksumKind, WithChecksum};
use flatstream::{ChecksumDeframer, Error, Frames, StreamReader};
use serde::Serialize;
use std::io::Write;
/// How many threads, and how the stream is split, for [`Job`].
#[derive(Debug, Clone, Copy)]
pub(crate) struct Threads {
    /// Threads to verify on; 1 is the serial path.
    pub(crate) count: usize,
    /// The length of each split, if not `ParallelFrames`' default.
    pub(crate) split_len: Option<usize>,
    /// The bound on payloads for finding where splits start (see [`verify_parallel`]).
    pub(crate) resync_bound: usize,
}

/// `verify_run` (or with threads, `verify_parallel`) with the checksum's static type (one
/// copy of the loop per algorithm).
struct Job<'a> {
    bytes: &'a [u8],
    options: &'a Options<'a>,
    progress: &'a mut Progress,
    threads: Threads,
}

impl WithChecksum for Job<'_> {
    type Output = Result<Tally, Failure>;

    fn with<C: Checksum + Copy + Send + Sync + 'static>(self, checksum: C) -> Self::Output {
        let deframer = ChecksumDeframer::new(checksum);
        if self.threads.count <= 1 {
            return Ok(verify_run(
                self.bytes,
                0,
                &deframer,
                self.options,
                self.progress,
            ));
        }
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.count)
            .build()
            .map_err(|e| Failure::error(format_args!("cannot start the threads: {e}")))?;
        Ok(pool.install(|| {
            verify_parallel(
                self.bytes,
                &deframer,
                self.options,
                self.progress,
                self.threads,
            )
        }))
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
    /// The first of `damage`.
    first_error: Option<&'a FrameError>,
}

pub(crate) fn run(args: &VerifyArgs) -> Result<Status, Failure> {
    let schema = args.schema.load()?;
    crate::failure::each(&args.files, |file, several| {
        run_one(args, schema.as_ref(), file, several)
    })
}

/// Verifies one FILE; `several` when there are others (its lines then start with its name).
fn run_one(
    args: &VerifyArgs,
    schema: Option<&Schema>,
    file: &str,
    several: bool,
) -> Result<Status, Failure> {
    let access = if args.read.no_mmap {
        Access::Stream
    } else {
        Access::Map
    };
    let max = args.read.framing.max();
    let mut input = Input::open(file, access, max)?;
    let framing = args.read.framing.resolve(&input)?;
    let options = Options {
        max_frame_len: max,
        all: args.all,
        salvage_bound: args.read.framing.max_frame_len,
        schema,
        header_len: flatstream::framing::header_len(framing.checksum.size()) as u64,
    };
    let mut progress = Progress::new("verifying", input.len());
    let name = input.name.clone();
    let (tally, bytes) = match input.mapped() {
        Some(bytes) => {
            let threads = threads(
                args.threads.map(usize::from),
                bytes.len(),
                &framing,
                schema.is_some(),
                input.head().0,
                args.read.framing.max_frame_len,
            );
            let job = Job {
                bytes,
                options: &options,
                progress: &mut progress,
                threads,
            };
            let mut tally = framing.kind.dispatch(job).map_err(Failure::error)??;
            tally.judge_torn(bytes, 0, &framing, max);
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
            let mut tally = tally;
            tally.judge_torn(reader.buffer(), reader.position(), &framing, max);
            let bytes = reader.position() + reader.buffer().len() as u64;
            (tally, bytes)
        }
    };
    progress.finish();
    let report = Outcome {
        name: &name,
        several,
        framing: &framing,
        schema,
        tally,
        bytes,
    };
    report.print(args)
}

/// Mapped files from this length on are verified on every core by default. Below it, the
/// serial path is as fast or faster: measured on 2 cores (see `--threads` in `verify --help`),
/// starting the threads and finding the splits costs about a millisecond, which is what the
/// serial path takes for a few MiB, and the gain only shows clearly above that.
pub(crate) const PARALLEL_MIN_LEN: usize = 16 << 20;

/// How many threads to verify `len` mapped bytes on: `given` (`--threads`), else every core
/// for a file of [`PARALLEL_MIN_LEN`] or more. One thread where there is nothing to share out:
/// a stream without a checksum and without a schema is a walk over its headers.
///
/// Splits are found with the bound `--max-frame-len` gives, else with the one salvage uses
/// (1 MiB, or more if the leading frames in `head` are larger).
fn threads(
    given: Option<usize>,
    len: usize,
    framing: &Framing,
    schema: bool,
    head: &[u8],
    max_frame_len: Option<usize>,
) -> Threads {
    let split_len = std::env::var("FLATSTREAM_SPLIT_LEN")
        .ok()
        .and_then(|n| n.parse().ok());
    let work = framing.kind != ChecksumKind::None || schema;
    let count = match given {
        Some(n) => n,
        None if len >= PARALLEL_MIN_LEN => {
            std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
        }
        None => 1,
    };
    let resync_bound = max_frame_len.unwrap_or_else(|| {
        let deframer = ChecksumDeframer::new(framing.checksum);
        let leading = Frames::new(head, deframer).map_while(Result::ok);
        salvage_bound(leading.map(<[u8]>::len).max().unwrap_or(0))
    });
    Threads {
        count: if work { count } else { 1 },
        split_len,
        resync_bound,
    }
}

impl Tally {
    /// Gives the frame that runs past the end of the input the library's verdict: a torn tail,
    /// or a damaged length with intact frames after it ([`ends_inside`]). `bytes` are the
    /// input's last bytes, from stream offset `base` to its end.
    fn judge_torn(&mut self, bytes: &[u8], base: u64, framing: &Framing, max: usize) {
        let Some(torn) = self.damage.iter_mut().find(|e| e.kind == "torn_tail") else {
            return;
        };
        let Some(rest) = torn
            .offset
            .checked_sub(base)
            .and_then(|at| bytes.get(usize::try_from(at).ok()?..))
        else {
            return;
        };
        if let Some(inside) = ends_inside(
            rest,
            torn.offset,
            ChecksumDeframer::new(framing.checksum),
            max,
        ) {
            torn.kind = inside.kind;
            torn.message = inside.words;
            torn.end = Some(inside.resumes_at);
        }
    }
}

/// What verifying one file found, to print.
struct Outcome<'a> {
    name: &'a str,
    /// Whether other files are verified too: text lines then start with `name`.
    several: bool,
    framing: &'a Framing,
    schema: Option<&'a Schema>,
    tally: Tally,
    bytes: u64,
}

impl Outcome<'_> {
    /// Prints the result: on success the `ok` line (or the JSON report); on failure the JSON
    /// report, or with `--all` every damaged range, and the error for stderr.
    fn print(mut self, args: &VerifyArgs) -> Result<Status, Failure> {
        let ok = self.tally.errors == 0;
        let (framing, tally) = (self.framing, &mut self.tally);
        if let Some(first) = tally.damage.first_mut()
            && first.kind != "schema"
        {
            first
                .message
                .push_str(&detect::hint(framing, first.offset, "--checksum"));
        }
        let tally = &self.tally;
        let prefix = if self.several {
            format!("{}: ", self.name)
        } else {
            String::new()
        };
        let mut out = std::io::stdout().lock();
        if args.json {
            let report = Report {
                file: self.name,
                ok,
                framing: framing.kind.to_string(),
                framing_detected: framing.detected,
                schema: self.schema.map(|s| s.root_name),
                bytes: self.bytes,
                tally,
                first_error: tally.first_error(),
            };
            serde_json::to_writer(&mut out, &report).map_err(|e| Failure::stdout(e.into()))?;
            writeln!(out).map_err(Failure::stdout)?;
            // The JSON report holds the errors and their counts.
            return Ok(if ok { Status::Ok } else { Status::Damaged });
        }
        if ok {
            writeln!(out, "{prefix}ok: {}", self.summary()).map_err(Failure::stdout)?;
            return Ok(Status::Ok);
        }
        let first_error = tally.first_error().expect("an error was counted");
        let first = first_error.line();
        if !args.all {
            if first_error.kind == "damaged" {
                // Not a torn tail: what keeps the frames after it is salvage, never a cut.
                return Err(Failure::damaged(format_args!(
                    "{first}; run `flatstream salvage` to keep the intact frames after it"
                )));
            }
            return Err(Failure::damaged(first));
        }
        for e in &tally.damage {
            writeln!(out, "{prefix}{}", e.range_line()).map_err(Failure::stdout)?;
        }
        let unlisted = tally.errors - tally.damage.len() as u64;
        if unlisted > 0 {
            writeln!(
                out,
                "{prefix}({}, not listed)",
                count(unlisted, "more error")
            )
            .map_err(Failure::stdout)?;
        }
        let stopped = match (tally.stopped, framing.kind) {
            (false, _) => "",
            (true, ChecksumKind::None) => {
                " (stopped at a corrupt frame: a stream without a checksum cannot be \
                 resynchronised, any bytes whose length field fits would pass for frames)"
            }
            (true, _) => {
                " (stopped at a corrupt frame: a stream read without mapping, from a pipe or \
                 with --no-mmap, cannot be resynchronised)"
            }
        };
        Err(Failure::damaged(format_args!(
            "{} in {}, {} skipped{stopped}; first: {first}",
            count(tally.errors, "error"),
            count(tally.frames, "frame"),
            count(tally.skipped_bytes, "byte"),
        )))
    }

    /// What an intact stream holds: `N frames, B bytes, ` and what verified.
    fn summary(&self) -> String {
        let (frames, bytes) = (self.tally.frames, self.bytes);
        if bytes == 0 {
            return "0 frames, 0 bytes: an empty stream".to_owned();
        }
        let checked = match self.framing.kind {
            // Nothing to verify but that each length leads to the next frame.
            ChecksumKind::None => "no checksum: frames parse".to_owned(),
            kind => format!("{kind} checksums verify"),
        };
        let against = match self.schema {
            Some(s) => format!(", every payload a valid {}", s.root_name),
            None => String::new(),
        };
        format!(
            "{}, {}, {checked}{against}",
            count(frames, "frame"),
            count(bytes, "byte")
        )
    }
}
