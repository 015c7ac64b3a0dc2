//! The async codec, reader and writer on real TCP sockets on 127.0.0.1, on a multi-thread
//! runtime: many clients at once, a peer that writes one byte at a time, a peer that disconnects
//! mid-frame, a corrupted frame, a frame rejected for its content, reads raced against timeouts,
//! and a slow reader. Every test is bounded in time (`LIMIT`).

use flatstream_adapters::{DeframerExt, SizeValidator};
use flatstream_checksum::XxHash64;
use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Error, StreamWriter,
};
use flatstream_tokio::{AsyncStreamReader, AsyncStreamWriter, FrameCodec};
use futures_util::{SinkExt, StreamExt};
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;
use tokio::io::{AsyncWriteExt, BufWriter};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::{FramedRead, FramedWrite};

mod common;

/// The most any test here may take.
const LIMIT: Duration = Duration::from_secs(120);

/// Runs `test` on a multi-thread runtime, failing if it takes longer than [`LIMIT`].
fn run<F: Future<Output = ()>>(test: F) {
    common::run_within(LIMIT, test);
}

fn xxh3() -> (ChecksumFramer<XxHash64>, ChecksumDeframer<XxHash64>) {
    (
        ChecksumFramer::new(XxHash64::new()),
        ChecksumDeframer::new(XxHash64::new()),
    )
}

/// xorshift64 from `seed`: the same numbers on every run.
fn rng(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    }
}

/// The `i`-th payload of client `client`: 0 to 599 bytes, one in 500 of 20 to 40 KiB (larger
/// than the readers' first buffer), its content derived from both numbers.
fn payload(client: u64, i: u64) -> Vec<u8> {
    let mut next = rng(client << 32 | i);
    let len = if i % 500 == 499 {
        20_000 + next() as usize % 20_000
    } else {
        next() as usize % 600
    };
    (0..len).map(|_| next() as u8).collect()
}

async fn listen() -> (TcpListener, SocketAddr) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    (listener, addr)
}

/// 32 clients at once each send 10 000 frames of random sizes with XXH3 checksums; every
/// payload arrives intact and in order on its connection. Half the clients write with
/// `AsyncStreamWriter`, half through `FramedWrite` and the codec; half the connections are read
/// with `FramedRead` and the codec (payloads as `Bytes`), half with `AsyncStreamReader`.
#[test]
fn many_clients_every_payload_intact_and_in_order() {
    const CLIENTS: u64 = 32;
    const FRAMES: u64 = 10_000;
    run(async {
        let (listener, addr) = listen().await;
        let mut clients = Vec::new();
        for client in 0..CLIENTS {
            clients.push(tokio::spawn(async move {
                let socket = TcpStream::connect(addr).await.unwrap();
                let (framer, _) = xxh3();
                // The client's number first, so the server knows whose frames it reads.
                let first = client.to_le_bytes();
                if client % 2 == 0 {
                    let mut w = AsyncStreamWriter::new(BufWriter::new(socket), framer);
                    w.write_payload(&first).await.unwrap();
                    for i in 0..FRAMES {
                        w.write_payload(&payload(client, i)).await.unwrap();
                    }
                    w.shutdown().await.unwrap();
                } else {
                    let mut sink =
                        FramedWrite::new(socket, FrameCodec::new(framer, DefaultDeframer));
                    sink.feed(&first[..]).await.unwrap();
                    for i in 0..FRAMES {
                        sink.feed(payload(client, i)).await.unwrap();
                    }
                    SinkExt::<Vec<u8>>::close(&mut sink).await.unwrap();
                }
            }));
        }
        let mut servers = Vec::new();
        for connection in 0..CLIENTS {
            let (socket, _) = listener.accept().await.unwrap();
            servers.push(tokio::spawn(async move {
                let (_, deframer) = xxh3();
                let mut got: Vec<Vec<u8>> = Vec::new();
                if connection % 2 == 0 {
                    let codec = FrameCodec::read_only(deframer).with_max_frame_len(1 << 20);
                    let mut frames = FramedRead::new(socket, codec);
                    while let Some(p) = frames.next().await {
                        got.push(p.unwrap().to_vec());
                    }
                } else {
                    let mut reader =
                        AsyncStreamReader::new(socket, deframer).with_max_frame_len(1 << 20);
                    while let Some(p) = reader.read_message().await.unwrap() {
                        got.push(p.to_vec());
                    }
                }
                let client = u64::from_le_bytes(got[0][..].try_into().unwrap());
                assert_eq!(got.len() as u64, FRAMES + 1, "client {client}");
                for (i, p) in got[1..].iter().enumerate() {
                    assert!(
                        *p == payload(client, i as u64),
                        "client {client}, frame {i}"
                    );
                }
                client
            }));
        }
        for c in clients {
            c.await.unwrap();
        }
        let mut seen = Vec::new();
        for s in servers {
            seen.push(s.await.unwrap());
        }
        seen.sort_unstable();
        assert_eq!(seen, (0..CLIENTS).collect::<Vec<_>>());
    });
}

