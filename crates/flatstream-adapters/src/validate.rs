//! The `Validator` trait, the validators that need no schema walk, and the adapters that apply
//! a validator on either side of the stream.

use alloc::boxed::Box;
use alloc::format;
use alloc::vec::Vec;
use core::fmt;
use core::marker::PhantomData;
use flatbuffers::{ForwardsUOffset, Verifiable, Verifier, VerifierOptions};
use flatstream_core::frame::FrameHeader;
use flatstream_core::{Deframer, Error, Framer, Result};

/// Checks a payload's content.
///
/// A validator is applied by [`ValidatingFramer`] on the way out (a payload it rejects never
/// reaches the sink) and by [`ValidatingDeframer`] on the way in (after the checksum, before the
/// user sees the payload). `offset` is the stream offset of the frame; a rejection is reported
/// as [`Error::Validation`], built with [`Error::validation`]`(name, reason, offset)`, so that it
/// names the validator, says why, and points at the frame.
///
/// Validators compose: a tuple of validators, a slice or a `Vec` of them, runs each in order
/// and stops at the first rejection.
///
/// ```
/// use flatstream::adapters::Validator;
/// use flatstream::{Error, Result};
///
/// /// Accepts only payloads whose length is a multiple of 8.
/// struct Aligned8;
///
/// impl Validator for Aligned8 {
///     fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
///         if payload.len() % 8 == 0 {
///             Ok(())
///         } else {
///             Err(Error::validation("aligned8", "length is not a multiple of 8", offset))
///         }
///     }
/// }
///
/// let err = Aligned8.validate(&[0; 12], 40).unwrap_err();
/// assert_eq!(err.to_string(), "validation failed for frame at offset 40: aligned8: length is not a multiple of 8");
/// ```
pub trait Validator {
    /// Accepts `payload`, or rejects it with [`Error::Validation`] at `offset`.
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()>;
}

impl<V: Validator + ?Sized> Validator for &V {
    #[inline]
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        (**self).validate(payload, offset)
    }
}

impl<V: Validator + ?Sized> Validator for Box<V> {
    #[inline]
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        (**self).validate(payload, offset)
    }
}

/// Runs every validator in order; the first rejection wins.
impl<V: Validator> Validator for [V] {
    #[inline]
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        self.iter().try_for_each(|v| v.validate(payload, offset))
    }
}

/// Runs every validator in order; the first rejection wins.
impl<V: Validator> Validator for Vec<V> {
    #[inline]
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        self.as_slice().validate(payload, offset)
    }
}

macro_rules! tuple_validator {
    ($($name:ident)+) => {
        /// A composite: runs each validator in order; the first rejection wins.
        impl<$($name: Validator),+> Validator for ($($name,)+) {
            #[inline]
            #[allow(non_snake_case)]
            fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
                let ($($name,)+) = self;
                $($name.validate(payload, offset)?;)+
                Ok(())
            }
        }
    };
}
tuple_validator!(A);
tuple_validator!(A B);
tuple_validator!(A B C);
tuple_validator!(A B C D);
tuple_validator!(A B C D E);
tuple_validator!(A B C D E G);

/// Accepts everything and costs nothing: the default when no validation is wanted.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct NoValidator;

impl Validator for NoValidator {
    #[inline(always)]
    fn validate(&self, _payload: &[u8], _offset: u64) -> Result<()> {
        Ok(())
    }
}

/// Accepts payloads whose length lies in `min..=max` bytes. Named `"size"` in errors.
///
/// ```
/// use flatstream::adapters::{SizeValidator, Validator};
///
/// let v = SizeValidator::new(8, 64);
/// assert!(v.validate(&[0; 8], 0).is_ok());
/// let err = v.validate(&[0; 65], 12).unwrap_err();
/// assert_eq!(err.to_string(), "validation failed for frame at offset 12: size: payload of 65 bytes is over the maximum of 64");
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SizeValidator {
    min: usize,
    max: usize,
}

impl SizeValidator {
    /// Accepts payloads of `min` to `max` bytes, both included.
    pub const fn new(min: usize, max: usize) -> Self {
        SizeValidator { min, max }
    }

    /// Accepts payloads of at most `max` bytes.
    pub const fn max(max: usize) -> Self {
        SizeValidator { min: 0, max }
    }

    /// Accepts payloads of at least `min` bytes.
    pub const fn min(min: usize) -> Self {
        SizeValidator {
            min,
            max: usize::MAX,
        }
    }
}

impl Validator for SizeValidator {
    #[inline]
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        let len = payload.len();
        if len < self.min || len > self.max {
            return Err(self.reject(len, offset));
        }
        Ok(())
    }
}

