//! Validation on both sides: a writer that lets only valid telemetry reach the sink, and a
//! reader that checks structure (without the schema), size and type (with it), skipping what
//! fails and saying which validator rejected which frame.
//!
//! ```text
//! cargo run -p flatstream --example adapter_validation
//! ```

use flatbuffers::FlatBufferBuilder;
use flatstream::adapters::{
    DeframerExt, FramerExt, SizeValidator, StructuralValidator, TypedValidator,
};
use flatstream::{DefaultDeframer, DefaultFramer, Error, StreamReader, StreamWriter};

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs};

fn reading(builder: &mut FlatBufferBuilder<'_>, i: u64) {
    builder.reset();
    let args = TelemetryArgs {
        device_id: i + 1,
        timestamp: 1_700_000_000_000 + i,
        value: 20.0 + i as f64,
    };
    let root = Telemetry::create(builder, &args);
    builder.finish(root, None);
}

fn main() -> Result<(), Error> {
    // Writing: only well-formed `Telemetry` roots reach the sink.
    let mut writer = StreamWriter::new(
        Vec::new(),
        DefaultFramer.validated(TypedValidator::<Telemetry<'_>>::new()),
    );
    let mut builder = FlatBufferBuilder::new();
    for i in 0..3 {
        reading(&mut builder, i);
        writer.write_finished(&mut builder)?;
    }
    if let Err(e) = writer.write_payload(b"not a flatbuffer at all") {
        println!("writer refused: {e}");
    }
    let mut bytes = writer.into_inner();

    // Someone else appends garbage and an oversized frame to the stream.
    let mut other = StreamWriter::new(Vec::new(), DefaultFramer);
    other.write_payload(&[0xFF; 24])?;
    other.write_payload(&[0u8; 300])?;
    reading(&mut builder, 3);
    other.write_finished(&mut builder)?;
    bytes.extend_from_slice(&other.into_inner());

    // Reading: size first (cheap), then structure, then the exact schema check.
    let validators = (
        SizeValidator::new(8, 256),
        StructuralValidator::new(),
        TypedValidator::<Telemetry<'_>>::new(),
    );
    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer.validated(validators));
    loop {
        match reader.read_message() {
            Ok(Some(payload)) => {
                let t = flatbuffers::root::<Telemetry<'_>>(payload)?;
                println!("ok:       device {} value {}", t.device_id(), t.value());
            }
            Ok(None) => break,
            Err(e @ Error::Validation { .. }) => println!("rejected: {e}"),
            Err(e) => return Err(e),
        }
    }
    Ok(())
}
