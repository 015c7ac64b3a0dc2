//! Extension traits that make stacks of adapters read left to right.

use crate::observer::{ObserverDeframer, ObserverFramer};
use crate::validate::{ValidatingDeframer, ValidatingFramer, Validator};
use flatstream_core::{Deframer, Framer};

/// One extension trait over `$base`, with constructors for its observing and validating
/// adapters: written once for framers and deframers.
macro_rules! adapter_ext {
    (
        $(#[$doc:meta])*
        $ext:ident: $base:ident => $observer:ident, $validating:ident;
        $payload:literal
    ) => {
        $(#[$doc])*
        pub trait $ext: $base + Sized {
            #[doc = concat!("Wraps `self` in an [`", stringify!($observer),
                "`] calling `observer` with each ", $payload, ".")]
            fn observed<C: Fn(&[u8])>(self, observer: C) -> $observer<Self, C> {
                $observer::new(self, observer)
            }

            #[doc = concat!("Wraps `self` in a [`", stringify!($validating),
                "`] applying `validator` to each ", $payload, ".")]
            fn validated<V: Validator>(self, validator: V) -> $validating<Self, V> {
                $validating::new(self, validator)
            }
        }

        impl<T: $base> $ext for T {}
    };
}

adapter_ext! {
    /// Adapter constructors for every [`Framer`]: `DefaultFramer.validated(v).observed(f)` is
    /// `ObserverFramer::new(ValidatingFramer::new(DefaultFramer, v), f)`, the same type.
    ///
    /// Each call wraps what is to its left, so the last adapter named is the outermost: on write
    /// it sees the payload first.
    FramerExt: Framer => ObserverFramer, ValidatingFramer;
    "payload"
}

adapter_ext! {
    /// Adapter constructors for every [`Deframer`]: `DefaultDeframer.validated(v).observed(f)` is
    /// `ObserverDeframer::new(ValidatingDeframer::new(DefaultDeframer, v), f)`, the same type.
    ///
    /// Each call wraps what is to its left, so the last adapter named is the outermost: on read
    /// it sees the payload last, just before the user.
    DeframerExt: Deframer => ObserverDeframer, ValidatingDeframer;
    "verified payload"
}
