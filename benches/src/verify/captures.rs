//! The captures verified: the demo's telemetry stream, and a stream of log lines with the
//! fields of Foxglove's `Log` message (`benches/schemas/log.fbs`). Both are XXH3-64-framed,
//! the demo's default checksum, and both are larger than `PARALLEL_MIN_LEN`, so the command
//! verifies them on every core.

use flatbuffers::{Allocator, FlatBufferBuilder};
use flatstream::{ChecksumFramer, StreamSerialize, StreamWriter, XxHash64};
use flatstream_test_support::telemetry::{Telemetry, TelemetryArgs};

/// flatc's code for `benches/schemas/log.fbs`, committed (`cargo xtask flatc` regenerates it).
#[allow(
    unsafe_code,
    unused_imports,
    rust_2018_idioms,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    unreachable_pub
)]
#[path = "../generated/log_generated.rs"]
pub mod fb;

use fb::logs::{Log, LogArgs, LogLevel, Time};

/// Readings in the demo's capture: what `cargo run --release --example telemetry -- PATH`
/// writes by default.
pub const TELEMETRY_FRAMES: u64 = 1_000_000;

/// Lines in the log capture: about as many bytes as the demo's capture.
pub const LOG_FRAMES: u64 = 300_000;

/// The `i`-th reading of the demo (`examples/telemetry.rs`): 64 devices, one reading each
/// per millisecond. Its fields as `TelemetryArgs`.
pub fn demo_reading(i: u64) -> TelemetryArgs {
    TelemetryArgs {
        device_id: i % 64,
        timestamp: 1_700_000_000_000 + i / 64,
        value: (i as f64 * 0.001).sin() * 100.0,
    }
}

/// A reading of the demo, to write.
struct DemoReading(u64);

impl StreamSerialize for DemoReading {
    fn serialize<A: Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> flatstream::Result<()> {
        let root = Telemetry::create(builder, &demo_reading(self.0));
        builder.finish(root, None);
        Ok(())
    }
}

/// The demo's first `n` readings, XXH3-64-framed: with [`TELEMETRY_FRAMES`], the bytes
/// `cargo run --release --example telemetry -- 1000000 PATH` leaves at PATH.
pub fn telemetry_capture(n: u64) -> Vec<u8> {
    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
    for i in 0..n {
        writer.write(&DemoReading(i)).expect("write to a Vec");
    }
    writer.into_inner()
}

/// One log line, as a process writes it.
#[derive(Debug, Clone, PartialEq)]
pub struct LogLine {
    /// Seconds and nanoseconds since the Unix epoch.
    pub sec: u32,
    /// The nanoseconds of the second.
    pub nsec: u32,
    /// `LogLevel`'s value: 1 (debug) to 4 (error).
    pub level: u8,
    /// The text.
    pub message: String,
    /// The node that wrote it.
    pub name: &'static str,
    /// The source file and line that wrote it.
    pub file: &'static str,
    /// The line in `file`.
    pub line: u32,
}

/// The nodes of the robot whose log the capture is, with the source file each logs from.
const NODES: [(&str, &str); 6] = [
    (
        "/planning/behavior_planner",
        "src/planning/behavior_planner.cpp",
    ),
    (
        "/perception/lidar_fusion",
        "src/perception/lidar_fusion_node.cpp",
    ),
    ("/control/mpc_controller", "src/control/mpc_controller.cpp"),
    ("/localization/ekf", "src/localization/ekf_node.cpp"),
    ("/drivers/can_bridge", "src/drivers/can_bridge.cpp"),
    ("/system/monitor", "src/system/resource_monitor.cpp"),
];

/// The `i`-th line of the log capture: 2 000 lines a second from six nodes, 60 % of them
/// info, 30 % debug, 7 % warnings and 3 % errors, messages of 40 to 80 characters with numbers
/// in them (xorshift64 from `i`: the same lines on every run).
pub fn log_line(i: u64) -> LogLine {
    let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) | 1;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        x
    };
    let (name, file) = NODES[(next() % NODES.len() as u64) as usize];
    let (a, b, c) = (next() % 1000, next() % 100, next() % 10_000);
    let (level, message, line) = match next() % 100 {
        0..60 => (
            LogLevel::INFO,
            format!(
                "planned {a} waypoints in {}.{b:02} ms, path cost {c}",
                a / 40
            ),
            212,
        ),
        60..90 => (
            LogLevel::DEBUG,
            format!("frame {i}: {c} points after ground removal, {b} clusters, {a} tracks"),
            87,
        ),
        90..97 => (
            LogLevel::WARNING,
            format!("queue depth {a} over the limit of 64: dropping frame {i}"),
            431,
        ),
        _ => (
            LogLevel::ERROR,
            format!(
                "CAN frame 0x{:03x} timed out after {b} ms (retry {} of 3)",
                c % 0x800,
                a % 3 + 1
            ),
            658,
        ),
    };
    LogLine {
        sec: 1_700_000_000 + (i / 2000) as u32,
        nsec: (i % 2000) as u32 * 500_000,
        level: level.0,
        message,
        name,
        file,
        line,
    }
}

impl StreamSerialize for LogLine {
    fn serialize<A: Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> flatstream::Result<()> {
        let message = builder.create_string(&self.message);
        let name = builder.create_string(self.name);
        let file = builder.create_string(self.file);
        let timestamp = Time::new(self.sec, self.nsec);
        let args = LogArgs {
            timestamp: Some(&timestamp),
            level: LogLevel(self.level),
            message: Some(message),
            name: Some(name),
            file: Some(file),
            line: self.line,
        };
        let root = Log::create(builder, &args);
        builder.finish(root, None);
        Ok(())
    }
}

/// The first `n` lines of the log capture ([`log_line`]; [`LOG_FRAMES`] of them in the
/// benchmark), XXH3-64-framed.
pub fn log_capture(n: u64) -> Vec<u8> {
    let mut writer = StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64));
    for i in 0..n {
        writer.write(&log_line(i)).expect("write to a Vec");
    }
    writer.into_inner()
}
