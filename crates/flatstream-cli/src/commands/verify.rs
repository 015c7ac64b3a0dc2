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

use crate::damage;
use crate::detect::{self, Framing};
use crate::failure::describe;
use crate::failure::{Failure, Status, count};
use crate::input::{Access, Input};
use crate::options::VerifyArgs;
use crate::progress::Progress;
use crate::schema::{Schema, Verifier};
use crate::walk::ends_inside;
use flatstream::checksum::{Checksum, ChecksumKind, WithChecksum};
use flatstream::read::MessageReader;
use flatstream::repair::{Salvage, Salvaged};
use flatstream::split::{ParallelFrames, SplitFrames};
use flatstream::{ChecksumDeframer, Deframer, Error, Frames, StreamReader};
use rayon::prelude::*;
use serde::Serialize;
use std::io::Write;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};

/// One damaged range: a frame that failed, or bytes that hold no frame that verifies.
#[derive(Debug, Clone, Serialize)]
pub(crate) struct FrameError {
    /// Frames verified before it (its index among the intact frames).
    pub(crate) index: u64,
    /// Stream offset of its first byte.
    pub(crate) offset: u64,
    /// Stream offset just past it, where that is known: the frame's end for a frame that
    /// failed the schema, the end of the input for a torn tail, the next frame that verifies
    /// after a corrupt one (with `--all` over a file; a reader that stops there does not know).
    pub(crate) end: Option<u64>,
    /// "checksum", "too_large", "torn_tail", "damaged" (a frame runs past the end, but intact
    /// frames follow it: its length is damaged), "ambiguous" (the same without a checksum to
    /// tell), "schema", "damage" (a range with no frame that verifies, after a corrupt frame,
    /// with `--all`) or "io".
    pub(crate) kind: &'static str,
    /// What is wrong, in words.
    pub(crate) message: String,
}

impl FrameError {
    fn new(index: u64, offset: u64, error: &Error) -> Self {
        let mut end = None;
        let kind = match error {
            Error::ChecksumMismatch { .. } => "checksum",
            Error::FrameTooLarge { .. } => "too_large",
            Error::UnexpectedEof { present, .. } => {
                end = Some(offset + present);
                "torn_tail"
            }
            Error::InvalidFlatbuffer { .. } | Error::Validation { .. } => "schema",
            _ => "io",
        };
        FrameError {
            index,
            offset,
            end,
            kind,
            message: describe(error),
        }
    }

    /// Calls this frame, which runs past the end of the stream, a damaged length, as recover
    /// does: it declares `needed` bytes in all, and intact frames follow from `resumes_at`.
    fn damaged_length(&mut self, needed: u64, resumes_at: u64) {
        self.kind = "damaged";
        self.end = Some(resumes_at);
        self.message = damage::damaged_length(needed, resumes_at);
    }

    /// `frame N at byte offset START: what`, as every command names an error.
    fn line(&self) -> String {
        format!(
            "frame {} at byte offset {}: {}",
            self.index, self.offset, self.message
        )
    }

    /// `frame N at bytes START..END: what` (`at byte offset START` where the end is unknown),
    /// as `--all` lists the damaged ranges.
    fn range_line(&self) -> String {
        match self.end {
            Some(end) => format!(
                "frame {} at bytes {}..{end}: {}",
                self.index, self.offset, self.message
            ),
            None => format!(
                "frame {} at byte offset {}: {}",
                self.index, self.offset, self.message
            ),
        }
    }
}

/// How many damaged ranges a tally lists; [`Tally::errors`] counts them all.
pub(crate) const LISTED: usize = 1 << 16;

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
    /// The errors, in stream order: the first [`LISTED`] of them.
    pub(crate) damage: Vec<FrameError>,
    /// Whether verification stopped before the end of the run (at the first error).
    #[serde(skip)]
    pub(crate) stopped: bool,
    /// With `--all`, the stream offset of the corrupt frame that ended frame-by-frame reading,
    /// until the resynchronisation after it is folded in.
    #[serde(skip)]
    pub(crate) corrupt: Option<u64>,
    /// The largest payload read frame by frame (it sets the bound for resynchronising).
    #[serde(skip)]
    pub(crate) largest: usize,
}

