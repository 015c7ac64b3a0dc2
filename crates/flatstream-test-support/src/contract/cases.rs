//! The cases of the contract that any reader keeps, I/O or not, each a function generic over
//! the [`Driver`].

use super::{
    Driver, Input, Read, clean, every_capacity, pieces, process_to_end, read_in_turns, read_to_end,
    sample, some_capacities, starts, summed, varied,
};
use crate::alloc::{assert_installed, measure_exact};
use crate::faults::Faults;
use crate::{stream, stream_with};
use flatstream_core::{DefaultDeframer, Deframer, Error, Frames, Result};
use proptest::prelude::*;
use proptest::test_runner::{Config, TestRunner};
use std::ops::ControlFlow;

/// Every payload comes back as written, through `read_message` and through `process_all`
/// stopped every few frames: whatever the buffer capacity, and however the source splits the
/// bytes.
pub fn round_trips<T: Driver>() {
    let msgs = varied();
    let bytes = stream(&msgs);
    for capacity in every_capacity::<T>(120) {
        for faults in pieces::<T>(&[1, 3]) {
            let what = format!("{}: capacity {capacity:?}, {faults:?}", T::NAME);
            let input = Input::new(bytes.clone())
                .with_capacity(capacity)
                .with_faults(faults);
            let mut r = T::open(&input, DefaultDeframer);
            assert_eq!(clean(read_to_end(&mut *r), &what), msgs, "{what}");
            assert_eq!(
                r.read_message().unwrap(),
                None,
                "{what}: the end stays the end"
            );
            let mut r = T::open(&input, DefaultDeframer);
            assert_eq!(read_in_turns(&mut *r, 0, 7).unwrap(), msgs, "{what}");
        }
    }
}

/// Round trips of random payloads (empty ones too), in both framings, with a random capacity,
/// random pieces, and `process_all` stopped at a random stride after a few `read_message`.
pub fn round_trips_random<T: Driver>() {
    // Inputs that once failed (`BufReadStreamReader` over a `BufReader`), first.
    round_trip::<T>(vec![vec![0; 45], vec![]], 2, 2, 0, 1).unwrap();
    round_trip::<T>(vec![vec![0x5A; 233], vec![0xA5; 287]], 473, 59, 0, 1).unwrap();
    let config = Config {
        cases: 200,
        failure_persistence: None,
        ..Config::default()
    };
    let payloads = prop::collection::vec(prop::collection::vec(any::<u8>(), 0..300), 0..24);
    let strategy = (payloads, 0usize..700, 1usize..80, 0usize..6, 1usize..6);
    TestRunner::new(config)
        .run(&strategy, |(msgs, capacity, chunk, first, stride)| {
            round_trip::<T>(msgs, capacity, chunk, first, stride)
        })
        .unwrap();
}

fn round_trip<T: Driver>(
    msgs: Vec<Vec<u8>>,
    capacity: usize,
    chunk: usize,
    first: usize,
    stride: usize,
) -> Result<(), TestCaseError> {
    let (framer, deframer) = summed();
    let input = |bytes| {
        Input::new(bytes)
            .with_capacity(T::MIN_CAPACITY.map(|min| capacity.max(min)))
            .with_faults(T::HAS_IO.then(|| Faults::new().chunk(chunk)))
    };
    let plain = input(stream(&msgs));
    let checked = input(stream_with(framer, &msgs));
    let r = &mut *T::open(&plain, DefaultDeframer);
    prop_assert_eq!(&clean(read_to_end(r), T::NAME), &msgs);
    let r = &mut *T::open(&plain, DefaultDeframer);
    prop_assert_eq!(&read_in_turns(r, first, stride).unwrap(), &msgs);
    let r = &mut *T::open(&checked, deframer);
    prop_assert_eq!(&clean(read_to_end(r), T::NAME), &msgs);
    let r = &mut *T::open(&checked, deframer);
    prop_assert_eq!(&read_in_turns(r, first, stride).unwrap(), &msgs);
    Ok(())
}

