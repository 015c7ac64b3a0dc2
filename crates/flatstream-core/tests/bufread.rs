//! What only `BufReadStreamReader` does (the contract every reader keeps is in `readers.rs`):
//! payloads borrowed from the source's buffer, the source handed back with the bytes of a
//! frame being assembled, sources that break the `BufRead` contract, and how often it asks
//! its source.

use flatstream_core::{BufReadStreamReader, ChecksumDeframer, DefaultDeframer, Deframer, Error};
use flatstream_test_support::checksums::Fletcher32;
use flatstream_test_support::faults::FaultySource;
use flatstream_test_support::stream;
use std::io::{self, BufRead, BufReader, ErrorKind, Read};
use std::ops::ControlFlow;

fn sample() -> Vec<Vec<u8>> {
    vec![b"first".to_vec(), vec![], vec![0xAB; 70], b"last!".to_vec()]
}

/// Reads every payload with `read_message`.
fn read_all<R: BufRead, D: Deframer>(reader: &mut BufReadStreamReader<R, D>) -> Vec<Vec<u8>> {
    let mut out = vec![];
    while let Some(p) = reader.read_message().unwrap() {
        out.push(p.to_vec());
    }
    out
}

#[test]
fn payloads_from_bytes_in_memory_are_borrowed_in_place() {
    let msgs = sample();
    let bytes = stream(&msgs);
    let within = |p: &[u8]| bytes.as_ptr_range().contains(&p.as_ptr()) || p.is_empty();
    let mut reader = BufReadStreamReader::new(&bytes[..], DefaultDeframer);
    while let Some(p) = reader.read_message().unwrap() {
        assert!(within(p), "read_message copied a payload");
    }
    let mut reader = BufReadStreamReader::new(io::Cursor::new(&bytes[..]), DefaultDeframer);
    reader
        .process_all(|p| {
            assert!(within(p), "process_all copied a payload");
            Ok(())
        })
        .unwrap();
    // Nothing needed assembling, so nothing was allocated for it.
    assert_eq!(reader.buffer(), b"");
}

/// What the reader holds after a hostile header: nothing for a length over the bound, and for
/// one within it exactly the bytes that arrived (the contract bounds the memory; this is what
/// is in it).
#[test]
fn after_a_hostile_length_only_received_bytes_are_held() {
    let bound: u32 = 1 << 20;
    for (len, what) in [
        (u32::MAX, "u32::MAX"),
        (bound + 1, "bound + 1"),
        (bound, "within the bound, past the end"),
    ] {
        let mut bytes = len.to_le_bytes().to_vec();
        bytes.extend_from_slice(&[7; 1000]);
        let source = BufReader::with_capacity(256, &bytes[..]);
        let mut reader =
            BufReadStreamReader::new(source, DefaultDeframer).with_max_frame_len(bound as usize);
        match reader.read_message().unwrap_err() {
            Error::FrameTooLarge { .. } => {
                assert_ne!(len, bound, "{what}");
                assert_eq!(reader.buffer(), b"", "{what}: nothing copied");
            }
            Error::UnexpectedEof { .. } => {
                assert_eq!(len, bound, "{what}");
                assert_eq!(reader.buffer(), &bytes[..], "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
    }
}

#[test]
fn handing_the_source_over_loses_nothing() {
    let msgs = sample();
    let mut bytes = stream(&msgs);
    bytes.extend_from_slice(b"RAW TRAILER");
    // Over bytes in memory: the source is positioned right after the last frame handed out.
    let mut reader = BufReadStreamReader::new(&bytes[..], DefaultDeframer);
    assert_eq!(reader.read_message().unwrap(), Some(&b"first"[..]));
    assert_eq!(*reader.get_mut(), &bytes[9..]);
    for m in &msgs[1..] {
        assert_eq!(reader.read_message().unwrap(), Some(&m[..]));
    }
    assert_eq!(reader.into_inner(), b"RAW TRAILER");

    // Over a `BufReader` whose source fails in the middle of the third frame, which straddles
    // refills: the assembled part comes back from `into_parts`, the rest is still in the source.
    let faulty = FaultySource::new(bytes.clone())
        .chunk(8)
        .fail_at(29, ErrorKind::ConnectionReset);
    let source = BufReader::with_capacity(16, faulty);
    let mut reader = BufReadStreamReader::new(source, DefaultDeframer);
    assert_eq!(reader.read_message().unwrap(), Some(&b"first"[..]));
    assert_eq!(reader.read_message().unwrap(), Some(&b""[..]));
    let err = reader.read_message().unwrap_err();
    assert!(
        matches!(&err, Error::Io { source, offset: 13 } if source.kind() == ErrorKind::ConnectionReset),
        "{err}"
    );
    assert_eq!(reader.buffer().len(), 16);
    let consumed = reader.position() as usize;
    let (mut source, assembled) = reader.into_parts();
    let mut rest = assembled;
    source.read_to_end(&mut rest).unwrap();
    assert_eq!(rest, &bytes[consumed..]);
}

/// A `BufRead` that breaks its contract: the `fill_buf` calls numbered `short` modulo `period`
/// (counting from 1) return a 1-byte buffer, the others all it has.
struct Fickle<'a> {
    bytes: &'a [u8],
    calls: usize,
    period: usize,
    short: usize,
}

impl Read for Fickle<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.bytes.read(buf)
    }
}

