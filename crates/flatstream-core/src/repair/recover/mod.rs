//! Recovery: find where the intact part of a stream ends, and cut a torn tail off a journal.

use crate::error::Error;
use crate::read::slice::Frames;
use crate::split::ranges::first_confirmed;
use crate::wire::frame::DEFAULT_MAX_FRAME_LEN;
use crate::wire::framing::Deframer;
use alloc::vec;

/// How a scanned stream ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamEnd {
    /// The last intact frame ends exactly at the end of the data (or the data is empty).
    Clean,
    /// The data ends inside a frame that starts at [`Recovery::valid_len`]: it needs `needed`
    /// bytes in all (the header size while the header itself is incomplete) and has `present`.
    /// This is what a writer that died mid-frame leaves behind.
    ///
    /// Before calling an end a torn tail, a scan looks past the frame: if frames follow it, the
    /// end is [`Damaged`](Self::Damaged) or [`Ambiguous`](Self::Ambiguous) instead.
    TornTail {
        /// Bytes the frame needs in all, header included.
        needed: u64,
        /// Bytes of the frame that are present.
        present: u64,
    },
    /// The frame at [`Recovery::valid_len`] runs past the end of the data, as a torn tail
    /// would, but intact frames follow it: from `resumes_at` on, frames whose checksums verify
    /// chain as a split's first frames must ([`SplitFrames`](crate::SplitFrames)). The frame's
    /// length field is damaged; cutting at `valid_len` would lose the frames after it, which
    /// [`Salvage`](crate::Salvage) keeps. Only a stream with a checksum ends so.
    Damaged {
        /// Bytes the damaged frame declares in all, header included.
        needed: u64,
        /// Bytes from the damaged frame's start to the end of the data.
        present: u64,
        /// Offset of the first intact frame after it.
        resumes_at: u64,
    },
    /// In a stream without a checksum, the frame at [`Recovery::valid_len`] runs past the end
    /// of the data, and from `resumes_at` on the bytes after its header parse as a chain of
    /// frames, each within the bound, that ends exactly at the end of the data and holds at
    /// least [`Recover::AMBIGUOUS_CHAIN`] frames that are not empty. A torn tail whose payload
    /// happens to parse so, or a damaged length followed by intact frames: nothing in the data
    /// tells which. See "What a scan cannot tell apart" on [`Recover`].
    Ambiguous {
        /// Bytes the frame declares in all, header included.
        needed: u64,
        /// Bytes from the frame's start to the end of the data.
        present: u64,
        /// Where the frames that parse up to the end start.
        resumes_at: u64,
    },
    /// The frame at [`Recovery::valid_len`] is corrupt: the error says how
    /// ([`Error::FrameTooLarge`] for a length over the bound, [`Error::ChecksumMismatch`], or
    /// whatever framing error a custom deframer returns), and its offset is that frame's.
    Corrupt(Error),
}

/// What a scan found: see [`Recover`].
#[derive(Debug)]
#[non_exhaustive]
pub struct Recovery {
    /// Intact frames before the end or the first corrupt frame, rejected ones included.
    pub frames: u64,
    /// Of those, frames a validating deframer rejected for their content (the frame itself is
    /// whole and its checksum, if any, verified).
    pub rejected: u64,
    /// The offset just past the last intact frame before the end or the damage: the length
    /// to truncate a journal with a torn tail to.
    pub valid_len: u64,
    /// Bytes in the input.
    pub scanned: u64,
    /// How the stream ended.
    pub end: StreamEnd,
}

impl Recovery {
    /// Whether the stream ended exactly after its last frame.
    pub fn is_clean(&self) -> bool {
        matches!(self.end, StreamEnd::Clean)
    }

    /// Whether the stream ends in a torn tail: what [`RepairPolicy::TornTail`] cuts.
    pub fn is_torn_tail(&self) -> bool {
        matches!(self.end, StreamEnd::TornTail { .. })
    }

