//! Write-then-read of arbitrary message lists, with and without a checksum: through a sink
//! that accepts input-chosen pieces, every message reads back, byte for byte, through the
//! slice iterator and through a reader fed in pieces. Through a sink that fails after an
//! input-chosen number of bytes, the writer's count is what the sink holds, and recovery finds
//! exactly the messages written whole.
#![no_main]

use flatstream_core::{
    DefaultDeframer, DefaultFramer, Deframer, Framer, Frames, Recover, StreamEnd,
};
use flatstream_fuzz::{check_reader, checksummed, write_all};
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;

fn check<F: Framer + Copy, D: Deframer + Copy>(
    messages: &[Vec<u8>],
    framer: F,
    deframer: D,
    schedule: &[u8],
    limit: u16,
) {
    let (bytes, whole) = write_all(messages, framer, schedule, usize::MAX);
    assert_eq!(whole, messages.len());
    let read: Vec<&[u8]> = Frames::new(&bytes, deframer).map(Result::unwrap).collect();
    assert_eq!(read, messages.iter().map(Vec::as_slice).collect::<Vec<_>>());
    check_reader(
        &bytes,
        schedule,
        deframer,
        flatstream_core::frame::DEFAULT_MAX_FRAME_LEN,
    );

    let (torn, whole) = write_all(messages, framer, schedule, usize::from(limit));
    let r = Recover::new(deframer).scan(&torn);
    assert_eq!(r.frames, whole as u64);
    // A torn payload that itself holds frames (a stream inside a stream, or without a checksum
    // bytes that parse as three frames up to the cut) reads as damage: documented, and safe,
    // since repair then refuses to cut.
    assert!(matches!(
        r.end,
        StreamEnd::Clean
            | StreamEnd::TornTail { .. }
            | StreamEnd::Damaged { .. }
            | StreamEnd::Ambiguous { .. }
    ));
}

fuzz_target!(|input: (u8, u16, Vec<u8>, Vec<Vec<u8>>)| {
    let (width, limit, schedule, messages) = input;
    let schedule = &schedule[..schedule.len().min(8)];
    // One framing per input: the default one for a fifth of the inputs, a checksum otherwise.
    if width % 5 == 4 {
        check(&messages, DefaultFramer, DefaultDeframer, schedule, limit);
    } else {
        let hashed = Cell::new(0);
        let (framer, deframer) = checksummed(width, &hashed);
        check(&messages, framer, deframer, schedule, limit);
    }
});
