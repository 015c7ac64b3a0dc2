//! The core of flatstream: the wire format, the framing traits, and a zero-copy reader and
//! writer for streams of FlatBuffers messages.
//!
//! ```text
//! +------------+--------------------------+---------------------------+
//! | len: u32 LE| checksum: 0/2/4/8 B, LE  | payload: a plain FlatBuffer|   frame 1
//! +------------+--------------------------+---------------------------+
//! | len: u32 LE| checksum                 | payload                   |   frame 2 ...
//! ```
//!
//! Frames are concatenated with nothing between them. The bytes are those of FlatStream 0.2.x.
//!
//! ```
//! use flatstream_core::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
//!
//! let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
//! for word in ["alpha", "beta", "gamma"] {
//!     writer.write(&word)?;
//! }
//! let bytes = writer.into_inner();
//!
//! let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
//! let mut messages = reader.messages();
//! while let Some(payload) = messages.next()? {
//!     println!("{}", flatbuffers::root::<&str>(payload)?);
//! }
//! # Ok::<(), flatstream_core::Error>(())
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds | changes the bytes on the wire |
//! |---|---|---|---|
//! | `std` | yes | [`StreamWriter`], [`StreamReader`], [`BufStreamReader`], `From<Error> for std::io::Error` | no |
//!
//! Without `std` the crate is `#![no_std]` (it needs `alloc`) and offers the traits, header
//! encoding and parsing ([`FrameHeader`], [`parse_header`]), the [`Frames`] iterator over a byte
//! slice, torn-tail recovery ([`Recover`]) and salvage past corruption ([`Salvage`]) over byte
//! slices, and the [`Error`] type. With `std`, recovery also scans readers and repairs journal
//! files in place.
//!
//! Most users depend on the `flatstream` crate, which re-exports this one together with the
//! checksum algorithms and adapters.

#![cfg_attr(not(test), no_std)]
// Unsafe code is denied (workspace lints), except in `in_memory`, which says why it needs it.
#![deny(unsafe_code)]
#![warn(clippy::cast_possible_truncation)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;

#[cfg(feature = "std")]
mod buf_reader;
mod checksum;
mod error;
mod frame;
mod framer;
mod frames;
#[cfg(feature = "std")]
mod in_memory;
#[cfg(feature = "std")]
mod reader;
mod recovery;
mod salvage;
mod serialize;
#[cfg(feature = "std")]
mod writer;

#[cfg(feature = "std")]
pub use buf_reader::{BufMessages, BufStreamReader};
pub use checksum::{Checksum, NoChecksum};
pub use error::{Error, Result, ValidationFailure};
pub use frame::{
    DEFAULT_MAX_FRAME_LEN, FrameHeader, FrameSpan, LEN_PREFIX_SIZE, MAX_CHECKSUM_SIZE,
    MAX_HEADER_SIZE, Parsed, parse_header, read_checksum, truncate_checksum,
};
pub use framer::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer,
};
pub use frames::Frames;
#[cfg(feature = "std")]
pub use reader::{IntoControlFlow, Messages, StreamReader};
#[cfg(feature = "std")]
pub use recovery::Truncate;
pub use recovery::{Recover, Recovery, StreamEnd};
#[cfg(feature = "std")]
pub use salvage::SalvageReport;
pub use salvage::{Salvage, Salvaged};
pub use serialize::StreamSerialize;
#[cfg(feature = "std")]
pub use writer::{PlainWrites, StreamWriter, VectoredWrites, WriteStrategy};

/// The `flatbuffers` crate this version of flatstream is built against.
pub use flatbuffers;
