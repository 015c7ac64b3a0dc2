//! [`ReadBuffer`]: the sans-I/O half of every buffered reader.

#[cfg(any(feature = "std", test))]
use crate::error::Error;
use crate::error::Result;
use crate::read::reclaim::{NoReclaim, ReclaimPolicy};
use crate::read::{IntoControlFlow, flow};
use crate::wire::decode::{Decoded, Decoder, Incomplete};
use crate::wire::framing::Deframer;
use alloc::vec::Vec;
use core::ops::{ControlFlow, Range};

/// The buffer of a reader that takes bytes from a source it does not hold in memory: the
/// bytes received, the frame decoder, the stream position, the growth rule and the reclaim
/// policy. It performs no I/O: its driver (a loop around `std::io::Read`, `AsyncRead`, a
/// ring buffer) moves bytes in, and it says what they are.
///
/// [`StreamReader`](crate::StreamReader) over a `Read`, [`Follower`](crate::Follower) and
/// flatstream-tokio's `AsyncStreamReader` are such drivers; so can yours be, with the same
/// bound, errors, offsets and memory behaviour. The loop is always the same:
///
/// 1. [`next_frame`](Self::next_frame): [`Next::Frame`] with the payload's range in
///    [`bytes`](Self::bytes), or [`Next::NeedBytes`].
/// 2. On `NeedBytes`, read from the source into [`read_space`](Self::read_space) and report
///    how many bytes arrived with [`commit`](Self::commit); when the source is at its end,
///    [`finish`](Self::finish) says whether that is a clean end (between two frames) or a frame
///    cut short.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamWriter};
/// use flatstream::read::{Next, ReadBuffer};
/// use std::io::Read;
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"one")?;
/// writer.write(&"two")?;
/// let mut source = &writer.into_inner()[..];
///
/// let mut buffer = ReadBuffer::new(DefaultDeframer);
/// let mut seen = Vec::new();
/// loop {
///     match buffer.next_frame()? {
///         Next::Frame(payload) => seen.push(flatbuffers::root::<&str>(buffer.payload(payload))?.to_owned()),
///         Next::NeedBytes => {
///             let n = source.read(buffer.read_space())?;
///             if n == 0 {
///                 buffer.finish()?; // an error if the source ended inside a frame
///                 break;
///             }
///             buffer.commit(n);
///         }
///     }
/// }
/// assert_eq!(seen, ["one", "two"]);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// # Memory
///
/// [`read_space`](Self::read_space) allocates on first use, 8 KiB or the capacity if smaller
/// (64 KiB by default, [`with_capacity`](Self::with_capacity)), and doubles as data arrives up
/// to the capacity. Past it the buffer grows only for a frame that does not fit, and only as
/// that frame's bytes arrive, doubling at most: a header that claims 2 GiB followed by 10
/// bytes costs the first allocation. A declared length over the bound
/// ([`set_max_frame_len`](Self::set_max_frame_len)) is an error as soon as the length prefix is
/// in. A [`ReclaimPolicy`] ([`with_reclaim`](Self::with_reclaim)) shrinks the buffer back after
/// large frames, when no payload is borrowed.
///
/// # Errors
///
/// A framing error ([`Error::FrameTooLarge`](crate::Error::FrameTooLarge), [`Error::ChecksumMismatch`](crate::Error::ChecksumMismatch)) leaves the buffer at
/// the bad frame: `next_frame` returns it again. A content error from a validating deframer
/// concerns a frame received whole: the buffer steps past it.
///
/// The storage `S` is a `Vec<u8>`, or with the `bytes` feature a `bytes::BytesMut`, whose
/// payloads can leave as `Bytes` without a copy ([`take_bytes`](ReadBuffer::take_bytes)).
#[derive(Debug, Clone)]
pub struct ReadBuffer<D, P = NoReclaim, S = Vec<u8>> {
    decoder: Decoder<D>,
    /// Zero-initialized as it grows; `buf.len()` is the space in use.
    buf: S,
    /// Start of the bytes not consumed: the next frame.
    pos: usize,
    /// End of the bytes received.
    end: usize,
    /// Stream offset of `buf[pos]`.
    offset: u64,
    /// The size the buffer grows to freely (past it, only for a frame that needs it).
    capacity: usize,
    /// What the last `NeedBytes` was about: the frame the next `read_space` makes room for.
    need: Incomplete,
    reclaim: P,
    /// The policy asked to shrink, at the next `read_space` or `next_frame`.
    shrink: bool,
}

