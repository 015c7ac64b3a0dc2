//! The telemetry write+read cycle, done the same way by flatstream and by each peer.
//!
//! Every side does, for each message of a batch:
//!
//! 1. **write**: turn a [`Reading`] into its encoded form (a FlatBuffer, a bincode or JSON
//!    document, a protobuf message), frame it with a length prefix, and append the frame to an
//!    in-memory buffer that is reused from one cycle to the next;
//! 2. **read**: find the frame boundary, decode the message (FlatBuffers with the verifier,
//!    the others with their safe decoders), read its three fields and fold them into
//!    [`Totals`], which the caller compares with what was written.
//!
//! The state each side keeps between cycles (buffers, builders, codecs) is created once, as a
//! long-running producer and consumer would, so a cycle measures steady state.

use bytes::{Bytes, BytesMut};
use flatbuffers::FlatBufferBuilder;
use flatstream::{Deframer, Framer, StreamReader, StreamWriter};
use flatstream_test_support::telemetry::{Reading, Telemetry};
use serde::{Deserialize, Serialize};
use std::io::Cursor;
use tokio_util::codec::{Decoder, Encoder, LengthDelimitedCodec};

/// What a reader saw: the number of messages and the sums of their fields.
///
/// Integer sums wrap; the value sum is an `f64` (JSON round trips of floats may differ in the
/// last bit, so [`Totals::matches`] compares it with a tolerance).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Totals {
    /// Messages read.
    pub count: u64,
    /// Wrapping sum of `device_id`.
    pub device_ids: u64,
    /// Wrapping sum of `timestamp`.
    pub timestamps: u64,
    /// Sum of `value`.
    pub values: f64,
}

impl Totals {
    /// Folds one message's fields in.
    #[inline(always)]
    pub fn add(&mut self, device_id: u64, timestamp: u64, value: f64) {
        self.count += 1;
        self.device_ids = self.device_ids.wrapping_add(device_id);
        self.timestamps = self.timestamps.wrapping_add(timestamp);
        self.values += value;
    }

    /// The totals of two stretches of messages, `self` the earlier one.
    pub fn merge(self, later: Totals) -> Totals {
        Totals {
            count: self.count + later.count,
            device_ids: self.device_ids.wrapping_add(later.device_ids),
            timestamps: self.timestamps.wrapping_add(later.timestamps),
            values: self.values + later.values,
        }
    }

    /// The totals of `readings`, computed directly.
    pub fn of(readings: &[Reading]) -> Self {
        let mut t = Totals::default();
        for r in readings {
            t.add(r.device_id, r.timestamp, r.value);
        }
        t
    }

    /// Whether `self` and `other` describe the same messages (values within 1e-9 relative).
    pub fn matches(&self, other: &Totals) -> bool {
        self.count == other.count
            && self.device_ids == other.device_ids
            && self.timestamps == other.timestamps
            && (self.values - other.values).abs() <= 1e-9 * self.values.abs().max(1.0)
    }
}

/// `n` readings of the deterministic sequence [`Reading::nth`].
pub fn readings(n: usize) -> Vec<Reading> {
    (0..n as u64).map(Reading::nth).collect()
}

/// One side of the comparison: writes a batch of readings and reads it back.
pub trait Cycle {
    /// Writes every reading as one frame into the side's buffer, replacing what was there.
    fn write(&mut self, readings: &[Reading]);

    /// Reads every frame of the last [`write`](Self::write) back. Every side but
    /// [`CodecCycle`] (whose decoder consumes its buffer) reads the same frames again when
    /// called twice.
    fn read(&mut self) -> Totals;

    /// Writes, then reads back.
    fn cycle(&mut self, readings: &[Reading]) -> Totals {
        self.write(readings);
        self.read()
    }

    /// Bytes on the wire after the last cycle (frames included).
    fn wire_len(&self) -> usize;
}

/// flatstream: a [`StreamWriter`] serializing into a reused `Vec<u8>`, and a long-lived
/// [`StreamReader`] over a `Cursor` that is handed the written bytes, verifying every payload
/// with the FlatBuffers verifier.
#[derive(Debug)]
pub struct FlatstreamCycle<F, D> {
    writer: StreamWriter<Vec<u8>, F>,
    reader: StreamReader<Cursor<Vec<u8>>, D>,
}

