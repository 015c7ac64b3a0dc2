//! `BufReadStreamReader`: round trips whatever the source's buffer size and read sizes, payloads
//! borrowed in place, frames that straddle refills, truncation, hostile lengths, interrupted
//! and non-blocking sources, and handing the source over.

mod support;

use flatstream_core::{
    BufReadStreamReader, ChecksumDeframer, ChecksumFramer, DefaultDeframer, Deframer, Error,
    Result, StreamReader,
};
use proptest::prelude::*;
use std::io::{self, BufRead, BufReader, ErrorKind, Read};
use std::ops::ControlFlow;
use support::{Fletcher32, Scripted, Step, stream, stream_with};

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

/// Reads every payload with `process_all`, stopping after every `stride` payloads and starting
/// again, so that stopping and resuming is exercised at every position.
fn process_all_in_strides<R: BufRead, D: Deframer>(
    reader: &mut BufReadStreamReader<R, D>,
    stride: usize,
) -> Vec<Vec<u8>> {
    let mut out: Vec<Vec<u8>> = vec![];
    loop {
        let before = out.len();
        reader
            .process_all(|p| {
                out.push(p.to_vec());
                Ok(if (out.len() - before) == stride {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                })
            })
            .unwrap();
        if out.len() - before < stride {
            return out;
        }
    }
}

fn buffered(bytes: Vec<u8>, capacity: usize, chunk: usize) -> BufReader<Scripted> {
    BufReader::with_capacity(capacity, Scripted::chunked(bytes, chunk))
}

fn messages() -> impl Strategy<Value = Vec<Vec<u8>>> {
    prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..24)
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn default_framing_round_trips(
        msgs in messages(),
        capacity in 1usize..700,
        chunk in 1usize..80,
        stride in 1usize..6,
    ) {
        let bytes = stream(&msgs);
        let mut r = BufReadStreamReader::new(buffered(bytes.clone(), capacity, chunk), DefaultDeframer);
        prop_assert_eq!(&read_all(&mut r), &msgs);
        let mut r = BufReadStreamReader::new(buffered(bytes.clone(), capacity, chunk), DefaultDeframer);
        prop_assert_eq!(&process_all_in_strides(&mut r, stride), &msgs);
        let mut r = BufReadStreamReader::new(&bytes[..], DefaultDeframer);
        prop_assert_eq!(&process_all_in_strides(&mut r, stride), &msgs);
    }

    #[test]
    fn checksummed_framing_round_trips(
        msgs in messages(),
        capacity in 1usize..700,
        chunk in 1usize..80,
        stride in 1usize..6,
    ) {
        let bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
        let deframer = ChecksumDeframer::new(Fletcher32);
        let mut r = BufReadStreamReader::new(buffered(bytes.clone(), capacity, chunk), deframer);
        prop_assert_eq!(&read_all(&mut r), &msgs);
        let mut r = BufReadStreamReader::new(buffered(bytes, capacity, chunk), deframer);
        prop_assert_eq!(&process_all_in_strides(&mut r, stride), &msgs);
    }
}

