//! A chunk being filled: its records in one buffer, a message index per channel, compressed in
//! one call once full and written with its indexes.
//!
//! ```text
//! Message:        [0x05][u64 22 + N][u16 channel][u32 sequence][u64 log time][u64 publish time][payload: N]
//! Chunk:          [0x06][u64 len][u64 start][u64 end][u64 records' size][u32 their CRC-32]
//!                 [u32 4]["zstd"][u64 K][the records, compressed: K]
//! Message Index:  [0x07][u64 6 + 16n][u16 channel][u32 16n]([u64 log time][u64 offset]) × n
//! ```
//!
//! A message's offset counts from the start of the chunk's records, uncompressed. The
//! Message Index records follow their chunk, one per channel with messages in it, in channel
//! order; the Chunk Index that points at all of them goes into the summary.

use super::output::{Output, channel_id, op, record};
use crate::export::Compression;
use mcap::records::{ChunkHeader, ChunkIndex};
use std::collections::BTreeMap;
use std::io::{self, Write};

/// The records' size at which a chunk is closed: the `mcap` crate's default.
pub(crate) const CHUNK_SIZE: usize = 1 << 20;

/// A Message record's bytes before its payload.
const MESSAGE_HEAD: usize = 1 + 8 + 2 + 4 + 8 + 8;

/// How a chunk's records are compressed.
enum Compressor {
    None,
    /// A context kept from chunk to chunk.
    Zstd(Box<zstd::bulk::Compressor<'static>>),
    Lz4,
}

/// The chunk being filled, and what it keeps from one chunk to the next (its buffers, the
/// compressor).
pub(crate) struct Chunk {
    /// Its records, uncompressed.
    records: Vec<u8>,
    /// Per channel (by index): its messages' `(log time, offset)` pairs, as the Message
    /// Index record holds them.
    indexes: Vec<Vec<u8>>,
    /// The least and greatest log time of its messages; `(u64::MAX, 0)` without any.
    times: (u64, u64),
    compressor: Compressor,
    /// The records compressed, and the chunk's header and indexes: buffers kept for the next.
    compressed: Vec<u8>,
    head: Vec<u8>,
    tail: Vec<u8>,
}

impl Chunk {
    /// An empty chunk, compressed with `compression` at the `zstd` level `level`.
    pub(crate) fn new(compression: Compression, level: i32) -> io::Result<Chunk> {
        let compressor = match compression {
            Compression::None => Compressor::None,
            Compression::Lz4 => Compressor::Lz4,
            Compression::Zstd => Compressor::Zstd(Box::new(zstd::bulk::Compressor::new(level)?)),
        };
        Ok(Chunk {
            records: Vec::with_capacity(CHUNK_SIZE + (CHUNK_SIZE >> 4)),
            indexes: Vec::new(),
            times: (u64::MAX, 0),
            compressor,
            compressed: Vec::new(),
            head: Vec::new(),
            tail: Vec::new(),
        })
    }

    /// Appends a record other than a message (a Schema, a Channel).
    pub(crate) fn push_record(&mut self, bytes: &[u8]) {
        self.records.extend_from_slice(bytes);
    }

    /// Appends a Message record of the `index`-th channel, its log and publish time `time`.
    #[inline]
    pub(crate) fn push_message(&mut self, index: usize, sequence: u32, time: u64, payload: &[u8]) {
        if index >= self.indexes.len() {
            self.indexes.resize_with(index + 1, Vec::new);
        }
        let offset = self.records.len() as u64;
        let mut head = [0u8; MESSAGE_HEAD];
        head[0] = op::MESSAGE;
        head[1..9].copy_from_slice(&((MESSAGE_HEAD - 9 + payload.len()) as u64).to_le_bytes());
        head[9..11].copy_from_slice(&channel_id(index).to_le_bytes());
        head[11..15].copy_from_slice(&sequence.to_le_bytes());
        head[15..23].copy_from_slice(&time.to_le_bytes());
        head[23..31].copy_from_slice(&time.to_le_bytes());
        self.records.extend_from_slice(&head);
        self.records.extend_from_slice(payload);
        let mut entry = [0u8; 16];
        entry[..8].copy_from_slice(&time.to_le_bytes());
        entry[8..].copy_from_slice(&offset.to_le_bytes());
        self.indexes[index].extend_from_slice(&entry);
        self.times = (self.times.0.min(time), self.times.1.max(time));
    }