/// The stream of `payloads` framed with `framer`, as the sync writer writes it.
fn stream_of<F: flatstream_core::Framer>(framer: F, payloads: &[Vec<u8>]) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), framer);
    for p in payloads {
        w.write_payload(p).unwrap();
    }
    w.into_inner()
}

/// Where each frame starts, with `header` bytes of header.
fn starts(payloads: &[Vec<u8>], header: u64) -> Vec<u64> {
    let mut at = 0;
    let mut out = vec![0];
    for p in payloads {
        at += header + p.len() as u64;
        out.push(at);
    }
    out
}

/// A peer that writes `bytes` one byte per write (with `TCP_NODELAY`, one segment each), then
/// closes.
async fn dribble(addr: SocketAddr, bytes: Vec<u8>) {
    let mut socket = TcpStream::connect(addr).await.unwrap();
    socket.set_nodelay(true).unwrap();
    for b in bytes {
        socket.write_all(&[b]).await.unwrap();
        socket.flush().await.unwrap();
    }
    socket.shutdown().await.unwrap();
}

/// What a reader made of one connection: the payloads, then the error that ended it, if any.
type Outcome = (Vec<Vec<u8>>, Option<Error>);

async fn read_with_reader(socket: TcpStream, deframer: ChecksumDeframer<XxHash64>) -> Outcome {
    let mut reader = AsyncStreamReader::new(socket, deframer);
    let mut got = Vec::new();
    loop {
        match reader.read_message().await {
            Ok(Some(p)) => got.push(p.to_vec()),
            Ok(None) => return (got, None),
            Err(e) => return (got, Some(e)),
        }
    }
}

async fn read_with_codec(socket: TcpStream, deframer: ChecksumDeframer<XxHash64>) -> Outcome {
    let mut frames = FramedRead::new(socket, FrameCodec::new(DefaultFramer, deframer));
    let mut got = Vec::new();
    while let Some(p) = frames.next().await {
        match p {
            Ok(p) => got.push(p.to_vec()),
            Err(e) => return (got, Some(e)),
        }
    }
    (got, None)
}

/// Serves one connection per reader kind, each from a peer that `peer` starts with the address.
async fn both_readers<P, Fut>(peer: P) -> [Outcome; 2]
where
    P: Fn(SocketAddr) -> Fut,
    Fut: Future<Output = ()> + Send + 'static,
{
    let mut out = Vec::new();
    for codec in [false, true] {
        let (listener, addr) = listen().await;
        let peer = tokio::spawn(peer(addr));
        let (socket, _) = listener.accept().await.unwrap();
        let (_, deframer) = xxh3();
        out.push(if codec {
            read_with_codec(socket, deframer).await
        } else {
            read_with_reader(socket, deframer).await
        });
        peer.await.unwrap();
    }
    out.try_into().unwrap()
}

#[test]
fn a_peer_writing_one_byte_at_a_time() {
    let payloads: Vec<Vec<u8>> = (0..40).map(|i| payload(7, i)).collect();
    let bytes = stream_of(xxh3().0, &payloads);
    run(async {
        for (got, error) in both_readers(|addr| dribble(addr, bytes.clone())).await {
            assert!(error.is_none(), "{error:?}");
            assert!(got == payloads);
        }
    });
}

#[test]
fn a_peer_that_disconnects_mid_frame() {
    let payloads: Vec<Vec<u8>> = (0..5).map(|i| vec![i as u8; 100 + i]).collect();
    let bytes = stream_of(xxh3().0, &payloads);
    let starts = starts(&payloads, 12);
    // Mid-header of the fourth frame, then mid-payload of the fifth.
    for cut in [starts[3] + 2, starts[4] + 50] {
        let whole = starts[1..].iter().take_while(|&&end| end <= cut).count();
        let at = starts[whole];
        let needed = if cut - at < 4 {
            12
        } else {
            starts[whole + 1] - at
        };
        let sent = bytes[..cut as usize].to_vec();
        run(async {
            for (got, error) in both_readers(|addr| dribble_in_pieces(addr, sent.clone())).await {
                assert!(got == payloads[..whole], "cut at {cut}");
                match error {
                    Some(Error::UnexpectedEof {
                        offset,
                        needed: n,
                        present,
                    }) => assert_eq!((offset, n, present), (at, needed, cut - at), "cut {cut}"),
                    other => panic!("cut at {cut}: {other:?}"),
                }
            }
        });
    }
}

