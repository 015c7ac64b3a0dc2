//! Buffer reclamation: giving memory back after a burst of large messages. The policies live
//! in flatstream-core (the buffered readers take them directly); this module adds the
//! [`Reclaiming`] wrapper, for the writer's builder and for any [`MessageReader`].

pub use flatstream_core::{NoReclaim, ReclaimPolicy, ShrinkAbove, ShrinkAfter};

#[cfg(feature = "std")]
use flatbuffers::{Allocator, FlatBufferBuilder};
#[cfg(feature = "std")]
use flatstream_core::{Framer, MessageReader, Result, StreamSerialize, StreamWriter};
#[cfg(feature = "std")]
use std::io::Write;

/// A `StreamWriter` or a reader with a [`ReclaimPolicy`]: made with
/// [`ReclaimExt::reclaim`].
///
/// * **Writer**: after each [`write`](Reclaiming::write) (simple mode, which uses the writer's
///   internal builder), the policy sees the payload's length; when it says so, the builder is
///   replaced by one of `baseline` bytes. The payload has already been written by then.
///   `write_finished` and `write_payload` do not use the internal builder and are passed through.
/// * **Reader**: after each payload, the policy sees its length; when it says so, the buffer is
///   shrunk to `baseline` bytes at the start of a later read: the first one at which the bytes
///   already read ahead fit in the baseline (at the latest when the buffer runs low and would be
///   refilled), so that a single reallocation takes it all the way down. A payload borrows the
///   reader, so none can be alive then: reclamation never invalidates a payload you hold.
///
/// A reclamation costs one allocation of the baseline (the writer's next `write` also
/// re-creates two small internal vectors of the builder); every other message costs none.
///
/// ```
/// use flatstream::read::{ReclaimExt, ShrinkAfter};
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write_payload(&vec![7u8; 1 << 20])?; // one large message
/// for _ in 0..10 {
///     writer.write_payload(b"small")?;
/// }
/// let path = std::env::temp_dir().join(format!("reclaim-doc-{}", std::process::id()));
/// std::fs::write(&path, writer.into_inner())?;
///
/// // A file is read through the reader's buffer, which grows for the large message.
/// let file = std::fs::File::open(&path)?;
/// let mut reader = StreamReader::with_capacity(4096, file, DefaultDeframer)
///     .reclaim(ShrinkAfter::new(4096, 8));
/// let mut peak = 0;
/// while let Some(payload) = reader.read_message()? {
///     assert!(payload == b"small" || payload.len() == 1 << 20);
///     peak = peak.max(reader.get_ref().capacity());
/// }
/// assert!(peak > 1 << 20);
/// assert!(reader.get_ref().capacity() <= 4096);
/// std::fs::remove_file(&path)?;
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
///
/// A payload cannot be held across the next read:
///
/// ```compile_fail
/// # use flatstream::read::{ReclaimExt, ShrinkAfter};
/// # use flatstream::{DefaultDeframer, StreamReader};
/// let mut reader = StreamReader::new(&[][..], DefaultDeframer).reclaim(ShrinkAfter::new(16, 1));
/// let first = reader.read_message().unwrap();
/// let second = reader.read_message().unwrap();
/// println!("{first:?} {second:?}");
/// ```
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct Reclaiming<T, P> {
    inner: T,
    policy: P,
    /// Reader side: the policy asked for a shrink after the last payload handed out.
    pending: bool,
}

#[cfg(feature = "std")]
impl<T, P> Reclaiming<T, P> {
    /// Wraps a writer or reader with `policy`.
    pub const fn new(inner: T, policy: P) -> Self {
        Reclaiming {
            inner,
            policy,
            pending: false,
        }
    }

    /// The wrapped writer or reader.
    pub const fn get_ref(&self) -> &T {
        &self.inner
    }

    /// The wrapped writer or reader. Its own methods bypass the policy.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// The policy.
    pub const fn policy(&self) -> &P {
        &self.policy
    }

    /// Returns the wrapped writer or reader.
    pub fn into_inner(self) -> T {
        self.inner
    }
}

#[cfg(feature = "std")]
impl<W: Write, F: Framer, P: ReclaimPolicy> Reclaiming<StreamWriter<W, F>, P> {
    /// `StreamWriter::write`, then the policy; a failed write is not counted.
    #[inline]
    pub fn write<T: StreamSerialize + ?Sized>(&mut self, item: &T) -> Result<()> {
        self.inner.write(item)?;
        let len = self.inner.builder_mut().finished_data().len();
        if self.policy.after_message(len) {
            self.reclaim_builder();
        }
        Ok(())
    }