/// Every source buffer capacity from 1 byte to past the largest frame, with whole-buffer and
/// 1-byte reads, through both reading methods.
#[test]
fn every_source_capacity_round_trips() {
    let msgs: Vec<Vec<u8>> = (0..40u8)
        .map(|i| vec![i; usize::from(i) * 7 % 97])
        .collect();
    let bytes = stream(&msgs);
    for capacity in 1..=120 {
        for chunk in [1, 3, usize::MAX] {
            let source = buffered(bytes.clone(), capacity, chunk);
            let mut r = BufReadStreamReader::new(source, DefaultDeframer);
            assert_eq!(read_all(&mut r), msgs, "capacity {capacity}, chunk {chunk}");
            let source = buffered(bytes.clone(), capacity, chunk);
            let mut r = BufReadStreamReader::new(source, DefaultDeframer);
            assert_eq!(
                process_all_in_strides(&mut r, 7),
                msgs,
                "capacity {capacity}, chunk {chunk}"
            );
        }
    }
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

#[test]
fn it_reads_what_stream_reader_reads() {
    let msgs: Vec<Vec<u8>> = (0..200u32)
        .map(|i| i.to_le_bytes().repeat(i as usize % 13))
        .collect();
    let bytes = stream(&msgs);
    let mut copying = StreamReader::with_capacity(64, &bytes[..], DefaultDeframer);
    let mut in_place = BufReadStreamReader::new(buffered(bytes.clone(), 64, 10), DefaultDeframer);
    loop {
        let a = copying.read_message().unwrap().map(<[u8]>::to_vec);
        let b = in_place.read_message().unwrap().map(<[u8]>::to_vec);
        assert_eq!(a, b);
        assert_eq!(copying.position(), in_place.position());
        if a.is_none() {
            break;
        }
    }
    assert_eq!(in_place.position(), bytes.len() as u64);
}

#[test]
fn truncation_at_every_offset_is_none_at_a_boundary_and_an_error_inside_a_frame() {
    let msgs = sample();
    for (bytes, header) in [
        (stream(&msgs), 4),
        (stream_with(ChecksumFramer::new(Fletcher32), &msgs), 8),
    ] {
        let deframer = ChecksumDeframer::new(Fletcher32);
        let mut starts = vec![0];
        for m in &msgs {
            starts.push(starts.last().unwrap() + header + m.len());
        }
        for cut in 0..=bytes.len() {
            let whole = starts[1..].iter().take_while(|&&end| end <= cut).count();
            let at = starts[whole];
            for capacity in [1, 5, 64, 4096] {
                let source = buffered(bytes[..cut].to_vec(), capacity, usize::MAX);
                let check = |result: Result<Option<&[u8]>>| match result {
                    Ok(None) => assert_eq!(cut, at, "cut {cut}: end inside a frame"),
                    Err(Error::UnexpectedEof {
                        offset,
                        needed,
                        present,
                    }) => {
                        assert_eq!(offset, at as u64, "cut {cut}");
                        assert_eq!(present, (cut - at) as u64, "cut {cut}");
                        let len = starts[whole + 1] - at;
                        let expected = if cut - at < 4 { header } else { len };
                        assert_eq!(needed, expected as u64, "cut {cut}");
                    }
                    other => panic!("cut {cut}: {other:?}"),
                };
                if header == 4 {
                    let mut reader = BufReadStreamReader::new(source, DefaultDeframer);
                    for m in &msgs[..whole] {
                        assert_eq!(reader.read_message().unwrap(), Some(&m[..]), "cut {cut}");
                    }
                    check(reader.read_message());
                } else {
                    let mut reader = BufReadStreamReader::new(source, deframer);
                    for m in &msgs[..whole] {
                        assert_eq!(reader.read_message().unwrap(), Some(&m[..]), "cut {cut}");
                    }
                    check(reader.read_message());
                }
            }
        }
    }
}

#[test]
fn hostile_lengths_are_errors_and_only_received_bytes_are_held() {
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
            Error::FrameTooLarge {
                offset: 0,
                len: l,
                max,
            } => {
                assert_ne!(len, bound, "{what}");
                assert_eq!((l, max), (u64::from(len), u64::from(bound)), "{what}");
                assert_eq!(reader.buffer(), b"", "{what}: nothing copied");
            }
            Error::UnexpectedEof {
                offset: 0,
                needed,
                present,
            } => {
                assert_eq!(len, bound, "{what}");
                assert_eq!((needed, present), (4 + u64::from(len), 1004), "{what}");
                // What is held is what arrived, not what the header claimed.
                assert_eq!(reader.buffer(), &bytes[..], "{what}");
            }
            other => panic!("{what}: {other:?}"),
        }
        // A framing error leaves the reader at the bad frame.
        assert_eq!(reader.read_message().unwrap_err().offset(), 0, "{what}");
    }
}

#[test]
fn interrupted_reads_are_retried() {
    let msgs = sample();
    let script = [
        Step::Fail(ErrorKind::Interrupted),
        Step::Bytes(2),
        Step::Fail(ErrorKind::Interrupted),
        Step::Fail(ErrorKind::Interrupted),
        Step::Bytes(9),
        Step::Fail(ErrorKind::Interrupted),
    ];
    let source = BufReader::with_capacity(16, Scripted::new(stream(&msgs), script, 5));
    let mut reader = BufReadStreamReader::new(source, DefaultDeframer);
    assert_eq!(read_all(&mut reader), msgs);
}

#[test]
fn would_block_is_returned_and_the_next_call_continues_the_partial_frame() {
    let msgs = sample();
    // Block mid-header, mid-payload, and between frames.
    let script = [
        Step::Bytes(2),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Bytes(5),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Bytes(4),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Bytes(30),
        Step::Fail(ErrorKind::WouldBlock),
        Step::Fail(ErrorKind::WouldBlock),
    ];
    let source = BufReader::with_capacity(16, Scripted::new(stream(&msgs), script, 7));
    let mut reader = BufReadStreamReader::new(source, DefaultDeframer);
    let mut got = vec![];
    let mut blocked = 0;
    loop {
        // Through `process_all` too: a blocked source ends it with the error, and the next
        // call carries on.
        let result = reader.process_all(|p| {
            got.push(p.to_vec());
            Ok(())
        });
        match result {
            Ok(()) => break,
            Err(Error::Io { source, offset }) => {
                assert_eq!(source.kind(), ErrorKind::WouldBlock);
                assert_eq!(offset, reader.position());
                blocked += 1;
            }
            Err(e) => panic!("{e}"),
        }
    }
    assert!(blocked >= 4, "blocked {blocked} times");
    assert_eq!(got, msgs);
}

