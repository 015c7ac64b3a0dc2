//! The flatstream demo: writes a million telemetry readings to a file, reads them back with
//! FlatBuffers verification, checks every field, and reports what happened.
//!
//! ```text
//! cargo run --release --example telemetry [-- [--checksum NAME] [MESSAGES [PATH]]]
//! ```
//!
//! `--checksum` picks the frame checksum at run time (`none`, `xxh3`, `crc32`, `crc16`,
//! `crc32c`); the default is `xxh3`, as a journal that must detect corruption would use.
//! Given a PATH, the demo leaves the stream there (for `flatstream inspect PATH`); otherwise
//! it writes a temporary file and removes it.
//!
//! The schema is `examples/telemetry.fbs`; its Rust code, in `examples/generated/`, is produced
//! by flatc 25.12.19 (`cargo xtask flatc` regenerates it).

use flatbuffers::{FlatBufferBuilder, VerifierOptions};
use flatstream::{
    AnyChecksum, ChecksumDeframer, ChecksumFramer, Result, StreamReader, StreamSerialize,
    StreamWriter,
};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::time::Instant;

#[path = "telemetry_schema.rs"]
mod telemetry_schema;
use telemetry_schema::{Telemetry, TelemetryArgs, root_as_telemetry_with_opts};

/// One reading, as the application holds it.
struct Reading {
    device_id: u64,
    timestamp: u64,
    value: f64,
}

impl Reading {
    /// The `i`-th reading of the demo: 64 devices, one reading each per millisecond.
    fn nth(i: u64) -> Self {
        Reading {
            device_id: i % 64,
            timestamp: 1_700_000_000_000 + i / 64,
            value: (i as f64 * 0.001).sin() * 100.0,
        }
    }
}

impl StreamSerialize for Reading {
    fn serialize<A: flatbuffers::Allocator + 'static>(
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

fn main() -> std::result::Result<(), Box<dyn std::error::Error>> {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut checksum: AnyChecksum = "xxh3".parse()?;
    if let Some(at) = args.iter().position(|a| a == "--checksum") {
        let name = args.get(at + 1).ok_or("--checksum needs a name")?;
        checksum = name
            .parse()
            .map_err(|e| format!("--checksum {name}: {e}"))?;
        args.drain(at..at + 2);
    }
    let mut args = args.into_iter();
    // (the rest: MESSAGES and PATH)
    let count: u64 = match args.next() {
        Some(n) => n.parse()?,
        None => 1_000_000,
    };
    // A path given is kept for you to look into (`flatstream inspect PATH`); the default
    // temporary file is removed at the end.
    let given = args.next().map(PathBuf::from);
    let keep = given.is_some();
    let path =
        given.unwrap_or_else(|| std::env::temp_dir().join("flatstream-telemetry-demo.fstream"));

    // Write: simple mode, one reused builder, a BufWriter in front of the file.
    let started = Instant::now();
    let file = BufWriter::with_capacity(1 << 20, File::create(&path)?);
    let mut writer = StreamWriter::new(file, ChecksumFramer::new(checksum));
    for i in 0..count {
        writer.write(&Reading::nth(i))?;
    }
    writer.flush()?;
    let bytes = writer.bytes_written();
    let write_time = started.elapsed();
    let started = Instant::now();
    let file = writer
        .into_inner()
        .into_inner()
        .map_err(|e| e.into_error())?;
    file.sync_all()?;
    let sync_time = started.elapsed();

    // Read: straight from the file (the reader buffers), verifying every payload and checking
    // every field against what was written.
    let started = Instant::now();
    let deframer = ChecksumDeframer::new(checksum);
    let mut reader = StreamReader::new(File::open(&path)?, deframer).with_max_frame_len(1024);
    let opts = VerifierOptions::default();
    let mut read = 0u64;
    let mut payload_bytes = 0u64;
    reader.process_all(|payload| {
        let msg = root_as_telemetry_with_opts(&opts, payload)?;
        let expected = Reading::nth(read);
        if msg.device_id() != expected.device_id
            || msg.timestamp() != expected.timestamp
            || msg.value().to_bits() != expected.value.to_bits()
        {
            return Err(flatstream::Error::validation(
                "demo",
                format!("message {read} does not hold what was written"),
                0,
            ));
        }
        read += 1;
        payload_bytes += payload.len() as u64;
        Ok(())
    })?;
    let read_time = started.elapsed();
    assert_eq!(read, count, "every message written was read back");

    let mb = bytes as f64 / 1e6;
    println!("flatstream telemetry demo");
    println!("  file            {}", path.display());
    println!("  checksum        {checksum}");
    println!("  messages        {count}");
    let per_frame = bytes as f64 / count.max(1) as f64;
    let per_payload = payload_bytes as f64 / count.max(1) as f64;
    println!(
        "  bytes           {bytes} ({per_frame:.1} per frame on average: {}-byte header + {per_payload:.1}-byte FlatBuffer)",
        4 + flatstream::Checksum::size(&checksum)
    );
    for (what, time) in [("write", write_time), ("read+verify", read_time)] {
        let secs = time.as_secs_f64();
        println!(
            "  {what:<15} {:>8.1} ms  {:>8.1} MB/s  {:>6.2} M msg/s",
            secs * 1e3,
            mb / secs,
            count as f64 / secs / 1e6
        );
    }
    println!(
        "  fsync           {:>8.1} ms  (not included above: that is the disk, not flatstream)",
        sync_time.as_secs_f64() * 1e3
    );
    println!(
        "  all {read} messages passed the {checksum} check and FlatBuffers verification, and matched what was written"
    );
    if !keep {
        std::fs::remove_file(&path)?;
    }
    Ok(())
}
