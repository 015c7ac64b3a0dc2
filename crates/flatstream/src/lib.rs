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
//! # Which reader, which writer
//!
//! Every reader below checks the length against its bound before allocating and each checksum
//! before handing out a payload. After an error, every reader of a kind behaves the same: a
//! *framing* error (a bad length, a checksum mismatch, a frame cut short) is returned again by
//! `read_message` (the reader stays at the frame concerned), while an iterator (`messages()`,
//! `Frames`, `SplitFrames`, `BytesFrames`) yields it once and then ends, so a `for` loop that
//! logs and goes on cannot spin. A *content* rejection (a validator, a verifier) skips that
//! one frame everywhere, except in tokio-util's `FramedRead`, which ends its stream at any error
//! of its codec.
//!
//! | source | type | after a framing error |
//! |---|---|---|
//! | any `std::io::Read` (file, socket, `&[u8]`, `Cursor`) | [`StreamReader`] (or [`FrameConfig::reader`]) | `read_message` returns it again; `messages()` yields it once, then ends |
//! | a `BufRead` whose buffer you keep (`BufReader`, stdin lock) | [`read::BufReadStreamReader`] | the same as `StreamReader` |
//! | a byte slice in memory | [`Frames`] | yields it once, then ends (its `read_message` returns it again) |
//! | a file, mapped (feature `mmap`) | `read::MappedFile`, then [`Frames`] over its bytes | as `Frames` |
//! | `bytes::Bytes`, payloads owned (feature `bytes`) | `read::BytesFrames` | as `Frames` |
//! | an `AsyncRead` (feature `tokio`) | `tokio::AsyncStreamReader` (or `AsyncStreamReader::from_config`) | `read_message` returns it again |
//! | tokio-util's `FramedRead` (feature `tokio`) | `tokio::FrameCodec` (`FrameCodec::builder()`, `FrameCodec::from_config`) | yields it once, then `None` |
//! | a file another process appends to | [`journal::Follower`] | waits for the rest of a frame cut short; a corrupt frame is returned again |
//! | frames at known offsets | [`journal::FrameAt`] | the error of that offset only; other offsets read as before |
//! | one byte range of a checksummed stream | [`split::SplitFrames`] | as `Frames` |
//! | a slice on all cores (feature `rayon`) | `split::ParallelFrames` | returns the first error in stream order, as a sequential read would |
//! | a stream to check or repair after a crash | [`repair::Recover`] | reports the intact prefix and where it ends |
//! | a damaged checksummed stream | [`repair::Salvage`] | skips the damage, keeps every intact frame |
//!
//! | sink | type | after an error |
//! |---|---|---|
//! | any `std::io::Write` | [`StreamWriter`] (or [`FrameConfig::writer`]) | a refused payload (over the bound) writes nothing; an I/O error mid-frame is tracked as a torn frame |
//! | an `AsyncWrite` (feature `tokio`) | `tokio::AsyncStreamWriter` | the same core as `StreamWriter` ([`write::WriterCore`]) |
//! | tokio-util's `FramedWrite` (feature `tokio`) | `tokio::FrameCodec` | a payload over the bound is refused and nothing of it is appended |
//! | a journal that must survive a crash | [`StreamWriter::with_sync`] with a [`journal::SyncPolicy`] | as `StreamWriter`; [`StreamWriter::durable`] says what reached the disk |
//!
//! One [`FrameConfig`] (checksum, bound, initial capacity, reclaim policy) builds the sync
//! reader and writer ([`FrameConfig::reader`], [`FrameConfig::writer`]), and with the `tokio`
//! feature the async reader (`AsyncStreamReader::from_config`) and the codec
//! (`FrameCodec::from_config`, or `FrameCodec::builder()` in tokio-util's style).
//!
//! # Paths
//!
//! The root holds what most programs name: the reader, the writer, the framers, the
//! configuration, the errors. The rest lives in a module named for its concern:
//!
//! - [`read`]: the other readers (`BufRead`, `Bytes`, mapped files), [`read::MessageReader`],
//!   the sans-I/O [`read::ReadBuffer`], the reclaim policies, typed reading.
//! - [`write`](mod@write): the sans-I/O [`write::WriterCore`], [`write::Receipt`], write
//!   strategies, a writer that reclaims its builder ([`write::Reclaiming`]).
//! - [`journal`]: sync policies, the durable watermark, positioned reads, following a file.
//! - [`repair`]: recovery after a crash, salvage of damaged streams.
//! - [`split`]: byte-range splits and parallel reading.
//! - [`adapters`]: observers and validation around a framer or deframer.
//! - [`framing`]: the header's layout and sizes, the default bound, and the framers under the
//!   path FlatStream 0.2.x gave them; [`decode`]: the sans-I/O decoder.
//! - [`checksum`]: the checksum trait and algorithms, [`checksum::AnyChecksum`] to choose
//!   one at run time, and [`checksum::detect`] to tell a stream's from its leading frames.
//! - `tokio` (feature `tokio`): the async reader and writer and the tokio-util codec.
//! - `arrow` (feature `arrow`): frames as Arrow record batches through a `.bfbs` schema.
//! - `sql` (feature `sql`): SQL over captures on DataFusion, byte-range partitions, and with
//!   `distributed`, on a datafusion-distributed cluster.
//!
//! Each item has one path, except where code written for FlatStream 0.2.x needs a second: the
//! framers are also in [`framing`], and `XxHash64`, `Crc32` and `Crc16` are also at the root
//! (see `docs/migrating.md`).
//!
//! Errors: reading and writing frames fail with one [`Error`] enum, whose variants about a frame
//! carry its offset. Parsing a checksum's name has its own (`checksum::ChecksumKindError`), and
//! so have the feature modules (`arrow::Error`, `sql::Error`), as the crates they come from do.
//!
//! # Features
//!
//! | feature | default | what it adds | changes the bytes on the wire |
//! |---|---|---|---|
//! | `std` | yes | [`StreamWriter`], [`StreamReader`], [`read::BufReadStreamReader`], I/O errors; run-time CPU detection for the CRC features that are on (crc-fast for `Crc32c`, which runs on tables without `std`) | no |
//! | `xxhash64` (or `xxhash`, its 0.2.x name) | no | `XxHash64` (XXH3-64: XXH3, not XXH64; 8 bytes) | only in streams framed with it |
//! | `crc32` | no | `Crc32` (CRC-32/ISO-HDLC, 4 bytes) | only in streams framed with it |
//! | `crc16` | no | `Crc16` (CRC-16/XMODEM, 2 bytes) | only in streams framed with it |
//! | `crc32c` | no | `Crc32c` (CRC-32C, 4 bytes) | only in streams framed with it |
//! | `all_checksums` | no | all four | only in streams framed with them |
//! | `bytes` | no | `read::BytesFrames`: the frames of a `bytes::Bytes`, each payload a `Bytes` sharing its buffer (`Send + 'static`); keeps `no_std` | no |
//! | `tokio` | no | the `tokio` module: `FrameCodec` (tokio-util's `Decoder`/`Encoder`, payloads as `Bytes`), `AsyncStreamReader`, `AsyncStreamWriter` | no |
//! | `rayon` | no | `split::ParallelFrames`: a byte slice (a memory-mapped file) read on all cores through [`split::SplitFrames`], unordered or in stream order | no |
//! | `mmap` | no | `read::MappedFile`: a file's bytes as a `&[u8]`, memory-mapped (memmap2) where possible, read into memory where not; its one risk is documented on it | no |
//! | `arrow` | no | the `arrow` module: frames as Arrow record batches through a `.bfbs` schema (flatstream-arrow, arrow 59) | no |
//! | `sql` | no | the `sql` module: a DataFusion 55 file format, SQL over files and globs, byte-range partitions (flatstream-datafusion); implies `arrow` and every checksum | no |
//! | `distributed` | no | `sql` on datafusion-distributed: the codec coordinator and workers register | no |
//! | `aws`, `gcp` | no | tables in Amazon S3 (`s3://`) or Google Cloud Storage (`gs://`) for `sql`: object_store's clients | no |
//! | `unchecked` | no | `read::UncheckedReaderExt`: typed reading without verification, an `unsafe fn` for trusted data only | no |
//!
//! A capture on disk, read on all cores (features `mmap`, `rayon` and `xxhash64`): `MappedFile`
//! maps it (or reads it into memory where it cannot be mapped, such as a pipe), and
//! `ParallelFrames` reads the bytes.
//!
//! ```
//! # #[cfg(all(feature = "mmap", feature = "rayon", feature = "xxhash"))]
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! use flatstream::read::MappedFile;
//! use flatstream::split::ParallelFrames;
//! use flatstream::{ChecksumDeframer, ChecksumFramer, StreamWriter, XxHash64};
//!
//! let path = std::env::temp_dir().join(format!("capture-{}.fstream", std::process::id()));
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
//! assert_eq!(sum, (0..10_000u64).sum::<u64>());
//! drop(file); // unmapped before the file is removed
//! std::fs::remove_file(&path)?;
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

