//! The peers' sides of the wide workload: bincode, prost and serde_json, each decoding a whole
//! message with its safe decoder before reading any field.

use super::{Best, Book, Level, Messages, Whole, WideRead, WideWrite};
use crate::cycle::{framed, next_frame};

/// One level as protobuf, written by hand with prost's derive (no protoc):
///
/// ```text
/// message Level { int64 price = 1; uint64 size = 2; }
/// ```
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct ProtoLevel {
    /// Price in ticks.
    #[prost(int64, tag = "1")]
    pub price: i64,
    /// Quantity resting at this price.
    #[prost(uint64, tag = "2")]
    pub size: u64,
}

/// The snapshot as protobuf:
///
/// ```text
/// message OrderBook {
///   uint64 timestamp = 1;
///   uint64 sequence = 2;
///   string instrument = 3;
///   repeated Level bids = 4;
///   repeated Level asks = 5;
/// }
/// ```
#[derive(Clone, PartialEq, prost::Message)]
pub struct ProtoBook {
    /// Exchange time, nanoseconds since the Unix epoch.
    #[prost(uint64, tag = "1")]
    pub timestamp: u64,
    /// The feed's sequence number.
    #[prost(uint64, tag = "2")]
    pub sequence: u64,
    /// The instrument's symbol.
    #[prost(string, tag = "3")]
    pub instrument: String,
    /// Bids, best (highest) first.
    #[prost(message, repeated, tag = "4")]
    pub bids: Vec<ProtoLevel>,
    /// Asks, best (lowest) first.
    #[prost(message, repeated, tag = "5")]
    pub asks: Vec<ProtoLevel>,
}

impl From<&Book> for ProtoBook {
    fn from(b: &Book) -> Self {
        let levels = |ls: &[Level]| {
            ls.iter()
                .map(|l| ProtoLevel {
                    price: l.price,
                    size: l.size,
                })
                .collect()
        };
        ProtoBook {
            timestamp: b.timestamp,
            sequence: b.sequence,
            instrument: b.instrument.clone(),
            bids: levels(&b.bids),
            asks: levels(&b.asks),
        }
    }
}

/// bincode 2 through serde with `config::standard()` (varint integers), each message framed
/// with a 4-byte little-endian length, decoded with `decode_from_slice`.
#[derive(Debug, Default)]
pub struct Bincode {
    buf: Vec<u8>,
}

impl Bincode {
    /// Decodes every message and hands it to `f`.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Book)) {
        let config = bincode::config::standard();
        let mut bytes = &self.buf[..];
        while let Some(frame) = next_frame(&mut bytes) {
            let (book, _): (Book, usize) =
                bincode::serde::decode_from_slice(frame, config).expect("valid bincode");
            f(book);
        }
    }
}

impl WideWrite for Bincode {
    fn write(&mut self, m: &Messages) {
        let config = bincode::config::standard();
        self.buf.clear();
        for b in &m.books {
            framed(&mut self.buf, |out| {
                bincode::serde::encode_into_std_write(b, out, config).expect("encode into a Vec");
            });
        }
    }

    fn wire_len(&self) -> usize {
        self.buf.len()
    }
}

impl WideRead for Bincode {
    fn selective(&mut self) -> Best {
        let mut best = Best::default();
        self.each(|b| best.add(first(&b.bids), first(&b.asks)));
        best
    }

    fn whole(&mut self) -> Whole {
        let mut whole = Whole::default();
        self.each(|b| whole.book(&b));
        whole
    }
}

/// The first level of a side, as `(price, size)`.
#[inline(always)]
fn first(levels: &[Level]) -> Option<(i64, u64)> {
    levels.first().map(|l| (l.price, l.size))
}

/// prost: length-delimited protobuf (a varint length, then the message), written with
/// `encode_length_delimited` from the [`ProtoBook`]s of [`Messages`] and read with
/// `decode_length_delimited`.
#[derive(Debug, Default)]
pub struct Prost {
    buf: Vec<u8>,
}

impl Prost {
    /// Decodes every message and hands it to `f`.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(ProtoBook)) {
        use prost::Message;
        let mut bytes = &self.buf[..];
        while !bytes.is_empty() {
            f(ProtoBook::decode_length_delimited(&mut bytes).expect("valid protobuf"));
        }
    }
}

impl WideWrite for Prost {
    fn write(&mut self, m: &Messages) {
        use prost::Message;
        self.buf.clear();
        for b in &m.protos {
            b.encode_length_delimited(&mut self.buf)
                .expect("encode into a Vec");
        }
    }

    fn wire_len(&self) -> usize {
        self.buf.len()
    }
}

impl WideRead for Prost {
    fn selective(&mut self) -> Best {
        let mut best = Best::default();
        let level = |l: &ProtoLevel| (l.price, l.size);
        self.each(|b| best.add(b.bids.first().map(level), b.asks.first().map(level)));
        best
    }

    fn whole(&mut self) -> Whole {
        let mut whole = Whole::default();
        self.each(|b| {
            whole.head(b.timestamp, b.sequence, &b.instrument);
            for side in [&b.bids, &b.asks] {
                whole.levels(side.iter().map(|l| (l.price, l.size)));
            }
        });
        whole
    }
}

/// serde_json: each message a JSON object, framed with a 4-byte little-endian length, decoded
/// with `from_slice`.
#[derive(Debug, Default)]
pub struct Json {
    buf: Vec<u8>,
}

impl Json {
    /// Decodes every message and hands it to `f`.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(Book)) {
        let mut bytes = &self.buf[..];
        while let Some(frame) = next_frame(&mut bytes) {
            f(serde_json::from_slice(frame).expect("valid JSON"));
        }
    }
}

impl WideWrite for Json {
    fn write(&mut self, m: &Messages) {
        self.buf.clear();
        for b in &m.books {
            framed(&mut self.buf, |out| {
                serde_json::to_writer(out, b).expect("encode into a Vec");
            });
        }
    }

    fn wire_len(&self) -> usize {
        self.buf.len()
    }
}

impl WideRead for Json {
    fn selective(&mut self) -> Best {
        let mut best = Best::default();
        self.each(|b| best.add(first(&b.bids), first(&b.asks)));
        best
    }

    fn whole(&mut self) -> Whole {
        let mut whole = Whole::default();
        self.each(|b| whole.book(&b));
        whole
    }
}
