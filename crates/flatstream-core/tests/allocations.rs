//! Allocation behaviour of the core reader and writer, measured with a counting allocator:
//! nothing per message once warm, and never more than the bytes actually received.

use flatstream_core::flatbuffers::FlatBufferBuilder;
use flatstream_core::{
    BufReadStreamReader, DefaultDeframer, DefaultFramer, Error, Frames, StreamReader, StreamWriter,
};
use flatstream_test_support::Opaque;
use flatstream_test_support::alloc::{CountingAlloc, count_all, measure_exact, steady_state};
use flatstream_test_support::telemetry::{self, Reading};
use std::io::{self, BufReader, Cursor};

#[global_allocator]
static ALLOC: CountingAlloc = CountingAlloc;

#[test]
fn writing_allocates_nothing_per_message_once_warm() {
    // Simple mode: the internal builder is reused.
    let mut w = StreamWriter::new(io::sink(), DefaultFramer);
    let stats = steady_state(|i| w.write(&Reading::nth(i)).unwrap());
    assert_eq!(stats.allocations, 0, "simple mode: {stats:?}");

    // Expert mode: the caller's builder, reset between messages.
    let mut builder = FlatBufferBuilder::new();
    let mut w = StreamWriter::new(Vec::with_capacity(1 << 20), DefaultFramer);
    let stats = steady_state(|i| {
        builder.reset();
        flatstream_core::StreamSerialize::serialize(&Reading::nth(i), &mut builder).unwrap();
        w.write_finished(&mut builder).unwrap();
    });
    assert_eq!(stats.allocations, 0, "expert mode: {stats:?}");
}

#[test]
fn reading_allocates_nothing_per_message_once_warm() {
    let bytes = telemetry::stream(10_000);

    // Copying through the reader's buffer, as from a file or a socket.
    let mut reader = StreamReader::new(Opaque(&bytes[..]), DefaultDeframer);
    assert!(reader.read_message().unwrap().is_some()); // allocates the buffer
    let (count, stats) = measure_exact(|| {
        let mut n = 0u64;
        let mut sum = 0u64;
        reader
            .process_all(|p| {
                let t = flatstream_test_support::telemetry::root_as_telemetry(p)?;
                sum = sum.wrapping_add(t.device_id());
                n += 1;
                Ok(())
            })
            .unwrap();
        n
    });
    assert_eq!(count, 9_999);
    assert_eq!(stats.allocations, 0, "copying StreamReader: {stats:?}");

    let mut reader = StreamReader::new(Opaque(Cursor::new(&bytes)), DefaultDeframer);
    assert!(reader.read_message().unwrap().is_some());
    let ((), stats) = measure_exact(|| {
        let mut m = reader.messages();
        while let Some(p) = m.next().unwrap() {
            assert!(!p.is_empty());
        }
    });
    assert_eq!(
        stats.allocations, 0,
        "copying StreamReader, messages(): {stats:?}"
    );

    // In place over `&[u8]` and `Cursor`: nothing at all, not even a first buffer.
    let (count, stats) = measure_exact(|| -> flatstream_core::Result<u64> {
        let mut n = count_all(&mut StreamReader::new(&bytes[..], DefaultDeframer))?;
        let mut reader = StreamReader::new(Cursor::new(&bytes), DefaultDeframer);
        let mut m = reader.messages();
        while m.next()?.is_some() {
            n += 1;
        }
        Ok(n)
    });
    assert_eq!(count.unwrap(), 20_000);
    assert_eq!(
        stats.allocations, 0,
        "StreamReader over &[u8] and Cursor: {stats:?}"
    );

    let (count, stats) = measure_exact(|| Frames::new(&bytes, DefaultDeframer).count());
    assert_eq!(count, 10_000);
    assert_eq!(stats.allocations, 0, "Frames: {stats:?}");

    // In place over bytes in memory: nothing at all, not even a first buffer.
    let (count, stats) =
        measure_exact(|| count_all(&mut BufReadStreamReader::new(&bytes[..], DefaultDeframer)));
    assert_eq!(count.unwrap(), 10_000);
    assert_eq!(
        stats.allocations, 0,
        "BufReadStreamReader over &[u8]: {stats:?}"
    );

    // Over a small `BufReader`, most frames straddle refills and are assembled by the reader:
    // once its assembly buffer has grown to the largest frame, that costs nothing either.
    let source = BufReader::with_capacity(100, &bytes[..]);
    let mut reader = BufReadStreamReader::new(source, DefaultDeframer);
    for _ in 0..10 {
        assert!(reader.read_message().unwrap().is_some());
    }
    let (count, stats) = measure_exact(|| {
        let mut n = 0u64;
        let mut m = reader.messages();
        while let Some(p) = m.next().unwrap() {
            assert!(!p.is_empty());
            n += 1;
        }
        n
    });
    assert_eq!(count, 9_990);
    assert_eq!(
        stats.allocations, 0,
        "BufReadStreamReader over BufReader: {stats:?}"
    );
}

/// Hostile headers: the reader allocates for the bytes that arrive, not for the length claimed.
#[test]
fn hostile_lengths_allocate_no_more_than_the_bytes_received() {
    const CAPACITY: usize = 256;
    let bound: u32 = 1 << 30;
    for (claim, received) in [
        (u32::MAX, 0usize),
        (bound + 1, 10),
        (bound, 0),
        (bound, 10),
        (bound, 5_000),
        (bound, 100_000),
    ] {
        let mut bytes = claim.to_le_bytes().to_vec();
        bytes.extend(std::iter::repeat_n(0x5A, received));
        let (err, stats) = measure_exact(|| {
            let source = Opaque(&bytes[..]);
            let mut reader = StreamReader::with_capacity(CAPACITY, source, DefaultDeframer)
                .with_max_frame_len(bound as usize);
            reader.read_message().unwrap_err()
        });
        match err {
            Error::FrameTooLarge { .. } => {
                // Only the reader's initial buffer, needed to read the length prefix at all.
                assert!(
                    stats.allocations <= 1 && stats.largest <= CAPACITY as u64,
                    "{stats:?}"
                )
            }
            Error::UnexpectedEof { present, .. } => {
                assert_eq!(present as usize, 4 + received);
                let limit = (CAPACITY.max(2 * (4 + received))) as u64;
                assert!(
                    stats.largest <= limit,
                    "claim {claim}, received {received}: largest allocation {} > {limit}",
                    stats.largest
                );
            }
            other => panic!("claim {claim}: {other:?}"),
        }

        // `StreamReader` in place over the bytes: nothing allocated at all.
        let (err, stats) = measure_exact(|| {
            let reader = StreamReader::new(&bytes[..], DefaultDeframer);
            reader
                .with_max_frame_len(bound as usize)
                .read_message()
                .unwrap_err()
        });
        assert_eq!(
            stats.allocations, 0,
            "StreamReader in place, claim {claim}, received {received}: {err}"
        );

        // In place, the reader holds only what straddles the source's buffer, as it arrives.
        let source = BufReader::with_capacity(CAPACITY, &bytes[..]);
        let mut reader =
            BufReadStreamReader::new(source, DefaultDeframer).with_max_frame_len(bound as usize);
        let (err, stats) = measure_exact(|| reader.read_message().unwrap_err());
        let limit = 2 * (4 + received) as u64;
        assert!(
            stats.largest <= limit,
            "BufReadStreamReader, claim {claim}, received {received}: {err}, largest allocation {} > {limit}",
            stats.largest
        );
    }
}
