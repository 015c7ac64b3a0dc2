//! The FlatBuffers sides of the wide workload: flatstream with the verifier, flatstream over a
//! checksummed stream without it, and the same payloads read and written with planus.

use super::fb::orderbook as fb;
use super::planus_fb::orderbook as pl;
use super::{Best, Book, Level, Messages, Whole, WideRead, WideWrite};
use flatbuffers::{Allocator, FlatBufferBuilder};
use flatstream::read::{StreamDeserialize, TypedReaderExt, UncheckedReaderExt};
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Frames, StreamSerialize,
    StreamWriter, XxHash64,
};
use planus::ReadAsRoot;

/// The key for reading payloads as `OrderBook` roots with the typed readers.
#[derive(Debug)]
pub struct OrderBookRoot;

impl StreamDeserialize for OrderBookRoot {
    type Root<'buf> = fb::OrderBook<'buf>;
}

/// A side's levels as flatc's structs.
#[inline(always)]
fn fb_levels(levels: &[Level]) -> impl DoubleEndedIterator<Item = fb::Level> + ExactSizeIterator {
    levels.iter().map(|l| fb::Level::new(l.price, l.size))
}

impl StreamSerialize for Book {
    fn serialize<A: Allocator + 'static>(
        &self,
        builder: &mut FlatBufferBuilder<'_, A>,
    ) -> flatstream::Result<()> {
        let instrument = builder.create_string(&self.instrument);
        let bids = builder.create_vector_from_iter(fb_levels(&self.bids));
        let asks = builder.create_vector_from_iter(fb_levels(&self.asks));
        let root = fb::OrderBook::create(
            builder,
            &fb::OrderBookArgs {
                timestamp: self.timestamp,
                sequence: self.sequence,
                instrument: Some(instrument),
                bids: Some(bids),
                asks: Some(asks),
            },
        );
        builder.finish(root, None);
        Ok(())
    }
}

/// The best level of a side read with flatc's code, as `(price, size)`.
#[inline(always)]
fn first(levels: flatbuffers::Vector<'_, fb::Level>) -> Option<(i64, u64)> {
    levels.iter().next().map(|l| (l.price(), l.size()))
}

/// Folds every field of `book`, read with flatc's code, into `whole`.
#[inline(always)]
fn fold_whole(whole: &mut Whole, book: fb::OrderBook<'_>) {
    whole.head(book.timestamp(), book.sequence(), book.instrument());
    for side in [book.bids(), book.asks()] {
        whole.levels(side.iter().map(|l| (l.price(), l.size())));
    }
}

/// flatstream: a [`StreamWriter`] (no checksum) serializing each [`Book`] with the
/// flatc-generated builder into a reused `Vec`, read back with [`Frames`] over that buffer, each
/// payload verified by the FlatBuffers verifier before its fields are read (`process_typed`).
#[derive(Debug)]
pub struct Flatstream {
    writer: StreamWriter<Vec<u8>, DefaultFramer>,
}

impl Default for Flatstream {
    fn default() -> Self {
        Flatstream {
            writer: StreamWriter::new(Vec::new(), DefaultFramer),
        }
    }
}

impl Flatstream {
    /// The frames written last.
    pub fn bytes(&self) -> &[u8] {
        self.writer.get_ref()
    }
}

impl WideWrite for Flatstream {
    fn write(&mut self, m: &Messages) {
        self.writer.get_mut().clear();
        for b in &m.books {
            self.writer.write(b).expect("write to a Vec");
        }
    }

    fn wire_len(&self) -> usize {
        self.bytes().len()
    }
}

impl WideRead for Flatstream {
    fn selective(&mut self) -> Best {
        let mut best = Best::default();
        Frames::new(self.bytes(), DefaultDeframer)
            .process_typed::<OrderBookRoot, _, _>(|book| {
                best.add(first(book.bids()), first(book.asks()));
                Ok(())
            })
            .expect("read back what was written");
        best
    }

