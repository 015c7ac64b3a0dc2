//! Recovery: find where the intact part of a stream ends, and cut a torn tail off a journal.

use crate::decode::Decoder;
use crate::error::Error;
use crate::frame::DEFAULT_MAX_FRAME_LEN;
use crate::framer::Deframer;
use crate::frames::Frames;
use crate::split::first_confirmed;
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
/// use flatstream_core::{DefaultDeframer, DefaultFramer, Recover, StreamEnd, StreamWriter};
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
/// # Ok::<(), flatstream_core::Error>(())
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
/// * **Damage to one of the last frames can look like a torn tail.** A damaged length in the
///   last frame is a torn tail to any reader (no frame follows). With a checksum, a damaged
///   length followed by fewer than [`DEFAULT_CONFIRMATIONS`](crate::DEFAULT_CONFIRMATIONS)
///   + 1 intact frames and then a torn frame is one too, and so are intact frames of zero
///   bytes (see below). Without a checksum, a damaged length followed by fewer than
///   [`AMBIGUOUS_CHAIN`](Self::AMBIGUOUS_CHAIN) non-empty frames is, and so is any damaged
///   length followed by intact frames and then a torn one.
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

/// The former name of [`RepairPolicy`].
#[cfg(feature = "std")]
#[deprecated(since = "0.3.0", note = "renamed `RepairPolicy`")]
pub type Truncate = RepairPolicy;

