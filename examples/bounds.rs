//! One bound on both sides of a stream: a writer that refuses oversized telemetry before
//! writing a byte, and a reader that rejects a frame claiming 1 GiB from its length prefix
//! alone. Both are built from one `FrameConfig`, so they agree.
//!
//! ```text
//! cargo run -p flatstream --example bounds
//! ```

use flatbuffers::FlatBufferBuilder;
use flatstream::{Error, FrameConfig};

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs};

fn main() -> Result<(), Error> {
    // A telemetry reading is a FlatBuffer of under 64 bytes; allow no more.
    let config = FrameConfig::new().with_max_frame_len(64).with_capacity(256);

    let mut writer = config.writer(Vec::new());
    let mut builder = FlatBufferBuilder::new();
    let args = TelemetryArgs {
        device_id: 7,
        timestamp: 1_700_000_000_000,
        value: 21.5,
    };
    let root = Telemetry::create(&mut builder, &args);
    builder.finish(root, None);
    writer.write_finished(&mut builder)?;
    println!("wrote a {}-byte reading", builder.finished_data().len());

    // Something much larger is refused, and nothing of it reaches the sink.
    let before = writer.bytes_written();
    match writer.write_payload(&[0u8; 4096]) {
        Err(Error::FrameTooLarge { len, max, offset }) => {
            println!("refused a {len}-byte payload at offset {offset} (bound {max})")
        }
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    assert_eq!(writer.bytes_written(), before);

    // A reader with the same bound meets a corrupt header claiming a 1 GiB payload.
    let mut bytes = writer.into_inner();
    bytes.extend_from_slice(&(1u32 << 30).to_le_bytes());
    let mut reader = config.reader(&bytes[..]);
    let reading = reader.read_message()?.expect("one reading");
    let t = flatbuffers::root::<Telemetry<'_>>(reading)?;
    println!("read device {} value {}", t.device_id(), t.value());
    match reader.read_message() {
        Err(Error::FrameTooLarge { len, max, offset }) => {
            println!("rejected a frame declaring {len} bytes at offset {offset} (bound {max})")
        }
        other => panic!("expected FrameTooLarge, got {other:?}"),
    }
    Ok(())
}
