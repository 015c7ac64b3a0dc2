//! Typed reading without verification: the one module of flatstream-adapters with `unsafe`
//! code, behind the `unchecked` feature.

#![allow(unsafe_code)]

use crate::typed::StreamDeserialize;
use flatstream_core::{IntoControlFlow, MessageReader, Result};

/// Typed reading that skips the FlatBuffers verifier, for streams you wrote yourself and trust
/// (enabled by the `unchecked` feature).
///
/// On a telemetry reading (a 48-byte FlatBuffer), verification is most of the cost of a typed
/// read; see `adapters/read/typed` against `adapters/read/typed-unchecked` in the benchmarks.
///
/// **Never use it on data that could be corrupt or hostile**: a payload that is not a valid `T`
/// makes the generated accessors read out of bounds, which is undefined behaviour. Frames
/// protected by a checksum are safe from accidental corruption only if every frame was verified
/// (use a `ChecksumDeframer`), and never from a malicious writer.
pub trait UncheckedReaderExt: MessageReader + Sized {
    /// Calls `f` with each payload's root, without verifying it, until the end of the stream or
    /// until `f` returns `ControlFlow::Break(())`.
    ///
    /// # Safety
    ///
    /// Every payload the reader hands out must be a valid FlatBuffer whose root is a `T`, as
    /// `flatbuffers::root` would accept: for example, frames this program wrote itself with
    /// flatc-generated code, read back through a checksummed deframer.
    unsafe fn process_typed_unchecked<T, F, C>(&mut self, mut f: F) -> Result<()>
    where
        T: StreamDeserialize,
        F: for<'a> FnMut(T::Root<'a>) -> Result<C>,
        C: IntoControlFlow,
    {
        self.process_all(|payload| {
            // SAFETY: the caller guarantees that every payload is a valid FlatBuffer whose root
            // is a `T` (this function's contract), which is what `root_unchecked` requires.
            let root = unsafe { flatbuffers::root_unchecked::<T::Root<'_>>(payload) };
            f(root)
        })
    }
}

impl<M: MessageReader> UncheckedReaderExt for M {}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_core::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};

    #[test]
    fn reads_what_was_written_without_verifying() {
        let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
        for word in ["trusted", "stream"] {
            w.write(&word).unwrap();
        }
        let bytes = w.into_inner();
        let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
        let mut words = Vec::new();
        // SAFETY: the stream was written just above, with valid string roots.
        unsafe {
            r.process_typed_unchecked::<&str, _, _>(|s| {
                words.push(s.to_owned());
                Ok(())
            })
        }
        .unwrap();
        assert_eq!(words, ["trusted", "stream"]);
    }
}