/// A peer that writes `bytes` in pieces of 37 bytes, then closes.
///
/// A reader that stops at an error closes the connection while pieces are still on their
/// way: the peer then stops quietly (the reader's side asserts what arrived).
async fn dribble_in_pieces(addr: SocketAddr, bytes: Vec<u8>) {
    let mut socket = TcpStream::connect(addr).await.unwrap();
    for piece in bytes.chunks(37) {
        if socket.write_all(piece).await.is_err() {
            return;
        }
        tokio::task::yield_now().await;
    }
    let _ = socket.shutdown().await;
}

#[test]
fn a_corrupted_frame_is_a_checksum_error_at_its_offset() {
    let payloads: Vec<Vec<u8>> = (0..6).map(|i| payload(3, i)).collect();
    let mut bytes = stream_of(xxh3().0, &payloads);
    let starts = starts(&payloads, 12);
    // A payload byte of the fourth frame (its payload is not empty: sizes are fixed by seed).
    assert!(!payloads[3].is_empty());
    bytes[starts[3] as usize + 12] ^= 0x40;
    run(async {
        for (got, error) in both_readers(|addr| dribble_in_pieces(addr, bytes.clone())).await {
            assert!(got == payloads[..3]);
            assert!(
                matches!(error, Some(Error::ChecksumMismatch { offset, .. }) if offset == starts[3]),
                "{error:?}"
            );
        }
    });
}

/// A frame that a validating deframer rejects is reported with its offset and does not end
/// the stream: the reader goes on with the next frame.
#[test]
fn a_frame_rejected_for_its_content_does_not_end_the_stream() {
    let payloads: Vec<Vec<u8>> = [10, 5000, 20, 6000, 30].map(|n| vec![1u8; n]).to_vec();
    let bytes = stream_of(DefaultFramer, &payloads);
    let starts = starts(&payloads, 4);
    run(async {
        let (listener, addr) = listen().await;
        let peer = tokio::spawn(dribble_in_pieces(addr, bytes));
        let (socket, _) = listener.accept().await.unwrap();
        let deframer = DefaultDeframer.validated(SizeValidator::max(1000));
        let mut reader = AsyncStreamReader::new(socket, deframer);
        for (i, p) in payloads.iter().enumerate() {
            match reader.read_message().await {
                Ok(Some(got)) => assert_eq!(got, &p[..]),
                Err(e @ Error::Validation { .. }) => {
                    assert!(p.len() > 1000, "{e}");
                    assert_eq!(e.offset(), starts[i]);
                }
                other => panic!("frame {i}: {other:?}"),
            }
        }
        assert_eq!(reader.read_message().await.unwrap(), None);
        peer.await.unwrap();
    });
}

/// Reads raced against short timeouts thousands of times, on a socket fed in pieces with pauses
/// (so that timeouts fire mid-header and mid-payload): nothing is lost, nothing duplicated.
/// `read_message` and `read_bytes` alternate.
#[test]
fn reads_raced_against_timeouts_lose_and_duplicate_nothing() {
    const FRAMES: u64 = 3_000;
    let payloads: Vec<Vec<u8>> = (0..FRAMES).map(|i| payload(11, i)).collect();
    let bytes = stream_of(xxh3().0, &payloads);
    run(async {
        let (listener, addr) = listen().await;
        let peer = tokio::spawn(async move {
            let mut socket = TcpStream::connect(addr).await.unwrap();
            socket.set_nodelay(true).unwrap();
            let mut next = rng(5);
            let mut rest = &bytes[..];
            while !rest.is_empty() {
                let n = (1 + next() as usize % 700).min(rest.len());
                socket.write_all(&rest[..n]).await.unwrap();
                rest = &rest[n..];
                if next() % 4 == 0 {
                    tokio::time::sleep(Duration::from_micros(next() % 300)).await;
                }
            }
            socket.shutdown().await.unwrap();
        });
        let (socket, _) = listener.accept().await.unwrap();
        let mut reader = AsyncStreamReader::with_capacity(4096, socket, xxh3().1);
        let mut next = rng(9);
        let (mut i, mut attempts) = (0usize, 0u64);
        loop {
            attempts += 1;
            let wait = Duration::from_micros(1 + next() % 200);
            let got = if attempts % 2 == 0 {
                match tokio::time::timeout(wait, reader.read_message()).await {
                    Err(_elapsed) => continue,
                    Ok(r) => r.unwrap().map(<[u8]>::to_vec),
                }
            } else {
                match tokio::time::timeout(wait, reader.read_bytes()).await {
                    Err(_elapsed) => continue,
                    Ok(r) => r.unwrap().map(|b| b.to_vec()),
                }
            };
            let Some(got) = got else { break };
            assert!(i < payloads.len(), "a frame too many");
            assert!(got == payloads[i], "frame {i}");
            i += 1;
        }
        assert_eq!(i, payloads.len());
        assert!(attempts >= FRAMES, "{attempts}");
        peer.await.unwrap();
    });
}

