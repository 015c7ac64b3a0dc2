//! The reader surface: [`MessageReader`], what the sequential readers of this crate are, and
//! the one lending iterator [`Messages`] over any of them.

pub(crate) mod buffer;
#[cfg(feature = "std")]
pub(crate) mod buffered;
#[cfg(feature = "bytes")]
pub(crate) mod bytes;
pub(crate) mod reclaim;
pub(crate) mod slice;
#[cfg(feature = "std")]
pub(crate) mod stream;

use crate::error::Result;
use core::ops::ControlFlow;

/// A reader that hands out payloads one at a time, borrowed from wherever it holds them.
///
/// The sequential readers implement it: [`StreamReader`](crate::StreamReader),
/// [`BufReadStreamReader`](crate::BufReadStreamReader), [`Frames`](crate::Frames),
/// [`SplitFrames`](crate::SplitFrames), `BytesFrames` (feature `bytes`), and the adapters that
/// wrap a reader. Code written against it (typed reading, reclamation, your own loops) works
/// over all of them, and [`process_all`](Self::process_all) uses each reader's own batched
/// loop. The situational readers have surfaces of their own: [`Recover`](crate::Recover) and
/// [`Salvage`](crate::Salvage) report on a whole stream, `ParallelFrames` (feature `rayon`)
/// hands frames to several threads, [`FrameAt`](crate::FrameAt) reads at given offsets,
/// [`Follower`](crate::Follower) waits for a growing file, and flatstream-tokio's
/// `AsyncStreamReader` and `FrameCodec` are async.
///
/// ```
/// use flatstream::{DefaultDeframer, DefaultFramer, Frames, StreamReader, StreamWriter};
/// use flatstream::read::MessageReader;
///
/// fn count(reader: &mut impl MessageReader) -> flatstream::Result<usize> {
///     let mut n = 0;
///     reader.process_all(|_payload| {
///         n += 1;
///         Ok(())
///     })?;
///     Ok(n)
/// }
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"a")?;
/// writer.write(&"b")?;
/// let bytes = writer.into_inner();
/// assert_eq!(count(&mut StreamReader::new(&bytes[..], DefaultDeframer))?, 2);
/// assert_eq!(count(&mut Frames::new(&bytes, DefaultDeframer))?, 2);
/// # Ok::<(), flatstream::Error>(())
/// ```
pub trait MessageReader {
    /// The next payload, or `None` at a clean end of stream (the input ended exactly between
    /// two frames).
    ///
    /// A content error ([`Error::is_content_error`](crate::Error::is_content_error)) concerns
    /// a frame read whole: the reader has moved past it. Any other error leaves the reader at
    /// the frame concerned.
    fn read_message(&mut self) -> Result<Option<&[u8]>>;

    /// Stream offset of the next frame: the bytes of the frames handed out (or stepped over)
    /// so far.
    fn position(&self) -> u64;

    /// Calls `f` with each payload until the end of the stream.
    ///
    /// `f` returns `Ok(())` to go on, or `Ok(ControlFlow::Break(()))` to stop early: that is
    /// not an error, and the next frame stays unread for a later call. An error returned by
    /// `f` stops the loop and is returned; a verifier or validation error raised in `f` is
    /// stamped with the offset of the frame being processed.
    ///
    /// Readers that hold many frames at once override it with a loop that hands them all out
    /// in one pass; the result is the same.
    #[inline]
    fn process_all<F, C>(&mut self, mut f: F) -> Result<()>
    where
        Self: Sized,
        F: FnMut(&[u8]) -> Result<C>,
        C: IntoControlFlow,
    {
        loop {
            let at = self.position();
            let Some(payload) = self.read_message()? else {
                return Ok(());
            };
            if flow(f(payload), at)?.is_break() {
                return Ok(());
            }
        }
    }

    /// A lending iterator over the payloads: `while let Some(payload) = messages.next()? {}`.
    #[inline]
    fn messages(&mut self) -> Messages<'_, Self>
    where
        Self: Sized,
    {
        Messages::new(self)
    }

    /// The bytes the reader has taken from its source but not handed out yet (empty for a
    /// reader that reads in place).
    #[inline]
    fn buffer(&self) -> &[u8] {
        &[]
    }

    /// Bytes of memory the reader keeps to buffer or assemble frames (0 for a reader that
    /// reads in place).
    #[inline]
    fn capacity(&self) -> usize {
        0
    }

