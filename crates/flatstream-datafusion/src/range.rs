//! The frames of one byte range of a file, read over ranged reads: the partition rule.
//!
//! ```text
//!  file  | frame | frame | frame | frame | frame | frame | frame |
//!            start ^                     end ^
//!                      ^ B(start)                 ^ B(end)
//!                      '-- this partition's frames --'
//! ```
//!
//! `B(c)` is the **boundary of a cut**: 0 for `c = 0`; the file's length for a cut at or past
//! its end, and for every cut past 0 of a file without checksums (nothing tells a frame start
//! from payload bytes there); otherwise the first frame that core's resynchronization
//! ([`SplitFrames::sync`]) confirms in the bytes `[c, c + W)`, then `[c, c + 2W)`, `[c, c +
//! 4W)` … up to the end of the file, or the file's length if none is. `B` depends on the
//! file's bytes and on `c` alone, so the partition that ends at `c` and the one that starts at
//! `c` compute the same value without talking to each other.
//!
//! A partition `[start, end)` reads the chain of frames from `B(start)`, each frame from where
//! the one before it ended, and stops where the chain reaches `B(end)`. If the chain steps
//! over `B(end)` (or starts past it), the partition fails with
//! [`Error::Resync`](crate::Error::Resync) instead of guessing.
//!
//! **Why every frame is read exactly once**, when no partition fails: partition 0 starts at
//! byte 0, a real frame boundary, so its chain is the file's real frames; it stopped exactly
//! on `B(s₁)`, so `B(s₁)` is a real boundary, and partition 1, which starts there, reads real
//! frames in turn, and so on. The partitions' chains are consecutive pieces of the one chain
//! a sequential reader walks, cut at `B(s₁) ≤ B(s₂) ≤ …`, and the last ends at the file's end.
//! A false resynchronization (payload bytes that read as frames, such as a stream stored
//! inside a payload) at some `B(sₖ)` cannot be landed on by the real chain of partition
//! `k - 1`: that partition fails, and so does the query. docs/design.md has the longer
//! version.

use crate::error::Error;
use bytes::{Bytes, BytesMut};
use datafusion::execution::object_store::ObjectStoreUrl;
use flatstream_checksum::AnyChecksum;
use flatstream_core::{ChecksumDeframer, Deframer, Next, ReadBuffer, SplitFrames};
use futures::future::BoxFuture;
use object_store::local::LocalFileSystem;
use object_store::path::Path;
use object_store::{ObjectStore, ObjectStoreExt};
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

/// The first window resynchronization searches, `W`; it doubles until a frame is found or the
/// file ends.
pub(crate) const RESYNC_WINDOW: u64 = 1 << 20;

/// The bytes a partition reads at a time, at least (more when one frame needs more).
pub(crate) const READ_CHUNK: u64 = 1 << 20;

