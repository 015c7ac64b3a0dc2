//! Split reading (`SplitFrames`) under random partitions, for every checksum: the
//! resynchronization rule alone on streams whose payloads embed frames that verify, and the
//! join check on any stream at all (nested streams, zero frames, damage).

use flatstream::checksum::{Checksum, Crc32c};
use flatstream::split::SplitFrames;
use flatstream::{
    ChecksumDeframer, ChecksumFramer, Crc16, Crc32, Deframer, Error, Frames, XxHash64,
};
use flatstream_test_support::stream_with;
use proptest::prelude::*;
use std::ops::Range;

/// The bound the writer used: every payload here is shorter.
const MAX: usize = 4096;

/// The frames of `bytes` as a sequential reader sees them, and the offset of its first framing
/// error.
fn sequential<D: Deframer>(bytes: &[u8], deframer: D) -> (Vec<&[u8]>, Option<u64>) {
    let mut frames = Frames::new(bytes, deframer).with_max_frame_len(MAX);
    let mut out = Vec::new();
    for item in frames.by_ref() {
        match item {
            Ok(payload) => out.push(payload),
            Err(e) => return (out, Some(e.offset())),
        }
    }
    (out, None)
}

fn ranges(len: usize, cuts: &[usize]) -> Vec<Range<usize>> {
    let mut cuts: Vec<usize> = cuts.iter().map(|c| c % (len + 1)).collect();
    cuts.extend([0, len]);
    cuts.sort_unstable();
    cuts.dedup();
    cuts.windows(2).map(|w| w[0]..w[1]).collect()
}

/// What the splits of a partition yield, each read on its own by resynchronization:
/// `(frames, joins)`, where `joins` says for each split whether it started where the one
/// before ended.
fn by_resync<'a, D: Deframer + Copy>(
    bytes: &'a [u8],
    parts: &[Range<usize>],
    deframer: D,
) -> (Vec<&'a [u8]>, Vec<bool>) {
    let mut frames = Vec::new();
    let mut joins = Vec::new();
    let mut reach = 0;
    for range in parts {
        let mut split = SplitFrames::new(bytes, range.clone(), deframer)
            .unwrap()
            .with_max_frame_len(MAX);
        joins.push(match split.sync() {
            Some(first) => first == reach as u64,
            None => reach >= range.end,
        });
        if split.sync().is_some() {
            for payload in split.by_ref() {
                frames.push(payload.unwrap());
            }
            reach = split.position() as usize;
        }
    }
    (frames, joins)
}

/// What a coordinator gets from a partition with the join check: each split resynchronizes on
/// its own, and one that does not start where the one before ended is read again from there.
/// Returns the frames, the offset of the first error, and how many splits were read again.
fn by_joined_splits<'a, D: Deframer + Copy>(
    bytes: &'a [u8],
    parts: &[Range<usize>],
    deframer: D,
) -> (Vec<&'a [u8]>, Option<u64>, usize) {
    let mut frames = Vec::new();
    let mut reread = 0;
    let mut reach = 0;
    for range in parts {
        let mut split = SplitFrames::new(bytes, range.clone(), deframer)
            .unwrap()
            .with_max_frame_len(MAX);
        match split.sync() {
            Some(first) if first == reach as u64 => {}
            None if reach >= range.end => continue,
            _ => {
                reread += 1;
                split = SplitFrames::at_boundary(bytes, reach..range.end, deframer)
                    .with_max_frame_len(MAX);
            }
        }
        for item in split.by_ref() {
            match item {
                Ok(payload) => frames.push(payload),
                Err(e) => return (frames, Some(e.offset()), reread),
            }
        }
        reach = split.position() as usize;
    }
    (frames, None, reread)
}

/// A payload of random bytes that embeds, somewhere inside it, up to two frames of the
/// stream's own framing (headers with lengths that fit and checksums that verify), always
/// followed by at least one byte of its own, and never all zeros.
fn payload_embedding_frames<C: Checksum + Copy>(checksum: C) -> impl Strategy<Value = Vec<u8>> {
    (
        prop::collection::vec(any::<u8>(), 0..24),
        prop::collection::vec(prop::collection::vec(any::<u8>(), 0..24), 0..=2),
        prop::collection::vec(any::<u8>(), 1..24),
    )
        .prop_map(move |(mut head, inner, mut tail)| {
            tail[0] |= 1;
            head.extend(stream_with(ChecksumFramer::new(checksum), &inner));
            head.extend(tail);
            head
        })
}

/// Anything: random bytes, empty and all-zero payloads, and payloads that end with a whole
/// stream of the same framing (whose last frame ends exactly where the payload does).
fn any_payload<C: Checksum + Copy>(checksum: C) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        prop::collection::vec(any::<u8>(), 0..48),
        (0usize..40).prop_map(|n| vec![0; n]),
        Just(Vec::new()),
        (
            prop::collection::vec(any::<u8>(), 0..8),
            prop::collection::vec(prop::collection::vec(any::<u8>(), 0..16), 1..6),
        )
            .prop_map(move |(mut head, inner)| {
                head.extend(stream_with(ChecksumFramer::new(checksum), &inner));
                head
            }),
    ]
}

