//! The serial path: [`verify_run`] over the frames of one run of bytes (resynchronising after
//! a corrupt frame with `--all`), and [`verify_reader`] over a stream.

use super::{FrameError, Tally};
use crate::damage;
use crate::progress::Progress;
use crate::schema::{Schema, Verifier};
use flatstream::read::MessageReader;
use flatstream::repair::{Salvage, Salvaged};
use flatstream::split::SplitFrames;
use flatstream::{Deframer, Error, Frames};
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
pub(super) trait Run<'a>: Iterator<Item = Result<&'a [u8], Error>> {
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
pub(super) fn verify_frames<'a>(
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
pub(super) fn resume<D: Deframer>(
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
pub(super) fn resync<D: Deframer>(
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