    fn whole(&mut self) -> Whole {
        let mut whole = Whole::default();
        Frames::new(self.bytes(), DefaultDeframer)
            .process_typed::<OrderBookRoot, _, _>(|book| {
                fold_whole(&mut whole, book);
                Ok(())
            })
            .expect("read back what was written");
        whole
    }
}

/// flatstream over a trusted, checksummed stream: the same builder, frames carrying an XXH3-64
/// checksum, read back with [`Frames`] checking every checksum and reading the roots without
/// FlatBuffers verification (`process_typed_unchecked`, the `unchecked` feature).
#[derive(Debug)]
pub struct Unchecked {
    writer: StreamWriter<Vec<u8>, ChecksumFramer<XxHash64>>,
}

impl Default for Unchecked {
    fn default() -> Self {
        Unchecked {
            writer: StreamWriter::new(Vec::new(), ChecksumFramer::new(XxHash64::new())),
        }
    }
}

impl Unchecked {
    /// Calls `f` with every root of the written stream, unverified.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(fb::OrderBook<'_>)) {
        let mut frames = Frames::new(
            self.writer.get_ref(),
            ChecksumDeframer::new(XxHash64::new()),
        );
        // SAFETY: every frame of this buffer was written by `write` above from a `Book`
        // through the flatc-generated builder, so each payload is a valid `OrderBook`
        // FlatBuffer; the checksum deframer rejects any frame changed since.
        #[allow(unsafe_code)]
        let read = unsafe {
            frames.process_typed_unchecked::<OrderBookRoot, _, _>(|book| {
                f(book);
                Ok(())
            })
        };
        read.expect("read back what was written");
    }
}

impl WideWrite for Unchecked {
    fn write(&mut self, m: &Messages) {
        self.writer.get_mut().clear();
        for b in &m.books {
            self.writer.write(b).expect("write to a Vec");
        }
    }

    fn wire_len(&self) -> usize {
        self.writer.get_ref().len()
    }
}

impl WideRead for Unchecked {
    fn selective(&mut self) -> Best {
        let mut best = Best::default();
        self.each(|book| best.add(first(book.bids()), first(book.asks())));
        best
    }

    fn whole(&mut self) -> Whole {
        let mut whole = Whole::default();
        self.each(|book| fold_whole(&mut whole, book));
        whole
    }
}

/// The payloads [`Flatstream`] writes (the same bytes: flatc's builder, no checksum), framed
/// with [`Frames`] and read with planus's generated `OrderBookRef`, whose accessors check each
/// offset and length as they read instead of verifying the whole buffer first.
#[derive(Debug, Default)]
pub struct PlanusRead {
    written: Flatstream,
}

impl PlanusRead {
    /// The frames written last: the same bytes as [`Flatstream`]'s.
    pub fn bytes(&self) -> &[u8] {
        self.written.bytes()
    }

    /// Calls `f` with every payload's root.
    #[inline(always)]
    fn each(&self, mut f: impl FnMut(pl::OrderBookRef<'_>) -> planus::Result<()>) {
        for payload in Frames::new(self.bytes(), DefaultDeframer) {
            let payload = payload.expect("read back what was written");
            let book = pl::OrderBookRef::read_as_root(payload).expect("an OrderBook");
            f(book).expect("a valid OrderBook");
        }
    }
}

impl WideWrite for PlanusRead {
    fn write(&mut self, m: &Messages) {
        self.written.write(m);
    }

    fn wire_len(&self) -> usize {
        self.written.wire_len()
    }
}

/// The best level of a side read with planus's code, as `(price, size)`.
#[inline(always)]
fn planus_first(levels: planus::Vector<'_, pl::LevelRef<'_>>) -> Option<(i64, u64)> {
    levels.first().map(|l| (l.price(), l.size()))
}

impl WideRead for PlanusRead {
    fn selective(&mut self) -> Best {
        let mut best = Best::default();
        self.each(|book| {
            best.add(planus_first(book.bids()?), planus_first(book.asks()?));
            Ok(())
        });
        best
    }

