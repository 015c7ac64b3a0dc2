//! Choosing the algorithm at run time: `ChecksumKind` names an algorithm, `AnyChecksum` is a
//! `Checksum` that can be any of the enabled ones.

use core::fmt;
use core::str::FromStr;
use flatstream_core::{Checksum, NoChecksum};

#[cfg(feature = "crc16")]
use crate::Crc16;
#[cfg(feature = "crc32")]
use crate::Crc32;
#[cfg(feature = "crc32c")]
use crate::Crc32c;
#[cfg(feature = "xxhash")]
use crate::XxHash64;

/// The name of a checksum algorithm, whether or not this build includes it.
///
/// Parse it from configuration or a command-line flag, then turn it into an [`AnyChecksum`]
/// (which fails if the algorithm's feature is off). Names are matched without regard to case;
/// [`Display`](fmt::Display) writes the canonical name.
///
/// | variant | canonical name | also accepted | checksum field |
/// |---|---|---|---|
/// | `None` | `none` | | 0 bytes |
/// | `XxHash64` | `xxhash64` | `xxh3`, `xxh3-64`, `xxhash` | 8 bytes |
/// | `Crc32` | `crc32` | `crc-32` | 4 bytes |
/// | `Crc16` | `crc16` | `crc-16`, `xmodem` | 2 bytes |
/// | `Crc32c` | `crc32c` | `crc-32c`, `castagnoli` | 4 bytes |
///
/// ```
/// use flatstream::checksum::ChecksumKind;
///
/// let kind: ChecksumKind = "CRC32C".parse()?;
/// assert_eq!(kind, ChecksumKind::Crc32c);
/// assert_eq!(kind.to_string(), "crc32c");
/// assert_eq!(kind.size(), 4);
/// assert!("md5".parse::<ChecksumKind>().is_err());
/// # Ok::<(), flatstream::checksum::ChecksumKindError>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChecksumKind {
    /// No checksum ([`NoChecksum`]): always available.
    #[default]
    None,
    /// XXH3-64 (`XxHash64`), feature `xxhash64`.
    XxHash64,
    /// CRC-32/ISO-HDLC (`Crc32`), feature `crc32`.
    Crc32,
    /// CRC-16/XMODEM (`Crc16`), feature `crc16`.
    Crc16,
    /// CRC-32C (`Crc32c`), feature `crc32c`.
    Crc32c,
}

impl ChecksumKind {
    /// Every algorithm, enabled or not, in a fixed order.
    pub const ALL: [ChecksumKind; 5] = [
        ChecksumKind::None,
        ChecksumKind::XxHash64,
        ChecksumKind::Crc32,
        ChecksumKind::Crc16,
        ChecksumKind::Crc32c,
    ];