/// A reader that does not read makes the writer wait (the socket's buffers fill up, and the
/// writer stops short of the end); once it reads, slowly, every frame arrives.
#[test]
fn a_slow_reader_makes_the_writer_wait_and_nothing_is_dropped() {
    const FRAMES: u64 = 1_000;
    // 64 KiB each: 64 MiB in all, more than loopback buffers hold.
    const SIZE: usize = 64 * 1024;
    let frame = |i: u64| vec![i as u8; SIZE];
    run(async move {
        let (listener, addr) = listen().await;
        let progress = Arc::new(AtomicU64::new(0));
        let written = progress.clone();
        let writer = tokio::spawn(async move {
            let socket = TcpStream::connect(addr).await.unwrap();
            let mut w = AsyncStreamWriter::new(socket, DefaultFramer);
            for i in 0..FRAMES {
                w.write_payload(&frame(i)).await.unwrap();
                written.store(w.bytes_written(), Ordering::SeqCst);
            }
            w.shutdown().await.unwrap();
            w.bytes_written()
        });
        let (socket, _) = listener.accept().await.unwrap();
        // Wait until the writer makes no progress: the buffers are full.
        let mut last = u64::MAX;
        loop {
            tokio::time::sleep(Duration::from_millis(50)).await;
            let now = progress.load(Ordering::SeqCst);
            if now == last {
                break;
            }
            last = now;
        }
        let total = FRAMES * (4 + SIZE as u64);
        assert!(last < total, "the writer finished with no one reading");
        assert!(!writer.is_finished());

        let mut reader = AsyncStreamReader::new(socket, DefaultDeframer);
        let mut i = 0;
        while let Some(p) = reader.read_message().await.unwrap() {
            assert!(
                p.len() == SIZE && p.iter().all(|&b| b == i as u8),
                "frame {i}"
            );
            i += 1;
            if i % 500 == 0 {
                tokio::time::sleep(Duration::from_millis(1)).await; // a slow reader
            }
        }
        assert_eq!(i, FRAMES);
        assert_eq!(writer.await.unwrap(), total);
    });
}

/// The bytes of a stream as an `AsyncRead` that answers `Pending` (with a wake) on every other
/// poll and hands out 1 to 40 bytes at a time: a read can be dropped at any of its awaits.
struct Trickle {
    bytes: Vec<u8>,
    at: usize,
    next: Box<dyn FnMut() -> u64 + Send>,
    pending: bool,
}

impl tokio::io::AsyncRead for Trickle {
    fn poll_read(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
        buf: &mut tokio::io::ReadBuf<'_>,
    ) -> std::task::Poll<std::io::Result<()>> {
        self.pending = !self.pending;
        if self.pending {
            cx.waker().wake_by_ref();
            return std::task::Poll::Pending;
        }
        let n = (1 + (self.next)() as usize % 40)
            .min(self.bytes.len() - self.at)
            .min(buf.remaining());
        let at = self.at;
        buf.put_slice(&self.bytes[at..at + n]);
        self.at += n;
        std::task::Poll::Ready(Ok(()))
    }
}

/// Counts down its polls, then is ready: a timeout counted in polls, not in time.
async fn after_polls(mut n: u32) {
    std::future::poll_fn(|cx| {
        if n == 0 {
            return std::task::Poll::Ready(());
        }
        n -= 1;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    })
    .await;
}

/// The same race, without a clock: each read is dropped after a random number of polls, so it
/// is cancelled at every kind of await, thousands of times; nothing is lost or duplicated.
#[test]
fn reads_cancelled_after_any_number_of_polls_lose_and_duplicate_nothing() {
    let payloads: Vec<Vec<u8>> = (0..600).map(|i| payload(13, i)).collect();
    let bytes = stream_of(xxh3().0, &payloads);
    run(async {
        let source = Trickle {
            bytes,
            at: 0,
            next: Box::new(rng(17)),
            pending: false,
        };
        let mut reader = AsyncStreamReader::with_capacity(256, source, xxh3().1);
        let mut next = rng(19);
        let (mut i, mut cancelled) = (0, 0u64);
        loop {
            let polls = (next() % 6) as u32;
            let got = tokio::select! {
                biased;
                r = reader.read_message() => r.unwrap().map(<[u8]>::to_vec),
                () = after_polls(polls) => {
                    cancelled += 1;
                    continue;
                }
            };
            let Some(got) = got else { break };
            assert!(got == payloads[i], "frame {i}");
            i += 1;
        }
        assert_eq!(i, payloads.len());
        assert!(cancelled > 1_000, "{cancelled}");
    });
}