    /// Bytes after the last intact frame: what truncating to [`valid_len`](Self::valid_len)
    /// discards.
    pub fn discarded(&self) -> u64 {
        self.scanned - self.valid_len
    }
}

/// Finds where the intact part of a stream ends, and cuts a torn tail off a journal.
///
/// A process that appends frames to a file and crashes can leave the last frame half written.
/// [`Recover::scan`] walks the frames from the start and reports how many are intact, the
/// offset just past the last one ([`Recovery::valid_len`]), and how the stream ended
/// ([`StreamEnd`]). [`Recover::repair_file`] does the same over a file and truncates it to that
/// offset, byte-exact, so that the journal can be reopened and appended to.
///
/// ```text
///  frame 0      frame 1      frame 2 (torn)
/// +-----------+------------+--------+
/// | hdr | pay | hdr | pay  | hdr | p|   <- the writer died here
/// +-----------+------------+--------+
///                          ^        ^
///                          |        scanned: the end of the data
///                          valid_len: repair_file truncates the file here
/// ```
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
/// use flatstream::repair::{Recover, StreamEnd};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"first")?;
/// writer.write(&"second")?;
/// let mut bytes = writer.into_inner();
/// let intact = bytes.len();
/// bytes.extend_from_slice(&[200, 0, 0, 0, 1, 2, 3]); // a frame cut short by a crash
///
/// let recovery = Recover::new(DefaultDeframer).scan(&bytes);
/// assert_eq!(recovery.frames, 2);
/// assert_eq!(recovery.valid_len, intact as u64);
/// assert!(matches!(recovery.end, StreamEnd::TornTail { needed: 204, present: 7 }));
/// # Ok::<(), flatstream::Error>(())
/// ```
///
/// # Telling a torn tail from a damaged length
///
/// A frame whose declared length runs past the end of the data is what a writer that died
/// mid-frame leaves, and also what a damaged length field in the middle of a stream looks
/// like: the length points past the end, and the frames after it are read as its payload.
/// Before calling an end a torn tail, a scan looks past the frame's start:
///
/// * **With a checksum**, it searches the bytes after the frame's start for a frame whose
///   checksum verifies, that is not all zeros, and that the next frames confirm, as a split
///   finds its first frame ([`SplitFrames`](crate::SplitFrames), with
///   [`DEFAULT_CONFIRMATIONS`](crate::DEFAULT_CONFIRMATIONS)). If there is one, the end is
///   [`StreamEnd::Damaged`] and [`repair_file`](Self::repair_file) refuses to cut it; if not,
///   the end is a torn tail. The search reads one length per offset and computes checksums
///   only where a chain of whole frames is present, so it costs about what resynchronizing a
///   split costs, over no more than the bytes after the frame's start (fewer than the frame
///   declares, so within the bound).
/// * **Without a checksum** nothing verifies, and a torn frame's payload may hold any bytes.
///   A scan checks whether, from some offset after the frame's header, the bytes parse as a
///   chain of frames within the bound that ends exactly at the end of the data and holds at
///   least [`AMBIGUOUS_CHAIN`](Self::AMBIGUOUS_CHAIN) frames that are not empty: intact frames
///   after a damaged length do, and the torn payload of a crashed append rarely does. If so,
///   the end is [`StreamEnd::Ambiguous`] ("in doubt"), and `repair_file` cuts it only under
///   [`RepairPolicy::AssumeTornTail`]; if not, it is a torn tail. The check is one pass
///   backwards over the bytes after the frame's start, with one byte of memory for each.
///
/// # What a scan cannot tell apart
///
/// The stream records neither where frames start nor whether the writer finished, so some
/// damage looks exactly like some other damage:
///
/// * **Damage near the end can look like a torn tail.** A damaged length in the last frame is
///   a torn tail to any reader: no frame follows it. With a checksum, so is a damaged length
///   followed only by frames of zero bytes (see below), or by one or two intact frames and
///   then a torn one (the confirmations
///   [`DEFAULT_CONFIRMATIONS`](crate::DEFAULT_CONFIRMATIONS) asks for are missing). Without a
///   checksum, so is a damaged length followed by fewer than
///   [`AMBIGUOUS_CHAIN`](Self::AMBIGUOUS_CHAIN) non-empty frames, or by intact frames and
///   then a torn one.
/// * **A torn payload that holds framed data** (a stream stored inside a stream) looks like
///   damage: its inner frames verify. The scan then reports [`StreamEnd::Damaged`], and
///   `repair_file` refuses, which loses nothing.
/// * **Without a checksum, corruption inside a payload is invisible**, and a corrupt length that
///   stays inside the data shifts every later frame boundary: the scan then reads payload bytes
///   as headers and may report anything, including a clean end. Only a checksum detects it.
/// * **Zeros look like empty frames.** A length of 0 with no checksum is a valid empty frame, and
///   so is a length of 0 with a CRC-32, CRC-32C or CRC-16 of 0 (the checksum of no bytes). A file whose
///   tail was zero-filled by the file system after a crash scans as a run of empty frames with
///   those framings. XXH3-64 of no bytes is not 0, so that framing reports the zeros as corrupt.
/// * **A frame rejected by a validating deframer is intact**: its boundaries are known, so the
///   scan counts it in [`Recovery::rejected`] and goes on.
///
/// Passing the bound the stream was written with ([`with_max_frame_len`](Self::with_max_frame_len))
/// turns most damaged lengths into a [`StreamEnd::Corrupt`] frame before any look past it. To
/// keep the intact frames that follow a corrupt or damaged one, use [`Salvage`](crate::Salvage).
///
/// A scan does one pass and costs what reading the stream costs: each frame's checksum is
/// computed once, and the look past a frame that runs off the end is bounded as above. Over a
/// slice it allocates nothing, except for that look in a stream without a checksum.
#[derive(Debug, Clone)]
pub struct Recover<D> {
    deframer: D,
    max_frame_len: usize,
}

