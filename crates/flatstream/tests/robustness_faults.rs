//! The reader and writer against misbehaving I/O (`flatstream_test_support::faults`): sources that
//! deliver one byte at a time, `Interrupted`, `WouldBlock` and errors mid-header and
//! mid-payload; sinks with short writes, `Interrupted`, errors mid-frame and a full disk.

// The algorithms through the checksum crate: the dev-dependency compiles them all, whatever
// features `flatstream` itself is built with.
use flatstream::repair::{Recover, StreamEnd};
use flatstream::write::WriteStrategy;
use flatstream::{
    ChecksumDeframer, ChecksumFramer, DefaultDeframer, DefaultFramer, Deframer, Error, Framer,
    Frames, StreamReader, StreamWriter,
};
use flatstream_checksum::{Crc16, XxHash64};
use flatstream_test_support::faults::{FaultySink, FaultySource};
use flatstream_test_support::telemetry::Reading;
use std::io::ErrorKind;

/// Telemetry readings and raw payloads of awkward sizes; with `large`, one of 5000 bytes too,
/// which a writer with vectored writes sends with one.
fn payloads(large: bool) -> Vec<Vec<u8>> {
    let mut out = vec![Vec::new(), vec![7], vec![0xC3; 300]];
    if large {
        out.push(vec![0x5A; 5000]);
    }
    let mut w = StreamWriter::new(Vec::new(), DefaultFramer);
    for i in 0..4 {
        w.write(&Reading::nth(i)).unwrap();
    }
    out.extend(Frames::new(&w.into_inner(), DefaultDeframer).map(|p| p.unwrap().to_vec()));
    out
}

fn stream<F: Framer>(framer: F, payloads: &[Vec<u8>]) -> (Vec<u8>, Vec<u64>) {
    let mut w = StreamWriter::new(Vec::new(), framer);
    let mut bounds = vec![0];
    for p in payloads {
        w.write_payload(p).unwrap();
        bounds.push(w.bytes_written());
    }
    (w.into_inner(), bounds)
}

/// Reads everything, retrying after every I/O error (the source's faults are all transient),
/// and returns the payloads and the offsets the I/O errors named.
fn read_through<D: Deframer>(source: FaultySource, deframer: D) -> (Vec<Vec<u8>>, Vec<u64>) {
    let mut reader = StreamReader::with_capacity(16, source, deframer);
    let mut got = Vec::new();
    let mut errors = Vec::new();
    loop {
        match reader.read_message() {
            Ok(Some(p)) => got.push(p.to_vec()),
            Ok(None) => break,
            Err(Error::Io { offset, .. }) => {
                assert_eq!(
                    offset,
                    reader.position(),
                    "an I/O error names the current frame"
                );
                errors.push(offset);
                assert!(errors.len() < 10_000, "no progress");
            }
            Err(e) => panic!("{e}"),
        }
    }
    (got, errors)
}

fn each_framing(
    mut f: impl FnMut(
        &str,
        &dyn Fn(&[Vec<u8>]) -> (Vec<u8>, Vec<u64>),
        &dyn Fn(FaultySource) -> (Vec<Vec<u8>>, Vec<u64>),
    ),
) {
    f("none", &|p| stream(DefaultFramer, p), &|s| {
        read_through(s, DefaultDeframer)
    });
    f(
        "xxhash64",
        &|p| stream(ChecksumFramer::new(XxHash64), p),
        &|s| read_through(s, ChecksumDeframer::new(XxHash64)),
    );
    f("crc16", &|p| stream(ChecksumFramer::new(Crc16), p), &|s| {
        read_through(s, ChecksumDeframer::new(Crc16))
    });
}

#[test]
fn reader_resumes_after_interrupted_and_would_block_one_byte_at_a_time() {
    let payloads = payloads(true);
    each_framing(|name, write, read| {
        let (bytes, _) = write(&payloads);
        let source = FaultySource::new(bytes.clone())
            .chunk(1)
            .every(2, ErrorKind::Interrupted)
            .every(3, ErrorKind::WouldBlock);
        let (got, errors) = read(source);
        assert_eq!(got, payloads, "{name}");
        // `Interrupted` is retried inside the reader; `WouldBlock` is reported.
        assert!(!errors.is_empty(), "{name}");
    });
}

