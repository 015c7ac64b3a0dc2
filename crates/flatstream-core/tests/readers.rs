//! The reader contract (`flatstream_test_support::contract`) against every reader of the core
//! that is a `MessageReader` (or, as the `Follower`, reads as one), over every kind of source it
//! reads: one test per case and driver. The points of the contract over every reader, of every
//! kind (iterators, `ParallelFrames`, `Salvage`, `Recover`, ...), one test each, are in the
//! facade's `tests/contract.rs`.

use flatstream_test_support::alloc::CountingAlloc;
use flatstream_test_support::drivers::{
    BufReadSlice, BufReaderSource, BytesFramesDriver, ConfigFrames, ConfigReader, Copying,
    FollowerDriver, InPlaceCursor, InPlaceCursorVec, InPlaceCursorVecRef, InPlaceSlice,
    MappedFrames, ReadBufferLoop, SliceFrames, SplitWhole,
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
    split_whole: SplitWhole,
    mapped_frames: MappedFrames,
    bytes_frames: BytesFramesDriver,
    follower: FollowerDriver,
}