/// `position` is 0 at first, then the end of each frame handed out (after `read_message` and
/// after `process_all` stops), and the length of the stream at its end.
pub fn positions_follow_the_frames<T: Driver>() {
    let msgs = varied();
    let ends = starts(&msgs, 4);
    for capacity in some_capacities::<T>() {
        let input = Input::new(stream(&msgs)).with_capacity(capacity);
        let what = format!("{}: capacity {capacity:?}", T::NAME);
        let mut r = T::open(&input, DefaultDeframer);
        assert_eq!(r.position(), 0, "{what}");
        for end in &ends[1..] {
            assert!(r.read_message().unwrap().is_some(), "{what}");
            assert_eq!(r.position(), *end, "{what}");
        }
        assert_eq!(r.read_message().unwrap(), None, "{what}");
        assert_eq!(r.position(), ends[msgs.len()], "{what}");

        let mut r = T::open(&input, DefaultDeframer);
        for (stop, end) in ends.iter().enumerate().skip(1) {
            r.process_all(&mut |_| Ok(ControlFlow::Break(()))).unwrap();
            assert_eq!(r.position(), *end, "{what}: stopped after {stop}");
        }
    }
}

/// A stream cut at every offset gives the whole frames before the cut, then `None` if the cut
/// is at a frame boundary, else `UnexpectedEof` with the torn frame's offset, the bytes it
/// needs (the header's length while the length prefix is incomplete) and the bytes present.
/// A reader that waits for the rest of a frame cut short ([`Driver::CUT_FRAME_WAITS`]) ends
/// there with `None` instead, at the frame's start. (What comes after the error:
/// [`after_a_framing_error`](super::after_a_framing_error).)
pub fn truncation_at_every_offset<T: Driver>() {
    let msgs = sample();
    let (framer, deframer) = summed();
    cut_everywhere::<T, _>(&stream(&msgs), &msgs, DefaultDeframer, 4);
    cut_everywhere::<T, _>(&stream_with(framer, &msgs), &msgs, deframer, 8);
}

fn cut_everywhere<T: Driver, D: Deframer + Copy>(
    bytes: &[u8],
    msgs: &[Vec<u8>],
    deframer: D,
    header: u64,
) {
    let starts = starts(msgs, header as usize);
    for cut in 0..=bytes.len() as u64 {
        let whole = starts[1..].iter().take_while(|&&end| end <= cut).count();
        let at = starts[whole];
        // A reader that waits ends at the cut frame's start as at a frame boundary.
        let torn = (cut > at && !T::CUT_FRAME_WAITS).then(|| {
            let needed = if cut - at < 4 {
                header
            } else {
                starts[whole + 1] - at
            };
            (at, needed, cut - at)
        });
        let expect = |result: Option<&Error>, what: &str| match (result, torn) {
            (None, None) => {}
            (
                Some(&Error::UnexpectedEof {
                    offset,
                    needed,
                    present,
                }),
                Some(torn),
            ) => assert_eq!((offset, needed, present), torn, "{what}"),
            (other, _) => panic!("{what}: {other:?}, expected {torn:?}"),
        };
        for capacity in some_capacities::<T>() {
            for faults in pieces::<T>(&[3]) {
                let what = &format!("{}: cut {cut}, capacity {capacity:?}, {faults:?}", T::NAME);
                let input = Input::new(bytes[..cut as usize].to_vec())
                    .with_capacity(capacity)
                    .with_faults(faults);
                let mut r = T::open(&input, deframer);
                let (got, error) = read_to_end(&mut *r);
                assert_eq!(got, msgs[..whole], "{what}");
                expect(error.as_ref(), what);
                assert_eq!(r.position(), at, "{what}");

                let mut r = T::open(&input, deframer);
                let (got, error) = process_to_end(&mut *r);
                assert_eq!(got, msgs[..whole], "{what}: process_all");
                expect(error.as_ref(), what);
            }
        }
    }
}

/// The bound of the [`HOSTILE_LENGTHS`]: 1 MiB.
pub const HOSTILE_BOUND: u32 = 1 << 20;

