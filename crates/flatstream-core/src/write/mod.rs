//! Writing frames: the sans-I/O writer core, the stream writer over it, its sync policies, and
//! the serialization trait.

#[cfg(feature = "std")]
pub(crate) mod core;
pub(crate) mod serialize;
#[cfg(feature = "std")]
pub(crate) mod sync;
#[cfg(feature = "std")]
pub(crate) mod writer;

/// `with_max_frame_len` and `with_offset` for a writer that frames through a
/// [`WriterCore`](crate::WriterCore) at the field path given (`sink.core`):
/// [`StreamWriter`](crate::StreamWriter) and flatstream-tokio's `AsyncStreamWriter` have these
/// setters in common, written once here. `$krate` is how the invoking crate names this one
/// (`"crate"`, `"flatstream_core"`), for the doc links. Not part of the API: hidden, and may
/// change in any release.
#[doc(hidden)]
#[macro_export]
macro_rules! __writer_core_setters {
    ($krate:literal, $($core:ident).+) => {
        /// Sets the largest payload this writer accepts (default
        #[doc = concat!("[`DEFAULT_MAX_FRAME_LEN`](", $krate, "::frame::DEFAULT_MAX_FRAME_LEN), 2 GiB).")]
        #[doc = concat!("Larger payloads are refused with [`Error::FrameTooLarge`](", $krate, "::Error::FrameTooLarge)")]
        /// before anything is written. A bound over `u32::MAX` acts as `u32::MAX`, the most the
        /// length prefix can say.
        ///
        #[doc = concat!("The same setting as [`FrameConfig::with_max_frame_len`](", $krate, "::FrameConfig::with_max_frame_len).")]
        pub fn with_max_frame_len(mut self, max: usize) -> Self {
            self.$($core).+.set_max_frame_len(max);
            self
        }

        /// Sets the stream offset of the first byte this writer writes: the length of the
        /// journal it appends to, so that receipts, errors and the durable watermark are
        /// offsets in the file. The bytes before `offset` are taken to be on disk, as they are
        #[doc = concat!("after [`Recover::repair_file`](", $krate, "::Recover::repair_file), which syncs the file.")]
        pub fn with_offset(mut self, offset: u64) -> Self {
            self.$($core).+ = self.$($core).+.with_offset(offset);
            self
        }
    };
}
