//! `StreamReader`: reads frames from any `std::io::Read`, handing out payloads borrowed from
//! its buffer.

use crate::error::Result;
use crate::in_memory;
use crate::read::IntoControlFlow;
use crate::read::buffer::{Next, ReadBuffer};
use crate::read::buffer::{Pass, deliver_frames};
use crate::read::reclaim::{NoReclaim, ReclaimPolicy};
use crate::wire::decode::Decoded;
use crate::wire::framing::Deframer;
use core::ops::Range;
use std::io::{self, Read};
use std::vec::Vec;

/// Reads frames from a `Read` source.
///
/// The reader owns a buffer. It fills it with reads as large as the free space, then hands out
/// every complete frame already in it as a `&[u8]` borrowed from the buffer, with no copy and no
/// further system call. It needs no `BufReader` in front of a `File` or `TcpStream`.
///
/// # Bytes already in memory
///
/// Over `&[u8]`, `Cursor<&[u8]>`, `Cursor<Vec<u8>>` and `Cursor<&Vec<u8>>` the reader copies
/// nothing: it parses the frames where they are, hands out payloads borrowed from the source's
/// bytes, and moves the source past each frame it hands out (the slice shrinks, the cursor's
/// position advances). It allocates no buffer, [`buffer`](Self::buffer) is always empty, and the
/// capacity settings have no effect. Results, errors and offsets are the same as when it
/// copies. The choice is made by type, and the optimiser folds it: it costs nothing at run time.
///
/// Any other `Read` hands its bytes over by copying them into the reader's buffer. For another
/// source that is a `BufRead` (a `BufReader` in front of a file, say),
/// [`BufReadStreamReader`](crate::BufReadStreamReader) parses the bytes in the source's own buffer.
///
/// * [`read_message`](Self::read_message) returns the next payload, or `None` at a clean end of
///   stream (the source returned end-of-file between two frames).
/// * [`process_all`](Self::process_all) calls a closure with every payload until the end;
///   the closure may stop early by returning `ControlFlow::Break(())`.
/// * [`messages`](Self::messages) is the same as a loop with `while let Some(p) = m.next()?`.
///
/// It implements [`MessageReader`](crate::MessageReader), the surface every reader shares. It
/// is a loop around a [`ReadBuffer`], which decodes the frames and owns the memory; the reader
/// only moves bytes.
///
/// # Memory
///
/// For a source it copies from, the buffer is allocated on the first read, at 8 KiB or the capacity given to
/// [`with_capacity`](Self::with_capacity) if smaller, and doubles as data arrives up to that
/// capacity (64 KiB for [`new`](Self::new)); reads are as large as the free space. It grows past
/// the capacity only for a frame that does not fit, and then only as the frame's bytes actually
/// arrive, doubling at most: a header that claims a 2 GiB payload and is followed
/// by 10 bytes costs no more than the initial buffer. A declared length over the bound
/// ([`with_max_frame_len`](Self::with_max_frame_len), default 2 GiB) is an error as soon as the
/// length prefix is read. **Readers of untrusted input should set a bound that fits their
/// messages.**
///
/// # Errors
///
/// * End-of-file inside a frame is [`Error::UnexpectedEof`](crate::Error::UnexpectedEof).
/// * `Interrupted` is retried. `WouldBlock` and other I/O errors are returned as
///   [`Error::Io`](crate::Error::Io); the bytes received so far are kept, and the next call carries on.
/// * Framing errors ([`Error::FrameTooLarge`](crate::Error::FrameTooLarge), [`Error::ChecksumMismatch`](crate::Error::ChecksumMismatch)) leave the reader at
///   the bad frame: calling again returns the same error.
/// * Content errors from a validating deframer ([`Error::Validation`](crate::Error::Validation),
///   [`Error::InvalidFlatbuffer`](crate::Error::InvalidFlatbuffer)) concern a frame that was read whole: the reader moves past it.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"one")?;
/// writer.write(&"two")?;
/// let bytes = writer.into_inner();
///
/// let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
/// let mut seen = Vec::new();
/// reader.process_all(|payload| {
///     seen.push(flatbuffers::root::<&str>(payload)?.to_owned());
///     Ok(())
/// })?;
/// assert_eq!(seen, ["one", "two"]);
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamReader<R, D, P = NoReclaim> {
    source: R,
    /// The bytes copied from the source, the decoder and the position; for a source read in
    /// place, only the decoder and the position are used.
    buffer: ReadBuffer<D, P>,
}

impl<R: Read, D: Deframer> StreamReader<R, D> {
    /// A reader of `source` with `deframer` and a buffer of
    /// [`DEFAULT_CAPACITY`](crate::DEFAULT_CAPACITY) (64 KiB).
    pub fn new(source: R, deframer: D) -> Self {
        StreamReader::from_buffer(source, ReadBuffer::new(deframer))
    }

    /// A reader with an initial buffer of `capacity` bytes (at least 16). The buffer is
    /// allocated on the first read; a reader of bytes already in memory (`&[u8]`, `Cursor`)
    /// never allocates one.
    pub fn with_capacity(capacity: usize, source: R, deframer: D) -> Self {
        StreamReader::from_buffer(source, ReadBuffer::new(deframer).with_capacity(capacity))
    }
}

impl<R: Read, D: Deframer, P: ReclaimPolicy> StreamReader<R, D, P> {
    /// A reader of `source` through `buffer`: its deframer, bound, capacity, reclaim policy
    /// and position.
    pub fn from_buffer(source: R, buffer: ReadBuffer<D, P>) -> Self {
        StreamReader { source, buffer }
    }

