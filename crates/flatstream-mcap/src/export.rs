//! Frames into an MCAP file: one schema record for the `.bfbs`, a channel per topic, a message
//! per payload, verified on the way.

use crate::error::{Error, Result};
use crate::time::{TimeField, TimeUnit};
use flatstream_reflect::Verifier;
use std::collections::BTreeMap;
use std::io::{Seek, Write};

/// The encoding MCAP's registry names for FlatBuffers, of schemas and of messages.
pub const FLATBUFFER: &str = "flatbuffer";

/// How the chunks of the file are compressed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Compression {
    /// Zstandard, the default: what Foxglove and the `mcap` tools write.
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
    id: u16,
    index: usize,
}

/// Writes payloads of one FlatBuffers table into an MCAP file: the schema record once, a
/// channel per topic, a message per payload, in chunks with the indexes and summary a viewer
/// needs to seek.
///
/// Every payload is verified against the schema before it is written (an invalid one is an
/// error, and nothing of it is written). [`finish`](Self::finish) writes the summary; a file
/// not finished is not a complete MCAP file.
pub struct Exporter<W: Write + Seek> {
    writer: mcap::Writer<W>,
    schema_id: u16,
    verifier: Verifier,
    table: String,
    time: Option<TimeField>,
    /// Per channel: its next index.
    next: Vec<u64>,
}

impl<W: Write + Seek> std::fmt::Debug for Exporter<W> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Exporter")
            .field("table", &self.table)
            .field("channels", &self.next.len())
            .finish_non_exhaustive()
    }
}

impl<W: Write + Seek> Exporter<W> {
    /// An exporter of payloads of the `.bfbs` schema `bfbs` into `out`, as `options` say. The
    /// schema record holds `bfbs` as it is when the root type is the schema's own, or the
    /// schema re-rooted at the table asked for (so that a viewer that reads its `root_type`
    /// reads the table the messages hold); it is named with the table's full name.
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
        let data = if own_root {
            bfbs.to_vec()
        } else {
            flatstream_reflect::reroot(&schema, root)
        };
        let compression = match options.compression {
            Compression::Zstd => Some(mcap::Compression::Zstd),
            Compression::Lz4 => Some(mcap::Compression::Lz4),
            Compression::None => None,
        };
        let mut writer = mcap::WriteOptions::new()
            .compression(compression)
            // One thread: a chunk is compressed as its records are written, a few dozen bytes
            // at a time, where zstd's worker threads cost more than they save (the mcap bench:
            // 1.48 s with the default, a thread per core, 1.12 s without, on 2 cores).
            .compression_threads(0)
            .library(concat!("flatstream-mcap ", env!("CARGO_PKG_VERSION")))
            .create(out)
            .map_err(Error::writing)?;
        let schema_id = writer
            .add_schema(&table, FLATBUFFER, &data)
            .map_err(Error::writing)?;
        Ok(Exporter {
            writer,
            schema_id,
            verifier,
            table,
            time,
            next: Vec::new(),
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
    /// [`Error::TooManyChannels`] past 65 535, or an I/O error.
    pub fn channel(&mut self, topic: &str) -> Result<ChannelId> {
        if self.next.len() >= usize::from(u16::MAX) {
            return Err(Error::TooManyChannels);
        }
        let id = self
            .writer
            .add_channel(self.schema_id, topic, FLATBUFFER, &BTreeMap::new())
            .map_err(Error::writing)?;
        self.next.push(0);
        Ok(ChannelId {
            id,
            index: self.next.len() - 1,
        })
    }

    /// Verifies `payload` and writes it as the next message of `channel`: its time from the
    /// time field (or its index in the channel), its sequence number its index (modulo 2^32).
    ///
    /// # Errors
    ///
    /// [`Error::InvalidPayload`] or [`Error::Time`], and nothing is written; an I/O error.
    pub fn write(&mut self, channel: ChannelId, payload: &[u8]) -> Result<()> {
        self.verifier
            .verify(payload)
            .map_err(|e| Error::InvalidPayload {
                table: self.table.clone(),
                reason: e.to_string(),
            })?;
        let index = self.next[channel.index];
        let time = match &self.time {
            Some(field) => field.read(payload)?,
            None => index,
        };
        let header = mcap::records::MessageHeader {
            channel_id: channel.id,
            sequence: index as u32,
            log_time: time,
            publish_time: time,
        };
        self.writer
            .write_to_known_channel(&header, payload)
            .map_err(Error::writing)?;
        self.next[channel.index] = index + 1;
        Ok(())
    }

    /// Writes the last chunk, the summary and the footer; returns the output.
    ///
    /// # Errors
    ///
    /// An I/O error of the output.
    pub fn finish(mut self) -> Result<W> {
        self.writer.finish().map_err(Error::writing)?;
        Ok(self.writer.into_inner())
    }
}
