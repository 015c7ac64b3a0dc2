//! Parallel reading of a byte slice through splits, with rayon (feature `rayon`).
//!
//! ```text
//!  bytes  |----------- split 0 -----------|----------- split 1 -----------|---- split 2 ----|
//!
//!  splits(), process_all():
//!   1. in parallel, per split: resynchronize (split 0 starts at 0), then walk the frames'
//!      lengths (no checksum) to the first boundary at or after the split's end
//!   2. in stream order: each split must start where the walk of the one before ended; one
//!      that does not is walked again from there (no frame has been handed out yet)
//!   3. in parallel: decode and verify each split's frames, hand them to the callback
//!
//!  fold(), like process_all_ordered() below: each split folded on its own, then the join
//!  check and the reduction in stream order
//!
//!  process_all_ordered():
//!   1. in parallel, a few splits at a time: resynchronize, decode, verify, map
//!   2. on the calling thread, in stream order: the join check on the positions the decoding
//!      reached (a split that fails it is mapped again from the right boundary), then the sink
//! ```
//!
//! Either way the join check of [`SplitFrames`] runs before a frame reaches the user's
//! unordered callback or the sink, so the frames handed out are exactly those of a sequential
//! reader, whatever the payloads contain. The unordered path pays for it with a walk over the
//! lengths of the frames (one read per frame, no hashing); the ordered path checks the joins
//! for free, since its sink runs after the mapping anyway.

use crate::error::{Error, Result};
use crate::read::slice::Frames;
use crate::read::{IntoControlFlow, flow};
use crate::split::ranges::{DEFAULT_CONFIRMATIONS, SplitFrames};
use crate::wire::frame::DEFAULT_MAX_FRAME_LEN;
use crate::wire::framing::Deframer;
use alloc::vec::Vec;
use core::ops::{ControlFlow, Range};
use core::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use rayon::prelude::*;

/// The fewest bytes a split gets by default: below this, resynchronizing and scheduling cost
/// more than they save.
const MIN_SPLIT_LEN: usize = 64 << 10;
/// The most bytes a split gets by default: it bounds what the in-order reader holds per split.
const MAX_SPLIT_LEN: usize = 8 << 20;
/// Default splits per thread: enough that a thread slowed by another process does not hold up
/// the others for long.
const SPLITS_PER_THREAD: usize = 8;

/// Reads the frames of a byte slice (a memory-mapped file, a file read whole) on all the
/// threads of the current rayon pool, through [`SplitFrames`].
///
/// The callbacks are those of [`MessageReader::process_all`](crate::MessageReader::process_all):
/// a payload in, `Ok(())` or `Ok(ControlFlow)` out, an error to stop. The frames handed out
/// are exactly those a sequential reader hands out, and errors carry the same offsets: offsets
/// in `bytes`.
///
/// * [`process_all`](Self::process_all) calls one callback from every thread, in no particular
///   order.
/// * [`fold`](Self::fold) folds each split into a value on its thread and reduces the values
///   in stream order: the fastest way to aggregate.
/// * [`process_all_ordered`](Self::process_all_ordered) runs a `map` on every thread and hands
///   its results to a `sink` on the calling thread, in stream order.
/// * [`splits`](Self::splits) gives the splits themselves, for rayon code of your own (a fold
///   per split, then a reduction).
///
/// Every framing works: with a checksum, each split finds its first frame on its own; without
/// one, the boundaries are found by one walk over the headers on the calling thread (one
/// length read per frame, no hashing) before the frames are read in parallel.
///
/// # Cost of finding each split's first frame
///
/// With a checksum, a split of `L` bytes (by default about an eighth of the bytes per thread,
/// 64 KiB to 8 MiB) finds its first frame as [`SplitFrames`] describes under
/// [Work](SplitFrames#work): over frames short against the split, a few header reads and
/// `K + 1` checksums, with the default bound and arbitrary payloads. In the worst case,
/// whatever the bytes: fewer than `5 L` offsets examined, each at most `K + 1` header reads,
/// and at most `4 max(L, 64 KiB)` bytes hashed. A split that finds nothing that way (frames
/// longer than a split, or hostile bytes) is read again from where the split before it ended,
/// on the calling thread after the parallel pass: reading then costs up to about what a
/// sequential reader pays for those splits, on top of the budget. Longer splits
/// ([`with_split_len`](Self::with_split_len)) keep streams of large frames parallel.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
/// use flatstream::split::ParallelFrames;
/// use std::sync::atomic::{AtomicU64, Ordering};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// for i in 0..10_000u32 {
///     writer.write_payload(&i.to_le_bytes())?;
/// }
/// let bytes = writer.into_inner(); // or a memory-mapped file
///
/// let reader = ParallelFrames::new(&bytes, DefaultDeframer).with_split_len(4096);
///
/// // On every thread, in no particular order.
/// let total = AtomicU64::new(0);
/// reader.process_all(|payload| {
///     let n = u32::from_le_bytes(payload.try_into().expect("4 bytes"));
///     total.fetch_add(u64::from(n), Ordering::Relaxed);
///     Ok(())
/// })?;
/// assert_eq!(total.into_inner(), (0..10_000u64).sum::<u64>());
///
/// // The same work in parallel, its results in stream order.
/// let mut expected = 0;
/// reader.process_all_ordered(
///     |payload| Ok(u32::from_le_bytes(payload.try_into().expect("4 bytes"))),
///     |n| {
///         assert_eq!(n, expected);
///         expected += 1;
///         Ok(())
///     },
/// )?;
/// assert_eq!(expected, 10_000);
/// # Ok::<(), flatstream::Error>(())
/// ```
///
/// A deframer chosen at run time is a `Box<dyn Deframer + Sync>`, or a
/// `ChecksumDeframer<AnyChecksum>` from the `flatstream` crate.
#[derive(Debug, Clone)]
pub struct ParallelFrames<'a, D> {
    bytes: &'a [u8],
    deframer: D,
    max_frame_len: usize,
    split_len: Option<usize>,
    confirmations: usize,
}

