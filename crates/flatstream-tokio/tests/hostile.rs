//! A hostile peer on a real socket sends a header claiming the bound, then trickles bytes and
//! hangs up: the memory the reading side takes is measured with the counting allocator, for
//! `FrameCodec`, `AsyncStreamReader` and, for comparison, tokio-util's `LengthDelimitedCodec`
//! (4-byte little-endian lengths, the same bytes), which reserves the whole claim as soon as
//! the header is in.

use flatstream_core::{DefaultDeframer, DefaultFramer, Error};
use flatstream_test_support::alloc::{AllocStats, CountingAlloc, assert_installed, measure_exact};
use flatstream_tokio::{AsyncStreamReader, FrameCodec};
use futures_util::StreamExt;
use std::io::Write;
use std::net::SocketAddr;
use std::time::Duration;
use tokio::net::TcpListener;
use tokio_util::codec::{FramedRead, LengthDelimitedCodec};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// The bound every reader is given, and what the hostile header claims.
const BOUND: usize = 16 << 20;
/// What the peer sends after the header, 1 KiB at a time.
const TRICKLED: usize = 64 * 1024;

/// Sends the header claiming `BOUND`, then `TRICKLED` bytes in pieces, then hangs up.
fn hostile_peer(addr: SocketAddr) -> std::thread::JoinHandle<()> {
    std::thread::spawn(move || {
        let mut socket = std::net::TcpStream::connect(addr).unwrap();
        socket.set_nodelay(true).unwrap();
        socket.write_all(&(BOUND as u32).to_le_bytes()).unwrap();
        for _ in 0..TRICKLED / 1024 {
            socket.write_all(&[0x5A; 1024]).unwrap();
            std::thread::sleep(Duration::from_micros(200));
        }
    })
}

#[derive(Debug, Clone, Copy)]
enum Side {
    Codec,
    Reader,
    LengthDelimited,
}

/// What reading one hostile connection with `side` allocated on the reading thread (the
/// future is polled by `block_on`, on this thread), and the error it ended with.
fn read_hostile(side: Side) -> (String, AllocStats) {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .unwrap();
    let (listener, addr) = rt.block_on(async {
        let l = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = l.local_addr().unwrap();
        (l, addr)
    });
    let peer = hostile_peer(addr);
    let (socket, _) = rt.block_on(listener.accept()).unwrap();
    let read = async move {
        let read = async move {
            match side {
                Side::Codec => {
                    let codec =
                        FrameCodec::new(DefaultFramer, DefaultDeframer).with_max_frame_len(BOUND);
                    let err = FramedRead::new(socket, codec).next().await.unwrap();
                    err.map(|_| ()).map_err(|e: Error| e.to_string())
                }
                Side::Reader => {
                    let mut reader =
                        AsyncStreamReader::new(socket, DefaultDeframer).with_max_frame_len(BOUND);
                    reader
                        .read_message()
                        .await
                        .map(|_| ())
                        .map_err(|e| e.to_string())
                }
                Side::LengthDelimited => {
                    let codec = LengthDelimitedCodec::builder()
                        .little_endian()
                        .length_field_length(4)
                        .max_frame_length(BOUND)
                        .new_codec();
                    let err = FramedRead::new(socket, codec).next().await.unwrap();
                    err.map(|_| ()).map_err(|e| e.to_string())
                }
            }
        };
        tokio::time::timeout(Duration::from_secs(60), read)
            .await
            .expect("the read finished in time")
    };
    let (result, stats) = measure_exact(|| rt.block_on(read));
    peer.join().unwrap();
    (result.expect_err("the peer hung up mid-frame"), stats)
}

#[test]
fn a_trickling_peer_costs_about_what_it_sent_not_what_it_claimed() {
    assert_installed();
    let received = (4 + TRICKLED) as u64;
    for side in [Side::Codec, Side::Reader] {
        let (error, stats) = read_hostile(side);
        // The typed error, with the frame's offset and what arrived.
        let expected = format!(
            "stream ended inside the frame at offset 0: needed {} bytes, {received} present",
            4 + BOUND
        );
        assert_eq!(error, expected, "{side:?}");
        let limit = 2 * received + 64 * 1024;
        assert!(
            stats.largest <= limit,
            "{side:?}: largest allocation {} > {limit} ({stats:?})",
            stats.largest
        );
        eprintln!("{side:?}: {received} bytes received, {stats:?}");
    }
    // LengthDelimitedCodec reserves the claim as soon as the header is in.
    let (error, stats) = read_hostile(Side::LengthDelimited);
    assert!(error.contains("bytes remaining"), "{error}");
    assert!(stats.largest >= BOUND as u64, "{stats:?}");
    eprintln!("LengthDelimitedCodec: {received} bytes received, {stats:?}");
}
