//! Damage and disagreement: a flipped payload byte, a flipped checksum byte, or a reader set up
//! with another algorithm is a typed error at the frame's offset, and no payload is handed out
//! for that frame, by `StreamReader` or by `Frames`.

#![allow(clippy::cast_possible_truncation)]
// byte patterns and test offsets
// Without any algorithm only the round trip of unchecksummed frames is left to test.
#![cfg_attr(
    not(any(
        feature = "xxhash",
        feature = "crc32",
        feature = "crc16",
        feature = "crc32c"
    )),
    allow(dead_code)
)]

mod common;

use flatstream_checksum::{AnyChecksum, Checksum, ChecksumKind};
use flatstream_core::{
    ChecksumDeframer, ChecksumFramer, Error, Frames, StreamReader, StreamWriter,
};
use proptest::prelude::*;

/// Payloads of the 24-byte telemetry size and a few others, none empty.
fn payloads() -> Vec<Vec<u8>> {
    [24usize, 9, 100, 24, 1, 300]
        .iter()
        .enumerate()
        .map(|(f, &n)| (0..n).map(|i| (i * 29 + f * 101 + 3) as u8).collect())
        .collect()
}

fn write(checksum: AnyChecksum, payloads: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum));
    let mut offsets = Vec::new();
    for p in payloads {
        offsets.push(writer.bytes_written());
        writer.write_payload(p).unwrap();
    }
    (writer.into_inner(), offsets)
}

/// Reads `bytes` with `checksum` both ways; returns the payloads read before the first error
/// and that error. Asserts the two readers agree and that the error repeats / ends the
/// iteration.
fn read_until_error(checksum: AnyChecksum, bytes: &[u8]) -> (Vec<Vec<u8>>, Option<Error>) {
    let mut reader = StreamReader::with_capacity(64, bytes, ChecksumDeframer::new(checksum));
    let mut from_reader = Vec::new();
    let reader_error = loop {
        match reader.read_message() {
            Ok(Some(p)) => from_reader.push(p.to_vec()),
            Ok(None) => break None,
            Err(e) => break Some(e),
        }
    };
    if let Some(e) = &reader_error {
        // A framing error leaves the reader at the bad frame.
        let again = reader.read_message().unwrap_err();
        assert_eq!(again.offset(), e.offset());
        assert_eq!(reader.position(), e.offset());
    }

    let mut frames = Frames::new(bytes, ChecksumDeframer::new(checksum));
    let mut from_frames = Vec::new();
    let mut frames_error = None;
    for item in frames.by_ref() {
        match item {
            Ok(p) => from_frames.push(p.to_vec()),
            Err(e) => {
                frames_error = Some(e);
                break;
            }
        }
    }
    assert!(frames.next().is_none(), "fused after a framing error");
    assert_eq!(from_reader, from_frames);
    assert_eq!(
        reader_error.as_ref().map(Error::offset),
        frames_error.as_ref().map(Error::offset)
    );
    (from_reader, reader_error)
}

/// The enabled algorithms other than none; at least one, or the tests using it would be empty.
fn checksummed() -> impl Iterator<Item = AnyChecksum> {
    let all: Vec<AnyChecksum> = common::enabled()
        .into_iter()
        .filter(|c| c.kind() != ChecksumKind::None)
        .collect();
    assert!(!all.is_empty(), "no checksum algorithm enabled");
    all.into_iter()
}

fn assert_mismatch_at(
    what: &str,
    (read, err): (Vec<Vec<u8>>, Option<Error>),
    payloads: &[Vec<u8>],
    frame: usize,
    offset: u64,
) {
    assert_eq!(
        read,
        payloads[..frame],
        "{what}: payloads before the damage, and only those"
    );
    match err {
        Some(Error::ChecksumMismatch {
            offset: at,
            expected,
            actual,
        }) => {
            assert_eq!(at, offset, "{what}");
            assert_ne!(expected, actual, "{what}");
        }
        other => panic!("{what}: expected ChecksumMismatch at {offset}, got {other:?}"),
    }
}

/// For each algorithm, each frame of `payloads` and each byte of that frame that `span` picks
/// (given the frame's start and its end), flipped by each of `flips`: calls `check` with the
/// algorithm, the frame's index and start, the damaged stream and a description of the damage.
fn each_flipped_byte(
    payloads: &[Vec<u8>],
    span: impl Fn(usize, usize) -> std::ops::Range<usize>,
    flips: &[u8],
    mut check: impl FnMut(AnyChecksum, usize, u64, &[u8], &str),
) {
    for checksum in checksummed() {
        let (bytes, offsets) = write(checksum, payloads);
        for (frame, &start) in offsets.iter().enumerate() {
            let end = start as usize + 4 + checksum.size() + payloads[frame].len();
            for at in span(start as usize, end) {
                for &flip in flips {
                    let mut damaged = bytes.clone();
                    damaged[at] ^= flip;
                    let what = format!("{checksum}: frame {frame}, byte {at} ^ {flip:#x}");
                    check(checksum, frame, start, &damaged, &what);
                }
            }
        }
    }
}

