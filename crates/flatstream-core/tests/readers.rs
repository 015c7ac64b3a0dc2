//! The reader contract (`flatstream_test_support::contract`) against every reader of the core,
//! over every kind of source it reads: one test per case and driver.

use flatstream_test_support::alloc::CountingAlloc;
use flatstream_test_support::drivers::{
    BufReadSlice, BufReaderSource, Copying, InPlaceCursor, InPlaceCursorVec, InPlaceCursorVecRef,
    InPlaceSlice, SliceFrames,
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
}
