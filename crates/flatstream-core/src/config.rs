//! [`FrameConfig`]: one value that says how frames are read and written, and builds the readers
//! and writers.

use crate::read::buffer::{DEFAULT_CAPACITY, ReadBuffer, Storage};
use crate::read::reclaim::{NoReclaim, ReclaimPolicy};
use crate::read::slice::Frames;
use crate::wire::checksum::Checksum;
use crate::wire::frame::DEFAULT_MAX_FRAME_LEN;
use crate::wire::framing::{ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer};

/// How frames are read and written: the format (checksum, or your own framer and deframer),
/// the bound on payloads, the read buffer's capacity and its reclaim policy. One value builds
/// every reader and writer, sync and async, so that both ends agree.
///
/// Every setting is a `with_` method that takes the configuration by value and returns it, as
/// the readers' and writers' own settings do (`with_max_frame_len`, `with_reclaim`): some
/// change its type (the format, the reclaim policy), so all take `self`, in any order. Each
/// says its default and whether it applies to reading, writing or both; the getters bear the
/// setting's name ([`max_frame_len`](Self::max_frame_len), [`capacity`](Self::capacity), …).
/// Building a reader or writer takes `&self`, so one configuration serves any number of them.
///
/// ```
/// use flatstream::FrameConfig;
/// use flatstream::checksum::NoChecksum;
/// use flatstream::read::MessageReader;
///
/// let config = FrameConfig::new()
///     .with_checksum(NoChecksum)
///     .with_max_frame_len(64 * 1024);
/// assert_eq!(config.max_frame_len(), 64 * 1024);
///
/// let mut writer = config.writer(Vec::new());
/// writer.write(&"one")?;
/// writer.write(&"two")?;
/// let bytes = writer.into_inner();
///
/// let mut n = 0;
/// config.reader(&bytes[..]).process_all(|_| {
///     n += 1;
///     Ok(())
/// })?;
/// assert_eq!(n, 2);
/// assert_eq!(config.frames(&bytes).count(), 2);
/// # Ok::<(), flatstream::Error>(())
/// ```
///
/// # Which reader
///
/// | the bytes are | call | reads |
/// |---|---|---|
/// | any `std::io::Read` (file, socket, pipe) | [`reader`](Self::reader) | through a [`ReadBuffer`]; in place over `&[u8]` and `Cursor` |
/// | a `BufRead` (a `BufReader` you already have) | [`buf_reader`](Self::buf_reader) | in place in its buffer |
/// | a byte slice | [`frames`](Self::frames) | in place |
/// | a `bytes::Bytes` (feature `bytes`) | [`bytes_frames`](Self::bytes_frames) | payloads as `Bytes` |
/// | a file on disk | `MappedFile::open(path)` (feature `mmap`), then [`frames`](Self::frames) or [`parallel`](Self::parallel) | in place |
/// | an `AsyncRead` | flatstream-tokio's `AsyncStreamReader::from_config` or `FrameCodec::from_config` | through a [`ReadBuffer`] |
/// | a file still being written | [`follower`](Self::follower) | through a [`ReadBuffer`] |
/// | frames at known offsets | [`frame_at`](Self::frame_at) | one frame per call |
/// | one range of a checksummed stream, or all cores | [`split`](Self::split), [`parallel`](Self::parallel) (feature `rayon`) | in place |
/// | a damaged stream | [`recover`](Self::recover), [`salvage`](Self::salvage) | in place |
///
/// After a framing error every reader behaves the same for its kind: a method
/// (`read_message`, `next_frame`, `Follower::next`) returns the same error again; an iterator
/// (`Frames`, `SplitFrames`, `BytesFrames`) yields it once and then ends. A frame rejected for
/// its content (a validating deframer) is skipped by all of them.
///
/// flatstream-tokio's `AsyncStreamReader::from_config`, `FrameCodec::from_config` and its codec
/// `Builder::from_config` take the same value.
#[derive(Debug, Clone)]
pub struct FrameConfig<F = DefaultFramer, D = DefaultDeframer, P = NoReclaim> {
    framer: F,
    deframer: D,
    reclaim: P,
    max_frame_len: usize,
    capacity: usize,
}

impl Default for FrameConfig {
    fn default() -> Self {
        FrameConfig::new()
    }
}