pub use flatstream_core::flatbuffers;
pub use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Error, ErrorKind,
    FrameConfig, Framer, Frames, Result, StreamSerialize,
};
#[cfg(feature = "std")]
pub use flatstream_core::{StreamReader, StreamWriter};
// The algorithms FlatStream 0.2.x code reaches through `use flatstream::*`; their canonical
// path is `checksum::`.
#[cfg(feature = "crc16")]
pub use flatstream_checksum::Crc16;
#[cfg(feature = "crc32")]
pub use flatstream_checksum::Crc32;
#[cfg(feature = "xxhash")]
pub use flatstream_checksum::XxHash64;

pub use flatstream_core::decode;

/// Reading: the readers besides [`StreamReader`] and [`Frames`], the [`MessageReader`](read::MessageReader) trait
/// they share, the sans-I/O [`ReadBuffer`](read::ReadBuffer) under every buffered reader and its default
/// capacity, the reclaim policies a buffered reader takes (`with_reclaim`), and typed reading.
pub mod read {
    #[cfg(feature = "unchecked")]
    pub use flatstream_adapters::UncheckedReaderExt;
    #[cfg(feature = "std")]
    pub use flatstream_adapters::{
        StreamDeserialize, TypedMessages, TypedReaderExt, stream_deserialize,
    };
    #[cfg(feature = "std")]
    pub use flatstream_core::BufReadStreamReader;
    #[cfg(feature = "bytes")]
    pub use flatstream_core::BytesFrames;
    #[cfg(feature = "mmap")]
    pub use flatstream_core::MappedFile;
    pub use flatstream_core::{
        DEFAULT_CAPACITY, IntoControlFlow, MessageReader, Messages, Next, NoReclaim, ReadBuffer,
        ReclaimPolicy, ShrinkAbove, ShrinkAfter, Storage,
    };
}

