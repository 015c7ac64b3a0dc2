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
//! use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
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
//! # Ok::<(), flatstream::Error>(())
//! ```
//!
//! # Features
//!
//! | feature | default | what it adds | changes the bytes on the wire |
//! |---|---|---|---|
//! | `std` | yes | [`StreamWriter`], [`StreamReader`], [`BufReadStreamReader`], `From<Error> for std::io::Error` | no |
//! | `bytes` | no | `BytesFrames`: the frames of a `bytes::Bytes`, each payload a `Bytes` sharing its buffer (`Send + 'static`); keeps `no_std` | no |
//! | `rayon` | no | `ParallelFrames`: a byte slice read on all cores through [`SplitFrames`]; implies `std` | no |
//! | `mmap` | no | `MappedFile`: a file's bytes as a `&[u8]`, memory-mapped (memmap2) or read into memory, for [`Frames`] and `ParallelFrames` without `unsafe` in your code; implies `std` | no |
//!
//! Without `std` the crate is `#![no_std]` (it needs `alloc`) and offers the traits, the wire
//! layout ([`frame`]), the sans-I/O [`decode`] module and [`ReadBuffer`], the [`Frames`]
//! iterator over a byte slice,
//! torn-tail recovery ([`Recover`]) and salvage past corruption ([`Salvage`]) over byte slices,
//! and the [`Error`] type. With `std`, recovery also scans readers and repairs journal files in
//! place, and journals get sync policies ([`SyncPolicy`]), receipts ([`Receipt`]), positioned
//! reads ([`FrameAt`]) and a reader of a growing file ([`Follower`]).
//!
//! # How a frame is read
//!
//! [`FrameConfig`] is the one entry: it holds the format, the bound, the read capacity and the
//! reclaim policy, builds every reader and writer, and its documentation has a table of which
//! reader fits which source.
//!
//! One sans-I/O [`decode`] module decides what the bytes at the front of a buffer are: a
//! verified frame, a frame rejected for its content, a frame not all there yet, or a framing
//! error. [`ReadBuffer`] owns the buffer of every reader that copies from a source (the
//! decoding, the position, the growth rule, the reclaim policy), and turns those outcomes into
//! "a frame", "need more bytes, here" or an error; `StreamReader` over a `Read`,
//! [`Follower`] and flatstream-tokio's reader and codec are loops around it. Every reader
//! only moves bytes: [`StreamReader`] (any `Read`, copying
//! into its buffer, or in place over `&[u8]` and `Cursor`), [`BufReadStreamReader`] (in place in
//! a `BufRead`'s buffer), [`Frames`] (a slice; `BytesFrames` with the `bytes` feature),
//! [`Recover`], [`Salvage`] and [`SplitFrames`] (the frames that start in one byte range of a
//! checksummed stream; `ParallelFrames`, feature `rayon`, reads a slice on all cores through
//! such splits). The sequential ones (`StreamReader`, `BufReadStreamReader`, `Frames`,
//! `BytesFrames`, `SplitFrames`) share one surface, [`MessageReader`], and one lending
//! iterator, [`Messages`]; `Recover` and `Salvage` report on a whole stream instead.
//!
//! # How a frame is written
//!
//! One sans-I/O [`WriterCore`] keeps what a writer knows (where the next frame starts, the bound
//! on a payload, the first frame a failed write tore, the durable watermark) and makes every
//! decision from it; it performs no I/O. [`StreamWriter`] drives it over any `Write`, and
//! `flatstream-tokio`'s `AsyncStreamWriter` over any `AsyncWrite`: the same receipts, bound and
//! errors on both.
//!
//! Most users depend on the `flatstream` crate, which re-exports this one together with the
//! checksum algorithms and adapters.

#![cfg_attr(not(test), no_std)]
// Unsafe code is denied (workspace lints), except in `in_memory` (and its `mapped`), which says
// why it needs it.
#![deny(unsafe_code)]
#![warn(clippy::cast_possible_truncation)]
#![cfg_attr(docsrs, feature(doc_cfg))]

extern crate alloc;
#[cfg(all(feature = "std", not(test)))]
extern crate std;

mod config;
mod error;
#[cfg(feature = "std")]
mod in_memory;
#[cfg(feature = "std")]
mod journal;
mod read;
mod repair;
mod split;
#[cfg(test)]
mod testing;
mod wire;
mod write;

pub use wire::{decode, frame};

pub use config::FrameConfig;
pub use error::{Error, ErrorKind, Result, ValidationFailure};
#[cfg(feature = "mmap")]
pub use in_memory::mapped::MappedFile;
#[cfg(feature = "std")]
pub use journal::follow::{Followed, Follower};
#[cfg(feature = "std")]
pub use journal::positioned::FrameAt;
#[cfg(feature = "std")]
pub use journal::watermark::{WatermarkFile, read_watermark};
pub use read::buffer::{DEFAULT_CAPACITY, Next, ReadBuffer, Storage};
#[cfg(feature = "std")]
pub use read::buffered::BufReadStreamReader;
#[cfg(feature = "bytes")]
pub use read::bytes::BytesFrames;
pub use read::reclaim::{NoReclaim, ReclaimPolicy, ShrinkAbove, ShrinkAfter};
pub use read::slice::Frames;
#[cfg(feature = "std")]
pub use read::stream::StreamReader;
pub use read::{IntoControlFlow, MessageReader, Messages};
#[cfg(feature = "std")]
pub use repair::recover::RepairPolicy;
pub use repair::recover::{Recover, Recovery, StreamEnd};
pub use repair::salvage::{Salvage, Salvaged};
#[cfg(feature = "std")]
pub use repair::salvage_report::SalvageReport;
#[cfg(feature = "rayon")]
pub use split::parallel::ParallelFrames;
pub use split::ranges::{DEFAULT_CONFIRMATIONS, SplitFrames};
pub use wire::checksum::{Checksum, NoChecksum};
pub use wire::framing::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer,
};
#[cfg(feature = "std")]
#[cfg(feature = "std")]
pub use write::core::{Receipt, WriterCore};
pub use write::serialize::StreamSerialize;
#[cfg(feature = "std")]
pub use write::sync::{
    NeverSync, PublishWatermark, SyncEveryBytes, SyncEveryFrames, SyncInterval, SyncPolicy,
    SyncSink,
};
#[cfg(feature = "std")]
pub use write::writer::{PlainWrites, StreamWriter, VectoredWrites, WriteStrategy};

/// The `flatbuffers` crate this version of flatstream is built against.
pub use flatbuffers;