impl FrameConfig {
    /// The plain format without checksum, the default bound (2 GiB), a 64 KiB read buffer and
    /// no reclaim policy.
    pub fn new() -> Self {
        FrameConfig {
            framer: DefaultFramer,
            deframer: DefaultDeframer,
            reclaim: NoReclaim,
            max_frame_len: DEFAULT_MAX_FRAME_LEN,
            capacity: DEFAULT_CAPACITY,
        }
    }
}

impl<F, D, P> FrameConfig<F, D, P> {
    /// Protects every payload with `checksum`: [`ChecksumFramer`] and [`ChecksumDeframer`] of
    /// the same algorithm. Applies to **reading and writing**. Default: no checksum
    /// ([`DefaultFramer`], [`DefaultDeframer`]).
    pub fn with_checksum<C: Checksum + Clone>(
        self,
        checksum: C,
    ) -> FrameConfig<ChecksumFramer<C>, ChecksumDeframer<C>, P> {
        FrameConfig {
            framer: ChecksumFramer::new(checksum.clone()),
            deframer: ChecksumDeframer::new(checksum),
            reclaim: self.reclaim,
            max_frame_len: self.max_frame_len,
            capacity: self.capacity,
        }
    }

    /// Writes with `framer` (an adapter stack, say). Applies to **writing**. Default:
    /// [`DefaultFramer`].
    pub fn with_framer<G>(self, framer: G) -> FrameConfig<G, D, P> {
        FrameConfig {
            framer,
            deframer: self.deframer,
            reclaim: self.reclaim,
            max_frame_len: self.max_frame_len,
            capacity: self.capacity,
        }
    }

    /// Reads with `deframer` (a validating one, say). Applies to **reading**. Default:
    /// [`DefaultDeframer`].
    pub fn with_deframer<E>(self, deframer: E) -> FrameConfig<F, E, P> {
        FrameConfig {
            framer: self.framer,
            deframer,
            reclaim: self.reclaim,
            max_frame_len: self.max_frame_len,
            capacity: self.capacity,
        }
    }

    /// Shrinks read buffers back after large frames, as `policy` decides
    /// ([`ShrinkAfter`](crate::ShrinkAfter), [`ShrinkAbove`](crate::ShrinkAbove)). Applies to
    /// **reading** through a buffer (not to readers in place, which hold no buffer). Default:
    /// [`NoReclaim`].
    pub fn with_reclaim<Q>(self, policy: Q) -> FrameConfig<F, D, Q> {
        FrameConfig {
            framer: self.framer,
            deframer: self.deframer,
            reclaim: policy,
            max_frame_len: self.max_frame_len,
            capacity: self.capacity,
        }
    }

    /// Sets the largest payload accepted. Applies to **reading and writing**. Default:
    /// [`DEFAULT_MAX_FRAME_LEN`] (2 GiB).
    ///
    /// Reading, a frame declaring more is an [`Error::FrameTooLarge`](crate::Error::FrameTooLarge)
    /// as soon as its length prefix is in, before anything is allocated for it; writing, a
    /// longer payload is refused before any of it is written. **Readers of untrusted input
    /// should set a bound that fits their messages.** A deframer with a bound of its own keeps
    /// the smaller one.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max;
        self
    }

    /// Sets the size a read buffer grows to freely (at least 16 bytes; past it, only for a
    /// frame that needs it, as its bytes arrive). Applies to **reading** through a buffer.
    /// Default: [`DEFAULT_CAPACITY`] (64 KiB).
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(16);
        self
    }

    /// The bound on payloads ([`with_max_frame_len`](Self::with_max_frame_len)).
    pub fn max_frame_len(&self) -> usize {
        self.max_frame_len
    }

    /// The read buffer's capacity ([`with_capacity`](Self::with_capacity)).
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// The framer ([`with_framer`](Self::with_framer), [`with_checksum`](Self::with_checksum)).
    pub fn framer(&self) -> &F {
        &self.framer
    }

    /// The deframer ([`with_deframer`](Self::with_deframer),
    /// [`with_checksum`](Self::with_checksum)).
    pub fn deframer(&self) -> &D {
        &self.deframer
    }

    /// The reclaim policy ([`with_reclaim`](Self::with_reclaim)).
    pub fn reclaim(&self) -> &P {
        &self.reclaim
    }
}

