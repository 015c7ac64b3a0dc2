//! The parallel path: [`verify_parallel`] verifies the splits of a mapped file on every core
//! and folds their tallies in stream order.

use super::run::{resume, verify_frames};
use super::{Options, Tally, Threads};
use crate::progress::Progress;
use flatstream::Deframer;
use flatstream::split::{ParallelFrames, SplitFrames};
use rayon::prelude::*;
use std::ops::Range;
use std::sync::atomic::{AtomicUsize, Ordering};
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
