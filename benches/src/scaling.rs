//! The scaling workload: reading a capture of telemetry tables whose fields hold arbitrary
//! values (every bit pseudo-random, as real device ids, clocks and measurements look to a
//! reader), XXH3-framed, from bytes in memory, with the **default bound**
//! ([`DEFAULT_MAX_FRAME_LEN`](flatstream::framing::DEFAULT_MAX_FRAME_LEN), 2 GiB), which is what
//! a user who sets nothing gets. On one thread with `Frames`, and on a rayon pool with
//! `ParallelFrames`, folded per split or mapped in stream order.
//!
//! Two kinds of work per frame: **the fields** (the checksum verified, then FlatBuffers
//! verification and the three fields folded into [`Totals`]), and **verification alone** (the
//! checksum verified, the frame counted).

use crate::cycle::Totals;
use flatstream::split::ParallelFrames;
use flatstream::{ChecksumDeframer, ChecksumFramer, Frames, StreamWriter, XxHash64};
use flatstream_test_support::telemetry::{Reading, Telemetry};

/// Frames of the capture: 60 bytes each with arbitrary field values, [`CAPTURE_BYTES`] in all.
pub const FRAMES: u64 = 1_750_000;
/// Bytes of the capture (checked by the tests; `cargo xtask bench-report` states it): the
/// targets are for captures of 100 MB or more.
pub const CAPTURE_BYTES: usize = 105_000_000;
const _: () = assert!(CAPTURE_BYTES >= 100_000_000);

/// `n` readings whose fields are arbitrary (xorshift64, fixed seed: the same on every run):
/// ids and timestamps with every bit random, values with a random sign and mantissa (and an
/// exponent kept near 1 so that their sum stays finite). No field is 0, so every field is
/// present in the FlatBuffer.
pub fn arbitrary_readings(n: u64) -> Vec<Reading> {
    let mut x = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    (0..n)
        .map(|_| {
            let bits = next();
            let exponent = 1023 - 16 + (bits >> 52) % 32;
            Reading {
                device_id: next() | 1,
                timestamp: next() | 1,
                value: f64::from_bits((bits & (1 << 63 | ((1 << 52) - 1))) | exponent << 52),
            }
        })
        .collect()
}

/// The capture: `readings`, XXH3-framed.
pub fn capture(readings: &[Reading]) -> Vec<u8> {
    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
    for reading in readings {
        writer.write(reading).expect("write to a Vec");
    }
    writer.into_inner()
}

/// The work done on every frame, one function for every side: FlatBuffers verification, then
/// the three fields. Whether it is inlined is the compiler's choice, as it is for an
/// application.
fn fields(payload: &[u8]) -> flatstream::Result<(u64, u64, f64)> {
    let t = flatbuffers::root::<Telemetry<'_>>(payload)?;
    Ok((t.device_id(), t.timestamp(), t.value()))
}

fn deframer() -> ChecksumDeframer<XxHash64> {
    ChecksumDeframer::new(XxHash64)
}

/// Every frame of `bytes`, verified and read on the calling thread.
pub fn sequential(bytes: &[u8]) -> flatstream::Result<Totals> {
    let mut totals = Totals::default();
    for payload in Frames::new(bytes, deframer()) {
        let (device_id, timestamp, value) = fields(payload?)?;
        totals.add(device_id, timestamp, value);
    }
    Ok(totals)
}

/// The same on every thread of the current rayon pool, with `ParallelFrames::fold`: each split
/// is verified, read and summed on its thread, and the splits' totals are added up in order.
pub fn folded(bytes: &[u8]) -> flatstream::Result<Totals> {
    ParallelFrames::new(bytes, deframer()).fold(
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
    ParallelFrames::new(bytes, deframer()).process_all_ordered(
        fields,
        |(device_id, timestamp, value)| {
            totals.add(device_id, timestamp, value);
            Ok(())
        },
    )?;
    Ok(totals)
}

/// Every frame of `bytes` verified (its checksum) and counted, on the calling thread: frames,
/// and payload bytes.
pub fn verified_sequential(bytes: &[u8]) -> flatstream::Result<(u64, u64)> {
    let mut seen = (0, 0);
    for payload in Frames::new(bytes, deframer()) {
        seen = (seen.0 + 1, seen.1 + payload?.len() as u64);
    }
    Ok(seen)
}

/// The same on every thread of the current rayon pool, with `ParallelFrames::fold`.
pub fn verified_folded(bytes: &[u8]) -> flatstream::Result<(u64, u64)> {
    ParallelFrames::new(bytes, deframer()).fold(
        || (0, 0),
        |seen, payload| {
            *seen = (seen.0 + 1, seen.1 + payload.len() as u64);
            Ok(())
        },
        |a, b| (a.0 + b.0, a.1 + b.1),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parallel_reads_what_sequential_reads_ordered_or_folded() {
        let readings = arbitrary_readings(5_000);
        let bytes = capture(&readings);
        let expected = Totals::of(&readings);
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
        let seen = verified_sequential(&bytes).unwrap();
        assert_eq!(seen.0, 5_000);
        assert_eq!(pool.install(|| verified_folded(&bytes)).unwrap(), seen);
    }

    #[test]
    fn every_frame_is_60_bytes_so_the_capture_is_the_size_stated() {
        let readings = arbitrary_readings(10_000);
        assert!(
            readings
                .iter()
                .all(|r| r.value.is_finite() && r.value != 0.0)
        );
        assert_eq!(capture(&readings).len(), 600_000);
        assert_eq!(CAPTURE_BYTES as u64, FRAMES * 60);
    }
}