impl<F: Framer, D: Deframer> FlatstreamCycle<F, D> {
    /// A writer with `framer` and a reader with `deframer`.
    pub fn new(framer: F, deframer: D) -> Self {
        FlatstreamCycle {
            writer: StreamWriter::new(Vec::new(), framer),
            reader: StreamReader::new(Cursor::new(Vec::new()), deframer),
        }
    }
}

impl<F: Framer, D: Deframer> Cycle for FlatstreamCycle<F, D> {
    fn write(&mut self, readings: &[Reading]) {
        self.writer.get_mut().clear();
        for r in readings {
            self.writer.write(r).expect("write to a Vec");
        }
        // Hand the written bytes to the reader's source; the writer keeps the old buffer.
        std::mem::swap(self.writer.get_mut(), self.reader.get_mut().get_mut());
    }

    fn read(&mut self) -> Totals {
        // Rewind the source: the reader carries on as if more bytes had arrived on a socket.
        self.reader.get_mut().set_position(0);
        let mut totals = Totals::default();
        self.reader
            .process_all(|payload| {
                let t = flatbuffers::root::<Telemetry<'_>>(payload)?;
                totals.add(t.device_id(), t.timestamp(), t.value());
                Ok(())
            })
            .expect("read back what was written");
        totals
    }

    fn wire_len(&self) -> usize {
        self.reader.get_ref().get_ref().len()
    }
}

/// flatstream writing the same way, reading with the zero-copy [`flatstream::Frames`] iterator
/// over the written buffer (the path for bytes already in memory).
#[derive(Debug)]
pub struct FlatstreamSliceCycle<F, D> {
    writer: StreamWriter<Vec<u8>, F>,
    deframer: D,
}

impl<F: Framer, D: Deframer + Clone> FlatstreamSliceCycle<F, D> {
    /// A writer with `framer`; frames are read with `deframer`.
    pub fn new(framer: F, deframer: D) -> Self {
        FlatstreamSliceCycle {
            writer: StreamWriter::new(Vec::new(), framer),
            deframer,
        }
    }
}

impl<F: Framer, D: Deframer + Clone> Cycle for FlatstreamSliceCycle<F, D> {
    fn write(&mut self, readings: &[Reading]) {
        self.writer.get_mut().clear();
        for r in readings {
            self.writer.write(r).expect("write to a Vec");
        }
    }

    fn read(&mut self) -> Totals {
        let mut totals = Totals::default();
        for payload in flatstream::Frames::new(self.writer.get_ref(), self.deframer.clone()) {
            let payload = payload.expect("read back what was written");
            let t = flatbuffers::root::<Telemetry<'_>>(payload).expect("a valid FlatBuffer");
            totals.add(t.device_id(), t.timestamp(), t.value());
        }
        totals
    }

    fn wire_len(&self) -> usize {
        self.writer.get_ref().len()
    }
}

/// The reading as serde sees it (bincode and serde_json).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SerdeReading {
    /// Which device sent it.
    pub device_id: u64,
    /// Milliseconds since the Unix epoch.
    pub timestamp: u64,
    /// The measured value.
    pub value: f64,
}

impl From<&Reading> for SerdeReading {
    fn from(r: &Reading) -> Self {
        SerdeReading {
            device_id: r.device_id,
            timestamp: r.timestamp,
            value: r.value,
        }
    }
}

/// The reading as protobuf, written by hand with prost's derive (no protoc):
///
/// ```text
/// message Reading { uint64 device_id = 1; uint64 timestamp = 2; double value = 3; }
/// ```
#[derive(Clone, Copy, PartialEq, prost::Message)]
pub struct ProtoReading {
    /// Which device sent it.
    #[prost(uint64, tag = "1")]
    pub device_id: u64,
    /// Milliseconds since the Unix epoch.
    #[prost(uint64, tag = "2")]
    pub timestamp: u64,
    /// The measured value.
    #[prost(double, tag = "3")]
    pub value: f64,
}

