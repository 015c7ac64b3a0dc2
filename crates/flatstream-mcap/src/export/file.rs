//! The MCAP file around the chunks: the magic and the Header record first, then the chunks,
//! each followed by its Message Index records, then the Data End record, the summary, the
//! summary offsets, the Footer and the magic again.
//!
//! ```text
//! [magic][Header][Chunk][Message Index]…[Chunk][Message Index]…[Data End]
//! [Schema][Channel]…[Statistics][Chunk Index]…[Summary Offset]…[Footer][magic]
//!  ^ summary_start                              ^ summary_offset_start
//! ```
//!
//! Offsets count from the first byte of the leading magic. The Data End record holds the
//! CRC-32 of every byte before it; the Footer, the CRC-32 of the summary, the summary offsets
//! and its own first two fields. The Schema and Channel records go into the chunks, where a
//! reader from the start meets them before their messages, and again into the summary, where
//! a reader that seeks finds them. Records other than Message and Message Index are laid out
//! by the `mcap` crate's own types.

use super::chunk::Chunks;
use super::output::{Output, channel_id, failed, op, record};
use crate::export::{Compression, FLATBUFFER};
use mcap::records::{
    Channel, ChunkIndex, DataEnd, Footer, Header, SchemaHeader, Statistics, SummaryOffset,
};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The id of the schema: the file has one.
const SCHEMA_ID: u16 = 1;

/// An MCAP file of one schema's channels being written.
pub(crate) struct McapFile<W> {
    out: Output<W>,
    chunks: Chunks,
    chunk_indexes: Vec<ChunkIndex>,
    /// The Schema record and the Channel records as written, for the summary.
    schema: Vec<u8>,
    channels: Vec<u8>,
    /// Per channel (by index), its messages so far.
    counts: Vec<u64>,
    /// Whether a chunk failed to be written (or compressed): every call after it fails, since
    /// what the output holds is no longer the start of an MCAP file.
    failed: bool,
}

impl<W: Write> McapFile<W> {
    /// A file written to `out`, its chunks compressed as `compression` says (zstd at `level`),
    /// its schema `name` holding `data`: the magic and the Header record are written.
    pub(crate) fn new(
        out: W,
        compression: Compression,
        level: i32,
        name: &str,
        data: &[u8],
    ) -> io::Result<McapFile<W>> {
        let mut out = Output::new(out);
        let mut start = mcap::MAGIC.to_vec();
        let header = Header {
            profile: String::new(),
            library: concat!("flatstream-mcap ", env!("CARGO_PKG_VERSION")).to_owned(),
        };
        record(&mut start, op::HEADER, &header, 0)?;
        out.write(&start)?;
        let mut schema = Vec::with_capacity(data.len() + 64);
        let header = SchemaHeader {
            id: SCHEMA_ID,
            name: name.to_owned(),
            encoding: FLATBUFFER.to_owned(),
        };
        let len = u32::try_from(data.len()).map_err(io::Error::other)?;
        record(&mut schema, op::SCHEMA, &header, 4 + data.len())?;
        schema.extend_from_slice(&len.to_le_bytes());
        schema.extend_from_slice(data);
        let mut chunks = Chunks::new(compression, level)?;
        chunks.push_record(&schema);
        Ok(McapFile {
            out,
            chunks,
            chunk_indexes: Vec::new(),
            schema,
            channels: Vec::new(),
            counts: Vec::new(),
            failed: false,
        })
    }

    /// Adds the channel `topic` of messages of the schema; returns its index (below 65 535).
    pub(crate) fn channel(&mut self, topic: &str) -> io::Result<usize> {
        let index = self.counts.len();
        let channel = Channel {
            id: channel_id(index),
            schema_id: SCHEMA_ID,
            topic: topic.to_owned(),
            message_encoding: FLATBUFFER.to_owned(),
            metadata: BTreeMap::new(),
        };
        let start = self.channels.len();
        record(&mut self.channels, op::CHANNEL, &channel, 0)?;
        self.chunks.push_record(&self.channels[start..]);
        self.counts.push(0);
        Ok(index)
    }

    /// The channels added so far.
    pub(crate) fn channels(&self) -> usize {
        self.counts.len()
    }

    /// The messages written so far.
    pub(crate) fn messages(&self) -> u64 {
        self.counts.iter().sum()
    }

    /// The messages of the `index`-th channel so far.
    #[inline]
    pub(crate) fn count(&self, index: usize) -> u64 {
        self.counts[index]
    }

    /// Adds a message to the `index`-th channel, its sequence number its count so far (modulo
    /// 2^32); writes the chunk once full.
    #[inline]
    pub(crate) fn message(&mut self, index: usize, time: u64, payload: &[u8]) -> io::Result<()> {
        if self.failed {
            return Err(failed());
        }
        let count = self.counts[index];
        self.chunks.push_message(index, count as u32, time, payload);
        self.counts[index] = count + 1;
        if self.chunks.is_full() {
            self.close_chunk()?;
        }
        Ok(())
    }

