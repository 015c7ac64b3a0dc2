//! The reader contract (`flatstream_test_support::contract`) over [`RangeReader`], driven as a
//! scan drives it (the frames already buffered, then the async way): framing errors at every
//! offset of a frame, a rejected frame, payloads as written, hostile lengths. A range reader
//! is read as `FramedRead` is: any error ends it (a scan fails on it), after the frames
//! before it.

use super::*;
use flatstream_core::frame::DEFAULT_MAX_FRAME_LEN;
use flatstream_core::{DefaultDeframer, Error as FrameError};
use flatstream_test_support::alloc::{CountingAlloc, assert_installed, measure_exact};
use flatstream_test_support::contract::{
    Checked, HOSTILE_BOUND, HOSTILE_LENGTHS, Input, LOOP_LIMIT, Opened, Reading,
    hostile_length_input,
};
use futures::executor::block_on;

// The hostile-length points measure what the reader allocates.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// Every frame `RangeReader` hands out over the whole of `input`, read with `sizes`, as a loop
/// that goes on after an error sees them (at most [`LOOP_LIMIT`] items).
fn read_whole<D: Deframer>(
    input: &Input,
    deframer: D,
    sizes: Sizes,
) -> Vec<Result<Vec<u8>, FrameError>> {
    let src = MemoryFile {
        bytes: Bytes::copy_from_slice(&input.bytes),
        name: "contract.fstream".to_owned(),
    };
    let max = input.max_frame_len.unwrap_or(DEFAULT_MAX_FRAME_LEN);
    let len = input.bytes.len() as u64;
    block_on(async {
        let mut reader = match RangeReader::open(src, 0..len, deframer, max, sizes).await {
            Ok(reader) => reader,
            Err(e) => return vec![Err(framing(e))],
        };
        let mut items = Vec::new();
        while items.len() < LOOP_LIMIT {
            let frame = match reader.next_buffered() {
                Some(frame) => frame,
                None => match reader.next().await {
                    Ok(Some(frame)) => frame,
                    Ok(None) => break,
                    Err(e) => {
                        items.push(Err(framing(e)));
                        continue;
                    }
                },
            };
            items.push(Ok(reader.bytes()[frame.payload].to_vec()));
        }
        items
    })
}

/// The framing error inside a range reader's error (a reader of a whole file in memory has
/// no other).
fn framing(e: Error) -> FrameError {
    match e {
        Error::Frame { source, .. } => source,
        other => panic!("not a framing error: {other}"),
    }
}

/// Small reads: frames cut across them, the buffer growing.
const SMALL: Sizes = Sizes {
    window: 16,
    chunk: 16,
};

/// Reads of 4 KiB: each frame of the contract's streams in one read.
const LARGE: Sizes = Sizes {
    window: 4096,
    chunk: 4096,
};

fn readings() -> Vec<Reading> {
    vec![
        Reading {
            name: "RangeReader, reads of 16 bytes",
            open: |input| Opened::Framed(read_whole(input, Checked, SMALL)),
        },
        Reading {
            name: "RangeReader, reads of 4 KiB",
            open: |input| Opened::Framed(read_whole(input, Checked, LARGE)),
        },
    ]
}

flatstream_test_support::readings_contract!(readings());

/// A length over the bound is refused from the header alone; one within it, in a file that
/// ends first, is a frame cut short: in both, the reader allocated no more than the bytes
/// present (twice, as the buffer grows) or its first read, never the claim.
#[test]
fn hostile_lengths_allocate_what_is_present_not_what_is_claimed() {
    assert_installed();
    let bound = HOSTILE_BOUND;
    for sizes in [SMALL, LARGE] {
        for (claim, received) in HOSTILE_LENGTHS {
            let what = format!("claim {claim}, {received} bytes, reads of {}", sizes.chunk);
            let input = hostile_length_input(claim, received);
            let (items, stats) = measure_exact(|| read_whole(&input, DefaultDeframer, sizes));
            let present = 4 + received as u64;
            // The input's copy, the first read's buffer and the buffer grown to what came, each
            // at most twice what it holds, and a few small allocations (the error, the items):
            // a kilobyte or so, where the claim is a mebibyte or more.
            let limit = 2 * (present + sizes.chunk) + 1024;
            assert!(stats.largest <= limit, "{what}: {stats:?} > {limit}");
            let [Err(error)] = &items[..] else {
                panic!("{what}: {items:?}");
            };
            if claim > bound {
                assert!(
                    matches!(error, FrameError::FrameTooLarge { offset: 0, len, max }
                        if *len == u64::from(claim) && *max == u64::from(bound)),
                    "{what}: {error}"
                );
            } else {
                assert!(
                    matches!(error, FrameError::UnexpectedEof { offset: 0, needed, present: p }
                        if *needed == 4 + u64::from(claim) && *p == present),
                    "{what}: {error}"
                );
            }
        }
    }
}