/// What [`ReadBuffer::next_frame`] found at the front of the buffer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// A verified frame, consumed: its payload's range in [`ReadBuffer::bytes`], valid until
    /// the buffer is changed.
    Frame(Range<usize>),
    /// The frame is not all there: read from the source into [`ReadBuffer::read_space`].
    NeedBytes,
}

/// The memory a [`ReadBuffer`] keeps its bytes in: `Vec<u8>`, or `bytes::BytesMut` with the
/// `bytes` feature. Sealed.
pub trait Storage: AsRef<[u8]> + AsMut<[u8]> + Default + sealed::Sealed {
    /// Resizes to `len` bytes, new ones zero.
    fn resize_zeroed(&mut self, len: usize);
    /// Bytes allocated.
    fn allocated(&self) -> usize;
    /// Keeps the first `len` bytes in an allocation of at most `capacity` bytes (at least
    /// `len`).
    fn shrink(&mut self, len: usize, capacity: usize);
    /// Keeps only `range`.
    fn keep(&mut self, range: Range<usize>);
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for alloc::vec::Vec<u8> {}
    #[cfg(feature = "bytes")]
    impl Sealed for bytes::BytesMut {}
}

impl Storage for Vec<u8> {
    fn resize_zeroed(&mut self, len: usize) {
        self.resize(len, 0);
    }
    fn allocated(&self) -> usize {
        self.capacity()
    }
    fn shrink(&mut self, len: usize, capacity: usize) {
        self.truncate(len.max(capacity));
        self.shrink_to(len.max(capacity));
    }
    fn keep(&mut self, range: Range<usize>) {
        self.truncate(range.end);
        self.drain(..range.start);
    }
}

#[cfg(feature = "bytes")]
impl Storage for bytes::BytesMut {
    fn resize_zeroed(&mut self, len: usize) {
        self.resize(len, 0);
    }
    fn allocated(&self) -> usize {
        self.capacity()
    }
    fn shrink(&mut self, len: usize, capacity: usize) {
        let keep = len.max(capacity);
        self.truncate(keep);
        if self.capacity() > keep {
            let mut fresh = bytes::BytesMut::with_capacity(keep);
            fresh.extend_from_slice(self);
            *self = fresh;
        }
    }
    fn keep(&mut self, range: Range<usize>) {
        self.truncate(range.end);
        bytes::Buf::advance(self, range.start);
    }
}

/// The capacity a read buffer grows to freely unless told otherwise: 64 KiB. The one default
/// of [`ReadBuffer`], `StreamReader::new`, flatstream-tokio's `AsyncStreamReader::new` and
/// [`FrameConfig`](crate::FrameConfig).
pub const DEFAULT_CAPACITY: usize = 64 * 1024;

impl<D: Deframer> ReadBuffer<D> {
    /// An empty buffer for frames read with `deframer`, its capacity 64 KiB, the bound the
    /// default (2 GiB), no reclaim policy. Allocates nothing.
    pub fn new(deframer: D) -> Self {
        ReadBuffer::with_storage(deframer)
    }
}

impl<D: Deframer, S: Storage> ReadBuffer<D, NoReclaim, S> {
    /// An empty buffer in storage of type `S` (`Vec<u8>`, or `bytes::BytesMut` with the
    /// `bytes` feature), otherwise as [`new`](ReadBuffer::new).
    pub fn with_storage(deframer: D) -> Self {
        let decoder = Decoder::new(deframer);
        let need = decoder.nothing_buffered();
        ReadBuffer {
            decoder,
            buf: S::default(),
            pos: 0,
            end: 0,
            offset: 0,
            capacity: DEFAULT_CAPACITY,
            need,
            reclaim: NoReclaim,
            shrink: false,
        }
    }
}

impl<D: Deframer, P: ReclaimPolicy, S: Storage> ReadBuffer<D, P, S> {
    /// Sets the size the buffer grows to freely (at least 16 bytes); see
    /// [Memory](Self#memory).
    pub fn with_capacity(mut self, capacity: usize) -> Self {
        self.capacity = capacity.max(16);
        self
    }

