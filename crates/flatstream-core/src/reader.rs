//! `StreamReader`: reads frames from any `std::io::Read`, handing out payloads borrowed from
//! its buffer.

use crate::error::{Error, Result};
use crate::frame::{
    DEFAULT_MAX_FRAME_LEN, LEN_PREFIX_SIZE, Parsed, complete_frame, parse_header, verify_frame,
};
use crate::framer::Deframer;
use crate::in_memory;
use core::ops::ControlFlow;
use std::io::{self, Read};
use std::vec::Vec;

/// The largest first allocation of a reader's buffer; it then doubles up to the capacity.
const FIRST_ALLOCATION: usize = 8 * 1024;

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
/// copies. The choice is made by type, at compile time, and costs nothing at run time.
///
/// Any other `Read` hands its bytes over by copying them into the reader's buffer. For another
/// source that is a `BufRead` (a `BufReader` in front of a file, say),
/// [`BufStreamReader`](crate::BufStreamReader) parses the bytes in the source's own buffer.
///
/// * [`read_message`](Self::read_message) returns the next payload, or `None` at a clean end of
///   stream (the source returned end-of-file between two frames).
/// * [`process_all`](Self::process_all) calls a closure with every payload until the end;
///   the closure may stop early by returning `ControlFlow::Break(())`.
/// * [`messages`](Self::messages) is the same as a loop with `while let Some(p) = m.next()?`.
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
/// * End-of-file inside a frame is [`Error::UnexpectedEof`].
/// * `Interrupted` is retried. `WouldBlock` and other I/O errors are returned as
///   [`Error::Io`]; the bytes received so far are kept, and the next call carries on.
/// * Framing errors ([`Error::FrameTooLarge`], [`Error::ChecksumMismatch`]) leave the reader at
///   the bad frame: calling again returns the same error.
/// * Content errors from a validating deframer ([`Error::Validation`],
///   [`Error::InvalidFlatbuffer`]) concern a frame that was read whole: the reader moves past it.
///
/// ```
/// use flatstream_core::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
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
/// # Ok::<(), flatstream_core::Error>(())
/// ```
#[derive(Debug)]
pub struct StreamReader<R, D> {
    source: R,
    deframer: D,
    /// Zero-initialized once; `buf.len()` is the capacity in use.
    buf: Vec<u8>,
    /// Start of the unconsumed bytes.
    pos: usize,
    /// End of the bytes received.
    end: usize,
    /// Stream offset of `buf[pos]`.
    offset: u64,
    capacity: usize,
    max_frame_len: usize,
}

impl<R: Read, D: Deframer> StreamReader<R, D> {
    /// The initial buffer capacity used by [`new`](Self::new): 64 KiB.
    pub const DEFAULT_CAPACITY: usize = 64 * 1024;

    /// A reader of `source` with `deframer` and a 64 KiB initial buffer.
    pub fn new(source: R, deframer: D) -> Self {
        Self::with_capacity(Self::DEFAULT_CAPACITY, source, deframer)
    }

    /// A reader with an initial buffer of `capacity` bytes (at least 16). The buffer is
    /// allocated on the first read; a reader of bytes already in memory (`&[u8]`, `Cursor`)
    /// never allocates one.
    pub fn with_capacity(capacity: usize, source: R, deframer: D) -> Self {
        let max_frame_len = DEFAULT_MAX_FRAME_LEN.min(deframer.max_payload_len());
        StreamReader {
            source,
            deframer,
            buf: Vec::new(),
            pos: 0,
            end: 0,
            offset: 0,
            capacity: capacity.max(16),
            // The deframer's own bound is taken in once, here and in `with_max_frame_len`.
            max_frame_len,
        }
    }

    /// Sets the largest payload accepted (default [`DEFAULT_MAX_FRAME_LEN`], 2 GiB). A frame
    /// declaring more is rejected with [`Error::FrameTooLarge`] before any of it is buffered.
    pub fn with_max_frame_len(mut self, max: usize) -> Self {
        self.max_frame_len = max.min(self.deframer.max_payload_len());
        self
    }

    /// Reads the next frame and returns its payload, borrowed from the reader's buffer.
    ///
    /// Returns `Ok(None)` when the source is at end-of-file exactly between two frames. If
    /// the source is a file that is still being written, a later call may return more frames.
    #[inline]
    pub fn read_message(&mut self) -> Result<Option<&[u8]>> {
        if in_memory::is_in_memory::<R>() {
            return self.read_in_place();
        }
        Ok(self.next_frame()?.map(|(start, end)| &self.buf[start..end]))
    }