    /// Whether its records have reached [`CHUNK_SIZE`].
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.records.len() >= CHUNK_SIZE
    }

    /// Whether it holds no record.
    pub(crate) fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// Writes the chunk and its Message Index records to `out`, and empties it for the next;
    /// returns its Chunk Index.
    pub(crate) fn write_to<W: Write>(&mut self, out: &mut Output<W>) -> io::Result<ChunkIndex> {
        let mut records_crc = crc32fast::Hasher::new();
        records_crc.update(&self.records);
        let uncompressed_crc = records_crc.clone().finalize();
        let (compression, data) = match &mut self.compressor {
            Compressor::None => ("", &self.records),
            Compressor::Zstd(zstd) => {
                self.compressed.clear();
                self.compressed
                    .reserve(zstd::zstd_safe::compress_bound(self.records.len()));
                zstd.compress_to_buffer(&self.records, &mut self.compressed)?;
                ("zstd", &self.compressed)
            }
            Compressor::Lz4 => {
                self.compressed.clear();
                let mut lz4 = lz4::EncoderBuilder::new()
                    // No checksum of the frame's own: the chunk's CRC covers the records.
                    .block_checksum(lz4::liblz4::BlockChecksum::NoBlockChecksum)
                    .checksum(lz4::ContentChecksum::NoChecksum)
                    .build(std::mem::take(&mut self.compressed))?;
                lz4.write_all(&self.records)?;
                let (compressed, done) = lz4.finish();
                self.compressed = compressed;
                done?;
                ("lz4", &self.compressed)
            }
        };
        let (start, end) = match self.times {
            (u64::MAX, 0) => (0, 0),
            times => times,
        };
        let header = ChunkHeader {
            message_start_time: start,
            message_end_time: end,
            uncompressed_size: self.records.len() as u64,
            uncompressed_crc,
            compression: compression.to_owned(),
            compressed_size: data.len() as u64,
        };
        self.head.clear();
        record(&mut self.head, op::CHUNK, &header, data.len())?;
        let chunk_start_offset = out.written();
        out.write(&self.head)?;
        match self.compressor {
            // Stored, the data is the records: their CRC is not computed twice.
            Compressor::None => out.write_hashed(data, &records_crc)?,
            _ => out.write(data)?,
        }
        let chunk_length = out.written() - chunk_start_offset;

        self.tail.clear();
        let mut message_index_offsets = BTreeMap::new();
        for (i, entries) in self.indexes.iter_mut().enumerate() {
            if entries.is_empty() {
                continue;
            }
            let id = channel_id(i);
            message_index_offsets.insert(id, out.written() + self.tail.len() as u64);
            let array_len = u32::try_from(entries.len()).map_err(io::Error::other)?;
            self.tail.push(op::MESSAGE_INDEX);
            self.tail
                .extend_from_slice(&(2 + 4 + u64::from(array_len)).to_le_bytes());
            self.tail.extend_from_slice(&id.to_le_bytes());
            self.tail.extend_from_slice(&array_len.to_le_bytes());
            self.tail.extend_from_slice(entries);
            entries.clear();
        }
        out.write(&self.tail)?;

        self.records.clear();
        self.times = (u64::MAX, 0);
        Ok(ChunkIndex {
            message_start_time: start,
            message_end_time: end,
            chunk_start_offset,
            chunk_length,
            message_index_offsets,
            message_index_length: self.tail.len() as u64,
            compression: header.compression,
            compressed_size: header.compressed_size,
            uncompressed_size: header.uncompressed_size,
        })
    }
}