/// The hostile lengths every reader is given, each as the length a header claims and the bytes
/// that follow it, read with the bound [`HOSTILE_BOUND`]: claims over the bound (refused from
/// the header alone) and claims within it in a stream that ends first (a frame cut short).
/// [`hostile_lengths`] runs them on a [`Driver`]; a reader that is not one runs them itself,
/// on [`hostile_length_input`].
pub const HOSTILE_LENGTHS: [(u32, usize); 7] = [
    (u32::MAX, 0),
    (u32::MAX, 1000),
    (HOSTILE_BOUND + 1, 10),
    (HOSTILE_BOUND, 0),
    (HOSTILE_BOUND, 10),
    (HOSTILE_BOUND, 1000),
    (HOSTILE_BOUND, 5000),
];

/// A stream of one header claiming `claim` bytes, then `received` bytes of filler, to be read
/// with the bound [`HOSTILE_BOUND`].
pub fn hostile_length_input(claim: u32, received: usize) -> Input {
    let mut bytes = claim.to_le_bytes().to_vec();
    bytes.extend(std::iter::repeat_n(0x5A, received));
    Input::new(bytes).with_max_frame_len(Some(HOSTILE_BOUND as usize))
}

/// A frame that declares more than the bound is `FrameTooLarge` from its length prefix alone,
/// before anything is allocated for it; one within the bound but cut short is
/// `UnexpectedEof` (for a reader that waits for the rest, [`Driver::CUT_FRAME_WAITS`], the end
/// of what is there), and the memory held is at most about twice the bytes received, whatever
/// the header claimed. The reader stays at the frame.
pub fn hostile_lengths<T: Driver>() {
    assert_installed();
    const CAPACITY: usize = 256;
    let bound = HOSTILE_BOUND;
    for (claim, received) in HOSTILE_LENGTHS {
        let what = format!("{}: claim {claim}, {received} bytes", T::NAME);
        let capacity = T::MIN_CAPACITY.map(|_| CAPACITY);
        let input = hostile_length_input(claim, received).with_capacity(capacity);
        // Opened first: a driver may copy the input or allocate its source's buffer.
        let mut r = T::open(&input, DefaultDeframer);
        let (err, stats) = measure_exact(|| r.read_message().err());
        let present = 4 + received as u64;
        // A reader with I/O whose capacity is not set (the `Follower`) starts with its default
        // buffer at most; one without I/O allocates none.
        let default = if T::HAS_IO {
            flatstream_core::DEFAULT_CAPACITY
        } else {
            0
        };
        let initial = capacity.unwrap_or(default) as u64;
        let limit = initial.max(2 * present);
        match err {
            Some(Error::FrameTooLarge {
                offset: 0,
                len,
                max,
            }) => {
                assert!(claim > bound, "{what}");
                assert_eq!((len, max), (u64::from(claim), u64::from(bound)), "{what}");
                // At most the reader's first buffer, needed to read the length prefix at all.
                assert!(
                    stats.allocations <= 1 && stats.largest <= initial,
                    "{what}: {stats:?}"
                );
            }
            Some(Error::UnexpectedEof {
                offset: 0,
                needed,
                present: p,
            }) => {
                assert!(claim <= bound && !T::CUT_FRAME_WAITS, "{what}");
                assert_eq!((needed, p), (4 + u64::from(claim), present), "{what}");
                assert!(stats.largest <= limit, "{what}: {stats:?} > {limit}");
            }
            // Waiting for the rest of a frame within the bound, holding what came.
            None => {
                assert!(claim <= bound && T::CUT_FRAME_WAITS, "{what}");
                assert!(stats.largest <= limit, "{what}: {stats:?} > {limit}");
            }
            other => panic!("{what}: {other:?}"),
        }
        assert_eq!(r.position(), 0, "{what}");
    }

    // The default bound is the FlatBuffers maximum, 2 GiB, and `u32::MAX` is over it.
    let input = Input::new(u32::MAX.to_le_bytes().to_vec());
    let err = T::open(&input, DefaultDeframer).read_message().unwrap_err();
    assert!(
        matches!(
            err,
            Error::FrameTooLarge {
                offset: 0,
                len: 0xFFFF_FFFF,
                max: 0x8000_0000
            }
        ),
        "{}: {err}",
        T::NAME
    );
}

