//! The `schema_verify` workload: `flatstream verify CAPTURE` and
//! `flatstream verify --schema S.bfbs CAPTURE` as the command runs them over a file, through the
//! library calls it makes, so that the benchmark times the work a user's command does.
//!
//! [`verify_file`] is the command's path over a mapped file of an intact stream
//! (`crates/flatstream-cli/src/commands/verify/`), with its defaults (no option but the
//! schema):
//!
//! 1. the file is opened and memory-mapped, with sequential read-ahead asked for, and the
//!    framing is detected from its head ([`detect`], as many leading bytes as it asks for);
//! 2. the checksum's static type is chosen once ([`ChecksumKind::dispatch`]);
//! 3. a file of [`PARALLEL_MIN_LEN`] or more, with a checksum or a schema to check, is verified
//!    on a new rayon pool of one thread per core: cut into [`ParallelFrames`]' splits, each split's
//!    first frame found by resynchronization with the bound the leading frames give
//!    (`salvage_bound`), its frames read with [`SplitFrames`], the splits' tallies folded in
//!    stream order after the join check (a split counts only where the one before it ended);
//!    a smaller file is read on the calling thread with [`Frames`];
//! 4. every frame's checksum is verified by the deframer, and with a schema every payload is
//!    verified by a [`SchemaCheck`]: [`Compiled`] (the command now) or [`Reflection`] (the
//!    command before flatstream-reflect's compiled verifier, `flatbuffers-reflection`'s
//!    `SafeBuffer`).
//!
//! Plain `verify` and `verify --schema` differ in step 4 alone. Left out, on every side alike:
//! starting the process, loading the schema (once, before timing), the progress bar (none
//! outside a terminal) and printing the one `ok` line; and the paths a damaged stream takes
//! (`--all`'s resynchronization, the damage report), which an intact capture never reaches.

mod captures;
mod checks;

pub use captures::{
    LOG_FRAMES, LogLine, TELEMETRY_FRAMES, demo_reading, fb, log_capture, log_line,
    telemetry_capture,
};
pub use checks::{Compiled, Reflection, SchemaCheck};

use flatstream::checksum::{AnyChecksum, Checksum, ChecksumKind, Detection, WithChecksum, detect};
use flatstream::framing::DEFAULT_MAX_FRAME_LEN;
use flatstream::read::MappedFile;
use flatstream::split::{ParallelFrames, SplitFrames};
use flatstream::{ChecksumDeframer, Deframer, Error, Frames};
use rayon::prelude::*;
use std::fs::File;
use std::io;
use std::ops::Range;
use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

/// Mapped files from this length on are verified on every core (the command's
/// `PARALLEL_MIN_LEN`).
pub const PARALLEL_MIN_LEN: usize = 16 << 20;

/// What verifying found: the command's counts, and its first error.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Tally {
    /// Frames whose checksum (and schema, if any) verified, and those that failed the schema.
    pub frames: u64,
    /// Their payload bytes.
    pub payload_bytes: u64,
    /// Frames that failed, a corrupt frame included.
    pub errors: u64,
    /// The first error: its stream offset and what is wrong.
    pub first_error: Option<(u64, String)>,
    /// Whether verification stopped before the end of the run (at the first error).
    stopped: bool,
    /// The largest payload read.
    largest: usize,
}

impl Tally {
    /// Folds in the tally of the run that follows this one in the stream.
    fn then(mut self, later: Tally) -> Tally {
        self.frames += later.frames;
        self.payload_bytes += later.payload_bytes;
        self.errors += later.errors;
        self.first_error = self.first_error.or(later.first_error);
        self.stopped |= later.stopped;
        self.largest = self.largest.max(later.largest);
        self
    }

    fn error(&mut self, offset: u64, message: String) {
        self.errors += 1;
        if self.first_error.is_none() {
            self.first_error = Some((offset, message));
        }
    }

    /// Counts an intact frame at stream offset `offset` and checks its payload against the
    /// schema, if any. Returns whether it passed.
    #[inline(always)]
    fn frame<S: SchemaCheck>(&mut self, payload: &[u8], offset: u64, schema: Option<&S>) -> bool {
        self.frames += 1;
        self.payload_bytes += payload.len() as u64;
        if let Some(verifier) = schema {
            if let Err(why) = verifier.verify(payload) {
                self.error(offset, why);
                return false;
            }
        }
        true
    }
}

