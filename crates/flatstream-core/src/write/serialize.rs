//! `StreamSerialize`: how a value of yours becomes a FlatBuffer in a builder.

use crate::error::Result;
use alloc::string::String;
use flatbuffers::{Allocator, FlatBufferBuilder};

/// A value that can serialize itself into a [`FlatBufferBuilder`] and finish the buffer.
///
/// `StreamWriter::write` resets its internal builder, calls `serialize`, and writes the finished
/// buffer. An implementation must call one of the builder's `finish` methods (not
/// `finish_size_prefixed`: the frame already carries the length).
///
/// The method is generic over the builder's allocator, bounded by `'static`. That bound is what
/// lets an implementation call flatc-generated code such as `Telemetry::create(builder, &args)`,
/// which requires the allocator to outlive the builder's lifetime. Implementations may leave the
/// bound out (`fn serialize<A: flatbuffers::Allocator>(…)`), as FlatStream 0.2.x's did.
///
/// # Example
///
/// ```
/// use flatbuffers::FlatBufferBuilder;
/// use flatstream::{Result, StreamSerialize};
///
/// struct Label(String);
///
/// impl StreamSerialize for Label {
///     fn serialize<A: flatbuffers::Allocator>(
///         &self,
///         builder: &mut FlatBufferBuilder<A>,
///     ) -> Result<()> {
///         let text = builder.create_string(&self.0);
///         builder.finish(text, None);
///         Ok(())
///     }
/// }
///
/// let mut builder = FlatBufferBuilder::new();
/// Label("boiler".into()).serialize(&mut builder)?;
/// assert!(!builder.finished_data().is_empty());
/// # Ok::<(), flatstream::Error>(())
/// ```
pub trait StreamSerialize {
    /// Serializes `self` into `builder` and finishes the buffer.
    fn serialize<A: Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()>;
}

/// A string is written as a FlatBuffer whose root is the string.
impl StreamSerialize for str {
    #[inline]
    fn serialize<A: Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        let root = builder.create_string(self);
        builder.finish(root, None);
        Ok(())
    }
}

/// Implements [`StreamSerialize`] for types that serialize as what they dereference to.
macro_rules! serialize_through_deref {
    ($($(#[$attr:meta])* [$($generics:tt)*] $ty:ty;)*) => {$(
        $(#[$attr])*
        impl<$($generics)*> StreamSerialize for $ty {
            #[inline]
            fn serialize<A: Allocator + 'static>(
                &self,
                builder: &mut FlatBufferBuilder<'_, A>,
            ) -> Result<()> {
                (**self).serialize(builder)
            }
        }
    )*};
}

serialize_through_deref! {
    [T: StreamSerialize + ?Sized] &T;
    /// A string is written as a FlatBuffer whose root is the string.
    [] String;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_serialize_as_a_string_root() {
        let mut b = FlatBufferBuilder::new();
        "hello".serialize(&mut b).unwrap();
        let root = flatbuffers::root::<&str>(b.finished_data()).unwrap();
        assert_eq!(root, "hello");

        b.reset();
        String::from("world").serialize(&mut b).unwrap();
        assert_eq!(
            flatbuffers::root::<&str>(b.finished_data()).unwrap(),
            "world"
        );
    }
}
