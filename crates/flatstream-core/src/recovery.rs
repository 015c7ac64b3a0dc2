//! Recovery: find where the intact part of a stream ends, and cut a torn tail off a journal.

use crate::error::Error;
use crate::frame::DEFAULT_MAX_FRAME_LEN;
use crate::framer::Deframer;
use crate::frames::Frames;

/// How a scanned stream ended.
#[derive(Debug)]
#[non_exhaustive]
pub enum StreamEnd {
    /// The last intact frame ends exactly at the end of the data (or the data is empty).
    Clean,
    /// The data ends inside a frame that starts at [`Recovery::valid_len`]: it needs `needed`
    /// bytes in all (the header size while the header itself is incomplete) and has `present`.
    /// This is what a writer that died mid-frame leaves behind.
    TornTail {
        /// Bytes the frame needs in all, header included.
        needed: u64,
        /// Bytes of the frame that are present.
        present: u64,
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
    /// The offset just past the last intact frame: the length to truncate a journal to.
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
/// # What a scan cannot tell apart
///
/// The stream records neither where frames start nor whether the writer finished, so some
/// damage looks exactly like some other damage:
///
/// * **A corrupt length that points past the end looks like a torn tail**, with or without a
///   checksum: the checksum covers the payload, and the payload is not all there to check.
///   Only a length over the bound is recognised as corrupt.
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
/// To keep the intact frames that follow a corrupt one, use [`Salvage`](crate::Salvage).
///
/// A scan does one pass and costs what reading the stream costs: each frame's checksum is
/// computed once. It allocates nothing over a slice.
#[derive(Debug, Clone)]
pub struct Recover<D> {
    deframer: D,
    max_frame_len: usize,
}

/// What [`Recover::repair_file`] may cut off.
#[cfg(feature = "std")]
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RepairPolicy {
    /// Cut a torn tail only. If a frame is corrupt the file is left as it is and the corruption
    /// is returned as an error: the bytes after it may hold intact frames worth salvaging.
    TornTail,
    /// Cut everything after the last intact frame, corrupt frames and what follows them
    /// included.
    AfterLastGoodFrame,
}

impl<D: Deframer> Recover<D> {
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

    /// Scans `bytes` from the start. Works without `std` and allocates nothing.
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
                Some(Err(e)) => break classify(e),
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
}

/// A framing error that ends a scan: end-of-data inside a frame is a torn tail, anything else
/// is corruption.
fn classify(e: Error) -> StreamEnd {
    match e {
        Error::UnexpectedEof {
            needed, present, ..
        } => StreamEnd::TornTail { needed, present },
        e => StreamEnd::Corrupt(e),
    }
}

#[cfg(feature = "std")]
mod io_helpers {
    use super::{Recover, Recovery, RepairPolicy, StreamEnd, classify};
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
        /// I/O errors are returned as [`Error::Io`]; `Interrupted` is retried.
        pub fn scan_reader<R: Read>(&self, source: R) -> Result<Recovery> {
            let mut reader =
                StreamReader::new(source, &self.deframer).with_max_frame_len(self.max_frame_len);
            let mut frames = 0;
            let mut rejected = 0;
            let end = loop {
                match reader.read_message() {
                    Ok(None) => break StreamEnd::Clean,
                    Ok(Some(_)) => frames += 1,
                    Err(e) if e.is_content_error() => {
                        frames += 1;
                        rejected += 1;
                    }
                    Err(e @ Error::Io { .. }) => return Err(e),
                    Err(e) => break classify(e),
                }
            };
            let valid_len = reader.position();
            let scanned = match &end {
                StreamEnd::Clean => valid_len,
                StreamEnd::TornTail { present, .. } => valid_len + present,
                StreamEnd::Corrupt(_) => {
                    let buffered = reader.buffer().len() as u64;
                    let rest = io::copy(reader.get_mut(), &mut io::sink())
                        .map_err(|e| Error::io(e, valid_len))?;
                    valid_len + buffered + rest
                }
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
        /// The file must be open for reading and writing. With [`RepairPolicy::TornTail`], a
        /// corrupt frame leaves the file untouched and is returned as the error (a
        /// [`Error::ChecksumMismatch`] or [`Error::FrameTooLarge`] at that frame's offset).
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
            match recovery.end {
                StreamEnd::Corrupt(e) if policy == RepairPolicy::TornTail => return Err(e),
                _ => {}
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