fn cuts() -> impl Strategy<Value = Vec<usize>> {
    prop::collection::vec(any::<usize>(), 0..8)
}

/// The resynchronization rule alone yields every frame once, in order, and every split starts
/// where the one before ended.
fn resync_alone_is_exact<C: Checksum + Copy>(checksum: C, payloads: &[Vec<u8>], cuts: &[usize]) {
    let deframer = ChecksumDeframer::new(checksum);
    let bytes = stream_with(ChecksumFramer::new(checksum), payloads);
    let parts = ranges(bytes.len(), cuts);
    let (frames, joins) = by_resync(&bytes, &parts, deframer);
    assert_eq!(frames, sequential(&bytes, deframer).0);
    assert!(joins.iter().all(|&j| j), "{joins:?} at {parts:?}");
}

/// With the join check, any stream is read exactly as a sequential reader reads it, errors
/// included (at the same offsets).
fn joined_splits_are_sequential<C: Checksum + Copy>(checksum: C, bytes: &[u8], cuts: &[usize]) {
    let deframer = ChecksumDeframer::new(checksum);
    let parts = ranges(bytes.len(), cuts);
    let (frames, error, _) = by_joined_splits(bytes, &parts, deframer);
    assert_eq!((frames, error), sequential(bytes, deframer), "at {parts:?}");
}

/// A stream of `payloads`, then optionally damaged: a byte flipped, or the tail cut.
fn damaged<C: Checksum + Copy>(
    checksum: C,
    payloads: &[Vec<u8>],
    damage: Option<(usize, u8, bool)>,
) -> Vec<u8> {
    let mut bytes = stream_with(ChecksumFramer::new(checksum), payloads);
    let Some((at, flip, cut)) = damage else {
        return bytes;
    };
    if !bytes.is_empty() {
        let at = at % bytes.len();
        if cut {
            bytes.truncate(at);
        } else {
            bytes[at] ^= flip | 1;
        }
    }
    bytes
}

macro_rules! for_each_checksum {
    ($($name:ident: $checksum:expr),* $(,)?) => {$(
        mod $name {
            use super::*;

            proptest! {
                #[test]
                fn resync_alone_yields_every_frame_once_in_order(
                    payloads in prop::collection::vec(payload_embedding_frames($checksum), 0..12),
                    cuts in cuts(),
                ) {
                    resync_alone_is_exact($checksum, &payloads, &cuts);
                }

                #[test]
                fn with_the_join_check_any_stream_reads_as_sequentially(
                    payloads in prop::collection::vec(any_payload($checksum), 0..12),
                    damage in prop::option::of((any::<usize>(), any::<u8>(), any::<bool>())),
                    cuts in cuts(),
                ) {
                    let bytes = damaged($checksum, &payloads, damage);
                    joined_splits_are_sequential($checksum, &bytes, &cuts);
                }
            }
        }
    )*};
}

for_each_checksum! {
    xxhash64: XxHash64,
    crc32: Crc32,
    crc32c: Crc32c,
    crc16: Crc16,
}

/// A payload that ends with a whole stream of the same framing fools the resynchronization
/// (nothing local can tell), and the join check catches it.
#[test]
fn a_nested_stream_fools_resync_and_the_join_check_catches_it() {
    let inner = stream_with(ChecksumFramer::new(XxHash64), &[b"in-1", b"in-2", b"in-3"]);
    let payloads = [b"before".to_vec(), inner, b"after".to_vec()];
    let bytes = stream_with(ChecksumFramer::new(XxHash64), &payloads);
    let deframer = ChecksumDeframer::new(XxHash64);
    let outer_second = 12 + 6;
    let parts = [0..outer_second + 1, outer_second + 1..bytes.len()];

    let (frames, joins) = by_resync(&bytes, &parts, deframer);
    assert_eq!(
        joins,
        [true, false],
        "the second split started on the inner stream"
    );
    assert_eq!(
        frames,
        [
            &b"before"[..],
            &payloads[1],
            b"in-1",
            b"in-2",
            b"in-3",
            b"after"
        ],
        "read alone, it yields inner frames (the first split yielded the whole payload)"
    );

    let (frames, error, reread) = by_joined_splits(&bytes, &parts, deframer);
    assert_eq!((error, reread), (None, 1));
    assert_eq!(frames, [&payloads[0][..], &payloads[1], &payloads[2]]);
}

#[test]
fn a_stream_without_a_checksum_cannot_be_split_past_its_start() {
    let bytes = flatstream_test_support::stream(&[b"a", b"b"]);
    let err = SplitFrames::new(&bytes, 3..bytes.len(), flatstream::DefaultDeframer).unwrap_err();
    assert!(matches!(err, Error::Unsplittable { offset: 3 }));
    assert!(err.to_string().contains("without a checksum"));
}