    /// The canonical name, as [`Display`](fmt::Display) writes it and `FromStr` reads it.
    pub const fn name(self) -> &'static str {
        match self {
            ChecksumKind::None => "none",
            ChecksumKind::XxHash64 => "xxhash64",
            ChecksumKind::Crc32 => "crc32",
            ChecksumKind::Crc16 => "crc16",
            ChecksumKind::Crc32c => "crc32c",
        }
    }

    /// Width of the checksum field this algorithm writes, in bytes.
    pub const fn size(self) -> usize {
        match self {
            ChecksumKind::None => 0,
            ChecksumKind::XxHash64 => 8,
            ChecksumKind::Crc32 | ChecksumKind::Crc32c => 4,
            ChecksumKind::Crc16 => 2,
        }
    }

    /// The cargo feature of this crate (and of the `flatstream` facade) that compiles the
    /// algorithm in; `None` for [`ChecksumKind::None`], which needs none.
    pub const fn feature(self) -> Option<&'static str> {
        match self {
            ChecksumKind::None => None,
            ChecksumKind::XxHash64 => Some("xxhash64"),
            ChecksumKind::Crc32 => Some("crc32"),
            ChecksumKind::Crc16 => Some("crc16"),
            ChecksumKind::Crc32c => Some("crc32c"),
        }
    }

    /// Whether this build includes the algorithm.
    pub const fn is_enabled(self) -> bool {
        AnyChecksum::new(self).is_ok()
    }

    /// Runs `job` with this algorithm's static type (`XxHash64`, `Crc32`, …, or
    /// [`NoChecksum`]), or fails with [`ChecksumKindError::NotEnabled`] if this build does not
    /// include it.
    ///
    /// The algorithm is decided once, here, and `job` runs with a concrete type: per frame it
    /// costs exactly what the static type costs. The price is code size, since `job` is
    /// compiled once for each enabled algorithm. [`AnyChecksum`] is the opposite trade.
    ///
    /// ```
    /// use flatstream::checksum::{Checksum, ChecksumKind, WithChecksum};
    /// use flatstream::{ChecksumDeframer, Frames, Result};
    ///
    /// /// Counts the frames of a stream, checking each one.
    /// struct CountFrames<'a>(&'a [u8]);
    ///
    /// impl WithChecksum for CountFrames<'_> {
    ///     type Output = Result<usize>;
    ///
    ///     fn with<C: Checksum + Copy + Send + Sync + 'static>(self, checksum: C) -> Result<usize> {
    ///         let mut count = 0;
    ///         for frame in Frames::new(self.0, ChecksumDeframer::new(checksum)) {
    ///             frame?;
    ///             count += 1;
    ///         }
    ///         Ok(count)
    ///     }
    /// }
    ///
    /// let kind: ChecksumKind = "none".parse()?; // e.g. from `--checksum none`
    /// let stream = [1, 0, 0, 0, 42, 0, 0, 0, 0];
    /// assert_eq!(kind.dispatch(CountFrames(&stream))??, 2);
    /// # Ok::<(), Box<dyn std::error::Error>>(())
    /// ```
    pub fn dispatch<W: WithChecksum>(self, job: W) -> Result<W::Output, ChecksumKindError> {
        match self {
            ChecksumKind::None => Ok(job.with(NoChecksum)),
            #[cfg(feature = "xxhash")]
            ChecksumKind::XxHash64 => Ok(job.with(XxHash64)),
            #[cfg(feature = "crc32")]
            ChecksumKind::Crc32 => Ok(job.with(Crc32)),
            #[cfg(feature = "crc16")]
            ChecksumKind::Crc16 => Ok(job.with(Crc16)),
            #[cfg(feature = "crc32c")]
            ChecksumKind::Crc32c => Ok(job.with(Crc32c)),
            #[allow(unreachable_patterns)]
            kind => Err(ChecksumKindError::NotEnabled { kind }),
        }
    }

    fn aliases(self) -> &'static [&'static str] {
        match self {
            ChecksumKind::None => &[],
            ChecksumKind::XxHash64 => &["xxh3", "xxh3-64", "xxhash"],
            ChecksumKind::Crc32 => &["crc-32"],
            ChecksumKind::Crc16 => &["crc-16", "xmodem"],
            ChecksumKind::Crc32c => &["crc-32c", "castagnoli"],
        }
    }
}

impl fmt::Display for ChecksumKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for ChecksumKind {
    type Err = ChecksumKindError;

    /// Reads a canonical name or an alias (see the table on [`ChecksumKind`]), in any case.
    /// Algorithms whose feature is off parse too; [`AnyChecksum::new`] is where that is
    /// checked.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let s = s.trim();
        ChecksumKind::ALL
            .into_iter()
            .find(|kind| {
                s.eq_ignore_ascii_case(kind.name())
                    || kind.aliases().iter().any(|a| s.eq_ignore_ascii_case(a))
            })
            .ok_or(ChecksumKindError::Unknown)
    }
}