    /// Gives back buffer memory above `capacity` bytes, keeping the bytes not handed out yet.
    /// Does nothing for a reader that reads in place.
    #[inline]
    fn shrink_to(&mut self, capacity: usize) {
        let _ = capacity;
    }
}

/// A reader borrowed mutably is a reader. Its `process_all` is the provided per-frame loop (the
/// reader may be unsized, a `dyn MessageReader`, so its own batched loop cannot be called): pass
/// the reader itself to generic code where the batched loop matters.
impl<M: MessageReader + ?Sized> MessageReader for &mut M {
    #[inline]
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        (**self).read_message()
    }
    #[inline]
    fn position(&self) -> u64 {
        (**self).position()
    }
    #[inline]
    fn buffer(&self) -> &[u8] {
        (**self).buffer()
    }
    #[inline]
    fn capacity(&self) -> usize {
        (**self).capacity()
    }
    #[inline]
    fn shrink_to(&mut self, capacity: usize) {
        (**self).shrink_to(capacity);
    }
}

/// `with_max_frame_len` and `deframer` for a reader, invoked inside its `impl` block with the
/// name of its deframer parameter and of the field that holds its decoder (or the
/// [`Frames`](crate::Frames) or [`ReadBuffer`](crate::ReadBuffer) it reads through): both
/// delegate there. Doc lines given after them are added to `with_max_frame_len`'s, to say when
/// that reader rejects a frame over the bound.
macro_rules! decoder_accessors {
    ($d:ident, $field:ident $(, $doc:literal)*) => {
        /// Sets the largest payload accepted (default
        /// [`DEFAULT_MAX_FRAME_LEN`](crate::wire::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB), as
        /// [`FrameConfig::with_max_frame_len`](crate::FrameConfig::with_max_frame_len).
        $(#[doc = $doc])*
        pub fn with_max_frame_len(mut self, max: usize) -> Self {
            self.$field.set_max_frame_len(max);
            self
        }

        /// The deframer.
        pub fn deframer(&self) -> &$d {
            self.$field.deframer()
        }
    };
}

pub(crate) use decoder_accessors;

/// `buffer`, `capacity`, `shrink_to`, `get_ref`, `get_mut` and `into_inner` for a reader that
/// holds its source in a field `source` and reads it through a [`ReadBuffer`](crate::ReadBuffer)
/// in a field `buffer`: [`StreamReader`](crate::StreamReader) and flatstream-tokio's
/// `AsyncStreamReader` have these accessors in common, written once here. Invoked inside the
/// reader's `impl` block with the name of its source parameter. Not part of the API: hidden,
/// and may change in any release.
#[doc(hidden)]
#[macro_export]
macro_rules! __source_accessors {
    ($r:ident) => {
        /// The bytes received from the source but not yet consumed, starting with the next
        /// frame. Take them before handing the source to other code, as with
        /// `BufReader::buffer`.
        pub fn buffer(&self) -> &[u8] {
            self.buffer.buffered()
        }

        /// Bytes currently allocated for the buffer: none before the first read that needs
        /// them.
        pub fn capacity(&self) -> usize {
            self.buffer.capacity()
        }

        /// Shrinks the buffer to `capacity` bytes (or to the bytes it still holds, if more),
        /// and makes `capacity` the size of the next allocation.
        pub fn shrink_to(&mut self, capacity: usize) {
            self.buffer.shrink_to(capacity);
        }

        /// The source.
        pub fn get_ref(&self) -> &$r {
            &self.source
        }

        /// The source. Reading from it directly skips the bytes in [`buffer`](Self::buffer).
        pub fn get_mut(&mut self) -> &mut $r {
            &mut self.source
        }

        /// Returns the source; bytes read ahead into the buffer are dropped (see
        /// [`into_parts`](Self::into_parts) to keep them).
        pub fn into_inner(self) -> $r {
            self.source
        }
    };
}

/// Implements `FusedIterator` and [`MessageReader`] for an iterator of this crate over the
/// payloads of a slice (`Iterator<Item = Result<&[u8]>>`), with inherent `position` and `retry`
/// (undo the fusing after a framing error).
macro_rules! message_reader_from_iterator {
    ($reader:ident) => {
        impl<D: $crate::wire::framing::Deframer> core::iter::FusedIterator for $reader<'_, D> {}

        impl<D: $crate::wire::framing::Deframer> $crate::read::MessageReader for $reader<'_, D> {
            /// As [`Iterator::next`], except after a framing error: where the iterator is
            /// fused, this stays at the frame that failed and returns its error again, as the
            /// other readers do.
            #[inline]
            fn read_message(&mut self) -> $crate::error::Result<Option<&[u8]>> {
                self.retry();
                self.next().transpose()
            }

            #[inline]
            fn position(&self) -> u64 {
                $reader::position(self)
            }
        }
    };
}
pub(crate) use message_reader_from_iterator;