impl Tally {
    /// Folds in the tally of the run that follows this one in the stream.
    pub(crate) fn then(mut self, later: Tally) -> Tally {
        let room = LISTED.saturating_sub(self.damage.len());
        let frames = self.frames;
        self.damage
            .extend(later.damage.into_iter().take(room).map(|mut e| {
                e.index += frames;
                e
            }));
        self.frames += later.frames;
        self.payload_bytes += later.payload_bytes;
        self.errors += later.errors;
        self.skipped_bytes += later.skipped_bytes;
        self.stopped |= later.stopped;
        self.corrupt = self.corrupt.or(later.corrupt);
        self.largest = self.largest.max(later.largest);
        self
    }

    fn error(&mut self, e: FrameError) {
        self.errors += 1;
        if self.damage.len() < LISTED {
            self.damage.push(e);
        }
    }

    /// The first error.
    pub(crate) fn first_error(&self) -> Option<&FrameError> {
        self.damage.first()
    }

    /// Counts an intact frame, which spans `offset..end`, and checks its payload against the
    /// schema, if any. Returns whether it passed.
    #[inline(always)]
    fn frame(
        &mut self,
        payload: &[u8],
        offset: u64,
        end: u64,
        schema: &mut Option<Verifier<'_>>,
    ) -> bool {
        let index = self.frames;
        self.frames += 1;
        self.payload_bytes += payload.len() as u64;
        if let Some(verifier) = schema
            && let Err(why) = verifier.verify(payload)
        {
            self.error(FrameError {
                index,
                offset,
                end: Some(end),
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
    /// The length of a frame's header (length and checksum).
    pub(crate) header_len: u64,
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
    let mut frames = Frames::new(bytes, deframer).with_max_frame_len(options.max_frame_len);
    let tally = verify_frames(&mut frames, base, options, progress);
    match tally.corrupt {
        Some(at) => resume(tally, bytes, base, at, deframer, options, progress),
        None => tally,
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

/// [`verify_run`] up to its first corrupt frame: the frames of `frames` (whose offsets are
/// `base` on), stopping at the first error (without `all`) or at the first corrupt frame
/// (with `all`, which [`resume`] goes on from: [`Tally::corrupt`] says where).
fn verify_frames<'a>(
    frames: &mut impl Run<'a>,
    base: u64,
    options: &Options<'_>,
    progress: &mut Progress,
) -> Tally {
    let mut tally = Tally::default();
    let mut schema = options.schema.map(Schema::verifier);
    let mut largest = 0;
    loop {
        let at = frames.at();
        progress.update(base + at);
        match frames.next() {
            None => break,
            Some(Ok(payload)) => {
                largest = largest.max(payload.len());
                let end = base + frames.at();
                if !tally.frame(payload, base + at, end, &mut schema) && !options.all {
                    tally.stopped = true;
                    break;
                }
            }
            Some(Err(e)) => {
                tally.error(FrameError::new(tally.frames, base + at, &e));
                if options.all {
                    tally.corrupt = Some(base + at);
                } else {
                    tally.stopped = true;
                }
                break;
            }
        }
    }
    tally.largest = largest;
    tally
}

/// Goes on, with `all`, after the corrupt frame at stream offset `at` that ended `tally`,
/// resynchronising over the rest of `bytes` (which start at stream offset `base`).
///
/// Without a checksum there is nothing to resynchronise on (any bytes whose length field fits
/// would pass for frames, which is why salvage refuses such a stream): the tally stops there.
/// A frame that seemed to run past the end of the stream (a torn tail) is damage when frames
/// verify after it: its length field is corrupt, and the range says so.
fn resume<D: Deframer>(
    tally: Tally,
    bytes: &[u8],
    base: u64,
    at: u64,
    deframer: &D,
    options: &Options<'_>,
    progress: &mut Progress,
) -> Tally {
    let mut tally = tally;
    if deframer.checksum_size() == 0 {
        tally.corrupt = None;
        tally.stopped = true;
        return tally;
    }
    let bound = options
        .salvage_bound
        .unwrap_or_else(|| salvage_bound(tally.largest));
    let mut schema = options.schema.map(Schema::verifier);
    // `at` is an offset in `bytes`, which are in memory: it fits `usize`.
    let (rest, first_end) = resync(
        &bytes[(at - base) as usize..],
        at,
        deframer,
        bound.min(options.max_frame_len),
        options.max_frame_len,
        &mut schema,
        progress,
    );
    // The corrupt frame's range ends where the bytes after it verify again.
    let stream_end = base + bytes.len() as u64;
    if let Some(corrupt) = tally.damage.last_mut()
        && corrupt.offset == at
    {
        corrupt.end = first_end;
        if corrupt.kind == "torn_tail"
            && let Some(resumes_at) = first_end.filter(|&end| end < stream_end)
        {
            // `at` is in `bytes`, and a torn frame's header is whole when frames follow it.
            let i = (at - base) as usize;
            let claimed = bytes
                .get(i..i + 4)
                .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
            corrupt.damaged_length(u64::from(claimed) + options.header_len, resumes_at);
        }
    }
    let mut tally = tally.then(rest);
    tally.corrupt = None;
    tally
}

/// Verifies what follows a corrupt frame at stream offset `base`, the start of `bytes`:
/// [`Salvage`] resynchronises on each next frame that verifies; each damaged range after the
/// first (which holds the corrupt frame, already reported) counts as one error. Also returns
/// the stream offset where that first range ends.
fn resync<D: Deframer>(
    bytes: &[u8],
    base: u64,
    deframer: &D,
    bound: usize,
    max: usize,
    schema: &mut Option<Verifier<'_>>,
    progress: &mut Progress,
) -> (Tally, Option<u64>) {
    let mut tally = Tally::default();
    let mut first_end = None;
    let header = flatstream::framing::header_len(deframer.checksum_size()) as u64;
    let to = |at: u64| usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
    for item in Salvage::new(bytes, deframer).with_max_frame_len(bound) {
        match item {
            Salvaged::Frame { offset, payload } => {
                progress.update(base + offset);
                let end = base + offset + header + payload.len() as u64;
                tally.frame(payload, base + offset, end, schema);
            }
            Salvaged::Skipped { start, end } => {
                tally.skipped_bytes += end - start;
                if start == 0 {
                    first_end = Some(base + end);
                } else {
                    let rest = &bytes[to(start)..];
                    let message =
                        damage::range(rest, end - start, base + end, deframer, max, bound);
                    tally.error(FrameError {
                        index: tally.frames,
                        offset: base + start,
                        end: Some(base + end),
                        kind: "damage",
                        message,
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
    (tally, first_end)
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
                let end = at + options.header_len + payload.len() as u64;
                if !tally.frame(payload, at, end, &mut schema) && !options.all {
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

/// Verifies a mapped stream on the threads of the current rayon pool, with the same result
/// as [`verify_run`] over the whole of it.
///
/// The stream is cut into the ranges [`ParallelFrames`] would read, and each range is a
/// split, verified on any thread: its first frame found by resynchronization (for a stream
/// with a checksum), its frames read whole up to the first one that starts at or after the
/// range's end. The tallies then fold in stream order, with the join check of
/// [`SplitFrames`]: a split counts only if it starts where the one before it ended, the frame
/// boundary a sequential reader finds; one that does not (a false resynchronization, damage
/// near the cut) is verified again from there on the calling thread. The fold ends at the
/// first split that stopped on an error, which is where the serial path stops: the splits
/// before it verified every frame, at the offsets the serial path reads. After a corrupt
/// frame (with `all`), the rest of the stream is resynchronised on the calling thread exactly
/// as the serial path does it, over every byte after the corrupt frame: damage is rare, and
/// this keeps the result the same whatever the cuts.
///
/// A stream without a checksum has no resynchronization: [`ParallelFrames::splits`] walks its
/// headers first, on the calling thread, and the splits start at the boundaries it found.
pub(crate) fn verify_parallel<D: Deframer + Sync>(
    bytes: &[u8],
    deframer: &D,
    options: &Options<'_>,
    progress: &mut Progress,
    threads: Threads,
) -> Tally {
    // The bound on frames bounds the work of finding each split's first frame: with the
    // default 2 GiB, an offset inside a payload whose bytes read as a length of hundreds of
    // MiB costs a checksum over that much. A frame over this bound is never taken for a
    // split's first frame, and the join check then verifies that split from the right
    // boundary: the result does not change, only the work that is shared.
    let bound = threads.resync_bound.min(options.max_frame_len);
    let mut reader = ParallelFrames::new(bytes, deframer).with_max_frame_len(bound);
    if let Some(len) = threads.split_len {
        reader = reader.with_split_len(len);
    }
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
    let shared: &Progress = progress;
    let parts: Vec<Option<Part>> = plan
        .par_iter()
        .enumerate()
        .map(|(i, (range, known))| {
            // Each thread adds to the bar what it verifies of its split, as it goes.
            let mut share = shared.worker(range.start as u64..range.end as u64);
            if stopped_at.load(Ordering::Relaxed) < i {
                share.done();
                return None; // after an error: needed only if that split did not join
            }
            let part = verify_split(bytes, range.clone(), *known, deframer, options, bound, {
                &mut share
            });
            if part.tally.stopped || part.tally.corrupt.is_some() {
                stopped_at.fetch_min(i, Ordering::Relaxed);
            }
            share.done();
            Some(part)
        })
        .collect();
    // The join check and the fold, in stream order.
    let mut tally = Tally::default();
    let mut reach = 0;
    let mut ended = false;
    for ((range, _), part) in plan.into_iter().zip(parts) {
        if reach >= range.end {
            continue; // no frame starts in this range
        }
        let part = match part {
            Some(part) if part.first == Some(reach) => part,
            _ => verify_split(
                bytes,
                reach..range.end,
                true,
                deframer,
                options,
                bound,
                &mut Progress::silent(),
            ),
        };
        ended = part.tally.stopped || part.tally.corrupt.is_some();
        tally = tally.then(part.tally);
        reach = part.end;
        if ended {
            break;
        }
    }
    if !ended && reach < bytes.len() {
        // The walk over the headers stopped at a frame over `bound`: the rest is one split.
        let part = verify_split(
            bytes,
            reach..bytes.len(),
            true,
            deframer,
            options,
            bound,
            &mut Progress::silent(),
        );
        tally = tally.then(part.tally);
    }
    match tally.corrupt {
        Some(at) => resume(tally, bytes, 0, at, deframer, options, progress),
        None => tally,
    }
}

/// What verifying one split found.
struct Part {
    /// Where its first frame starts; `None` if no frame starts in its range.
    first: Option<usize>,
    tally: Tally,
    /// Where the frame after its last one starts (where it stopped, if it did).
    end: usize,
}

/// Verifies the frames of `bytes` that start in `range`: from `range.start` if it is `known`
/// to be a frame boundary, else from the first frame found there by resynchronization (with
/// frames up to `bound`), reporting to `progress`.
fn verify_split<D: Deframer>(
    bytes: &[u8],
    range: Range<usize>,
    known: bool,
    deframer: &D,
    options: &Options<'_>,
    bound: usize,
    progress: &mut Progress,
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
    let mut split = SplitFrames::at_boundary(bytes, start..range.end, deframer)
        .with_max_frame_len(options.max_frame_len);
    let tally = verify_frames(&mut split, 0, options, progress);
    let end = usize::try_from(split.position()).unwrap_or(usize::MAX);
    Part { first, tally, end }
}

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
    let schema = match &args.schema.schema {
        Some(path) => Some(Schema::load(path, args.schema.root_type.as_deref())?),
        None => None,
    };
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
