//! MCAP files read: what their channels hold, and the messages of their FlatBuffers channels.

use crate::error::{Error, Result};
use crate::export::FLATBUFFER;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

/// The largest record read (a message, or a chunk's compressed bytes), in the file or inside a
/// chunk: a record that declares more is refused before its bytes are read. A record's buffer
/// grows as its bytes arrive from the source or come out of the chunk's decompressor, never
/// ahead of them, so a record that declares more than it holds costs what it holds.
/// [`Messages::max_record_len`] lowers the bound for the records of the file itself.
pub const MAX_RECORD_LEN: usize = 1 << 30;

/// The most bytes read from the source at once: a record's buffer grows by this much at most
/// before its bytes arrive.
const READ_AT_ONCE: usize = 1 << 16;

/// A channel of an MCAP file, and what its messages were seen to hold.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Channel {
    /// Its id in the file.
    pub id: u16,
    /// Its topic.
    pub topic: String,
    /// How its messages are encoded (`flatbuffer`, `protobuf`, `json`, `cdr`…).
    pub message_encoding: String,
    /// Its schema's name (for FlatBuffers, the root table's full name), if it has one.
    pub schema_name: Option<String>,
    /// Its schema's encoding, if it has one.
    pub schema_encoding: Option<String>,
    /// Its schema's bytes (for FlatBuffers, a `.bfbs`), empty without one.
    pub schema_data: Arc<[u8]>,
    /// Messages of this channel in the file.
    pub messages: u64,
    /// The least and greatest `log_time` of its messages, if it has any.
    pub log_times: Option<(u64, u64)>,
}

impl Channel {
    /// Whether its messages are FlatBuffers with a `.bfbs` schema: the channels
    /// [`Messages`] reads and import takes.
    pub fn is_flatbuffer(&self) -> bool {
        self.message_encoding == FLATBUFFER && self.schema_encoding.as_deref() == Some(FLATBUFFER)
    }

    fn of(channel: &mcap::Channel<'_>) -> Channel {
        let schema = channel.schema.as_deref();
        Channel {
            id: channel.id,
            topic: channel.topic.clone(),
            message_encoding: channel.message_encoding.clone(),
            schema_name: schema.map(|s| s.name.clone()),
            schema_encoding: schema.map(|s| s.encoding.clone()),
            schema_data: schema.map_or_else(|| Arc::from(&[][..]), |s| Arc::from(&*s.data)),
            messages: 0,
            log_times: None,
        }
    }

    fn count(&mut self, log_time: u64) {
        self.messages += 1;
        self.log_times = Some(match self.log_times {
            Some((lo, hi)) => (lo.min(log_time), hi.max(log_time)),
            None => (log_time, log_time),
        });
    }
}

/// Every channel of the MCAP file `source`, in id order, with its messages counted and its
/// time range, read through the whole file (a file without a summary is read the same way).
///
/// # Errors
///
/// [`Error::Mcap`] for a file that is not a readable MCAP file (damaged, cut short, a record
/// over [`MAX_RECORD_LEN`]), an I/O error.
pub fn channels<R: Read>(source: R) -> Result<Vec<Channel>> {
    let mut messages = Messages::new(source, None);
    while messages.next().transpose()?.is_some() {}
    Ok(messages.channels())
}

/// The messages of an MCAP source in file order, pulled from it as the sans-io reader asks,
/// at most [`READ_AT_ONCE`] bytes at a time. Chunks are decompressed here, as a stream: a
/// record inside one grows its buffer as its bytes come out of the decompressor, so a chunk
/// that declares more than it holds costs what it holds.
struct Pull<R> {
    source: R,
    reader: mcap::sans_io::LinearReader,
    channels: mcap::read::ChannelAccumulator<'static>,
    /// The records of the chunk being read.
    chunk: Option<ChunkRecords>,
    /// Past the Data End record: the summary repeats schemas and channels, unchecked.
    past_data_end: bool,
}

/// A message as [`Pull`] hands it out: its channel, time and bytes.
struct Pulled {
    channel: Arc<mcap::Channel<'static>>,
    log_time: u64,
    data: Vec<u8>,
}

impl<R: Read> Pull<R> {
    /// A reader of `source`'s messages, records bounded at `limit` bytes.
    fn new(source: R, limit: usize) -> Self {
        let options = mcap::sans_io::LinearReaderOptions::default()
            .with_record_length_limit(limit)
            .with_emit_chunks(true);
        Pull {
            source,
            reader: mcap::sans_io::LinearReader::new_with_options(options),
            channels: mcap::read::ChannelAccumulator::default(),
            chunk: None,
            past_data_end: false,
        }
    }

    /// The next message, an error, or `None` at the end.
    fn next(&mut self) -> Option<Result<Pulled>> {
        self.next_message().transpose()
    }

