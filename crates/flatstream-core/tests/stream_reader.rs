//! What only `StreamReader` does (the contract every reader keeps is in `readers.rs`): its
//! buffer and the source handed back, memory given back, a callback that panics, `Send`.

use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Error, StreamReader,
    StreamWriter,
};
use flatstream_test_support::checksums::Fletcher32;
use flatstream_test_support::{Opaque, stream};
use std::io::{self, Read};

fn sample() -> Vec<Vec<u8>> {
    vec![b"first".to_vec(), vec![], vec![0xAB; 70], b"last!".to_vec()]
}

#[test]
fn handing_the_source_over_loses_nothing() {
    let msgs = sample();
    let mut bytes = stream(&msgs);
    bytes.extend_from_slice(b"RAW TRAILER");
    let cursor = io::Cursor::new(bytes.clone());
    let in_place = hand_over(StreamReader::new(cursor.clone(), DefaultDeframer), &msgs);
    assert_eq!(in_place.0, b"RAW TRAILER", "in place");
    // In place, the source itself holds the rest: nothing was read ahead.
    assert_eq!(in_place.1, 0);
    let copying = StreamReader::with_capacity(4096, Opaque(cursor), DefaultDeframer);
    let copying = hand_over(copying, &msgs);
    assert_eq!(copying.0, b"RAW TRAILER", "copying");
    assert_eq!(copying.1, b"RAW TRAILER".len());
}

/// Reads `msgs`, takes the source and the bytes read ahead apart, and returns everything
/// after the frames with the number of those bytes that came from the reader's buffer.
fn hand_over<R: Read>(
    mut reader: StreamReader<R, DefaultDeframer>,
    msgs: &[Vec<u8>],
) -> (Vec<u8>, usize) {
    for m in msgs {
        assert_eq!(reader.read_message().unwrap(), Some(&m[..]));
    }
    let (mut source, buffered) = reader.into_parts();
    let read_ahead = buffered.len();
    let mut rest = buffered;
    source.read_to_end(&mut rest).unwrap();
    (rest, read_ahead)
}

#[test]
fn unconsumed_bytes_are_available() {
    let mut bytes = stream(&[b"abc", b"def"]);
    bytes.extend_from_slice(b"tail");
    let mut r = StreamReader::new(Opaque(&bytes[..]), DefaultDeframer);
    r.read_message().unwrap();
    assert_eq!(r.buffer(), &bytes[7..]);
    let (rest, buffered) = r.into_parts();
    assert!(rest.0.is_empty());
    assert_eq!(buffered, &bytes[7..]);

    // In place, the source itself keeps them.
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    r.read_message().unwrap();
    assert!(r.buffer().is_empty());
    let (rest, buffered) = r.into_parts();
    assert_eq!(rest, &bytes[7..]);
    assert!(buffered.is_empty());
}

#[test]
fn shrink_to_releases_memory_and_keeps_unread_bytes() {
    let big = vec![9u8; 100_000];
    let bytes = stream(&[&big[..], b"small"]);
    let mut r = StreamReader::with_capacity(1024, Opaque(&bytes[..]), DefaultDeframer);
    assert_eq!(r.read_message().unwrap().unwrap().len(), 100_000);
    assert!(r.capacity() >= 100_000);
    r.shrink_to(1024);
    assert!(r.capacity() < 100_000);
    assert_eq!(r.read_message().unwrap(), Some(&b"small"[..]));
}

#[test]
fn messages_is_a_lending_iterator() {
    let bytes = stream(&[&b"x"[..], b"yy"]);
    let mut r = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut lens = vec![];
    let mut m = r.messages();
    while let Some(p) = m.next().unwrap() {
        lens.push(p.len());
    }
    assert_eq!(lens, [1, 2]);
}

/// Reads with a callback that panics once, on the payload `b"boom"`, and goes on after
/// catching it; returns every payload the callback was given.
fn read_through_a_panic<R: Read + std::panic::UnwindSafe>(
    reader: StreamReader<R, DefaultDeframer>,
) -> Vec<Vec<u8>> {
    let mut seen = vec![];
    let mut reader = std::panic::AssertUnwindSafe(reader);
    let mut panicked = false;
    loop {
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            reader.process_all(|p| {
                if p == b"boom" && !panicked {
                    panicked = true;
                    panic!("callback panics");
                }
                seen.push(p.to_vec());
                Ok(())
            })
        }));
        if let Ok(result) = outcome {
            result.unwrap();
            return seen;
        }
    }
}

#[test]
fn after_a_panicking_callback_no_frame_is_lost() {
    let msgs: Vec<Vec<u8>> = ["a", "b", "boom", "c", "d"]
        .iter()
        .map(|s| s.as_bytes().to_vec())
        .collect();
    let bytes = stream(&msgs);
    for seen in [
        read_through_a_panic(StreamReader::new(&bytes[..], DefaultDeframer)),
        read_through_a_panic(StreamReader::new(Opaque(&bytes[..]), DefaultDeframer)),
    ] {
        // Frames handed out before the panic may come again (see `process_all`), but every
        // frame from the one that panicked on is delivered, in order.
        let tail = &seen[seen.len() - 3..];
        assert_eq!(tail, &msgs[2..], "{seen:?}");
        assert!(seen.starts_with(&msgs[..2]), "{seen:?}");
    }
}

#[test]
fn reader_and_writer_are_send() {
    fn send<T: Send>() {}
    send::<StreamReader<std::fs::File, DefaultDeframer>>();
    send::<StreamReader<std::net::TcpStream, ChecksumDeframer<Fletcher32>>>();
    send::<StreamWriter<std::fs::File, DefaultFramer>>();
    send::<StreamWriter<io::BufWriter<std::net::TcpStream>, ChecksumFramer<Fletcher32>>>();
    send::<Error>();
}
