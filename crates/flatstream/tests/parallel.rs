//! `ParallelFrames` (feature `rayon`): both orders and the fold hand out exactly the frames of a sequential
//! read, on pools of 1 to 4 threads, and errors carry the offsets a sequential reader gives.
#![cfg(feature = "rayon")]

use flatstream::split::ParallelFrames;
use flatstream::{
    ChecksumDeframer, ChecksumFramer, Crc16, DefaultDeframer, Deframer, Error, Frames, XxHash64,
};
use flatstream_test_support::stream_with;
use proptest::prelude::*;
use std::ops::ControlFlow;
use std::sync::Mutex;

const MAX: usize = 4096;

fn pool(threads: usize) -> rayon::ThreadPool {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .expect("a thread pool")
}

/// The frames a sequential reader hands out, as `(offset, payload)`, and its first error.
fn sequential<D: Deframer>(
    bytes: &[u8],
    deframer: D,
    max: usize,
) -> (Vec<(u64, &[u8])>, Option<u64>) {
    let mut frames = Frames::new(bytes, deframer).with_max_frame_len(max);
    let mut out = Vec::new();
    loop {
        let at = frames.position();
        match frames.next() {
            None => return (out, None),
            Some(Ok(payload)) => out.push((at, payload)),
            Some(Err(e)) => return (out, Some(e.offset())),
        }
    }
}

/// Where `payload` lies in `bytes`: the offset of its frame, given the header's length.
fn frame_offset(bytes: &[u8], payload: &[u8], header: usize) -> u64 {
    (payload.as_ptr() as usize - bytes.as_ptr() as usize - header) as u64
}

/// Both orders against the sequential read, on a pool of `threads`.
fn check<D: Deframer + Sync + Copy>(bytes: &[u8], deframer: D, split_len: usize, threads: usize) {
    check_within(bytes, deframer, MAX, split_len, threads);
}

/// [`check`], with the bound `max`.
fn check_within<D: Deframer + Sync + Copy>(
    bytes: &[u8],
    deframer: D,
    max: usize,
    split_len: usize,
    threads: usize,
) {
    let header = 4 + deframer.checksum_size();
    let (expected, error) = sequential(bytes, deframer, max);
    let reader = ParallelFrames::new(bytes, deframer)
        .with_max_frame_len(max)
        .with_split_len(split_len);
    pool(threads).install(|| {
        // In stream order: exactly the sequential frames, then the same error.
        let mut seen = Vec::new();
        let result = reader.process_all_ordered(
            |payload| Ok((frame_offset(bytes, payload, header), payload)),
            |item| {
                seen.push(item);
                Ok(())
            },
        );
        assert_eq!(seen, expected);
        assert_eq!(result.err().map(|e| e.offset()), error);

        // Unordered: the same frames once each (frames after an error may be handed out too).
        let seen = Mutex::new(Vec::new());
        let result = reader.process_all(|payload| {
            seen.lock()
                .unwrap()
                .push((frame_offset(bytes, payload, header), payload));
            Ok(())
        });
        let mut seen = seen.into_inner().unwrap();
        seen.sort_unstable();
        assert_eq!(result.err().map(|e| e.offset()), error);
        if error.is_none() {
            assert_eq!(seen, expected);
        } else {
            assert!(expected.iter().all(|f| seen.contains(f)));
        }

        // Folded per split, reduced in order: the sequential frames, in order, or the error.
        let folded = reader.fold(
            Vec::new,
            |frames, payload| {
                frames.push((frame_offset(bytes, payload, header), payload));
                Ok(())
            },
            |mut a, b| {
                a.extend(b);
                a
            },
        );
        match (folded, error) {
            (Ok(frames), None) => assert_eq!(frames, expected),
            (Err(e), Some(at)) => assert_eq!(e.offset(), at),
            (folded, error) => panic!("fold gave {folded:?}, sequentially {error:?}"),
        }

        // The splits themselves, read in order up to the first error, are the sequential read.
        let mut joined = Vec::new();
        let mut first_error = None;
        'splits: for split in reader.splits() {
            for item in split {
                match item {
                    Ok(payload) => joined.push((frame_offset(bytes, payload, header), payload)),
                    Err(e) => {
                        first_error = Some(e.offset());
                        break 'splits;
                    }
                }
            }
        }
        assert_eq!((joined, first_error), (expected, error));
    });
}

fn payloads() -> impl Strategy<Value = Vec<Vec<u8>>> {
    let nested = prop::collection::vec(prop::collection::vec(any::<u8>(), 0..12), 1..5)
        .prop_map(|inner| stream_with(ChecksumFramer::new(XxHash64), &inner));
    let payload = prop_oneof![
        prop::collection::vec(any::<u8>(), 0..64),
        (0usize..24).prop_map(|n| vec![0; n]),
        nested,
    ];
    prop::collection::vec(payload, 0..60)
}

