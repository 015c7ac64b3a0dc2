//! Reclamation for a writer: giving the builder's memory back after a burst of large messages.
//! The policies ([`ReclaimPolicy`], `ShrinkAfter`, `ShrinkAbove`) live in flatstream-core; a
//! reader takes one directly (`StreamReader::with_reclaim`, `FrameConfig::with_reclaim`, the
//! async reader and codec), a writer through [`Reclaiming`].

#[cfg(feature = "std")]
use flatbuffers::{Allocator, FlatBufferBuilder};
#[cfg(feature = "std")]
use flatstream_core::{Framer, ReclaimPolicy, Result, StreamSerialize, StreamWriter};
#[cfg(feature = "std")]
use std::io::Write;

/// A `StreamWriter` with a [`ReclaimPolicy`]: made with [`ReclaimExt::reclaim`].
///
/// After each [`write`](Reclaiming::write) (simple mode, which uses the writer's internal
/// builder), the policy sees the payload's length; when it says so, the builder is replaced by
/// one of `baseline` bytes. The payload has already been written by then. `write_finished` and
/// `write_payload` do not use the internal builder and are passed through.
///
/// A reclamation costs one allocation of the baseline (the next `write` also re-creates two
/// small internal vectors of the builder); every other message costs none.
///
/// A reader is not wrapped: it takes the policy itself, with `with_reclaim` (or
/// `FrameConfig::with_reclaim`), and shrinks its buffer when no payload is borrowed.
///
/// ```
/// use flatstream::read::ShrinkAfter;
/// use flatstream::write::ReclaimExt;
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer).reclaim(ShrinkAfter::new(4096, 8));
/// let large = "x".repeat(1 << 20);
/// writer.write(&large.as_str())?; // one large message: the builder grows
/// for _ in 0..10 {
///     writer.write(&"small")?; // after eight small ones, it shrinks back
/// }
/// let bytes = writer.into_inner().into_inner();
///
/// // The reader's side: the policy set on the reader itself.
/// let mut reader = StreamReader::with_capacity(4096, &bytes[..], DefaultDeframer)
///     .with_reclaim(ShrinkAfter::new(4096, 8));
/// let mut n = 0;
/// while let Some(_payload) = reader.read_message()? {
///     n += 1;
/// }
/// assert_eq!(n, 11);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[cfg(feature = "std")]
#[derive(Debug)]
pub struct Reclaiming<T, P> {
    inner: T,
    policy: P,
}

#[cfg(feature = "std")]
impl<T, P> Reclaiming<T, P> {
    /// Wraps a writer with `policy`.
    pub const fn new(inner: T, policy: P) -> Self {
        Reclaiming { inner, policy }
    }

    /// The wrapped writer.
    pub const fn get_ref(&self) -> &T {
        &self.inner
    }

    /// The wrapped writer. Its own methods bypass the policy.
    pub fn get_mut(&mut self) -> &mut T {
        &mut self.inner
    }

    /// The policy.
    pub const fn policy(&self) -> &P {
        &self.policy
    }

    /// Returns the wrapped writer.
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

/// Adds [`reclaim`](ReclaimExt::reclaim) to `StreamWriter`.
#[cfg(feature = "std")]
pub trait ReclaimExt: Sized {
    /// Wraps `self` with a [`ReclaimPolicy`].
    fn reclaim<P: ReclaimPolicy>(self, policy: P) -> Reclaiming<Self, P> {
        Reclaiming::new(self, policy)
    }
}

#[cfg(feature = "std")]
impl<W: Write, F: Framer> ReclaimExt for StreamWriter<W, F> {}
