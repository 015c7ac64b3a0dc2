//! Chunks: one being filled with records, a message index per channel; once full, compressed
//! (here, or on threads while the next fills) and written with its indexes, in order.
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
use std::collections::{BTreeMap, VecDeque};
use std::io::{self, Write};
use std::sync::Mutex;
use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::thread::JoinHandle;

/// The records' size at which a chunk is closed: the `mcap` crate's default.
pub(crate) const CHUNK_SIZE: usize = 1 << 20;

/// A Message record's bytes before its payload.
const MESSAGE_HEAD: usize = 1 + 8 + 2 + 4 + 8 + 8;

/// The most threads that compress chunks besides the one that fills them, whatever the
/// machine has.
const MAX_THREADS: usize = 3;

/// The chunks each compressing thread holds at most: one it compresses, one waiting.
const QUEUED_PER_THREAD: u64 = 2;

/// How a chunk's records are compressed.
enum Compressor {
    None,
    /// A context kept from chunk to chunk.
    Zstd(Box<zstd::bulk::Compressor<'static>>),
    Lz4,
}

impl Compressor {
    fn new(compression: Compression, level: i32) -> io::Result<Compressor> {
        Ok(match compression {
            Compression::None => Compressor::None,
            Compression::Lz4 => Compressor::Lz4,
            Compression::Zstd => Compressor::Zstd(Box::new(zstd::bulk::Compressor::new(level)?)),
        })
    }

    /// Packs `chunk`: the CRC-32 of its records, and the records compressed into its
    /// `compressed` buffer (left empty when stored).
    fn pack(&mut self, chunk: &mut Full) {
        chunk.crc = crc32fast::Hasher::new();
        chunk.crc.update(&chunk.contents.records);
        chunk.compressed.clear();
        let records = &chunk.contents.records;
        let into = &mut chunk.compressed;
        let done = match self {
            Compressor::None => Ok(()),
            Compressor::Zstd(zstd) => {
                into.reserve(zstd::zstd_safe::compress_bound(records.len()));
                zstd.compress_to_buffer(records, into).map(drop)
            }
            Compressor::Lz4 => lz4_frame(records, into),
        };
        chunk.failed = done.err();
    }
}

/// The Chunk record's name of `compression` (empty: stored).
fn record_name(compression: Compression) -> &'static str {
    match compression {
        Compression::None => "",
        Compression::Zstd => "zstd",
        Compression::Lz4 => "lz4",
    }
}

/// `records` as one LZ4 frame into `into`, of independent 256 KiB blocks: linked blocks would
/// save a 64 KiB dictionary after each block, a fifth more processor time an export for a
/// file no smaller (measured in `docs/design.md`).
fn lz4_frame(records: &[u8], into: &mut Vec<u8>) -> io::Result<()> {
    let mut lz4 = lz4::EncoderBuilder::new()
        // No checksum of the frame's own: the chunk's CRC covers the records.
        .block_checksum(lz4::liblz4::BlockChecksum::NoBlockChecksum)
        .checksum(lz4::ContentChecksum::NoChecksum)
        .block_size(lz4::BlockSize::Max256KB)
        .block_mode(lz4::BlockMode::Independent)
        .build(std::mem::take(into))?;
    lz4.write_all(records)?;
    let (compressed, done) = lz4.finish();
    *into = compressed;
    done
}

/// What a chunk holds: its records, a message index per channel, its time range.
struct Contents {
    /// Its records, uncompressed.
    records: Vec<u8>,
    /// Per channel (by index): its messages' `(log time, offset)` pairs, as the Message
    /// Index record holds them.
    indexes: Vec<Vec<u8>>,
    /// The least and greatest log time of its messages; `(u64::MAX, 0)` without any.
    times: (u64, u64),
}

impl Contents {
    fn new() -> Contents {
        Contents {
            records: Vec::with_capacity(CHUNK_SIZE + (CHUNK_SIZE >> 4)),
            indexes: Vec::new(),
            times: (u64::MAX, 0),
        }
    }
}

