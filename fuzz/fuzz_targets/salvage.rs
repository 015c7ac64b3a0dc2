//! Salvage over arbitrary bytes, with and without a checksum: items cover the input exactly
//! and in order, every frame kept verifies, an intact stream is kept whole, and the checksum
//! work stays within the documented bound.
#![no_main]

use flatstream_core::{DefaultDeframer, Deframer, Frames, Salvage, Salvaged};
use flatstream_fuzz::{checksummed, max_frame_len};
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;

fn check<D: Deframer>(data: &[u8], deframer: D, max: usize) -> usize {
    let mut pos = 0;
    let mut last_skipped = false;
    let mut skipped_any = false;
    let mut frames = 0;
    for item in Salvage::new(data, &deframer).with_max_frame_len(max) {
        match item {
            Salvaged::Frame { offset, payload } => {
                let offset = usize::try_from(offset).unwrap();
                assert_eq!(offset, pos);
                // The frame re-reads, on its own, as exactly this payload.
                let header = 4 + deframer.checksum_size();
                let end = offset + header + payload.len();
                let mut one = Frames::new(&data[offset..end], &deframer).with_max_frame_len(max);
                assert_eq!(one.next().unwrap().unwrap(), payload);
                assert!(one.next().is_none());
                pos = end;
                last_skipped = false;
                frames += 1;
            }
            Salvaged::Skipped { start, end } => {
                let (start, end) = (
                    usize::try_from(start).unwrap(),
                    usize::try_from(end).unwrap(),
                );
                assert_eq!(start, pos);
                assert!(end > start && end <= data.len());
                assert!(!last_skipped, "two skipped ranges in a row");
                pos = end;
                last_skipped = true;
                skipped_any = true;
            }
            _ => unreachable!("no validating deframer here"),
        }
    }
    assert_eq!(pos, data.len());
    // A stream that reads cleanly and has no all-zero frame is salvaged whole, frame for frame,
    // with nothing skipped. (Salvage skips all-zero frames, and after a skip, without a
    // checksum, it may pick up anything: the first crash this target found was that.)
    let mut it = Frames::new(data, &deframer).with_max_frame_len(max);
    let mut count = 0;
    let mut at = 0;
    let mut zero = false;
    let clean = loop {
        match it.next() {
            None => break true,
            Some(Err(_)) => break false,
            Some(Ok(_)) => {
                let end = usize::try_from(it.position()).unwrap();
                zero |= data[at + 4..end].iter().all(|&b| b == 0);
                count += 1;
                at = end;
            }
        }
    };
    if clean && !zero {
        assert_eq!(count, frames);
        assert!(!skipped_any);
    }
    frames
}

fuzz_target!(|input: &[u8]| {
    let [width, bound, data @ ..] = input else {
        return;
    };
    let max = max_frame_len(*bound);
    check(data, DefaultDeframer, max);
    let hashed = Cell::new(0);
    let (_, deframer) = checksummed(*width, &hashed);
    check(data, deframer, max);
    // The work bound: each offset is tried once, plus one re-check per frame kept, each over
    // at most min(max, len) bytes; the re-reads in `check` add one more per frame.
    let n = data.len() as u64;
    let per_try = (max as u64).min(n);
    assert!(
        hashed.get() <= 3 * (n + 1) * per_try,
        "{} > bound",
        hashed.get()
    );
});