    fn next_message(&mut self) -> Result<Option<Pulled>> {
        use mcap::records::op;
        use mcap::sans_io::LinearReadEvent;
        loop {
            if let Some(chunk) = &mut self.chunk {
                match chunk.next_record()? {
                    Some((opcode, body)) => match self.record(opcode, &body)? {
                        Some(message) => return Ok(Some(message)),
                        None => continue,
                    },
                    None => self.chunk = None,
                }
            }
            let Some(event) = self.reader.next_event() else {
                return Ok(None);
            };
            match event.map_err(Error::reading)? {
                LinearReadEvent::ReadRequest(need) => {
                    let buf = self.reader.insert(need.min(READ_AT_ONCE));
                    let read = loop {
                        match self.source.read(buf) {
                            Ok(n) => break n,
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => return Err(Error::Io(e)),
                        }
                    };
                    self.reader.notify_read(read);
                }
                LinearReadEvent::Record {
                    opcode: op::DATA_END,
                    ..
                } => self.past_data_end = true,
                LinearReadEvent::Record { .. } if self.past_data_end => {}
                LinearReadEvent::Record {
                    opcode: op::CHUNK,
                    data,
                } => {
                    let mcap::records::Record::Chunk { header, data } =
                        mcap::parse_record(op::CHUNK, data).map_err(Error::reading)?
                    else {
                        return Err(malformed("a chunk record that does not parse as one"));
                    };
                    self.chunk = Some(ChunkRecords::new(header, data.into_owned())?);
                }
                LinearReadEvent::Record { opcode, data } => {
                    let data = data.to_vec();
                    if let Some(message) = self.record(opcode, &data)? {
                        return Ok(Some(message));
                    }
                }
            }
        }
    }

    /// Takes in the record `opcode` of `body` (a schema, a channel), or hands out the message
    /// it is.
    fn record(&mut self, opcode: u8, body: &[u8]) -> Result<Option<Pulled>> {
        use mcap::records::Record;
        match mcap::parse_record(opcode, body).map_err(Error::reading)? {
            Record::Schema { header, data } => {
                let data = std::borrow::Cow::Owned(data.into_owned());
                self.channels
                    .add_schema(header, data)
                    .map_err(Error::reading)?;
            }
            Record::Channel(channel) => {
                self.channels.add_channel(channel).map_err(Error::reading)?;
            }
            Record::Message { header, data } => {
                let channel = self.channels.get(header.channel_id).ok_or_else(|| {
                    Error::reading(mcap::McapError::UnknownChannel(
                        header.sequence,
                        header.channel_id,
                    ))
                })?;
                return Ok(Some(Pulled {
                    channel,
                    log_time: header.log_time,
                    data: data.into_owned(),
                }));
            }
            _ => {}
        }
        Ok(None)
    }
}

/// The records of one chunk, read from its decompressed bytes as they come out.
struct ChunkRecords {
    records: Box<dyn Read + Send>,
    /// Bytes the chunk declares, and those read so far.
    declared: u64,
    read: u64,
    /// The CRC-32 the chunk declares of its records (0: none), and that of the bytes read.
    crc: u32,
    hasher: crc32fast::Hasher,
}

impl ChunkRecords {
    /// The records of the chunk `header`, its compressed bytes `data`.
    fn new(header: mcap::records::ChunkHeader, data: Vec<u8>) -> Result<ChunkRecords> {
        let data = std::io::Cursor::new(data);
        let records: Box<dyn Read + Send> = match header.compression.as_str() {
            "" => Box::new(data),
            "zstd" => Box::new(zstd::stream::read::Decoder::new(data).map_err(Error::Io)?),
            "lz4" => Box::new(lz4::Decoder::new(data).map_err(Error::Io)?),
            other => {
                return Err(Error::reading(mcap::McapError::UnsupportedCompression(
                    other.to_owned(),
                )));
            }
        };
        Ok(ChunkRecords {
            records,
            declared: header.uncompressed_size,
            read: 0,
            crc: header.uncompressed_crc,
            hasher: crc32fast::Hasher::new(),
        })
    }

    /// The next record's opcode and body, or `None` at the chunk's end (its size and CRC
    /// checked). A record longer than [`MAX_RECORD_LEN`] or than what the chunk declares is
    /// an error before its body is read.
    fn next_record(&mut self) -> Result<Option<(u8, Vec<u8>)>> {
        let mut head = [0u8; 9];
        let got = self.fill(&mut head)?;
        if got == 0 {
            return self.end().map(|()| None);
        }
        if got < head.len() {
            return Err(malformed(
                "a chunk ends inside a record's opcode and length",
            ));
        }
        let len = u64::from_le_bytes(head[1..].try_into().unwrap_or_default());
        if len > self.declared.saturating_sub(self.read) || len > MAX_RECORD_LEN as u64 {
            return Err(Error::reading(mcap::McapError::RecordTooLarge {
                opcode: head[0],
                len,
            }));
        }
        // Room for the body as declared up to 64 KiB; beyond, as its bytes come out.
        let mut body = Vec::with_capacity(len.min(READ_AT_ONCE as u64) as usize);
        (&mut self.records)
            .take(len)
            .read_to_end(&mut body)
            .map_err(decompressing)?;
        self.count(&body);
        if (body.len() as u64) < len {
            return Err(malformed("a chunk ends inside a record"));
        }
        Ok(Some((head[0], body)))
    }

