//! Streaming over real TCP sockets on loopback: a blocking reader straight on the `TcpStream`
//! (no `BufReader`), and a non-blocking one that sees `WouldBlock` and carries on.

use flatstream::{DefaultDeframer, DefaultFramer, Error, StreamReader, StreamWriter};
use std::io::{BufWriter, ErrorKind, Write};
use std::net::{TcpListener, TcpStream};
use std::thread;
use std::time::Duration;

fn payload(i: u32) -> Vec<u8> {
    // Sizes from 0 to ~9 KiB, so frames straddle the reader's buffer and TCP segments.
    let len = (i as usize * 937) % 9_000;
    (0..len).map(|j| (i as usize + j) as u8).collect()
}

fn send(addr: std::net::SocketAddr, count: u32) -> thread::JoinHandle<u64> {
    thread::spawn(move || {
        let socket = TcpStream::connect(addr).unwrap();
        let mut writer = StreamWriter::new(BufWriter::new(socket), DefaultFramer);
        for i in 0..count {
            writer.write_payload(&payload(i)).unwrap();
            if i % 97 == 0 {
                writer.flush().unwrap(); // let partial frames reach the reader
            }
        }
        writer.flush().unwrap();
        writer.bytes_written()
    })
}

#[test]
fn blocking_reader_on_a_raw_tcp_stream() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let sender = send(listener.local_addr().unwrap(), 2_000);
    let (socket, _) = listener.accept().unwrap();
    let mut reader = StreamReader::new(socket, DefaultDeframer);
    let mut i = 0;
    reader
        .process_all(|p| {
            assert_eq!(p, payload(i), "message {i}");
            i += 1;
            Ok(())
        })
        .unwrap();
    assert_eq!(i, 2_000);
    assert_eq!(reader.position(), sender.join().unwrap());
}

#[test]
fn non_blocking_reader_resumes_after_would_block() {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = listener.local_addr().unwrap();
    let sender = thread::spawn(move || {
        let mut socket = TcpStream::connect(addr).unwrap();
        let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
        for i in 0..300 {
            w.write_payload(&payload(i)).unwrap();
        }
        // Dribble the stream out in odd-sized pieces with pauses, so the reader sees
        // `WouldBlock` in the middle of headers and payloads.
        for piece in w.into_inner().chunks(1_531) {
            socket.write_all(piece).unwrap();
            thread::sleep(Duration::from_micros(200));
        }
    });
    let (socket, _) = listener.accept().unwrap();
    socket.set_nonblocking(true).unwrap();
    let mut reader = StreamReader::with_capacity(4096, socket, DefaultDeframer);
    let (mut i, mut blocked) = (0, 0);
    loop {
        match reader.read_message() {
            Ok(Some(p)) => {
                assert_eq!(p, payload(i), "message {i}");
                i += 1;
            }
            Ok(None) => break,
            Err(Error::Io { source, .. }) if source.kind() == ErrorKind::WouldBlock => {
                blocked += 1;
                thread::sleep(Duration::from_micros(50));
            }
            Err(e) => panic!("{e}"),
        }
    }
    sender.join().unwrap();
    assert_eq!(i, 300);
    assert!(blocked > 0, "the reader never had to wait");
}
