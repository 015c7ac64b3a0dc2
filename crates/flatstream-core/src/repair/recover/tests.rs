//! Unit tests of recovery, with the toy checksums of `testing`.

use super::*;
use crate::testing::{Sum16, Sum32};
use crate::wire::framing::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Framer,
};
use alloc::format;
use alloc::string::String;
use alloc::vec::Vec;

fn framed(payloads: &[&[u8]]) -> alloc::vec::Vec<u8> {
    let mut out = alloc::vec::Vec::new();
    for p in payloads {
        let header = ChecksumFramer::new(Sum32).header(p, 0).unwrap();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(p);
    }
    out
}

#[test]
fn clean_empty_and_torn() {
    let r = Recover::new(DefaultDeframer).scan(&[]);
    assert!(r.is_clean());
    assert_eq!((r.frames, r.valid_len, r.scanned), (0, 0, 0));

    let bytes = [1, 0, 0, 0, 7, 3, 0];
    let r = Recover::new(DefaultDeframer).scan(&bytes);
    assert_eq!((r.frames, r.valid_len, r.discarded()), (1, 5, 2));
    assert!(matches!(
        r.end,
        StreamEnd::TornTail {
            needed: 4,
            present: 2
        }
    ));
}

#[test]
fn checksum_mismatch_is_corrupt_at_that_frame() {
    let mut bytes = framed(&[b"abc", b"defg", b"h"]);
    bytes[11 + 8] ^= 1; // first payload byte of the second frame
    let r = Recover::new(ChecksumDeframer::new(Sum32)).scan(&bytes);
    assert_eq!((r.frames, r.valid_len), (1, 11));
    assert!(matches!(
        r.end,
        StreamEnd::Corrupt(Error::ChecksumMismatch { offset: 11, .. })
    ));
}

#[test]
fn reader_scan_agrees_with_slice_scan() {
    let mut bytes = framed(&[b"abc", b"", b"xyz"]);
    for cut in 0..=bytes.len() {
        let d = ChecksumDeframer::new(Sum32);
        let a = Recover::new(&d).scan(&bytes[..cut]);
        let b = Recover::new(&d).scan_reader(&bytes[..cut]).unwrap();
        assert_eq!(
            (a.frames, a.valid_len, a.scanned, a.is_clean()),
            (b.frames, b.valid_len, b.scanned, b.is_clean()),
            "cut {cut}"
        );
    }
    bytes[9] ^= 0x40;
    let b = Recover::new(ChecksumDeframer::new(Sum32))
        .scan_reader(&bytes[..])
        .unwrap();
    assert_eq!(
        (b.frames, b.valid_len, b.scanned),
        (0, 0, bytes.len() as u64)
    );
    assert!(matches!(b.end, StreamEnd::Corrupt(_)));
}

/// Frames of `payloads` with `framer`, and where each starts (and the last ends).
fn stream<F: Framer>(framer: F, payloads: &[&[u8]]) -> (Vec<u8>, Vec<usize>) {
    let mut out = Vec::new();
    let mut bounds = vec![0];
    for p in payloads {
        let header = framer.header(p, 0).unwrap();
        out.extend_from_slice(header.as_bytes());
        out.extend_from_slice(p);
        bounds.push(out.len());
    }
    (out, bounds)
}

/// Everything a scan reports, comparable.
fn verdict(r: &Recovery) -> String {
    format!(
        "{} {} {} {} {:?}",
        r.frames, r.rejected, r.valid_len, r.scanned, r.end
    )
}

/// What damage does to one byte: the 0x7f high byte of the issue that led here, every bit
/// flipped, and the byte set to 0 and to 0xff.
fn damages(byte: u8) -> Vec<u8> {
    let mut out: Vec<u8> = (0..8).map(|bit| byte ^ (1 << bit)).collect();
    out.extend([0x7f, 0, 0xff]);
    out.retain(|&b| b != byte);
    out
}

/// Damages every byte of every length field of a small stream in turn: a scan (over the slice
/// and over a reader, which agree) never calls an end a torn tail while an intact frame
/// follows the frame it would cut, and keeps every frame before the damaged one.
fn sweep_length_damage<D: Deframer + Copy, F: Framer>(framer: F, deframer: D, payloads: &[&[u8]]) {
    let (bytes, bounds) = stream(framer, payloads);
    let recover = Recover::new(deframer);
    for frame in 0..payloads.len() {
        for at in bounds[frame]..bounds[frame] + 4 {
            for value in damages(bytes[at]) {
                let mut data = bytes.clone();
                data[at] = value;
                let r = recover.scan(&data);
                let from_reader = recover.scan_reader(&data[..]).unwrap();
                let case = format!("frame {frame}, byte {at} = {value:#x}");
                assert_eq!(verdict(&r), verdict(&from_reader), "{case}");
                assert_eq!(r.valid_len, bounds[frame] as u64, "{case}");
                if r.is_torn_tail() {
                    assert_eq!(frame, payloads.len() - 1, "{case}: {:?}", r.end);
                }
                if let StreamEnd::Damaged { resumes_at, .. } = r.end {
                    assert!(
                        bounds[frame + 1..].iter().any(|&b| b as u64 == resumes_at),
                        "{case}"
                    );
                }
            }
        }
    }
}