/// A closed chunk on its way to the file, with the buffers that go with it from chunk to
/// chunk (they come back for the next).
struct Full {
    contents: Contents,
    /// The records' CRC-32, once packed.
    crc: crc32fast::Hasher,
    /// The records compressed, once packed (empty when stored).
    compressed: Vec<u8>,
    /// Why packing failed, if it did.
    failed: Option<io::Error>,
}

impl Full {
    fn new() -> Full {
        Full {
            contents: Contents::new(),
            crc: crc32fast::Hasher::new(),
            compressed: Vec::new(),
            failed: None,
        }
    }
}

/// The chunks of a file: the one being filled, and where full ones are compressed.
pub(crate) struct Chunks {
    filling: Full,
    packing: Packing,
    /// The name of the compression, in each Chunk record.
    name: &'static str,
    /// A buffer for a chunk's header and its Message Index records, kept for the next.
    buf: Vec<u8>,
}

/// Where full chunks are compressed.
enum Packing {
    /// Here, when each is closed: stored chunks, or a machine of one core.
    Here(Compressor),
    /// On `threads` threads compressing with `compression` (zstd at `level`), and here when
    /// they are all busy; started when the first chunk is closed.
    Threads {
        threads: usize,
        compression: Compression,
        level: i32,
        pool: Option<Pool>,
    },
}

impl Chunks {
    /// No chunk yet, compressed with `compression` at the `zstd` level `level`.
    pub(crate) fn new(compression: Compression, level: i32) -> io::Result<Chunks> {
        let threads = match compression {
            Compression::None => 0,
            // The filling thread compresses too, when the others are busy.
            _ => std::thread::available_parallelism().map_or(0, |n| (n.get() - 1).min(MAX_THREADS)),
        };
        Chunks::with_threads(compression, level, threads)
    }

    /// No chunk yet, compressed on `threads` threads besides this one (none: here).
    fn with_threads(compression: Compression, level: i32, threads: usize) -> io::Result<Chunks> {
        let packing = if threads == 0 {
            Packing::Here(Compressor::new(compression, level)?)
        } else {
            Packing::Threads {
                threads,
                compression,
                level,
                pool: None,
            }
        };
        Ok(Chunks {
            filling: Full::new(),
            packing,
            name: record_name(compression),
            buf: Vec::new(),
        })
    }

    /// Appends a record other than a message (a Schema, a Channel).
    pub(crate) fn push_record(&mut self, bytes: &[u8]) {
        self.filling.contents.records.extend_from_slice(bytes);
    }

    /// Appends a Message record of the `index`-th channel, its log and publish time `time`.
    #[inline]
    pub(crate) fn push_message(&mut self, index: usize, sequence: u32, time: u64, payload: &[u8]) {
        let chunk = &mut self.filling.contents;
        if index >= chunk.indexes.len() {
            chunk.indexes.resize_with(index + 1, Vec::new);
        }
        let offset = chunk.records.len() as u64;
        let mut head = [0u8; MESSAGE_HEAD];
        head[0] = op::MESSAGE;
        head[1..9].copy_from_slice(&((MESSAGE_HEAD - 9 + payload.len()) as u64).to_le_bytes());
        head[9..11].copy_from_slice(&channel_id(index).to_le_bytes());
        head[11..15].copy_from_slice(&sequence.to_le_bytes());
        head[15..23].copy_from_slice(&time.to_le_bytes());
        head[23..31].copy_from_slice(&time.to_le_bytes());
        chunk.records.extend_from_slice(&head);
        chunk.records.extend_from_slice(payload);
        let mut entry = [0u8; 16];
        entry[..8].copy_from_slice(&time.to_le_bytes());
        entry[8..].copy_from_slice(&offset.to_le_bytes());
        chunk.indexes[index].extend_from_slice(&entry);
        chunk.times = (chunk.times.0.min(time), chunk.times.1.max(time));
    }

    /// Whether the chunk being filled has reached [`CHUNK_SIZE`].
    #[inline]
    pub(crate) fn is_full(&self) -> bool {
        self.filling.contents.records.len() >= CHUNK_SIZE
    }

