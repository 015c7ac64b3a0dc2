//! The wide-message workload: a market-data order-book snapshot (`benches/schemas/orderbook.fbs`:
//! a timestamp, a sequence number, the instrument and the ten best bid and ask levels, each a
//! price and a size), written and read back by flatstream and by each peer.
//!
//! Two reads of the same messages on every side:
//!
//! * **selective**: the best bid and ask (price and size of the first level of each side), the
//!   four fields a quoting or monitoring application reads, folded into [`Best`];
//! * **whole**: every field, folded into [`Whole`].
//!
//! The sides, each over a buffer it wrote itself ([`WideWrite`]) and reads as often as it is asked
//! ([`WideRead`]):
//!
//! | side | write | read |
//! |---|---|---|
//! | [`Flatstream`] | flatc-generated builder, no checksum | [`Frames`](flatstream::Frames), every payload verified (`process_typed`) |
//! | [`Unchecked`] | the same, framed with XXH3-64 | every frame's checksum checked, no FlatBuffers verification (`process_typed_unchecked`) |
//! | [`PlanusRead`] | the same bytes as [`Flatstream`] | planus's accessors, which check bounds as they read |
//! | [`PlanusWrite`] | planus's builder, no checksum | – |
//! | [`Bincode`] | bincode 2 (serde, `config::standard()`), 4-byte length | `decode_from_slice` into a [`Book`] |
//! | [`Prost`] | prost, varint length (`encode_length_delimited`) | `decode_length_delimited` into a [`ProtoBook`] |
//! | [`Json`] | serde_json, 4-byte length | `from_slice` into a [`Book`] |
//!
//! Each side writes from the form an application would hold its messages in: serde's sides and
//! the FlatBuffers builders from [`Book`], prost from its own [`ProtoBook`] structs (built once
//! in [`Messages::new`], as a prost application keeps them). bincode, prost and serde_json must
//! decode a whole message (and allocate its `String` and two `Vec`s) before any field can be
//! read; the FlatBuffers sides read fields in place.

mod flat;
mod peers;

pub use flat::{Flatstream, OrderBookRoot, PlanusRead, PlanusWrite, Unchecked};
pub use peers::{Bincode, Json, Prost, ProtoBook, ProtoLevel};

use serde::{Deserialize, Serialize};

/// The flatc 25.12.19 output for `benches/schemas/orderbook.fbs`, committed (`cargo xtask
/// flatc` regenerates it).
#[allow(
    unsafe_code,
    unused_imports,
    rust_2018_idioms,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    unreachable_pub
)]
#[path = "../generated/orderbook_generated.rs"]
pub mod fb;

/// The planus 1.3 output for the same schema, committed (`cargo xtask flatc` regenerates it
/// when `planus` 1.3 is installed).
#[allow(
    unsafe_code,
    unused_imports,
    rust_2018_idioms,
    clippy::all,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    unreachable_pub
)]
#[path = "../generated/orderbook_planus.rs"]
pub mod planus_fb;

/// Messages per benchmark iteration (the parameter of every `wide_*` id): about 4 MB of
/// frames, more than the L2 cache holds and within L3.
pub const MESSAGES: usize = 10_000;

/// Levels on each side of a book.
pub const DEPTH: usize = 10;

/// One price level as an application holds it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Level {
    /// Price in ticks.
    pub price: i64,
    /// Quantity resting at this price.
    pub size: u64,
}

/// One order-book snapshot as an application holds it: the fields of the `OrderBook` table.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Book {
    /// Exchange time, nanoseconds since the Unix epoch.
    pub timestamp: u64,
    /// The feed's sequence number.
    pub sequence: u64,
    /// The instrument's symbol.
    pub instrument: String,
    /// Bids, best (highest) first.
    pub bids: Vec<Level>,
    /// Asks, best (lowest) first.
    pub asks: Vec<Level>,
}

/// The instruments the snapshots cycle through.
const SYMBOLS: [&str; 8] = [
    "BTC-USD", "ETH-USD", "EUR/USD", "AAPL", "MSFT", "ESH6", "SOL-USDT", "GBP/JPY",
];

