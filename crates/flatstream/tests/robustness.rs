//! Sweeps over a damaged multi-frame stream, for every framing (none, XXH3-64, CRC-32, CRC-16,
//! CRC-32C): truncated at every byte offset, and with each bit of every byte flipped. For each
//! variant the slice iterator, the reader, recovery and salvage must not panic, must not
//! allocate beyond the bytes present (counting allocator), and, with a checksum, must never hand
//! out a payload that was not written.

use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::repair::{Recover, Salvage, Salvaged, StreamEnd};
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Framer, Frames,
    StreamReader, StreamWriter,
};
use flatstream_test_support::alloc::{CountingAlloc, measure_exact};
use flatstream_test_support::telemetry::Reading;

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A stream of telemetry readings and raw payloads of awkward sizes, and where each frame
/// starts and ends.
struct Fixture {
    bytes: Vec<u8>,
    payloads: Vec<Vec<u8>>,
    /// `bounds[i]..bounds[i + 1]` is frame `i`.
    bounds: Vec<usize>,
}

fn fixture<F: Framer>(framer: F) -> Fixture {
    let mut w = StreamWriter::new(Vec::new(), framer);
    let mut bounds = vec![0];
    for i in 0..3 {
        w.write(&Reading::nth(i)).unwrap();
        bounds.push(w.bytes_written() as usize);
    }
    for raw in [&b""[..], b"x", &[0xA5; 70][..]] {
        w.write_payload(raw).unwrap();
        bounds.push(w.bytes_written() as usize);
    }
    w.write(&Reading::nth(99)).unwrap();
    bounds.push(w.bytes_written() as usize);
    let bytes = w.into_inner();
    let payloads = bounds
        .windows(2)
        .map(|b| {
            let header = b[1] - b[0] - frame_payload_len(&bytes[b[0]..]);
            bytes[b[0] + header..b[1]].to_vec()
        })
        .collect();
    Fixture {
        bytes,
        payloads,
        bounds,
    }
}

fn frame_payload_len(frame: &[u8]) -> usize {
    u32::from_le_bytes(frame[..4].try_into().unwrap()) as usize
}

/// What one reading of a damaged stream produced.
#[derive(Debug, PartialEq)]
struct Read {
    payloads: Vec<Vec<u8>>,
    error: Option<String>,
}

/// Reads `data` with the slice iterator, the reader and recovery, checks they agree and stay
/// within the allocation bound, and returns what they read.
fn read_all<D: Deframer + Copy>(data: &[u8], deframer: D) -> Read {
    let (frames, stats) = measure_exact(|| {
        let mut n = 0;
        let mut last = None;
        for item in Frames::new(data, deframer) {
            match item {
                Ok(_) => n += 1,
                Err(e) => last = Some(e.offset()),
            }
        }
        (n, last)
    });
    assert_eq!(stats.allocations, 0, "the slice iterator allocated");

    let (recovery, stats) = measure_exact(|| Recover::new(deframer).scan(data));
    if deframer.checksum_size() > 0 {
        assert_eq!(stats.allocations, 0, "recovery allocated");
    } else {
        // Looking past a frame that runs off the end: one byte per byte after its start.
        assert!(stats.allocations <= 1, "recovery allocated {stats:?}");
        assert!(
            stats.largest <= data.len() as u64 + 1,
            "recovery allocated {stats:?}"
        );
    }
    assert_eq!(recovery.frames, frames.0);
    if let Some(offset) = frames.1 {
        assert_eq!(recovery.valid_len, offset);
    }

    let (salvaged, stats) = measure_exact(|| {
        Salvage::new(data, deframer)
            .with_max_frame_len(1 << 16)
            .count()
    });
    assert_eq!(stats.allocations, 0, "salvage allocated");
    assert!(salvaged <= data.len() + 1);

    // The reader: a small initial buffer, so that growth is visible, and the default 2 GiB
    // bound, so that a flipped length bit claims far more than is present.
    let mut payloads = Vec::new();
    let mut reader = StreamReader::with_capacity(16, data, deframer);
    let mut largest = 0;
    let error = loop {
        let (item, stats) = measure_exact(|| reader.read_message().map(|p| p.map(<[u8]>::to_vec)));
        largest = largest.max(stats.largest);
        match item {
            Ok(Some(p)) => payloads.push(p),
            Ok(None) => break None,
            Err(e) => break Some(e.to_string()),
        }
    };
    let bound = 2 * data.len().max(16) as u64;
    assert!(
        largest <= bound,
        "reader allocated {largest} bytes for a {}-byte input",
        data.len()
    );
    assert_eq!(payloads.len() as u64, frames.0);
    Read { payloads, error }
}

