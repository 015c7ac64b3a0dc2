//! Golden framed streams, written by `tests/golden/gen.py` from Python's zlib and binascii, the
//! `xxhash` package and a CRC-32C of its own: what `StreamWriter` with `ChecksumFramer` writes
//! must equal them byte for byte, and what `StreamReader` and `Frames` read back must be their
//! payloads. For XXH3-64, CRC-32 and CRC-16 these are the bytes of FlatStream 0.2.x.

mod common;

use common::{CASES, Golden, load};
use flatstream_checksum::{AnyChecksum, Checksum, ChecksumKind, NoChecksum};
use flatstream_core::{ChecksumDeframer, ChecksumFramer, Frames, StreamReader, StreamWriter};

/// Writes the golden payloads with `checksum` and reads the golden stream back with it.
fn check<C: Checksum + Copy>(checksum: C, golden: &Golden) {
    let name = &golden.name;

    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum));
    for payload in &golden.payloads {
        writer.write_payload(payload).unwrap();
    }
    assert_eq!(writer.bytes_written(), golden.stream.len() as u64, "{name}");
    let written = writer.into_inner();
    assert!(written == golden.stream, "{name}: written bytes differ");

    for (payload, field) in golden.payloads.iter().zip(&golden.fields) {
        assert_eq!(field.len(), checksum.size(), "{name}");
        let mut stored = [0u8; 8];
        stored[..field.len()].copy_from_slice(field);
        let mask = if field.len() == 8 {
            u64::MAX
        } else {
            (1u64 << (8 * field.len())) - 1
        };
        assert_eq!(
            checksum.calculate(payload) & mask,
            u64::from_le_bytes(stored),
            "{name}"
        );
    }

    // Small capacity, so that frames straddle buffer refills.
    let mut reader =
        StreamReader::with_capacity(16, &golden.stream[..], ChecksumDeframer::new(checksum));
    for (i, expected) in golden.payloads.iter().enumerate() {
        let payload = reader
            .read_message()
            .unwrap_or_else(|e| panic!("{name} frame {i}: {e}"));
        assert_eq!(payload, Some(&expected[..]), "{name} frame {i}");
    }
    assert_eq!(reader.read_message().unwrap(), None, "{name}");

    let read: Vec<&[u8]> = Frames::new(&golden.stream, ChecksumDeframer::new(checksum))
        .collect::<Result<_, _>>()
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    assert_eq!(read.len(), golden.payloads.len(), "{name}");
    assert!(
        read.iter().zip(&golden.payloads).all(|(a, b)| a == b),
        "{name}"
    );
}

/// Checks `algorithm`'s three golden streams with a static type and with `AnyChecksum`.
fn check_all<C: Checksum + Copy>(algorithm: &str, checksum: C) {
    let any: AnyChecksum = algorithm.parse().unwrap();
    for case in CASES {
        let golden = load(algorithm, case);
        check(checksum, &golden);
        check(any, &golden);
    }
}

#[test]
fn none_matches_golden_streams() {
    check_all("none", NoChecksum);
}

/// One test per algorithm, each under its feature: `feature, test name, algorithm name, type`.
macro_rules! golden_tests {
    ($($feature:literal, $test:ident, $algorithm:literal, $ty:ident;)*) => {$(
        #[cfg(feature = $feature)]
        #[test]
        fn $test() {
            check_all($algorithm, flatstream_checksum::$ty::new());
        }
    )*};
}

golden_tests! {
    "xxhash", xxhash64_matches_golden_streams, "xxhash64", XxHash64;
    "crc32", crc32_matches_golden_streams, "crc32", Crc32;
    "crc16", crc16_matches_golden_streams, "crc16", Crc16;
    "crc32c", crc32c_matches_golden_streams, "crc32c", Crc32c;
}

#[test]
fn golden_files_cover_every_algorithm_and_case() {
    let mut found = Vec::new();
    for entry in std::fs::read_dir(common::golden_dir()).unwrap() {
        let name = entry.unwrap().file_name().into_string().unwrap();
        let Some(stem) = name.strip_suffix(".hex") else {
            continue;
        };
        let (algorithm, case) = stem.split_once('-').unwrap();
        let kind: ChecksumKind = algorithm.parse().unwrap();
        assert_eq!(kind.name(), algorithm, "{name}: use the canonical name");
        assert!(CASES.contains(&case), "{name}: unknown case");
        found.push(name);
    }
    assert_eq!(
        found.len(),
        ChecksumKind::ALL.len() * CASES.len(),
        "{found:?}"
    );
}

#[test]
fn the_multi_frame_stream_starts_with_a_real_flatbuffer() {
    let golden = load("none", "multi");
    let root = flatstream_core::flatbuffers::root::<&str>(&golden.payloads[0]).unwrap();
    assert_eq!(root, "hello");
    assert!(golden.payloads.iter().any(|p| p.is_empty()));
    assert!(golden.payloads.iter().any(|p| p.len() > 4096));
}