/// Appends a 4-byte little-endian length prefix patched in after `encode` appended the body.
#[inline(always)]
pub(crate) fn framed(out: &mut Vec<u8>, encode: impl FnOnce(&mut Vec<u8>)) {
    let start = out.len();
    out.extend_from_slice(&[0; 4]);
    encode(out);
    let len = u32::try_from(out.len() - start - 4).expect("a small message");
    out[start..start + 4].copy_from_slice(&len.to_le_bytes());
}

/// Splits the next 4-byte-length-prefixed frame off `bytes`.
#[inline(always)]
pub(crate) fn next_frame<'a>(bytes: &mut &'a [u8]) -> Option<&'a [u8]> {
    let (head, rest) = bytes.split_first_chunk::<4>()?;
    let len = u32::from_le_bytes(*head) as usize;
    let (frame, rest) = rest.split_at_checked(len)?;
    *bytes = rest;
    Some(frame)
}

/// bincode 2 through serde with `config::standard()` (varint integers), each message framed
/// with a 4-byte little-endian length, decoded with `decode_from_slice`.
#[derive(Debug, Default)]
pub struct BincodeCycle {
    buf: Vec<u8>,
}

impl Cycle for BincodeCycle {
    fn write(&mut self, readings: &[Reading]) {
        let config = bincode::config::standard();
        self.buf.clear();
        for r in readings {
            framed(&mut self.buf, |out| {
                bincode::serde::encode_into_std_write(SerdeReading::from(r), out, config)
                    .expect("encode into a Vec");
            });
        }
    }

    fn read(&mut self) -> Totals {
        let config = bincode::config::standard();
        let mut totals = Totals::default();
        let mut bytes = &self.buf[..];
        while let Some(frame) = next_frame(&mut bytes) {
            let (m, _): (SerdeReading, usize) =
                bincode::serde::decode_from_slice(frame, config).expect("valid bincode");
            totals.add(m.device_id, m.timestamp, m.value);
        }
        totals
    }

    fn wire_len(&self) -> usize {
        self.buf.len()
    }
}

/// serde_json: each message a JSON object, framed with a 4-byte little-endian length,
/// decoded with `from_slice`.
#[derive(Debug, Default)]
pub struct JsonCycle {
    buf: Vec<u8>,
}

impl Cycle for JsonCycle {
    fn write(&mut self, readings: &[Reading]) {
        self.buf.clear();
        for r in readings {
            framed(&mut self.buf, |out| {
                serde_json::to_writer(out, &SerdeReading::from(r)).expect("encode into a Vec");
            });
        }
    }

    fn read(&mut self) -> Totals {
        let mut totals = Totals::default();
        let mut bytes = &self.buf[..];
        while let Some(frame) = next_frame(&mut bytes) {
            let m: SerdeReading = serde_json::from_slice(frame).expect("valid JSON");
            totals.add(m.device_id, m.timestamp, m.value);
        }
        totals
    }

    fn wire_len(&self) -> usize {
        self.buf.len()
    }
}

/// prost: length-delimited protobuf (a varint length, then the message), written with
/// `encode_length_delimited` and read with `decode_length_delimited`.
#[derive(Debug, Default)]
pub struct ProstCycle {
    buf: Vec<u8>,
}

impl Cycle for ProstCycle {
    fn write(&mut self, readings: &[Reading]) {
        use prost::Message;
        self.buf.clear();
        for r in readings {
            let m = ProtoReading {
                device_id: r.device_id,
                timestamp: r.timestamp,
                value: r.value,
            };
            m.encode_length_delimited(&mut self.buf)
                .expect("encode into a Vec");
        }
    }

    fn read(&mut self) -> Totals {
        use prost::Message;
        let mut totals = Totals::default();
        let mut bytes = &self.buf[..];
        while !bytes.is_empty() {
            let m = ProtoReading::decode_length_delimited(&mut bytes).expect("valid protobuf");
            totals.add(m.device_id, m.timestamp, m.value);
        }
        totals
    }

    fn wire_len(&self) -> usize {
        self.buf.len()
    }
}

