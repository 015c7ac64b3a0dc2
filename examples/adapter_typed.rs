//! Typed reading: payloads handed out as the flatc-generated `Telemetry`, verified first, with
//! `process_typed` and with the `typed_messages` lending iterator.
//!
//! ```text
//! cargo run -p flatstream --example adapter_typed
//! ```

use flatbuffers::{FlatBufferBuilder, VerifierOptions};
use flatstream::read::TypedReaderExt;
use flatstream::{DefaultDeframer, DefaultFramer, Error, StreamReader, StreamWriter};

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs};

// `Telemetry<'buf>` for any payload lifetime: what the typed readers need.
flatstream::read::stream_deserialize!(Telemetry);

fn main() -> Result<(), Error> {
    let mut writer = StreamWriter::new(Vec::new(), DefaultFramer);
    let mut builder = FlatBufferBuilder::new();
    for i in 0..100u64 {
        builder.reset();
        let args = TelemetryArgs {
            device_id: i % 4 + 1,
            timestamp: 1_700_000_000_000 + i,
            value: 20.0 + (i as f64 / 10.0).sin(),
        };
        let root = Telemetry::create(&mut builder, &args);
        builder.finish(root, None);
        writer.write_finished(&mut builder)?;
    }
    let bytes = writer.into_inner();

    // A closure per message, with the verifier's limits tightened for small messages.
    let opts = VerifierOptions {
        max_depth: 4,
        max_tables: 8,
        ..VerifierOptions::default()
    };
    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer).with_max_frame_len(1024);
    let mut per_device = [0u32; 5];
    reader.process_typed_with::<Telemetry<'_>, _, _>(&opts, |t| {
        per_device[usize::try_from(t.device_id()).unwrap_or(0).min(4)] += 1;
        Ok(())
    })?;
    println!("readings per device: {:?}", &per_device[1..]);

    // A lending iterator: each message borrows the reader until the next call.
    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
    let mut messages = reader.typed_messages::<Telemetry<'_>>();
    let mut max = f64::MIN;
    while let Some(t) = messages.next()? {
        max = max.max(t.value());
    }
    println!("largest value: {max:.3}");
    Ok(())
}