#[test]
fn reader_keeps_every_byte_across_an_error_at_each_offset() {
    for (large, chunk) in [(false, 5), (true, 509)] {
        let payloads = payloads(large);
        each_framing(|name, write, read| {
            let (bytes, bounds) = write(&payloads);
            for at in 0..bytes.len() as u64 {
                for kind in [
                    ErrorKind::WouldBlock,
                    ErrorKind::ConnectionReset,
                    ErrorKind::TimedOut,
                ] {
                    let source = FaultySource::new(bytes.clone())
                        .chunk(chunk)
                        .fail_at(at, kind);
                    let (got, errors) = read(source);
                    assert_eq!(got, payloads, "{name}: {kind:?} at {at}");
                    // The error is reported once, against the frame whose bytes were due: mid-header
                    // and mid-payload alike.
                    let frame_start = *bounds.iter().rfind(|&&b| b <= at).unwrap();
                    assert_eq!(errors, [frame_start], "{name}: {kind:?} at {at}");
                }
            }
        });
    }
}

/// Writes `payloads` into `sink` until one fails, with plain or vectored writes; returns the
/// sink's bytes, the writer's count, and how many frames were written whole.
fn write_until_error<F: Framer>(
    sink: FaultySink,
    framer: F,
    payloads: &[Vec<u8>],
    vectored: bool,
) -> (Vec<u8>, u64, usize, Option<Error>) {
    let w = StreamWriter::new(sink, framer);
    if vectored {
        write_with(w.with_vectored_writes(), payloads)
    } else {
        write_with(w, payloads)
    }
}

fn write_with<F: Framer, S: WriteStrategy>(
    mut w: StreamWriter<FaultySink, F, S>,
    payloads: &[Vec<u8>],
) -> (Vec<u8>, u64, usize, Option<Error>) {
    let mut whole = 0;
    let mut error = None;
    for p in payloads {
        let before = w.bytes_written();
        match w.write_payload(p) {
            Ok(()) => whole += 1,
            Err(e) => {
                assert_eq!(
                    e.offset(),
                    before,
                    "the error names the frame being written"
                );
                error = Some(e);
                break;
            }
        }
    }
    let written = w.bytes_written();
    (w.into_inner().into_data(), written, whole, error)
}

#[test]
fn writer_retries_short_writes_and_interrupted() {
    let payloads = payloads(true);
    for (chunk, vectored) in [1, 2, 3, 7, 4096]
        .into_iter()
        .flat_map(|c| [(c, false), (c, true)])
    {
        let (expected, _) = stream(ChecksumFramer::new(XxHash64), &payloads);
        let sink = FaultySink::new()
            .chunk(chunk)
            .every(2, ErrorKind::Interrupted);
        let (data, written, whole, error) =
            write_until_error(sink, ChecksumFramer::new(XxHash64), &payloads, vectored);
        assert!(error.is_none());
        assert_eq!(whole, payloads.len());
        assert_eq!(data, expected, "chunk {chunk}");
        assert_eq!(written, expected.len() as u64);
    }
}

#[test]
fn after_a_write_error_bytes_written_is_exactly_what_the_sink_has() {
    for (large, chunk, vectored) in [(false, 3, false), (true, 509, false), (true, 509, true)] {
        let payloads = payloads(large);
        let (expected, bounds) = stream(ChecksumFramer::new(Crc16), &payloads);
        for at in 0..=expected.len() {
            // A full disk at every length, and a one-shot error at every offset, with short
            // writes: mid-header, mid-payload and between frames.
            let sinks = [
                FaultySink::new().chunk(chunk).full_at(at),
                FaultySink::new()
                    .chunk(chunk)
                    .every(5, ErrorKind::Interrupted)
                    .fail_at(at as u64, ErrorKind::BrokenPipe),
            ];
            for sink in sinks {
                let (data, written, whole, error) =
                    write_until_error(sink, ChecksumFramer::new(Crc16), &payloads, vectored);
                assert_eq!(written, data.len() as u64, "error at {at}");
                assert_eq!(data, expected[..data.len()], "error at {at}");
                if at < expected.len() {
                    let error = error.expect("the sink fails before the end");
                    assert!(matches!(error, Error::Io { .. }), "{error}");
                    assert_eq!(data.len(), at, "the sink took everything up to the fault");
                }
                // Recovery of what reached the sink finds exactly the frames written whole.
                let r = Recover::new(ChecksumDeframer::new(Crc16)).scan(&data);
                assert_eq!(r.frames, whole as u64, "error at {at}");
                assert_eq!(r.valid_len, bounds[whole]);
                assert!(matches!(
                    r.end,
                    StreamEnd::Clean | StreamEnd::TornTail { .. }
                ));
            }
        }
    }
}
