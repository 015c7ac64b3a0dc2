//! Buffer reclamation: after a burst of large messages, the writer's builder and the reader's
//! buffer shrink back to their baseline, while every message stays intact.
//!
//! ```text
//! cargo run -p flatstream --example adapter_reclaim
//! ```

use flatbuffers::FlatBufferBuilder;
use flatstream::read::ShrinkAfter;
use flatstream::write::ReclaimExt;
use flatstream::{
    DefaultDeframer, DefaultFramer, Error, StreamReader, StreamSerialize, StreamWriter,
};

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs};

const BASELINE: usize = 4096;

/// A reading, or a large diagnostic dump (a string of `dump` bytes).
enum Message {
    Reading(u64),
    Dump(usize),
}

impl StreamSerialize for Message {
    fn serialize<A: flatbuffers::Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> flatstream::Result<()> {
        match *self {
            Message::Reading(i) => {
                let args = TelemetryArgs {
                    device_id: 1,
                    timestamp: 1_700_000_000_000 + i,
                    value: i as f64,
                };
                let root = Telemetry::create(builder, &args);
                builder.finish(root, None);
            }
            Message::Dump(len) => {
                let text = builder.create_string(&"x".repeat(len));
                builder.finish(text, None);
            }
        }
        Ok(())
    }
}

/// The builder's buffer size (it is not exposed; take the buffer out and put it back zeroed).
fn builder_capacity(builder: &mut FlatBufferBuilder<'static>) -> usize {
    let (mut buf, _) = std::mem::take(builder).collapse();
    let capacity = buf.len();
    buf.fill(0);
    *builder = FlatBufferBuilder::from_vec(buf);
    capacity
}

fn main() -> Result<(), Error> {
    let messages: Vec<Message> = (0..10)
        .map(Message::Reading)
        .chain((0..3).map(|_| Message::Dump(1 << 20)))
        .chain((10..40).map(Message::Reading))
        .collect();

    let writer = StreamWriter::with_builder(
        Vec::new(),
        DefaultFramer,
        FlatBufferBuilder::with_capacity(BASELINE),
    );
    let mut writer = writer.reclaim(ShrinkAfter::new(BASELINE, 16));
    for (i, m) in messages.iter().enumerate() {
        writer.write(m)?;
        if matches!(i, 9 | 12 | 20 | 28 | 42) {
            let capacity = builder_capacity(writer.get_mut().builder_mut());
            println!("writer: after message {i:2}, builder holds {capacity:>8} bytes");
        }
    }
    let bytes = writer.into_inner().into_inner();

    // A source the reader copies through its buffer, as a file or a socket is (a byte slice
    // would be read in place, with no buffer to reclaim); the policy is the reader's own.
    let source = std::io::Read::chain(&bytes[..], std::io::empty());
    let mut reader = StreamReader::with_capacity(BASELINE, source, DefaultDeframer)
        .with_reclaim(ShrinkAfter::new(BASELINE, 16));
    let mut i = 0;
    while let Some(payload) = reader.read_message()? {
        match messages[i] {
            Message::Reading(n) => {
                assert_eq!(
                    flatbuffers::root::<Telemetry<'_>>(payload)?.timestamp(),
                    1_700_000_000_000 + n
                )
            }
            Message::Dump(len) => assert_eq!(flatbuffers::root::<&str>(payload)?.len(), len),
        }
        if matches!(i, 9 | 12 | 20 | 28 | 42) {
            println!(
                "reader: after message {i:2}, buffer holds  {:>8} bytes",
                reader.capacity()
            );
        }
        i += 1;
    }
    println!("all {i} messages intact");
    Ok(())
}
