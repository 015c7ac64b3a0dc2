//! Adapters for flatstream framers and deframers: observers, validation, typed reading,
//! and buffer reclamation. Each wraps a `Framer`, a `Deframer`, a writer or a reader, and costs
//! nothing when it is not used.
//!
//! ```text
//! +-------------+---------------------------+--------------------------------+
//! | len: u32 LE | checksum: 0/2/4/8 B, LE   | payload: a plain FlatBuffer    |   one frame
//! +-------------+---------------------------+--------------------------------+
//! ```
//!
//! None of the adapters changes the bytes on the wire: a stream written through any stack of
//! them reads back with the bare deframer, and the other way round.
//!
//! ```
//! use flatstream::adapters::{DeframerExt, FramerExt, SizeValidator};
//! use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
//! use std::cell::Cell;
//!
//! let written = Cell::new(0);
//! let framer = DefaultFramer
//!     .validated(SizeValidator::new(1, 1024))
//!     .observed(|_: &[u8]| written.set(written.get() + 1));
//! let mut writer = StreamWriter::new(Vec::new(), framer);
//! writer.write(&"hello")?;
//! writer.write(&"world")?;
//! let bytes = writer.into_inner();
//!
//! let read = Cell::new(0);
//! let deframer = DefaultDeframer
//!     .validated(SizeValidator::new(1, 1024))
//!     .observed(|_: &[u8]| read.set(read.get() + 1));
//! let mut reader = StreamReader::new(&bytes[..], deframer).with_max_frame_len(1024);
//! while let Some(payload) = reader.read_message()? {
//!     assert!(flatbuffers::root::<&str>(payload).is_ok());
//! }
//! assert_eq!((written.get(), read.get()), (2, 2));
//! # Ok::<(), flatstream::Error>(())
//! ```
//!
//! # The adapters
//!
//! | adapter | write side | read side |
//! |---|---|---|
//! | observer | [`ObserverFramer`]: `Fn(&[u8])` on each payload, before framing | [`ObserverDeframer`]: `Fn(&[u8])` on each payload, after the checksum |
//! | validation | [`ValidatingFramer`]: nothing invalid reaches the sink | [`ValidatingDeframer`]: after the checksum, before the user |
//! | typed reading | | [`TypedReaderExt`]: `process_typed::<T>`, `typed_messages::<T>()` |
//! | reclamation | [`Reclaiming`] writer: the builder shrinks back | (none: a reader takes a reclaim policy itself, `with_reclaim`) |
//!
//! Validators: [`NoValidator`] (free), [`SizeValidator`], [`StructuralValidator`] (a
//! well-formed FlatBuffer table, nested tables, vectors and strings, without a schema),
//! [`TypedValidator`] (a flatc-generated root type), and composites: a tuple, slice or `Vec` of
//! validators runs each in order. Failures are [`Error::Validation`](flatstream_core::Error)
//! naming the validator, the reason and the frame's offset.
//!
//! # Composition
//!
//! Adapters nest, and [`FramerExt`] and [`DeframerExt`] write the nesting left to right:
//! `DefaultFramer.validated(v).observed(f)` *is* `ObserverFramer::new(ValidatingFramer::new(DefaultFramer, v), f)`.
//! The last adapter named is the outermost, the one closest to your code:
//!
//! ```text
//! write:  your payload -> outermost -> ... -> innermost -> header -> sink
//! read:   source -> length bound -> innermost (checksum) -> ... -> outermost -> your code
//! ```
//!
//! So order decides who sees what:
//!
//! * **Observer and validator, writing.** `validated(v).observed(f)`: `f` sees every payload
//!   offered, including those `v` then refuses. `observed(f).validated(v)`: `f` sees only
//!   payloads that go on the wire.
//! * **Observer and validator, reading.** `observed(f).validated(v)`: `f` sees every intact
//!   payload, including those `v` then rejects. `validated(v).observed(f)`: `f` sees only what
//!   you will see.
//! * **The bound.** It is not an adapter: it is the reader's or writer's
//!   (`FrameConfig::with_max_frame_len`, or `with_max_frame_len` on a reader or writer built
//!   directly), checked before anything inside the stack runs: from the length prefix when
//!   reading, before the payload reaches the stack when writing.
//!
//! Whatever the order, a payload is handed to your code only if every adapter accepted it, and
//! written only if every adapter accepted it.
//!
//! # Typed reading
//!
//! [`TypedReaderExt`] hands out payloads as flatc-generated types, verified first with the
//! FlatBuffers verifier and configurable [`VerifierOptions`](flatbuffers::VerifierOptions).
//! Implement [`StreamDeserialize`] for a generated table with [`stream_deserialize!`].
//!
//! Verification is most of the cost of reading a small message (see `adapters/read/typed` in
//! the benchmarks). For streams you wrote and trust, the `unchecked` feature adds
//! `UncheckedReaderExt::process_typed_unchecked`, an `unsafe fn` that skips it: calling it on a
//! payload that is not a valid root is undefined behaviour, so it must never see untrusted data.
//! It is the only `unsafe` code in this crate, in one module.
//!
//! # Features
//!
//! | feature | default | what it adds | changes the bytes on the wire |
//! |---|---|---|---|
//! | `std` | yes | typed reading, reclaiming writers | no |
//! | `unchecked` | no | typed reading without verification (`unsafe`, trusted data only) | no |
//!
//! Without `std` the crate is `#![no_std]` (it needs `alloc`) and offers the framer and deframer
//! adapters and the validators.

