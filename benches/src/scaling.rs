//! The scaling workload: verified reading of telemetry frames (FlatBuffers verification, then
//! the three fields folded into [`Totals`]) from bytes in memory, on one thread with `Frames`
//! and on a rayon pool with `ParallelFrames`, folded per split or mapped in stream order.

use crate::cycle::Totals;
use flatstream::{ChecksumDeframer, Frames, ParallelFrames, XxHash64};
use flatstream_test_support::telemetry::Telemetry;

/// The bound the telemetry writer's messages fit in many times over.
const MAX_FRAME_LEN: usize = 1 << 10;

/// The work done on every frame, one function for every side: FlatBuffers verification, then
/// the three fields. Whether it is inlined is the compiler's choice, as it is for an
/// application.
fn fields(payload: &[u8]) -> flatstream::Result<(u64, u64, f64)> {
    let t = flatbuffers::root::<Telemetry<'_>>(payload)?;
    Ok((t.device_id(), t.timestamp(), t.value()))
}

/// Every frame of `bytes` (XXH3-framed telemetry), verified and read on the calling thread.
pub fn sequential(bytes: &[u8]) -> flatstream::Result<Totals> {
    let mut totals = Totals::default();
    let frames =
        Frames::new(bytes, ChecksumDeframer::new(XxHash64)).with_max_frame_len(MAX_FRAME_LEN);
    for payload in frames {
        let (device_id, timestamp, value) = fields(payload?)?;
        totals.add(device_id, timestamp, value);
    }
    Ok(totals)
}

/// The same on every thread of the current rayon pool, with `ParallelFrames::fold`: each split
/// is verified, read and summed on its thread, and the splits' totals are added up in order.
pub fn folded(bytes: &[u8]) -> flatstream::Result<Totals> {
    ParallelFrames::new(bytes, ChecksumDeframer::new(XxHash64))
        .with_max_frame_len(MAX_FRAME_LEN)
        .fold(
            Totals::default,
            |totals, payload| {
                let (device_id, timestamp, value) = fields(payload)?;
                totals.add(device_id, timestamp, value);
                Ok(())
            },
            Totals::merge,
        )
}

/// The same on every thread of the current rayon pool, with
/// `ParallelFrames::process_all_ordered`: verification and the field reads run in parallel,
/// and the fields are folded into the totals in stream order on the calling thread.
pub fn ordered(bytes: &[u8]) -> flatstream::Result<Totals> {
    let mut totals = Totals::default();
    ParallelFrames::new(bytes, ChecksumDeframer::new(XxHash64))
        .with_max_frame_len(MAX_FRAME_LEN)
        .process_all_ordered(fields, |(device_id, timestamp, value)| {
            totals.add(device_id, timestamp, value);
            Ok(())
        })?;
    Ok(totals)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cycle::readings;
    use crate::paths::telemetry_stream;
    use flatstream::ChecksumFramer;

    #[test]
    fn parallel_reads_what_sequential_reads_ordered_or_folded() {
        let bytes = telemetry_stream(5_000, ChecksumFramer::new(XxHash64));
        let expected = Totals::of(&readings(5_000));
        assert!(sequential(&bytes).unwrap().matches(&expected));
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(2)
            .build()
            .unwrap();
        let got = pool.install(|| ordered(&bytes)).unwrap();
        assert_eq!(
            got,
            sequential(&bytes).unwrap(),
            "the same sums, in the same order"
        );
        let got = pool.install(|| folded(&bytes)).unwrap();
        assert!(got.matches(&expected), "{got:?}");
    }
}