fn damage(bytes: &mut Vec<u8>, damage: Option<(usize, bool)>) {
    if let (Some((at, cut)), false) = (damage, bytes.is_empty()) {
        let at = at % bytes.len();
        if cut {
            bytes.truncate(at);
        } else {
            bytes[at] ^= 0x5A;
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn streams_read_in_parallel_as_sequentially_with_or_without_a_checksum(
        payloads in payloads(),
        hit in prop::option::of((any::<usize>(), any::<bool>())),
        split_len in 1usize..300,
        threads in 1usize..=4,
    ) {
        let mut bytes = stream_with(ChecksumFramer::new(XxHash64), &payloads);
        damage(&mut bytes, hit);
        check(&bytes, ChecksumDeframer::new(XxHash64), split_len, threads);
        let mut bytes = stream_with(ChecksumFramer::new(Crc16), &payloads);
        damage(&mut bytes, hit);
        check(&bytes, ChecksumDeframer::new(Crc16), split_len, threads);
        let mut bytes = flatstream_test_support::stream(&payloads);
        damage(&mut bytes, hit);
        check(&bytes, DefaultDeframer, split_len, threads);
    }
}

/// 2 000 frames of 4-byte counters, checksummed.
fn counters() -> Vec<u8> {
    let payloads: Vec<[u8; 4]> = (0..2000u32).map(u32::to_le_bytes).collect();
    stream_with(ChecksumFramer::new(XxHash64), &payloads)
}

/// The offset of a checksum mismatch; `None` for any other error.
fn mismatch_at(err: &Error) -> Option<u64> {
    match err {
        Error::ChecksumMismatch { offset, .. } => Some(*offset),
        _ => None,
    }
}

fn counter(payload: &[u8]) -> u32 {
    u32::from_le_bytes(payload.try_into().expect("4 bytes"))
}

#[test]
fn a_callback_error_carries_the_offset_of_its_frame_in_the_whole_stream() {
    let bytes = counters();
    let reader = ParallelFrames::new(&bytes, ChecksumDeframer::new(XxHash64)).with_split_len(512);
    let reject = |payload: &[u8]| match counter(payload) {
        n @ (1234 | 1500) => Err(Error::validation("test", format!("counter {n}"), 0)),
        n => Ok(n),
    };
    pool(2).install(|| {
        let err = reader.process_all(|p| reject(p).map(drop)).unwrap_err();
        assert_eq!(
            err.offset(),
            1234 * 16,
            "the first failing frame in stream order"
        );

        let mut sunk = 0;
        let err = reader
            .process_all_ordered(reject, |n| {
                assert_eq!(n, sunk);
                sunk += 1;
                Ok(())
            })
            .unwrap_err();
        assert_eq!((err.offset(), sunk), (1234 * 16, 1234));

        let err = reader
            .fold(
                || 0u64,
                |n, p| {
                    *n += u64::from(reject(p)?);
                    Ok(())
                },
                |a, b| a + b,
            )
            .unwrap_err();
        assert_eq!(err.offset(), 1234 * 16, "a fold's error is stamped too");

        let err = reader
            .process_all_ordered(
                |p| Ok(counter(p)),
                |n| match n {
                    777 => Err(Error::validation("sink", "no", 0)),
                    _ => Ok(()),
                },
            )
            .unwrap_err();
        assert_eq!(err.offset(), 777 * 16, "a sink's error is stamped too");
    });
}

#[test]
fn a_corrupt_frame_is_reported_at_its_offset_after_every_frame_before_it() {
    let mut bytes = counters();
    bytes[1000 * 16 + 13] ^= 1; // the payload of frame 1000
    let reader = ParallelFrames::new(&bytes, ChecksumDeframer::new(XxHash64)).with_split_len(700);
    pool(2).install(|| {
        let mut sunk = Vec::new();
        let err = reader
            .process_all_ordered(
                |p| Ok(counter(p)),
                |n| {
                    sunk.push(n);
                    Ok(())
                },
            )
            .unwrap_err();
        assert_eq!(mismatch_at(&err), Some(16_000));
        assert_eq!(sunk, (0..1000).collect::<Vec<_>>());
        let err = reader.process_all(|_| Ok(())).unwrap_err();
        assert_eq!(mismatch_at(&err), Some(16_000));
        let err = reader.fold(|| (), |_, _| Ok(()), |(), ()| ()).unwrap_err();
        assert_eq!(mismatch_at(&err), Some(16_000));
    });
}

#[test]
fn break_stops_the_read_without_an_error() {
    let bytes = counters();
    let reader = ParallelFrames::new(&bytes, ChecksumDeframer::new(XxHash64)).with_split_len(256);
    pool(3).install(|| {
        let mut sunk = 0;
        reader
            .process_all_ordered(
                |p| Ok(counter(p)),
                |n| {
                    sunk += 1;
                    Ok(flatstream_test_support::stop_if(n == 99))
                },
            )
            .unwrap();
        assert_eq!(sunk, 100);
        reader.process_all(|_| Ok(ControlFlow::Break(()))).unwrap();

        // A fold stopped at counter 99 combines exactly the counters up to it.
        let folded = reader
            .fold(
                Vec::new,
                |seen, p| {
                    seen.push(counter(p));
                    Ok(flatstream_test_support::stop_if(counter(p) == 99))
                },
                |mut a, b| {
                    a.extend(b);
                    a
                },
            )
            .unwrap();
        assert_eq!(folded, (0..100).collect::<Vec<_>>());
    });
}

#[test]
fn unordered_break_hides_an_error_a_sequential_read_would_not_reach() {
    let mut bytes = counters();
    bytes[1900 * 16 + 13] ^= 1; // the payload of frame 1900, in the last split
    let reader = ParallelFrames::new(&bytes, ChecksumDeframer::new(XxHash64)).with_split_len(4096);
    pool(2).install(|| {
        // Frame 10 stops the read; it waits, so that the other thread reaches the corrupt
        // frame first. Sequentially the read stops at frame 10 and never sees it.
        let result = reader.process_all(|p| {
            if counter(p) == 10 {
                std::thread::sleep(std::time::Duration::from_millis(50));
                return Ok(ControlFlow::Break(()));
            }
            Ok(ControlFlow::Continue(()))
        });
        assert!(result.is_ok(), "{result:?}");

        // A break after the corrupt frame in stream order leaves its error in place.
        let err = reader
            .process_all(|p| {
                Ok(if counter(p) == 1950 {
                    ControlFlow::Break(())
                } else {
                    ControlFlow::Continue(())
                })
            })
            .unwrap_err();
        assert_eq!(mismatch_at(&err), Some(30_400));
    });
}

#[test]
fn a_deframer_chosen_at_run_time_works_boxed() {
    let bytes = counters();
    let deframer: Box<dyn Deframer + Sync> = Box::new(ChecksumDeframer::new(XxHash64));
    let mut counters = Vec::new();
    ParallelFrames::new(&bytes, deframer)
        .with_split_len(1000)
        .process_all_ordered(
            |p| Ok(counter(p)),
            |n| {
                counters.push(n);
                Ok(())
            },
        )
        .unwrap();
    assert_eq!(counters, (0..2000).collect::<Vec<_>>());
}

#[test]
fn split_and_parallel_readers_are_send_and_sync() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<flatstream::split::SplitFrames<'static, ChecksumDeframer<XxHash64>>>();
    assert_send_sync::<ParallelFrames<'static, ChecksumDeframer<XxHash64>>>();
    assert_send_sync::<ParallelFrames<'static, Box<dyn Deframer + Sync + Send>>>();
}

/// Payloads that hold whole streams of the same framing fool every split that starts inside
/// them; the fold's join check throws those splits' values away, and an error the fold raised
/// on a false frame too, and folds them again from the right boundary.
#[test]
fn a_fold_over_nested_streams_is_the_sequential_fold() {
    let inner = stream_with(ChecksumFramer::new(XxHash64), &[b"in-1", b"in-2", b"in-3"]);
    let payloads: Vec<Vec<u8>> = (0..200)
        .map(|i| {
            if i % 2 == 0 {
                inner.clone()
            } else {
                vec![i as u8; 5]
            }
        })
        .collect();
    let bytes = stream_with(ChecksumFramer::new(XxHash64), &payloads);
    let inner_len = inner.len();
    // Every outer payload is either a 5-byte one or the nested stream, never an inner frame.
    let strict = |n: &mut usize, payload: &[u8]| {
        if payload.len() != 5 && payload.len() != inner_len {
            return Err(Error::validation("test", "an inner frame", 0));
        }
        *n += 1;
        Ok(())
    };
    for split_len in [7, 13, 40, 101] {
        let reader =
            ParallelFrames::new(&bytes, ChecksumDeframer::new(XxHash64)).with_split_len(split_len);
        let count = pool(2)
            .install(|| reader.fold(|| 0, strict, |a, b| a + b))
            .unwrap();
        assert_eq!(count, 200, "split length {split_len}");
    }
}

/// Splits whose first chain of frames is longer than the split, or whose payload bytes spend
/// their resynchronization budget (every aligned offset declaring a frame that lands, none
/// verifying), report no frame; each is then read from where the split before it ended, and
/// every reader still hands out exactly the sequential frames, with the default bound.
#[test]
fn splits_that_give_up_are_read_from_the_split_before() {
    let hostile: Vec<u8> = 60_000u32.to_le_bytes().repeat(1 << 18);
    let large = vec![7u8; 300 << 10];
    let mut payloads: Vec<Vec<u8>> = vec![hostile, large.clone(), large];
    payloads.extend((0..3000u32).map(|i| i.to_le_bytes().repeat(1 + i as usize % 9)));
    let bytes = stream_with(ChecksumFramer::new(XxHash64), &payloads);
    let deframer = ChecksumDeframer::new(XxHash64);
    for split_len in [64 << 10, 200 << 10] {
        check_within(&bytes, deframer, usize::MAX, split_len, 2);
    }
}