    /// Closes the chunk being filled: it is compressed and written to `out` with its Message
    /// Index records, or handed to a compressing thread while the next fills (and the chunks
    /// before it that are compressed by then are written). The Chunk Index of each chunk
    /// written goes into `indexes`, in the file's order.
    pub(crate) fn close<W: Write>(
        &mut self,
        out: &mut Output<W>,
        indexes: &mut Vec<ChunkIndex>,
    ) -> io::Result<()> {
        let pool = match &mut self.packing {
            Packing::Here(compressor) => {
                compressor.pack(&mut self.filling);
                return write_chunk(out, indexes, &mut self.filling, self.name, &mut self.buf);
            }
            Packing::Threads {
                threads,
                compression,
                level,
                pool,
            } => match pool {
                Some(pool) => pool,
                None => pool.insert(Pool::new(*threads, *compression, *level)?),
            },
        };
        if pool.queue.len() >= pool.depth() {
            if let Some(mut done) = pool.oldest(true)? {
                write_chunk(out, indexes, &mut done, self.name, &mut self.buf)?;
                pool.spare.push(done);
            }
        }
        let next = pool.spare.pop().unwrap_or_else(Full::new);
        pool.add(std::mem::replace(&mut self.filling, next))?;
        // What is compressed by now is written now: the file grows as it fills.
        while let Some(mut done) = pool.oldest(false)? {
            write_chunk(out, indexes, &mut done, self.name, &mut self.buf)?;
            pool.spare.push(done);
        }
        Ok(())
    }

    /// Writes every chunk not written yet, the one being filled too if it holds records (the
    /// compressing threads stop when the file is dropped).
    pub(crate) fn finish<W: Write>(
        &mut self,
        out: &mut Output<W>,
        indexes: &mut Vec<ChunkIndex>,
    ) -> io::Result<()> {
        if !self.filling.contents.records.is_empty() {
            self.close(out, indexes)?;
        }
        if let Packing::Threads {
            pool: Some(pool), ..
        } = &mut self.packing
        {
            while let Some(mut done) = pool.oldest(true)? {
                write_chunk(out, indexes, &mut done, self.name, &mut self.buf)?;
            }
        }
        Ok(())
    }
}

/// Writes the packed chunk `chunk` (compressed as `name` says) and its Message Index records
/// to `out`, `buf` a buffer to lay them out in; adds its Chunk Index to `indexes` and empties
/// it for the next.
fn write_chunk<W: Write>(
    out: &mut Output<W>,
    indexes: &mut Vec<ChunkIndex>,
    chunk: &mut Full,
    name: &'static str,
    buf: &mut Vec<u8>,
) -> io::Result<()> {
    if let Some(e) = chunk.failed.take() {
        return Err(e);
    }
    let Full {
        contents,
        crc,
        compressed,
        ..
    } = chunk;
    let stored = name.is_empty();
    let data = if stored {
        &contents.records
    } else {
        &*compressed
    };
    let (start, end) = match contents.times {
        (u64::MAX, 0) => (0, 0),
        times => times,
    };
    let header = ChunkHeader {
        message_start_time: start,
        message_end_time: end,
        uncompressed_size: contents.records.len() as u64,
        uncompressed_crc: crc.clone().finalize(),
        compression: name.to_owned(),
        compressed_size: data.len() as u64,
    };
    buf.clear();
    record(buf, op::CHUNK, &header, data.len())?;
    let chunk_start_offset = out.written();
    out.write(buf)?;
    if stored {
        // The data is the records: their CRC is not computed twice.
        out.write_hashed(data, crc)?;
    } else {
        out.write(data)?;
    }
    let chunk_length = out.written() - chunk_start_offset;

    buf.clear();
    let mut message_index_offsets = BTreeMap::new();
    for (i, entries) in contents.indexes.iter_mut().enumerate() {
        if entries.is_empty() {
            continue;
        }
        let id = channel_id(i);
        message_index_offsets.insert(id, out.written() + buf.len() as u64);
        let array_len = u32::try_from(entries.len()).map_err(io::Error::other)?;
        buf.push(op::MESSAGE_INDEX);
        buf.extend_from_slice(&(2 + 4 + u64::from(array_len)).to_le_bytes());
        buf.extend_from_slice(&id.to_le_bytes());
        buf.extend_from_slice(&array_len.to_le_bytes());
        buf.extend_from_slice(entries);
        entries.clear();
    }
    out.write(buf)?;

    contents.records.clear();
    contents.times = (u64::MAX, 0);
    indexes.push(ChunkIndex {
        message_start_time: start,
        message_end_time: end,
        chunk_start_offset,
        chunk_length,
        message_index_offsets,
        message_index_length: buf.len() as u64,
        compression: header.compression,
        compressed_size: header.compressed_size,
        uncompressed_size: header.uncompressed_size,
    });
    Ok(())
}