impl BufRead for Fickle<'_> {
    fn fill_buf(&mut self) -> io::Result<&[u8]> {
        self.calls += 1;
        let n = if self.calls % self.period == self.short {
            1
        } else {
            self.bytes.len()
        };
        Ok(&self.bytes[..n.min(self.bytes.len())])
    }
    fn consume(&mut self, n: usize) {
        self.bytes = &self.bytes[n..];
    }
}

#[test]
fn a_source_that_breaks_the_buf_read_contract_gets_an_error_not_a_panic() {
    let bytes = stream(&sample());
    // Short on the second call: the frame found in the first is gone when it is handed out.
    let mut reader = BufReadStreamReader::new(
        Fickle {
            bytes: &bytes,
            calls: 0,
            period: 2,
            short: 0,
        },
        DefaultDeframer,
    );
    let err = reader.read_message().unwrap_err();
    assert!(matches!(err, Error::Io { offset: 0, .. }), "{err}");
    assert_eq!(reader.position(), 0);

    // Short on the first of every three calls: the fast path sees a partial frame, the slow
    // path a whole one. That once sent the two paths back and forth without end.
    for method in ["read_message", "process_all"] {
        let mut reader = BufReadStreamReader::new(
            Fickle {
                bytes: &bytes,
                calls: 0,
                period: 3,
                short: 1,
            },
            DefaultDeframer,
        );
        let mut frames = 0;
        for _ in 0..20 {
            let step = if method == "read_message" {
                reader.read_message().map(|p| p.is_some())
            } else {
                reader
                    .process_all(|_| {
                        frames += 1;
                        Ok(ControlFlow::Break(()))
                    })
                    .map(|()| true)
            };
            match step {
                Ok(true) => frames += usize::from(method == "read_message"),
                Ok(false) => break,
                Err(e) => assert!(matches!(e, Error::Io { .. }), "{method}: {e}"),
            }
        }
        assert!(frames <= sample().len(), "{method}: {frames} frames");
    }
}

/// Reads every payload with one call to `process_all`.
fn process_all_to_end<R: BufRead, D: Deframer>(
    reader: &mut BufReadStreamReader<R, D>,
) -> Vec<Vec<u8>> {
    let mut out = vec![];
    reader
        .process_all(|p| {
            out.push(p.to_vec());
            Ok(())
        })
        .unwrap();
    out
}

/// A source that counts its reads.
struct Counted<'a> {
    script: Vec<io::Result<&'a [u8]>>,
    reads: usize,
}

impl Read for Counted<'_> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        if self.script.is_empty() {
            return Ok(0);
        }
        let bytes = self.script.remove(0)?;
        buf[..bytes.len()].copy_from_slice(bytes);
        Ok(bytes.len())
    }
}

#[test]
fn the_end_of_the_stream_costs_one_read_and_interrupted_there_is_retried() {
    let msgs = sample();
    let bytes = stream(&msgs);
    let source = |script| BufReader::new(Counted { script, reads: 0 });

    let mut reader = BufReadStreamReader::new(source(vec![Ok(&bytes[..])]), DefaultDeframer);
    assert_eq!(read_all(&mut reader), msgs);
    assert_eq!(reader.get_ref().get_ref().reads, 2, "read_message");

    let mut reader = BufReadStreamReader::new(source(vec![Ok(&bytes[..])]), DefaultDeframer);
    assert_eq!(process_all_to_end(&mut reader), msgs);
    assert_eq!(reader.get_ref().get_ref().reads, 2, "process_all");

    // End-of-file is not sticky (a terminal, a file still being written): each call that finds
    // it reports it once, and a later one may find more.
    let script = vec![
        Ok(&bytes[..9]),
        Ok(&[][..]),
        Ok(&[][..]),
        Err(ErrorKind::Interrupted.into()),
        Ok(&bytes[9..]),
    ];
    let mut reader = BufReadStreamReader::new(source(script), DefaultDeframer);
    assert_eq!(reader.read_message().unwrap(), Some(&b"first"[..]));
    assert_eq!(reader.read_message().unwrap(), None);
    assert_eq!(reader.read_message().unwrap(), None);
    assert_eq!(read_all(&mut reader), msgs[1..]);
}

#[test]
fn reader_is_send() {
    fn send<T: Send>() {}
    send::<BufReadStreamReader<BufReader<std::fs::File>, DefaultDeframer>>();
    send::<BufReadStreamReader<&[u8], ChecksumDeframer<Fletcher32>>>();
}

/// A source with nothing to give yet: every read would block.
struct NothingYet {
    reads: usize,
}

impl Read for NothingYet {
    fn read(&mut self, _: &mut [u8]) -> io::Result<usize> {
        self.reads += 1;
        Err(ErrorKind::WouldBlock.into())
    }
}

#[test]
fn a_blocked_source_is_asked_once_per_call() {
    let mut reader =
        BufReadStreamReader::new(BufReader::new(NothingYet { reads: 0 }), DefaultDeframer);
    let err = reader.read_message().unwrap_err();
    assert!(matches!(&err, Error::Io { source, .. } if source.kind() == ErrorKind::WouldBlock));
    assert_eq!(reader.get_ref().get_ref().reads, 1);
    let err = reader.process_all(|_| Ok(())).unwrap_err();
    assert!(matches!(&err, Error::Io { source, .. } if source.kind() == ErrorKind::WouldBlock));
    assert_eq!(reader.get_ref().get_ref().reads, 2);
}