    /// Reads into `buf` until it is full or the records end; the bytes read.
    fn fill(&mut self, buf: &mut [u8]) -> Result<usize> {
        let mut got = 0;
        while got < buf.len() {
            match self.records.read(&mut buf[got..]) {
                Ok(0) => break,
                Ok(n) => got += n,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                Err(e) => return Err(decompressing(e)),
            }
        }
        self.count(&buf[..got]);
        Ok(got)
    }

    fn count(&mut self, bytes: &[u8]) {
        self.read += bytes.len() as u64;
        self.hasher.update(bytes);
    }

    /// The records ended: they must be as long as declared, and match the declared CRC.
    fn end(&self) -> Result<()> {
        if self.read != self.declared {
            return Err(malformed(if self.read < self.declared {
                "a chunk holds fewer bytes than it declares"
            } else {
                "a chunk holds more bytes than it declares"
            }));
        }
        let calculated = self.hasher.clone().finalize();
        if self.crc != 0 && calculated != self.crc {
            return Err(Error::reading(mcap::McapError::BadChunkCrc {
                saved: self.crc,
                calculated,
            }));
        }
        Ok(())
    }
}

/// A file that is not a readable MCAP file, for `why`.
#[cold]
fn malformed(why: &str) -> Error {
    Error::Mcap {
        context: "not a readable MCAP file",
        reason: why.to_owned(),
    }
}

/// An error decompressing a chunk.
#[cold]
fn decompressing(e: std::io::Error) -> Error {
    Error::Mcap {
        context: "not a readable MCAP file",
        reason: format!("a chunk does not decompress: {e}"),
    }
}

/// One message of a FlatBuffers channel.
#[derive(Debug, Clone)]
pub struct Message {
    /// Its channel's id (see [`Messages::channels`]).
    pub channel: u16,
    /// Its `log_time`, in nanoseconds.
    pub log_time: u64,
    /// Its payload: a FlatBuffer of its channel's schema.
    pub data: Vec<u8>,
}

/// The messages of an MCAP file's FlatBuffers channels ([`Channel::is_flatbuffer`]), in the
/// order they stand in the file (for a file written in log-time order, as recorders and
/// [`Exporter`](crate::Exporter) write, that is log-time order). Messages of other channels
/// are counted in [`channels`](Self::channels) and skipped.
pub struct Messages<R: Read> {
    reader: Pull<R>,
    topics: Option<Vec<String>>,
    /// Each channel met, and whether its messages are taken.
    seen: BTreeMap<u16, (Channel, bool)>,
    done: bool,
}

impl<R: Read> std::fmt::Debug for Messages<R> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Messages")
            .field("topics", &self.topics)
            .field("channels", &self.seen.len())
            .finish_non_exhaustive()
    }
}

impl<R: Read> Messages<R> {
    /// The messages of `source`, of every FlatBuffers channel, or of those whose topic is in
    /// `topics`. A record longer than [`MAX_RECORD_LEN`] is an error.
    pub fn new(source: R, topics: Option<Vec<String>>) -> Self {
        Messages {
            reader: Pull::new(source, MAX_RECORD_LEN),
            topics,
            seen: BTreeMap::new(),
            done: false,
        }
    }

    /// With records of the file of at most `len` bytes (at most [`MAX_RECORD_LEN`]): a record
    /// that declares more is an error before its bytes are read. For a file, its length: no
    /// record read from it can be longer. (A record inside a compressed chunk can be longer
    /// than the file; it is bounded by [`MAX_RECORD_LEN`] and by what its chunk declares.)
    /// Call it before the first message is read.
    pub fn max_record_len(self, len: u64) -> Self {
        let len = usize::try_from(len)
            .unwrap_or(usize::MAX)
            .min(MAX_RECORD_LEN);
        Messages {
            reader: Pull::new(self.reader.source, len),
            ..self
        }
    }

    /// The channels met so far, in id order, each with the messages of it read so far
    /// (all of them once the iterator has ended).
    pub fn channels(&self) -> Vec<Channel> {
        self.seen.values().map(|(c, _)| c.clone()).collect()
    }

    /// Whether `topics` takes the messages of `channel`.
    fn wanted(topics: Option<&[String]>, channel: &Channel) -> bool {
        channel.is_flatbuffer() && topics.is_none_or(|t| t.contains(&channel.topic))
    }
}

impl<R: Read> Iterator for Messages<R> {
    type Item = Result<Message>;

    fn next(&mut self) -> Option<Result<Message>> {
        while !self.done {
            let message = match self.reader.next()? {
                Ok(message) => message,
                Err(e) => {
                    self.done = true;
                    return Some(Err(e));
                }
            };
            let id = message.channel.id;
            let topics = self.topics.as_deref();
            let (channel, wanted) = self.seen.entry(id).or_insert_with(|| {
                let channel = Channel::of(&message.channel);
                let wanted = Self::wanted(topics, &channel);
                (channel, wanted)
            });
            channel.count(message.log_time);
            if *wanted {
                return Some(Ok(Message {
                    channel: id,
                    log_time: message.log_time,
                    data: message.data,
                }));
            }
        }
        None
    }
}
