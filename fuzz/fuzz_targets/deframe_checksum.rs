//! `StreamReader` and `Frames` with a checksummed deframer (XXH3-64, CRC-32, CRC-16 or CRC-32C) over
//! arbitrary bytes, the reader fed in input-chosen pieces with `Interrupted` and `WouldBlock`.
#![no_main]

use flatstream_fuzz::{check_reader, checksummed, max_frame_len};
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;

fuzz_target!(|input: &[u8]| {
    let [width, bound, schedule_len, rest @ ..] = input else {
        return;
    };
    let (schedule, data) = rest.split_at(usize::from(*schedule_len % 8).min(rest.len()));
    let hashed = Cell::new(0);
    let (_, deframer) = checksummed(*width, &hashed);
    check_reader(data, schedule, deframer, max_frame_len(*bound));
});