/// Implements [`MessageReader`] for a reader of this crate whose inherent methods of the same
/// names hold the code (they stay inherent, so that calling them needs no import), and adds
/// the inherent `messages` and `position`, the same for every such reader (the last argument gives
/// the offset of the next frame).
#[cfg(feature = "std")]
macro_rules! message_reader_from_inherent {
    ($reader:ident<$r:ident: $bound:path, $d:ident $(, $p:ident: $pb:path)?>, |$this:ident| $offset:expr) => {
        impl<$r: $bound, $d: $crate::wire::framing::Deframer $(, $p: $pb)?> $reader<$r, $d $(, $p)?> {
            /// A lending iterator over the payloads:
            /// `while let Some(payload) = messages.next()? {}`. Leave the loop with `break` to
            /// stop early.
            pub fn messages(&mut self) -> $crate::read::Messages<'_, Self> {
                $crate::read::Messages::new(self)
            }

            /// Stream offset of the next frame: the bytes of the frames handed out (or stepped
            /// over) so far.
            pub fn position(&self) -> u64 {
                let $this = self;
                $offset
            }
        }

        impl<$r: $bound, $d: $crate::wire::framing::Deframer $(, $p: $pb)?> $crate::read::MessageReader
            for $reader<$r, $d $(, $p)?>
        {
            #[inline]
            fn read_message(&mut self) -> $crate::error::Result<Option<&[u8]>> {
                $reader::read_message(self)
            }
            #[inline]
            fn position(&self) -> u64 {
                $reader::position(self)
            }
            #[inline]
            fn process_all<F, C>(&mut self, f: F) -> $crate::error::Result<()>
            where
                F: FnMut(&[u8]) -> $crate::error::Result<C>,
                C: $crate::read::IntoControlFlow,
            {
                $reader::process_all(self, f)
            }
            fn buffer(&self) -> &[u8] {
                $reader::buffer(self)
            }
            fn capacity(&self) -> usize {
                $reader::capacity(self)
            }
            fn shrink_to(&mut self, capacity: usize) {
                $reader::shrink_to(self, capacity);
            }
        }
    };
}
#[cfg(feature = "std")]
pub(crate) use message_reader_from_inherent;

/// A lending iterator over a reader's payloads, returned by the readers' `messages()`.
///
/// Each payload borrows the reader, so it must be dropped before the next call to `next`; copy
/// what you need to keep. Leave the loop with `break` to stop early.
///
/// As every iterator over frames, it yields a framing error (see
/// [`Error::is_framing_error`](crate::Error::is_framing_error)) once and then ends, so that a
/// loop that logs errors and goes on cannot spin; the reader itself stays at the frame that
/// failed, and its `read_message` returns the error again. A content error skips that one frame,
/// and an I/O error leaves the next call to carry on, as with `read_message`.
#[derive(Debug)]
pub struct Messages<'r, M: ?Sized> {
    reader: &'r mut M,
    /// Set by a framing error: the iterator has ended.
    ended: bool,
}

impl<'r, M: MessageReader + ?Sized> Messages<'r, M> {
    /// A lending iterator over `reader`'s payloads.
    pub fn new(reader: &'r mut M) -> Self {
        Messages {
            reader,
            ended: false,
        }
    }

    /// The next payload, or `None` at a clean end of stream and after a framing error.
    ///
    /// # Errors
    ///
    /// As the reader's `read_message`; a framing error only once.
    #[allow(clippy::should_implement_trait)] // a lending iterator cannot implement `Iterator`
    #[inline]
    pub fn next(&mut self) -> Result<Option<&[u8]>> {
        if self.ended {
            return Ok(None);
        }
        let next = self.reader.read_message();
        if let Err(e) = &next {
            self.ended = e.is_framing_error();
        }
        next
    }

    /// Stream offset of the next frame.
    pub fn position(&self) -> u64 {
        self.reader.position()
    }
}

/// What a `process_all` callback returns besides errors: `()` to go on, or a `ControlFlow` to
/// choose.
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
