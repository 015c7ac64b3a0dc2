//! The two echo servers tokio users write over a `Framed<_, FrameCodec>`, written as they write
//! them (no item type named) and run on real sockets on 127.0.0.1: `stream.forward(sink)`,
//! and `split()` with `sink.send(payload)` of each `Bytes` received. A client sends frames of
//! every size class and reads each one back, byte for byte, then sees the server end the
//! stream.

use flatstream::checksum::XxHash64;
use flatstream::tokio::FrameCodec;
use futures_util::{SinkExt, StreamExt};
use std::time::Duration;
use tokio::net::{TcpListener, TcpStream};
use tokio_util::codec::Framed;

mod common;

/// The echo of `stream.forward(sink)`: every payload decoded goes straight back, as the
/// `Bytes` it came in.
async fn forward_echo(socket: TcpStream) -> flatstream::Result<()> {
    let framed = Framed::new(socket, FrameCodec::with_checksum(XxHash64::new()));
    let (sink, stream) = framed.split();
    stream.forward(sink).await
}

/// The echo of a loop: `split()`, then `sink.send(payload)` of each payload received.
async fn send_echo(socket: TcpStream) -> flatstream::Result<()> {
    let framed = Framed::new(socket, FrameCodec::with_checksum(XxHash64::new()));
    let (mut sink, mut stream) = framed.split();
    while let Some(payload) = stream.next().await {
        let payload = payload?; // a `Bytes`, split from the read buffer
        sink.send(payload).await?;
    }
    Ok(())
}

/// Payloads of every size class: empty, small, over the read buffer's first 8 KiB, and one
/// of 1 MiB; their bytes depend on their index.
fn payloads() -> Vec<Vec<u8>> {
    let lens = [0, 1, 5, 100, 8 * 1024, 8 * 1024 + 1, 40_000, 1 << 20, 3];
    lens.iter()
        .enumerate()
        .flat_map(|(i, &len)| {
            (0..20).map(move |j| (0..len).map(|k| (i * 31 + j * 7 + k) as u8).collect())
        })
        .collect()
}

/// Runs `server` on one connection, sends it [`payloads`] from a client that writes and reads
/// at once, and checks that every payload comes back in order and that the echo ends the
/// stream after the client closed its side.
async fn echoes<S, F>(server: S)
where
    S: FnOnce(TcpStream) -> F + Send + 'static,
    F: Future<Output = flatstream::Result<()>> + Send,
{
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let serving = tokio::spawn(async move {
        let (socket, _) = listener.accept().await.unwrap();
        server(socket).await
    });
    let sent = payloads();
    let socket = TcpStream::connect(addr).await.unwrap();
    let framed = Framed::new(socket, FrameCodec::with_checksum(XxHash64::new()));
    let (mut tx, mut rx) = framed.split();
    let to_send = sent.clone();
    let writing = tokio::spawn(async move {
        for payload in to_send {
            tx.feed(payload).await.unwrap();
        }
        // The split sink's item type is fixed: `close` needs no annotation.
        tx.close().await.unwrap();
    });
    let mut received = Vec::new();
    while let Some(payload) = rx.next().await {
        received.push(payload.unwrap());
    }
    writing.await.unwrap();
    assert_eq!(received.len(), sent.len(), "every frame came back");
    for (i, (got, want)) in received.iter().zip(&sent).enumerate() {
        assert_eq!(&got[..], &want[..], "payload {i}");
    }
    serving
        .await
        .unwrap()
        .expect("the echo ends without an error");
}

#[test]
fn an_echo_server_with_forward_sends_every_frame_back() {
    common::run_within(Duration::from_secs(120), echoes(forward_echo));
}

#[test]
fn an_echo_server_that_sends_each_payload_received_sends_every_frame_back() {
    common::run_within(Duration::from_secs(120), echoes(send_echo));
}

/// A frame that fails its checksum ends `forward` with the codec's error, at the frame's
/// offset, and is never sent back. (`forward` returns a stream's error without flushing what it
/// fed the sink before, as futures documents: the frame before it may not come back either.)
#[test]
fn a_corrupt_frame_ends_the_forward_echo_with_its_error() {
    common::run_within(Duration::from_secs(120), async {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let serving = tokio::spawn(async move {
            let (socket, _) = listener.accept().await.unwrap();
            forward_echo(socket).await
        });
        let mut bytes = bytes::BytesMut::new();
        let mut codec = FrameCodec::with_checksum(XxHash64::new());
        for payload in [&b"first"[..], b"second"] {
            tokio_util::codec::Encoder::encode(&mut codec, payload, &mut bytes).unwrap();
        }
        let last = bytes.len() - 1;
        bytes[last] ^= 1; // the second payload's last byte
        let mut socket = TcpStream::connect(addr).await.unwrap();
        tokio::io::AsyncWriteExt::write_all(&mut socket, &bytes)
            .await
            .unwrap();
        let mut framed = Framed::new(socket, FrameCodec::with_checksum(XxHash64::new()));
        let mut echoed = Vec::new();
        while let Some(payload) = framed.next().await {
            echoed.push(payload.unwrap());
        }
        assert!(echoed.iter().all(|p| &p[..] == b"first"), "{echoed:?}");
        assert!(echoed.len() <= 1, "{echoed:?}");
        let err = serving.await.unwrap().unwrap_err();
        assert!(
            matches!(err, flatstream::Error::ChecksumMismatch { offset: 17, .. }),
            "{err}"
        );
    });
}