impl<'a, D: Deframer + Sync> ParallelFrames<'a, D> {
    /// Reads the frames of `bytes`, the whole stream, with `deframer`.
    pub fn new(bytes: &'a [u8], deframer: D) -> Self {
        ParallelFrames {
            bytes,
            deframer,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            split_len: None,
            confirmations: DEFAULT_CONFIRMATIONS,
        }
    }

    /// Sets the largest payload accepted (default
    /// [`DEFAULT_MAX_FRAME_LEN`](crate::wire::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). Finding each
    /// split's first frame costs little with the default; the bound the writer used lets it
    /// reject more offsets from their headers alone.
    ///
    /// The same setting as [`FrameConfig::with_max_frame_len`](crate::FrameConfig::with_max_frame_len).
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// Sets the length of each split, in bytes (at least 1). The default gives each thread
    /// about eight splits, of 64 KiB to 8 MiB each.
    pub fn with_split_len(mut self, len: usize) -> Self {
        self.split_len = Some(len.max(1));
        self
    }

    /// Sets how many frames must chain after a candidate before a split starts on it (default
    /// [`DEFAULT_CONFIRMATIONS`]; see [`SplitFrames::with_confirmations`]). Whatever the value,
    /// a split that starts on the wrong offset is caught before any frame is handed out.
    pub fn with_confirmations(mut self, confirmations: usize) -> Self {
        self.confirmations = confirmations;
        self
    }

    /// The length of each split: the one set, or the default for the current rayon pool.
    pub fn split_len(&self) -> usize {
        self.split_len.unwrap_or_else(|| {
            let splits = rayon::current_num_threads().saturating_mul(SPLITS_PER_THREAD);
            self.bytes
                .len()
                .div_ceil(splits.max(1))
                .clamp(MIN_SPLIT_LEN, MAX_SPLIT_LEN)
        })
    }

