//! The workloads of the core suite, shared by its criterion benchmarks (`benches/core.rs`) and
//! by the paired timing of its ratio targets (`benches/ratios.rs`): the messages, the
//! hand-written **limit** loops, and flatstream's side of each comparison, each in a function of
//! its own (`#[inline(never)]`) so that every side is compiled alike.

use flatbuffers::FlatBufferBuilder;
use flatstream::read::BufReadStreamReader;
use flatstream::{
    ChecksumFramer, DefaultFramer, Deframer, Frames, Result, StreamReader, StreamSerialize,
    StreamWriter, XxHash64,
};
use std::hint::black_box;
use std::io::{Cursor, Write};

/// Three `u64` fields in a table.
#[derive(Clone, Copy)]
pub struct Numeric(pub u64, pub u64, pub u64);

impl StreamSerialize for Numeric {
    fn serialize<A: flatbuffers::Allocator + 'static>(
        &self,
        b: &mut FlatBufferBuilder<'_, A>,
    ) -> Result<()> {
        let start = b.start_table();
        b.push_slot_always::<u64>(4, self.0);
        b.push_slot_always::<u64>(6, self.1);
        b.push_slot_always::<u64>(8, self.2);
        let table = b.end_table(start);
        b.finish_minimal(table);
        Ok(())
    }
}

/// The `i`-th numeric message.
pub fn numeric(i: u64) -> Numeric {
    Numeric(i, i.wrapping_mul(31), i ^ 0xABCD)
}

/// The `i`-th string message: 16 ASCII bytes.
pub fn string16(i: u64) -> String {
    format!("msg-{i:012}")
}

/// Serializes each message once, giving the payloads every benchmark of a group shares.
pub fn payloads<T: StreamSerialize>(messages: &[T]) -> Vec<Vec<u8>> {
    let mut b = FlatBufferBuilder::new();
    messages
        .iter()
        .map(|m| {
            b.reset();
            m.serialize(&mut b).unwrap();
            b.finished_data().to_vec()
        })
        .collect()
}

/// `payloads` framed without a checksum, or with XXH3-64.
pub fn framed(payloads: &[Vec<u8>], checksum: bool) -> Vec<u8> {
    let sink = Vec::new();
    if checksum {
        let mut w = StreamWriter::new(sink, ChecksumFramer::new(XxHash64::new()));
        payloads.iter().for_each(|p| w.write_payload(p).unwrap());
        w.into_inner()
    } else {
        let mut w = StreamWriter::new(sink, DefaultFramer);
        payloads.iter().for_each(|p| w.write_payload(p).unwrap());
        w.into_inner()
    }
}

/// The limit of reading: lengths and payload slices, nothing else.
#[inline(never)]
pub fn limit_read(mut bytes: &[u8]) -> u64 {
    let mut acc = 0u64;
    while let Some((len, rest)) = bytes.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        let payload = &rest[..len];
        acc = acc.wrapping_add(u64::from(payload.last().copied().unwrap_or(0)));
        bytes = &rest[len..];
    }
    acc
}

/// The limit of checksummed reading: the same, plus XXH3-64 of each payload compared with the
/// 8-byte field that follows the length.
#[inline(never)]
pub fn limit_read_xxh3(mut bytes: &[u8]) -> u64 {
    let mut acc = 0u64;
    while let Some((len, rest)) = bytes.split_first_chunk::<4>() {
        let len = u32::from_le_bytes(*len) as usize;
        let (sum, rest) = rest.split_first_chunk::<8>().unwrap();
        let payload = &rest[..len];
        if xxhash_rust::xxh3::xxh3_64(payload) != u64::from_le_bytes(*sum) {
            panic!("corrupt fixture");
        }
        acc = acc.wrapping_add(u64::from(payload.last().copied().unwrap_or(0)));
        bytes = &rest[len..];
    }
    acc
}