    /// Closes the chunk: it is written with its indexes (or handed to a compressing thread).
    #[cold]
    fn close_chunk(&mut self) -> io::Result<()> {
        let closed = self.chunks.close(&mut self.out, &mut self.chunk_indexes);
        self.failed = closed.is_err();
        closed
    }

    /// Writes the last chunk, the Data End record, the summary and the Footer; returns the
    /// output.
    pub(crate) fn finish(mut self) -> io::Result<W> {
        if self.failed {
            return Err(failed());
        }
        self.chunks.finish(&mut self.out, &mut self.chunk_indexes)?;
        let mut end = Vec::new();
        let data_section_crc = self.out.crc();
        record(&mut end, op::DATA_END, &DataEnd { data_section_crc }, 0)?;
        let mut summary = Summary::at(self.out.written() + end.len() as u64);
        summary.group(op::SCHEMA, |buf| {
            buf.extend_from_slice(&self.schema);
            Ok(())
        })?;
        summary.group(op::CHANNEL, |buf| {
            buf.extend_from_slice(&self.channels);
            Ok(())
        })?;
        let statistics = self.statistics();
        summary.group(op::STATISTICS, |buf| {
            record(buf, op::STATISTICS, &statistics, 0)
        })?;
        summary.group(op::CHUNK_INDEX, |buf| {
            for index in &self.chunk_indexes {
                record(buf, op::CHUNK_INDEX, index, 0)?;
            }
            Ok(())
        })?;
        let footer = summary.finish()?;
        end.extend_from_slice(&footer);
        self.out.write(&end)?;
        self.out.into_inner()
    }

    /// The Statistics record: what the file holds.
    fn statistics(&self) -> Statistics {
        let times = self
            .chunk_indexes
            .iter()
            .filter(|c| !c.message_index_offsets.is_empty())
            .map(|c| (c.message_start_time, c.message_end_time))
            .reduce(|a, b| (a.0.min(b.0), a.1.max(b.1)));
        let (message_start_time, message_end_time) = times.unwrap_or((0, 0));
        Statistics {
            message_count: self.messages(),
            schema_count: 1,
            channel_count: self.counts.len() as u32,
            attachment_count: 0,
            metadata_count: 0,
            chunk_count: u32::try_from(self.chunk_indexes.len()).unwrap_or(u32::MAX),
            message_start_time,
            message_end_time,
            channel_message_counts: (self.counts.iter().enumerate())
                .filter(|&(_, &n)| n > 0)
                .map(|(i, &n)| (channel_id(i), n))
                .collect(),
        }
    }
}

/// The summary section being laid out, a group of records of one opcode at a time, then the
/// summary offsets and the Footer.
struct Summary {
    /// Where the summary starts in the file.
    start: u64,
    buf: Vec<u8>,
    offsets: Vec<SummaryOffset>,
}

impl Summary {
    fn at(start: u64) -> Summary {
        Summary {
            start,
            buf: Vec::new(),
            offsets: Vec::new(),
        }
    }

    /// Appends the group of `opcode` records that `write` lays out, if it writes any.
    fn group(
        &mut self,
        opcode: u8,
        write: impl FnOnce(&mut Vec<u8>) -> io::Result<()>,
    ) -> io::Result<()> {
        let start = self.buf.len();
        write(&mut self.buf)?;
        if self.buf.len() > start {
            self.offsets.push(SummaryOffset {
                group_opcode: opcode,
                group_start: self.start + start as u64,
                group_length: (self.buf.len() - start) as u64,
            });
        }
        Ok(())
    }

    /// The summary, its offsets, the Footer with the summary's CRC, and the magic.
    fn finish(mut self) -> io::Result<Vec<u8>> {
        let summary_offset_start = self.start + self.buf.len() as u64;
        for offset in &self.offsets {
            record(&mut self.buf, op::SUMMARY_OFFSET, offset, 0)?;
        }
        // Zero for a section without records.
        let footer = Footer {
            summary_start: if self.offsets.is_empty() {
                0
            } else {
                self.start
            },
            summary_offset_start: if self.offsets.is_empty() {
                0
            } else {
                summary_offset_start
            },
            summary_crc: 0,
        };
        record(&mut self.buf, op::FOOTER, &footer, 0)?;
        // The CRC covers the Footer up to the CRC itself, its last 4 bytes.
        let crc_at = self.buf.len() - 4;
        let summary_crc = crc32fast::hash(&self.buf[..crc_at]);
        self.buf[crc_at..].copy_from_slice(&summary_crc.to_le_bytes());
        self.buf.extend_from_slice(mcap::MAGIC);
        Ok(self.buf)
    }
}