/// Code generic over the checksum algorithm, for [`ChecksumKind::dispatch`] to run with the
/// algorithm chosen at run time.
///
/// A trait rather than a closure because the code must be generic: `with` is compiled once for
/// each enabled algorithm.
pub trait WithChecksum {
    /// What the job returns.
    type Output;

    /// Runs the job with `checksum`, a concrete algorithm type.
    fn with<C: Checksum + Copy + Send + Sync + 'static>(self, checksum: C) -> Self::Output;
}

/// Why a name or a [`ChecksumKind`] could not become a checksum.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum ChecksumKindError {
    /// The name is not one of the names or aliases of [`ChecksumKind`].
    Unknown,
    /// The algorithm exists but this build does not include it: its cargo feature is off.
    NotEnabled {
        /// The algorithm asked for.
        kind: ChecksumKind,
    },
}

impl fmt::Display for ChecksumKindError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ChecksumKindError::Unknown => f.write_str(
                "unknown checksum algorithm: expected none, xxhash64, crc32, crc16 or crc32c",
            ),
            ChecksumKindError::NotEnabled { kind } => write!(
                f,
                "checksum algorithm {kind} is not enabled in this build (cargo feature `{}`)",
                kind.feature().unwrap_or("none")
            ),
        }
    }
}

impl core::error::Error for ChecksumKindError {}

/// A checksum chosen at run time: any algorithm this build includes, or none.
///
/// For tools that open streams written with an algorithm they learn from configuration or a
/// flag: `ChecksumFramer<AnyChecksum>` and `ChecksumDeframer<AnyChecksum>` are single types
/// whatever the algorithm, which keeps such tools simple.
///
/// It costs a few nanoseconds per frame over the static type: the algorithm is looked up for
/// each frame, and the decoder no longer knows the checksum's width at compile time. On small
/// frames that is several times the cost of the checksum itself (the `checksum/read_*/any_*`
/// rows of docs/benchmarks.md). Programs that know their algorithm at compile time should name
/// it (`ChecksumFramer<XxHash64>`), which is the common case; tools that want the static type's
/// speed with a run-time choice can use [`ChecksumKind::dispatch`].
///
/// It writes and verifies exactly the bytes of the static type it stands for, and its default
/// is no checksum.
///
/// ```
/// use flatstream::checksum::{AnyChecksum, Checksum, ChecksumKind, NoChecksum};
///
/// // From a flag such as `--checksum none`:
/// let checksum: AnyChecksum = "none".parse()?;
/// assert_eq!(checksum.kind(), ChecksumKind::None);
/// assert_eq!(checksum.size(), 0);
/// assert_eq!(AnyChecksum::from(NoChecksum), checksum);
/// # Ok::<(), flatstream::checksum::ChecksumKindError>(())
/// ```
///
/// A name this build does not include is an error that says which feature to turn on:
///
/// ```
/// # #[cfg(not(feature = "crc16"))] {
/// use flatstream::checksum::{AnyChecksum, ChecksumKind, ChecksumKindError};
///
/// let err = "crc16".parse::<AnyChecksum>().unwrap_err();
/// assert_eq!(err, ChecksumKindError::NotEnabled { kind: ChecksumKind::Crc16 });
/// # }
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct AnyChecksum(Algorithm);

/// The enabled algorithms: a closed set per build, so that matching on it needs no fallback.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash)]
enum Algorithm {
    #[default]
    None,
    #[cfg(feature = "xxhash")]
    XxHash64,
    #[cfg(feature = "crc32")]
    Crc32,
    #[cfg(feature = "crc16")]
    Crc16,
    #[cfg(feature = "crc32c")]
    Crc32c,
}