impl<D: Deframer> Recover<D> {
    /// How many frames that are not empty a chain after a frame that runs off the end must
    /// hold, in a stream without a checksum, for the end to be [`StreamEnd::Ambiguous`]
    /// rather than a torn tail: a first frame and
    /// [`DEFAULT_CONFIRMATIONS`](crate::DEFAULT_CONFIRMATIONS) more, as many as a split's
    /// resynchronization asks of a checksummed stream.
    ///
    /// A torn payload's small integers and offsets (a FlatBuffer starts with one) often parse
    /// as a frame or two that end where the data does; three are rare, except in payloads made
    /// of small 32-bit integers. Chains of empty frames never count: zeros are what a file
    /// system leaves after a crash. `docs/robustness.md` gives the measurements.
    pub const AMBIGUOUS_CHAIN: usize = 3;

    /// A scanner for streams framed as `deframer` expects.
    pub fn new(deframer: D) -> Self {
        Recover {
            deframer,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
        }
    }

    /// Sets the largest payload accepted (default [`DEFAULT_MAX_FRAME_LEN`]); a frame declaring
    /// more ends the scan as [`StreamEnd::Corrupt`] with [`Error::FrameTooLarge`]. Use the bound
    /// the stream was written with: a length over it is known to be corrupt without looking
    /// past it, and a tight bound leaves the look past a frame that runs off the end (and a
    /// torn tail's own length) less room to be wrong.
    ///
    /// The same setting as [`FrameConfig::with_max_frame_len`](crate::FrameConfig::with_max_frame_len).
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        &self.deframer
    }

    /// Scans `bytes` from the start. Works without `std`; allocates nothing, except to look
    /// past a frame that runs off the end of a stream without a checksum (one byte per byte
    /// after its start).
    pub fn scan(&self, bytes: &[u8]) -> Recovery {
        let mut it = Frames::new(bytes, &self.deframer).with_max_frame_len(self.max_frame_len);
        let mut frames = 0;
        let mut rejected = 0;
        let end = loop {
            match it.next() {
                None => break StreamEnd::Clean,
                Some(Ok(_)) => frames += 1,
                Some(Err(e)) if e.is_content_error() => {
                    frames += 1;
                    rejected += 1;
                }
                Some(Err(e)) => {
                    // A framing error leaves the iterator at the frame that failed, an offset
                    // in `bytes`.
                    let at = usize::try_from(it.position()).map_or(bytes.len(), |at| at);
                    break self.classify(e, &bytes[at.min(bytes.len())..]);
                }
            }
        };
        Recovery {
            frames,
            rejected,
            valid_len: it.position(),
            scanned: bytes.len() as u64,
            end,
        }
    }

    /// A framing error that ends a scan: end-of-data inside a frame is a torn tail unless
    /// frames follow it (in `rest`, the bytes from the frame's start to the end), anything
    /// else is corruption.
    pub(super) fn classify(&self, e: Error, rest: &[u8]) -> StreamEnd {
        match e {
            Error::UnexpectedEof {
                offset,
                needed,
                present,
            } => self.look_past(rest, offset, needed, present),
            e => StreamEnd::Corrupt(e),
        }
    }

    /// How a stream ends whose frame at `offset` runs past the end of the data: `rest` is
    /// the bytes from that frame's start to the end. See "Telling a torn tail from a damaged
    /// length" on [`Recover`].
    fn look_past(&self, rest: &[u8], offset: u64, needed: u64, present: u64) -> StreamEnd {
        let resumes = if self.deframer.checksum_size() > 0 {
            // A frame may resume anywhere after the damaged one's first byte: its length field
            // is not to be trusted, so neither is where its header says the payload starts.
            first_confirmed(rest, 1, &self.deframer, self.max_frame_len).map(|at| (at, true))
        } else {
            let frames = Frames::new(rest, &self.deframer).with_max_frame_len(self.max_frame_len);
            chain_to_end(&frames, rest, Self::AMBIGUOUS_CHAIN).map(|at| (at, false))
        };
        match resumes {
            None => StreamEnd::TornTail { needed, present },
            Some((at, verified)) => {
                let resumes_at = offset + at as u64;
                if verified {
                    StreamEnd::Damaged {
                        needed,
                        present,
                        resumes_at,
                    }
                } else {
                    StreamEnd::Ambiguous {
                        needed,
                        present,
                        resumes_at,
                    }
                }
            }
        }
    }
}

