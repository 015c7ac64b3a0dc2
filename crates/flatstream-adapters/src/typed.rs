//! Typed reading: payloads handed out as flatc-generated root types, verified first.

use core::marker::PhantomData;
use flatbuffers::{Follow, Verifiable, VerifierOptions};
use flatstream_core::{IntoControlFlow, MessageReader, Messages, Result};

/// A FlatBuffers root type that payloads can be read as: the flatc-generated table type, for
/// any lifetime of the payload it borrows.
///
/// flatc's Rust types carry the payload's lifetime (`Telemetry<'buf>`), which a reader must pick
/// anew for every frame; `Root<'buf>` names the type for a given lifetime. Implement it with
/// [`stream_deserialize!`](crate::stream_deserialize) for a generated table:
///
/// ```ignore
/// flatstream::read::stream_deserialize!(Telemetry);
/// // expands to
/// impl flatstream::read::StreamDeserialize for Telemetry<'_> {
///     type Root<'buf> = Telemetry<'buf>;
/// }
/// ```
///
/// The implementing type is only a key: when the generated type lives in another crate (so the
/// orphan rule forbids implementing this trait for it), implement it for a marker of your own:
///
/// ```
/// struct Words; // reads payloads whose root is a string
///
/// impl flatstream::read::StreamDeserialize for Words {
///     type Root<'buf> = &'buf str;
/// }
/// ```
///
/// `from_payload` verifies the payload with the FlatBuffers verifier before handing out the
/// root. For trusted streams, the `unchecked` feature adds a path that skips verification (see
/// the [crate docs](crate#typed-reading)).
pub trait StreamDeserialize {
    /// The root type for a payload borrowed for `'buf`.
    type Root<'buf>: Follow<'buf, Inner = Self::Root<'buf>> + Verifiable + 'buf;

    /// Verifies `payload` within `opts` and returns its root. A failure is
    /// [`Error::InvalidFlatbuffer`](flatstream_core::Error::InvalidFlatbuffer) at offset 0;
    /// the readers stamp it with the frame's offset.
    #[inline]
    fn from_payload<'buf>(payload: &'buf [u8], opts: &VerifierOptions) -> Result<Self::Root<'buf>> {
        Ok(flatbuffers::root_with_opts::<Self::Root<'buf>>(
            opts, payload,
        )?)
    }
}

/// A payload whose root is a string (what `StreamWriter::write(&"…")` writes).
impl StreamDeserialize for &str {
    type Root<'buf> = &'buf str;
}

/// Implements [`StreamDeserialize`] for flatc-generated table types, given by name (or path),
/// without their lifetime parameter.
///
/// ```ignore
/// flatstream::read::stream_deserialize!(Telemetry, my_schema::Heartbeat);
/// ```
#[macro_export]
macro_rules! stream_deserialize {
    ($($($seg:ident)::+),+ $(,)?) => {$(
        impl $crate::StreamDeserialize for $($seg)::+<'_> {
            type Root<'buf> = $($seg)::+<'buf>;
        }
    )+};
}

/// Typed reading on every [`MessageReader`] (`StreamReader`, `BufReadStreamReader`, `Frames`,
/// reclaiming readers): each payload is verified as a `T` and handed out as `T`'s generated
/// type, borrowed from wherever the reader holds it. It runs in the reader's own
/// `process_all` loop.
///
/// A payload that fails verification is reported as
/// [`Error::InvalidFlatbuffer`](flatstream_core::Error::InvalidFlatbuffer) with the frame's
/// offset; the reader has moved past it, so reading again continues with the next frame.
///
/// ```
/// use flatstream::read::TypedReaderExt;
/// use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
///
/// let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
/// writer.write(&"alpha")?;
/// writer.write(&"beta")?;
/// let bytes = writer.into_inner();
///
/// let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
/// let mut words = Vec::new();
/// reader.process_typed::<&str, _, _>(|word| {
///     words.push(word.to_owned());
///     Ok(())
/// })?;
/// assert_eq!(words, ["alpha", "beta"]);
///
/// let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
/// let mut messages = reader.typed_messages::<&str>();
/// assert_eq!(messages.next()?, Some("alpha"));
/// # Ok::<(), flatstream::Error>(())
/// ```
pub trait TypedReaderExt: MessageReader + Sized {
    /// Calls `f` with each payload's root, verified with the default [`VerifierOptions`],
    /// until the end of the stream or until `f` returns `ControlFlow::Break(())`.
    #[inline]
    fn process_typed<T, F, C>(&mut self, f: F) -> Result<()>
    where
        T: StreamDeserialize,
        F: for<'a> FnMut(T::Root<'a>) -> Result<C>,
        C: IntoControlFlow,
    {
        self.process_typed_with::<T, F, C>(&VerifierOptions::default(), f)
    }

    /// As [`process_typed`](Self::process_typed), verifying within `opts`.
    #[inline]
    fn process_typed_with<T, F, C>(&mut self, opts: &VerifierOptions, mut f: F) -> Result<()>
    where
        T: StreamDeserialize,
        F: for<'a> FnMut(T::Root<'a>) -> Result<C>,
        C: IntoControlFlow,
    {
        // The reader's loop stamps a verifier error with the frame's offset, as it does the
        // callback's own errors.
        self.process_all(|payload| f(T::from_payload(payload, opts)?))
    }

    /// A lending iterator over the payloads' roots, verified with the default
    /// [`VerifierOptions`].
    fn typed_messages<T: StreamDeserialize>(&mut self) -> TypedMessages<'_, Self, T> {
        self.typed_messages_with(VerifierOptions::default())
    }

    /// A lending iterator over the payloads' roots, verified within `opts`.
    fn typed_messages_with<T: StreamDeserialize>(
        &mut self,
        opts: VerifierOptions,
    ) -> TypedMessages<'_, Self, T> {
        TypedMessages {
            messages: Messages::new(self),
            opts,
            _root: PhantomData,
        }
    }
}

impl<M: MessageReader> TypedReaderExt for M {}

/// A lending iterator over verified roots, returned by [`TypedReaderExt::typed_messages`]:
/// `while let Some(msg) = messages.next()? { … }`. As [`Messages`], it yields a framing error
/// once and then ends; a root that fails verification is a content error, and the next call
/// goes on with the next frame.
#[derive(Debug)]
pub struct TypedMessages<'r, M, T> {
    messages: Messages<'r, M>,
    opts: VerifierOptions,
    _root: PhantomData<fn() -> T>,
}

impl<M: MessageReader, T: StreamDeserialize> TypedMessages<'_, M, T> {
    /// The next payload's root, or `None` at a clean end of stream and after a framing error.
    ///
    /// # Errors
    ///
    /// As [`Messages::next`], and the verifier's error for a root that fails verification.
    #[allow(clippy::should_implement_trait)] // a lending iterator cannot implement `Iterator`
    #[inline]
    pub fn next(&mut self) -> Result<Option<T::Root<'_>>> {
        let at = self.messages.position();
        match self.messages.next()? {
            None => Ok(None),
            Some(payload) => T::from_payload(payload, &self.opts)
                .map(Some)
                .map_err(|e| e.at_frame(at)),
        }
    }
}