impl AnyChecksum {
    /// The checksum for `kind`, or [`ChecksumKindError::NotEnabled`] if this build does not
    /// include it.
    pub const fn new(kind: ChecksumKind) -> Result<Self, ChecksumKindError> {
        let algorithm = match kind {
            ChecksumKind::None => Algorithm::None,
            #[cfg(feature = "xxhash")]
            ChecksumKind::XxHash64 => Algorithm::XxHash64,
            #[cfg(feature = "crc32")]
            ChecksumKind::Crc32 => Algorithm::Crc32,
            #[cfg(feature = "crc16")]
            ChecksumKind::Crc16 => Algorithm::Crc16,
            #[cfg(feature = "crc32c")]
            ChecksumKind::Crc32c => Algorithm::Crc32c,
            #[allow(unreachable_patterns)]
            _ => return Err(ChecksumKindError::NotEnabled { kind }),
        };
        Ok(AnyChecksum(algorithm))
    }

    /// Which algorithm this is.
    pub const fn kind(&self) -> ChecksumKind {
        match self.0 {
            Algorithm::None => ChecksumKind::None,
            #[cfg(feature = "xxhash")]
            Algorithm::XxHash64 => ChecksumKind::XxHash64,
            #[cfg(feature = "crc32")]
            Algorithm::Crc32 => ChecksumKind::Crc32,
            #[cfg(feature = "crc16")]
            Algorithm::Crc16 => ChecksumKind::Crc16,
            #[cfg(feature = "crc32c")]
            Algorithm::Crc32c => ChecksumKind::Crc32c,
        }
    }
}

impl Checksum for AnyChecksum {
    #[inline(always)]
    fn size(&self) -> usize {
        match self.0 {
            Algorithm::None => NoChecksum.size(),
            #[cfg(feature = "xxhash")]
            Algorithm::XxHash64 => XxHash64.size(),
            #[cfg(feature = "crc32")]
            Algorithm::Crc32 => Crc32.size(),
            #[cfg(feature = "crc16")]
            Algorithm::Crc16 => Crc16.size(),
            #[cfg(feature = "crc32c")]
            Algorithm::Crc32c => Crc32c.size(),
        }
    }

    #[inline(always)]
    fn calculate(&self, payload: &[u8]) -> u64 {
        match self.0 {
            Algorithm::None => NoChecksum.calculate(payload),
            #[cfg(feature = "xxhash")]
            Algorithm::XxHash64 => XxHash64.calculate(payload),
            #[cfg(feature = "crc32")]
            Algorithm::Crc32 => Crc32.calculate(payload),
            #[cfg(feature = "crc16")]
            Algorithm::Crc16 => Crc16.calculate(payload),
            #[cfg(feature = "crc32c")]
            Algorithm::Crc32c => Crc32c.calculate(payload),
        }
    }
}

impl fmt::Display for AnyChecksum {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.kind(), f)
    }
}

impl FromStr for AnyChecksum {
    type Err = ChecksumKindError;

    /// Parses a [`ChecksumKind`] name and checks that this build includes it.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        AnyChecksum::new(s.parse()?)
    }
}

impl TryFrom<ChecksumKind> for AnyChecksum {
    type Error = ChecksumKindError;

    fn try_from(kind: ChecksumKind) -> Result<Self, Self::Error> {
        AnyChecksum::new(kind)
    }
}

impl From<AnyChecksum> for ChecksumKind {
    fn from(checksum: AnyChecksum) -> Self {
        checksum.kind()
    }
}

macro_rules! from_static {
    ($($feature:literal $ty:ident),*) => {$(
        #[cfg(feature = $feature)]
        impl From<$ty> for AnyChecksum {
            fn from(_: $ty) -> Self {
                AnyChecksum(Algorithm::$ty)
            }
        }
    )*};
}
from_static!("xxhash" XxHash64, "crc32" Crc32, "crc16" Crc16, "crc32c" Crc32c);

