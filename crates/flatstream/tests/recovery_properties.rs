//! Property tests of recovery over every framing (no checksum, XXH3-64, CRC-32, CRC-16,
//! CRC-32C): a damaged length field never makes `Recover` cut an intact frame, and a stream
//! cut anywhere loses exactly the frame it was cut in.

use flatstream::checksum::{AnyChecksum, ChecksumKind};
use flatstream::repair::{Recover, Recovery, RepairPolicy, StreamEnd};
use flatstream::{ChecksumDeframer, ChecksumFramer, Deframer, Error, StreamWriter};
use proptest::prelude::*;
use std::fs::{self, OpenOptions};
use std::path::PathBuf;

const KINDS: [ChecksumKind; 5] = [
    ChecksumKind::None,
    ChecksumKind::XxHash64,
    ChecksumKind::Crc32,
    ChecksumKind::Crc16,
    ChecksumKind::Crc32c,
];

/// The stream, and where each frame starts (and the last ends).
fn stream(kind: ChecksumKind, payloads: &[Vec<u8>]) -> (Vec<u8>, Vec<usize>) {
    let mut w = StreamWriter::new(
        Vec::new(),
        ChecksumFramer::new(AnyChecksum::new(kind).unwrap()),
    );
    let mut bounds = vec![0];
    for p in payloads {
        w.write_payload(p).unwrap();
        bounds.push(w.bytes_written() as usize);
    }
    (w.into_inner(), bounds)
}

fn deframer(kind: ChecksumKind) -> ChecksumDeframer<AnyChecksum> {
    ChecksumDeframer::new(AnyChecksum::new(kind).unwrap())
}

/// Everything a scan reports, comparable.
fn verdict(r: &Recovery) -> String {
    format!(
        "{} {} {} {} {:?}",
        r.frames, r.rejected, r.valid_len, r.scanned, r.end
    )
}

/// A file of this test process's own, removed on drop.
struct Scratch(PathBuf);

impl Scratch {
    fn new() -> Self {
        let path = std::env::temp_dir().join(format!(
            "flatstream-recovery-properties-{}-{:?}.fstream",
            std::process::id(),
            std::thread::current().id()
        ));
        Scratch(path)
    }

    /// Writes `bytes`, repairs the file with the default policy, and returns the result and
    /// what the file holds afterwards.
    fn repair<D: Deframer>(
        &self,
        bytes: &[u8],
        deframer: D,
    ) -> (flatstream::Result<Recovery>, Vec<u8>) {
        fs::write(&self.0, bytes).unwrap();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&self.0)
            .unwrap();
        let result = Recover::new(deframer).repair_file(&mut file, RepairPolicy::TornTail);
        drop(file);
        (result, fs::read(&self.0).unwrap())
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = fs::remove_file(&self.0);
    }
}

/// What damage does to one byte: the 0x7f high byte, each bit flipped, 0 and 0xff.
fn damages(byte: u8) -> Vec<u8> {
    let mut out: Vec<u8> = (0..8).map(|bit| byte ^ (1 << bit)).collect();
    out.extend([0x7f, 0, 0xff]);
    out.retain(|&b| b != byte);
    out
}

