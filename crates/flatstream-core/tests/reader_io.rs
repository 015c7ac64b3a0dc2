//! How the reader behaves at the edges: truncation, hostile lengths, interrupted and
//! non-blocking sources, and handing the source over.

mod support;

use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DEFAULT_MAX_FRAME_LEN, DefaultDeframer, DefaultFramer,
    Deframer, Error, Frames, StreamReader, StreamWriter,
};
use std::io::{self, ErrorKind};
use support::{Fletcher32, Scripted, Step, stream, stream_with};

fn sample() -> Vec<Vec<u8>> {
    vec![b"first".to_vec(), vec![], vec![0xAB; 70], b"last!".to_vec()]
}

/// Frame boundaries of `msgs` with a header of `header` bytes: (offset, frame length).
fn boundaries(msgs: &[Vec<u8>], header: usize) -> Vec<(usize, usize)> {
    let mut at = 0;
    msgs.iter()
        .map(|m| {
            let b = (at, header + m.len());
            at += header + m.len();
            b
        })
        .collect()
}

fn truncation_sweep<D: Deframer + Copy>(
    bytes: &[u8],
    msgs: &[Vec<u8>],
    deframer: D,
    header: usize,
) {
    let frames = boundaries(msgs, header);
    for cut in 0..=bytes.len() {
        let data = &bytes[..cut];
        // Frames wholly before the cut, and the frame the cut falls in, if any.
        let whole = frames
            .iter()
            .take_while(|(at, len)| at + len <= cut)
            .count();
        let torn = frames.get(whole).filter(|(at, _)| *at < cut);

        for capacity in [16, 64, 4096] {
            let mut reader = StreamReader::with_capacity(capacity, data, deframer);
            for expected in &msgs[..whole] {
                assert_eq!(
                    reader.read_message().unwrap(),
                    Some(&expected[..]),
                    "cut {cut}"
                );
            }
            match torn {
                None => assert_eq!(reader.read_message().unwrap(), None, "cut {cut}"),
                Some(&(at, len)) => match reader.read_message() {
                    Err(Error::UnexpectedEof {
                        offset,
                        needed,
                        present,
                    }) => {
                        assert_eq!(offset, at as u64, "cut {cut}");
                        assert_eq!(present, (cut - at) as u64, "cut {cut}");
                        // Before the length prefix is complete, only the header is known.
                        let expected = if cut - at < 4 { header } else { len };
                        assert_eq!(needed, expected as u64, "cut {cut}");
                    }
                    other => panic!("cut {cut}: expected UnexpectedEof, got {other:?}"),
                },
            }
        }

        let mut it = Frames::new(data, deframer);
        for expected in &msgs[..whole] {
            assert_eq!(it.next().unwrap().unwrap(), &expected[..]);
        }
        match torn {
            None => assert!(it.next().is_none(), "cut {cut}"),
            Some(&(at, _)) => {
                let err = it.next().unwrap().unwrap_err();
                assert!(
                    matches!(err, Error::UnexpectedEof { .. }),
                    "cut {cut}: {err}"
                );
                assert_eq!(err.offset(), at as u64);
            }
        }
    }
}

#[test]
fn truncation_at_every_offset_is_none_at_a_boundary_and_an_error_inside_a_frame() {
    let msgs = sample();
    truncation_sweep(&stream(&msgs), &msgs, DefaultDeframer, 4);
}

#[test]
fn truncation_sweep_with_a_checksum() {
    let msgs = sample();
    let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
    truncation_sweep(&bytes, &msgs, ChecksumDeframer::new(Fletcher32), 8);
}

