//! How the reader behaves at the edges: truncation, hostile lengths, interrupted and
//! non-blocking sources, and handing the source over. Tests over bytes in memory run twice:
//! over `&[u8]` or `Cursor`, which the reader parses in place, and behind [`Opaque`], which it
//! copies through its buffer as it does any other source.

mod support;

use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Error, Frames,
    StreamReader, StreamWriter,
};
use std::io::{self, ErrorKind, Read};
use support::{Fletcher32, Opaque, Scripted, Step, stream, stream_with};

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

/// A stream cut short: the messages wholly before the cut, the frame (offset, length) the cut
/// falls in if any, where the cut is, and the header length.
type Cut<'a> = (&'a [Vec<u8>], Option<(usize, usize)>, usize, usize);

/// Reads the whole messages from a stream cut short, then expects the end of the stream, or
/// `UnexpectedEof` for the frame the cut falls in.
fn expect_truncated<R: Read, D: Deframer>(
    mut reader: StreamReader<R, D>,
    (whole, torn, cut, header): Cut<'_>,
) {
    for expected in whole {
        assert_eq!(
            reader.read_message().unwrap(),
            Some(&expected[..]),
            "cut {cut}"
        );
    }
    match torn {
        None => assert_eq!(reader.read_message().unwrap(), None, "cut {cut}"),
        Some((at, len)) => match reader.read_message() {
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

        let expected = (&msgs[..whole], torn.copied(), cut, header);
        expect_truncated(StreamReader::new(data, deframer), expected);
        for capacity in [16, 64, 4096] {
            let reader = StreamReader::with_capacity(capacity, Opaque(data), deframer);
            expect_truncated(reader, expected);
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
        let in_place = StreamReader::new(&bytes[..], DefaultDeframer);
        expect_hostile(
            in_place.with_max_frame_len(bound as usize),
            len,
            bound,
            what,
        );
        let copying = StreamReader::with_capacity(256, Opaque(&bytes[..]), DefaultDeframer);
        let copying = expect_hostile(copying.with_max_frame_len(bound as usize), len, bound, what);
        // The buffer grew with the 1004 bytes received, not with the length claimed.
        assert!(
            copying.capacity() <= 2 * 1004,
            "{what}: capacity {}",
            copying.capacity()
        );
    }
}

/// Expects a frame declaring `len` to be over `bound`, or cut short if it is `bound`, and the
/// reader to stay at it; returns the reader.
fn expect_hostile<R: Read>(
    mut reader: StreamReader<R, DefaultDeframer>,
    len: u32,
    bound: u32,
    what: &str,
) -> StreamReader<R, DefaultDeframer> {
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
    // A framing error leaves the reader at the bad frame.
    assert_eq!(reader.read_message().unwrap_err().offset(), 0, "{what}");
    reader
}

#[test]
fn the_default_bound_is_the_flatbuffers_maximum_and_u32_max_exceeds_it() {
    assert_eq!(flatstream_core::frame::DEFAULT_MAX_FRAME_LEN, 1 << 31);
    let bytes = u32::MAX.to_le_bytes();
    let too_large = |e: Error| {
        matches!(
            e,
            Error::FrameTooLarge {
                len: 0xFFFF_FFFF,
                max: 0x8000_0000,
                ..
            }
        )
    };
    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
    assert!(too_large(reader.read_message().unwrap_err()));
    let mut reader = StreamReader::new(Opaque(&bytes[..]), DefaultDeframer);
    assert!(too_large(reader.read_message().unwrap_err()));
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
    let deframer = ChecksumDeframer::new(Fletcher32);
    expect_corrupt_second_frame(StreamReader::new(&bytes[..], deframer));
    expect_corrupt_second_frame(StreamReader::new(Opaque(&bytes[..]), deframer));
}

fn expect_corrupt_second_frame<R: Read>(mut reader: StreamReader<R, ChecksumDeframer<Fletcher32>>) {
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
fn reader_and_writer_are_send() {
    fn send<T: Send>() {}
    send::<StreamReader<std::fs::File, DefaultDeframer>>();
    send::<StreamReader<std::net::TcpStream, ChecksumDeframer<Fletcher32>>>();
    send::<StreamWriter<std::fs::File, DefaultFramer>>();
    send::<StreamWriter<io::BufWriter<std::net::TcpStream>, ChecksumFramer<Fletcher32>>>();
    send::<Error>();
}