/// `flush()` and `close()` on a `FramedWrite` of the codec, with the one annotation its docs
/// show (the item type), do their work on a real socket: after `flush` the reader has every
/// frame fed while the sink is still open; after `close` it sees the end of the stream.
#[test]
fn flush_and_close_on_a_framed_write_over_tcp() {
    run(async {
        let (listener, addr) = listen().await;
        let (read_three, three_read) = tokio::sync::oneshot::channel::<()>();
        let client = tokio::spawn(async move {
            let socket = TcpStream::connect(addr).await.unwrap();
            let mut sink = FrameCodec::builder()
                .checksum(XxHash64::new())
                .new_write(socket);
            for i in 0..3 {
                sink.feed(&payload(1, i)[..]).await.unwrap();
            }
            SinkExt::<&[u8]>::flush(&mut sink).await.unwrap();
            // The server reads the three frames while the sink is open: `flush` sent them.
            three_read.await.unwrap();
            sink.feed(&payload(1, 3)[..]).await.unwrap();
            SinkExt::<&[u8]>::close(&mut sink).await.unwrap();
        });
        let (socket, _) = listener.accept().await.unwrap();
        let mut frames = FrameCodec::builder()
            .checksum(XxHash64::new())
            .max_frame_len(1 << 20)
            .new_read(socket);
        for i in 0..3 {
            assert_eq!(frames.next().await.unwrap().unwrap(), payload(1, i));
        }
        read_three.send(()).unwrap();
        assert_eq!(frames.next().await.unwrap().unwrap(), payload(1, 3));
        assert!(frames.next().await.is_none(), "`close` ended the stream");
        client.await.unwrap();
    });
}

/// A `Framed` of the codec over an in-memory duplex, both ways: items sent, flushed and closed
/// (naming the item type), and echoed back by the other end, each received `Bytes` sent on as
/// it is.
#[test]
fn flush_and_close_on_a_framed_over_a_duplex() {
    run(async {
        let (a, b) = tokio::io::duplex(1 << 20); // room for every frame both ways
        let config = FrameCodec::builder().checksum(XxHash64::new());
        let mut near = config.new_framed(a);
        let mut far = config.new_framed(b);
        let echo = tokio::spawn(async move {
            while let Some(p) = far.next().await {
                far.send(p.unwrap()).await.unwrap();
            }
            SinkExt::<bytes::Bytes>::close(&mut far).await.unwrap();
        });
        for i in 0..20 {
            near.feed(&payload(2, i)[..]).await.unwrap();
        }
        SinkExt::<&[u8]>::flush(&mut near).await.unwrap();
        for i in 0..20 {
            assert_eq!(near.next().await.unwrap().unwrap(), payload(2, i));
        }
        SinkExt::<&[u8]>::close(&mut near).await.unwrap();
        assert!(near.next().await.is_none(), "the echo closed its side");
        echo.await.unwrap();
        assert_eq!(near.codec().bytes_encoded(), near.codec().read_position());
    });
}

/// What the codec's docs say `FramedRead` does after a frame rejected for its content: the
/// error, then `None` once; polled again, the frames after the rejected one.
#[test]
fn under_framed_read_a_content_error_is_followed_by_none_once() {
    run(async {
        let payloads: Vec<Vec<u8>> = [10, 5000, 20].map(|n| vec![1u8; n]).to_vec();
        let bytes = stream_of(DefaultFramer, &payloads);
        let deframer = DefaultDeframer.validated(SizeValidator::max(1000));
        let mut frames = FramedRead::new(&bytes[..], FrameCodec::read_only(deframer));
        assert_eq!(frames.next().await.unwrap().unwrap(), payloads[0]);
        let err = frames.next().await.unwrap().unwrap_err();
        assert!(matches!(err, Error::Validation { offset: 14, .. }), "{err}");
        assert!(
            frames.next().await.is_none(),
            "FramedRead pauses after an error"
        );
        assert_eq!(frames.next().await.unwrap().unwrap(), payloads[2]);
        assert!(frames.next().await.is_none());
    });
}