    /// Calls `f` with each payload until the end of the stream.
    ///
    /// `f` returns `Ok(())` to go on, or `Ok(ControlFlow::Break(()))` to stop early: that is
    /// not an error, and the next frame stays unread for a later call. An error returned by
    /// `f` stops the loop and is returned; a verifier or validation error raised in `f` is
    /// stamped with the offset of the frame being processed.
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
            // Every complete frame already buffered, in one pass that keeps the position in
            // registers; it is stored once, on the way out.
            let buffered = &self.buf[self.pos..self.end];
            let (used, pass) = deliver_frames(
                buffered,
                &self.deframer,
                self.max_frame_len,
                self.offset,
                &mut f,
            );
            self.consume(used);
            if let Pass::Stopped = pass? {
                return Ok(());
            }
            // No complete frame is buffered: read until one is, or report why not. The next
            // pass hands it out, and progress is recorded only after the callback returns.
            if !self.buffer_next_frame()? {
                return Ok(());
            }
        }
    }

    /// A lending iterator over the payloads: `while let Some(payload) = messages.next()? {}`.
    /// Leave the loop with `break` to stop early.
    pub fn messages(&mut self) -> Messages<'_, R, D> {
        Messages { reader: self }
    }

    /// Stream offset of the next frame: the bytes consumed so far.
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// The bytes received from the source but not yet consumed, starting with the next frame.
    /// Take them before handing the source to other code, as with `BufReader::buffer`.
    pub fn buffer(&self) -> &[u8] {
        &self.buf[self.pos..self.end]
    }

    /// Bytes currently allocated for the buffer (none for a source read in place).
    pub fn capacity(&self) -> usize {
        self.buf.capacity()
    }

    /// Shrinks the buffer to `capacity` bytes (or to the bytes it still holds, if more), and
    /// makes `capacity` the size of the next allocation. Payloads handed out earlier are
    /// borrowed from the reader, so none can be alive while this runs.
    pub fn shrink_to(&mut self, capacity: usize) {
        self.compact();
        let keep = capacity.max(16).max(self.end);
        self.capacity = capacity.max(16);
        self.buf.truncate(keep);
        self.buf.shrink_to(keep);
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        &self.deframer
    }

    /// The source.
    pub fn get_ref(&self) -> &R {
        &self.source
    }

    /// The source. Reading from it directly skips the bytes in [`buffer`](Self::buffer).
    pub fn get_mut(&mut self) -> &mut R {
        &mut self.source
    }

    /// Returns the source; bytes read ahead into the buffer are dropped (see
    /// [`into_parts`](Self::into_parts) to keep them).
    pub fn into_inner(self) -> R {
        self.source
    }

    /// Returns the source and the bytes read ahead but not consumed.
    pub fn into_parts(mut self) -> (R, Vec<u8>) {
        self.buf.truncate(self.end);
        self.buf.drain(..self.pos);
        (self.source, self.buf)
    }

    /// `read_message` for a source whose bytes are in memory: the frame is parsed where it
    /// is, and the source moved past it.
    #[inline(always)]
    fn read_in_place(&mut self) -> Result<Option<&[u8]>> {
        let bytes = in_memory::unread(&self.source).unwrap_or_default();
        let checksum_size = self.deframer.checksum_size();
        let Some(span) = complete_frame(bytes, checksum_size, self.max_frame_len) else {
            let end = in_place_end(&self.deframer, bytes, self.max_frame_len, self.offset);
            return end.map(|()| None);
        };
        if let Err(e) = verify_frame(&self.deframer, bytes, span, self.offset) {
            if e.is_content_error() {
                in_memory::take(&mut self.source, span.frame_len());
                self.offset += span.frame_len() as u64;
            }
            return Err(e);
        }
        let frame = in_memory::take(&mut self.source, span.frame_len());
        self.offset += span.frame_len() as u64;
        Ok(Some(&frame[span.header_len..]))
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
        let max = self.max_frame_len;
        let (used, pass) = deliver_frames(bytes, &self.deframer, max, self.offset, &mut f);
        let outcome = match pass {
            Ok(Pass::Exhausted) => {
                let offset = self.offset + used as u64;
                in_place_end(&self.deframer, &bytes[used..], max, offset)
            }
            Ok(Pass::Stopped) => Ok(()),
            Err(e) => Err(e),
        };
        in_memory::take(&mut self.source, used);
        self.offset += used as u64;
        outcome
    }

    /// Finds the next complete, verified frame; returns the payload's range in `buf`.
    #[inline(always)]
    fn next_frame(&mut self) -> Result<Option<(usize, usize)>> {
        let available = &self.buf[self.pos..self.end];
        let max = self.max_frame_len;
        let Some(span) = complete_frame(available, self.deframer.checksum_size(), max) else {
            return self.next_frame_slow();
        };
        let verified = verify_frame(&self.deframer, available, span, self.offset);
        let start = self.pos + span.header_len;
        match verified {
            Ok(()) => {
                self.consume(span.frame_len());
                Ok(Some((start, start + span.payload_len)))
            }
            Err(e) => Err(self.rejected(e, span.frame_len())),
        }
    }

    /// A complete frame failed verification: step past it if only its content is at fault.
    #[cold]
    fn rejected(&mut self, error: Error, frame_len: usize) -> Error {
        if error.is_content_error() {
            self.consume(frame_len);
        }
        error
    }

    /// No complete frame within the bound is buffered: read more, or report why not.
    #[cold]
    fn next_frame_slow(&mut self) -> Result<Option<(usize, usize)>> {
        if self.buffer_next_frame()? {
            self.next_frame()
        } else {
            Ok(None)
        }
    }

    /// Reads until the next frame is whole in the buffer (`true`), or the source is at its end
    /// between two frames (`false`); anything else is an error: a length over the bound, the
    /// end of the source inside a frame, an I/O error.
    #[cold]
    fn buffer_next_frame(&mut self) -> Result<bool> {
        loop {
            let available = &self.buf[self.pos..self.end];
            match parse_header(&self.deframer, available, self.max_frame_len, self.offset)? {
                Parsed::Frame(_) => return Ok(true),
                Parsed::Incomplete { needed } => {
                    if !self.fill(needed)? {
                        let present = self.end - self.pos;
                        if present == 0 {
                            return Ok(false);
                        }
                        return Err(Error::eof(self.offset, needed, present));
                    }
                }
            }
        }
    }

    #[inline]
    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.offset += n as u64;
    }

    /// Moves the unconsumed bytes to the front of the buffer.
    fn compact(&mut self) {
        if self.pos > 0 {
            self.buf.copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
    }

    /// Reads once into the free end of the buffer, making room first. `needed` is what the
    /// current frame needs in all. Returns `false` at end-of-file.
    #[cold]
    fn fill(&mut self, needed: usize) -> Result<bool> {
        self.compact();
        if self.end == self.buf.len() {
            // Full, or not allocated yet. Grow at most by doubling (from a first allocation of
            // at most 8 KiB, so short streams stay cheap), up to the configured capacity, or
            // toward `needed` for a frame larger than that: the buffer never grows faster than
            // the bytes that actually arrive, whatever length a header claims.
            let len = self.buf.len();
            let first = self.capacity.min(FIRST_ALLOCATION);
            let target = len
                .saturating_mul(2)
                .max(first)
                .min(self.capacity.max(needed));
            self.buf.resize(target, 0);
        }
        loop {
            match self.source.read(&mut self.buf[self.end..]) {
                Ok(0) => return Ok(false),
                Ok(n) => {
                    self.end += n.min(self.buf.len() - self.end);
                    return Ok(true);
                }
                Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
                Err(e) => return Err(Error::io(e, self.offset)),
            }
        }
    }
}

