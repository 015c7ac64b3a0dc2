//! Recovery over files and `Read` sources: [`Recover::scan_reader`] and
//! [`Recover::repair_file`].

use super::{Recover, Recovery, StreamEnd};
use crate::error::{Error, Result};
use crate::read::stream::StreamReader;
use crate::wire::framing::Deframer;
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
            (self.classify(error, &rest), scanned)
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
    /// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
    /// use flatstream::repair::{Recover, RepairPolicy};
    /// use std::io::Write;
    ///
    /// let dir = std::env::temp_dir().join(format!("flatstream-doc-{}", std::process::id()));
    /// std::fs::create_dir_all(&dir)?;
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
    /// std::fs::remove_dir_all(&dir)?;
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

/// What [`Recover::repair_file`] may cut off.
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