fn framings() -> Vec<(&'static str, Option<ChecksumKind>)> {
    vec![
        ("none", None),
        ("xxhash64", Some(ChecksumKind::XxHash64)),
        ("crc32", Some(ChecksumKind::Crc32)),
        ("crc16", Some(ChecksumKind::Crc16)),
        ("crc32c", Some(ChecksumKind::Crc32c)),
    ]
}

/// Runs `f` with the fixture and deframer of each framing.
fn for_each_framing(
    mut f: impl FnMut(
        &str,
        &Fixture,
        &dyn Fn(&[u8]) -> Read,
        &dyn Fn(&[u8]) -> Vec<(usize, usize)>,
        bool,
    ),
) {
    for (name, kind) in framings() {
        match kind {
            None => {
                let fx = fixture(DefaultFramer);
                f(
                    name,
                    &fx,
                    &|d| read_all(d, DefaultDeframer),
                    &|d| salvage(d, DefaultDeframer),
                    false,
                );
            }
            Some(kind) => {
                let sum = AnyChecksum::new(kind).unwrap();
                let fx = fixture(ChecksumFramer::new(sum));
                let d = ChecksumDeframer::new(sum);
                f(name, &fx, &|b| read_all(b, d), &|b| salvage(b, d), true);
            }
        }
    }
}

/// The frames salvage keeps, as `(offset, payload length)`.
fn salvage<D: Deframer>(data: &[u8], deframer: D) -> Vec<(usize, usize)> {
    Salvage::new(data, deframer)
        .with_max_frame_len(1 << 16)
        .filter_map(|item| match item {
            Salvaged::Frame { offset, payload } => Some((offset as usize, payload.len())),
            _ => None,
        })
        .collect()
}

#[test]
fn truncation_at_every_offset() {
    for_each_framing(|name, fx, read, _, _| {
        for cut in 0..=fx.bytes.len() {
            let data = &fx.bytes[..cut];
            let got = read(data);
            let whole = fx.bounds.iter().filter(|&&b| b <= cut).count() - 1;
            // A cut stream is the intact frames before the cut, then a torn tail or nothing.
            assert_eq!(got.payloads, fx.payloads[..whole], "{name}, cut at {cut}");
            assert_eq!(
                got.error.is_none(),
                fx.bounds.contains(&cut),
                "{name}, cut at {cut}"
            );
        }
    });
}

#[test]
fn recovery_of_a_truncated_stream_finds_the_last_whole_frame() {
    for (name, kind) in framings() {
        let sum = AnyChecksum::new(kind.unwrap_or(ChecksumKind::None)).unwrap();
        let fx = fixture(ChecksumFramer::new(sum));
        for cut in 0..=fx.bytes.len() {
            let r = Recover::new(ChecksumDeframer::new(sum)).scan(&fx.bytes[..cut]);
            let last = *fx.bounds.iter().rfind(|&&b| b <= cut).unwrap();
            assert_eq!(r.valid_len, last as u64, "{name}, cut at {cut}");
            assert_eq!(r.scanned, cut as u64);
            match r.end {
                StreamEnd::Clean => assert_eq!(last, cut),
                StreamEnd::TornTail { present, .. } => {
                    assert_eq!(present, (cut - last) as u64, "{name}, cut at {cut}");
                }
                ref e => panic!("{name}, cut at {cut}: {e:?}"),
            }
        }
    }
}

#[test]
fn bit_flip_at_every_byte() {
    for_each_framing(|name, fx, read, salvaged, checksummed| {
        for at in 0..fx.bytes.len() {
            let frame = fx.bounds.iter().filter(|&&b| b <= at).count() - 1;
            for bit in 0..8 {
                let mut data = fx.bytes.clone();
                data[at] ^= 1 << bit;
                let got = read(&data);
                if !checksummed {
                    continue; // without a checksum only the bounds are guaranteed
                }
                // Never a payload that was not written: the frames before the damaged one,
                // then an error.
                assert_eq!(
                    got.payloads,
                    fx.payloads[..frame],
                    "{name}, byte {at} bit {bit}"
                );
                assert!(got.error.is_some(), "{name}, byte {at} bit {bit}");
                // Salvage keeps every other frame, exactly where it was, except frames of zero
                // bytes (an empty payload whose checksum is 0), which it never keeps.
                let zero = |i: usize| {
                    fx.bytes[fx.bounds[i]..fx.bounds[i + 1]]
                        .iter()
                        .all(|&b| b == 0)
                };
                let expected: Vec<(usize, usize)> = (0..fx.payloads.len())
                    .filter(|&i| i != frame && !zero(i))
                    .map(|i| (fx.bounds[i], fx.payloads[i].len()))
                    .collect();
                assert_eq!(salvaged(&data), expected, "{name}, byte {at} bit {bit}");
            }
        }
    });
}
