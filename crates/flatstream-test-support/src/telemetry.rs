//! The telemetry message of `examples/telemetry.fbs` (flatc 25.12.19 output, committed), and a
//! `Reading` that serializes into it: the messages of the benchmarks and of the tests that
//! need real FlatBuffers.

use flatbuffers::{Allocator, FlatBufferBuilder};
use flatstream_core::{DefaultFramer, Result, StreamSerialize, StreamWriter};

pub use crate::generated::telemetry::*;

#[cfg(feature = "adapters")]
flatstream_adapters::stream_deserialize!(Telemetry);

/// One reading as an application holds it: the fields of the `Telemetry` table.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Reading {
    /// Which device sent it.
    pub device_id: u64,
    /// When, in milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// The measured value.
    pub value: f64,
}

impl Reading {
    /// The `i`-th reading of a deterministic sequence: 64 devices, one reading each per
    /// millisecond, values never 0 (so every field is present in the FlatBuffer).
    pub fn nth(i: u64) -> Self {
        Reading {
            device_id: i % 64 + 1,
            timestamp: 1_700_000_000_000 + i / 64,
            value: 20.0 + (i as f64 * 0.001).sin(),
        }
    }

    /// Reads the fields back from a `Telemetry` table.
    pub fn from_table(t: &Telemetry<'_>) -> Self {
        Reading {
            device_id: t.device_id(),
            timestamp: t.timestamp(),
            value: t.value(),
        }
    }
}

impl StreamSerialize for Reading {
    fn serialize<A: Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        let args = TelemetryArgs {
            device_id: self.device_id,
            timestamp: self.timestamp,
            value: self.value,
        };
        let root = Telemetry::create(builder, &args);
        builder.finish(root, None);
        Ok(())
    }
}

/// The stream of the first `n` readings ([`Reading::nth`]), written with the default framer.
pub fn stream(n: u64) -> Vec<u8> {
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    for i in 0..n {
        w.write(&Reading::nth(i)).expect("write to a Vec");
    }
    w.into_inner()
}

/// The payloads of the first `n` readings: the frames of [`stream`]`(n)`, each a FlatBuffer.
pub fn payloads(n: u64) -> Vec<Vec<u8>> {
    let mut builder = FlatBufferBuilder::new();
    (0..n)
        .map(|i| {
            builder.reset();
            Reading::nth(i)
                .serialize(&mut builder)
                .expect("a reading serializes");
            builder.finished_data().to_vec()
        })
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_payloads_are_the_frames_of_the_stream() {
        use flatstream_core::{DefaultDeframer, Frames};
        let stream = super::stream(100);
        let frames: Vec<Vec<u8>> = Frames::new(&stream[..], DefaultDeframer)
            .map(|p| p.expect("a frame").to_vec())
            .collect();
        assert_eq!(frames, super::payloads(100));
    }
}
