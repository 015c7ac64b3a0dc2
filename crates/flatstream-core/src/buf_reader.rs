//! `BufStreamReader`: reads frames in place from the buffer of a `BufRead` source.

use crate::error::{Error, Result};
use crate::frame::{
    DEFAULT_MAX_FRAME_LEN, FrameSpan, Parsed, complete_frame, parse_header, verify_frame,
};
use crate::framer::Deframer;
use crate::reader::{IntoControlFlow, Pass, deliver_frames, flow};
use core::ops::ControlFlow;
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
/// ([`with_max_frame_len`](Self::with_max_frame_len)).
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
/// bytes arrive: a header that claims a 2 GiB payload followed by 10 bytes costs 10 bytes.
/// That buffer keeps its capacity for the next such frame; [`shrink_to`](Self::shrink_to)
/// releases it. To choose how much is read at a time, choose the `BufReader`'s capacity.
///
/// ```
/// use flatstream_core::{BufStreamReader, DefaultDeframer, DefaultFramer, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"one")?;
/// writer.write(&"two")?;
/// let bytes = writer.into_inner();
///
/// // `&[u8]` is a `BufRead`: the payloads are borrowed from `bytes` itself.
/// let mut reader = BufStreamReader::new(&bytes[..], DefaultDeframer);
/// let mut seen = Vec::new();
/// reader.process_all(|payload| {
///     seen.push(flatbuffers::root::<&str>(payload)?.to_owned());
///     Ok(())
/// })?;
/// assert_eq!(seen, ["one", "two"]);
/// # Ok::<(), flatstream_core::Error>(())
/// ```
#[derive(Debug)]
pub struct BufStreamReader<R, D> {
    source: R,
    deframer: D,
    /// Bytes at the front of the source's buffer that belong to frames already handed out,
    /// consumed at the next call (the payload borrowed them until then).
    pending: usize,
    /// The bytes of a frame that straddles refills of the source's buffer, and only those.
    spill: Vec<u8>,
    /// `spill` holds a frame already handed out: clear it at the next call.
    spill_done: bool,
    /// Stream offset of the next frame.
    offset: u64,
    max_frame_len: usize,
}

/// Where [`BufStreamReader::locate`] found the next frame, verified and accounted for.
enum Located {
    Source(FrameSpan),
    Spill(FrameSpan),
}

/// What one pass over the source's buffer did in [`BufStreamReader::process_all`].
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

impl<R: BufRead, D: Deframer> BufStreamReader<R, D> {
    /// A reader of `source` with `deframer`. It allocates nothing until a frame straddles two
    /// refills of the source's buffer.
    pub fn new(source: R, deframer: D) -> Self {
        let max_frame_len = DEFAULT_MAX_FRAME_LEN.min(deframer.max_payload_len());
        BufStreamReader {
            source,
            deframer,
            pending: 0,
            spill: Vec::new(),
            spill_done: false,
            offset: 0,
            max_frame_len,
        }
    }