    /// Shrinks the buffer back after large frames, as `policy` decides: at the next call to
    /// [`next_frame`](Self::next_frame) or [`read_space`](Self::read_space), when no payload
    /// is borrowed any more.
    pub fn with_reclaim<Q: ReclaimPolicy>(self, policy: Q) -> ReadBuffer<D, Q, S> {
        ReadBuffer {
            decoder: self.decoder,
            buf: self.buf,
            pos: self.pos,
            end: self.end,
            offset: self.offset,
            capacity: self.capacity,
            need: self.need,
            reclaim: policy,
            shrink: self.shrink,
        }
    }

    /// Sets the largest payload accepted (default
    /// [`DEFAULT_MAX_FRAME_LEN`](crate::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB). A frame
    /// declaring more is an [`Error::FrameTooLarge`](crate::Error::FrameTooLarge) before any of it is buffered.
    pub fn set_max_frame_len(&mut self, max: usize) {
        self.decoder.set_max_frame_len(max);
    }

    /// The deframer.
    pub fn deframer(&self) -> &D {
        self.decoder.deframer()
    }

    /// Sets the stream offset of the next byte committed; for a buffer that holds nothing yet,
    /// whose source starts at a frame of a longer stream.
    pub fn set_position(&mut self, offset: u64) {
        debug_assert_eq!(self.pos, self.end, "set_position on a buffer holding bytes");
        self.offset = offset;
    }

    /// The decoder: deframer and bound.
    pub fn decoder(&self) -> &Decoder<D> {
        &self.decoder
    }

    /// The reclaim policy.
    pub fn reclaim_policy(&self) -> &P {
        &self.reclaim
    }

    /// Stream offset of the next frame: the bytes of the frames handed out (or stepped over)
    /// so far, from the position set.
    #[inline(always)]
    pub fn position(&self) -> u64 {
        self.offset
    }

    /// The bytes received but not consumed yet, starting with the next frame.
    #[inline]
    pub fn buffered(&self) -> &[u8] {
        &self.buf.as_ref()[self.pos..self.end]
    }

    /// The whole buffer: a payload's range from [`Next::Frame`] indexes it.
    #[inline(always)]
    pub fn bytes(&self) -> &[u8] {
        self.buf.as_ref()
    }

    /// The payload at `range`, as [`Next::Frame`] gave it.
    #[inline(always)]
    pub fn payload(&self, range: Range<usize>) -> &[u8] {
        &self.buf.as_ref()[range]
    }

    /// Bytes allocated.
    pub fn capacity(&self) -> usize {
        self.buf.allocated()
    }

    /// Shrinks the buffer to `capacity` bytes (or to the bytes it holds, if more), and makes
    /// `capacity` the size it grows to freely.
    pub fn shrink_to(&mut self, capacity: usize) {
        self.capacity = capacity.max(16);
        self.compact();
        self.buf.shrink(self.end, self.capacity);
    }

    /// The bytes received but not consumed, as the storage, dropping everything else.
    pub fn into_buffered(mut self) -> S {
        self.buf.keep(self.pos..self.end);
        self.buf
    }

    /// The frame at the front of the buffer: [`Next::Frame`] (consumed; its payload's range
    /// in [`bytes`](Self::bytes)), or [`Next::NeedBytes`].
    ///
    /// # Errors
    ///
    /// A framing error, at the frame's offset: the buffer stays at the frame, and the next call
    /// returns the error again. A content error from a validating deframer: the frame is
    /// stepped over.
    #[inline(always)]
    pub fn next_frame(&mut self) -> Result<Next> {
        self.release();
        let start = self.pos;
        match self
            .decoder
            .decode(&self.buf.as_ref()[start..self.end], self.offset)?
        {
            Decoded::Frame(frame) => {
                let (len, payload) = (frame.len(), frame.span().payload_range());
                self.consume(len);
                if self.reclaim.after_message(payload.len()) {
                    self.shrink = true;
                }
                Ok(Next::Frame(start + payload.start..start + payload.end))
            }
            Decoded::Rejected { len, error } => {
                self.consume(len);
                Err(error)
            }
            Decoded::Incomplete(need) => {
                self.need = need;
                Ok(Next::NeedBytes)
            }
        }
    }

