//! `BoundedFramer` and `BoundedDeframer`: a maximum payload size on any framer or deframer.

use flatstream_core::frame::FrameHeader;
use flatstream_core::{Deframer, Framer, Result};

/// Refuses payloads longer than `max` bytes before any byte of the frame is written.
///
/// The check runs before the wrapped framer is asked for a header, so a refused payload is
/// neither checksummed nor observed by anything inside this adapter.
///
/// ```
/// use flatstream::adapters::BoundedFramer;
/// use flatstream::{DefaultFramer, Error, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), BoundedFramer::new(DefaultFramer, 4));
/// writer.write_payload(b"1234")?;
/// let err = writer.write_payload(b"12345").unwrap_err();
/// assert!(matches!(err, Error::FrameTooLarge { len: 5, max: 4, offset: 8 }));
/// assert_eq!(writer.bytes_written(), 8); // nothing of the refused frame reached the sink
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BoundedFramer<F> {
    inner: F,
    max: usize,
}

/// Rejects frames that declare a payload longer than `max` bytes, from the length prefix alone.
///
/// The bound is reported through [`Deframer::max_payload_len`], so `StreamReader` and
/// `Frames` reject the frame as soon as its 4-byte length prefix is read: nothing is allocated
/// or read for the payload. The bound in force is the smallest of this one, the wrapped
/// deframer's, and the reader's own (`with_max_frame_len`).
///
/// ```
/// use flatstream::adapters::BoundedDeframer;
/// use flatstream::{DefaultDeframer, Error, StreamReader};
///
/// // A header claiming a 1 GiB payload, followed by nothing.
/// let bytes = (1u32 << 30).to_le_bytes();
/// let mut reader = StreamReader::new(&bytes[..], BoundedDeframer::new(DefaultDeframer, 1024));
/// let err = reader.read_message().unwrap_err();
/// assert!(matches!(err, Error::FrameTooLarge { len: 1_073_741_824, max: 1024, offset: 0 }));
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct BoundedDeframer<D> {
    inner: D,
    max: usize,
}

macro_rules! common {
    ($ty:ident, $param:ident) => {
        impl<$param> $ty<$param> {
            /// Wraps `inner`, allowing payloads of at most `max` bytes.
            pub const fn new(inner: $param, max: usize) -> Self {
                $ty { inner, max }
            }

            /// The largest payload allowed, in bytes.
            pub const fn max(&self) -> usize {
                self.max
            }

            /// The wrapped adapter.
            pub const fn inner(&self) -> &$param {
                &self.inner
            }

            /// Returns the wrapped adapter.
            pub fn into_inner(self) -> $param {
                self.inner
            }
        }
    };
}
common!(BoundedFramer, F);
common!(BoundedDeframer, D);

impl<F: Framer> Framer for BoundedFramer<F> {
    #[inline]
    fn header(&self, payload: &[u8], offset: u64) -> Result<FrameHeader> {
        // The bound check every writer makes, with this adapter's bound.
        self.inner.header_within(payload, offset, self.max)
    }
}

impl<D: Deframer> Deframer for BoundedDeframer<D> {
    #[inline]
    fn checksum_size(&self) -> usize {
        self.inner.checksum_size()
    }

    #[inline]
    fn max_payload_len(&self) -> usize {
        self.max.min(self.inner.max_payload_len())
    }

    /// Delegates: the bound was enforced from the length prefix, through
    /// [`max_payload_len`](Deframer::max_payload_len), before the payload was read.
    #[inline]
    fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()> {
        self.inner.verify(checksum, payload, offset)
    }
}
