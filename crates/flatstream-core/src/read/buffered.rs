//! `BufReadStreamReader`: reads frames in place from the buffer of a `BufRead` source.

use crate::error::{Error, Result};
use crate::read::buffer::{Next, ReadBuffer};
use crate::read::buffer::{Pass, deliver_frames};
use crate::read::{IntoControlFlow, flow};
use crate::wire::decode::Decoded;
use crate::wire::frame::FrameSpan;
use crate::wire::framing::Deframer;
use core::ops::{ControlFlow, Range};
use std::io::{self, BufRead};
use std::vec::Vec;

/// Reads frames from a `BufRead` source, in place in the source's own buffer.
///
/// Where [`StreamReader`](crate::StreamReader) copies the bytes of any `Read` into a buffer of
/// its own, this reader parses the bytes a `BufRead` already holds (the whole rest of a
/// `&[u8]` or `Cursor`, the buffer of a `BufReader`) and hands out payloads borrowed from
/// them. Only a frame that straddles two refills of the source's buffer is copied, into a
/// small buffer of the reader's, so that it can be handed out whole. Over bytes in memory that
/// is no copy at all; over a `BufReader<File>` it is the copy the `BufReader` makes.
///
/// Its methods are those of `StreamReader`, with the same errors and the same bound
/// ([`with_max_frame_len`](Self::with_max_frame_len)); it implements [`MessageReader`](crate::MessageReader).
/// A frame that straddles refills is assembled in a [`ReadBuffer`], the buffer of the copying
/// readers; the decoding and the position are that buffer's too.
///
/// Its name says what it reads from: a `BufRead`. It adds no buffering (std's `BufReader`
/// does); it reads in the buffer its source already has.
///
/// # The source's position
///
/// A payload borrows the source's buffer, so the reader tells the source that the frame is
/// consumed (`BufRead::consume`) only at the next call, or in [`get_mut`](Self::get_mut),
/// [`into_inner`](Self::into_inner) and [`into_parts`](Self::into_parts). Bytes of a frame
/// being assembled across refills have left the source: they are in
/// [`buffer`](Self::buffer), and `into_parts` returns them.
///
/// # Memory
///
/// The reader allocates only to assemble a frame that straddles refills, and then only as its
/// bytes arrive, at most doubling: a header that claims a 2 GiB payload followed by 10 bytes
/// costs the reader at most twice the 14 bytes received, on top of the source's own buffer
/// (8 KiB for a default `BufReader`).
/// That buffer keeps its capacity for the next such frame; [`shrink_to`](Self::shrink_to)
/// releases it. To choose how much is read at a time, choose the `BufReader`'s capacity.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
/// use flatstream::read::BufReadStreamReader;
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"one")?;
/// writer.write(&"two")?;
/// let bytes = writer.into_inner();
///
/// // `&[u8]` is a `BufRead`: the payloads are borrowed from `bytes` itself.
/// let mut reader = BufReadStreamReader::new(&bytes[..], DefaultDeframer);
/// let mut seen = Vec::new();
/// reader.process_all(|payload| {
///     seen.push(flatbuffers::root::<&str>(payload)?.to_owned());
///     Ok(())
/// })?;
/// assert_eq!(seen, ["one", "two"]);
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug)]
pub struct BufReadStreamReader<R, D> {
    source: R,
    /// The decoder and the position; its bytes are those of a frame that straddles refills of
    /// the source's buffer, and only those.
    spill: ReadBuffer<D>,
    /// What is borrowed, or being assembled, between two calls.
    state: State,
}

/// What the reader holds between two calls. A payload handed out borrows either the source's
/// buffer or `spill`, so the bytes it lies in are given back only at the next call.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum State {
    /// Nothing handed out is borrowed any more, and `spill` is empty.
    Idle,
    /// The last payload handed out lies in the first `n` bytes of the source's buffer, which
    /// the source is told to consume at the next call.
    LentFromSource(usize),
    /// `spill` held a whole frame whose payload was handed out (and consumed).
    LentFromSpill,
    /// `spill` holds the first bytes of a frame that straddles refills of the source's buffer.
    Assembling,
}

