//! Checksum algorithms for flatstream frames: XXH3-64, CRC-32, CRC-16/XMODEM and CRC-32C, one
//! cargo feature each, all off by default, so a build compiles only the algorithm it uses.
//!
//! A checksummed frame carries the checksum of its payload between the length prefix and the
//! payload, little-endian, in as many bytes as the algorithm is wide:
//!
//! ```text
//! +-------------+-----------------------------+------------------------------+
//! | len: u32 LE | checksum of payload, LE     | payload: a plain FlatBuffer  |
//! | 4 bytes     | 8 (XxHash64), 4 (Crc32,     | len bytes                    |
//! |             | Crc32c) or 2 (Crc16) bytes  |                              |
//! +-------------+-----------------------------+------------------------------+
//! ```
//!
//! The checksum covers the payload only. These are the bytes FlatStream 0.2.x writes with
//! `XxHash64`, `Crc32` and `Crc16`; `Crc32c` is new.
//!
//! Each algorithm implements [`Checksum`] and plugs into `ChecksumFramer<C>` (writing) and
//! `ChecksumDeframer<C>` (reading and verifying):
//!
//! ```
//! # #[cfg(feature = "xxhash")]
//! # fn main() -> Result<(), flatstream::Error> {
//! use flatstream::checksum::XxHash64;
//! use flatstream::{ChecksumDeframer, ChecksumFramer, StreamReader, StreamWriter};
//!
//! let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
//! writer.write(&"checked")?;
//! let bytes = writer.into_inner();
//! assert_eq!(bytes.len(), 4 + 8 + 16); // length, XXH3-64, a 16-byte FlatBuffer
//!
//! let mut reader = StreamReader::new(&bytes[..], ChecksumDeframer::new(XxHash64::new()));
//! let payload = reader.read_message()?.expect("one frame");
//! assert_eq!(flatstream::flatbuffers::root::<&str>(payload)?, "checked");
//! # Ok(())
//! # }
//! # #[cfg(not(feature = "xxhash"))]
//! # fn main() {}
//! ```
//!
//! # Features
//!
//! | feature | what it adds | dependency | changes the bytes on the wire |
//! |---|---|---|---|
//! | `xxhash64` (or `xxhash`, its 0.2.x name) | [`XxHash64`] (XXH3-64: XXH3, not XXH64) | xxhash-rust | only in streams framed with it |
//! | `crc32` | [`Crc32`] (CRC-32/ISO-HDLC) | crc32fast | only in streams framed with it |
//! | `crc16` | [`Crc16`] (CRC-16/XMODEM) | crc | only in streams framed with it |
//! | `crc32c` | [`Crc32c`] (CRC-32C) | flatstream-crc32c (crc) | only in streams framed with it |
//! | `all` | all four | | no |
//! | `std` | run-time CPU detection, for `Crc32` (if `crc32` is on) and `Crc32c` (crc-fast, if `crc32c` is on) | crc-fast with `crc32c` | no |
//!
//! No feature is on by default. The crate is `#![no_std]`, and so are its dependencies
//! without `std`; [`ChecksumKind`], [`AnyChecksum`] and the re-exported [`Checksum`] and
//! [`NoChecksum`] are always there. `Crc32c` runs on slicing-by-16 tables without `std` and on
//! crc-fast, which picks the CPU's CRC-32C and carry-less multiplication instructions at run
//! time, with it; both give the same values. `std` only adds to the algorithms that are on: on
//! its own it compiles nothing more. The `flatstream` facade has the same algorithm features
//! (`all_checksums` for all) and turns `std` on with its own default `std`.
//!
//! # Choosing an algorithm
#![doc = include_str!("algorithms.md")]
//!
//! # The algorithm is not in the stream
//!
//! Nothing in a frame says which algorithm wrote it, or whether it has a checksum at all:
//! the reader must be set up with the algorithm the writer used. If it is not, the first frame
//! fails verification and the reader returns `Error::ChecksumMismatch` with that frame's
//! offset (0), handing out no payload:
//!
//! * an algorithm of the same width (`Crc32` and `Crc32c`) computes a different value for the
//!   same payload;
//! * an algorithm of another width takes the wrong bytes for the checksum field and the
//!   payload, and their checksum does not match either. (If the misread frame would run past
//!   the end of the data, the error is `UnexpectedEof` or `FrameTooLarge` instead, at the same
//!   offset.)
//!
//! Two cases to know about. The CRCs here all give 0 for an empty payload, so a frame with an
//! empty payload verifies under `Crc32` and `Crc32c` alike (what it hands out, nothing, is
//! right); the first non-empty frame then fails. And a reader with **no** checksum
//! (`DefaultDeframer`) cannot notice anything: it hands out the checksum bytes as the start of
//! each payload, which FlatBuffers verification will most likely reject.
//!
//! So record the algorithm beside the stream (in a file name, a header message of your own,
//! or configuration) and parse it with [`ChecksumKind`]. Where it was not recorded, [`detect`]
//! tells it from the stream's leading frames (the rule of `flatstream inspect` and of the SQL
//! table provider), or says why it cannot. The crate's tests
//! (`tests/corruption.rs`) check each of these cases for every pair of algorithms.
//!
//! # Choosing at run time
//!
//! [`AnyChecksum`] is one type for every enabled algorithm, built from a [`ChecksumKind`]
//! parsed from a name (it costs a few nanoseconds per frame over a static type;
//! [`ChecksumKind::dispatch`] runs generic code with the static type instead):
//!
//! ```
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use flatstream::checksum::AnyChecksum;
//! use flatstream::{ChecksumDeframer, ChecksumFramer, StreamReader, StreamWriter};
//!
//! let flag = "none"; // e.g. the value of `--checksum`
//! let checksum: AnyChecksum = flag.parse()?;
//!
//! let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum));
//! writer.write_payload(b"payload")?;
//! let bytes = writer.into_inner();
//!
//! let mut reader = StreamReader::new(&bytes[..], ChecksumDeframer::new(checksum));
//! assert_eq!(reader.read_message()?, Some(&b"payload"[..]));
//! # Ok(())
//! # }
//! ```