#[test]
fn a_damaged_length_is_never_called_a_torn_tail_while_intact_frames_follow() {
    let payloads: [&[u8]; 6] = [
        b"alpha",
        b"a longer second payload",
        b"c",
        b"delta",
        b"ee",
        b"f!",
    ];
    sweep_length_damage(
        ChecksumFramer::new(Sum32),
        ChecksumDeframer::new(Sum32),
        &payloads,
    );
    sweep_length_damage(
        ChecksumFramer::new(Sum16),
        ChecksumDeframer::new(Sum16),
        &payloads,
    );
}

proptest::proptest! {
    #![proptest_config(proptest::prelude::ProptestConfig::with_cases(64))]

    /// The same sweep over random streams, with the 4-byte test checksum (the 2-byte one is a
    /// plain byte sum: on random payloads a damaged length verifies by chance). Payloads are
    /// not empty: see "Zeros look like empty frames" on `Recover`.
    #[test]
    fn a_damaged_length_never_costs_an_intact_frame(
        payloads in proptest::collection::vec(
            proptest::collection::vec(proptest::prelude::any::<u8>(), 1..40),
            2..7,
        )
    ) {
        let payloads: Vec<&[u8]> = payloads.iter().map(Vec::as_slice).collect();
        sweep_length_damage(ChecksumFramer::new(Sum32), ChecksumDeframer::new(Sum32), &payloads);
    }
}

#[test]
fn every_cut_is_a_torn_tail_at_the_torn_frame() {
    fn sweep<D: Deframer + Copy, F: Framer>(framer: F, deframer: D) {
        let payloads: [&[u8]; 4] = [b"one", b"", b"three and more", b"4"];
        let (bytes, bounds) = stream(framer, &payloads);
        for cut in 0..=bytes.len() {
            let r = Recover::new(deframer).scan(&bytes[..cut]);
            let start = *bounds.iter().rfind(|&&b| b <= cut).unwrap();
            assert_eq!(r.valid_len, start as u64, "cut {cut}");
            assert_eq!(r.is_torn_tail(), start != cut, "cut {cut}: {:?}", r.end);
            let from_reader = Recover::new(deframer).scan_reader(&bytes[..cut]).unwrap();
            assert_eq!(verdict(&r), verdict(&from_reader), "cut {cut}");
        }
    }
    sweep(ChecksumFramer::new(Sum32), ChecksumDeframer::new(Sum32));
    sweep(ChecksumFramer::new(Sum16), ChecksumDeframer::new(Sum16));
    sweep(DefaultFramer, DefaultDeframer);
}

/// Four checksummed frames, the second's length damaged to run past the end (its top byte set
/// to 0x7f), and where each frame starts.
fn a_damaged_length() -> (Vec<u8>, Vec<usize>) {
    let (mut bytes, bounds) = stream(
        ChecksumFramer::new(Sum32),
        &[b"first", b"second", b"third", b"fourth"],
    );
    bytes[bounds[1] + 3] = 0x7f;
    (bytes, bounds)
}

#[test]
fn frames_after_a_length_that_runs_past_the_end_make_it_damage() {
    let (bytes, bounds) = a_damaged_length();
    let r = Recover::new(ChecksumDeframer::new(Sum32)).scan(&bytes);
    assert_eq!((r.frames, r.valid_len), (1, bounds[1] as u64));
    let needed = 8 + 6 + (0x7f << 24);
    let present = (bytes.len() - bounds[1]) as u64;
    assert!(
        matches!(r.end, StreamEnd::Damaged { needed: n, present: p, resumes_at }
            if (n, p, resumes_at) == (needed, present, bounds[2] as u64)),
        "{:?}",
        r.end
    );
    assert!(!r.is_torn_tail() && !r.is_clean());
}