impl SizeValidator {
    #[cold]
    #[inline(never)]
    fn reject(&self, len: usize, offset: u64) -> Error {
        let reason = if len < self.min {
            format!(
                "payload of {len} bytes is under the minimum of {}",
                self.min
            )
        } else {
            format!("payload of {len} bytes is over the maximum of {}", self.max)
        };
        Error::validation("size", reason, offset)
    }
}

/// Accepts payloads that the FlatBuffers verifier accepts as a root of the flatc-generated type
/// `T`, within the [`VerifierOptions`] limits. Named `"typed"` in errors; the reason names the
/// type (without its module path) and carries the verifier's report.
///
/// This is exact: every field, nested table, vector, string and union of the schema is checked.
/// When the schema is not known, see [`StructuralValidator`](crate::StructuralValidator).
///
/// ```
/// use flatstream::adapters::{TypedValidator, Validator};
///
/// let mut builder = flatbuffers::FlatBufferBuilder::new();
/// let s = builder.create_string("hello");
/// builder.finish(s, None);
///
/// let v = TypedValidator::<&str>::new();
/// assert!(v.validate(builder.finished_data(), 0).is_ok());
/// assert!(v.validate(&[0xFF; 8], 0).is_err());
/// ```
pub struct TypedValidator<T> {
    opts: VerifierOptions,
    _root: PhantomData<fn() -> T>,
}

impl<T: Verifiable> TypedValidator<T> {
    /// A validator with the verifier's default limits.
    pub fn new() -> Self {
        Self::with_options(VerifierOptions::default())
    }

    /// A validator with the given limits (depth, tables, apparent size).
    pub fn with_options(opts: VerifierOptions) -> Self {
        TypedValidator {
            opts,
            _root: PhantomData,
        }
    }

    /// The verifier's limits.
    pub fn options(&self) -> &VerifierOptions {
        &self.opts
    }
}

impl<T: Verifiable> Default for TypedValidator<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> Clone for TypedValidator<T> {
    fn clone(&self) -> Self {
        TypedValidator {
            opts: self.opts.clone(),
            _root: PhantomData,
        }
    }
}

impl<T> fmt::Debug for TypedValidator<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TypedValidator")
            .field("root", &core::any::type_name::<T>())
            .field("opts", &self.opts)
            .finish()
    }
}

impl<T: Verifiable> Validator for TypedValidator<T> {
    #[inline]
    fn validate(&self, payload: &[u8], offset: u64) -> Result<()> {
        let mut verifier = Verifier::new(&self.opts, payload);
        <ForwardsUOffset<T>>::run_verifier(&mut verifier, 0)
            .map_err(|e| typed_rejection::<T>(&e, offset))
    }
}

#[cold]
#[inline(never)]
fn typed_rejection<T>(e: &flatbuffers::InvalidFlatbuffer, offset: u64) -> Error {
    // The verifier's report spans lines (an error trace); keep it on one.
    let report = format!("{e}");
    let report: alloc::vec::Vec<&str> = report.split_whitespace().collect();
    let reason = format!(
        "not a valid {}: {}",
        short_type_name::<T>(),
        report.join(" ")
    );
    Error::validation("typed", reason, offset)
}

/// `my_crate::schema::Telemetry<'_>` as `Telemetry<'_>`.
fn short_type_name<T>() -> &'static str {
    let full = core::any::type_name::<T>();
    let path_end = full.find('<').unwrap_or(full.len());
    let start = full[..path_end].rfind("::").map_or(0, |i| i + 2);
    &full[start..]
}

/// Validates each payload before the wrapped framer frames it: a payload the validator rejects
/// is refused with [`Error::Validation`] and nothing of it reaches the sink.
///
/// ```
/// use flatstream::adapters::{SizeValidator, ValidatingFramer};
/// use flatstream::{DefaultFramer, StreamWriter};
///
/// let framer = ValidatingFramer::new(DefaultFramer, SizeValidator::new(1, 4));
/// let mut writer = StreamWriter::new(Vec::new(), framer);
/// assert!(writer.write_payload(b"").is_err());
/// writer.write_payload(b"ok")?;
/// assert_eq!(writer.into_inner(), b"\x02\x00\x00\x00ok");
/// # Ok::<(), flatstream::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ValidatingFramer<F, V> {
    inner: F,
    validator: V,
}

/// Validates each payload after the wrapped deframer has verified it (checksum included) and
/// before the reader hands it out. A rejected frame is reported as [`Error::Validation`]; it
/// was read whole, so the reader moves past it and the next call returns the next frame.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct ValidatingDeframer<D, V> {
    inner: D,
    validator: V,
}

wrapper_common! {
    ValidatingFramer<F>, ValidatingDeframer<D>; validator: V: Validator => V::validate,
    "validator", "Wraps `inner`, applying `validator` to each payload."
}