/// Threads that compress chunks, each with its compressor, and the filling thread's own
/// compressor for when they are all busy. A chunk closed goes to a thread with fewer than
/// [`QUEUED_PER_THREAD`] chunks out, or, when every thread has that many, is compressed where it
/// was filled: the filling thread takes its share of the compression instead of waiting or
/// competing for a core with the threads. Chunks come back from a thread in the order it got
/// them, so taking back the oldest chunk not written yet keeps the file's order.
struct Pool {
    threads: Vec<Thread>,
    here: Compressor,
    /// The chunks closed and not written yet, oldest first.
    queue: VecDeque<Slot>,
    /// The thread the next chunk is offered to first.
    next: usize,
    /// Chunks taken back and written: their buffers, for the next to fill.
    spare: Vec<Full>,
    /// The chunks compressed here, for the tests to see that it happens.
    #[cfg(test)]
    packed_here: u64,
}

/// A chunk closed and not written yet.
enum Slot {
    /// Compressed where it was filled.
    Packed(Full),
    /// On the thread of this index.
    On(usize),
}

/// A compressing thread: chunks to it, and back from it packed, in its own order.
struct Thread {
    to: Option<Sender<Full>>,
    /// Behind a mutex only so that an exporter is `Sync`: it is reached through `&mut`, never
    /// locked.
    from: Mutex<Receiver<Full>>,
    handle: Option<JoinHandle<()>>,
    /// The chunks sent to it and not taken back.
    out: u64,
}