#[test]
fn hostile_lengths_are_errors_without_large_buffers() {
    let bound: u32 = 1 << 20;
    let cases: [(u32, &str); 3] = [
        (u32::MAX, "u32::MAX"),
        (bound + 1, "bound + 1"),
        (bound, "within the bound, past the end"),
    ];
    for (len, what) in cases {
        let mut bytes = len.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[7; 1000]);
        let mut reader = StreamReader::with_capacity(256, &bytes[..], DefaultDeframer)
            .with_max_frame_len(bound as usize);
        let err = reader.read_message().unwrap_err();
        match err {
            Error::FrameTooLarge {
                offset: 0,
                len: l,
                max,
            } => {
                assert_ne!(len, bound, "{what}");
                assert_eq!((l, max), (u64::from(len), u64::from(bound)), "{what}");
            }
            Error::UnexpectedEof {
                offset: 0,
                needed,
                present,
            } => {
                assert_eq!(len, bound, "{what}");
                assert_eq!((needed, present), (4 + u64::from(len), 1004), "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        // The buffer grew with the 1004 bytes received, not with the length claimed.
        assert!(
            reader.capacity() <= 2 * 1004,
            "{what}: capacity {}",
            reader.capacity()
        );
        // A framing error leaves the reader at the bad frame.
        assert_eq!(reader.read_message().unwrap_err().offset(), 0, "{what}");
    }
}

#[test]
fn the_default_bound_is_the_flatbuffers_maximum_and_u32_max_exceeds_it() {
    assert_eq!(DEFAULT_MAX_FRAME_LEN, 1 << 31);
    let bytes = u32::MAX.to_le_bytes();
    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
    assert!(matches!(
        reader.read_message(),
        Err(Error::FrameTooLarge {
            len: 0xFFFF_FFFF,
            max: 0x8000_0000,
            ..
        })
    ));
}

#[test]
fn interrupted_reads_are_retried() {
    let msgs = sample();
    let script = [
        Step::Fail(ErrorKind::Interrupted),
        Step::Bytes(2),
        Step::Fail(ErrorKind::Interrupted),
        Step::Fail(ErrorKind::Interrupted),
        Step::Bytes(9),
        Step::Fail(ErrorKind::Interrupted),
    ];
    let source = Scripted::new(stream(&msgs), script, 5);
    let mut reader = StreamReader::with_capacity(16, source, DefaultDeframer);
    for m in &msgs {
        assert_eq!(reader.read_message().unwrap(), Some(&m[..]));
    }
    assert_eq!(reader.read_message().unwrap(), None);
}

#[test]
fn would_block_is_returned_and_the_next_call_continues_the_partial_frame() {
    let msgs = sample();
    // Block mid-header, mid-payload, and between frames.
    let script = [
        Step::Bytes(2),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Bytes(5),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Bytes(4),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Bytes(30),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Fail(ErrorKind::WouldBlock),
    ];
    let source = Scripted::new(stream(&msgs), script, 7);
    let mut reader = StreamReader::with_capacity(16, source, DefaultDeframer);
    let mut got = vec![];
    let mut blocked = 0;
    loop {
        match reader.read_message() {
            Ok(Some(p)) => got.push(p.to_vec()),
            Ok(None) => break,
            Err(Error::Io { source, offset }) => {
                assert_eq!(source.kind(), ErrorKind::WouldBlock);
                assert_eq!(offset, reader.position());
                blocked += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(blocked, 5);
    assert_eq!(got, msgs);
}

#[test]
fn other_io_errors_keep_what_was_received() {
    let msgs = sample();
    let script = [Step::Bytes(6), Step::Fail(ErrorKind::ConnectionReset)];
    let source = Scripted::new(stream(&msgs), script, 1000);
    let mut reader = StreamReader::new(source, DefaultDeframer);
    let err = reader.read_message().unwrap_err();
    assert!(
        matches!(&err, Error::Io { source, offset: 0 } if source.kind() == ErrorKind::ConnectionReset)
    );
    let io: io::Error = err.into();
    assert_eq!(io.kind(), ErrorKind::ConnectionReset);
    assert_eq!(reader.read_message().unwrap(), Some(&b"first"[..]));
}

#[test]
fn a_corrupt_checksum_is_reported_and_never_handed_out() {
    let msgs = sample();
    let mut bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
    // Frame 1 is 8 + 5 bytes; frame 2 (empty payload) starts at 13, its checksum field at 17.
    bytes[17] ^= 0x01;
    let mut reader = StreamReader::new(&bytes[..], ChecksumDeframer::new(Fletcher32));
    assert_eq!(reader.read_message().unwrap(), Some(&b"first"[..]));
    let err = reader.read_message().unwrap_err();
    assert!(
        matches!(err, Error::ChecksumMismatch { offset: 13, .. }),
        "{err}"
    );
    // The reader stays at the bad frame.
    assert!(matches!(
        reader.read_message(),
        Err(Error::ChecksumMismatch { offset: 13, .. })
    ));
}

#[test]
fn handing_the_source_over_loses_nothing() {
    let msgs = sample();
    let mut bytes = stream(&msgs);
    bytes.extend_from_slice(b"RAW TRAILER");
    let mut reader =
        StreamReader::with_capacity(4096, io::Cursor::new(bytes.clone()), DefaultDeframer);
    for m in &msgs {
        assert_eq!(reader.read_message().unwrap(), Some(&m[..]));
    }
    let consumed = reader.position() as usize;
    let (mut source, buffered) = reader.into_parts();
    let mut rest = buffered;
    io::Read::read_to_end(&mut source, &mut rest).unwrap();
    assert_eq!(rest, &bytes[consumed..]);
    assert_eq!(rest, b"RAW TRAILER");
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