/// A file's bytes, read by range.
pub(crate) trait ByteSource: Send + Sync {
    /// The file's length.
    fn len(&self) -> u64;
    /// The file's name, for errors.
    fn name(&self) -> &str;
    /// The bytes `range` (within the file).
    fn read(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes, Error>>;
}

/// A file of an object store, counting the bytes it reads.
pub(crate) struct StoreFile {
    pub(crate) store: Arc<dyn ObjectStore>,
    pub(crate) location: Path,
    /// The file's name in errors (see [`StoreFile::display_name`]).
    pub(crate) name: String,
    pub(crate) size: u64,
    pub(crate) read: Arc<AtomicU64>,
}

impl StoreFile {
    /// How errors name the file at `location` of the store at `url`: a local file by its
    /// absolute path, as the user gave it (the object store's location drops the leading `/`);
    /// any other by its URL.
    pub(crate) fn display_name(url: &ObjectStoreUrl, location: &Path) -> String {
        if url.as_str() == "file:///"
            && let Ok(path) = LocalFileSystem::new().path_to_filesystem(location)
        {
            return path.display().to_string();
        }
        format!("{}{location}", url.as_str())
    }
}

impl ByteSource for StoreFile {
    fn len(&self) -> u64 {
        self.size
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn read(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes, Error>> {
        Box::pin(async move {
            let bytes = self
                .store
                .get_range(&self.location, range.clone())
                .await
                .map_err(|source| Error::Read {
                    path: self.location.to_string(),
                    start: range.start,
                    end: range.end,
                    source,
                })?;
            self.read.fetch_add(bytes.len() as u64, Ordering::Relaxed);
            Ok(bytes)
        })
    }
}

/// A file held in memory (tests, and small inputs).
#[cfg(test)]
pub(crate) struct MemoryFile {
    pub(crate) bytes: Bytes,
    pub(crate) name: String,
}

#[cfg(test)]
impl ByteSource for MemoryFile {
    fn len(&self) -> u64 {
        self.bytes.len() as u64
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn read(&self, range: Range<u64>) -> BoxFuture<'_, Result<Bytes, Error>> {
        let bytes = self.bytes.slice(range.start as usize..range.end as usize);
        Box::pin(async move { Ok(bytes) })
    }
}

/// The frame a [`RangeReader`] found: its offset in the file, and where its payload lies in
/// [`RangeReader::bytes`].
#[derive(Debug, Clone)]
pub(crate) struct FrameRef {
    pub(crate) offset: u64,
    pub(crate) payload: Range<usize>,
}

/// The sizes a [`RangeReader`] reads with: the first resynchronization window `W` and the
/// least bytes read at a time. Part of the partition rule (`W` is in `B`): every partition of
/// a scan must use the same.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Sizes {
    pub(crate) window: u64,
    pub(crate) chunk: u64,
}

impl Sizes {
    /// What every scan reads with: a window of [`RESYNC_WINDOW`], [`READ_CHUNK`] at a time.
    pub(crate) const SCAN: Sizes = Sizes {
        window: RESYNC_WINDOW,
        chunk: READ_CHUNK,
    };
}

/// The frames of the file that a partition `[start, end)` owns (see the module docs).
///
/// A driver of core's sans-I/O [`ReadBuffer`], as `StreamReader` is over a `Read`: the
/// buffer decides what the bytes are (frame, need more, error), keeps the offsets and grows by
/// its rule; this reader fetches the file's bytes in chunks of ranged reads and decides where
/// the partition ends.
pub(crate) struct RangeReader<S, D = ChecksumDeframer<AnyChecksum>> {
    src: S,
    sizes: Sizes,
    buffer: ReadBuffer<D>,
    max_frame_len: usize,
    start: u64,
    end: u64,
    /// Where the partition's first frame starts: `B(start)`.
    first: u64,
    /// `B(end)`, once needed.
    stop: Option<u64>,
    /// Bytes read from the file and not yet handed to the buffer: `[fed - pending.len(), fed)`.
    pending: Bytes,
    /// The file offset of the next byte to read.
    fed: u64,
    /// The error [`next_buffered`](Self::next_buffered) met, for [`next`](Self::next) to
    /// report: a frame rejected for its content is already behind the buffer's position.
    held: Option<flatstream_core::Error>,
    done: bool,
}

impl<S: ByteSource, D: Deframer> RangeReader<S, D> {
    /// The reader of the partition `range` of `src`, framed as `deframer` reads frames (a
    /// scan's: [`ChecksumDeframer`] of the file's checksum), payloads bounded by
    /// `max_frame_len`. Finds `B(range.start)` (reading from there).
    pub(crate) async fn open(
        src: S,
        range: Range<u64>,
        deframer: D,
        max_frame_len: usize,
        sizes: Sizes,
    ) -> Result<Self, Error> {
        let len = src.len();
        let start = range.start.min(len);
        let end = range.end.clamp(start, len);
        let chunk = usize::try_from(sizes.chunk.max(1)).unwrap_or(usize::MAX);
        let mut buffer = ReadBuffer::new(deframer).with_capacity(chunk);
        buffer.set_max_frame_len(max_frame_len);
        let mut reader = RangeReader {
            src,
            sizes,
            buffer,
            max_frame_len,
            start,
            end,
            first: 0,
            stop: (end == len).then_some(len),
            pending: Bytes::new(),
            fed: 0,
            held: None,
            done: false,
        };
        let first = reader.boundary(start).await?;
        reader.first = first;
        reader.fed = first;
        reader.buffer.set_position(first);
        Ok(reader)
    }

    /// `B(cut)`.
    async fn boundary(&self, cut: u64) -> Result<u64, Error> {
        let len = self.src.len();
        if cut == 0 {
            return Ok(0);
        }
        if cut >= len || self.buffer.deframer().checksum_size() == 0 {
            return Ok(len);
        }
        // One byte before the cut: a split that starts past 0 resynchronizes, and reads
        // nothing before its start.
        let base = cut - 1;
        let mut window = self.sizes.window.max(1);
        let mut bytes = BytesMut::from(
            &self
                .src
                .read(base..len.min(cut.saturating_add(window)))
                .await?[..],
        );
        loop {
            let split = SplitFrames::new(&bytes, 1..bytes.len(), self.buffer.deframer())
                .map_err(|source| self.frame_error(source))?;
            if let Some(at) = split.with_max_frame_len(self.max_frame_len).sync() {
                return Ok(base + at);
            }
            let read_to = base + bytes.len() as u64;
            if read_to >= len {
                return Ok(len);
            }
            window = window.saturating_mul(2);
            let more = self
                .src
                .read(read_to..len.min(cut.saturating_add(window)))
                .await?;
            bytes.extend_from_slice(&more);
        }
    }