    /// Sets the largest payload accepted (default [`DEFAULT_MAX_FRAME_LEN`], 2 GiB). A frame
    /// declaring more is rejected with [`Error::FrameTooLarge`] before any of it is copied.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max.min(self.deframer.max_payload_len());
        self
    }

    /// Reads the next frame and returns its payload, borrowed from the source's buffer (or,
    /// for a frame that straddled refills, from the reader's).
    ///
    /// Returns `Ok(None)` when the source is at end-of-file exactly between two frames.
    #[inline]
    pub fn read_message(&mut self) -> Result<Option<&[u8]>> {
        let Some(located) = self.locate()? else {
            return Ok(None);
        };
        let (bytes, span) = match located {
            Located::Spill(span) => (&self.spill[..], span),
            // `locate` has just seen the frame in this buffer and consumed nothing since, so
            // the source returns it again without reading. (Returning the slice from `locate`
            // itself is what the borrow checker cannot yet accept on the paths that go on.)
            Located::Source(span) => match self.source.fill_buf() {
                Ok(bytes) if bytes.len() >= span.frame_len() => (bytes, span),
                // Only the fields beside `source` may be touched here, for the same reason.
                _ => {
                    self.pending = 0;
                    self.offset -= span.frame_len() as u64;
                    return Err(unsteady(self.offset));
                }
            },
        };
        Ok(Some(&bytes[span.header_len..span.frame_len()]))
    }

    /// Calls `f` with each payload until the end of the stream; the same contract as
    /// [`StreamReader::process_all`](crate::StreamReader::process_all).
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
            if self.spill.is_empty() {
                match self.batch(&mut f)? {
                    Batch::Continue => continue,
                    Batch::Break | Batch::End => return Ok(()),
                    Batch::Nothing => {}
                }
            }
            let frame_offset = self.offset;
            let Some(payload) = self.read_message()? else {
                return Ok(());
            };
            if let ControlFlow::Break(()) = flow(f(payload), frame_offset)? {
                return Ok(());
            }
        }
    }

    /// A lending iterator over the payloads: `while let Some(payload) = messages.next()? {}`.
    pub fn messages(&mut self) -> BufMessages<'_, R, D> {
        BufMessages { reader: self }
    }

    /// Stream offset of the next frame: the bytes of the frames handed out so far.
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// The bytes taken from the source but not yet handed out: the start of a frame that
    /// straddles refills of the source's buffer. The source holds the rest.
    pub fn buffer(&self) -> &[u8] {
        if self.spill_done { &[] } else { &self.spill }
    }

    /// Shrinks the buffer used to assemble frames that straddle refills to `capacity` bytes,
    /// or to the bytes it holds if more.
    pub fn shrink_to(&mut self, capacity: usize) {
        self.settle();
        self.spill.shrink_to(capacity);
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        &self.deframer
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
        (self.source, self.spill)
    }

    /// Tells the source about the frames handed out since the last call.
    #[inline(always)]
    fn settle(&mut self) {
        if self.pending > 0 {
            self.source.consume(self.pending);
            self.pending = 0;
        }
        if self.spill_done {
            self.spill.clear();
            self.spill_done = false;
        }
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
            Err(e) => return Err(Error::io(e, self.offset)),
        };
        let (used, pass) = deliver_frames(rest, &self.deframer, self.max_frame_len, self.offset, f);
        self.pending += used;
        self.offset += used as u64;
        match pass? {
            Pass::Stopped => Ok(Batch::Break),
            Pass::Exhausted if used > 0 => Ok(Batch::Continue),
            Pass::Exhausted => Ok(Batch::Nothing),
        }
    }

    /// Finds the next complete frame, verifies it and counts it as handed out. Reads and
    /// assembles a straddling frame in `spill` as needed.
    #[inline(always)]
    fn locate(&mut self) -> Result<Option<Located>> {
        self.settle();
        if !self.spill.is_empty() {
            return self.locate_slow();
        }
        let available = match self.source.fill_buf() {
            // The end of the stream, between two frames. Not asked again: a source at
            // end-of-file may have more to say on the next read (a terminal, a growing file).
            Ok([]) => return Ok(None),
            Ok(bytes) => bytes,
            // The slow path retries.
            Err(e) if e.kind() == io::ErrorKind::Interrupted => return self.locate_slow(),
            Err(e) => return Err(Error::io(e, self.offset)),
        };
        let Some(span) =
            complete_frame(available, self.deframer.checksum_size(), self.max_frame_len)
        else {
            return self.locate_slow();
        };
        let verified = verify_frame(&self.deframer, available, span, self.offset);
        self.accept_in_source(verified, span)
    }

    /// Everything but a complete frame at the front of the source's buffer: refills, frames
    /// that straddle them, the end of the stream and framing errors. Each turn of the loop
    /// either returns or moves bytes from the source into `spill`, or reads.
    #[cold]
    fn locate_slow(&mut self) -> Result<Option<Located>> {
        loop {
            if self.spill.is_empty() {
                if !has_bytes(&mut self.source, self.offset)? {
                    return Ok(None);
                }
                let available = buffered(&mut self.source, self.offset)?;
                match parse_header(&self.deframer, available, self.max_frame_len, self.offset)? {
                    // The fast path was interrupted before it saw this frame.
                    Parsed::Frame(span) => {
                        let verified = verify_frame(&self.deframer, available, span, self.offset);
                        return self.accept_in_source(verified, span);
                    }
                    // All of it belongs to the one frame: take it over.
                    Parsed::Incomplete { .. } => {
                        let n = available.len();
                        self.spill.extend_from_slice(available);
                        self.source.consume(n);
                    }
                }
            } else {
                match parse_header(&self.deframer, &self.spill, self.max_frame_len, self.offset)? {
                    Parsed::Frame(span) => {
                        let verified = verify_frame(&self.deframer, &self.spill, span, self.offset);
                        return match verified {
                            Ok(()) => {
                                self.spill_done = true;
                                self.offset += span.frame_len() as u64;
                                Ok(Some(Located::Spill(span)))
                            }
                            Err(e) => {
                                if e.is_content_error() {
                                    self.spill.clear();
                                    self.offset += span.frame_len() as u64;
                                }
                                Err(e)
                            }
                        };
                    }
                    Parsed::Incomplete { needed } => {
                        let have = self.spill.len();
                        if !has_bytes(&mut self.source, self.offset)? {
                            return Err(Error::eof(self.offset, needed, have));
                        }
                        let available = buffered(&mut self.source, self.offset)?;
                        // Only this frame's bytes: the next frame stays in the source.
                        let take = (needed - have).min(available.len());
                        self.spill.extend_from_slice(&available[..take]);
                        self.source.consume(take);
                    }
                }
            }
        }
    }

    /// Counts a verified frame at the front of the source's buffer as handed out, or steps past
    /// a frame that failed verification if only its content is at fault.
    #[inline(always)]
    fn accept_in_source(
        &mut self,
        verified: Result<()>,
        span: FrameSpan,
    ) -> Result<Option<Located>> {
        match verified {
            Ok(()) => {
                self.pending = span.frame_len();
                self.offset += span.frame_len() as u64;
                Ok(Some(Located::Source(span)))
            }
            Err(e) => Err(self.rejected_in_source(e, span)),
        }
    }

    /// A complete frame in the source's buffer failed verification: step past it if only its
    /// content is at fault.
    #[cold]
    fn rejected_in_source(&mut self, error: Error, span: FrameSpan) -> Error {
        if error.is_content_error() {
            self.pending = span.frame_len();
            self.offset += span.frame_len() as u64;
        }
        error
    }
}

/// The source's buffer no longer holds the frame `locate` found in it, which a `BufRead` that
/// keeps to its contract does not do. The reader looks again at the next call.
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

/// A lending iterator over a [`BufStreamReader`]'s payloads, returned by
/// [`BufStreamReader::messages`].
#[derive(Debug)]
pub struct BufMessages<'r, R, D> {
    reader: &'r mut BufStreamReader<R, D>,
}

impl<R: BufRead, D: Deframer> BufMessages<'_, R, D> {
    /// The next payload, or `None` at a clean end of stream.
    #[allow(clippy::should_implement_trait)] // a lending iterator cannot implement `Iterator`
    #[inline]
    pub fn next(&mut self) -> Result<Option<&[u8]>> {
        self.reader.read_message()
    }
}