/// What [`Recover::repair_file`] may cut off.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepairPolicy {
    /// Cut a torn tail only. If a frame is corrupt or its length damaged
    /// ([`StreamEnd::Corrupt`], [`StreamEnd::Damaged`]), or if the end is in doubt
    /// ([`StreamEnd::Ambiguous`]), the file is left as it is and that is returned as an error:
    /// the bytes after it may hold intact frames worth salvaging.
    TornTail,
    /// As [`TornTail`](Self::TornTail), and cut an [`StreamEnd::Ambiguous`] end too, as the
    /// torn tail it may be: for a journal without a checksum whose writer is known to have
    /// died mid-append. A corrupt frame or a damaged length is still refused.
    AssumeTornTail,
    /// Cut everything after the last intact frame, corrupt frames and what follows them
    /// included.
    AfterLastGoodFrame,
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
    /// the stream was written with: it is what turns most corrupt lengths from a "torn tail"
    /// into a detected corruption.
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
                Some(Err(e)) => break self.classify(e, |at| &bytes[at as usize..]),
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
    /// frames follow it (the bytes from the frame's start to the end, which `rest` gives,
    /// say), anything else is corruption.
    fn classify<'a>(&self, e: Error, rest: impl FnOnce(u64) -> &'a [u8]) -> StreamEnd {
        match e {
            Error::UnexpectedEof {
                offset,
                needed,
                present,
            } => self.look_past(rest(offset), offset, needed, present),
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
            let decoder = Decoder::new(&self.deframer).with_max_frame_len(self.max_frame_len);
            chain_to_end(&decoder, rest, Self::AMBIGUOUS_CHAIN).map(|at| (at, false))
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
/// that frame's header from which the bytes parse as frames within the decoder's bound that
/// end exactly at the end of `rest`, `min` of them or more not empty. Frames are parsed as
/// the decoder parses them, unverified ([`Decoder::unverified_len`]).
///
/// One pass backwards: the chain from an offset is that frame and the chain from where it
/// ends, which lies further on, so each offset is parsed once. One byte of memory per byte of
/// `rest` holds, for each offset, whether its chain ends at the end and how many frames in it
/// are not empty (counted up to `min`).
fn chain_to_end<D: Deframer>(decoder: &Decoder<D>, rest: &[u8], min: usize) -> Option<usize> {
    let header = decoder.header_len();
    if rest.len() <= header {
        return None;
    }
    // 0: no chain from here ends at the end; 1 + n: one does, with n non-empty frames.
    let top = u8::try_from(min).unwrap_or(u8::MAX - 1).saturating_add(1);
    let mut chain = vec![0u8; rest.len() + 1];
    chain[rest.len()] = 1;
    for at in (header..rest.len()).rev() {
        if let Some(len) = decoder.unverified_len(&rest[at..]) {
            let after = chain[at + len];
            if after > 0 {
                chain[at] = (after + u8::from(len > header)).min(top);
            }
        }
    }
    (header..rest.len()).find(|&at| chain[at] == top)
}

#[cfg(feature = "std")]
mod io_helpers {
    use super::{Recover, Recovery, RepairPolicy, StreamEnd};
    use crate::error::{Error, Result};
    use crate::framer::Deframer;
    use crate::reader::StreamReader;
    use std::fs::File;
    use std::io::{self, Read, Seek, SeekFrom};

    impl<D: Deframer> Recover<D> {
        /// Scans a `Read` source to its end, through a [`StreamReader`] (so memory stays
        /// bounded by the largest frame, as when reading). After a corrupt frame the rest of
        /// the source is read and counted in [`Recovery::scanned`], not parsed.
        ///
        /// It reaches the same verdict as [`scan`](Self::scan) over the same bytes: where a
        /// frame runs past the end, the bytes from its start to the end (fewer than it
        /// declares, so within the bound, and already in the reader's buffer) are looked
        /// through as `scan` does.
        ///
        /// I/O errors are returned as [`Error::Io`]; `Interrupted` is retried.
        pub fn scan_reader<R: Read>(&self, source: R) -> Result<Recovery> {
            let mut reader =
                StreamReader::new(source, &self.deframer).with_max_frame_len(self.max_frame_len);
            let mut frames = 0;
            let mut rejected = 0;
            let error = loop {
                match reader.read_message() {
                    Ok(None) => break None,
                    Ok(Some(_)) => frames += 1,
                    Err(e) if e.is_content_error() => {
                        frames += 1;
                        rejected += 1;
                    }
                    Err(e @ Error::Io { .. }) => return Err(e),
                    Err(e) => break Some(e),
                }
            };
            let valid_len = reader.position();
            let Some(error) = error else {
                return Ok(Recovery {
                    frames,
                    rejected,
                    valid_len,
                    scanned: valid_len,
                    end: StreamEnd::Clean,
                });
            };
            // The unread bytes: at the end of the source inside a frame, the reader holds
            // them all (or, for a source in memory, the source does).
            let (mut source, mut rest) = reader.into_parts();
            let (end, scanned) = if matches!(error, Error::UnexpectedEof { .. }) {
                source
                    .read_to_end(&mut rest)
                    .map_err(|e| Error::io(e, valid_len))?;
                let scanned = valid_len + rest.len() as u64;
                (self.classify(error, |_| &rest), scanned)
            } else {
                let unread =
                    io::copy(&mut source, &mut io::sink()).map_err(|e| Error::io(e, valid_len))?;
                let scanned = valid_len + rest.len() as u64 + unread;
                (StreamEnd::Corrupt(error), scanned)
            };
            Ok(Recovery {
                frames,
                rejected,
                valid_len,
                scanned,
                end,
            })
        }

        /// Scans `file` from its start and truncates it to [`Recovery::valid_len`] as `policy`
        /// allows, then leaves its cursor there, so that the next write appends right after
        /// the last intact frame. The file is synced to disk before this returns, truncated or
        /// not: every frame it keeps is then on disk.
        ///
        /// The file must be open for reading and writing. With [`RepairPolicy::TornTail`],
        /// only a torn tail is cut: anything else after the last intact frame leaves the file
        /// untouched (nothing is written to it) and is returned as the error, at that frame's
        /// offset:
        ///
        /// * a corrupt frame: [`Error::ChecksumMismatch`] or [`Error::FrameTooLarge`];
        /// * a frame that runs past the end but is followed by intact frames
        ///   ([`StreamEnd::Damaged`]): [`Error::DamagedLength`], which says where they resume
        ///   ([`Salvage`](crate::Salvage) keeps them);
        /// * with no checksum, an end in doubt ([`StreamEnd::Ambiguous`]):
        ///   [`Error::AmbiguousTail`]; [`RepairPolicy::AssumeTornTail`] cuts it.
        ///
        /// Pass the bound the stream was written with
        /// ([`with_max_frame_len`](Self::with_max_frame_len)): a length over it is known to be
        /// corrupt without looking further. The scan reads the file as
        /// [`scan_reader`](Self::scan_reader) does: memory stays within the largest frame, and
        /// where a frame runs past the end, the bytes after its start (fewer than it declares).
        ///
        /// ```
        /// use flatstream_core::{DefaultDeframer, DefaultFramer, Recover, RepairPolicy, StreamWriter};
        /// use std::io::Write;
        ///
        /// # let dir = std::env::temp_dir().join(format!("flatstream-doc-{}", std::process::id()));
        /// # std::fs::create_dir_all(&dir)?;
        /// let path = dir.join("journal.bin");
        /// let mut writer = StreamWriter::new(std::fs::File::create(&path)?, DefaultFramer);
        /// writer.write(&"kept")?;
        /// let mut file = writer.into_inner();
        /// file.write_all(&[9, 0, 0, 0, b'l', b'o'])?; // the crash
        /// drop(file);
        ///
        /// let mut file = std::fs::OpenOptions::new().read(true).write(true).open(&path)?;
        /// let recovery = Recover::new(DefaultDeframer).repair_file(&mut file, RepairPolicy::TornTail)?;
        /// assert_eq!((recovery.frames, recovery.discarded()), (1, 6));
        ///
        /// let mut writer = StreamWriter::new(file, DefaultFramer);
        /// writer.write(&"appended")?;
        /// # std::fs::remove_dir_all(&dir)?;
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        pub fn repair_file(&self, file: &mut File, policy: RepairPolicy) -> Result<Recovery> {
            file.seek(SeekFrom::Start(0)).map_err(|e| Error::io(e, 0))?;
            let recovery = self.scan_reader(&mut *file)?;
            let offset = recovery.valid_len;
            match recovery.end {
                StreamEnd::Clean | StreamEnd::TornTail { .. } => {}
                _ if policy == RepairPolicy::AfterLastGoodFrame => {}
                StreamEnd::Ambiguous { .. } if policy == RepairPolicy::AssumeTornTail => {}
                StreamEnd::Corrupt(e) => return Err(e),
                StreamEnd::Damaged {
                    needed, resumes_at, ..
                } => {
                    return Err(Error::DamagedLength {
                        offset,
                        needed,
                        resumes_at,
                    });
                }
                StreamEnd::Ambiguous {
                    needed, resumes_at, ..
                } => {
                    return Err(Error::AmbiguousTail {
                        offset,
                        needed,
                        resumes_at,
                    });
                }
            }
            let at = recovery.valid_len;
            if recovery.discarded() > 0 {
                file.set_len(at).map_err(|e| Error::io(e, at))?;
            }
            // Synced even when nothing was cut: every frame kept is then on disk, so a writer
            // appending from here may start its durable watermark at `valid_len`.
            file.sync_data().map_err(|e| Error::io(e, at))?;
            file.seek(SeekFrom::Start(at))
                .map_err(|e| Error::io(e, at))?;
            Ok(recovery)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::{ChecksumDeframer, ChecksumFramer, DefaultDeframer, Framer};
    use crate::testing::Sum32;

    fn framed(payloads: &[&[u8]]) -> alloc::vec::Vec<u8> {
        let mut out = alloc::vec::Vec::new();
        for p in payloads {
            let header = ChecksumFramer::new(Sum32).header(p, 0).unwrap();
            out.extend_from_slice(header.as_bytes());
            out.extend_from_slice(p);
        }
        out
    }

    #[test]
    fn clean_empty_and_torn() {
        let r = Recover::new(DefaultDeframer).scan(&[]);
        assert!(r.is_clean());
        assert_eq!((r.frames, r.valid_len, r.scanned), (0, 0, 0));

        let bytes = [1, 0, 0, 0, 7, 3, 0];
        let r = Recover::new(DefaultDeframer).scan(&bytes);
        assert_eq!((r.frames, r.valid_len, r.discarded()), (1, 5, 2));
        assert!(matches!(
            r.end,
            StreamEnd::TornTail {
                needed: 4,
                present: 2
            }
        ));
    }

    #[test]
    fn checksum_mismatch_is_corrupt_at_that_frame() {
        let mut bytes = framed(&[b"abc", b"defg", b"h"]);
        bytes[11 + 8] ^= 1; // first payload byte of the second frame
        let r = Recover::new(ChecksumDeframer::new(Sum32)).scan(&bytes);
        assert_eq!((r.frames, r.valid_len), (1, 11));
        assert!(matches!(
            r.end,
            StreamEnd::Corrupt(Error::ChecksumMismatch { offset: 11, .. })
        ));
    }

    #[test]
    fn reader_scan_agrees_with_slice_scan() {
        let mut bytes = framed(&[b"abc", b"", b"xyz"]);
        for cut in 0..=bytes.len() {
            let d = ChecksumDeframer::new(Sum32);
            let a = Recover::new(&d).scan(&bytes[..cut]);
            let b = Recover::new(&d).scan_reader(&bytes[..cut]).unwrap();
            assert_eq!(
                (a.frames, a.valid_len, a.scanned, a.is_clean()),
                (b.frames, b.valid_len, b.scanned, b.is_clean()),
                "cut {cut}"
            );
        }
        bytes[9] ^= 0x40;
        let b = Recover::new(ChecksumDeframer::new(Sum32))
            .scan_reader(&bytes[..])
            .unwrap();
        assert_eq!(
            (b.frames, b.valid_len, b.scanned),
            (0, 0, bytes.len() as u64)
        );
        assert!(matches!(b.end, StreamEnd::Corrupt(_)));
    }
}