/// Writing: the sans-I/O [`WriterCore`](write::WriterCore) under `StreamWriter` and the async writer, frame
/// [`Receipt`](write::Receipt)s, the write strategies, and [`Reclaiming`](write::Reclaiming), a writer whose builder
/// shrinks back after large messages.
#[cfg(feature = "std")]
pub mod write {
    pub use flatstream_adapters::{ReclaimExt, Reclaiming};
    pub use flatstream_core::{PlainWrites, Receipt, VectoredWrites, WriteStrategy, WriterCore};
}

/// Journals: sync policies chosen in the writer's type (`StreamWriter::with_sync`), the durable
/// watermark, positioned reads, and a follower of a file another process appends to.
#[cfg(feature = "std")]
pub mod journal {
    pub use flatstream_core::{
        Followed, Follower, FrameAt, NeverSync, PublishWatermark, SyncEveryBytes, SyncEveryFrames,
        SyncInterval, SyncPolicy, SyncSink, WatermarkFile, read_watermark,
    };
}

/// After a crash or damage: [`Recover`](repair::Recover) finds the intact prefix of a stream and repairs a
/// journal with a torn tail; [`Salvage`](repair::Salvage) keeps every intact frame of a damaged checksummed
/// stream (see `docs/robustness.md`).
pub mod repair {
    pub use flatstream_core::{Recover, Recovery, Salvage, Salvaged, StreamEnd};
    #[cfg(feature = "std")]
    pub use flatstream_core::{RepairPolicy, SalvageReport};
}