    /// The next frame of the partition; `None` after its last.
    ///
    /// # Errors
    ///
    /// A framing error (with the file's name and the frame's offset), a failed read, or
    /// [`Error::Resync`] where the chain steps over `B(end)`. The reader then ends.
    pub(crate) async fn next(&mut self) -> Result<Option<FrameRef>, Error> {
        if self.done {
            return Ok(None);
        }
        let step = self.step().await;
        if !matches!(step, Ok(Some(_))) {
            self.done = true;
        }
        step
    }

    /// The next frame if the buffer holds it, whole, and it starts before the range's end:
    /// without I/O and without an `await`, so that a scan's loop over the frames of a chunk
    /// stays out of the async state machine (moving each frame's result through it cost a
    /// sixth of a scan). `None`: ask [`next`](Self::next), which reads, decides where the range
    /// ends, and reports errors: the error met here is held for it (a framing error leaves the
    /// buffer at the frame; a frame rejected for its content is behind it, and would be lost).
    #[inline]
    pub(crate) fn next_buffered(&mut self) -> Option<FrameRef> {
        let pos = self.buffer.position();
        if self.done || pos >= self.end {
            return None;
        }
        match self.buffer.next_frame() {
            Ok(Next::Frame(payload)) => Some(FrameRef {
                offset: pos,
                payload,
            }),
            Ok(Next::NeedBytes) => None,
            Err(error) => {
                self.held = Some(error);
                None
            }
        }
    }

    async fn step(&mut self) -> Result<Option<FrameRef>, Error> {
        if let Some(error) = self.held.take() {
            return Err(self.frame_error(error));
        }
        loop {
            let pos = self.buffer.position();
            if pos >= self.end {
                let stop = match self.stop {
                    Some(stop) => stop,
                    None => {
                        let stop = self.boundary(self.end).await?;
                        self.stop = Some(stop);
                        stop
                    }
                };
                if pos == stop {
                    return Ok(None);
                }
                if pos > stop {
                    return Err(Error::Resync {
                        path: self.src.name().to_owned(),
                        start: self.start,
                        end: self.end,
                        from: self.first,
                        reached: pos,
                        boundary: stop,
                    });
                }
            }
            match self.buffer.next_frame() {
                Ok(Next::Frame(payload)) => {
                    return Ok(Some(FrameRef {
                        offset: pos,
                        payload,
                    }));
                }
                Ok(Next::NeedBytes) => {
                    if self.pending.is_empty() && self.fed >= self.src.len() {
                        // The file ends inside the frame (or, at `pos`, between frames: then
                        // `pos` is the file's length, at or past `end`, handled above).
                        self.buffer.finish().map_err(|e| self.frame_error(e))?;
                        return Ok(None);
                    }
                    self.feed().await?;
                }
                Err(error) => return Err(self.frame_error(error)),
            }
        }
    }

    /// Hands the buffer the next bytes of the file, as many as its free space takes; reads
    /// from the file first if none are pending: at least the chunk size, and as much as the
    /// space the buffer made, which grows with the bytes of a large frame received, never
    /// with a header's claim.
    async fn feed(&mut self) -> Result<(), Error> {
        if self.pending.is_empty() {
            let space = self.buffer.read_space().len() as u64;
            let to = self
                .src
                .len()
                .min(self.fed.saturating_add(space.max(self.sizes.chunk.max(1))));
            self.pending = self.src.read(self.fed..to).await?;
            self.fed = to;
        }
        let space = self.buffer.read_space();
        let n = space.len().min(self.pending.len());
        space[..n].copy_from_slice(&self.pending[..n]);
        self.buffer.commit(n);
        let _ = self.pending.split_to(n);
        Ok(())
    }

    /// The bytes a [`FrameRef`]'s payload range points into (valid until the next call to
    /// [`next`](Self::next)).
    pub(crate) fn bytes(&self) -> &[u8] {
        self.buffer.bytes()
    }

    /// The file's name.
    pub(crate) fn name(&self) -> &str {
        self.src.name()
    }

    /// The source read.
    pub(crate) fn source(&self) -> &S {
        &self.src
    }

    fn frame_error(&self, source: flatstream_core::Error) -> Error {
        Error::Frame {
            path: self.src.name().to_owned(),
            source,
        }
    }
}

#[cfg(test)]
#[path = "range_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "range_contract.rs"]
mod contract;