/// The tests that need at least one algorithm.
#[cfg(any(
    feature = "xxhash",
    feature = "crc32",
    feature = "crc16",
    feature = "crc32c"
))]
mod with_an_algorithm {
    use super::*;

    #[test]
    fn every_flipped_payload_or_checksum_byte_is_a_mismatch_at_its_frame() {
        let payloads = payloads();
        // Every byte after the length prefix: the checksum field, then the payload.
        let after_the_length = |start: usize, end| start + 4..end;
        each_flipped_byte(
            &payloads,
            after_the_length,
            &[0x01, 0x80, 0xFF],
            |checksum, frame, start, damaged, what| {
                let result = read_until_error(checksum, damaged);
                assert_mismatch_at(what, result, &payloads, frame, start);
            },
        );
    }

    #[test]
    fn a_damaged_length_prefix_is_an_error_at_its_frame_never_a_payload() {
        let payloads = payloads();
        let the_length = |start: usize, _| start..start + 4;
        each_flipped_byte(
            &payloads,
            the_length,
            &[0x01, 0x02, 0x10, 0x80],
            |checksum, frame, start, damaged, what| {
                let what = format!("{what} (length prefix)");
                let (read, err) = read_until_error(checksum, damaged);
                assert_eq!(read, payloads[..frame], "{what}");
                let err = err.unwrap_or_else(|| panic!("{what}: no error"));
                assert_eq!(err.offset(), start, "{what}: {err}");
                assert!(err.is_framing_error(), "{what}: {err}");
            },
        );
    }

    #[test]
    fn a_reader_with_another_algorithm_fails_on_the_first_frame() {
        let payloads = payloads();
        for writer in common::enabled() {
            let (bytes, _) = write(writer, &payloads);
            for reader in checksummed().filter(|r| *r != writer) {
                let what = format!("written with {writer}, read with {reader}");
                let result = read_until_error(reader, &bytes);
                assert_mismatch_at(&what, result, &payloads, 0, 0);
            }
        }
    }
}

#[cfg(all(feature = "crc32", feature = "crc32c"))]
#[test]
fn an_empty_first_payload_cannot_tell_same_width_crcs_apart_but_the_next_frame_does() {
    // The CRCs here all give 0 for no bytes, so the frame of an empty payload is the same
    // under CRC-32 and CRC-32C; it is also truly empty, so what is handed out is right.
    let crc32 = AnyChecksum::from(flatstream_checksum::Crc32::new());
    let crc32c = AnyChecksum::from(flatstream_checksum::Crc32c::new());
    let payloads = vec![Vec::new(), b"123456789".to_vec()];
    let (bytes, offsets) = write(crc32, &payloads);
    let result = read_until_error(crc32c, &bytes);
    assert_mismatch_at("crc32 read as crc32c", result, &payloads, 1, offsets[1]);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn any_payloads_round_trip_and_any_flipped_bit_is_caught(
        payloads in prop::collection::vec(prop::collection::vec(any::<u8>(), 1..200), 1..6),
        pick in any::<prop::sample::Index>(),
        bit in 0u8..8,
    ) {
        for checksum in common::enabled() {
            let (bytes, offsets) = write(checksum, &payloads);
            let (read, err) = read_until_error(checksum, &bytes);
            prop_assert!(err.is_none());
            prop_assert_eq!(&read, &payloads);
            if checksum.kind() == ChecksumKind::None {
                continue;
            }
            // Flip one bit of one frame's checksum field or payload.
            let frame = pick.index(payloads.len());
            let start = offsets[frame] as usize;
            let span = checksum.size() + payloads[frame].len();
            let at = start + 4 + pick.index(span);
            let mut damaged = bytes.clone();
            damaged[at] ^= 1 << bit;
            let (read, err) = read_until_error(checksum, &damaged);
            prop_assert_eq!(&read[..], &payloads[..frame]);
            let is_mismatch_here = matches!(
                err,
                Some(Error::ChecksumMismatch { offset, .. }) if offset == start as u64
            );
            prop_assert!(is_mismatch_here);
        }
    }
}

#[test]
fn public_types_are_send_sync_and_copy() {
    fn assert_traits<T: Send + Sync + Copy + 'static>() {}
    assert_traits::<AnyChecksum>();
    assert_traits::<ChecksumKind>();
    assert_traits::<flatstream_checksum::ChecksumKindError>();
    #[cfg(feature = "xxhash")]
    assert_traits::<flatstream_checksum::XxHash64>();
    #[cfg(feature = "crc32")]
    assert_traits::<flatstream_checksum::Crc32>();
    #[cfg(feature = "crc16")]
    assert_traits::<flatstream_checksum::Crc16>();
    #[cfg(feature = "crc32c")]
    assert_traits::<flatstream_checksum::Crc32c>();
}