/// `flatstream verify PATH` (`schema` `None`) or `flatstream verify --schema S.bfbs PATH`: the
/// command's work over the file at `path`, an intact stream or not, up to the report it prints.
pub fn verify_file<S: SchemaCheck>(path: &Path, schema: Option<&S>) -> io::Result<Tally> {
    let file = File::open(path)?;
    let map = MappedFile::map(&file)?;
    let _ = map.advise_sequential();
    let bytes = map.as_bytes();
    let max = DEFAULT_MAX_FRAME_LEN;
    let (detection, head_len) = detect_head(bytes, max);
    let kind = detection.kind().ok_or_else(|| {
        io::Error::other(format!("cannot tell the stream's framing: {detection}"))
    })?;
    let checksum = AnyChecksum::new(kind).map_err(io::Error::other)?;
    let head = &bytes[..head_len.min(bytes.len())];
    let job = Job {
        bytes,
        schema,
        max,
        threads: threads(bytes.len(), kind, schema.is_some(), head, checksum),
    };
    kind.dispatch(job).map_err(io::Error::other)?
}

/// What framing detection makes of the head of `bytes`, read as the command reads it: from
/// nothing, as many leading bytes as [`detect`] asks for. Also returns the head's length.
fn detect_head(bytes: &[u8], max: usize) -> (Detection, usize) {
    let mut head_len = 0;
    loop {
        let len = bytes.len().min(head_len);
        match detect(&bytes[..len], bytes.len() <= head_len, max) {
            Detection::NeedMore { len } => head_len = len,
            detection => return (detection, head_len),
        }
    }
}

/// How many threads, and the bound for finding where splits start.
#[derive(Debug, Clone, Copy)]
struct Threads {
    count: usize,
    resync_bound: usize,
}

/// The command's choice for `len` mapped bytes without `--threads`: every core from
/// [`PARALLEL_MIN_LEN`] on, where there is work to share (a checksum or a schema); the bound
/// salvage would use, from the leading frames in `head`.
fn threads(len: usize, kind: ChecksumKind, schema: bool, head: &[u8], c: AnyChecksum) -> Threads {
    let work = kind != ChecksumKind::None || schema;
    let count = if len >= PARALLEL_MIN_LEN {
        std::thread::available_parallelism().map_or(1, std::num::NonZero::get)
    } else {
        1
    };
    let leading = Frames::new(head, ChecksumDeframer::new(c)).map_while(Result::ok);
    Threads {
        count: if work { count } else { 1 },
        resync_bound: salvage_bound(leading.map(<[u8]>::len).max().unwrap_or(0)),
    }
}

/// The bound for resynchronising when none is given: 1 MiB, or the power of two at or above
/// the largest payload seen if that is larger.
fn salvage_bound(largest: usize) -> usize {
    largest
        .checked_next_power_of_two()
        .unwrap_or(usize::MAX)
        .max(1 << 20)
}

/// The verification with the checksum's static type (one copy of the loop per algorithm).
struct Job<'a, S> {
    bytes: &'a [u8],
    schema: Option<&'a S>,
    max: usize,
    threads: Threads,
}

impl<S: SchemaCheck> WithChecksum for Job<'_, S> {
    type Output = io::Result<Tally>;

    fn with<C: Checksum + Copy + Send + Sync + 'static>(self, checksum: C) -> Self::Output {
        let deframer = ChecksumDeframer::new(checksum);
        if self.threads.count <= 1 {
            let mut frames = Frames::new(self.bytes, &deframer).with_max_frame_len(self.max);
            return Ok(verify_frames(&mut frames, 0, self.schema));
        }
        // The command starts a pool for each file.
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(self.threads.count)
            .build()
            .map_err(io::Error::other)?;
        Ok(pool.install(|| verify_parallel(self.bytes, &deframer, &self, self.threads)))
    }
}

/// A reader of frames from a slice: [`Frames`] (the serial path) or [`SplitFrames`] (a split).
trait Run<'a>: Iterator<Item = Result<&'a [u8], Error>> {
    /// Offset of the next frame, in the reader's slice.
    fn at(&self) -> u64;
}

impl<'a, D: Deframer> Run<'a> for Frames<'a, D> {
    #[inline(always)]
    fn at(&self) -> u64 {
        self.position()
    }
}