#[test]
fn without_a_checksum_a_chain_to_the_end_puts_the_end_in_doubt() {
    let payloads: [&[u8]; 5] = [b"first", b"second", b"third", b"fourth", b"fifth"];
    let (bytes, bounds) = stream(DefaultFramer, &payloads);
    // Damage to the second frame's length: three frames follow, enough to doubt.
    let mut data = bytes.clone();
    data[bounds[1] + 3] = 0x7f;
    let r = Recover::new(DefaultDeframer).scan(&data);
    assert!(
        matches!(r.end, StreamEnd::Ambiguous { resumes_at, .. } if resumes_at == bounds[2] as u64),
        "{:?}",
        r.end
    );
    assert_eq!(
        verdict(&r),
        verdict(
            &Recover::new(DefaultDeframer)
                .scan_reader(&data[..])
                .unwrap()
        )
    );
    // To the third's: two follow, which a torn payload's bytes may well spell. A torn tail.
    let mut data = bytes.clone();
    data[bounds[2] + 3] = 0x7f;
    let r = Recover::new(DefaultDeframer).scan(&data);
    assert!(r.is_torn_tail(), "{:?}", r.end);
    // Empty frames never count: zeros are what a file system leaves.
    let mut zeros = bytes[..bounds[2]].to_vec();
    zeros.extend_from_slice(&[9, 0, 0, 0, 1, 2]);
    zeros.extend_from_slice(&[0; 40]);
    let r = Recover::new(DefaultDeframer).scan(&zeros);
    assert!(r.is_torn_tail(), "{:?}", r.end);
}

#[cfg(feature = "std")]
mod files {
    use super::*;
    use std::fs::{self, OpenOptions};

    /// Writes `bytes` to a file of its own, repairs it under `policy`, and returns the result
    /// and the file's bytes afterwards.
    fn repair<D: Deframer>(
        name: &str,
        bytes: &[u8],
        deframer: D,
        policy: RepairPolicy,
    ) -> (crate::Result<Recovery>, Vec<u8>) {
        let dir =
            std::env::temp_dir().join(format!("flatstream-core-repair-{}", std::process::id()));
        fs::create_dir_all(&dir).unwrap();
        let path = dir.join(name);
        fs::write(&path, bytes).unwrap();
        let mut file = OpenOptions::new()
            .read(true)
            .write(true)
            .open(&path)
            .unwrap();
        let result = Recover::new(deframer).repair_file(&mut file, policy);
        drop(file);
        let after = fs::read(&path).unwrap();
        fs::remove_file(&path).unwrap();
        (result, after)
    }

    #[test]
    fn repair_refuses_a_damaged_length_and_leaves_the_file_as_it_is() {
        let (bytes, bounds) = super::a_damaged_length();
        let d = ChecksumDeframer::new(Sum32);
        for policy in [RepairPolicy::TornTail, RepairPolicy::AssumeTornTail] {
            let (result, after) = repair("damaged", &bytes, d, policy);
            let err = result.unwrap_err();
            assert!(
                matches!(err, Error::DamagedLength { offset, resumes_at, .. }
                    if (offset, resumes_at) == (bounds[1] as u64, bounds[2] as u64)),
                "{err}"
            );
            assert_eq!(after, bytes, "{policy:?}: the file is left as it is");
        }
        // Asked to, it cuts after the last intact frame before the damage.
        let (result, after) = repair("damaged", &bytes, d, RepairPolicy::AfterLastGoodFrame);
        assert!(matches!(result.unwrap().end, StreamEnd::Damaged { .. }));
        assert_eq!(after, bytes[..bounds[1]]);
    }

    #[test]
    fn repair_cuts_an_end_in_doubt_only_when_told_it_is_a_torn_tail() {
        let (mut bytes, bounds) =
            stream(DefaultFramer, &[b"first", b"second", b"third", b"fourth"]);
        bytes[bounds[0] + 3] = 0x7f;
        let (result, after) = repair("doubt", &bytes, DefaultDeframer, RepairPolicy::TornTail);
        let err = result.unwrap_err();
        assert!(
            matches!(err, Error::AmbiguousTail { offset: 0, resumes_at, .. } if resumes_at == bounds[1] as u64),
            "{err}"
        );
        assert_eq!(after, bytes);
        let (result, after) = repair(
            "doubt",
            &bytes,
            DefaultDeframer,
            RepairPolicy::AssumeTornTail,
        );
        assert!(matches!(result.unwrap().end, StreamEnd::Ambiguous { .. }));
        assert!(after.is_empty());
    }

    #[test]
    fn repair_still_cuts_a_torn_tail_exactly() {
        let (bytes, bounds) = stream(ChecksumFramer::new(Sum32), &[b"first", b"second", b"third"]);
        let cut = bounds[2] + 7;
        let (result, after) = repair(
            "torn",
            &bytes[..cut],
            ChecksumDeframer::new(Sum32),
            RepairPolicy::TornTail,
        );
        assert!(result.unwrap().is_torn_tail());
        assert_eq!(after, bytes[..bounds[2]]);
    }
}