    /// Hands every complete frame buffered to `f`, in one pass that keeps the position in
    /// registers. Returns `Continue` when the buffer holds no complete frame any more (read
    /// into [`read_space`](Self::read_space), as after [`Next::NeedBytes`]), `Break` when `f`
    /// asked to stop. An error returned by `f` is stamped with its frame's offset.
    ///
    /// The position is stored once per pass: if `f` panics and the panic is caught, a later
    /// call may hand out again frames `f` was given before the panic.
    #[inline(always)]
    pub fn process_buffered<F, C>(&mut self, f: &mut F) -> Result<ControlFlow<()>>
    where
        F: FnMut(&[u8]) -> Result<C> + ?Sized,
        C: IntoControlFlow,
    {
        loop {
            self.release();
            let (reclaim, shrink) = (&mut self.reclaim, &mut self.shrink);
            let (used, pass) = deliver_frames(
                &self.decoder,
                &self.buf.as_ref()[self.pos..self.end],
                self.offset,
                f,
                |len| {
                    let now = reclaim.after_message(len);
                    *shrink |= now;
                    now
                },
            );
            self.consume(used);
            match pass? {
                Pass::Exhausted(need) => {
                    self.need = need;
                    return Ok(ControlFlow::Continue(()));
                }
                Pass::Stopped => return Ok(ControlFlow::Break(())),
                // The policy asked to shrink: `release`, at the top, does it now that no
                // payload is borrowed.
                Pass::Paused => {}
            }
        }
    }

    /// Where to put the next bytes from the source: the free space at the end of the buffer,
    /// never empty, made after moving the unconsumed bytes to the front and growing by the
    /// rule of [Memory](Self#memory) for the frame the last [`Next::NeedBytes`] was about.
    /// Report what was written with [`commit`](Self::commit).
    #[cold]
    pub fn read_space(&mut self) -> &mut [u8] {
        self.release();
        self.compact();
        let len = self.buf.as_ref().len();
        if self.end == len {
            // The last `NeedBytes` always asks for more than is held; without one (a driver
            // that reads ahead of `next_frame`), the buffer still grows, by doubling.
            let grown = self.need.grown_len(len, self.capacity);
            let grown = if grown > len {
                grown
            } else {
                len.saturating_mul(2).max(16)
            };
            self.buf.resize_zeroed(grown);
        }
        &mut self.buf.as_mut()[self.end..]
    }

    /// Records that the source wrote `n` bytes at the start of [`read_space`](Self::read_space).
    #[inline]
    pub fn commit(&mut self, n: usize) {
        self.end = (self.end + n).min(self.buf.as_ref().len());
    }

    /// What it means that the source is at its end: `Ok` between two frames,
    /// [`Error::UnexpectedEof`](crate::Error::UnexpectedEof) for a frame cut short (call after [`Next::NeedBytes`]).
    pub fn finish(&self) -> Result<()> {
        if self.pos == self.end {
            Ok(())
        } else {
            self.need.at_end(self.offset)
        }
    }

    /// Takes the outcome of one read of the source into [`read_space`](Self::read_space), as a
    /// reader reports it: `Ok(true)` when bytes arrived (they are [`commit`](Self::commit)ted),
    /// `Ok(false)` when the source is at its end between two frames; the end inside a frame
    /// ([`finish`](Self::finish)) and an I/O error ([`io_error`](Self::io_error)) are errors.
    /// Retry an [`Interrupted`](std::io::ErrorKind::Interrupted) read before calling this.
    #[cfg(feature = "std")]
    pub fn after_read(&mut self, read: std::io::Result<usize>) -> Result<bool> {
        match read {
            Ok(0) => self.finish().map(|()| false),
            Ok(n) => {
                self.commit(n);
                Ok(true)
            }
            Err(e) => Err(self.io_error(e)),
        }
    }

    /// An I/O error of the source, as the reader reports it: [`Error::Io`](crate::Error::Io) at the position.
    #[cfg(feature = "std")]
    #[cold]
    pub fn io_error(&self, error: std::io::Error) -> Error {
        Error::io(error, self.offset)
    }

    /// Moves the position past `n` bytes read in place, not through the buffer (a reader of
    /// bytes in memory uses the buffer's decoder and position only).
    #[cfg(feature = "std")]
    #[inline(always)]
    pub(crate) fn skip_in_place(&mut self, n: usize) {
        self.offset += n as u64;
    }

    /// Moves the position back over `n` bytes counted by [`skip_in_place`](Self::skip_in_place)
    /// but not handed out after all.
    #[cfg(feature = "std")]
    pub(crate) fn rewind_in_place(&mut self, n: usize) {
        self.offset -= n as u64;
    }

