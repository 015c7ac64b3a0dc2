//! The scaling workload: verified reading of telemetry frames (FlatBuffers verification, then
//! the three fields folded into [`Totals`]) from bytes in memory, on one thread with `Frames`
//! and on a rayon pool with `ParallelFrames`.

use crate::cycle::Totals;
use flatstream::{ChecksumDeframer, Frames, ParallelFrames, XxHash64};
use flatstream_test_support::telemetry::Telemetry;

/// The bound the telemetry writer's messages fit in many times over.
const MAX_FRAME_LEN: usize = 1 << 10;

/// Every frame of `bytes` (XXH3-framed telemetry), verified and read on the calling thread.
pub fn sequential(bytes: &[u8]) -> flatstream::Result<Totals> {
    let mut totals = Totals::default();
    let frames =
        Frames::new(bytes, ChecksumDeframer::new(XxHash64)).with_max_frame_len(MAX_FRAME_LEN);
    for payload in frames {
        let t = flatbuffers::root::<Telemetry<'_>>(payload?)?;
        totals.add(t.device_id(), t.timestamp(), t.value());
    }
    Ok(totals)
}

/// The same on every thread of the current rayon pool: verification and the field reads run in
/// parallel, and the fields are folded into the totals in stream order on the calling thread.
pub fn parallel(bytes: &[u8]) -> flatstream::Result<Totals> {
    let mut totals = Totals::default();
    ParallelFrames::new(bytes, ChecksumDeframer::new(XxHash64))
        .with_max_frame_len(MAX_FRAME_LEN)
        .process_all_ordered(
            |payload| {
                let t = flatbuffers::root::<Telemetry<'_>>(payload)?;
                Ok((t.device_id(), t.timestamp(), t.value()))
            },
            |(device_id, timestamp, value)| {
                totals.add(device_id, timestamp, value);
                Ok(())
            },
        )?;
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::readings;
    use crate::paths::telemetry_stream;
    use flatstream::ChecksumFramer;

    #[test]
    fn parallel_reads_what_sequential_reads() {
        let bytes = telemetry_stream(5_000, ChecksumFramer::new(XxHash64));
        let expected = Totals::of(&readings(5_000));
        assert!(sequential(&bytes).unwrap().matches(&expected));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let got = pool.install(|| parallel(&bytes)).unwrap();
        assert_eq!(
            got,
            sequential(&bytes).unwrap(),
            "the same sums, in the same order"
        );
    }
}
