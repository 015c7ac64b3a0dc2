//! The partition rule, tested directly: random streams of every framing, cut into random
//! byte ranges, give exactly the frames of a sequential read, in order, or a clear error.

use super::*;
use flatstream_checksum::ChecksumKind;
use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
use flatstream_core::{ChecksumFramer, Frames, StreamWriter};
use futures::executor::block_on;
use proptest::prelude::*;

type Frame = (u64, Vec<u8>);

fn checksum(kind: ChecksumKind) -> AnyChecksum {
    AnyChecksum::new(kind).unwrap()
}

fn stream(kind: ChecksumKind, payloads: &[Vec<u8>]) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), ChecksumFramer::new(checksum(kind)));
    for p in payloads {
        w.write_payload(p).unwrap();
    }
    w.into_inner()
}

/// A stream of `count` payloads of `len` bytes each, payload `i` all `i`.
fn numbered(kind: ChecksumKind, count: u8, len: usize) -> Vec<u8> {
    let payloads: Vec<Vec<u8>> = (0..count).map(|i| vec![i; len]).collect();
    stream(kind, &payloads)
}

/// What a sequential reader makes of `bytes`: the frames, then the error that stopped it.
fn sequential(kind: ChecksumKind, bytes: &[u8]) -> (Vec<Frame>, Option<flatstream_core::Error>) {
    let mut frames = Frames::new(bytes, ChecksumDeframer::new(checksum(kind)));
    let mut out = Vec::new();
    loop {
        let at = frames.position();
        match frames.next() {
            Some(Ok(p)) => out.push((at, p.to_vec())),
            Some(Err(e)) => return (out, Some(e)),
            None => return (out, None),
        }
    }
}

/// The frames one partition reads, or its error.
fn partition(
    kind: ChecksumKind,
    bytes: &[u8],
    range: Range<u64>,
    sizes: Sizes,
) -> Result<Vec<Frame>, Error> {
    let src = MemoryFile {
        bytes: Bytes::copy_from_slice(bytes),
        name: "mem.fstream".to_owned(),
    };
    block_on(async {
        let mut reader = RangeReader::open(
            src,
            range,
            ChecksumDeframer::new(checksum(kind)),
            DEFAULT_MAX_FRAME_LEN,
            sizes,
        )
        .await?;
        let mut out = Vec::new();
        // As a scan drives it: the frames already buffered, then the async way.
        loop {
            let frame = match reader.next_buffered() {
                Some(frame) => frame,
                None => match reader.next().await? {
                    Some(frame) => frame,
                    None => break,
                },
            };
            out.push((frame.offset, reader.bytes()[frame.payload].to_vec()));
        }
        // A reader ends once: after its last frame or its error.
        assert!(reader.next_buffered().is_none());
        assert!(reader.next().await?.is_none());
        Ok(out)
    })
}

/// Reads `bytes` in the partitions cut at `cuts` (sorted, within the file), and checks the
/// rule: all succeed and together give the sequential frames exactly, or some fail; a
/// stream a sequential reader reads whole fails only by a resynchronization error; one it
/// does not fails somewhere. Returns whether all succeeded.
fn check_cuts(kind: ChecksumKind, bytes: &[u8], cuts: &[u64], sizes: Sizes) -> bool {
    let (expected, failure) = sequential(kind, bytes);
    let mut bounds = vec![0];
    bounds.extend_from_slice(cuts);
    bounds.push(bytes.len() as u64);
    let mut all = Vec::new();
    let mut failed = false;
    for pair in bounds.windows(2) {
        match partition(kind, bytes, pair[0]..pair[1], sizes) {
            Ok(frames) => {
                if let Some(first) = frames.first() {
                    assert!(
                        first.0 >= pair[0] || pair[0] == 0,
                        "{kind}: a frame before the range {pair:?}"
                    );
                }
                all.extend(frames);
            }
            Err(e) => {
                failed = true;
                if failure.is_none() {
                    assert!(
                        matches!(e, Error::Resync { .. }),
                        "{kind}: a whole stream, cuts {cuts:?}: {e}"
                    );
                }
                let text = e.to_string();
                assert!(text.starts_with("mem.fstream: "), "names the file: {text}");
            }
        }
    }
    if !failed {
        assert!(
            failure.is_none(),
            "{kind}: the sequential read fails ({failure:?}), the partitions did not"
        );
        assert_eq!(all, expected, "{kind}: cuts {cuts:?}");
    }
    !failed
}

const SMALL: Sizes = Sizes {
    window: 16,
    chunk: 7,
};

#[test]
fn every_cut_of_a_clean_stream_gives_every_frame_once() {
    let payloads: Vec<Vec<u8>> = (0..12u8)
        .map(|i| (0..i * 3).map(|b| b.wrapping_mul(31) ^ i).collect())
        .collect();
    for kind in ChecksumKind::ALL {
        let bytes = stream(kind, &payloads);
        for cut in 0..=bytes.len() as u64 {
            for sizes in [Sizes::SCAN, SMALL] {
                assert!(check_cuts(kind, &bytes, &[cut], sizes), "{kind} cut {cut}");
            }
        }
    }
}

#[test]
fn without_a_checksum_the_range_at_zero_reads_everything() {
    let payloads = vec![b"one".to_vec(), b"two".to_vec(), b"three".to_vec()];
    let bytes = stream(ChecksumKind::None, &payloads);
    let len = bytes.len() as u64;
    let first = partition(ChecksumKind::None, &bytes, 0..5, Sizes::SCAN).unwrap();
    assert_eq!(first.len(), 3, "the whole file, whatever the range's end");
    for start in 1..len {
        let rest = partition(ChecksumKind::None, &bytes, start..len, Sizes::SCAN).unwrap();
        assert!(rest.is_empty(), "start {start}");
    }
}

