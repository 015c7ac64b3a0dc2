//! Async framing of FlatBuffers streams for tokio: a tokio-util codec whose payloads are
//! [`Bytes`](bytes::Bytes), and an async reader and writer.
//!
//! ```text
//! +-------------+-------------------------------+----------------------------+
//! | len: u32 LE | checksum: 0, 2, 4 or 8 B, LE  | payload: a plain FlatBuffer |  frame
//! +-------------+-------------------------------+----------------------------+
//! ```
//!
//! The bytes are those of every flatstream reader and writer (and of FlatStream 0.2.x): a
//! stream written by the sync `StreamWriter` is read here, and the other way round.
//!
//! ```
//! use flatstream::{ChecksumDeframer, ChecksumFramer};
//! use flatstream::checksum::XxHash64;
//! use flatstream::tokio::{AsyncStreamReader, AsyncStreamWriter};
//! use tokio::io::BufWriter;
//! use tokio::net::{TcpListener, TcpStream};
//!
//! # tokio::runtime::Builder::new_current_thread().enable_io().build()?.block_on(async {
//! let listener = TcpListener::bind("127.0.0.1:0").await?;
//! let addr = listener.local_addr()?;
//! let client = tokio::spawn(async move {
//!     let socket = BufWriter::new(TcpStream::connect(addr).await?);
//!     let mut writer = AsyncStreamWriter::new(socket, ChecksumFramer::new(XxHash64::new()));
//!     for reading in ["boiler 71.5", "boiler 71.7"] {
//!         writer.write(&reading).await?;
//!     }
//!     writer.shutdown().await // flushes, then ends the stream
//! });
//!
//! let (socket, _) = listener.accept().await?;
//! let mut reader = AsyncStreamReader::new(socket, ChecksumDeframer::new(XxHash64::new()))
//!     .with_max_frame_len(64 * 1024); // untrusted input: bound what a header may claim
//! let mut count = 0;
//! reader
//!     .process_all(|payload| {
//!         assert!(flatbuffers::root::<&str>(payload)?.starts_with("boiler"));
//!         count += 1;
//!         Ok(())
//!     })
//!     .await?;
//! assert_eq!(count, 2);
//! client.await.expect("the client task")?;
//! # Ok::<(), flatstream::Error>(())
//! # })?;
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
//!
//! # The parts
//!
//! | type | over | payloads | for |
//! |---|---|---|---|
//! | [`FrameCodec`] ([`codec::Builder`]) | tokio-util's `FramedRead`, `FramedWrite`, `Framed` | `Bytes` split from the read buffer, `Send + 'static`; encodes a `&[u8]`, a `Bytes` (sent on as received), a `Vec<u8>` | handing payloads to other tasks; `Stream`/`Sink` code |
//! | [`AsyncStreamReader`] | any `AsyncRead` | `&[u8]` borrowed from its buffer (`read_message`, `process_all`), or `Bytes` (`read_bytes`) | reading in place, the sync reader's vocabulary |
//! | [`AsyncStreamWriter`] | any `AsyncWrite` | `write`, `write_finished`, `write_payload`, each with a receipt | writing without copying payloads; journals (`sync` on an [`AsyncSyncSink`]) |
//!
//! The writer drives the sync writer's sans-I/O [`WriterCore`](flatstream_core::WriterCore):
//! the same byte count, bound, receipts and torn-frame tracking, and a durable watermark moved by
//! `sync` on a `tokio::fs::File` (sync *policies* are the sync writer's alone: see
//! [`AsyncStreamWriter`], "Durability"). The readers and the codec read through flatstream's one
//! sans-I/O [`ReadBuffer`](flatstream_core::ReadBuffer): the bound is checked from the length
//! prefix alone (`with_max_frame_len`, 2 GiB by default), memory grows with the bytes received
//! and never with what a header claims, and every error they raise is an [`Error`](flatstream_core::Error)
//! with the offset of the frame concerned. A frame rejected for its content (by a validating
//! deframer) is stepped over: [`AsyncStreamReader`] goes straight on to the next frame, while
//! tokio-util's `FramedRead` answers `None` once after any error, so a `while let` loop over
//! it stops there (see [`FrameCodec`], "Errors under `FramedRead`"). The reader's
//! `read_message` and `read_bytes` are cancel safe: raced against a timeout in
//! `tokio::select!`, they lose no bytes, and the next call resumes.
//!
//! # Compared with `LengthDelimitedCodec`
//!
//! tokio-util's `LengthDelimitedCodec`, set to 4-byte little-endian lengths, reads frames
//! without checksum too. It reserves the whole declared length as soon as a header arrives (a
//! peer that sends a header and trickles bytes holds that much memory), knows no checksums and
//! keeps its read buffer at its largest size. It encodes two ways: from a `Bytes`, which a
//! caller holding a `&[u8]` (a finished builder's data) must first copy into one, an
//! allocation per message; or, since tokio-util 0.7.20, from a `&[u8]`, copied only into the
//! destination buffer. Having both, it needs the item named for `flush()` and `close()`.
//! [`FrameCodec`] grows with the bytes received, encodes from a `&[u8]` without a copy but
//! into the destination and from a received `Bytes` alike (so echo servers compile, and
//! `flush()` and `close()` name the item type too), verifies checksums, and can give memory
//! back after a large frame ([`Builder::reclaim`](codec::Builder::reclaim)). The figures, both
//! of `LengthDelimitedCodec`'s encode paths included, are in the repository's
//! `docs/benchmarks.md`.

#![forbid(unsafe_code)]
#![warn(clippy::cast_possible_truncation)]

pub mod codec;
mod reader;
mod writer;

pub use codec::FrameCodec;
pub use reader::AsyncStreamReader;
pub use writer::{AsyncStreamWriter, AsyncSyncSink};

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream_core::{DefaultDeframer, DefaultFramer};

    #[test]
    fn public_types_are_send_and_sync() {
        fn assert_send_sync<T: Send + Sync>() {}
        assert_send_sync::<FrameCodec>();
        assert_send_sync::<AsyncStreamReader<tokio::net::TcpStream, DefaultDeframer>>();
        assert_send_sync::<AsyncStreamWriter<tokio::net::TcpStream, DefaultFramer>>();
    }

    #[test]
    fn futures_of_the_reader_and_writer_can_be_spawned() {
        fn assert_send<T: Send>(_: &T) {}
        let mut reader = AsyncStreamReader::new(&b""[..], DefaultDeframer);
        assert_send(&reader.read_message());
        assert_send(&reader.read_bytes());
        assert_send(&reader.process_all(|_| Ok(())));
        let mut writer = AsyncStreamWriter::new(Vec::new(), DefaultFramer);
        assert_send(&writer.write(&"x"));
        assert_send(&writer.write_payload(b"x"));
        assert_send(&writer.flush());
        assert_send(&writer.write_with_receipt(&"x"));
        assert_send(&writer.write_payload_with_receipt(b"x"));
        let mut builder = flatbuffers::FlatBufferBuilder::new();
        assert_send(&writer.write_finished(&builder));
        assert_send(&writer.write_finished(&mut builder));
    }

    #[test]
    fn sync_futures_can_be_spawned() {
        fn assert_send<T: Send>(_: &T) {}
        fn check<W: AsyncSyncSink + Send>(writer: &mut AsyncStreamWriter<W, DefaultFramer>) {
            assert_send(&writer.sync());
        }
        let _ = check::<tokio::fs::File>;
        let _ = check::<tokio::io::BufWriter<tokio::fs::File>>;
    }
}
