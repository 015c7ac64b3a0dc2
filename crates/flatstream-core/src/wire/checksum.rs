//! The `Checksum` trait: the integrity algorithm a checksummed framer uses.
//!
//! The algorithms themselves (XXH3-64, CRC-32, CRC-16, CRC-32C) live in `flatstream-checksum`,
//! one feature each, so that a build pays only for the one it uses.

/// An integrity algorithm for frame payloads.
///
/// A checksum is computed over the payload only (not the length prefix) and stored in the frame
/// header as the low [`size`](Checksum::size) bytes of [`calculate`](Checksum::calculate)'s
/// value, little-endian. The algorithm is not recorded in the stream: writer and reader must use
/// the same one, or every frame fails verification with `Error::ChecksumMismatch`.
///
/// An implementation gives its width one of two ways: the constant [`SIZE`](Checksum::SIZE)
/// (as FlatStream 0.2.x's trait required), or the method [`size`](Checksum::size), for a
/// width known only at run time (as [`AnyChecksum`] has). Giving neither is a compile-time
/// error where the width is used. The trait has an associated constant, so it is not
/// object-safe: a checksum chosen at run time is an enum such as `AnyChecksum`.
///
/// [`AnyChecksum`]: https://docs.rs/flatstream-checksum/latest/flatstream_checksum/enum.AnyChecksum.html
///
/// # Example
///
/// A (weak) checksum of our own, stored in 2 bytes:
///
/// ```
/// use flatstream::checksum::Checksum;
///
/// struct ByteSum;
///
/// impl Checksum for ByteSum {
///     fn size(&self) -> usize {
///         2
///     }
///     fn calculate(&self, payload: &[u8]) -> u64 {
///         payload.iter().map(|&b| u64::from(b)).sum::<u64>() & 0xFFFF
///     }
/// }
///
/// assert_eq!(ByteSum.calculate(b"\x01\x02"), 3);
/// ```
///
/// The same width as a constant, as FlatStream 0.2.x's trait had it:
///
/// ```
/// use flatstream::checksum::Checksum;
///
/// struct ByteSum;
///
/// impl Checksum for ByteSum {
///     const SIZE: usize = 2;
///     fn calculate(&self, payload: &[u8]) -> u64 {
///         payload.iter().map(|&b| u64::from(b)).sum::<u64>() & 0xFFFF
///     }
/// }
///
/// assert_eq!(ByteSum.size(), 2);
/// ```
///
/// Giving neither does not build:
///
/// ```compile_fail
/// use flatstream::{ChecksumFramer, Framer};
/// use flatstream::checksum::Checksum;
///
/// struct Widthless;
///
/// impl Checksum for Widthless {
///     fn calculate(&self, _payload: &[u8]) -> u64 {
///         0
///     }
/// }
///
/// ChecksumFramer::new(Widthless).header(b"x", 0)?;
/// # Ok::<(), flatstream::Error>(())
/// ```
pub trait Checksum {
    /// Width of the checksum field on the wire, in bytes (0 to 8), where it is the same for
    /// every value of the type. Implement this or [`size`](Checksum::size); the algorithms
    /// of `flatstream-checksum` define both. Read only through `size`, which returns it by
    /// default: an implementation that overrides `size` need not give it.
    const SIZE: usize = panic!("implement `Checksum::SIZE` or `Checksum::size`");

    /// Width of the checksum field on the wire, in bytes: 0 to 8. By default,
    /// [`SIZE`](Checksum::SIZE).
    #[inline(always)]
    fn size(&self) -> usize {
        Self::SIZE
    }

    /// Computes the checksum of `payload`. Only the low [`size`](Checksum::size) bytes are
    /// stored and compared.
    fn calculate(&self, payload: &[u8]) -> u64;
}

macro_rules! forward_checksum {
    ($($ptr:ty),*) => {$(
        impl<C: Checksum + ?Sized> Checksum for $ptr {
            const SIZE: usize = C::SIZE;
            #[inline]
            fn size(&self) -> usize {
                (**self).size()
            }
            #[inline]
            fn calculate(&self, payload: &[u8]) -> u64 {
                (**self).calculate(payload)
            }
        }
    )*};
}
forward_checksum!(&C, alloc::boxed::Box<C>);

/// No checksum: a zero-width field. `ChecksumFramer<NoChecksum>` writes exactly the bytes of
/// `DefaultFramer`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoChecksum;

impl NoChecksum {
    /// Returns `NoChecksum`.
    pub const fn new() -> Self {
        NoChecksum
    }
}

impl Checksum for NoChecksum {
    const SIZE: usize = 0;
    #[inline(always)]
    fn size(&self) -> usize {
        0
    }
    #[inline(always)]
    fn calculate(&self, _payload: &[u8]) -> u64 {
        0
    }
}
