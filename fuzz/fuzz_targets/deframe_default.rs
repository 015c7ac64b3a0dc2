//! `StreamReader` and `Frames` with the default (unchecksummed) deframer over arbitrary bytes,
//! the reader fed in input-chosen pieces with `Interrupted` and `WouldBlock`: both must agree
//! payload for payload and error for error, and neither may panic or over-allocate.
#![no_main]

use flatstream_core::DefaultDeframer;
use flatstream_fuzz::{check_reader, max_frame_len};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|input: &[u8]| {
    let [bound, schedule_len, rest @ ..] = input else {
        return;
    };
    let (schedule, data) = rest.split_at(usize::from(*schedule_len % 8).min(rest.len()));
    check_reader(data, schedule, DefaultDeframer, max_frame_len(*bound));
});