/// A lending iterator over a reader's payloads, returned by [`StreamReader::messages`].
///
/// Each payload borrows the reader, so it must be dropped before the next call to `next`; copy
/// what you need to keep.
#[derive(Debug)]
pub struct Messages<'r, R, D> {
    reader: &'r mut StreamReader<R, D>,
}

impl<R: Read, D: Deframer> Messages<'_, R, D> {
    /// The next payload, or `None` at a clean end of stream.
    #[allow(clippy::should_implement_trait)] // a lending iterator cannot implement `Iterator`
    #[inline]
    pub fn next(&mut self) -> Result<Option<&[u8]>> {
        self.reader.read_message()
    }
}

/// Why an in-memory source holds no complete frame at `offset`: it is at its end (`Ok`), or
/// the frame there is cut short or over the bound.
#[cold]
fn in_place_end<D: Deframer>(deframer: &D, bytes: &[u8], max: usize, offset: u64) -> Result<()> {
    if bytes.is_empty() {
        return Ok(());
    }
    match parse_header(deframer, bytes, max, offset)? {
        Parsed::Incomplete { needed } => Err(Error::eof(offset, needed, bytes.len())),
        // Not reached: `complete_frame` found no complete frame within the same bound. Should
        // the two ever disagree, the reader reports the frame rather than loop or panic.
        Parsed::Frame(span) => Err(Error::too_large(offset, span.payload_len, max)),
    }
}

