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
