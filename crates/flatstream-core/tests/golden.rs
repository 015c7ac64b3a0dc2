//! Golden vectors: the bytes of the default framing, written out by hand from the format
//! (`[u32 LE length][payload]`, nothing between frames), as FlatStream 0.2.x writes them.

use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Frames, NoChecksum,
    StreamReader, StreamWriter,
};
use flatstream_test_support::stream_with;

fn hex(s: &str) -> Vec<u8> {
    let s: String = s.split_whitespace().collect();
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

/// (payloads, the stream FlatStream 0.2.x's `DefaultFramer` writes for them)
fn vectors() -> Vec<(Vec<Vec<u8>>, Vec<u8>)> {
    vec![
        (vec![], vec![]),
        (vec![vec![]], hex("00000000")),
        (vec![b"a".to_vec()], hex("01000000 61")),
        (
            vec![b"ab".to_vec(), vec![], b"xyz".to_vec()],
            hex("02000000 6162  00000000  03000000 78797a"),
        ),
        // A 300-byte payload: the length needs two bytes, low byte first.
        (vec![vec![0xEE; 300]], {
            let mut v = hex("2c010000");
            v.extend(std::iter::repeat_n(0xEE, 300));
            v
        }),
    ]
}

#[test]
fn default_framer_writes_the_golden_bytes() {
    for (payloads, expected) in vectors() {
        assert_eq!(stream_with(DefaultFramer, &payloads), expected);
    }
}

#[test]
fn checksum_framer_without_checksum_writes_the_same_bytes() {
    for (payloads, expected) in vectors() {
        assert_eq!(
            stream_with(ChecksumFramer::new(NoChecksum), &payloads),
            expected
        );
    }
}

#[test]
fn golden_bytes_read_back_as_the_payloads() {
    for (payloads, stream) in vectors() {
        let mut r = StreamReader::new(&stream[..], DefaultDeframer);
        let mut got = vec![];
        r.process_all(|p| {
            got.push(p.to_vec());
            Ok(())
        })
        .unwrap();
        assert_eq!(got, payloads);

        let got: Vec<Vec<u8>> = Frames::new(&stream, ChecksumDeframer::new(NoChecksum))
            .map(|p| p.unwrap().to_vec())
            .collect();
        assert_eq!(got, payloads);
    }
}

#[test]
fn simple_mode_frames_the_finished_flatbuffer() {
    // `write(&"hello")` frames exactly the bytes a FlatBufferBuilder produces for the string.
    let mut b = flatbuffers::FlatBufferBuilder::new();
    let s = b.create_string("hello");
    b.finish(s, None);
    let fb = b.finished_data().to_vec();
    // The FlatBuffer itself: root uoffset 4, then the string (len 5, "hello", NUL, padding).
    assert_eq!(fb, hex("04000000 05000000 68656c6c6f 00 0000"));

    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    w.write(&"hello").unwrap();
    let mut expected = hex("10000000");
    expected.extend_from_slice(&fb);
    assert_eq!(w.into_inner(), expected);
}