#[test]
fn a_corrupt_checksum_is_reported_and_never_handed_out() {
    let msgs = sample();
    let mut bytes = stream_with(ChecksumFramer::new(Fletcher32), &msgs);
    // Frame 1 is 8 + 5 bytes; frame 2 (empty payload) starts at 13, its checksum field at 17.
    bytes[17] ^= 0x01;
    for capacity in [3, 4096] {
        let source = BufReader::with_capacity(capacity, &bytes[..]);
        let mut reader = BufReadStreamReader::new(source, ChecksumDeframer::new(Fletcher32));
        assert_eq!(reader.read_message().unwrap(), Some(&b"first"[..]));
        for _ in 0..2 {
            // The reader stays at the bad frame.
            let err = reader.read_message().unwrap_err();
            assert!(
                matches!(err, Error::ChecksumMismatch { offset: 13, .. }),
                "{err}"
            );
        }
        let err = reader
            .process_all(|_| -> Result<()> { panic!("handed out") })
            .unwrap_err();
        assert!(
            matches!(err, Error::ChecksumMismatch { offset: 13, .. }),
            "{err}"
        );
    }
}

/// Rejects payloads that start with 0xFF, as a validating deframer would.
#[derive(Clone, Copy)]
struct RejectFf;

impl Deframer for RejectFf {
    fn checksum_size(&self) -> usize {
        0
    }
    fn verify(&self, _: &[u8], payload: &[u8], offset: u64) -> Result<()> {
        match payload.first() {
            Some(0xFF) => Err(Error::validation("reject-ff", "starts with 0xFF", offset)),
            _ => Ok(()),
        }
    }
}

#[test]
fn a_content_error_skips_that_frame_only() {
    let msgs = vec![b"ok".to_vec(), vec![0xFF, 1], b"after".to_vec()];
    let bytes = stream(&msgs);
    for capacity in [1, 7, 4096] {
        let source = BufReader::with_capacity(capacity, &bytes[..]);
        let mut reader = BufReadStreamReader::new(source, RejectFf);
        assert_eq!(reader.read_message().unwrap(), Some(&b"ok"[..]));
        let err = reader.read_message().unwrap_err();
        assert!(matches!(err, Error::Validation { offset: 6, .. }), "{err}");
        assert_eq!(reader.read_message().unwrap(), Some(&b"after"[..]));
        assert_eq!(reader.read_message().unwrap(), None);

        let source = BufReader::with_capacity(capacity, &bytes[..]);
        let mut reader = BufReadStreamReader::new(source, RejectFf);
        let mut got = vec![];
        let mut collect = |p: &[u8]| {
            got.push(p.to_vec());
            Ok(())
        };
        let err = reader.process_all(&mut collect).unwrap_err();
        assert!(matches!(err, Error::Validation { offset: 6, .. }), "{err}");
        reader.process_all(&mut collect).unwrap();
        assert_eq!(got, [b"ok".to_vec(), b"after".to_vec()]);
    }
}

#[test]
fn errors_from_the_callback_stop_the_loop_with_the_frame_offset() {
    let msgs = sample();
    let bytes = stream(&msgs);
    let mut reader = BufReadStreamReader::new(&bytes[..], DefaultDeframer);
    let mut calls = 0;
    let err = reader
        .process_all(|p| {
            calls += 1;
            if p.len() == 70 {
                return Err(Error::validation("test", "too long", 0));
            }
            Ok(())
        })
        .unwrap_err();
    // The third frame, after 4 + 5 and 4 + 0 bytes.
    assert!(matches!(err, Error::Validation { offset: 13, .. }), "{err}");
    assert_eq!(calls, 3);
    assert_eq!(reader.read_message().unwrap(), Some(&b"last!"[..]));
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
    let script = [
        Step::Bytes(9),
        Step::Bytes(4),
        Step::Bytes(8),
        Step::Bytes(8),
        Step::Fail(ErrorKind::ConnectionReset),
    ];
    let source = BufReader::with_capacity(16, Scripted::new(bytes.clone(), script, 1000));
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
    assert_eq!(process_all_in_strides(&mut reader, usize::MAX), msgs);
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
