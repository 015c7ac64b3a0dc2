//! The options of the MCAP commands: `export --to mcap`'s own, and `import`.

use super::{KindParser, OutputArgs};
use clap::{Args, ValueEnum};
use flatstream::checksum::ChecksumKind;
use std::path::PathBuf;

/// What a time field's integer counts (`--time-unit`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TimeUnitArg {
    /// Nanoseconds.
    Ns,
    /// Microseconds.
    Us,
    /// Milliseconds.
    Ms,
    /// Seconds.
    S,
}

/// How MCAP chunks are compressed (`--compression`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum CompressionArg {
    /// Zstandard.
    Zstd,
    /// LZ4.
    Lz4,
    /// Stored as they are.
    None,
}

/// The options `export` takes for `--to mcap` only.
#[derive(Debug, Args)]
pub(crate) struct McapExportArgs {
    /// With --to mcap: one channel of this topic for every FILE (default: a channel per FILE,
    /// its topic `/` and the FILE's name without directories or extension).
    #[arg(long, value_name = "NAME")]
    pub(crate) topic: Option<String>,
    /// With --to mcap: the field each message's log and publish time come from, a path of
    /// field names joined by `.`: an integer (see --time-unit) or a struct of two integers
    /// `sec` and `nsec` (Foxglove's Time). Default: the frame's index in its FILE.
    #[arg(long, value_name = "FIELD")]
    pub(crate) time_field: Option<String>,
    /// With --time-field: what its integer counts.
    #[arg(long, value_enum, value_name = "UNIT")]
    pub(crate) time_unit: Option<TimeUnitArg>,
    /// With --to mcap: how chunks are compressed (default: zstd).
    #[arg(long, value_enum, value_name = "KIND")]
    pub(crate) compression: Option<CompressionArg>,
}

impl McapExportArgs {
    /// The first of these options given, if any (each needs --to mcap).
    pub(crate) fn given(&self) -> Option<&'static str> {
        [
            (self.topic.is_some(), "--topic"),
            (self.time_field.is_some(), "--time-field"),
            (self.time_unit.is_some(), "--time-unit"),
            (self.compression.is_some(), "--compression"),
        ]
        .into_iter()
        .find_map(|(given, name)| given.then_some(name))
    }
}

pub(crate) const IMPORT_HELP: &str = "\
Reads an MCAP file (recorded by Foxglove, ROS 2, the mcap tools or `flatstream export --to
mcap`) and writes the messages of its FlatBuffers channels (message encoding `flatbuffer`, a
`.bfbs` schema) to OUT as a flatstream stream, one frame per message, in the order they stand
in the file (log-time order for files written in that order, as recorders write them).
Channels of other encodings (protobuf, json, cdr, ros1msg, ...) are listed on stderr and skipped,
never an error.

  flatstream import robot.mcap -o robot.fstream --schema-out schemas/
  flatstream cat robot.fstream -s schemas/fleet.Robot.bfbs

--topic takes the messages of some channels only. --schema-out DIR writes each imported
channel's schema as DIR/<schema name>.bfbs, for cat --schema, query and export. A file whose
channels hold several schemas gives a stream of mixed messages: import one --topic at a time
to keep one table per stream.

Exit status:
  0  every message was read
  1  the MCAP file is damaged or cut short: OUT holds the messages before the damage
  2  the command could not do its job (missing file, not an MCAP file, a failed write)";

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The MCAP file (- for standard input).
    #[arg(value_name = "FILE")]
    pub(crate) file: String,
    #[command(flatten)]
    pub(crate) out: OutputArgs,
    /// The checksum to frame OUT with: none, xxhash64, crc32, crc32c or crc16.
    #[arg(long, short = 'c', value_name = "KIND", value_parser = KindParser, hide_possible_values = true, default_value = "xxhash64")]
    pub(crate) checksum: ChecksumKind,
    /// Only the messages of these topics (comma-separated, or the option repeated).
    #[arg(long, value_name = "TOPIC", value_delimiter = ',')]
    pub(crate) topic: Vec<String>,
    /// Write the schema of each imported channel into this directory, as <name>.bfbs.
    #[arg(long, value_name = "DIR")]
    pub(crate) schema_out: Option<PathBuf>,
}
