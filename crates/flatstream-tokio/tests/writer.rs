//! The async writer's bookkeeping, which it shares with the sync writer through core's
//! `WriterCore`: receipts and offsets over a TCP socket and a file, the bound refusing a payload
//! before any byte reaches the peer, the torn frame after a write that failed or was cancelled
//! mid-frame, and `sync` on a `tokio::fs::File`. Every test is bounded in time (`LIMIT`).

use flatbuffers::FlatBufferBuilder;
use flatstream_core::{
    DefaultDeframer, DefaultFramer, Error, FrameAt, Frames, Receipt, StreamSerialize, StreamWriter,
    WriterCore,
};
use flatstream_tokio::AsyncStreamWriter;
use std::task::Poll;
use std::time::Duration;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

mod common;

/// The most any test here may take.
const LIMIT: Duration = Duration::from_secs(60);

fn run<F: Future<Output = ()>>(test: F) {
    common::run_within(LIMIT, test);
}

fn temp(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!(
        "flatstream-async-writer-{name}-{}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Payloads of 0 to 39 bytes, each byte its index.
fn payloads() -> Vec<Vec<u8>> {
    (0..40u8).map(|n| (0..n).collect()).collect()
}

#[test]
fn receipts_over_a_socket_are_the_sync_writers_and_locate_every_frame() {
    run(async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let client = tokio::spawn(async move {
            let socket = TcpStream::connect(addr).await.unwrap();
            let mut writer = AsyncStreamWriter::new(socket, DefaultFramer);
            let mut receipts = Vec::new();
            for p in payloads() {
                receipts.push(writer.write_payload_with_receipt(&p).await.unwrap());
            }
            let end = writer.bytes_written();
            writer.shutdown().await.unwrap();
            (receipts, end)
        });
        let (mut socket, _) = listener.accept().await.unwrap();
        let mut received = Vec::new();
        socket.read_to_end(&mut received).await.unwrap();
        let (receipts, end) = client.await.unwrap();

        let mut sync = StreamWriter::new(Vec::new(), DefaultFramer);
        let expected: Vec<Receipt> = payloads()
            .iter()
            .map(|p| sync.write_payload_with_receipt(p).unwrap())
            .collect();
        assert_eq!(receipts, expected);
        assert_eq!(received, sync.into_inner(), "the same bytes");
        assert_eq!(end, received.len() as u64);
        for (r, p) in receipts.iter().zip(payloads()) {
            let at = FrameAt::new(DefaultDeframer);
            assert_eq!(at.slice(&received, r.offset).unwrap(), &p[..]);
        }
    });
}

#[test]
fn with_offset_appends_to_a_file_and_sync_moves_the_watermark() {
    run(async {
        let dir = temp("append");
        let path = dir.join("journal.fstream");
        let mut first = StreamWriter::new(std::fs::File::create(&path).unwrap(), DefaultFramer);
        first.write_payload(b"written by the sync writer").unwrap();
        let len = first.bytes_written();
        drop(first);

        let file = tokio::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .await
            .unwrap();
        let mut writer =
            AsyncStreamWriter::new(tokio::io::BufWriter::new(file), DefaultFramer).with_offset(len);
        assert_eq!(writer.durable(), len, "what was there is taken as on disk");
        let mut builder = FlatBufferBuilder::new();
        "a message".serialize(&mut builder).unwrap();
        let a = writer.write_finished_with_receipt(&builder).await.unwrap();
        let b = writer.write_with_receipt(&"another").await.unwrap();
        assert_eq!((a.offset, b.offset), (len, a.end()));
        assert_eq!(writer.durable(), len, "in the buffer, not synced");
        assert_eq!(writer.sync().await.unwrap(), b.end());
        assert_eq!(writer.durable(), b.end());
        assert_eq!(std::fs::metadata(&path).unwrap().len(), b.end());

        let bytes = std::fs::read(&path).unwrap();
        let message = FrameAt::new(DefaultDeframer)
            .slice(&bytes, a.offset)
            .unwrap();
        assert_eq!(flatbuffers::root::<&str>(message).unwrap(), "a message");
        assert_eq!(Frames::new(&bytes, DefaultDeframer).count(), 3);
        drop(writer);
        std::fs::remove_dir_all(&dir).unwrap();
    });
}

#[test]
fn a_payload_over_the_bound_is_refused_before_a_byte_reaches_the_peer() {
    run(async {
        let (near, mut far) = tokio::io::duplex(1 << 16);
        let mut writer = AsyncStreamWriter::new(near, DefaultFramer).with_max_frame_len(8);
        writer.write_payload(b"12345678").await.unwrap();
        let err = writer.write_payload(b"123456789").await.unwrap_err();
        assert!(
            matches!(
                err,
                Error::FrameTooLarge {
                    offset: 12,
                    len: 9,
                    max: 8
                }
            ),
            "{err}"
        );
        assert_eq!((writer.bytes_written(), writer.torn()), (12, None));
        writer.write_payload(b"after").await.unwrap();
        writer.shutdown().await.unwrap();
        let mut received = Vec::new();
        far.read_to_end(&mut received).await.unwrap();
        assert_eq!(received, b"\x08\0\0\x0012345678\x05\0\0\0after");
    });
}

#[test]
fn a_write_that_fails_mid_frame_names_the_torn_frame() {
    run(async {
        // A pipe holding 10 bytes: the second frame fills it mid-frame, then the peer leaves.
        let (near, mut far) = tokio::io::duplex(10);
        let mut writer = AsyncStreamWriter::new(near, DefaultFramer);
        writer.write_payload(b"ab").await.unwrap();
        let mut first = [0; 6];
        far.read_exact(&mut first).await.unwrap();
        assert_eq!(first, *b"\x02\0\0\0ab");
        let err = {
            let mut write = std::pin::pin!(writer.write_payload(&[7; 100]));
            // One poll: the pipe takes 10 of the frame's 104 bytes, and the write waits.
            let polled = std::future::poll_fn(|cx| Poll::Ready(write.as_mut().poll(cx))).await;
            assert!(polled.is_pending());
            drop(far);
            write.await.unwrap_err()
        };
        let Error::Io { source, offset } = err else {
            panic!("{err}")
        };
        assert_eq!(offset, 6, "the error names the frame being written");
        assert_eq!(source.kind(), std::io::ErrorKind::BrokenPipe);
        assert_eq!(writer.bytes_written(), 16, "the 10 bytes the pipe took");
        assert_eq!(writer.torn(), Some(6));
        assert_eq!(writer.core().torn(), Some(6));
        // A later frame refused whole tears nothing more.
        assert!(writer.write_payload(b"x").await.is_err());
        assert_eq!((writer.bytes_written(), writer.torn()), (16, Some(6)));
    });
}

#[test]
fn a_write_cancelled_mid_frame_is_a_torn_frame_too() {
    run(async {
        let (near, mut far) = tokio::io::duplex(10);
        let mut writer = AsyncStreamWriter::new(near, DefaultFramer);
        // The pipe takes 10 of the frame's 104 bytes, then the write waits: the timeout drops it.
        let cancelled =
            tokio::time::timeout(Duration::from_millis(50), writer.write_payload(&[7; 100])).await;
        assert!(cancelled.is_err(), "the write could not finish");
        assert_eq!(writer.bytes_written(), 10);
        assert_eq!(writer.torn(), Some(0));
        // The next write settles it in the core; the watermark would never pass it.
        let mut drained = vec![0; 10];
        far.read_exact(&mut drained).await.unwrap();
        let r = writer.write_payload_with_receipt(b"").await.unwrap();
        assert_eq!((r.offset, r.len), (10, 4));
        assert_eq!(writer.core().torn(), Some(0));
        // A write cancelled before the sink took a byte of it tears nothing.
        let (near, _far) = tokio::io::duplex(4);
        let mut writer = AsyncStreamWriter::new(near, DefaultFramer);
        writer.write_payload(b"").await.unwrap();
        let cancelled =
            tokio::time::timeout(Duration::from_millis(20), writer.write_payload(b"x")).await;
        assert!(cancelled.is_err());
        assert_eq!((writer.bytes_written(), writer.torn()), (4, None));
    });
}

#[test]
fn write_finished_takes_the_builder_by_either_reference_on_both_writers() {
    run(async {
        let mut builder = FlatBufferBuilder::new();
        "x".serialize(&mut builder).unwrap();
        let mut sync = StreamWriter::new(Vec::new(), DefaultFramer);
        sync.write_finished(&builder).unwrap();
        sync.write_finished(&mut builder).unwrap(); // FlatStream 0.2.x's spelling
        let mut asynchronous = AsyncStreamWriter::new(Vec::new(), DefaultFramer);
        asynchronous.write_finished(&builder).await.unwrap();
        asynchronous.write_finished(&mut builder).await.unwrap();
        assert_eq!(asynchronous.into_inner(), sync.into_inner());
    });
}

#[test]
fn both_writers_report_the_same_core() {
    run(async {
        let mut sync = StreamWriter::new(Vec::new(), DefaultFramer)
            .with_offset(7)
            .with_max_frame_len(30);
        let mut asynchronous = AsyncStreamWriter::new(Vec::new(), DefaultFramer)
            .with_offset(7)
            .with_max_frame_len(30);
        for p in payloads() {
            let a = sync.write_payload(&p).map_err(|e| e.to_string());
            let b = asynchronous
                .write_payload(&p)
                .await
                .map_err(|e| e.to_string());
            assert_eq!(a, b);
        }
        assert_eq!(sync.core(), asynchronous.core());
        let expected = WriterCore::new().with_offset(7).with_max_frame_len(30);
        assert_eq!(sync.core().max_frame_len(), expected.max_frame_len());
        assert_eq!(
            sync.bytes_written(),
            7 + (0..=30).map(|n| 4 + n).sum::<u64>()
        );
        let mut sink = asynchronous.into_inner();
        sink.flush().await.unwrap();
        assert_eq!(sink, sync.into_inner());
    });
}