    /// Bytes the frame of the last [`Next::NeedBytes`] still misses: the most a driver that
    /// must not read past the frame takes from its source.
    #[cfg(feature = "std")]
    pub(crate) fn missing(&self) -> usize {
        self.need.missing()
    }

    /// Appends `bytes`, taken from memory rather than read into
    /// [`read_space`](Self::read_space): the buffer grows to hold them and no more (the allocation itself
    /// grows as a `Vec` does, at most doubling).
    #[cfg(feature = "std")]
    pub(crate) fn extend_from_slice(&mut self, bytes: &[u8]) {
        self.release();
        self.compact();
        let end = self.end + bytes.len();
        if self.buf.as_ref().len() < end {
            self.buf.resize_zeroed(end);
        }
        self.buf.as_mut()[self.end..end].copy_from_slice(bytes);
        self.end = end;
    }

    #[inline(always)]
    fn consume(&mut self, n: usize) {
        self.pos += n;
        self.offset += n as u64;
    }

    /// Moves the unconsumed bytes to the front.
    fn compact(&mut self) {
        if self.pos > 0 {
            self.buf.as_mut().copy_within(self.pos..self.end, 0);
            self.end -= self.pos;
            self.pos = 0;
        }
    }

    /// Shrinks the buffer if the policy asked to, now that no payload is borrowed.
    #[inline(always)]
    fn release(&mut self) {
        if self.shrink {
            self.shrink_now();
        }
    }

    /// Shrinks to the policy's baseline once the bytes read ahead fit in it, so that one
    /// reallocation takes the buffer all the way down; until then the request stays pending (at
    /// the latest, the buffer runs low before the next read from the source).
    #[cold]
    fn shrink_now(&mut self) {
        let baseline = self.reclaim.baseline();
        if self.buf.allocated() <= baseline {
            self.shrink = false;
        } else if self.end - self.pos <= baseline {
            self.shrink = false;
            self.compact();
            self.buf.shrink(self.end, baseline);
        }
    }
}

#[cfg(feature = "bytes")]
impl<D: Deframer, P: ReclaimPolicy> ReadBuffer<D, P, bytes::BytesMut> {
    /// The payload [`Next::Frame`] just gave, as a `Bytes` split from the buffer without a
    /// copy (it keeps its part of the buffer alive by itself). Call it before anything else
    /// changes the buffer.
    pub fn take_bytes(&mut self, payload: Range<usize>) -> bytes::Bytes {
        debug_assert!(payload.end <= self.pos);
        let pos = core::mem::take(&mut self.pos);
        self.end -= pos;
        // Everything consumed leaves the buffer; what precedes the payload is stepped over
        // inside the `Bytes`.
        let mut bytes = self.buf.split_to(pos).freeze();
        bytes::Buf::advance(&mut bytes, payload.start);
        bytes.truncate(payload.len());
        bytes
    }
}

#[cfg(feature = "bytes")]
impl<D: Deframer, P: ReclaimPolicy> ReadBuffer<D, P, bytes::BytesMut> {
    /// The next frame's payload split off `src`, a buffer held by someone else (tokio-util's
    /// `FramedRead`, whose bytes are `src[..]`), as a `Bytes` sharing it; `None` when `src`
    /// does not hold a whole frame yet. The decoder, the position, the growth rule and the
    /// reclaim policy are this buffer's; its own storage stays unused.
    ///
    /// When the frame is not all there and `src` is full, `src` gets room by the rule of
    /// [Memory](Self#memory), never what a header claims. With `at_eof`, bytes that are not a
    /// whole frame are [`Error::UnexpectedEof`](crate::Error::UnexpectedEof). Errors are those of
    /// [`next_frame`](Self::next_frame); a rejected frame is split off and dropped.
    #[inline]
    pub fn split_frame(
        &mut self,
        src: &mut bytes::BytesMut,
        at_eof: bool,
    ) -> Result<Option<bytes::Bytes>> {
        let offset = self.offset;
        let (len, header) = match self.decoder.decode(src, offset)? {
            Decoded::Frame(frame) => (frame.len(), frame.span().header_len),
            Decoded::Rejected { len, error } => {
                bytes::Buf::advance(src, len);
                self.offset += len as u64;
                return Err(error);
            }
            Decoded::Incomplete(need) => {
                if at_eof {
                    return need.at_end(offset).map(|()| None);
                }
                // A full buffer gets room by the one rule. (Left to `FramedRead`'s
                // `reserve(1)`, a buffer still shared with a payload handed out would be
                // copied into one of exactly one byte more.)
                let present = src.len();
                if src.capacity() == present {
                    src.reserve(need.grown_len(present, self.capacity) - present);
                }
                return Ok(None);
            }
        };
        self.offset += len as u64;
        // The whole frame is split off, then its header stepped over inside the `Bytes`: one
        // call into `bytes` and one reference count per frame.
        let mut payload = src.split_to(len).freeze();
        bytes::Buf::advance(&mut payload, header);
        if self.reclaim.after_message(payload.len()) {
            let present = src.len();
            src.shrink(present, self.reclaim.baseline());
        }
        Ok(Some(payload))
    }
}