impl Thread {
    fn from(&mut self) -> &Receiver<Full> {
        self.from
            .get_mut()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

impl Pool {
    /// `threads` threads compressing with `compression` (zstd at `level`), and a compressor
    /// for the filling thread.
    fn new(threads: usize, compression: Compression, level: i32) -> io::Result<Pool> {
        let threads = (0..threads)
            .map(|_| {
                let mut compressor = Compressor::new(compression, level)?;
                let (to, jobs) = channel::<Full>();
                let (done, from) = channel();
                let handle = std::thread::Builder::new()
                    .name("flatstream-mcap-chunk".to_owned())
                    .spawn(move || {
                        for mut chunk in jobs {
                            compressor.pack(&mut chunk);
                            if done.send(chunk).is_err() {
                                break;
                            }
                        }
                    })?;
                Ok(Thread {
                    to: Some(to),
                    from: Mutex::new(from),
                    handle: Some(handle),
                    out: 0,
                })
            })
            .collect::<io::Result<_>>()?;
        Ok(Pool {
            threads,
            here: Compressor::new(compression, level)?,
            queue: VecDeque::new(),
            next: 0,
            spare: Vec::new(),
            #[cfg(test)]
            packed_here: 0,
        })
    }

    /// The most chunks closed and not written at once: what the threads hold, and one
    /// compressed here.
    fn depth(&self) -> usize {
        self.threads.len() * QUEUED_PER_THREAD as usize + 1
    }

    /// Hands `chunk` to a thread that has room, or compresses it here when none has.
    fn add(&mut self, mut chunk: Full) -> io::Result<()> {
        let n = self.threads.len();
        let room = (0..n)
            .map(|i| (self.next + i) % n)
            .find(|&t| self.threads[t].out < QUEUED_PER_THREAD);
        let Some(t) = room else {
            #[cfg(test)]
            {
                self.packed_here += 1;
            }
            self.here.pack(&mut chunk);
            self.queue.push_back(Slot::Packed(chunk));
            return Ok(());
        };
        let thread = &mut self.threads[t];
        if thread.to.as_ref().is_none_or(|to| to.send(chunk).is_err()) {
            return Err(stopped());
        }
        thread.out += 1;
        self.next = (t + 1) % n;
        self.queue.push_back(Slot::On(t));
        Ok(())
    }

    /// The oldest chunk not written, packed: waited for if `wait`, else only if it is packed
    /// already.
    fn oldest(&mut self, wait: bool) -> io::Result<Option<Full>> {
        let t = match self.queue.pop_front() {
            None => return Ok(None),
            Some(Slot::Packed(chunk)) => return Ok(Some(chunk)),
            Some(Slot::On(t)) => t,
        };
        let thread = &mut self.threads[t];
        let received = if wait {
            thread.from().recv().map_err(|_| stopped())
        } else {
            match thread.from().try_recv() {
                Ok(chunk) => Ok(chunk),
                Err(TryRecvError::Empty) => {
                    self.queue.push_front(Slot::On(t));
                    return Ok(None);
                }
                Err(TryRecvError::Disconnected) => Err(stopped()),
            }
        };
        let chunk = received?;
        thread.out -= 1;
        Ok(Some(chunk))
    }
}

impl Drop for Pool {
    /// The threads stop once their chunks are done (or at once, for the chunks not written
    /// because the file is given up).
    fn drop(&mut self) {
        for thread in &mut self.threads {
            thread.to = None;
        }
        for thread in &mut self.threads {
            if let Some(handle) = thread.handle.take() {
                let _ = handle.join();
            }
        }
    }
}

/// A compressing thread that could not be started, or stopped.
#[cold]
fn stopped() -> io::Error {
    io::Error::other("a thread compressing the MCAP file's chunks stopped")
}

#[cfg(test)]
mod tests {
    use super::*;
    use mcap::records::Record;

    #[test]
    fn chunks_compressed_on_a_thread_and_here_are_written_in_the_order_they_were_filled() {
        // Sixteen messages of 64 KiB fill a chunk: the filling outruns the one thread, so
        // chunks are compressed here too, between the thread's.
        let mut chunks = Chunks::with_threads(Compression::Zstd, -1, 1).unwrap();
        let mut out = Output::new(Vec::new());
        let mut indexes = Vec::new();
        let sent: Vec<Vec<u8>> = (0..24 * 16u32)
            .map(|i| (0..1u32 << 16).map(|j| (j / 7 * i % 251) as u8).collect())
            .collect();
        for (i, payload) in sent.iter().enumerate() {
            chunks.push_message(0, i as u32, i as u64, payload);
            if chunks.is_full() {
                chunks.close(&mut out, &mut indexes).unwrap();
            }
        }
        chunks.finish(&mut out, &mut indexes).unwrap();
        let Packing::Threads {
            pool: Some(pool), ..
        } = &chunks.packing
        else {
            panic!("one thread compresses");
        };
        assert!(pool.packed_here > 0, "no chunk was compressed here");
        assert!(
            pool.packed_here < 23,
            "no chunk was compressed on the thread"
        );

        let file = out.into_inner().unwrap();
        let mut read = Vec::new();
        for record in mcap::read::LinearReader::sans_magic(&file) {
            if let Record::Message { header, data } = record.unwrap() {
                assert_eq!(header.sequence as usize, read.len());
                read.push(data.into_owned());
            }
        }
        assert!(
            read == sent,
            "the messages come back in the order they were written"
        );
        assert_eq!(indexes.len(), 24);
        for (i, index) in indexes.iter().enumerate() {
            assert_eq!(file[index.chunk_start_offset as usize], op::CHUNK);
            assert_eq!(index.message_start_time, i as u64 * 16, "chunk {i}");
        }
    }
}
