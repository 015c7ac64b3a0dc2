//! What reading a hostile MCAP source of unknown length (standard input) costs in memory: a
//! record's buffer grows as its bytes arrive, whatever length it declares, in the file or
//! inside a compressed chunk.

use flatstream::mcap::Messages;
use flatstream_test_support::alloc::{CountingAlloc, assert_installed, measure_exact};
use std::io::{self, Read};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

/// A source that hands out `bytes` a few at a time, as a pipe does, with no length to bound
/// records by.
struct Pipe(io::Cursor<Vec<u8>>);

impl Read for Pipe {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = buf.len().min(4096);
        self.0.read(&mut buf[..n])
    }
}

/// Reads `bytes` through a pipe: they are one error (a record cut short), and no allocation on
/// the way was of 1 MiB or more.
fn assert_one_error_within_a_mib(bytes: Vec<u8>) {
    let len = bytes.len();
    assert_installed();
    let (read, stats) =
        measure_exact(|| Messages::new(Pipe(io::Cursor::new(bytes)), None).collect::<Vec<_>>());
    assert!(matches!(read.as_slice(), [Err(_)]), "{read:?}");
    assert!(
        stats.largest < 1 << 20,
        "reading {len} bytes allocated {} bytes at once",
        stats.largest
    );
}

#[test]
fn a_record_declaring_900_mb_costs_what_arrives_not_what_it_declares() {
    // The magic, then a Message record (outside any chunk) declaring 900 MB, of which 1 000
    // bytes come before the source ends.
    let mut bytes = b"\x89MCAP0\r\n".to_vec();
    bytes.push(0x05);
    bytes.extend_from_slice(&900_000_000u64.to_le_bytes());
    bytes.extend_from_slice(&[0; 1000]);

    assert_one_error_within_a_mib(bytes);
}

#[test]
fn a_record_in_a_chunk_declaring_900_mb_costs_what_decompresses_not_what_it_declares() {
    // A zstd chunk of 30-odd bytes that declares 900 MB of records: a Message record declaring
    // 900 MB, of which 1 000 bytes are in the chunk.
    let mut records = vec![0x05];
    records.extend_from_slice(&900_000_000u64.to_le_bytes());
    records.extend_from_slice(&[0; 1000]);
    let compressed = zstd::bulk::compress(&records, 1).unwrap();
    let mut chunk = Vec::new();
    chunk.extend_from_slice(&0u64.to_le_bytes()); // message start time
    chunk.extend_from_slice(&0u64.to_le_bytes()); // message end time
    chunk.extend_from_slice(&900_000_009u64.to_le_bytes()); // uncompressed size
    chunk.extend_from_slice(&0u32.to_le_bytes()); // uncompressed CRC: none
    chunk.extend_from_slice(&4u32.to_le_bytes());
    chunk.extend_from_slice(b"zstd");
    chunk.extend_from_slice(&(compressed.len() as u64).to_le_bytes());
    chunk.extend_from_slice(&compressed);
    let mut bytes = b"\x89MCAP0\r\n".to_vec();
    bytes.push(0x06);
    bytes.extend_from_slice(&(chunk.len() as u64).to_le_bytes());
    bytes.extend_from_slice(&chunk);

    assert_one_error_within_a_mib(bytes);
}
