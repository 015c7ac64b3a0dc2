//! Extension traits that make stacks of adapters read left to right.

use crate::bounded::{BoundedDeframer, BoundedFramer};
use crate::observer::{ObserverDeframer, ObserverFramer};
use crate::validate::{ValidatingDeframer, ValidatingFramer, Validator};
use flatstream_core::{Deframer, Framer};

/// Adapter constructors for every [`Framer`]: `DefaultFramer.bounded(1 << 20).observed(f)` is
/// `ObserverFramer::new(BoundedFramer::new(DefaultFramer, 1 << 20), f)`, the same type.
///
/// Each call wraps what is to its left, so the last adapter named is the outermost: on write it
/// sees the payload first.
pub trait FramerExt: Framer + Sized {
    /// Wraps `self` in a [`BoundedFramer`] allowing payloads of at most `max` bytes.
    fn bounded(self, max: usize) -> BoundedFramer<Self> {
        BoundedFramer::new(self, max)
    }

    /// Wraps `self` in an [`ObserverFramer`] calling `observer` with each payload.
    fn observed<C: Fn(&[u8])>(self, observer: C) -> ObserverFramer<Self, C> {
        ObserverFramer::new(self, observer)
    }

    /// Wraps `self` in a [`ValidatingFramer`] applying `validator` to each payload.
    fn validated<V: Validator>(self, validator: V) -> ValidatingFramer<Self, V> {
        ValidatingFramer::new(self, validator)
    }
}

impl<F: Framer> FramerExt for F {}

/// Adapter constructors for every [`Deframer`]: `DefaultDeframer.bounded(1 << 20).observed(f)`
/// is `ObserverDeframer::new(BoundedDeframer::new(DefaultDeframer, 1 << 20), f)`, the same type.
///
/// Each call wraps what is to its left, so the last adapter named is the outermost: on read it
/// sees the payload last, just before the user.
pub trait DeframerExt: Deframer + Sized {
    /// Wraps `self` in a [`BoundedDeframer`] accepting payloads of at most `max` bytes.
    fn bounded(self, max: usize) -> BoundedDeframer<Self> {
        BoundedDeframer::new(self, max)
    }

    /// Wraps `self` in an [`ObserverDeframer`] calling `observer` with each verified payload.
    fn observed<C: Fn(&[u8])>(self, observer: C) -> ObserverDeframer<Self, C> {
        ObserverDeframer::new(self, observer)
    }

    /// Wraps `self` in a [`ValidatingDeframer`] applying `validator` to each verified payload.
    fn validated<V: Validator>(self, validator: V) -> ValidatingDeframer<Self, V> {
        ValidatingDeframer::new(self, validator)
    }
}

impl<D: Deframer> DeframerExt for D {}