    fn whole(&mut self) -> Whole {
        let mut whole = Whole::default();
        self.each(|book| {
            whole.head(book.timestamp()?, book.sequence()?, book.instrument()?);
            for side in [book.bids()?, book.asks()?] {
                whole.levels(side.iter().map(|l| (l.price(), l.size())));
            }
            Ok(())
        });
        whole
    }
}

/// planus's writing: each [`Book`] built with planus's `OrderBook::create` in a reused
/// `planus::Builder`, the finished payload framed by a [`StreamWriter`] (no checksum).
pub struct PlanusWrite {
    builder: planus::Builder,
    bids: Vec<pl::Level>,
    asks: Vec<pl::Level>,
    writer: StreamWriter<Vec<u8>, DefaultFramer>,
}

impl Default for PlanusWrite {
    fn default() -> Self {
        PlanusWrite {
            builder: planus::Builder::new(),
            bids: Vec::new(),
            asks: Vec::new(),
            writer: StreamWriter::new(Vec::new(), DefaultFramer),
        }
    }
}

impl PlanusWrite {
    /// The frames written last.
    pub fn bytes(&self) -> &[u8] {
        self.writer.get_ref()
    }
}

impl WideWrite for PlanusWrite {
    fn write(&mut self, m: &Messages) {
        let levels = |out: &mut Vec<pl::Level>, ls: &[Level]| {
            out.clear();
            out.extend(ls.iter().map(|l| pl::Level {
                price: l.price,
                size: l.size,
            }));
        };
        self.writer.get_mut().clear();
        for b in &m.books {
            levels(&mut self.bids, &b.bids);
            levels(&mut self.asks, &b.asks);
            self.builder.clear();
            let root = pl::OrderBook::create(
                &mut self.builder,
                b.timestamp,
                b.sequence,
                b.instrument.as_str(),
                self.bids.as_slice(),
                self.asks.as_slice(),
            );
            let payload = self.builder.finish(root, None);
            self.writer.write_payload(payload).expect("write to a Vec");
        }
    }

    fn wire_len(&self) -> usize {
        self.bytes().len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn planus_reads_the_bytes_flatstream_wrote() {
        let m = Messages::new(50);
        let mut fs = Flatstream::default();
        fs.write(&m);
        let mut pl = PlanusRead::default();
        pl.write(&m);
        assert_eq!(pl.bytes(), fs.bytes());
        assert_eq!(pl.whole(), fs.whole());
    }

    #[test]
    fn flatc_code_reads_what_planus_wrote() {
        let m = Messages::new(50);
        let mut w = PlanusWrite::default();
        w.write(&m);
        let mut whole = Whole::default();
        Frames::new(w.bytes(), DefaultDeframer)
            .process_typed::<OrderBookRoot, _, _>(|book| {
                fold_whole(&mut whole, book);
                Ok(())
            })
            .unwrap();
        assert_eq!(whole, Whole::of(&m.books));
    }

    #[test]
    fn planus_reports_a_cut_payload_as_an_error() {
        let mut fs = Flatstream::default();
        fs.write(&Messages::new(1));
        // The single payload after its 4-byte header, cut before its levels end.
        let payload = &fs.bytes()[4..];
        let cut = &payload[..payload.len() - 40];
        let read = pl::OrderBookRef::read_as_root(cut).and_then(|b| {
            let mut sum = 0i64;
            for l in b.bids()?.iter().chain(b.asks()?.iter()) {
                sum = sum.wrapping_add(l.price());
            }
            Ok(sum)
        });
        assert!(read.is_err(), "{read:?}");
        assert!(flatbuffers::root::<fb::OrderBook<'_>>(cut).is_err());
    }
}