/// tokio-util's `LengthDelimitedCodec` (4-byte little-endian length, so the bytes equal
/// flatstream's without checksum) framing the same FlatBuffers payloads, built with a reused
/// `FlatBufferBuilder`. It encodes through `Encoder<Bytes>`, so each payload is copied into an
/// owned `Bytes` first (what a `Sink<Bytes>` takes; the tokio suite's
/// `encode/length-delimited-slice` row measures its copy-free `Encoder<&[u8]>`); the decoder
/// hands out `BytesMut` frames split off its buffer.
pub struct CodecCycle {
    codec: LengthDelimitedCodec,
    builder: FlatBufferBuilder<'static>,
    buf: BytesMut,
    wire_len: usize,
}

impl Default for CodecCycle {
    fn default() -> Self {
        CodecCycle {
            codec: LengthDelimitedCodec::builder()
                .little_endian()
                .length_field_length(4)
                .new_codec(),
            builder: FlatBufferBuilder::new(),
            buf: BytesMut::new(),
            wire_len: 0,
        }
    }
}

impl Cycle for CodecCycle {
    fn write(&mut self, readings: &[Reading]) {
        use flatstream::StreamSerialize;
        self.buf.clear();
        for r in readings {
            self.builder.reset();
            r.serialize(&mut self.builder).expect("serialize a reading");
            let payload = Bytes::copy_from_slice(self.builder.finished_data());
            self.codec
                .encode(payload, &mut self.buf)
                .expect("encode into a BytesMut");
        }
        self.wire_len = self.buf.len();
    }

    /// Decodes the buffer, consuming it: a second call without a write reads nothing.
    fn read(&mut self) -> Totals {
        let mut totals = Totals::default();
        while let Some(frame) = self.codec.decode(&mut self.buf).expect("valid frames") {
            let t = flatbuffers::root::<Telemetry<'_>>(&frame).expect("a valid FlatBuffer");
            totals.add(t.device_id(), t.timestamp(), t.value());
        }
        totals
    }

    fn wire_len(&self) -> usize {
        self.wire_len
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use flatstream::{DefaultDeframer, DefaultFramer};

    fn check(side: &mut dyn Cycle) {
        for n in [0, 1, 100, 1000] {
            let rs = readings(n);
            let expected = Totals::of(&rs);
            // Twice: the second cycle reuses the state left by the first.
            for _ in 0..2 {
                let got = side.cycle(&rs);
                assert!(got.matches(&expected), "{got:?} != {expected:?}");
            }
        }
    }

    #[test]
    fn every_side_reads_back_every_field() {
        check(&mut FlatstreamCycle::new(DefaultFramer, DefaultDeframer));
        check(&mut FlatstreamSliceCycle::new(
            DefaultFramer,
            DefaultDeframer,
        ));
        check(&mut BincodeCycle::default());
        check(&mut JsonCycle::default());
        check(&mut ProstCycle::default());
        check(&mut CodecCycle::default());
    }

    #[test]
    fn reading_twice_reads_the_same_frames() {
        let rs = readings(300);
        let expected = Totals::of(&rs);
        let sides: [&mut dyn Cycle; 5] = [
            &mut FlatstreamCycle::new(DefaultFramer, DefaultDeframer),
            &mut FlatstreamSliceCycle::new(DefaultFramer, DefaultDeframer),
            &mut BincodeCycle::default(),
            &mut JsonCycle::default(),
            &mut ProstCycle::default(),
        ];
        for side in sides {
            side.write(&rs);
            assert!(side.read().matches(&expected));
            assert!(side.read().matches(&expected));
        }
    }

    #[test]
    fn totals_see_a_changed_field() {
        let rs = readings(10);
        let mut changed = rs.clone();
        changed[3].timestamp += 1;
        assert!(!Totals::of(&rs).matches(&Totals::of(&changed)));
    }

    #[test]
    fn codec_bytes_equal_flatstream_bytes() {
        let rs = readings(50);
        let mut fs = FlatstreamSliceCycle::new(DefaultFramer, DefaultDeframer);
        fs.write(&rs);
        let mut codec = CodecCycle::default();
        codec.write(&rs);
        assert_eq!(&codec.buf[..], &fs.writer.get_ref()[..]);
        assert_eq!(fs.wire_len(), codec.wire_len());
    }
}
