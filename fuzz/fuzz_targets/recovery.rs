//! Recovery over arbitrary bytes, with and without a checksum: the slice scan and the reader
//! scan agree, the intact prefix re-reads as exactly the frames counted, and the ending is
//! consistent with the bytes after it (a damaged or ambiguous end: with the frames found after
//! it).
#![no_main]

use flatstream_core::{DefaultDeframer, Deframer, Frames, Recover, StreamEnd};
use flatstream_fuzz::{Choppy, checksummed, max_frame_len};
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;

fn check<D: Deframer>(data: &[u8], schedule: &[u8], deframer: D, max: usize) {
    let recover = Recover::new(deframer).with_max_frame_len(max);
    let r = recover.scan(data);
    assert_eq!(r.scanned, data.len() as u64);
    assert!(r.valid_len <= r.scanned);
    let valid = usize::try_from(r.valid_len).unwrap();
    let prefix = Frames::new(&data[..valid], recover.deframer()).with_max_frame_len(max);
    assert_eq!(prefix.map(Result::unwrap).count() as u64, r.frames);
    match &r.end {
        StreamEnd::Clean => assert_eq!(valid, data.len()),
        StreamEnd::TornTail { needed, present } => {
            assert_eq!(r.valid_len + present, r.scanned);
            assert!(needed > present);
        }
        StreamEnd::Corrupt(e) => {
            assert_eq!(e.offset(), r.valid_len);
            assert!(valid < data.len());
        }
        // A frame that runs past the end with frames after it: they start past its first
        // byte and end exactly at the end of the data or chain on, as the ending says.
        StreamEnd::Damaged {
            needed,
            present,
            resumes_at,
        }
        | StreamEnd::Ambiguous {
            needed,
            present,
            resumes_at,
        } => {
            assert_eq!(r.valid_len + present, r.scanned);
            assert!(needed > present);
            assert!(*resumes_at > r.valid_len && *resumes_at < r.scanned);
            let from = usize::try_from(*resumes_at).unwrap();
            let mut after = Frames::new(&data[from..], recover.deframer()).with_max_frame_len(max);
            if matches!(r.end, StreamEnd::Ambiguous { .. }) {
                // No checksum: frames that parse up to the end exactly, at least three not empty.
                assert_eq!(recover.deframer().checksum_size(), 0);
                let frames: Vec<&[u8]> = after.by_ref().map(Result::unwrap).collect();
                assert!(frames.iter().filter(|p| !p.is_empty()).count() >= 3);
            } else {
                // A frame that verifies starts there.
                assert!(recover.deframer().checksum_size() > 0);
                assert!(matches!(after.next(), Some(Ok(_))));
            }
        }
        _ => unreachable!("a new ending the fuzzer does not know"),
    }
    let s = recover
        .scan_reader(Choppy::new(data, schedule, false))
        .unwrap();
    assert_eq!(
        (s.frames, s.valid_len, s.scanned, s.rejected),
        (r.frames, r.valid_len, r.scanned, r.rejected)
    );
    assert_eq!(format!("{:?}", s.end), format!("{:?}", r.end));
}

fuzz_target!(|input: &[u8]| {
    let [width, bound, schedule_len, rest @ ..] = input else {
        return;
    };
    let (schedule, data) = rest.split_at(usize::from(*schedule_len % 8).min(rest.len()));
    let max = max_frame_len(*bound);
    check(data, schedule, DefaultDeframer, max);
    let hashed = Cell::new(0);
    let (_, deframer) = checksummed(*width, &hashed);
    check(data, schedule, deframer, max);
});
