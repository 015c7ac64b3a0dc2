//! Frames into an MCAP file: one schema record for the `.bfbs`, a channel per topic, a message
//! per payload, verified on the way.

mod chunk;
mod file;
mod output;

use crate::error::{Error, Result};
use crate::time::{TimeField, TimeUnit};
use file::McapFile;
use flatstream_reflect::Verifier;
use std::io::Write;

/// The encoding MCAP's registry names for FlatBuffers, of schemas and of messages.
pub const FLATBUFFER: &str = "flatbuffer";

/// The zstd level of chunks: -1, zstd's first fast level. On the demo's readings it takes a
/// quarter less processor time than level 1 (Foxglove's C++ writer's) for a file 6 % larger;
/// level 3 (the `mcap` crate's) takes twice as long as 1. Measured in `docs/design.md`.
const ZSTD_LEVEL: i32 = -1;

/// How the chunks of the file are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Zstandard (at level -1, fast), the default: what Foxglove and the `mcap` tools write.
    #[default]
    Zstd,
    /// LZ4 frames: faster, larger.
    Lz4,
    /// Chunks stored as they are.
    None,
}

/// Where each message's `log_time` and `publish_time` come from.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum Time {
    /// The frame's index in its channel (0, 1, 2…), as nanoseconds.
    #[default]
    Index,
    /// A field of the payload: a path of field names from the root table joined by `.`,
    /// ending on an integer counting `unit`s, or on a struct of two integers `sec` and `nsec`
    /// (Foxglove's `Time`, where `unit` is not used).
    Field {
        /// The path (`timestamp`, `header.stamp`).
        path: String,
        /// What the integer counts.
        unit: TimeUnit,
    },
}

/// How frames are exported: the root type, the time, the compression.
#[derive(Debug, Clone, Default)]
pub struct ExportOptions {
    root_type: Option<String>,
    time: Time,
    compression: Compression,
}

impl ExportOptions {
    /// The defaults: the schema's own root type, times from the frames' indexes, zstd chunks.
    pub fn new() -> Self {
        Self::default()
    }

    /// The table the frames hold: a full name (`fleet.Robot`) or a name only one table has.
    /// Default: the schema's `root_type`.
    pub fn root_type(mut self, name: impl Into<String>) -> Self {
        self.root_type = Some(name.into());
        self
    }

    /// Where messages' times come from. Default: [`Time::Index`].
    pub fn time(mut self, time: Time) -> Self {
        self.time = time;
        self
    }

    /// How chunks are compressed. Default: [`Compression::Zstd`].
    pub fn compression(mut self, compression: Compression) -> Self {
        self.compression = compression;
        self
    }
}

/// A channel of an [`Exporter`]'s file, from [`Exporter::channel`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChannelId {
    /// The channel's index in the file (its id is one more).
    index: usize,
}

/// Writes payloads of one FlatBuffers table into an MCAP file: the schema record once, a
/// channel per topic, a message per payload, in chunks with the indexes and summary a viewer
/// needs to seek.
///
/// Every payload is verified against the schema before it is written (an invalid one is an
/// error, and nothing of it is written). Chunks are filled with the messages' records up to
/// 1 MiB, then compressed and written, each followed by its message indexes; nothing is
/// seeked, so `out` can be a pipe. Compressed chunks are compressed on threads of their own
/// (one per core but one, at most three, started when the first chunk is full) while the next
/// chunks fill, at most two chunks a thread at once; when every thread has two, the chunk is
/// compressed on the caller's thread instead. Chunks are written in order.
/// [`finish`](Self::finish) writes the summary; a file not finished is not a complete MCAP
/// file.
pub struct Exporter<W: Write> {
    file: McapFile<W>,
    verifier: Verifier,
    table: String,
    time: Option<TimeField>,
}

impl<W: Write> std::fmt::Debug for Exporter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("table", &self.table)
            .field("channels", &self.file.channels())
            .field("messages", &self.file.messages())
            .finish_non_exhaustive()
    }
}

impl<W: Write> Exporter<W> {
    /// An exporter of payloads of the `.bfbs` schema `bfbs` into `out`, as `options` say. The
    /// schema record holds `bfbs` as it is when the root type is the schema's own, or the
    /// schema re-rooted at the table asked for (so that a viewer that reads its `root_type`
    /// reads the table the messages hold); it is named with the table's full name. The file's
    /// offsets count from where `out` is when it is given.
    ///
    /// # Errors
    ///
    /// [`Error::Schema`] for a schema that cannot be loaded or rooted,
    /// [`Error::TimeField`] for a time field that is not one, an I/O error of `out`.
    pub fn new(out: W, bfbs: &[u8], options: &ExportOptions) -> Result<Self> {
        let schema = flatstream_reflect::parse(bfbs)?;
        let root = flatstream_reflect::root_table(&schema, options.root_type.as_deref())?;
        let verifier = Verifier::new(&schema, root)?;
        let table = schema.objects().get(root).name().to_owned();
        let time = match &options.time {
            Time::Index => None,
            Time::Field { path, unit } => Some(TimeField::new(&schema, root, path, *unit)?),
        };
        let own_root = schema
            .root_table()
            .is_some_and(|t| t.name() == table.as_str());
        let rerooted;
        let data = if own_root {
            bfbs
        } else {
            rerooted = flatstream_reflect::reroot(&schema, root);
            &rerooted
        };
        let file = McapFile::new(out, options.compression, ZSTD_LEVEL, &table, data)?;
        Ok(Exporter {
            file,
            verifier,
            table,
            time,
        })
    }

    /// The full name of the table the messages hold (the schema record's name).
    pub fn table(&self) -> &str {
        &self.table
    }

    /// A new channel named `topic`, of messages encoded `flatbuffer` with the schema.
    ///
    /// # Errors
    ///
    /// [`Error::TooManyChannels`] past 65 535.
    pub fn channel(&mut self, topic: &str) -> Result<ChannelId> {
        if self.file.channels() >= usize::from(u16::MAX) {
            return Err(Error::TooManyChannels);
        }
        let index = self.file.channel(topic)?;
        Ok(ChannelId { index })
    }

    /// Verifies `payload` and writes it as the next message of `channel`: its time from the
    /// time field (or its index in the channel), its sequence number its index (modulo 2^32).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidPayload`] or [`Error::Time`], and nothing is written; an I/O error.
    pub fn write(&mut self, channel: ChannelId, payload: &[u8]) -> Result<()> {
        if let Err(e) = self.verifier.verify(payload) {
            return Err(self.invalid(e));
        }
        let time = match &self.time {
            Some(field) => field.read(payload)?,
            None => self.file.count(channel.index),
        };
        self.file.message(channel.index, time, payload)?;
        Ok(())
    }

    #[cold]
    fn invalid(&self, e: flatstream_reflect::Error) -> Error {
        Error::InvalidPayload {
            table: self.table.clone(),
            reason: e.to_string(),
        }
    }

    /// Writes the last chunk, the summary and the footer; returns the output.
    ///
    /// # Errors
    ///
    /// An I/O error of the output.
    pub fn finish(self) -> Result<W> {
        Ok(self.file.finish()?)
    }
}
