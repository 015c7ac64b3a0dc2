//! The reader contract (`flatstream_test_support::contract`) against every reader of the core,
//! over every kind of source it reads: one test per case and driver.

use flatstream_test_support::alloc::CountingAlloc;
use flatstream_test_support::drivers::{
    BufReadSlice, BufReaderSource, ConfigFrames, ConfigReader, Copying, InPlaceCursor,
    InPlaceCursorVec, InPlaceCursorVecRef, InPlaceSlice, ReadBufferLoop, SliceFrames,
};

// The hostile-length case measures what the readers allocate.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

flatstream_test_support::reader_contract! {
    copying: Copying,
    in_place_slice: InPlaceSlice,
    in_place_cursor: InPlaceCursor,
    in_place_cursor_vec: InPlaceCursorVec,
    in_place_cursor_vec_ref: InPlaceCursorVecRef,
    buf_reader: BufReaderSource,
    buf_read_slice: BufReadSlice,
    frames: SliceFrames,
    config_reader: ConfigReader,
    config_frames: ConfigFrames,
    read_buffer: ReadBufferLoop,
}

/// `BytesFrames`, the slice iterator over a `Bytes`, read through `MessageReader`.
#[cfg(feature = "bytes")]
struct BytesFramesDriver;

#[cfg(feature = "bytes")]
impl flatstream_test_support::contract::Driver for BytesFramesDriver {
    const NAME: &'static str = "BytesFrames";
    const HAS_IO: bool = false;
    const MIN_CAPACITY: Option<usize> = None;

    fn open<'a, D: flatstream_core::Deframer + 'a>(
        input: &'a flatstream_test_support::contract::Input,
        deframer: D,
    ) -> Box<dyn flatstream_test_support::contract::Subject + 'a> {
        let frames = flatstream_core::BytesFrames::new(
            bytes::Bytes::copy_from_slice(&input.bytes),
            deframer,
        );
        match input.max_frame_len {
            Some(max) => Box::new(frames.with_max_frame_len(max)),
            None => Box::new(frames),
        }
    }
}

#[cfg(feature = "bytes")]
flatstream_test_support::reader_contract! {
    bytes_frames: BytesFramesDriver,
}

/// After a framing error, every iterator over frames yields the error once and then ends, so
/// that a `for` loop that logs and continues cannot spin; `read_message` on the same readers
/// (the contract's `checksum_mismatch_stays_at_the_frame`) returns it again instead.
#[test]
fn iterators_yield_a_framing_error_once_then_end() {
    use flatstream_core::{ChecksumDeframer, ChecksumFramer, FrameConfig, Frames, SplitFrames};
    use flatstream_test_support::checksums::Fletcher32;

    let mut writer =
        flatstream_core::StreamWriter::new(Vec::new(), ChecksumFramer::new(Fletcher32));
    for payload in [&b"one"[..], b"two", b"three"] {
        writer.write_payload(payload).unwrap();
    }
    let mut bytes = writer.into_inner();
    // The second frame starts at 11 (4-byte length, 4-byte checksum, "one"); its payload at 19.
    bytes[19] ^= 0xFF;
    let d = || ChecksumDeframer::new(Fletcher32);

    let outcomes = |items: Vec<Result<Vec<u8>, flatstream_core::Error>>| {
        items
            .into_iter()
            .map(|item| item.map_err(|e| e.offset()))
            .collect::<Vec<_>>()
    };
    let expected = vec![Ok(b"one".to_vec()), Err(11)];

    let frames = Frames::new(&bytes, d())
        .map(|r| r.map(<[u8]>::to_vec))
        .collect();
    assert_eq!(outcomes(frames), expected, "Frames");
    let config = FrameConfig::new().deframer(d());
    let frames = config
        .frames(&bytes)
        .map(|r| r.map(<[u8]>::to_vec))
        .collect();
    assert_eq!(outcomes(frames), expected, "FrameConfig::frames");
    let split = SplitFrames::new(&bytes, 0..bytes.len(), d()).unwrap();
    let split = split.map(|r| r.map(<[u8]>::to_vec)).collect();
    assert_eq!(outcomes(split), expected, "SplitFrames");
    #[cfg(feature = "bytes")]
    {
        let frames = flatstream_core::BytesFrames::new(bytes::Bytes::from(bytes.clone()), d());
        let frames = frames.map(|r| r.map(|b| b.to_vec())).collect();
        assert_eq!(outcomes(frames), expected, "BytesFrames");
    }
}