fn payloads() -> impl Strategy<Value = Vec<Vec<u8>>> {
    // Not empty: with a CRC an empty payload's frame is all zeros, which no reader can tell
    // from a zero-filled hole (the documented limit).
    prop::collection::vec(prop::collection::vec(any::<u8>(), 1..48), 2..7)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(16))]

    /// Every byte of every length field damaged in turn: whatever the scan concludes, no
    /// frame after the damaged one is ever cut, neither by `scan`'s `valid_len` when it
    /// calls the end a torn tail nor by `repair_file` with the default policy; what the file
    /// keeps is what it held, and `scan_reader` agrees with `scan`.
    #[test]
    fn a_damaged_length_never_costs_an_intact_frame(payloads in payloads()) {
        let scratch = Scratch::new();
        for kind in KINDS.into_iter().filter(|&k| k != ChecksumKind::None) {
            let (bytes, bounds) = stream(kind, &payloads);
            let last = payloads.len() - 1;
            for (frame, &start) in bounds[..payloads.len()].iter().enumerate() {
                for at in start..start + 4 {
                    for value in damages(bytes[at]) {
                        let mut data = bytes.clone();
                        data[at] = value;
                        let case = format!("{kind}, frame {frame}, byte {at} = {value:#x}");
                        let r = Recover::new(deframer(kind)).scan(&data);
                        let from_reader = Recover::new(deframer(kind)).scan_reader(&data[..]).unwrap();
                        prop_assert_eq!(verdict(&r), verdict(&from_reader), "{}", case);
                        prop_assert!(r.valid_len >= start as u64, "{}", case);
                        if r.is_torn_tail() {
                            // Only the damaged frame is cut, and only when it is the last.
                            prop_assert_eq!(frame, last, "{}: {:?}", case, r.end);
                        }
                        let (result, after) = scratch.repair(&data, deframer(kind));
                        match result {
                            Ok(rec) => {
                                prop_assert!(rec.is_torn_tail() || rec.is_clean(), "{}", case);
                                prop_assert_eq!(&after[..], &data[..rec.valid_len as usize], "{}", case);
                                if after.len() < data.len() {
                                    prop_assert_eq!(frame, last, "{}: cut to {}", case, after.len());
                                }
                            }
                            Err(e) => {
                                prop_assert!(
                                    matches!(e, Error::DamagedLength { .. } | Error::ChecksumMismatch { .. } | Error::FrameTooLarge { .. }),
                                    "{}: {}", case, e
                                );
                                prop_assert_eq!(&after, &data, "{}: the file is left as it is", case);
                            }
                        }
                    }
                }
            }
        }
    }

    /// Every cut of an intact stream, for every framing: the torn frame, exactly, is what
    /// `valid_len` leaves out, and `scan_reader` agrees with `scan`.
    #[test]
    fn a_cut_stream_loses_exactly_the_torn_frame(payloads in payloads()) {
        for kind in KINDS {
            let (bytes, bounds) = stream(kind, &payloads);
            for cut in 0..=bytes.len() {
                let r = Recover::new(deframer(kind)).scan(&bytes[..cut]);
                let start = *bounds.iter().rfind(|&&b| b <= cut).unwrap();
                prop_assert_eq!(r.valid_len, start as u64, "{}, cut {}", kind, cut);
                if start == cut {
                    prop_assert!(r.is_clean(), "{}, cut {}: {:?}", kind, cut, r.end);
                } else {
                    prop_assert!(
                        matches!(r.end, StreamEnd::TornTail { present, .. } if present == (cut - start) as u64),
                        "{}, cut {}: {:?}", kind, cut, r.end
                    );
                }
                let from_reader = Recover::new(deframer(kind)).scan_reader(&bytes[..cut]).unwrap();
                prop_assert_eq!(verdict(&r), verdict(&from_reader), "{}, cut {}", kind, cut);
            }
        }
    }
}

/// The case that led here: frame 1000 of 10 000 in an XXH3-64 stream, its length's high byte
/// set to 0x7f. The scan sees damage, not a torn tail, and repair leaves the file whole.
#[test]
fn one_damaged_length_in_ten_thousand_frames_is_damage() {
    let payloads: Vec<Vec<u8>> = (0..10_000u32)
        .map(|i| format!("reading {i:08} of the capture, 40 bytes").into_bytes())
        .collect();
    let (mut bytes, bounds) = stream(ChecksumKind::XxHash64, &payloads);
    bytes[bounds[1000] + 3] = 0x7f;
    let r = Recover::new(deframer(ChecksumKind::XxHash64)).scan(&bytes);
    assert_eq!((r.frames, r.valid_len), (1000, bounds[1000] as u64));
    assert!(
        matches!(r.end, StreamEnd::Damaged { resumes_at, .. } if resumes_at == bounds[1001] as u64),
        "{:?}",
        r.end
    );
    let (result, after) = Scratch::new().repair(&bytes, deframer(ChecksumKind::XxHash64));
    assert!(
        matches!(result, Err(Error::DamagedLength { .. })),
        "{result:?}"
    );
    assert_eq!(after, bytes);
}

/// The default without a checksum rests on this: torn tails of FlatBuffers telemetry are not in
/// doubt, so a crashed append is cut without `AssumeTornTail`. Every cut of 300 readings.
#[test]
fn torn_tails_of_telemetry_without_a_checksum_are_not_in_doubt() {
    use flatstream_test_support::telemetry::Reading;
    let mut w = StreamWriter::new(Vec::new(), flatstream::DefaultFramer);
    let mut bounds = vec![0];
    for i in 0..300 {
        w.write(&Reading::nth(i * 7919)).unwrap();
        bounds.push(w.bytes_written() as usize);
    }
    let bytes = w.into_inner();
    let recover = Recover::new(flatstream::DefaultDeframer);
    for cut in 0..=bytes.len() {
        let r = recover.scan(&bytes[..cut]);
        let start = *bounds.iter().rfind(|&&b| b <= cut).unwrap();
        assert_eq!(r.valid_len, start as u64, "cut {cut}");
        assert_eq!(r.is_torn_tail(), start != cut, "cut {cut}: {:?}", r.end);
    }
}