    /// The splits, in stream order, each starting on a frame boundary a sequential reader
    /// would find: together they yield exactly the frames of the stream. A split whose frame
    /// fails verification yields that error and ends; the splits after it still yield the
    /// frames after it, which a sequential reader does not reach: stop at the first error in
    /// stream order for a sequential reader's result.
    ///
    /// Finding them costs, per split, the resynchronization and a walk over the lengths of its
    /// frames, in parallel (for a stream without a checksum, the walk of every header on the
    /// calling thread). Splits that no frame starts in are left out; after a frame whose length
    /// is over the bound or that the end of the bytes cuts short, no split is returned, since a
    /// sequential reader stops there.
    pub fn splits(&self) -> Vec<SplitFrames<'a, &D>> {
        self.boundaries()
            .into_iter()
            .map(|range| {
                SplitFrames::at_boundary(self.bytes, range, &self.deframer)
                    .with_max_frame_len(self.max_frame_len)
            })
            .collect()
    }

    /// The splits as ranges of frames: each starts on the frame boundary where the one before
    /// ends, and ends on the first frame boundary at or after the end of its range, or at the
    /// end of the bytes for the last one and one whose walk stopped on a frame a sequential
    /// reader stops on (that split is the last).
    fn boundaries(&self) -> Vec<Range<usize>> {
        let frames = Frames::new(self.bytes, &self.deframer).with_max_frame_len(self.max_frame_len);
        let len = self.bytes.len();
        let split_len = self.split_len();
        let ranges: Vec<Range<usize>> = (0..len.div_ceil(split_len))
            .map(|k| k * split_len..len.min((k + 1) * split_len))
            .collect();
        let checksummed = self.deframer.checksum_size() > 0;
        // 1. Each split's first frame, found on its own, and where its frames lead.
        let walked: Vec<Option<(usize, Walk)>> = ranges
            .par_iter()
            .map(|range| {
                let first = if range.start == 0 {
                    Some(0)
                } else if checksummed {
                    let split = SplitFrames::new(self.bytes, range.clone(), &self.deframer);
                    let split = split.ok()?;
                    let mut split = split
                        .with_max_frame_len(self.max_frame_len)
                        .with_confirmations(self.confirmations);
                    split.sync_at()
                } else {
                    None
                };
                first.map(|at| (at, walk(&frames, self.bytes, at, range.end)))
            })
            .collect();
        // 2. The join check, in stream order.
        let mut boundaries = Vec::new();
        let mut reach = 0;
        for (range, walked) in ranges.into_iter().zip(walked) {
            if reach >= range.end {
                continue; // no frame starts in this range
            }
            let ended = match walked {
                Some((first, ended)) if first == reach => ended,
                _ => walk(&frames, self.bytes, reach, range.end),
            };
            match ended {
                Walk::Reached(end) => {
                    boundaries.push(reach..end);
                    reach = end;
                }
                Walk::Stopped => {
                    boundaries.push(reach..len);
                    break;
                }
            }
        }
        boundaries
    }

    /// The frames of one of the [`boundaries`](Self::boundaries), read by the loop of a
    /// sequential reader: its end is a frame boundary, so no test of where a frame starts is
    /// needed per frame.
    fn frames(&self, range: Range<usize>) -> Frames<'a, &D> {
        Frames::within(self.bytes, range, &self.deframer).with_max_frame_len(self.max_frame_len)
    }

    /// Calls `f` with every payload, from every thread of the pool, in no particular order,
    /// and returns the first error in stream order.
    ///
    /// `f` returns `Ok(())` to go on. An error (a framing error, a rejected frame, or one `f`
    /// returns, stamped with the frame's offset) stops the splits after the one it happened
    /// in; the splits before it run to their end, so the error returned is the one a
    /// sequential reader would return. `Ok(ControlFlow::Break(()))` stops the splits after
    /// its own the same way, without an error: the result is `Ok(())` unless a split before
    /// it fails, as a sequential read would have met that error first. Frames after the stop
    /// may have been handed to `f` already.
    ///
    /// # Errors
    ///
    /// The first error in stream order, as above.
    pub fn process_all<F, C>(&self, f: F) -> Result<()>
    where
        F: Fn(&'a [u8]) -> Result<C> + Sync,
        C: IntoControlFlow,
    {
        // The first split that failed, and the first that stopped on `Break`: the splits after
        // either have nothing to add to the result.
        let failed = AtomicUsize::new(usize::MAX);
        let broke = AtomicUsize::new(usize::MAX);
        let errors: Vec<Option<Error>> = self
            .boundaries()
            .into_par_iter()
            .enumerate()
            .map(|(i, range)| {
                let mut split = self.frames(range);
                let error = loop {
                    if failed.load(Ordering::Relaxed) < i || broke.load(Ordering::Relaxed) < i {
                        return None;
                    }
                    let at = split.position();
                    match split.next() {
                        None => return None,
                        Some(Ok(payload)) => match flow(f(payload), at) {
                            Ok(ControlFlow::Continue(())) => {}
                            Ok(ControlFlow::Break(())) => {
                                broke.fetch_min(i, Ordering::Relaxed);
                                return None;
                            }
                            Err(e) => break e,
                        },
                        Some(Err(e)) => break e,
                    }
                };
                failed.fetch_min(i, Ordering::Relaxed);
                Some(error)
            })
            .collect();
        // An error from a split after the one that stopped was found before the stop reached
        // it: a sequential read would never have got there.
        let stop = broke.into_inner();
        errors
            .into_iter()
            .take(stop)
            .flatten()
            .next()
            .map_or(Ok(()), Err)
    }

    /// Folds the payloads of each split into a value of its own, on every thread of the
    /// pool, then combines the splits' values in stream order: a sum, a count, a histogram,
    /// whatever needs no per-frame order. This is the fastest way to aggregate: no frame's
    /// result is stored or handed across threads, and no state is shared while folding.
    ///
    /// `identity` makes each split's starting value; `fold` adds each payload of the split to
    /// it, in order, and returns `Ok(())` or `Ok(ControlFlow)` as the callbacks of
    /// [`process_all`](Self::process_all) do; `reduce` combines the values of two adjacent
    /// stretches of the stream, the earlier one first, so it needs to be associative but not
    /// commutative.
    ///
    /// ```
    /// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
    /// use flatstream::split::ParallelFrames;
    ///
    /// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
    /// for i in 0..10_000u32 {
    ///     writer.write_payload(&i.to_le_bytes())?;
    /// }
    /// let bytes = writer.into_inner();
    ///
    /// let (count, sum) = ParallelFrames::new(&bytes, DefaultDeframer)
    ///     .with_split_len(4096)
    ///     .fold(
    ///         || (0u64, 0u64),
    ///         |(count, sum), payload| {
    ///             *count += 1;
    ///             *sum += u64::from(u32::from_le_bytes(payload.try_into().expect("4 bytes")));
    ///             Ok(())
    ///         },
    ///         |a, b| (a.0 + b.0, a.1 + b.1),
    ///     )?;
    /// assert_eq!((count, sum), (10_000, (0..10_000u64).sum::<u64>()));
    /// # Ok::<(), flatstream::Error>(())
    /// ```
    ///
    /// `Ok(ControlFlow::Break(()))` stops the fold without an error: the result combines the
    /// values up to the frame that stopped it (that frame included), as a sequential fold
    /// would, unless a split before it fails.
    ///
    /// # Errors
    ///
    /// The first error in stream order (a framing error, a rejected frame, or one `fold`
    /// returns, stamped with the frame's offset): the error a sequential fold would stop on.
    /// The splits after the one that failed or stopped are cut short and their values dropped.
    pub fn fold<T, I, F, C, R>(&self, identity: I, fold: F, reduce: R) -> Result<T>
    where
        T: Send,
        I: Fn() -> T + Sync,
        F: Fn(&mut T, &'a [u8]) -> Result<C> + Sync,
        C: IntoControlFlow,
        R: Fn(T, T) -> T,
    {
        // The first split that failed or stopped: the splits after it have nothing to add.
        let stopped = AtomicUsize::new(usize::MAX);
        let fold_one = |split: SplitFrames<'a, &D>, i: usize, stopped: &AtomicUsize| {
            let mut value = identity();
            let (first, end, folded) = fold_split(split, &mut value, &fold, stopped, i);
            (first, end, folded.map(|()| value))
        };
        // Over a checksummed stream, each split finds its first frame as it is folded, and the
        // join check runs below, before its value is used: no walk over the lengths first.
        let splits = if self.deframer.checksum_size() > 0 {
            self.unjoined_splits()
        } else {
            self.splits()
        };
        let folded: Vec<_> = splits
            .into_par_iter()
            .enumerate()
            .map(|(i, split)| {
                let range = split.range();
                let folded = fold_one(split, i, &stopped);
                if !matches!(folded.2, Folded::Done(_)) {
                    stopped.fetch_min(i, Ordering::Relaxed);
                }
                (range, folded)
            })
            .collect();
        // In stream order: the join check, then the reduction.
        let mut total = identity();
        let mut reach = 0;
        for (range, (first, end, folded)) in folded {
            let (end, folded) = match (first, folded) {
                (Some(first), folded) if first == reach && !matches!(folded, Folded::Skipped) => {
                    (end, folded)
                }
                (None, _) if reach >= range.end => continue, // no frame starts in it
                // A split that started on the wrong offset, or was cut short because one
                // that did failed: folded again from where the one before ended.
                _ => {
                    let split =
                        SplitFrames::at_boundary(self.bytes, reach..range.end, &self.deframer)
                            .with_max_frame_len(self.max_frame_len);
                    let (_, end, folded) = fold_one(split, 0, &AtomicUsize::new(usize::MAX));
                    (end, folded)
                }
            };
            match folded {
                Folded::Done(value) => total = reduce(total, value),
                Folded::Broke(value) => return Ok(reduce(total, value)),
                Folded::Failed(error) => return Err(error),
                Folded::Skipped => unreachable!("a split folded again is never skipped"),
            }
            reach = end;
        }
        Ok(total)
    }

    /// Runs `map` on every payload, on every thread of the pool, and hands its results to
    /// `sink` on the calling thread, in stream order.
    ///
    /// Put the costly work in `map` (FlatBuffers verification, reading the fields) and what
    /// needs order or `&mut` state in `sink`. Splits are mapped a few at a time, one group
    /// while `sink` takes the results of the one before, so memory holds the results of at
    /// most four splits per thread. Over a checksummed stream each split finds its first frame
    /// as it is mapped, and the join check runs as results reach `sink`: a split that did not
    /// start where the one before ended is mapped again from there first, so there is no walk
    /// over the lengths beforehand.
    ///
    /// `sink` sees exactly what a sequential `process_all` with `map` then `sink` would:
    /// `Ok(ControlFlow::Break(()))` stops the read without an error, and the first error (of
    /// the framing, of `map` or of `sink`, stamped with the frame's offset) stops it and is
    /// returned, after `sink` has had every result before it.
    ///
    /// # Errors
    ///
    /// The first error in stream order, as above.
    pub fn process_all_ordered<M, T, S, C>(&self, map: M, mut sink: S) -> Result<()>
    where
        M: Fn(&'a [u8]) -> Result<T> + Sync,
        T: Send,
        S: FnMut(T) -> Result<C>,
        C: IntoControlFlow,
    {
        let window = rayon::current_num_threads().saturating_mul(2).max(1);
        let mut splits = if self.deframer.checksum_size() > 0 {
            self.unjoined_splits()
        } else {
            self.splits()
        }
        .into_iter();
        let halted = AtomicBool::new(false);
        let map_window = |window: Vec<SplitFrames<'a, &D>>| -> Vec<Mapped<T>> {
            window
                .into_par_iter()
                .map(|split| map_split(split, &map, &halted))
                .collect()
        };
        let mut ready = map_window(splits.by_ref().take(window).collect());
        let mut reach = 0;
        while !ready.is_empty() {
            let upcoming: Vec<_> = splits.by_ref().take(window).collect();
            let mut mapped = Vec::new();
            let drained = rayon::in_place_scope(|scope| {
                if !upcoming.is_empty() {
                    scope.spawn(|_| mapped = map_window(upcoming));
                }
                let drained = self.drain(ready, &mut reach, &map, &mut sink, &halted);
                if !matches!(drained, Ok(ControlFlow::Continue(()))) {
                    halted.store(true, Ordering::Relaxed);
                }
                drained
            });
            if drained?.is_break() {
                return Ok(());
            }
            ready = mapped;
        }
        Ok(())
    }

    /// One split per range, each to resynchronize on its own: no join checked yet.
    fn unjoined_splits(&self) -> Vec<SplitFrames<'a, &D>> {
        let len = self.bytes.len();
        let split_len = self.split_len();
        (0..len.div_ceil(split_len))
            .filter_map(|k| {
                let range = k * split_len..len.min((k + 1) * split_len);
                let split = SplitFrames::new(self.bytes, range, &self.deframer).ok()?;
                Some(
                    split
                        .with_max_frame_len(self.max_frame_len)
                        .with_confirmations(self.confirmations),
                )
            })
            .collect()
    }

    /// Hands mapped splits to `sink` in order, up to the first error or break, after the join
    /// check: a split that does not start at `reach`, where the one before ended, is mapped
    /// again from there.
    fn drain<M, T, S, C>(
        &self,
        ready: Vec<Mapped<T>>,
        reach: &mut usize,
        map: &M,
        sink: &mut S,
        halted: &AtomicBool,
    ) -> Result<ControlFlow<()>>
    where
        M: Fn(&'a [u8]) -> Result<T>,
        S: FnMut(T) -> Result<C>,
        C: IntoControlFlow,
    {
        for mapped in ready {
            let mapped = match mapped.first {
                Some(first) if first == *reach => mapped,
                None if *reach >= mapped.range.end => continue, // no frame starts in it
                _ => {
                    let split = SplitFrames::at_boundary(
                        self.bytes,
                        *reach..mapped.range.end,
                        &self.deframer,
                    )
                    .with_max_frame_len(self.max_frame_len);
                    map_split(split, map, halted)
                }
            };
            for (at, value) in mapped.results {
                if flow(sink(value), at)?.is_break() {
                    return Ok(ControlFlow::Break(()));
                }
            }
            if let Some(error) = mapped.error {
                return Err(error);
            }
            *reach = mapped.end;
        }
        Ok(ControlFlow::Continue(()))
    }
}