#![cfg_attr(not(test), no_std)]
#![cfg_attr(not(feature = "unchecked"), forbid(unsafe_code))]
#![warn(clippy::cast_possible_truncation)]

extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;

/// Adapters that wrap a framer or deframer (`inner`) with a second part (a callback, a
/// validator) in a field of the given name, which `$check` applies to each payload: before the
/// wrapped framer writes it, after the wrapped deframer has verified it. Their constructor,
/// accessors and `Framer`/`Deframer` impls, written once for the observing and the validating
/// adapters.
macro_rules! wrapper_common {
    (
        $framer:ident<$f:ident>, $deframer:ident<$d:ident>;
        $field:ident: $p:ident: $($bound:ident)::+ $(($($arg:ty),*))? => $check:path,
        $what:literal, $new:literal
    ) => {
        wrapper_common!(@inherent $framer<$f>, $field: $p, $what, $new);
        wrapper_common!(@inherent $deframer<$d>, $field: $p, $what, $new);

        impl<$f: Framer, $p: $($bound)::+ $(($($arg),*))?> Framer for $framer<$f, $p> {
            #[inline]
            fn header(&self, payload: &[u8], offset: u64) -> Result<FrameHeader> {
                $check(&self.$field, payload, offset)?;
                self.inner.header(payload, offset)
            }
        }

        impl<$d: Deframer, $p: $($bound)::+ $(($($arg),*))?> Deframer for $deframer<$d, $p> {
            #[inline]
            fn checksum_size(&self) -> usize {
                self.inner.checksum_size()
            }

            #[inline]
            fn max_payload_len(&self) -> usize {
                self.inner.max_payload_len()
            }

            #[inline]
            fn verify(&self, checksum: &[u8], payload: &[u8], offset: u64) -> Result<()> {
                self.inner.verify(checksum, payload, offset)?;
                $check(&self.$field, payload, offset)
            }
        }
    };
    (@inherent $ty:ident<$param:ident>, $field:ident: $p:ident, $what:literal, $new:literal) => {
        impl<$param, $p> $ty<$param, $p> {
            #[doc = $new]
            pub const fn new(inner: $param, $field: $p) -> Self {
                $ty { inner, $field }
            }

            #[doc = concat!("The ", $what, ".")]
            pub const fn $field(&self) -> &$p {
                &self.$field
            }

            /// The wrapped adapter.
            pub const fn inner(&self) -> &$param {
                &self.inner
            }

            #[doc = concat!("Returns the wrapped adapter and the ", $what, ".")]
            pub fn into_parts(self) -> ($param, $p) {
                (self.inner, self.$field)
            }
        }
    };
}

mod ext;
mod observer;
#[cfg(feature = "std")]
mod reclaim;
mod structure;
#[cfg(feature = "std")]
mod typed;
#[cfg(feature = "unchecked")]
mod unchecked;
mod validate;

pub use ext::{DeframerExt, FramerExt};
pub use observer::{ObserverDeframer, ObserverFramer};
#[cfg(feature = "std")]
pub use reclaim::{ReclaimExt, Reclaiming};
pub use structure::StructuralValidator;
#[cfg(feature = "std")]
pub use typed::{StreamDeserialize, TypedMessages, TypedReaderExt};
#[cfg(feature = "unchecked")]
pub use unchecked::UncheckedReaderExt;
pub use validate::{
    NoValidator, SizeValidator, TypedValidator, ValidatingDeframer, ValidatingFramer, Validator,
};
