//! The flatstream demo: writes a million telemetry readings to a file, reads them back with
//! FlatBuffers verification, checks every field, and reports what happened.
//!
//! ```text
//! cargo run --release -p flatstream --example telemetry [-- [--checksum KIND] [MESSAGES [PATH]]]
//! cargo run --release -p flatstream --example telemetry -- --help
//! ```
//!
//! `--checksum` picks the frame checksum at run time (`none`, `xxhash64`, `crc32`, `crc16`,
//! `crc32c`, the names `flatstream --checksum` takes); the default is `xxhash64`, as a journal
//! that must detect corruption would use.
//! Given a PATH, the demo leaves the stream there (for `flatstream inspect PATH`); otherwise
//! it writes a temporary file and removes it.
//!
//! The schema is `examples/telemetry.fbs`; its Rust code, in `examples/generated/`, is produced
//! by flatc 25.12.19 (`cargo xtask flatc` regenerates it).

use flatbuffers::{FlatBufferBuilder, VerifierOptions};
use flatstream::checksum::AnyChecksum;
use flatstream::{
    ChecksumDeframer, ChecksumFramer, Result, StreamReader, StreamSerialize, StreamWriter,
};
use std::fs::File;
use std::io::BufWriter;
use std::path::PathBuf;
use std::process::ExitCode;
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

const USAGE: &str = "\
Writes telemetry readings to a stream file, reads them back with FlatBuffers verification, and
reports the time each took.

Usage: telemetry [--checksum KIND] [MESSAGES [PATH]]

Arguments:
  MESSAGES  how many readings to write [default: 1000000]
  PATH      where to leave the stream, for `flatstream inspect PATH` [default: a temporary
            file, removed at the end]

Options:
  -c, --checksum KIND  the frame checksum: none, xxhash64, crc32, crc32c or crc16
                       [default: xxhash64]
  -h, --help           print this help";

/// What the command line asks for.
struct Args {
    checksum: AnyChecksum,
    count: u64,
    path: Option<PathBuf>,
}

/// Reads the command line: `Ok(None)` for `--help`, `Err` with one line for a bad argument.
fn parse_args(args: impl IntoIterator<Item = String>) -> std::result::Result<Option<Args>, String> {
    let mut checksum = AnyChecksum::new(flatstream::checksum::ChecksumKind::XxHash64)
        .map_err(|e| e.to_string())?;
    let mut positional = Vec::new();
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "-h" | "--help" => return Ok(None),
            "-c" | "--checksum" => {
                let name = args.next().ok_or("--checksum needs a KIND")?;
                checksum = name
                    .parse()
                    .map_err(|e| format!("--checksum {name}: {e}"))?;
            }
            flag if flag.starts_with('-') && flag.len() > 1 => {
                return Err(format!("unknown option {flag}"));
            }
            _ => positional.push(arg),
        }
    }
    let mut positional = positional.into_iter();
    let count = match positional.next() {
        Some(n) => n
            .parse()
            .map_err(|_| format!("MESSAGES must be a whole number, not {n:?}"))?,
        None => 1_000_000,
    };
    let path = positional.next().map(PathBuf::from);
    if let Some(extra) = positional.next() {
        return Err(format!("unexpected argument {extra:?}"));
    }
    Ok(Some(Args {
        checksum,
        count,
        path,
    }))
}

fn main() -> ExitCode {
    let args = match parse_args(std::env::args().skip(1)) {
        Ok(Some(args)) => args,
        Ok(None) => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Err(why) => {
            eprintln!("telemetry: {why} (see --help)");
            return ExitCode::from(2);
        }
    };
    match run(args) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("telemetry: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `PATH: what: the error`, in lowercase and without Rust's "(os error N)".
fn io_error(path: &std::path::Path, what: &str, e: &std::io::Error) -> String {
    let text = e.to_string();
    let text = text.split(" (os error").next().unwrap_or_default();
    let mut chars = text.chars();
    let text: String = match chars.next() {
        Some(first) => first.to_lowercase().chain(chars).collect(),
        None => String::new(),
    };
    format!("{}: {what}: {text}", path.display())
}

fn run(args: Args) -> std::result::Result<(), Box<dyn std::error::Error>> {
    let Args {
        checksum,
        count,
        path: given,
    } = args;
    // A path given is kept for you to look into (`flatstream inspect PATH`); the default
    // temporary file is removed at the end.
    let keep = given.is_some();
    let path =
        given.unwrap_or_else(|| std::env::temp_dir().join("flatstream-telemetry-demo.fstream"));

    // Write: simple mode, one reused builder, a BufWriter in front of the file.
    let started = Instant::now();
    let file = File::create(&path).map_err(|e| io_error(&path, "cannot create", &e))?;
    let file = BufWriter::with_capacity(1 << 20, file);
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
        4 + flatstream::checksum::Checksum::size(&checksum)
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

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(line: &str) -> std::result::Result<Option<Args>, String> {
        parse_args(line.split_whitespace().map(str::to_owned))
    }

    #[test]
    fn help_is_asked_for_with_either_flag() {
        for line in ["--help", "-h", "10 --help", "--checksum crc32 -h"] {
            assert!(matches!(parse(line), Ok(None)), "{line}");
        }
        assert!(USAGE.contains("Usage: telemetry [--checksum KIND] [MESSAGES [PATH]]"));
    }

    #[test]
    fn arguments_are_read_and_bad_ones_are_one_line() {
        let args = parse("-c crc32 42 /tmp/x").unwrap().unwrap();
        assert_eq!(
            args.checksum.kind(),
            flatstream::checksum::ChecksumKind::Crc32
        );
        assert_eq!((args.count, args.path), (42, Some(PathBuf::from("/tmp/x"))));
        let args = parse("").unwrap().unwrap();
        assert_eq!(
            args.checksum.kind(),
            flatstream::checksum::ChecksumKind::XxHash64
        );
        assert_eq!((args.count, args.path), (1_000_000, None));
        for (line, error) in [
            ("abc", "MESSAGES must be a whole number, not \"abc\""),
            ("--checksum", "--checksum needs a KIND"),
            ("--checksum md5", "--checksum md5: "),
            ("--frobnicate", "unknown option --frobnicate"),
            ("1 p q", "unexpected argument \"q\""),
        ] {
            let why = parse(line)
                .err()
                .unwrap_or_else(|| panic!("{line}: accepted"));
            assert!(why.starts_with(error), "{line}: {why}");
            assert!(!why.contains('\n'), "{line}: {why}");
        }
    }

    #[test]
    fn an_io_error_names_its_path_in_lowercase() {
        let e = std::fs::File::create("/no/such/dir/x").unwrap_err();
        let why = io_error(std::path::Path::new("/no/such/dir/x"), "cannot create", &e);
        assert_eq!(
            why,
            "/no/such/dir/x: cannot create: no such file or directory"
        );
    }
}