/// Where [`BufReadStreamReader::next_frame`] found the next frame, verified and accounted for.
enum Found {
    Source(FrameSpan),
    /// The payload's range in the spill buffer.
    Spill(Range<usize>),
}

impl<R: BufRead, D: Deframer> BufReadStreamReader<R, D> {
    /// A reader of `source` with `deframer`. It allocates nothing until a frame straddles two
    /// refills of the source's buffer.
    pub fn new(source: R, deframer: D) -> Self {
        BufReadStreamReader {
            source,
            // Grown from 16 bytes by doubling, as the frame's bytes arrive.
            spill: ReadBuffer::new(deframer).with_capacity(16),
            state: State::Idle,
        }
    }

    crate::read::decoder_accessors!(
        D,
        spill,
        "",
        "A frame declaring more is rejected with [`Error::FrameTooLarge`](crate::Error::FrameTooLarge) before any of it is copied."
    );

    /// Reads the next frame and returns its payload, borrowed from the source's buffer (or,
    /// for a frame that straddled refills, from the reader's).
    ///
    /// Returns `Ok(None)` when the source is at end-of-file exactly between two frames.
    #[inline]
    pub fn read_message(&mut self) -> Result<Option<&[u8]>> {
        let (bytes, span) = match self.next_frame()? {
            None => return Ok(None),
            Some(Found::Spill(payload)) => return Ok(Some(self.spill.payload(payload))),
            // `next_frame` has just seen the frame in this buffer and consumed nothing since,
            // so the source returns it again without reading. (Returning the slice from
            // `next_frame` itself is what the borrow checker cannot yet accept on the paths
            // that go on.)
            Some(Found::Source(span)) => match self.source.fill_buf() {
                Ok(bytes) if bytes.len() >= span.frame_len() => (bytes, span),
                // Only the fields beside `source` may be touched here, for the same reason.
                _ => {
                    self.state = State::Idle;
                    self.spill.rewind_in_place(span.frame_len());
                    return Err(unsteady(self.spill.position()));
                }
            },
        };
        Ok(Some(&bytes[span.payload_range()]))
    }

