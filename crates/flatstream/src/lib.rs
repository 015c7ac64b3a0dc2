//! Zero-copy framing for streams of FlatBuffers messages, over files, sockets and byte slices.
//!
//! ```text
//! +-------------+-------------------------------+----------------------------+
//! | len: u32 LE | checksum: 0, 2, 4 or 8 B, LE  | payload: a plain FlatBuffer |  frame
//! +-------------+-------------------------------+----------------------------+
//! ```
//!
//! Frames follow each other with nothing in between; the bytes are those of FlatStream 0.2.x
//! (see `docs/wire-format.md`). Writers serialize into a reused `FlatBufferBuilder` and copy
//! nothing after serialization; readers hand out each payload as a `&[u8]` borrowed from their
//! buffer, reject a hostile length before allocating, and never panic on bad input.
//!
//! ```
//! use flatstream::{DefaultDeframer, DefaultFramer, StreamReader, StreamWriter};
//!
//! // Write: any `std::io::Write` (wrap files and sockets in a `BufWriter`).
//! let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
//! writer.write(&"first reading")?;
//! writer.write(&"second reading")?;
//! let bytes = writer.into_inner();
//!
//! // Read: any `std::io::Read`; the reader buffers by itself.
//! let mut reader = StreamReader::new(&bytes[..], DefaultDeframer).with_max_frame_len(1 << 20);
//! let mut count = 0;
//! reader.process_all(|payload| {
//!     let text = flatbuffers::root::<&str>(payload)?; // verify, then read in place
//!     assert!(text.ends_with("reading"));
//!     count += 1;
//!     Ok(())
//! })?;
//! assert_eq!(count, 2);
//! # Ok::<(), flatstream::Error>(())
//! ```
//!
//! # The parts
//!
//! - Writing: [`StreamWriter`] with [`write`](StreamWriter::write) (simple mode: a
//!   [`StreamSerialize`] value into the writer's reused builder),
//!   [`write_finished`](StreamWriter::write_finished) (expert mode: your own builders) and
//!   [`write_payload`](StreamWriter::write_payload). It and `AsyncStreamWriter` drive one
//!   sans-I/O [`WriterCore`]: the same byte count, bound, receipts and torn-frame tracking.
//! - Reading: [`StreamReader`] over any `Read` ([`read_message`](StreamReader::read_message),
//!   [`process_all`](StreamReader::process_all), [`messages`](StreamReader::messages)), with no
//!   copy at all over `&[u8]` or a `Cursor`; [`BufReadStreamReader`], the same over a `BufRead`,
//!   parsing in the source's own buffer (a `BufReader`'s, say); and [`Frames`] over a byte slice
//!   such as a memory-mapped file. All implement [`MessageReader`], and all drive the one
//!   sans-I/O [`decode::Decoder`], which a driver of your own can use too.
//! - Async, with the `tokio` feature: `FrameCodec` for tokio-util's `FramedRead`/`FramedWrite`
//!   (each payload a `bytes::Bytes` another task can own), `AsyncStreamReader` and
//!   `AsyncStreamWriter` with the sync vocabulary.
//! - The wire layout: [`frame`] (header encoding, sizes, the default bound).
//! - Framing: [`DefaultFramer`] / [`DefaultDeframer`] (no checksum) and [`ChecksumFramer`] /
//!   [`ChecksumDeframer`] with a [`Checksum`]: `XxHash64` (feature `xxhash64`), `Crc32`,
//!   `Crc16`, `Crc32c` (one feature each), [`AnyChecksum`] to choose at run time.
//! - Adapters: observers, validation ([`ValidatingDeframer`],
//!   [`StructuralValidator`]), typed reading ([`TypedReaderExt`]), buffer reclamation
//!   ([`Reclaiming`]).
//! - Paths: every item is at the crate's root. The framing and checksum items are also in the
//!   modules [`framing`] and [`checksum`], the paths FlatStream 0.2.x code uses, and the
//!   `tokio` feature's codec builder is in `codec` (see `docs/migrating.md`).
//! - Journals: sync policies chosen in the writer's type ([`StreamWriter::with_sync`]:
//!   [`SyncEveryFrames`], [`SyncEveryBytes`], [`SyncInterval`]; [`NeverSync`] by default),
//!   [`StreamWriter::sync`] and the durable watermark ([`StreamWriter::durable`], published with
//!   a [`WatermarkFile`]), frame [`Receipt`]s ([`StreamWriter::write_with_receipt`]), positioned
//!   reads ([`FrameAt`]), and a [`Follower`] of a file another process appends to.
//! - After a crash or damage: [`Recover`] finds the intact prefix of a stream and repairs a
//!   journal with a torn tail; [`Salvage`] keeps every intact frame of a damaged checksummed
//!   stream, skipping the damage (see `docs/robustness.md`).
//! - Splitting: [`SplitFrames`] reads the frames that start in one byte range of a checksummed
//!   stream, for workers that each take a range; `ParallelFrames` (feature `rayon`) reads a
//!   byte slice on all cores through such splits (see `docs/design.md`); `MappedFile`
//!   (feature `mmap`) gives a file's bytes as that slice, without `unsafe` in your code.
//! - Errors: one [`Error`] enum; every variant carries the offset of the frame concerned.
//!
//! # Features
//!
//! | feature | default | what it adds | changes the bytes on the wire |
//! |---|---|---|---|
//! | `std` | yes | [`StreamWriter`], [`StreamReader`], [`BufReadStreamReader`], I/O errors; run-time CPU detection for the CRC features that are on (crc-fast for `Crc32c`, which runs on tables without `std`) | no |
//! | `xxhash64` (or `xxhash`, its 0.2.x name) | no | `XxHash64` (XXH3-64: XXH3, not XXH64; 8 bytes) | only in streams framed with it |
//! | `crc32` | no | `Crc32` (CRC-32/ISO-HDLC, 4 bytes) | only in streams framed with it |
//! | `crc16` | no | `Crc16` (CRC-16/XMODEM, 2 bytes) | only in streams framed with it |
//! | `crc32c` | no | `Crc32c` (CRC-32C, 4 bytes) | only in streams framed with it |
//! | `all_checksums` | no | all four | only in streams framed with them |
//! | `bytes` | no | `BytesFrames`: the frames of a `bytes::Bytes`, each payload a `Bytes` sharing its buffer (`Send + 'static`); keeps `no_std` | no |
//! | `tokio` | no | `FrameCodec` (tokio-util's `Decoder`/`Encoder`, payloads as `Bytes`), `AsyncStreamReader`, `AsyncStreamWriter` (the `flatstream-tokio` crate) | no |
//! | `rayon` | no | `ParallelFrames`: a byte slice (a memory-mapped file) read on all cores through [`SplitFrames`], unordered or in stream order | no |
//! | `mmap` | no | `MappedFile`: a file's bytes as a `&[u8]`, memory-mapped (memmap2) where possible, read into memory where not; its one risk is documented on it | no |
//! | `unchecked` | no | `UncheckedReaderExt`: typed reading without verification, an `unsafe fn` for trusted data only | no |
//!
//! A capture on disk, read on all cores (features `mmap`, `rayon` and `xxhash`): `MappedFile`
//! maps it (or reads it into memory where it cannot be mapped, such as a pipe), and
//! `ParallelFrames` reads the bytes.
//!
//! ```
//! # #[cfg(all(feature = "mmap", feature = "rayon", feature = "xxhash"))]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use flatstream::{ChecksumDeframer, ChecksumFramer, MappedFile, ParallelFrames};
//! use flatstream::{StreamWriter, XxHash64};
//! # let dir = std::env::temp_dir().join(format!("flatstream-doc-{}", std::process::id()));
//! # std::fs::create_dir_all(&dir)?;
//! # let path = dir.join("capture.fs");
//!
//! let mut writer = StreamWriter::new(std::fs::File::create(&path)?, ChecksumFramer::new(XxHash64));
//! for i in 0..10_000u32 {
//!     writer.write_payload(&i.to_le_bytes())?;
//! }
//! writer.flush()?;
//!
//! let file = MappedFile::open(&path)?;
//! let sum = ParallelFrames::new(&file, ChecksumDeframer::new(XxHash64)).fold(
//!     || 0u64,
//!     |sum, payload| {
//!         *sum += u64::from(u32::from_le_bytes(payload.try_into().expect("4 bytes")));
//!         Ok(())
//!     },
//!     |a, b| a + b,
//! )?;
//! assert_eq!(sum, (0..10_000u64).sum());
//! # drop(file);
//! # std::fs::remove_dir_all(dir)?;
//! # Ok(())
//! # }
//! # #[cfg(not(all(feature = "mmap", feature = "rayon", feature = "xxhash")))]
//! # fn main() {}
//! ```
//!
//! Without `std`, the crate is `#![no_std]` with `alloc`: the traits, the wire layout, the
//! decoder, [`Frames`], recovery and salvage over slices, the checksums, and the errors.
//! Embedded builds that want the least code can depend on `flatstream-core` alone.