impl Book {
    /// The `i`-th snapshot of a deterministic sequence: [`DEPTH`] levels a side, one tick
    /// apart from a wandering mid price, sizes from 1 to 100 000.
    pub fn nth(i: u64) -> Self {
        let mut x = i.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ 0xD1B5_4A32_D192_ED03;
        let mut size = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % 100_000 + 1
        };
        let mid = 5_000_000 + (i % 1000) as i64 * 7;
        let bids = (0..DEPTH as i64)
            .map(|k| Level {
                price: mid - 1 - k,
                size: size(),
            })
            .collect();
        let asks = (0..DEPTH as i64)
            .map(|k| Level {
                price: mid + 1 + k,
                size: size(),
            })
            .collect();
        Book {
            timestamp: 1_767_225_600_000_000_000 + i * 250_000,
            sequence: 1_000_000 + i,
            instrument: SYMBOLS[(i % SYMBOLS.len() as u64) as usize].to_owned(),
            bids,
            asks,
        }
    }
}

/// The messages of one run, in the form each side writes from.
#[derive(Debug, Clone)]
pub struct Messages {
    /// The snapshots, for the FlatBuffers and serde sides.
    pub books: Vec<Book>,
    /// The same snapshots as prost structs.
    pub protos: Vec<ProtoBook>,
}

impl Messages {
    /// The first `n` snapshots of [`Book::nth`].
    pub fn new(n: usize) -> Self {
        let books: Vec<Book> = (0..n as u64).map(Book::nth).collect();
        let protos = books.iter().map(ProtoBook::from).collect();
        Messages { books, protos }
    }

    /// The number of messages.
    pub fn len(&self) -> usize {
        self.books.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.books.is_empty()
    }
}

/// What a selective read saw: wrapping sums of the best bid and ask of every message (a side
/// with no level adds nothing).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Best {
    /// Messages read.
    pub count: u64,
    /// Sum of the best bid prices.
    pub bid_prices: i64,
    /// Sum of the best bid sizes.
    pub bid_sizes: u64,
    /// Sum of the best ask prices.
    pub ask_prices: i64,
    /// Sum of the best ask sizes.
    pub ask_sizes: u64,
}

impl Best {
    /// Folds one message's best bid and ask, as `(price, size)`, in.
    #[inline(always)]
    pub fn add(&mut self, bid: Option<(i64, u64)>, ask: Option<(i64, u64)>) {
        self.count += 1;
        if let Some((price, size)) = bid {
            self.bid_prices = self.bid_prices.wrapping_add(price);
            self.bid_sizes = self.bid_sizes.wrapping_add(size);
        }
        if let Some((price, size)) = ask {
            self.ask_prices = self.ask_prices.wrapping_add(price);
            self.ask_sizes = self.ask_sizes.wrapping_add(size);
        }
    }

    /// The sums of `books`, computed directly.
    pub fn of(books: &[Book]) -> Self {
        let mut best = Best::default();
        for b in books {
            let level = |l: &Level| (l.price, l.size);
            best.add(b.bids.first().map(level), b.asks.first().map(level));
        }
        best
    }
}

/// What a whole read saw: wrapping sums of every field of every message (the instrument by its
/// length in bytes).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Whole {
    /// Messages read.
    pub count: u64,
    /// Sum of the timestamps.
    pub timestamps: u64,
    /// Sum of the sequence numbers.
    pub sequences: u64,
    /// Sum of the instruments' lengths.
    pub instrument_bytes: u64,
    /// Levels read, bids and asks.
    pub levels: u64,
    /// Sum of every level's price.
    pub prices: i64,
    /// Sum of every level's size.
    pub sizes: u64,
}

impl Whole {
    /// Folds one message's scalar fields and instrument in (its levels go in with
    /// [`levels`](Self::levels)).
    #[inline(always)]
    pub fn head(&mut self, timestamp: u64, sequence: u64, instrument: &str) {
        self.count += 1;
        self.timestamps = self.timestamps.wrapping_add(timestamp);
        self.sequences = self.sequences.wrapping_add(sequence);
        self.instrument_bytes += instrument.len() as u64;
    }

    /// Folds the levels of one side, as `(price, size)`, in. The sums are kept in locals and
    /// added once: summing into `self` level by level would make every side's loop wait on a
    /// store and reload of the same fields (the compiler cannot keep them in registers across
    /// the readers' callbacks), a cost of this fold rather than of the format.
    #[inline(always)]
    pub fn levels(&mut self, levels: impl IntoIterator<Item = (i64, u64)>) {
        let (mut n, mut prices, mut sizes) = (0u64, 0i64, 0u64);
        for (price, size) in levels {
            n += 1;
            prices = prices.wrapping_add(price);
            sizes = sizes.wrapping_add(size);
        }
        self.levels += n;
        self.prices = self.prices.wrapping_add(prices);
        self.sizes = self.sizes.wrapping_add(sizes);
    }

