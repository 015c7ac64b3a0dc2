//! The slice iterator over arbitrary bytes, with and without a checksum: payloads are borrowed
//! in order, the iterator ends at the end of the input or after one framing error, with a
//! checksum every payload it yields verifies, and its position is the bytes of the frames it
//! yielded.
#![no_main]

use flatstream_core::{DefaultDeframer, Frames};
use flatstream_fuzz::{Item, checksummed, max_frame_len, read_slice};
use libfuzzer_sys::fuzz_target;
use std::cell::Cell;

fuzz_target!(|input: &[u8]| {
    let [width, bound, data @ ..] = input else {
        return;
    };
    let max = max_frame_len(*bound);
    let plain = read_slice(data, DefaultDeframer, max);
    let hashed = Cell::new(0);
    let (framer, deframer) = checksummed(*width, &hashed);
    let summed = read_slice(data, deframer, max);
    // Each payload was checked once: the work is linear in the input.
    assert!(hashed.get() <= data.len() as u64);
    for item in &summed {
        if let Item::Payload(p) = item {
            use flatstream_core::Framer;
            let header = framer.header(p, 0).unwrap();
            let start = p.as_ptr() as usize - data.as_ptr() as usize;
            assert_eq!(
                &data[start - header.as_bytes().len()..start],
                header.as_bytes()
            );
        }
    }
    // The position is the bytes of the frames yielded so far, header and payload; a framing
    // error is at that position, and the remainder starts with the frame that failed.
    let mut it = Frames::new(data, DefaultDeframer).with_max_frame_len(max);
    let (mut n, mut framed) = (0, 0u64);
    loop {
        match it.next() {
            Some(Ok(p)) => {
                n += 1;
                framed += 4 + p.len() as u64;
                assert_eq!(it.position(), framed);
            }
            Some(Err(e)) => {
                assert_eq!(e.offset(), framed);
                break;
            }
            None => break,
        }
    }
    assert_eq!(it.position(), framed);
    assert_eq!(it.remainder(), &data[framed as usize..]);
    assert_eq!(
        n,
        plain
            .iter()
            .filter(|i| matches!(i, Item::Payload(_)))
            .count()
    );
});