/// Rejects payloads that start with 0xFF, for their content, as a validating deframer does.
#[derive(Debug, Clone, Copy)]
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

/// A frame a validating deframer rejects is reported with its offset, and the reader moves
/// past it: the next frame follows, through `read_message` and through `process_all`.
pub fn content_errors_skip_the_frame<T: Driver>() {
    let msgs = [&b"ok"[..], &[0xFF, 1], b"after", &[0xFF], b"end"].map(<[u8]>::to_vec);
    let starts = starts(&msgs, 4);
    for capacity in some_capacities::<T>() {
        let what = format!("{}: capacity {capacity:?}", T::NAME);
        let input = Input::new(stream(&msgs)).with_capacity(capacity);
        let mut r = T::open(&input, RejectFf);
        for (i, m) in msgs.iter().enumerate() {
            match r.read_message() {
                Ok(Some(p)) => assert_eq!(p, &m[..], "{what}"),
                Err(e @ Error::Validation { .. }) => {
                    assert_eq!(m[0], 0xFF, "{what}: {e}");
                    assert_eq!(e.offset(), starts[i], "{what}");
                }
                other => panic!("{what}: {other:?}"),
            }
            assert_eq!(r.position(), starts[i + 1], "{what}");
        }
        assert_eq!(r.read_message().unwrap(), None, "{what}");

        let mut r = T::open(&input, RejectFf);
        for (expected, rejected) in [
            (&msgs[..1], Some(1)),
            (&msgs[2..3], Some(3)),
            (&msgs[4..], None),
        ] {
            let (got, error) = process_to_end(&mut *r);
            assert_eq!(got, expected, "{what}");
            assert_eq!(
                error.map(|e| e.offset()),
                rejected.map(|i| starts[i]),
                "{what}"
            );
        }
    }
}

/// A frame whose checksum does not match is never handed out: the error names it, and the
/// reader stays at it. (What asking again gives:
/// [`after_a_framing_error`](super::after_a_framing_error).)
pub fn checksum_mismatch_stays_at_the_frame<T: Driver>() {
    let msgs = sample();
    let (framer, deframer) = summed();
    let starts = starts(&msgs, 8);
    // The second frame's checksum field; a byte of the third frame's payload.
    for (flip, frame) in [(starts[1] + 4, 1), (starts[2] + 8 + 30, 2)] {
        let mut bytes = stream_with(framer, &msgs);
        bytes[flip as usize] ^= 0x01;
        for capacity in some_capacities::<T>() {
            let what = format!("{}: byte {flip} flipped, capacity {capacity:?}", T::NAME);
            let input = Input::new(bytes.clone()).with_capacity(capacity);
            let at = starts[frame];
            let mismatch = |e: Option<Error>| {
                assert!(
                    matches!(e, Some(Error::ChecksumMismatch { offset, .. }) if offset == at),
                    "{what}: {e:?}"
                );
            };
            let mut r = T::open(&input, deframer);
            let (got, error) = read_to_end(&mut *r);
            assert_eq!(got, msgs[..frame], "{what}");
            mismatch(error);
            assert_eq!(r.position(), starts[frame], "{what}");

            let mut r = T::open(&input, deframer);
            let (got, error) = process_to_end(&mut *r);
            assert_eq!(got, msgs[..frame], "{what}");
            mismatch(error);
        }
    }
}

/// `process_all` stopped with `ControlFlow::Break(())` after any number of frames, after any
/// number of `read_message`, resumes at the next frame: nothing lost, nothing repeated.
pub fn stops_and_resumes<T: Driver>() {
    let msgs = varied()[..12].to_vec();
    for capacity in some_capacities::<T>() {
        let input = Input::new(stream(&msgs)).with_capacity(capacity);
        for first in 0..3 {
            for stride in 1..=msgs.len() + 1 {
                let what = format!(
                    "{}: capacity {capacity:?}, {first} read, stride {stride}",
                    T::NAME
                );
                let r = &mut *T::open(&input, DefaultDeframer);
                assert_eq!(read_in_turns(r, first, stride).unwrap(), msgs, "{what}");
            }
        }
    }
}