    /// Folds a whole [`Book`] in (the serde sides, and the expected sums).
    #[inline(always)]
    pub fn book(&mut self, b: &Book) {
        self.head(b.timestamp, b.sequence, &b.instrument);
        for side in [&b.bids, &b.asks] {
            self.levels(side.iter().map(|l| (l.price, l.size)));
        }
    }

    /// The sums of `books`, computed directly.
    pub fn of(books: &[Book]) -> Self {
        let mut whole = Whole::default();
        for b in books {
            whole.book(b);
        }
        whole
    }
}

/// The write side: encodes every message into the side's buffer, replacing what was there.
pub trait WideWrite {
    /// Writes every message of `m` as one frame.
    fn write(&mut self, m: &Messages);

    /// Bytes on the wire after the last write, frames included.
    fn wire_len(&self) -> usize;
}

/// The read side: reads the frames of the last [`WideWrite::write`], as often as asked.
pub trait WideRead: WideWrite {
    /// Reads the best bid and ask of every message.
    fn selective(&mut self) -> Best;

    /// Reads every field of every message.
    fn whole(&mut self) -> Whole;
}

/// Every read side, by its benchmark name, in the order the benchmarks run them.
pub fn read_sides() -> Vec<(&'static str, Box<dyn WideRead>)> {
    vec![
        ("flatstream-verified", Box::new(Flatstream::default())),
        ("flatstream-unchecked", Box::new(Unchecked::default())),
        ("planus", Box::new(PlanusRead::default())),
        ("bincode", Box::new(Bincode::default())),
        ("prost", Box::new(Prost::default())),
        ("serde_json", Box::new(Json::default())),
    ]
}

/// Every write side, by its benchmark name (the read sides' writers, and planus's builder).
pub fn write_sides() -> Vec<(&'static str, Box<dyn WideWrite>)> {
    vec![
        ("flatstream", Box::new(Flatstream::default())),
        ("flatstream-xxhash64", Box::new(Unchecked::default())),
        ("planus", Box::new(PlanusWrite::default())),
        ("bincode", Box::new(Bincode::default())),
        ("prost", Box::new(Prost::default())),
        ("serde_json", Box::new(Json::default())),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_read_side_reads_back_what_it_wrote() {
        for n in [0, 1, 257] {
            let m = Messages::new(n);
            let (best, whole) = (Best::of(&m.books), Whole::of(&m.books));
            for (name, mut side) in read_sides() {
                // Twice: the second write reuses the state left by the first.
                for _ in 0..2 {
                    side.write(&m);
                    assert_eq!(side.selective(), best, "{name}, {n} messages");
                    assert_eq!(side.whole(), whole, "{name}, {n} messages");
                    assert_eq!(side.selective(), best, "{name}, read again");
                }
            }
        }
    }

    #[test]
    fn the_sums_see_a_changed_field() {
        let m = Messages::new(5);
        let mut changed = m.books.clone();
        changed[2].asks[0].size += 1;
        assert_ne!(Best::of(&m.books), Best::of(&changed));
        let mut changed = m.books.clone();
        changed[4].asks[DEPTH - 1].price += 1;
        assert_eq!(Best::of(&m.books), Best::of(&changed), "not a best level");
        assert_ne!(Whole::of(&m.books), Whole::of(&changed));
    }

    #[test]
    fn books_have_full_depth_and_uncrossed_sides() {
        for b in Messages::new(100).books {
            assert_eq!((b.bids.len(), b.asks.len()), (DEPTH, DEPTH));
            assert!(b.bids[0].price < b.asks[0].price);
            assert!(b.bids.windows(2).all(|w| w[0].price > w[1].price));
            assert!(b.asks.windows(2).all(|w| w[0].price < w[1].price));
        }
    }

    #[test]
    fn every_write_side_writes_something_per_message() {
        let m = Messages::new(10);
        for (name, mut side) in write_sides() {
            side.write(&m);
            assert!(side.wire_len() > 10 * 2 * DEPTH * 2, "{name}");
        }
    }
}
