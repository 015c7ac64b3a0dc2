//! Observers on both sides: count messages and bytes as they are written and as they are read
//! (after the checksum), with no copy and no allocation.
//!
//! ```text
//! cargo run -p flatstream --example adapter_observer
//! ```

use flatbuffers::FlatBufferBuilder;
use flatstream::adapters::{DeframerExt, FramerExt};
use flatstream::{DefaultDeframer, DefaultFramer, Error, StreamReader, StreamWriter};
use std::cell::Cell;

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs};

/// Messages and bytes seen by an observer.
#[derive(Default)]
struct Tally {
    messages: Cell<u64>,
    bytes: Cell<u64>,
}

impl Tally {
    fn record(&self, payload: &[u8]) {
        self.messages.set(self.messages.get() + 1);
        self.bytes.set(self.bytes.get() + payload.len() as u64);
    }
}

fn main() -> Result<(), Error> {
    let written = Tally::default();
    let mut writer = StreamWriter::new(
        Vec::new(),
        DefaultFramer.observed(|p: &[u8]| written.record(p)),
    );
    let mut builder = FlatBufferBuilder::new();
    for i in 0..1000u64 {
        builder.reset();
        let args = TelemetryArgs {
            device_id: i % 8 + 1,
            timestamp: 1_700_000_000_000 + i,
            value: i as f64 * 0.5,
        };
        let root = Telemetry::create(&mut builder, &args);
        builder.finish(root, None);
        writer.write_finished(&mut builder)?;
    }
    let bytes = writer.into_inner();

    let read = Tally::default();
    let mut reader = StreamReader::new(
        &bytes[..],
        DefaultDeframer.observed(|p: &[u8]| read.record(p)),
    );
    let mut sum = 0.0;
    reader.process_all(|payload| {
        sum += flatbuffers::root::<Telemetry<'_>>(payload)?.value();
        Ok(())
    })?;

    println!(
        "written: {} messages, {} payload bytes",
        written.messages.get(),
        written.bytes.get()
    );
    println!(
        "read:    {} messages, {} payload bytes, sum of values {sum}",
        read.messages.get(),
        read.bytes.get()
    );
    assert_eq!(written.bytes.get(), read.bytes.get());
    Ok(())
}