/// Where a walk over frame lengths ended.
#[derive(Debug, Clone, Copy)]
enum Walk {
    /// The first frame boundary at or after the end of the range.
    Reached(usize),
    /// A frame before the end of the range is cut short or over the bound: reading stops there.
    Stopped,
}

/// Walks the frames from the boundary `at` while they start before `until`, reading their
/// lengths only.
fn walk<D: Deframer>(frames: &Frames<'_, D>, bytes: &[u8], mut at: usize, until: usize) -> Walk {
    while at < until {
        match frames.unverified_len(&bytes[at..]) {
            Some(len) => at += len,
            None => return Walk::Stopped,
        }
    }
    Walk::Reached(at)
}

/// How the fold of one split ended.
enum Folded<T> {
    /// At the end of the split.
    Done(T),
    /// On `ControlFlow::Break`.
    Broke(T),
    /// On an error.
    Failed(Error),
    /// Before its end, because a split before it failed or broke.
    Skipped,
}

impl<T> Folded<T> {
    fn map<U>(self, f: impl FnOnce(T) -> U) -> Folded<U> {
        match self {
            Folded::Done(t) => Folded::Done(f(t)),
            Folded::Broke(t) => Folded::Broke(f(t)),
            Folded::Failed(e) => Folded::Failed(e),
            Folded::Skipped => Folded::Skipped,
        }
    }
}