/// Splitting: [`SplitFrames`](split::SplitFrames) reads the frames that start in one byte range of a checksummed
/// stream; `ParallelFrames` (feature `rayon`) reads a slice on all cores through such splits.
pub mod split {
    #[cfg(feature = "rayon")]
    pub use flatstream_core::ParallelFrames;
    pub use flatstream_core::{DEFAULT_CONFIRMATIONS, SplitFrames};
}

/// Around a framer or deframer: observers, validation of each payload.
pub mod adapters {
    pub use flatstream_adapters::{
        DeframerExt, FramerExt, NoValidator, ObserverDeframer, ObserverFramer, SizeValidator,
        StructuralValidator, TypedValidator, ValidatingDeframer, ValidatingFramer, Validator,
    };
    pub use flatstream_core::ValidationFailure;
}

/// The checksum trait and algorithms (`XxHash64` with feature `xxhash64`, `Crc32`, `Crc16`,
/// `Crc32c` with one feature each), [`AnyChecksum`](checksum::AnyChecksum) to choose one at run time, and
/// [`detect`](checksum::detect) to tell a stream's from its leading frames. The path FlatStream 0.2.x gave
/// them.
pub mod checksum {
    pub use flatstream_checksum::*;
}

/// Async framing for tokio (feature `tokio`): `AsyncStreamReader`, `AsyncStreamWriter` and
/// `FrameCodec` for tokio-util's `FramedRead`/`FramedWrite`.
#[cfg(feature = "tokio")]
pub mod tokio {
    pub use flatstream_tokio::*;
}

/// Frames as Apache Arrow record batches (feature `arrow`; the flatstream-arrow crate).
///
/// A binary schema (`.bfbs`, from `flatc -b --schema`) and a root table are compiled once into
/// a [`Plan`](arrow::Plan); its [`Converter`](arrow::Converter) verifies each payload against
/// the schema and appends its row to Arrow builders, reading only the projected columns. The
/// Arrow types are those of the re-exported [`arrow_array`](arrow::arrow_array) and
/// [`arrow_schema`](arrow::arrow_schema) (arrow 59, the version DataFusion 55 uses).
#[cfg(feature = "arrow")]
pub mod arrow {
    pub use flatstream_arrow::*;
}

/// SQL over captures, on Apache DataFusion (feature `sql`; the flatstream-datafusion crate).
///
/// A DataFusion file format for flatstream files: tables registered with
/// [`SessionContextExt::register_flatstream`](sql::SessionContextExt::register_flatstream),
/// `CREATE EXTERNAL TABLE … STORED AS FLATSTREAM`, or paths and globs read as tables; files cut
/// into byte ranges that each read every frame once. The [`datafusion`](sql::datafusion) crate
/// itself is re-exported (without its `parquet` and `compression` features: see there). With
/// the feature `distributed`, the codec that runs the format on a datafusion-distributed
/// cluster.
#[cfg(feature = "sql")]
pub mod sql {
    pub use flatstream_datafusion::*;
}

/// Captures as MCAP files of FlatBuffers channels, for Foxglove, and MCAP files' FlatBuffers
/// messages read back (feature `mcap`; the flatstream-mcap crate).
///
/// [`Exporter`](mcap::Exporter) writes one schema record (the `.bfbs`), a channel per topic and
/// a message per payload, each verified against the schema, with its time from a field of the
/// payload; [`Messages`](mcap::Messages) reads the messages of a file's `flatbuffer` channels.
#[cfg(feature = "mcap")]
pub mod mcap {
    pub use flatstream_mcap::*;
}

/// The frame's layout (header sizes, the default bound, the header's fields), and the framers
/// under the path FlatStream 0.2.x gave them (`flatstream::framing::`: the same framers as at the
/// crate's root and in [`adapters`]; see `docs/migrating.md`).
pub mod framing {
    pub use flatstream_adapters::{
        DeframerExt, FramerExt, ObserverDeframer, ObserverFramer, ValidatingDeframer,
        ValidatingFramer,
    };
    pub use flatstream_core::frame::*;
    pub use flatstream_core::{
        ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer,
    };
}

/// The Rust examples of README.md, compiled and run as doctests.
#[cfg(all(doctest, feature = "std", feature = "xxhash", feature = "tokio"))]
#[doc = include_str!("../../../README.md")]
struct ReadmeDoctests;