/// How [`deliver_frames`] ended.
pub(crate) enum Pass {
    /// No complete frame is left at the front of the bytes.
    Exhausted,
    /// The callback asked to stop.
    Stopped,
}

/// Hands every complete frame at the front of `bytes` to `f`, verified, and stops at the first
/// that is incomplete or over `max`, at a framing error, or when `f` asks to stop. `offset` is
/// the stream offset of `bytes[0]`.
///
/// Returns the bytes consumed, which include a frame skipped for a content error, with the
/// outcome. This is the hot loop of both readers' `process_all`: the position lives in a local,
/// and the caller stores it once.
#[inline(always)]
pub(crate) fn deliver_frames<D, F, C>(
    mut bytes: &[u8],
    deframer: &D,
    max: usize,
    offset: u64,
    f: &mut F,
) -> (usize, Result<Pass>)
where
    D: Deframer,
    F: FnMut(&[u8]) -> Result<C>,
    C: IntoControlFlow,
{
    let checksum_size = deframer.checksum_size();
    let total = bytes.len();
    let outcome = loop {
        let Some(span) = complete_frame(bytes, checksum_size, max) else {
            break Ok(Pass::Exhausted);
        };
        // Every part is sliced from the frame's start: the form that compiles to the tightest
        // loop (measured against splitting the rest after each part, 15 % slower).
        let frame_len = span.frame_len();
        let checksum = &bytes[LEN_PREFIX_SIZE..span.header_len];
        let payload = &bytes[span.header_len..frame_len];
        let frame_offset = offset + (total - bytes.len()) as u64;
        if let Err(e) = deframer.verify(checksum, payload, frame_offset) {
            if e.is_content_error() {
                bytes = &bytes[frame_len..];
            }
            break Err(e);
        }
        let flow = flow(f(payload), frame_offset);
        bytes = &bytes[frame_len..];
        match flow {
            Ok(ControlFlow::Continue(())) => {}
            Ok(ControlFlow::Break(())) => break Ok(Pass::Stopped),
            Err(e) => break Err(e),
        }
    };
    (total - bytes.len(), outcome)
}

/// A `process_all` callback's result as "go on" or "stop", with an error stamped with the
/// offset of the frame it was given.
#[inline(always)]
pub(crate) fn flow<C: IntoControlFlow>(
    result: Result<C>,
    frame_offset: u64,
) -> Result<ControlFlow<()>> {
    match result {
        Ok(c) => Ok(c.into_control_flow()),
        Err(e) => Err(e.at_frame(frame_offset)),
    }
}

/// What a [`StreamReader::process_all`] callback returns besides errors: `()` to go on, or a
/// `ControlFlow` to choose.
pub trait IntoControlFlow {
    /// Whether to continue or stop.
    fn into_control_flow(self) -> ControlFlow<()>;
}

impl IntoControlFlow for () {
    #[inline(always)]
    fn into_control_flow(self) -> ControlFlow<()> {
        ControlFlow::Continue(())
    }
}

impl IntoControlFlow for ControlFlow<()> {
    #[inline(always)]
    fn into_control_flow(self) -> ControlFlow<()> {
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::framer::{DefaultDeframer, DefaultFramer};
    use crate::writer::StreamWriter;

    /// Bytes behind a `Read` the reader does not recognize as in memory: it copies them.
    struct Opaque<'a>(&'a [u8]);