/// Folds the frames of split `i` into `value`, in place (a value folded frame by frame and
/// returned each time would go through memory on every frame). Returns where the split's
/// first frame is, where its frames ended, and how the fold ended.
fn fold_split<'a, D, T, F, C>(
    mut split: SplitFrames<'a, &D>,
    value: &mut T,
    fold: &F,
    stopped: &AtomicUsize,
    i: usize,
) -> (Option<usize>, usize, Folded<()>)
where
    D: Deframer,
    F: Fn(&mut T, &'a [u8]) -> Result<C>,
    C: IntoControlFlow,
{
    let first = split.sync_at();
    let folded = loop {
        if stopped.load(Ordering::Relaxed) < i {
            break Folded::Skipped;
        }
        let at = split.position();
        match split.next() {
            None => break Folded::Done(()),
            Some(Ok(payload)) => match flow(fold(value, payload), at) {
                Ok(ControlFlow::Continue(())) => {}
                Ok(ControlFlow::Break(())) => break Folded::Broke(()),
                Err(e) => break Folded::Failed(e),
            },
            Some(Err(e)) => break Folded::Failed(e),
        }
    };
    // The split's offsets are those of the slice: they fit `usize`.
    #[allow(clippy::cast_possible_truncation)]
    let end = split.position() as usize;
    (first, end, folded)
}

/// What `map` made of one split's frames: where the split started and ended, the results with
/// their frames' offsets, then the error that ended the split, if one did.
struct Mapped<T> {
    range: Range<usize>,
    first: Option<usize>,
    end: usize,
    results: Vec<(u64, T)>,
    error: Option<Error>,
}

fn map_split<'a, D, M, T>(mut split: SplitFrames<'a, &D>, map: &M, halted: &AtomicBool) -> Mapped<T>
where
    D: Deframer,
    M: Fn(&'a [u8]) -> Result<T>,
{
    let first = split.sync_at();
    let mut results = Vec::new();
    let error = loop {
        if halted.load(Ordering::Relaxed) {
            break None;
        }
        let at = split.position();
        match split.next() {
            None => break None,
            Some(Ok(payload)) => match map(payload) {
                Ok(value) => results.push((at, value)),
                Err(e) => break Some(e.at_frame(at)),
            },
            Some(Err(e)) => break Some(e),
        }
    };
    Mapped {
        range: split.range(),
        first,
        // The split's offsets are those of the slice: they fit `usize`.
        #[allow(clippy::cast_possible_truncation)]
        end: split.position() as usize,
        results,
        error,
    }
}
