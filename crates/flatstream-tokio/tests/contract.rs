//! The reader contract (`flatstream_test_support::contract`) against the async drivers
//! (`flatstream_test_support::drivers::tokio`): the `AsyncStreamReader`, built directly and
//! from a `FrameConfig`, and `FrameCodec` driven as `FramedRead` drives it, each over an async
//! source that follows the input's faults and answers `Pending` every other poll.

use flatstream_test_support::alloc::CountingAlloc;
use flatstream_test_support::drivers::tokio::{AsyncConfigReader, AsyncReader, CodecDriver};

// The hostile-length case measures what the readers allocate.
#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

flatstream_test_support::reader_contract! {
    async_reader: AsyncReader,
    async_config_reader: AsyncConfigReader,
    codec: CodecDriver,
}
