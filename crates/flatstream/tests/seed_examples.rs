//! The Rust examples of the FlatStream 0.2.x README, compiled against this crate. Code that the
//! README shows as a whole function is kept as written; code it shows as a fragment is kept as
//! written inside the smallest function that gives it the variables it uses. (Its one example
//! that cannot compile with the real flatbuffers crate, `root_with_opts::<flatbuffers::Table>`,
//! is replaced by the structural validator of flatstream-adapters.)

#![allow(
    dead_code,
    clippy::all,
    missing_docs,
    unreachable_pub,
    rust_2018_idioms
)]

use std::sync::Mutex;

/// The examples that create `telemetry.bin` in the working directory run one at a time, inside
/// a scratch directory.
static CWD: Mutex<()> = Mutex::new(());

fn in_scratch_dir<R>(f: impl FnOnce() -> R) -> R {
    let _guard = CWD.lock().unwrap_or_else(|e| e.into_inner());
    let dir = std::env::temp_dir().join(format!("flatstream-seed-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let old = std::env::current_dir().unwrap();
    std::env::set_current_dir(&dir).unwrap();
    let result = f();
    std::env::set_current_dir(old).unwrap();
    std::fs::remove_dir_all(&dir).unwrap();
    result
}

mod minimal_end_to_end {
    use flatbuffers::FlatBufferBuilder;
    use flatstream::{DefaultDeframer, DefaultFramer, Result, StreamReader, StreamWriter};
    use std::io::{BufReader, BufWriter, Cursor};

    pub fn main() -> Result<()> {
        // Write one message
        let mut bytes = Vec::new();
        {
            let writer = BufWriter::new(Cursor::new(&mut bytes));
            let mut stream = StreamWriter::new(writer, DefaultFramer);
            let mut b = FlatBufferBuilder::new();
            let s = b.create_string("hello flatstream");
            b.finish(s, None);
            stream.write_finished(&mut b)?;
            stream.flush()?;
        }

        // Read it back (payload provided as &[_])
        let reader = BufReader::new(Cursor::new(bytes));
        let mut stream = StreamReader::new(reader, DefaultDeframer);
        stream.process_all(|payload| {
            println!("payload bytes: {}", payload.len());
            Ok(())
        })
    }
}

#[test]
fn minimal_end_to_end_example_runs() {
    minimal_end_to_end::main().unwrap();
}

mod quick_start {
    use flatbuffers::FlatBufferBuilder;
    use flatstream::{Result, StreamSerialize};

    // Your application data structure
    pub struct TelemetryData {
        pub timestamp: u64,
        pub label: String,
    }

    impl StreamSerialize for TelemetryData {
        fn serialize<A: flatbuffers::Allocator>(
            &self,
            builder: &mut FlatBufferBuilder<A>,
        ) -> Result<()> {
            // Simplified for demonstration: we just serialize the label.
            let offset = builder.create_string(&self.label);

            // Crucial: You must call finish() within serialize.
            builder.finish(offset, None);
            Ok(())
        }
    }

    pub mod simple {
        use super::TelemetryData;
        use flatstream::{DefaultFramer, Result, StreamWriter};
        use std::fs::File;
        use std::io::BufWriter;

        pub fn write_simple() -> Result<()> {
            let file = File::create("telemetry.bin")?;
            let writer = BufWriter::new(file); // Always use buffered I/O!
            let mut stream_writer = StreamWriter::new(writer, DefaultFramer);

            let data = TelemetryData {
                timestamp: 1659373987,
                label: "temp_sensor_1".to_string(),
            };

            // Simple: The writer manages the builder internally
            stream_writer.write(&data)?;
            stream_writer.flush()?;
            Ok(())
        }
    }

    pub mod expert {
        use super::TelemetryData;
        use flatstream::{DefaultFramer, Result, StreamSerialize, StreamWriter};
        use std::fs::File;
        use std::io::BufWriter;

        use flatbuffers::FlatBufferBuilder;

        pub fn write_expert() -> Result<()> {
            let file = File::create("telemetry.bin")?;
            let writer = BufWriter::new(file);
            let mut stream_writer = StreamWriter::new(writer, DefaultFramer);

            // Manage builder externally for maximum performance
            let mut builder = FlatBufferBuilder::new();

            for i in 0..1000 {
                let data = TelemetryData {
                    timestamp: 1659373987 + i,
                    label: format!("sensor_{}", i),
                };

                // Expert: Full control over builder lifecycle
                builder.reset(); // Reuse allocated memory
                data.serialize(&mut builder)?;
                stream_writer.write_finished(&mut builder)?;
            }

            stream_writer.flush()?;
            Ok(())
        }
    }

    pub mod reading {
        use flatstream::{DefaultDeframer, Result, StreamReader};
        use std::io::Cursor;

        pub fn read_data(data: Vec<u8>) -> Result<()> {
            let reader_backend = Cursor::new(data);
            let mut reader = StreamReader::new(reader_backend, DefaultDeframer);

            // High-performance, zero-copy processing
            reader.process_all(|payload: &[u8]| {
                // 'payload' is a slice pointing directly to the FlatBuffer message in the internal buffer.
                // You can now access the data using FlatBuffers verification/accessors.
                // Example: let msg = flatbuffers::root::<MyMessage>(payload).unwrap();

                println!("Read message of {} bytes.", payload.len());
                Ok(())
            })?;

            Ok(())
        }
    }
}

#[test]
fn quick_start_examples_write_and_read_a_file() {
    in_scratch_dir(|| {
        quick_start::simple::write_simple().unwrap();
        let simple = std::fs::read("telemetry.bin").unwrap();
        let mut labels = vec![];
        flatstream::StreamReader::new(&simple[..], flatstream::DefaultDeframer)
            .process_all(|p| {
                labels.push(flatbuffers::root::<&str>(p)?.to_owned());
                Ok(())
            })
            .unwrap();
        assert_eq!(labels, ["temp_sensor_1"]);

        quick_start::expert::write_expert().unwrap();
        let expert = std::fs::read("telemetry.bin").unwrap();
        let frames = flatstream::Frames::new(&expert, flatstream::DefaultDeframer);
        let labels: Vec<String> = frames
            .map(|p| flatbuffers::root::<&str>(p.unwrap()).unwrap().to_owned())
            .collect();
        assert_eq!(labels.len(), 1000);
        assert_eq!(labels[999], "sensor_999");

        quick_start::reading::read_data(expert).unwrap();
    });
}

#[allow(unsafe_code, unused_imports, clippy::undocumented_unsafe_blocks)]
#[path = "../../../examples/generated/telemetry_generated.rs"]
mod telemetry_generated;

mod my_schema {
    pub use super::telemetry_generated::telemetry::Telemetry as MyMessage;
}

mod typed_verification {
    use super::my_schema;
    use flatstream::{DefaultDeframer, Result, StreamReader};

    pub fn run(reader: &mut StreamReader<&[u8], DefaultDeframer>) -> Result<()> {
        use flatbuffers::VerifierOptions;
        // use your generated types, e.g. `use my_schema::MyMessage;`

        reader.process_all(|payload: &[u8]| {
            // Configure verifier limits (examples shown; tune for your data)
            let opts = VerifierOptions {
                // max_depth: 64,
                // max_tables: 1_000_000,
                // max_bytes: Some(16 * 1024 * 1024),
                ..Default::default()
            };

            let msg = flatbuffers::root_with_opts::<my_schema::MyMessage>(&opts, payload)?;
            // use `msg` safely here
            let _ = msg;
            Ok(())
        })?;
        Ok(())
    }
}

#[test]
fn typed_verification_example_accepts_good_and_rejects_bad_payloads() {
    use flatstream::{DefaultDeframer, DefaultFramer, Error, StreamReader, StreamWriter};
    use telemetry_generated::telemetry::{Telemetry, TelemetryArgs};

    let mut b = flatbuffers::FlatBufferBuilder::new();
    let t = Telemetry::create(
        &mut b,
        &TelemetryArgs {
            device_id: 1,
            timestamp: 2,
            value: 3.0,
        },
    );
    b.finish(t, None);
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    w.write_finished(&mut b).unwrap();
    let good_len = w.bytes_written();
    w.write_payload(&[0xFF; 3]).unwrap(); // too short to be a FlatBuffer
    let bytes = w.into_inner();

    let mut reader = StreamReader::new(&bytes[..good_len as usize], DefaultDeframer);
    typed_verification::run(&mut reader).unwrap();

    let mut reader = StreamReader::new(&bytes[..], DefaultDeframer);
    let err = typed_verification::run(&mut reader).unwrap_err();
    assert!(
        matches!(err, Error::InvalidFlatbuffer { offset, .. } if offset == good_len),
        "{err}"
    );
}

mod manual_iteration {
    use flatstream::{DefaultDeframer, Result, StreamReader};

    fn should_stop_early(payload: &[u8]) -> bool {
        payload == b"stop"
    }

    pub fn run(reader: &mut StreamReader<&[u8], DefaultDeframer>) -> Result<usize> {
        let mut seen = 0;
        let mut messages = reader.messages();
        while let Some(payload) = messages.next()? {
            seen += 1;
            // Process message with zero-copy access
            if should_stop_early(payload) {
                break;
            }
        }
        Ok(seen)
    }
}

#[test]
fn manual_iteration_example_stops_early() {
    let mut w = flatstream::StreamWriter::new(Vec::new(), flatstream::DefaultFramer);
    for p in [&b"a"[..], b"stop", b"never"] {
        w.write_payload(p).unwrap();
    }
    let bytes = w.into_inner();
    let mut reader = flatstream::StreamReader::new(&bytes[..], flatstream::DefaultDeframer);
    assert_eq!(manual_iteration::run(&mut reader).unwrap(), 2);
    assert_eq!(reader.read_message().unwrap(), Some(&b"never"[..]));
}

mod writing_modes {
    use flatbuffers::FlatBufferBuilder;
    use flatstream::{DefaultFramer, Result, StreamSerialize, StreamWriter};
    use std::fs::File;
    use std::io::BufWriter;

    pub fn simple_mode(file: File) -> Result<()> {
        let mut writer = StreamWriter::new(file, DefaultFramer);
        writer.write(&"Hello, world!")?; // Internal builder management
        Ok(())
    }

    pub fn expert_mode(file: File, event: &impl StreamSerialize) -> Result<()> {
        let mut builder = FlatBufferBuilder::new();
        let mut writer = StreamWriter::new(file, DefaultFramer);

        // Self managed builder for zero-allocation writes
        builder.reset();
        event.serialize(&mut builder)?;
        writer.write_finished(&mut builder)?;
        Ok(())
    }

    pub fn buffering() {
        let file = File::create("telemetry.bin").unwrap();

        // WRONG: Unbuffered I/O, potentially slow due to excessive syscalls
        // let writer = StreamWriter::new(file, DefaultFramer);

        // CORRECT: Buffered I/O
        let buffered_writer = BufWriter::new(file);
        let writer = StreamWriter::new(buffered_writer, DefaultFramer);
        let _ = writer;
    }

    pub enum Message {
        Control(String),
        Telemetry(String),
        FileTransfer(String),
    }

    pub fn multiple_builders(
        writer: &mut StreamWriter<Vec<u8>, DefaultFramer>,
        messages: Vec<Message>,
    ) -> Result<()> {
        // For a system handling control messages, telemetry, and file transfers
        let mut control_builder = FlatBufferBuilder::new(); // Small, frequent
        let mut telemetry_builder = FlatBufferBuilder::new(); // Medium, periodic
        let mut file_builder = FlatBufferBuilder::new(); // Huge, rare

        for message in messages {
            // Use the appropriate builder for each message type
            match message {
                Message::Control(msg) => {
                    control_builder.reset();
                    msg.serialize(&mut control_builder)?;
                    writer.write_finished(&mut control_builder)?;
                }
                Message::Telemetry(msg) => {
                    telemetry_builder.reset();
                    msg.serialize(&mut telemetry_builder)?;
                    writer.write_finished(&mut telemetry_builder)?;
                }
                Message::FileTransfer(msg) => {
                    file_builder.reset();
                    msg.serialize(&mut file_builder)?;
                    writer.write_finished(&mut file_builder)?;
                    // Could even drop file_builder here to free memory
                }
            }
        }
        Ok(())
    }
}

#[test]
fn writing_mode_examples_write_what_they_say() {
    in_scratch_dir(|| {
        writing_modes::simple_mode(std::fs::File::create("a.bin").unwrap()).unwrap();
        writing_modes::expert_mode(std::fs::File::create("b.bin").unwrap(), &"event").unwrap();
        writing_modes::buffering();
        let read = |name: &str| {
            let bytes = std::fs::read(name).unwrap();
            flatstream::Frames::new(&bytes, flatstream::DefaultDeframer)
                .map(|p| flatbuffers::root::<&str>(p.unwrap()).unwrap().to_owned())
                .collect::<Vec<_>>()
        };
        assert_eq!(read("a.bin"), ["Hello, world!"]);
        assert_eq!(read("b.bin"), ["event"]);
        assert!(read("telemetry.bin").is_empty());
    });

    use writing_modes::Message;
    let mut writer = flatstream::StreamWriter::new(Vec::new(), flatstream::DefaultFramer);
    let messages = vec![
        Message::Control("stop".into()),
        Message::Telemetry("42".into()),
        Message::FileTransfer("x".repeat(10_000)),
    ];
    writing_modes::multiple_builders(&mut writer, messages).unwrap();
    let bytes = writer.into_inner();
    let lens: Vec<usize> = flatstream::Frames::new(&bytes, flatstream::DefaultDeframer)
        .map(|p| flatbuffers::root::<&str>(p.unwrap()).unwrap().len())
        .collect();
    assert_eq!(lens, [4, 2, 10_000]);
}

mod data_integrity {
    #[cfg(feature = "xxhash")]
    pub mod protected {
        use flatstream::{ChecksumFramer, Result, StreamWriter, XxHash64};
        use std::io::Cursor;

        pub fn write_protected() -> Result<()> {
            // 1. Define the checksum strategy (requires 'xxhash' feature)
            let checksum_alg = XxHash64::new();

            // 2. Create the framer
            let framer = ChecksumFramer::new(checksum_alg);

            // 3. Initialize the Writer
            let mut buffer = Vec::new();
            let mut writer = StreamWriter::new(Cursor::new(&mut buffer), framer);

            writer.write(&"A protected message")?;
            Ok(())
        }
    }
}

#[cfg(feature = "xxhash")]
#[test]
fn data_integrity_example_writes_and_a_checksum_deframer_verifies() {
    use flatstream::{
        ChecksumDeframer, ChecksumFramer, Error, StreamReader, StreamWriter, XxHash64,
    };

    data_integrity::protected::write_protected().unwrap();

    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new()));
    writer.write(&"A protected message").unwrap();
    let mut bytes = writer.into_inner();
    let mut reader = StreamReader::new(&bytes[..], ChecksumDeframer::new(XxHash64::new()));
    let payload = reader.read_message().unwrap().unwrap();
    assert_eq!(
        flatbuffers::root::<&str>(payload).unwrap(),
        "A protected message"
    );

    // "It will automatically validate the integrity and return Error::ChecksumMismatch."
    let last = bytes.len() - 1;
    bytes[last] ^= 0x80;
    let mut reader = StreamReader::new(&bytes[..], ChecksumDeframer::new(XxHash64::new()));
    assert!(matches!(
        reader.read_message(),
        Err(Error::ChecksumMismatch { offset: 0, .. })
    ));
}