    /// `StreamWriter::write_finished`; the policy is not consulted (the builder is yours).
    #[inline]
    pub fn write_finished<A: Allocator>(
        &mut self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        self.inner.write_finished(builder)
    }

    /// `StreamWriter::write_payload`; the policy is not consulted.
    #[inline]
    pub fn write_payload(&mut self, payload: &[u8]) -> Result<()> {
        self.inner.write_payload(payload)
    }

    /// Replaces the internal builder with one of the policy's baseline capacity, now.
    #[cold]
    pub fn reclaim_builder(&mut self) {
        *self.inner.builder_mut() = FlatBufferBuilder::with_capacity(self.policy.baseline());
    }

    /// Flushes the sink.
    pub fn flush(&mut self) -> Result<()> {
        self.inner.flush()
    }

    /// Bytes the sink has accepted (see `StreamWriter::bytes_written`).
    pub fn bytes_written(&self) -> u64 {
        self.inner.bytes_written()
    }
}

/// The reader side: any [`MessageReader`] (a `StreamReader`, a `BufReadStreamReader`, …), whose
/// `capacity`, `buffer` and `shrink_to` the policy drives. It is a `MessageReader` itself, so
/// `process_all`, `messages()` and typed reading work over it, one payload at a time.
#[cfg(feature = "std")]
impl<M: MessageReader, P: ReclaimPolicy> Reclaiming<M, P> {
    /// The reader's `read_message`, shrinking the buffer first if the policy asked for it
    /// after the previous payload.
    #[inline]
    pub fn read_message(&mut self) -> Result<Option<&[u8]>> {
        if self.pending {
            self.reclaim_pending();
        }
        let message = self.inner.read_message()?;
        if let Some(payload) = message {
            // Stays pending until done: the policy answers `true` once per burst.
            self.pending |= self.policy.after_message(payload.len());
        }
        Ok(message)
    }

    /// [`MessageReader::process_all`] with the policy applied between payloads (here too, so
    /// that calling it needs no import).
    pub fn process_all<F, C>(&mut self, f: F) -> Result<()>
    where
        F: FnMut(&[u8]) -> Result<C>,
        C: flatstream_core::IntoControlFlow,
    {
        MessageReader::process_all(self, f)
    }

    /// Shrinks the buffer to the policy's baseline now, if it is larger (but not below the
    /// bytes read ahead and not yet consumed).
    #[cold]
    pub fn reclaim_buffer(&mut self) {
        self.pending = false;
        let baseline = self.policy.baseline();
        if self.inner.capacity() > baseline {
            self.inner.shrink_to(baseline);
        }
    }

    /// Shrinks once the bytes read ahead fit in the baseline, so that one reallocation takes
    /// the buffer all the way down; until then, waits (checking costs no allocation).
    #[cold]
    fn reclaim_pending(&mut self) {
        let baseline = self.policy.baseline();
        if self.inner.capacity() <= baseline {
            self.pending = false;
        } else if self.inner.buffer().len() <= baseline {
            self.pending = false;
            self.inner.shrink_to(baseline);
        }
    }
}

#[cfg(feature = "std")]
impl<M: MessageReader, P: ReclaimPolicy> MessageReader for Reclaiming<M, P> {
    #[inline]
    fn read_message(&mut self) -> Result<Option<&[u8]>> {
        Reclaiming::read_message(self)
    }

    #[inline]
    fn position(&self) -> u64 {
        self.inner.position()
    }

    fn buffer(&self) -> &[u8] {
        self.inner.buffer()
    }

    fn capacity(&self) -> usize {
        self.inner.capacity()
    }

    fn shrink_to(&mut self, capacity: usize) {
        self.inner.shrink_to(capacity);
    }
}

/// Adds [`reclaim`](ReclaimExt::reclaim) to `StreamWriter`, `StreamReader` and
/// `BufReadStreamReader`.
#[cfg(feature = "std")]
pub trait ReclaimExt: Sized {
    /// Wraps `self` with a [`ReclaimPolicy`].
    fn reclaim<P: ReclaimPolicy>(self, policy: P) -> Reclaiming<Self, P> {
        Reclaiming::new(self, policy)
    }
}

#[cfg(feature = "std")]
impl<W: Write, F: Framer> ReclaimExt for StreamWriter<W, F> {}

#[cfg(feature = "std")]
impl<R: std::io::Read, D: flatstream_core::Deframer> ReclaimExt
    for flatstream_core::StreamReader<R, D>
{
}

#[cfg(feature = "std")]
impl<R: std::io::BufRead, D: flatstream_core::Deframer> ReclaimExt
    for flatstream_core::BufReadStreamReader<R, D>
{
}
