//! The worked examples of `docs/wire-format.md` are what flatstream writes and reads.

use flatstream::checksum::Checksum;
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer, Frames,
    StreamWriter,
};

const DOC: &str = include_str!("../../../docs/wire-format.md");

/// (framing, frame bytes) rows of the table between the `wire-examples` markers.
fn examples() -> Vec<(String, Vec<u8>)> {
    let start = DOC
        .find("<!-- wire-examples:start -->")
        .expect("start marker");
    let end = DOC.find("<!-- wire-examples:end -->").expect("end marker");
    DOC[start..end]
        .lines()
        .filter(|l| l.starts_with("| ") && l.contains('`'))
        .map(|l| {
            let cells: Vec<&str> = l.split('|').map(str::trim).collect();
            let hex: String = cells[2].chars().filter(char::is_ascii_hexdigit).collect();
            let bytes = (0..hex.len())
                .step_by(2)
                .map(|i| u8::from_str_radix(&hex[i..i + 2], 16).unwrap())
                .collect();
            (cells[1].to_owned(), bytes)
        })
        .collect()
}

fn hello() -> Vec<u8> {
    let mut b = flatbuffers::FlatBufferBuilder::new();
    let s = b.create_string("hello");
    b.finish(s, None);
    b.finished_data().to_vec()
}

fn check<F: Framer, D: Deframer>(framing: &str, expected: &[u8], framer: F, deframer: D) {
    let payload = if framing.contains("empty") {
        vec![]
    } else {
        hello()
    };
    let mut w = StreamWriter::new(Vec::new(), framer);
    w.write_payload(&payload).unwrap();
    assert_eq!(w.into_inner(), expected, "{framing}");
    let read: Vec<&[u8]> = Frames::new(expected, deframer)
        .map(Result::unwrap)
        .collect();
    assert_eq!(read, [&payload[..]], "{framing}");
}

/// `check` with `checksum` on both sides.
#[allow(dead_code)] // without any checksum feature
fn check_checksum<C: Checksum + Copy>(framing: &str, expected: &[u8], checksum: C) {
    check(
        framing,
        expected,
        ChecksumFramer::new(checksum),
        ChecksumDeframer::new(checksum),
    );
}

#[test]
fn the_worked_examples_are_what_flatstream_writes() {
    let rows = examples();
    assert_eq!(rows.len(), 6);
    for (framing, bytes) in rows {
        match framing.split(',').next().unwrap() {
            "default" => check(&framing, &bytes, DefaultFramer, DefaultDeframer),
            #[cfg(feature = "crc16")]
            "CRC-16" => check_checksum(&framing, &bytes, flatstream::Crc16::new()),
            #[cfg(feature = "crc32")]
            "CRC-32" => check_checksum(&framing, &bytes, flatstream::Crc32::new()),
            #[cfg(feature = "xxhash")]
            "XXH3-64" => check_checksum(&framing, &bytes, flatstream::XxHash64::new()),
            other => eprintln!("skipping {other}: its checksum feature is off"),
        }
    }
}
