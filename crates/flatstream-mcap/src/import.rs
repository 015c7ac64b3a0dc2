//! MCAP files read: what their channels hold, and the messages of their FlatBuffers channels.

use crate::error::{Error, Result};
use crate::export::FLATBUFFER;
use std::collections::BTreeMap;
use std::io::Read;
use std::sync::Arc;

/// The largest record read (a message, or a chunk's compressed bytes): a file that declares
/// more is refused before anything that size is allocated. A record read from the source
/// grows its buffer as its bytes arrive, never ahead of them; a record inside a compressed
/// chunk is given the room its length declares before it is decompressed, up to this bound,
/// which [`Messages::max_record_len`] lowers (for a file, to its length).
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
/// at most [`READ_AT_ONCE`] bytes at a time.
struct Pull<R> {
    source: R,
    reader: mcap::sans_io::MessageReader,
}

impl<R: Read> Pull<R> {
    /// A reader of `source`'s messages, records bounded at `limit` bytes.
    fn new(source: R, limit: usize) -> Self {
        let options = mcap::sans_io::LinearReaderOptions::default().with_record_length_limit(limit);
        Pull {
            source,
            reader: mcap::sans_io::MessageReader::new_with_options(options),
        }
    }

    /// The next message, an error, or `None` at the end.
    fn next(&mut self) -> Option<std::result::Result<mcap::Message<'static>, Error>> {
        use mcap::sans_io::MessageReadEvent;
        while let Some(event) = self.reader.next_event() {
            match event {
                Ok(MessageReadEvent::ReadRequest(need)) => {
                    let buf = self.reader.insert(need.min(READ_AT_ONCE));
                    let read = loop {
                        match self.source.read(buf) {
                            Ok(n) => break n,
                            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                            Err(e) => return Some(Err(Error::Io(e))),
                        }
                    };
                    self.reader.notify_read(read);
                }
                Ok(MessageReadEvent::Message(message)) => return Some(Ok(message)),
                Err(e) => return Some(Err(Error::reading(e))),
            }
        }
        None
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

    /// With records of at most `len` bytes (at most [`MAX_RECORD_LEN`]): a record that
    /// declares more is an error before anything that size is allocated. For a file, its
    /// length: no record read from it can be longer, and a record inside a compressed chunk
    /// that declares more is refused before it is given the room (so a file whose compressed
    /// chunks hold a message longer than the whole file is refused too). Call it before the
    /// first message is read.
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
                    data: message.data.into_owned(),
                }));
            }
        }
        None
    }
}