/// The limit for a `Read` source: a `Read` hands its bytes over by copying them into the caller's
/// buffer, so on top of `limit_read`, copy the same bytes in 64 KiB blocks, as a reader does.
#[inline(never)]
pub fn limit_read_copy(bytes: &[u8], scratch: &mut [u8]) -> u64 {
    for block in bytes.chunks(scratch.len()) {
        scratch[..block.len()].copy_from_slice(block);
        black_box(&scratch[..block.len()]);
    }
    limit_read(bytes)
}

/// The limit of writing: header and payload appended to a `Vec`.
#[inline(never)]
pub fn limit_write(out: &mut Vec<u8>, payloads: &[Vec<u8>]) {
    for p in payloads {
        out.extend_from_slice(&(p.len() as u32).to_le_bytes());
        out.extend_from_slice(p);
    }
}

/// The finished builders of the write half of FlatStream 0.2.x's cycle benchmark: one per
/// message, as a program that builds each message in expert mode has them.
pub fn finished_builders<T: StreamSerialize>(messages: &[T]) -> Vec<FlatBufferBuilder<'static>> {
    messages
        .iter()
        .map(|m| {
            let mut b = FlatBufferBuilder::new();
            m.serialize(&mut b).unwrap();
            b
        })
        .collect()
}

/// `write/fresh_writer`: the write half of FlatStream 0.2.x's cycle benchmark, without the
/// building (both sides would share it): a new `StreamWriter` over a `Cursor` of a new `Vec`,
/// every message through `write_finished`.
#[inline(never)]
pub fn fresh_writer(builders: &mut [FlatBufferBuilder<'static>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut writer = StreamWriter::new(Cursor::new(&mut out), DefaultFramer);
    for b in builders {
        writer.write_finished(b).unwrap();
    }
    drop(writer);
    out
}

/// The limit of `fresh_writer`: a new `Vec`, header and payload written through a `Cursor` of
/// it for every message.
#[inline(never)]
pub fn fresh_limit(builders: &[FlatBufferBuilder<'static>]) -> Vec<u8> {
    let mut out = Vec::new();
    let mut cursor = Cursor::new(&mut out);
    for b in builders {
        let p = b.finished_data();
        cursor.write_all(&(p.len() as u32).to_le_bytes()).unwrap();
        cursor.write_all(p).unwrap();
    }
    out
}

/// `write/flatstream`: the same payloads through `StreamWriter::write_payload`, in a function of
/// its own as `limit_write` is.
#[inline(never)]
pub fn flatstream_write(writer: &mut StreamWriter<Vec<u8>, DefaultFramer>, payloads: &[Vec<u8>]) {
    for p in payloads {
        writer.write_payload(p).unwrap();
    }
}

/// `read/slice`: the `Frames` iterator, touching the last byte of each payload.
#[inline(never)]
pub fn read_slice<D: Deframer>(bytes: &[u8], deframer: D) -> u64 {
    let mut acc = 0u64;
    for p in Frames::new(bytes, deframer) {
        let p = p.unwrap();
        acc = acc.wrapping_add(u64::from(p.last().copied().unwrap_or(0)));
    }
    acc
}

/// `read/reader_*`: `StreamReader::process_all`, touching the last byte of each payload.
#[inline(never)]
pub fn read_reader<R: std::io::Read, D: Deframer>(reader: &mut StreamReader<R, D>) -> u64 {
    let mut acc = 0u64;
    reader
        .process_all(|p| {
            acc = acc.wrapping_add(u64::from(p.last().copied().unwrap_or(0)));
            Ok(())
        })
        .unwrap();
    acc
}

/// `read/bufreader_*`: `BufReadStreamReader::process_all`, touching the last byte of each payload.
#[inline(never)]
pub fn read_buf_reader<R: std::io::BufRead, D: Deframer>(
    reader: &mut BufReadStreamReader<R, D>,
) -> u64 {
    let mut acc = 0u64;
    reader
        .process_all(|p| {
            acc = acc.wrapping_add(u64::from(p.last().copied().unwrap_or(0)));
            Ok(())
        })
        .unwrap();
    acc
}
