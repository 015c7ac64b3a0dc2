//! What reading a hostile MCAP source of unknown length (standard input) costs in memory: a
//! record's buffer grows as its bytes arrive, whatever length it declares.

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

#[test]
fn a_record_declaring_900_mb_costs_what_arrives_not_what_it_declares() {
    // The magic, then a Message record (outside any chunk) declaring 900 MB, of which 1 000
    // bytes come before the source ends.
    let mut bytes = b"\x89MCAP0\r\n".to_vec();
    bytes.push(0x05);
    bytes.extend_from_slice(&900_000_000u64.to_le_bytes());
    bytes.extend_from_slice(&[0; 1000]);

    assert_installed();
    let (read, stats) =
        measure_exact(|| Messages::new(Pipe(io::Cursor::new(bytes)), None).collect::<Vec<_>>());

    assert!(
        matches!(read.as_slice(), [Err(_)]),
        "a source cut short is one error"
    );
    assert!(
        stats.largest < 1 << 20,
        "reading 1 009 bytes allocated {} bytes at once",
        stats.largest
    );
}