#![no_std]
#![forbid(unsafe_code)]
#![warn(clippy::cast_possible_truncation)]
#![cfg_attr(docsrs, feature(doc_cfg))]

// Detection's results: `flatstream-core` needs `alloc` already.
extern crate alloc;
#[cfg(test)]
extern crate std;

/// Implements `new` and [`Checksum`] for one of the algorithms: a unit struct, the width of its
/// field, and the expression computing it over `payload` (any unsigned integer up to 64 bits).
/// `$inline` is the `calculate` inlining, chosen per algorithm by measurement.
#[allow(unused_macros)] // each algorithm is behind its own feature
macro_rules! algorithm {
    ($ty:ident, $size:literal, #[$inline:meta], |$payload:ident| $calculate:expr) => {
        impl $ty {
            #[doc = concat!("Returns `", stringify!($ty), "`.")]
            pub const fn new() -> Self {
                $ty
            }
        }

        impl flatstream_core::Checksum for $ty {
            const SIZE: usize = $size;

            #[inline(always)]
            fn size(&self) -> usize {
                $size
            }

            #[$inline]
            fn calculate(&self, $payload: &[u8]) -> u64 {
                u64::from($calculate)
            }
        }
    };
}

#[cfg(feature = "crc16")]
mod crc16;
#[cfg(feature = "crc32")]
mod crc32;
#[cfg(feature = "crc32c")]
mod crc32c;
mod detect;
mod kind;
#[cfg(feature = "xxhash")]
mod xxhash;

#[cfg(feature = "crc16")]
#[cfg_attr(docsrs, doc(cfg(feature = "crc16")))]
pub use crc16::Crc16;
#[cfg(feature = "crc32")]
#[cfg_attr(docsrs, doc(cfg(feature = "crc32")))]
pub use crc32::Crc32;
#[cfg(feature = "crc32c")]
#[cfg_attr(docsrs, doc(cfg(feature = "crc32c")))]
pub use crc32c::Crc32c;
pub use detect::{Ambiguity, DETECT_FRAMES, DETECT_HEAD_LEN, Detection, Trial, TrialEnd, detect};
pub use flatstream_core::{Checksum, NoChecksum};
pub use kind::{AnyChecksum, ChecksumKind, ChecksumKindError, WithChecksum};
#[cfg(feature = "xxhash")]
#[cfg_attr(docsrs, doc(cfg(feature = "xxhash")))]
pub use xxhash::XxHash64;