    /// Calls `f` with each payload until the end of the stream; see
    /// [`MessageReader::process_all`](crate::MessageReader::process_all) for the contract.
    ///
    /// The frames already in the source's buffer are handed out in one pass, and consumed
    /// together. So if `f` panics and the panic is caught, a later call may hand out again
    /// frames of that pass that `f` was given before the panic; a frame that straddled a refill
    /// counts as read as soon as it is handed out, so a panic on it moves past it.
    #[inline]
    pub fn process_all<F, C>(&mut self, mut f: F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<C>,
        C: IntoControlFlow,
    {
        loop {
            self.settle();
            if self.state == State::Idle {
                match self.batch(&mut f)? {
                    Batch::Continue => continue,
                    Batch::Break | Batch::End => return Ok(()),
                    Batch::Nothing => {}
                }
            }
            let frame_offset = self.spill.position();
            let Some(payload) = self.read_message()? else {
                return Ok(());
            };
            if let ControlFlow::Break(()) = flow(f(payload), frame_offset)? {
                return Ok(());
            }
        }
    }

    /// The bytes taken from the source but not yet handed out: the start of a frame that
    /// straddles refills of the source's buffer. The source holds the rest.
    pub fn buffer(&self) -> &[u8] {
        match self.state {
            State::Assembling => self.spill.buffered(),
            _ => &[],
        }
    }

    /// Bytes allocated to assemble frames that straddle refills.
    pub fn capacity(&self) -> usize {
        self.spill.capacity()
    }

    /// Shrinks the buffer used to assemble frames that straddle refills to `capacity` bytes,
    /// or to the bytes it holds if more. This reader takes no reclaim policy (the source's
    /// buffer is the caller's, and this one grows only for a frame that straddles refills):
    /// call this after a large frame to give its memory back.
    pub fn shrink_to(&mut self, capacity: usize) {
        self.settle();
        self.spill.shrink_to(capacity);
    }

    /// The source. Its buffer may still start with the last payload handed out (see the
    /// type's documentation); [`get_mut`](Self::get_mut) consumes it first.
    pub fn get_ref(&self) -> &R {
        &self.source
    }

    /// The source, positioned after the last frame handed out. Reading from it directly skips
    /// the bytes in [`buffer`](Self::buffer).
    pub fn get_mut(&mut self) -> &mut R {
        self.settle();
        &mut self.source
    }

    /// Returns the source, positioned after the last frame handed out; the bytes in
    /// [`buffer`](Self::buffer) are dropped (see [`into_parts`](Self::into_parts)).
    pub fn into_inner(mut self) -> R {
        self.settle();
        self.source
    }

    /// Returns the source, positioned after the last frame handed out, and the bytes of the
    /// next frame it had already given up.
    pub fn into_parts(mut self) -> (R, Vec<u8>) {
        self.settle();
        (self.source, self.spill.into_buffered())
    }

    /// Gives back what the last payload handed out borrowed.
    #[inline(always)]
    fn settle(&mut self) {
        match self.state {
            State::LentFromSource(n) => self.source.consume(n),
            State::LentFromSpill => {}
            State::Idle | State::Assembling => return,
        }
        self.state = State::Idle;
    }

    /// Hands every complete frame at the front of the source's buffer to `f`.
    #[inline(always)]
    fn batch<F, C>(&mut self, f: &mut F) -> Result<Batch>
    where
        F: FnMut(&[u8]) -> Result<C>,
        C: IntoControlFlow,
    {
        let rest = match self.source.fill_buf() {
            // Not asked again: a source at end-of-file may have more to say on the next read.
            Ok([]) => return Ok(Batch::End),
            Ok(bytes) => bytes,
            // The general path retries.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return Ok(Batch::Nothing),
            Err(e) => return Err(self.spill.io_error(e)),
        };
        let offset = self.spill.position();
        let (used, pass) = deliver_frames(self.spill.decoder(), rest, offset, f, |_| false);
        self.source.consume(used);
        self.spill.skip_in_place(used);
        match pass? {
            Pass::Stopped | Pass::Paused => Ok(Batch::Break),
            Pass::Exhausted(_) if used > 0 => Ok(Batch::Continue),
            Pass::Exhausted(_) => Ok(Batch::Nothing),
        }
    }

    /// Finds the next frame, verifies it and counts it as handed out. Reads and assembles a
    /// straddling frame in `spill` as needed.
    #[inline(always)]
    fn next_frame(&mut self) -> Result<Option<Found>> {
        self.settle();
        if self.state == State::Assembling {
            return self.next_frame_slow();
        }
        let available = match self.source.fill_buf() {
            // The end of the stream, between two frames. Not asked again: a source at
            // end-of-file may have more to say on the next read (a terminal, a growing file).
            Ok([]) => return Ok(None),
            Ok(bytes) => bytes,
            // The slow path retries.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return self.next_frame_slow(),
            Err(e) => return Err(self.spill.io_error(e)),
        };
        match self
            .spill
            .decoder()
            .decode(available, self.spill.position())?
        {
            Decoded::Frame(frame) => {
                let span = frame.span();
                Ok(Some(self.lent_from_source(span)))
            }
            Decoded::Rejected { len, error } => Err(self.rejected_in_source(len, error)),
            Decoded::Incomplete(_) => self.next_frame_slow(),
        }
    }

    /// Everything but a whole frame at the front of the source's buffer: refills, frames that
    /// straddle them, the end of the stream and framing errors. Each turn of the loop either
    /// returns or moves bytes from the source into `spill`, or reads.
    #[cold]
    fn next_frame_slow(&mut self) -> Result<Option<Found>> {
        loop {
            if self.state != State::Assembling {
                let offset = self.spill.position();
                if !has_bytes(&mut self.source, offset)? {
                    return Ok(None);
                }
                let available = buffered(&mut self.source, offset)?;
                match self.spill.decoder().decode(available, offset)? {
                    // The fast path was interrupted before it saw this frame.
                    Decoded::Frame(frame) => {
                        let span = frame.span();
                        return Ok(Some(self.lent_from_source(span)));
                    }
                    Decoded::Rejected { len, error } => {
                        return Err(self.rejected_in_source(len, error));
                    }
                    // All of it belongs to the one frame: take it over.
                    Decoded::Incomplete(_) => {
                        let n = available.len();
                        self.spill.extend_from_slice(available);
                        self.source.consume(n);
                        self.state = State::Assembling;
                    }
                }
            } else {
                let next = self.spill.next_frame();
                match next {
                    Ok(Next::Frame(payload)) => {
                        self.state = State::LentFromSpill;
                        return Ok(Some(Found::Spill(payload)));
                    }
                    // A rejected frame: the spill held it alone, and is empty now.
                    Err(error) if self.spill.buffered().is_empty() => {
                        self.state = State::Idle;
                        return Err(error);
                    }
                    Err(error) => return Err(error),
                    Ok(Next::NeedBytes) => {
                        let offset = self.spill.position();
                        if !has_bytes(&mut self.source, offset)? {
                            self.spill.finish()?;
                        }
                        let available = buffered(&mut self.source, offset)?;
                        // Only this frame's bytes: the next frame stays in the source.
                        let take = self.spill.missing().min(available.len());
                        self.spill.extend_from_slice(&available[..take]);
                        self.source.consume(take);
                    }
                }
            }
        }
    }

    /// Counts the verified frame `span` at the front of the source's buffer as handed out.
    #[inline(always)]
    fn lent_from_source(&mut self, span: FrameSpan) -> Found {
        self.state = State::LentFromSource(span.frame_len());
        self.spill.skip_in_place(span.frame_len());
        Found::Source(span)
    }

    /// Steps past a frame at the front of the source's buffer rejected for its content.
    #[cold]
    fn rejected_in_source(&mut self, len: usize, error: Error) -> Error {
        self.source.consume(len);
        self.spill.skip_in_place(len);
        error
    }
}

/// What one pass over the source's buffer did in [`BufReadStreamReader::process_all`].
enum Batch {
    /// At least one frame went to the callback, which wants more.
    Continue,
    /// The callback asked to stop.
    Break,
    /// No complete frame at the front of the buffer: the general path takes over.
    Nothing,
    /// The source is at end-of-file, with no frame begun: the stream is over.
    End,
}

crate::read::message_reader_from_inherent!(BufReadStreamReader<R: BufRead, D>, |r| r.spill.position());

/// The source's buffer no longer holds the frame `next_frame` found in it, which a `BufRead`
/// that keeps to its contract does not do. The reader looks again at the next call.
#[cold]
fn unsteady(offset: u64) -> Error {
    Error::io(
        io::Error::other("the BufRead source's buffer changed without a call to consume"),
        offset,
    )
}

/// Whether the source has bytes for us (`false`: end-of-file), reading if its buffer is empty;
/// `Interrupted` is retried.
fn has_bytes<R: BufRead>(source: &mut R, offset: u64) -> Result<bool> {
    loop {
        match source.fill_buf() {
            Ok(bytes) => return Ok(!bytes.is_empty()),
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            Err(e) => return Err(Error::io(e, offset)),
        }
    }
}

/// The source's buffer, after [`has_bytes`] found bytes in it: a `BufRead` that keeps its
/// contract returns them again without reading. (Polonius would let `has_bytes` return them;
/// today's borrow checker does not accept a borrow returned from inside a retry loop.)
fn buffered<R: BufRead>(source: &mut R, offset: u64) -> Result<&[u8]> {
    match source.fill_buf() {
        Ok(bytes) if !bytes.is_empty() => Ok(bytes),
        _ => Err(unsteady(offset)),
    }
}