    /// Shrinks the buffer back after large frames, as `policy` decides (see
    /// [`ReadBuffer::with_reclaim`]). No effect on a source read in place.
    pub fn with_reclaim<Q: ReclaimPolicy>(self, policy: Q) -> StreamReader<R, D, Q> {
        StreamReader {
            source: self.source,
            buffer: self.buffer.with_reclaim(policy),
        }
    }

    crate::read::decoder_accessors!(
        D,
        buffer,
        "",
        "A frame declaring more is rejected with [`Error::FrameTooLarge`](crate::Error::FrameTooLarge) before any of it is buffered."
    );

    /// Reads the next frame and returns its payload, borrowed from the reader's buffer (or,
    /// in place, from the source's bytes).
    ///
    /// Returns `Ok(None)` when the source is at end-of-file exactly between two frames. If
    /// the source is a file that is still being written, a later call may return more frames.
    #[inline]
    pub fn read_message(&mut self) -> Result<Option<&[u8]>> {
        if in_memory::is_in_memory::<R>() {
            return self.read_in_place();
        }
        Ok(self
            .next_copied()?
            .map(|payload| self.buffer.payload(payload)))
    }

    /// Calls `f` with each payload until the end of the stream; see
    /// [`MessageReader::process_all`](crate::MessageReader::process_all) for the contract.
    ///
    /// The reader records its progress once per pass over the frames it holds, not per frame,
    /// so if `f` panics and the panic is caught, a later call may hand out again frames that
    /// `f` was given before the panic. No frame is skipped.
    #[inline]
    pub fn process_all<F, C>(&mut self, mut f: F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<C>,
        C: IntoControlFlow,
    {
        if in_memory::is_in_memory::<R>() {
            return self.process_in_place(f);
        }
        loop {
            // Every complete frame already buffered, in one pass; then read until one is, or
            // report why not.
            if self.buffer.process_buffered(&mut f)?.is_break() || !self.fill()? {
                return Ok(());
            }
        }
    }

    crate::__source_accessors!(R);

    /// Returns the source and the bytes read ahead but not consumed.
    pub fn into_parts(self) -> (R, Vec<u8>) {
        (self.source, self.buffer.into_buffered())
    }

    /// `read_message` for a source whose bytes are in memory: the frame is decoded where it
    /// is, and the source moved past it.
    #[inline(always)]
    fn read_in_place(&mut self) -> Result<Option<&[u8]>> {
        let bytes = in_memory::unread(&self.source).unwrap_or_default();
        let offset = self.buffer.position();
        let (len, payload) = match self.buffer.decoder().decode(bytes, offset)? {
            Decoded::Frame(frame) => (frame.len(), frame.span().payload_range()),
            Decoded::Rejected { len, error } => {
                in_memory::take(&mut self.source, len);
                self.buffer.skip_in_place(len);
                return Err(error);
            }
            Decoded::Incomplete(need) => return need.at_end(offset).map(|()| None),
        };
        let frame = in_memory::take(&mut self.source, len);
        self.buffer.skip_in_place(len);
        Ok(Some(&frame[payload]))
    }

    /// `process_all` for a source whose bytes are in memory: one pass over them, and one
    /// move of the source at the end.
    #[inline(always)]
    fn process_in_place<F, C>(&mut self, mut f: F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<C>,
        C: IntoControlFlow,
    {
        let bytes = in_memory::unread(&self.source).unwrap_or_default();
        let offset = self.buffer.position();
        let (used, pass) = deliver_frames(self.buffer.decoder(), bytes, offset, &mut f, |_| false);
        in_memory::take(&mut self.source, used);
        self.buffer.skip_in_place(used);
        match pass? {
            Pass::Exhausted(need) => need.at_end(self.buffer.position()),
            Pass::Stopped | Pass::Paused => Ok(()),
        }
    }

    /// The next complete, verified frame in the buffer, read into it as needed; returns the
    /// payload's range (see [`buffered_range`](Self::buffered_range)). For a source that is
    /// not in memory: the follower's.
    #[inline(always)]
    pub(crate) fn next_copied(&mut self) -> Result<Option<Range<usize>>> {
        loop {
            if let Next::Frame(payload) = self.buffer.next_frame()? {
                return Ok(Some(payload));
            }
            if !self.fill()? {
                return Ok(None);
            }
        }
    }

    /// Bytes of the buffer, by a range [`next_copied`](Self::next_copied) returned.
    pub(crate) fn buffered_range(&self, range: Range<usize>) -> &[u8] {
        self.buffer.payload(range)
    }

    /// Sets the stream offset of the next byte the source gives (a reader that has read
    /// nothing yet, over a source positioned at a frame's start).
    pub(crate) fn set_position(&mut self, offset: u64) {
        self.buffer.set_position(offset);
    }

    /// Reads once into the buffer's free space: `true` when bytes arrived, `false` when the
    /// source is at its end between two frames; the end inside a frame, and I/O errors, are
    /// errors.
    #[cold]
    fn fill(&mut self) -> Result<bool> {
        let space = self.buffer.read_space();
        let read = loop {
            match self.source.read(space) {
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                other => break other,
            }
        };
        self.buffer.after_read(read)
    }
}

crate::read::message_reader_from_inherent!(StreamReader<R: Read, D, P: ReclaimPolicy>, |r| r.buffer.position());