impl<D: Deframer> Decoder<D> {
    /// The outcome for an empty buffer: the header is needed.
    fn nothing_buffered(&self) -> Incomplete {
        Incomplete::new(self.header_len(), 0)
    }
}

/// How [`deliver_frames`] ended.
#[derive(Debug)]
pub(crate) enum Pass {
    /// No complete frame is left at the front of the bytes: the decoder's word on what is.
    Exhausted(Incomplete),
    /// The callback asked to stop.
    Stopped,
    /// The `pause` hook asked to stop after a frame (the async reader's reclaim policy, which
    /// shrinks the buffer between two passes).
    Paused,
}

/// Hands every frame the decoder finds at the front of `bytes` to `f`, and stops at the first
/// that is incomplete, at an error (a rejected frame is stepped over first), when `f` asks to
/// stop, or when `pause`, called with each payload's length after `f`, returns `true`.
/// `offset` is the stream offset of `bytes[0]`.
///
/// Returns the bytes consumed with the outcome. This is the hot loop of every buffered
/// reader's `process_all`, the sync ones and the async one (whose passes have no await in
/// them): the position lives in a local, and the caller stores it once. A reader with nothing
/// to pause for passes `|_| false`, which compiles to nothing.
#[inline(always)]
pub(crate) fn deliver_frames<D, F, C, P>(
    decoder: &Decoder<D>,
    mut bytes: &[u8],
    offset: u64,
    f: &mut F,
    mut pause: P,
) -> (usize, Result<Pass>)
where
    D: Deframer,
    F: FnMut(&[u8]) -> Result<C> + ?Sized,
    C: IntoControlFlow,
    P: FnMut(usize) -> bool,
{
    let total = bytes.len();
    let outcome = loop {
        let frame_offset = offset + (total - bytes.len()) as u64;
        match decoder.decode(bytes, frame_offset) {
            Ok(Decoded::Frame(frame)) => {
                // Past the frame after the callback. Since the frame is taken with `get(..len)`
                // the two orders measure the same in the `ratios` bench, and this one keeps
                // `read_path/bufreader-cursor` where it was before the decoder (paired, minimum
                // of 300 runs: 131 ns per 100 frames against 160 with the step first).
                let payload = frame.payload();
                let flow = flow(f(payload), frame_offset);
                bytes = &bytes[frame.len()..];
                let paused = pause(payload.len());
                match flow {
                    Ok(ControlFlow::Continue(())) => {}
                    Ok(ControlFlow::Break(())) => break Ok(Pass::Stopped),
                    Err(e) => break Err(e),
                }
                if paused {
                    break Ok(Pass::Paused);
                }
            }
            Ok(Decoded::Rejected { len, error }) => {
                bytes = &bytes[len..];
                break Err(error);
            }
            Ok(Decoded::Incomplete(need)) => break Ok(Pass::Exhausted(need)),
            Err(e) => break Err(e),
        }
    };
    (total - bytes.len(), outcome)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::testing::Sum16;
    use crate::wire::framing::{ChecksumDeframer, DefaultDeframer};

    fn frame(payload: &[u8]) -> Vec<u8> {
        let mut v = u32::try_from(payload.len()).unwrap().to_le_bytes().to_vec();
        v.extend_from_slice(payload);
        v
    }

    /// Feeds `bytes` `chunk` at a time; returns the payloads and how it ended.
    fn drive(bytes: &[u8], chunk: usize, capacity: usize) -> (Vec<Vec<u8>>, Result<()>) {
        let mut buffer = ReadBuffer::new(DefaultDeframer).with_capacity(capacity);
        let mut source = bytes;
        let mut out = Vec::new();
        loop {
            match buffer.next_frame() {
                Ok(Next::Frame(p)) => out.push(buffer.payload(p).to_vec()),
                Ok(Next::NeedBytes) => {
                    let space = buffer.read_space();
                    assert!(!space.is_empty());
                    let n = chunk.min(space.len()).min(source.len());
                    space[..n].copy_from_slice(&source[..n]);
                    source = &source[n..];
                    if n == 0 {
                        return (out, buffer.finish());
                    }
                    buffer.commit(n);
                }
                Err(e) => return (out, Err(e)),
            }
        }
    }

    #[test]
    fn frames_come_out_whole_whatever_the_chunking() {
        let mut bytes = Vec::new();
        let payloads: Vec<Vec<u8>> = (0..40u8).map(|i| vec![i; usize::from(i) * 7]).collect();
        for p in &payloads {
            bytes.extend(frame(p));
        }
        for chunk in [1, 3, 16, 1000] {
            let (out, end) = drive(&bytes, chunk, 16);
            assert_eq!(out, payloads, "chunk {chunk}");
            end.unwrap();
        }
    }

    #[test]
    fn a_torn_tail_is_unexpected_eof_at_its_offset() {
        let mut bytes = frame(b"abc");
        bytes.extend(&frame(b"defgh")[..6]);
        let (out, end) = drive(&bytes, 2, 16);
        assert_eq!(out, [b"abc".to_vec()]);
        assert!(matches!(
            end,
            Err(Error::UnexpectedEof {
                offset: 7,
                needed: 9,
                present: 6
            })
        ));
    }

    #[test]
    fn a_claim_of_a_gibibyte_costs_the_first_allocation() {
        let mut bytes = vec![0, 0, 0, 0x40];
        bytes.extend([1; 10]);
        let mut buffer = ReadBuffer::new(DefaultDeframer);
        assert_eq!(buffer.next_frame().unwrap(), Next::NeedBytes);
        let n = buffer.read_space().len();
        assert_eq!(n, crate::wire::decode::FIRST_ALLOCATION);
        buffer.read_space()[..14].copy_from_slice(&bytes);
        buffer.commit(14);
        assert_eq!(buffer.next_frame().unwrap(), Next::NeedBytes);
        assert_eq!(buffer.capacity(), crate::wire::decode::FIRST_ALLOCATION);
    }

    #[test]
    fn a_framing_error_repeats_and_a_rejection_is_stepped_over() {
        let deframer = ChecksumDeframer::new(Sum16);
        let mut bytes = vec![1, 0, 0, 0, 9, 9, 7]; // wrong checksum
        let mut buffer = ReadBuffer::new(deframer);
        buffer.read_space()[..7].copy_from_slice(&bytes);
        buffer.commit(7);
        let first = buffer.next_frame().unwrap_err();
        let again = buffer.next_frame().unwrap_err();
        assert_eq!(first.to_string(), again.to_string());
        assert_eq!(buffer.position(), 0);
        bytes.clear();
    }

    #[test]
    fn the_reclaim_policy_shrinks_after_a_large_frame() {
        let mut bytes = frame(&[7; 100_000]);
        bytes.extend(frame(b"small"));
        let mut buffer = ReadBuffer::new(DefaultDeframer)
            .with_capacity(1024)
            .with_reclaim(crate::read::reclaim::ShrinkAbove::new(1024, 4096));
        let mut source = &bytes[..];
        let mut sizes = Vec::new();
        loop {
            match buffer.next_frame().unwrap() {
                Next::Frame(p) => sizes.push((buffer.payload(p).len(), buffer.capacity())),
                Next::NeedBytes => {
                    let space = buffer.read_space();
                    let n = space.len().min(source.len());
                    if n == 0 {
                        break;
                    }
                    space[..n].copy_from_slice(&source[..n]);
                    source = &source[n..];
                    buffer.commit(n);
                }
            }
        }
        assert_eq!(sizes[0].0, 100_000);
        assert!(sizes[0].1 >= 100_000);
        assert!(buffer.capacity() <= 1024, "{}", buffer.capacity());
    }
}