impl<F, D: crate::Deframer + Clone, P: ReclaimPolicy + Clone> FrameConfig<F, D, P> {
    /// A [`ReadBuffer`] in a `Vec<u8>`: for a driver of your own.
    pub fn read_buffer(&self) -> ReadBuffer<D, P> {
        self.read_buffer_in()
    }

    /// A [`ReadBuffer`] in storage of type `S` (`bytes::BytesMut` with the `bytes` feature).
    pub fn read_buffer_in<S: Storage>(&self) -> ReadBuffer<D, P, S> {
        let mut buffer =
            ReadBuffer::with_storage(self.deframer.clone()).with_capacity(self.capacity);
        buffer.set_max_frame_len(self.max_frame_len);
        buffer.with_reclaim(self.reclaim.clone())
    }

    /// The frames of a byte slice, read in place.
    pub fn frames<'a>(&self, bytes: &'a [u8]) -> Frames<'a, D> {
        Frames::new(bytes, self.deframer.clone()).with_max_frame_len(self.max_frame_len)
    }

    /// The frames of a `Bytes`, each payload a `Bytes` sharing its buffer.
    #[cfg(feature = "bytes")]
    pub fn bytes_frames(&self, bytes: bytes::Bytes) -> crate::BytesFrames<D> {
        crate::BytesFrames::new(bytes, self.deframer.clone()).with_max_frame_len(self.max_frame_len)
    }

    /// A reader of any `Read` (in place over `&[u8]` and `Cursor`).
    #[cfg(feature = "std")]
    pub fn reader<R: std::io::Read>(&self, source: R) -> crate::StreamReader<R, D, P> {
        crate::StreamReader::from_buffer(source, self.read_buffer())
    }

    /// A reader in place in a `BufRead`'s own buffer. The capacity and reclaim policy do not
    /// apply (the source's buffer is the one read).
    #[cfg(feature = "std")]
    pub fn buf_reader<R: std::io::BufRead>(&self, source: R) -> crate::BufReadStreamReader<R, D> {
        crate::BufReadStreamReader::new(source, self.deframer.clone())
            .with_max_frame_len(self.max_frame_len)
    }

    /// A reader of a file that is still being written.
    #[cfg(feature = "std")]
    pub fn follower<R: std::io::Read>(&self, source: R) -> crate::Follower<R, D> {
        crate::Follower::new(source, self.deframer.clone()).with_max_frame_len(self.max_frame_len)
    }

    /// A reader of the frames at given offsets (from a journal's receipts).
    #[cfg(feature = "std")]
    pub fn frame_at(&self) -> crate::FrameAt<D> {
        crate::FrameAt::new(self.deframer.clone()).with_max_frame_len(self.max_frame_len)
    }

    /// The frames that start in `range` of a checksummed stream; see
    /// [`SplitFrames::new`](crate::SplitFrames::new) for the errors.
    pub fn split<'a>(
        &self,
        bytes: &'a [u8],
        range: core::ops::Range<usize>,
    ) -> crate::Result<crate::SplitFrames<'a, D>> {
        Ok(
            crate::SplitFrames::new(bytes, range, self.deframer.clone())?
                .with_max_frame_len(self.max_frame_len),
        )
    }

    /// A byte slice read on all cores, through splits.
    #[cfg(feature = "rayon")]
    pub fn parallel<'a>(&self, bytes: &'a [u8]) -> crate::ParallelFrames<'a, D>
    where
        D: Sync,
    {
        crate::ParallelFrames::new(bytes, self.deframer.clone())
            .with_max_frame_len(self.max_frame_len)
    }

    /// Torn-tail recovery of a stream.
    pub fn recover(&self) -> crate::Recover<D> {
        crate::Recover::new(self.deframer.clone()).with_max_frame_len(self.max_frame_len)
    }

    /// Salvage past corruption: every frame that verifies, and the byte ranges skipped.
    pub fn salvage<'a>(&self, bytes: &'a [u8]) -> crate::Salvage<'a, D> {
        crate::Salvage::new(bytes, self.deframer.clone()).with_max_frame_len(self.max_frame_len)
    }
}

#[cfg(feature = "std")]
impl<F: crate::Framer + Clone, D, P> FrameConfig<F, D, P> {
    /// A writer to `sink`, with the framer and the bound.
    pub fn writer<W: std::io::Write>(&self, sink: W) -> crate::StreamWriter<W, F> {
        crate::StreamWriter::new(sink, self.framer.clone()).with_max_frame_len(self.max_frame_len)
    }
}