    impl Read for Opaque<'_> {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            self.0.read(buf)
        }
    }

    fn stream(payloads: &[&[u8]]) -> Vec<u8> {
        let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
        for p in payloads {
            w.write_payload(p).unwrap();
        }
        w.into_inner()
    }

    #[test]
    fn reads_frames_then_none() {
        let bytes = stream(&[b"a", b"", b"hello"]);
        let mut r = StreamReader::with_capacity(4, Opaque(&bytes), DefaultDeframer);
        assert_eq!(r.read_message().unwrap(), Some(&b"a"[..]));
        assert_eq!(r.read_message().unwrap(), Some(&b""[..]));
        assert_eq!(r.read_message().unwrap(), Some(&b"hello"[..]));
        assert_eq!(r.read_message().unwrap(), None);
        assert_eq!(r.read_message().unwrap(), None);
        assert_eq!(r.position(), bytes.len() as u64);
    }

    /// Reads `bytes` stopping after "2", then reads the rest.
    fn stop_and_resume<R: Read>(mut r: StreamReader<R, DefaultDeframer>) {
        let mut seen = vec![];
        r.process_all(|p| {
            seen.push(p[0]);
            Ok(if p == b"2" {
                ControlFlow::Break(())
            } else {
                ControlFlow::Continue(())
            })
        })
        .unwrap();
        assert_eq!(seen, b"12");
        assert_eq!(r.position(), 10);
        assert_eq!(r.read_message().unwrap(), Some(&b"3"[..]));
    }

    #[test]
    fn process_all_can_stop_without_error_and_resume() {
        let bytes = stream(&[b"1", b"2", b"3"]);
        stop_and_resume(StreamReader::new(&bytes[..], DefaultDeframer));
        stop_and_resume(StreamReader::new(Opaque(&bytes), DefaultDeframer));
    }

    /// The offset of the error the callback raises on the payload "bad".
    fn callback_error_offset<R: Read>(mut r: StreamReader<R, DefaultDeframer>) -> u64 {
        let err = r
            .process_all(|p| {
                if p == b"bad" {
                    return Err(Error::validation("test", "bad payload", 0));
                }
                Ok(())
            })
            .unwrap_err();
        err.offset()
    }

    #[test]
    fn errors_from_the_callback_carry_the_frame_offset() {
        let bytes = stream(&[b"ok", b"bad"]);
        assert_eq!(
            callback_error_offset(StreamReader::new(&bytes[..], DefaultDeframer)),
            6
        );
        assert_eq!(
            callback_error_offset(StreamReader::new(Opaque(&bytes), DefaultDeframer)),
            6
        );
        // The first frame after a read takes the copying reader's slow path.
        let bytes = stream(&[b"bad"]);
        assert_eq!(
            callback_error_offset(StreamReader::new(&bytes[..], DefaultDeframer)),
            0
        );
        assert_eq!(
            callback_error_offset(StreamReader::new(Opaque(&bytes), DefaultDeframer)),
            0
        );
        // A first frame of 16 bytes fills a 16-byte buffer: the second is read on its own.
        let bytes = stream(&[&[0; 12], b"bad"]);
        let r = StreamReader::with_capacity(16, Opaque(&bytes), DefaultDeframer);
        assert_eq!(callback_error_offset(r), 16);
    }

    #[test]
    fn messages_is_a_lending_iterator() {
        let bytes = stream(&[b"x", b"yy"]);
        let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
        let mut lens = vec![];
        let mut m = r.messages();
        while let Some(p) = m.next().unwrap() {
            lens.push(p.len());
        }
        assert_eq!(lens, [1, 2]);
    }

    #[test]
    fn unconsumed_bytes_are_available() {
        let mut bytes = stream(&[b"abc", b"def"]);
        bytes.extend_from_slice(b"tail");
        let mut r = StreamReader::new(Opaque(&bytes), DefaultDeframer);
        r.read_message().unwrap();
        assert_eq!(r.buffer(), &bytes[7..]);
        let (rest, buffered) = r.into_parts();
        assert!(rest.0.is_empty());
        assert_eq!(buffered, &bytes[7..]);

        // In place, the source itself keeps them.
        let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
        r.read_message().unwrap();
        assert!(r.buffer().is_empty());
        let (rest, buffered) = r.into_parts();
        assert_eq!(rest, &bytes[7..]);
        assert!(buffered.is_empty());
    }

    #[test]
    fn shrink_to_releases_memory_and_keeps_unread_bytes() {
        let big = vec![9u8; 100_000];
        let bytes = stream(&[&big, b"small"]);
        let mut r = StreamReader::with_capacity(1024, Opaque(&bytes), DefaultDeframer);
        assert_eq!(r.read_message().unwrap().unwrap().len(), 100_000);
        assert!(r.capacity() >= 100_000);
        r.shrink_to(1024);
        assert!(r.capacity() < 100_000);
        assert_eq!(r.read_message().unwrap(), Some(&b"small"[..]));
    }
}