#[test]
fn a_stream_inside_a_payload_fails_the_range_before_it_rather_than_duplicate() {
    // The second frame's payload is a whole stream of the same framing: a cut inside it
    // resynchronizes on the inner frames, which the outer chain steps over.
    let kind = ChecksumKind::Crc32;
    let inner = stream(
        kind,
        &[b"in-1".to_vec(), b"in-2".to_vec(), b"in-3".to_vec()],
    );
    let payloads = vec![b"head".to_vec(), inner, b"tail".to_vec(), b"end".to_vec()];
    let bytes = stream(kind, &payloads);
    let inner_start = 8 + 4 + 8; // the first frame, then the outer header
    let cut = inner_start as u64 - 1;
    let err = partition(kind, &bytes, 0..cut, Sizes::SCAN).unwrap_err();
    match err {
        Error::Resync {
            from,
            reached,
            boundary,
            ..
        } => {
            assert_eq!((from, boundary), (0, inner_start as u64));
            assert_eq!(reached, (bytes.len() - 8 - 4 - 8 - 3) as u64);
        }
        other => panic!("{other}"),
    }
    // In one partition, the same file reads whole.
    let whole = partition(kind, &bytes, 0..bytes.len() as u64, Sizes::SCAN).unwrap();
    assert_eq!(whole.len(), 4);
}

#[test]
fn damage_is_an_error_naming_the_file_and_the_offset() {
    let kind = ChecksumKind::XxHash64;
    let mut bytes = numbered(kind, 20, 30);
    let frame = 4 + 8 + 30;
    bytes[5 * frame + 20] ^= 0x40; // the sixth payload
    let err = partition(kind, &bytes, 0..bytes.len() as u64, SMALL).unwrap_err();
    let text = err.to_string();
    assert!(
        text.starts_with("mem.fstream: ") && text.contains(&(5 * frame).to_string()),
        "{text}"
    );
    assert!(matches!(
        frame_error(&err),
        Some(flatstream_core::Error::ChecksumMismatch { .. })
    ));
    // The partitions after the damage read their frames.
    let late = partition(
        kind,
        &bytes,
        7 * frame as u64 - 3..bytes.len() as u64,
        SMALL,
    )
    .unwrap();
    assert_eq!(late.first().map(|f| f.0), Some(7 * frame as u64));
    assert_eq!(late.len(), 13);
}

#[test]
fn a_torn_tail_is_an_error_of_the_last_partition() {
    let kind = ChecksumKind::Crc16;
    let mut bytes = numbered(kind, 10, 9);
    bytes.truncate(bytes.len() - 4);
    let len = bytes.len() as u64;
    assert!(partition(kind, &bytes, 0..len / 2, SMALL).is_ok());
    let err = partition(kind, &bytes, len / 2..len, SMALL).unwrap_err();
    assert!(
        matches!(
            frame_error(&err),
            Some(flatstream_core::Error::UnexpectedEof { .. })
        ),
        "{err}"
    );
}

/// The error of the frame `err` reports, if it reports one.
fn frame_error(err: &Error) -> Option<&flatstream_core::Error> {
    match err {
        Error::Frame { source, .. } => Some(source),
        _ => None,
    }
}

/// A payload: arbitrary bytes, or a whole stream of the same framing (whose frames verify
/// where a cut falls inside it).
fn payload(kind: ChecksumKind) -> impl Strategy<Value = Vec<u8>> {
    prop_oneof![
        3 => proptest::collection::vec(any::<u8>(), 0..48),
        1 => proptest::collection::vec(proptest::collection::vec(any::<u8>(), 0..12), 1..5)
            .prop_map(move |inner| stream(kind, &inner)),
    ]
}

fn kind() -> impl Strategy<Value = ChecksumKind> {
    proptest::sample::select(ChecksumKind::ALL.to_vec())
}

/// A stream, perhaps damaged (a flipped byte, or cut short), and cuts within it.
fn case() -> impl Strategy<Value = (ChecksumKind, Vec<u8>, Vec<u64>)> {
    kind()
        .prop_flat_map(|kind| {
            (
                Just(kind),
                proptest::collection::vec(payload(kind), 0..24),
                any::<u8>(),
                any::<prop::sample::Index>(),
                any::<u8>(),
            )
        })
        .prop_flat_map(|(kind, payloads, damage, at, bit)| {
            let mut bytes = stream(kind, &payloads);
            if !bytes.is_empty() {
                let at = at.index(bytes.len());
                match damage % 8 {
                    0 => bytes[at] ^= 1 << (bit % 8),
                    1 => bytes.truncate(at),
                    _ => {}
                }
            }
            let len = bytes.len() as u64;
            (
                Just(kind),
                Just(bytes),
                proptest::collection::vec(0..=len, 0..6),
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(768))]

    #[test]
    fn random_cuts_of_random_streams_give_the_sequential_frames_or_an_error(
        (kind, bytes, mut cuts) in case(),
        small in any::<bool>(),
    ) {
        cuts.sort_unstable();
        let sizes = if small { SMALL } else { Sizes::SCAN };
        check_cuts(kind, &bytes, &cuts, sizes);
    }
}