/// An error returned by the `process_all` callback stops the loop and comes back stamped with
/// the offset of the frame it was given; that frame was handed out, so the next one follows.
pub fn callback_errors_carry_the_frame_offset<T: Driver>() {
    let bad = b"bad".to_vec();
    let after = b"after".to_vec();
    for msgs in [
        vec![b"ok".to_vec(), bad.clone(), after.clone()],
        vec![bad.clone(), after.clone()],
        // A first frame of 16 bytes fills a 16-byte buffer: the next is read on its own.
        vec![vec![0; 12], bad.clone(), after.clone()],
    ] {
        let starts = starts(&msgs, 4);
        let i = msgs.iter().position(|m| *m == bad).unwrap();
        for capacity in some_capacities::<T>() {
            let what = format!("{}: capacity {capacity:?}, bad frame {i}", T::NAME);
            let input = Input::new(stream(&msgs)).with_capacity(capacity);
            let mut r = T::open(&input, DefaultDeframer);
            let mut calls = 0;
            let err = r
                .process_all(&mut |p| {
                    calls += 1;
                    if p == b"bad" {
                        return Err(Error::validation("test", "bad payload", 0));
                    }
                    Ok(ControlFlow::Continue(()))
                })
                .unwrap_err();
            assert!(matches!(err, Error::Validation { .. }), "{what}: {err}");
            assert_eq!(err.offset(), starts[i], "{what}");
            assert_eq!(calls, i + 1, "{what}");
            assert_eq!(r.position(), starts[i + 1], "{what}");
            assert_eq!(r.read_message().unwrap(), Some(&after[..]), "{what}");
        }
    }
}

/// Over damaged bytes (every cut of a stream whose last frame claims more than the bound, and
/// a checksummed stream with a bit flipped in each byte), a `read_message` loop and
/// `process_all` give what the slice iterator `Frames` gives: the same payloads, the same
/// error, the same position after it; a reader that waits for the rest of a frame cut short
/// ([`Driver::CUT_FRAME_WAITS`]) ends there instead of its `UnexpectedEof`.
pub fn agrees_with_frames<T: Driver>() {
    let msgs = sample();
    let mut bytes = stream(&msgs);
    bytes.extend_from_slice(&1000u32.to_le_bytes());
    bytes.extend_from_slice(&[1; 20]);
    for cut in 0..=bytes.len() {
        same_as_frames::<T, _>(&bytes[..cut], DefaultDeframer, Some(500));
    }
    let (framer, deframer) = summed();
    let bytes = stream_with(framer, &msgs);
    for at in 0..bytes.len() {
        for bit in [0, 7] {
            let mut flipped = bytes.clone();
            flipped[at] ^= 1 << bit;
            same_as_frames::<T, _>(&flipped, deframer, None);
        }
    }
}

fn same_as_frames<T: Driver, D: Deframer + Copy>(data: &[u8], deframer: D, max: Option<usize>) {
    let mut it = Frames::new(data, deframer);
    if let Some(max) = max {
        it = it.with_max_frame_len(max);
    }
    let mut expected = (Vec::new(), None);
    for item in it.by_ref() {
        match item {
            Ok(p) => expected.0.push(p.to_vec()),
            Err(Error::UnexpectedEof { .. }) if T::CUT_FRAME_WAITS => {}
            Err(e) => expected.1 = Some(e.to_string()),
        }
    }
    let expected = (expected, it.position());
    let shown = |(got, error): Read| (got, error.map(|e| e.to_string()));
    for capacity in some_capacities::<T>() {
        let what = format!("{}: {data:?}, capacity {capacity:?}", T::NAME);
        let input = Input::new(data.to_vec())
            .with_capacity(capacity)
            .with_max_frame_len(max);
        let mut r = T::open(&input, deframer);
        let read = shown(read_to_end(&mut *r));
        assert_eq!((read, r.position()), expected, "{what}: read_message");
        let mut r = T::open(&input, deframer);
        let read = shown(process_to_end(&mut *r));
        assert_eq!((read, r.position()), expected, "{what}: process_all");
    }
}