#![no_std]
#![forbid(unsafe_code)]
#![warn(clippy::cast_possible_truncation)]
#![cfg_attr(docsrs, feature(doc_cfg))]

#[cfg(feature = "unchecked")]
pub use flatstream_adapters::UncheckedReaderExt;
pub use flatstream_adapters::{
    DeframerExt, FramerExt, NoReclaim, NoValidator, ObserverDeframer, ObserverFramer,
    ReclaimPolicy, ShrinkAbove, ShrinkAfter, SizeValidator, StructuralValidator, TypedValidator,
    ValidatingDeframer, ValidatingFramer, Validator,
};
#[cfg(feature = "std")]
pub use flatstream_adapters::{
    ReclaimExt, Reclaiming, StreamDeserialize, TypedMessages, TypedReaderExt, stream_deserialize,
};
#[cfg(feature = "crc16")]
pub use flatstream_checksum::Crc16;
#[cfg(feature = "crc32")]
pub use flatstream_checksum::Crc32;
#[cfg(feature = "crc32c")]
pub use flatstream_checksum::Crc32c;
#[cfg(feature = "xxhash")]
pub use flatstream_checksum::XxHash64;
pub use flatstream_checksum::{AnyChecksum, ChecksumKind, ChecksumKindError, WithChecksum};
pub use flatstream_core::*;
#[cfg(feature = "tokio")]
pub use flatstream_tokio::codec;
#[cfg(feature = "tokio")]
pub use flatstream_tokio::{AsyncStreamReader, AsyncStreamWriter, AsyncSyncSink, FrameCodec};