/// In `rest`, which starts with a frame whose length runs past its end, the first offset after
/// that frame's header from which the bytes parse as frames within the bound of `frames` that
/// end exactly at the end of `rest`, `min` of them or more not empty. Frames are parsed as
/// `frames` parses them, unverified (their lengths only).
///
/// One pass backwards: the chain from an offset is that frame and the chain from where it
/// ends, which lies further on, so each offset is parsed once. One byte of memory per byte of
/// `rest` holds, for each offset, whether its chain ends at the end and how many frames in it
/// are not empty (counted up to `min`).
fn chain_to_end<D: Deframer>(frames: &Frames<'_, D>, rest: &[u8], min: usize) -> Option<usize> {
    let header = frames.header_len();
    if rest.len() <= header {
        return None;
    }
    // 0: no chain from here ends at the end; 1 + n: one does, with n non-empty frames.
    let top = u8::try_from(min).unwrap_or(u8::MAX - 1).saturating_add(1);
    let mut chain = vec![0u8; rest.len() + 1];
    chain[rest.len()] = 1;
    for at in (header..rest.len()).rev() {
        if let Some(len) = frames.unverified_len(&rest[at..]) {
            let after = chain[at + len];
            if after > 0 {
                chain[at] = after.saturating_add(u8::from(len > header)).min(top);
            }
        }
    }
    (header..rest.len()).find(|&at| chain[at] == top)
}

#[cfg(feature = "std")]
mod file;
#[cfg(feature = "std")]
pub use file::RepairPolicy;

#[cfg(test)]
mod tests;