impl From<NoChecksum> for AnyChecksum {
    fn from(_: NoChecksum) -> Self {
        AnyChecksum(Algorithm::None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::string::ToString;

    #[test]
    fn names_round_trip_through_display_and_from_str() {
        for kind in ChecksumKind::ALL {
            assert_eq!(kind.to_string(), kind.name());
            assert_eq!(kind.name().parse::<ChecksumKind>(), Ok(kind));
            assert_eq!(
                kind.name().to_ascii_uppercase().parse::<ChecksumKind>(),
                Ok(kind)
            );
            for alias in kind.aliases() {
                assert_eq!(alias.parse::<ChecksumKind>(), Ok(kind), "{alias}");
            }
        }
        assert_eq!(" crc16 ".parse::<ChecksumKind>(), Ok(ChecksumKind::Crc16));
    }

    #[test]
    fn unknown_names_are_a_typed_error() {
        for bad in ["", "md5", "crc", "crc64", "xxhash32", "crc32cc"] {
            assert_eq!(
                bad.parse::<ChecksumKind>(),
                Err(ChecksumKindError::Unknown),
                "{bad}"
            );
            assert_eq!(
                bad.parse::<AnyChecksum>(),
                Err(ChecksumKindError::Unknown),
                "{bad}"
            );
        }
    }

    #[test]
    fn any_checksum_exists_exactly_for_enabled_features() {
        let enabled = [
            (ChecksumKind::None, true),
            (ChecksumKind::XxHash64, cfg!(feature = "xxhash")),
            (ChecksumKind::Crc32, cfg!(feature = "crc32")),
            (ChecksumKind::Crc16, cfg!(feature = "crc16")),
            (ChecksumKind::Crc32c, cfg!(feature = "crc32c")),
        ];
        for (kind, on) in enabled {
            assert_eq!(kind.is_enabled(), on, "{kind}");
            match AnyChecksum::new(kind) {
                Ok(any) => {
                    assert!(on);
                    assert_eq!(any.kind(), kind);
                    assert_eq!(any.size(), kind.size());
                    assert_eq!(any.to_string(), kind.name());
                    assert_eq!(ChecksumKind::from(any), kind);
                }
                Err(err) => {
                    assert!(!on);
                    assert_eq!(err, ChecksumKindError::NotEnabled { kind });
                    let text = err.to_string();
                    assert!(text.contains(kind.feature().unwrap()), "{text}");
                }
            }
        }
    }

    #[test]
    fn error_messages_are_lowercase_without_trailing_punctuation() {
        let errors = [
            ChecksumKindError::Unknown,
            ChecksumKindError::NotEnabled {
                kind: ChecksumKind::Crc32c,
            },
        ];
        for e in errors {
            let text = e.to_string();
            assert!(text.starts_with(|c: char| c.is_lowercase()), "{text}");
            assert!(!text.ends_with('.'), "{text}");
        }
    }

    struct Describe;

    impl WithChecksum for Describe {
        type Output = (usize, u64);

        fn with<C: Checksum + Copy + Send + Sync + 'static>(self, checksum: C) -> (usize, u64) {
            (checksum.size(), checksum.calculate(b"123456789"))
        }
    }

    #[test]
    fn dispatch_runs_with_the_static_type_of_each_enabled_kind() {
        for kind in ChecksumKind::ALL {
            match (kind.dispatch(Describe), AnyChecksum::new(kind)) {
                (Ok((size, check)), Ok(any)) => {
                    assert_eq!(size, kind.size());
                    assert_eq!(check, any.calculate(b"123456789"));
                }
                (Err(a), Err(b)) => assert_eq!(a, b),
                (a, b) => panic!("{kind}: dispatch {a:?}, AnyChecksum {b:?}"),
            }
        }
    }

    #[test]
    fn default_is_no_checksum() {
        assert_eq!(ChecksumKind::default(), ChecksumKind::None);
        assert_eq!(AnyChecksum::default().kind(), ChecksumKind::None);
        assert_eq!(AnyChecksum::default().calculate(b"abc"), 0);
        assert_eq!(AnyChecksum::from(NoChecksum), AnyChecksum::default());
    }
}