impl<'a, D: Deframer> Run<'a> for SplitFrames<'a, D> {
    #[inline(always)]
    fn at(&self) -> u64 {
        self.position()
    }
}

/// The frames of `frames` (whose offsets are `base` on), up to the first error.
fn verify_frames<'a, S: SchemaCheck>(
    frames: &mut impl Run<'a>,
    base: u64,
    schema: Option<&S>,
) -> Tally {
    let mut tally = Tally::default();
    let mut largest = 0;
    loop {
        let at = frames.at();
        match frames.next() {
            None => break,
            Some(Ok(payload)) => {
                largest = largest.max(payload.len());
                if !tally.frame(payload, base + at, schema) {
                    tally.stopped = true;
                    break;
                }
            }
            Some(Err(e)) => {
                tally.error(base + at, e.to_string());
                tally.stopped = true;
                break;
            }
        }
    }
    tally.largest = largest;
    tally
}

/// The command's parallel path over a mapped stream, on the threads of the current rayon
/// pool, with the same result as [`verify_frames`] over the whole of it.
fn verify_parallel<D: Deframer + Sync, S: SchemaCheck>(
    bytes: &[u8],
    deframer: &D,
    job: &Job<'_, S>,
    threads: Threads,
) -> Tally {
    let bound = threads.resync_bound.min(job.max);
    let reader = ParallelFrames::new(bytes, deframer).with_max_frame_len(bound);
    // Each range, and whether it starts on a known frame boundary.
    let plan: Vec<(Range<usize>, bool)> = if deframer.checksum_size() > 0 {
        let len = reader.split_len();
        (0..bytes.len().div_ceil(len))
            .map(|k| (k * len..bytes.len().min((k + 1) * len), k == 0))
            .collect()
    } else {
        reader.splits().iter().map(|s| (s.range(), true)).collect()
    };
    let stopped_at = AtomicUsize::new(usize::MAX);
    let parts: Vec<Option<Part>> = plan
        .par_iter()
        .enumerate()
        .map(|(i, (range, known))| {
            if stopped_at.load(Ordering::Relaxed) < i {
                return None;
            }
            let part = verify_split(bytes, range.clone(), *known, deframer, job, bound);
            if part.tally.stopped {
                stopped_at.fetch_min(i, Ordering::Relaxed);
            }
            Some(part)
        })
        .collect();
    // The join check and the fold, in stream order.
    let mut tally = Tally::default();
    let mut reach = 0;
    let mut ended = false;
    for ((range, _), part) in plan.into_iter().zip(parts) {
        if reach >= range.end {
            continue;
        }
        let part = match part {
            Some(part) if part.first == Some(reach) => part,
            _ => verify_split(bytes, reach..range.end, true, deframer, job, bound),
        };
        ended = part.tally.stopped;
        tally = tally.then(part.tally);
        reach = part.end;
        if ended {
            break;
        }
    }
    if !ended && reach < bytes.len() {
        let part = verify_split(bytes, reach..bytes.len(), true, deframer, job, bound);
        tally = tally.then(part.tally);
    }
    tally
}

/// What verifying one split found.
struct Part {
    /// Where its first frame starts; `None` if no frame starts in its range.
    first: Option<usize>,
    tally: Tally,
    /// Where the frame after its last one starts (where it stopped, if it did).
    end: usize,
}

/// The frames of `bytes` that start in `range`: from `range.start` if it is `known` to be a
/// frame boundary, else from the first frame found there by resynchronization.
fn verify_split<D: Deframer, S: SchemaCheck>(
    bytes: &[u8],
    range: Range<usize>,
    known: bool,
    deframer: &D,
    job: &Job<'_, S>,
    bound: usize,
) -> Part {
    let first = if known {
        Some(range.start)
    } else {
        SplitFrames::new(bytes, range.clone(), deframer)
            .ok()
            .and_then(|split| {
                let mut split = split.with_max_frame_len(bound);
                split.sync().and_then(|at| usize::try_from(at).ok())
            })
    };
    let Some(start) = first else {
        return Part {
            first,
            tally: Tally::default(),
            end: range.end,
        };
    };
    let mut split =
        SplitFrames::at_boundary(bytes, start..range.end, deframer).with_max_frame_len(job.max);
    let tally = verify_frames(&mut split, 0, job.schema);
    let end = usize::try_from(split.position()).unwrap_or(usize::MAX);
    Part { first, tally, end }
}

#[cfg(test)]
mod tests;