/// The framing strategies, under the path FlatStream 0.2.x gave them (`flatstream::framing::`):
/// the same items as at the crate's root. See `docs/migrating.md`.
pub mod framing {
    pub use flatstream_adapters::{
        DeframerExt, FramerExt, ObserverDeframer, ObserverFramer, ValidatingDeframer,
        ValidatingFramer,
    };
    pub use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
    pub use flatstream_core::{
        ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer,
    };
}

/// The checksum trait and algorithms, under the path FlatStream 0.2.x gave them
/// (`flatstream::checksum::`): the same items as at the crate's root. See `docs/migrating.md`.
pub mod checksum {
    #[cfg(feature = "crc16")]
    pub use flatstream_checksum::Crc16;
    #[cfg(feature = "crc32")]
    pub use flatstream_checksum::Crc32;
    #[cfg(feature = "crc32c")]
    pub use flatstream_checksum::Crc32c;
    #[cfg(feature = "xxhash")]
    pub use flatstream_checksum::XxHash64;
    pub use flatstream_checksum::{AnyChecksum, ChecksumKind};
    pub use flatstream_core::{Checksum, NoChecksum};
}

/// The Rust examples of README.md, compiled and run as doctests.
#[cfg(all(doctest, feature = "std", feature = "xxhash", feature = "tokio"))]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
